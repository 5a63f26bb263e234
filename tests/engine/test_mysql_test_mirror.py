"""The mysql-test behaviours of mysql.gtid_executed, mirrored on our engine.

The .result files are read in place from ../shared/research/fixtures/mysql-test (GPL data, never copied): where a
result file is a step-by-step script, the statements and expected values are taken from it at test time; the
others are re-expressed as our own assertions (see each test's docstring for the file it mirrors).
"""

from __future__ import annotations

import re
import time

import pytest
from tests_paths import MYSQL_TEST

from gtidkit.engine.gtid.compressor import STATE_SUSPENDING, THREAD_NAME
from gtidkit.errors import MySQLError

SRC = "3e11fa47-71ca-11e1-9e33-c80aa9429562"


def _table_text(s) -> str:
    """GTID_EXECUTED_FROM_TABLE() of mysql-test's gtid_utils.inc: the table's rows as one GTID set."""
    return s.execute(
        "SELECT GTID_SUBTRACT(COALESCE(GROUP_CONCAT(source_uuid, ':', interval_start, '-', interval_end), ''), '') "
        "FROM mysql.gtid_executed"
    )[-1].rows[0][0]


def _steps(result_text: str) -> list[tuple[str, str, str]]:
    """(gtid, statement, expected table set) triples of no_binlog_gtid_mode_on.result."""
    lines = result_text.splitlines()
    out = []
    for i, line in enumerate(lines):
        m = re.match(r"SET SESSION GTID_NEXT='MASTER_UUID:(\d+)';", line)
        if not m:
            continue
        stmt = lines[i + 1].rstrip(";")
        if stmt.startswith("#") or "GTID_EXECUTED_FROM_TABLE()" not in lines[i:]:
            continue  # the trailing Bug#21459999 case has no table assertion
        j = lines.index("GTID_EXECUTED_FROM_TABLE()", i)
        out.append((m.group(1), stmt, lines[j + 1]))
    return out


def test_no_binlog_gtid_mode_on(open_server):
    """t/no_binlog_gtid_mode_on: binlog off, gtid_mode=ON; each statement under an explicit GTID_NEXT adds exactly
    its GTID to mysql.gtid_executed (UUID:1, UUID:1-2, ...)."""
    steps = _steps((MYSQL_TEST / "r" / "no_binlog_gtid_mode_on.result").read_text())
    assert len(steps) >= 20
    srv = open_server(gtid_mode="ON", log_bin=False, gtid_executed_compression_period=1)
    s = srv.session()
    s.execute("CREATE DATABASE test")
    s.execute("USE test")
    s.execute("RESET BINARY LOGS AND GTIDS")
    for gno, stmt, expected in steps:
        s.execute(f"SET SESSION GTID_NEXT='{SRC}:{gno}'")
        s.execute(
            stmt
        )  # every statement runs, account management included (CREATE / ALTER / DROP USER, GRANT)
        s.execute("SET SESSION GTID_NEXT='AUTOMATIC'")
        srv.compressor.wait_idle()
        assert _table_text(s) == expected.replace("MASTER_UUID", SRC), stmt
    kinds = {stmt.split()[0].upper() for _g, stmt, _e in steps}
    assert {"CREATE", "INSERT", "UPDATE", "DELETE", "DROP", "ALTER", "GRANT", "REVOKE"} <= kinds


def test_compress_at_server_start(open_server):
    """binlog_gtid_compress_at_server_start: three transactions as three rows; after a restart, one row (1,3)."""
    srv = open_server(gtid_mode="ON", log_bin=False, gtid_executed_compression_period=0)
    s = srv.session()
    for gno, stmt in enumerate(
        [
            "CREATE DATABASE test",
            "CREATE TABLE test.t1 (a INT NOT NULL PRIMARY KEY)",
            "INSERT INTO test.t1 VALUES (1)",
        ],
        start=1,
    ):
        s.execute(f"SET GTID_NEXT='{SRC}:{gno}'")
        s.execute(stmt)
        assert s.execute(
            f"SELECT COUNT(*) FROM mysql.gtid_executed WHERE interval_start = {gno} AND interval_end = {gno}"
        )[-1].rows == [(1,)]
    assert s.execute("SELECT COUNT(*) FROM mysql.gtid_executed")[-1].rows == [(3,)]
    assert s.execute("SELECT @@GLOBAL.GTID_EXECUTED")[-1].rows == [(f"{SRC}:1-3",)]
    srv.shutdown()
    srv = open_server(gtid_mode="ON", log_bin=False, gtid_executed_compression_period=0)
    srv.compressor.wait_idle()
    s = srv.session()
    assert s.execute("SELECT source_uuid, interval_start, interval_end FROM mysql.gtid_executed")[
        -1
    ].rows == [(SRC, 1, 3)]


def test_flush_logs_saves_and_compresses(open_server):
    """binlog_simulate_crash_and_error_on_compress_gtid_table: after FLUSH LOGS the table is the single row 1 3
    (8.0: the three columns source_uuid, interval_start, interval_end);
    FLUSH LOGS with no new GTIDs adds no row; the thread is thread/sql/compress_gtid_table, FOREGROUND, Daemon."""
    srv = open_server(gtid_mode="ON", log_bin=True)
    s = srv.session()
    s.execute("CREATE DATABASE test; CREATE TABLE test.t1 (a INT); INSERT INTO test.t1 VALUES (1)")
    s.execute("FLUSH LOGS")
    srv.compressor.wait_idle()
    u = str(srv.server_uuid)
    assert s.execute("SELECT * FROM mysql.gtid_executed")[-1].rows == [(u, 1, 3)]
    s.execute("FLUSH LOGS")
    assert s.execute("SELECT @@GLOBAL.GTID_EXECUTED")[-1].rows == [(f"{u}:1-3",)]
    assert s.execute("SELECT * FROM mysql.gtid_executed")[-1].rows == [(u, 1, 3)]
    srv.compressor.wait_idle()
    (res,) = s.execute(
        "SELECT NAME, TYPE, PROCESSLIST_STATE, PROCESSLIST_COMMAND FROM performance_schema.threads "
        "WHERE NAME = 'thread/sql/compress_gtid_table'"
    )
    assert res.rows == [(THREAD_NAME, "FOREGROUND", STATE_SUSPENDING, "Daemon")]


