"""`gtidkit server` without ``--workers`` runs one worker per CPU the process may use (issue 21 step 8,
docs/design/multi_worker.md "Step 8 as built").

The count is the affinity mask (``taskset``) capped by the cgroup CPU quota (src/gtidkit/protocol/cpus.py); the
quota parsing is checked on cgroup trees written here in the kernel's file formats (cgroup v2 ``cpu.max``, v1
``cpu.cfs_quota_us`` / ``cpu.cfs_period_us``: Documentation/admin-guide/cgroup-v2.rst and
scheduler/sched-bwc.rst). The servers are real processes started as a user starts them, with no ``--workers``:
on every CPU of this machine (a supervisor and one worker per CPU: SIGHUP, SHUTDOWN, SIGTERM, the pid file, the
error log) and under ``taskset`` with one CPU (one process, as ``--workers=1``). mysqld's oracle for the process
itself: one pid in the pid file, SIGTERM and SHUTDOWN stop the whole server with status 0, one SIGHUP flushes the
binary log once (RM8 "Unix Signal Handling in MySQL").
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pymysql
import pytest

from gtidkit.protocol.cpus import available_cpus, cgroup_cpu_limit, worker_cpu
from gtidkit.protocol.options import COMMAND, help_text, load
from tests.protocol.prefork import popen_gtidkit
from tests.protocol.server_proc import ServerProcess, children, initialize, process_name

#: every option the tests need, given explicitly (COMMON.md: no test depends on a server default) except --workers
ARGS = ("--gtid-mode=ON", "--enforce-gtid-consistency=ON", "--server-id=1", "--log-bin")


# ---------------------------------------------------------------------------------------------- the CPU count
@pytest.mark.parametrize(
    ("cgroup", "files", "expected"),
    [
        pytest.param(
            "0::/\n", {"cgroup.controllers": "cpu", "cpu.max": "max 100000"}, None, id="v2-no-limit"
        ),
        pytest.param(
            "0::/\n", {"cgroup.controllers": "cpu", "cpu.max": "200000 100000"}, 2, id="v2-two-cpus"
        ),
        pytest.param(
            "0::/\n", {"cgroup.controllers": "cpu", "cpu.max": "150000 100000"}, 2, id="v2-fraction-up"
        ),
        pytest.param("0::/\n", {"cgroup.controllers": "cpu", "cpu.max": "50000 100000"}, 1, id="v2-half-cpu"),
        pytest.param(
            "0::/a/b\n",
            {
                "cgroup.controllers": "cpu",
                "a/cpu.max": "300000 100000",
                "a/b/cpu.max": "max 100000",
            },
            3,
            id="v2-ancestor-limit",
        ),
        pytest.param(
            "0::/a/b\n",
            {"cgroup.controllers": "cpu", "a/cpu.max": "800000 100000", "a/b/cpu.max": "100000 100000"},
            1,
            id="v2-smallest-on-the-path",
        ),
        pytest.param(
            "0::/host/path\n",
            {"cgroup.controllers": "cpu", "cpu.max": "400000 100000"},
            4,
            id="v2-path-not-visible",
        ),
        pytest.param(
            "0::/\n",
            {"unified/cgroup.controllers": "", "unified/cpu.max": "100000 100000"},
            1,
            id="v2-hybrid",
        ),
        pytest.param(
            "4:cpu,cpuacct:/docker/x\n",
            {
                "cpu,cpuacct/docker/x/cpu.cfs_quota_us": "250000",
                "cpu,cpuacct/docker/x/cpu.cfs_period_us": "100000",
            },
            3,
            id="v1-quota",
        ),
        pytest.param(
            "1:cpu:/\n",
            {"cpu/cpu.cfs_quota_us": "-1\n", "cpu/cpu.cfs_period_us": "100000\n"},
            None,
            id="v1-no-limit",
        ),
        pytest.param("4:memory:/x\n", {"memory/x/memory.max": "1"}, None, id="no-cpu-controller"),
        pytest.param(
            "0::/\n", {"cgroup.controllers": "cpu", "cpu.max": "garbage"}, None, id="unreadable-value"
        ),
        pytest.param("0::/\n", {"cgroup.controllers": "cpu"}, None, id="no-cpu-max"),
    ],
)
def test_cgroup_cpu_quota(tmp_path: Path, cgroup: str, files: dict[str, str], expected: int | None) -> None:
    root = tmp_path / "sys-fs-cgroup"
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (tmp_path / "cgroup").write_text(cgroup)
    assert cgroup_cpu_limit(proc_cgroup=tmp_path / "cgroup", cgroup_root=root) == expected
    limited = available_cpus(proc_cgroup=tmp_path / "cgroup", cgroup_root=root)
    assert limited == min(len(os.sched_getaffinity(0)), expected or 1024)


def test_no_cgroup_file_means_the_affinity_mask(tmp_path: Path) -> None:
    assert cgroup_cpu_limit(proc_cgroup=tmp_path / "missing") is None
    assert available_cpus(proc_cgroup=tmp_path / "missing") == len(os.sched_getaffinity(0))


@pytest.mark.parametrize(
    ("args", "expected", "warning"),
    [
        pytest.param([], None, None, id="not-given"),
        pytest.param(["--workers=3"], 3, None, id="given"),
        pytest.param(["--workers", "1"], 1, None, id="one"),
        pytest.param(
            ["--workers=0"], 1, "option 'workers': unsigned value 0 adjusted to 1.", id="zero-adjusted"
        ),
        pytest.param(
            ["--workers=2000"], 1024, "option 'workers': unsigned value 2000 adjusted to 1024.", id="max"
        ),
    ],
)
def test_workers_option_value(args: list[str], expected: int | None, warning: str | None) -> None:
    """The value in effect: the CPU count when not given, else the given one, range-checked as my_getopt checks a
    number (adjusted with MY-000082's warning)."""
    opts = load(args)
    assert opts.command["gtidkit_workers"] == (available_cpus() if expected is None else expected)
    assert [w.text for w in opts.warnings] == ([warning] if warning else [])


# ---------------------------------------------------------------------------------------------- worker CPUs
@pytest.mark.parametrize(
    ("workers", "allowed", "expected"),
    [
        pytest.param(1, {0, 1}, [None], id="one-worker-free"),
        pytest.param(2, {0, 1}, [0, 1], id="two-on-two"),
        pytest.param(3, {0, 1}, [0, 1, 0], id="three-on-two-in-turn"),
        pytest.param(2, {7, 2, 5}, [2, 5], id="two-on-three-sorted"),
        pytest.param(4, {3}, [3, 3, 3, 3], id="taskset-one-cpu"),
        pytest.param(2, set(), [None, None], id="empty-mask"),
    ],
)
def test_worker_cpu(workers: int, allowed: set[int], expected: list[int | None]) -> None:
    """Each worker of several gets one CPU of the allowed set in turn, by worker id; one worker is not pinned."""
    assert [worker_cpu(i, workers, allowed) for i in range(workers)] == expected


def test_worker_cpu_affinity_option() -> None:
    """``--worker-cpu-affinity`` is on unless ``--skip-worker-cpu-affinity`` / ``=OFF`` (a BOOL option)."""
    assert load([]).command["worker_cpu_affinity"] is True
    assert load(["--skip-worker-cpu-affinity"]).command["worker_cpu_affinity"] is False
    assert load(["--worker-cpu-affinity=OFF"]).command["worker_cpu_affinity"] is False


def _cpus_allowed(pid: int) -> set[str]:
    """The ``Cpus_allowed_list`` of every thread of process ``pid``."""
    out = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        for line in (task / "status").read_text().splitlines():
            if line.startswith("Cpus_allowed_list:"):
                out.add(line.split(":", 1)[1].strip())
    return out


def test_short_help_names_the_process_model() -> None:
    """``gtidkit server --help`` says how many workers a start would run and how to get one process; ``gtidkit
    sql --help`` (one process always) does not."""
    assert (
        f"--workers=N (default here: {available_cpus()}, the CPUs this process may use; --workers=1: one process)"
        in (help_text(verbose=False))
    )
    assert "--workers" not in help_text(verbose=False, accept=lambda o: o.owner != COMMAND)


def _first_cpu() -> str:
    return str(min(os.sched_getaffinity(0)))


def test_help_verbose_shows_the_default_of_this_process() -> None:
    """``gtidkit server --help --verbose`` lists ``workers`` with the value a start would use (mysqld lists its
    computed defaults the same way); under ``taskset`` a real start shows 1 (test_default_server_on_one_cpu...)."""
    text = help_text(verbose=True)
    assert f"\nworkers{' ' * 42}{available_cpus()}\n" in text
    assert "--workers=#  Worker processes serving connections (default: the CPUs this process may use" in text


# ---------------------------------------------------------------------------------------------- real servers
@contextlib.contextmanager
def default_server(
    datadir: Path, *args: str, cpus: str | None = None, first: tuple[str, ...] = ()
) -> Iterator[ServerProcess]:
    """`gtidkit server FIRST --datadir D --port 0 --log-error error.log ARGS` with no ``--workers`` (``taskset -c
    CPUS`` first when given), as a user starts it; stopped (SIGTERM, then SIGKILL) at exit. ``first``: options
    mysqld takes only as the first arguments (``--defaults-file``)."""
    argv = ["server", *first, "--datadir", str(datadir), "--port", "0", "--log-error", "error.log", *args]
    kwargs = {
        "stdout": subprocess.DEVNULL,
        "stderr": subprocess.PIPE,
        "text": True,
        "env": {**os.environ, "PYTHONUNBUFFERED": "1"},
    }
    if cpus is None:  # forked from the suite's preloaded interpreter: this process's CPUs, as a shell's child
        proc = popen_gtidkit(argv, **kwargs)
    else:
        proc = subprocess.Popen(["taskset", "-c", cpus, sys.executable, "-m", "gtidkit", *argv], **kwargs)
    try:
        assert proc.stderr is not None
        port = None
        for line in proc.stderr:
            if "ready for connections" in line:
                port = int(line.rsplit("port:", 1)[1])
                break
        if port is None:
            log = datadir / "error.log"
            raise AssertionError(
                f"server did not start (rc={proc.poll()}): {log.read_text() if log.exists() else ''}"
            )
        yield ServerProcess(proc, port, datadir)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()


def connect(port: int) -> pymysql.connections.Connection:
    """A PyMySQL connection as root (autocommit)."""
    return pymysql.connect(host="127.0.0.1", port=port, user="root", autocommit=True)


def query(conn: pymysql.connections.Connection, sql: str) -> tuple:
    """Run ``sql``; its rows."""
    with conn.cursor() as cur:
        cur.execute(sql)
        return cur.fetchall()


def alive(pid: int) -> bool:
    """Whether ``pid`` exists and is not a zombie."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_until(check, timeout: float = 30.0, what: str = "condition") -> None:
    """Poll ``check()`` until it is true."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def workers_of(pid: int) -> dict[str, int]:
    """The server's child processes by name (``gtidkit-worker<i>``, ``gtidkit-forksrv``)."""
    return {process_name(p): p for p in children(pid)}


def test_default_server_runs_a_worker_per_cpu(tmp_path: Path) -> None:
    """No ``--workers`` on this machine: one supervisor (the pid file's pid) and a worker per CPU; connections
    are placed round-robin; one SIGHUP is one binary log rotation; SHUTDOWN from a connection of the last worker
    and SIGTERM after a restart stop every process with status 0; recovery keeps the data between the runs."""
    n = available_cpus()
    if n < 2:
        pytest.skip("one CPU: the default is one process (test_default_server_on_one_cpu_is_one_process)")
    datadir = tmp_path / "d"
    r = subprocess.run(  # --initialize-insecure without --workers: one process, as mysqld --initialize
        [
            sys.executable,
            "-m",
            "gtidkit",
            "server",
            "--initialize-insecure",
            "--datadir",
            str(datadir),
            "--skip-log-bin",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    with default_server(datadir, *ARGS) as srv:
        pid = srv.proc.pid
        names = workers_of(pid)
        assert sorted(names) == ["gtidkit-forksrv", *(f"gtidkit-worker{i}" for i in range(n))]
        pid_file = next(datadir.glob("*.pid"))
        assert pid_file.read_text().strip() == str(pid)  # one pid: the supervisor's, as mysqld's
        conns = [connect(srv.port) for _ in range(n)]
        rows = [
            query(c, "SELECT @@gtidkit_worker_id, @@GLOBAL.gtidkit_workers, CONNECTION_ID()")[0]
            for c in conns
        ]
        assert [r[:2] for r in rows] == [(i, n) for i in range(n)]
        assert dict(query(conns[0], "SHOW GLOBAL VARIABLES LIKE 'gtidkit_workers'")) == {
            "gtidkit_workers": str(n)
        }
        with pytest.raises(pymysql.err.OperationalError) as err:
            query(conns[0], "SET GLOBAL gtidkit_workers = 1")
        assert err.value.args[0] == 1238  # read only, as every start-up option's variable
        listed = {r[0] for r in query(conns[0], "SHOW PROCESSLIST")}
        assert {r[2] for r in rows} <= listed  # every worker's connection, seen from worker 0
        query(conns[-1], "CREATE DATABASE kept")

        srv.proc.send_signal(signal.SIGHUP)

        def logs(c: pymysql.connections.Connection) -> list[str]:
            return [r[0] for r in query(c, "SHOW BINARY LOGS")]

        wait_until(lambda: logs(conns[0]) == ["binlog.000001", "binlog.000002"], what="the SIGHUP rotation")
        time.sleep(1.0)  # a second rotation (one per worker) would show by now
        for c in conns:
            assert logs(c) == ["binlog.000001", "binlog.000002"]
        assert srv.proc.poll() is None
        worker_pids = list(names.values())
        # mariadb-admin shutdown sends COM_SHUTDOWN, which MySQL 8.0 removed (WL#9014): 1047 "Unknown command", the
        # server stays up; MySQL 8.0's mysqladmin sends the SHUTDOWN statement instead (below)
        admin = subprocess.run(
            ["mariadb-admin", "-h127.0.0.1", f"-P{srv.port}", "-uroot", "shutdown"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert admin.returncode == 1 and "Unknown command" in admin.stderr, admin.stderr
        assert srv.proc.poll() is None and all(alive(p) for p in worker_pids)
        query(conns[-1], "SHUTDOWN")
        assert srv.proc.wait(60) == 0
        wait_until(lambda: not any(alive(p) for p in worker_pids), what="every worker to exit")
        assert not pid_file.exists()
        for c in conns:
            c.close()
    log = (datadir / "error.log").read_text()
    assert f"supervisor (pid {pid}): {n} worker process(es) serving" in log
    # the one-process server's line, which scripts look for
    assert (
        f"ready for connections. Version: '8.0.36-gtidkit'  bind-address: '127.0.0.1'  port: {srv.port}"
        in log
    )
    # the supervisor passes SIGHUP to one worker (it rotates, re-reads the grant tables and publishes them to the
    # others) and SIGUSR1 to the rest (their error logs only): one rotation per SIGHUP, as mysqld's signal thread
    assert log.count("Received SIGHUP: flushing logs and reloading the grant tables") == 1
    assert f"SHUTDOWN from a client of worker {n - 1}" in log
    assert "Shutdown complete" in log and "Traceback" not in log

    with default_server(datadir, *ARGS) as srv, connect(srv.port) as c:
        worker_pids = list(workers_of(srv.proc.pid).values())
        assert len(worker_pids) == n + 1
        assert ("kept",) in query(c, "SHOW DATABASES")
        assert srv.stop(signal.SIGTERM) == 0
        wait_until(lambda: not any(alive(p) for p in worker_pids), what="every process to exit")
    assert not list(datadir.glob("*.pid"))


def test_default_server_on_one_cpu_is_one_process(tmp_path: Path) -> None:
    """Under ``taskset -c CPU`` the default is one worker, i.e. today's one-process server (no supervisor, no
    fork server), exactly as ``--workers=1``: its pid in the pid file, SIGHUP rotates, SHUTDOWN ends it with 0."""
    datadir = tmp_path / "d"
    initialize(datadir)
    with default_server(datadir, *ARGS, cpus=_first_cpu()) as srv:
        assert children(srv.proc.pid) == []
        assert next(datadir.glob("*.pid")).read_text().strip() == str(srv.proc.pid)
        with connect(srv.port) as c:
            assert query(c, "SELECT @@gtidkit_worker_id, @@GLOBAL.gtidkit_workers") == ((0, 1),)
            srv.proc.send_signal(signal.SIGHUP)
            wait_until(
                lambda: [r[0] for r in query(c, "SHOW BINARY LOGS")] == ["binlog.000001", "binlog.000002"],
                what="the SIGHUP rotation",
            )
            query(c, "SHUTDOWN")
        assert srv.proc.wait(60) == 0
    log = (datadir / "error.log").read_text()
    assert "supervisor" not in log and "Shutdown complete" in log
    assert (
        f"ready for connections. Version: '8.0.36-gtidkit'  bind-address: '127.0.0.1'  port: {srv.port}"
        in log
    )


def test_workers_from_an_option_file(tmp_path: Path) -> None:
    """``workers`` in a ``--defaults-file``'s ``[mysqld]`` group wins over the CPU count, as any option does (3:
    more workers than this machine's CPUs, so not the default), and the command line wins over the file; a real
    server started from the file runs 3 workers and SIGTERM stops them all."""
    cnf = tmp_path / "my.cnf"
    cnf.write_text("[mysqld]\nworkers=3\n")
    assert load([f"--defaults-file={cnf}"]).command["gtidkit_workers"] == 3
    assert load([f"--defaults-file={cnf}", "--workers=1"]).command["gtidkit_workers"] == 1
    datadir = tmp_path / "d"
    initialize(datadir)
    with default_server(datadir, *ARGS, first=(f"--defaults-file={cnf}",)) as srv, connect(srv.port) as c:
        assert query(c, "SELECT @@GLOBAL.gtidkit_workers") == ((3,),)
        workers = [p for p in children(srv.proc.pid) if process_name(p).startswith("gtidkit-worker")]
        assert len(workers) == 3
        # --worker-cpu-affinity (on): every thread of worker i on the i-th CPU of this process's mask, in turn
        mask = sorted(os.sched_getaffinity(0))
        for p in workers:
            index = int(process_name(p).removeprefix("gtidkit-worker"))
            assert _cpus_allowed(p) == {str(mask[index % len(mask)])}
        assert srv.stop(signal.SIGTERM) == 0  # SIGTERM: a clean shutdown of every process
        wait_until(lambda: not any(alive(p) for p in workers), what="every worker to exit")
    assert "Shutdown complete" in (datadir / "error.log").read_text()


def test_skip_worker_cpu_affinity_leaves_the_mask(tmp_path: Path) -> None:
    """``--skip-worker-cpu-affinity``: the workers keep the whole mask they were started with."""
    datadir = tmp_path / "d"
    initialize(datadir)
    with default_server(datadir, *ARGS, "--workers=2", "--skip-worker-cpu-affinity") as srv:
        workers = [p for p in children(srv.proc.pid) if process_name(p).startswith("gtidkit-worker")]
        assert len(workers) == 2
        whole = _cpus_allowed(os.getpid())
        for p in workers:
            assert _cpus_allowed(p) == whole
        assert srv.stop(signal.SIGTERM) == 0
