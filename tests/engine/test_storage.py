"""Storage: one WAL database per datadir, explicit transactions, savepoints, concurrent writers."""

from __future__ import annotations

import threading

import pytest

from gtidkit.engine.storage import DB_FILE_NAME, Storage, physical_name, quote_ident
from gtidkit.errors import MySQLError


@pytest.fixture
def storage(tmp_path):
    s = Storage.open(tmp_path)
    yield s
    s.close()


def test_open_datadir_creates_one_wal_database(tmp_path, storage):
    assert storage.path == tmp_path / DB_FILE_NAME
    conn = storage.connect()
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL: fsync of the WAL at every commit
    assert (tmp_path / (DB_FILE_NAME + "-wal")).exists()
    conn.close()


def test_synchronous_is_configurable_and_validated(tmp_path):
    s = Storage.open(tmp_path / "x.sqlite", synchronous="normal")
    assert s.connect().execute("PRAGMA synchronous").fetchone()[0] == 1
    s.close()
    with pytest.raises(ValueError):
        Storage.open(tmp_path / "y.sqlite", synchronous="sometimes")


def test_not_a_database_is_a_mysql_error(tmp_path):
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(MySQLError) as e:
        Storage.open(bad)
    assert e.value.code == 1030


def test_physical_name_and_quoting(storage):
    assert physical_name("db", "t") == "db.t"
    assert storage.physical_name("mysql", "gtid_executed") == "mysql.gtid_executed"
    assert quote_ident('a"b') == '"a""b"'


def test_user_rows_and_gtid_row_commit_or_roll_back_together(storage):
    conn = storage.connect()
    gt = quote_ident(storage.physical_name("mysql", "gtid_executed"))
    conn.execute("CREATE TABLE u (x INTEGER)")
    for finish, expected in ((conn.rollback, 0), (conn.commit, 1)):
        conn.begin()
        conn.execute("INSERT INTO u VALUES (1)")
        storage.sqlite(conn).execute(
            f"INSERT INTO {gt} VALUES ('3e11fa47-71ca-11e1-9e33-c80aa9429562', 7, 7, '')"
        )
        finish()
        other = storage.connect()
        assert other.execute("SELECT COUNT(*) FROM u").fetchone()[0] == expected
        assert other.execute(f"SELECT COUNT(*) FROM {gt}").fetchone()[0] == expected
        other.close()


def test_begin_takes_the_write_lock_immediately(storage):
    a, b = storage.connect(), storage.connect()
    storage.busy_timeout_ms = 50
    c = Storage.__new__(Storage)  # a second handle with a short timeout on the same file
    c.__dict__.update(storage.__dict__)
    c.busy_timeout_ms = 50
    quick = c.connect()
    a.begin()
    with pytest.raises(MySQLError) as e:
        quick.begin()
    assert e.value.code == 1205
    a.commit()
    quick.begin()
    quick.rollback()
    for x in (a, b, quick):
        x.close()


def test_savepoints_follow_mysql(storage):
    conn = storage.connect()
    conn.execute("CREATE TABLE s (x INTEGER)")
    conn.begin()
    conn.execute("INSERT INTO s VALUES (1)")
    conn.savepoint("a")
    conn.execute("INSERT INTO s VALUES (2)")
    conn.savepoint("b")
    conn.execute("INSERT INTO s VALUES (3)")
    conn.rollback_to_savepoint("a")  # b is gone, a stays
    assert conn.savepoints == ["a"]
    assert [r[0] for r in conn.execute("SELECT x FROM s")] == [1]
    with pytest.raises(MySQLError) as e:
        conn.release_savepoint("b")
    assert (e.value.code, e.value.sqlstate, e.value.message) == (1305, "42000", "SAVEPOINT b does not exist")
    conn.execute("INSERT INTO s VALUES (4)")
    conn.savepoint("b")
    conn.execute("INSERT INTO s VALUES (5)")
    conn.savepoint("A")  # same name (case-insensitive): the old "a" is deleted, b stays, a new one is set
    assert conn.savepoints == ["b", "A"]
    conn.execute("INSERT INTO s VALUES (6)")
    conn.rollback_to_savepoint("a")
    assert [r[0] for r in conn.execute("SELECT x FROM s ORDER BY x")] == [1, 4, 5]
    conn.rollback_to_savepoint("b")
    assert [r[0] for r in conn.execute("SELECT x FROM s ORDER BY x")] == [1, 4]
    assert conn.savepoints == ["b"]
    conn.release_savepoint("B")
    conn.commit()
    assert [r[0] for r in conn.execute("SELECT x FROM s ORDER BY x")] == [1, 4]
    with pytest.raises(RuntimeError):
        conn.savepoint("outside")


def test_eight_threads_read_modify_write_never_lose_updates(storage):
    """BEGIN IMMEDIATE serialises writers: 8 threads x 50 increments of one counter, no SQLITE_BUSY_SNAPSHOT."""
    setup = storage.connect()
    setup.execute("CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER)")
    setup.execute("INSERT INTO counter VALUES (1, 0)")
    errors: list[BaseException] = []

    def worker() -> None:
        conn = storage.connect()
        try:
            for _ in range(50):
                conn.begin()
                n = conn.execute("SELECT n FROM counter WHERE id = 1").fetchone()[0]
                conn.execute("UPDATE counter SET n = ? WHERE id = 1", (n + 1,))
                conn.commit()
        except BaseException as err:  # noqa: BLE001 - asserted below
            errors.append(err)
        finally:
            conn.close()

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    assert setup.execute("SELECT n FROM counter").fetchone()[0] == 400


def test_catalog_survives_reopen(tmp_path):
    from gtidkit.engine.sql.executor import Executor
    from gtidkit.engine.statements.classify import classify

    s = Storage.open(tmp_path)
    ex = Executor(s, s.connect())
    ex.execute(classify("CREATE DATABASE d"))
    ex.execute(classify("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))"), "d")
    ex.execute(classify("INSERT INTO t VALUES (1, 'x')"), "d")
    s.checkpoint()
    s.close()
    s2 = Storage.open(tmp_path)
    assert s2.catalog.get_table("d", "t").column("v").length == 10
    assert Executor(s2, s2.connect()).execute(classify("SELECT v FROM d.t")).rows == [("x",)]
    s2.close()


def test_deferred_sync_moves_the_wal_fsync_out_of_commit(storage, monkeypatch):
    # a binlogged transaction commits with synchronous=NORMAL and its committer fsyncs the WAL afterwards (the
    # commit path's sync stage); without sync=False the fsync follows the COMMIT at once
    import os

    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd))[1])
    conn = storage.connect()
    conn.execute('CREATE TABLE "d.t" (id INTEGER PRIMARY KEY)')
    conn.begin(defer_sync=True)
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 1
    conn.execute('INSERT INTO "d.t" VALUES (1)')
    conn.commit(sync=False)
    assert synced == []
    conn.sync_deferred()
    assert len(synced) == 1
    conn.sync_deferred()  # nothing pending any more
    assert len(synced) == 1
    conn.begin(defer_sync=True)
    conn.execute('INSERT INTO "d.t" VALUES (2)')
    conn.commit()
    assert len(synced) == 2
    conn.begin()
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # back to FULL for any other transaction
    conn.execute('INSERT INTO "d.t" VALUES (3)')
    conn.commit(sync=False)
    conn.sync_deferred()  # FULL synced inside COMMIT: nothing left to do
    assert len(synced) == 2 and conn.execute('SELECT count(*) FROM "d.t"').fetchone()[0] == 3
    conn.close()
