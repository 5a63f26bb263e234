"""Numeric and temporal column types end to end: DDL, the value a client reads, the row-image bytes and Table_map
metadata in the binary log, and three independent readers of that log (issue 18 section 2).

One real source (`gtidkit server --log-bin --gtid-mode=ON`) and one real replica process serve the whole module; each
case is one table ``types.t_<id> (id INT PRIMARY KEY, v <type>)`` with one row ``(1, <literal>)``.

Where the expected values come from (MySQL, never our own output):

- wire text: the manual's display rules. RM8 13.1.6 "Numeric Data Type Attributes" (ZEROFILL pads to the display
  width: ``INT(4) ZEROFILL`` shows 5 as ``0005``), 13.1.5 "Bit-Value Type" (a BIT value is a binary string of
  ``(M + 7) // 8`` bytes), 13.2.3 "The TIME Type" (-838:59:59 .. 838:59:59, fractional seconds rounded to the
  column's fsp), 13.2.4 "The YEAR Type" ('0'..'69' are 2000..2069, 0 is 0000, displayed in four digits), 13.1.2
  "Integer Types" (the ranges), 13.1.4 "FLOAT(p)" (p 25..53 is a DOUBLE);
- row-image bytes and Table_map metadata: ``Field::pack`` and ``Field::do_save_field_metadata`` (``sql/field.cc``):
  integers little-endian two's complement; BIT metadata ``(M % 8, M // 8)`` and the value big-endian (the real
  8.0.26 ``mysql_type_bit.000001`` fixture: BIT(3) ``03 00``, BIT(8) ``00 01``); YEAR one byte, year - 1900; TIME2
  ``my_time_packed_to_binary`` (``mysys/my_time.cc``, whose comment lists ``-00:00:01.01`` as ``7FFFFE.FF``); FLOAT
  metadata 4, DOUBLE 8;
- readers: python-mysql-replication (``BinLogStreamReader`` against the source), ``mariadb-binlog
  --verify-binlog-checksum -v`` on the source's file, and gtidkit's own replica applying what it received.
"""

from __future__ import annotations

import datetime as dt
import shutil
import subprocess
import time
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pymysql
import pytest
from protocol.server_proc import ServerProcess, running_server
from pymysqlreplication import BinLogStreamReader
from pymysqlreplication.row_event import WriteRowsEvent

from gtidkit.binlog.cursor import Cursor
from gtidkit.binlog.events.rows import RowsEvent, TableMapEvent
from gtidkit.binlog.file import read_events
from gtidkit.binlog.row_image import column_specs, decode_value

# FULL: the Table_map checks read column names, ENUM/SET member lists and the primary key (binlog_row_metadata)
SOURCE_ARGS = (
    "--log-bin",
    "--gtid-mode=ON",
    "--enforce-gtid-consistency=ON",
    "--server-id=1",
    "--binlog-row-metadata=FULL",
)
REPLICA_ARGS = ("--server-id=2", "--skip-log-bin", "--gtid-mode=ON", "--enforce-gtid-consistency=ON")

