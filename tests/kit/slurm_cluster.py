"""A one-node Slurm for the tests that run the docs' Slurm recipe: Debian's `munged`, `slurmctld` and `slurmd`, started
as root in a folder of the test's own, on free ports, with a munge key and socket of their own.

Nothing of the machine's own Slurm or munge is read or changed (the daemons and the clients read this cluster's
slurm.conf: `-f`, SLURM_CONF), and whatever happens in the `with` block, everything started is stopped when it ends:
the jobs cancelled, the daemons terminated (killed after a grace period), then any process still working in the
cluster's folder (a job's step) killed by its id. The daemons also die with the process that started them (a pytest
killed from outside). Where no cluster can run (not root, a program missing, a daemon that does not come up), the
test is skipped with one line that says why.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

#: the programs of Debian's munge, slurmctld, slurmd and slurm-client packages that the cluster and its tests run
PROGRAMS = ("munged", "slurmctld", "slurmd", "sbatch", "srun", "squeue", "sinfo", "scontrol", "scancel")
INSTALL = "apt-get install slurmctld slurmd munge, as .ci/run does"
#: seconds for the daemons to bring the node up, for one client command, and for a daemon to end when asked
UP_TIMEOUT = 30.0
COMMAND_TIMEOUT = 20.0
STOP_TIMEOUT = 10.0
#: the variables of a scheduler that a process inherits when it runs inside a job: never passed on to this cluster
_SCHEDULER_VARIABLES = ("SLURM_", "SBATCH_", "SALLOC_", "SRUN_")


def unavailable() -> str | None:
    """Why no cluster can run here (one line), or None."""
    if os.geteuid() != 0:
        return "a one-node Slurm needs root here (its daemons run as root): run as root to test the Slurm recipe"
    missing = [p for p in PROGRAMS if shutil.which(p) is None]
    if missing:
        return f"no Slurm: {', '.join(missing)} not found ({INSTALL})"
    return None


@dataclass
class Cluster:
    """A running one-node Slurm: `root` holds its configuration, state and daemons' logs, `work` is the jobs' folder."""

    root: Path
    daemons: list[tuple[str, subprocess.Popen]] = field(default_factory=list)

    @property
    def conf(self) -> Path:
        return self.root / "slurm.conf"

    @property
    def work(self) -> Path:
        return self.root / "work"

    def environ(self, **extra: str) -> dict[str, str]:
        """This process's environment for this cluster: no scheduler's variable inherited, SLURM_CONF set."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(_SCHEDULER_VARIABLES)}
        return {**env, "SLURM_CONF": str(self.conf), **extra}

    def run(self, *args: str, env: dict[str, str] | None = None) -> str:
        """A client command's output (in `work`); a failure raises with its stderr."""
        done = subprocess.run(args, cwd=self.work, env=env or self.environ(), capture_output=True, text=True,
                              timeout=COMMAND_TIMEOUT, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(args)}: exit {done.returncode}: {done.stderr.strip()}")
        return done.stdout

    def sbatch(self, *args: str, env: dict[str, str]) -> str:
        """Submit a job from `work` and return its id."""
        return self.run("sbatch", "--parsable", *args, env=env).strip().split(";")[0]

    def jobs(self) -> set[str]:
        """The ids of the jobs still queued or running (an array's, once for all its tasks)."""
        return set(self.run("squeue", "-h", "-o", "%F").split())

    def wait_for_jobs(self, timeout: float, *job_ids: str) -> None:
        """Until those jobs (or all) have left the queue; raises TimeoutError naming what is left."""
        def left() -> set[str]:
            return self.jobs() & set(job_ids) if job_ids else self.jobs()

        _wait(lambda: not left(), timeout, lambda: f"jobs still in the queue after {timeout:.0f} s: {sorted(left())}")

    def states(self, job_id: str) -> list[tuple[str, str]]:
        """(JobState, ExitCode) of a job, one pair per task of an array, in task order (`scontrol show job`: no
        accounting here, and a finished job stays there for MinJobAge)."""
        lines = self.run("scontrol", "-o", "show", "job", job_id).splitlines()
        fields = [dict(re.findall(r"(\w+)=(\S*)", line)) for line in lines if line.strip()]
        fields.sort(key=lambda f: int(f.get("ArrayTaskId", "0")))
        return [(f["JobState"], f["ExitCode"]) for f in fields]


@contextlib.contextmanager
def one_node_slurm(root: Path) -> Iterator[Cluster]:
    """A one-node Slurm in `root` for the `with` block, torn down at its end; the test skipped where none can run."""
    reason = unavailable()
    if reason:
        pytest.skip(reason)
    cluster = Cluster(root)
    try:
        _start(cluster)
        yield cluster
    finally:
        _stop(cluster)


