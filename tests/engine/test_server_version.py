"""``--server-version 5.7 | 8.0 | 8.4``: the release a server presents as, and the behaviours that follow it.

Oracles: mysql-test ``binlog_gtid_compress_at_server_start`` (shared fixture; 8.0.17+, binlog on: one row per
committed transaction, (1,1) (2,2) (3,3), and one row (1,3) after a restart); WL#6559 as 5.7 ships it (binlog on:
the GTIDs of a binary log are saved at rotation and shutdown only; binlog_gtids_table_gcov: after a restart the
table shows ``1 2``); the real 5.7.22 binlog ``rpl_cross_version_default_utf8mb4_collation.000001`` (FDE ends at
123, Previous_gtids at 154, a Gtid event is 65 bytes: the 42-byte body without commit timestamps); the 8.4 manual
(SHOW MASTER STATUS removed, SHOW BINARY LOG STATUS since 8.2.0).
"""

from __future__ import annotations

import pytest

from gtidkit.binlog.events.control import FormatDescriptionEvent, GtidEvent
from gtidkit.binlog.file import read_events
from gtidkit.errors import MySQLError

START = {"gtid_mode": "ON", "log_bin": True, "gtid_executed_compression_period": 0}


def _rows(s) -> list[tuple[int, int]]:
    return [
        (r[1], r[2])
        for r in s.execute(
            "SELECT source_uuid, interval_start, interval_end FROM mysql.gtid_executed ORDER BY 2"
        )[-1].rows
    ]


def _workload(s) -> None:
    s.execute("CREATE DATABASE test")
    s.execute("CREATE TABLE test.t1 (a INT NOT NULL PRIMARY KEY)")
    s.execute("INSERT INTO test.t1 VALUES (1)")


@pytest.mark.parametrize(
    ("version", "shown"),
    [(None, "8.0.36"), ("8.0", "8.0.36"), ("5.7", "5.7.44"), ("8.4", "8.4.3"), ("8.0.40", "8.0.40")],
    ids=["default", "8.0", "5.7", "8.4", "full"],
)
def test_version_shown(open_server, version, shown):
    srv = open_server(**START, **({"server_version": version} if version else {}))
    s = srv.session()
    assert s.execute("SELECT VERSION(), @@version, @@innodb_version")[-1].rows == [
        (f"{shown}-gtidkit", f"{shown}-gtidkit", shown)
    ]
    fde = next(e.event for e in read_events(srv.datadir / "binlog.000001"))
    assert isinstance(fde, FormatDescriptionEvent) and fde.server_version == shown


@pytest.mark.parametrize("version", ["5.6", "9.0", "eight", "8.0.x"])
def test_unknown_version_refused(open_server, version):
    with pytest.raises(MySQLError) as exc:
        open_server(**START, server_version=version)
    assert exc.value.code == 1231


@pytest.mark.parametrize("version", ["8.0", "8.4"])
def test_80_writes_each_gtid_and_compresses_at_start(open_server, tmp_path, version):
    """binlog_gtid_compress_at_server_start with the binary log on."""
    srv = open_server(tmp_path / "d", **START, server_version=version)
    s = srv.session()
    _workload(s)
    assert _rows(s) == [(1, 1), (2, 2), (3, 3)]
    assert s.execute("SELECT @@GLOBAL.gtid_executed")[-1].rows == [(f"{srv.server_uuid}:1-3",)]
    srv.shutdown()
    srv = open_server(tmp_path / "d", **START, server_version=version)
    assert _rows(srv.session()) == [(1, 3)]


def test_57_saves_gtids_on_rotation_and_shutdown_only(open_server, tmp_path):
    srv = open_server(tmp_path / "d", **START, server_version="5.7")
    s = srv.session()
    _workload(s)
    assert _rows(s) == []  # in the binary log only
    assert s.execute("SELECT @@GLOBAL.gtid_executed")[-1].rows == [(f"{srv.server_uuid}:1-3",)]
    s.execute("FLUSH LOGS")  # rotation saves the closed file's GTIDs
    assert _rows(s) == [(1, 3)]
    s.execute("INSERT INTO test.t1 VALUES (2)")
    assert _rows(s) == [(1, 3)]
    srv.shutdown()  # so does shutdown
    srv = open_server(tmp_path / "d", **START, server_version="5.7")
    s = srv.session()
    assert _rows(s) == [(1, 3), (4, 4)]  # no compression at start-up in 5.7
    assert s.execute("SELECT @@GLOBAL.gtid_executed")[-1].rows == [(f"{srv.server_uuid}:1-4",)]


