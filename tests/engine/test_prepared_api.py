"""The engine's prepared-statement API (``session.prepare`` / ``session.execute_prepared``) and SQL's PREPARE /
EXECUTE / DEALLOCATE PREPARE. Expected values: RM8 "Prepared Statements" and ``sql/sql_prepare.cc`` behaviour
(checked at PREPARE, typed binding, the binlog gets the values written in, 1210 / 1243)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from gtidkit.engine.results import SessionStateType
from gtidkit.errors import MySQLError


@pytest.fixture
def s(open_server):
    srv = open_server(gtid_mode="ON", log_bin=True)
    s = srv.session()
    s.execute("CREATE DATABASE test")
    s.execute("USE test")
    s.execute("CREATE TABLE t (a INT PRIMARY KEY, b VARCHAR(20), c DECIMAL(6,2), d DATE)")
    s.execute("INSERT INTO t VALUES (1, 'one', 1.50, '2020-01-01')")
    return s


def test_prepare_describes_and_execute_matches(s):
    p = s.prepare("SELECT a, b, c, d FROM t WHERE a = ?")
    assert (p.param_count, p.kind) == (1, "select")
    (res,) = s.execute_prepared(p, [1])
    assert res.rows[0][:3] == (1, "one", Decimal("1.50"))
    assert p.columns == res.columns  # the metadata PREPARE reports is what EXECUTE sends
    text = s.execute("SELECT a, b, c, d FROM t WHERE a = 1")[0]
    assert text.columns == res.columns and text.rows == res.rows  # and what the text statement sends


def test_values_are_bound_not_spliced(s):
    ins = s.prepare("INSERT INTO t VALUES (?, ?, ?, ?)")
    assert (ins.param_count, ins.columns) == (4, None)
    evil = "x' OR '1'='1"
    s.execute_prepared(ins, [2, evil, Decimal("2.25"), dt.date(2021, 2, 3)])
    s.execute_prepared(ins, [3, b"\xe2\x82\xac", None, "2022-03-04"])  # UTF-8 bytes are character data
    rows = s.execute("SELECT a, b, c, CAST(d AS CHAR) FROM t WHERE a > 1 ORDER BY a")[0].rows
    assert rows == [(2, evil, Decimal("2.25"), "2021-02-03"), (3, "€", None, "2022-03-04")]
    sel = s.prepare("SELECT COUNT(*) FROM t WHERE b = ?")
    assert s.execute_prepared(sel, [evil])[0].rows == [(1,)]
    assert s.execute_prepared(sel, ["nobody' OR 1=1 -- "])[0].rows == [(0,)]
    (res,) = s.execute_prepared(s.prepare("SELECT ?, ? + 1, ?"), [5, 6, b"\x00\xff"])
    assert res.rows == [(5, 7, b"\x00\xff")]
    assert list(res.column_names) == ["?", "? + 1", "?"]  # MySQL names items as written


def test_wrong_count_and_prepare_time_errors(s):
    p = s.prepare("UPDATE t SET b = ? WHERE a = ?")
    with pytest.raises(MySQLError) as exc:
        s.execute_prepared(p, ["x"])
    assert (exc.value.code, exc.value.message) == (1210, "Incorrect arguments to mysqld_stmt_execute")
    for sql, code in [
        ("SELECT * FROM nosuch WHERE a = ?", 1146),
        ("INSERT INTO nosuch VALUES (?)", 1146),
        ("UPDATE t SET nosuch = ? WHERE a = 1", 1054),
        ("SELECT 1; SELECT 2", 1064),
        ("", 1065),
    ]:
        with pytest.raises(MySQLError) as exc:
            s.prepare(sql)
        assert exc.value.code == code, sql


def test_prepared_commit_is_tracked_and_logged_with_its_values(s):
    s.execute("SET SESSION session_track_gtids = OWN_GTID")
    s.execute("SET SESSION binlog_format = STATEMENT")
    p = s.prepare("INSERT INTO t (a, b) VALUES (?, ?)")
    (res,) = s.execute_prepared(p, [10, "it's"])
    gtids = [c for c in res.state_changes if c.type == SessionStateType.SESSION_TRACK_GTIDS]
    (text,) = s.execute("INSERT INTO t (a, b) VALUES (11, 'z')")
    assert len(gtids) == 1 and [c.type for c in text.state_changes] == [c.type for c in res.state_changes]
    events = s.execute("SHOW BINLOG EVENTS")[-1].rows
    queries = [r[5] for r in events if r[2] == "Query" and "INSERT" in r[5]]
    # sql_prepare.cc insert_params_with_log: the binary log gets the statement with its values as literals
    assert queries[-2:] == [
        "use `test`; INSERT INTO t (a, b) VALUES (10, 'it\\'s')",
        "use `test`; INSERT INTO t (a, b) VALUES (11, 'z')",
    ]


def test_sql_prepare_execute_deallocate(s):
    (res,) = s.execute("PREPARE s1 FROM 'SELECT b FROM t WHERE a = ?'")
    assert res.info == "Statement prepared"
    s.execute("SET @k = 1")
    assert s.execute("EXECUTE s1 USING @k")[0].rows == [("one",)]
    s.execute("SET @q = 'UPDATE t SET b = ? WHERE a = ?', @v = 'new'")
    s.execute("PREPARE u FROM @q")
    assert s.execute("EXECUTE u USING @v, @k")[0].info == "Rows matched: 1  Changed: 1  Warnings: 0"
    with pytest.raises(MySQLError) as exc:
        s.execute("EXECUTE u USING @v")
    assert (exc.value.code, exc.value.message) == (1210, "Incorrect arguments to EXECUTE")
    s.execute("PREPARE s1 FROM 'SELECT 2'")  # a name in use is replaced
    assert s.execute("EXECUTE s1")[0].rows == [(2,)]
    s.execute("DEALLOCATE PREPARE u")
    s.execute("DROP PREPARE s1")
    with pytest.raises(MySQLError) as exc:
        s.execute("EXECUTE u USING @v, @k")
    assert (exc.value.code, exc.value.message) == (
        1243,
        "Unknown prepared statement handler (u) given to EXECUTE",
    )
    with pytest.raises(MySQLError) as exc:
        s.execute("DEALLOCATE PREPARE nosuch")
    assert exc.value.code == 1243