def _config(cluster: Cluster, ctld_port: int, slurmd_port: int) -> str:
    """slurm.conf: one node of this machine's CPUs, half its memory, no accounting, no cgroups, all in `root`."""
    memory_mb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20 // 2
    root = cluster.root
    settings = {
        "ClusterName": "tombench-test", "SlurmctldHost": "localhost", "SlurmUser": "root", "SlurmdUser": "root",
        "SlurmctldPort": ctld_port, "SlurmdPort": slurmd_port,
        "AuthType": "auth/munge", "CredType": "cred/munge", "AuthInfo": f"socket={root / 'munge' / 'socket'}",
        "StateSaveLocation": root / "state", "SlurmdSpoolDir": root / "spool",
        "SlurmctldPidFile": root / "slurmctld.pid", "SlurmdPidFile": root / "slurmd.pid",
        "PlugStackConfig": root / "plugstack.conf", "MailProg": "/bin/true", "MpiDefault": "none",
        "ProctrackType": "proctrack/linuxproc", "TaskPlugin": "task/none",
        "SelectType": "select/cons_tres", "SelectTypeParameters": "CR_CPU",
        "JobAcctGatherType": "jobacct_gather/none", "AccountingStorageType": "accounting_storage/none",
        "JobCompType": "jobcomp/none", "ReturnToService": 2,
        "MinJobAge": 3600,  # a finished job's state stays in `scontrol show job` for the test's whole length
    }
    lines = [f"{key}={value}" for key, value in settings.items()]
    lines.append(f"NodeName=localhost NodeAddr=127.0.0.1 CPUs={os.cpu_count() or 1} RealMemory={memory_mb} "
                 "State=UNKNOWN")
    lines.append("PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP")
    return "\n".join(lines) + "\n"


def _free_ports(n: int) -> list[int]:
    """`n` distinct TCP ports free on this machine now (another cluster of another test run takes others)."""
    with contextlib.ExitStack() as stack:
        socks = [stack.enter_context(socket.socket()) for _ in range(n)]
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]


#: Linux's prctl, looked up here: the forked child only calls it (no import, no lock between fork and exec)
_PRCTL = getattr(ctypes.CDLL(None), "prctl", None)


def _die_with_parent() -> None:
    """In the daemon's process before it runs: SIGTERM when the process that started it ends."""
    if _PRCTL is not None:
        _PRCTL(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _launch(cluster: Cluster, name: str, *args: str) -> None:
    """Start a daemon in the foreground of a process of its own, its output in `root/<name>.log`."""
    with (cluster.root / f"{name}.log").open("wb") as log:
        proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                cwd=cluster.root, env=cluster.environ(), start_new_session=True,
                                preexec_fn=_die_with_parent)  # noqa: PLW1509 - only a prctl, no locks taken
    cluster.daemons.append((name, proc))


def _start(cluster: Cluster) -> None:
    """munged, then slurmctld and slurmd; skips (one line) when the node is not idle within UP_TIMEOUT."""
    root = cluster.root
    for folder in ("munge", "state", "spool", "work"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    key = root / "munge" / "key"
    key.write_bytes(os.urandom(1024))
    key.chmod(0o600)
    cluster.conf.write_text(_config(cluster, *_free_ports(2)), encoding="utf-8")
    (root / "plugstack.conf").write_text("", encoding="utf-8")
    munge = root / "munge"
    # -f: munged refuses a socket in a folder that others cannot enter, which a test's temporary folder is
    _launch(cluster, "munged", "munged", "-F", "-f", f"--key-file={key}", f"--socket={munge / 'socket'}",
            f"--pid-file={munge / 'pid'}", f"--seed-file={munge / 'seed'}", f"--log-file={munge / 'log'}")
    _up(cluster, lambda: (munge / "socket").exists(), "munged made no socket")
    _launch(cluster, "slurmctld", "slurmctld", "-D", "-f", str(cluster.conf))
    _launch(cluster, "slurmd", "slurmd", "-D", "-N", "localhost", "-f", str(cluster.conf))
    _up(cluster, lambda: _node_state(cluster) == "idle", "the node did not become idle")


def _node_state(cluster: Cluster) -> str:
    try:
        return cluster.run("sinfo", "-h", "-N", "-o", "%T").strip()
    except (RuntimeError, subprocess.SubprocessError) as err:
        return str(err)


def _up(cluster: Cluster, ready: Callable[[], bool], what: str) -> None:
    """Wait until `ready`; skip (one line: the daemon that ended or the last log line) if it never is."""
    deadline = time.monotonic() + UP_TIMEOUT
    while not ready():
        ended = [name for name, proc in cluster.daemons if proc.poll() is not None]
        if ended or time.monotonic() > deadline:
            name = ended[0] if ended else cluster.daemons[-1][0]
            why = f"{name} ended" if ended else f"{what} within {UP_TIMEOUT:.0f} s"
            pytest.skip(f"the one-node Slurm did not come up: {why} ({_last_line(cluster.root / f'{name}.log')})")
        time.sleep(0.2)


def _last_line(log: Path) -> str:
    lines = log.read_text(encoding="utf-8", errors="replace").strip().splitlines() if log.exists() else []
    return lines[-1] if lines else "no output"


def _wait(done: Callable[[], bool], timeout: float, say: Callable[[], str]) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise TimeoutError(say())
        time.sleep(0.5)


def _stop(cluster: Cluster) -> None:
    """Cancel the jobs, end the daemons (the last started first), kill what still works in `root`."""
    if any(name == "slurmctld" for name, _ in cluster.daemons):
        with contextlib.suppress(RuntimeError, subprocess.SubprocessError, TimeoutError, OSError):
            if jobs := cluster.jobs():
                cluster.run("scancel", *sorted(jobs))
                cluster.wait_for_jobs(STOP_TIMEOUT)
    for _, proc in reversed(cluster.daemons):
        proc.terminate()
        try:
            proc.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(STOP_TIMEOUT)
    _kill_leftovers(cluster.root)


def _kill_leftovers(root: Path) -> None:
    """Kill, by id, each process whose working folder lies in `root`: a job's step (slurmstepd and what it runs)
    that outlived the cancel."""
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        with contextlib.suppress(OSError):
            if Path(os.readlink(proc / "cwd")).is_relative_to(root.resolve()):
                os.kill(int(proc.name), signal.SIGKILL)