def test_57_binlog_layout_matches_a_real_57_file(open_server, binlog_fixtures):
    real = list(
        read_events(
            binlog_fixtures
            / "blackbeam__rust_mysql_common/rpl_cross_version_default_utf8mb4_collation.000001"
        )
    )
    srv = open_server(**START, server_version="5.7")
    srv.session().execute("CREATE DATABASE test")
    ours = list(read_events(srv.datadir / "binlog.000001"))

    def layout(events):
        gtid = next(e for e in events if isinstance(e.event, GtidEvent))
        return events[0].end_pos, events[1].end_pos, gtid.end_pos - gtid.pos

    assert layout(ours) == layout(real) == (123, 154, 65)
    gtid = next(e.event for e in ours if isinstance(e.event, GtidEvent))
    assert gtid.immediate_commit_timestamp is None and gtid.transaction_length is None


@pytest.mark.parametrize(
    ("version", "master", "binary_log"),
    [("5.7", True, False), ("8.0", True, False), ("8.4", False, True)],
    ids=["5.7", "8.0", "8.4"],
)
def test_show_status_statement_per_version(open_server, version, master, binary_log):
    s = open_server(**START, server_version=version).session()
    for sql, exists, near in (
        ("SHOW MASTER STATUS", master, "MASTER STATUS"),
        ("SHOW BINARY LOG STATUS", binary_log, "LOG STATUS"),
    ):
        if exists:
            assert s.execute(sql)[-1].rows[0][0] == "binlog.000001"
        else:
            with pytest.raises(MySQLError) as exc:
                s.execute(sql)
            assert exc.value.code == 1064 and f"near '{near}' at line 1" in exc.value.message


UUID_A = "3e11fa47-71ca-11e1-9e33-c80aa9429562"
#: mysql.gtid_executed per release: the manual's "mysql.gtid_executed Table" and scripts/mysql_system_tables.sql
#: (5.7 / 8.0: source_uuid, interval_start, interval_end, PRIMARY KEY (source_uuid, interval_start); 8.3+ adds
#: gtid_tag CHAR(32) NOT NULL to the columns and the key, WL#15294).
_UNTAGGED = {
    "columns": [
        ("source_uuid", "char(36)", "PRI"),
        ("interval_start", "bigint", "PRI"),
        ("interval_end", "bigint", ""),
    ],
    "key": "PRIMARY KEY (`source_uuid`,`interval_start`)",
    "row": (UUID_A, 7, 7),
}
_TAGGED = {
    "columns": [*_UNTAGGED["columns"], ("gtid_tag", "char(32)", "PRI")],
    "key": "PRIMARY KEY (`source_uuid`,`gtid_tag`,`interval_start`)",
    "row": (UUID_A, 7, 7, ""),
}


