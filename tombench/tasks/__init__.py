"""tombench's Inspect tasks, one folder per eval as inspect_evals lays one out.

Each eval folder (`exploretom`, `tomi`, `hitom`, `bigtom`, `opentom`, `fantom`, `simpletom`, `tom_bench`, `tomsynth`,
`persuasion`) holds its task module(s), a README.md (what it measures, data, options, scoring, evaluation report)
and an eval.yaml; its `__init__` exports its tasks and `tombench/_registry.py` registers them with Inspect.
`shared/` is the helper package the evals share (story samples, multiple-choice layout, suite metadata).
"""
