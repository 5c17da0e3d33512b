"""benchmarks/gpu_server.py: its tokenizer, batched greedy decoding equal to one-by-one decoding, and its HTTP answers.

A tiny model on the CPU (2 layers, hidden 64, vocab 1000); the CUDA-graph path also runs there on stand-ins for
torch.cuda's streams and graphs, and its test on the card needs a GPU (`--run-gpu`).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import sys
import threading
import types
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("aiohttp")

from aiohttp import web  # noqa: E402
from aiohttp.test_utils import TestClient, TestServer  # noqa: E402

SERVER = Path(__file__).resolve().parents[2] / "benchmarks" / "gpu_server.py"


def _module():
    spec = importlib.util.spec_from_file_location("gpu_server", SERVER)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["gpu_server"] = mod  # dataclasses look their module up by name
    spec.loader.exec_module(mod)
    return mod


gs = _module()
TINY = gs.Config(hidden=64, layers=2, heads=4, kv_heads=2, intermediate=128, vocab=1000, max_len=256)
MESSAGES = [{"role": "system", "content": "Answer with one word."},
            {"role": "user", "content": "Sally puts the ball in the basket. Where will Anne look for the ball?"}]


def _model(device: str = "cpu", **kw) -> object:
    """float32 on any device: in bf16 a batch's other shapes could flip a near-tie between two tokens."""
    return gs.Model(kw.pop("cfg", TINY), device, torch.float32, seed=0, max_batch=16, **kw)


def _prompts() -> list[list[int]]:
    gen = torch.Generator().manual_seed(1)
    return [torch.randint(gs.N_SPECIAL, TINY.vocab, (n,), generator=gen).tolist() for n in (3, 17, 40, 29)]


def test_the_tokenizer_is_deterministic_one_token_a_word_and_chatml() -> None:
    a, b = gs.Tokenizer(1000), gs.Tokenizer(1000)
    ids = a.encode("Where is the ball? In the basket.")
    assert ids == b.encode("Where is the ball? In the basket.")
    assert len(ids) == 9 and all(gs.N_SPECIAL <= i < 1000 for i in ids)
    assert ids[2] == ids[6]  # "the" twice
    chat = a.chat(MESSAGES)
    assert chat[0] == gs.IM_START and chat.count(gs.IM_START) == 3 and chat.count(gs.IM_END) == 2
    assert chat[-2:] == [gs.IM_START, *a.encode("assistant")]
    assert a.chat([{"role": "user", "content": [{"type": "text", "text": "Where is the ball?"}]}]) == \
        a.chat([{"role": "user", "content": "Where is the ball?"}])
    assert gs.Tokenizer.decode([17, 404]) == "w17 w404"


def test_a_batch_of_mixed_lengths_decodes_as_each_prompt_alone() -> None:
    model, prompts, new = _model(), _prompts(), [6, 9, 12, 4]
    batched = model.generate(prompts, new)
    alone = [model.generate([p], [m])[0] for p, m in zip(prompts, new, strict=True)]
    assert batched == alone
    assert [len(a) for a in batched] == new  # no IM_END among these (it would end an answer early)
    assert len({tuple(a[:4]) for a in batched}) > 1  # the prompts matter: not one token repeated for all


def test_requests_that_cannot_share_the_cache_are_served_apart() -> None:
    model = _model(cfg=gs.Config(hidden=64, layers=2, heads=4, kv_heads=2, intermediate=128, vocab=1000, max_len=96))
    long_prompt, short_prompt = _prompts()[2], _prompts()[0]
    out = model.generate([long_prompt, short_prompt], [4, 60])
    assert out == [model.generate([long_prompt], [4])[0], model.generate([short_prompt], [60])[0]]


class _Stream:
    def __init__(self, cuda: _CudaOnTheCpu) -> None:
        self.cuda = cuda

    def wait_stream(self, other: _Stream) -> None:
        self.cuda.side_first = self is not self.cuda.default and other is self.cuda.default


class _CudaOnTheCpu:
    """torch.cuda's streams and graphs on the CPU, in CUDA's worst order. Work runs at once, except that an integer
    tensor cloned on the default stream after a side stream waited on it reads, until the default stream waits on the
    side one, as the stale memory it may hold when the side stream runs first (a huge value here). A graph's capture
    records the steps instead of running them; its replay runs them."""

    def __init__(self, model: object, monkeypatch: pytest.MonkeyPatch) -> None:
        self.model, self.default = model, _Stream(self)
        self.current, self.side_first = self.default, False
        clone = torch.Tensor.clone

        def stale_clone(t: torch.Tensor, *args: object, **kwargs: object) -> torch.Tensor:
            out = clone(t, *args, **kwargs)
            if self.side_first and self.current is self.default and not out.is_floating_point():
                out.fill_(1 << 40)
            return out

        monkeypatch.setattr(torch.Tensor, "clone", stale_clone)
        for name, value in (("Stream", lambda: _Stream(self)), ("current_stream", lambda: self.current),
                            ("stream", self.stream), ("CUDAGraph", types.SimpleNamespace), ("graph", self.graph)):
            monkeypatch.setattr(torch.cuda, name, value)

    @contextlib.contextmanager
    def stream(self, stream: _Stream):
        self.current = stream
        try:
            yield
        finally:
            self.current = self.default

    @contextlib.contextmanager
    def graph(self, graph: types.SimpleNamespace):
        steps, step = [], self.model._step
        self.model._step = lambda rows, keys: steps.append((rows, keys))
        try:
            yield
        finally:
            del self.model._step
        graph.replay = lambda: [step(*s) for s in steps]


