"""ROW-format binlog images: catalog tables -> Table_map events, RowChanges -> Write/Update/Delete_rows_v2 bodies
with MySQL's field encodings, and the reverse (decode a rows event and re-apply it to storage).

Encodings follow MySQL's ``Field::pack`` / ``Field::do_save_field_metadata`` (``sql/field.cc``) and the reader
side of ``libs/mysql/binlog/event/binary_log_funcs.cpp`` (``calc_field_size``), with ``binlog_row_image=FULL``
(every column in both images) and ``binlog_row_metadata=FULL`` optional metadata (SIGNEDNESS, DEFAULT_CHARSET,
COLUMN_NAME, SIMPLE_PRIMARY_KEY) so python-mysql-replication can name and sign the columns.

Per column type (binlog type code / Table_map metadata / row value):

| MySQL type                | code | metadata                        | value                                       |
|---------------------------|------|---------------------------------|---------------------------------------------|
| TINYINT/SMALLINT/MEDIUMINT/INT/BIGINT | 1/2/9/3/8 | none           | 1/2/3/4/8 bytes little-endian, two's compl. |
| FLOAT / DOUBLE            | 4/5  | 1 byte: 4 / 8                   | IEEE-754 little-endian                      |
| DECIMAL(p,s)              | 246  | 2 bytes: p, s                   | MySQL binary decimal (``decimal2bin``)      |
| CHAR(n) / BINARY(n)       | 254  | 2 bytes: type^((len&0x300)>>4), len&0xff | 1-byte length (2 if len>255) + bytes |
| VARCHAR(n) / VARBINARY(n) | 15   | 2 bytes LE: max bytes           | 1-byte length (2 if max>255) + bytes        |
| TEXT/BLOB family          | 252  | 1 byte: length bytes (1..4)     | length (1..4 bytes LE) + bytes              |
| DATE                      | 10   | none                            | 3 bytes: day + month<<5 + year<<9           |
| DATETIME(fsp)             | 18   | 1 byte fsp                      | 5 bytes BE packed + fsp bytes               |
| TIMESTAMP(fsp)            | 17   | 1 byte fsp                      | 4 bytes BE epoch (UTC) + fsp bytes          |
| TIME(fsp)                 | 19   | 1 byte fsp                      | 3 bytes BE packed + fsp bytes               |
| YEAR                      | 13   | none                            | 1 byte: year - 1900 (0 for 0)               |

Character lengths use utf8mb4 (4 bytes per character) as MySQL computes ``field_length``. TIMESTAMP values are
read as UTC (the engine runs with ``time_zone='+00:00'``).
A rows image is: null bitmap over the present columns, then each non-NULL value in column order.
"""

from __future__ import annotations

import calendar
import datetime as _dt
import struct
from collections.abc import Iterable
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from gtidkit.binlog.constants import EventType
from gtidkit.binlog.cursor import Cursor, Writer
from gtidkit.binlog.events.rows import STMT_END_F, RowsEvent, TableMapEvent
from gtidkit.engine.sql.catalog import ColumnDef, TableDef
from gtidkit.engine.storage import IntegrityError, physical_name, quote_ident
from gtidkit.errors import BinlogDecodeError, MySQLError

if TYPE_CHECKING:
    from gtidkit.engine.sql.catalog import Catalog
    from gtidkit.engine.sql.executor import RowChange

__all__ = [
    "MAX_ROWS_BODY",
    "apply_rows_event",
    "decode_rows",
    "encode_row",
    "rows_events",
    "table_map_event",
]

#: MySQL splits a statement's rows into events of about binlog_row_event_max_size (8192) bytes.
MAX_ROWS_BODY = 8192
#: Table_map flag TM_BIT_LEN_EXACT_F, set by every 5.1+ server.
TM_BIT_LEN_EXACT_F = 0x1

