"""Row locks for single-row primary-key DML (``gtidkit_row_locks``; docs/design/multi_worker.md §5.7), in one process.

The oracle: what a client sees must not depend on the option (the immediate path's results are MySQL's: affected
rows, ``Rows matched`` info, warnings, 1062 / 1048 / 1264 / 1406 errors, ROW_COUNT(), LAST_INSERT_ID(), the
binary log's bytes). The locks follow InnoDB (RM8 "InnoDB Locking": an UPDATE / DELETE by a unique index value
locks only that index record; RM8 "innodb_lock_wait_timeout": 1205 after the timeout, only the statement rolled
back; RM8 "Deadlocks in InnoDB": 1213 and the victim's transaction rolled back): two transactions writing
different rows of one table do not wait, the same row waits, opposite orders deadlock.
"""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path

import pytest

from gtidkit.engine import Server
from gtidkit.errors import MySQLError

ON = {"gtidkit_row_locks": True, "log_bin": True, "gtid_mode": "ON", "enforce_gtid_consistency": "ON"}
TABLE = (
    "CREATE DATABASE db; CREATE TABLE db.t (id INT AUTO_INCREMENT PRIMARY KEY, k INT NOT NULL DEFAULT 0, "
    "c CHAR(5), d TINYINT); INSERT INTO db.t VALUES (1, 10, 'a', 1), (2, 20, 'b', 2), (3, 30, 'c', 3), (4, 40, 'd', 4); "
    "CREATE TABLE db.u (id BIGINT PRIMARY KEY, ts TIMESTAMP DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, "
    "j JSON, e ENUM('a', 'b'), m DECIMAL(5, 2), f FLOAT, b VARBINARY(4)); "
    "INSERT INTO db.u (id, j, e, m, f, b) VALUES (1, '{\"a\": 1}', 'a', 1.5, 0.5, 'ab'); "
    "CREATE TABLE db.w (id INT PRIMARY KEY, v INT, UNIQUE KEY (v)); INSERT INTO db.w VALUES (1, 1), (2, 2); "
    "CREATE VIEW db.v AS SELECT id, k FROM db.t"
)

