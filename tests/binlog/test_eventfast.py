"""The compiled event framer and row-image packer (binlog/_eventfast.c via event_fast.py) against the Python code
they shortcut: :func:`gtidkit.binlog.writer.frame_events` (itself held to MySQL's bytes by test_writer.py and
the fixtures) and :func:`gtidkit.binlog.row_image.encode_row`. Whatever the C code answers must be those bytes;
what it declines (None) the Python path encodes or refuses; the values a sysbench transaction logs it must answer.
The real MySQL fixtures' row images of integer / string tables must come out byte for byte."""

from __future__ import annotations

import os
import struct
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gtidkit.binlog import event_fast, row_image
from gtidkit.binlog.events.rows import RowsEvent, TableMapEvent
from gtidkit.binlog.file import read_events
from gtidkit.binlog.row_image import ColumnSpec, encode_row, row_encoder
from gtidkit.binlog.writer import frame_events
from gtidkit.errors import BinlogDecodeError
from tests.binlog.test_row_image import _fixture_files

if event_fast._eventfast is None:  # pragma: no cover - built by setup.py wherever a C compiler is
    if os.environ.get(
        "CI"
    ):  # CI builds it (setup.py through `pip install -e .`): there its absence is a failure
        pytest.fail("gtidkit.binlog._eventfast is not built", pytrace=False)
    pytest.skip("gtidkit.binlog._eventfast is not built", allow_module_level=True)

frame = event_fast._eventfast.frame
compiled_row = event_fast._eventfast.encode_row

U32 = 0xFFFFFFFF
items_st = st.lists(
    st.tuples(
        st.integers(0, 255), st.integers(0, 0xFFFF), st.binary(max_size=300) | st.binary().map(bytearray)
    ),
    max_size=40,
)


@settings(max_examples=300, deadline=None)
@given(items_st, st.integers(0, U32), st.integers(0, U32), st.integers(0, U32), st.booleans())
def test_frame_gives_the_python_frames(
    items: list[Any], start: int, ts: int, server_id: int, crc: bool
) -> None:
    expected: Any
    try:
        expected = frame_events(items, start, ts, server_id, crc)
    except struct.error:  # log_pos past 4 GiB: the C code declines, the Python path raises
        expected = None
    assert frame(items, start, ts, server_id, crc) == expected


@pytest.mark.parametrize(
    ("items", "start", "ts", "server_id"),
    [
        ([(2, 0, b"x")], -1, 0, 0),
        ([(2, 0, b"x")], 0, U32 + 1, 0),
        ([(2, 0, b"x")], 0, 0, -5),
        ([(2, 0, b"x")], U32 - 10, 0, 0),  # the event ends past 4 GiB
        ([(256, 0, b"x")], 4, 0, 0),
        ([(2, 0x10000, b"x")], 4, 0, 0),
        ([(2, -1, b"x")], 4, 0, 0),
        ([(2, 0, "text")], 4, 0, 0),
        ([[2, 0, b"x"]], 4, 0, 0),
        ([(2, 0)], 4, 0, 0),
        (((2, 0, b"x"),), 4, 0, 0),
    ],
    ids=[
        "neg-pos",
        "ts",
        "server-id",
        "past-4gib",
        "type",
        "flags",
        "neg-flags",
        "str-body",
        "list-item",
        "short-item",
        "tuple-items",
    ],
)
def test_frame_declines_what_the_python_path_refuses_or_takes_otherwise(
    items: Any, start: int, ts: int, server_id: int
) -> None:
    assert frame(items, start, ts, server_id, True) is None


