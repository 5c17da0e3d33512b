"""tombench.kit.outputs: an unwritable output is one line before any work, and one writer per output folder
(issue #40 point 5)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tombench.kit.errors import OptionError
from tombench.kit.outputs import LOCK_FILE, exclusive_lock, writable_dir, writable_file


def test_a_folder_is_made_and_a_file_in_the_way_is_one_line(tmp_path: Path) -> None:
    assert writable_dir(tmp_path / "a" / "b") == tmp_path / "a" / "b" and (tmp_path / "a" / "b").is_dir()
    assert list((tmp_path / "a" / "b").iterdir()) == []  # the write check leaves nothing behind
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(OptionError) as err:
        writable_dir(blocker / "out", "--local-dir")
    assert str(err.value) == f"--local-dir {blocker / 'out'}: cannot write there ({blocker} is a file, not a folder)"
    with pytest.raises(OptionError, match="is a file, not a folder"):
        writable_file(blocker / "x.jsonl")
    with pytest.raises(OptionError, match="a folder, not a file"):
        writable_file(tmp_path)
    assert writable_file(tmp_path / "new" / "x.jsonl") == tmp_path / "new" / "x.jsonl"
    assert not (tmp_path / "new" / "x.jsonl").exists()  # checked, not created


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_folder_is_one_line(tmp_path: Path) -> None:
    ro = tmp_path / "ro"
    ro.mkdir(mode=0o500)
    with pytest.raises(OptionError, match="cannot write there \\(permission denied\\)"):
        writable_dir(ro / "run")


@pytest.mark.timeout(60)
def test_a_second_writer_is_refused_naming_the_first_and_a_killed_one_holds_nothing(tmp_path: Path) -> None:
    hold = ("import sys, time\nfrom tombench.kit.outputs import exclusive_lock\n"
            "with exclusive_lock(sys.argv[1]):\n    print('held', flush=True)\n    time.sleep(60)\n")
    other = subprocess.Popen([sys.executable, "-c", hold, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    try:
        assert other.stdout.readline().strip() == "held"
        with pytest.raises(OptionError) as err:
            with exclusive_lock(tmp_path):
                pass
        assert str(err.value) == (f"another tombench search is writing to {tmp_path} (pid {other.pid}); wait for it "
                                  "or use another --out")
    finally:
        other.kill()  # SIGKILL: the kernel drops its lock
        other.wait()
    with exclusive_lock(tmp_path) as folder:
        assert folder == tmp_path and (tmp_path / LOCK_FILE).read_text() == str(os.getpid())
    with exclusive_lock(tmp_path):  # released on leaving the block
        pass
