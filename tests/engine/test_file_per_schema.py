"""A SQLite file per schema (``gtidkit_file_per_schema``; issue 21 step 9, engine/schema_files.py), in one process.

What MySQL does is the oracle for what statements see: a schema is a directory of its own (RM8 "Data Dictionary":
``CREATE DATABASE`` creates it, ``DROP DATABASE`` removes it), tables of several schemas are named with qualified
names, ``USE`` and joins across schemas (RM8 "Identifier Qualifiers"); InnoDB blocks a writer only on conflicting
row locks, so an open transaction on ``db1.t`` never delays an INSERT into ``db2.t``, while a second writer of
``db1.t`` waits and fails with 1205 ER_LOCK_WAIT_TIMEOUT after ``innodb_lock_wait_timeout`` seconds (RM8
"innodb_lock_wait_timeout"; with innodb_rollback_on_timeout OFF only the statement is rolled back). The granularity
reached here is the schema (the design's §5.5), so in this engine the second writer of *any* table of db1 waits.

The binary log and GTIDs must not depend on the layout: the same workload gives the same binlog bytes with the
option on and off (the same server_uuid, the clock frozen).
"""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path

import pytest

from gtidkit.engine import Server
from gtidkit.engine.schema_files import MAX_SCHEMA_FILES
from gtidkit.errors import MySQLError

ON = {"gtidkit_file_per_schema": True, "log_bin": True, "gtid_mode": "ON"}


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


def schema_setup(session) -> None:
    """Two schemas with a table each."""
    session.execute(
        "CREATE DATABASE db1; CREATE DATABASE db2; "
        "CREATE TABLE db1.t (id INT AUTO_INCREMENT PRIMARY KEY, v INT); "
        "CREATE TABLE db2.t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)"
    )


@pytest.mark.parametrize(
    ("option", "files"),
    [(True, {"db1.sqlite", "db2.sqlite"}), (False, set())],
    ids=["on-a-file-each", "off-main-file"],
)
def test_create_database_makes_the_file_and_drop_removes_it(open_server, tmp_path, option, files):
    srv = open_server(gtidkit_file_per_schema=option, log_bin=True)
    s = srv.session()
    schema_setup(s)
    data = tmp_path / "data"
    assert {p.name for p in data.glob("*.sqlite")} - {"gtidkit.sqlite"} == files
    assert rows(s, "SELECT @@GLOBAL.gtidkit_file_per_schema") == [(int(option),)]
    s.execute("DROP DATABASE db1")
    assert not (data / "db1.sqlite").exists()
    assert {p.name for p in data.glob("*.sqlite")} - {"gtidkit.sqlite"} == files - {"db1.sqlite"}
    # the system schemas stay in the main file whatever the option says
    assert not any((data / f"{name}.sqlite").exists() for name in ("mysql", "sys"))


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT a.v, b.v FROM db1.t a JOIN db2.t b USING (id) ORDER BY id", [(10, 20), (11, 21)]),
        ("SELECT COUNT(*) FROM db1.t WHERE id IN (SELECT id FROM db2.t)", [(2,)]),
        ("SELECT v FROM db1.v1 ORDER BY v", [(10,), (11,)]),
        (
            "SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA LIKE 'db_' ORDER BY 1, 2",
            [("db1", "t"), ("db1", "v1"), ("db2", "t"), ("db2", "u")],
        ),
        ("SELECT id, v, w FROM db2.u ORDER BY id", [(1, 10, 0), (2, 11, 0)]),
    ],
    ids=[
        "join-across-files",
        "subquery-across-files",
        "view-in-its-file",
        "information-schema",
        "insert-select",
    ],
)
def test_statements_see_tables_of_several_files(open_server, sql, expected):
    srv = open_server(**ON)
    s = srv.session()
    schema_setup(s)
    s.execute(
        "INSERT INTO db1.t (v) VALUES (10), (11); INSERT INTO db2.t (v) VALUES (20), (21); "
        "CREATE VIEW db1.v1 AS SELECT v FROM db1.t; CREATE TABLE db2.u (id INT PRIMARY KEY, v INT); "
        "INSERT INTO db2.u SELECT id, v FROM db1.t; ALTER TABLE db2.u ADD COLUMN w INT NOT NULL DEFAULT 0"
    )
    assert rows(s, sql) == expected


def test_use_rename_across_files_and_index(open_server, tmp_path):
    srv = open_server(**ON)
    s = srv.session()
    schema_setup(s)
    s.execute("USE db1; INSERT INTO t (v) VALUES (1), (2); CREATE INDEX iv ON t (v)")
    assert rows(s, "SELECT id FROM t WHERE v = 2") == [(2,)]
    s.execute("RENAME TABLE db1.t TO db2.moved")  # rows copied into db2's file
    assert rows(s, "SELECT id, v FROM db2.moved ORDER BY id") == [(1, 1), (2, 2)]
    assert code_of(s, "SELECT * FROM db1.t") == 1146
    assert rows(
        s,
        "SELECT INDEX_NAME FROM information_schema.STATISTICS WHERE TABLE_NAME = 'moved' AND INDEX_NAME = 'iv'",
    ) == [("iv",)]
    # the table is in db2's file now: db1's file holds none of its rows
    import sqlite3

    db1 = sqlite3.connect(tmp_path / "data" / "db1.sqlite")
    db2 = sqlite3.connect(tmp_path / "data" / "db2.sqlite")
    try:
        assert db1.execute("SELECT name FROM sqlite_master WHERE name LIKE 'db%'").fetchall() == []
        assert db2.execute('SELECT COUNT(*) FROM "db2.moved"').fetchone() == (2,)
    finally:
        db1.close()
        db2.close()