# id | column type | literal | bytes over the wire (text protocol) | row-image hex | Table_map type | metadata hex
CASES: list[tuple[str, str, str, bytes, str, int, str]] = [
    (
        "bigint_unsigned_max",
        "BIGINT UNSIGNED",
        "18446744073709551615",
        b"18446744073709551615",
        "ff" * 8,
        8,
        "",
    ),
    (
        "bigint_unsigned_2_63",
        "BIGINT UNSIGNED",
        "9223372036854775808",
        b"9223372036854775808",
        "00" * 7 + "80",
        8,
        "",
    ),
    ("bigint_min", "BIGINT", "-9223372036854775808", b"-9223372036854775808", "00" * 7 + "80", 8, ""),
    ("tinyint_unsigned", "TINYINT UNSIGNED", "255", b"255", "ff", 1, ""),
    ("smallint_min", "SMALLINT", "-32768", b"-32768", "0080", 2, ""),
    ("mediumint_unsigned", "MEDIUMINT UNSIGNED", "16777215", b"16777215", "ffffff", 9, ""),
    ("int_unsigned", "INT UNSIGNED", "4294967295", b"4294967295", "ffffffff", 3, ""),
    ("int_zerofill", "INT(5) ZEROFILL", "42", b"00042", "2a000000", 3, ""),
    ("bigint_zerofill", "BIGINT ZEROFILL", "7", b"00000000000000000007", "07" + "00" * 7, 8, ""),
    ("bool", "BOOL", "TRUE", b"1", "01", 1, ""),
    ("bit_1", "BIT", "1", b"\x01", "01", 16, "0100"),
    ("bit_6", "BIT(6)", "b'100010'", b"\x22", "22", 16, "0600"),
    ("bit_10", "BIT(10)", "b'1111111111'", b"\x03\xff", "03ff", 16, "0201"),
    ("bit_64", "BIT(64)", "18446744073709551615", b"\xff" * 8, "ff" * 8, 16, "0008"),
    ("bit_string", "BIT(16)", "'ab'", b"ab", "6162", 16, "0002"),
    ("year_0", "YEAR", "0", b"0000", "00", 13, ""),
    ("year_text_0", "YEAR", "'0'", b"2000", "64", 13, ""),
    ("year_69", "YEAR", "'69'", b"2069", "a9", 13, ""),
    ("year_2155", "YEAR", "2155", b"2155", "ff", 13, ""),
    ("float", "FLOAT", "1.5", b"1.5", "0000c03f", 4, "04"),
    ("float_p30_is_double", "FLOAT(30)", "2.25", b"2.25", "0000000000000240", 5, "08"),
    ("time_min", "TIME", "'-838:59:59'", b"-838:59:59", "4b9105", 19, "00"),
    ("time_max", "TIME", "'838:59:59'", b"838:59:59", "b46efb", 19, "00"),
    ("time_neg_frac", "TIME(2)", "'-00:00:01.01'", b"-00:00:01.01", "7ffffeff", 19, "02"),
    ("time_neg_hundredth", "TIME(2)", "'-00:00:00.01'", b"-00:00:00.01", "7fffffff", 19, "02"),
    ("time_round_fsp3", "TIME(3)", "'12:00:00.9995'", b"12:00:01.000", "80c0010000", 19, "03"),
    ("time_min_fsp6", "TIME(6)", "'-838:59:59.000000'", b"-838:59:59.000000", "4b9105000000", 19, "06"),
    ("time_days", "TIME", "'1 02:03:04'", b"26:03:04", "81a0c4", 19, "00"),
    ("time_digits", "TIME", "-123456", b"-12:34:56", "7f3748", 19, "00"),
    # DECIMAL(M,D): metadata (M, D); decimal2bin's 9-digit groups in 4 big-endian bytes, leftover digits in
    # dig2bytes[n] bytes, sign bit flipped, negative values inverted (strings/decimal.cc, whose comment gives
    # -1234567890.1234 as DECIMAL(14,4) = 7E F2 04 C7 2D FB 2D)
    (
        "decimal_manual",
        "DECIMAL(14,4)",
        "-1234567890.1234",
        b"-1234567890.1234",
        "7ef204c72dfb2d",
        246,
        "0e04",
    ),
    (
        "decimal_65_30",
        "DECIMAL(65,30)",
        "12345678901234567890123456789012345.123456789012345678901234567891",
        b"12345678901234567890123456789012345.123456789012345678901234567891",
        # 12345678 | 901234567 | 890123456 | 789012345 . 123456789 | 012345678 | 901234567 | 891
        "80bc614e35b7bf87350e34c02f075f79075bcd1500bc614e35b7bf87037b",
        246,
        "411e",
    ),
    (
        "decimal_65_30_min",
        "DECIMAL(65,30)",
        "-99999999999999999999999999999999999.999999999999999999999999999999",
        b"-99999999999999999999999999999999999.999999999999999999999999999999",
        # 99999999 (0x05f5e0ff) and 999999999 (0x3b9ac9ff) groups, inverted, then the sign bit flipped
        "7a0a1f00" + "c4653600" * 6 + "fc18",
        246,
        "411e",
    ),
    (
        "decimal_tiny",
        "DECIMAL(65,30)",
        "0.000000000000000000000000000001",
        b"0." + b"0" * 29 + b"1",
        "80" + "00" * 28 + "01",
        246,
        "411e",
    ),
    (
        "decimal_30_0",
        "DECIMAL(30,0)",
        "123456789012345678901234567890",
        b"123456789012345678901234567890",
        "807b1b3a0c14149aa4350dfb38d2",
        246,
        "1e00",
    ),
    # DATETIME2 / TIMESTAMP2 / DATE: fractional seconds rounded to the fsp before they are packed
    (
        "datetime_round",
        "DATETIME(2)",
        "'2024-12-31 23:59:59.996'",
        b"2025-01-01 00:00:00.00",
        "99b582000000",
        18,
        "02",
    ),
    (
        "timestamp_round",
        "TIMESTAMP(3)",
        "'2024-01-02 03:04:05.1235'",
        b"2024-01-02 03:04:05.124",
        "65937d2504d8",
        17,
        "03",
    ),
    ("datetime_max", "DATETIME", "'9999-12-31 23:59:59'", b"9999-12-31 23:59:59", "fef3ff7efb", 18, "00"),
    ("date_leap", "DATE", "'2024-02-29'", b"2024-02-29", "5dd00f", 10, ""),
]


