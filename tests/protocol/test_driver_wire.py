"""What client drivers need of the packets (issue 19 section 1), through real drivers on a real server process.

- Result sets of 251 columns or more: the column count is a length-encoded integer (``0xFC`` + 2 bytes from 251
  on), and the packet's length covers all of it (client/server protocol manual, "Text Resultset": the first packet
  is ``int<lenenc> column_count``; "Basic Data Types": ``0xFC`` + 2-byte integer for 251 <= x < 2^16).
- sql_mode NO_BACKSLASH_ESCAPES (manual "Server SQL Modes": a backslash is an ordinary character within strings)
  sets SERVER_STATUS_NO_BACKSLASH_ESCAPES (0x0200, ``mysql_com.h``) in OK / EOF packets, and the clients that read
  it escape with doubled quotes only: PyMySQL (``Connection.escape_string``), mysql-connector-python (its
  ``sql_mode``) and libmariadb's ``mysql_real_escape_string``.
"""

from __future__ import annotations

import ctypes
import datetime as dt
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import mysql.connector
import pymysql
import pytest

from . import node_mysql2
from .server_proc import LibMariaDB, ServerProcess, running_server

NO_BACKSLASH_ESCAPES = 0x0200


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    datadir = tmp_path_factory.mktemp("driverwire") / "data"
    with running_server(datadir, "--server-id=19") as s:
        conn = pymysql.connect(host="127.0.0.1", port=s.port, user="root", password="", autocommit=True)
        with conn.cursor() as cur:
            cur.execute("CREATE DATABASE w")
        conn.close()
        yield s


@pytest.fixture(scope="module")
def mysql2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return node_mysql2.install(node_mysql2.session_cache(tmp_path_factory))


def _pymysql(srv: ServerProcess) -> pymysql.connections.Connection:
    return pymysql.connect(host="127.0.0.1", port=srv.port, user="root", password="", autocommit=True)


def _connector(srv: ServerProcess) -> mysql.connector.MySQLConnection:
    return mysql.connector.connect(
        host="127.0.0.1", port=srv.port, user="root", password="", use_pure=True, autocommit=True
    )


# ------------------------------------------------------------------------------------------------ 251+ columns
WIDTHS = [250, 251, 252, 1000, 4096]


@pytest.mark.parametrize("width", WIDTHS, ids=[f"{w}cols" for w in WIDTHS])
def test_wide_result_sets_pymysql_and_connector(srv: ServerProcess, width: int) -> None:
    sql = "SELECT " + ", ".join(f"{i} AS c{i}" for i in range(width))
    conn = _pymysql(srv)
    with conn.cursor() as cur:
        cur.execute(sql)
        assert cur.fetchall() == (tuple(range(width)),)
        assert [d[0] for d in cur.description][-1] == f"c{width - 1}"
    conn.close()
    c2 = _connector(srv)
    for prepared in (False, True):  # text and binary protocol
        cur2 = c2.cursor(prepared=prepared)
        cur2.execute(sql)
        assert cur2.fetchall() == [tuple(range(width))]
        cur2.close()
    c2.close()


def test_wide_result_sets_mysql2(srv: ServerProcess, mysql2: Path) -> None:
    steps = []
    for width in WIDTHS:
        sql = "SELECT " + ", ".join(f"'v{i}'" for i in range(width))
        steps += [{"how": "query", "sql": sql}, {"how": "execute", "sql": sql}]
    out = node_mysql2.run(mysql2, srv.port, steps)
    for width, (text, binary) in zip(WIDTHS, zip(out[::2], out[1::2], strict=True), strict=True):
        expected = [[f"v{i}" for i in range(width)]]
        assert text.get("rows") == expected, text
        assert binary.get("rows") == expected, binary


# ------------------------------------------------------------------------------------------------ NO_BACKSLASH_ESCAPES
#: (literal as sent, its value with NO_BACKSLASH_ESCAPES): the manual's rule, a backslash is an ordinary character
LITERALS = [
    (r"'a\'", "a\\"),
    (r"'a\\b'", "a\\\\b"),
    (r"'it''s\n'", "it's\\n"),
    (r"'\%'", "\\%"),
    (r'"q\"', "q\\"),
]


