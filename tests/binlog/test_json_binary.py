"""MySQL's binary JSON (gtidkit.binlog.json_binary).

Sources of expected bytes:

- real MySQL 8.0.22 row images: ``blackbeam__rust_mysql_common/json.binlog.000001`` (rust_mysql_common's
  ``test-data/binlogs``, read in place from the shared fixtures): every JSON value decodes and re-encodes to the
  same bytes;
- the grammar in the comment of MySQL's ``sql-common/json_binary.h`` (small/large objects and arrays, inlined
  literals and int16, the variable-length string length), for the hand-built vectors below;
- python-mysql-replication's decoder (``pymysqlreplication.json_binary.parse_json``, itself a port of go-mysql's
  ``replication/json_binary.go``) as an independent reader of everything we encode.
"""

from __future__ import annotations

import datetime
import math
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gtidkit.binlog.events.rows import RowsEvent, TableMapEvent
from gtidkit.binlog.file import read_events
from gtidkit.binlog.json_binary import JsonOpaque, decode, encode, temporal_opaque, temporal_text
from gtidkit.binlog.row_image import decode_rows
from gtidkit.errors import BinlogDecodeError

# (value, hex): built from json_binary.h's grammar
VECTORS = [
    (None, "0400"),
    (True, "0401"),
    (False, "0402"),
    (-1, "05ffff"),  # int16
    (32767, "05ff7f"),
    (32768, "0700800000"),  # int32
    (-2147483649, "09ffffff7fffffffff"),  # int64
    (2**32 - 1, "09ffffffff00000000"),  # 32-bit unsigned: rapidjson's Uint() -> Json_int -> int64
    (2**32, "0a0000000001000000"),  # past 32 bits: rapidjson's Uint64() -> Json_uint -> uint64 (json_dom.cc)
    (2**64 - 1, "0affffffffffffffff"),
    (3.0, "0b0000000000000840"),  # double
    ("ab", "0c026162"),  # string: 1-byte length
    (
        {"a": 1},
        "0001000c000b00010005010061",
    ),  # count 1, size 12, key entry (11, 1), value entry int16 1 inlined
    ([1, "x"], "0202000c000501000c0a000178"),  # count 2, size 12, int16 inlined, string at offset 10
    ({}, "0000000400"),
    ([], "0200000400"),
]


@pytest.mark.parametrize(("value", "hex_"), VECTORS, ids=lambda v: repr(v)[:24])
def test_vectors_encode_and_decode(value: Any, hex_: str) -> None:
    assert encode(value).hex() == hex_
    assert decode(bytes.fromhex(hex_)) == value


def test_keys_are_stored_by_length_then_bytes() -> None:
    # Json_object's key order (RM8 "The JSON Data Type": "keys are sorted ... shorter keys first")
    doc = decode(encode({"b": 1, "aa": 2, "a": 3}))
    assert list(doc) == ["a", "b", "aa"]


def test_string_length_takes_more_bytes_past_127() -> None:
    raw = encode("y" * 200)
    assert raw[:3] == bytes([0x0C, 0xC8, 0x01])  # 200 = 0x48 | 0x80, then 1
    assert decode(raw) == "y" * 200


def test_large_format_when_offsets_pass_64k() -> None:
    big = {"k": "x" * 70000, "n": -7}
    raw = encode(big)
    assert raw[0] == 0x01  # large object
    # the negative int16 is inlined in a 4-byte slot, sign-extended (insert_offset_or_size of an int32)
    assert decode(raw) == big
    arr = ["x" * 70000, 5, 70000]
    raw = encode(arr)
    assert raw[0] == 0x03 and decode(raw) == arr
    # a small child of a large container stays small; a child holding a big value is large (serialize_json_value)
    doc = {"k": "x" * 70000, "m": [1, {"z": "y" * 70000}], "n": {"a": 1}}
    raw = encode(doc)
    value_entries = 1 + 4 + 4 + 3 * 6  # type, count, size, three large key entries
    assert [raw[value_entries + 5 * i] for i in range(3)] == [
        0x0C,
        0x03,
        0x00,
    ]  # string, large array, small object
    assert decode(raw) == doc


def test_decimal_and_opaque_values() -> None:
    assert decode(encode(Decimal("3.14"))) == Decimal("3.14")
    assert decode(encode(Decimal("-0.5"))) == Decimal("-0.5")
    assert decode(encode(JsonOpaque(15, b"\xca\xfe"))) == JsonOpaque(15, b"\xca\xfe")
    with pytest.raises(ValueError):
        JsonOpaque(256, b"")


def test_empty_value_is_the_null_literal() -> None:
    # Field_json::val_json: an empty binary value reads as JSON null
    assert decode(b"") is None


@pytest.mark.parametrize(
    "raw",
    [
        "04",  # literal without its byte
        "0403",  # unknown literal
        "05ff",  # truncated int16
        "0c05616263",  # string longer than the data
        "0001000c000b000100050100",  # object whose key runs past the end
        "00010064000b00010005010061",  # size past the end
        "0201000a000c0500",  # value offset outside the array
        "11",  # unknown type
        "0c8080808080",  # a length of more than 5 bytes
    ],
)
def test_malformed_documents_raise_binlog_decode_error(raw: str) -> None:
    with pytest.raises(BinlogDecodeError):
        decode(bytes.fromhex(raw))


