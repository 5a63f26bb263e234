"""The pool of idle SQLite connections (engine/storage.py ``Storage.connect`` / ``_pool_put``): a session that
reuses the SQLite connection of a closed one sees none of its state. MySQL gives every connection a fresh THD:
user variables, session variables, temporary tables, prepared statements and an open transaction end with the
connection (RM8 "User-Defined Variables", "CREATE TEMPORARY TABLE", "PREPARE", "Server System Variables").
"""

from __future__ import annotations

import pytest

from gtidkit.errors import MySQLError


def rows(session, sql: str) -> list[tuple]:
    """The rows of the last result of ``sql``."""
    return session.execute(sql)[-1].rows


def code_of(session, sql: str) -> int:
    """The MySQL error code ``sql`` fails with (0 when it succeeds)."""
    try:
        session.execute(sql)
    except MySQLError as err:
        return err.code
    return 0


# (first session's statements, the next session's statement, what it returns: rows, or an error code)
LEAKS = [
    ("CREATE TEMPORARY TABLE db.t (a INT); INSERT INTO db.t VALUES (1)", "SELECT * FROM db.t", 1146),
    ("CREATE TEMPORARY TABLE db.base (a INT)", "SELECT COUNT(*) FROM db.base", [(2,)]),
    ("SET @v = 42", "SELECT @v", [(None,)]),
    ("SET SESSION autocommit = 0", "SELECT @@session.autocommit", [(1,)]),
    ("SET SESSION sql_mode = 'ANSI_QUOTES'", "SELECT @@session.sql_mode = @@global.sql_mode", [(1,)]),
    ("SET SESSION innodb_lock_wait_timeout = 1", "SELECT @@session.innodb_lock_wait_timeout", [(50,)]),
    ("BEGIN; INSERT INTO db.base VALUES (3)", "SELECT COUNT(*) FROM db.base", [(2,)]),
    ("SET autocommit = 0; INSERT INTO db.base VALUES (3)", "SELECT COUNT(*) FROM db.base", [(2,)]),
    ("PREPARE s FROM 'SELECT 1'", "EXECUTE s", 1243),
    ("SET @@session.timestamp = 1000", "SELECT UNIX_TIMESTAMP() > 1000", [(1,)]),
]


@pytest.mark.parametrize(
    ("first", "check", "expected"),
    LEAKS,
    ids=[
        "temp-table",
        "temp-table-shadowing-base",
        "user-variable",
        "session-autocommit",
        "session-sql-mode",
        "session-lock-wait-timeout",
        "open-transaction",
        "autocommit-off-transaction",
        "prepared-statement",
        "session-timestamp",
    ],
)
def test_next_session_sees_no_state_of_the_last(open_server, first, check, expected):
    srv = open_server(log_bin=True, gtid_mode="ON", enforce_gtid_consistency="ON")
    with srv.session() as s:
        s.execute(
            "CREATE DATABASE db; CREATE TABLE db.base (a INT PRIMARY KEY); INSERT INTO db.base VALUES (1), (2)"
        )
    a = srv.session()
    a.execute(first)
    a.close()
    b = srv.session()
    try:
        if isinstance(expected, int):
            assert code_of(b, check) == expected
        else:
            assert rows(b, check) == expected
        # the open transaction of the first session holds no lock: the next one writes
        b.execute("INSERT INTO db.base VALUES (9)")
    finally:
        b.close()


def test_a_plain_session_connection_is_reused_with_its_functions_rebound(open_server):
    """A session with nothing left on its connection gives it to the next one, whose functions answer for it
    (CONNECTION_ID(), LAST_INSERT_ID()) and whose errors are its own (a function's error reaches its statement)."""
    srv = open_server(log_bin=True, gtid_mode="ON", enforce_gtid_consistency="ON")
    a = srv.session()
    a.execute("CREATE DATABASE db; CREATE TABLE db.t (id INT AUTO_INCREMENT PRIMARY KEY)")
    a.execute("INSERT INTO db.t VALUES (NULL), (NULL)")
    assert rows(a, "SELECT LAST_INSERT_ID()") == [(1,)]
    raw = a.conn.raw
    levels = {"OFF": 0, "NORMAL": 1, "FULL": 2, "EXTRA": 3}
    fresh = [(levels[srv.storage.synchronous],), (srv.storage.busy_timeout_ms,), (0,)]
    a.conn.set_busy_timeout(7)  # what a schema-file transaction does (innodb_lock_wait_timeout)
    a.execute("BEGIN; INSERT INTO db.t VALUES (NULL); COMMIT")  # a deferred-sync commit: PRAGMA synchronous
    a.close()
    b = srv.session()
    try:
        assert b.conn.raw is raw  # reused: the pool's point
        assert [
            raw.execute(f"PRAGMA {p}").fetchone() for p in ("synchronous", "busy_timeout", "foreign_keys")
        ] == fresh
        assert rows(b, "SELECT CONNECTION_ID()") == [(b.id,)]
        assert rows(b, "SELECT LAST_INSERT_ID()") == [(0,)]
        assert code_of(b, "SELECT JSON_EXTRACT('not json', '$')") == 3141
        assert rows(b, "SELECT COUNT(*) FROM db.t") == [(3,)]
    finally:
        b.close()


def test_a_reused_connection_reads_the_latest_commit(open_server):
    """No snapshot of the last session survives on its connection: a commit made meanwhile is seen."""
    srv = open_server(log_bin=True, gtid_mode="ON", enforce_gtid_consistency="ON")
    with srv.session() as s:
        s.execute("CREATE DATABASE db; CREATE TABLE db.t (a INT PRIMARY KEY); INSERT INTO db.t VALUES (1)")
    a = srv.session()
    assert rows(a, "SELECT COUNT(*) FROM db.t") == [(1,)]
    a.close()
    with srv.session() as w:
        w.execute("INSERT INTO db.t VALUES (2)")
    with srv.session() as b:
        assert rows(b, "SELECT COUNT(*) FROM db.t") == [(2,)]


def test_schema_files_attached_by_the_last_session_follow_a_drop(open_server):
    """gtidkit_file_per_schema: a connection that had a schema file ATTACHed is not pooled with it; the next
    session sees the schema dropped and made again (its new, empty file), never the old file."""
    srv = open_server(
        log_bin=True, gtid_mode="ON", enforce_gtid_consistency="ON", gtidkit_file_per_schema=True
    )
    a = srv.session()
    a.execute("CREATE DATABASE f; CREATE TABLE f.t (a INT PRIMARY KEY); INSERT INTO f.t VALUES (1)")
    assert rows(a, "SELECT COUNT(*) FROM f.t") == [(1,)]
    a.close()
    with srv.session() as d:
        d.execute("DROP DATABASE f")
    with srv.session() as b:
        assert code_of(b, "SELECT COUNT(*) FROM f.t") in (1049, 1146)
        b.execute("CREATE DATABASE f; CREATE TABLE f.t (a INT PRIMARY KEY)")
        assert rows(b, "SELECT COUNT(*) FROM f.t") == [(0,)]
