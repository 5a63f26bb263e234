"""binlog_expire_logs_seconds (purge at start-up and on rotation, gtid_purged follows) and binlog_error_action.

Expected values: mysql-test ``suite/binlog/r/binlog_expire_logs_seconds.result`` (mysql/mysql-server: with the
variable 0 nothing is purged on FLUSH LOGS, on a max_binlog_size rotation or at a restart; with a positive value
older files are purged at each of those), RM8 "binlog_expire_logs_seconds" (default 2592000; 0 disables),
"binlog_expire_logs_auto_purge" (default ON; OFF disables automatic purging), MySQL 8.4 having removed
expire_logs_days (so it is an unknown variable), RM8 "PURGE BINARY LOGS" / formats.md §5.5 (gtid_purged = the
Previous_gtids of the oldest remaining file), and ``suite/binlog/r/binlog_error_action.result`` (texts of 1598
for a failed flush / sync / rotation under ABORT_SERVER; under IGNORE_ERROR a failed commit still commits, later
statements work and SHOW BINARY LOGS answers "You are not using binary logging"). Disk failures are injected into
the file layer below the binlog manager, as the .test does with debug points.
"""

from __future__ import annotations

import os
import time

import pytest

from gtidkit.binlog.writer import BinlogWriter
from gtidkit.engine.binlog.log import BinlogLog
from gtidkit.errors import MySQLError
from gtidkit.gtid import GtidSet


def _err(s, sql):
    with pytest.raises(MySQLError) as exc:
        s.execute(sql)
    return exc.value.code, exc.value.message


def _age(srv, names, seconds):
    past = time.time() - seconds
    for n in names:
        os.utime(srv.datadir / n, (past, past))


def _files(s):
    return [r[0] for r in s.execute("SHOW BINARY LOGS")[-1].rows]


def _setup(srv):
    s = srv.session()
    s.execute("CREATE DATABASE d")
    s.execute("CREATE TABLE d.t1 (s LONGBLOB)")
    s.execute("FLUSH LOGS")
    s.execute("INSERT INTO d.t1 VALUES ('a')")
    s.execute("FLUSH LOGS")
    return s


def test_defaults_and_removed_alias(open_server):
    srv = open_server(log_bin=True)
    s = srv.session()
    assert s.execute("SELECT @@GLOBAL.binlog_expire_logs_seconds, @@GLOBAL.binlog_expire_logs_auto_purge")[
        -1
    ].rows == [(2592000, 1)]
    assert s.execute("SELECT @@GLOBAL.binlog_error_action")[-1].rows == [("ABORT_SERVER",)]
    assert _err(s, "SET GLOBAL expire_logs_days = 1") == (1193, "Unknown system variable 'expire_logs_days'")
    assert _err(s, "SET GLOBAL binlog_error_action = 'FOO'")[0] == 1231


def test_zero_never_purges(open_server):
    # result case 1: binlog_expire_logs_seconds = 0 -> FLUSH LOGS, size rotation and restart purge nothing
    srv = open_server(log_bin=True)
    s = _setup(srv)
    s.execute("SET GLOBAL binlog_expire_logs_seconds = 0")
    _age(srv, _files(s), 10 * 86400)
    s.execute("FLUSH LOGS")
    assert _files(s) == ["binlog.000001", "binlog.000002", "binlog.000003", "binlog.000004"]
    s.execute("SET GLOBAL max_binlog_size = 4096")
    s.execute("INSERT INTO d.t1 VALUES (REPEAT('s', 50000))")
    assert len(_files(s)) == 5
    srv.shutdown()
    srv2 = open_server(log_bin=True, binlog_expire_logs_seconds=0)
    assert len(_files(srv2.session())) == 6


