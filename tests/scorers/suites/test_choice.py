"""Suite answer matchers, intervals and macro-F1."""

from __future__ import annotations

import pytest

from tombench.kit.intervals import bootstrap_interval, wilson_interval
from tombench.scorers.suites.choice import match_choice
from tombench.scorers.suites.opentom import macro_f1

OPTS = ["green_drawer", "blue_crate", "red_bucket", "green_box"]


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ("B", "B"),
        ("B.", "B"),
        ("(b)", "B"),
        ("C) red_bucket", "C"),
        ("D. green_box", "D"),
        ("Answer: A", "A"),
        ("Let me think. The carrot moved twice.\nAnswer: D. green_box", "D"),
        ("The answer is (C).", "C"),
        ("It is in the blue_crate.", "B"),
        ("blue crate", "B"),
        ("green_box", "D"),  # not also green_drawer: whole option texts only
        ("either green_box or red_bucket", None),  # two options named: ambiguous
        ("(A) or (B)", None),
        ("I don't know", None),
        ("", None),
    ],
)
def test_letter_protocol(response: str, expected: str | None) -> None:
    assert match_choice(response, "ABCD", OPTS) == expected


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ("Answer:a)Noor believes the pitcher holds oat milk.", "a"),
        (" b) Noor believes it is almond milk.", "b"),
        ("a) or b)", None),  # the original credits this to the correct key; here it is ambiguous
        ("a) oat... Answer: b)", "b"),
        ("Noor believes the pitcher holds almond milk.", "b"),  # no key: the option text decides
        ("Noor does not know.", None),
        ("B", "b"),  # a lone letter, as the paper's grader was told to read it
        ("Answer: a", "a"),
    ],
)
def test_bigtom_protocol(response: str, expected: str | None) -> None:
    opts = ["Noor believes the pitcher holds oat milk.", "Noor believes the pitcher holds almond milk."]
    assert match_choice(response, "ab", opts, "bigtom") == expected


def test_wilson_is_honest_at_the_edges() -> None:
    lo, hi = wilson_interval(0, 20)
    assert lo == 0.0 and 0.1 < hi < 0.2
    lo, hi = wilson_interval(20, 20)
    assert hi == 1.0 and 0.8 < lo < 0.9
    lo, hi = wilson_interval(50, 100)
    assert lo == pytest.approx(1 - hi) and lo == pytest.approx(0.4038, abs=1e-3)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_macro_f1_and_bootstrap() -> None:
    gold = ["pos", "pos", "neg", "neu"]
    assert macro_f1(gold, gold) == 1.0
    assert macro_f1(gold, ["pos", "neg", "neg", None]) == pytest.approx((2 / 3 + 2 / 3 + 0) / 3)
    pairs = list(zip(gold * 10, gold * 10, strict=True))
    stat = lambda xs: macro_f1([x[0] for x in xs], [x[1] for x in xs])  # noqa: E731
    assert bootstrap_interval(pairs, stat) == (1.0, 1.0)
    noisy = pairs[:30] + [(g, "pos") for g, _ in pairs[30:]]
    lo, hi = bootstrap_interval(noisy, stat, seed=1)
    assert lo < stat(noisy) < hi and bootstrap_interval(noisy, stat, seed=1) == (lo, hi)


def _reference_macro_f1(gold: list[str], predicted: list[str | None]) -> float:
    """The definition, label by label (what `macro_f1` computes from pair counts)."""
    labels = sorted(set(gold))
    f1s = []
    for lab in labels:
        tp = sum(1 for g, p in zip(gold, predicted, strict=True) if g == lab and p == lab)
        fp = sum(1 for g, p in zip(gold, predicted, strict=True) if g != lab and p == lab)
        fn = sum(1 for g, p in zip(gold, predicted, strict=True) if g == lab and p != lab)
        f1s.append(2 * tp / (2 * tp + fp + fn) if tp else 0.0)
    return sum(f1s) / len(f1s)


@pytest.mark.parametrize("n", [1, 7, 300, 1024])
def test_seeded_draws_are_randranges(n: int) -> None:
    import random

    from tombench.scorers.suites.opentom import _randrange_stream

    stream = _randrange_stream(3, n, 250)
    ours = [int(x) for _ in range(4) for x in next(stream)]
    rng = random.Random(3)
    assert ours == [rng.randrange(n) for _ in range(1000)]


def test_macro_f1_interval_is_the_bootstrap_to_the_bit() -> None:
    import random

    from tombench.scorers.suites.opentom import macro_f1_interval

    rng = random.Random(7)
    labels = ["yes", "no", "more full", "less full", "positive"]
    gold = [rng.choice(labels) for _ in range(400)]
    predicted = [g if rng.random() < 0.6 else rng.choice([*labels, None, "other"]) for g in gold]
    assert macro_f1(gold, predicted) == _reference_macro_f1(gold, predicted)
    pairs = list(zip(gold, predicted, strict=True))
    stat = lambda xs: _reference_macro_f1([x[0] for x in xs], [x[1] for x in xs])  # noqa: E731
    for seed, resamples in ((0, 60), (5, 41)):
        assert macro_f1_interval(gold, predicted, resamples=resamples, seed=seed) == bootstrap_interval(
            pairs, stat, resamples=resamples, seed=seed
        )
    assert macro_f1_interval([], []) == (0.0, 1.0)