@pytest.mark.parametrize(("literal", "value"), LITERALS, ids=[lit for lit, _ in LITERALS])
def test_no_backslash_escapes_literals(srv: ServerProcess, literal: str, value: str) -> None:
    conn = _pymysql(srv)
    with conn.cursor() as cur:
        assert not conn.server_status & NO_BACKSLASH_ESCAPES
        cur.execute("SET SESSION sql_mode = CONCAT(@@sql_mode, ',NO_BACKSLASH_ESCAPES')")
        assert conn.server_status & NO_BACKSLASH_ESCAPES  # the OK packet of the SET
        cur.execute(f"SELECT {literal}, LENGTH({literal})")
        assert cur.fetchall() == ((value, len(value)),)
        assert conn.server_status & NO_BACKSLASH_ESCAPES  # the EOF / OK that ends the result set
        cur.execute("SET SESSION sql_mode = DEFAULT")
        assert not conn.server_status & NO_BACKSLASH_ESCAPES
    conn.close()


def test_no_backslash_escapes_splits_statements_at_the_quote(srv: ServerProcess) -> None:
    conn = pymysql.connect(
        host="127.0.0.1",
        port=srv.port,
        user="root",
        password="",
        autocommit=True,
        client_flag=pymysql.constants.CLIENT.MULTI_STATEMENTS,
    )
    with conn.cursor() as cur:
        cur.execute("SET sql_mode = 'NO_BACKSLASH_ESCAPES'")
        cur.execute(r"SELECT 'x\'; SELECT 'y'")
        assert cur.fetchall() == (("x\\",),)
        assert cur.nextset()
        assert cur.fetchall() == (("y",),)
    conn.close()


#: values a client escapes into a statement: backslashes, quotes, a NUL, newlines
AWKWARD = ["p\\q'r", "\\", "'\\'", "a\nb\\n", "end\\"]


def test_no_backslash_escapes_client_escaping_round_trips(srv: ServerProcess) -> None:
    """Each client escapes as the status flag / sql_mode tells it, and the server reads it back unchanged."""
    conn = _pymysql(srv)
    with conn.cursor() as cur:
        cur.execute("CREATE TABLE w.nbe (id INT PRIMARY KEY, s VARCHAR(40), b VARBINARY(40))")
        cur.execute("SET sql_mode = 'STRICT_TRANS_TABLES,NO_BACKSLASH_ESCAPES'")
        for i, v in enumerate(AWKWARD):  # PyMySQL: escape_string with '' only (server_status has 0x0200)
            cur.execute("INSERT INTO w.nbe VALUES (%s, %s, %s)", (i, v, v.encode()))
        cur.execute("SELECT s, b FROM w.nbe ORDER BY id")
        assert cur.fetchall() == tuple((v, v.encode()) for v in AWKWARD)
        cur.execute("DELETE FROM w.nbe")
    conn.close()
    c2 = _connector(srv)
    c2.sql_mode = "STRICT_TRANS_TABLES,NO_BACKSLASH_ESCAPES"  # the connector escapes by its sql_mode
    cur2 = c2.cursor()
    for i, v in enumerate(AWKWARD):
        cur2.execute("INSERT INTO w.nbe VALUES (%s, %s, %s)", (i, v, v.encode()))
    cur2.execute("SELECT s FROM w.nbe ORDER BY id")
    assert cur2.fetchall() == [(v,) for v in AWKWARD]
    cur2.execute("DELETE FROM w.nbe")
    c2.close()
    lib = LibMariaDB()
    lib.connect(srv.port)
    try:
        lib.query("SET sql_mode = 'NO_BACKSLASH_ESCAPES'")
        lib.lib.mysql_real_escape_string.restype = ctypes.c_ulong
        lib.lib.mysql_real_escape_string.argtypes = [
            ctypes.c_void_p,
            ctypes.c_char_p,
            ctypes.c_char_p,
            ctypes.c_ulong,
        ]
        for i, v in enumerate(AWKWARD):
            raw = v.encode()
            buf = ctypes.create_string_buffer(2 * len(raw) + 1)
            n = lib.lib.mysql_real_escape_string(lib.handle, buf, raw, len(raw))
            escaped = buf.raw[:n].decode()
            assert "\\\\" not in escaped or "\\\\" in v  # libmariadb doubled no backslash: it saw 0x0200
            lib.query(f"INSERT INTO w.nbe VALUES ({i}, '{escaped}', NULL)")
    finally:
        lib.close()
    conn = _pymysql(srv)
    with conn.cursor() as cur:
        cur.execute("SELECT s FROM w.nbe ORDER BY id")
        assert cur.fetchall() == tuple((v,) for v in AWKWARD)
    conn.close()


