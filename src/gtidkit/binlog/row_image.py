"""Row images: MySQL's field packing inside Write/Update/Delete_rows bodies (pure codec: values in, bytes out, and
back). Shared by the engine (binlogging and re-applying row changes) and the generator.

MySQL source: ``Field::pack`` / ``Field::unpack`` (``sql/field.cc``), the image layout of ``sql/rpl_record.cc``
(``pack_row``: a NULL bitmap over the columns present, then each non-NULL value in column order) and the reader
side of ``libs/mysql/binlog/event/binary_log_funcs.cpp`` (``calc_field_size``). A column is described the way
the Table_map event describes it: binlog type code, its metadata bytes, and signedness (optional metadata).

| MySQL type                | code | metadata                                  | value                                  |
|---------------------------|------|-------------------------------------------|----------------------------------------|
| TINY/SHORT/INT24/LONG/LONGLONG | 1/2/9/3/8 | none                            | 1/2/3/4/8 bytes little-endian           |
| FLOAT / DOUBLE            | 4/5  | 1 byte: 4 / 8                             | IEEE-754 little-endian                 |
| NEWDECIMAL(p,s)           | 246  | 2 bytes: p, s                             | MySQL binary decimal (``decimal2bin``) |
| STRING (CHAR/BINARY)      | 254  | 2 bytes: real type ^ ((len & 0x300) >> 4), len & 0xff | 1-byte length (2 if len > 255) + bytes |
| ENUM / SET (as STRING)    | 254  | 2 bytes: 247 / 248, pack length           | index / bit set, pack-length bytes LE  |
| VARCHAR / VARBINARY       | 15   | 2 bytes LE: max bytes                     | 1-byte length (2 if max > 255) + bytes |
| BLOB / TEXT family        | 252  | 1 byte: length bytes (1..4)               | length (1..4 bytes LE) + bytes         |
| DATE                      | 10   | none                                      | 3 bytes: day + month<<5 + year<<9      |
| DATETIME2(fsp)            | 18   | 1 byte fsp                                | 5 bytes BE packed + fsp bytes          |
| TIMESTAMP2(fsp)           | 17   | 1 byte fsp                                | 4 bytes BE epoch (UTC) + fsp bytes     |
| TIME2(fsp)                | 19   | 1 byte fsp                                | 3 bytes BE packed + fsp bytes          |
| YEAR                      | 13   | none                                      | 1 byte: year - 1900 (0 for 0)          |
| BIT(M)                    | 16   | 2 bytes: M % 8, M // 8                    | (M + 7) // 8 bytes big-endian          |
| JSON                      | 245  | 1 byte: length bytes (4)                  | length (LE) + binary JSON (json_binary) |
| GEOMETRY (all kinds)      | 255  | 1 byte: length bytes (4)                  | length (LE) + SRID (4 LE) + WKB        |

Values: ``int`` for integers, YEAR, ENUM indexes and SET bits, ``float``, :class:`~decimal.Decimal`, ``bytes`` for the string types
(``str`` is accepted when encoding, as UTF-8) and JSON (the binary JSON document, see
:mod:`gtidkit.binlog.json_binary`), and text (``'YYYY-MM-DD hh:mm:ss[.ffffff]'``, ``'hh:mm:ss'``) for
the temporal types; TIMESTAMP is read and written as UTC.
"""

from __future__ import annotations

import calendar
import datetime as _dt
import struct
from collections.abc import Callable, Iterable, Sequence
from decimal import ROUND_HALF_UP, Context, Decimal
from typing import Any, NamedTuple

from gtidkit.binlog import event_fast, json_diff
from gtidkit.binlog.constants import EventType
from gtidkit.binlog.cursor import Cursor, CursorError, Writer
from gtidkit.binlog.events.rows import STMT_END_F, RowsEvent, TableMapEvent
from gtidkit.errors import BinlogDecodeError

__all__ = [
    "NUMERIC_TYPES",
    "ROW_EVENT_MAX_SIZE",
    "ColumnSpec",
    "column_specs",
    "columns_present",
    "decode_decimal",
    "decode_rows",
    "decode_value",
    "encode_decimal",
    "encode_row",
    "encode_row_into",
    "encode_value",
    "fast_reader",
    "full_bitmap",
    "row_encoder",
    "rows_event_kind",
    "rows_events",
    "signedness",
]

#: ``binlog_row_event_max_size`` default (8 KiB): MySQL starts a new rows event when the next row would take the
#: pending one past this size (``THD::binlog_prepare_pending_rows_event``).
ROW_EVENT_MAX_SIZE = 8192
#: Types whose signedness the SIGNEDNESS optional-metadata field covers (``is_numeric_type``).
NUMERIC_TYPES = frozenset({1, 2, 3, 8, 9, 4, 5, 246})
#: Optional metadata field type SIGNEDNESS (``Table_map_event::Optional_metadata_field_type``).
OPT_SIGNEDNESS = 1

