"""SHOW WARNINGS / SHOW ERRORS / SHOW COUNT(*) / @@warning_count / @@error_count with MySQL's rules.

Expected values: mysql-test ``r/warnings.result`` ("drop table if exists not_exists_table" -> Note 1051; "show
warnings limit 1"; "show count(*) warnings" -> column ``@@session.warning_count``, 1) and the manual's SHOW
WARNINGS page (diagnostic statements do not clear the list; errors are listed by SHOW ERRORS and SHOW WARNINGS).
"""

from __future__ import annotations

import pytest

from gtidkit.errors import MySQLError


@pytest.fixture
def s(open_server):
    srv = open_server()
    with srv.session() as sess:
        sess.execute("CREATE DATABASE test; USE test")
        yield sess


def rows(s, sql):
    (res,) = s.execute(sql)
    return res.rows


def test_notes_and_counts(s):
    (res,) = s.execute("drop table if exists not_exists_table")
    assert res.warning_count == 1
    assert rows(s, "show warnings limit 1") == [("Note", 1051, "Unknown table 'test.not_exists_table'")]
    (count,) = s.execute("show count(*) warnings")
    assert count.column_names == ["@@session.warning_count"] and count.rows == [(1,)]
    # diagnostic statements never clear the list, nor does a statement without tables that raises nothing
    assert rows(s, "SHOW WARNINGS") == rows(s, "SHOW WARNINGS") != []
    assert rows(s, "SELECT @@warning_count, @@error_count") == [(1, 0)]
    assert rows(s, "SHOW WARNINGS") != []
    assert rows(s, "SHOW ERRORS") == []


def test_error_is_a_condition(s):
    with pytest.raises(MySQLError):
        s.execute("SELECT * FROM nosuch")
    assert rows(s, "SHOW ERRORS") == [("Error", 1146, "Table 'test.nosuch' doesn't exist")]
    assert rows(s, "SHOW WARNINGS") == [("Error", 1146, "Table 'test.nosuch' doesn't exist")]
    assert rows(s, "SHOW COUNT(*) ERRORS") == [(1,)]
    assert rows(s, "SELECT @@error_count") == [(1,)]


def test_statement_using_tables_clears(s):
    s.execute("CREATE TABLE t (a INT); DROP TABLE IF EXISTS nosuch")
    assert rows(s, "SELECT @@warning_count") == [(1,)]
    (res,) = s.execute("SELECT a FROM t")
    assert res.warning_count == 0
    assert rows(s, "SHOW WARNINGS") == [] and rows(s, "SELECT @@warning_count") == [(0,)]


def test_max_error_count_limits_the_list_not_the_count(s):
    s.execute("SET max_error_count = 1; DROP TABLE IF EXISTS n1, n2, n3")
    assert len(rows(s, "SHOW WARNINGS")) == 1
    assert rows(s, "SHOW COUNT(*) WARNINGS") == [(3,)]