def q(port: int, *sql: str) -> list[tuple]:
    """Run the statements on one connection; the rows of the last as the bytes on the wire (PyMySQL without
    converters: the text it received, decoded only for non-binary columns, which is undone here)."""
    c = pymysql.connect(host="127.0.0.1", port=port, user="root", autocommit=True, conv={})
    try:
        with c.cursor() as cur:
            for stmt in sql:
                cur.execute(stmt)
            return [tuple(v.encode() if isinstance(v, str) else v for v in row) for row in cur.fetchall()]
    finally:
        c.close()


def _wait(cond: Any, timeout: float = 90.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.2)
    return False


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    root = tmp_path_factory.mktemp("types")
    with (
        running_server(root / "source", *SOURCE_ARGS) as src,
        running_server(root / "replica", *REPLICA_ARGS) as rep,
    ):
        stmts = ["CREATE DATABASE types"]
        for cid, ctype, literal, *_ in CASES:
            stmts.append(f"CREATE TABLE types.t_{cid} (id INT PRIMARY KEY, v {ctype})")
            stmts.append(f"INSERT INTO types.t_{cid} VALUES (1, {literal})")
        q(src.port, "SET time_zone = '+00:00'", *stmts)
        q(
            rep.port,
            f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT={src.port}, SOURCE_USER='root', "
            "SOURCE_AUTO_POSITION=1, SOURCE_CONNECT_RETRY=1, SOURCE_RETRY_COUNT=60",
            "START REPLICA",
        )
        executed = q(src.port, "SELECT @@GLOBAL.gtid_executed")[0][0]
        assert executed
        assert _wait(lambda: q(rep.port, "SELECT @@GLOBAL.gtid_executed")[0][0] == executed), q(
            rep.port, "SHOW REPLICA STATUS"
        )
        yield src, rep


@pytest.fixture(scope="module")
def binlog_images(servers: tuple[ServerProcess, ServerProcess]) -> dict[str, tuple[TableMapEvent, bytes]]:
    """Per case: its Table_map and the row image bytes of column ``v`` (after the NULL bitmap and ``id``)."""
    src, _ = servers
    maps: dict[int, TableMapEvent] = {}
    out: dict[str, tuple[TableMapEvent, bytes]] = {}
    for pe in read_events(src.datadir / "binlog.000001"):
        ev = pe.event
        if isinstance(ev, TableMapEvent):
            maps[ev.table_id] = ev
        elif isinstance(ev, RowsEvent) and ev.table_id in maps:
            tm = maps[ev.table_id]
            cur = Cursor(ev.body)
            cur.bytes(1)  # NULL bitmap of the two columns
            specs = column_specs(tm)
            decode_value(cur, specs[0])
            start = len(ev.body) - cur.remaining
            decode_value(cur, specs[1])
            end = len(ev.body) - cur.remaining
            out[tm.table[2:]] = (tm, bytes(ev.body[start:end]))
    return out


@pytest.mark.parametrize(
    ("cid", "ctype", "literal", "wire", "image", "code", "meta"), CASES, ids=[c[0] for c in CASES]
)
def test_type(
    servers: tuple[ServerProcess, ServerProcess],
    binlog_images: dict[str, tuple[TableMapEvent, bytes]],
    cid: str,
    ctype: str,
    literal: str,
    wire: bytes,
    image: str,
    code: int,
    meta: str,
) -> None:
    src, rep = servers
    assert q(src.port, f"SELECT v FROM types.t_{cid}") == [(wire,)]
    tm, raw = binlog_images[cid]
    assert (tm.column_types[1], tm.column_metadata()[1].hex(), raw.hex()) == (code, meta, image)
    assert q(rep.port, f"SELECT v FROM types.t_{cid}") == [(wire,)]  # gtidkit's replica applied the row image