_INT_BYTES = {1: 1, 2: 2, 9: 3, 3: 4, 8: 8}
_DIG2BYTES = (0, 1, 1, 2, 2, 3, 3, 4, 4, 4)
#: ENUM (247) and SET (248) columns are binlogged as STRING (254) with the real type in metadata byte 0 and the
#: value's pack length (1-2 for ENUM, 1-8 for SET) in byte 1 (``Field_enum::do_save_field_metadata``).
_ENUM_SET = (247, 248)
#: MYSQL_TYPE_JSON: its value is the binary JSON document as ``bytes`` (gtidkit.binlog.json_binary reads it)
_JSON = 245
#: MYSQL_TYPE_BIT: metadata (M % 8, M // 8) (``Field_bit::do_save_field_metadata``), the value big-endian in
#: ``M // 8 + (1 if M % 8 else 0)`` bytes (``Field_bit::pack``)
_BIT = 16


def _bit_bytes(meta: bytes) -> int:
    return meta[1] + (1 if meta[0] else 0)


#: MYSQL_TYPE_GEOMETRY: MySQL's internal geometry (4-byte SRID + WKB) as ``bytes``, length-prefixed like a BLOB
_GEOMETRY = 255
_KIND_BY_TYPE = {
    EventType.WRITE_ROWS_EVENT: "insert",
    EventType.WRITE_ROWS_EVENT_V1: "insert",
    EventType.UPDATE_ROWS_EVENT: "update",
    EventType.UPDATE_ROWS_EVENT_V1: "update",
    EventType.DELETE_ROWS_EVENT: "delete",
    EventType.DELETE_ROWS_EVENT_V1: "delete",
    EventType.PARTIAL_UPDATE_ROWS_EVENT: "update",
}


class ColumnSpec(NamedTuple):
    """One column as a Table_map describes it.

    Args:
        type_code: binlog column type (``enum_field_types``).
        meta: its Table_map metadata bytes (see the module table).
        unsigned: integer/decimal/float signedness (the SIGNEDNESS optional metadata).
    """

    type_code: int
    meta: bytes = b""
    unsigned: bool = False