#: statements after TABLE: the single-row primary-key DML takes the deferred path with the option ON
WORKLOAD = [
    "SET SESSION session_track_transaction_info = 'CHARACTERISTICS'",  # the OK's transaction state tracker
    "BEGIN",
    "UPDATE db.t SET k = k + 1 WHERE id = 1",
    "UPDATE db.t SET k = k WHERE id = 1",  # matched 1, changed 0
    "UPDATE db.t SET k = 5 WHERE id = 99",  # matches nothing
    "INSERT INTO db.t (id, k, c) VALUES (10, 1, 'x')",
    "INSERT INTO db.t (id, k, c) VALUES (2, 1, 'x')",  # 1062
    "INSERT INTO db.t (id, k, c) VALUES (11, NULL, 'x')",  # 1048
    "UPDATE db.t SET d = 300 WHERE id = 2",  # 1264 in strict mode
    "INSERT INTO db.t (id, k, c) VALUES (12, 1, 'toolong')",  # 1406 in strict mode
    "INSERT IGNORE INTO db.t (id, k, c) VALUES (2, 1, 'x')",  # warning 1062, 0 rows
    "DELETE FROM db.t WHERE id = 3",
    "UPDATE db.t SET k = k + 1 WHERE id = 10",  # a queued row again
    "DELETE FROM db.t WHERE id = 10 AND k = 999",  # the other conjunct holds not
    "INSERT INTO db.t VALUES (3, 33, 'again', 3)",  # the key this transaction deleted (no column list)
    "UPDATE db.u SET j = JSON_SET(j, '$.b', 2), m = m * 2 WHERE id = 1",  # a partial JSON update in the binlog
    "UPDATE db.u SET e = 'c' WHERE id = 1",  # 1265 in strict mode
    "UPDATE db.u SET m = 1000 WHERE id = 1",  # 1264
    "INSERT INTO db.u (id, j, e, m, f, b) VALUES (-5, '[1, 2]', 'b', -2.25, 1.25, x'00ff')",
    "UPDATE db.u SET b = 'abcde' WHERE id = -5",  # 1406
    "UPDATE db.w SET v = 2 WHERE id = 1",  # a secondary UNIQUE key: the immediate path's 1062
    "UPDATE db.w SET v = 3 WHERE id = 1",
    "SELECT * FROM db.u ORDER BY id",
    "COMMIT",
    "SET SESSION sql_mode = ''",
    "BEGIN",
    "UPDATE db.t SET d = 300 WHERE id = 2",  # warning 1264, 127 stored
    "INSERT INTO db.t (id, k, c) VALUES (12, 1, 'toolong')",  # warning 1265
    "UPDATE db.t SET k = NULL WHERE id = 12",  # warning 1048
    "COMMIT",
    "SET SESSION sql_mode = DEFAULT",
    "BEGIN",
    "UPDATE db.t SET k = 7 WHERE id = 1",
    "ROLLBACK",
    "BEGIN",
    "UPDATE db.t SET k = 8 WHERE id = 1",
    "SELECT * FROM db.v WHERE id = 1",  # its own change through a view (the queue is applied first)
    "UPDATE db.t SET k = 9 WHERE id = 4",  # after the queue was applied: the immediate path
    "COMMIT",
    "BEGIN",
    "DELETE FROM db.t WHERE id = 4",
    "COMMIT",
    "BEGIN",
    "UPDATE db.t SET k = k + 1 WHERE id = 2",
    "DELETE FROM db.t WHERE id = 2",  # by the key alone, its row loaded already (the shadow's DELETE)
    "DELETE FROM db.t WHERE (id = 1)",  # by the key alone, not loaded: the locked row is its image
    "DELETE FROM db.t WHERE id = 1",  # deleted already in this transaction: 0 rows
    "DELETE FROM db.t WHERE id = 98",  # no such row: 0 rows
    "INSERT INTO db.t (id, k, c) VALUES (1, 5, 'y')",  # the key this transaction deleted
    "DELETE FROM db.t WHERE id = 3 LIMIT 1",  # not the key alone: the row goes through the shadow
    "UPDATE db.t SET k = 6 WHERE id = 98",
    "INSERT INTO db.t (id, k, c) VALUES (13, 1, 'z')",
    "DELETE FROM db.t WHERE id = 13",  # a new key inserted and deleted in one transaction
    "UPDATE db.u SET f = -0.0 WHERE id = 1",
    "UPDATE db.u SET f = 0.0 WHERE id = 1",
    "COMMIT",
    "BEGIN",
    "UPDATE db.u SET f = -0.0 WHERE id = 1",  # 0.0 -> -0.0: equal in Python, not the same REAL
    "UPDATE db.t SET c = 'y' WHERE id = 3",
    "UPDATE db.t SET c = 'c' WHERE id = 3",  # back to the value it had
    "COMMIT",
    "SELECT * FROM db.t ORDER BY id",
    "SELECT * FROM db.u ORDER BY id",
    "SELECT * FROM db.w ORDER BY id",
]


def outcome(session, sql: str) -> tuple:
    """What a client sees of ``sql``: the error, or the OK / result set with its warnings, status flags and
    session-state changes, then ROW_COUNT() and LAST_INSERT_ID()."""
    try:
        res = session.execute(sql)[-1]
    except MySQLError as err:
        seen: tuple = ("error", err.code, err.sqlstate, err.message)
    else:
        seen = (
            res.affected_rows,
            res.info,
            res.last_insert_id,
            res.rows,
            tuple(res.warnings),
            res.status_flags,
            res.state_changes,
        )
    if sql.startswith(("SET", "BEGIN", "COMMIT", "ROLLBACK")):
        return seen
    return seen, session.execute("SELECT ROW_COUNT(), LAST_INSERT_ID()")[-1].rows


