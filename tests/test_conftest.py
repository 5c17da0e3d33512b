"""The conftest's end-of-run banner: skipped real-model tests are said loudly, never passed off as green (issue #19)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

CONFTEST = (Path(__file__).parent / "conftest.py").read_text()


def _run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, body: str, conftest: str = CONFTEST, *args: str
) -> pytest.RunResult:
    pytester.makeconftest(conftest)
    pytester.makeini("[pytest]\nmarkers =\n    local_model: real model\n    timeout: per-test timeout\n")
    pytester.makepyfile(test_x=body)
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")  # no third-party plugins: fast
    return pytester.runpytest("-p", "no:cacheprovider", *args)


def test_skipped_local_model_tests_print_a_banner(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    result = _run(pytester, monkeypatch, (
        "import pytest\n"
        "@pytest.mark.local_model\n"
        "def test_real():\n    pytest.skip('local model not available: no llama_cpp')\n"
        "def test_other():\n    pass\n"
    ))
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines([
        "*REAL-MODEL TESTS DID NOT RUN*",
        "1 test(s) marked local_model were SKIPPED*",
        "*reason: local model not available: no llama_cpp",
    ])


def test_no_banner_when_they_ran_or_none_exist(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    result = _run(pytester, monkeypatch, (
        "import pytest\n"
        "@pytest.mark.local_model\n"
        "def test_real():\n    pass\n"
        "def test_other():\n    pytest.skip('unrelated')\n"
    ))
    result.assert_outcomes(passed=1, skipped=1)
    assert "REAL-MODEL TESTS DID NOT RUN" not in result.stdout.str()


def test_the_real_model_tests_that_ran_are_listed(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """A CI log says which real-model tests ran and how long each took (issue #32 point 1)."""
    result = _run(pytester, monkeypatch, (
        "import pytest\n"
        "@pytest.mark.local_model\n"
        "def test_real():\n    pass\n"
        "@pytest.mark.local_model\n"
        "def test_real_broken():\n    assert False\n"
        "def test_other():\n    pass\n"
    ))
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines([
        "*real-model tests (local_model)*",
        "1 passed, 1 failed; each ran with a 300 s timeout:",
        "  passed *s  test_x.py::test_real",
        "  failed *s  test_x.py::test_real_broken",
    ])
    assert "test_other" not in result.stdout.str().split("real-model tests")[1]


def test_a_hanging_real_model_test_fails_instead_of_hanging(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every local_model test gets pytest-timeout's per-test limit: a hang becomes a failure with its stack."""
    quick = CONFTEST.replace("LOCAL_MODEL_TIMEOUT = 300", "LOCAL_MODEL_TIMEOUT = 1")
    assert quick != CONFTEST
    result = _run(pytester, monkeypatch, (
        "import time, pytest\n"
        "@pytest.mark.local_model\n"
        "def test_hangs():\n    time.sleep(60)\n"
        "@pytest.mark.local_model\n"
        "def test_after():\n    time.sleep(60)\n"
        "def test_unrelated():\n    pass\n"
    ), quick, "-p", "pytest_timeout")
    result.assert_outcomes(failed=1, errors=1, passed=1)  # one timeout, not one per real-model test
    result.stdout.fnmatch_lines(["*not run: the real-model test test_x.py::test_hangs timed out*"])
    result.stdout.fnmatch_lines(["*Failed: Timeout*"])


def test_a_test_of_its_own_timeout_does_not_mark_the_server_stuck(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only pytest-timeout's limit means a stuck server: a real-model test failing on its own subprocess timeout
    (`TimeoutExpired`) fails alone, and the next real-model test still runs."""
    result = _run(pytester, monkeypatch, (
        "import subprocess, pytest\n"
        "@pytest.mark.local_model\n"
        "def test_child_times_out():\n    raise subprocess.TimeoutExpired(['serve'], 30)\n"
        "@pytest.mark.local_model\n"
        "def test_after():\n    pass\n"
    ), CONFTEST, "-p", "pytest_timeout")
    result.assert_outcomes(failed=1, passed=1)
    assert "not run: the real-model test" not in result.stdout.str()


def test_listed_slow_tests_are_marked_and_the_fast_lane_leaves_them_out(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No test file says `slow`: the conftest marks the tests named in slow_tests.txt beside it."""
    pytester.makefile(".txt", slow_tests="# measured\ntest_x.py::test_slow\ntest_y.py\n")
    pytester.makepyfile(test_y="def test_shares_a_slow_fixture():\n    pass\n")
    body = "def test_slow():\n    pass\ndef test_quick():\n    pass\n"
    _run(pytester, monkeypatch, body).assert_outcomes(passed=3)  # plain `pytest` runs everything
    fast = pytester.runpytest("-p", "no:cacheprovider", "-m", "not slow", "-v")
    fast.assert_outcomes(passed=1, deselected=2)
    fast.stdout.fnmatch_lines(["*test_x.py::test_quick PASSED*"])


def test_a_slow_setup_lists_its_whole_file() -> None:
    from tests.slow_tests import slow_entries

    report = ["2.50s setup    tests/a.py::test_first", "0.10s call     tests/a.py::test_first",
              "0.60s call     tests/b.py::test_x[1]", "0.30s setup    tests/b.py::test_x[1]", "0.05s call tests/c.py::t"]
    assert slow_entries(report, 0.8) == {"tests/a.py", "tests/b.py::test_x[1]"}


def test_every_listed_slow_test_exists() -> None:
    """A renamed or removed test leaves no stale line in tests/slow_tests.txt (regenerate: tests/slow_tests.py)."""
    from tests.slow_tests import listed

    root = Path(__file__).resolve().parents[1]
    stale = []
    for node in sorted(listed()):
        path, _, name = node.partition("::")
        source = root / path
        if not source.is_file() or (name and f"def {name.split('[')[0]}(" not in source.read_text(encoding="utf-8")):
            stale.append(node)
    assert listed() and not stale