def test_open_transaction_on_one_schema_does_not_stall_another(open_server):
    srv = open_server(**ON)
    s1, s2 = srv.session(), srv.session()
    schema_setup(s1)
    s2.execute("SET SESSION innodb_lock_wait_timeout = 1")
    s1.execute("BEGIN; INSERT INTO db1.t (v) VALUES (1)")  # idle, uncommitted
    started = time.monotonic()
    s2.execute("INSERT INTO db2.t (v) VALUES (2)")  # autocommit: committed at once
    assert time.monotonic() - started < 0.5
    assert rows(s1, "SELECT v FROM db2.t") == [(2,)]
    started = time.monotonic()
    assert code_of(s2, "INSERT INTO db1.t (v) VALUES (3)") == 1205  # a writer of the same schema waits
    assert 0.9 <= time.monotonic() - started < 5
    s1.execute("COMMIT")
    s2.execute("INSERT INTO db1.t (v) VALUES (3)")
    assert rows(s2, "SELECT id, v FROM db1.t ORDER BY id") == [(1, 1), (2, 3)]
    uuid = srv.server_uuid
    # 2 CREATE DATABASE + 2 CREATE TABLE + 3 committed inserts; the timed-out one took no GNO
    assert str(srv.gtid_state.executed()) == f"{uuid}:1-7"


def test_lock_wait_timeout_inside_a_transaction_keeps_it(open_server):
    """RM8 innodb_rollback_on_timeout OFF: a timeout rolls back the statement, the transaction goes on."""
    srv = open_server(**ON)
    s1, s2 = srv.session(), srv.session()
    schema_setup(s1)
    s2.execute("SET SESSION innodb_lock_wait_timeout = 1")
    s1.execute("BEGIN; INSERT INTO db1.t (v) VALUES (1)")
    s2.execute("BEGIN; INSERT INTO db2.t (v) VALUES (2)")
    assert code_of(s2, "UPDATE db1.t SET v = 9") == 1205
    s1.execute("COMMIT")
    s2.execute("INSERT INTO db2.t (v) VALUES (3); COMMIT")
    assert rows(s1, "SELECT v FROM db2.t ORDER BY v") == [(2,), (3,)]
    assert rows(s1, "SELECT v FROM db1.t") == [(1,)]


def test_opposite_order_is_a_deadlock_1213(open_server):
    """Two transactions taking two schema files in opposite orders: MySQL answers 1213 ER_LOCK_DEADLOCK to one of
    them and rolls its whole transaction back (RM8 "Deadlocks in InnoDB"); the other goes on. Here the victim is
    the transaction whose wait would close the cycle."""
    srv = open_server(**ON)
    s1, s2 = srv.session(), srv.session()
    schema_setup(s1)
    for s in (s1, s2):
        s.execute("SET SESSION innodb_lock_wait_timeout = 5")
    s1.execute("BEGIN; INSERT INTO db1.t (v) VALUES (1)")
    s2.execute("BEGIN; INSERT INTO db2.t (v) VALUES (2)")
    codes: list[int] = []
    th = threading.Thread(target=lambda: codes.append(code_of(s1, "INSERT INTO db2.t (v) VALUES (3)")))
    th.start()
    time.sleep(0.3)  # s1 waits for db2
    started = time.monotonic()
    assert code_of(s2, "INSERT INTO db1.t (v) VALUES (4)") == 1213
    assert time.monotonic() - started < 1  # detected, not timed out
    th.join(10)
    assert codes == [0]  # s2's rollback freed db2
    s1.execute("COMMIT")
    assert rows(s1, "SELECT v FROM db1.t UNION ALL SELECT v FROM db2.t ORDER BY v") == [(1,), (3,)]


def test_a_wait_without_a_cycle_is_no_deadlock(open_server):
    srv = open_server(**ON)
    s1, s2, s3 = srv.session(), srv.session(), srv.session()
    schema_setup(s1)
    s3.execute("SET SESSION innodb_lock_wait_timeout = 5")
    s1.execute("BEGIN; INSERT INTO db1.t (v) VALUES (1)")
    s2.execute("BEGIN; INSERT INTO db2.t (v) VALUES (2)")
    codes: list[int] = []
    th = threading.Thread(target=lambda: codes.append(code_of(s3, "INSERT INTO db1.t (v) VALUES (3)")))
    th.start()
    time.sleep(0.3)
    s1.execute("COMMIT")  # s3 takes db1 now
    th.join(10)
    assert codes == [0]
    s2.execute("COMMIT")


def test_layout_survives_restart_with_the_option_off(open_server, tmp_path):
    srv = open_server(**ON)
    s = srv.session()
    schema_setup(s)
    s.execute("INSERT INTO db1.t (v) VALUES (5)")
    srv.shutdown()
    srv = open_server(tmp_path / "data", log_bin=True)  # the option only places new schemas
    s = srv.session()
    assert rows(s, "SELECT v FROM db1.t") == [(5,)]
    s.execute("CREATE DATABASE db3; CREATE TABLE db3.t (id INT PRIMARY KEY)")
    assert not (tmp_path / "data" / "db3.sqlite").exists()
    s.execute("INSERT INTO db3.t SELECT id FROM db1.t")  # main file + a schema file in one transaction
    assert rows(s, "SELECT id FROM db3.t") == [(1,)]