_KIND_TYPE = {
    "insert": EventType.WRITE_ROWS_EVENT,
    "update": EventType.UPDATE_ROWS_EVENT,
    "delete": EventType.DELETE_ROWS_EVENT,
}
_INT_BYTES = {1: 1, 2: 2, 9: 3, 3: 4, 8: 8}
_NUMERIC_TYPES = frozenset({1, 2, 3, 8, 9, 4, 5, 246})
_DIG2BYTES = (0, 1, 1, 2, 2, 3, 3, 4, 4, 4)
_COLLATION_IDS = {
    "utf8mb4_0900_ai_ci": 255,
    "utf8mb4_bin": 46,
    "utf8mb4_general_ci": 45,
    "latin1_swedish_ci": 8,
    "latin1_bin": 47,
    "utf8mb3_general_ci": 33,
    "utf8mb3_bin": 83,
    "ascii_general_ci": 11,
    "binary": 63,
}
_BLOB_PACK = {
    "tinytext": 1,
    "tinyblob": 1,
    "text": 2,
    "blob": 2,
    "mediumtext": 3,
    "mediumblob": 3,
    "longtext": 4,
    "longblob": 4,
}
# optional metadata field types (enum Table_map_event::Optional_metadata_field_type)
_OM_SIGNEDNESS, _OM_DEFAULT_CHARSET, _OM_COLUMN_NAME, _OM_SIMPLE_PRIMARY_KEY = 1, 2, 4, 8


def _byte_len(col: ColumnDef) -> int:
    """MySQL's ``field_length`` in bytes (utf8mb4: 4 bytes per character)."""
    n = col.length or 1
    return n * 4 if col.info.family == "string" else n


def _meta(col: ColumnDef) -> bytes:
    code = col.info.binlog_type
    if code == 4:
        return b"\x04"
    if code == 5:
        return b"\x08"
    if code == 246:
        return bytes([col.precision or 10, col.scale or 0])
    if code == 254:
        n = _byte_len(col)
        return bytes([254 ^ ((n & 0x300) >> 4), n & 0xFF])
    if code == 15:
        return struct.pack("<H", _byte_len(col))
    if code == 252:
        return bytes([_BLOB_PACK[col.type]])
    if code in (17, 18, 19):
        return bytes([col.scale or 0])
    return b""


def _collation_id(name: str | None) -> int:
    return _COLLATION_IDS.get(name or "utf8mb4_0900_ai_ci", 255)


