"""The WL#6559 write matrix: which configuration writes what into mysql.gtid_executed and the binlog."""

from __future__ import annotations

from types import SimpleNamespace

from gtidkit.binlog.file import read_transactions


def _table(s):
    return s.execute(
        "SELECT source_uuid, interval_start, interval_end FROM mysql.gtid_executed ORDER BY interval_start"
    )[-1].rows


def _binlog_gtids(srv):
    out = []
    for name in srv.binlog.existing_files():
        out += [
            str(t.gtid) if t.gtid else None for t in read_transactions(srv.binlog.path(name)).transactions
        ]
    return out


def test_binlog_off_row_per_transaction(open_server):
    srv = open_server(gtid_mode="ON", log_bin=False, gtid_executed_compression_period=0)
    s = srv.session()
    u = str(srv.server_uuid)
    for i in range(1, 4):
        s.execute(f"SET gtid_next='{u}:{i}'")
        s.execute(f"CREATE DATABASE d{i}")
        assert _table(s)[-1] == (u, i, i)
    assert len(_table(s)) == 3
    # binlog off: gtid_purged == gtid_executed
    assert s.execute("SELECT @@GLOBAL.gtid_executed = @@GLOBAL.gtid_purged")[-1].rows == [(1,)]
    assert srv.binlog is None
    assert not (srv.datadir / "binlog.index").exists()


def test_binlog_off_automatic_gets_no_gtid(open_server):
    # formats.md §8.2: with the binary log off, AUTOMATIC transactions are anonymous
    srv = open_server(gtid_mode="ON", log_bin=False)
    s = srv.session()
    s.execute("CREATE DATABASE auto")
    assert s.execute("SELECT @@GLOBAL.gtid_executed")[-1].rows == [("",)]
    assert _table(s) == []


def test_binlog_on_with_replica_updates_saves_on_rotation(open_server):
    # WL#6559 as 5.7 ships it (8.0.17+ also writes each GTID at commit: test_server_version.py)
    srv = open_server(gtid_mode="ON", log_bin=True, log_slave_updates=True, server_version="5.7")
    s = srv.session()
    u = str(srv.server_uuid)
    s.execute("CREATE DATABASE a")
    s.execute(f"SET gtid_next='{srv.server_uuid}:2'")
    s.execute("CREATE DATABASE b")
    s.execute("SET gtid_next=AUTOMATIC")
    assert _table(s) == []
    assert _binlog_gtids(srv) == [f"{u}:1", f"{u}:2"]
    s.execute("FLUSH LOGS")
    srv.compressor.wait_idle()
    assert _table(s) == [(u, 1, 2)]
    s.execute("FLUSH BINARY LOGS")  # no new GTIDs: no new row
    assert _table(s) == [(u, 1, 2)]


def test_shutdown_saves_last_binlog(open_server, tmp_path):
    srv = open_server(gtid_mode="ON", log_bin=True)
    s = srv.session()
    s.execute("CREATE DATABASE a")
    s.execute("CREATE DATABASE b")
    srv.shutdown()
    srv2 = open_server(gtid_mode="ON", log_bin=True)
    s2 = srv2.session()
    u = str(srv.server_uuid)
    assert _table(s2) == [(u, 1, 2)]
    assert s2.execute("SELECT @@GLOBAL.gtid_executed")[-1].rows == [(f"{u}:1-2",)]


def test_binlog_on_without_replica_updates_applier(open_server):
    # handler.cc commit_owned_gtids: "!opt_bin_log || (thd->slave_thread && !opt_log_replica_updates)" -> the
    # replica applier's GTID goes into mysql.gtid_executed per transaction and into gtid_purged, not the binlog
    # 5.7: the client transaction reaches the table at rotation only (8.0.17+: at commit as well)
    srv = open_server(gtid_mode="ON", log_bin=True, log_slave_updates=False, server_version="5.7")
    applier = srv.session()
    applier.applier = SimpleNamespace(original_commit_timestamp=None, server_id=None)  # the applier thread
    s = srv.session()
    src = "3e11fa47-71ca-11e1-9e33-c80aa9429562"
    u = str(srv.server_uuid)
    applier.execute(f"SET gtid_next='{src}:1'")
    applier.execute("CREATE DATABASE replicated")
    s.execute("CREATE DATABASE local")  # a client transaction: binlogged, saved at rotation
    assert _table(s) == [(src, 1, 1)]
    assert _binlog_gtids(srv) == [f"{u}:1"]
    ex, pu = s.execute("SELECT @@GLOBAL.gtid_executed, @@GLOBAL.gtid_purged")[-1].rows[0]
    assert ex == (f"{src}:1,\n{u}:1" if src < u else f"{u}:1,\n{src}:1")
    assert pu == f"{src}:1"
    s.execute("FLUSH LOGS")
    assert sorted(_table(s)) == sorted([(src, 1, 1), (u, 1, 1)])


