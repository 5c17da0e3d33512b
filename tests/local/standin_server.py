"""A stand-in for llama.cpp's server: answers GET /v1/models and POST /v1/chat/completions on 127.0.0.1:PORT.

Run as `python standin_server.py PORT [--ignore-sigterm] [--die-on-completion] [--segfault-on-completion]`; the last
two make it exit abruptly on its first completion, as a llama.cpp build with code paths the CPU does not run does
(issue #32): with exit code 139, or killed by a real SIGSEGV. It lets the start / ready / stop life cycle of
`tombench.local` be tested without the `local` extra or the model (stdlib only, starts in milliseconds).
"""

from __future__ import annotations

import json
import os
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

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        if self.path != "/v1/chat/completions":
            self.send_error(404)
            return
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if "--segfault-on-completion" in sys.argv:
            print("standin: general protection fault in the first matrix product", flush=True)
            signal.signal(signal.SIGSEGV, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGSEGV)
        if "--die-on-completion" in sys.argv:
            print("standin: general protection fault in the first matrix product", flush=True)
            os._exit(139)
        body = json.dumps({
            "id": "c1", "object": "chat.completion", "created": 0, "model": "standin",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": " In the basket. "}}],
            "usage": {"prompt_tokens": 20, "completion_tokens": 4, "total_tokens": 24},
        }).encode()
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