def test_no_backslash_escapes_prepared(srv: ServerProcess, mysql2: Path) -> None:
    """A prepared statement's text is read under the mode too; its bound values are never re-read."""
    c2 = _connector(srv)
    cur = c2.cursor(prepared=True)
    cur.execute("SET SESSION sql_mode = 'NO_BACKSLASH_ESCAPES'")
    cur.execute(r"SELECT 'c:\dir\', ?", ("x\\'y",))
    assert cur.fetchall() == [("c:\\dir\\", "x\\'y")]
    c2.close()


# ------------------------------------------------------------------------------------------------ binary rows
#: (column, definition, literal stored, what PyMySQL's text decoding gives, what mysql2 gives with dateStrings /
#: bigNumberStrings, in both protocols): every type's extremes from the manual ("Integer Types" ranges, "Fixed-Point
#: Types", "The DATE, DATETIME, and TIMESTAMP Types" / "Fractional Seconds in Time Values", "The TIME Type" for a
#: negative TIME beyond a day, "Bit-Value Type", "The JSON Data Type"). The binary protocol's layouts ("Binary
#: Protocol Value": int<1/2/4/8> by width, IEEE-754 FLOAT / DOUBLE, DECIMAL as a length-encoded string, MYSQL_TIME
#: with fsp for temporal types, YEAR as int<2>, BIT / BLOB / JSON as length-encoded strings) are decoded by the
#: drivers' own parsers.
TYPES = [
    ("ti", "TINYINT", "-128", -128, -128),
    ("tu", "TINYINT UNSIGNED", "255", 255, 255),
    ("si", "SMALLINT", "-32768", -32768, -32768),
    ("su", "SMALLINT UNSIGNED", "65535", 65535, 65535),
    ("mi", "MEDIUMINT", "-8388608", -8388608, -8388608),
    ("mu", "MEDIUMINT UNSIGNED", "16777215", 16777215, 16777215),
    ("i", "INT", "-2147483648", -2147483648, -2147483648),
    ("iu", "INT UNSIGNED", "4294967295", 4294967295, 4294967295),
    ("bi", "BIGINT", "-9223372036854775808", -9223372036854775808, "-9223372036854775808"),
    ("bu", "BIGINT UNSIGNED", "18446744073709551615", 18446744073709551615, "18446744073709551615"),
    ("f", "FLOAT", "1.5", 1.5, 1.5),
    ("d", "DOUBLE", "-2.25", -2.25, -2.25),
    (
        "de",
        "DECIMAL(20,6)",
        "-12345678901234.123456",
        Decimal("-12345678901234.123456"),
        "-12345678901234.123456",
    ),
    ("dt", "DATE", "'2024-02-29'", dt.date(2024, 2, 29), "2024-02-29"),
    (
        "dtm",
        "DATETIME(6)",
        "'2024-02-29 23:59:58.123456'",
        dt.datetime(2024, 2, 29, 23, 59, 58, 123456),
        "2024-02-29 23:59:58.123456",
    ),
    ("dt0", "DATETIME", "'1000-01-01 00:00:00'", dt.datetime(1000, 1, 1), "1000-01-01 00:00:00"),
    (
        "ts",
        "TIMESTAMP(3) NULL",
        "'2024-01-02 03:04:05.5'",
        dt.datetime(2024, 1, 2, 3, 4, 5, 500000),
        "2024-01-02 03:04:05.500",
    ),
    (
        "tm",
        "TIME(2)",
        "'-26:03:04.25'",
        -dt.timedelta(hours=26, minutes=3, seconds=4, microseconds=250000),
        "-26:03:04.25",
    ),
    ("tp", "TIME", "'838:59:59'", dt.timedelta(hours=838, minutes=59, seconds=59), "838:59:59"),
    ("y", "YEAR", "2024", 2024, 2024),
    ("c", "CHAR(3)", "'abc'", "abc", "abc"),
    ("vc", "VARCHAR(10)", "'h\u00e9llo \U0001f600'", "h\u00e9llo \U0001f600", "h\u00e9llo \U0001f600"),
    ("bn", "BINARY(3)", "x'000102'", b"\x00\x01\x02", {"hex": "000102"}),
    ("vb", "VARBINARY(4)", "x'ff00'", b"\xff\x00", {"hex": "ff00"}),
    ("bl", "BLOB", "x'00ff10'", b"\x00\xff\x10", {"hex": "00ff10"}),
    ("tx", "TEXT", "'text'", "text", "text"),
    ("bt", "BIT(10)", "b'1010000001'", b"\x02\x81", {"hex": "0281"}),
    ("en", "ENUM('a','b')", "'b'", "b", "b"),
    ("st", "SET('x','y')", "'x,y'", "x,y", "x,y"),
    ("js", "JSON", """'{"a": [1, 2]}'""", '{"a": [1, 2]}', '{"a": [1, 2]}'),
]
#: what mysql-connector-python's pure decoder cannot read from MySQL's own packets either: YEAR in the binary
#: protocol (it reads int<2> as a length-encoded string) and a negative TIME (it negates only the days)
CONNECTOR_BINARY_SKIPS = {"y", "tm"}