@pytest.mark.parametrize("binlog_format", ["ROW", "STATEMENT", "MIXED"])
def test_results_and_binlog_bytes_do_not_depend_on_the_option(
    tmp_path, tmp_path_factory, monkeypatch, binlog_format
):
    from tests.engine.conftest import bootstrapped_datadir

    frozen = 1_700_000_000.25
    monkeypatch.setattr(time, "time", lambda: frozen)
    monkeypatch.setattr(time, "time_ns", lambda: int(frozen * 1e9))
    runs = []
    uuid_file = None
    for option in (False, True):
        data = bootstrapped_datadir(tmp_path / f"data-{option}", tmp_path_factory)
        if uuid_file is not None:
            shutil.copy2(uuid_file, data / "auto.cnf")
        srv = Server.open(data, **{**ON, "gtidkit_row_locks": option, "binlog_format": binlog_format})
        uuid_file = data / "auto.cnf"
        try:
            s = srv.session()
            s.execute(TABLE)
            seen = []
            deferred_seen = 0
            for sql in WORKLOAD:
                seen.append((sql, outcome(s, sql)))
                deferred_seen += bool(s.deferred)
            executed = str(srv.gtid_state.executed())
        finally:
            srv.shutdown()
        runs.append((seen, executed, [p.read_bytes() for p in sorted(data.glob("binlog.0*"))], deferred_seen))
    (off, off_gtids, off_binlog, off_deferred), (on, on_gtids, on_binlog, on_deferred) = runs
    assert off_deferred == 0 and on_deferred > 10  # the option ON took the deferred path
    for (sql, a), (_sql, b) in zip(off, on):
        assert a == b, sql
    assert off_gtids == on_gtids
    assert off_binlog == on_binlog


def code_of(session, sql: str) -> int:
    """The MySQL error code ``sql`` fails with (0 when it succeeds)."""
    try:
        session.execute(sql)
    except MySQLError as err:
        return err.code
    return 0


def in_thread(session, sql: str) -> tuple[threading.Thread, list]:
    """Run ``sql`` in a thread; the list gets (error code, seconds)."""
    out: list = []

    def run() -> None:
        started = time.monotonic()
        out.append((code_of(session, sql), time.monotonic() - started))

    th = threading.Thread(target=run)
    th.start()
    return th, out


@pytest.fixture
def three(open_server):
    """A server with the option ON and three sessions (1 s lock wait timeout for the second and third)."""
    srv = open_server(**ON)
    s1, s2, s3 = srv.session(), srv.session(), srv.session()
    s1.execute(TABLE)
    for s in (s2, s3):
        s.execute("SET SESSION innodb_lock_wait_timeout = 1")
    return srv, s1, s2, s3


@pytest.mark.parametrize(
    "second",
    [
        "UPDATE db.t SET k = 0 WHERE id = 2",
        "DELETE FROM db.t WHERE id = 2",
        "INSERT INTO db.t (id, k) VALUES (20, 1)",
        "INSERT INTO db.x (id) VALUES (1)",  # another table: not a row of t at all
    ],
    ids=["update-other-row", "delete-other-row", "insert-new-key", "other-table"],
)
def test_writers_of_different_rows_do_not_wait(three, second):
    """An open transaction holding row 1 of db.t: another transaction writes another row and commits at once,
    and the first transaction still commits (InnoDB: record locks on different index records do not conflict)."""
    _srv, s1, s2, _s3 = three
    s1.execute("CREATE TABLE db.x (id INT PRIMARY KEY)")
    s1.execute("BEGIN; UPDATE db.t SET k = 100 WHERE id = 1")
    assert not s1.holds_write_lock  # the write lock waits for COMMIT
    started = time.monotonic()
    s2.execute(f"BEGIN; {second}; COMMIT")
    assert time.monotonic() - started < 0.5
    s1.execute("COMMIT")
    assert s2.execute("SELECT k FROM db.t WHERE id = 1")[-1].rows == [(100,)]


@pytest.mark.parametrize(
    "second",
    [
        "UPDATE db.t SET k = 0 WHERE id = 1",
        "DELETE FROM db.t WHERE id = 1",
        "INSERT INTO db.t (id, k) VALUES (1, 1)",
        "UPDATE db.t SET k = 0 WHERE k > 0",  # not by the key: a table lock, which waits for row 1's holder
        "ALTER TABLE db.t ADD COLUMN e INT",  # DDL: waits too (MySQL: its metadata lock)
        "DROP DATABASE db",  # names no table: every table of the schema
    ],
    ids=["update", "delete", "insert-same-key", "update-by-scan", "ddl", "drop-database"],
)
def test_the_same_row_waits_then_1205(three, second):
    """A second writer of the locked row (or of the whole table) waits, and fails with 1205 after
    innodb_lock_wait_timeout; its transaction stays open (innodb_rollback_on_timeout OFF)."""
    _srv, s1, s2, _s3 = three
    s1.execute("BEGIN; UPDATE db.t SET k = 100 WHERE id = 1")
    if not second.startswith(("ALTER", "DROP")):
        s2.execute("BEGIN")
    started = time.monotonic()
    assert code_of(s2, second) == 1205
    assert 0.9 < time.monotonic() - started < 3
    s1.execute("COMMIT")
    if not second.startswith(("ALTER", "DROP")):
        s2.execute("ROLLBACK")
    assert s2.execute("SELECT k FROM db.t WHERE id = 1")[-1].rows == [(100,)]


