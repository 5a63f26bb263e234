"""SET gtid_purged, RESET MASTER, PURGE BINARY LOGS, SHOW statements, GTID functions, the upgrade case."""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest

from gtidkit.errors import MySQLError

SRC = "3e11fa47-71ca-11e1-9e33-c80aa9429562"


def _code(s, sql):
    with pytest.raises(MySQLError) as exc:
        s.execute(sql)
    return exc.value.code, exc.value.message


def test_set_gtid_purged_forms(open_server):
    srv = open_server(gtid_mode="ON", log_bin=True)
    s = srv.session()
    s.execute(f"SET GLOBAL gtid_purged='{SRC}:1-10'")
    assert s.execute("SELECT @@GLOBAL.gtid_purged, @@GLOBAL.gtid_executed")[-1].rows == [(f"{SRC}:1-10",) * 2]
    s.execute(f"SET GLOBAL gtid_purged='+{SRC}:20-30'")
    assert s.execute("SELECT @@GLOBAL.gtid_purged")[-1].rows == [(f"{SRC}:1-10:20-30",)]
    assert s.execute("SELECT interval_start, interval_end FROM mysql.gtid_executed ORDER BY 1")[-1].rows == [
        (1, 10),
        (20, 30),
    ]
    code, msg = _code(s, f"SET GLOBAL gtid_purged='{SRC}:1-5'")
    assert code == 3546 and msg.endswith("the new value must be a superset of the old value")
    s.execute(f"SET gtid_next='{SRC}:40'")
    s.execute("CREATE DATABASE x")
    s.execute("SET gtid_next=AUTOMATIC")
    code, msg = _code(s, f"SET GLOBAL gtid_purged='+{SRC}:40'")
    assert code == 3546 and msg.endswith("must not overlap with @@GLOBAL.GTID_EXECUTED")
    # Sys_var_gtid_purged::do_check rejects what Gtid_set::is_valid rejects with ER_WRONG_VALUE_FOR_VAR
    # (mysql-test suite/sys_vars/r/gtid_purged_basic.result); this test expected 1772 before
    code, msg = _code(s, "SET GLOBAL gtid_purged='garbage'")
    assert code == 1231 and msg == "Variable 'gtid_purged' can't be set to the value of 'garbage'"


def test_reset_master(open_server):
    srv = open_server(gtid_mode="ON", log_bin=True)
    s = srv.session()
    s.execute("CREATE DATABASE a")
    s.execute("FLUSH LOGS")
    s.execute("CREATE DATABASE b")
    s.execute("RESET BINARY LOGS AND GTIDS")
    assert s.execute("SELECT @@GLOBAL.gtid_executed, @@GLOBAL.gtid_purged")[-1].rows == [("", "")]
    assert s.execute("SELECT COUNT(*) FROM mysql.gtid_executed")[-1].rows == [(0,)]
    assert [r[0] for r in s.execute("SHOW BINARY LOGS")[-1].rows] == ["binlog.000001"]
    s.execute("CREATE DATABASE c")
    assert s.execute("SELECT @@GLOBAL.gtid_executed")[-1].rows == [(f"{srv.server_uuid}:1",)]
    s.execute("RESET MASTER TO 7")
    assert [r[0] for r in s.execute("SHOW BINARY LOGS")[-1].rows] == ["binlog.000007"]


def test_reset_master_binlog_off(open_server):
    srv = open_server(gtid_mode="ON", log_bin=False)
    s = srv.session()
    s.execute(f"SET gtid_next='{SRC}:1'")
    s.execute("CREATE DATABASE a")
    s.execute("SET gtid_next=AUTOMATIC")
    s.execute("RESET MASTER")
    assert s.execute("SELECT @@GLOBAL.gtid_executed")[-1].rows == [("",)]
    assert s.execute("SELECT COUNT(*) FROM mysql.gtid_executed")[-1].rows == [(0,)]
    assert _code(s, "SHOW BINARY LOGS")[0] == 1381
    assert s.execute("SHOW MASTER STATUS")[-1].rows == []