def test_crash_recovery_restores_table(open_server, tmp_path):
    """binlog_gtids_table_gcov (1): without a save at shutdown (here: no clean shutdown at all), GTID_EXECUTED is
    recovered from the binlog after restart and the table gets the row 1 2."""
    srv = open_server(gtid_mode="ON", log_bin=True)
    s = srv.session()
    s.execute("CREATE DATABASE a")
    s.execute("CREATE DATABASE b")
    # simulate a crash: drop the server without shutdown (no save, no Stop event)
    srv.compressor.stop()
    srv.binlog.abandon()
    srv.storage.close()
    srv.closed = True
    srv2 = open_server(gtid_mode="ON", log_bin=True)
    s2 = srv2.session()
    u = str(srv.server_uuid)
    assert s2.execute("SELECT @@GLOBAL.GTID_EXECUTED")[-1].rows == [(f"{u}:1-2",)]
    assert s2.execute("SELECT source_uuid, interval_start, interval_end FROM mysql.gtid_executed")[
        -1
    ].rows == [(u, 1, 2)]


def test_compression_period_on_replica_without_binlog(open_server):
    """rpl_gtid_compress_thd_ignore_super_read_only: a replica without binlog and period 5 ends with the single
    row MASTER_UUID 1 N after its transactions."""
    srv = open_server(gtid_mode="ON", log_bin=False, gtid_executed_compression_period=5)
    s = srv.session()
    stmts = (
        ["CREATE DATABASE test", "CREATE TABLE test.t1 (a INT)"]
        + [f"INSERT INTO test.t1 VALUES ({i})" for i in range(1, 5)]
        + ["DROP TABLE test.t1", "DROP DATABASE test", "CREATE DATABASE x", "DROP DATABASE x"]
    )
    for gno, stmt in enumerate(stmts, start=1):
        s.execute(f"SET GTID_NEXT='{SRC}:{gno}'")
        s.execute(stmt)
    s.execute("SET GTID_NEXT=AUTOMATIC")
    assert s.execute("SELECT @@GLOBAL.GTID_EXECUTED")[-1].rows == [(f"{SRC}:1-10",)]
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        srv.compressor.wait_idle()
        if s.execute("SELECT COUNT(*) FROM mysql.gtid_executed")[-1].rows == [(1,)]:
            break
        time.sleep(0.02)
    assert s.execute("SELECT * FROM mysql.gtid_executed")[-1].rows == [(SRC, 1, 10)]


def _result_lines(name: str) -> list[str]:
    return (MYSQL_TEST / "suite" / "sys_vars" / "r" / name).read_text().splitlines()


def test_compression_period_variable(open_server):
    """sys_vars gtid_executed_compression_period_basic: GLOBAL-only, 0..4294967295, clamping with warning 1292,
    1.1 / 1e1 / "foobar" → ER 1232 (42000). Statements and expected values are read from the .result file."""
    lines = _result_lines("gtid_executed_compression_period_basic.result")
    srv = open_server(gtid_mode="ON", log_bin=False, gtid_executed_compression_period=1000)
    s = srv.session()
    checked = 0
    i = 0
    while i < len(lines):
        line = lines[i]
        if re.match(r"(?i)^set (global |@@global\.)gtid_executed_compression_period\s*=", line):
            stmt = line.rstrip(";")
            if "@start_global_value" in stmt:
                s.execute("SET @start_global_value = 1000")
            nxt = lines[i + 1] if i + 1 < len(lines) else ""
            if nxt.startswith("ERROR "):
                with pytest.raises(MySQLError) as exc:
                    s.execute(stmt)
                assert nxt == f"ERROR {exc.value.sqlstate}: {exc.value.message}"
                i += 2
            else:
                (res,) = s.execute(stmt)
                if nxt == "Warnings:":
                    level, code, msg = lines[i + 2].split("\t")
                    assert [w.as_tuple() for w in res.warnings] == [(level, int(code), msg)]
                    assert res.warning_count == 1
                    i += 3
                else:
                    assert res.warnings == () and res.warning_count == 0
                    i += 1
            checked += 1
            continue
        if line.startswith(
            (
                "SELECT @@GLOBAL.gtid_executed_compression_period;",
                "SELECT @@global.gtid_executed_compression_period;",
            )
        ):
            assert str(s.execute(line.rstrip(";"))[-1].rows[0][0]) == lines[i + 2]
        if line.startswith("SELECT @@SESSION.gtid_executed_compression_period;"):
            with pytest.raises(MySQLError) as exc:
                s.execute(line.rstrip(";"))
            assert lines[i + 1] == f"ERROR {exc.value.sqlstate}: {exc.value.message}"
        if line.startswith("SET SESSION gtid_executed_compression_period"):
            with pytest.raises(MySQLError) as exc:
                s.execute(line.rstrip(";"))
            assert lines[i + 1] == f"ERROR {exc.value.sqlstate}: {exc.value.message}"
            checked += 1
        i += 1
    assert checked >= 9