@pytest.fixture(scope="module")
def typed(srv: ServerProcess) -> str:
    conn = _pymysql(srv)
    with conn.cursor() as cur:
        cur.execute(
            "CREATE TABLE w.typed (id INT PRIMARY KEY, " + ", ".join(f"{c} {d}" for c, d, *_ in TYPES) + ")"
        )
        cur.execute(
            "INSERT INTO w.typed VALUES (1, " + ", ".join(lit for _, _, lit, *_ in TYPES) + "), "
            "(2, " + ", ".join("NULL" for _ in TYPES) + ")"
        )
    conn.close()
    return "SELECT " + ", ".join(c for c, *_ in TYPES) + " FROM w.typed ORDER BY id"


def _plain(v: object) -> object:
    return bytes(v) if isinstance(v, bytearray) else v


def test_every_type_text_protocol_pymysql(srv: ServerProcess, typed: str) -> None:
    conn = _pymysql(srv)
    with conn.cursor() as cur:
        cur.execute(typed)
        rows = cur.fetchall()
    conn.close()
    assert rows[0] == tuple(t[3] for t in TYPES)
    assert rows[1] == (None,) * len(TYPES)


def test_every_type_both_protocols_connector(srv: ServerProcess, typed: str) -> None:
    """mysql-connector-python (pure): the text result and the binary (prepared) result decode to the same values."""
    c2 = _connector(srv)
    text = c2.cursor()
    text.execute(typed)
    text_rows = text.fetchall()
    binary = c2.cursor(prepared=True)  # without YEAR: its int<2> would derail the rest of the row's parse
    binary.execute(typed.replace(", y,", ","))
    at = [t[0] for t in TYPES].index("y")
    binary_rows = [r[:at] + (None,) + r[at:] for r in binary.fetchall()]
    c2.close()
    assert binary_rows[1] == (None,) * len(TYPES)
    for i, (col, _, _, expected, _) in enumerate(TYPES):
        if col in ("bt", "st"):  # connector's text decoder gives BIT as an int and SET as a Python set
            assert text_rows[0][i] == ({"x", "y"} if col == "st" else 0b1010000001), col
        else:
            assert _plain(text_rows[0][i]) == expected, col
        if col in CONNECTOR_BINARY_SKIPS:
            continue
        got = _plain(binary_rows[0][i])
        if col == "js":  # the binary decoder returns a binary-charset column's bytes
            got = got.decode() if isinstance(got, bytes) else got
        assert got == expected, col


