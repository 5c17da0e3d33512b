"""An OpenAI-compatible chat server that does a small LLM's real GPU work per request: a vLLM stand-in for lent GPUs.

    python benchmarks/gpu_server.py --port 8000                      # SmolLM2-135M's shape, bf16 on CUDA
    python benchmarks/gpu_server.py --port 8000 --max-batch 512 --layers 15   # about twice the requests/s
    python benchmarks/gpu_server.py --bench 256 400 40               # one batch vs one by one, no server

Why: the live adversarial task's scale case is a GPU-served model answering many short chat prompts, but the lent GPU
machines have no network, no vLLM and no model weights. So this server builds a decoder-only transformer of
SmolLM2-135M's shape (hidden 576, 30 layers, 9 heads with 3 KV heads (GQA), SwiGLU 1536, vocab 49152, RoPE, RMSNorm,
tied embeddings) in plain torch with RANDOM, seeded weights. ITS ANSWERS ARE MEANINGLESS ("w123 w4567 ..."). What is
real is the work: each request is tokenised (one token per word, hashed into the vocabulary: no tokenizer files),
put in a chat template, prefilled with a KV cache and greedily decoded for its max_tokens, and requests are batched
dynamically, as a serving engine does. Its throughput is therefore an honest order of magnitude for a small model on
the card, not a promise of vLLM's.

How: one thread runs batch after batch (the requests waiting, up to --max-batch, after at most --wait-ms for more), so
HTTP parsing and the GPU never wait for each other and two batches never share the GPU. A batch is right-padded and
prefilled in one causal pass (no mask: the flash kernel serves it), then decoded step by step against a preallocated
KV cache; on CUDA each step is one CUDA-graph replay (--no-cuda-graphs: eager, where a step's ~900 kernel launches
from Python, not the GPU, set the pace).

Endpoints: POST /v1/chat/completions (non-streaming; temperature is ignored, decoding is always greedy),
GET /v1/models, GET /served ({"requests", "batches", "mean_batch", "gpu_seconds"}). Prints "ready <base_url>" once it
accepts requests. Only torch and aiohttp are needed.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import hashlib
import queue
import re
import sys
import threading
import time
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F
from aiohttp import web

PAD, IM_START, IM_END = 0, 1, 2  # SmolLM2's ids for <|endoftext|>, <|im_start|>, <|im_end|>; IM_END ends an answer
N_SPECIAL = 16  # ids below this are never a word's
_WORD = re.compile(r"\w+|[^\w\s]")


@dataclass(frozen=True)
class Config:
    """The model's shape (SmolLM2-135M's by default) and the longest prompt + answer the KV cache holds."""

    hidden: int = 576
    layers: int = 30
    heads: int = 9
    kv_heads: int = 3
    intermediate: int = 1536
    vocab: int = 49152
    rope_theta: float = 100000.0
    eps: float = 1e-5
    max_len: int = 2048

    @property
    def head_dim(self) -> int:
        return self.hidden // self.heads


class Tokenizer:
    """Words and punctuation marks hashed into the vocabulary: deterministic, file-free, about a BPE's token count."""

    def __init__(self, vocab: int) -> None:
        self.vocab = vocab
        self.word_id = functools.lru_cache(maxsize=1 << 17)(self._hash)  # prompts repeat most of their words

    def _hash(self, word: str) -> int:
        digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
        return N_SPECIAL + int.from_bytes(digest, "little") % (self.vocab - N_SPECIAL)

    def encode(self, text: str) -> list[int]:
        return [self.word_id(w) for w in _WORD.findall(text)]

    def chat(self, messages: list[dict]) -> list[int]:
        """ChatML, as SmolLM2-Instruct's template: <|im_start|>role content<|im_end|> ..., then the assistant's tag."""
        ids: list[int] = []
        for m in messages:
            ids += [IM_START, *self.encode(str(m.get("role", "user"))), *self.encode(_content(m.get("content"))), IM_END]
        return [*ids, IM_START, *self.encode("assistant")]

    @staticmethod
    def decode(ids: list[int]) -> str:
        return " ".join(f"w{i}" for i in ids)


def _content(content: object) -> str:
    """A message's text: a string, or the text parts of a list of content parts (the SDK's other shape)."""
    if isinstance(content, list):
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return "" if content is None else str(content)


