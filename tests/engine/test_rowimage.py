"""Row images: DML -> Table_map + rows events -> bytes -> decode -> apply on an empty copy gives identical tables;
MySQL's field encodings; python-mysql-replication decodes what we write."""

from __future__ import annotations

from decimal import Decimal

import pytest

from gtidkit.binlog import FormatDescriptionEvent, decode_event, encode_event, row_image
from gtidkit.binlog.events.rows import STMT_END_F, RowsEvent, TableMapEvent
from gtidkit.engine.sql import rowimage
from gtidkit.engine.sql.catalog import ColumnDef
from gtidkit.engine.sql.executor import Executor
from gtidkit.engine.statements.classify import classify
from gtidkit.engine.storage import Storage
from gtidkit.errors import MySQLError

FDE = FormatDescriptionEvent.for_server("8.0.36")
ALL_TYPES = (
    "CREATE TABLE t (id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, ti TINYINT, si SMALLINT UNSIGNED, "
    "mi MEDIUMINT, bi BIGINT, f FLOAT, d DOUBLE, dec1 DECIMAL(12,3), dec2 DECIMAL(20,10), c CHAR(10), "
    "c120 CHAR(120), vc VARCHAR(300), vs VARCHAR(20), tx TEXT, mt MEDIUMTEXT, b BLOB, bn BINARY(4), "
    "vb VARBINARY(10), dt DATE, dtt DATETIME, dt6 DATETIME(6), ts TIMESTAMP(3) NULL, tm TIME, tm2 TIME(2), "
    "y YEAR)"
)
DML = [
    (
        "INSERT INTO t VALUES (NULL, -5, 65000, -8000000, -9000000000000, 1.5, 2.25, -123.456, 1234567.0123456789, "
        "'abc', REPEAT('x', 120), 'héllo wörld', 'v', 'long text', 'mt', x'00ff10', 'ab', x'0102', '2024-02-29', "
        "'2024-01-02 03:04:05', '2024-01-02 03:04:05.123456', '2024-01-02 03:04:05.120', '12:34:56', "
        "'01:02:03.45', 2024)"
    ),
    "INSERT INTO t (id) VALUES (NULL), (NULL), (NULL)",
    "INSERT INTO t (id, ti, c, vc) VALUES (10, 100, 'ten', REPEAT('é', 300))",
    "UPDATE t SET c = 'zz', dec1 = dec1 * 2, ts = NULL WHERE id = 1",
    "DELETE FROM t WHERE id = 2",
    "UPDATE t SET ti = COALESCE(ti, 0) + 1, y = 1999, f = 1.1, d = d / 3",
    "REPLACE INTO t (id, c) VALUES (3, 'rep')",
]


def _open(path):
    s = Storage.open(path)
    ex = Executor(s, s.connect())
    ex.execute(classify("CREATE DATABASE db"))
    ex.execute(classify(ALL_TYPES), "db")
    return s, ex


def _bytes_round_trip(event):
    raw = encode_event(event, FDE)
    return decode_event(raw, FDE).event, raw


def test_dml_to_events_to_bytes_and_back_rebuilds_identical_tables(tmp_path):
    s1, ex1 = _open(tmp_path / "src")
    _s2, ex2 = _open(tmp_path / "dst")
    changes = []
    for q in DML:
        changes += ex1.execute(classify(q), "db").row_changes
    table = s1.catalog.get_table("db", "t")
    events = rowimage.events_for_changes(changes, s1.catalog, {("db", "t"): 77})
    assert isinstance(events[0], TableMapEvent)
    assert [e.type_code for e in events[1:]] == [30, 31, 32, 31, 32, 30]
    assert all(e.flags == 0 for e in events[1:-1]) and events[-1].flags == STMT_END_F
    ex2.conn.begin()
    table_map = None
    applied = []
    for ev in events:
        decoded, _ = _bytes_round_trip(ev)
        assert decoded == ev
        if isinstance(decoded, TableMapEvent):
            table_map = decoded
        else:
            applied += rowimage.apply_rows_event(ex2, table_map, decoded)
    ex2.conn.commit()
    assert applied == changes
    q = "SELECT * FROM t ORDER BY id"
    assert ex1.execute(classify(q), "db").rows == ex2.execute(classify(q), "db").rows
    assert len(ex1.execute(classify(q), "db").rows) == 4
    # the copy's AUTO_INCREMENT counter moved past the applied rows
    assert ex2.execute(classify("INSERT INTO t (c) VALUES ('next')"), "db").last_insert_id == 11
    assert table.column_names[0] == "id"


