"""Multiple-choice layout helpers."""

from __future__ import annotations

import pytest

from tombench.kit.errors import OptionError
from tombench.tasks.shared.choices import chance, digest, format_options, letters_for, shuffled
from tombench.tasks.shared.suite import as_list, one_of


def test_format_options_layouts() -> None:
    assert format_options(["x", "y"]) == "A. x\nB. y"
    assert format_options(["x", "y"], template="{letter}){text}", letters="ab") == "a)x\nb)y"
    assert format_options(["x", "y", "z"], sep=", ") == "A. x, B. y, C. z"
    with pytest.raises(ValueError):
        letters_for(27)


def test_shuffle_is_seeded_by_content_not_position() -> None:
    opts = [f"o{i}" for i in range(6)]
    key = digest("story", "question")
    assert shuffled(opts, key=key) == shuffled(opts, key=key)
    assert sorted(shuffled(opts, key=key)) == opts
    orders = {tuple(shuffled(opts, key=digest(str(i)))) for i in range(20)}
    assert len(orders) > 10  # different items get different orders
    assert chance(4) == 0.25


def test_option_lists_accept_what_inspect_passes() -> None:
    assert as_list("3,4") == ["3", "4"] and as_list(3) == ["3"] and as_list(["a", 2]) == ["a", "2"]
    assert one_of("order", 0, [0, 1]) == ["0"] and one_of("variable", "Forward_Belief", ["forward_belief"]) == [
        "forward_belief"]
    with pytest.raises(OptionError, match=r"Invalid order value\(s\): \['7'\]"):
        one_of("order", 7, [0, 1, 2, 3, 4])
