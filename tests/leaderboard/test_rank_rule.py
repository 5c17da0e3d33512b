"""The rank rule cannot be gamed by adding rows (issue #41 point 5), and settings that change no number neither
split rows nor stop their pairing (point 4)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from tombench.leaderboard import _ranking, build_view, latest_rows, row_from_log

from .rows_factory import clustered, config, row
from .tiny_task import make_log


def _board(rows):
    board = build_view(rows).boards[0]
    tests = _ranking.pair_tests([e.row for e in board.entries])
    ids = [e.row.submission_id for e in board.entries]
    beats = {(ids[i], ids[j]) for (i, j), t in tests.items() if t.better}
    return {e.row.submission_id: e.rank for e in board.entries}, beats


def _base(seed: int) -> list:
    """Six rows at different levels (an oracle, a tie at the bottom), each story's misses jittered."""
    rng = random.Random(seed)
    levels = [0, 2, 4, 7, 11, 11]
    return [clustered(f"m{i}", {s: max(0, level + rng.choice([-1, 0, 1])) for s in range(18)} if level else {},
                      submission_id=f"m{i}") for i, level in enumerate(levels)]


@pytest.fixture
def same_pairs_tested_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each pair's paired test computed once per distinct pair of answers: a copy answers as its original, and every
    board below holds the base rows again, so most of the boards' pairs repeat one another. The test is seeded
    (deterministic), so reusing it changes no p-value; the ranking rule itself runs on every board."""
    seen: dict = {}
    real = _ranking.paired_comparison

    def once(a, b, **kw):
        key = (tuple(sorted(a.items())), tuple(sorted(b.items())), tuple(sorted(kw.items())))
        if key not in seen:
            seen[key] = real(a, b, **kw)
        return seen[key]

    monkeypatch.setattr(_ranking, "paired_comparison", once)


def test_copies_and_noise_rows_never_undo_a_separation(same_pairs_tested_once):
    """Three copies of a row took Holm's family from 21 to 55 pairs and moved the oracle from rank 1 to =1. Now
    every pair's test is its own: copies and noise rows leave every separation, and rows they do not beat keep
    their ranks."""
    for seed in range(3):
        base = _base(seed)
        ranks, beats = _board(base)
        assert beats, "the base board should separate some rows"
        copies = [replace(r, model=f"{r.model}-copy{k}", submission_id=f"{r.submission_id}-copy{k}")
                  for r in base for k in range(3)]
        noise = [row(f"noise{k}", 0.75, ci_low=0.3, ci_high=1.0, submission_id=f"noise{k}") for k in range(5)]
        boards = {}
        for name, added in (("copies", copies), ("noise", noise), ("both", copies + noise)):
            after, beats_after = boards[name] = _board(base + added)
            assert beats <= beats_after  # every separation stays ...
            for a, b in beats:
                assert after[a] < after[b]  # ... and every row that beats another stays ranked above it
        after_noise, noise_beats = boards["noise"]
        assert not {a for a, _ in noise_beats if a.startswith("noise")}  # noise rows beat no row
        assert {k: after_noise[k] for k in ranks} == ranks  # so no row's rank moves
        top = [k for k, v in ranks.items() if v == 1]
        after_copies, _ = boards["copies"]
        assert all(after_copies[k] == 1 for k in top)  # nothing beats a top row, copies included


def test_settings_that_change_no_number_do_not_split_rows(tmp_path):
    """`-T cache=true`, a connection limit or a timeout made a row of its own, tested unpaired against its twin."""
    plain = make_log(tmp_path / "plain", (0, 1, 2, 3), "mockllm/m", temperature=0.0)
    tuned = make_log(tmp_path / "tuned", (0, 1, 2, 3), "mockllm/m", temperature=0.0, max_connections=3,
                     max_retries=2, timeout=50)
    a, b = row_from_log(plain), row_from_log(tuned)
    assert a.run_config != b.run_config  # the record keeps every setting ...
    assert a.config_hash == b.config_hash and a.dedup_key == b.dedup_key  # ... one configuration
    kept, older = latest_rows([a, b])
    assert len(kept) == 1 and len(older) == 1

    # rows pushed while the hash still counted such settings are grouped the same way (from their run_config)
    cached = row("m", 0.5, submission_id="c", config_hash="old-cached", run_config=config(task_args={"cache": True}))
    uncached = row("m", 0.5, submission_id="u", config_hash="old-plain", run_config=config())
    assert cached.dedup_key == uncached.dedup_key
    hot = row("m", 0.5, submission_id="h", config_hash="old-hot", run_config=config(generate_config={"temperature": 1}))
    assert hot.dedup_key != uncached.dedup_key