def test_frame_of_a_sysbench_transaction(tmp_path: Path) -> None:
    """A logged write transaction (Gtid, BEGIN, Table_map + rows x 4, Xid) frames the same both ways."""
    from gtidkit.engine.server import Server

    server = Server.open(tmp_path, log_bin=True, gtid_mode="ON", enforce_gtid_consistency="ON", server_id=1)
    try:
        s = server.session()
        s.execute("CREATE DATABASE sbtest; USE sbtest")
        s.execute(
            "CREATE TABLE sbtest1 (id INTEGER NOT NULL AUTO_INCREMENT, k INTEGER DEFAULT '0' NOT NULL, "
            "c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id))"
        )
        s.execute("INSERT INTO sbtest1 VALUES (1, 5, 'c-1', 'pad-1'), (2, 6, 'c-2', 'pad-2')")
        s.execute("BEGIN")
        s.execute("UPDATE sbtest1 SET k=k+1 WHERE id=1")
        s.execute("UPDATE sbtest1 SET c='new' WHERE id=2")
        s.execute("DELETE FROM sbtest1 WHERE id=2")
        s.execute("INSERT INTO sbtest1 (id, k, c, pad) VALUES (2, 7, 'c-3  ', 'p')")
        s.execute("COMMIT")
        binlog = server.binlog
        assert binlog is not None and binlog.active is not None
        path = binlog.path(binlog.active)
    finally:
        server.shutdown()
    events = list(read_events(path))
    last = [e for e in events if e.type_code in (33, 2, 19, 30, 31, 32, 16)][-11:]
    assert [e.type_code for e in last] == [33, 2, 19, 31, 19, 31, 19, 32, 19, 30, 16]
    raw = path.read_bytes()
    begin, end = last[0].pos, last[-1].end_pos
    items = [(e.type_code, e.header.flags, raw[e.pos + 19 : e.end_pos - 4]) for e in last]
    h = last[0].header
    assert frame(items, begin, h.timestamp, h.server_id, True) == frame_events(
        items, begin, h.timestamp, h.server_id, True
    )
    assert frame(items, begin, h.timestamp, h.server_id, True)[0] == raw[begin:end]  # type: ignore[index]


INT_SPECS = [ColumnSpec(code, b"", unsigned) for code in (1, 2, 9, 3, 8) for unsigned in (False, True)]
STRING_SPECS = [
    ColumnSpec(254, bytes([0xFE, 40])),  # CHAR(40) latin1: 1-byte prefix
    ColumnSpec(254, bytes([0xEE, 0x2C])),  # CHAR(100) utf8mb4 (400 bytes, length bits in the first byte)
    ColumnSpec(15, struct.pack("<H", 200)),  # VARCHAR, 1-byte prefix
    ColumnSpec(15, struct.pack("<H", 1000)),  # VARCHAR, 2-byte prefix
]
value_st = (
    st.none()
    | st.integers(-(2**64), 2**64)
    | st.booleans()
    | st.text(max_size=20)
    | st.binary(max_size=300)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["\udcff", "é" * 200, "x" * 70000])
)


@st.composite
def rows_st(draw: Any) -> tuple[list[ColumnSpec], list[Any]]:
    specs = draw(st.lists(st.sampled_from(INT_SPECS + STRING_SPECS), min_size=1, max_size=12))
    return specs, [draw(value_st) for _ in specs]


def _kinds(specs: list[ColumnSpec], pres: list[Any]) -> tuple[int, ...]:
    return tuple(row_image._compiled_kind(s, p) for s, p in zip(specs, pres))


@settings(max_examples=500, deadline=None)
@given(rows_st(), st.booleans())
def test_encode_row_gives_encode_row_bytes_or_declines(
    case: tuple[list[ColumnSpec], list[Any]], strip: bool
) -> None:
    specs, row = case
    pres = [
        (lambda v: v.rstrip(b" ") if isinstance(v, bytes) else v) if strip and s.type_code == 254 else None
        for s in specs
    ]
    kinds = _kinds(specs, pres)
    assert 0 not in kinds
    expected: Any
    try:
        expected = encode_row(specs, [v if v is None or p is None else p(v) for v, p in zip(row, pres)])
    except (ValueError, OverflowError, UnicodeEncodeError, TypeError):
        expected = None
    got = compiled_row(kinds, tuple(pres), tuple(row))
    if got is not None:
        assert got == expected
    # the encoder the engine uses: the compiled bytes, else the Python path's bytes or error
    if expected is not None:
        assert row_encoder(specs, pres)(tuple(row)) == expected


