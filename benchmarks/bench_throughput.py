"""Harness throughput of `tombench search` and the live task: CPU per model call and calls per second, per method.

    python benchmarks/bench_throughput.py                       # issue #28's grid, both targets, three methods
    python benchmarks/bench_throughput.py --methods paper --targets server --latency 0.05 --max-connections 128
    python benchmarks/bench_throughput.py --methods improved --targets server,live --workers sweep   # the live task
    python benchmarks/bench_throughput.py --methods improved --targets server,server-cache,live --workers 1,2 \
        --stories-per-setting 3 --budget 300 --repeats 2                # issue #39's grid: its goals printed

Two targets answer the same way (the `recency` baseline), so a method makes the same calls against both:

* `instant`: `--model tombench/recency`, the in-process baseline behind Inspect's generate (no latency at all: the
  wall time is the process's own CPU, the model's included);
* `server`: a local OpenAI-compatible HTTP server (uvicorn + starlette, in a process of its own) with a fixed
  latency per request and `--slots` concurrent slots, reached through Inspect's `openai-api` provider: a stand-in
  for a vLLM server, where the harness's CPU and the HTTP client's are what stand between the model and its calls;
* `vllm`: a real server the user started (`vllm serve <model>` on a GPU machine), `--base-url` and `--served-model`;
  its answers are the model's own, so its calls and kept stories differ from the baseline's;
* `live`: the live task, `inspect eval tombench/exploretom_adversarial` (Inspect's `eval()` in a fresh process, the
  same grid and method as `-T` options, `-T workers=` from `--workers`) against the `server` target's stand-in, as a
  user runs it; its calls are the requests the server answered (the search's and the question samples' that the
  response cache did not serve; each run has a cache folder of its own);
* `live-vllm`: the live task against the running server of `--base-url` / `--served-model` (vLLM, or
  benchmarks/gpu_server.py on a GPU machine without vLLM), its calls counted by the server's /served where it has
  one, else read from the log.

Two more targets split the instant row's CPU (`--targets instant,direct,replay`; issue #28 point 2): `direct`, the
same baseline called as a plain function, no Inspect (instant - direct = Inspect's generate path and our adapter);
`replay`, the answers `direct` gave replayed from a table, no model at all (direct - replay = the baseline model's
answering, which a served model does not spend in this process; replay = the search and the harness alone).

Each (method, target, workers) runs in a fresh child process. CPU is that process's user + system time from the start
of the search (the live task: of `eval()`) to its end, split into the main process's and its worker processes'
(`--workers`, default 1; `--workers 1,2` or `sweep`, 1 up to the cores present, gives a row per count); calls are
the prompts the search put to the model. Left out as the process's start-up: its imports and what a process pays
once whatever the number of calls, paid before the count starts by a warm-up (the CLI: the model built and asked
once; the live task: one eval of one sample against the model, which imports what Inspect imports only inside
`eval()`, its providers and the SDKs its sample set-up loads, and reads its model-info database).
Printed per row: model calls, CPU ms per call (all, the main process's, the workers'), calls per second of wall
time, the harness's share of wall time (CPU / wall: near 1 means the harness, not the model, sets the pace), and
against the server the latency bound (calls x latency / connections) and wall / bound, and for the live targets
the log's samples (search + question samples: each question sample costs the eval's main process Inspect's
per-sample work; `--no-log-realtime` passes Inspect's option of that name). The workers' CPU includes their
start-up (each imports Inspect and the model's client: about 2 s here); "start-ups out" is the CPU per call without
it, the start-up of as many fresh workers measured apart right after the row (`_startup_cpu`), as the main
process's is left out. Machine-dependent: compare rows of one run (docs/design-notes/scale.md).

`server-cache` is `server` with Inspect's response cache on (`tombench search` without `--no-cache`, its default):
the live task always caches (its question samples and `inspect eval-retry` read the search's answers back), the
`server` rows never did. With live rows, lines under the table judge issue #39 point 1 against both: the live
task's CPU per call (start-ups out) at most 1.3x the CLI's, its main process's at most 0.15x.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _cli_flags(options: dict) -> list[str]:
    """A method preset's options as `tombench search` flags."""
    return [x for k, v in options.items() for x in (f"--{k.replace('_', '-')}", str(v))]


