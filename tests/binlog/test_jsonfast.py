"""The compiled loop of ``gtidkit binlog show --json`` (binlog/_jsonfast.c) writes exactly the bytes of the
pure-Python loop: every real fixture binlog (corrupt and truncated ones included: the same lines before the same
error), read in small chunks too; a generated binlog holding every column type the row-image codec reads (each
value at its edges, NULLs, partial images, text needing every JSON escape, bytes that are not UTF-8) and the
events the compiled loop leaves to Python (JSON columns, partial updates, unknown column types, truncated images,
compressed transactions, unmapped tables), also with bytes damaged and CRC checks off; the generated benchmark
corpus in small chunks, under GTID filters, and with a CRC32 damaged in the middle. The compiled loop is checked to take the common events itself, and a few
values are checked against MySQL's text of them.
"""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys
import uuid
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from gtidkit.binlog import json_binary
from gtidkit.binlog.constants import EventType
from gtidkit.binlog.events.control import XidEvent
from gtidkit.binlog.events.rows import RowsEvent, TableMapEvent
from gtidkit.binlog.events.statement import QueryEvent
from gtidkit.binlog.row_image import ColumnSpec, encode_row, full_bitmap
from gtidkit.binlog.writer import BinlogWriter
from gtidkit.cli.binlog_cmd import JSON_COMPILED, GtidFilter, json_events
from gtidkit.errors import GtidkitError
from gtidkit.gtid import Gtid, GtidSet
from tests.binlog.test_mysqlbinlog import BINLOGS

try:
    import gtidkit.binlog._jsonfast as jsonfast
except ImportError:  # CI builds it (setup.py through `pip install -e .`): there its absence is a failure
    if os.environ.get("CI"):
        pytest.fail("gtidkit.binlog._jsonfast is not built", pytrace=False)
    pytest.skip("gtidkit.binlog._jsonfast is not built", allow_module_level=True)

SID = uuid.UUID("4b5c6d7e-0000-11ee-8000-0242ac120002")
T0 = 1_768_471_200_000_000  # µs


def _json(
    path: Path, compiled: bool, *, chunk: int = 4 << 20, flt: GtidFilter | None = None, verify: bool = True
) -> tuple[bytes, str | None]:
    """The --json output of one file and the error (type and text) that ended it."""
    out = io.BytesIO()
    error = None
    try:
        json_events(
            str(path), verify, flt or GtidFilter(None, None), out, compiled=compiled, chunk_size=chunk
        )
    except GtidkitError as err:
        error = f"{type(err).__name__}: {err}"
    return out.getvalue(), error


def _same(path: Path, *, sets: tuple[GtidSet | None, GtidSet | None] = (None, None), **kw: Any) -> bytes:
    """Both loops' output (each with a filter of its own over ``sets``: include, exclude), checked equal."""
    want = _json(path, False, flt=GtidFilter(*sets), **kw)
    got = _json(path, True, flt=GtidFilter(*sets), **kw)
    assert got[1] == want[1]
    assert got[0].splitlines() == want[0].splitlines()
    assert got[0] == want[0]
    return got[0]


