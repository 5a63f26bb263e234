"""Recovery paths forced deterministically: a torn binlog tail, a transaction in the binlog but not in SQLite (cut),
committed transactions missing from the binlog (written back from the commit log), the commit log's trimming, a
datadir written before the commit log (re-applied), rotation and purge (the random SIGKILL test covers them by
chance)."""

from __future__ import annotations

import pytest

from gtidkit.binlog.file import read_transactions
from gtidkit.errors import MySQLError


def crash(srv) -> None:
    """Drop a server the way kill -9 would: no saves, no Stop event, file handles closed as-is."""
    srv.compressor.stop()
    if srv.binlog is not None:
        srv.binlog.abandon()
    srv.storage.close()
    srv.closed = True


def as_binlog_first_datadir(datadir, applied) -> None:
    """Turn a crashed datadir into one written by the binlog-first order (before the commit log): no
    ``_gk_commit_log`` table, the engine's applied binlog position recorded in ``_gk_binlog_applied``. Recovery of
    such a datadir re-applies every binlog transaction past ``applied`` (a LogPosition) instead of cutting it."""
    import sqlite3

    db = sqlite3.connect(datadir / "gtidkit.sqlite")
    db.execute("DROP TABLE _gk_commit_log")
    db.execute("DELETE FROM _gk_binlog_applied")
    db.execute("INSERT INTO _gk_binlog_applied VALUES (1, ?, ?)", (applied.file, applied.pos))
    db.commit()
    db.close()


@pytest.mark.parametrize("fmt", ["ROW", "STATEMENT"])
def test_binlog_ahead_of_engine_is_cut(open_server, fmt):
    # the binlog bytes are written before the SQLite COMMIT; a transaction whose COMMIT never happened has no
    # commit-log row, was never acknowledged, and recovery removes its bytes (MySQL: a transaction that did not
    # reach the engine's prepare is rolled back and truncated from the binlog by Binlog_recovery)
    srv = open_server(gtid_mode="ON", log_bin=True, binlog_format=fmt)
    s = srv.session()
    s.execute("CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(10))")
    s.execute("INSERT INTO d.t VALUES (1, 'one')")
    path = srv.binlog.path(srv.binlog.active)
    committed_end = path.stat().st_size
    # fault injection: the binlog write succeeds, the SQLite COMMIT fails (as if the process died right there)
    real_commit = s.conn.commit

    def failing_commit(**_kw: object) -> None:
        raise OSError("simulated crash before the engine commit")

    s.conn.commit = failing_commit
    with pytest.raises(OSError):
        s.execute("BEGIN; INSERT INTO d.t VALUES (2, 'two'); UPDATE d.t SET v='uno' WHERE id=1; COMMIT")
    s.conn.commit = real_commit
    assert path.stat().st_size > committed_end  # the bytes are in the file (not published to readers)
    assert srv.binlog.end_position().pos == committed_end
    assert s.execute("SELECT id, v FROM d.t ORDER BY id")[-1].rows == [(1, "one")]
    # like binlog_error_action=ABORT_SERVER: no more writes until a restart cuts the uncommitted bytes
    with pytest.raises(MySQLError) as exc:
        s.execute("INSERT INTO d.t VALUES (3, 'three')")
    assert exc.value.code == 1598
    crash(srv)
    srv2 = open_server(gtid_mode="ON", log_bin=True, binlog_format=fmt)
    assert path.stat().st_size == committed_end
    s2 = srv2.session()
    assert s2.execute("SELECT id, v FROM d.t ORDER BY id")[-1].rows == [(1, "one")]
    u = srv.server_uuid
    assert s2.execute("SELECT @@GLOBAL.gtid_executed")[-1].rows == [(f"{u}:1-3",)]
    s2.execute("INSERT INTO d.t VALUES (2, 'two')")  # the GNO never committed is handed out again
    assert s2.execute("SELECT @@GLOBAL.gtid_executed")[-1].rows == [(f"{u}:1-4",)]


def _binlog_bytes(srv) -> dict[str, bytes]:
    return {name: srv.binlog.path(name).read_bytes() for name in srv.binlog.existing_files()}


