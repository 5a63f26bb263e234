"""USER() / CURRENT_USER() / ROW_COUNT() / FOUND_ROWS() and SELECT SQL_CALC_FOUND_ROWS.

Expected values come from MySQL: RM8 "Information Functions" (ROW_COUNT: "DDL statements: 0 ... DML statements
other than SELECT: The number of affected rows ... SELECT: -1 if the statement returns a result set"; FOUND_ROWS:
"In the absence of the SQL_CALC_FOUND_ROWS option in the most recent successful SELECT statement, FOUND_ROWS()
returns the number of rows in the result set returned by that statement"), ``sql_class.h`` (``my_ok`` stores the
affected rows for ROW_COUNT(), ``my_eof`` -1) and mysql-test ``r/select_found.result`` (SQL_CALC_FOUND_ROWS with
LIMIT reports the count without it: 8 rows, ``LIMIT 1`` -> FOUND_ROWS() = 8).
"""

from __future__ import annotations

import pytest


@pytest.fixture
def session(open_server):
    srv = open_server()
    s = srv.session()
    s.execute("CREATE DATABASE d; USE d; CREATE TABLE t (a INT PRIMARY KEY, b INT)")
    yield s
    s.close()


def _one(s, sql):
    return s.execute(sql)[-1].rows[0][0]


def test_user_functions_default_and_set_account(session) -> None:
    # an embedded session is root@localhost; the wire server tells it the client's user@host and account
    assert session.execute("SELECT USER(), CURRENT_USER(), SESSION_USER(), SYSTEM_USER()")[0].rows == [
        ("root@localhost",) * 4
    ]
    session.set_account("app", "localhost", "app", "%")
    row = session.execute("SELECT USER(), CURRENT_USER(), SESSION_USER(), SYSTEM_USER(), CURRENT_USER")[
        0
    ].rows[0]
    # RM8: USER() "the user name and host name provided by the client", CURRENT_USER() "the account that the
    # server used to authenticate" (e.g. 'davida@localhost' vs '@localhost' for an anonymous match)
    assert row == ("app@localhost", "app@%", "app@localhost", "app@localhost", "app@%")


@pytest.mark.parametrize(
    ("statement", "row_count"),
    [
        ("INSERT INTO t VALUES (1, 1), (2, 2), (3, 3)", 3),
        ("UPDATE t SET b = 2 WHERE a >= 1", 0),  # set up below: rows 1..3 have b=2 -> changed rows only
        ("DELETE FROM t WHERE a > 1", 2),
        ("CREATE TABLE t2 (x INT)", 0),  # DDL: 0
        ("SELECT * FROM t", -1),  # a result set: -1
        ("SET @x = 1", 0),  # my_ok() without rows
        ("SHOW TABLES", -1),
    ],
    ids=["insert", "update-unchanged", "delete", "ddl", "select", "set", "show"],
)
def test_row_count_after_statement(session, statement, row_count) -> None:
    if statement.startswith(("UPDATE", "DELETE")):
        session.execute("INSERT INTO t VALUES (1, 2), (2, 2), (3, 2)")
    session.execute(statement)
    assert _one(session, "SELECT ROW_COUNT()") == row_count


def test_row_count_is_the_previous_statement_only(session) -> None:
    session.execute("INSERT INTO t VALUES (1, 1), (2, 2)")
    assert _one(session, "SELECT ROW_COUNT()") == 2
    assert _one(session, "SELECT ROW_COUNT()") == -1  # the first SELECT ROW_COUNT() returned a result set
    session.execute("UPDATE t SET b = 5")
    assert session.execute("SELECT ROW_COUNT(), ROW_COUNT() + 1")[0].rows == [(2, 3)]


def test_found_rows(session) -> None:
    session.execute("INSERT INTO t VALUES " + ", ".join(f"({i}, {i % 3})" for i in range(1, 9)))
    assert _one(session, "SELECT FOUND_ROWS()") == 0  # no SELECT yet (THD: current_found_rows = 0)
    res = session.execute("SELECT SQL_CALC_FOUND_ROWS a, b FROM t ORDER BY a LIMIT 1")[0]
    assert res.rows == [(1, 1)] and [c.name for c in res.columns] == ["a", "b"]
    assert _one(session, "SELECT FOUND_ROWS()") == 8  # select_found.result: 8 rows, LIMIT 1 -> 8
    assert _one(session, "SELECT FOUND_ROWS()") == 1  # the previous SELECT FOUND_ROWS() returned one row
    session.execute("SELECT SQL_CALC_FOUND_ROWS * FROM t WHERE b = 1 ORDER BY a DESC LIMIT 1, 1")
    assert _one(session, "SELECT FOUND_ROWS()") == 3
    session.execute("SELECT * FROM t WHERE a < 3")
    assert _one(session, "SELECT FOUND_ROWS()") == 2  # without SQL_CALC_FOUND_ROWS: rows returned
    session.execute("SELECT DISTINCT SQL_CALC_FOUND_ROWS b FROM t LIMIT 1")
    assert _one(session, "SELECT FOUND_ROWS()") == 3


@pytest.mark.parametrize(
    "item", ["CURRENT_USER", "current_user()", "SESSION_USER()", "user()", "System_User()"]
)
def test_item_named_as_written(session, item) -> None:
    # MySQL names a select-list expression after its text (mysql-test r/func_system.result: "select user() like
    # "%@%"" is headed `user() like "%@%"`; CREATE TABLE t1 ... SELECT database(), user() makes a column `user()`)
    assert [c.name for c in session.execute(f"SELECT {item}")[0].columns] == [item]