def methods() -> dict[str, list[str]]:
    """Every search method's presets (`registry.variants`) as `tombench search` flags: the rows this bench offers."""
    from tombench.generators.exploretom.search.registry import variants

    return {label: ["--method", name, *_cli_flags(dict(opts))] for label, (name, opts) in variants().items()}


METHODS = methods()

#: issue #28 point 2's goals, CPU ms per model call against the instant target on the issue's grid (the defaults)
GOALS = {"improved": 3.0, "paper": 2.5, "over-generate": 1.5}
#: the issue's grid: the goals hold for it only
GRID = {"story_types": "tomi,all", "people": "3", "moves": "3", "stories_per_setting": 5, "budget": 200, "seed": 0}
#: issue #39's grid and goals for the live task against the stand-in: its CPU per call at most LIVE_GOAL x the
#: CLI's and its main process's at most MAIN_GOAL x the CLI's whole, every start-up left out (same method, workers)
GRID_LIVE = {**GRID, "stories_per_setting": 3, "budget": 300}
LIVE_GOAL, MAIN_GOAL = 1.3, 0.15


def _cpu() -> float:
    """This process's CPU and that of its ended children (the search's worker processes with `--workers` > 1)."""
    return sum(_cpu_split())


def _cpu_split() -> tuple[float, float]:
    """This process's CPU, and that of its ended children (the workers, once joined)."""
    import resource

    out = []
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        r = resource.getrusage(who)
        out.append(r.ru_utime + r.ru_stime)
    return out[0], out[1]


async def _ready(answer, emit) -> int:
    """A job that only makes its worker ready as a search job does: the runner imported, the model's caller built
    (`worker_model`: Inspect and the model's client imported)."""
    import tombench.generators.exploretom.search.runner  # noqa: F401

    return 0


def _startup_cpu(model: str, workers: int) -> float:
    """The CPU `workers` fresh worker processes spend before their first search call (start, imports, the model's
    caller built): measured apart, so that a row's CPU per call can leave it out (the issue's "start-up
    subtracted"), as the main process's start-up is left out."""
    import asyncio

    from tombench.generators.exploretom.search.pool import SearchPool
    from tombench.tasks.exploretom.answerer import inspect_answerer

    if workers <= 1:
        return 0.0
    answer = inspect_answerer(model, cache=False)

    async def go() -> None:
        with SearchPool(workers) as pool:
            await asyncio.gather(*(pool.run(_ready, (), answer) for _ in range(workers)))

    k0 = _cpu_split()[1]
    asyncio.run(go())
    return _cpu_split()[1] - k0


# ---------------------------------------------------------------------------------------------------- the server
def _server_app(latency: float, slots: int):
    """A starlette app answering /v1/chat/completions with the recency baseline after `latency` seconds, at most
    `slots` requests at once (the others queue, as on a server whose batch is full)."""
    import asyncio

    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    from tombench.models._baselines import answer

    sem = asyncio.Semaphore(slots)
    count = [0]

    async def completions(request: Request) -> JSONResponse:
        body = await request.json()
        user = next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")
        if isinstance(user, list):  # content parts
            user = "".join(p.get("text", "") for p in user)
        async with sem:
            await asyncio.sleep(latency)
            text = answer("recency", user)
        count[0] += 1
        words = sum(len(str(m.get("content", "")).split()) for m in body["messages"])
        return JSONResponse({
            "id": f"cmpl-{count[0]}", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model", "recency"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": words, "completion_tokens": len(text.split()),
                      "total_tokens": words + len(text.split())},
        })

    async def models(request: Request) -> JSONResponse:
        return JSONResponse({"object": "list", "data": [{"id": "recency", "object": "model"}]})

    async def served(request: Request) -> JSONResponse:  # the live target's calls: what the server answered
        return JSONResponse({"requests": count[0]})

    return Starlette(routes=[Route("/v1/chat/completions", completions, methods=["POST"]),
                             Route("/v1/models", models), Route("/served", served)])