def test_a_waiter_goes_on_when_the_holder_commits(three):
    """The waiting UPDATE runs once the holder commits, on the committed row (InnoDB's locking read)."""
    _srv, s1, s2, _s3 = three
    s2.execute("SET SESSION innodb_lock_wait_timeout = 10")
    s1.execute("BEGIN; UPDATE db.t SET k = k + 1 WHERE id = 1")
    s2.execute("BEGIN")
    th, out = in_thread(s2, "UPDATE db.t SET k = k * 10 WHERE id = 1")
    time.sleep(0.3)
    assert not out
    s1.execute("COMMIT")
    th.join(10)
    assert out[0][0] == 0
    s2.execute("COMMIT")
    assert s1.execute("SELECT k FROM db.t WHERE id = 1")[-1].rows == [(110,)]


def test_opposite_order_is_a_deadlock_1213(three):
    """T1 locks row 1, T2 row 2; T1 waits for row 2, then T2 asks for row 1: T2 gets 1213 and its transaction is
    rolled back, so T1 goes on and commits."""
    _srv, s1, s2, _s3 = three
    s1.execute("SET SESSION innodb_lock_wait_timeout = 10")
    s1.execute("BEGIN; UPDATE db.t SET k = 101 WHERE id = 1")
    s2.execute("BEGIN; UPDATE db.t SET k = 202 WHERE id = 2")
    th, out = in_thread(s1, "UPDATE db.t SET k = 102 WHERE id = 2")
    time.sleep(0.3)
    assert code_of(s2, "UPDATE db.t SET k = 201 WHERE id = 1") == 1213
    th.join(10)
    assert out[0][0] == 0
    assert not s2.in_transaction()  # the victim's transaction is gone
    s1.execute("COMMIT")
    assert s2.execute("SELECT id, k FROM db.t WHERE id IN (1, 2) ORDER BY id")[-1].rows == [
        (1, 101),
        (2, 102),
    ]


def test_a_holder_of_the_write_lock_does_not_wait_for_row_locks(three):
    """A transaction that holds the engine write lock (its queue was applied by a SELECT of the table) and then
    needs a row another transaction locked gets 1213 at once: the other one needs the write lock to commit."""
    _srv, s1, s2, _s3 = three
    s1.execute("BEGIN; UPDATE db.t SET k = 1 WHERE id = 1")
    s2.execute("BEGIN; UPDATE db.t SET k = 2 WHERE id = 2; SELECT * FROM db.t")
    assert s2.holds_write_lock
    started = time.monotonic()
    assert code_of(s2, "UPDATE db.t SET k = 2 WHERE id = 1") == 1213
    assert time.monotonic() - started < 0.5
    s1.execute("COMMIT")  # not stalled: s2's transaction was rolled back


def test_rollback_drops_the_queue_and_the_locks(three):
    _srv, s1, s2, _s3 = three
    s1.execute("BEGIN; UPDATE db.t SET k = 1 WHERE id = 1; DELETE FROM db.t WHERE id = 2; ROLLBACK")
    assert not s1.deferred
    s2.execute("BEGIN; UPDATE db.t SET k = 5 WHERE id = 1; UPDATE db.t SET k = 6 WHERE id = 2; COMMIT")
    assert s1.execute("SELECT id, k FROM db.t WHERE id < 3 ORDER BY id")[-1].rows == [(1, 5), (2, 6)]