@pytest.mark.parametrize("trigger", ["flush_logs", "size_rotation", "restart"])
def test_expired_files_are_purged_and_gtid_purged_follows(open_server, trigger):
    srv = open_server(log_bin=True)
    s = _setup(srv)
    uuid = str(srv.server_uuid)
    assert _files(s) == ["binlog.000001", "binlog.000002", "binlog.000003"]
    s.execute("SET GLOBAL binlog_expire_logs_seconds = 3600")
    _age(srv, ["binlog.000001", "binlog.000002"], 7200)  # older than an hour; binlog.000003 is fresh
    if trigger == "flush_logs":
        s.execute("FLUSH LOGS")
    elif trigger == "size_rotation":
        s.execute("SET GLOBAL max_binlog_size = 4096")
        s.execute("INSERT INTO d.t1 VALUES (REPEAT('s', 50000))")
    else:
        srv.shutdown()
        srv = open_server(log_bin=True, binlog_expire_logs_seconds=3600)
        s = srv.session()
    files = _files(s)
    assert files[0] == "binlog.000003" and "binlog.000001" not in files
    # the purged files held GTIDs 1-3 (CREATE DATABASE, CREATE TABLE, INSERT): they are gtid_purged now
    assert s.execute("SELECT @@GLOBAL.gtid_purged")[-1].rows == [(f"{uuid}:1-3",)]
    assert GtidSet.parse(f"{uuid}:1-3") <= srv.gtid_state.executed()


def test_auto_purge_off_keeps_files(open_server):
    srv = open_server(log_bin=True)
    s = _setup(srv)
    s.execute("SET GLOBAL binlog_expire_logs_seconds = 60, GLOBAL binlog_expire_logs_auto_purge = OFF")
    _age(srv, _files(s), 3600)
    s.execute("FLUSH LOGS")
    assert len(_files(s)) == 4
    s.execute("SET GLOBAL binlog_expire_logs_auto_purge = ON")
    s.execute("FLUSH LOGS")
    # binlog.000003 was written (its Rotate event) at the last FLUSH: its mtime is fresh, as in MySQL
    assert _files(s) == ["binlog.000003", "binlog.000004", "binlog.000005"]


def _fail_write(monkeypatch):
    def boom(self, *a, **k):
        raise OSError(28, "No space left on device", str(self.path) if hasattr(self, "path") else "binlog")

    # the flush stage: the transaction's framed bytes handed to the OS (BinlogLog.write_transaction)
    monkeypatch.setattr(BinlogWriter, "write_raw", boom)


FLUSH_ABORT = (
    "Binary logging not possible. Message: An error occurred during flush stage of the commit. "
    "'binlog_error_action' is set to 'ABORT_SERVER'. Server is being stopped."
)


def test_abort_server_on_flush_error(open_server, tmp_path, monkeypatch):
    # result Test case11: INSERT -> 1598 flush stage text; "Count of elements in t1 should be 0"
    datadir = tmp_path / "abort"
    srv = open_server(datadir, log_bin=True)
    s = srv.session()
    s.execute("CREATE DATABASE d")
    s.execute("CREATE TABLE d.t1 (i INT)")
    executed = srv.gtid_state.executed()
    with monkeypatch.context() as m:
        _fail_write(m)
        assert _err(s, "INSERT INTO d.t1 VALUES (1)") == (1598, FLUSH_ABORT)
    assert srv.crashed
    assert _err(s, "SELECT 1")[0] == 2013  # the server is gone
    srv.shutdown()
    again = open_server(datadir, log_bin=True)
    s2 = again.session()
    assert s2.execute("SELECT count(*) FROM d.t1")[-1].rows == [(0,)]
    assert again.gtid_state.executed() == executed


def test_abort_server_on_sync_error(open_server, tmp_path, monkeypatch):
    # result Test case12: sync_binlog=1, the sync stage's fsync fails -> 1598 "... during sync stage of the
    # commit ...". The sync stage is the WAL fsync that makes the transaction and its commit-log row durable (the
    # binlog file's own fsync runs in batches, engine/binlog/commit_log.py); the transaction had reached the binary
    # log and the engine, so it is there after the restart (MySQL: prepared in InnoDB and in the binlog -> committed)
    from gtidkit.engine.storage import Connection

    datadir = tmp_path / "sync"
    srv = open_server(datadir, log_bin=True, sync_binlog=1)
    s = srv.session()
    s.execute("CREATE DATABASE d")

    def sync_wal(self):
        raise OSError(5, "Input/output error")

    with monkeypatch.context() as m:
        m.setattr(Connection, "sync_wal", sync_wal)
        code, msg = _err(s, "CREATE TABLE d.t1 (i INT)")
    assert code == 1598 and "during sync stage of the commit" in msg and "'ABORT_SERVER'" in msg
    assert srv.crashed and _err(s, "SELECT 1")[0] == 2013
    srv.shutdown()
    again = open_server(datadir, log_bin=True)
    assert again.session().execute("SHOW TABLES FROM d")[-1].rows == [("t1",)]