def signedness(table_map: TableMapEvent) -> list[bool]:
    """Per-column unsigned flags from the Table_map's SIGNEDNESS optional metadata (``False`` when absent).

    The field holds one bit per numeric column (:data:`NUMERIC_TYPES`), most significant bit first.

    Raises:
        BinlogDecodeError: a malformed optional-metadata block.
    """
    unsigned = [False] * table_map.column_count
    for kind, payload in table_map.optional_metadata_fields():
        if kind == OPT_SIGNEDNESS:
            k = 0
            for i, code in enumerate(table_map.column_types):
                if code in NUMERIC_TYPES:
                    if k // 8 < len(payload):
                        unsigned[i] = bool(payload[k // 8] & (0x80 >> (k % 8)))
                    k += 1
    return unsigned


def column_specs(table_map: TableMapEvent) -> tuple[ColumnSpec, ...]:
    """The :class:`ColumnSpec` of each column of ``table_map``.

    Raises:
        BinlogDecodeError: metadata that does not match the column types.
    """
    metas = table_map.column_metadata()
    unsigned = signedness(table_map)
    return tuple(ColumnSpec(t, m, u) for t, m, u in zip(table_map.column_types, metas, unsigned))


# -- decimal (decimal2bin / bin2decimal, strings/decimal.cc) ------------------------------------------------------
#: Wide enough for DECIMAL(65,30) (the default context keeps 28 digits and would refuse to quantize such values).
_DECIMAL_CONTEXT = Context(prec=100, rounding=ROUND_HALF_UP)


def encode_decimal(value: Decimal, precision: int, scale: int) -> bytes:
    """MySQL's binary form of ``value`` as DECIMAL(precision, scale): 9-digit groups in 4 big-endian bytes (the
    leftover digits in ``_DIG2BYTES`` bytes), negative values bit-inverted, the sign bit flipped.

    Raises:
        ValueError: the value has more integer digits than ``precision - scale``.
    """
    intg = precision - scale
    intg0, intg0x = divmod(intg, 9)
    frac0, frac0x = divmod(scale, 9)
    neg = value < 0
    q = value.copy_abs().quantize(Decimal(1).scaleb(-scale), context=_DECIMAL_CONTEXT)
    _sign, digits, exp_ = q.as_tuple()
    s = "".join(map(str, digits))
    if scale:
        s = s.rjust(scale + 1, "0")
        int_s, frac_s = s[:-scale], s[-scale:]
    else:
        int_s, frac_s = s + "0" * max(0, int(exp_)), ""
    int_s = int_s.lstrip("0").rjust(intg, "0")
    if len(int_s) > intg:
        raise ValueError(f"{value} does not fit DECIMAL({precision},{scale})")
    out = bytearray()
    pos = 0
    if intg0x:
        out += int(int_s[:intg0x]).to_bytes(_DIG2BYTES[intg0x], "big")
        pos = intg0x
    for _ in range(intg0):
        out += int(int_s[pos : pos + 9]).to_bytes(4, "big")
        pos += 9
    for i in range(frac0):
        out += int(frac_s[i * 9 : i * 9 + 9]).to_bytes(4, "big")
    if frac0x:
        out += int(frac_s[frac0 * 9 :]).to_bytes(_DIG2BYTES[frac0x], "big")
    if neg:
        out = bytearray(b ^ 0xFF for b in out)
    out[0] ^= 0x80
    return bytes(out)


def decode_decimal(cur: Cursor, precision: int, scale: int) -> Decimal:
    """Read a binary DECIMAL(precision, scale) (mirror of :func:`encode_decimal`).

    Raises:
        CursorError: the image is truncated.
    """
    intg = precision - scale
    intg0, intg0x = divmod(intg, 9)
    frac0, frac0x = divmod(scale, 9)
    size = intg0 * 4 + _DIG2BYTES[intg0x] + frac0 * 4 + _DIG2BYTES[frac0x]
    raw = bytearray(cur.bytes(size))
    neg = not (raw[0] & 0x80)
    raw[0] ^= 0x80
    if neg:
        raw = bytearray(b ^ 0xFF for b in raw)
    pos = 0

    def take(nbytes: int, ndigits: int) -> str:
        nonlocal pos
        v = int.from_bytes(raw[pos : pos + nbytes], "big")
        pos += nbytes
        return str(v).rjust(ndigits, "0")

    parts = []
    if intg0x:
        parts.append(take(_DIG2BYTES[intg0x], intg0x))
    for _ in range(intg0):
        parts.append(take(4, 9))
    int_s = "".join(parts) or "0"
    frac_parts = [take(4, 9) for _ in range(frac0)]
    if frac0x:
        frac_parts.append(take(_DIG2BYTES[frac0x], frac0x))
    frac_s = "".join(frac_parts)
    return Decimal(f"{'-' if neg else ''}{int(int_s)}{'.' + frac_s if frac_s else ''}")


# -- temporal helpers (my_datetime_packed_to_binary & co, sql-common/my_time.cc) ----------------------------------
def _frac_bytes(fsp: int) -> int:
    return (fsp + 1) // 2


def _frac_store(usec: int, fsp: int) -> bytes:
    n = _frac_bytes(fsp)
    if not n:
        return b""
    return (usec // (10 ** (6 - 2 * n))).to_bytes(n, "big")


def _frac_load(cur: Cursor, fsp: int) -> int:
    n = _frac_bytes(fsp)
    if not n:
        return 0
    return int.from_bytes(cur.bytes(n), "big") * 10 ** (6 - 2 * n)


def _parse_dt(text: str) -> tuple[int, int, int, int, int, int, int]:
    date, _, time_ = text.partition(" ")
    y, mo, d = (int(x) for x in date.split("-"))
    h = mi = s = us = 0
    if time_:
        hms, _, frac = time_.partition(".")
        h, mi, s = (int(x) for x in hms.split(":"))
        us = int(frac.ljust(6, "0")) if frac else 0
    return y, mo, d, h, mi, s, us


def _fmt_dt(
    y: int, mo: int, d: int, h: int, mi: int, s: int, us: int, fsp: int, date_only: bool = False
) -> str:
    out = f"{y:04d}-{mo:02d}-{d:02d}"
    if date_only:
        return out
    out += f" {h:02d}:{mi:02d}:{s:02d}"
    if fsp:
        out += "." + f"{us:06d}"[:fsp]
    return out


# TIME2 (my_time_packed_to_binary / my_time_packed_from_binary, mysys/my_time.cc). A TIME is first "packed" into a
# signed integer, ((hour << 12 | minute << 6 | second) << 24) + microseconds, negated for a negative value
# (TIME_to_longlong_time_packed). On disk: fsp 0 stores the integer part (packed >> 24, an arithmetic shift) + 0x800000
# in 3 big-endian bytes; fsp 1-2 add one byte of the fraction in 1/100 s and fsp 3-4 two bytes in 1/10000 s, the C
# remainder of packed by 2**24 divided toward zero and kept as two's complement, so a negative value with a
# fraction reads back as the next integer part down ("-00:00:01.01" is 7FFFFE.FF); fsp 5-6 store packed +
# 0x800000000000 in 6 bytes. Every form sorts as the value does (memcmp).
_TIMEF_INT_OFS = 0x800000
_TIMEF_OFS = 0x800000000000


def _time_packed(text: str) -> int:
    """MySQL's packed integer of a TIME text ``[-]h:mm:ss[.ffffff]`` (hours up to 838)."""
    neg = text.startswith("-")
    clock, _, frac = text.lstrip("-").partition(".")
    h, mi, s = (int(x) for x in clock.split(":"))
    packed = (((h << 12) | (mi << 6) | s) << 24) + (int(frac.ljust(6, "0")[:6]) if frac else 0)
    return -packed if neg else packed


def _c_div(a: int, b: int) -> int:
    """C's integer division (toward zero)."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _time2_bytes(packed: int, fsp: int) -> bytes:
    """The TIME2 bytes of a packed TIME for ``fsp`` fractional digits."""
    if fsp >= 5:
        return (packed + _TIMEF_OFS).to_bytes(6, "big")
    head = ((packed >> 24) + _TIMEF_INT_OFS).to_bytes(3, "big")
    frac = packed - _c_div(packed, 1 << 24) * (1 << 24)  # C's %: the sign of packed
    if fsp >= 3:
        return head + (_c_div(frac, 100) & 0xFFFF).to_bytes(2, "big")
    if fsp >= 1:
        return head + (_c_div(frac, 10000) & 0xFF).to_bytes(1, "big")
    return head


def _time2_packed(cur: Cursor, fsp: int) -> int:
    """Read TIME2 bytes back into the packed integer (mirror of :func:`_time2_bytes`)."""
    if fsp >= 5:
        return int.from_bytes(cur.bytes(6), "big") - _TIMEF_OFS
    intpart = int.from_bytes(cur.bytes(3), "big") - _TIMEF_INT_OFS
    if fsp == 0:
        return intpart << 24
    nbytes, unit = (2, 100) if fsp >= 3 else (1, 10000)
    frac = int.from_bytes(cur.bytes(nbytes), "big")
    if intpart < 0 and frac:
        intpart += 1  # negative values keep their fraction in reverse order (see above)
        frac -= 1 << (8 * nbytes)
    return (intpart << 24) + frac * unit


def _time_text(packed: int, fsp: int) -> str:
    """``[-]hh:mm:ss[.f]`` of a packed TIME (TIME_from_longlong_time_packed)."""
    neg = packed < 0
    tmp = -packed if neg else packed
    hms, us = tmp >> 24, tmp % (1 << 24)
    out = f"{'-' if neg else ''}{(hms >> 12) % 1024:02d}:{(hms >> 6) % 64:02d}:{hms % 64:02d}"
    return out + ("." + f"{us:06d}"[:fsp] if fsp else "")


def _string_length(meta: bytes) -> int:
    """Maximum byte length of a STRING (254) column from its two metadata bytes (``Field_string`` real type and
    the length's high bits folded into the first byte)."""
    m0, m1 = meta[0], meta[1]
    return m1 | (((m0 & 0x30) ^ 0x30) << 4) if (m0 & 0x30) != 0x30 else m1


#: TIMESTAMP2, DATETIME2, TIME2: metadata byte 0 is the fractional-second precision, at most 6
#: (``DATETIME_MAX_DECIMALS``); a larger one is a damaged Table_map.
_FSP_TYPES = (17, 18, 19)
_MAX_FSP = 6


# -- one value -----------------------------------------------------------------------------------------------------
def encode_value(w: Writer, spec: ColumnSpec, v: Any) -> None:
    """Append the packed form of the non-NULL value ``v`` of a column described by ``spec``.

    Raises:
        ValueError: a value the type cannot hold (a DECIMAL overflow, an unsupported type).
    """
    code, meta = spec.type_code, spec.meta
    n = _INT_BYTES.get(code)
    if n is not None:
        w.bytes(int(v).to_bytes(n, "little", signed=not spec.unsigned))
    elif code == 254 and meta[0] in _ENUM_SET:
        w.bytes(int(v).to_bytes(meta[1], "little"))
    elif code == 254 or code == 15:
        raw = v if isinstance(v, bytes) else str(v).encode("utf-8")
        maxlen = _string_length(meta) if code == 254 else struct.unpack("<H", meta)[0]
        if maxlen > 255:
            w.u16(len(raw))
        else:
            w.u8(len(raw))
        w.bytes(raw)
    elif code == 252:
        raw = v if isinstance(v, bytes) else str(v).encode("utf-8")
        w.bytes(len(raw).to_bytes(meta[0], "little"))
        w.bytes(raw)
    elif code == 4:
        w.bytes(struct.pack("<f", float(v)))
    elif code == 5:
        w.bytes(struct.pack("<d", float(v)))
    elif code == 246:
        w.bytes(encode_decimal(Decimal(v), meta[0], meta[1]))
    elif code == 10:
        y, mo, d, *_ = _parse_dt(str(v))
        w.u24(d | mo << 5 | y << 9)
    elif code == 18:
        y, mo, d, h, mi, s, us = _parse_dt(str(v))
        ymd = ((y * 13 + mo) << 5) | d
        hms = (h << 12) | (mi << 6) | s
        w.bytes((((ymd << 17) | hms) + 0x8000000000).to_bytes(5, "big"))
        w.bytes(_frac_store(us, meta[0]))
    elif code == 17:
        y, mo, d, h, mi, s, us = _parse_dt(str(v))
        secs = 0 if y == 0 else calendar.timegm((y, mo, d, h, mi, s, 0, 0, 0))
        w.bytes(secs.to_bytes(4, "big"))
        w.bytes(_frac_store(us, meta[0]))
    elif code == 19:
        w.bytes(_time2_bytes(_time_packed(str(v)), meta[0]))
    elif code == 13:
        w.u8(0 if int(v) == 0 else int(v) - 1900)
    elif code == _JSON or code == _GEOMETRY:  # packed as a BLOB (Field_json / Field_geom are Field_blobs)
        raw = v if isinstance(v, bytes) else str(v).encode("utf-8")
        w.bytes(len(raw).to_bytes(meta[0], "little"))
        w.bytes(raw)
    elif code == _BIT:
        w.bytes(int(v).to_bytes(_bit_bytes(meta), "big"))
    else:
        raise ValueError(f"row images of column type {code} are not supported")


def decode_value(cur: Cursor, spec: ColumnSpec) -> Any:
    """Read one non-NULL value of a column described by ``spec`` (mirror of :func:`encode_value`).

    Raises:
        BinlogDecodeError: a truncated image (``CursorError``) or a column type this codec does not read.
    """
    code, meta = spec.type_code, spec.meta
    n = _INT_BYTES.get(code)
    if n is not None:
        return int.from_bytes(cur.bytes(n), "little", signed=not spec.unsigned)
    if code == 15:
        maxlen = struct.unpack("<H", meta)[0]
        return cur.bytes(cur.u16() if maxlen > 255 else cur.u8())
    if code == 254:
        if meta[0] in _ENUM_SET:  # ENUM/SET travel as STRING: the index / bit set in meta[1] bytes
            return int.from_bytes(cur.bytes(meta[1]), "little")
        return cur.bytes(cur.u16() if _string_length(meta) > 255 else cur.u8())
    if code == 252:
        return cur.bytes(int.from_bytes(cur.bytes(meta[0]), "little"))
    if code == 4:
        return struct.unpack("<f", cur.bytes(4))[0]
    if code == 5:
        return struct.unpack("<d", cur.bytes(8))[0]
    if code == 246:
        return decode_decimal(cur, meta[0], meta[1])
    if code == 10:
        v = cur.u24()
        return _fmt_dt(v >> 9, (v >> 5) & 0xF, v & 0x1F, 0, 0, 0, 0, 0, date_only=True)
    if code in _FSP_TYPES and meta[0] > _MAX_FSP:
        raise BinlogDecodeError(
            f"rows event: column type {code} with {meta[0]} fractional digits (at most 6)"
        )
    if code == 18:
        fsp = meta[0]
        packed = int.from_bytes(cur.bytes(5), "big") - 0x8000000000
        ymd, hms = packed >> 17, packed & 0x1FFFF
        ym = ymd >> 5
        us = _frac_load(cur, fsp)
        return _fmt_dt(ym // 13, ym % 13, ymd & 0x1F, hms >> 12, (hms >> 6) & 0x3F, hms & 0x3F, us, fsp)
    if code == 17:
        fsp = meta[0]
        secs = int.from_bytes(cur.bytes(4), "big")
        us = _frac_load(cur, fsp)
        if secs == 0:
            return _fmt_dt(0, 0, 0, 0, 0, 0, us, fsp)
        d = _dt.datetime.fromtimestamp(secs, _dt.timezone.utc)
        return _fmt_dt(d.year, d.month, d.day, d.hour, d.minute, d.second, us, fsp)
    if code == 19:
        return _time_text(_time2_packed(cur, meta[0]), meta[0])
    if code == 13:
        b = cur.u8()
        return 0 if b == 0 else b + 1900
    if code == _JSON or code == _GEOMETRY:
        return cur.bytes(int.from_bytes(cur.bytes(meta[0]), "little"))
    if code == _BIT:
        return int.from_bytes(cur.bytes(_bit_bytes(meta)), "big")
    raise BinlogDecodeError(f"rows event: column type {code} is not supported by the row-image decoder")


# -- whole images and events ---------------------------------------------------------------------------------------
def encode_row_into(w: Writer, specs: Sequence[ColumnSpec], row: Sequence[Any]) -> None:
    """Append one full row image (every column present): the NULL bitmap, then each non-NULL value.

    Raises:
        ValueError: see :func:`encode_value`.
    """
    nulls = bytearray((len(specs) + 7) // 8)
    for i, v in enumerate(row):
        if v is None:
            nulls[i // 8] |= 1 << (i % 8)
    w.bytes(bytes(nulls))
    for spec, v in zip(specs, row):
        if v is not None:
            encode_value(w, spec, v)


def row_encoder(
    specs: Sequence[ColumnSpec], pre: Sequence[Callable[[Any], Any] | None] | None = None
) -> Callable[[Sequence[Any]], bytes]:
    """A function giving the full row image of a row of columns ``specs``: :func:`encode_row` compiled once per
    table (the per-type decisions are taken here, not per value).

    Args:
        specs: the columns, as the Table_map describes them.
        pre: per column, an optional function applied to each non-NULL value first (a caller's storage form →
            the codec's values, e.g. CHAR's trailing spaces dropped as ``Field_string::pack`` does).

    Returns:
        ``encode(row) -> bytes``: the same bytes as ``encode_row(specs, [pre(v) ...])``, and the same errors:
        any value the fast per-type packers cannot take goes through :func:`encode_row`, which raises what it
        raises (``ValueError``, see :func:`encode_value`).
    """
    specs = tuple(specs)
    pres = tuple(pre) if pre is not None else (None,) * len(specs)
    packers = tuple(_packer(spec, f) for spec, f in zip(specs, pres))
    n = len(specs)
    nbytes = (n + 7) // 8

    def checked(row: Sequence[Any]) -> bytes:
        values = [v if v is None or f is None else f(v) for f, v in zip(pres, row)]
        return encode_row(specs, values)

    kinds = tuple(_compiled_kind(spec, f) for spec, f in zip(specs, pres))
    compiled = event_fast.encode_row
    if compiled is not None and 0 not in kinds:  # every column one the compiled packer takes

        def encode_compiled(row: Sequence[Any]) -> bytes:
            image = compiled(kinds, pres, row)
            return encode(row) if image is None else image  # declined: the packers below (and their errors)

        encode_compiled.__doc__ = "A full row image (the compiled packer, else the Python packers)."

    def encode(row: Sequence[Any]) -> bytes:
        if len(row) != n:
            return checked(row)
        parts: list[bytes] = [b""]
        nulls = 0
        bit = 1
        try:
            for pack, v in zip(packers, row):
                if v is None:
                    nulls |= bit
                else:
                    parts.append(pack(v))
                bit <<= 1
        except Exception:  # noqa: BLE001 - the checked path raises the documented error (or the same one)
            return checked(row)
        parts[0] = nulls.to_bytes(nbytes, "little")
        return b"".join(parts)

    if compiled is not None and 0 not in kinds:
        return encode_compiled
    return encode


def _compiled_kind(spec: ColumnSpec, pre: Callable[[Any], Any] | None) -> int:
    """The column's kind for :data:`gtidkit.binlog.event_fast.encode_row`, as :func:`_packer` chooses its packer:
    an integer column without ``pre``: its width (negative when signed); a CHAR / VARCHAR column: 100 + its length
    prefix; 0 for any other column (the compiled packer is not used for the row)."""
    code, meta, unsigned = spec
    width = _INT_BYTES.get(code)
    if width is not None and pre is None:
        return width if unsigned else -width
    if (code == 254 and len(meta) == 2 and meta[0] not in _ENUM_SET) or (code == 15 and len(meta) == 2):
        return 100 + (
            2 if (_string_length(meta) if code == 254 else struct.unpack("<H", meta)[0]) > 255 else 1
        )
    return 0


def _packer(spec: ColumnSpec, pre: Callable[[Any], Any] | None) -> Callable[[Any], bytes]:
    """``v -> bytes`` as :func:`encode_value` packs a non-NULL ``v`` of ``spec`` (after ``pre``); a value it
    cannot pack raises (any exception), and :func:`row_encoder` then takes the checked path."""
    code, meta, unsigned = spec
    width = _INT_BYTES.get(code)
    if width is not None and pre is None:
        signed = not unsigned

        def pack_int(v: Any) -> bytes:
            return int(v).to_bytes(width, "little", signed=signed)

        return pack_int
    if (code == 254 and len(meta) == 2 and meta[0] not in _ENUM_SET) or (code == 15 and len(meta) == 2):
        prefix = 2 if (_string_length(meta) if code == 254 else struct.unpack("<H", meta)[0]) > 255 else 1

        def pack_string(v: Any) -> bytes:
            if pre is not None:
                v = pre(v)
            raw = v if isinstance(v, bytes) else str(v).encode("utf-8")
            return len(raw).to_bytes(prefix, "little") + raw

        return pack_string

    def pack_any(v: Any) -> bytes:
        w = Writer()
        encode_value(w, spec, v if pre is None else pre(v))
        return w.getvalue()

    return pack_any


def encode_row(specs: Sequence[ColumnSpec], row: Sequence[Any]) -> bytes:
    """One full row image as bytes (see :func:`encode_row_into`).

    Raises:
        ValueError: see :func:`encode_value`.
    """
    w = Writer()
    encode_row_into(w, specs, row)
    return w.getvalue()


def full_bitmap(n: int) -> bytes:
    """The columns-present bitmap with all ``n`` columns set (``binlog_row_image=FULL``)."""
    return ((1 << n) - 1).to_bytes((n + 7) // 8, "little")


def rows_event_kind(type_code: int) -> str | None:
    """``"insert"``, ``"update"`` or ``"delete"`` for a v1/v2 rows event type, else ``None``."""
    return _KIND_BY_TYPE.get(type_code)  # type: ignore[call-overload]


def rows_events(
    type_code: int,
    table_id: int,
    column_count: int,
    images: Iterable[bytes],
    *,
    max_size: int = ROW_EVENT_MAX_SIZE,
    columns_before: bytes | None = None,
    columns_after: bytes | None = None,
) -> list[RowsEvent]:
    """The rows events carrying ``images`` (one bytes per row: for updates, the before and after images
    concatenated); a new event starts when the next row would take the current one past ``max_size`` bytes, as
    MySQL does, and only the last carries ``STMT_END_F``.

    Args:
        type_code: a Write/Update/Delete_rows type code.
        table_id: the Table_map's table id.
        column_count: columns of the table.
        images: the encoded rows, in order.
        max_size: ``binlog_row_event_max_size``.
        columns_before, columns_after: the columns-present bitmaps of the images (``binlog_row_image=MINIMAL``
            / ``NOBLOB`` leave columns out; for a Write_rows event ``columns_before`` is its one image's);
            ``None``: every column (:func:`full_bitmap`).
    """
    update = _KIND_BY_TYPE.get(type_code) == "update"  # type: ignore[call-overload]
    if columns_before is None or columns_after is None:
        columns = full_bitmap(column_count)
        before = columns if columns_before is None else columns_before
        after = columns if columns_after is None else columns_after
    else:
        before, after = columns_before, columns_after
    rows = images if isinstance(images, list) else list(images)
    if not rows:
        return []
    if sum(map(len, rows)) <= max_size:  # one event (the loop below would not split)
        return [
            RowsEvent(
                type_code,
                table_id,
                STMT_END_F,
                b"",
                column_count,
                before,
                after if update else None,
                b"".join(rows),
            )
        ]
    chunks: list[list[bytes]] = [[]]
    size = 0
    for img in rows:
        if chunks[-1] and size + len(img) > max_size:
            chunks.append([])
            size = 0
        chunks[-1].append(img)
        size += len(img)
    last = len(chunks) - 1
    return [
        RowsEvent(
            type_code=type_code,
            table_id=table_id,
            flags=STMT_END_F if i == last else 0,
            extra=b"",
            column_count=column_count,
            columns_before=before,
            columns_after=after if update else None,
            body=b"".join(chunk),
        )
        for i, chunk in enumerate(chunks)
    ]


# -- a faster read of the common column types (decode_rows' inner loop) --------------------------------------------
_Reader = Callable[[bytes, int], tuple[Any, int]]
_INT_STRUCTS = {
    (1, False): struct.Struct("<b"),
    (1, True): struct.Struct("<B"),
    (2, False): struct.Struct("<h"),
    (2, True): struct.Struct("<H"),
    (4, False): struct.Struct("<i"),
    (4, True): struct.Struct("<I"),
    (8, False): struct.Struct("<q"),
    (8, True): struct.Struct("<Q"),
}


def _overrun(p: int, n: int, end: int) -> CursorError:
    return CursorError(f"need {n} bytes at offset {p}, only {end - p} left")


def _fixed_reader(st: struct.Struct) -> _Reader:
    size = st.size
    unpack = st.unpack_from

    def read(data: bytes, p: int) -> tuple[Any, int]:
        if p + size > len(data):
            raise _overrun(p, size, len(data))
        return unpack(data, p)[0], p + size

    return read


def _int24_reader(unsigned: bool) -> _Reader:
    def read(data: bytes, p: int) -> tuple[Any, int]:
        if p + 3 > len(data):
            raise _overrun(p, 3, len(data))
        return int.from_bytes(data[p : p + 3], "little", signed=not unsigned), p + 3

    return read


def _length_prefixed_reader(width: int) -> _Reader:
    def read(data: bytes, p: int) -> tuple[Any, int]:
        q = p + width
        if q > len(data):
            raise _overrun(p, width, len(data))
        n = data[p] if width == 1 else int.from_bytes(data[p:q], "little")
        if q + n > len(data):
            raise _overrun(q, n, len(data))
        return data[q : q + n], q + n

    return read


#: fast_reader() of each column, per distinct column list (a binlog repeats a few tables many times).
_READERS: dict[tuple[ColumnSpec, ...], list[_Reader | None]] = {}


def fast_reader(spec: ColumnSpec) -> _Reader | None:
    """A reader of one non-NULL value of the column straight from the image bytes: ``read(data, pos)`` gives
    ``(value, next pos)`` exactly as :func:`decode_value` would (raising ``CursorError`` on a short image), for
    the integer, FLOAT/DOUBLE and string types; ``None`` for the others (read them with :func:`decode_value`)."""
    code, meta = spec.type_code, spec.meta
    n = _INT_BYTES.get(code)
    if n == 3:
        return _int24_reader(spec.unsigned)
    if n is not None:
        return _fixed_reader(_INT_STRUCTS[(n, spec.unsigned)])
    if code == 4:
        return _fixed_reader(struct.Struct("<f"))
    if code == 5:
        return _fixed_reader(struct.Struct("<d"))
    if code == 15 and len(meta) == 2:
        return _length_prefixed_reader(2 if struct.unpack("<H", meta)[0] > 255 else 1)
    if code == 254 and len(meta) == 2 and meta[0] not in _ENUM_SET:
        return _length_prefixed_reader(2 if _string_length(meta) > 255 else 1)
    if code == 252 and len(meta) == 1 and 1 <= meta[0] <= 4:
        return _length_prefixed_reader(meta[0])
    return None


def columns_present(bitmap: bytes, n: int) -> tuple[bool, ...]:
    """The ``n`` flags of a rows event's columns-present bitmap (bit i of byte i // 8, least significant first)."""
    key = (bytes(bitmap), n)
    flags = _PRESENT.get(key)
    if flags is None:
        if len(_PRESENT) > 4096:
            _PRESENT.clear()
        flags = _PRESENT[key] = tuple([bool(bitmap[i // 8] & (1 << (i % 8))) for i in range(n)])
    return flags


_PRESENT: dict[tuple[bytes, int], tuple[bool, ...]] = {}


_bits = columns_present


def decode_rows(
    table_map: TableMapEvent, rows_event: RowsEvent, specs: Sequence[ColumnSpec] | None = None
) -> list[tuple[tuple[Any, ...] | None, tuple[Any, ...] | None]]:
    """Decode a rows event's images into ``(before, after)`` pairs (``None`` where the kind has no such image).

    Values come back as the module docstring says; columns absent from an image read as ``None``. In a
    PARTIAL_UPDATE_ROWS_EVENT the after image starts with ``value_options`` and, with PARTIAL_JSON_UPDATES, one bit
    per JSON column of the table; a JSON value whose bit is set reads as a
    :class:`~gtidkit.binlog.json_diff.JsonDiffs` (the changes to the row's current document).

    Args:
        table_map: the Table_map of the event's table id.
        rows_event: the rows event.
        specs: ``column_specs(table_map)`` when the caller keeps it (one per Table_map, many rows events).

    Raises:
        BinlogDecodeError: a truncated image, a column type the codec does not read, a rows event type that is
            neither write, update nor delete, or fewer columns than the Table_map's.
    """
    kind = rows_event_kind(rows_event.type_code)
    if kind is None:
        raise BinlogDecodeError(
            f"rows event type {rows_event.type_code} cannot be decoded", event_type=rows_event.type_code
        )
    n = table_map.column_count
    if rows_event.column_count < n:  # its column bitmaps do not cover the table
        raise BinlogDecodeError(
            f"rows event of {rows_event.column_count} columns for a Table_map of {n}",
            event_type=rows_event.type_code,
        )
    if specs is None:
        specs = column_specs(table_map)
    before_cols = _bits(rows_event.columns_before, n)
    after_cols = _bits(rows_event.columns_after, n) if rows_event.columns_after is not None else before_cols
    data = rows_event.body if isinstance(rows_event.body, bytes) else bytes(rows_event.body)
    cur = Cursor(data)
    key = tuple(specs)
    readers = _READERS.get(key)
    if readers is None:
        if len(_READERS) > 1024:
            _READERS.clear()
        readers = _READERS[key] = [fast_reader(sp) for sp in specs]
    json_columns = [i for i, s in enumerate(specs) if s.type_code == _JSON]
    partial_event = rows_event.type_code == EventType.PARTIAL_UPDATE_ROWS_EVENT

    def image(present: Sequence[bool], after: bool = False) -> tuple[Any, ...]:
        partial: set[int] = set()
        if after and partial_event and cur.packed_int() & json_diff.PARTIAL_JSON_UPDATES:
            bits = _bits(cur.bytes((len(json_columns) + 7) // 8), len(json_columns))
            partial = {i for i, bit in zip(json_columns, bits) if bit}
        k = sum(present)
        nulls = _bits(cur.bytes((k + 7) // 8), k)
        out: list[Any] = []
        j = 0
        for i in range(n):
            if not present[i]:
                out.append(None)
                continue
            if nulls[j]:
                out.append(None)
            elif i in partial:
                out.append(json_diff.decode_diffs(decode_value(cur, specs[i])))
            elif readers[i] is not None:
                v, cur.pos = readers[i](data, cur.pos)  # type: ignore[misc]
                out.append(v)
            else:
                out.append(decode_value(cur, specs[i]))
            j += 1
        return tuple(out)

    rows: list[tuple[tuple[Any, ...] | None, tuple[Any, ...] | None]] = []
    while cur.remaining:  # a truncated image raises CursorError, a BinlogDecodeError
        if kind == "insert":
            rows.append((None, image(after_cols)))
        elif kind == "delete":
            rows.append((image(before_cols), None))
        else:
            b = image(before_cols)
            rows.append((b, image(after_cols, after=True)))
    return rows
