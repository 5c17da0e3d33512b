"""Live smoke test against the real Hub: runs only with HF_TOKEN and TOMBENCH_TEST_HUB_REPO (a dataset repo the
token may write to, e.g. `me/tombench-leaderboard-test`). Covers what the local test server cannot: the real
server's auth, metadata validation (README and eval.yaml) and upload modes.
"""

from __future__ import annotations

import os
import uuid
from dataclasses import replace

import pytest

from tombench.leaderboard import LocalStore, fetch_rows, push_rows, submission_from_log

_TOKEN = os.environ.get("HF_TOKEN")  # read at import: the autouse fixture hides it from the offline tests
_REPO = os.environ.get("TOMBENCH_TEST_HUB_REPO")
_ENDPOINT = os.environ.get("TOMBENCH_TEST_HUB_ENDPOINT", "https://huggingface.co")


@pytest.mark.network
@pytest.mark.skipif(not (_TOKEN and _REPO), reason="live Hub test: set HF_TOKEN and TOMBENCH_TEST_HUB_REPO")
def test_push_to_the_real_hub(logs, tmp_path):
    """With its details and items, so the real Hub validates the card's three configs and eval.yaml's tasks."""
    sub = submission_from_log(logs["weak"])
    row = replace(sub.row, submission_id=f"smoke-{uuid.uuid4().hex[:12]}", notes="smoke test")
    store = LocalStore(tmp_path)
    store.add(row, submission=replace(sub, row=row))
    result = push_rows([row], _REPO, token=_TOKEN, endpoint=_ENDPOINT, private=True,
                       details={row.submission_id: store.details_path(row)}, items=store.item_files())
    assert result.added == [row.submission_id] and result.commit
    assert row.submission_id in {r.submission_id for r in fetch_rows(_REPO, token=_TOKEN, endpoint=_ENDPOINT)}
    again = push_rows([row], _REPO, token=_TOKEN, endpoint=_ENDPOINT)
    assert again.added == []
