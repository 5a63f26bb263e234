"""When a worker catches up with the other processes (issue 21 step 6, docs/design/multi_worker.md "Step 6 as built:
GTID ownership, waits, trackers"), and the commit log's rows for GTIDs committed without the binary log.

A primary (``shared=True``) and a worker-role engine opened in this process on one datadir (as bench_follow.py:
the worker's catch-up reads the same SQLite rows a worker process would; each engine has its own connections,
page mapping and write-lock descriptor), so the follower's catch-up count can be read. MySQL is the oracle for
what each statement shows: every read of GTID state sees every acknowledged commit of the server (one
``gtid_executed``), a table created by another session exists for the next statement, and a GTID committed with
``sql_log_bin=0`` is in gtid_executed and gtid_purged (RM8 "gtid_purged").
"""

from __future__ import annotations

import pytest

from gtidkit.binlog.file import read_transactions
from gtidkit.engine.server import Server

OPTS = {"log_bin": True, "gtid_mode": "ON", "enforce_gtid_consistency": "ON", "server_id": 1}
SOURCE = "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa"


@pytest.fixture
def pair(open_server):
    """(primary, worker, primary session, worker session) with d.t holding ids 1..3."""
    primary = open_server(shared=True, **OPTS)
    worker = Server.open(primary.datadir, role="worker", **OPTS)
    try:
        p, w = primary.session(), worker.session()
        p.execute("CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY, v INT)")
        p.execute("INSERT INTO d.t VALUES (1, 0), (2, 0), (3, 0)")
        w.execute("SELECT @@GLOBAL.gtid_executed")  # caught up once
        yield primary, worker, p, w
    finally:
        worker.shutdown()


def test_a_select_after_a_foreign_commit_reads_fresh_rows_without_catching_up(pair) -> None:
    _primary, worker, p, w = pair
    follower = worker.follower
    assert follower is not None
    before = follower.catch_ups
    for i in range(1, 4):
        p.execute(f"UPDATE d.t SET v = {i} WHERE id = 1")
        assert w.execute("SELECT v FROM d.t WHERE id = 1")[-1].rows == [(i,)]
    assert follower.catch_ups == before  # no commit-log read for an innocent statement
    assert follower.stale()


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT @@GLOBAL.gtid_executed",
        "SHOW GLOBAL VARIABLES LIKE 'gtid_executed'",
        "SELECT VARIABLE_VALUE FROM performance_schema.global_variables WHERE VARIABLE_NAME = 'gtid_executed'",
        "SHOW MASTER STATUS",
    ],
    ids=["sysvar", "show-variables", "performance-schema", "show-master-status"],
)
def test_every_read_of_gtid_state_catches_up(pair, sql: str) -> None:
    primary, _worker, p, w = pair
    p.execute("UPDATE d.t SET v = 9 WHERE id = 2")
    expected = primary.gtid_state.executed().to_text()
    rows = w.execute(sql)[-1].rows
    assert any(str(v).replace("\n", "") == expected.replace("\n", "") for v in rows[0]), (rows, expected)


@pytest.mark.parametrize(
    ("ddl", "then"),
    [
        ("CREATE TABLE d.t2 (id INT PRIMARY KEY)", "SELECT COUNT(*) FROM d.t2"),
        ("CREATE DATABASE d3", "USE d3"),
        ("ALTER TABLE d.t ADD COLUMN w INT", "SELECT w FROM d.t WHERE id = 1"),
    ],
    ids=["create-table", "create-database", "alter-table"],
)
def test_foreign_ddl_is_seen_by_the_next_innocent_statement(pair, ddl: str, then: str) -> None:
    _primary, _worker, p, w = pair
    p.execute(ddl)
    w.execute(
        then
    )  # no 1146 / 1049 / 1054: the catalog_generation counter moved, the worker re-read its catalog