@pytest.mark.parametrize(
    ("version", "shape"),
    [("5.7", _UNTAGGED), ("8.0", _UNTAGGED), ("8.4", _TAGGED)],
    ids=["5.7", "8.0", "8.4"],
)
def test_gtid_executed_table_shape_per_version(open_server, version, shape):
    """SELECT *, SHOW CREATE TABLE, DESCRIBE / SHOW COLUMNS and information_schema.COLUMNS show the release's
    mysql.gtid_executed, and the GTID persistor writes and compresses it (binlog off, period 1)."""
    srv = open_server(
        gtid_mode="ON", log_bin=False, gtid_executed_compression_period=1, server_version=version
    )
    s = srv.session()
    s.execute(f"SET GTID_NEXT='{UUID_A}:7'")
    s.execute("CREATE DATABASE a")
    s.execute("SET GTID_NEXT=AUTOMATIC")
    res = s.execute("SELECT * FROM mysql.gtid_executed")[-1]
    assert [c.name for c in res.columns] == [c for c, _, _ in shape["columns"]]
    assert res.rows == [shape["row"]]
    create = s.execute("SHOW CREATE TABLE mysql.gtid_executed")[-1].rows[0][1]
    assert ("`gtid_tag` char(32) NOT NULL" in create) == (shape is _TAGGED)
    assert shape["key"] in create
    for stmt in ("DESCRIBE mysql.gtid_executed", "SHOW COLUMNS FROM mysql.gtid_executed"):
        assert [(r[0], r[1], r[3]) for r in s.execute(stmt)[-1].rows] == shape["columns"], stmt
    assert (
        s.execute(
            "SELECT COLUMN_NAME, COLUMN_TYPE, COLUMN_KEY FROM information_schema.COLUMNS "
            "WHERE TABLE_SCHEMA='mysql' AND TABLE_NAME='gtid_executed' ORDER BY ORDINAL_POSITION"
        )[-1].rows
        == shape["columns"]
    )
    s.execute(f"SET GTID_NEXT='{UUID_A}:8'")
    s.execute("CREATE DATABASE b")
    s.execute("SET GTID_NEXT=AUTOMATIC")
    srv.compressor.wait_idle()
    assert _rows(s) == [(7, 8)]  # the compressor reads and rewrites the release's layout
    s.execute(f"SET GLOBAL gtid_purged='+{UUID_A}:20-21'")
    assert _rows(s) == [(7, 8), (20, 21)]
    s.execute("RESET MASTER")
    assert _rows(s) == []


def test_existing_datadir_keeps_its_gtid_table_layout(open_server, tmp_path):
    """A datadir created as 8.4 keeps gtid_tag when later opened as 8.0 (the release decides only a new
    datadir's layout); its GTIDs are read back at start-up."""
    srv = open_server(tmp_path / "d", gtid_mode="ON", log_bin=False, server_version="8.4")
    s = srv.session()
    s.execute(f"SET GTID_NEXT='{UUID_A}:7'")
    s.execute("CREATE DATABASE a")
    srv.shutdown()
    srv = open_server(tmp_path / "d", gtid_mode="ON", log_bin=False, server_version="8.0")
    s = srv.session()
    assert s.execute("SELECT * FROM mysql.gtid_executed")[-1].rows == [(UUID_A, 7, 7, "")]
    assert s.execute("SELECT @@GLOBAL.gtid_executed")[-1].rows == [(f"{UUID_A}:7",)]
    s.execute(f"SET GTID_NEXT='{UUID_A}:9'")
    s.execute("CREATE DATABASE b")
    assert s.execute("SELECT * FROM mysql.gtid_executed")[-1].rows == [(UUID_A, 7, 7, ""), (UUID_A, 9, 9, "")]


def test_80_datadir_opened_as_84_gets_gtid_tag(open_server, tmp_path):
    """An 8.0 datadir started as 8.4 gets the 8.3+ table (MySQL's upgrade adds gtid_tag to the columns and the
    key): its rows are kept with the empty tag, and a tagged GTID is saved next to them."""
    srv = open_server(tmp_path / "d", gtid_mode="ON", log_bin=False, server_version="8.0")
    s = srv.session()
    s.execute(f"SET GTID_NEXT='{UUID_A}:7'")
    s.execute("CREATE DATABASE a")
    srv.shutdown()
    srv = open_server(tmp_path / "d", gtid_mode="ON", log_bin=False, server_version="8.4")
    s = srv.session()
    assert [(r[0], r[1], r[3]) for r in s.execute("DESCRIBE mysql.gtid_executed")[-1].rows] == _TAGGED[
        "columns"
    ]
    s.execute(f"SET GTID_NEXT='{UUID_A}:mytag:3'")
    s.execute("CREATE DATABASE b")
    s.execute("SET GTID_NEXT=AUTOMATIC")
    assert s.execute("SELECT * FROM mysql.gtid_executed ORDER BY gtid_tag")[-1].rows == [
        (UUID_A, 7, 7, ""),
        (UUID_A, 3, 3, "mytag"),
    ]
    assert s.execute("SELECT @@GLOBAL.gtid_executed")[-1].rows == [(f"{UUID_A}:7:mytag:3",)]
