"""Traces: the trace model, a streaming JSONL reader/writer and validation.

The model (:data:`SCHEMA_VERSION`): a :class:`Session` of :class:`Turn` s, each a user message
and its :data:`Step` s — :class:`LlmStep` (with its :class:`AssistantOutput`,
:class:`ToolCall` s and :class:`Usage`), :class:`ToolStep`, and the RAG stages
:class:`EmbedStep`, :class:`RetrieveStep` (of :class:`Document` s) and :class:`RerankStep` —
and the :class:`References` a scorer checks. Reading: :class:`TraceFile` (validated on open)
and :func:`iter_raw_lines`; :func:`validate_file` collects every problem into a
:class:`ValidationReport`. Writing: :func:`session_to_json` and :func:`write_sessions`.
"""

from agentic_bench.trace.jsonl import (
    TraceFile,
    ValidationReport,
    iter_raw_lines,
    session_to_json,
    validate_file,
    write_sessions,
)
from agentic_bench.trace.model import (
    SCHEMA_VERSION,
    AssistantOutput,
    Document,
    EmbedStep,
    LlmStep,
    References,
    RerankStep,
    RetrieveStep,
    Session,
    Step,
    ToolCall,
    ToolStep,
    Turn,
    Usage,
)

__all__ = [
    "SCHEMA_VERSION",
    "AssistantOutput",
    "Document",
    "EmbedStep",
    "LlmStep",
    "References",
    "RerankStep",
    "RetrieveStep",
    "Session",
    "Step",
    "ToolCall",
    "ToolStep",
    "TraceFile",
    "Turn",
    "Usage",
    "ValidationReport",
    "iter_raw_lines",
    "session_to_json",
    "validate_file",
    "write_sessions",
]