def test_binlog_fsync_error_is_the_sync_stage(open_server, monkeypatch):
    # sync_binlog=N: the binlog file is fsynced every N transactions, before that transaction's COMMIT
    srv = open_server(log_bin=True, sync_binlog=2)
    s = srv.session()
    real_flush = BinlogWriter.flush

    def flush(self, fsync=False):
        if fsync:
            raise OSError(5, "Input/output error")
        real_flush(self, fsync=False)

    s.execute("CREATE DATABASE d")  # 1 transaction: no fsync due
    monkeypatch.setattr(BinlogWriter, "flush", flush)
    code, msg = _err(s, "CREATE TABLE d.t1 (i INT)")
    assert code == 1598 and "during sync stage of the commit" in msg


def test_ignore_error_on_flush_turns_binlog_off(open_server, tmp_path, monkeypatch):
    # result Test case11 (IGNORE_ERROR half): INSERT succeeds, count 1, not binlogged; Test case09: SHOW BINARY
    # LOGS -> ERROR HY000: You are not using binary logging
    datadir = tmp_path / "ignore"
    srv = open_server(datadir, log_bin=True)
    s = srv.session()
    s.execute("CREATE DATABASE d")
    s.execute("CREATE TABLE d.t1 (i INT)")
    s.execute("SET GLOBAL binlog_error_action = IGNORE_ERROR")
    uuid = str(srv.server_uuid)
    with monkeypatch.context() as m:
        _fail_write(m)
        res = s.execute("INSERT INTO d.t1 VALUES (2)")[-1]
    assert res.affected_rows == 1
    assert s.execute("SELECT count(*) FROM d.t1")[-1].rows == [(1,)]
    assert _err(s, "SHOW BINARY LOGS") == (1381, "You are not using binary logging")
    assert s.execute("SELECT @@GLOBAL.log_bin")[-1].rows == [(1,)]  # the variable still says ON
    s.execute("CREATE TABLE d.t2 (f INT)")  # the server goes on
    # the GTID of the transaction that could not be binlogged is kept (in mysql.gtid_executed)
    assert GtidSet.parse(f"{uuid}:1-3") <= srv.gtid_state.executed()
    srv.shutdown()
    again = open_server(datadir, log_bin=True)
    s2 = again.session()
    assert s2.execute("SELECT count(*) FROM d.t1")[-1].rows == [(1,)]
    assert GtidSet.parse(f"{uuid}:1-3") <= again.gtid_state.executed()


def test_rotation_errors(open_server, monkeypatch):
    # result Test case7: IGNORE_ERROR + disk full while writing the index -> the OS error, then no binlog;
    # Test case1: ABORT_SERVER -> "... while rotating the binlog. Aborting the server"
    def full(self):
        raise OSError(28, "No space left on device", str(self.datadir / "binlog.index_crash_safe"))

    srv = open_server(log_bin=True)
    s = srv.session()
    s.execute("SET GLOBAL binlog_error_action = IGNORE_ERROR")
    with monkeypatch.context() as m:
        m.setattr(BinlogLog, "_write_index", full)
        assert _err(s, "FLUSH LOGS") == (
            3,
            "Error writing file 'binlog.index_crash_safe' (OS errno 28 - No space left on device)",
        )
    s.execute("CREATE DATABASE d")
    assert _err(s, "SHOW BINARY LOGS")[0] == 1381
    srv.shutdown()

    srv = open_server(srv.datadir.parent / "abort2", log_bin=True)
    s = srv.session()
    with monkeypatch.context() as m:
        m.setattr(BinlogLog, "_write_index", full)
        assert _err(s, "FLUSH LOGS") == (
            1598,
            (
                "Binary logging not possible. Message: Error writing file 'binlog.index_crash_safe' (OS errno 28 - "
                "No space left on device), while rotating the binlog. Aborting the server"
            ),
        )
    assert _err(s, "SELECT 1")[0] == 2013