def test_every_type_both_protocols_mysql2(srv: ServerProcess, typed: str, mysql2: Path) -> None:
    """Node's mysql2: ``query`` (text rows) and ``execute`` (binary rows) decode every value the same way."""
    text, binary = node_mysql2.run(
        mysql2, srv.port, [{"how": "query", "sql": typed}, {"how": "execute", "sql": typed}]
    )
    expected = [t[4] for t in TYPES]
    assert text["rows"] == [expected, [None] * len(TYPES)], text
    assert binary["rows"] == [expected, [None] * len(TYPES)], binary
    assert text["fields"] == binary["fields"]


# ------------------------------------------------------------------------------------------------ result metadata
#: (item, [type, flags, charset, length, decimals] as the column definition carries them, its value as text):
#: temporal items are DATE (10) / DATETIME (12) / TIME (11) with the binary charset (63), BINARY_FLAG (128), NOT_NULL
#: (1) for the current-time functions, their fsp as decimals and 10 / 19 / 10 + fsp + 1 as length; numbers carry no
#: NUM_FLAG (32768), which only the client library adds (see gtidkit.engine.sql.temporal_types for the sources).
TEMPORAL_ITEMS = [
    ("CAST('2024-01-02 10:11:12.555' AS DATE)", [10, 128, 63, 10, 0], "2024-01-02"),
    ("CAST('2024-01-02 10:11:12.555' AS DATETIME(2))", [12, 128, 63, 22, 2], "2024-01-02 10:11:12.56"),
    ("CAST('2024-01-02 10:11:12' AS DATETIME)", [12, 128, 63, 19, 0], "2024-01-02 10:11:12"),
    ("CAST('10:00:00.5' AS TIME(2))", [11, 128, 63, 13, 2], "10:00:00.50"),
    ("CONVERT('-838:59:59', TIME)", [11, 128, 63, 10, 0], "-838:59:59"),
    ("FROM_UNIXTIME(1.5)", [12, 128, 63, 21, 1], "1970-01-01 00:00:01.5"),
    ("FROM_UNIXTIME(86400)", [12, 128, 63, 19, 0], "1970-01-02 00:00:00"),
    ("UNIX_TIMESTAMP('2024-01-01 00:00:00.25')", [246, 128, 63, None, 2], "1704067200.25"),
    ("TIME('2003-12-31 01:02:03.000123')", [11, 128, 63, 17, 6], "01:02:03.000123"),
    ("TIMESTAMP('2003-12-31')", [12, 128, 63, 19, 0], "2003-12-31 00:00:00"),
    ("DATE_ADD(dt, INTERVAL 1 DAY)", [10, 128, 63, 10, 0], "2024-03-01"),
    ("dt + INTERVAL 1 HOUR", [12, 128, 63, 19, 0], "2024-02-29 01:00:00"),
    ("DATE_SUB(dtm, INTERVAL 1 SECOND)", [12, 128, 63, 26, 6], "2024-02-29 23:59:57.123456"),
    ("UNIX_TIMESTAMP(dtm)", [246, 128, 63, None, 6], "1709251198.123456"),
    ("1 + 1", [8, 129, 63, 3, 0], "2"),  # a BIGINT: a string with bigNumberStrings
    ("NULL", [6, 128, 63, 0, 0], None),
]
#: the current-time functions: only their metadata is fixed
CLOCK_ITEMS = [
    ("NOW()", [12, 129, 63, 19, 0]),
    ("NOW(3)", [12, 129, 63, 23, 3]),
    ("CURRENT_TIMESTAMP(6)", [12, 129, 63, 26, 6]),
    ("CURDATE()", [10, 129, 63, 10, 0]),
    ("CURTIME(2)", [11, 129, 63, 13, 2]),
    ("UTC_TIMESTAMP(1)", [12, 129, 63, 21, 1]),
    ("UNIX_TIMESTAMP()", [8, 129, 63, None, 0]),
]


