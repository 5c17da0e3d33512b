"""The helper package the evals share, and the conventions every suite eval follows.

Shared: `story_questions` (samples from DSL stories, the paper's prompt: ExploreToM and ToMi), `choices` (lettered
options, a content-seeded order, chance), `suite` (a suite task's metadata and option checks).

Suites: `tomi` (tombench/tasks/tomi/tomi.py), `hitom`, `bigtom`, `opentom`, `fantom`, `simpletom`, `tom_bench`, one
eval folder each (its README.md and the module's docstring have the usage lines); `tombench report suites LOGS` puts
their headlines side by side.

Conventions (one eval folder per suite, `tombench/tasks/<suite>/`: `<suite>.py`, `__init__.py` exporting the task,
README.md, eval.yaml):

1. **Pinned data, at the top of the module.** `SOURCE = HubFile(repo, filename, revision=<40-hex sha>)` where the
   authors publish on the Hub, else `UrlFile(url, sha256=..., member=...)` (the authors' GitHub release at a commit,
   pinned by SHA-256). Also `PAPER_ITEMS` (the count the paper reports) and `LICENSE`. The task's `data=PATH`
   option replaces the download with a local copy. `kit.pinning.fetch(SOURCE, data, suite=...)` returns the path and
   the provenance dict (`fetch_files` for a release of several files); every user error (offline, hash mismatch,
   missing file) is one `OptionError` line.
2. **Reading is separate from converting.** `load_records(path) -> list[dict]` parses the real file layout (field
   names as released); `record_to_sample(record, ...) -> Sample` is a *pure* function, tested on inline records
   written in the real layout. Sample ids are content identities (`choices.digest` of the item's text), never a row
   number, so a re-released file with the same items keeps its ids.
3. **The `@task` function only assembles**: validate options early (`suite.one_of`, one-line `OptionError`),
   fetch, load, filter, build samples, and return `Task(dataset, solver, scorer, metrics, config, version,
   metadata=suite.suite_metadata(...))`.
4. **The suite's own protocol.** The prompt (vanilla prompting as in the paper, verbatim format), the answer format
   and the matcher of the paper; every deliberate difference goes into the eval's README.md. Multiple choice: the
   options are laid out with `choices.format_options` in the paper's layout; sample metadata holds `letters` (the labels
   as shown), `options` (texts in shown order) and `chance` (1/k); when the paper shuffles options, shuffle with
   `choices.shuffled(options, key=<item digest>)` (seeded by content, reproducible). Score with
   `tombench.scorers.suites.choice.choice_answer(protocol)` or the suite's own scorer.
5. **Metrics.** `Task(metrics=suite_metrics(DIMENSIONS))` logs `accuracy`, `stderr`, `accuracy_ci_low/high`
   (Wilson 95%), `chance` (mean 1/k over the samples scored, from each sample's `chance` or `k`; not logged when
   a scored item is free-form) and `breakdown` keys `dim=value` (+`:n`; `kit.metrics`) for every dimension in the
   suite's table.
   A headline that is not a plain accuracy (OpenToM macro-F1, FANToM All*) is a metric of its own named in the
   task metadata, logged with `{headline}_ci_low` / `{headline}_ci_high` (bootstrap or Wilson over the counted
   units). Every scorer still reports `accuracy` (the leaderboard needs it).
6. **Task metadata** (`suite.suite_metadata`): `suite`, `benchmark`, `headline` (metric name) and `headline_groups`
   (breakdown dimensions of the suite's own table), both from the suite's record (8.), `chance` (mean 1/k over all items built, before `--limit` /
   `--sample-id`; None for free-form: the report reads the logged `chance` metric first), `dataset_id`,
   `dataset_revision`, `dataset_sha256`, `dataset_pinned`, `dataset_records` (items in the file), plus anything
   suite-specific. `tombench report suites` and `tombench leaderboard push` read these keys.
7. **Offline baselines.** Each suite has a fixture in the real layout under `tests/tasks/<suite>/fixtures/`; its test
   runs the task on it with the baselines, and the chance test checks that `tombench/random` lands on `chance`
   exactly in expectation (it sees k options and exactly one of its k possible answers scores).
8. **Registry.** Add the suite's record (`SuiteInfo`: name, task name, label, headline, groups, test fixture) to
   `tombench/kit/suites.py`, which every list of suites reads (`tombench report suites`, `tombench tasks`, the
   benchmarks, the tests), and the task to `tombench/_registry.py` (the task module imports only light modules at
   import time: heavy libraries inside the task function).
"""

from tombench.kit.pinning import HubFile, UrlFile, fetch
from tombench.tasks.shared.choices import chance, digest, format_options, letters_for, shuffled
from tombench.tasks.shared.suite import as_list, one_of, suite_metadata

__all__ = [
    "HubFile",
    "UrlFile",
    "as_list",
    "chance",
    "digest",
    "fetch",
    "format_options",
    "letters_for",
    "one_of",
    "shuffled",
    "suite_metadata",
]