def test_purge_binary_logs_grows_purged(open_server):
    srv = open_server(gtid_mode="ON", log_bin=True)
    s = srv.session()
    u = srv.server_uuid
    s.execute("CREATE DATABASE a")
    s.execute("FLUSH LOGS")
    s.execute("CREATE DATABASE b")
    s.execute("FLUSH LOGS")
    s.execute("CREATE DATABASE c")
    assert s.execute("SELECT @@GLOBAL.gtid_purged")[-1].rows == [("",)]
    s.execute("PURGE BINARY LOGS TO 'binlog.000003'")
    assert [r[0] for r in s.execute("SHOW BINARY LOGS")[-1].rows] == ["binlog.000003"]
    assert s.execute("SELECT @@GLOBAL.gtid_purged")[-1].rows == [(f"{u}:1-2",)]
    assert s.execute("SELECT @@GLOBAL.gtid_executed")[-1].rows == [(f"{u}:1-3",)]
    assert _code(s, "PURGE BINARY LOGS TO 'binlog.000099'")[0] == 1373
    # restart: purged = Previous_gtids of the oldest file
    srv.shutdown()
    s2 = open_server(gtid_mode="ON", log_bin=True).session()
    assert s2.execute("SELECT @@GLOBAL.gtid_purged, @@GLOBAL.gtid_executed")[-1].rows == [
        (f"{u}:1-2", f"{u}:1-3")
    ]


def test_purge_before(open_server):
    srv = open_server(gtid_mode="ON", log_bin=True)
    s = srv.session()
    s.execute("CREATE DATABASE a")
    s.execute("FLUSH LOGS")
    s.execute("PURGE BINARY LOGS BEFORE '2999-01-01 00:00:00'")
    assert [r[0] for r in s.execute("SHOW BINARY LOGS")[-1].rows] == ["binlog.000002"]


def test_show_binary_log_status_and_events(open_server):
    srv = open_server(gtid_mode="ON", log_bin=True)
    s = srv.session()
    s.execute("CREATE DATABASE a")
    s.execute("CREATE DATABASE b")
    (res,) = s.execute("SHOW MASTER STATUS")
    assert res.column_names == ["File", "Position", "Binlog_Do_DB", "Binlog_Ignore_DB", "Executed_Gtid_Set"]
    assert res.rows[0][0] == "binlog.000001" and res.rows[0][4] == f"{srv.server_uuid}:1-2"
    assert res.rows[0][1] == (srv.datadir / "binlog.000001").stat().st_size
    (ev,) = s.execute("SHOW BINLOG EVENTS")
    assert ev.column_names == ["Log_name", "Pos", "Event_type", "Server_id", "End_log_pos", "Info"]
    gtid_rows = [r for r in ev.rows if r[2] == "Gtid"]
    assert [r[4] - r[1] for r in gtid_rows] == [77, 77]  # 8.0 originating Gtid event size (formats.md §2.2)
    assert ev.rows[0][5] == "Server ver: 8.0.36, Binlog ver: 4"
    assert ev.rows[2][1] == 157
    limited = s.execute("SHOW BINLOG EVENTS IN 'binlog.000001' FROM 157 LIMIT 1, 2")[-1].rows
    assert [r[2] for r in limited] == ["Query", "Gtid"]
    assert _code(s, "SHOW BINLOG EVENTS IN 'nope.000001'")[0] == 1220


def test_show_variables(open_server):
    srv = open_server(gtid_mode="ON", log_bin=False, gtid_executed_compression_period=1000)
    s = srv.session()
    (res,) = s.execute("SHOW GLOBAL VARIABLES LIKE 'gtid_executed_compression_period'")
    assert res.rows == [("gtid_executed_compression_period", "1000")]
    assert ("log_bin", "OFF") in s.execute("SHOW VARIABLES LIKE 'log_bin'")[-1].rows
    assert s.execute("SHOW VARIABLES LIKE 'log_slave_updates'")[-1].rows == [("log_slave_updates", "ON")]