def _serve(port: int, latency: float, slots: int) -> None:
    import uvicorn

    uvicorn.run(_server_app(latency, slots), host="127.0.0.1", port=port, log_level="warning", access_log=False,
                backlog=4096, limit_concurrency=None)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def _server(latency: float, slots: int):
    """The stand-in server in a child process, its base URL while the block runs."""
    import httpx

    port = _free_port()
    proc = subprocess.Popen([sys.executable, __file__, "--serve", str(port), "--latency", str(latency),
                             "--slots", str(slots)])
    try:
        url = f"http://127.0.0.1:{port}/v1"
        for _ in range(300):
            try:
                if httpx.get(f"{url}/models", timeout=1.0).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        else:
            raise SystemExit("the stand-in server did not start")
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)


# ---------------------------------------------------------------------------------------------------- one run
def _warm_model(model: str) -> None:
    """The CLI's one-offs before its CPU is counted: the model built and asked once (its provider's client
    imported and made, Inspect's model-info database read at the first call's usage), as a process pays them once
    however many calls follow."""
    import asyncio

    from inspect_ai.model import get_model

    asyncio.run(get_model(model).generate("Where is the apple? Answer in one word."))


def _warm_eval(model: str, log_dir: Path) -> None:
    """The live task's one-offs before its CPU is counted: one eval of one sample against `model` (Inspect's
    imports inside `eval()`, the provider's client, the model-info database, the SDKs Inspect's sample set-up
    loads), as a process pays them once; the search's workers' start-up is measured apart (`_startup_cpu`)."""
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.solver import generate

    task = Task(dataset=[Sample(input="Where is the apple? Answer in one word.")], solver=generate())
    (log,) = inspect_eval(task, model=model, log_dir=str(log_dir), display="none")
    if log.status != "success":
        raise SystemExit(f"the warm-up eval failed: {log.error}")


def _one(method: str, model: str, args: argparse.Namespace) -> dict:
    """Run one search in this process; its calls, CPU and wall time (the start-up is measured apart)."""
    start = _cpu()
    import inspect_ai.model  # noqa: F401  (the start-up: imports, left out of the CPU per call)

    import tombench._registry  # noqa: F401
    import tombench.commands.search as command
    import tombench.generators.exploretom.search.runner  # noqa: F401
    import tombench.tasks.exploretom.answerer as adapter

    if args.answers is None:
        _warm_model(model)
    calls = [0]
    make = adapter.inspect_answerer

    def counting(*a, **k):
        inner = make(*a, **k) if args.answers is None else _plain(args.answers, model)

        async def answer(prompts):
            calls[0] += len(prompts)
            return await inner(prompts)

        answer.model_name = inner.model_name  # type: ignore[attr-defined]
        # where the workers call the model themselves (`worker_model`), they report their calls when a job ends
        answer.worker_target = getattr(inner, "worker_target", None)  # type: ignore[attr-defined]

        def worker_calls(record):
            calls[0] += record.calls
            inner.worker_calls(record)

        answer.worker_calls = worker_calls  # type: ignore[attr-defined]
        return answer

    adapter.inspect_answerer = counting
    with tempfile.TemporaryDirectory() as tmp:
        if args.cache:
            os.environ["INSPECT_CACHE_DIR"] = str(Path(tmp) / "cache")  # a cold cache: no answer from an earlier run
        argv = ["--model", model, "--story-types", args.story_types, "--asymmetric", "both", "--people", args.people,
                "--moves", args.moves, "--stories-per-setting", str(args.stories_per_setting), "--budget",
                str(args.budget), "--budget-unit", "calls", "--seed", str(args.seed), *([] if args.cache else ["--no-cache"]),
                "--out", str(Path(tmp) / "run"), "--workers", str(args.workers), *METHODS[method]]
        if args.max_connections:
            argv += ["--max-connections", str(args.max_connections)]
        (m0, k0), w0 = _cpu_split(), time.perf_counter()
        t0 = m0 + k0
        with contextlib.redirect_stdout(open(os.devnull, "w", encoding="utf-8")):
            command.search.main(argv, standalone_mode=False)
        wall = time.perf_counter() - w0
        m1, k1 = _cpu_split()  # the command's pool is closed: its workers are joined and counted
        kept = [json.loads(x) for x in (Path(tmp) / "run" / "stories.jsonl").read_text().splitlines()]
    import hashlib

    # the kept stories without the model's name: the same answers must keep the same stories against both targets
    # sorted: settings finish in any order (worker processes, a model's latency), their lines interleave with them
    stories = json.dumps(sorted((r["id"], r["text"], r["g"]) for r in kept)).encode()
    workers_startup = _startup_cpu(model, int(args.workers)) if args.answers is None else 0.0
    return {"method": method, "model": model, "calls": calls[0], "cpu": m1 + k1 - t0, "cpu_main": m1 - m0,
            "cpu_workers": k1 - k0, "wall": wall, "startup": t0 - start, "workers_startup": workers_startup,
            "stories_sha256": hashlib.sha256(stories).hexdigest()[:16]}


