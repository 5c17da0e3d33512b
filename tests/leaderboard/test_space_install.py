"""The Space folder installs in a fresh virtual environment with nothing but its requirements.txt (from the
package index pip is configured with) and serves the board of a results dataset on the project's fake Hub.

Slow (a full install: gradio, inspect-ai, datasets...) and needs the package index, so it runs only with
TOMBENCH_TEST_SPACE_INSTALL=1; TOMBENCH_TEST_SPACE_VENV=<folder> reuses (and tops up) a venv made earlier.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from tombench.cli import main
from tombench.leaderboard import push_rows

from .hub_server import HubTestServer
from .rows_factory import row

TOKEN = "hf_test_token"
_SERVE = """
import json, sys, urllib.request
import app, tombench
app.demo.launch(prevent_thread_lock=True, server_name="127.0.0.1", server_port=int(sys.argv[1]))
config = json.loads(urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/config").read())
frames = [c["props"]["value"] for c in config["components"] if c.get("type") == "dataframe"]
print(json.dumps({"tombench": tombench.__file__, "frames": frames}))
app.demo.close()
"""


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.network
@pytest.mark.skipif(not os.environ.get("TOMBENCH_TEST_SPACE_INSTALL"),
                    reason="installs the Space's requirements: set TOMBENCH_TEST_SPACE_INSTALL=1")
@pytest.mark.timeout(1800)
def test_space_installs_in_a_fresh_venv_and_serves_the_board(tmp_path):
    out = tmp_path / "space"
    assert CliRunner().invoke(main, ["leaderboard", "space", "--repo", "org/results", "--out", str(out)]).exit_code == 0
    venv = Path(os.environ.get("TOMBENCH_TEST_SPACE_VENV") or tmp_path / "venv")
    if not (venv / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    pip = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "-r", str(out / "requirements.txt")],
                         capture_output=True, text=True, timeout=1500)
    assert pip.returncode == 0, pip.stderr[-3000:]
    rows = [row("hf/org/big-7b", 0.9, 0.03, submission_id="a"), row("vllm/org/<svg onload=1>", 0.5, submission_id="b")]
    with HubTestServer() as hub:
        push_rows(rows, "org/results", token=TOKEN, endpoint=hub.url)
        env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "HF_ENDPOINT": hub.url, "HF_TOKEN": TOKEN,
               "HF_HUB_DISABLE_TELEMETRY": "1", "GRADIO_ANALYTICS_ENABLED": "False"}
        ran = subprocess.run([str(venv / "bin" / "python"), "-c", _SERVE, str(_free_port())], cwd=out, env=env,
                             capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stderr[-3000:]
    served = json.loads(next(line for line in ran.stdout.splitlines() if line.startswith("{")))
    assert Path(served["tombench"]).resolve().is_relative_to(out.resolve())  # the Space's own copy
    cross = served["frames"][0]["data"]
    assert len(cross) == 2 and any("vllm/org/&lt;svg onload=1&gt;" in r[0] for r in cross)
