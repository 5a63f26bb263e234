"""`gtidkit server` started as a DBA starts mysqld: its defaults, a real my.cnf, --log-bin=NAME, refused options.

Oracles: mysqld 8.0's defaults (``mysqld --verbose --help``: log-bin ON with base name ``binlog``, server-id 1,
gtid-mode OFF, enforce-gtid-consistency OFF, binlog-format ROW); RM8 "Binary Logging Options and Variables"
(``--log-bin=base_name`` writes ``base_name.000001`` and ``base_name.index`` in the datadir, or where the path
says; ``@@log_bin_basename`` / ``@@log_bin_index`` are the full paths); mysys's start-up messages.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pymysql
import pytest
from protocol.prefork import run_gtidkit
from protocol.server_proc import initialize, mode_args, running_server


def _query(port: int, sql: str) -> list[tuple]:
    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", password="")
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            return list(cur.fetchall())
    finally:
        conn.close()


def _server(*args: str) -> subprocess.CompletedProcess[str]:
    return run_gtidkit(
        ["server", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_mysqld_80_defaults(tmp_path: Path) -> None:
    with running_server(tmp_path / "d", base=()) as s:
        row = _query(
            s.port,
            "SELECT @@log_bin, @@server_id, @@gtid_mode, @@enforce_gtid_consistency, @@binlog_format, "
            "@@log_bin_basename, @@log_bin_index",
        )[0]
        assert row == (
            1,
            1,
            "OFF",
            "OFF",
            "ROW",
            str(tmp_path / "d" / "binlog"),
            str(tmp_path / "d" / "binlog.index"),
        )
        assert [r[0] for r in _query(s.port, "SHOW BINARY LOGS")] == ["binlog.000001"]
    assert (tmp_path / "d" / "binlog.index").read_text() == "./binlog.000001\n"


def test_log_bin_basename_and_index(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    datadir = tmp_path / "d"
    with running_server(datadir, "--log-bin=mysql-bin", base=()) as s:
        assert _query(s.port, "SELECT @@log_bin_basename, @@log_bin_index") == [
            (str(datadir / "mysql-bin"), str(datadir / "mysql-bin.index"))
        ]
        _query(s.port, "FLUSH BINARY LOGS")
        assert [r[0] for r in _query(s.port, "SHOW BINARY LOGS")] == ["mysql-bin.000001", "mysql-bin.000002"]
    assert (datadir / "mysql-bin.index").read_text() == "./mysql-bin.000001\n./mysql-bin.000002\n"
    assert not (datadir / "binlog.index").exists()
    # elsewhere, with its own index: the index lists full paths, and a restart finds the files again
    args = (f"--log-bin={logs / 'node1-bin'}", f"--log-bin-index={logs / 'node1.index'}")
    with running_server(tmp_path / "e", *args, base=()) as s:
        _query(s.port, "CREATE DATABASE x")
    with running_server(tmp_path / "e", *args, base=(), init=False) as s:
        assert [r[0] for r in _query(s.port, "SHOW BINARY LOGS")] == ["node1-bin.000001", "node1-bin.000002"]
    assert (logs / "node1.index").read_text() == f"{logs}/node1-bin.000001\n{logs}/node1-bin.000002\n"


def test_dba_my_cnf_starts_with_warnings(tmp_path: Path) -> None:
    datadir = tmp_path / "d"
    initialize(datadir)
    cnf = tmp_path / "my.cnf"
    cnf.write_text(
        "[client]\nport = 3306\n"
        "[mysqld]\nuser = mysql\ninnodb_buffer_pool_size = 2G\nslow_query_log = 1\nlog_error = error.log\n"
        "character-set-server = utf8mb4\nmax_connections = 500\nlog-bin = mysql-bin\nserver-id = 42\n"
        "[mysqld-8.0]\ngtid_mode = ON\nenforce-gtid-consistency\n"
    )
    with running_server(datadir, f"--defaults-file={cnf}", base=(), init=False) as s:
        assert _query(
            s.port, "SELECT @@server_id, @@gtid_mode, @@enforce_gtid_consistency, @@log_bin_basename"
        ) == [(42, "ON", "ON", str(datadir / "mysql-bin"))]
    log = (datadir / "error.log").read_text()
    for name in ("user", "innodb_buffer_pool_size", "slow_query_log"):
        assert f"[Warning] [Server] option '{name}' is a mysqld option that gtidkit does not implement" in log


@pytest.mark.parametrize(
    ("args", "stderr"),
    [
        (
            ["--no-such=1", "--innodb-buffer-pool-size=1G", "--nope"],
            [
                "[ERROR] [MY-000067] [Server] unknown variable 'no-such=1'.",
                "[ERROR] [MY-000068] [Server] unknown option '--nope'.",
                "[ERROR] [MY-010119] [Server] Aborting",
            ],
        ),
        (["-h"], ["[ERROR] [MY-000072] [Server] mysqld: option '-h' requires an argument."]),
        # mysqld: GTID_MODE = ON requires ENFORCE_GTID_CONSISTENCY = ON
        (["--gtid-mode=ON"], ["ENFORCE_GTID_CONSISTENCY", "[MY-010119] [Server] Aborting"]),
        (["--log-error=/no/such/dir/e.log"], ["Could not open file '/no/such/dir/e.log' for error logging"]),
        (["--log-bin=/no/such/dir/b"], ["/no/such/dir/b.000001", "[MY-010119] [Server] Aborting"]),
        (["--default-time-zone=Mars/Base"], ["Unknown or incorrect time zone: 'Mars/Base'"]),
    ],
    ids=[
        "unknown-all-at-once",
        "short-h-needs-a-directory",
        "gtid-on-without-enforce",
        "log-error-dir",
        "log-bin-dir",
        "time-zone",
    ],
)
def test_refused_start(tmp_path: Path, args: list[str], stderr: list[str]) -> None:
    datadir = tmp_path / "d"
    initialize(datadir)
    r = _server(*mode_args(), "--datadir", str(datadir), "--port", "0", *args)
    assert r.returncode == 1
    if stderr[0].startswith("[ERROR]"):
        assert r.stderr.splitlines() == stderr
    else:
        for text in stderr:
            assert text in r.stderr
    assert "Traceback" not in r.stderr


def test_help_verbose_and_version() -> None:
    r = _server("--help", "--verbose")
    assert r.returncode == 0
    assert "-h, --datadir=name" in r.stdout and "Variables (--variable-name=value)" in r.stdout
    assert any(line.split() == ["gtid-mode", "OFF"] for line in r.stdout.splitlines())
    r = _server("-V")
    assert r.returncode == 0 and "Ver 8.0" in r.stdout