@pytest.mark.parametrize("path", BINLOGS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_compiled_loop_equals_pure_python_on_every_fixture(path: Path) -> None:
    _same(path)
    _same(path, chunk=1000)


# -- a binlog with every column type -------------------------------------------------------------------------------
def _str(n: int) -> bytes:
    return n.to_bytes(2, "little")


#: (column spec, four values: one per row); None is NULL. Strings as bytes (what the codec reads).
COLUMNS: list[tuple[ColumnSpec, list[Any]]] = [
    (ColumnSpec(1), [-128, 127, 0, None]),
    (ColumnSpec(1, b"", True), [255, 0, 1, 200]),
    (ColumnSpec(2), [-32768, 32767, -1, 5]),
    (ColumnSpec(2, b"", True), [65535, 0, 1, None]),
    (ColumnSpec(9), [-8388608, 8388607, -2, 3]),
    (ColumnSpec(9, b"", True), [16777215, 0, 7, 8]),
    (ColumnSpec(3), [-(2**31), 2**31 - 1, -3, None]),
    (ColumnSpec(3, b"", True), [2**32 - 1, 0, 9, 10]),
    (ColumnSpec(8), [-(2**63), 2**63 - 1, -4, 11]),
    (ColumnSpec(8, b"", True), [2**64 - 1, 0, 12, None]),
    (ColumnSpec(4, b"\x04"), [1.5, -0.1, float("nan"), float("inf")]),
    (ColumnSpec(4, b"\x04", True), [3.4028234663852886e38, 1e-45, float("-inf"), 0.0]),
    (ColumnSpec(5, b"\x08"), [2.25, 1e300, -0.0, 5e-324]),
    (ColumnSpec(5, b"\x08"), [float("nan"), float("-inf"), 0.1, None]),
    (ColumnSpec(246, bytes([12, 3])), [Decimal("-123.456"), Decimal(0), Decimal("999999999.999"), None]),
    (
        ColumnSpec(246, bytes([20, 10])),
        [Decimal("0.0000000001"), Decimal("-0.00000001"), Decimal(0), Decimal("-9999999999.9999999999")],
    ),
    (
        ColumnSpec(246, bytes([65, 30])),
        [
            Decimal("12345678901234567890123456789012345.123456789012345678901234567890"),
            Decimal(-1),
            Decimal(0),
            Decimal("0.000000000000000000000000000001"),
        ],
    ),
    (ColumnSpec(246, bytes([5, 5])), [Decimal("0.12345"), Decimal("-0.00001"), Decimal(0), None]),
    (ColumnSpec(246, bytes([10, 0])), [Decimal(1234567890), Decimal(-1), Decimal(0), Decimal(5)]),
    (
        ColumnSpec(254, bytes([0xFE, 40])),
        [b"abc", 'é"\\\n\r\t\b\f\x01\x1f\x7f/'.encode(), "😀€".encode(), b"\xff\xfe"],
    ),
    (ColumnSpec(254, bytes([0xEE, 0xE0])), [b"x" * 300, b"", b"\xed\xa0\x80", b"\xc0\xaf"]),
    (ColumnSpec(254, bytes([247, 1])), [3, 0, 1, None]),  # ENUM: its index
    (ColumnSpec(254, bytes([248, 2])), [0x105, 0, 1, 3]),  # SET
    (ColumnSpec(254, bytes([248, 8])), [2**64 - 1, 0, 1, 2]),  # SET of 64 members
    (ColumnSpec(15, _str(80)), [b"v", b"", "日本語".encode(), b"\xf4\x90\x80\x80"]),
    (ColumnSpec(15, _str(1200)), [b"y" * 1000, b"\x00", b"\xe2\x82", None]),
    (ColumnSpec(252, bytes([1])), [b"tiny", b"", b"\x80", None]),
    (ColumnSpec(252, bytes([2])), [b"long text " * 40, b"a", b"b", b"c"]),
    (ColumnSpec(252, bytes([3])), [b"\x00\xff", b"m", b"n", b"o"]),
    (ColumnSpec(252, bytes([4])), [b"L" * 70000, b"", b"\xf0\x9f\x98\x80", None]),
    (ColumnSpec(255, b"\x04"), [bytes(25), b"\x00\x00\x00\x00\x01\x01\x00\x00\x00" + bytes(16), b"", None]),
    (ColumnSpec(10), ["2024-02-29", "0000-00-00", "9999-12-31", "1000-01-01"]),
    *[
        (
            ColumnSpec(18, bytes([fsp])),
            [
                f"2024-01-02 03:04:05{'.123456'[: fsp + 1] if fsp else ''}",
                "0000-00-00 00:00:00" + ("." + "0" * fsp if fsp else ""),
                "9999-12-31 23:59:59" + ("." + "9" * fsp if fsp else ""),
                None,
            ],
        )
        for fsp in range(7)
    ],
    *[
        (
            ColumnSpec(17, bytes([fsp])),
            [
                f"2024-01-02 03:04:05{'.654321'[: fsp + 1] if fsp else ''}",
                "0000-00-00 00:00:00" + ("." + "0" * fsp if fsp else ""),
                "2038-01-19 03:14:08" + ("." + "5" * fsp if fsp else ""),
                "2106-02-07 06:28:15" + ("." + "1" * fsp if fsp else ""),
            ],
        )
        for fsp in range(7)
    ],
    *[
        (
            ColumnSpec(19, bytes([fsp])),
            [
                f"12:34:56{'.789012'[: fsp + 1] if fsp else ''}",
                "-838:59:59" + ("." + "0" * fsp if fsp else ""),
                "-00:00:01" + ("." + "01"[:fsp] + "0" * max(0, fsp - 2) if fsp else ""),
                "838:59:59" + ("." + "0" * fsp if fsp else ""),
            ],
        )
        for fsp in range(7)
    ],
    (ColumnSpec(19, bytes([2])), ["-00:00:00.01", "-00:00:00.99", "-00:00:01.10", "00:00:00.00"]),
    (ColumnSpec(19, bytes([4])), ["-12:34:56.7891", "-00:00:00.0001", "00:00:00.0001", None]),
    (ColumnSpec(13), [2024, 0, 1901, 2155]),
    (ColumnSpec(16, bytes([6, 0])), [0b100010, 0, 63, None]),
    (ColumnSpec(16, bytes([2, 1])), [0x3FF, 1, 0, 2]),
    (ColumnSpec(16, bytes([0, 8])), [2**64 - 1, 0, 1, 2**63]),
]
#: Types whose values the compiled loop reads (the table above); the JSON column goes through Python.
SPECS = [c[0] for c in COLUMNS]
ROWS = [[c[1][i] for c in COLUMNS] for i in range(4)]


def _optional(specs: list[ColumnSpec], names: list[bytes] | None) -> bytes:
    """SIGNEDNESS (and COLUMN_NAME) optional metadata."""
    numeric = [s.unsigned for s in specs if s.type_code in (1, 2, 3, 8, 9, 4, 5, 246)]
    bits = bytearray((len(numeric) + 7) // 8)
    for i, u in enumerate(numeric):
        if u:
            bits[i // 8] |= 0x80 >> (i % 8)
    out = bytes([1, len(bits)]) + bytes(bits)
    if names is not None:
        block = b"".join(bytes([len(n)]) + n for n in names)
        out += bytes([4]) + (bytes([len(block)]) if len(block) < 251 else b"\xfc" + _str(len(block))) + block
    return out


def _table(
    table_id: int, specs: list[ColumnSpec], name: str, names: list[bytes] | None = None
) -> TableMapEvent:
    n = len(specs)
    return TableMapEvent(
        table_id,
        1,
        "dé\udcff",
        name,
        bytes(s.type_code for s in specs),
        b"".join(s.meta for s in specs),
        b"\xff" * ((n + 7) // 8),
        _optional(specs, names),
    )


def _rows(
    type_code: int,
    table_id: int,
    n: int,
    body: bytes,
    *,
    before: bytes | None = None,
    after: bytes | None = None,
    flags: int = 1,
) -> RowsEvent:
    update = type_code in (EventType.UPDATE_ROWS_EVENT, EventType.PARTIAL_UPDATE_ROWS_EVENT)
    v2 = type_code >= EventType.WRITE_ROWS_EVENT
    return RowsEvent(
        type_code=type_code,
        table_id=table_id,
        flags=flags,
        extra=b"" if v2 else None,
        column_count=n,
        columns_before=before if before is not None else full_bitmap(n),
        columns_after=(after if after is not None else full_bitmap(n)) if update else None,
        body=body,
    )


def _query(text: str) -> QueryEvent:
    return QueryEvent(thread_id=9, exec_time=1, error_code=0, status_vars=b"", database="dé", query=text)


def _all_types_events() -> list[list[Any]]:
    """The transactions of the all-types binlog (each a list of events after its Gtid)."""
    n = len(SPECS)
    names = [f"c{i}".encode() for i in range(n - 2)] + ["ñ".encode(), b'\xff"q']
    images = [encode_row(SPECS, row) for row in ROWS]
    W, U, D = EventType.WRITE_ROWS_EVENT, EventType.UPDATE_ROWS_EVENT, EventType.DELETE_ROWS_EVENT
    half = bytes(b & 0x55 for b in full_bitmap(n))  # a MINIMAL-like image: every other column
    half_rows = [encode_row([s for i, s in enumerate(SPECS) if i % 2 == 0], row[::2]) for row in ROWS]
    common = [
        _query("BEGIN"),
        _table(70, SPECS, "every_type", names),
        _rows(W, 70, n, b"".join(images), flags=0),
        _rows(U, 70, n, images[0] + images[1] + images[2] + images[3], flags=0),
        _rows(D, 70, n, b"".join(images[1:])),
        _table(71, SPECS, "minimal"),
        _rows(U, 71, n, half_rows[0] + half_rows[1], before=half, after=half),
        _rows(D, 71, n, half_rows[2], before=half),
        _rows(EventType.WRITE_ROWS_EVENT_V1, 71, n, images[3]),
        XidEvent(xid=77),
    ]
    js = [ColumnSpec(3), ColumnSpec(245, b"\x04")]
    doc = json_binary.encode({"a": [1, 2.5, "x"], "é": None})
    partial = encode_row(js, [1, doc])
    python_side = [
        _query("BEGIN"),
        _table(72, js, "with_json"),
        _rows(W, 72, 2, partial),  # a JSON column: Python decodes the event
        # a partial update (value_options 0: full images) and an update of the same table
        _rows(EventType.PARTIAL_UPDATE_ROWS_EVENT, 72, 2, partial + b"\x00" + partial),
        _table(73, [ColumnSpec(3), ColumnSpec(7)], "old_timestamp"),
        _rows(W, 73, 2, b"\x00" + bytes(8)),  # TIMESTAMP (7) is not read: rows_error
        _table(74, [ColumnSpec(3), ColumnSpec(15, _str(20))], "truncated"),
        _rows(W, 74, 2, b"\x00\x01\x00\x00\x00\x05ab"),  # a value past the image: rows_error
        _rows(W, 75, 2, b"\x00\x01\x00\x00\x00\x00"),  # no Table_map for this id
        _rows(W, 74, 3, b"\x00\x01\x00\x00\x00\x00\x00"),  # column count unlike the Table_map's
        _rows(W, 74, 1, b"\x00\x01\x00\x00\x00"),  # fewer columns than the Table_map: rows_error
        _query("INSERT INTO t VALUES ('é\udcfe\u2028', \"q\\\\\")"),
        XidEvent(xid=78),
    ]
    return [common, python_side, common]


@pytest.fixture(scope="module")
def all_types(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("types") / "binlog.000001"
    with BinlogWriter.create(path, server_id=3, timestamp=T0 // 10**6, previous_gtids=GtidSet()) as w:
        for i, events in enumerate(_all_types_events()):
            w.write_transaction(
                Gtid(SID, i + 1),
                events,
                last_committed=i,
                sequence_number=i + 1,
                immediate_commit_timestamp=T0 + i,
            )
        w.write_transaction(  # anonymous, original timestamp and server version unlike the immediate ones
            None,
            _all_types_events()[0],
            last_committed=3,
            sequence_number=4,
            immediate_commit_timestamp=T0 + 9,
            original_commit_timestamp=T0 - 5,
            immediate_server_version=80036,
            original_server_version=50744,
            gtid_flags=1,
        )
        w.write_transaction(  # binlog_transaction_compression=ON: the events inside go through Python
            Gtid(SID, 9),
            _all_types_events()[0],
            last_committed=4,
            sequence_number=5,
            immediate_commit_timestamp=T0 + 10,
            compression_level=3,
        )
        w.close()
    return path


@pytest.mark.parametrize("chunk", [4 << 20, 70001, 4099, 300], ids=lambda c: f"chunk{c}")
def test_every_column_type(all_types: Path, chunk: int) -> None:
    out = _same(all_types, chunk=chunk)
    lines = [json.loads(line) for line in out.splitlines()]
    rows = [o for o in lines if "rows" in o]
    assert len(rows) >= 20
    assert any("rows_error" in o for o in lines)
    assert any(o["in_payload"] for o in lines)


@pytest.mark.parametrize(
    ("include", "exclude"),
    [(f"{SID}:1-2", None), (None, f"{SID}:1"), (None, f"{SID}:3:9"), (f"{SID}:9", None)],
    ids=["include", "exclude", "exclude_two", "include_compressed"],
)
def test_every_column_type_under_gtid_filters(
    all_types: Path, include: str | None, exclude: str | None
) -> None:
    sets = tuple(None if s is None else GtidSet.parse(s) for s in (include, exclude))
    out = _same(all_types, sets=sets)  # type: ignore[arg-type]
    assert out.count(b'"type": "GTID_LOG_EVENT"') in (1, 2, 3)


def test_compiled_loop_reads_the_common_events_itself(all_types: Path) -> None:
    """The first transaction (every column type the codec reads, Write / Update / Delete v2 and v1, partial
    images) is written by _jsonfast.run in one call, with the pure-Python loop's lines."""
    from gtidkit.binlog.file import FrameReader
    from gtidkit.cli.binlog_cmd import _C_LAYOUTS, _TYPE_NAMES_JSON

    reader = FrameReader(all_types)
    frames = [(pos, size, buf[at + 4]) for pos, buf, at, size in reader]
    fde = reader.fde
    assert fde is not None
    data = all_types.read_bytes()
    gtid_at = next(pos for pos, _, t in frames if t == EventType.GTID_LOG_EVENT)
    xid_end = next(pos + size for pos, size, t in frames if t == EventType.XID_EVENT)
    ok = bytes(1 if t in _C_LAYOUTS and fde.post_header_len(t) == _C_LAYOUTS[t] else 0 for t in range(256))
    prefix = f'{{"file": {json.dumps(str(all_types))}, "pos": '.encode()
    nxt, text = jsonfast.run(
        data[:xid_end], gtid_at, 0, True, True, ok, _TYPE_NAMES_JSON, prefix, {}, False, False
    )
    assert nxt == xid_end
    want = _json(all_types, False)[0].splitlines()
    got = text.splitlines()
    assert len(got) == 11  # Gtid, BEGIN, Table_map, 3 rows events, Table_map, 3 rows events, Xid
    assert got == want[2:13]


def test_damaged_bodies_without_crc_check(all_types: Path, tmp_path: Path) -> None:
    """With --no-verify-checksum damaged bodies reach the decoders: both loops write the same lines and end with
    the same error (copies of the all-types binlog with 1-3 bytes changed; positions and values from a fixed
    seed, outside the long runs of filler text)."""
    rnd = random.Random(22)
    data = all_types.read_bytes()
    spots = [i for i in range(200, len(data)) if data[i] not in b"Lyx "]
    bad = tmp_path / "binlog.000001"
    errors = 0
    for _ in range(30):
        b = bytearray(data)
        for _ in range(rnd.randint(1, 3)):
            b[rnd.choice(spots)] = rnd.randrange(256)
        bad.write_bytes(bytes(b))
        want = _json(bad, False, verify=False)
        assert _json(bad, True, verify=False) == want
        errors += want[1] is not None or b'"rows_error"' in want[0]
    assert errors  # some damage reached a decoder's checks


def test_values_as_mysql_prints_them(all_types: Path) -> None:
    """A few values against MySQL's text of them (decimal2string, TIME / DATETIME with fractional seconds,
    BIGINT UNSIGNED, the JSON escapes of a string)."""
    lines = [json.loads(line) for line in _json(all_types, True)[0].splitlines()]
    first = next(
        o for o in lines if o.get("table") == "every_type" and o["type_code"] == EventType.WRITE_ROWS_EVENT
    )
    row0, row1 = first["rows"][0]["after"], first["rows"][1]["after"]
    dec20 = next(i for i, c in enumerate(COLUMNS) if c[0] == ColumnSpec(246, bytes([20, 10])))
    assert (row0[dec20], row1[dec20]) == ("0.0000000001", "-0.0000000100")
    time2 = next(
        i for i, c in enumerate(COLUMNS) if c[0] == ColumnSpec(19, bytes([2])) and c[1][0] == "-00:00:00.01"
    )
    assert row0[time2] == "-00:00:00.01" and row1[time2] == "-00:00:00.99"
    assert row0[9] == 2**64 - 1 and row0[0] == -128
    char = next(i for i, c in enumerate(COLUMNS) if c[0] == ColumnSpec(254, bytes([0xFE, 40])))
    assert row1[char] == 'é"\\\n\r\t\b\f\x01\x1f\x7f/'
    assert first["rows"][3]["after"][char] == {"hex": "fffe"}


#: `SELECT * FROM test.decodedecimal` on the MySQL server that wrote go-mysql's fixture tcb-eval002c-bin.003320
#: (the table quoted in go-mysql's replication/row_event_test.go): id, DECIMAL(4,2) (5,0) (7,3) (10,2) (10,3)
#: (13,2) (15,14) (20,10) (30,5) (30,20) (30,25), prec, scale.
DECODEDECIMAL = """
1 -10.55 -11 -10.550 -10.55 -10.550 -10.55 -9.99999999999999 -10.5500000000 -10.55000 -10.55000000000000000000 -10.5500000000000000000000000 4 2
2 0.01 0 0.012 0.01 0.012 0.01 0.01234567890123 0.0123456789 0.01235 0.01234567890123456789 0.0123456789012345678912345 30 25
3 99.99 12345 9999.999 12345.00 12345.000 12345.00 9.99999999999999 12345.0000000000 12345.00000 12345.00000000000000000000 12345.0000000000000000000000000 5 0
4 99.99 12345 9999.999 12345.00 12345.000 12345.00 9.99999999999999 12345.0000000000 12345.00000 12345.00000000000000000000 12345.0000000000000000000000000 10 3
5 99.99 123 123.450 123.45 123.450 123.45 9.99999999999999 123.4500000000 123.45000 123.45000000000000000000 123.4500000000000000000000000 10 3
6 -99.99 -123 -123.450 -123.45 -123.450 -123.45 -9.99999999999999 -123.4500000000 -123.45000 -123.45000000000000000000 -123.4500000000000000000000000 20 10
7 0.00 0 0.000 0.00 0.000 0.00 0.00012345000099 0.0001234500 0.00012 0.00012345000098765000 0.0001234500009876500000000 15 14
8 0.00 0 0.000 0.00 0.000 0.00 0.00012345000099 0.0001234500 0.00012 0.00012345000098765000 0.0001234500009876500000000 22 20
9 0.12 0 0.123 0.12 0.123 0.12 0.12345000098765 0.1234500010 0.12345 0.12345000098765000000 0.1234500009876500000000000 30 20
10 0.00 0 0.000 0.00 0.000 0.00 -0.00000001234500 -0.0000000123 0.00000 -0.00000001234500009877 -0.0000000123450000987650000 30 20
11 99.99 99999 9999.999 99999999.99 9999999.999 99999999999.99 9.99999999999999 9999999999.9999999999 1234500009876.50000 9999999999.99999999999999999999 99999.9999999999999999999999999 30 5
12 99.99 99999 9999.999 99999999.99 9999999.999 111111111.11 9.99999999999999 111111111.1100000000 111111111.11000 111111111.11000000000000000000 99999.9999999999999999999999999 10 2
13 0.01 0 0.010 0.01 0.010 0.01 0.01000000000000 0.0100000000 0.01000 0.01000000000000000000 0.0100000000000000000000000 7 3
14 99.99 123 123.400 123.40 123.400 123.40 9.99999999999999 123.4000000000 123.40000 123.40000000000000000000 123.4000000000000000000000000 10 2
15 -99.99 -563 -562.580 -562.58 -562.580 -562.58 -9.99999999999999 -562.5800000000 -562.58000 -562.58000000000000000000 -562.5800000000000000000000000 13 2
16 -99.99 -3699 -3699.010 -3699.01 -3699.010 -3699.01 -9.99999999999999 -3699.0100000000 -3699.01000 -3699.01000000000000000000 -3699.0100000000000000000000000 13 2
17 -99.99 -1948 -1948.140 -1948.14 -1948.140 -1948.14 -9.99999999999999 -1948.1400000000 -1948.14000 -1948.14000000000000000000 -1948.1400000000000000000000000 13 2
"""


@pytest.mark.parametrize("compiled", [False, True], ids=["pure", "compiled"])
def test_decimals_as_mysql_selects_them(compiled: bool) -> None:
    """A real MySQL binlog's DECIMAL columns against MySQL's own SELECT of the same rows (plain digits, every
    scale kept, negative fractions below 1e-6 included)."""
    path = next((p for p in BINLOGS if p.name == "tcb-eval002c-bin.003320"), None)
    if path is None:
        pytest.skip("go-mysql's decimal fixture is not in the shared fixtures")
    lines = [json.loads(line) for line in _json(path, compiled)[0].splitlines()]
    rows = [r["after"] for o in lines if "rows" in o for r in o["rows"]]
    want = [line.split() for line in DECODEDECIMAL.strip().splitlines()]
    assert [[str(v) for v in row] for row in rows] == want


def test_command_line_pure_and_compiled_agree(all_types: Path) -> None:
    """`gtidkit binlog show --json`, with and without GTIDKIT_PURE_PYTHON=1: the same stdout."""
    env = {k: v for k, v in os.environ.items() if k != "GTIDKIT_PURE_PYTHON"}
    argv = [sys.executable, "-m", "gtidkit", "binlog", "show", "--json", str(all_types)]
    compiled = subprocess.run(argv, env=env, capture_output=True, check=True, timeout=120)
    pure = subprocess.run(
        argv, env={**env, "GTIDKIT_PURE_PYTHON": "1"}, capture_output=True, check=True, timeout=120
    )
    assert compiled.stdout == pure.stdout
    assert compiled.stdout.count(b"\n") > 50


# -- the generated corpus ------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    from gtidkit.generate import generate_corpus

    root = tmp_path_factory.mktemp("gen")
    generate_corpus(root, 400_000, hosts=1, seed=7, max_binlog_size=200_000, overwrite=True)
    return sorted(root.rglob("binlog.0*"))


@pytest.mark.parametrize("chunk", [4 << 20, 4099, 300], ids=lambda c: f"chunk{c}")
def test_generated_corpus_in_small_chunks(generated: list[Path], chunk: int) -> None:
    for path in generated:
        out = _same(path, chunk=chunk)
        assert out.count(b'"rows": [') > 100


def test_gtid_filters(generated: list[Path]) -> None:
    from gtidkit.binlog.file import read_transactions

    path = generated[0]
    gtids = [t.gtid for t in read_transactions(path).transactions if t.gtid is not None]
    sid = str(gtids[0]).rsplit(":", 1)[0]
    first, last = gtids[0].gno, gtids[-1].gno
    some = GtidSet.parse(f"{sid}:{first + 2}-{(first + last) // 2}:{last - 3}")
    for include, exclude in ((some, None), (None, some), (some, GtidSet.parse(f"{sid}:{first + 5}"))):
        out = _same(path, sets=(include, exclude))
        assert out.count(b'"type": "GTID_LOG_EVENT"') not in (0, len(gtids))


def test_damaged_crc_in_the_middle(generated: list[Path], tmp_path: Path) -> None:
    data = bytearray(generated[0].read_bytes())
    data[len(data) // 2] ^= 0x5A
    bad = tmp_path / "binlog.000001"
    bad.write_bytes(bytes(data))
    out, error = _json(bad, True)
    assert error is not None and "CRC32" in error
    assert out.count(b"\n") > 100
    _same(bad)
    _same(bad, chunk=999)
    _same(bad, verify=False)


def test_flag_follows_the_environment() -> None:
    assert JSON_COMPILED == (os.environ.get("GTIDKIT_PURE_PYTHON", "") in ("", "0"))
