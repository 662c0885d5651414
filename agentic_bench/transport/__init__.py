"""Network boundary: the streaming chat clients, the per-request context and the result type.

``make_chat_client`` returns the default :class:`RawChatClient` (timestamps in the read
callback) or :class:`AiohttpChatClient`: both are the :class:`ChatClient` chat layer (body
preparation and error records, once) over their own byte-level sender, and both satisfy
:class:`ChatTransport`. Each ``chat`` call takes its :class:`RequestContext` explicitly
(headers, ``user``, ``on_chunk``; :data:`NO_CONTEXT` by default) and returns a
:class:`ChatResult` (errors are results, of the :data:`ERROR_TYPES`). :func:`assemble_stream`
turns a reply's timestamped chunks into a result; :func:`normalize_base_url` and
:func:`redact_url` handle endpoint URLs; ``TRANSPORTS`` / ``ENV_TRANSPORT`` name the clients
and the environment variable that picks one.
"""

from agentic_bench.transport.aiohttp_client import AiohttpChatClient
from agentic_bench.transport.base import ChatTransport
from agentic_bench.transport.chat import ChatClient
from agentic_bench.transport.choose import ENV_TRANSPORT, TRANSPORTS, make_chat_client
from agentic_bench.transport.raw_client import RawChatClient
from agentic_bench.transport.request import NO_CONTEXT, RequestContext
from agentic_bench.transport.result import ERROR_TYPES, ChatResult
from agentic_bench.transport.sse import assemble_stream
from agentic_bench.transport.url import normalize_base_url, redact_url

__all__ = [
    "ENV_TRANSPORT",
    "ERROR_TYPES",
    "NO_CONTEXT",
    "TRANSPORTS",
    "AiohttpChatClient",
    "ChatClient",
    "ChatResult",
    "ChatTransport",
    "RawChatClient",
    "RequestContext",
    "assemble_stream",
    "make_chat_client",
    "normalize_base_url",
    "redact_url",
]