def test_gtid_functions(open_server):
    srv = open_server(gtid_mode="ON", log_bin=True)
    s = srv.session()
    assert s.execute(f"SELECT GTID_SUBSET('{SRC}:1-2', '{SRC}:1-5')")[-1].rows == [(1,)]
    assert s.execute(f"SELECT GTID_SUBSET('{SRC}:1-7', '{SRC}:1-5')")[-1].rows == [(0,)]
    assert s.execute(f"SELECT GTID_SUBTRACT('{SRC}:1-10', '{SRC}:3-4')")[-1].rows == [(f"{SRC}:1-2:5-10",)]
    assert s.execute("SELECT GTID_SUBSET(NULL, '')")[-1].rows == [(None,)]
    assert _code(s, "SELECT GTID_SUBSET('junk', '')")[0] == 1772
    assert s.execute(f"SELECT WAIT_FOR_EXECUTED_GTID_SET('{SRC}:1', 0.2)")[-1].rows == [(1,)]
    assert _code(s, f"SELECT WAIT_FOR_EXECUTED_GTID_SET('{SRC}:1', -1)")[0] == 1210
    other = srv.session()

    def later():
        time.sleep(0.2)
        other.execute(f"SET gtid_next='{SRC}:1'")
        other.execute("CREATE DATABASE waited")

    t = threading.Thread(target=later)
    t.start()
    assert s.execute(f"SELECT WAIT_FOR_EXECUTED_GTID_SET('{SRC}:1', 10)")[-1].rows == [(0,)]
    t.join()


def test_wait_for_executed_gtid_set_gtid_mode_off(open_server):
    s = open_server(gtid_mode="OFF", log_bin=True).session()
    assert _code(s, f"SELECT WAIT_FOR_EXECUTED_GTID_SET('{SRC}:1', 1)")[0] == 3062


def test_upgrade_fills_table_from_binlogs(open_server):
    srv = open_server(gtid_mode="ON", log_bin=True)
    s = srv.session()
    s.execute("CREATE DATABASE a")
    s.execute("FLUSH LOGS")
    s.execute("CREATE DATABASE b")
    datadir = srv.datadir
    srv.shutdown()
    # a pre-5.7 datadir: binlogs but an empty mysql.gtid_executed
    db = sqlite3.connect(datadir / "gtidkit.sqlite")
    db.execute('DELETE FROM "mysql.gtid_executed"')
    db.commit()
    db.close()
    s2 = open_server(gtid_mode="ON", log_bin=True).session()
    u = srv.server_uuid
    assert s2.execute("SELECT @@GLOBAL.gtid_executed")[-1].rows == [(f"{u}:1-2",)]
    assert s2.execute("SELECT source_uuid, interval_start, interval_end FROM mysql.gtid_executed")[
        -1
    ].rows == [(str(u), 1, 2)]


def test_server_uuid_generated_once(open_server):
    srv = open_server(gtid_mode="ON", log_bin=True)
    u = srv.server_uuid
    text = (srv.datadir / "auto.cnf").read_text()
    assert text == f"[auto]\nserver-uuid={u}\n"
    srv.shutdown()
    assert open_server(gtid_mode="ON", log_bin=True).server_uuid == u
    assert (srv.datadir / "binlog.index").read_text() == "./binlog.000001\n./binlog.000002\n"


def test_observers(open_server):
    srv = open_server(gtid_mode="ON", log_bin=True)
    commits, flushes = [], []
    srv.add_commit_observer(lambda sess, g: commits.append((sess.id, str(g))))
    srv.add_binlog_flush_observer(lambda f, p: flushes.append((f, p)))
    s = srv.session()
    s.execute("CREATE DATABASE a")
    assert commits == [(s.id, f"{srv.server_uuid}:1")]
    assert flushes == [("binlog.000001", (srv.datadir / "binlog.000001").stat().st_size)]