@pytest.mark.parametrize(
    ("fmt", "cut"),
    [
        pytest.param("ROW", "last", id="row-lost-last"),
        pytest.param("ROW", "torn", id="row-torn-middle"),
        pytest.param("STATEMENT", "all", id="statement-lost-all"),
        pytest.param("ROW", "compressed", id="row-compressed-lost-all"),
    ],
)
def test_engine_ahead_of_binlog_is_completed_from_the_commit_log(open_server, fmt, cut):
    # a power loss may take binlog bytes that were never fsynced (the file is fsynced in batches) while the WAL
    # fsync kept the transactions: recovery writes the commit log's rows back, byte for byte
    srv = open_server(gtid_mode="ON", log_bin=True, binlog_format=fmt)
    s = srv.session()
    if cut == "compressed":
        s.execute("SET binlog_transaction_compression = ON")
    s.execute("CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(10))")
    for i in range(1, 6):
        s.execute(f"INSERT INTO d.t VALUES ({i}, 'v{i}')")
    name = srv.binlog.active
    path = srv.binlog.path(name)
    tx = read_transactions(path).transactions
    crash(srv)
    before = path.read_bytes()
    keep = {
        "last": tx[-1].begin_pos,
        "torn": tx[3].begin_pos + 30,
        "all": tx[0].begin_pos,
        "compressed": tx[0].begin_pos,
    }[cut]
    with open(path, "r+b") as fh:
        fh.truncate(keep)
    srv2 = open_server(gtid_mode="ON", log_bin=True, binlog_format=fmt)
    assert path.read_bytes() == before  # the same bytes as written at commit time (the new file aside)
    u = srv.server_uuid
    s2 = srv2.session()
    assert s2.execute("SELECT @@GLOBAL.gtid_executed")[-1].rows == [(f"{u}:1-7",)]
    assert s2.execute("SELECT COUNT(*) FROM d.t")[-1].rows == [(5,)]


def test_commit_log_is_trimmed_after_each_binlog_fsync(open_server):
    from gtidkit.engine.binlog import commit_log

    srv = open_server(gtid_mode="ON", log_bin=True, sync_binlog=4)
    s = srv.session()
    s.execute("CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY)")

    def kinds() -> list[str]:
        return srv.read_txn(lambda db: [r.kind for r in commit_log.rows(db)])

    assert kinds() == ["file", "transaction", "transaction"]
    for i in range(1, 12):
        s.execute(f"INSERT INTO d.t VALUES ({i})")
        assert 1 <= len(kinds()) <= 4  # never more than sync_binlog rows: each binlog fsync trims
    s.execute("FLUSH BINARY LOGS")  # the closed file is fsynced whole: only the new file's mark is left
    assert kinds() == ["file"]


def test_legacy_datadir_is_reapplied_once(open_server, tmp_path):
    # a datadir written binlog-first (no commit log, the engine's applied binlog position in _gk_binlog_applied)
    # whose engine lacks its last binlog transaction: recovery re-applies it, then the commit log takes over
    import sqlite3

    datadir = tmp_path / "legacy"
    srv = open_server(
        datadir, gtid_mode="ON", log_bin=True, gtidkit_file_per_schema=False
    )  # edits gtidkit.sqlite
    s = srv.session()
    s.execute("CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY)")
    s.execute("INSERT INTO d.t VALUES (1)")
    applied = srv.binlog.position
    s.execute("INSERT INTO d.t VALUES (2)")
    u = srv.server_uuid
    crash(srv)
    db = sqlite3.connect(datadir / "gtidkit.sqlite")
    db.execute("DROP TABLE _gk_commit_log")
    db.execute("DELETE FROM `d.t` WHERE id = 2")
    db.execute("DELETE FROM `mysql.gtid_executed` WHERE interval_start = 4")
    db.execute("UPDATE `mysql.gtid_executed` SET interval_end = 3 WHERE interval_end = 4")
    db.execute("DELETE FROM _gk_binlog_applied")
    db.execute("INSERT INTO _gk_binlog_applied VALUES (1, ?, ?)", (applied.file, applied.pos))
    db.commit()
    db.close()
    srv2 = open_server(datadir, gtid_mode="ON", log_bin=True)
    s2 = srv2.session()
    assert s2.execute("SELECT id FROM d.t ORDER BY id")[-1].rows == [(1,), (2,)]
    assert s2.execute("SELECT @@GLOBAL.gtid_executed")[-1].rows == [(f"{u}:1-4",)]
    s2.execute("INSERT INTO d.t VALUES (3)")
    srv2.shutdown()
    s3 = open_server(datadir, gtid_mode="ON", log_bin=True).session()  # not re-applied a second time
    assert s3.execute("SELECT id FROM d.t ORDER BY id")[-1].rows == [(1,), (2,), (3,)]


def test_torn_tail_is_truncated(open_server):
    srv = open_server(gtid_mode="ON", log_bin=True)
    s = srv.session()
    s.execute("CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY)")
    s.execute("INSERT INTO d.t VALUES (1)")
    path = srv.binlog.path(srv.binlog.active)
    whole = path.read_bytes()
    last = read_transactions(path).transactions[-1]
    crash(srv)
    # a partly written next transaction: the first bytes of a copy of the last one
    with open(path, "ab") as fh:
        fh.write(whole[last.begin_pos : last.begin_pos + 90])
    srv2 = open_server(gtid_mode="ON", log_bin=True)
    assert path.stat().st_size == last.end_pos
    s2 = srv2.session()
    u = srv.server_uuid
    assert s2.execute("SELECT @@GLOBAL.gtid_executed")[-1].rows == [(f"{u}:1-3",)]
    assert s2.execute("SELECT COUNT(*) FROM d.t")[-1].rows == [(1,)]


