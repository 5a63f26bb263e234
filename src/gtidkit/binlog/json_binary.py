"""MySQL's binary JSON format: the value of a JSON column in row images (pure codec: values in, bytes out, and back).

MySQL source: ``sql-common/json_binary.cc`` and the grammar in the comment atop ``sql-common/json_binary.h``
(``serialize_json_value`` / ``parse_binary``); the same layout is read by python-mysql-replication
(``pymysqlreplication/packet.py`` ``read_binary_json``) and go-mysql (``replication/json_binary.go``).

A document is one type byte followed by the value::

    doc           ::= type value
    type          ::= 0x00 small object | 0x01 large object | 0x02 small array | 0x03 large array
                    | 0x04 literal | 0x05 int16 | 0x06 uint16 | 0x07 int32 | 0x08 uint32
                    | 0x09 int64 | 0x0a uint64 | 0x0b double | 0x0c string | 0x0f opaque (custom data)
    object        ::= element-count size key-entry* value-entry* key* value*
    array         ::= element-count size value-entry* value*
    element-count ::= uint16 (small) | uint32 (large)        -- little-endian, as every number here
    size          ::= uint16 (small) | uint32 (large)        -- bytes of the whole object/array, header included
    key-entry     ::= key-offset (uint16 | uint32) key-length (uint16)
    value-entry   ::= type offset-or-inlined-value (uint16 | uint32)
    literal       ::= 0x00 null | 0x01 true | 0x02 false     -- as a uint16 when it is a document or an entry
    string        ::= data-length utf8mb4-bytes
    opaque        ::= field-type (uint8) data-length bytes   -- e.g. NEWDECIMAL 246: precision, scale, decimal2bin
    data-length   ::= 7 bits per byte, least significant group first, high bit set on every byte but the last

Offsets are counted from the first byte of the object/array (its element-count). Keys are stored sorted by length,
then bytewise (``Json_object``'s key order), so object members come out in MySQL's printed order. A value entry
holds the value itself (inlined) for literals, int16 and uint16 in both formats, and for int32 / uint32 in the large
format. MySQL writes the small format and falls back to the large one when an offset or size passes 65535.

Values: ``dict`` (str keys), ``list``, ``str``, ``int``, ``float``, ``bool``, ``None`` (the JSON null literal),
:class:`~decimal.Decimal` (a DECIMAL opaque value) and :class:`JsonOpaque` for other opaque data. Integers are
typed as MySQL types a parsed JSON text: a number that fits 32 bits (signed or unsigned) is a Json_int stored as
int16 / int32 / int64 by magnitude, a larger positive one a Json_uint (uint64), a larger negative one int64
(``Rapid_json_handler`` in ``sql-common/json_dom.cc``: rapidjson's Int / Uint / Int64 callbacks make a Json_int,
Uint64 a Json_uint).
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from gtidkit.binlog.cursor import Cursor
from gtidkit.binlog.row_image import decode_decimal, encode_decimal
from gtidkit.errors import BinlogDecodeError

__all__ = [
    "JSONB_TYPE_DOUBLE",
    "JSONB_TYPE_INT16",
    "JSONB_TYPE_INT32",
    "JSONB_TYPE_INT64",
    "JSONB_TYPE_LARGE_ARRAY",
    "JSONB_TYPE_LARGE_OBJECT",
    "JSONB_TYPE_LITERAL",
    "JSONB_TYPE_OPAQUE",
    "JSONB_TYPE_SMALL_ARRAY",
    "JSONB_TYPE_SMALL_OBJECT",
    "JSONB_TYPE_STRING",
    "JSONB_TYPE_UINT16",
    "JSONB_TYPE_UINT32",
    "JSONB_TYPE_UINT64",
    "JsonOpaque",
    "decode",
    "encode",
    "temporal_opaque",
    "temporal_text",
]

JSONB_TYPE_SMALL_OBJECT = 0x00
JSONB_TYPE_LARGE_OBJECT = 0x01
JSONB_TYPE_SMALL_ARRAY = 0x02
JSONB_TYPE_LARGE_ARRAY = 0x03
JSONB_TYPE_LITERAL = 0x04
JSONB_TYPE_INT16 = 0x05
JSONB_TYPE_UINT16 = 0x06
JSONB_TYPE_INT32 = 0x07
JSONB_TYPE_UINT32 = 0x08
JSONB_TYPE_INT64 = 0x09
JSONB_TYPE_UINT64 = 0x0A
JSONB_TYPE_DOUBLE = 0x0B
JSONB_TYPE_STRING = 0x0C
JSONB_TYPE_OPAQUE = 0x0F

_NULL_LITERAL, _TRUE_LITERAL, _FALSE_LITERAL = 0x00, 0x01, 0x02
#: MYSQL_TYPE_NEWDECIMAL: the opaque field type of a DECIMAL inside a JSON document
_NEWDECIMAL = 246
#: (element count / size / offset width, key-entry width, value-entry width) of the small and large formats
_SMALL = (2, 4, 3)
_LARGE = (4, 6, 5)
_SMALL_MAX = 0xFFFF
#: number types by (struct format, width)
_NUMBERS: dict[int, struct.Struct] = {
    JSONB_TYPE_INT16: struct.Struct("<h"),
    JSONB_TYPE_UINT16: struct.Struct("<H"),
    JSONB_TYPE_INT32: struct.Struct("<i"),
    JSONB_TYPE_UINT32: struct.Struct("<I"),
    JSONB_TYPE_INT64: struct.Struct("<q"),
    JSONB_TYPE_UINT64: struct.Struct("<Q"),
    JSONB_TYPE_DOUBLE: struct.Struct("<d"),
}


@dataclass(frozen=True, slots=True)
class JsonOpaque:
    """An opaque ("custom data") JSON value: a MySQL field type and its raw bytes (dates, times, BLOBs in JSON).

    Args:
        field_type: the MySQL ``enum_field_types`` code (0..255).
        data: the value's bytes as MySQL stored them.
    """

    field_type: int
    data: bytes

    def __post_init__(self) -> None:
        if not 0 <= self.field_type <= 0xFF:
            raise ValueError(f"opaque field type {self.field_type} is not a byte")


#: opaque field types MySQL keeps as a packed temporal longlong (``TIME_to_longlong_*_packed``, 8 bytes LE)
_DATE, _TIME, _DATETIME, _TIMESTAMP = 10, 11, 12, 7


def temporal_text(value: JsonOpaque) -> str | None:
    """The text MySQL prints for a DATE / TIME / DATETIME / TIMESTAMP opaque value (``Json_datetime``:
    ``"2015-01-15"``, ``"23:24:25.000000"``, ``"2015-01-15 23:24:25.000000"``, mysql-test
    ``json_insert_innodb.result``), else ``None``.

    The 8 bytes are MySQL's packed form (``my_time.cc``): a signed integer whose high 40 bits hold
    ``((year * 13 + month) << 5 | day) << 17 | hour << 12 | minute << 6 | second`` (TIME: hours, minutes and
    seconds only) and whose low 24 bits the microseconds.
    """
    if value.field_type not in (_DATE, _TIME, _DATETIME, _TIMESTAMP) or len(value.data) < 8:
        return None
    packed = int.from_bytes(value.data[:8], "little", signed=True)
    sign = "-" if packed < 0 else ""
    packed = abs(packed)
    usec = packed & 0xFFFFFF
    whole = packed >> 24
    if value.field_type == _TIME:
        hms = whole
        return f"{sign}{hms >> 12:02d}:{(hms >> 6) & 0x3F:02d}:{hms & 0x3F:02d}.{usec:06d}"
    ymd, hms = whole >> 17, whole & 0x1FFFF
    year, month = divmod(ymd >> 5, 13)
    date = f"{year:04d}-{month:02d}-{ymd & 0x1F:02d}"
    if value.field_type == _DATE:
        return date
    return f"{date} {hms >> 12:02d}:{(hms >> 6) & 0x3F:02d}:{hms & 0x3F:02d}.{usec:06d}"


_TEMPORAL_TEXT = {
    _DATE: re.compile(r"(\d{1,4})-(\d{1,2})-(\d{1,2})\Z"),
    _TIME: re.compile(r"(-?)(\d{1,3}):(\d{1,2}):(\d{1,2})(?:\.(\d{0,6}))?\Z"),
    _DATETIME: re.compile(
        r"(\d{1,4})-(\d{1,2})-(\d{1,2})[ T](\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.(\d{0,6}))?\Z"
    ),
}
_TEMPORAL_TEXT[_TIMESTAMP] = _TEMPORAL_TEXT[_DATETIME]


def temporal_opaque(field_type: int, text: str) -> JsonOpaque:
    """The opaque value MySQL stores for a DATE / TIME / DATETIME / TIMESTAMP inside a JSON document, from the
    value's text (``'2015-01-15'``, ``'-12:00:00.5'``, ``'2015-01-15 23:24:25.000001'``): the 8-byte packed form
    :func:`temporal_text` reads (``TIME_to_longlong_*_packed`` in ``mysys/my_time.cc``, as ``Json_datetime::
    to_packed`` keeps it).

    Args:
        field_type: 10 DATE, 11 TIME, 12 DATETIME or 7 TIMESTAMP (``enum_field_types``).
        text: the value as MySQL prints the SQL value (fractional seconds up to 6 digits).

    Raises:
        ValueError: another field type, or text that is no such value.
    """
    pattern = _TEMPORAL_TEXT.get(field_type)
    m = pattern.match(text.strip()) if pattern is not None else None
    if m is None:
        raise ValueError(f"not a value of field type {field_type}: {text!r}")
    g = m.groups()
    if field_type == _TIME:
        sign, hours, minutes, seconds, frac = g
        hms = int(hours) << 12 | int(minutes) << 6 | int(seconds)
        packed = hms << 24 | int((frac or "").ljust(6, "0"))
        packed = -packed if sign else packed
    else:
        year, month, day = (int(x) for x in g[:3])
        ymd = (year * 13 + month) << 5 | day
        hms, usec = 0, 0
        if field_type != _DATE:
            hms = int(g[3]) << 12 | int(g[4]) << 6 | int(g[5])
            usec = int((g[6] or "").ljust(6, "0"))
        packed = (ymd << 17 | hms) << 24 | usec
    return JsonOpaque(field_type, packed.to_bytes(8, "little", signed=True))


class _Overflow(Exception):
    """The small format cannot hold an offset or size: retry with the large format."""


# -- encoding ------------------------------------------------------------------------------------------------------
def _key_order(key: str) -> tuple[int, bytes]:
    raw = key.encode("utf-8", "surrogateescape")
    return (len(raw), raw)


def _data_length(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _int_type(v: int) -> int:
    if -0x8000 <= v <= 0x7FFF:
        return JSONB_TYPE_INT16
    if -0x80000000 <= v <= 0x7FFFFFFF:
        return JSONB_TYPE_INT32
    if -(2**63) <= v <= 0xFFFFFFFF:  # a 32-bit unsigned value is a Json_int too: int64
        return JSONB_TYPE_INT64
    if v <= 2**64 - 1:
        return JSONB_TYPE_UINT64
    return JSONB_TYPE_DOUBLE  # beyond 64 bits MySQL's parser makes a double


def _scalar(v: Any) -> tuple[int, bytes]:
    """(type, bytes) of a non-container value."""
    if v is None:
        return JSONB_TYPE_LITERAL, bytes([_NULL_LITERAL])
    if v is True:
        return JSONB_TYPE_LITERAL, bytes([_TRUE_LITERAL])
    if v is False:
        return JSONB_TYPE_LITERAL, bytes([_FALSE_LITERAL])
    if isinstance(v, int):
        t = _int_type(v)
        return t, _NUMBERS[t].pack(float(v) if t == JSONB_TYPE_DOUBLE else v)
    if isinstance(v, float):
        return JSONB_TYPE_DOUBLE, _NUMBERS[JSONB_TYPE_DOUBLE].pack(v)
    if isinstance(v, str):
        raw = v.encode("utf-8", "surrogateescape")
        return JSONB_TYPE_STRING, _data_length(len(raw)) + raw
    if isinstance(v, Decimal):
        data = _decimal_bytes(v)
        return JSONB_TYPE_OPAQUE, bytes([_NEWDECIMAL]) + _data_length(len(data)) + data
    if isinstance(v, JsonOpaque):
        return JSONB_TYPE_OPAQUE, bytes([v.field_type]) + _data_length(len(v.data)) + v.data
    raise TypeError(f"not a JSON value: {v!r}")


def _decimal_bytes(v: Decimal) -> bytes:
    # a DECIMAL in JSON keeps the precision and scale of its digits (Json_decimal::convert_to_binary)
    _sign, digits, exponent = v.as_tuple()
    scale = max(0, -int(exponent))
    precision = max(len(digits), scale + 1)
    return bytes([precision, scale]) + encode_decimal(v, precision, scale)


def _inlined(t: int, large: bool) -> bool:
    return (
        t in (JSONB_TYPE_LITERAL, JSONB_TYPE_INT16, JSONB_TYPE_UINT16)
        or large
        and t in (JSONB_TYPE_INT32, JSONB_TYPE_UINT32)
    )


def _value(v: Any, small_parent: bool) -> tuple[int, bytes]:
    """(type, bytes) of any value. A container is written in the small format unless it does not fit; then it is
    written large, unless its parent is small too, which must then grow first (``serialize_json_value``: "If the
    parent also uses the small storage format, it needs to grow too"), so a large document keeps its small
    children small."""
    if isinstance(v, (dict, list)):
        is_object = isinstance(v, dict)
        try:
            return (JSONB_TYPE_SMALL_OBJECT if is_object else JSONB_TYPE_SMALL_ARRAY), _container(
                v, False, is_object
            )
        except _Overflow:
            if small_parent:
                raise
        return (JSONB_TYPE_LARGE_OBJECT if is_object else JSONB_TYPE_LARGE_ARRAY), _container(
            v, True, is_object
        )
    return _scalar(v)


def _container(v: dict[str, Any] | list[Any], large: bool, is_object: bool) -> bytes:
    width, key_entry, value_entry = _LARGE if large else _SMALL
    limit = 0xFFFFFFFF if large else _SMALL_MAX
    fmt = "<I" if large else "<H"
    if is_object:
        assert isinstance(v, dict)
        keys = sorted(v, key=_key_order)
        raw_keys = [k.encode("utf-8", "surrogateescape") for k in keys]
        values = [v[k] for k in keys]
    else:
        raw_keys = []
        values = list(v)
    n = len(values)
    header = 2 * width + len(raw_keys) * key_entry + n * value_entry
    key_entries = bytearray()
    offset = header
    for rk in raw_keys:
        if len(rk) > 0xFFFF:
            raise ValueError("a JSON object key is longer than 65535 bytes")  # ER_JSON_KEY_TOO_BIG
        if offset > limit:
            raise _Overflow
        key_entries += struct.pack(fmt, offset) + struct.pack("<H", len(rk))
        offset += len(rk)
    value_entries = bytearray()
    tail = bytearray()
    for x in values:
        t, data = _value(x, not large)
        if _inlined(t, large):
            # insert_offset_or_size of the value as a 16-bit (small) or 32-bit (large) integer: a negative
            # int16 is sign-extended in the large format
            value_entries.append(t)
            signed = t in (JSONB_TYPE_INT16, JSONB_TYPE_INT32)
            number = data[0] if t == JSONB_TYPE_LITERAL else int.from_bytes(data, "little", signed=signed)
            value_entries += number.to_bytes(width, "little", signed=signed)
            continue
        if offset > limit:
            raise _Overflow
        value_entries.append(t)
        value_entries += struct.pack(fmt, offset)
        tail += data
        offset += len(data)
    if offset > limit:
        raise _Overflow
    return (
        struct.pack(fmt, n)
        + struct.pack(fmt, offset)
        + key_entries
        + value_entries
        + b"".join(raw_keys)
        + tail
    )


def encode(value: Any) -> bytes:
    """MySQL's binary JSON of ``value`` (type byte first), as a JSON column's row-image value carries it.

    Each container uses the small format unless an offset or size does not fit 16 bits (MySQL's choice, see
    :func:`_value`).

    Args:
        value: a JSON value (see the module docstring); ``None`` is the JSON null literal.

    Raises:
        TypeError: ``value`` holds something that is no JSON value.
        ValueError: a key longer than 65535 bytes, or a document past 4 GiB.
    """
    try:
        t, data = _value(value, False)
    except _Overflow:
        raise ValueError("the JSON document is larger than 4 GiB") from None
    return bytes([t]) + data


# -- decoding ------------------------------------------------------------------------------------------------------
def _need(buf: bytes, pos: int, n: int) -> None:
    if pos < 0 or pos + n > len(buf):
        raise BinlogDecodeError(
            f"binary JSON: need {n} bytes at offset {pos}, only {max(0, len(buf) - pos)} left"
        )


def _read_length(buf: bytes, pos: int) -> tuple[int, int]:
    n = shift = 0
    for i in range(5):  # at most 5 bytes: a length fits 32 bits
        _need(buf, pos + i, 1)
        b = buf[pos + i]
        n |= (b & 0x7F) << shift
        if not b & 0x80:
            return n, pos + i + 1
        shift += 7
    raise BinlogDecodeError(f"binary JSON: malformed data length at offset {pos}")


def _decode_scalar(t: int, buf: bytes, pos: int, end: int) -> Any:
    if t == JSONB_TYPE_LITERAL:
        _need(buf, pos, 1)
        lit = buf[pos]
        if lit == _NULL_LITERAL:
            return None
        if lit == _TRUE_LITERAL:
            return True
        if lit == _FALSE_LITERAL:
            return False
        raise BinlogDecodeError(f"binary JSON: unknown literal {lit:#x} at offset {pos}")
    num = _NUMBERS.get(t)
    if num is not None:
        _need(buf, pos, num.size)
        return num.unpack_from(buf, pos)[0]
    if t == JSONB_TYPE_STRING:
        n, p = _read_length(buf, pos)
        _need(buf, p, n)
        if p + n > end:
            raise BinlogDecodeError(f"binary JSON: string at offset {pos} runs past its container")
        return bytes(buf[p : p + n]).decode("utf-8", "surrogateescape")
    if t == JSONB_TYPE_OPAQUE:
        _need(buf, pos, 1)
        field_type = buf[pos]
        n, p = _read_length(buf, pos + 1)
        _need(buf, p, n)
        data = bytes(buf[p : p + n])
        if field_type == _NEWDECIMAL and n >= 2:
            if not data[1] <= data[0] <= 65:
                raise BinlogDecodeError(f"binary JSON: DECIMAL({data[0]},{data[1]}) at offset {pos}")
            return decode_decimal(Cursor(data, 2), data[0], data[1])
        return JsonOpaque(field_type, data)
    raise BinlogDecodeError(f"binary JSON: unknown value type {t:#x} at offset {pos}")


def _decode_value(t: int, buf: bytes, pos: int, end: int, depth: int) -> Any:
    if t in (
        JSONB_TYPE_SMALL_OBJECT,
        JSONB_TYPE_LARGE_OBJECT,
        JSONB_TYPE_SMALL_ARRAY,
        JSONB_TYPE_LARGE_ARRAY,
    ):
        if depth > 100:  # MySQL's JSON_DOCUMENT_MAX_DEPTH
            raise BinlogDecodeError("binary JSON: document nested deeper than 100 levels")
        large = t in (JSONB_TYPE_LARGE_OBJECT, JSONB_TYPE_LARGE_ARRAY)
        return _decode_container(buf, pos, end, large, t < JSONB_TYPE_SMALL_ARRAY, depth)
    return _decode_scalar(t, buf, pos, end)


def _decode_container(buf: bytes, base: int, end: int, large: bool, is_object: bool, depth: int) -> Any:
    width, key_entry, value_entry = _LARGE if large else _SMALL
    u = struct.Struct("<I" if large else "<H")
    _need(buf, base, 2 * width)
    count = u.unpack_from(buf, base)[0]
    size = u.unpack_from(buf, base + width)[0]
    if size > end - base:
        raise BinlogDecodeError(
            f"binary JSON: container at offset {base} claims {size} bytes, {end - base} left"
        )
    stop = base + size
    header = 2 * width + (count * key_entry if is_object else 0) + count * value_entry
    if header > size:
        raise BinlogDecodeError(f"binary JSON: container at offset {base} is too small for {count} entries")
    entries = base + 2 * width + (count * key_entry if is_object else 0)
    values: list[Any] = []
    for i in range(count):
        e = entries + i * value_entry
        t = buf[e]
        if _inlined(t, large):
            values.append(_decode_scalar(t, buf, e + 1, stop))
            continue
        offset = u.unpack_from(buf, e + 1)[0]
        if not header <= offset < size:
            raise BinlogDecodeError(
                f"binary JSON: value offset {offset} outside its container at offset {base}"
            )
        values.append(_decode_value(t, buf, base + offset, stop, depth + 1))
    if not is_object:
        return values
    out: dict[str, Any] = {}
    for i in range(count):
        k = base + 2 * width + i * key_entry
        key_offset = u.unpack_from(buf, k)[0]
        key_length = struct.unpack_from("<H", buf, k + width)[0]
        if not header <= key_offset <= size - key_length:
            raise BinlogDecodeError(
                f"binary JSON: key offset {key_offset} outside its container at offset {base}"
            )
        key = bytes(buf[base + key_offset : base + key_offset + key_length]).decode(
            "utf-8", "surrogateescape"
        )
        out[key] = values[i]
    return out


def decode(data: bytes | bytearray | memoryview) -> Any:
    """The JSON value of a binary JSON document (mirror of :func:`encode`).

    An empty document reads as the JSON null literal, as MySQL reads the empty value of a JSON column
    (``Field_json::val_json``: "an empty binary blob is interpreted as the JSON null literal").

    Raises:
        BinlogDecodeError: truncated or malformed bytes (a bad type, literal, offset or size).
    """
    buf = bytes(data)
    if not buf:
        return None
    t = buf[0]
    if t == JSONB_TYPE_LITERAL:
        return _decode_scalar(t, buf, 1, len(buf))
    return _decode_value(t, buf, 1, len(buf), 0)
