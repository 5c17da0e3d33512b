"""`shard=auto/N` (kit.options.scheduler_shard): a Kubernetes Indexed Job's or a Slurm array's task index picks the
shard, with one line when it cannot; the 3 shards of the live task run that way report as the unsharded run."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from inspect_ai import eval

import tombench._registry  # noqa: F401  (registers the tombench/<name> models)
from tombench.cli import main
from tombench.kit.errors import OptionError
from tombench.kit.logs import read_log, shard_of
from tombench.kit.options import check_shard
from tombench.leaderboard import LocalStore, row_from_log
from tombench.reports import exploretom_records, load_records
from tombench.tasks.exploretom.adversarial import exploretom_adversarial

#: the variable each engine sets and the values its N = 3 tasks get: Kubernetes counts from 0, `--array=1-3` from 1
ENGINES = {"kubernetes": ("JOB_COMPLETION_INDEX", ["0", "1", "2"]), "slurm": ("SLURM_ARRAY_TASK_ID", ["1", "2", "3"])}
#: the search in one process: a worker count changes no story (tests/generators/exploretom/search/test_workers.py),
#: and each of the 7 runs would pay its workers' start-up
LIVE = {"action_sets": "tomi", "asymmetric": "both", "people": 2, "moves": "2,3", "budget": 5, "workers": 1}


@pytest.fixture(autouse=True)
def _no_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """No scheduler's variable leaks in from the machine the tests run on (a CI job on Kubernetes or Slurm)."""
    for var, _ in ENGINES.values():
        monkeypatch.delenv(var, raising=False)


@pytest.mark.parametrize("engine", ENGINES)
def test_auto_takes_k_from_the_engines_task_index(engine, monkeypatch):
    var, values = ENGINES[engine]
    got = []
    for value in values:
        monkeypatch.setenv(var, value)
        got.append(check_shard("shard", "auto/3"))
    assert got == [(1, 3), (2, 3), (3, 3)]
    assert check_shard("shard", "AUTO/3", environ={var: values[1]}) == (2, 3)
    assert check_shard("shard", "2/3", environ={var: values[0]}) == (2, 3)  # K/N given: the index is not read


@pytest.mark.parametrize(("environ", "says"), [
    ({}, "auto takes K from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) or SLURM_ARRAY_TASK_ID (a Slurm array), "
         "and neither is set: give K/N"),
    ({"JOB_COMPLETION_INDEX": "3"}, "JOB_COMPLETION_INDEX='3' is not a shard of 3: run a Kubernetes Indexed Job with "
                                    "completions: 3"),
    ({"SLURM_ARRAY_TASK_ID": "0"}, "SLURM_ARRAY_TASK_ID='0' is not a shard of 3: run a Slurm array with --array=1-3"),
    ({"SLURM_ARRAY_TASK_ID": "x"}, "SLURM_ARRAY_TASK_ID='x' is not a shard of 3"),
    ({"SLURM_ARRAY_TASK_ID": "1", "JOB_COMPLETION_INDEX": "0"}, "Both JOB_COMPLETION_INDEX and SLURM_ARRAY_TASK_ID "
                                                                "are set, so the shard is ambiguous: give K/N"),
])
def test_auto_without_a_usable_index_is_one_line(environ, says):
    with pytest.raises(OptionError) as err:
        check_shard("shard", "auto/3", environ=environ)
    assert str(err.value).startswith("Invalid shard value: 'auto/3'. ") and says in str(err.value)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("spec", ["auto", "auto/0", "auto/x", "auto/3/1"])
def test_auto_needs_a_shard_count(spec):
    with pytest.raises(OptionError, match=r"Must be K/N with 1 <= K <= N .* or auto/N"):
        check_shard("shard", spec, environ={"SLURM_ARRAY_TASK_ID": "1"})


def test_the_cli_reads_the_same_index(monkeypatch, tmp_path):
    args = ["search", "--model", "tombench/recency", "--story-types", "tomi", "--asymmetric", "plain", "--people", "2",
            "--moves", "2",
            "--shard", "auto/3", "--out", str(tmp_path / "run")]
    r = CliRunner().invoke(main, args)
    assert r.exit_code != 0 and "Invalid --shard value: 'auto/3'. auto takes K" in r.output and "Traceback" not in \
        r.output
    monkeypatch.setenv("SLURM_ARRAY_TASK_ID", "2")  # the grid has one setting: shard 2/3 is empty
    r = CliRunner().invoke(main, args)
    assert r.exit_code != 0 and "shard 2/3 has no settings" in r.output


def _eval(folder: Path, **task_args) -> Path:
    (log,) = eval(exploretom_adversarial(**LIVE, **task_args), model="tombench/recency", log_dir=str(folder),
                  display="none")
    assert log.status == "success", log.error
    return Path(log.location)


def _cells(paths: list[Path]) -> list[tuple]:
    return sorted((r.action_set, r.asymmetric, r.order, r.people, r.moves, r.interesting, r.correct)
                  for r in exploretom_records(load_records(paths)))


def _report(folder: Path) -> str:
    r = CliRunner().invoke(main, ["report", "tables", str(folder)], terminal_width=200)
    assert r.exit_code == 0, r.output
    return r.output


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> Path:
    with pytest.MonkeyPatch.context() as env:
        env.setenv("INSPECT_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        return _eval(tmp_path_factory.mktemp("whole"))


@pytest.mark.timeout(600)
@pytest.mark.parametrize("engine", ENGINES)
def test_the_live_tasks_auto_shards_report_as_the_unsharded_run(engine, whole, tmp_path, monkeypatch, isolated_hf):
    """The job array's 3 tasks run one command line (`-T shard=auto/3`), each with its engine's index set: their
    logs say shards 1/3, 2/3, 3/3, `tombench report` prints of them the unsharded run's tables, and
    `leaderboard push` makes of them one row with the unsharded run's numbers."""
    var, values = ENGINES[engine]
    logs = []
    for value in values:
        monkeypatch.setenv(var, value)
        monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / f"cache-{value}"))  # token usage: no shared cache
        logs.append(_eval(tmp_path / "shards", shard="auto/3"))
    monkeypatch.delenv(var)
    assert [shard_of(read_log(p, header_only=True)) for p in logs] == [(1, 3), (2, 3), (3, 3)]
    assert _cells(logs) == _cells([whole]) and _cells(logs)
    assert _report(tmp_path / "shards") == _report(whole.parent)
    monkeypatch.setenv("TOMBENCH_LEADERBOARD_HOME", str(tmp_path / "boards"))
    r = CliRunner().invoke(main, ["leaderboard", "push", *map(str, logs), "--local-dir", str(tmp_path / "board")])
    assert r.exit_code == 0, r.output
    (row,) = LocalStore(tmp_path / "board").rows()
    ref = row_from_log(whole)
    for field in ("accuracy", "samples_total", "items_digest", "config_hash", "settings_filled", "model_calls",
                  "total_tokens"):
        assert getattr(row, field) == getattr(ref, field), field