def _served(url: str) -> int:
    """Requests the server answered so far (the stand-ins' /served); -1 where the server does not say."""
    import httpx

    try:
        return httpx.get(url.removesuffix("/v1") + "/served", timeout=10.0).json()["requests"]
    except (httpx.HTTPError, ValueError, KeyError):
        return -1


def _live(method: str, model: str, args: argparse.Namespace) -> dict:
    """Run the live task once in this process (Inspect's `eval()`, as `inspect eval` does), against the stand-in
    server; its calls (counted at the server), CPU of this process and of its workers, and wall time."""
    start = _cpu()
    from inspect_ai import eval as inspect_eval

    import tombench._registry  # noqa: F401
    from tombench.generators.exploretom.search.pool import running_pool
    from tombench.generators.exploretom.search.registry import variants
    from tombench.tasks.exploretom.adversarial import exploretom_adversarial

    name, opts = variants()[method]
    workers = int(args.workers)
    task = exploretom_adversarial(
        action_sets=args.story_types, asymmetric="both", people=args.people, moves=args.moves,
        stories_per_setting=args.stories_per_setting, budget=args.budget, budget_unit="calls", seed=args.seed,
        workers=workers, method=name, **opts)
    url = os.environ["LOCAL_BASE_URL"]
    with tempfile.TemporaryDirectory() as tmp:
        _warm_eval(model, Path(tmp) / "warm")
        os.environ["INSPECT_CACHE_DIR"] = str(Path(tmp) / "cache")  # no answer from an earlier run's cache
        n0, (m0, k0), w0 = _served(url), _cpu_split(), time.perf_counter()
        (log,) = inspect_eval(task, model=model, log_dir=str(Path(tmp) / "logs"), display="none",
                              max_connections=args.max_connections or 64, log_realtime=not args.no_log_realtime)
        wall = time.perf_counter() - w0
        pool = running_pool(workers)
        assert pool is None, "the eval's end stops its search workers (tasks/exploretom/pool_lifetime.py)"
        m1, k1 = _cpu_split()
        calls = _served(url) - n0 if n0 >= 0 else _logged_calls(log)
        if log.status != "success":
            raise SystemExit(f"the live task failed: {log.error}")
        samples = len(log.samples or [])
    return {"method": method, "model": model, "calls": calls, "cpu": m1 + k1 - m0 - k0, "cpu_main": m1 - m0,
            "cpu_workers": k1 - k0, "wall": wall, "startup": m0 + k0 - start, "samples": samples,
            "workers_startup": _startup_cpu(model, workers),
            "stories_sha256": "–"}


def _logged_calls(log) -> int:
    """A server that does not count its requests: the search samples' calls and the question samples' model calls
    that were not cache reads."""
    n = 0
    for s in log.samples or []:
        calls = ((s.metadata or {}).get("search") or {}).get("calls")
        n += calls["calls"] if calls else sum(1 for e in s.events if e.event == "model" and e.cache != "read")
    return n


