"""String-family types (ENUM, SET, CHAR/VARCHAR/TEXT/BLOB in utf8mb4, utf8mb3, latin1, ascii, binary) through a
real `gtidkit server`: the literal goes in over PyMySQL and the value comes back; the binlog's Table_map and row
image hold MySQL's bytes; three independent readers decode them (python-mysql-replication's BinLogStreamReader
over the wire, ``mariadb-binlog --verify-binlog-checksum -v`` on the file, gtidkit's own replica).

Expected bytes come from MySQL: ENUM is its 1-based index and SET its bit set in ``pack length`` bytes with
Table_map metadata ``(247|248, pack length)`` under type STRING (the real ``mysql-enum-string-set.000001`` binlog,
``Field_enum::do_save_field_metadata``); character columns hold their charset's bytes (RM "Column Character Set
Conversion": a latin1 'é' is E9) and VARCHAR/CHAR metadata is the length in bytes (characters x mbmaxlen:
VARCHAR(242) latin1 = 242, utf8mb4 CHAR(10) = 40, ``Field_varstring::do_save_field_metadata``); BLOB carries
collation 63 (the real ``binlog-invisible-columns.000001``). ENUM/SET result columns are STRING with
ENUM_FLAG / SET_FLAG (``Field_enum::type()``, ``make_send_field``).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pymysql
import pytest
from protocol.server_proc import ServerProcess, running_server
from pymysqlreplication import BinLogStreamReader
from pymysqlreplication.row_event import WriteRowsEvent

from gtidkit.binlog.events.query_status import decode_status_vars
from gtidkit.binlog.events.rows import RowsEvent, TableMapEvent
from gtidkit.binlog.events.statement import QueryEvent
from gtidkit.binlog.file import read_events, read_transactions
from gtidkit.engine import Server
from gtidkit.gtid import GtidSet
from gtidkit.replication.applier import Applier
from gtidkit.replication.relay_log import RelayLog

sys.path.insert(0, str(Path(__file__).parent))
from relay_helpers import dump_stream

# FULL: the Table_map checks read column names, ENUM/SET member lists and the primary key (binlog_row_metadata)
SOURCE_ARGS = (
    "--log-bin",
    "--gtid-mode=ON",
    "--enforce-gtid-consistency=ON",
    "--server-id=1",
    "--binlog-row-metadata=FULL",
)
ENUM_FLAG, SET_FLAG = 256, 2048

#: internal forms of POINT(1 2) and LINESTRING(0 0,1 1), SRID 0 (RM8 13.4.3 "Internal Geometry Storage Format")
POINT_1_2 = bytes.fromhex("000000000101000000000000000000f03f0000000000000040")
LINE = bytes.fromhex("00000000010200000002000000" + "00" * 16 + "000000000000f03f" * 2)

# (id, column type, literal, value over PyMySQL, row-image value hex, Table_map type, metadata hex, collation id
#  in (DEFAULT|COLUMN)_CHARSET or None, python-mysql-replication value, mariadb-binlog -v text)
CASES = [
    ("enum_text", "ENUM('a','b','c')", "'B'", "b", "02", 254, "f701", None, "b", b"@2=2"),
    ("enum_index", "ENUM('a','b','c')", "3", "c", "03", 254, "f701", None, "c", b"@2=3"),
    ("enum_digits", "ENUM('1','x')", "'2'", "x", "02", 254, "f701", None, "x", b"@2=2"),
    (
        "set_order",
        "SET('x','y','z')",
        "'z,x,z'",
        "x,z",
        "05",
        254,
        "f801",
        None,
        {"x", "z"},
        b"@2=b'00000101'",
    ),
    ("set_bits", "SET('x','y','z')", "6", "y,z", "06", 254, "f801", None, {"y", "z"}, b"@2=b'00000110'"),
    ("set_9", "SET('a','b','c','d','e','f','g','h','i')", "'i'", "i", "0001", 254, "f802", None, {"i"}, None),
    (
        "varchar_latin1",
        "VARCHAR(242) CHARACTER SET latin1",
        "'é'",
        "é",
        "01e9",
        15,
        "f200",
        8,
        "é",
        b"@2='\xe9'",
    ),
    ("varchar_utf8mb3", "VARCHAR(10) CHARACTER SET utf8mb3", "'é'", "é", "02c3a9", 15, "1e00", 33, "é", None),
    ("varchar_utf8mb4", "VARCHAR(100)", "'é€'", "é€", "0500c3a9e282ac", 15, "9001", 255, "é€", None),
    (
        "char_ascii",
        "CHAR(5) CHARACTER SET ascii",
        "'ab  '",
        "ab",
        "026162",
        254,
        "fe05",
        11,
        "ab",
        b"@2='ab'",
    ),
    ("char_utf8mb4", "CHAR(10)", "'x'", "x", "0178", 254, "fe28", 255, "x", b"@2='x'"),
    (
        "char_latin1_bin",
        "CHAR(3) CHARACTER SET latin1 COLLATE latin1_bin",
        "'é'",
        "é",
        "01e9",
        254,
        "fe03",
        47,
        "é",
        None,
    ),
    ("text_latin1", "TEXT CHARACTER SET latin1", "'é'", "é", "0100e9", 252, "02", 8, "é", b"@2='\xe9'"),
    ("tinytext", "TINYTEXT", "'é'", "é", "02c3a9", 252, "01", 255, "é", None),
    ("blob", "BLOB", "x'00ff'", b"\x00\xff", "020000ff", 252, "02", 63, b"\x00\xff", None),
    ("varbinary", "VARBINARY(300)", "x'41'", b"A", "010041", 15, "2c01", 63, b"A", b"@2='A'"),
    ("binary", "BINARY(2)", "x'41'", b"A\x00", "024100", 254, "fe02", 63, b"A\x00", None),
    # spatial: MySQL's internal SRID (4 bytes LE) + WKB, 4-byte length, GEOMETRY_TYPE (1 = POINT, 0 = GEOMETRY)
    (
        "point",
        "POINT",
        "ST_GeomFromText('POINT(1 2)')",
        POINT_1_2,
        "19000000" + POINT_1_2.hex(),
        255,
        "04",
        "geo1",
        POINT_1_2,
        None,
    ),
    (
        "geometry",
        "GEOMETRY",
        "ST_GeomFromText('LINESTRING(0 0,1 1)', 0)",
        LINE,
        "2d000000" + LINE.hex(),
        255,
        "04",
        "geo0",
        LINE,
        None,
    ),
]
IDS = [c[0] for c in CASES]


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Iterator[ServerProcess]:
    """One source server holding table ``s.<id>`` (id INT PRIMARY KEY, v <type>) and one row per case."""
    with running_server(tmp_path_factory.mktemp("src") / "d", *SOURCE_ARGS) as srv:
        with connect(srv) as c, c.cursor() as cur:
            cur.execute("CREATE DATABASE s")
            for cid, ctype, literal, *_ in CASES:
                cur.execute(f"CREATE TABLE s.{cid} (id INT PRIMARY KEY, v {ctype})")
                cur.execute(f"INSERT INTO s.{cid} VALUES (1, {literal})")
            for stmt in PARTITIONED:
                cur.execute(stmt)
        yield srv


#: A HASH-partitioned table: rows of partitions 1, 1, 2, then an update moving a row from partition 1 to 2
PARTITIONED = (
    "CREATE TABLE s.part (id INT PRIMARY KEY, v INT) PARTITION BY HASH(id) PARTITIONS 4",
    "INSERT INTO s.part VALUES (1, 10), (5, 50), (2, 20)",
    "UPDATE s.part SET id = 6 WHERE id = 1",
)


def connect(srv: ServerProcess) -> pymysql.Connection:
    return pymysql.connect(host="127.0.0.1", port=srv.port, user="root", autocommit=True, charset="utf8mb4")


def binlog_events(srv: ServerProcess) -> dict[str, tuple[TableMapEvent, RowsEvent]]:
    """Per table: its Table_map and the rows event of its INSERT."""
    out: dict[str, tuple[TableMapEvent, RowsEvent]] = {}
    tm = None
    for path in sorted(srv.datadir.glob("binlog.0*")):
        for pe in read_events(path):
            if isinstance(pe.event, TableMapEvent):
                tm = pe.event
            elif isinstance(pe.event, RowsEvent) and tm is not None:
                out[tm.table] = (tm, pe.event)
    return out


@pytest.mark.parametrize(("cid", "ctype", "literal", "value"), [c[:4] for c in CASES], ids=IDS)
def test_value_over_pymysql(source, cid, ctype, literal, value):
    with connect(source) as c, c.cursor() as cur:
        cur.execute(f"SELECT v FROM s.{cid}")
        assert cur.fetchone()[0] == value
        field = c._result.fields[0]  # PyMySQL keeps the column definitions (type code, flags) there
        if ctype.startswith(("ENUM", "SET")):
            assert field.type_code == 254
            assert field.flags & (ENUM_FLAG if ctype.startswith("ENUM") else SET_FLAG)


@pytest.mark.parametrize(
    ("cid", "image", "type_code", "meta", "collation"), [(c[0], *c[4:8]) for c in CASES], ids=IDS
)
def test_row_image_and_table_map(source, cid, image, type_code, meta, collation):
    tm, rows = binlog_events(source)[cid]
    assert (tm.column_types[1], tm.column_metadata()[1].hex()) == (type_code, meta)
    assert rows.body[1 + 4 :].hex() == image  # null bitmap, id INT, then v
    fields = dict(tm.optional_metadata_fields())
    if isinstance(collation, str):  # spatial: no charset field, GEOMETRY_TYPE with the kind
        assert 2 not in fields and 3 not in fields and fields[7] == bytes([int(collation[3:])])
    elif collation is None:  # ENUM / SET: their own charset field and member lists
        assert 2 not in fields and 3 not in fields and fields[10] == b"\xfc\xff\x00"
        assert (6 if type_code == 254 and meta.startswith("f7") else 5) in fields
    else:
        assert fields[2] == (bytes([collation]) if collation < 251 else b"\xfc\xff\x00")
    assert fields[12] == b"\xc0"  # COLUMN_VISIBILITY: both visible


def test_python_mysql_replication_reads_every_type(source):
    stream = BinLogStreamReader(
        connection_settings={"host": "127.0.0.1", "port": source.port, "user": "root", "password": ""},
        server_id=201,
        blocking=False,
        only_events=[WriteRowsEvent],
    )
    try:
        events = list(stream)
    finally:
        stream.close()
    got = {e.table: e.rows[0]["values"]["v"] for e in events if e.table != "part"}
    assert got == {c[0]: c[8] for c in CASES}
    part = [[r["values"] for r in e.rows] for e in events if e.table == "part"]
    assert part == [[{"id": 1, "v": 10}, {"id": 5, "v": 50}], [{"id": 2, "v": 20}]]


def test_partition_ids_in_rows_events(source):
    """One rows event per partition run, extra data PART (1) + partition id (+ the old row's for an update)."""
    events = [
        pe.event
        for p in sorted(source.datadir.glob("binlog.0*"))
        for pe in read_events(p)
        if isinstance(pe.event, RowsEvent)
    ]
    assert [(e.type_code, e.extra.hex()) for e in events[-3:]] == [
        (30, "010100"),
        (30, "010200"),
        (31, "0102000100"),
    ]


@pytest.mark.skipif(shutil.which("mariadb-binlog") is None, reason="mariadb-binlog not installed")
def test_mariadb_binlog_decodes(source):
    out = b""
    for path in sorted(source.datadir.glob("binlog.0*")):
        r = subprocess.run(  # noqa: PLW1510 - the return code is asserted
            ["mariadb-binlog", "--verify-binlog-checksum", "-v", str(path)], capture_output=True, timeout=60
        )
        assert r.returncode == 0 and b"ERROR" not in r.stderr, r.stderr
        out += r.stdout
    for cid, *_, text in CASES:
        if text is not None:
            block = out.split(f"### INSERT INTO `s`.`{cid}`".encode(), 1)[1].split(b"# Number of rows", 1)[0]
            assert text in block, (cid, block)


def test_gtidkit_replica_tables_equal(source, tmp_path):
    paths = sorted(source.datadir.glob("binlog.0*"))
    trxs = [t for p in paths for t in read_transactions(p).transactions]
    with Server.open(tmp_path / "r", log_bin=False, server_id=2) as rep:
        relay = RelayLog.open(tmp_path / "r", server=rep, basename="relay-bin")
        applier = Applier(rep, relay)
        applier.start()
        relay.begin_source()
        for ev in dump_stream(paths):
            relay.append(ev)
        assert rep.gtid_state.wait_for_executed(GtidSet.from_gtids(t.gtid for t in trxs), 30)
        assert applier.stop(10) and applier.last_error is None
        with rep.session() as s, connect(source) as c, c.cursor() as cur:
            for cid in [c[0] for c in CASES] + ["part"]:
                cur.execute(f"SELECT id, v FROM s.{cid}")
                mine = s.execute(f"SELECT id, v FROM s.{cid}")[-1].rows
                assert [tuple(r) for r in cur.fetchall()] == [tuple(r) for r in mine], cid
                cur.execute(f"SHOW CREATE TABLE s.{cid}")
                assert s.execute(f"SHOW CREATE TABLE s.{cid}")[-1].rows[0][1] == cur.fetchone()[1]
        relay.close()


def test_latin1_client_text_is_logged_as_sent_and_applied(tmp_path):
    """A latin1 client's statement is logged in its own bytes (é = E9) with Q_CHARSET_CODE (8, 8, 255), as MySQL's
    ``Query_log_event`` stores ``thd->query()`` and ``thd->variables.character_set_client``; the replica reads
    the text in that set (a table named é whose default is é), and the row image holds each column's bytes."""
    with running_server(tmp_path / "d", *SOURCE_ARGS) as srv:
        with (
            pymysql.connect(
                host="127.0.0.1", port=srv.port, user="root", autocommit=True, charset="latin1"
            ) as c,
            c.cursor() as cur,
        ):
            cur.execute("CREATE DATABASE s")
            cur.execute(
                "CREATE TABLE s.`é` (id INT PRIMARY KEY, v VARCHAR(5) CHARACTER SET latin1 DEFAULT 'é', u TEXT)"
            )
            cur.execute("INSERT INTO s.`é` (id, u) VALUES (1, 'é')")
        paths = sorted(srv.datadir.glob("binlog.0*"))
        events = [pe.event for p in paths for pe in read_events(p)]
        (ddl,) = [e for e in events if isinstance(e, QueryEvent) and e.query.startswith("CREATE TABLE")]
        assert ddl.query.encode("utf-8", "surrogateescape").endswith(b"DEFAULT '\xe9', u TEXT)")
        sv = decode_status_vars(ddl.status_vars)
        assert (sv.character_set_client, sv.collation_connection, sv.collation_server) == (8, 8, 255)
        (rows,) = [e for e in events if isinstance(e, RowsEvent)]
        assert rows.body.hex() == "00" + "01000000" + "01e9" + "0200c3a9"
        trxs = [t for p in paths for t in read_transactions(p).transactions]
        with Server.open(tmp_path / "r", log_bin=False, server_id=2) as rep:
            relay = RelayLog.open(tmp_path / "r", server=rep, basename="relay-bin")
            applier = Applier(rep, relay)
            applier.start()
            relay.begin_source()
            for ev in dump_stream(paths):
                relay.append(ev)
            assert rep.gtid_state.wait_for_executed(GtidSet.from_gtids(t.gtid for t in trxs), 30)
            assert applier.stop(10) and applier.last_error is None
            with rep.session() as s:
                assert s.execute("SELECT id, v, u FROM s.`é`")[-1].rows == [(1, "é", "é")]
            relay.close()


def test_mysql_connector_python_sees_set_flag_and_binds_enum_index(source):
    """mysql-connector-python turns a SET column into a Python set only from SET_FLAG (its conversion.py), and a
    prepared INSERT binding an integer to an ENUM stores that index's member."""
    import mysql.connector

    conn = mysql.connector.connect(
        host="127.0.0.1", port=source.port, user="root", password="", autocommit=True
    )
    try:
        cur = conn.cursor()
        cur.execute("SELECT v FROM s.set_order")
        assert cur.fetchall() == [({"x", "z"},)]
        prepared = conn.cursor(prepared=True)
        prepared.execute("INSERT INTO s.enum_index VALUES (?, ?)", (2, 1))
        cur.execute("SELECT v FROM s.enum_index WHERE id = 2")
        assert cur.fetchall() == [("a",)]
        cur.execute("DELETE FROM s.enum_index WHERE id = 2")
    finally:
        conn.close()
