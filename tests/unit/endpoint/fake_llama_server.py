"""A stand-in for ``llama-server``: answers GET /v1/models on --host/--port.

Invoked through a generated wrapper as ``fake -m MODEL --alias ... --port P ...``.
Behaviour switches (environment): FAKE_EXIT=<code> exits at once after writing to stderr;
FAKE_IGNORE_TERM=1 ignores SIGTERM; FAKE_DELAY_S=<s> waits before listening.
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
    parser = argparse.ArgumentParser()
    parser.add_argument("-m")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    args, _ = parser.parse_known_args()
    if "FAKE_EXIT" in os.environ:
        print("fake server: something went wrong at start-up", file=sys.stderr, flush=True)
        sys.exit(int(os.environ["FAKE_EXIT"]))
    if os.environ.get("FAKE_IGNORE_TERM"):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    time.sleep(float(os.environ.get("FAKE_DELAY_S", "0")))
    print(f"fake server listening on {args.host}:{args.port}", file=sys.stderr, flush=True)
    http.server.ThreadingHTTPServer((args.host, args.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