def _plain(table: Path, model: str):
    """An answerer without Inspect: `direct` (no table yet: the recency baseline as a plain function; it writes the
    table of its answers at exit) or `replay` (answers read back from that table)."""
    import atexit
    import pickle

    if table.exists():
        known = pickle.loads(table.read_bytes())

        async def replay(prompts):
            return [known[p.user] for p in prompts]

        replay.model_name = model  # type: ignore[attr-defined]
        return replay
    from tombench.models._baselines import answer as baseline

    seen: dict[str, str] = {}
    atexit.register(lambda: table.write_bytes(pickle.dumps(seen)))

    async def direct(prompts):
        out = [baseline("recency", p.user) for p in prompts]
        seen.update(zip((p.user for p in prompts), out, strict=True))
        return out

    direct.model_name = model  # type: ignore[attr-defined]
    return direct


def _child(method: str, target: str, args: argparse.Namespace, url: str | None, rep: int = 0,
           workers: int = 1) -> dict:
    """`_one` (`_live` for the live target) in a fresh process (nothing cached from an earlier row); `rep`: which
    repeat (each repeat's replay reads the answers of its own direct run)."""
    env = dict(os.environ)
    model = "tombench/recency"
    if target in ("server", "server-cache", "live"):
        env.update(LOCAL_BASE_URL=url or "", LOCAL_API_KEY="none")
        model = "openai-api/local/recency"
    elif target == "live-vllm":  # the live task against the user's server (its /served counts the calls, if any)
        env.update(LOCAL_BASE_URL=args.base_url, LOCAL_API_KEY=os.environ.get("VLLM_API_KEY", "none"))
        model = f"openai-api/local/{args.served_model}"
    elif target == "vllm":  # a real server the user started: its answers, hence its calls and stories, are its own
        env.update(VLLM_BASE_URL=args.base_url, VLLM_API_KEY=os.environ.get("VLLM_API_KEY", "none"))
        model = f"openai-api/vllm/{args.served_model}"
    cmd = [sys.executable, __file__, "--live" if target.startswith("live") else "--one", method, model, "--story-types",
           args.story_types, "--people", args.people, "--moves", args.moves, "--stories-per-setting",
           str(args.stories_per_setting), "--budget", str(args.budget), "--seed", str(args.seed), "--workers",
           str(workers)]
    if target in ("server", "server-cache", "vllm", "live", "live-vllm") or args.max_connections:
        cmd += ["--max-connections", str(args.max_connections or 64)]
    if target == "server-cache":
        cmd += ["--cache"]
    if target in ("direct", "replay"):
        cmd += ["--answers", str(args.tables / f"{method}-{rep}.pkl")]
    if args.no_log_realtime:
        cmd += ["--no-log-realtime"]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    line = next((x for x in out.stdout.splitlines() if x.startswith("RESULT ")), None)
    if line is None:
        raise SystemExit(f"{method} against {target} failed:\n{out.stderr[-3000:]}")
    return {**json.loads(line[len("RESULT "):]), "target": target, "workers": workers}


def _ms(r: dict, key: str = "cpu") -> float:
    return 1000 * r.get(key, 0.0) / max(r["calls"], 1)


def _goal(rows: list[dict], on_grid: bool) -> str:
    """Issue #28's goal for the instant target on its grid, judged on the median run: "≤ 2.5: met" (else "–")."""
    r = rows[0]
    goal = GOALS.get(r["method"])
    if not on_grid or r["target"] != "instant" or goal is None:
        return "–"
    return f"≤ {goal}: {'met' if statistics.median(_ms(x) for x in rows) <= goal else 'not met'}"


