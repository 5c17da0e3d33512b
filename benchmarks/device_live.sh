#!/bin/bash
# The live task on a lent GPU machine (16 cores, no network), as docs/design-notes/scale.md reports it: against a GPU-served
# model (benchmarks/gpu_server.py: vLLM cannot be installed there) and against the fixed-latency stand-in, with
# every core's worth of search workers. Run from the repo root with the wheels of benchmarks/device_wheels.sh in
# .whl/; results go to $OUT (default ./out): machine.txt, gpu.txt/json, served.json, standin.txt/json.
set -u
OUT=${OUT:-out}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
. .whl/setup.sh || exit 1
{ nproc; nvidia-smi -L; python3 --version; } > "$OUT/machine.txt" 2>&1
GRID="--methods improved --story-types tomi,all --people 2,3,4 --moves 2,3 --stories-per-setting 3 --budget 100"
python3 benchmarks/gpu_server.py --port 8000 --max-batch 512 --layers 15 > "$OUT/gpu_server.log" 2>&1 &
for _ in $(seq 400); do grep -q "^ready" "$OUT/gpu_server.log" && break; sleep 0.25; done
timeout 70 python3 benchmarks/bench_throughput.py $GRID --targets live-vllm --base-url http://127.0.0.1:8000/v1 \
    --served-model smollm2-135m-random --max-connections 512 --workers 16 --json "$OUT/gpu.json" > "$OUT/gpu.txt" 2>&1
python3 -c "import httpx; print(httpx.get('http://127.0.0.1:8000/served').text)" > "$OUT/served.json" 2>&1
kill %1
timeout 80 python3 benchmarks/bench_throughput.py $GRID --targets live --max-connections 512 --workers 16,4 \
    --json "$OUT/standin.json" > "$OUT/standin.txt" 2>&1
echo done >> "$OUT/machine.txt"
