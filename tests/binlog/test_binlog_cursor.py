"""Cursor / Writer: bounded reads, packed (net_store_length) and varlen (mysql::serialization) integers."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gtidkit.binlog.cursor import Cursor, CursorError, Writer, packed_int_width, varlen_width
from gtidkit.errors import BinlogDecodeError

# formats.md §2.3 examples (from MySQL's variable_length_integers.h)
VARLEN_UNSIGNED = [
    (0, "00"),
    (1, "02"),
    (63, "7e"),
    (127, "fe"),
    (128, "0102"),
    (337, "4505"),
    (16384, "030002"),
    (80411, "dbd009"),
    (2**56 - 1, "7fffffffffffffff"),
    (2**56, "ff00000000000000" + "01"),
]
VARLEN_SIGNED = [(0, "00"), (1, "04"), (-1, "02"), (64, "0102")]
PACKED = [
    (0, "00"),
    (250, "fa"),
    (251, "fcfb00"),
    (65535, "fcffff"),
    (65536, "fd000001"),
    (2**24, "fe0000000100000000"),
]


@pytest.mark.parametrize(("value", "hexed"), VARLEN_UNSIGNED, ids=[str(v) for v, _ in VARLEN_UNSIGNED])
def test_varlen_unsigned_examples(value: int, hexed: str) -> None:
    w = Writer()
    w.varlen_uint(value)
    assert w.getvalue().hex() == hexed
    c = Cursor(bytes.fromhex(hexed))
    assert c.varlen_uint() == value and c.remaining == 0


@pytest.mark.parametrize(("value", "hexed"), VARLEN_SIGNED, ids=[str(v) for v, _ in VARLEN_SIGNED])
def test_varlen_signed_examples(value: int, hexed: str) -> None:
    w = Writer()
    w.varlen_int(value)
    assert w.getvalue().hex() == hexed
    assert Cursor(bytes.fromhex(hexed)).varlen_int() == value


@pytest.mark.parametrize(("value", "hexed"), PACKED, ids=[str(v) for v, _ in PACKED])
def test_packed_int_examples(value: int, hexed: str) -> None:
    w = Writer()
    w.packed_int(value)
    assert w.getvalue().hex() == hexed
    assert len(w) == packed_int_width(value)
    assert Cursor(bytes.fromhex(hexed)).packed_int() == value


@given(st.integers(min_value=0, max_value=2**64 - 1))
def test_varlen_unsigned_round_trip(value: int) -> None:
    w = Writer()
    w.varlen_uint(value)
    assert len(w) == varlen_width(value)
    assert Cursor(w.getvalue()).varlen_uint() == value


@given(st.integers(min_value=-(2**63), max_value=2**63 - 1))
def test_varlen_signed_round_trip(value: int) -> None:
    w = Writer()
    w.varlen_int(value)
    assert Cursor(w.getvalue()).varlen_int() == value


@given(st.integers(min_value=0, max_value=2**64 - 1))
def test_packed_round_trip(value: int) -> None:
    w = Writer()
    w.packed_int(value)
    assert Cursor(w.getvalue()).packed_int() == value


@given(st.binary(max_size=12))
def test_random_bytes_raise_only_cursor_errors(data: bytes) -> None:
    for read in ("varlen_uint", "varlen_int", "packed_int", "u64", "u56", "u24"):
        c = Cursor(data)
        try:
            getattr(c, read)()
        except CursorError:
            pass


def test_reads_are_bounded() -> None:
    c = Cursor(b"\x01\x02\x03\x04\x05", 1, 4)
    assert c.u16() == 0x0302
    with pytest.raises(CursorError):
        c.u16()
    assert c.pos == 3  # a failed read does not move
    assert c.u8() == 4
    assert issubclass(CursorError, BinlogDecodeError)


def test_cursor_bounds_checked() -> None:
    with pytest.raises(CursorError):
        Cursor(b"abc", 0, 4)


def test_non_canonical_varlen_rejected() -> None:
    # value 1 encoded in 2 bytes: (1 << 2) | 1 = 5 → 05 00
    with pytest.raises(CursorError, match="non-canonical"):
        Cursor(b"\x05\x00").varlen_uint()


def test_packed_int_bad_prefix() -> None:
    with pytest.raises(CursorError, match="packed integer"):
        Cursor(b"\xff").packed_int()


@pytest.mark.parametrize("method,value", [("u8", 256), ("u16", -1), ("u56", 2**56), ("i64", 2**63)])
def test_writer_range_checks(method: str, value: int) -> None:
    with pytest.raises(ValueError):
        getattr(Writer(), method)(value)


def test_fixed_width_round_trip() -> None:
    w = Writer()
    w.u8(1)
    w.u16(0x0203)
    w.u24(0x040506)
    w.u32(0x0708090A)
    w.u48(0x0B0C0D0E0F10)
    w.u56(2**55 + 3)
    w.u64(2**64 - 1)
    w.i64(-2)
    w.bytes(b"xyz")
    c = Cursor(w.getvalue())
    assert [c.u8(), c.u16(), c.u24(), c.u32(), c.u48(), c.u56(), c.u64(), c.i64(), c.rest()] == [
        1,
        0x0203,
        0x040506,
        0x0708090A,
        0x0B0C0D0E0F10,
        2**55 + 3,
        2**64 - 1,
        -2,
        b"xyz",
    ]