def test_kill_query_ends_a_row_lock_wait(three):
    _srv, s1, s2, s3 = three
    s2.execute("SET SESSION innodb_lock_wait_timeout = 30")
    s1.execute("BEGIN; UPDATE db.t SET k = 1 WHERE id = 1")
    s2.execute("BEGIN")
    th, out = in_thread(s2, "UPDATE db.t SET k = 2 WHERE id = 1")
    time.sleep(0.3)
    s3.execute(f"KILL QUERY {s2.id}")
    th.join(10)
    assert out[0][0] == 1317 and out[0][1] < 5
    s1.execute("COMMIT")


def test_the_option_is_a_read_only_startup_variable(open_server):
    srv = open_server(**ON)
    s = srv.session()
    assert s.execute("SELECT @@GLOBAL.gtidkit_row_locks")[-1].rows == [(1,)]
    assert code_of(s, "SET GLOBAL gtidkit_row_locks = OFF") == 1238
    default = open_server(Path(srv.datadir).parent / "default", log_bin=True)
    assert default.session().execute("SELECT @@gtidkit_row_locks")[-1].rows == [(1,)]  # ON by default
    off = open_server(Path(srv.datadir).parent / "off", log_bin=True, gtidkit_row_locks=False)
    assert off.session().execute("SELECT @@gtidkit_row_locks")[-1].rows == [(0,)]


def test_the_default_defers_and_off_keeps_the_write_lock_from_the_first_write(open_server):
    """Row locks are ON by default: a transaction's UPDATE by key runs without the write lock and is queued;
    ``gtidkit_row_locks=OFF`` keeps the path before them (no lock table, the write lock from the first write)."""
    base = {k: v for k, v in ON.items() if k != "gtidkit_row_locks"}
    default = open_server(**base)
    off = open_server(Path(default.datadir).parent / "off", **base, gtidkit_row_locks=False)
    assert default.row_locks is not None and off.row_locks is None
    for srv, deferred in ((default, True), (off, False)):
        s = srv.session()
        s.execute(TABLE)
        s.execute("BEGIN; UPDATE db.t SET k = 100 WHERE id = 1")
        assert s.holds_write_lock is not deferred
        assert bool(s.deferred) is deferred
        s.execute("COMMIT")
        assert s.execute("SELECT k FROM db.t WHERE id = 1")[-1].rows == [(100,)]
        assert not s.deferred and not s.holds_write_lock


def test_a_prepared_select_sees_the_transactions_own_queued_rows(three):
    """A prepared SELECT (its short path reads the table directly) after a deferred UPDATE sees the update, as in
    MySQL a transaction reads its own changes; another session does not see it before COMMIT."""
    _srv, s1, s2, _s3 = three
    ps = s1.prepare("SELECT k FROM db.t WHERE id = ?")
    assert s1.execute_prepared(ps, [1])[-1].rows == [(10,)]
    s1.execute("BEGIN; UPDATE db.t SET k = 77 WHERE id = 1")
    assert s2.execute("SELECT k FROM db.t WHERE id = 1")[-1].rows == [(10,)]
    assert s1.execute_prepared(ps, [1])[-1].rows == [(77,)]
    s1.execute("COMMIT")
    assert s2.execute("SELECT k FROM db.t WHERE id = 1")[-1].rows == [(77,)]


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE db.t SET k = 1 WHERE k = 10",  # not by the key
        "UPDATE db.t SET id = 9 WHERE id = 1",  # assigns the key
        "DELETE FROM db.t WHERE id IN (1, 2)",  # two rows
        "INSERT INTO db.t (id, k) VALUES (8, 1), (9, 1)",  # two rows
        "INSERT INTO db.t (k) VALUES (1)",  # the key generated
        "UPDATE db.w SET v = 5 WHERE id = 1",  # a secondary UNIQUE key
        "UPDATE db.t SET k = (SELECT 5) WHERE id = 1",  # a subquery
    ],
    ids=["by-scan", "assigns-key", "two-keys", "two-rows", "generated-key", "unique-key", "subquery"],
)
def test_other_statements_take_the_write_lock_at_once(three, statement):
    """What is not provably one row by its key runs as before: the write lock from the statement on."""
    _srv, s1, _s2, _s3 = three
    s1.execute("BEGIN")
    s1.execute(statement)
    assert s1.holds_write_lock and not s1.deferred
    s1.execute("ROLLBACK")