def test_schemas_past_the_attach_limit_live_in_the_main_file(open_server, tmp_path):
    srv = open_server(**ON)
    s = srv.session()
    for i in range(MAX_SCHEMA_FILES + 2):
        s.execute(
            f"CREATE DATABASE s{i}; CREATE TABLE s{i}.t (id INT PRIMARY KEY); INSERT INTO s{i}.t VALUES ({i})"
        )
    files = {p.name for p in (tmp_path / "data").glob("s*.sqlite")}
    assert len(files) == MAX_SCHEMA_FILES
    total = " + ".join(f"(SELECT id FROM s{i}.t)" for i in range(MAX_SCHEMA_FILES + 2))
    assert rows(s, f"SELECT {total}") == [(sum(range(MAX_SCHEMA_FILES + 2)),)]


WORKLOAD = [
    "CREATE DATABASE db1",
    "CREATE DATABASE db2",
    "CREATE TABLE db1.t (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(20))",
    "CREATE TABLE db2.t (id INT PRIMARY KEY, v INT)",
    "INSERT INTO db1.t (v) VALUES ('a'), ('b')",
    "INSERT INTO db2.t VALUES (1, 1), (2, 2)",
    "BEGIN",
    "UPDATE db1.t SET v = 'c' WHERE id = 1",
    "DELETE FROM db2.t WHERE id = 2",
    "INSERT INTO db2.t SELECT id + 10, id FROM db1.t",
    "COMMIT",
    "CREATE INDEX iv ON db2.t (v)",
    "RENAME TABLE db1.t TO db2.t1",
    "DROP DATABASE db1",
]


@pytest.mark.parametrize("binlog_format", ["ROW", "STATEMENT"])
def test_binlog_bytes_do_not_depend_on_the_layout(tmp_path, tmp_path_factory, monkeypatch, binlog_format):
    from tests.engine.conftest import bootstrapped_datadir

    frozen = 1_700_000_000.25
    monkeypatch.setattr(time, "time", lambda: frozen)
    monkeypatch.setattr(time, "time_ns", lambda: int(frozen * 1e9))
    outputs = []
    uuid_file = None
    for option in (False, True):
        data = bootstrapped_datadir(tmp_path / f"data-{option}", tmp_path_factory)
        if uuid_file is not None:
            shutil.copy2(uuid_file, data / "auto.cnf")
        srv = Server.open(data, gtidkit_file_per_schema=option, log_bin=True, binlog_format=binlog_format)
        uuid_file = data / "auto.cnf"
        try:
            s = srv.session()
            for sql in WORKLOAD:
                s.execute(sql)
            executed = str(srv.gtid_state.executed())
        finally:
            srv.shutdown()
        outputs.append((executed, sorted(p.name for p in data.glob("binlog.0*")), _binlogs(data)))
    assert outputs[0][0] == outputs[1][0]
    assert outputs[0][1] == outputs[1][1]
    assert outputs[0][2] == outputs[1][2]


def _binlogs(data: Path) -> list[bytes]:
    return [p.read_bytes() for p in sorted(data.glob("binlog.0*"))]


@pytest.mark.parametrize(
    "ddl",
    [
        "CREATE TABLE db1.x (id INT PRIMARY KEY)",
        "ALTER TABLE db1.t ADD COLUMN w INT",
        "DROP DATABASE db1",
        "RENAME TABLE db1.t TO db1.t2",
        "TRUNCATE TABLE db1.t",
    ],
    ids=["create-table", "alter-table", "drop-database", "rename-table", "truncate"],
)
def test_ddl_waiting_for_its_schema_does_not_stall_other_schemas(open_server, ddl):
    """A DDL on db1 waits for the open transaction on db1 (MySQL: its metadata lock, "Waiting for table metadata
    lock", until lock_wait_timeout; here 1205 after innodb_lock_wait_timeout) and, meanwhile, writers of db2
    commit: the DDL takes db1's file before the engine write lock."""
    srv = open_server(**ON)
    s1, s2, s3 = srv.session(), srv.session(), srv.session()
    schema_setup(s1)
    s2.execute("SET SESSION innodb_lock_wait_timeout = 2")
    s1.execute("BEGIN; INSERT INTO db1.t (v) VALUES (1)")
    codes: list[int] = []
    th = threading.Thread(target=lambda: codes.append(code_of(s2, ddl)))
    th.start()
    time.sleep(0.3)  # the DDL is waiting
    started = time.monotonic()
    s3.execute("INSERT INTO db2.t (v) VALUES (2)")
    assert time.monotonic() - started < 0.5
    th.join(10)
    assert codes == [1205]
    s1.execute("COMMIT")
    s2.execute(ddl)  # nothing in its way now


