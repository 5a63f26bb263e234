"""ANALYZE / OPTIMIZE / CHECK / REPAIR TABLE: MySQL's result rows and what the binary log and GTID state get.

Expected rows: mysql-test ``r/analyze.result`` (``test.t1 analyze status OK``, ``test.t1 check status OK``);
randgen ``conf/runtime/WL5004_sql.yy`` (a missing table: ``Error | Table 'test.v1' doesn't exist`` then
``status | Operation failed``, and ``note | The storage engine for the table doesn't support optimize`` form);
``sql/sql_admin.cc`` texts for InnoDB (OPTIMIZE: ``note | Table does not support optimize, doing recreate +
analyze instead`` then ``status | OK``; REPAIR: ``note | The storage engine for the table doesn't support repair``).
Logging: RM8 "ANALYZE TABLE Statement" ("By default, the server writes ANALYZE TABLE statements to the binary log
so that they replicate to replicas. To suppress logging, specify the optional NO_WRITE_TO_BINLOG keyword or its
alias LOCAL"), the same for OPTIMIZE and REPAIR; CHECK TABLE is not written; RM8 "Statements That Cause an
Implicit Commit" (table maintenance statements).
"""

from __future__ import annotations

import pytest

from gtidkit.errors import MySQLError

OPTIMIZE_NOTE = "Table does not support optimize, doing recreate + analyze instead"
REPAIR_NOTE = "The storage engine for the table doesn't support repair"


@pytest.fixture
def srv(open_server):
    return open_server(gtid_mode="ON", log_bin=True)


@pytest.fixture
def s(srv):
    session = srv.session()
    session.execute("CREATE DATABASE d; USE d; CREATE TABLE t (a INT PRIMARY KEY); CREATE TABLE u (a INT)")
    yield session
    session.close()


@pytest.mark.parametrize(
    ("sql", "rows"),
    [
        ("ANALYZE TABLE t", [("d.t", "analyze", "status", "OK")]),
        ("analyze table d.t", [("d.t", "analyze", "status", "OK")]),
        ("CHECK TABLE t", [("d.t", "check", "status", "OK")]),
        ("CHECK TABLE t QUICK", [("d.t", "check", "status", "OK")]),
        (
            "OPTIMIZE TABLE t",
            [("d.t", "optimize", "note", OPTIMIZE_NOTE), ("d.t", "optimize", "status", "OK")],
        ),
        ("REPAIR TABLE t", [("d.t", "repair", "note", REPAIR_NOTE)]),
        (
            "ANALYZE TABLE t, x, `u`",
            [
                ("d.t", "analyze", "status", "OK"),
                ("d.x", "analyze", "Error", "Table 'd.x' doesn't exist"),
                ("d.x", "analyze", "status", "Operation failed"),
                ("d.u", "analyze", "status", "OK"),
            ],
        ),
        (
            "CHECK TABLE nodb.t",
            [
                ("nodb.t", "check", "Error", "Unknown database 'nodb'"),
                ("nodb.t", "check", "error", "Corrupt"),
            ],
        ),
    ],
    ids=[
        "analyze",
        "analyze-qualified",
        "check",
        "check-quick",
        "optimize",
        "repair",
        "missing",
        "no-schema",
    ],
)
def test_result_rows(s, sql, rows) -> None:
    res = s.execute(sql)[0]
    assert [c.name for c in res.columns] == ["Table", "Op", "Msg_type", "Msg_text"]
    assert res.rows == rows
    assert res.warning_count == 0  # per-table errors are rows, not conditions
    assert s.execute("SELECT ROW_COUNT()")[0].rows == [(-1,)]  # a result set


def test_no_database_selected(srv) -> None:
    with srv.session() as s, pytest.raises(MySQLError) as exc:
        s.execute("ANALYZE TABLE t")
    assert exc.value.code == 1046


def _events(s) -> list[tuple[str, str]]:
    return [(r[2], r[5]) for r in s.execute("SHOW BINLOG EVENTS")[0].rows]


@pytest.mark.parametrize(
    ("sql", "logged"),
    [
        ("ANALYZE TABLE t", True),
        ("OPTIMIZE TABLE t", True),
        ("REPAIR TABLE t", True),
        ("ANALYZE TABLE t, missing", True),  # mysql_admin_table succeeded (errors are rows): still written
        ("CHECK TABLE t", False),
        ("ANALYZE NO_WRITE_TO_BINLOG TABLE t", False),
        ("OPTIMIZE LOCAL TABLE t", False),
        ("REPAIR NO_WRITE_TO_BINLOG TABLE t", False),
    ],
)
def test_binlog_and_gtid(srv, s, sql, logged) -> None:
    before = _events(s)
    executed = s.execute("SELECT @@GLOBAL.gtid_executed")[0].rows[0][0]
    s.execute(sql)
    after = _events(s)[len(before) :]
    u = str(srv.server_uuid)
    if logged:
        # one transaction: Gtid, then a Query event with the statement text (use `d`; ...), as other DDL
        assert [e[0] for e in after] == ["Gtid", "Query"]
        assert after[1][1] == f"use `d`; {sql}"
        assert s.execute("SELECT @@GLOBAL.gtid_executed")[0].rows == [(f"{u}:1-4",)]
    else:
        assert after == []
        assert s.execute("SELECT @@GLOBAL.gtid_executed")[0].rows == [(executed,)]


def test_implicit_commit(s) -> None:
    s.execute("BEGIN; INSERT INTO t VALUES (1)")
    assert s.in_transaction()
    s.execute("CHECK TABLE t")  # commits the open transaction first
    assert not s.in_transaction()
    assert [e[0] for e in _events(s)][-3:] == ["Table_map", "Write_rows", "Xid"]  # the INSERT, committed


def test_binlog_off_assigned_gtid_goes_to_the_table(open_server) -> None:
    srv = open_server(gtid_mode="ON", log_bin=False, gtid_executed_compression_period=0)
    s = srv.session()
    s.execute("CREATE DATABASE d; USE d; CREATE TABLE t (a INT)")
    u = str(srv.server_uuid)
    s.execute(f"SET gtid_next = '{u}:7'")
    assert s.execute("ANALYZE TABLE t")[0].rows == [("d.t", "analyze", "status", "OK")]
    assert s.execute("SELECT @@GLOBAL.gtid_executed")[0].rows == [(f"{u}:7",)]
    rows = s.execute("SELECT * FROM mysql.gtid_executed")[0].rows
    assert (u, 7, 7) in [tuple(r[:3]) for r in rows]