def _table(runs: list[list[dict]], latency: float, connections: int, on_grid: bool) -> None:
    """One line per (method, target): the median of its repeats, and their range where there are several."""
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"harness throughput (server: {latency}s per request, {connections} connections)")
    for col in ("method", "target", "workers", "model calls", "CPU ms / call", "main", "workers'", "start-ups out",
                "range", "goal",
                "calls / s", "harness share of wall", "latency bound s", "wall / bound", "samples", "stories sha256"):
        t.add_column(col, justify="right")
    for rows in runs:
        r = _median(rows)  # the median run (the lower one of an even count)
        bound = r["calls"] * latency / connections if r["target"] in ("server", "server-cache", "live") else None
        spread = f"{min(map(_ms, rows)):.2f}-{max(map(_ms, rows)):.2f}" if len(rows) > 1 else "–"
        digests = {x["stories_sha256"] for x in rows}
        net = _net(r)
        t.add_row(r["method"], r["target"], str(r["workers"]), str(r["calls"]), f"{_ms(r):.2f}",
                  f"{_ms(r, 'cpu_main'):.2f}", f"{_ms(r, 'cpu_workers'):.2f}", f"{net:.2f}", spread,
                  _goal(rows, on_grid),
                  f"{r['calls'] / r['wall']:.0f}", f"{r['cpu'] / r['wall']:.0%}",
                  "–" if bound is None else f"{bound:.1f}", "–" if bound is None else f"{r['wall'] / bound:.2f}",
                  str(r.get("samples", "–")), r["stories_sha256"] if len(digests) == 1 else "differ between repeats")
    Console(width=190).print(t)