def test_encode_row_answers_sysbench_rows() -> None:
    """sbtest1's rows (INT id, INT k, CHAR(120) c, CHAR(60) pad, utf8mb4) are packed in C, not declined."""
    specs = [
        ColumnSpec(3),
        ColumnSpec(3),
        ColumnSpec(254, bytes([0xEE, 0xE0])),
        ColumnSpec(254, bytes([0xFE, 0xF0])),
    ]
    row = (42, -7, "12345678901-" * 9 + "12345678901", "pad")
    kinds = _kinds(specs, [None] * 4)
    assert kinds == (-4, -4, 102, 101)
    assert compiled_row(kinds, (None,) * 4, row) == encode_row(specs, row)
    assert compiled_row(kinds, (None,) * 4, list(row)) == encode_row(specs, row)
    assert compiled_row(kinds, (None,) * 4, row[:3]) is None  # another width: the Python path's checks


def test_encode_row_declines_when_a_pre_function_raises() -> None:
    def boom(v: Any) -> Any:
        raise RuntimeError("pre")

    assert compiled_row((101,), (boom,), ("x",)) is None
    with pytest.raises(RuntimeError):
        row_encoder([ColumnSpec(15, struct.pack("<H", 10))], [boom])(("x",))


def test_encode_row_declines_a_row_its_pre_function_changes() -> None:
    """A pre function that empties a list row: the next value is not read from freed memory, the row is declined."""
    row: list[Any] = ["a", "b"]

    def shrink(v: Any) -> Any:
        row.clear()
        return v

    assert compiled_row((101, 101), (shrink, shrink), row) is None
    assert compiled_row((101, 1), (None, None), ("a", 1)) == b"\x00\x01a\x01"
    assert compiled_row(("x", 1), (None, None), ("a", 1)) is None  # not a kind


#: Write / Update / Delete rows, v1 and v2: the same row images
ROWS_TYPES = (23, 24, 25, 30, 31, 32)


def _every_column(bitmap: bytes | None, n: int) -> bool:
    """A columns-present bitmap of all ``n`` columns (MySQL may set the unused bits of the last byte)."""
    return bitmap is None or int.from_bytes(bitmap, "little") & ((1 << n) - 1) == (1 << n) - 1


def _unused_bits_cleared(image: bytes, n: int) -> bytes:
    """``image`` with the bits past column ``n`` of its NULL bitmap cleared (some MySQL releases set them; the
    encoders write 0)."""
    nbytes = (n + 7) // 8
    nulls = int.from_bytes(image[:nbytes], "little") & ((1 << n) - 1)
    return nulls.to_bytes(nbytes, "little") + image[nbytes:]


def test_real_mysql_row_images_of_integer_and_string_tables_come_out_byte_for_byte() -> None:
    """Each row image of the fixtures' rows events whose tables have only integer and CHAR / VARCHAR columns
    (FULL images, every column present): decoded, then packed by the C code, it gives the event's bytes."""
    checked = 0
    for path in _fixture_files():
        maps: dict[int, TableMapEvent] = {}
        try:
            events = list(read_events(path))
        except BinlogDecodeError:
            continue
        for pe in events:
            ev = pe.event
            if isinstance(ev, TableMapEvent):
                maps[ev.table_id] = ev
                continue
            if not (isinstance(ev, RowsEvent) and ev.type_code in ROWS_TYPES and ev.table_id in maps):
                continue
            tm = maps[ev.table_id]
            specs = row_image.column_specs(tm)
            kinds = _kinds(specs, [None] * len(specs))
            if 0 in kinds or not all(
                _every_column(b, len(specs)) for b in (ev.columns_before, ev.columns_after)
            ):
                continue
            pres = (None,) * len(specs)
            images = [image for pair in row_image.decode_rows(tm, ev) for image in pair if image is not None]
            at = 0
            for image in images:
                packed = compiled_row(kinds, pres, image)
                assert packed is not None and packed == encode_row(specs, image), (path, pe.pos)
                original = ev.body[at : at + len(packed)]
                assert _unused_bits_cleared(original, len(specs)) == packed, (path, pe.pos)
                at += len(packed)
            assert at == len(ev.body)
            checked += 1
    assert checked > 10
