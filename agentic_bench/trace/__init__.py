"""Trace model, streaming JSONL reader/writer and validation."""

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
