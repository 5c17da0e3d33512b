"""llama-cpp-python's OpenAI-compatible server, with every request computed from an empty KV cache.

    python -m tombench.local._llama_server --model m.gguf --model_alias smollm2-135m --port 8123 ...

Same command line and behaviour as `python -m llama_cpp.server`, with one change: before each request the model's
state is reset. Why: `Llama.generate` keeps the previous request's tokens in the KV cache and evaluates only the part
of a new prompt after the longest common prefix (the server log says "N prefix-match hit"). The logits of the new
prompt then come from a different split of the prompt into batches than when it is asked cold, and on some CPU
kernels that changes the floating-point result, so greedy decoding of the same prompt can depend on what was asked
before it (the same prompt sent twice gave two different greedy answers). With a reset, a prompt is
always evaluated whole, from position 0, in the same batches: its answer depends on the prompt alone. The cost is
re-reading the shared prefix (the system prompt and story), a fraction of a second for a 135M model.

llama-cpp-python has no server setting for this (its `cache` option adds a state cache, it does not turn prefix
reuse off), so the proxy class that hands the model to each request is replaced by one that resets it. The proxy
is called inside the server's per-model lock, so no request can see another's state.
"""

from __future__ import annotations

from typing import Any


def _install_fresh_state_proxy() -> None:
    """Make the server's app build a proxy whose model is reset each time a request takes it."""
    import llama_cpp.server.app as app
    from llama_cpp.server.model import LlamaProxy

    class FreshStateProxy(LlamaProxy):
        def __call__(self, model: str | None = None) -> Any:
            llama = super().__call__(model)
            llama.reset()  # n_tokens = 0: the next generate() finds no prefix to reuse and clears the KV cache
            return llama

    app.LlamaProxy = FreshStateProxy  # `create_app` -> `set_llama_proxy` looks the name up in this module


def main() -> None:
    """Run llama-cpp-python's server `main()` (its own argument parsing and uvicorn) with the fresh-state proxy; it
    exits by itself when the process that started it dies (`kit.orphans`), however that process ended."""
    import os

    from tombench.kit.orphans import PARENT_ENV, exit_when_orphaned

    if os.environ.get(PARENT_ENV, "").isdigit():
        exit_when_orphaned(int(os.environ[PARENT_ENV]))
    _install_fresh_state_proxy()
    from llama_cpp.server.__main__ import main as server_main

    server_main()


if __name__ == "__main__":
    main()
