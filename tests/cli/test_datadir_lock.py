"""One process per datadir (issue 17 §1): a second `gtidkit server` / `gtidkit sql` on a datadir in use is refused
with error 1015 naming the datadir and the holder's pid (as mysqld refuses a locked ibdata1: "Unable to lock
./ibdata1 error: 11 ... Check that you do not already have another mysqld process using the same InnoDB data or log
files"), and a SIGKILLed holder leaves no lock behind."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from gtidkit.engine import Server
from gtidkit.engine.datadir_lock import DatadirInUseError
from gtidkit.errors import MySQLError
from tests.protocol.prefork import popen_gtidkit, run_gtidkit
from tests.protocol.server_proc import initialize, mode_args, running_server

LOCK_FILE = "gtidkit.sqlite.lock"
SERVER_ARGS = ("--skip-log-bin", "--gtid-mode=ON", "--enforce-gtid-consistency=ON", "--server-id=1")


def gtidkit(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run ``python -m gtidkit ARGS`` and capture its output."""
    return run_gtidkit(args, capture_output=True, text=True, timeout=timeout, check=False)


def start_sql(datadir: Path, statement: str) -> subprocess.Popen[str]:
    """A `gtidkit sql` running ``statement`` in the background."""
    return popen_gtidkit(
        ["sql", "--datadir", str(datadir), "--skip-log-bin", "-e", statement],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for_holder(datadir: Path, pid: int, timeout: float = 60) -> None:
    """Wait until process ``pid`` has recorded itself as the lock holder."""
    deadline = time.monotonic() + timeout
    path = datadir / LOCK_FILE
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip() == str(pid):
            return
        time.sleep(0.05)
    raise AssertionError(f"process {pid} never took the lock of {datadir}")


def assert_refused(result: subprocess.CompletedProcess[str], text: str, datadir: Path, holder: int) -> None:
    """The second process exited 1 and said which datadir is in use and by whom; nothing on stdout."""
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert result.stdout == ""
    assert "1015" in text
    assert f"The data directory {datadir} is in use by process {holder}" in text
    assert "Traceback" not in text


def test_in_process_second_open_is_refused_until_close(tmp_path: Path) -> None:
    datadir = tmp_path / "d"
    first = Server.open(datadir, log_bin=False)
    try:
        with pytest.raises(DatadirInUseError) as exc:
            Server.open(datadir, log_bin=False)
        assert exc.value.code == 1015
        assert exc.value.datadir == datadir
        assert exc.value.holder_pid == os.getpid()
        assert f"The data directory {datadir} is in use by this process" in exc.value.message
    finally:
        first.shutdown()
    again = Server.open(datadir, log_bin=False)  # released at clean shutdown
    again.shutdown()


def test_failed_start_releases_the_lock(tmp_path: Path) -> None:
    datadir = tmp_path / "d"
    Server.open(datadir).shutdown()
    (datadir / "auto.cnf").write_text("[auto]\n")  # no server-uuid: the start fails after the lock is taken
    with pytest.raises(MySQLError, match="it has no server-uuid line. .*To fix: restore auto.cnf"):
        Server.open(datadir)
    (datadir / "auto.cnf").unlink()
    Server.open(datadir).shutdown()


def test_two_servers(tmp_path: Path) -> None:
    datadir = tmp_path / "d"
    initialize(datadir)
    with running_server(datadir, *SERVER_ARGS, init=False) as first:
        wait_for_holder(datadir, first.proc.pid)
        r = gtidkit(
            "server", *mode_args(), "--datadir", str(datadir), "--port", "0", "--log-error=", *SERVER_ARGS
        )
        assert_refused(r, r.stderr, datadir, first.proc.pid)
        assert "Aborting" in r.stderr
        assert first.proc.poll() is None  # the first server is untouched


def test_two_sql_runs(tmp_path: Path) -> None:
    datadir = tmp_path / "d"
    first = start_sql(datadir, "SELECT SLEEP(30)")
    try:
        wait_for_holder(datadir, first.pid)
        r = gtidkit("sql", "--datadir", str(datadir), "--skip-log-bin", "-e", "SELECT 1")
        assert_refused(r, r.stderr, datadir, first.pid)
    finally:
        first.kill()
        first.communicate()


def test_server_then_sql(tmp_path: Path) -> None:
    datadir = tmp_path / "d"
    initialize(datadir)
    with running_server(datadir, *SERVER_ARGS, init=False) as server:
        wait_for_holder(datadir, server.proc.pid)
        r = gtidkit("sql", "--datadir", str(datadir), "--skip-log-bin", "-e", "SELECT 1")
        assert_refused(r, r.stderr, datadir, server.proc.pid)


def test_sql_then_server(tmp_path: Path) -> None:
    datadir = tmp_path / "d"
    initialize(datadir)
    holder = start_sql(datadir, "SELECT SLEEP(30)")
    try:
        wait_for_holder(datadir, holder.pid)
        r = gtidkit(
            "server", *mode_args(), "--datadir", str(datadir), "--port", "0", "--log-error=", *SERVER_ARGS
        )
        assert_refused(r, r.stderr, datadir, holder.pid)
    finally:
        holder.kill()
        holder.communicate()


@pytest.mark.parametrize("holder_kind", ["server", "sql"])
def test_stale_lock_after_sigkill(tmp_path: Path, holder_kind: str) -> None:
    datadir = tmp_path / "d"
    initialize(datadir)
    if holder_kind == "server":
        with running_server(datadir, *SERVER_ARGS, init=False) as server:
            wait_for_holder(datadir, server.proc.pid)
            assert server.stop(signal.SIGKILL) == -signal.SIGKILL
            dead = server.proc.pid
    else:
        proc = start_sql(datadir, "SELECT SLEEP(30)")
        wait_for_holder(datadir, proc.pid)
        proc.send_signal(signal.SIGKILL)
        proc.communicate()
        dead = proc.pid
    assert (datadir / LOCK_FILE).read_text().strip() == str(dead)  # the file stays; its lock died with dead
    r = gtidkit("sql", "--datadir", str(datadir), "--skip-log-bin", "-e", "SELECT 1 AS one")
    assert (r.returncode, r.stdout) == (0, "one\n1\n"), r.stderr
    with running_server(datadir, *SERVER_ARGS, init=False) as again:
        wait_for_holder(datadir, again.proc.pid)