def test_cuda_graph_decoding_equals_eager_decoding_whichever_stream_runs_first(monkeypatch) -> None:
    """The warm-up before a capture reads copies of the step's inputs on a side stream: copied after that stream's
    wait, they could be read unwritten, and stale positions indexed RoPE's table out of range on the card."""
    prompts, new = _prompts(), [6, 9, 12, 4]
    eager = _model().generate(prompts, new)
    model = _model(cuda_graphs=True)
    _CudaOnTheCpu(model, monkeypatch)
    assert model.generate(prompts, new) == eager
    assert model.generate(prompts[:3], new[:3]) == eager[:3]  # a second batch replays the captured graph
    assert list(model.static.graphs) == [(8, 128)]


@pytest.mark.timeout(60)
def test_a_failing_batch_answers_500_and_the_engine_serves_the_next() -> None:
    model, calls = _model(), []
    generate = model.generate

    def fails_once(prompts: list[list[int]], max_new: list[int]) -> list[list[int]]:
        calls.append(len(prompts))
        if len(calls) == 1:
            raise RuntimeError("the first batch breaks")
        return generate(prompts, max_new)

    model.generate = fails_once
    body = {"model": "smollm2-135m-random", "messages": MESSAGES, "max_tokens": 3}

    async def exchange() -> tuple[list[int], list[dict], int]:
        async with TestClient(TestServer(gs.make_app(model, max_batch=16, wait_ms=100))) as client:
            first = await asyncio.gather(*(client.post("/v1/chat/completions", json=body) for _ in range(3)))
            later = await client.post("/v1/chat/completions", json=body)
            return [r.status for r in first], [await r.json() for r in first], later.status

    statuses, payloads, later = asyncio.run(exchange())
    assert statuses.count(500) == calls[0] and statuses.count(200) == 3 - calls[0]
    failed = payloads[statuses.index(500)]["error"]
    assert failed["type"] == "server_error" and "the first batch breaks" in failed["message"]
    assert later == 200


async def _exchange(app: web.Application) -> tuple[list[dict], dict, dict, int]:
    async with TestClient(TestServer(app)) as client:
        body = {"model": "smollm2-135m-random", "messages": MESSAGES, "temperature": 0, "max_tokens": 7}
        answers = await asyncio.gather(*(client.post("/v1/chat/completions", json=body) for _ in range(6)))
        payloads = [await r.json() for r in answers]
        models = await (await client.get("/v1/models")).json()
        bad = await client.post("/v1/chat/completions", data=b"not json")
        served = await (await client.get("/served")).json()
        return payloads, models, served, bad.status


def test_the_endpoint_answers_in_openai_shape_with_real_usage_and_batches() -> None:
    model = _model()
    app = gs.make_app(model, max_batch=16, wait_ms=200)
    payloads, models, served, bad = asyncio.run(_exchange(app))
    prompt_tokens = len(gs.Tokenizer(TINY.vocab).chat(MESSAGES))
    expected = model.generate([gs.Tokenizer(TINY.vocab).chat(MESSAGES)], [7])[0]
    for p in payloads:
        assert p["object"] == "chat.completion" and p["choices"][0]["finish_reason"] == "length"
        assert p["choices"][0]["message"] == {"role": "assistant", "content": gs.Tokenizer.decode(expected)}
        assert p["usage"] == {"prompt_tokens": prompt_tokens, "completion_tokens": 7, "total_tokens": prompt_tokens + 7}
    assert models["data"][0]["id"] == "smollm2-135m-random"
    assert bad == 400
    assert served["requests"] == 6 and served["batches"] < 6 and served["gpu_seconds"] > 0


@pytest.mark.timeout(60)
def test_the_openai_sdk_gets_an_answer_over_http() -> None:
    openai = pytest.importorskip("openai")
    loop = asyncio.new_event_loop()
    runner = web.AppRunner(gs.make_app(_model(), max_batch=16))
    loop.run_until_complete(runner.setup())
    loop.run_until_complete(web.TCPSite(runner, "127.0.0.1", 0).start())
    port = runner.addresses[0][1]
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        client = openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="none", max_retries=0, timeout=30)
        out = client.chat.completions.create(model="smollm2-135m-random", messages=MESSAGES, max_tokens=5,
                                             temperature=0)
        assert out.usage.completion_tokens == 5 and len(out.choices[0].message.content.split()) == 5
        assert [m.id for m in client.models.list()] == ["smollm2-135m-random"]
    finally:
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)


@pytest.mark.gpu
def test_cuda_graph_decoding_equals_eager_decoding_and_the_cpu() -> None:
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    prompts, new = _prompts(), [6, 9, 12, 4]
    eager = _model("cuda").generate(prompts, new)
    assert eager == _model().generate(prompts, new)  # the GPU's kernels agree with the CPU's
    graphs = _model("cuda", cuda_graphs=True)
    assert graphs.generate(prompts, new) == eager
    assert graphs.generate(prompts[:3], new[:3]) == eager[:3]  # a second batch replays the captured graph
