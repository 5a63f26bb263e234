"""Recovery paths forced deterministically: a torn binlog tail, a transaction in the binlog but not in SQLite,
and the applied-position bookkeeping across rotation and purge (the random SIGKILL test covers them by chance)."""

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


@pytest.mark.parametrize("fmt", ["ROW", "STATEMENT"])
def test_binlog_ahead_of_engine_is_reapplied(open_server, fmt):
    srv = open_server(gtid_mode="ON", log_bin=True, binlog_format=fmt)
    s = srv.session()
    s.execute("CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(10))")
    s.execute("INSERT INTO d.t VALUES (1, 'one')")
    # fault injection: the binlog write succeeds, the SQLite COMMIT fails (as if the process died right there)
    real_commit = s.conn.commit

    def failing_commit(**_kw: object) -> None:
        raise OSError("simulated crash before the engine commit")

    s.conn.commit = failing_commit
    with pytest.raises(OSError):
        s.execute("BEGIN; INSERT INTO d.t VALUES (2, 'two'); UPDATE d.t SET v='uno' WHERE id=1; COMMIT")
    s.conn.commit = real_commit
    assert s.execute("SELECT id, v FROM d.t ORDER BY id")[-1].rows == [(1, "one")]
    # like binlog_error_action=ABORT_SERVER: no more writes until a restart recovers the transaction
    with pytest.raises(MySQLError) as exc:
        s.execute("INSERT INTO d.t VALUES (3, 'three')")
    assert exc.value.code == 1598
    crash(srv)
    srv2 = open_server(gtid_mode="ON", log_bin=True, binlog_format=fmt)
    s2 = srv2.session()
    assert s2.execute("SELECT id, v FROM d.t ORDER BY id")[-1].rows == [(1, "uno"), (2, "two")]
    u = srv.server_uuid
    assert s2.execute("SELECT @@GLOBAL.gtid_executed")[-1].rows == [(f"{u}:1-4",)]
    # and it is not applied twice on the next restart
    srv2.shutdown()
    s3 = open_server(gtid_mode="ON", log_bin=True, binlog_format=fmt).session()
    assert s3.execute("SELECT COUNT(*) FROM d.t")[-1].rows == [(2,)]


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
    # sync_binlog=1: the binlog's fsync makes the transaction durable (it is re-applied from there, see above),
    # so the WAL is not fsynced as well; a session with sql_log_bin=0 keeps synchronous=FULL
    import os

    srv = open_server(gtid_mode="ON", log_bin=True, sync_binlog=1)
    s = srv.session()
    s.execute("CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY)")
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd))[1])
    s.execute("INSERT INTO d.t VALUES (1)")
    assert len(synced) == 1  # the binlog's
    assert s.conn.execute("PRAGMA synchronous").fetchone()[0] == 1
    s.execute("SET sql_log_bin = 0")
    s.execute("INSERT INTO d.t VALUES (2)")
    assert len(synced) == 1 and s.conn.execute("PRAGMA synchronous").fetchone()[0] == 2
    assert s.execute("SELECT COUNT(*) FROM d.t")[0].rows == [(2,)]