def test_real_mysql_8_0_22_row_images_round_trip(binlog_fixtures: Path) -> None:
    path = binlog_fixtures / "blackbeam__rust_mysql_common" / "json.binlog.000001"
    table_maps: dict[int, TableMapEvent] = {}
    documents = []
    for pe in read_events(path):
        ev = pe.event
        if isinstance(ev, TableMapEvent):
            table_maps[ev.table_id] = ev
        elif isinstance(ev, RowsEvent) and ev.type_code in (30, 31):  # Write / Update_rows_v2
            tm = table_maps[ev.table_id]
            assert tm.column_types[1] == 245 and tm.column_metadata()[1] == b"\x04"
            for before, after in decode_rows(tm, ev):
                for image in (before, after):
                    if image is not None and image[1] is not None:
                        raw = image[1]
                        value = decode(raw)
                        assert encode(value) == raw  # byte for byte what MySQL wrote
                        documents.append(value)
    assert documents[:3] == [
        {"age": 24, "data": "xxxxxxxxxx", "name": "Joe"},
        {"age": 32, "data": "yyyyyyyyyy", "name": "Sue"},
        {"age": 40, "data": "zzzzzzzzzz", "name": "Pete"},
    ]
    assert len(documents) == 18


# -- properties -----------------------------------------------------------------------------------------------------
_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=40)
)
_documents = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=8), inner, max_size=6),
    max_leaves=30,
)


def _same(a: Any, b: Any) -> bool:
    """Equality that tells True from 1 and -0.0 from 0.0 (JSON literals and doubles keep their type)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, float) and isinstance(b, float):
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(_documents)
def test_encode_then_decode_is_identity(doc: Any) -> None:
    assert _same(decode(encode(doc)), doc)


def _as_text(v: Any) -> Any:
    if isinstance(v, bytes):
        return v.decode("utf-8", "surrogateescape")
    if isinstance(v, dict):
        return {_as_text(k): _as_text(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_as_text(x) for x in v]
    return v


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(_documents)
def test_python_mysql_replication_reads_what_we_encode(doc: Any) -> None:
    parse_json = pytest.importorskip("pymysqlreplication.json_binary").parse_json
    raw = encode(doc)
    assert _same(_as_text(parse_json(raw[0], raw[1:])), doc)


@settings(max_examples=300)
@given(st.binary(max_size=64))
def test_fuzzed_bytes_raise_only_binlog_decode_error(raw: bytes) -> None:
    try:
        decode(raw)
    except BinlogDecodeError:
        pass


def _packed_datetime(y: int, mo: int, d: int, h: int, mi: int, s: int, us: int) -> bytes:
    ymd = ((y * 13 + mo) << 5) | d
    hms = (h << 12) | (mi << 6) | s
    return ((((ymd << 17) | hms) << 24) + us).to_bytes(8, "little", signed=True)


@pytest.mark.parametrize(
    ("field_type", "data", "text"),
    [
        # json_insert_innodb.result: CAST(CAST('2015-01-15 23:24:25' AS DATETIME) AS JSON) and friends
        (12, _packed_datetime(2015, 1, 15, 23, 24, 25, 0), "2015-01-15 23:24:25.000000"),
        (7, _packed_datetime(2015, 1, 15, 23, 24, 25, 0), "2015-01-15 23:24:25.000000"),
        (10, _packed_datetime(2015, 1, 15, 0, 0, 0, 0), "2015-01-15"),
        (11, (((23 << 12) | (24 << 6) | 25) << 24).to_bytes(8, "little", signed=True), "23:24:25.000000"),
        (12, _packed_datetime(2024, 2, 29, 1, 2, 3, 123456), "2024-02-29 01:02:03.123456"),
        (15, b"\xca\xfe", None),
    ],
)
def test_temporal_opaque_values_print_as_mysql_does(field_type: int, data: bytes, text: str | None) -> None:
    opaque = JsonOpaque(field_type, data)
    assert temporal_text(opaque) == text
    if (
        text is not None and field_type != 7
    ):  # python-mysql-replication reads the same instant (it has no TIMESTAMP)
        parse_json = pytest.importorskip("pymysqlreplication.json_binary").parse_json
        raw = encode(opaque)
        theirs = str(parse_json(raw[0], raw[1:]))
        assert theirs.replace(" 00:00:00", "").startswith(text.rstrip("0").rstrip("."))


# -- opaque temporal values read by an independent decoder ---------------------------------------------------------
@pytest.mark.parametrize(
    ("field_type", "text", "expected"),
    [
        (10, "2015-01-15", datetime.datetime(2015, 1, 15)),
        (12, "2015-01-15 23:24:25.000001", datetime.datetime(2015, 1, 15, 23, 24, 25, 1)),
        (11, "18:00:59.5", datetime.time(18, 0, 59, 500000)),
    ],
    ids=["date", "datetime", "time"],
)
def test_temporal_opaque_bytes_read_by_python_mysql_replication(
    field_type: int, text: str, expected: Any
) -> None:
    """The packed DATE / DATETIME / TIME (my_time.cc ``TIME_to_longlong_*_packed``, 8 bytes LE: the layout
    ``Json_datetime::to_packed`` writes) as python-mysql-replication's ``parse_json`` reads it (its ``parse_opaque``
    decodes what real MySQL sources write)."""
    from pymysqlreplication.json_binary import parse_json

    raw = encode(temporal_opaque(field_type, text))
    assert raw[0] == 0x0F and raw[1] == field_type and raw[2] == 8  # opaque: field type, data length 8
    assert parse_json(raw[0], raw[1:]) == expected
    assert temporal_text(decode(raw)) == (
        text if field_type == 10 else text.ljust(len(text.split(".")[0]) + 7, "0")
    )