def _round_up(n: int, m: int) -> int:
    return -(-n // m) * m


@dataclass
class _Static:
    """Decode inputs at fixed addresses, so that a decode step can be captured once as a CUDA graph and replayed."""

    ids: torch.Tensor  # [max_batch, 1] the last generated token; the step writes the next one here
    pos: torch.Tensor  # [max_batch, 1] its position; the step adds one
    valid: torch.Tensor  # [max_batch, 1, 1, max_len] which cache slots a row may attend to
    slot: torch.Tensor  # [1] the cache slot this step writes
    graphs: dict = field(default_factory=dict)


class Model:
    """The transformer with random weights (std 0.02, seeded), a KV cache for max_batch rows, and greedy generation."""

    def __init__(self, cfg: Config, device: str = "cpu", dtype: torch.dtype = torch.float32, seed: int = 0,
                 max_batch: int = 256, cuda_graphs: bool = False) -> None:
        self.cfg, self.device, self.max_batch, self.cuda_graphs = cfg, torch.device(device), max_batch, cuda_graphs
        gen = torch.Generator().manual_seed(seed)

        def w(*shape: int) -> torch.Tensor:
            return (torch.randn(*shape, generator=gen) * 0.02).to(self.device, dtype)

        hd, kv = cfg.head_dim, cfg.kv_heads
        ones = torch.ones(cfg.hidden, device=self.device, dtype=dtype)
        self.embed = w(cfg.vocab, cfg.hidden)  # tied: also the output head, as in SmolLM2
        # q, k, v and gate, up fused into one matrix each (as serving engines do): fewer kernel launches per layer
        self.blocks = [{"ln1": ones, "qkv": w((cfg.heads + 2 * kv) * hd, cfg.hidden), "o": w(cfg.hidden, cfg.hidden),
                        "ln2": ones, "gate_up": w(2 * cfg.intermediate, cfg.hidden),
                        "down": w(cfg.hidden, cfg.intermediate)} for _ in range(cfg.layers)]
        self.norm = ones
        inv = 1.0 / cfg.rope_theta ** (torch.arange(0, hd, 2, dtype=torch.float64) / hd)
        angles = torch.outer(torch.arange(cfg.max_len, dtype=torch.float64), inv)
        self.cos, self.sin = angles.cos().to(self.device, dtype), angles.sin().to(self.device, dtype)
        self.cache = torch.zeros(cfg.layers, 2, max_batch, kv, cfg.max_len, hd, device=self.device, dtype=dtype)
        self.static = _Static(torch.zeros(max_batch, 1, dtype=torch.long, device=self.device),
                              torch.zeros(max_batch, 1, dtype=torch.long, device=self.device),
                              torch.zeros(max_batch, 1, 1, cfg.max_len, dtype=torch.bool, device=self.device),
                              torch.zeros(1, dtype=torch.long, device=self.device))

    def _rope(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        x1, x2 = x.chunk(2, -1)
        return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), -1)

    def forward(self, ids: torch.Tensor, pos: torch.Tensor, mask: torch.Tensor | None, rows: int, keys: int,
                write_at: torch.Tensor, last: torch.Tensor | None = None) -> torch.Tensor:
        """Logits at each row's token `last` [B] (default: its final one). ids, pos [B, T]; the new keys and values go
        to cache slots write_at [T] of rows [0, rows). mask None: a prefill, causal over the new keys alone (no mask,
        so the flash kernel serves it); else a decode step (T = 1) over cache slots [0, keys), mask [B, 1, 1, keys]."""
        c = self.cfg
        b, t = ids.shape
        hd, rep = c.head_dim, c.heads // c.kv_heads
        cos, sin = self.cos[pos].unsqueeze(1), self.sin[pos].unsqueeze(1)
        x = F.embedding(ids, self.embed)
        for layer, blk in enumerate(self.blocks):
            h = F.rms_norm(x, (c.hidden,), blk["ln1"], c.eps)
            q, k, v = F.linear(h, blk["qkv"]).split([c.heads * hd, c.kv_heads * hd, c.kv_heads * hd], -1)
            q = self._rope(q.view(b, t, c.heads, hd).transpose(1, 2), cos, sin)
            k = self._rope(k.view(b, t, c.kv_heads, hd).transpose(1, 2), cos, sin)
            v = v.view(b, t, c.kv_heads, hd).transpose(1, 2)
            kc, vc = self.cache[layer, 0, :rows], self.cache[layer, 1, :rows]
            kc.index_copy_(2, write_at, k)
            vc.index_copy_(2, write_at, v)
            if mask is None:
                a = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
            else:  # GQA without copying K/V: a KV head's `rep` query heads become `rep` queries of one head
                q = q.reshape(b, c.kv_heads, rep, hd)
                a = F.scaled_dot_product_attention(q, kc[:, :, :keys], vc[:, :, :keys], attn_mask=mask)
            x = x + F.linear(a.reshape(b, c.heads, t, hd).transpose(1, 2).reshape(b, t, c.hidden), blk["o"])
            gate, up = F.linear(F.rms_norm(x, (c.hidden,), blk["ln2"], c.eps), blk["gate_up"]).chunk(2, -1)
            x = x + F.linear(F.silu(gate) * up, blk["down"])
        x = x[:, -1] if last is None else x[torch.arange(b, device=x.device), last]
        return F.linear(F.rms_norm(x, (c.hidden,), self.norm, c.eps), self.embed)

    def _prefill(self, prompts: list[list[int]], width: int) -> torch.Tensor:
        """Fills the cache's first width slots from the prompts, returns each row's first new token. Right padding: a
        real token never sees a padding one under a plain causal mask; decode steps mask the padding slots out."""
        b = len(prompts)
        lens = torch.tensor([len(p) for p in prompts])
        ids = torch.tensor([p + [PAD] * (width - len(p)) for p in prompts]).to(self.device)
        st = self.static
        st.valid[:b].zero_()
        st.valid[:b, 0, 0, :width] = (torch.arange(width) < lens[:, None]).to(self.device)
        st.pos[:b, 0] = (lens - 1).to(self.device)
        slots = torch.arange(width, device=self.device)
        return self.forward(ids, slots.expand(b, width), None, b, width, slots, last=st.pos[:b, 0]).argmax(-1)

    def _step(self, rows: int, keys: int) -> None:
        """One decode step on the static inputs: attends, writes the next token into ids, advances pos."""
        st = self.static
        st.pos[:rows] += 1
        nxt = self.forward(st.ids[:rows], st.pos[:rows], st.valid[:rows, :, :, :keys], rows, keys, st.slot).argmax(-1)
        st.ids[:rows, 0] = nxt

    def _graph_step(self, rows: int, keys: int) -> None:
        """The decode step as a CUDA graph per (rows, keys) bucket: one launch instead of ~20 per layer."""
        st = self.static
        graph = st.graphs.get((rows, keys))
        if graph is None:
            self._warm_up(rows, keys)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                self._step(rows, keys)
            st.graphs[(rows, keys)] = graph  # only once captured: a failed capture is tried again, not replayed
        graph.replay()

    def _warm_up(self, rows: int, keys: int) -> None:
        """Runs this very step twice on a side stream, as a capture wants, then puts ids and pos back (the cache slot
        they wrote gets the same values again). The copies of ids and pos are queued before the side stream waits on
        this one: queued after, they could still be waiting behind the batch's prefill when the side stream reads
        them, and stale memory read as positions indexes RoPE's table out of range (a device-side assert, which ends
        the process's CUDA context)."""
        st = self.static
        saved = (st.ids[:rows].clone(), st.pos[:rows].clone())
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(2):
                st.ids[:rows], st.pos[:rows] = saved
                self._step(rows, keys)
        torch.cuda.current_stream().wait_stream(side)
        st.ids[:rows], st.pos[:rows] = saved

    @torch.inference_mode()
    def generate(self, prompts: list[list[int]], max_new: list[int]) -> list[list[int]]:
        """Greedy answers: each prompt's max_new[i] tokens, cut after IM_END if the model says it (then included)."""
        steps = max(max_new)
        width = _round_up(max(map(len, prompts)), 16)  # aligned key lengths suit the fused attention kernels
        b, keys = len(prompts), _round_up(width + steps, 16)
        if b > self.max_batch or (keys > self.cfg.max_len and b == 1):
            raise ValueError(f"a batch of {b} x {keys} slots exceeds the cache's {self.max_batch} x {self.cfg.max_len}")
        if keys > self.cfg.max_len:  # a long prompt and a long answer from two requests: serve them apart
            half = b // 2
            return self.generate(prompts[:half], max_new[:half]) + self.generate(prompts[half:], max_new[half:])
        st = self.static
        first = self._prefill(prompts, width)
        rows = b
        if self.cuda_graphs:  # buckets: few graphs to capture; the extra rows and keys are masked-out work
            rows = min(self.max_batch, 1 << max(3, (b - 1).bit_length()))
            keys = min(self.cfg.max_len, _round_up(keys, 128))
            st.valid[b:rows].zero_()
            st.valid[b:rows, 0, 0, 0] = True  # so a filler row attends to something and stays finite
            st.pos[b:rows] = 0
        st.ids[:b, 0] = first
        out = [first]
        for s in range(1, steps):
            st.slot.fill_(width + s - 1)
            st.valid[:, 0, 0, width + s - 1] = True
            (self._graph_step if self.cuda_graphs else self._step)(rows, keys)
            out.append(st.ids[:b, 0].clone())
        gen = torch.stack(out, 1)
        if gen.is_cuda:  # wait with the GIL released, so that the HTTP thread goes on parsing meanwhile
            done = torch.cuda.Event()
            done.record()
            while not done.query():
                time.sleep(0.0005)
        gen = gen.tolist()
        answers = []
        for row, m in zip(gen, max_new, strict=True):
            row = row[:m]
            answers.append(row[:row.index(IM_END) + 1] if IM_END in row else row)
        return answers


