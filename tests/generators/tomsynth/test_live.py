"""ToM-Synth against a real model: SmolLM2-135M served by llama.cpp (marker `local_model`, fixture in conftest).

A 135M model cannot write valid App. B items, so this checks the plumbing with real, unscripted outputs: a real
generation is parsed (or counted as a failure, with the raw output kept), stage 3 turns real verifier text into a
verdict, and `inspect eval` of the task completes with the grouped metrics in the log.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import GenerateConfig

from tests.generators.tomsynth.test_qc import make_item
from tombench.generators.tomsynth.generation import failures_path, generate_items
from tombench.generators.tomsynth.items import append_jsonl
from tombench.generators.tomsynth.parsing import JUDGMENTS
from tombench.generators.tomsynth.qc import stage3_verify
from tombench.generators.tomsynth.units import select_units
from tombench.tasks.tomsynth.tomsynth import tomsynth

pytestmark = pytest.mark.local_model


def test_generate_verify_eval_with_real_model(local_model_server, tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    model = local_model_server.get_model()
    out = tmp_path / "ts.jsonl"
    stats = asyncio.run(generate_items(model, select_units("1", seed=0), 1, out, max_retries=0, cache=False,
                                       config=GenerateConfig(max_tokens=120, temperature=0)))
    assert stats.calls == 1 and stats.generated + stats.failed == 1
    if stats.failed:
        (failure,) = [json.loads(line) for line in failures_path(out).read_text().splitlines()]
        assert failure["last_output"].strip() and sum(failure["errors"].values()) == 1

    items = [make_item(0, answer="A"), make_item(1, answer="C")]
    verdicts = asyncio.run(stage3_verify(items[:1], model, max_retries=0, cache=False,
                                         config=GenerateConfig(max_tokens=40, temperature=0)))
    assert {v["judgment"] for v in verdicts.values()} <= {*JUDGMENTS, "UNPARSED"}

    data = tmp_path / "items.jsonl"
    append_jsonl(data, (i.to_row() for i in items))
    for key, value in local_model_server.env.items():
        monkeypatch.setenv(key, value)
    (log,) = inspect_eval(tomsynth(data=str(data)), model=local_model_server.model, log_dir=str(tmp_path / "logs"),
                          max_tokens=16, temperature=0, display="none")
    assert log.status == "success"
    metrics = {name for s in log.results.scores for name in s.metrics}
    assert {"accuracy", f"dimension={items[0].dimension}", f"format={items[0].format}"} <= metrics
