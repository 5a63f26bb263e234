"""Statement atomicity inside a transaction with the deferred statement savepoint (engine/sql/executor.py
``Executor._atomic`` / ``statement_savepoint``, issue 21 h-dml).

MySQL is the oracle: a statement that fails inside a transaction is rolled back alone, the transaction's earlier
statements stay (RM8 "InnoDB Error Handling": "A duplicate-key error rolls back the SQL statement", "a row too long
error rolls back the SQL statement"; strict mode's 1264 / 1048 likewise end the statement with an error, nothing of
it kept). The savepoint is only skipped for a statement whose single SQLite write is its last fallible step (one
row by key); every multi-row or multi-write statement still gets one, so a statement failing halfway leaves
nothing behind: both are checked, and which statements open a savepoint is read from SQLite's statement trace.
"""

from __future__ import annotations

import pytest

from gtidkit.errors import MySQLError

SETUP = (
    "CREATE DATABASE d; USE d; "
    "CREATE TABLE t (id INT PRIMARY KEY, u INT UNIQUE, v TINYINT NOT NULL, c CHAR(5)); "
    "INSERT INTO t VALUES (1, 10, 1, 'a'), (2, 20, 2, 'b'), (3, 30, 100, 'c')"
)
BEFORE = [(1, 10, 1, "a"), (2, 20, 2, "b"), (3, 30, 100, "c")]


@pytest.fixture
def session(open_server):
    server = open_server(log_bin=True, gtid_mode="ON", enforce_gtid_consistency="ON", server_id=1)
    s = server.session()
    s.execute(SETUP)
    s.execute("SET SESSION sql_mode = 'STRICT_TRANS_TABLES'")
    return s


def _trace(session) -> list[str]:
    """Every SQL text the session's SQLite connection runs from now on."""
    seen: list[str] = []
    session.conn.raw.set_trace_callback(seen.append)
    return seen


@pytest.mark.parametrize(
    ("statement", "code", "savepoint"),
    [
        ("INSERT INTO t VALUES (1, 11, 1, 'x')", 1062, False),  # duplicate primary key, one row
        ("INSERT INTO t VALUES (9, 10, 1, 'x')", 1062, False),  # duplicate unique key, one row
        ("INSERT INTO t VALUES (9, 90, NULL, 'x')", 1048, False),  # NULL into NOT NULL, one row
        ("INSERT INTO t VALUES (9, 90, 1000, 'x')", 1264, False),  # out of range, one row
        ("UPDATE t SET u = 20 WHERE id = 1", 1062, False),  # one row by key, duplicate unique key
        ("UPDATE t SET v = v + 100 WHERE id = 3", 1264, False),  # one row by key, out of range
        ("INSERT INTO t VALUES (8, 80, 1, 'x'), (9, 10, 1, 'y')", 1062, True),  # second row fails
        ("UPDATE t SET v = v * 60 ORDER BY id", 1264, True),  # rows 1 and 2 change, row 3 overflows
        ("UPDATE t SET u = u + 10 ORDER BY id", 1062, True),  # row 1 -> 20 collides after nothing changed
        ("UPDATE t SET u = 40 - u ORDER BY id DESC", 1062, True),  # row 3 -> 10 collides with row 1
        (
            "INSERT INTO t SELECT id + 10, u + 1, v * 2, c FROM t ORDER BY id",
            1264,
            True,
        ),  # third row overflows
    ],
    ids=[
        "insert-dup-pk",
        "insert-dup-unique",
        "insert-null",
        "insert-range",
        "update-one-dup",
        "update-one-range",
        "insert-two-rows-second-fails",
        "update-many-halfway-range",
        "update-many-first-dup",
        "update-many-halfway-dup",
        "insert-select-halfway",
    ],
)
def test_a_failing_statement_is_undone_alone(session, statement: str, code: int, savepoint: bool) -> None:
    session.execute("BEGIN")
    session.execute("INSERT INTO t VALUES (5, 50, 5, 'e')")  # the transaction's earlier work
    session.execute("UPDATE t SET c = 'z' WHERE id = 2")
    seen = _trace(session)
    with pytest.raises(MySQLError) as failed:
        session.execute(statement)
    assert failed.value.code == code
    assert any("SAVEPOINT" in sql for sql in seen) == savepoint
    rows = session.execute("SELECT * FROM t ORDER BY id")[-1].rows
    assert rows == [(1, 10, 1, "a"), (2, 20, 2, "z"), (3, 30, 100, "c"), (5, 50, 5, "e")]
    session.execute("COMMIT")
    assert session.execute("SELECT * FROM t ORDER BY id")[-1].rows == rows


@pytest.mark.parametrize(
    ("statement", "savepoint", "after"),
    [
        ("UPDATE t SET v = v + 1 WHERE id = 2", False, [(1, 10, 1, "a"), (2, 20, 3, "b"), (3, 30, 100, "c")]),
        ("UPDATE t SET c = 'q' WHERE id = 7", False, BEFORE),  # no row
        ("DELETE FROM t WHERE id = 1", False, BEFORE[1:]),
        ("INSERT INTO t VALUES (4, 40, 4, 'd')", False, [*BEFORE, (4, 40, 4, "d")]),
        ("DELETE FROM t WHERE id < 3", True, BEFORE[2:]),
        ("UPDATE t SET v = v - 1 WHERE id < 3", True, [(1, 10, 0, "a"), (2, 20, 1, "b"), BEFORE[2]]),
        ("INSERT IGNORE INTO t VALUES (1, 11, 1, 'x')", True, BEFORE),
        ("REPLACE INTO t VALUES (1, 11, 1, 'x')", True, [(1, 11, 1, "x"), *BEFORE[1:]]),
    ],
    ids=[
        "update-one",
        "update-none",
        "delete-one",
        "insert-one",
        "delete-many",
        "update-many",
        "insert-ignore",
        "replace",
    ],
)
def test_which_statements_open_a_savepoint(session, statement: str, savepoint: bool, after: list) -> None:
    session.execute("BEGIN")
    seen = _trace(session)
    session.execute(statement)
    assert any("SAVEPOINT" in sql for sql in seen) == savepoint, seen
    session.execute("COMMIT")
    assert session.execute("SELECT * FROM t ORDER BY id")[-1].rows == after


def test_autocommit_statements_are_atomic(session) -> None:
    """Outside a transaction a failing statement leaves nothing either, and the next one commits."""
    with pytest.raises(MySQLError) as failed:
        session.execute("UPDATE t SET v = v * 60 ORDER BY id")
    assert failed.value.code == 1264
    with pytest.raises(MySQLError):
        session.execute("UPDATE t SET v = v + 100 WHERE id = 3")
    session.execute("UPDATE t SET v = 9 WHERE id = 1")
    assert session.execute("SELECT v FROM t ORDER BY id")[-1].rows == [(9,), (2,), (100,)]
