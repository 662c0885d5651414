"""A stand-in for ``python -m llama_cpp.server``: answers GET /v1/models on --host/--port.

Invoked through a generated "python" wrapper as ``fake -m MODULE --model ... --port P ...``.
Behaviour switches (environment): FAKE_EXIT=<code> exits at once after writing to stderr;
FAKE_IGNORE_TERM=1 ignores SIGTERM; FAKE_DELAY_S=<s> waits before listening.
``fake -c CODE`` (the system-info probe) prints a line and exits.
"""

from __future__ import annotations

import argparse
import http.server
import json
import os
import signal
import sys
import time


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = json.dumps({"object": "list", "data": [{"id": "smollm2"}]}).encode()
        self.send_response(200 if self.path == "/v1/models" else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def main() -> None:
    if sys.argv[1:2] == ["-c"]:
        print("FAKE SYSTEM INFO")
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("-m")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    args, _ = parser.parse_known_args()
    if "FAKE_EXIT" in os.environ:
        print("fake server: something went wrong at start-up", file=sys.stderr, flush=True)
        sys.exit(int(os.environ["FAKE_EXIT"]))
    if args.m == "agentic_bench.endpoint.chatml_tools":  # what the real launcher does
        from agentic_bench.endpoint.llama_server import watch_parent_from_env

        watch_parent_from_env(interval_s=0.1)
    if os.environ.get("FAKE_IGNORE_TERM"):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    time.sleep(float(os.environ.get("FAKE_DELAY_S", "0")))
    print(f"fake server listening on {args.host}:{args.port}", file=sys.stderr, flush=True)
    http.server.ThreadingHTTPServer((args.host, args.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
