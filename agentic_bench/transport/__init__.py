"""Network boundary: the streaming chat clients and their result type.

``make_chat_client`` returns the default :class:`RawChatClient` (timestamps in the read
callback) or :class:`AiohttpChatClient`; both satisfy :class:`ChatTransport`.
"""

from agentic_bench.transport.aiohttp_client import AiohttpChatClient
from agentic_bench.transport.base import ChatTransport
from agentic_bench.transport.choose import ENV_TRANSPORT, TRANSPORTS, make_chat_client
from agentic_bench.transport.raw_client import RawChatClient
from agentic_bench.transport.result import ERROR_TYPES, ChatResult
from agentic_bench.transport.sse import assemble_stream
from agentic_bench.transport.url import normalize_base_url, redact_url

__all__ = [
    "ENV_TRANSPORT",
    "ERROR_TYPES",
    "TRANSPORTS",
    "AiohttpChatClient",
    "ChatResult",
    "ChatTransport",
    "RawChatClient",
    "assemble_stream",
    "make_chat_client",
    "normalize_base_url",
    "redact_url",
]