def test_skip_log_replica_updates_client_explicit_gtid_is_binlogged(open_server):
    # Issue 7 bullet "log_replica_updates applies to the replica applier only": with --log-bin
    # --skip-log-replica-updates a *client* session's SET GTID_NEXT='uuid:n'; CREATE DATABASE x is binlogged
    # (binlog.cc gtid_end_transaction / handler.cc commit_owned_gtids test thd->slave_thread), so it is neither
    # written to the table per transaction nor added to gtid_purged.
    srv = open_server(gtid_mode="ON", log_bin=True, log_slave_updates=False, server_version="5.7")
    s = srv.session()
    src = "3e11fa47-71ca-11e1-9e33-c80aa9429562"
    s.execute(f"SET gtid_next='{src}:7'")
    s.execute("CREATE DATABASE x")
    s.execute("SET gtid_next=AUTOMATIC")
    assert _binlog_gtids(srv) == [f"{src}:7"]
    assert _table(s) == []
    assert s.execute("SELECT @@GLOBAL.gtid_executed, @@GLOBAL.gtid_purged")[-1].rows == [(f"{src}:7", "")]
    ev = s.execute("SHOW BINLOG EVENTS")[-1].rows
    assert [r[2] for r in ev[2:]] == ["Gtid", "Query"]
    assert ev[3][5] == "CREATE DATABASE x"


def test_gtid_mode_off_writes_nothing_to_table(open_server):
    srv = open_server(gtid_mode="OFF", log_bin=True)
    s = srv.session()
    s.execute("CREATE DATABASE a")
    s.execute("FLUSH LOGS")
    assert _table(s) == []
    assert s.execute("SELECT @@GLOBAL.gtid_executed")[-1].rows == [("",)]
    ev = s.execute("SHOW BINLOG EVENTS IN 'binlog.000001'")[-1].rows
    assert [r[2] for r in ev] == ["Format_desc", "Previous_gtids", "Anonymous_Gtid", "Query", "Rotate"]
    assert ev[2][5] == "SET @@SESSION.GTID_NEXT= 'ANONYMOUS'"


def test_sql_log_bin_off(open_server):
    srv = open_server(gtid_mode="ON", log_bin=True)
    s = srv.session()
    s.execute("SET sql_log_bin=0")
    s.execute("CREATE DATABASE hidden")
    assert _binlog_gtids(srv) == []
    assert s.execute("SELECT @@GLOBAL.gtid_executed")[-1].rows == [("",)]


def test_80_client_transactions_reach_the_table_at_commit(open_server):
    """The 8.0.17+ counterpart of the three 5.7 tests above: rows at commit, gtid_purged untouched."""
    srv = open_server(gtid_mode="ON", log_bin=True, log_replica_updates=False, server_version="8.0")
    s = srv.session()
    u = str(srv.server_uuid)
    src = "3e11fa47-71ca-11e1-9e33-c80aa9429562"
    s.execute("CREATE DATABASE a")
    s.execute(f"SET gtid_next='{src}:7'")
    s.execute("CREATE DATABASE x")
    s.execute("SET gtid_next=AUTOMATIC")
    assert sorted(_table(s)) == sorted([(u, 1, 1), (src, 7, 7)])
    assert _binlog_gtids(srv) == [f"{u}:1", f"{src}:7"]
    assert s.execute("SELECT @@GLOBAL.gtid_purged")[-1].rows == [("",)]
    s.execute("FLUSH LOGS")  # nothing missing: no new row
    srv.compressor.wait_idle()
    assert sorted(_table(s)) == sorted([(u, 1, 1), (src, 7, 7)])