@pytest.mark.parametrize(
    "read",
    [
        "SELECT COUNT(*) FROM mysql.gtid_executed",
        "SELECT COUNT(*) FROM information_schema.TABLES",
        "SHOW TABLES FROM db2",
        "SELECT COUNT(*) FROM db1.t JOIN mysql.gtid_executed",
    ],
    ids=["system-table", "information-schema", "show", "join-with-main"],
)
def test_reading_the_main_file_inside_a_schema_transaction_then_commit(open_server, read):
    """A transaction writing db1 reads a table of the main file, another session commits meanwhile, the first
    commits: both are committed (the first took the engine write lock before reading the main file)."""
    srv = open_server(**ON)
    s1, s2 = srv.session(), srv.session()
    schema_setup(s1)
    s1.execute("BEGIN; INSERT INTO db1.t (v) VALUES (1)")
    s1.execute(read)
    done: list[int] = []
    th = threading.Thread(target=lambda: done.append(code_of(s2, "INSERT INTO db2.t (v) VALUES (2)")))
    th.start()
    time.sleep(0.2)
    s1.execute("COMMIT")
    th.join(10)
    assert done == [0]
    assert rows(s2, "SELECT (SELECT COUNT(*) FROM db1.t), (SELECT COUNT(*) FROM db2.t)") == [(1, 1)]
    uuid = srv.server_uuid
    assert str(srv.gtid_state.executed()) == f"{uuid}:1-6"


#: views reading another schema's file, the main file, or such a view; queried as ``SELECT * FROM db1.v``
CROSS_VIEWS = [
    ("CREATE VIEW db1.v AS SELECT id, v FROM db2.t", []),
    ("CREATE VIEW db1.v AS SELECT t.id, t.v + u.v AS s FROM db1.t AS t JOIN db2.t AS u ON u.id = t.id", []),
    ("CREATE VIEW db1.v AS SELECT COUNT(*) AS n FROM mysql.gtid_executed WHERE 1 = 0", []),
    ("CREATE VIEW db1.v AS SELECT id FROM db1.w", ["CREATE VIEW db1.w AS SELECT id FROM db2.t WHERE v > 1"]),
    ("CREATE VIEW db1.v AS SELECT id FROM db2.w", ["CREATE VIEW db2.w AS SELECT id, v FROM db1.t"]),
]


@pytest.mark.parametrize(
    ("view", "first"),
    CROSS_VIEWS,
    ids=[
        "other-schema-file",
        "join-of-two-files",
        "main-file",
        "view-on-a-cross-view",
        "view-on-a-same-file-view",
    ],
)
def test_views_reading_another_file_work_as_with_one_file(open_server, tmp_path, view, first):
    """A MySQL view may select from any schema (RM8 "CREATE VIEW Statement": "tables and views in other
    databases"). With a file per schema such a view is a TEMP view of every connection; the oracle is the same
    statements on one file (the option OFF): the same rows from a session opened before the view existed, after
    the base tables change, after a restart, and 1146 after DROP VIEW (MySQL: the view is gone)."""
    results = {}
    for option in (True, False):
        data = tmp_path / f"data-{option}"
        srv = open_server(data, **{**ON, "gtidkit_file_per_schema": option})
        s, other = srv.session(), srv.session()
        schema_setup(s)
        s.execute("INSERT INTO db1.t (v) VALUES (1), (2); INSERT INTO db2.t (v) VALUES (10), (20), (30)")
        rows(other, "SELECT 1")  # opened (and its connection synced) before the view exists
        for stmt in [*first, view]:
            s.execute(stmt)
        seen = [sorted(rows(s, "SELECT * FROM db1.v")), sorted(rows(other, "SELECT * FROM db1.v"))]
        other.execute("INSERT INTO db2.t (v) VALUES (40); UPDATE db1.t SET v = v + 1")
        seen.append(sorted(rows(s, "SELECT * FROM db1.v")))
        seen.append(
            rows(s, "SELECT VIEW_DEFINITION IS NOT NULL FROM information_schema.VIEWS WHERE TABLE_NAME = 'v'")
        )
        srv.shutdown()
        srv = open_server(data, **{**ON, "gtidkit_file_per_schema": option})
        s, other = srv.session(), srv.session()
        seen.append(sorted(rows(other, "SELECT * FROM db1.v")))
        s.execute("DROP VIEW db1.v")
        seen.append(code_of(other, "SELECT * FROM db1.v"))
        s.execute(view)  # made again, and replaced
        seen.append(sorted(rows(other, "SELECT * FROM db1.v")))
        results[option] = seen
        assert ((data / "db1.sqlite").exists()) is option
    assert results[True] == results[False]
    assert results[True][5] == 1146


def test_a_cross_file_view_is_seen_by_a_session_inside_a_transaction(open_server):
    """A session whose transaction writes db2 sees a view on db1 and db2 created meanwhile by another session,
    and commits (the view is read through its own connection's TEMP view, the transaction's files unchanged)."""
    srv = open_server(**ON)
    s1, s2 = srv.session(), srv.session()
    schema_setup(s1)
    s1.execute("INSERT INTO db1.t (v) VALUES (1)")
    s2.execute("BEGIN; INSERT INTO db2.t (v) VALUES (5)")
    s1.execute("CREATE VIEW db1.v AS SELECT a.v AS x, b.v AS y FROM db1.t AS a, db2.t AS b")
    assert rows(s2, "SELECT x, y FROM db1.v") == [(1, 5)]
    s2.execute("COMMIT")
    assert rows(s1, "SELECT x, y FROM db1.v") == [(1, 5)]


def test_kill_query_ends_a_wait_for_a_schema_file(open_server):
    """KILL QUERY of a session waiting for a row lock ends its statement with 1317 ER_QUERY_INTERRUPTED (InnoDB's
    DB_INTERRUPTED), its transaction stays."""
    srv = open_server(**ON)
    s1, s2, s3 = srv.session(), srv.session(), srv.session()
    schema_setup(s1)
    s1.execute("BEGIN; INSERT INTO db1.t (v) VALUES (1)")
    codes: list[int] = []
    th = threading.Thread(target=lambda: codes.append(code_of(s2, "INSERT INTO db1.t (v) VALUES (2)")))
    started = time.monotonic()
    th.start()
    time.sleep(0.3)
    s3.execute(f"KILL QUERY {s2.id}")
    th.join(10)
    assert codes == [1317]
    assert time.monotonic() - started < 5  # innodb_lock_wait_timeout is 50 s
    s1.execute("COMMIT")


