"""`gtidkit server` and Unix signals: SIGHUP / SIGUSR1 flush, the server keeps running (one real server process).

Oracle: RM8 6.10 "Unix Signal Handling in MySQL": "SIGHUP causes the server to reload the grant tables and to flush
tables, logs, the thread cache, and the host cache. These actions are like various forms of the FLUSH statement";
"SIGUSR1 causes the server to flush the error log, general query log, and slow query log". Flushing the logs
rotates the binary log as FLUSH LOGS does (a new ``binlog.00000N``), and reopens the error log, so a file moved
away by log rotation is created again (RM8 7.4.6 "Server Log Maintenance").
"""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pymysql
import pytest
from protocol.server_proc import running_server

#: one process and supervised (issue 21): the supervisor passes SIGHUP / SIGUSR1 on to its worker
pytestmark = pytest.mark.usefixtures("server_mode")


def _query(port: int, sql: str, user: str = "root") -> list[tuple]:
    conn = pymysql.connect(host="127.0.0.1", port=port, user=user, password="", autocommit=True)
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            return list(cur.fetchall())
    finally:
        conn.close()


def _wait_for(check, timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.1)
    return False


def test_sighup_flushes_logs_and_grants_and_keeps_running(tmp_path: Path) -> None:
    datadir = tmp_path / "d"
    with running_server(datadir, "--log-bin", "--server-id", "1") as srv:
        _query(srv.port, "CREATE USER u")
        _query(
            srv.port, "UPDATE mysql.user SET Select_priv = 'Y' WHERE user = 'u'"
        )  # takes effect at a flush
        (datadir / "error.log").rename(datadir / "error.log.1")  # what logrotate does before signalling

        srv.proc.send_signal(signal.SIGHUP)

        def rotated() -> bool:
            return [r[0] for r in _query(srv.port, "SHOW BINARY LOGS")] == ["binlog.000001", "binlog.000002"]

        assert _wait_for(rotated), _query(srv.port, "SHOW BINARY LOGS")
        assert srv.proc.poll() is None  # still running
        assert _wait_for((datadir / "error.log").exists)  # reopened under its name

        def reloaded() -> bool:
            try:
                return _query(srv.port, "SELECT COUNT(*) FROM mysql.user WHERE user = 'u'", user="u") == [
                    (1,)
                ]
            except pymysql.err.OperationalError as err:  # 1142 until the grant tables are re-read
                assert err.args[0] == 1142
                return False

        assert _wait_for(reloaded), (datadir / "error.log").read_text()
        # every worker took the re-read grants (with several workers, consecutive connections reach each of them)
        assert all(reloaded() for _ in range(3))
        assert [r[0] for r in _query(srv.port, "SHOW BINARY LOGS")] == ["binlog.000001", "binlog.000002"]

        srv.proc.send_signal(signal.SIGUSR1)  # error log only: no binary log rotation
        (datadir / "error.log").rename(datadir / "error.log.2")
        srv.proc.send_signal(signal.SIGUSR1)
        assert _wait_for((datadir / "error.log").exists)
        assert len(_query(srv.port, "SHOW BINARY LOGS")) == 2
        assert srv.stop() == 0
    assert "Shutdown complete" in (datadir / "error.log").read_text()
