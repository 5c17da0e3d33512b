"""Integration tests against a REAL language model (SmolLM2-135M-Instruct served by llama.cpp), fully offline.

They run by default and in CI (which installs the `local` extra and the model package); without those they skip
with the reason. Generation is kept to a few dozen tokens per call, so the module takes seconds.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.terminal import terminal_popen
from tombench.local import DEFAULT_ALIAS, LocalModelUnavailable, LocalServer, check_server_extra, packaged_gguf

pytestmark = pytest.mark.local_model

STORY = (
    "Anne and Bob are in the kitchen. Anne puts the apple in the basket. Anne leaves the kitchen. "
    "Bob moves the apple from the basket to the box."
)
QUESTION = "Where will Anne look for the apple?"


def _generate_twice(server: LocalServer, prompt: str) -> list:
    from inspect_ai.model import GenerateConfig

    model = server.get_model(config=GenerateConfig(temperature=0.0, max_tokens=24, seed=0))

    async def run() -> list:
        return [await model.generate(prompt), await model.generate(prompt)]

    return asyncio.run(run())


def test_server_answers_models(local_model_server: LocalServer) -> None:
    with urllib.request.urlopen(f"{local_model_server.base_url}/models", timeout=10) as response:
        payload = json.loads(response.read())
    assert DEFAULT_ALIAS in [entry["id"] for entry in payload["data"]]
    assert local_model_server.model == "openai-api/local/smollm2-135m"


def test_real_completion_is_greedy_deterministic(local_model_server: LocalServer) -> None:
    first, second = _generate_twice(local_model_server, "Name three colours.")
    assert first.completion.strip()
    assert first.usage is not None and first.usage.input_tokens > 0 and first.usage.output_tokens > 0
    assert first.completion == second.completion
    assert first.usage.output_tokens == second.usage.output_tokens


def test_every_request_is_computed_from_an_empty_cache(local_model_server: LocalServer) -> None:
    """Issue #19.5: the answer to a prompt does not depend on what was asked before it.

    llama.cpp would reuse the previous request's KV cache for the longest common prefix (the log says "prefix-match
    hit") and evaluate the rest in a different batch split; our server wrapper resets the model before each request.
    """
    from inspect_ai.model import GenerateConfig

    model = local_model_server.get_model(config=GenerateConfig(temperature=0.0, max_tokens=16, seed=0))
    prompts = [f"{STORY}\n{QUESTION} Short Answer.", f"{STORY}\nWhere is the apple? Short Answer."]

    async def run() -> list[str]:
        order = [prompts[0], prompts[0], prompts[1], prompts[0], prompts[1], prompts[1]]
        return [(await model.generate(p)).completion for p in order]

    a1, a2, b1, a3, b2, b3 = asyncio.run(run())
    assert a1 == a2 == a3 and b1 == b2 == b3
    assert "prefix-match hit" not in local_model_server.log_path.read_text(errors="replace")


def test_tom_style_prompt_returns_text(local_model_server: LocalServer) -> None:
    output, _ = _generate_twice(local_model_server, f"{STORY}\n{QUESTION} Short Answer.")
    assert output.stop_reason in ("stop", "max_tokens")
    assert any(ch.isalpha() for ch in output.completion)


def test_inspect_eval_reaches_the_server_through_the_environment(
    local_model_server: LocalServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The route users take: `inspect eval ... --model openai-api/local/<alias>` with LOCAL_BASE_URL/LOCAL_API_KEY."""
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import GenerateConfig
    from inspect_ai.scorer import includes
    from inspect_ai.solver import generate

    for key, value in local_model_server.env.items():
        monkeypatch.setenv(key, value)
    task = Task(
        dataset=[Sample(input=f"{STORY}\n{QUESTION} Short Answer.", target="basket")],
        solver=generate(),
        scorer=includes(),
        config=GenerateConfig(temperature=0.0, max_tokens=24),
    )
    [log] = eval(task, model=local_model_server.model, log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    [sample] = log.samples
    assert sample.output.completion.strip()
    usage = log.stats.model_usage[local_model_server.model]
    assert usage.input_tokens > 0 and usage.output_tokens > 0


def test_serve_command_prints_the_model_and_stops_on_ctrl_c() -> None:
    try:
        check_server_extra()
        packaged_gguf()
    except LocalModelUnavailable as exc:
        pytest.skip(f"local model not available: {exc}")
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "COLUMNS": "200", "TERM": "dumb"}
    # as from a terminal (`tests.terminal`): a test run started in the background (`pytest &`, `nohup ... &`) ignores
    # SIGINT, the child inherits that, and Python then installs no Ctrl-C handler at all (two CI runs of this session)
    proc = terminal_popen(
        [sys.executable, "-m", "tombench", "serve"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    lines: list[str] = []
    try:
        deadline = time.monotonic() + 90
        assert proc.stdout is not None
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line)
            if line.startswith("Ctrl-C stops"):
                break
        text = "".join(lines)
        assert "openai-api/local/smollm2-135m" in text, text
        base_url = next(line.split("=", 1)[1].strip() for line in lines if line.startswith("export LOCAL_BASE_URL="))
        assert "export LOCAL_API_KEY=local" in text
        pid = int(next(line.split()[-1] for line in lines if line.startswith("pid")))
        with urllib.request.urlopen(f"{base_url}/models", timeout=10) as response:
            assert response.status == 200
        proc.send_signal(signal.SIGINT)
        rest, _ = proc.communicate(timeout=30)  # the stop takes at most 15 s (SIGTERM, 10 s grace, SIGKILL, 5 s)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, text + rest
    assert "local server stopped" in rest
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