def test_writing_a_file_read_before_another_commit_is_a_deadlock(open_server):
    """A transaction read db2 (its snapshot of db2 starts there), another session committed to db2, then the
    first writes db2: SQLite cannot write on that snapshot, so the transaction is rolled back with 1213 (InnoDB
    would let the write go on: a documented difference of the file-per-schema mode)."""
    srv = open_server(**ON)
    s1, s2 = srv.session(), srv.session()
    schema_setup(s1)
    s1.execute("BEGIN; INSERT INTO db1.t (v) VALUES (1); SELECT * FROM db2.t")
    s2.execute("INSERT INTO db2.t (v) VALUES (2)")
    assert code_of(s1, "INSERT INTO db2.t (v) VALUES (3)") == 1213
    assert rows(s2, "SELECT (SELECT COUNT(*) FROM db1.t), (SELECT COUNT(*) FROM db2.t)") == [(0, 1)]


def test_a_file_that_missed_a_commit_gets_it_back_from_the_redo_log(open_server, tmp_path):
    """SQLite commits main first, then each schema file: a process killed between them leaves db2's file without
    the transaction that main (commit log, GTID, binary log) has. Made here by putting back db2's file as it was
    before the commit; the restart re-applies the transaction's rows to it from the redo log (its row images in
    main, written in the same transaction), so the transaction is whole again."""
    import sqlite3

    srv = open_server(**ON)
    s = srv.session()
    schema_setup(s)
    s.execute("INSERT INTO db1.t (v) VALUES (1); INSERT INTO db2.t (v) VALUES (1)")
    s.execute(
        "BEGIN; INSERT INTO db1.t (v) VALUES (2); UPDATE db2.t SET v = 5; INSERT INTO db2.t (v) VALUES (3)"
    )
    s.execute("DELETE FROM db1.t WHERE v = 1; COMMIT")
    data = tmp_path / "data"
    db2 = data / "db2.sqlite"
    expected = rows(s, "SELECT id, v FROM db2.t ORDER BY id")
    executed = str(srv.gtid_state.executed())
    srv.shutdown()
    raw = sqlite3.connect(
        db2
    )  # db2's file as a crash inside the COMMIT leaves it: without the last transaction
    raw.execute('DELETE FROM "db2.t" WHERE id = 2')
    raw.execute('UPDATE "db2.t" SET v = 1 WHERE id = 1')
    applied = raw.execute("SELECT applied FROM _gk_schema_file").fetchone()[0]
    raw.execute("UPDATE _gk_schema_file SET applied = ?", (applied - 1,))
    raw.commit()
    raw.close()
    srv = open_server(data, **ON)
    s = srv.session()
    assert rows(s, "SELECT id, v FROM db2.t ORDER BY id") == expected == [(1, 5), (2, 3)]
    assert rows(s, "SELECT id, v FROM db1.t ORDER BY id") == [(2, 2)]
    assert str(srv.gtid_state.executed()) == executed
    s.execute("INSERT INTO db2.t (v) VALUES (4)")  # and the file goes on
    assert rows(s, "SELECT COUNT(*) FROM db2.t") == [(3,)]


def test_the_next_writer_of_a_file_redoes_what_it_missed(open_server, tmp_path):
    """With several worker processes the others go on after one is killed inside its COMMIT, so the next
    transaction that takes the file's lock re-applies what the file missed before writing (``redo_at_lock``, set
    by a server with a shared page; set by hand here, and the file put back as such a kill leaves it)."""
    import sqlite3

    srv = open_server(**ON)
    srv.storage.redo_at_lock = True
    s = srv.session()
    schema_setup(s)
    s.execute("BEGIN; INSERT INTO db1.t (v) VALUES (1); INSERT INTO db2.t (v) VALUES (2); COMMIT")
    raw = sqlite3.connect(tmp_path / "data" / "db2.sqlite", isolation_level=None)
    raw.execute("BEGIN IMMEDIATE")
    raw.execute('DELETE FROM "db2.t"')
    raw.execute("UPDATE _gk_schema_file SET applied = applied - 1")
    raw.execute("COMMIT")
    raw.close()
    assert rows(s, "SELECT COUNT(*) FROM db2.t") == [(0,)]  # what a reader sees before the next writer
    s.execute("INSERT INTO db2.t (v) VALUES (3)")
    assert rows(s, "SELECT id, v FROM db2.t ORDER BY id") == [(1, 2), (2, 3)]


def file_state(data: Path, alias: str) -> dict[str, tuple]:
    """What schema file ``alias`` physically holds: each table or view (not ``_gk_*``) -> its columns and rows."""
    import sqlite3

    raw = sqlite3.connect(data / f"{alias}.sqlite")
    try:
        out: dict[str, tuple] = {}
        for name, kind in raw.execute(
            "SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE '\\_gk\\_%' "
            "ESCAPE '\\' ORDER BY name"
        ):
            try:
                cols = tuple(r[1] for r in raw.execute(f'PRAGMA table_info("{name}")'))
                idx = tuple(sorted(r[1] for r in raw.execute(f'PRAGMA index_list("{name}")')))
                data_rows = tuple(sorted(raw.execute(f'SELECT * FROM "{name}"').fetchall(), key=repr))
            except sqlite3.OperationalError as err:  # a view whose table was dropped (invalid, as in MySQL)
                cols, idx, data_rows = (str(err),), (), ()
            out[name] = (kind, cols, idx, data_rows)
        return out
    finally:
        raw.close()