def test_foreign_ddl_without_a_commit_log_row_is_seen(pair) -> None:
    """An anonymous transaction with the binary log off for the session writes no commit-log row: the catalog
    counter alone makes the worker re-read its catalog."""
    _primary, _worker, p, w = pair
    p.execute("SET sql_log_bin = 0")
    p.execute("CREATE TABLE d.quiet (id INT PRIMARY KEY)")
    w.execute("SELECT COUNT(*) FROM d.quiet")


def test_lost_gtid_rows_reach_the_worker_and_recovery_ignores_them(pair, open_server) -> None:
    primary, worker, p, w = pair
    p.execute("SET sql_log_bin = 0")
    p.execute(f"SET gtid_next = '{SOURCE}:5'")
    p.execute("INSERT INTO d.t VALUES (5, 5)")
    p.execute("SET gtid_next = AUTOMATIC")
    executed = w.execute("SELECT @@GLOBAL.gtid_executed")[-1].rows[0][0].replace("\n", "")
    purged = w.execute("SELECT @@GLOBAL.gtid_purged")[-1].rows[0][0]
    assert f"{SOURCE}:5" in executed and purged == f"{SOURCE}:5"
    fresh = Server.open(primary.datadir, role="worker", worker_id=2, **OPTS)  # a worker opened afterwards
    try:
        assert fresh.gtid_state.purged().to_text() == f"{SOURCE}:5"
        assert f"{SOURCE}:5" in fresh.gtid_state.executed().to_text()
    finally:
        fresh.shutdown()
    # the last commit-log row is the GTID row; a crash now, with a torn transaction after the binlog's end,
    # must still cut the binlog at the last binlogged transaction's end
    blog = primary.binlog
    path = blog.path(blog.active)
    last = read_transactions(path).transactions[-1]
    whole = path.read_bytes()
    worker.shutdown()
    primary.compressor.stop()
    blog.abandon()
    primary.storage.close()
    primary.closed = True
    with open(path, "ab") as fh:
        fh.write(whole[last.begin_pos : last.begin_pos + 90])
    again = open_server(**OPTS)
    assert path.stat().st_size == last.end_pos
    s = again.session()
    assert f"{SOURCE}:5" in s.execute("SELECT @@GLOBAL.gtid_executed")[-1].rows[0][0].replace("\n", "")
    assert s.execute("SELECT COUNT(*) FROM d.t")[-1].rows == [(4,)]


@pytest.mark.parametrize(
    ("statements", "expected"),
    [
        ("INSERT INTO d.t VALUES (10, 1)", False),
        ("UPDATE d.t SET v = v + 1 WHERE id = 1", False),
        ("BEGIN; INSERT INTO d.t VALUES (11, 1); DELETE FROM d.t WHERE id = 2; COMMIT", False),
        ("CREATE TABLE d.u (id INT PRIMARY KEY)", True),
        ("ALTER TABLE d.t ADD COLUMN w INT", True),
        ("CREATE DATABASE e", True),
        ("DROP DATABASE d", True),
        ("SET SESSION binlog_format = 'STATEMENT'; INSERT INTO d.t VALUES (12, 1)", True),
    ],
    ids=["insert", "update", "dml-trx", "create-table", "alter-table", "create-db", "drop-db", "sbr-dml"],
)
def test_catch_up_compares_the_catalog_unless_every_row_is_row_format_dml(pair, statements, expected) -> None:
    """The catch-up skips its two catalog reads only for commit-log rows of row-format DML (their Gtid event has
    MySQL's FLAG_MAY_HAVE_SBR clear); DDL and statement-format transactions make it compare (a process killed before announcing its DDL is still caught)."""
    from gtidkit.engine.follow import may_change_catalog

    _primary, worker, p, w = pair
    last = worker.follower.last_seq
    p.execute(statements)
    db = worker.storage.sqlite(w.conn)
    rows = db.execute(
        "SELECT seq, kind, sid, tag, gno, file, end_pos, substr(payload, 1, 64) FROM _gk_commit_log WHERE seq > ?"
        " ORDER BY seq",
        (last,),
    ).fetchall()
    assert rows and may_change_catalog(rows) is expected
