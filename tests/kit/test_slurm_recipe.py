"""The docs' Slurm recipe, run on a real one-node Slurm (tests/kit/slurm_cluster.py): the docs' sbatch script as an
array of 3 shards (`-T shard=auto/3`) and the docs' merge job after it (`--dependency=afterok`) give the unsharded run's
`tombench report` byte for byte and one leaderboard row with its numbers.

The script and the merge command are read from the docs, so the test runs what a reader copies; only the script's
own variables (the shard count, the model, the task's options) and the sbatch options a 2-core node can grant are
set here. Needs root and Debian's slurmctld, slurmd and munge (installed by .ci/run); skips with one line otherwise.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tombench.leaderboard import LocalStore, row_from_log

from .slurm_cluster import Cluster, one_node_slurm

pytestmark = pytest.mark.slurm

DOCS = Path(__file__).parents[2] / "docs"
#: the script's variables: 3 shards of a 4-setting grid against an offline baseline, in one process each
RUN = {"SHARDS": "3", "MODEL": "tombench/recency",
       "ARGS": "-T action_sets=tomi -T asymmetric=both -T people=2 -T moves=2,3 -T budget=5 -T seed=0 -T workers=1"}
#: the array of 3, and the script's cores and memory made what a 2-core test node has (command line over #SBATCH)
ARRAY = ("--array=1-3", "--cpus-per-task=1", "--mem=500M")
#: seconds for the shards and the merge to run (about 30 on an idle 2-core machine)
JOBS_TIMEOUT = 240


def recipe() -> tuple[str, str]:
    """The docs' sbatch script (the one bash block with `#SBATCH --array`) and its merge command (the `--wrap` of
    `sbatch --dependency=afterok:<job id>`, its `...` a local board here instead of a Hub repo)."""
    found = [(page, block) for page in sorted(DOCS.rglob("*.md"))
             for block in re.findall(r"```bash\n(.*?)```", page.read_text(encoding="utf-8"), re.S)
             if "#SBATCH --array" in block]
    assert len(found) == 1, f"the docs have {len(found)} sbatch scripts with #SBATCH --array, not one"
    page, script = found[0]
    merge = re.search(r'--dependency=afterok:<job id>\s+--wrap\s+"([^"]*\.\.\.)"', page.read_text(encoding="utf-8"))
    assert merge, f"{page.relative_to(DOCS.parent)} has no `sbatch --dependency=afterok:<job id> --wrap \"...\"`"
    return script, merge.group(1).replace("...", "--local-dir board")


@pytest.fixture
def slurm(tmp_path: Path) -> Iterator[Cluster]:
    with one_node_slurm(tmp_path / "slurm") as cluster:
        yield cluster


def _unsharded(cluster: Cluster, env: dict[str, str]) -> tuple[str, Path]:
    """The same run in one piece (its own cache): its `tombench report` and its log."""
    env = {**env, "INSPECT_CACHE_DIR": str(cluster.work / "cache-whole")}
    run = ["inspect", "eval-set", "tombench/exploretom_adversarial", "--model", RUN["MODEL"], *shlex.split(RUN["ARGS"]),
           "--log-dir", "whole", "--display", "none"]
    for args in (run, ["tombench", "report", "whole/"]):
        done = subprocess.run(args, cwd=cluster.work, env=env, capture_output=True, text=True, timeout=JOBS_TIMEOUT,
                              check=False)
        assert done.returncode == 0, done.stderr[-2000:]
    (log,) = (cluster.work / "whole").glob("*.eval")
    return done.stdout, log


def _outputs(work: Path) -> str:
    """The jobs' output files, for a failure's message."""
    return "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-1500:]}" for p in sorted(work.glob("*.out")) +
                     sorted(work.glob("*.err")))


@pytest.mark.timeout(JOBS_TIMEOUT + 60)
def test_the_docs_slurm_array_and_merge_report_as_the_unsharded_run(slurm, isolated_hf):
    script, merge = recipe()
    work = slurm.work
    (work / "tombench.sbatch").write_text(script, encoding="utf-8")
    env = slurm.environ(**RUN, PATH=f"{Path(sys.executable).parent}:{slurm.environ()['PATH']}", HF_HUB_OFFLINE="1",
                        INSPECT_CACHE_DIR=str(work / "cache"), TOMBENCH_LEADERBOARD_HOME=str(work / "boards"))
    array = slurm.sbatch(*ARRAY, "tombench.sbatch", env=env)
    merged = slurm.sbatch(f"--dependency=afterok:{array}", "--output=merge.out", "--error=merge.err", "--wrap", merge,
                          env=env)
    whole_report, whole_log = _unsharded(slurm, env)  # while Slurm runs the shards
    slurm.wait_for_jobs(JOBS_TIMEOUT, array)
    assert slurm.states(array) == [("COMPLETED", "0:0")] * 3, _outputs(work)  # else the merge never runs
    slurm.wait_for_jobs(JOBS_TIMEOUT, merged)
    assert slurm.states(merged) == [("COMPLETED", "0:0")], _outputs(work)
    assert sorted(p.name for p in (work / "logs").iterdir()) == ["shard-1", "shard-2", "shard-3"]
    merged_out = (work / "merge.out").read_text(encoding="utf-8")
    # the merge job's output: `tombench report`'s, then `leaderboard push`'s lines
    assert merged_out[:len(whole_report)] == whole_report and "Table 1" in whole_report, _outputs(work)
    assert merged_out[len(whole_report):].startswith("added "), _outputs(work)
    (row,) = LocalStore(work / "board").rows()
    ref = row_from_log(whole_log)
    for name in ("accuracy", "samples_total", "items_digest", "config_hash", "settings_filled", "model_calls",
                 "total_tokens"):
        assert getattr(row, name) == getattr(ref, name), name
