"""Recording proxy: an OpenAI-compatible pass-through that writes what goes through it as a trace.

``agentic-bench record --upstream URL --port P --out FILE``; see ``docs/recording.md``.
:class:`RecordingProxy` is the server (configured by a :class:`ProxyConfig`; it groups
requests into sessions by the :data:`SESSION_HEADER` header); :func:`run_proxy` serves it
until interrupted.
"""

from __future__ import annotations

from agentic_bench.proxy.run import run_proxy
from agentic_bench.proxy.server import SESSION_HEADER, ProxyConfig, RecordingProxy

__all__ = ["SESSION_HEADER", "ProxyConfig", "RecordingProxy", "run_proxy"]
