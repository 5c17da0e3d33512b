"""One real chat completion against a running local server: the check that the build runs on this CPU.

A llama.cpp build can start, load the model and answer `/v1/models`, and still die on its first matrix product: a
build with code paths the machine does not really run (AMX tile instructions on a virtual machine whose
CPU advertises AMX but does not enable it) faults inside the first completion. So "ready" is not "works"; this asks
for one short greedy completion and reports what came back, or why nothing did.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from tombench.local._errors import ServerStartError
from tombench.local._server import LocalServer, tail

#: the check's question: short, so the completion takes well under a second on any CPU that runs the build
CHECK_PROMPT = "Sally puts the ball in the basket and leaves. Anne moves it to the box. Where will Sally look for it?"


@dataclass(frozen=True)
class CompletionCheck:
    """What one real completion returned and how long it took (wall seconds, request to reply)."""

    reply: str
    seconds: float
    completion_tokens: int


def _exits(server: LocalServer, grace: float = 5.0) -> bool:
    """Whether the server is gone, allowing it `grace` seconds: a crashing process has closed its socket (so the
    client already failed) a moment before the kernel reports it exited."""
    deadline = time.monotonic() + grace
    while server.running:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def check_completion(server: LocalServer, *, timeout: float = 120.0, max_tokens: int = 16) -> CompletionCheck:
    """Ask the server for one greedy completion; raise `ServerStartError` (with the log's tail) if none comes back.

    The OpenAI client's own retries are off: a server that died answers "connection refused", and retrying a dead
    server only hides the crash for longer.
    """
    from openai import OpenAI, OpenAIError

    client = OpenAI(base_url=server.base_url, api_key=server.api_key, timeout=timeout, max_retries=0)
    started = time.monotonic()
    try:
        response = client.chat.completions.create(
            model=server.alias,
            messages=[{"role": "user", "content": CHECK_PROMPT}],
            max_tokens=max_tokens,
            temperature=0.0,
        )
    except OpenAIError as exc:
        state = f"exited on its first completion ({server.exit_cause()})" if _exits(server) else \
            f"is running but did not answer its first completion ({type(exc).__name__})"
        raise ServerStartError(f"the local server {state}; see its log: {server.log_path}",
                               log_tail=tail(server.log_path)) from None
    usage = response.usage
    return CompletionCheck(
        reply=(response.choices[0].message.content or "").strip(),
        seconds=time.monotonic() - started,
        completion_tokens=usage.completion_tokens if usage else 0,
    )