def test_position_survives_rotation_and_purge(open_server):
    srv = open_server(gtid_mode="ON", log_bin=True)
    s = srv.session()
    s.execute("CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY)")
    s.execute("INSERT INTO d.t VALUES (1)")
    s.execute("FLUSH LOGS")
    s.execute("INSERT INTO d.t VALUES (2)")
    s.execute("FLUSH LOGS")
    s.execute("PURGE BINARY LOGS TO 'binlog.000003'")
    crash(srv)
    s2 = open_server(gtid_mode="ON", log_bin=True).session()
    assert s2.execute("SELECT id FROM d.t ORDER BY id")[-1].rows == [(1,), (2,)]
    u = srv.server_uuid
    assert s2.execute("SELECT @@GLOBAL.gtid_executed, @@GLOBAL.gtid_purged")[-1].rows == [
        (f"{u}:1-4", f"{u}:1-4")
    ]


def test_binlog_off_crash_keeps_table_and_data_together(open_server):
    srv = open_server(gtid_mode="ON", log_bin=False)
    s = srv.session()
    src = "3e11fa47-71ca-11e1-9e33-c80aa9429562"
    s.execute(f"SET gtid_next='{src}:1'")
    s.execute("CREATE DATABASE d")
    s.execute(f"SET gtid_next='{src}:2'")
    real_commit = s.conn.commit
    s.conn.commit = lambda **_kw: (_ for _ in ()).throw(OSError("crash"))
    with pytest.raises(OSError):
        s.execute("CREATE TABLE d.t (id INT)")
    s.conn.commit = real_commit
    crash(srv)
    s2 = open_server(gtid_mode="ON", log_bin=False).session()
    assert s2.execute("SELECT @@GLOBAL.gtid_executed")[-1].rows == [(f"{src}:1",)]
    assert s2.execute(
        "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA='d' AND TABLE_NAME='t'"
    )[-1].rows == [(0,)]


def test_one_fsync_per_binlogged_commit(open_server, monkeypatch):
    # sync_binlog=1: the WAL fsync makes the transaction durable with its commit-log row (the binlog file is
    # completed from there, see above), so the binlog file is not fsynced at each commit; the commit path runs
    # that fsync itself after the COMMIT (synchronous=NORMAL); a session with sql_log_bin=0 keeps synchronous=FULL
    import os

    srv = open_server(gtid_mode="ON", log_bin=True, sync_binlog=1, gtidkit_file_per_schema=False)  # one WAL
    s = srv.session()
    s.execute("CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY)")
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd))[1])
    s.execute("INSERT INTO d.t VALUES (1)")
    assert len(synced) == 1  # the WAL's
    assert s.conn.execute("PRAGMA synchronous").fetchone()[0] == 1
    s.execute("SET sql_log_bin = 0")
    s.execute("INSERT INTO d.t VALUES (2)")
    assert len(synced) == 1 and s.conn.execute("PRAGMA synchronous").fetchone()[0] == 2
    assert s.execute("SELECT COUNT(*) FROM d.t")[0].rows == [(2,)]


def test_binlog_the_commit_log_cannot_complete_is_refused(open_server, tmp_path):
    # a gap between the file's end and the next row (a binlog from another backup than the engine database):
    # the server does not start, and says why and what to do
    import sqlite3

    datadir = tmp_path / "gap"
    srv = open_server(datadir, gtid_mode="ON", log_bin=True)
    s = srv.session()
    s.execute("CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY)")
    for i in range(1, 4):
        s.execute(f"INSERT INTO d.t VALUES ({i})")
    path = srv.binlog.path(srv.binlog.active)
    tx = read_transactions(path).transactions
    crash(srv)
    with open(path, "r+b") as fh:
        fh.truncate(tx[2].begin_pos)
    db = sqlite3.connect(datadir / "gtidkit.sqlite")
    db.execute("DELETE FROM _gk_commit_log WHERE start_pos = ?", (tx[2].begin_pos,))
    db.commit()
    db.close()
    with pytest.raises(MySQLError) as exc:
        open_server(datadir, gtid_mode="ON", log_bin=True)
    assert exc.value.code == 1105
    assert f"binary log {path.name} ends at {tx[2].begin_pos}, but the commit log" in exc.value.message
    assert f"at offsets {tx[3].begin_pos} to {tx[3].end_pos} of it" in exc.value.message
    assert "To fix: restore the data directory from a backup." in exc.value.message