def catalog_tables(session, schema: str) -> set[str]:
    """The physical names the catalog lists for ``schema``."""
    return {
        f"{schema}.{r[0]}"
        for r in rows(
            session, f"SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = '{schema}'"
        )
    }


#: DDL statements run after :func:`schema_setup` plus db2.t2 (rows) and db2.w (a view); each changes db2's file
DDL_REDO = [
    ("CREATE TABLE db2.n (a INT PRIMARY KEY, b VARCHAR(10))", "db2"),
    ("CREATE TABLE db2.c AS SELECT id, v FROM db2.t2", "db2"),
    ("CREATE TABLE db2.c AS SELECT id, v FROM db1.t", "db2"),
    ("DROP TABLE db2.t2", "db2"),
    ("ALTER TABLE db2.t2 ADD COLUMN w INT DEFAULT 7, ADD INDEX iv (v)", "db2"),
    ("ALTER TABLE db2.t2 DROP COLUMN v", "db2"),
    ("CREATE INDEX iv ON db2.t2 (v)", "db2"),
    ("RENAME TABLE db2.t2 TO db2.t3", "db2"),
    ("RENAME TABLE db2.t2 TO db1.t2", "db2"),
    ("RENAME TABLE db2.t2 TO db1.t2", "db1"),
    ("RENAME TABLE db1.t TO db2.t9", "db2"),
    ("TRUNCATE TABLE db2.t2", "db2"),
    ("CREATE VIEW db2.v AS SELECT v FROM db2.t2", "db2"),
    ("DROP VIEW db2.w", "db2"),
]


@pytest.mark.parametrize(
    ("ddl", "lagging"),
    DDL_REDO,
    ids=[
        "create",
        "create-select-same-file",
        "create-select-other-file",
        "drop",
        "alter-add",
        "alter-drop-column",
        "create-index",
        "rename",
        "rename-across-source-lags",
        "rename-across-target-lags",
        "rename-into-file",
        "truncate",
        "create-view",
        "drop-view",
    ],
)
def test_a_file_that_missed_a_ddl_gets_it_back_from_the_redo_log(open_server, tmp_path, ddl, lagging):
    """MySQL 8.0's DDL is atomic (RM8 "Atomic Data Definition Statement Support": the data dictionary, the storage
    engine and the binary log all have the statement or none does). SQLite commits main (catalog, commit log,
    binary log) first, then the schema file: a kill between them leaves the file as it was before the DDL. Made
    here by putting back a copy of the file taken before the DDL; the restart replays the DDL's statements on it
    from the redo log, so the file is what the committed DDL made it (the same tables, columns, indexes, rows)."""
    import sqlite3

    srv = open_server(**ON)
    s = srv.session()
    schema_setup(s)
    s.execute(
        "INSERT INTO db1.t (v) VALUES (10), (20); CREATE TABLE db2.t2 (id INT PRIMARY KEY, v INT); "
        "INSERT INTO db2.t2 VALUES (1, 100), (2, 200); CREATE VIEW db2.w AS SELECT id FROM db2.t2"
    )
    data = tmp_path / "data"
    before = tmp_path / f"{lagging}.before"
    src = sqlite3.connect(data / f"{lagging}.sqlite")
    dst = sqlite3.connect(before)
    src.backup(dst)  # the file as the kill leaves it: its last committed state before the DDL
    src.close()
    dst.close()
    s.execute(ddl)
    expected = {alias: file_state(data, alias) for alias in ("db1", "db2")}
    executed = str(srv.gtid_state.executed())
    srv.shutdown()
    for suffix in ("", "-wal", "-shm"):
        (data / f"{lagging}.sqlite{suffix}").unlink(missing_ok=True)
    shutil.copy(before, data / f"{lagging}.sqlite")
    assert file_state(data, lagging) != expected[lagging]  # the file really lags
    srv = open_server(data, **ON)
    s = srv.session()
    assert {alias: file_state(data, alias) for alias in ("db1", "db2")} == expected
    for schema in ("db1", "db2"):
        assert set(file_state(data, schema)) == catalog_tables(s, schema)
    assert str(srv.gtid_state.executed()) == executed
    s.execute("INSERT INTO db2.t (v) VALUES (4)")  # and the file goes on
    assert rows(s, "SELECT COUNT(*) FROM db2.t") == [(1,)]


