"""The one row-image codec (gtidkit.binlog.row_image): MySQL's DECIMAL bytes, every type round-trips, rows events
split as MySQL splits them, and the rows events of real MySQL binlogs decode to their last byte."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from gtidkit.binlog import read_events
from gtidkit.binlog.cursor import Cursor, Writer
from gtidkit.binlog.events.rows import STMT_END_F, RowsEvent, TableMapEvent
from gtidkit.binlog.row_image import (
    ROW_EVENT_MAX_SIZE,
    ColumnSpec,
    column_specs,
    decode_decimal,
    decode_rows,
    decode_value,
    encode_decimal,
    encode_row,
    encode_value,
    full_bitmap,
    row_encoder,
    rows_events,
    signedness,
)
from gtidkit.errors import BinlogDecodeError
from tests.conftest import BINLOG_FIXTURES


@pytest.mark.parametrize(
    ("value", "precision", "scale", "hex_"),
    [
        # the examples in MySQL's strings/decimal.cc (decimal2bin comment)
        (Decimal("1234567890.1234"), 14, 4, "810dfb38d204d2"),
        (Decimal("-1234567890.1234"), 14, 4, "7ef204c72dfb2d"),
        (Decimal("0.00"), 5, 2, "800000"),
        (Decimal("-1.5"), 3, 1, "7efa"),
    ],
    ids=str,
)
def test_decimal_binary_encoding(value: Decimal, precision: int, scale: int, hex_: str) -> None:
    raw = encode_decimal(value, precision, scale)
    assert raw.hex() == hex_
    assert decode_decimal(Cursor(raw), precision, scale) == value


def test_decimal_overflow_is_refused() -> None:
    with pytest.raises(ValueError):
        encode_decimal(Decimal(1000), 5, 2)


CASES: list[tuple[ColumnSpec, Any, str | None]] = [
    (ColumnSpec(1), -5, "fb"),
    (ColumnSpec(1, b"", True), 250, "fa"),
    (ColumnSpec(2, b"", True), 65000, "e8fd"),
    (ColumnSpec(9), -8000000, "00ee85"),
    (ColumnSpec(3), -1, "ffffffff"),
    (ColumnSpec(8), -9000000000000, None),
    (ColumnSpec(4, b"\x04"), 1.5, "0000c03f"),
    (ColumnSpec(5, b"\x08"), 2.25, "0000000000000240"),
    (ColumnSpec(246, bytes([12, 3])), Decimal("-123.456"), None),
    (ColumnSpec(254, bytes([0xFE, 40])), b"abc", "03616263"),
    (ColumnSpec(254, bytes([0xEE, 0xE0])), b"x" * 300, "2c01" + "78" * 300),  # CHAR(120) utf8mb4: 480 bytes
    (ColumnSpec(15, (1200).to_bytes(2, "little")), "héllo".encode(), "0600" + "héllo".encode().hex()),
    (ColumnSpec(15, (80).to_bytes(2, "little")), b"v", "0176"),
    (ColumnSpec(252, bytes([2])), b"long text", "0900" + b"long text".hex()),
    (ColumnSpec(252, bytes([3])), b"\x00\xff", "020000" + "00ff"),
    (ColumnSpec(10), "2024-02-29", None),
    (ColumnSpec(18, bytes([0])), "2024-01-02 03:04:05", None),
    (ColumnSpec(18, bytes([6])), "2024-01-02 03:04:05.123456", None),
    (ColumnSpec(17, bytes([3])), "2024-01-02 03:04:05.120", None),
    (ColumnSpec(19, bytes([0])), "12:34:56", None),
    (ColumnSpec(19, bytes([2])), "01:02:03.45", None),
    (ColumnSpec(13), 2024, "7c"),
    (ColumnSpec(13), 0, "00"),
    # TIME2 with negative values: the table in MySQL's my_time_packed_from_binary (mysys/my_time.cc)
    (ColumnSpec(19, bytes([2])), "00:00:00.00", "80000000"),
    (ColumnSpec(19, bytes([2])), "-00:00:00.01", "7fffffff"),
    (ColumnSpec(19, bytes([2])), "-00:00:00.99", "7fffff9d"),
    (ColumnSpec(19, bytes([2])), "-00:00:01.00", "7fffff00"),
    (ColumnSpec(19, bytes([2])), "-00:00:01.01", "7ffffeff"),
    (ColumnSpec(19, bytes([2])), "-00:00:01.10", "7ffffef6"),
    (ColumnSpec(19, bytes([0])), "-838:59:59", "4b9105"),
    (ColumnSpec(19, bytes([4])), "-12:34:56.7891", None),
    (ColumnSpec(19, bytes([6])), "838:59:59.000000", None),
    (ColumnSpec(19, bytes([6])), "-838:59:59.000001", None),
    # BIT(M): metadata (M % 8, M // 8), value big-endian in (M + 7) // 8 bytes (Field_bit::pack)
    (ColumnSpec(16, bytes([6, 0])), 0b100010, "22"),
    (ColumnSpec(16, bytes([2, 1])), 0x3FF, "03ff"),
    (ColumnSpec(16, bytes([0, 8])), 2**64 - 1, "ff" * 8),
    (ColumnSpec(8, b"", True), 2**64 - 1, "ff" * 8),  # BIGINT UNSIGNED's maximum
    (ColumnSpec(254, bytes([247, 1])), 3, "03"),  # ENUM: its index
    (ColumnSpec(254, bytes([248, 2])), 0x105, "0501"),  # SET: its bits
    (ColumnSpec(255, b"\x04"), bytes(25), "19000000" + "00" * 25),  # GEOMETRY: 4-byte length + SRID + WKB
]


@pytest.mark.parametrize(("spec", "value", "hex_"), CASES, ids=lambda v: repr(v)[:30])
def test_value_round_trip(spec: ColumnSpec, value: Any, hex_: str | None) -> None:
    w = Writer()
    encode_value(w, spec, value)
    raw = w.getvalue()
    if hex_ is not None:
        assert raw.hex() == hex_
    cur = Cursor(raw)
    assert decode_value(cur, spec) == value
    assert cur.remaining == 0


def test_unsupported_types_raise_documented_errors() -> None:
    with pytest.raises(ValueError):
        encode_value(Writer(), ColumnSpec(242, b"\x04"), b"{}")  # VECTOR (9.0)
    with pytest.raises(BinlogDecodeError):
        decode_value(Cursor(b"\x00"), ColumnSpec(242, b"\x04"))


def _table_map(specs: list[ColumnSpec], nullable: bool = True) -> TableMapEvent:
    numeric_unsigned = [s.unsigned for s in specs if s.type_code in (1, 2, 3, 8, 9, 4, 5, 246)]
    bits = bytearray((len(numeric_unsigned) + 7) // 8)
    for i, u in enumerate(numeric_unsigned):
        if u:
            bits[i // 8] |= 0x80 >> (i % 8)
    optional = bytes([1, len(bits)]) + bytes(bits)
    n = len(specs)
    return TableMapEvent(
        7,
        1,
        "db",
        "t",
        bytes(s.type_code for s in specs),
        b"".join(s.meta for s in specs),
        (b"\xff" if nullable else b"\x00") * ((n + 7) // 8),
        optional,
    )


def test_images_and_events_round_trip() -> None:
    specs = [c[0] for c in CASES]
    tm = _table_map(specs)
    assert list(column_specs(tm)) == specs
    assert signedness(tm)[:3] == [False, True, True]
    row = tuple(c[1] for c in CASES)
    nulls = tuple(None if i % 3 == 0 else v for i, v in enumerate(row))
    images = [encode_row(specs, row), encode_row(specs, nulls)]
    (ev,) = rows_events(30, 7, len(specs), images)
    assert (
        ev.flags == STMT_END_F and ev.columns_before == full_bitmap(len(specs)) and ev.columns_after is None
    )
    assert decode_rows(tm, ev) == [(None, row), (None, nulls)]
    (up,) = rows_events(31, 7, len(specs), [images[0] + images[1]])
    assert decode_rows(tm, up) == [(row, nulls)]
    (de,) = rows_events(32, 7, len(specs), [images[1]])
    assert decode_rows(tm, de) == [(nulls, None)]
    with pytest.raises(BinlogDecodeError):
        decode_rows(tm, RowsEvent(30, 7, 0, b"", len(specs), full_bitmap(len(specs)), None, images[0][:-1]))


@pytest.mark.parametrize(
    "row",
    [
        tuple(c[1] for c in CASES),
        tuple(None if i % 3 == 0 else c[1] for i, c in enumerate(CASES)),
        tuple(None for _ in CASES),
        tuple(
            c[1].decode("utf-8", "replace") if isinstance(c[1], bytes) else c[1] for c in CASES
        ),  # str values: as UTF-8
    ],
    ids=["values", "some-null", "all-null", "str-values"],
)
def test_compiled_row_encoder_gives_encode_row_bytes(row: tuple[Any, ...]) -> None:
    specs = [c[0] for c in CASES]
    assert row_encoder(specs)(row) == encode_row(specs, row)
    strip = [
        (lambda v: v.rstrip(b" ") if isinstance(v, bytes) else v) if s.type_code == 254 else None
        for s in specs
    ]
    padded = tuple(
        v + b"  " if isinstance(v, bytes) and s.type_code == 254 else v for s, v in zip(specs, row)
    )
    assert row_encoder(specs, strip)(padded) == encode_row(specs, row)


@pytest.mark.parametrize(
    ("spec", "value"),
    [
        (ColumnSpec(1), 300),  # TINYINT overflow (int.to_bytes's OverflowError, as encode_row)
        (ColumnSpec(254, bytes([0xFE, 40])), b"x" * 300),  # a 1-byte length prefix cannot hold 300
        (ColumnSpec(246, bytes([5, 2])), Decimal(1000)),  # DECIMAL(5,2) overflow: ValueError
    ],
    ids=["tinyint-overflow", "char-too-long", "decimal-overflow"],
)
def test_compiled_row_encoder_raises_what_encode_row_raises(spec: ColumnSpec, value: Any) -> None:
    with pytest.raises(Exception) as expected:
        encode_row([spec], [value])
    with pytest.raises(type(expected.value), match=re.escape(str(expected.value))):
        row_encoder([spec])([value])


def test_rows_events_split_like_mysql() -> None:
    """A new event starts when the next row would take the pending one past binlog_row_event_max_size."""
    img = b"\x00" + b"x" * 999
    events = rows_events(30, 1, 1, [img] * 20)
    assert [len(e.body) for e in events] == [8000, 8000, 4000]
    assert all(len(e.body) <= ROW_EVENT_MAX_SIZE for e in events)
    assert [e.flags for e in events] == [0, 0, STMT_END_F]
    big = b"\x00" + b"y" * 9000  # one row larger than the limit travels alone
    assert [len(e.body) for e in rows_events(30, 1, 1, [img, big, img])] == [1000, 9001, 1000]
    assert rows_events(30, 1, 1, []) == []


SUPPORTED = {1, 2, 3, 4, 5, 8, 9, 10, 13, 15, 16, 17, 18, 19, 246, 252, 254}


def _fixture_files() -> list[Path]:
    if not BINLOG_FIXTURES.exists():
        return []
    return sorted(
        p
        for p in BINLOG_FIXTURES.rglob("*")
        if p.is_file() and p.stat().st_size > 4 and p.read_bytes()[:4] == b"\xfebin"
    )


def test_real_mysql_rows_events_decode_to_their_last_byte() -> None:
    """Every v2 rows event of the real MySQL fixtures whose columns this codec reads decodes to the end of its
    body (a wrong width for any type would overrun or leave bytes)."""
    decoded = 0
    for path in _fixture_files():
        maps: dict[int, TableMapEvent] = {}
        try:
            for pe in read_events(path):
                ev = pe.event
                if isinstance(ev, TableMapEvent):
                    maps[ev.table_id] = ev
                elif isinstance(ev, RowsEvent) and ev.type_code in (30, 31, 32) and ev.table_id in maps:
                    tm = maps[ev.table_id]
                    if set(tm.column_types) <= SUPPORTED:
                        rows = decode_rows(tm, ev)
                        assert rows, (path, pe.pos)
                        decoded += 1
        except BinlogDecodeError as err:
            if err.offset is None:
                raise
    assert decoded > 50
