"""A stand-in for an OpenAI-compatible server (llama.cpp's, vLLM's, a hosted provider's) on 127.0.0.1:PORT.

    python standin_server.py PORT [--ignore-sigterm] [--die-on-completion] [--segfault-on-completion]
                             [--answer recency] [--fault KIND:N ...] [--fail-after N] [--fail-matching TEXT]
                             [--hang-matching TEXT] [--latency SECONDS]

It answers GET /v1/models, POST /v1/chat/completions and GET /stats (the completions asked for so far, faulty ones
included: the tests count what the response cache saved with it; the tokens its replies counted; the most
completions it worked on at once). Stdlib only, it starts in milliseconds, so the
start / ready / stop life cycle of `tombench.local` and the live tasks' behaviour under a misbehaving provider are
tested with a real HTTP server and client, not mocks:

* `--die-on-completion`, `--segfault-on-completion`: exit abruptly on the first completion (exit code 139, or a
  real SIGSEGV), as a llama.cpp build with code paths the CPU does not run does;
* `--answer recency`: answer with the offline recency baseline (deterministic, so a run against this server has
  the same samples and scores however often it is interrupted), not the fixed " In the basket. ";
* `--fault KIND:N`: every N-th completion request fails the KIND way (deterministic, repeatable): `500` (an
  internal server error), `429` (rate limited, with Retry-After: 1), `hang` (no reply for an hour: the client's
  timeout must end it), `truncate` (status 200 and half of the JSON body, with a matching Content-Length: the
  SDK's parser raises), `drop` (status 200, the full Content-Length announced, the connection closed mid-body);
* `--fail-after N`: every completion after the first N is a truncated reply (a provider gone bad for good);
* `--fail-matching TEXT`: every completion whose request body contains TEXT is a truncated reply (one setting's
  calls keep failing, the others' succeed);
* `--latency SECONDS`: each completion takes that long (concurrent ones overlap, as on a batching server);
* `--hang-matching TEXT`: every completion whose request body contains TEXT hangs (GET /stats counts them as
  "hanging": a test knows the run has reached those calls, e.g. the questions only the scored samples ask).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FAULTS = ("500", "429", "hang", "truncate", "drop")


class _Counter:
    """Completion requests so far (the handler threads share it)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.n = 0
        self.hanging = 0
        self.tokens = 0
        self.inflight = self.max_inflight = 0

    def next(self) -> int:
        with self.lock:
            self.n += 1
            return self.n


def _options(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser()
    ap.add_argument("port", type=int)
    ap.add_argument("--ignore-sigterm", action="store_true")
    ap.add_argument("--die-on-completion", action="store_true")
    ap.add_argument("--segfault-on-completion", action="store_true")
    ap.add_argument("--answer", choices=["fixed", "recency"], default="fixed")
    ap.add_argument("--fault", action="append", default=[], help="KIND:N, KIND one of " + ", ".join(FAULTS))
    ap.add_argument("--fail-after", type=int, default=None)
    ap.add_argument("--fail-matching", default=None)
    ap.add_argument("--hang-matching", default=None)
    ap.add_argument("--latency", type=float, default=0.0)
    opts = ap.parse_args(argv)
    opts.faults = []
    for spec in opts.fault:
        kind, _, every = spec.partition(":")
        if kind not in FAULTS or not every.isdigit() or int(every) < 1:
            ap.error(f"--fault {spec}: KIND:N with KIND one of {', '.join(FAULTS)} and N >= 1")
        opts.faults.append((kind, int(every)))
    return opts


OPTS: argparse.Namespace
COUNT = _Counter()


def _reply_text(body: dict) -> str:
    if OPTS.answer == "fixed":
        return " In the basket. "
    from tombench.models._baselines import answer

    user = next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")
    if isinstance(user, list):  # content parts
        user = "".join(p.get("text", "") for p in user)
    return answer("recency", user)


def _fault(n: int, raw: bytes) -> str | None:
    """The fault completion number `n` (its request body `raw`) gets, if any."""
    if OPTS.fail_after is not None and n > OPTS.fail_after:
        return "truncate"
    if OPTS.fail_matching is not None and OPTS.fail_matching.encode() in raw:
        return "truncate"
    if OPTS.hang_matching is not None and OPTS.hang_matching.encode() in raw:
        return "hang"
    return next((kind for kind, every in OPTS.faults if n % every == 0), None)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as real servers: a dropped reply then really drops a connection

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None, length: int | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body) if length is None else length))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        if self.path == "/stats":
            self._send(200, json.dumps({"completions": COUNT.n, "hanging": COUNT.hanging, "tokens": COUNT.tokens,
                                        "max_inflight": COUNT.max_inflight}).encode())
        elif self.path == "/v1/models":
            self._send(200, json.dumps({"object": "list", "data": [{"id": "standin", "object": "model"}]}).encode())
        else:
            self.send_error(404)

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        if self.path != "/v1/chat/completions":
            self.send_error(404)
            return
        raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if OPTS.segfault_on_completion:
            print("standin: general protection fault in the first matrix product", flush=True)
            # its default action (set at start: handler threads cannot) kills the process. Sent to this thread, not
            # to the process: a process-directed signal may be taken by another thread while this one goes on to
            # answer; the sleep covers the delivery, so no reply ever leaves
            signal.pthread_kill(threading.get_ident(), signal.SIGSEGV)
            time.sleep(60)
        if OPTS.die_on_completion:
            print("standin: general protection fault in the first matrix product", flush=True)
            os._exit(139)
        with COUNT.lock:
            COUNT.inflight += 1
            COUNT.max_inflight = max(COUNT.max_inflight, COUNT.inflight)
        try:
            self._complete(raw)
        finally:
            with COUNT.lock:
                COUNT.inflight -= 1

    def _complete(self, raw: bytes) -> None:
        n = COUNT.next()
        if OPTS.latency:
            time.sleep(OPTS.latency)
        fault = _fault(n, raw)
        if fault == "500":
            self._send(500, b'{"error": {"message": "internal error", "type": "server_error"}}')
            return
        if fault == "429":
            self._send(429, b'{"error": {"message": "rate limited", "type": "rate_limit_error"}}', {"Retry-After": "1"})
            return
        if fault == "hang":
            with COUNT.lock:
                COUNT.hanging += 1
            time.sleep(3600)
            return
        body = json.loads(raw)
        text = _reply_text(body)
        reply = json.dumps({
            "id": f"c{n}", "object": "chat.completion", "created": 0, "model": body.get("model", "standin"),
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 20, "completion_tokens": 4, "total_tokens": 24},
        }).encode()
        if fault == "truncate":
            self._send(200, reply[: len(reply) // 2])
        elif fault == "drop":
            self._send(200, reply[: len(reply) // 2], length=len(reply))
            self.close_connection = True
        else:
            with COUNT.lock:
                COUNT.tokens += 24
            self._send(200, reply)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - http.server's signature
        print(format % args, flush=True)


if __name__ == "__main__":
    OPTS = _options(sys.argv[1:])
    if OPTS.ignore_sigterm:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if OPTS.segfault_on_completion:
        signal.signal(signal.SIGSEGV, signal.SIG_DFL)
    ThreadingHTTPServer.daemon_threads = True
    server = ThreadingHTTPServer(("127.0.0.1", OPTS.port), _Handler)
    print("standin: listening", flush=True)
    server.serve_forever()
