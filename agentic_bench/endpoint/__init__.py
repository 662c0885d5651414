"""Endpoints the harness can start itself: the embedded llama.cpp server, the in-process
model, and the latency simulator. ``resolve.open_endpoint`` turns ``--endpoint`` into one.

:class:`LlamaServer` runs llama.cpp's ``llama-server`` on loopback (our tool-call routing
in front when asked); :func:`locate_model` finds the GGUF
model file and :func:`model_sha256` identifies it; :class:`SimServer` is the
OpenAI-compatible latency simulator (``agentic-bench sim``) with the injected timings of a
:class:`SimConfig`. Heavy modules (llama_cpp) are imported only by the functions that need them.
"""

from agentic_bench.endpoint.llama_server import LlamaServer
from agentic_bench.endpoint.model_file import locate_model, model_sha256
from agentic_bench.endpoint.sim import SimConfig, SimServer

__all__ = ["LlamaServer", "SimConfig", "SimServer", "locate_model", "model_sha256"]