def test_a_commit_that_cannot_get_the_write_lock_rolls_back(three):
    """The write lock is taken at COMMIT: while another transaction holds it (an immediate writer of another
    table), the COMMIT waits innodb_lock_wait_timeout and fails with 1205; the transaction is rolled back and its
    row locks are free (a documented difference: InnoDB's COMMIT does not wait for locks)."""
    _srv, s1, s2, s3 = three
    s2.execute("BEGIN; UPDATE db.t SET k = 222 WHERE id = 2")
    s1.execute("BEGIN; INSERT INTO db.w VALUES (3, 3)")  # a secondary UNIQUE key: the immediate path
    assert s1.holds_write_lock
    assert code_of(s2, "COMMIT") == 1205
    assert not s2.in_transaction() and not s2.deferred
    s3.execute("BEGIN; UPDATE db.t SET k = 333 WHERE id = 2")  # the row lock is free
    s1.execute("COMMIT")
    s3.execute("COMMIT")
    assert s1.execute("SELECT k FROM db.t WHERE id = 2")[-1].rows == [(333,)]


def test_a_long_transaction_locks_the_table_after_its_row_lock_budget(three):
    """Row locks share the page's slot table with the write lock's waiters: past MAX_ROW_LOCKS rows a transaction's
    further statements lock the table (one slot) and take the write lock, with the same results."""
    from gtidkit.engine.statements.deferred import MAX_ROW_LOCKS

    srv, s1, s2, _s3 = three
    s1.execute("BEGIN")
    for i in range(100, 100 + MAX_ROW_LOCKS):
        s1.execute(f"INSERT INTO db.t (id, k) VALUES ({i}, {i})")
    assert not s1.holds_write_lock and srv.row_locks.held_count(s1.id) == MAX_ROW_LOCKS
    s1.execute("INSERT INTO db.t (id, k) VALUES (1000, 1)")
    assert s1.holds_write_lock and srv.row_locks.held_count(s1.id) == MAX_ROW_LOCKS + 1
    assert code_of(s2, "UPDATE db.t SET k = 0 WHERE id = 1") == 1205  # the table is locked now
    s1.execute("COMMIT")
    assert s2.execute("SELECT COUNT(*) FROM db.t")[-1].rows == [(4 + MAX_ROW_LOCKS + 1,)]


#: (first row, second row, same lock key): keys are case-blind in the names, distinct per table and per key value
ROW_KEY_CASES = [
    ("same row", ("db", "t", 1), ("db", "t", 1), True),
    ("names case-blind", ("db", "t", 1), ("DB", "T", 1), True),
    ("next key", ("db", "t", 1), ("db", "t", 2), False),
    ("negative key", ("db", "t", -1), ("db", "t", 1), False),
    ("other table", ("db", "t", 1), ("db", "u", 1), False),
    ("other schema", ("db", "t", 1), ("db2", "t", 1), False),
]


@pytest.mark.parametrize(
    ("first", "second", "same"), [c[1:] for c in ROW_KEY_CASES], ids=[c[0] for c in ROW_KEY_CASES]
)
def test_row_keys(first, second, same):
    from gtidkit.engine.shared.row_locks import row_key

    assert (row_key(*first) == row_key(*second)) is same
    assert 0 < row_key(*first) < 1 << 64


def test_row_keys_of_one_table_do_not_collide():
    from gtidkit.engine.shared.row_locks import row_key

    keys = {row_key("sbtest", "sbtest1", pk) for pk in range(-5000, 200000)}
    assert len(keys) == 205000


#: (the first transaction's locking read, the second transaction's statement, does it wait)
LOCKING_READS = [
    ("for-update-row", "SELECT k FROM db.t WHERE id = 1 FOR UPDATE", "UPDATE db.t SET k = 0 WHERE id = 1", True),
    ("for-update-other-row", "SELECT k FROM db.t WHERE id = 1 FOR UPDATE", "UPDATE db.t SET k = 0 WHERE id = 2", False),
    ("for-share-row", "SELECT k FROM db.t WHERE id = 1 FOR SHARE", "DELETE FROM db.t WHERE id = 1", True),
    ("lock-in-share-mode", "SELECT k FROM db.t WHERE id = 1 LOCK IN SHARE MODE", "UPDATE db.t SET k = 0 WHERE id = 1", True),
    ("for-update-by-scan", "SELECT k FROM db.t WHERE k > 15 FOR UPDATE", "UPDATE db.t SET k = 0 WHERE id = 4", True),
    ("for-update-other-table", "SELECT k FROM db.t WHERE id = 1 FOR UPDATE", "UPDATE db.u SET m = 2 WHERE id = 1", False),
    ("plain-select", "SELECT k FROM db.t WHERE id = 1", "UPDATE db.t SET k = 0 WHERE id = 1", False),
]  # fmt: skip