@pytest.mark.parametrize("option", [True, False], ids=["recreated-on", "recreated-off"])
def test_a_file_left_by_a_dropped_schema_is_not_reused(open_server, tmp_path, option):
    """DROP DATABASE removes the schema's file after its transaction commits: a kill in between leaves the file
    while the catalog (and the binary log) no longer list the schema. A later CREATE DATABASE of the same name,
    with the option on or off, starts empty (MySQL: a new database has no tables) and no redo row of the dropped
    schema's file is replayed into the new one."""
    srv = open_server(**ON)
    s = srv.session()
    schema_setup(s)
    s.execute("INSERT INTO db2.t (v) VALUES (1), (2)")
    data = tmp_path / "data"
    kept = tmp_path / "db2.kept"
    srv.storage.checkpoint()
    shutil.copy(data / "db2.sqlite", kept)
    s.execute("DROP DATABASE db2")
    srv.shutdown()
    shutil.copy(kept, data / "db2.sqlite")  # as a kill before the file's removal leaves it
    srv = open_server(data, **{**ON, "gtidkit_file_per_schema": option})
    s = srv.session()
    assert rows(s, "SHOW DATABASES LIKE 'db2'") == []
    s.execute("CREATE DATABASE db2")
    assert rows(s, "SHOW TABLES FROM db2") == []
    s.execute(
        "CREATE TABLE db2.t (id INT AUTO_INCREMENT PRIMARY KEY, v INT); INSERT INTO db2.t (v) VALUES (9)"
    )
    srv.shutdown()
    srv = open_server(data, **ON)
    s = srv.session()
    assert rows(s, "SELECT id, v FROM db2.t") == [(1, 9)]
    assert (data / "db2.sqlite").exists() is option


def test_a_wait_for_a_schema_file_is_listed_where_mysql_lists_lock_waits(open_server):
    """A session waiting for another's open write transaction on the same schema is where InnoDB lists a row
    lock wait (RM8 "The INFORMATION_SCHEMA INNODB_TRX Table": ``trx_state`` LOCK WAIT with
    ``trx_requested_lock_id`` and ``trx_wait_started`` for the waiter, RUNNING and NULL for the holder; "The
    data_lock_waits Table": one row, REQUESTING_* the waiter, BLOCKING_* the holder; "InnoDB Standard Monitor":
    ``LOCK WAIT`` and ``TRX HAS BEEN WAITING n SEC FOR THIS LOCK TO BE GRANTED``). The lock here is the schema's
    file (``<trx>:gtidkit:file:db1``): row locks OFF, with ON the INSERT's table lock is the first wait (listed the
    same way, ``<trx>:gtidkit:table:<key>``: tests/engine/test_row_locks.py)."""
    srv = open_server(**ON, gtidkit_row_locks=False)
    s1, s2, s3 = srv.session(), srv.session(), srv.session()
    schema_setup(s1)
    s1.execute("BEGIN; INSERT INTO db1.t (v) VALUES (1)")
    s2.execute("SET SESSION innodb_lock_wait_timeout = 5")
    codes: list[int] = []
    th = threading.Thread(target=lambda: codes.append(code_of(s2, "INSERT INTO db1.t (v) VALUES (2)")))
    th.start()
    try:
        trx: list = []
        deadline = time.monotonic() + 4
        while time.monotonic() < deadline:
            trx = rows(
                s3,
                "SELECT trx_mysql_thread_id, trx_state, trx_requested_lock_id, trx_wait_started IS NOT NULL "
                "FROM information_schema.INNODB_TRX ORDER BY trx_mysql_thread_id",
            )
            if any(r[1] == "LOCK WAIT" for r in trx):
                break
            time.sleep(0.05)
        assert trx == [(s1.id, "RUNNING", None, 0), (s2.id, "LOCK WAIT", f"{s2.id}:gtidkit:file:db1", 1)]
        assert rows(
            s3,
            "SELECT REQUESTING_ENGINE_LOCK_ID, REQUESTING_ENGINE_TRANSACTION_ID, BLOCKING_ENGINE_LOCK_ID, "
            "BLOCKING_ENGINE_TRANSACTION_ID FROM performance_schema.data_lock_waits",
        ) == [(f"{s2.id}:gtidkit:file:db1", s2.id, f"{s1.id}:gtidkit:file:db1", s1.id)]
        status = rows(s3, "SHOW ENGINE INNODB STATUS")[0][2]
        assert f"---TRANSACTION {s2.id}, ACTIVE" in status
        assert "LOCK WAIT 1 lock struct(s)" in status
        assert "FOR THIS LOCK TO BE GRANTED:" in status
        assert (
            f"TABLE LOCK table `db1`.`*` trx id {s2.id} lock mode X waiting held by trx id {s1.id}" in status
        )
    finally:
        s1.execute("COMMIT")
        th.join(10)
    assert codes == [0]
    assert rows(s3, "SELECT COUNT(*) FROM information_schema.INNODB_TRX") == [(0,)]


def counters_setup(session) -> None:
    """db1.c and db2.c, one row each, that every writer transaction increments together."""
    session.execute(
        "CREATE DATABASE db1; CREATE DATABASE db2; CREATE TABLE db1.c (id INT PRIMARY KEY, n INT); "
        "CREATE TABLE db2.c (id INT PRIMARY KEY, n INT); INSERT INTO db1.c VALUES (1, 0); INSERT INTO db2.c VALUES (1, 0)"
    )


BOTH = "BEGIN; UPDATE db1.c SET n = n + 1; UPDATE db2.c SET n = n + 1; COMMIT"