def test_large_statements_split_into_several_events(tmp_path):
    s, ex = _open(tmp_path)
    ex.execute(classify("INSERT INTO t (c120) VALUES " + ", ".join(["(REPEAT('y', 120))"] * 200)), "db")
    changes = ex.execute(classify("UPDATE t SET c120 = REPEAT('z', 120)"), "db").row_changes
    events = rowimage.rows_events(changes, {("db", "t"): 1}, catalog=s.catalog)
    assert len(events) > 3
    assert all(len(e.body) < rowimage.MAX_ROWS_BODY + 1024 for e in events)
    assert (
        sum(
            len(rowimage.decode_rows(rowimage.table_map_event(s.catalog.get_table("db", "t"), 1), e))
            for e in events
        )
        == 200
    )


# MySQL's DECIMAL bytes and every type's packing are tested with the codec itself: tests/binlog/test_row_image.py


def test_table_map_metadata_and_optional_metadata(tmp_path):
    s, _ = _open(tmp_path)
    tm = rowimage.table_map_event(s.catalog.get_table("db", "t"), 5)
    assert tm.column_types[:3] == bytes([3, 1, 2])
    metas = tm.column_metadata()
    names = s.catalog.get_table("db", "t").column_names
    meta = dict(zip(names, metas))
    assert meta["c120"] == bytes(
        [0xEE, 0xE0]
    )  # CHAR(120) utf8mb4: 480 bytes, high bits folded into the type byte
    assert meta["c"] == bytes([0xFE, 40])
    assert meta["vc"] == (1200).to_bytes(2, "little")
    assert meta["dec1"] == bytes([12, 3]) and meta["dt6"] == bytes([6]) and meta["tx"] == bytes([2])
    assert tm.null_bitmap[0] & 1 == 0 and tm.null_bitmap[0] & 2  # id NOT NULL, ti nullable
    assert row_image.signedness(tm)[:3] == [True, False, True]


def test_python_mysql_replication_decodes_our_events(tmp_path):
    pymysql = pytest.importorskip("pymysql")
    from pymysqlreplication.packet import BinLogPacketWrapper
    from pymysqlreplication.row_event import DeleteRowsEvent, UpdateRowsEvent, WriteRowsEvent
    from pymysqlreplication.row_event import TableMapEvent as PTableMap

    s, ex = _open(tmp_path)
    changes = ex.execute(classify(DML[0]), "db").row_changes + ex.execute(classify(DML[3]), "db").row_changes
    events = rowimage.events_for_changes(changes, s.catalog, {("db", "t"): 9})

    class Ctl:  # what BinLogPacketWrapper reads from its control connection
        charset = "utf8"

        def _get_dbms(self):
            return "mysql"

    table_map: dict = {}
    decoded = []
    allowed = {PTableMap, WriteRowsEvent, UpdateRowsEvent, DeleteRowsEvent}
    for ev in events:
        packet = pymysql.protocol.MysqlPacket(b"\x00" + encode_event(ev, FDE), "utf8")
        w = BinLogPacketWrapper(
            packet,
            table_map,
            Ctl(),
            "8.0.36",
            True,
            allowed,
            None,
            None,
            None,
            None,
            False,
            False,
            True,
            True,
            False,
            False,
            FDE.post_header_lengths,
        )
        if isinstance(w.event, PTableMap):
            table_map[w.event.table_id] = w.event.get_table()
        else:
            decoded.append(w.event.rows)
    inserted = decoded[0][0]["values"]
    assert inserted["id"] == 1 and inserted["ti"] == -5 and inserted["si"] == 65000
    assert inserted["dec1"] == Decimal("-123.456") and inserted["vc"] == "héllo wörld"
    assert str(inserted["dtt"]) == "2024-01-02 03:04:05" and inserted["y"] == 2024
    upd = decoded[1][0]
    assert upd["before_values"]["c"] == "abc" and upd["after_values"]["c"] == "zz"
    assert upd["after_values"]["ts"] is None