@pytest.mark.parametrize(
    ("read", "write", "waits"), [c[1:] for c in LOCKING_READS], ids=[c[0] for c in LOCKING_READS]
)
def test_a_locking_read_locks_what_it_reads(three, read, write, waits):
    """RM8 "Locking Reads": SELECT ... FOR UPDATE / FOR SHARE in a transaction sets locks on the rows it reads, so
    another transaction's write of them waits (1205 after innodb_lock_wait_timeout) until it ends; a plain
    SELECT (a consistent read) sets none. By the primary key: that row only; otherwise the table."""
    _srv, s1, s2, _s3 = three
    s1.execute(f"BEGIN; {read}")
    s2.execute("BEGIN")
    started = time.monotonic()
    assert code_of(s2, write) == (1205 if waits else 0)
    assert (time.monotonic() - started > 0.9) is waits
    s2.execute("ROLLBACK")
    s1.execute("COMMIT")
    s2.execute(f"BEGIN; {write}; COMMIT")  # the lock went with the transaction


def test_a_locking_read_waits_for_the_rows_writer_and_reads_its_commit(three):
    """A locking read of a row another transaction wrote waits for it and then reads the committed row (a
    locking read reads the latest version, not a snapshot)."""
    _srv, s1, s2, _s3 = three
    s2.execute("SET SESSION innodb_lock_wait_timeout = 10")
    s1.execute("BEGIN; UPDATE db.t SET k = 77 WHERE id = 1")
    s2.execute("BEGIN")
    th, out = in_thread(s2, "SELECT k FROM db.t WHERE id = 1 FOR UPDATE")
    time.sleep(0.3)
    assert not out
    s1.execute("COMMIT")
    th.join(10)
    assert out[0][0] == 0
    assert s2.execute("SELECT k FROM db.t WHERE id = 1")[-1].rows == [(77,)]
    s2.execute("COMMIT")


def test_autocommitted_locking_reads_keep_no_lock(three):
    _srv, s1, s2, _s3 = three
    s1.execute("SELECT k FROM db.t WHERE id = 1 FOR UPDATE")
    s2.execute("BEGIN; UPDATE db.t SET k = 3 WHERE id = 1; COMMIT")


def test_a_prepared_locking_read_locks_its_row(three):
    """The prepared SELECT's short path does not skip the locking read's row lock."""
    _srv, s1, s2, _s3 = three
    ps = s1.prepare("SELECT k FROM db.t WHERE id = ? FOR UPDATE")
    s1.execute("BEGIN")
    for _ in range(2):  # the first execution classifies the short path, the second would take it
        assert s1.execute_prepared(ps, [1])[-1].rows == [(10,)]
    s2.execute("BEGIN")
    assert code_of(s2, "UPDATE db.t SET k = 0 WHERE id = 1") == 1205
    s2.execute("ROLLBACK")
    s1.execute("COMMIT")