def _median(rows: list[dict]) -> dict:
    return sorted(rows, key=_ms)[(len(rows) - 1) // 2]


def _net(r: dict) -> float:
    """CPU ms per call with every start-up left out (the workers' measured apart)."""
    return 1000 * (r["cpu"] - r.get("workers_startup", 0.0)) / max(r["calls"], 1)


def _live_goals(runs: dict[tuple[str, str, int], list[dict]], on_grid: bool) -> list[str]:
    """Issue #39 point 1 for each live row against the CLI's row of the same method and workers: without the
    response cache (`server`, the issue's figures) and with it (`server-cache`: the same work as the live task,
    which always caches); a verdict on the issue's grid only."""
    out = []
    for (method, target, n), rows in runs.items():
        live = _median(rows)
        for base, what in (("server", "the CLI, no cache"), ("server-cache", "the CLI with its cache")):
            if target != "live" or n < 2 or (method, base, n) not in runs:  # one process: nothing is off its main
                continue
            cli = _net(_median(runs[method, base, n]))
            ratio, main = _net(live) / cli, _ms(live, "cpu_main") / cli

            def verdict(x: float, goal: float) -> str:
                return f"goal ≤ {goal}x: {'met' if x <= goal else 'not met'}" if on_grid else "not the issue's grid"

            out.append(f"{method}, {n} workers, live vs {what} ({cli:.2f} ms): CPU per call {_net(live):.2f} ms = "
                       f"{ratio:.2f}x ({verdict(ratio, LIVE_GOAL)}); main {_ms(live, 'cpu_main'):.2f} ms = {main:.2f}x "
                       f"({verdict(main, MAIN_GOAL)})")
    return out


def _check_targets(ap: argparse.ArgumentParser, args: argparse.Namespace, targets: list[str]) -> None:
    """Known targets only; vllm needs its server; replay needs the table direct writes, so direct must come first."""
    known = {"instant", "server", "server-cache", "vllm", "direct", "replay", "live", "live-vllm"}
    if set(targets) - known:
        ap.error(f"unknown targets {sorted(set(targets) - known)}")
    for t in {"vllm", "live-vllm"} & set(targets):
        if not (args.base_url and args.served_model):
            ap.error(f"the {t} target needs --base-url and --served-model")
    if "replay" in targets and ("direct" not in targets or targets.index("replay") < targets.index("direct")):
        ap.error("--targets: replay replays what direct answered: name direct before it")


def _measure(args: argparse.Namespace, rows: list[tuple[str, str, int]]) -> dict[tuple[str, str, int], list[dict]]:
    """Every (method, target, workers) row's runs, each in a fresh process; the stand-in server up while any row
    needs it."""
    runs: dict[tuple[str, str, int], list[dict]] = {row: [] for row in rows}
    with contextlib.ExitStack() as stack:
        args.tables = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        served = {"server", "server-cache", "live"} & {t for _, t, _ in rows}
        url = stack.enter_context(_server(args.latency, args.slots)) if served else None
        # repeats interleaved (every row once, then again): a shared machine's load drifts over minutes
        for rep in range(args.repeats):
            for method, target, n in rows:
                runs[method, target, n].append(_child(method, target, args, url, rep, n))
                print(json.dumps(runs[method, target, n][-1]), file=sys.stderr, flush=True)
    return runs


def _worker_counts(ap: argparse.ArgumentParser, value: str) -> list[int]:
    """--workers as the counts to run: "2", "1,2,4", "all" (the cores this process may use) or "sweep" (1 up to
    them)."""
    from tombench.kit.options import available_cores

    if value.strip().lower() in ("sweep", "all"):
        cores = available_cores()
        return list(range(1, cores + 1)) if value.strip().lower() == "sweep" else [cores]
    try:
        counts = [int(x) for x in value.split(",") if x.strip()]
    except ValueError:
        counts = []
    if not counts or min(counts) < 1:
        ap.error(f"--workers {value!r}: give worker counts >= 1, comma-separated, or 'sweep'")
    return counts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--methods", default="improved,paper,over-generate")
    ap.add_argument("--targets", default="instant,server",
                    help="comma-separated: instant, server, vllm (a running server: --base-url, --served-model), "
                         "direct, replay (replay after direct), live (the live task against the server's stand-in), live-vllm "
                         "(the live task against a running server: --base-url, --served-model), server-cache (server with "
                         "Inspect's response cache on, as `tombench search` runs by default and the live task always)")
    ap.add_argument("--base-url", default=None, help="the vllm target's OpenAI-compatible base URL, e.g. "
                    "http://127.0.0.1:8000/v1")
    ap.add_argument("--served-model", default=None, help="the vllm target's model name as the server knows it")
    ap.add_argument("--latency", type=float, default=0.05, help="the server's seconds per request")
    ap.add_argument("--slots", type=int, default=1024, help="requests the server works on at once")
    ap.add_argument("--max-connections", type=int, default=None,
                    help="Inspect's concurrent calls (default: the model's; 64 against the server)")
    ap.add_argument("--story-types", default="tomi,all")
    ap.add_argument("--people", default="3")
    ap.add_argument("--moves", default="3")
    ap.add_argument("--stories-per-setting", type=int, default=5)
    ap.add_argument("--budget", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", default="1",
                    help="the search's worker processes (`tombench search --workers`, the live task's -T workers); "
                         "their CPU is counted too. Comma-separated counts give a row each; 'sweep': 1 up to the "
                         "cores present")
    ap.add_argument("--repeats", type=int, default=1,
                    help="runs per (method, target), interleaved; the table prints the median and the range")
    ap.add_argument("--json", type=Path, default=None, help="also write the rows here")
    ap.add_argument("--no-log-realtime", action="store_true",
                    help="the live targets: Inspect's --no-log-realtime (no live sample events for inspect view)")
    ap.add_argument("--one", nargs=2, metavar=("METHOD", "MODEL"), help=argparse.SUPPRESS)
    ap.add_argument("--live", nargs=2, metavar=("METHOD", "MODEL"), help=argparse.SUPPRESS)
    ap.add_argument("--answers", type=Path, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--cache", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--serve", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        _serve(args.serve, args.latency, args.slots)
        return
    if args.one or args.live:
        run = _one if args.one else _live
        print("RESULT " + json.dumps(run(*(args.one or args.live), args)), flush=True)
        return
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        ap.error(f"unknown methods {unknown}; choose from {list(METHODS)}")
    targets = [t.strip() for t in args.targets.split(",") if t.strip()]
    _check_targets(ap, args, targets)
    if args.repeats < 1:
        ap.error("--repeats must be at least 1")
    runs = _measure(args, [(m, t, n) for m in methods for t in targets for n in _worker_counts(ap, args.workers)])
    on_grid = all(str(getattr(args, k)) == str(v) for k, v in GRID.items())
    _table(list(runs.values()), args.latency, args.max_connections or 64, on_grid)
    for line in _live_goals(runs, all(str(getattr(args, k)) == str(v) for k, v in GRID_LIVE.items())):
        print(line)
    if args.json:
        args.json.write_text(json.dumps([r for rows in runs.values() for r in rows], indent=2) + "\n")


if __name__ == "__main__":
    main()
