"""What the live adversarial task is doing, on one line of Inspect's display.

Inspect's own progress counts samples: its "Steps" total is fixed at the seed's count (the search samples) while the
question samples the searches add are ticked too, so it reads e.g. `Steps: 190/4 4750%`; its "Samples: n/m" count
does grow as samples are added. A task cannot change either without patching Inspect, so this line says the rest
through Inspect's public `display_counter`: settings searched of settings, the search budget spent (in its unit,
never above 100%: a search that stops early leaves its rest unspent), the prompts answered, the stories found, and the question samples scored of those added. The
full-screen displays show it in their footer, `--display log` logs it (at most every `EVERY` seconds), `--display
plain` has no counters.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["LiveProgress"]

#: seconds between two updates of the line (the log display writes one log line per update)
EVERY = 5.0


class LiveProgress:
    """The live task's counters: built from its search samples, fed by its solver and its `SampleSource`."""

    def __init__(self, searches: Sequence[tuple[str, str, int]], unit: str, show: Callable[[str], None] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        """`searches`: (search sample id, its setting id, its budget in `unit`) of every search sample."""
        self.unit = unit
        self.budget = {sid: b for sid, _, b in searches}
        self.setting_of = {sid: setting for sid, setting, _ in searches}
        self.left: dict[str, int] = {}  # search samples not finished yet, per setting
        for _, setting, _ in searches:
            self.left[setting] = self.left.get(setting, 0) + 1
        self.spent: dict[str, int] = {}
        self.answered: dict[str, Callable[[], int]] = {}
        self.stories = self.questions = self.scored = self.failed = 0
        self.show = show if show is not None else _display_counter
        self.clock, self.shown_at = clock, float("-inf")

    def line(self) -> str:
        settings = len(self.left)
        searched = sum(1 for n in self.left.values() if n == 0)
        total = sum(self.budget.values())
        spent = sum(min(self.spent.get(s, 0), b) for s, b in self.budget.items())
        pct = 100 * spent // total if total else 100
        calls = sum(f() for f in self.answered.values())
        failed = f" ({self.failed} failed)" if self.failed else ""
        return (f"settings {searched}/{settings} searched{failed} · budget {pct}% ({spent:,}/{total:,} {self.unit}) · "
                f"{calls:,} prompts answered · {self.stories} stories found · "
                f"questions {self.scored}/{self.questions} scored")

    def update(self, force: bool = False) -> None:
        now = self.clock()
        if force or now - self.shown_at >= EVERY:
            self.shown_at = now
            self.show(self.line())

    # the solver's side
    def searching(self, sample_id: str, answered: Callable[[], int]) -> None:
        self.answered[sample_id] = answered

    def searched(self, sample_id: str, spent: int) -> None:
        self.spent[sample_id] = spent
        self.update()

    # the SampleSource's side
    def completed(self, sample: Any, kind: str, added: int) -> None:
        """A sample finished: a search (`kind` "search", `added` question samples from its kept stories) or a
        question."""
        sid = str(sample.id)
        if kind == "search" and sid in self.setting_of:
            setting = self.setting_of[sid]
            self.left[setting] = max(0, self.left[setting] - 1)
            self.failed += sample.error is not None
            self.stories += len(((sample.metadata or {}).get("search") or {}).get("stories", []))
            self.questions += added
            self.update(force=True)
        else:
            self.scored += 1
            self.update(force=self.scored == self.questions)


def _display_counter(text: str) -> None:
    from inspect_ai.util import display_counter

    display_counter("tombench", text)