def _meta(field: dict, expected: list[int | None] | None = None) -> list[int | None]:
    """[type, flags, charset, length, decimals]; a length ``expected`` leaves as None is not compared (UNIX_TIMESTAMP's
    display width is not documented)."""
    got: list[int | None] = [
        field["type"],
        field["flags"],
        field["charset"],
        field["length"],
        field["decimals"],
    ]
    if expected is not None and expected[3] is None:
        got[3] = None
    return got


def test_temporal_item_metadata_and_values_mysql2(srv: ServerProcess, typed: str, mysql2: Path) -> None:
    items = ", ".join(i for i, _, _ in TEMPORAL_ITEMS)
    clock = ", ".join(i for i, _ in CLOCK_ITEMS)
    steps = [{"how": "query", "sql": "SET time_zone = '+00:00'"}]
    for how in ("query", "execute"):
        steps.append({"how": how, "sql": f"SELECT {items} FROM w.typed WHERE id = 1"})
        steps.append({"how": how, "sql": f"SELECT {clock}"})
    out = node_mysql2.run(mysql2, srv.port, steps)
    for how, res, clock_res in (("query", out[1], out[2]), ("execute", out[3], out[4])):
        assert "rows" in res, res
        for (item, meta, value), field, got in zip(
            TEMPORAL_ITEMS, res["fields"], res["rows"][0], strict=True
        ):
            assert _meta(field, meta) == meta, (how, item)
            if how == "execute" and meta[0] == 11 and isinstance(value, str):
                value = value.rstrip("0").rstrip(".") if "." in value else value  # mysql2's readTimeString
            assert got == value, (how, item)
        assert [_meta(f, m) for f, (_, m) in zip(clock_res["fields"], CLOCK_ITEMS, strict=True)] == [
            m for _, m in CLOCK_ITEMS
        ], how


def test_temporal_items_decode_as_temporal_values(srv: ServerProcess) -> None:
    """PyMySQL (text) and mysql-connector-python (binary rows) get date / datetime / timedelta objects."""
    sql = (
        "SELECT CAST('2024-01-02 10:11:12.555' AS DATETIME(2)), CAST('2024-01-02' AS DATE),"
        " CAST('10:00:00.5' AS TIME(2)), NOW(6), CURDATE()"
    )
    expected = [
        dt.datetime(2024, 1, 2, 10, 11, 12, 560000),
        dt.date(2024, 1, 2),
        dt.timedelta(hours=10, microseconds=500000),
    ]
    conn = _pymysql(srv)
    with conn.cursor() as cur:
        cur.execute(sql)
        text = cur.fetchone()
        assert [d[1] for d in cur.description] == [12, 10, 11, 12, 10]
    conn.close()
    c2 = _connector(srv)
    cur2 = c2.cursor(prepared=True)
    cur2.execute(sql)
    binary = cur2.fetchone()
    c2.close()
    for row in (text, binary):
        assert list(row[:3]) == expected
        assert isinstance(row[3], dt.datetime) and isinstance(row[4], dt.date)


#: EXPLAIN's columns as ``THD::send_explain_fields`` declares them: [type, flags, charset, length, decimals]; strings
#: are utf8mb3_general_ci (33) of NAME_CHAR_LEN (64) / MAX_KEY (64) / MAX_REF_PARTS (16) / MAX_PARTITIONS x (1 +
#: FN_LEN) characters x 3 bytes, ``id`` / ``rows`` unsigned BIGINTs (UNSIGNED 32 | BINARY 128), ``filtered`` a
#: DOUBLE with 2 decimals, ``id`` and ``select_type`` NOT NULL.
EXPLAIN_FIELDS = [
    ("id", [8, 161, 63, 3, 0]),
    ("select_type", [253, 1, 33, 57, 31]),
    ("table", [253, 0, 33, 192, 31]),
    ("partitions", [253, 0, 33, 8192 * 257 * 3, 31]),
    ("type", [253, 0, 33, 30, 31]),
    ("possible_keys", [253, 0, 33, 12288, 31]),
    ("key", [253, 0, 33, 192, 31]),
    ("key_len", [253, 0, 33, 12288, 31]),
    ("ref", [253, 0, 33, 3072, 31]),
    ("rows", [8, 160, 63, 10, 0]),
    ("filtered", [5, 128, 63, 4, 2]),
    ("Extra", [253, 0, 33, 765, 31]),
]