def test_row_lock_waits_are_listed_in_innodb_trx_and_data_lock_waits(three):
    """RM8 "Using InnoDB Transaction and Locking Information": the waiting transaction is ``LOCK WAIT`` in
    INNODB_TRX with the lock it requests, the holder ``RUNNING``; data_lock_waits pairs them."""
    _srv, s1, s2, s3 = three
    s2.execute("SET SESSION innodb_lock_wait_timeout = 10")
    s1.execute("BEGIN; UPDATE db.t SET k = 1 WHERE id = 1")
    s2.execute("BEGIN")
    th, out = in_thread(s2, "UPDATE db.t SET k = 2 WHERE id = 1")
    time.sleep(0.3)
    trx = s3.execute(
        "SELECT trx_mysql_thread_id, trx_state, trx_requested_lock_id IS NOT NULL FROM information_schema.INNODB_TRX"
        " ORDER BY 1"
    )[-1].rows
    assert trx == [(s1.id, "RUNNING", 0), (s2.id, "LOCK WAIT", 1)]
    waits = s3.execute(
        "SELECT REQUESTING_ENGINE_TRANSACTION_ID, BLOCKING_ENGINE_TRANSACTION_ID, REQUESTING_ENGINE_LOCK_ID"
        " FROM performance_schema.data_lock_waits"
    )[-1].rows
    assert [(r[0], r[1]) for r in waits] == [(s2.id, s1.id)]
    assert waits[0][2].startswith(f"{s2.id}:gtidkit:row:")
    s1.execute("COMMIT")
    th.join(10)
    assert out[0][0] == 0
    s2.execute("COMMIT")
    assert s3.execute("SELECT COUNT(*) FROM information_schema.INNODB_TRX")[-1].rows == [(0,)]


def test_a_delete_by_the_key_alone_copies_nothing_into_the_shadow(three):
    """``DELETE FROM t WHERE pk = v`` of a row the transaction has not touched: the row read from the main file is
    its before image, nothing is written into the shadow (its absence there is the row's state), and the
    transaction's next statements and the COMMIT see it deleted."""
    _srv, s1, s2, _s3 = three
    ps = s1.prepare("DELETE FROM db.t WHERE id = ?")
    s1.execute("BEGIN; UPDATE db.t SET k = 0 WHERE id = 4")  # the shadow and its transaction exist
    shadow = s1.shadow
    changes = shadow.total_changes
    assert s1.execute_prepared(ps, [1])[-1].affected_rows == 1
    assert s1.execute("DELETE FROM db.t WHERE id = 2")[-1].affected_rows == 1
    assert shadow.total_changes == changes  # before: each row copied in, then deleted there (2 changes each)
    assert s1.execute_prepared(ps, [1])[-1].affected_rows == 0
    assert s1.execute("UPDATE db.t SET k = 5 WHERE id = 2")[-1].affected_rows == 0
    assert s2.execute("SELECT id FROM db.t ORDER BY id")[-1].rows == [(1,), (2,), (3,), (4,)]
    s1.execute("COMMIT")
    assert s2.execute("SELECT id, k FROM db.t ORDER BY id")[-1].rows == [(3, 30), (4, 0)]


def test_a_failed_delete_by_the_key_alone_leaves_its_row(three, monkeypatch):
    """A DELETE by the key that fails after its row was read (here its row image fails: a fault injected into the
    image code) is undone alone, as MySQL's statement rollback: the row is still there for the transaction's
    next statements and after COMMIT."""
    from gtidkit.engine.sql import dml
    from gtidkit.mysql_errors import mysql_error

    _srv, s1, s2, _s3 = three
    s1.execute("BEGIN; UPDATE db.t SET k = 0 WHERE id = 4")
    image = dml._image

    def failing(*args, **kwargs):
        raise mysql_error(1317)

    monkeypatch.setattr(dml, "_image", failing)
    assert code_of(s1, "DELETE FROM db.t WHERE id = 1") == 1317
    monkeypatch.setattr(dml, "_image", image)
    assert s1.execute("UPDATE db.t SET k = 11 WHERE id = 1")[-1].affected_rows == 1
    s1.execute("COMMIT")
    assert s2.execute("SELECT id, k FROM db.t WHERE id = 1")[-1].rows == [(1, 11)]


def test_a_prepared_statement_templatizes_its_text_once(three):
    """Every execution of a prepared DML statement gets its text's ``templatize`` (``Statement.template``: row
    locks' target analysis reads it) made at the first one."""
    from gtidkit.engine.sql.parse import templatize
    from gtidkit.engine.statements.prepared import bound_statement

    _srv, s1, _s2, _s3 = three
    ps = s1.prepare("UPDATE db.t SET k = k + 1 WHERE id = ?")
    first, second, third, fourth = (bound_statement(ps, [i]) for i in (1, 2, 3, 4))
    assert first.template == templatize(first.text) == ("UPDATE db.t SET k = k + :gk0 WHERE id = :gp0", [1])
    assert second.template == first.template
    assert third.template is second.template and fourth.template is second.template  # made once, then shared
    assert fourth.params == {"gp0": 4}
