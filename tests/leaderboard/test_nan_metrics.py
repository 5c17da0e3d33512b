"""Metrics the log holds as NaN (a mean over no readable score) never break a push: other metrics and groups with
no value are kept as null or left out, a NaN headline is refused in one line."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from tombench.leaderboard import LogError, row_from_log

SAMPLE = Path(__file__).resolve().parents[2] / "tombench" / "data" / "persuasion" / "ctompersu_sample.json"


@pytest.fixture(scope="module")
def persuasion_log(tmp_path_factory) -> str:
    """persuasion_fixed graded by the recency baseline: the grader's verdicts are unreadable, so `persuasive` is NaN."""
    from inspect_ai import eval as inspect_eval

    from tombench.tasks.persuasion.persuasion import persuasion_fixed

    [log] = inspect_eval(persuasion_fixed(dataset=str(SAMPLE)), model="tombench/recency",
                         log_dir=str(tmp_path_factory.mktemp("logs")), display="none")
    return log.location


def test_a_nan_metric_is_null_in_the_row(persuasion_log: str) -> None:
    row = row_from_log(persuasion_log)
    persuasive = {m.name: m.value for m in row.other_metrics if m.scorer == "persuasive"}
    assert persuasive and all(v is None for v in persuasive.values())
    assert math.isfinite(row.accuracy)
    assert json.loads(row.to_json())["other_metrics"]  # JSON without NaN (allow_nan=False)


def test_a_nan_headline_is_refused(persuasion_log: str, tmp_path: Path) -> None:
    from inspect_ai.log import read_eval_log, write_eval_log

    log = read_eval_log(persuasion_log)
    for score in log.results.scores:
        for m in score.metrics.values():
            m.value = float("nan")
    path = tmp_path / Path(persuasion_log).name
    write_eval_log(log, str(path))
    with pytest.raises(LogError, match="is not a number"):
        row_from_log(str(path))
