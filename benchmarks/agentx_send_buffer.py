"""Does a ~400 kB agent prompt go to the kernel in the one write? (#46 item 3)

Writes a 400 kB chat request to the simulator on fresh loopback connections, with the default
socket send buffer and with the raw client's 4 MiB (``transport/http1.py``
``SEND_BUFFER_BYTES``), and prints how many bytes the event loop still held after each write
(0: the whole request went to the kernel in that write).

    PYTHONPATH=. .venv/bin/python benchmarks/agentx_send_buffer.py
"""

from __future__ import annotations

import asyncio
import socket

from agentic_bench.endpoint.sim import SimConfig, SimServer
from agentic_bench.transport.http1 import SEND_BUFFER_BYTES


class Sink(asyncio.Protocol):
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        pass


async def main() -> None:
    server = SimServer(SimConfig(ttft_ms=0, itl_ms=0, output_tokens=1))
    port = await server.start()
    body = (b'{"model":"sim","messages":[{"role":"user","content":"' + b"word " * 80_000
            + b'"}]}')
    request = (b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: "
               b"application/json\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
    loop = asyncio.get_running_loop()
    for size in (None, SEND_BUFFER_BYTES):
        left = []
        for _ in range(10):
            transport, _ = await loop.create_connection(Sink, "127.0.0.1", port)
            if size:
                transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET,
                                                              socket.SO_SNDBUF, size)
            transport.write(request)  # type: ignore[attr-defined]
            left.append(transport.get_write_buffer_size())  # type: ignore[attr-defined]
            await asyncio.sleep(0.05)
            transport.close()
        print(f"SO_SNDBUF {size or 'default'}: request {len(request)} bytes; bytes left in "
              f"the loop's buffer after the write: {left}")
    await server.stop()


if __name__ == "__main__":
    asyncio.run(main())