def _optional_metadata(t: TableDef) -> bytes:
    w = Writer()

    def tlv(kind: int, payload: bytes) -> None:
        w.u8(kind)
        w.packed_int(len(payload))
        w.bytes(payload)

    numeric = [c for c in t.columns if c.info.binlog_type in _NUMERIC_TYPES]
    if numeric:
        bits = bytearray((len(numeric) + 7) // 8)
        for i, c in enumerate(numeric):
            if c.unsigned:
                bits[i // 8] |= 0x80 >> (i % 8)
        tlv(_OM_SIGNEDNESS, bytes(bits))
    chars = [
        c
        for c in t.columns
        if c.info.binlog_type in (254, 15) or (c.info.binlog_type == 252 and c.info.family == "string")
    ]
    if chars:
        default = _collation_id(t.collation)
        body = Writer()
        body.packed_int(default)
        for i, c in enumerate(chars):
            cid = 63 if c.info.family == "binary" else _collation_id(c.collation or t.collation)
            if cid != default:
                body.packed_int(i)
                body.packed_int(cid)
        tlv(_OM_DEFAULT_CHARSET, body.getvalue())
    names = Writer()
    for c in t.columns:
        raw = c.name.encode("utf-8")
        names.packed_int(len(raw))
        names.bytes(raw)
    tlv(_OM_COLUMN_NAME, names.getvalue())
    if t.primary_key:
        pk = Writer()
        for c in t.primary_key:
            pk.packed_int(t.column_index(c))
        tlv(_OM_SIMPLE_PRIMARY_KEY, pk.getvalue())
    return w.getvalue()


def table_map_event(table_def: TableDef, table_id: int) -> TableMapEvent:
    """TABLE_MAP_EVENT for ``table_def`` under ``table_id`` (with binlog_row_metadata=FULL optional metadata)."""
    cols = table_def.columns
    types = bytes(c.info.binlog_type for c in cols)
    meta = b"".join(_meta(c) for c in cols)
    nulls = bytearray((len(cols) + 7) // 8)
    for i, c in enumerate(cols):
        if c.nullable:
            nulls[i // 8] |= 1 << (i % 8)
    return TableMapEvent(
        table_id=table_id,
        flags=TM_BIT_LEN_EXACT_F,
        database=table_def.schema,
        table=table_def.name,
        column_types=types,
        metadata=meta,
        null_bitmap=bytes(nulls),
        optional_metadata=_optional_metadata(table_def),
    )


# ---------------------------------------------------------------- value codecs --------------------------------
def _decimal_to_bin(value: Decimal, precision: int, scale: int) -> bytes:
    intg = precision - scale
    intg0, intg0x = divmod(intg, 9)
    frac0, frac0x = divmod(scale, 9)
    neg = value < 0
    q = abs(value).quantize(Decimal(1).scaleb(-scale))
    _sign, digits, exp_ = q.as_tuple()
    s = "".join(map(str, digits))
    if scale:
        s = s.rjust(scale + 1, "0")
        int_s, frac_s = s[:-scale], s[-scale:]
    else:
        int_s, frac_s = s + "0" * max(0, int(exp_)), ""
    int_s = int_s.lstrip("0").rjust(intg, "0")
    if len(int_s) > intg:
        raise MySQLError(1264, "Out of range value for decimal column", "22003")
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


def _decimal_from_bin(cur: Cursor, precision: int, scale: int) -> Decimal:
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
    parts = []

    def take(nbytes: int, ndigits: int) -> str:
        nonlocal pos
        v = int.from_bytes(raw[pos : pos + nbytes], "big")
        pos += nbytes
        return str(v).rjust(ndigits, "0")

    if intg0x:
        parts.append(take(_DIG2BYTES[intg0x], intg0x))
    for _ in range(intg0):
        parts.append(take(4, 9))
    int_s = "".join(parts) or "0"
    frac_parts = [take(4, 9) for _ in range(frac0)]
    if frac0x:
        frac_parts.append(take(_DIG2BYTES[frac0x], frac0x))
    frac_s = "".join(frac_parts)
    d = Decimal(f"{'-' if neg else ''}{int(int_s)}{'.' + frac_s if frac_s else ''}")
    return d


def decimal_from_bin(data: bytes, precision: int, scale: int) -> Decimal:
    """A MySQL binary DECIMAL(precision, scale) value (``bin2decimal``), e.g. a DECIMAL user variable's payload.

    Raises:
        BinlogDecodeError: ``data`` is shorter than the encoding needs.
    """
    return _decimal_from_bin(Cursor(bytes(data)), precision, scale)


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


def _write_value(w: Writer, col: ColumnDef, v: Any) -> None:
    code = col.info.binlog_type
    if code in _INT_BYTES:
        n = _INT_BYTES[code]
        w.bytes(int(v).to_bytes(n, "little", signed=not col.unsigned))
    elif code == 4:
        w.bytes(struct.pack("<f", float(v)))
    elif code == 5:
        w.bytes(struct.pack("<d", float(v)))
    elif code == 246:
        w.bytes(_decimal_to_bin(Decimal(v), col.precision or 10, col.scale or 0))
    elif code in (254, 15):
        raw = v if isinstance(v, bytes) else str(v).encode("utf-8")
        if code == 254 and col.info.family == "string":
            raw = raw.rstrip(b" ")
        if _byte_len(col) > 255:
            w.u16(len(raw))
        else:
            w.u8(len(raw))
        w.bytes(raw)
    elif code == 252:
        raw = v if isinstance(v, bytes) else str(v).encode("utf-8")
        w.bytes(len(raw).to_bytes(_BLOB_PACK[col.type], "little"))
        w.bytes(raw)
    elif code == 10:
        y, mo, d, *_ = _parse_dt(str(v))
        w.u24(d | mo << 5 | y << 9)
    elif code == 18:
        y, mo, d, h, mi, s, us = _parse_dt(str(v))
        ymd = ((y * 13 + mo) << 5) | d
        hms = (h << 12) | (mi << 6) | s
        w.bytes((((ymd << 17) | hms) + 0x8000000000).to_bytes(5, "big"))
        w.bytes(_frac_store(us, col.scale or 0))
    elif code == 17:
        y, mo, d, h, mi, s, us = _parse_dt(str(v))
        secs = 0 if y == 0 else calendar.timegm((y, mo, d, h, mi, s, 0, 0, 0))
        w.bytes(secs.to_bytes(4, "big"))
        w.bytes(_frac_store(us, col.scale or 0))
    elif code == 19:
        text = str(v)
        if text.startswith("-"):
            raise MySQLError(
                1235, "This version of MySQL doesn't yet support 'negative TIME in row events'", "42000"
            )
        hms, _, frac = text.partition(".")
        h, mi, s = (int(x) for x in hms.split(":"))
        w.bytes((0x800000 + ((h << 12) | (mi << 6) | s)).to_bytes(3, "big"))
        w.bytes(_frac_store(int(frac.ljust(6, "0")) if frac else 0, col.scale or 0))
    elif code == 13:
        w.u8(0 if int(v) == 0 else int(v) - 1900)
    else:  # pragma: no cover - the catalog only admits the types above
        raise MySQLError(
            1235, f"This version of MySQL doesn't yet support 'row image of type {code}'", "42000"
        )


def _meta_fields(types: bytes, metadata: bytes) -> list[bytes]:
    """Split a Table_map metadata block into one bytes object per column."""
    out = []
    pos = 0
    for code in types:
        n = {
            4: 1,
            5: 1,
            246: 2,
            254: 2,
            15: 2,
            252: 1,
            17: 1,
            18: 1,
            19: 1,
            245: 1,
            16: 2,
            247: 2,
            248: 2,
            255: 1,
        }.get(code, 0)
        out.append(metadata[pos : pos + n])
        pos += n
    return out


def _read_value(cur: Cursor, code: int, meta: bytes, unsigned: bool) -> Any:
    if code in _INT_BYTES:
        return int.from_bytes(cur.bytes(_INT_BYTES[code]), "little", signed=not unsigned)
    if code == 4:
        return struct.unpack("<f", cur.bytes(4))[0]
    if code == 5:
        return struct.unpack("<d", cur.bytes(8))[0]
    if code == 246:
        return _decimal_from_bin(cur, meta[0], meta[1])
    if code == 254:
        m0, m1 = meta[0], meta[1]
        length = m1 | (((m0 & 0x30) ^ 0x30) << 4) if (m0 & 0x30) != 0x30 else m1
        n = cur.u16() if length > 255 else cur.u8()
        return cur.bytes(n)
    if code == 15:
        maxlen = struct.unpack("<H", meta)[0]
        n = cur.u16() if maxlen > 255 else cur.u8()
        return cur.bytes(n)
    if code == 252:
        n = int.from_bytes(cur.bytes(meta[0]), "little")
        return cur.bytes(n)
    if code == 10:
        v = cur.u24()
        return _fmt_dt(v >> 9, (v >> 5) & 0xF, v & 0x1F, 0, 0, 0, 0, 0, date_only=True)
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
        fsp = meta[0]
        v = int.from_bytes(cur.bytes(3), "big") - 0x800000
        us = _frac_load(cur, fsp)
        out = f"{v >> 12:02d}:{(v >> 6) & 0x3F:02d}:{v & 0x3F:02d}"
        return out + ("." + f"{us:06d}"[:fsp] if fsp else "")
    if code == 13:
        b = cur.u8()
        return 0 if b == 0 else b + 1900
    raise BinlogDecodeError(f"rows event: column type {code} not supported by the engine decoder")


def encode_row(table_def: TableDef, row: tuple) -> bytes:
    """One full row image (null bitmap + values) for ``row`` in storage form, columns in table order."""
    w = Writer()
    _encode_row_into(w, table_def.columns, row)
    return w.getvalue()


def _encode_row_into(w: Writer, cols: tuple[ColumnDef, ...], row: tuple) -> None:
    nulls = bytearray((len(cols) + 7) // 8)
    for i, v in enumerate(row):
        if v is None:
            nulls[i // 8] |= 1 << (i % 8)
    w.bytes(bytes(nulls))
    for c, v in zip(cols, row):
        if v is not None:
            _write_value(w, c, v)


def _full_bitmap(n: int) -> bytes:
    bits = bytearray(b"\xff" * ((n + 7) // 8))
    if n % 8:
        bits[-1] = (1 << (n % 8)) - 1
    return bytes(bits)


def rows_events(
    changes: list[RowChange],
    table_ids: dict[tuple[str, str], int],
    *,
    catalog: Catalog | None = None,
    table_defs: dict[tuple[str, str], TableDef] | None = None,
) -> list[RowsEvent]:
    """Write/Update/Delete_rows_v2 events for ``changes`` (consecutive changes of one table and kind share an
    event, split near :data:`MAX_ROWS_BODY` bytes); the last event carries STMT_END_F.

    Table definitions come from ``table_defs`` or ``catalog``. The caller emits each table's Table_map
    (:func:`table_map_event`) before these events, as MySQL does.

    Raises:
        KeyError: a change's table has no table id; ValueError: no definition for a table.
    """
    events: list[RowsEvent] = []
    i = 0
    while i < len(changes):
        ch = changes[i]
        key = (ch.schema, ch.table)
        t = (table_defs or {}).get(key) or (catalog.get_table(*key) if catalog is not None else None)
        if t is None:
            raise ValueError(f"no table definition for {key[0]}.{key[1]}")
        n = len(t.columns)
        w = Writer()
        j = i
        while (
            j < len(changes) and (changes[j].schema, changes[j].table) == key and changes[j].kind == ch.kind
        ):
            c = changes[j]
            if c.kind in ("update", "delete"):
                _encode_row_into(w, t.columns, c.before)  # type: ignore[arg-type]
            if c.kind in ("update", "insert"):
                _encode_row_into(w, t.columns, c.after)  # type: ignore[arg-type]
            j += 1
            if len(w) >= MAX_ROWS_BODY:
                break
        type_code = _KIND_TYPE[ch.kind]
        bitmap = _full_bitmap(n)
        events.append(
            RowsEvent(
                type_code=type_code,
                table_id=table_ids[key],
                flags=0,
                extra=b"",
                column_count=n,
                columns_before=bitmap,
                columns_after=bitmap if ch.kind == "update" else None,
                body=w.getvalue(),
            )
        )
        i = j
    if events:
        last = events[-1]
        events[-1] = RowsEvent(
            last.type_code,
            last.table_id,
            STMT_END_F,
            last.extra,
            last.column_count,
            last.columns_before,
            last.columns_after,
            last.body,
        )
    return events


def _signedness(tm: TableMapEvent) -> list[bool]:
    """Per-column unsigned flags from the optional metadata (False when absent)."""
    unsigned = [False] * tm.column_count
    cur = Cursor(tm.optional_metadata)
    while cur.remaining:
        kind = cur.u8()
        payload = cur.bytes(cur.packed_int())
        if kind == _OM_SIGNEDNESS:
            k = 0
            for i, code in enumerate(tm.column_types):
                if code in _NUMERIC_TYPES:
                    unsigned[i] = bool(payload[k // 8] & (0x80 >> (k % 8)))
                    k += 1
    return unsigned


def _bits(bitmap: bytes, n: int) -> list[bool]:
    return [bool(bitmap[i // 8] & (1 << (i % 8))) for i in range(n)]


def decode_rows(table_map: TableMapEvent, rows_event: RowsEvent) -> list[tuple[tuple | None, tuple | None]]:
    """Decode a rows event's images: list of (before, after) tuples (None where the kind has no such image).

    Values come back in the binlog's natural form: ints, floats, Decimal, bytes for CHAR/VARCHAR/BLOB, text for
    temporal types. Columns missing from the image read as None.

    Raises:
        BinlogDecodeError: truncated image or an unsupported column type.
    """
    n = table_map.column_count
    types = table_map.column_types
    metas = _meta_fields(types, table_map.metadata)
    unsigned = _signedness(table_map)
    before_cols = _bits(rows_event.columns_before, n)
    after_cols = _bits(rows_event.columns_after, n) if rows_event.columns_after is not None else before_cols
    cur = Cursor(rows_event.body)

    def image(present: list[bool]) -> tuple:
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
            else:
                out.append(_read_value(cur, types[i], metas[i], unsigned[i]))
            j += 1
        return tuple(out)

    kind = {
        EventType.WRITE_ROWS_EVENT: "insert",
        EventType.WRITE_ROWS_EVENT_V1: "insert",
        EventType.UPDATE_ROWS_EVENT: "update",
        EventType.UPDATE_ROWS_EVENT_V1: "update",
        EventType.DELETE_ROWS_EVENT: "delete",
        EventType.DELETE_ROWS_EVENT_V1: "delete",
    }.get(EventType(rows_event.type_code))
    if kind is None:
        raise BinlogDecodeError(
            f"rows event type {rows_event.type_code} cannot be applied", event_type=rows_event.type_code
        )
    out: list[tuple[tuple | None, tuple | None]] = []
    while cur.remaining:  # a truncated image raises CursorError, a BinlogDecodeError
        if kind == "insert":
            out.append((None, image(after_cols)))
        elif kind == "delete":
            out.append((image(before_cols), None))
        else:
            b = image(before_cols)
            out.append((b, image(after_cols)))
    return out


def _to_storage(col: ColumnDef, v: Any) -> Any:
    from gtidkit.engine.sql.values import coerce, from_sqlite

    if v is None:
        return None
    fam = col.info.family
    if fam == "string" and isinstance(v, bytes):
        return v.decode("utf-8")
    if fam == "binary" and col.type == "binary" and isinstance(v, bytes):
        return v.ljust(col.length or 1, b"\0")
    if fam == "float" and col.type == "float":
        return float(struct.unpack("<f", struct.pack("<f", v))[0])
    if fam == "decimal":
        return from_sqlite(col, v)
    if fam == "temporal" and isinstance(v, str):
        return coerce(col, v) if not v.startswith("0000") else v
    return v


def apply_rows_event(target: Any, table_map: TableMapEvent, rows_event: RowsEvent) -> list[RowChange]:
    """Re-apply a decoded rows event to storage (crash recovery, replica applier); returns the RowChanges.

    ``target`` is an :class:`~gtidkit.engine.sql.executor.Executor` or a storage :class:`Connection` (with ``.storage``);
    the caller owns the transaction. Rows are found by primary key when the before image has it, else by the
    columns the before image carries (all of them with ``binlog_row_image=FULL``), as MySQL's applier does with
    ``slave_rows_search_algorithms=INDEX_SCAN,HASH_SCAN``. Partial images (``binlog_row_image=MINIMAL`` /
    ``NOBLOB``: the column bitmaps leave columns out) are honoured as ``Rows_log_event::do_apply_event`` does: an
    UPDATE changes only the after image's columns, an INSERT gives the missing columns their defaults (a
    generated AUTO_INCREMENT value for that column). The RowChanges carry full rows (what the row had / has), so
    a ``log_replica_updates`` replica re-logs FULL images.

    Raises:
        MySQLError: 1146 unknown table; 1032 (HA_ERR_KEY_NOT_FOUND, "Can't find record in 't'") when an
            update/delete image matches no row; 1062 when a write conflicts; 1364 when an INSERT image leaves out
            a column without a default.
        BinlogDecodeError: undecodable image.
    """

    from gtidkit.engine.sql.dml import _failed_index, dup_entry_error
    from gtidkit.engine.sql.executor import RowChange
    from gtidkit.engine.sql.values import from_sqlite, to_sqlite

    conn = getattr(target, "conn", target)
    catalog = conn.storage.catalog
    t = catalog.require_table(table_map.database, table_map.table)
    if len(t.columns) != table_map.column_count:
        raise MySQLError(
            1677,
            f"Column count of {t.schema}.{t.name} does not match the table map "
            f"({table_map.column_count} vs {len(t.columns)})",
            "HY000",
        )
    n = len(t.columns)
    in_before = _bits(rows_event.columns_before, n)
    in_after = _bits(rows_event.columns_after, n) if rows_event.columns_after is not None else in_before
    phys = quote_ident(physical_name(t.schema, t.name))
    cols = ", ".join(quote_ident(c.name) for c in t.columns)
    pk = [t.column_index(c) for c in t.primary_key]
    key_cols = pk if pk and all(in_before[i] for i in pk) else [i for i in range(n) if in_before[i]]
    where = " AND ".join(f"{quote_ident(t.columns[i].name)} IS ?" for i in key_cols)
    ai = next((i for i, c in enumerate(t.columns) if c.auto_increment), None)
    sets = ", ".join(f"{quote_ident(c.name)} = ?" for c in t.columns)
    changes: list[RowChange] = []
    for before, after in decode_rows(table_map, rows_event):
        b = tuple(_to_storage(c, v) for c, v in zip(t.columns, before)) if before is not None else None
        a = tuple(_to_storage(c, v) for c, v in zip(t.columns, after)) if after is not None else None
        if b is not None:
            found = conn.raw.execute(
                f"SELECT {t.rowid_alias}, {cols} FROM {phys} WHERE {where}", [to_sqlite(b[i]) for i in key_cols]
            ).fetchone()
            if found is None:
                raise MySQLError(1032, f"Can't find record in '{t.name}'", "HY000")
            old = tuple(from_sqlite(c, v) for c, v in zip(t.columns, found[1:]))
            if a is None:
                conn.raw.execute(f"DELETE FROM {phys} WHERE {t.rowid_alias} = ?", (found[0],))
                changes.append(RowChange(t.schema, t.name, "delete", old, None))
                continue
            new = tuple(a[i] if in_after[i] else old[i] for i in range(n))
            try:
                conn.raw.execute(
                    f"UPDATE {phys} SET {sets} WHERE {t.rowid_alias} = ?",
                    [to_sqlite(v) for v in new] + [found[0]],
                )
            except IntegrityError as err:
                ix = _failed_index(err, t)
                raise (dup_entry_error(t, ix, new) if ix else MySQLError(1105, str(err))) from err
            changes.append(RowChange(t.schema, t.name, "update", old, new))
        else:
            assert a is not None
            if not all(in_after):
                a = _fill_missing(conn, t, a, in_after)
            try:
                conn.raw.execute(
                    f"INSERT INTO {phys} ({cols}) VALUES ({', '.join('?' * len(a))})",
                    [to_sqlite(v) for v in a],
                )
            except IntegrityError as err:
                ix = _failed_index(err, t)
                raise (dup_entry_error(t, ix, a) if ix else MySQLError(1105, str(err))) from err
            if ai is not None and a[ai] is not None:
                catalog.next_auto_increment(conn, t, explicit=int(a[ai]))
            changes.append(RowChange(t.schema, t.name, "insert", None, a))
    return changes


def _fill_missing(conn: Any, t: TableDef, row: tuple, present: list[bool]) -> tuple:
    """Complete a partial INSERT image: defaults (CURRENT_TIMESTAMP = now), a generated AUTO_INCREMENT value.

    Raises:
        MySQLError: 1364 for a NOT NULL column without a default (strict mode, as the applier runs).
    """
    out = list(row)
    for i, c in enumerate(t.columns):
        if present[i]:
            continue
        if c.auto_increment:
            out[i] = conn.storage.catalog.next_auto_increment(conn, t)
        elif c.default_expr == "CURRENT_TIMESTAMP":
            out[i] = _dt.datetime.now()
        elif c.has_default:
            out[i] = c.default
        elif c.nullable:
            out[i] = None
        else:
            raise MySQLError(1364, f"Field '{c.name}' doesn't have a default value", "HY000")
    return tuple(out)


def events_for_changes(
    changes: Iterable[RowChange], catalog: Catalog, table_ids: dict[tuple[str, str], int]
) -> list[TableMapEvent | RowsEvent]:
    """Table_map + rows events for a transaction's changes, one Table_map per run of a table (a helper for tests
    and tools; the GTID core builds its own sequence in ``binlog_events.py``)."""
    changes = list(changes)
    out: list[TableMapEvent | RowsEvent] = []
    i = 0
    while i < len(changes):
        key = (changes[i].schema, changes[i].table)
        j = i
        while j < len(changes) and (changes[j].schema, changes[j].table) == key:
            j += 1
        t = catalog.get_table(*key)
        if t is None:
            raise ValueError(f"no table definition for {key[0]}.{key[1]}")
        out.append(table_map_event(t, table_ids[key]))
        out.extend(rows_events(changes[i:j], table_ids, catalog=catalog))
        i = j
    return out
