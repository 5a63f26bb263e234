"""performance_schema.global_variables / session_variables and SHOW VARIABLES reading them.

Expected values: mysql-test ``suite/sys_vars/r/gtid_executed_compression_period_basic.result`` (read in place:
every SHOW ... VARIABLES and performance_schema query in it is run and its printed table compared), and RM8
29.12.14 "Performance Schema System Variable Tables" / 15.7.7.41 "SHOW VARIABLES" (SHOW reads those tables; WHERE
may use Variable_name and Value; a global-only variable appears in the session view with its global value).
"""

from __future__ import annotations

import pytest
from tests_paths import MYSQL_TEST

from gtidkit.errors import MySQLError


def _queries(lines: list[str]) -> list[tuple[str, list[tuple[str, ...]]]]:
    """(statement, expected rows) of every SHOW VARIABLES / performance_schema query of a .result file."""
    out = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("SHOW ") and "VARIABLES" in line or "performance_schema." in line:
            stmt = line
            while not stmt.endswith(";"):
                i += 1
                stmt += " " + lines[i]
            i += 2  # the header line
            rows = []
            while i < len(lines) and "\t" in lines[i]:
                rows.append(tuple(lines[i].split("\t")))
                i += 1
            out.append((stmt.rstrip(";"), rows))
            continue
        i += 1
    return out


def test_sys_vars_result_file_queries(open_server):
    lines = (
        (MYSQL_TEST / "suite/sys_vars/r/gtid_executed_compression_period_basic.result")
        .read_text()
        .splitlines()
    )
    queries = _queries(lines)
    assert len(queries) == 5
    srv = open_server(gtid_mode="ON", log_bin=False, gtid_executed_compression_period=1000)
    s = srv.session()
    for stmt, rows in queries:
        res = s.execute(stmt)[-1]
        assert [tuple(str(v) for v in r) for r in res.rows] == rows, stmt
        expected_cols = (
            ["VARIABLE_NAME", "VARIABLE_VALUE"]
            if "performance_schema" in stmt
            else ["Variable_name", "Value"]
        )
        assert [c.name for c in res.columns] == expected_cols


def test_tables_and_show_agree(open_server):
    srv = open_server(log_bin=True)
    s = srv.session()
    s.execute("SET SESSION autocommit = 0, SESSION binlog_format = 'STATEMENT'")
    for scope, table in (("GLOBAL", "global_variables"), ("SESSION", "session_variables")):
        shown = s.execute(f"SHOW {scope} VARIABLES")[-1].rows
        selected = s.execute(
            f"SELECT VARIABLE_NAME, VARIABLE_VALUE FROM performance_schema.{table} ORDER BY VARIABLE_NAME"
        )[-1].rows
        assert shown == selected and len(shown) > 20
    session = dict(s.execute("SELECT * FROM performance_schema.session_variables")[-1].rows)
    glob = dict(s.execute("SELECT * FROM performance_schema.global_variables")[-1].rows)
    assert (session["autocommit"], glob["autocommit"]) == ("OFF", "ON")
    assert (session["binlog_format"], glob["binlog_format"]) == ("STATEMENT", "ROW")
    assert "gtid_next" in session and "gtid_next" not in glob  # session-only
    assert (
        session["gtid_mode"] == glob["gtid_mode"] == "ON"
    )  # global-only: its global value in the session view
    uuid = s.execute("SELECT @@server_uuid")[-1].rows[0][0]
    s.execute("CREATE DATABASE d")
    s.execute("COMMIT")
    assert glob["gtid_executed"] == ""
    assert s.execute(
        "SELECT VARIABLE_VALUE FROM performance_schema.global_variables WHERE VARIABLE_NAME = 'gtid_executed'"
    )[-1].rows == [(f"{uuid}:1",)]


def test_show_variables_where(open_server):
    srv = open_server(log_bin=True)
    s = srv.session()
    assert s.execute("SHOW VARIABLES WHERE Variable_name IN ('server_id', 'autocommit')")[-1].rows == [
        ("autocommit", "ON"),
        ("server_id", "1"),
    ]
    assert s.execute("SHOW GLOBAL VARIABLES WHERE Value = 'ROW' AND Variable_name LIKE 'binlog%'")[
        -1
    ].rows == [("binlog_format", "ROW")]
    assert s.execute("SHOW VARIABLES LIKE 'GTID\\_M%'")[-1].rows == [("gtid_mode", "ON")]  # LIKE ignores case
    with pytest.raises(MySQLError) as exc:
        s.execute("SHOW VARIABLES WHERE nosuch = 1")
    assert exc.value.code == 1054


#: plain LIKE patterns (name characters and wildcards: SHOW reads only the names they match)
_PLAIN_PATTERNS = [
    "'%'",
    "'gtid%'",
    "'GTID_MODE'",
    "'%_id'",
    "'%a%b%'",
    "'server_uu_d'",
    "'no_such%'",
    "''",
    "'%$%'",
]
#: patterns with an escape or a quote (left to the SQL layer's LIKE, backslash escaping as MySQL's LIKE does)
_OTHER_PATTERNS = {"'gtid\\_mode'": [("gtid_mode", "ON")], "'gtid\\%'": [], "'it''s'": []}


@pytest.mark.parametrize("pattern", _PLAIN_PATTERNS, ids=str)
@pytest.mark.parametrize("scope", ["", "GLOBAL ", "SESSION "], ids=["default", "global", "session"])
def test_show_variables_like_agrees_with_where_like(open_server, scope, pattern):
    """SHOW VARIABLES LIKE p lists what the WHERE form with the same LIKE lists (the Performance Schema table's
    rows, RM8 15.7.7.41), in the same order, whichever way the engine reads it."""
    s = open_server(gtid_mode="ON").session()
    s.execute("SET SESSION sql_mode = 'ANSI_QUOTES'")  # a session value differing from the global one
    # @@timestamp is the clock's unless set: fixed, so the two reads cannot straddle a second
    s.execute("SET SESSION timestamp = 1700000000")
    like = s.execute(f"SHOW {scope}VARIABLES LIKE {pattern}")[-1]
    where = s.execute(f"SHOW {scope}VARIABLES WHERE Variable_name LIKE {pattern}")[-1]
    assert like.rows == where.rows
    assert [c.name for c in like.columns] == ["Variable_name", "Value"]
    if pattern == "'%'":  # the session's value, or the global one
        assert (dict(like.rows)["sql_mode"] == "ANSI_QUOTES") == (scope != "GLOBAL ")


@pytest.mark.parametrize(("pattern", "rows"), _OTHER_PATTERNS.items(), ids=str)
def test_show_variables_like_with_escapes(open_server, pattern, rows):
    """A backslash escapes a wildcard in SHOW VARIABLES LIKE (MySQL's LIKE escape character)."""
    s = open_server(gtid_mode="ON").session()
    assert s.execute(f"SHOW VARIABLES LIKE {pattern}")[-1].rows == rows
