"""The end-of-run summary `inspect eval` prints, as a user sees it (issue #32 point 6).

Inspect prints every metric the log holds, one line each, values as `.3f`, with no way for a task to hide or group
them; so the summary is exactly as long as the breakdown's key layout makes it. Checked here on the real command:
one mean and one count line per group (no stderr line for 0/1 scores), means as one block before the counts, and
the log still holding every group that `inspect view`, the reports and the leaderboard read.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from inspect_ai.log import read_eval_log

from tombench.kit.metrics import parse_breakdown

_LINE = re.compile(r"^(?P<name>\S.*?)\s+(?P<value>-?\d+\.\d{3}|nan)$")


def _summary(tmp_path: Path, *args: str) -> tuple[list[str], Path]:
    cmd = [sys.executable, "-m", "inspect_ai", "eval", *args, "--display", "plain", "--log-dir", str(tmp_path)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=tmp_path,
                         env={**os.environ, "COLUMNS": "120"})
    assert out.returncode == 0, out.stderr[-2000:]
    (log,) = tmp_path.glob("*.eval")
    return out.stdout.splitlines(), log


def test_exploretom_summary_is_one_mean_and_one_count_per_group(tmp_path: Path) -> None:
    lines, log_path = _summary(tmp_path, "tombench/exploretom_random", "--model", "tombench/recency", "--limit", "20")
    start = next(i for i, line in enumerate(lines) if line.strip() == "tom_answer")
    end = next(i for i, line in enumerate(lines) if line.strip().startswith("Log:"))
    shown = {}
    for line in lines[start + 1:end]:
        match = _LINE.match(line.strip())
        assert match, line
        shown[match["name"]] = match["value"]

    log = read_eval_log(str(log_path), header_only=True)  # what a log written without samples still carries
    metrics = {k: m.value for k, m in log.results.scores[0].metrics.items()}
    groups = parse_breakdown(metrics)
    assert len(groups) >= 8  # action set, interesting, orders, asymmetry, people, moves
    assert list(shown) == list(metrics)[:2] + [k for k in metrics if "=" in k]  # accuracy, stderr, then the groups
    assert len(shown) == 2 + 2 * len(groups) and not any(k.endswith(":stderr") for k in shown)
    names = list(shown)
    last_mean = max(names.index(f"{g.dimension}={g.group}") for g in groups)
    assert last_mean < min(names.index(f"{g.dimension}={g.group}:n") for g in groups)  # means read as one block
    for g in groups:  # every group's mean, count and (recomputed) stderr, as the readers get them
        assert shown[f"{g.dimension}={g.group}"] == f"{g.value:.3f}" and g.n is not None and g.stderr is not None
    assert sum(g.n for g in groups if g.dimension == "order") == log.results.scores[0].scored_samples
    assert len(lines) <= 45  # 51 before: 3 lines per group