class Engine:
    """One thread runs the model, batch after batch, so that HTTP parsing never waits for the GPU nor the reverse."""

    def __init__(self, model: Model, max_batch: int, wait_s: float) -> None:
        self.model, self.max_batch, self.wait_s = model, max_batch, wait_s
        self.inbox: queue.Queue = queue.Queue()
        self.requests = self.batches = 0
        self.gpu_seconds = 0.0
        threading.Thread(target=self._loop, name="gpu-loop", daemon=True).start()

    def submit(self, ids: list[int], max_new: int) -> asyncio.Future:
        loop = asyncio.get_running_loop()
        fut = loop.create_future()
        self.inbox.put((ids, max_new, fut, loop))
        return fut

    def _take(self) -> list[tuple]:
        """The requests waiting now, up to max_batch; if fewer, up to wait_s more for others to join them."""
        batch = [self.inbox.get()]
        deadline = time.perf_counter() + self.wait_s
        while len(batch) < self.max_batch:
            try:
                batch.append(self.inbox.get_nowait())
            except queue.Empty:
                left = deadline - time.perf_counter()
                if left <= 0:
                    break
                try:
                    batch.append(self.inbox.get(timeout=left))
                except queue.Empty:
                    break
        return batch

    def _loop(self) -> None:
        while True:
            batch = self._take()
            start = time.perf_counter()
            try:
                answers = self.model.generate([r[0] for r in batch], [r[1] for r in batch])
            except Exception as err:  # the requests get the error; the loop serves the next batch
                print(f"a batch of {len(batch)} requests failed: {err!r}", file=sys.stderr, flush=True)
                answers = [err] * len(batch)
            self.gpu_seconds += time.perf_counter() - start
            self.requests += len(batch)
            self.batches += 1
            for (_, _, fut, loop), answer in zip(batch, answers, strict=True):
                loop.call_soon_threadsafe(_settle, fut, answer)

    def stats(self) -> dict:
        return {"requests": self.requests, "batches": self.batches,
                "mean_batch": round(self.requests / max(1, self.batches), 2), "gpu_seconds": round(self.gpu_seconds, 3)}


