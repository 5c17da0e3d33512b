#!/usr/bin/env bash
# Gather into .whl/ the wheels that the live task and bench_throughput.py's server and live targets need on a
# machine with Python 3.12 (x86-64) and no network, whose image already holds numpy, tiktoken and a few more (see
# DEVICE_HAS), and device_setup.sh as .whl/setup.sh, which installs them there without an index:
#   . .whl/setup.sh && inspect eval tombench/exploretom_adversarial --model tombench/recency ...
# --no-deps installs nothing else, so the folder holds the whole Requires-Dist closure of inspect-ai, openai,
# anthropic, uvicorn and starlette (less DEVICE_HAS and UNUSED), at the versions of the environment that runs this
# script (its `pip list`) and constraints.txt: the versions the tests here ran on. Whatever the image holds at
# another version is shadowed by /tmp/site-packages, which comes first on the path.
#
#   benchmarks/device_wheels.sh            # run from the repo root, the dev venv active; writes .whl/
#   benchmarks/device_wheels.sh --tombench # only rebuild tombench's wheel (after changing the code)
#
# Needs a package index here (pip download). Leaves no build/ or *.egg-info in the tree: tombench's wheel is built
# from a copy of its files.
set -euo pipefail

PYTHON=${PYTHON:-python}
DEST=${DEST:-.whl}
PY312=(--only-binary=:all: --python-version 3.12 --implementation cp --abi cp312
       --platform manylinux_2_35_x86_64 --platform manylinux_2_34_x86_64 --platform manylinux_2_31_x86_64
       --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_24_x86_64
       --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform manylinux2010_x86_64
       --platform manylinux1_x86_64)
# What the live task imports, at the top of the closure (tombench's other needs, datasets and huggingface-hub, are
# not imported by it; numpy is on the image).
TOP=(inspect_ai openai anthropic uvicorn starlette rich click)
# On the device image at a version that suits (numpy 2.5.2, tiktoken 0.14.0; the rest have no lower bound here).
DEVICE_HAS=(numpy tiktoken regex pyyaml psutil requests charset_normalizer certifi urllib3 six)
# In inspect-ai's Requires-Dist but never imported by an eval without a debugger or AWS: debugpy alone is 4 MB.
UNUSED=(debugpy boto3 s3transfer)

root=$(git rev-parse --show-toplevel)
cd "$root"
mkdir -p "$DEST"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

build_tombench() {
    # A copy of the files that travel (tracked, and untracked but not ignored): the build's own leftovers stay there.
    rm -f "$DEST"/tombench-*.whl
    mkdir "$tmp/src"
    git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$tmp/src"
    "$PYTHON" -m pip wheel -q --no-deps -w "$DEST" "$tmp/src"
}

slim() {
    # Two wheels carry what an eval without a sandbox or AWS never reads: inspect-ai its sandbox tools for docker
    # (two 15 MB binaries), botocore the models of some 400 AWS services (15 MB; inspect-ai imports botocore and
    # s3fs at start-up, and an s3:// log folder needs the S3 and STS models, which stay). The repacked wheel keeps
    # its version and takes build tag 1; its RECORD lists what is left.
    "$PYTHON" - "$1" "$DEST" <<'EOF'
import pathlib, re, sys, zipfile
src = pathlib.Path(sys.argv[1])
name, version, *_ = src.name.split("-")
out = pathlib.Path(sys.argv[2]) / f"{name}-{version}-1-py3-none-any.whl"
dropped = {
    "inspect_ai": re.compile(r"inspect_ai/binaries/"),
    "botocore": re.compile(r"botocore/data/(?!s3/|sts/)[^/]+/"),
}[name]
with zipfile.ZipFile(src) as zin, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zout:
    for info in zin.infolist():
        if dropped.match(info.filename):
            continue
        data = zin.read(info)
        if info.filename.endswith(".dist-info/RECORD"):
            data = b"".join(r for r in data.splitlines(keepends=True) if not dropped.match(r.decode()))
        zout.writestr(info, data)
EOF
}

if [[ ${1:-} != --tombench ]]; then
    "$PYTHON" -m pip list --format=freeze | grep -iv '^tombench=' >"$tmp/pins.txt"
    "$PYTHON" -m pip download -q "${PY312[@]}" -c "$tmp/pins.txt" -c constraints.txt -d "$tmp/dl" "${TOP[@]}"
    shopt -s nocaseglob
    for n in "${DEVICE_HAS[@]}" "${UNUSED[@]}"; do
        rm -f "$tmp/dl/$n"-[0-9]*.whl
    done
    rm -f "$DEST"/*.whl
    for w in "$tmp"/dl/*.whl; do
        case $(basename "$w") in
            inspect_ai-* | botocore-*) slim "$w" ;;
            *) cp "$w" "$DEST"/ ;;
        esac
    done
fi
build_tombench
cp benchmarks/device_setup.sh "$DEST"/setup.sh
ls -s --block-size=K -S "$DEST"/*.whl
echo "$(ls "$DEST"/*.whl | wc -l) wheels, $(du -cb "$DEST"/*.whl | tail -1 | cut -f1) bytes"
