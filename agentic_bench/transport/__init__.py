"""Network boundary: the streaming chat client and its result type."""

from agentic_bench.transport.client import AiohttpChatClient, ChatTransport
from agentic_bench.transport.result import ERROR_TYPES, ChatResult
from agentic_bench.transport.sse import assemble_stream
from agentic_bench.transport.url import normalize_base_url, redact_url

__all__ = [
    "ERROR_TYPES",
    "AiohttpChatClient",
    "ChatResult",
    "ChatTransport",
    "assemble_stream",
    "normalize_base_url",
    "redact_url",
]