def test_explain_metadata_mysql2(srv: ServerProcess, typed: str, mysql2: Path) -> None:
    sql = "EXPLAIN SELECT * FROM w.typed WHERE id = 1"
    text, binary = node_mysql2.run(
        mysql2, srv.port, [{"how": "query", "sql": sql}, {"how": "execute", "sql": sql}]
    )
    for res in (text, binary):
        assert [(f["name"], _meta(f)) for f in res["fields"]] == EXPLAIN_FIELDS
        row = res["rows"][0]
        assert row[:2] == ["1", "SIMPLE"] and row[10] == 100  # BIGINT as a string (bigNumberStrings)


def test_no_backslash_escapes_statement_logged_readably(tmp_path: Path) -> None:
    """A statement read under NO_BACKSLASH_ESCAPES is logged (binlog_format=STATEMENT) with its strings in the
    default lexing and without the mode in the Query event, so any reader (a replica, mysqlbinlog) gets the same
    value: ``'a\\'`` is logged as ``'a\\\\'`` with sql_mode's NO_BACKSLASH_ESCAPES bit (1 << 20) clear."""
    from gtidkit.binlog.events.query_status import decode_status_vars
    from gtidkit.binlog.file import read_events

    with running_server(tmp_path / "data", "--log-bin", "--binlog-format=STATEMENT", "--server-id=21") as s:
        conn = _pymysql(s)
        with conn.cursor() as cur:
            cur.execute("CREATE DATABASE nb")
            cur.execute("CREATE TABLE nb.t (s VARCHAR(10))")
            cur.execute("SET sql_mode = 'STRICT_TRANS_TABLES,NO_BACKSLASH_ESCAPES'")
            cur.execute(r"INSERT INTO nb.t VALUES ('a\')")
            cur.execute("SHOW BINLOG EVENTS IN 'binlog.000001'")
            infos = [r[5] for r in cur.fetchall() if r[2] == "Query"]
            cur.execute("SELECT s FROM nb.t")
            assert cur.fetchall() == (("a\\",),)
        conn.close()
    assert any(i.endswith(r"INSERT INTO nb.t VALUES ('a\\')") for i in infos), infos
    queries = [
        e.event
        for e in read_events(tmp_path / "data" / "binlog.000001")
        if "INSERT INTO nb.t" in str(getattr(e.event, "query", ""))
    ]
    assert len(queries) == 1
    mode = decode_status_vars(queries[0].status_vars).sql_mode
    assert mode is not None and not mode & (1 << 20) and mode & (1 << 21)  # STRICT_TRANS_TABLES kept


#: a column whose rows mix numbers and strings is a string column (MySQL's aggregated type of a UNION / IF / CASE
#: of a number and a string is VARCHAR): typed as a number, a driver reads 'a' as one, and no binary number holds it
MIXED = [
    ("SELECT 1 UNION SELECT 'a'", [["1"], ["a"]]),
    ("SELECT 1.5 UNION SELECT 'x'", [["1.5"], ["x"]]),
    ("SELECT IF(a = 1, 1, 'x') FROM (SELECT 1 AS a UNION SELECT 2) d", [["1"], ["x"]]),
]


def test_mixed_columns_are_strings_both_protocols(srv: ServerProcess, mysql2: Path) -> None:
    steps = [{"how": how, "sql": sql} for sql, _ in MIXED for how in ("query", "execute")]
    out = node_mysql2.run(mysql2, srv.port, steps)
    for i, (sql, rows) in enumerate(MIXED):
        for res in out[2 * i : 2 * i + 2]:
            assert res.get("rows") == rows, (sql, res)
            assert res["fields"][0]["type"] == 253, sql
    c2 = _connector(srv)
    cur = c2.cursor(prepared=True)
    cur.execute(MIXED[0][0])
    assert cur.fetchall() == [("1",), ("a",)]
    c2.close()
