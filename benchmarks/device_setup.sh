# Source this on a machine with no package index, in the repo root, with the wheels that device_wheels.sh gathered
# in .whl/ (it copies this file there as setup.sh):   . .whl/setup.sh && inspect eval tombench/...
# It installs them into /tmp/site-packages and puts that first on PYTHONPATH and PATH. The folder's name matters:
# Inspect prefixes a package's tasks, models and metrics with "tombench/" only when the package's files lie in a
# folder named site-packages, so from any other folder `inspect eval tombench/...` finds no task.
# tombench's wheel is a copy of the tree from when it was built: where the carried tree differs, the tree is
# installed in its place (setuptools from the machine's own environment builds it).
site=/tmp/site-packages
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$site" .whl/*.whl ||
    return 1
export PYTHONPATH=$site${PYTHONPATH:+:$PYTHONPATH} PATH=$site/bin:$PATH
if ! diff -rq -x __pycache__ tombench "$site/tombench" >/dev/null; then
    echo "setup.sh: the tombench wheel is older than the tree; installing the tree" >&2
    # a target of its own: pip --upgrade --target would replace $site/bin, and with it the inspect command
    rm -rf /tmp/tombench-src /tmp/tombench-site && mkdir /tmp/tombench-src &&
        cp -r tombench pyproject.toml README.md /tmp/tombench-src/ &&
        python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/tombench-site \
            /tmp/tombench-src &&
        rm -rf "$site"/tombench "$site"/tombench-*.dist-info &&
        mv /tmp/tombench-site/tombench /tmp/tombench-site/tombench-*.dist-info "$site"/ || return 1
fi