def _timedelta(text: str) -> dt.timedelta:
    neg = text.startswith("-")
    h, m, s = text.lstrip("-").split(":")
    d = dt.timedelta(hours=int(h), minutes=int(m), seconds=float(s))
    return -d if neg else d


def _replication_value(ctype: str, wire: bytes) -> Any:
    """What python-mysql-replication gives for the value MySQL would binlog (its documented decoders: BIT as the
    string of M binary digits, TIME as a timedelta, YEAR and integers as int, FLOAT/DOUBLE as float)."""
    if ctype.startswith("BIT"):
        bits = int(ctype[4:-1]) if "(" in ctype else 1
        return format(int.from_bytes(wire, "big"), f"0{bits}b")
    if ctype.startswith(("DATETIME", "TIMESTAMP")):
        return dt.datetime.fromisoformat(wire.decode())
    if ctype.startswith("TIME"):
        return _timedelta(wire.decode())
    if ctype.startswith(("FLOAT", "DOUBLE")):
        return float(wire)
    if ctype.startswith("DECIMAL"):
        return Decimal(wire.decode())
    if ctype.startswith("DATE"):
        return dt.date.fromisoformat(wire.decode())
    return int(wire)


def test_python_mysql_replication_reads_every_value(servers: tuple[ServerProcess, ServerProcess]) -> None:
    src, _ = servers
    stream = BinLogStreamReader(
        connection_settings={"host": "127.0.0.1", "port": src.port, "user": "root", "password": ""},
        server_id=301,
        auto_position="",
        blocking=False,
        only_events=[WriteRowsEvent],
    )
    try:
        got = {e.table[2:]: e.rows[0]["values"]["v"] for e in stream if e.schema == "types"}
    finally:
        stream.close()
    expected = {cid: _replication_value(ctype, wire) for cid, ctype, _lit, wire, *_ in CASES}
    # the reader's own decoders, which read MySQL's bytes the same way: YEAR is always byte + 1900 (so 0000 reads
    # as 1900), and a negative TIME2 fraction is not mirrored back (MySQL's 7FFFFE.FF, -00:00:01.01, reads as
    # -1.99 s), see pymysqlreplication/row_event.py __read_time2 / YEAR
    expected.update(
        year_0=1900,
        time_neg_frac=-dt.timedelta(seconds=1, microseconds=990000),
        time_neg_hundredth=-dt.timedelta(microseconds=990000),
    )
    assert got == expected


@pytest.mark.skipif(shutil.which("mariadb-binlog") is None, reason="mariadb-binlog not installed")
def test_mariadb_binlog_verifies_and_decodes(servers: tuple[ServerProcess, ServerProcess]) -> None:
    src, _ = servers
    r = subprocess.run(  # noqa: PLW1510 - the return code is asserted
        ["mariadb-binlog", "--verify-binlog-checksum", "-v", str(src.datadir / "binlog.000001")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0 and "ERROR" not in r.stderr, r.stderr
    values: dict[str, str] = {}
    table = ""
    for line in r.stdout.splitlines():
        if line.startswith("### INSERT INTO `types`.`t_"):
            table = line.split("`t_")[1].rstrip("`")
        elif line.startswith("###   @2=") and table:
            values[table] = line[len("###   @2=") :]
    # mariadb-binlog prints (log_event_server.cc, log_event_print_value): integers signed with the unsigned
    # reading in parentheses when they differ, BIT as b'<M digits>', TIME2 as [-]hh:mm:ss[.f], YEAR as its number
    assert values["bigint_unsigned_max"] == "-1 (18446744073709551615)"
    assert values["int_unsigned"] == "-1 (4294967295)"
    assert values["bit_6"] == "b'100010'"
    assert values["bit_64"] == "b'" + "1" * 64 + "'"
    assert values["time_min"] == "'-838:59:59'"
    assert values["time_neg_frac"] == "'-00:00:01.01'"
    assert values["time_min_fsp6"] == "'-838:59:59.000000'"
    assert values["year_0"] == "1900"  # it prints byte + 1900 for any YEAR, 0000 included
    assert values["year_69"] == "2069"
    assert values["decimal_manual"] == "-1234567890.1234"
    assert values["decimal_65_30"] == "12345678901234567890123456789012345.123456789012345678901234567891"
    assert values["decimal_tiny"] == "0." + "0" * 29 + "1"
    assert values["datetime_round"] == "'2025-01-01 00:00:00.00'"