@pytest.mark.parametrize(
    "begin", ["BEGIN", "START TRANSACTION WITH CONSISTENT SNAPSHOT"], ids=["rr", "with-snapshot"]
)
def test_a_repeatable_read_transaction_sees_one_commit_point_across_files(open_server, begin):
    """REPEATABLE READ (RM8 "Consistent Nonlocking Reads"): the snapshot is established at the transaction's
    first read (or at START TRANSACTION WITH CONSISTENT SNAPSHOT), and the transaction's later reads of any table
    see it, not a commit made after it: db2's counter read after another session committed to both files is
    the value at the snapshot, equal to db1's."""
    srv = open_server(**ON)
    reader, writer = srv.session(), srv.session()
    counters_setup(writer)
    reader.execute(begin)
    if begin == "BEGIN":
        assert rows(reader, "SELECT n FROM db1.c") == [(0,)]  # the first read makes the snapshot
    writer.execute(BOTH)
    assert rows(reader, "SELECT n FROM db2.c") == [(0,)]
    assert rows(reader, "SELECT n FROM db1.c") == [(0,)]
    reader.execute("COMMIT")
    assert rows(reader, "SELECT (SELECT n FROM db1.c), (SELECT n FROM db2.c)") == [(1, 1)]


def test_read_committed_reads_the_latest_commit(open_server):
    """READ COMMITTED: each consistent read sets and reads its own fresh snapshot (RM8 "READ COMMITTED")."""
    srv = open_server(**ON)
    reader, writer = srv.session(), srv.session()
    counters_setup(writer)
    reader.execute("SET SESSION transaction_isolation = 'READ-COMMITTED'; BEGIN")
    assert rows(reader, "SELECT n FROM db1.c") == [(0,)]
    writer.execute(BOTH)
    assert rows(reader, "SELECT n FROM db2.c") == [(1,)]
    reader.execute("COMMIT")


def test_a_read_view_never_sees_half_of_a_commit_to_two_files(open_server):
    """A writer commits to db1 and db2 in a loop (each commit adds 1 to both counters); readers' REPEATABLE READ
    transactions read db1's then db2's counter, and single autocommitted SELECTs read both: always equal (SQLite commits the two files one after the other;
    the commit gate keeps a read view's opening out of that window). The writer's commits go on meanwhile."""
    srv = open_server(**{**ON, "log_bin": False})
    writer = srv.session()
    counters_setup(writer)
    stop = time.monotonic() + 3
    errors: list[BaseException] = []

    def write() -> None:
        while time.monotonic() < stop:
            try:
                writer.execute(BOTH)
            except MySQLError as err:  # reported below
                errors.append(err)
                return

    th = threading.Thread(target=write)
    th.start()
    reader = srv.session()
    seen = []
    try:
        while time.monotonic() < stop:
            reader.execute("BEGIN")
            a = rows(reader, "SELECT n FROM db1.c")[0][0]
            time.sleep(0.001)
            b = rows(reader, "SELECT n FROM db2.c")[0][0]
            reader.execute("COMMIT")
            seen.append((a, b))
            # one autocommitted statement reading both files: InnoDB's statement read view, one commit point
            seen.append(tuple(rows(reader, "SELECT (SELECT n FROM db1.c), (SELECT n FROM db2.c)")[0]))
    finally:
        th.join(10)
    assert errors == []
    assert len(seen) > 20 and seen[-1][0] > 10, seen[-3:]
    assert [p for p in seen if p[0] != p[1]] == []


def test_a_read_view_waits_for_a_commit_between_its_files(open_server, tmp_path):
    """While a transaction's COMMIT writes its files one after the other it holds the commit gate exclusively
    (held here by hand, as such a COMMIT would); a read view's opening waits for it, then sees the whole commit."""
    import fcntl
    import os

    srv = open_server(**ON)
    s = srv.session()
    counters_setup(s)
    fd = os.open(tmp_path / "data" / "gtidkit.commit.lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    got: list = []
    th = threading.Thread(target=lambda: got.append(rows(s, "BEGIN; SELECT n FROM db1.c")))
    th.start()
    time.sleep(0.3)
    assert got == []  # waiting for the gate
    fcntl.flock(fd, fcntl.LOCK_UN)
    os.close(fd)
    th.join(10)
    assert got == [[(0,)]]
    s.execute("COMMIT")


@pytest.mark.parametrize(
    ("ddl", "undo", "check"),
    [
        ("CREATE TABLE db2.n (a INT PRIMARY KEY)", 'DROP TABLE "db2.n"', "SELECT COUNT(*) FROM db2.n"),
        ("TRUNCATE TABLE db2.t", 'INSERT INTO "db2.t" (id, v) VALUES (1, 5)', "SELECT COUNT(*) FROM db2.t"),
    ],
    ids=["create-table", "truncate"],
)
def test_the_next_writer_of_a_file_redoes_a_ddl_it_missed(open_server, tmp_path, ddl, undo, check):
    """With worker processes (``redo_at_lock``, set by hand here) a file that missed a DDL's commit (put back in
    place as the kill leaves it) gets the DDL replayed by the next transaction taking its lock, before its write."""
    import sqlite3

    srv = open_server(**ON)
    srv.storage.redo_at_lock = True
    s = srv.session()
    schema_setup(s)
    s.execute("INSERT INTO db2.t (v) VALUES (5)")
    s.execute(ddl)
    expected = rows(s, check)
    raw = sqlite3.connect(tmp_path / "data" / "db2.sqlite", isolation_level=None)
    raw.execute("BEGIN IMMEDIATE")
    raw.execute(undo)
    raw.execute("UPDATE _gk_schema_file SET applied = applied - 1")
    raw.execute("COMMIT")
    raw.close()
    s.execute("INSERT INTO db2.t (v) VALUES (7)")  # takes db2's lock: the DDL is replayed first
    assert rows(s, check) == [(expected[0][0] + (1 if "db2.t" in check else 0),)]