def _settle(fut: asyncio.Future, answer: object) -> None:
    if fut.done():  # the client went away
        return
    if isinstance(answer, Exception):
        fut.set_exception(answer)
    else:
        fut.set_result(answer)


ENGINE = web.AppKey("engine", Engine)
TOKENIZER = web.AppKey("tokenizer", Tokenizer)
NAME = web.AppKey("name", str)


def _error(status: int, message: str, kind: str = "invalid_request_error") -> web.Response:
    return web.json_response({"error": {"message": message, "type": kind}}, status=status)


async def _chat(request: web.Request) -> web.Response:
    try:
        body = await request.json()
        messages = body["messages"]
        max_new = int(body.get("max_completion_tokens") or body.get("max_tokens") or 40)
    except (ValueError, KeyError, TypeError):
        return _error(400, "expected a JSON body with 'messages' (and an integer max_tokens, if any)")
    if body.get("stream") or not isinstance(messages, list) or max_new < 1:
        return _error(400, "needs a list of messages, max_tokens >= 1 and no streaming")
    prompt = request.app[TOKENIZER].chat(messages)
    engine = request.app[ENGINE]
    if len(prompt) + max_new + 16 > engine.model.cfg.max_len:
        return _error(400, f"prompt of {len(prompt)} tokens + {max_new} exceeds the context ({engine.model.cfg.max_len})")
    try:
        answer = await engine.submit(prompt, max_new)
    except Exception as err:  # its batch failed (the engine printed why); a client may retry
        return _error(500, f"generation failed: {err!r}", "server_error")
    stopped = bool(answer) and answer[-1] == IM_END
    text = Tokenizer.decode(answer[:-1] if stopped else answer)
    return web.json_response({
        "id": f"chatcmpl-{engine.requests}-{id(answer):x}", "object": "chat.completion", "created": int(time.time()),
        "model": request.app[NAME],
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "logprobs": None,
                     "finish_reason": "stop" if stopped else "length"}],
        "usage": {"prompt_tokens": len(prompt), "completion_tokens": len(answer),
                  "total_tokens": len(prompt) + len(answer)}})