def test_apply_reports_missing_rows_and_duplicates(tmp_path):
    s1, ex1 = _open(tmp_path / "a")
    _s2, ex2 = _open(tmp_path / "b")
    ins = ex1.execute(classify("INSERT INTO t (id, c) VALUES (1, 'a')"), "db").row_changes
    upd = ex1.execute(classify("UPDATE t SET c = 'b'"), "db").row_changes
    tm = rowimage.table_map_event(s1.catalog.get_table("db", "t"), 1)
    ids = {("db", "t"): 1}
    with pytest.raises(MySQLError) as e:
        rowimage.apply_rows_event(ex2.conn, tm, rowimage.rows_events(upd, ids, catalog=s1.catalog)[0])
    assert (e.value.code, e.value.message) == (1032, "Can't find record in 't'")
    write = rowimage.rows_events(ins, ids, catalog=s1.catalog)[0]
    rowimage.apply_rows_event(ex2.conn, tm, write)
    with pytest.raises(MySQLError) as e:
        rowimage.apply_rows_event(ex2.conn, tm, write)
    assert e.value.code == 1062


def test_truncated_image_is_a_decode_error(tmp_path):
    from gtidkit.errors import BinlogDecodeError

    s, ex = _open(tmp_path)
    ch = ex.execute(classify("INSERT INTO t (c) VALUES ('abc')"), "db").row_changes
    tm = rowimage.table_map_event(s.catalog.get_table("db", "t"), 1)
    ev = rowimage.rows_events(ch, {("db", "t"): 1}, catalog=s.catalog)[0]
    cut = RowsEvent(
        ev.type_code,
        ev.table_id,
        ev.flags,
        ev.extra,
        ev.column_count,
        ev.columns_before,
        ev.columns_after,
        ev.body[:-2],
    )
    with pytest.raises(BinlogDecodeError):
        rowimage.decode_rows(tm, cut)


def test_encode_row_null_bitmap():
    from gtidkit.engine.sql.catalog import TableDef

    t = TableDef("d", "x", (ColumnDef("a", "int"), ColumnDef("b", "varchar", length=10)))
    assert rowimage.encode_row(t, (None, "hi")) == b"\x01" + b"\x02hi"
    assert rowimage.encode_row(t, (-1, None)) == b"\x02" + b"\xff\xff\xff\xff"


def test_only_the_statements_last_rows_event_ends_it(tmp_path):
    """STMT_END_F on the very last rows event of a statement only, however its changes split into groups (kinds)
    and events (size): MySQL's ``binlog_flush_pending_rows_event(stmt_end=true)``."""
    s, ex = _open(tmp_path)
    ins = ex.execute(
        classify("INSERT INTO t (c120) VALUES " + ", ".join(["(REPEAT('y', 120))"] * 200)), "db"
    ).row_changes
    upd = ex.execute(classify("UPDATE t SET c120 = 'z' WHERE id <= 3"), "db").row_changes
    dele = ex.execute(classify("DELETE FROM t WHERE id = 4"), "db").row_changes
    for changes in (ins, upd, ins + upd, upd + ins + dele, dele + upd + dele):
        events = rowimage.rows_events(changes, {("db", "t"): 1}, catalog=s.catalog)
        flags = [e.flags for e in events]
        assert flags == [0] * (len(flags) - 1) + [rowimage.STMT_END_F], flags
    assert len(rowimage.rows_events(ins + upd, {("db", "t"): 1}, catalog=s.catalog)) > 2
