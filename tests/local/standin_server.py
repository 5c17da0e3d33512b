"""A stand-in for llama.cpp's server: answers GET /v1/models on 127.0.0.1:PORT, nothing else.

Run as `python standin_server.py PORT [--ignore-sigterm]`. It lets the start / ready / stop life cycle of
`tombench.local` be tested without the `local` extra or the model (stdlib only, starts in milliseconds).
"""

from __future__ import annotations

import json
import signal
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        if self.path != "/v1/models":
            self.send_error(404)
            return
        body = json.dumps({"object": "list", "data": [{"id": "standin", "object": "model"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - http.server's signature
        print(format % args, flush=True)


if __name__ == "__main__":
    if "--ignore-sigterm" in sys.argv:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    print("standin: listening", flush=True)
    HTTPServer(("127.0.0.1", int(sys.argv[1])), _Handler).serve_forever()