async def _models(request: web.Request) -> web.Response:
    return web.json_response({"object": "list", "data": [{"id": request.app[NAME], "object": "model", "created": 0,
                                                          "owned_by": "gpu_server"}]})


async def _served(request: web.Request) -> web.Response:
    return web.json_response(request.app[ENGINE].stats())


def make_app(model: Model, max_batch: int = 256, wait_ms: float = 2.0, name: str = "smollm2-135m-random") -> web.Application:
    """The aiohttp application around a model; its engine thread starts here."""
    app = web.Application(client_max_size=16 << 20)
    app[ENGINE] = Engine(model, max_batch, wait_ms / 1000)
    app[TOKENIZER] = Tokenizer(model.cfg.vocab)
    app[NAME] = name
    app.router.add_post("/v1/chat/completions", _chat)
    app.router.add_get("/v1/models", _models)
    app.router.add_get("/served", _served)
    return app


def _bench(model: Model, batch: int, prompt_len: int, new: int) -> None:
    """Times one batch of `batch` prompts (and its prefill alone) against a few of them one at a time, after a warm-up."""
    prompts = [[N_SPECIAL + (i * 7 + j) % 997 for j in range(prompt_len)] for i in range(batch)]
    alone = min(batch, 8)
    model.generate(prompts[:1], [new])
    model.generate(prompts, [new] * batch)
    sync = torch.cuda.synchronize if model.device.type == "cuda" else (lambda: None)
    runs = (("one batch", [prompts], new), ("its prefill alone", [prompts], 1),
            ("one by one", [[p] for p in prompts[:alone]], new))
    for label, groups, n in runs:
        sync()
        start = time.perf_counter()
        for g in groups:
            model.generate(g, [n] * len(g))
        sync()
        took = time.perf_counter() - start
        count = sum(map(len, groups))
        print(f"{label}: {count} requests x {prompt_len} prompt tokens x {n} new in {took:.3f} s "
              f"= {count / took:.1f} requests/s", flush=True)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8000, help="0: any free port (the ready line names it)")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--dtype", choices=["bf16", "fp16", "fp32"], default=None, help="default: bf16 on CUDA, else fp32")
    ap.add_argument("--max-batch", type=int, default=256)
    ap.add_argument("--layers", type=int, default=30)
    ap.add_argument("--max-len", type=int, default=2048, help="longest prompt + answer, in tokens")
    ap.add_argument("--wait-ms", type=float, default=2.0, help="how long a short batch waits for more requests")
    ap.add_argument("--cuda-graphs", action=argparse.BooleanOptionalAction, default=None,
                    help="replay each decode step as one CUDA graph (default: on CUDA); eager steps are launch-bound")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--name", default="smollm2-135m-random", help="the model name /v1/models reports")
    ap.add_argument("--bench", type=int, nargs=3, metavar=("BATCH", "PROMPT_TOKENS", "NEW"),
                    help="time a batch against one-by-one generation and exit")
    args = ap.parse_args(argv)
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[
        args.dtype or ("bf16" if args.device.startswith("cuda") else "fp32")]
    graphs = args.device.startswith("cuda") if args.cuda_graphs is None else args.cuda_graphs
    if graphs and not args.device.startswith("cuda"):
        ap.error("--cuda-graphs needs --device cuda")
    model = Model(Config(layers=args.layers, max_len=args.max_len), args.device, dtype, args.seed, args.max_batch,
                  graphs)
    if args.bench:
        _bench(model, *args.bench)
        return
    model.generate([[IM_START] * 8], [2])  # the first call's kernel set-up is not a request's latency
    asyncio.run(_serve(make_app(model, args.max_batch, args.wait_ms, args.name), args.host, args.port))


async def _serve(app: web.Application, host: str, port: int) -> None:
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, host, port, backlog=4096).start()
    bound = runner.addresses[0][1]
    print(f"ready http://{host}:{bound}/v1", flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    main()
