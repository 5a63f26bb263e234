"""ROW-format binlog images for the SQL layer: catalog tables -> Table_map events, RowChanges -> Write/Update/
Delete_rows_v2 events, and the reverse (re-apply a decoded rows event to storage).

The field packing itself (``Field::pack``, every type's bytes) is the one row-image codec,
:mod:`gtidkit.binlog.row_image`; this module maps catalog columns to what a Table_map says about them
(binlog type code, metadata, signedness: ``Field::do_save_field_metadata``), with ``binlog_row_image=FULL`` and
``binlog_row_metadata=FULL`` optional metadata in MySQL's order (SIGNEDNESS, DEFAULT_/COLUMN_CHARSET,
GEOMETRY_TYPE, COLUMN_NAME, ENUM_AND_SET_*_CHARSET, SET_/ENUM_STR_VALUE, SIMPLE_PRIMARY_KEY / PRIMARY_KEY_WITH_PREFIX,
COLUMN_VISIBILITY) so python-mysql-replication can name, sign and decode the columns, and maps storage values to
and from the codec's values: character columns as their character set's bytes (a latin1 'é' is E9), ENUM / SET
as index / bit set, and partitioned tables' rows with their partition ids (:mod:`gtidkit.engine.sql.partitions`).
Character lengths are characters x the set's mbmaxlen, as MySQL computes ``field_length``. TIMESTAMP values are
stored in UTC (:mod:`gtidkit.engine.sql.temporal`), which is what a rows event carries: seconds since the epoch.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime as _dt
import struct
from collections.abc import Callable, Iterable, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from gtidkit.binlog import json_binary, row_image
from gtidkit.binlog.constants import EventType
from gtidkit.binlog.cursor import Cursor, Writer, packed_int_bytes
from gtidkit.binlog.events.rows import STMT_END_F, RowsEvent, TableMapEvent
from gtidkit.binlog.json_diff import (
    INSERT,
    PARTIAL_JSON_UPDATES,
    REMOVE,
    REPLACE,
    JsonDiff,
    JsonDiffs,
    encode_diffs,
)
from gtidkit.binlog.row_image import ColumnSpec, columns_present, decode_rows
from gtidkit.engine import charsets
from gtidkit.engine.sql import enum_set, partitions, type_conversion
from gtidkit.engine.sql.catalog import ColumnDef, TableDef
from gtidkit.engine.sql.enum_set import ENUM_SET_TYPES
from gtidkit.engine.sql.spatial import GEOMETRY_CODES
from gtidkit.engine.storage import IntegrityError, physical_name, quote_ident
from gtidkit.errors import MySQLError
from gtidkit.mysql_errors import mysql_error, unknown_error

if TYPE_CHECKING:
    from gtidkit.engine.sql.catalog import Catalog
    from gtidkit.engine.sql.executor import RowChange

__all__ = [
    "MAX_ROWS_BODY",
    "apply_rows_event",
    "column_spec",
    "decimal_from_bin",
    "decode_rows",
    "encode_row",
    "rows_events",
    "table_map_event",
]

#: MySQL splits a statement's rows into events of at most binlog_row_event_max_size (8192) bytes.
MAX_ROWS_BODY = row_image.ROW_EVENT_MAX_SIZE
#: Table_map flag TM_BIT_LEN_EXACT_F, set by every 5.1+ server.
TM_BIT_LEN_EXACT_F = 0x1

_KIND_TYPE = {
    "insert": EventType.WRITE_ROWS_EVENT,
    "update": EventType.UPDATE_ROWS_EVENT,
    "delete": EventType.DELETE_ROWS_EVENT,
}
_NUMERIC_TYPES = row_image.NUMERIC_TYPES
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
_OM_SIGNEDNESS, _OM_DEFAULT_CHARSET, _OM_COLUMN_CHARSET, _OM_COLUMN_NAME = 1, 2, 3, 4
_OM_SET_STR_VALUE, _OM_ENUM_STR_VALUE, _OM_GEOMETRY_TYPE = 5, 6, 7
_OM_SIMPLE_PRIMARY_KEY, _OM_PRIMARY_KEY_WITH_PREFIX = 8, 9
_OM_ENUM_AND_SET_DEFAULT_CHARSET, _OM_ENUM_AND_SET_COLUMN_CHARSET, _OM_COLUMN_VISIBILITY = 10, 11, 12
#: Table_map column types whose charset the (COLUMN|DEFAULT)_CHARSET field lists (``is_character_type``): CHAR,
#: VARCHAR and the BLOB/TEXT family, binary ones with 63; not ENUM / SET (their own field), JSON or GEOMETRY
_CHARACTER_TYPES = (254, 15, 253, 252)


def _charset_of(col: ColumnDef) -> str:
    """The character set a character column's bytes are in (``binary`` for BINARY/VARBINARY/BLOB)."""
    if col.info.family != "string":
        return "binary"
    return col.charset or (col.collation.split("_")[0] if col.collation else "utf8mb4")


def _byte_len(col: ColumnDef) -> int:
    """MySQL's ``field_length`` in bytes: characters x the column charset's ``mbmaxlen`` (CHAR(10) latin1 = 10,
    utf8mb4 = 40), bytes for BINARY/VARBINARY."""
    n = col.length or 1
    return n * charsets.lookup(_charset_of(col)).maxlen if col.info.family == "string" else n


def _meta(col: ColumnDef) -> bytes:
    code = col.info.binlog_type
    if code == 4:
        return b"\x04"
    if code == 5:
        return b"\x08"
    if code == 246:
        return bytes([col.precision or 10, col.scale or 0])
    if col.type in ENUM_SET_TYPES:  # STRING with the real type and the value's pack length (Field_enum)
        return bytes([247 if col.type == "enum" else 248, enum_set.pack_length(col)])
    if code == 254:
        n = _byte_len(col)
        return bytes([254 ^ ((n & 0x300) >> 4), n & 0xFF])
    if code == 15:
        return struct.pack("<H", _byte_len(col))
    if code == 252:
        return bytes([_BLOB_PACK[col.type]])
    if code in (17, 18, 19):
        return bytes([col.scale or 0])
    if code in (245, 255):  # JSON, GEOMETRY: the bytes of their length (4, as a LONGBLOB)
        return _JSON_META
    if code == 16:  # BIT(M): bits in the last byte, whole bytes (Field_bit::do_save_field_metadata)
        m = col.length or 1
        return bytes([m % 8, m // 8])
    return b""


def _column_collation(col: ColumnDef, t: TableDef) -> int:
    """The collation id of a character column (63 for binary ones)."""
    if col.info.family != "string":
        return 63
    return charsets.collation_id(col.collation or (None if col.charset else t.collation) or _default(col))


def _default(col: ColumnDef) -> str:
    return charsets.lookup(_charset_of(col)).default_collation


def _charset_field(ids: list[int], default_type: int, column_type: int) -> tuple[int, bytes]:
    """The (DEFAULT|COLUMN)_CHARSET field of ``ids`` (one collation id per listed column), as
    ``Table_map_log_event::init_charset_field`` picks it: the most used id (the smallest on a tie) as default
    plus ``(index, id)`` exceptions, unless listing every id is shorter (counting one byte per number)."""
    counts: dict[int, int] = {}
    for cid in ids:
        counts[cid] = counts.get(cid, 0) + 1
    most = max(sorted(counts), key=lambda k: counts[k])  # max keeps the first (smallest) of equal counts
    body = Writer()
    if len(ids) < 1 + (len(ids) - counts[most]) * 2:
        for cid in ids:
            body.packed_int(cid)
        return column_type, body.getvalue()
    body.packed_int(most)
    for i, cid in enumerate(ids):
        if cid != most:
            body.packed_int(i)
            body.packed_int(cid)
    return default_type, body.getvalue()


def _str_values(cols: list[ColumnDef]) -> bytes:
    """SET_STR_VALUE / ENUM_STR_VALUE body: per column, the member count then each member (length + bytes, in
    the column's character set)."""
    w = Writer()
    for c in cols:
        w.packed_int(len(c.members))
        for m in c.members:
            raw = charsets.encode(m, _charset_of(c))
            w.packed_int(len(raw))
            w.bytes(raw)
    return w.getvalue()


def _bits_msb(flags: list[bool]) -> bytes:
    """A bit per flag, most significant bit first (SIGNEDNESS, COLUMN_VISIBILITY)."""
    out = bytearray((len(flags) + 7) // 8)
    for i, f in enumerate(flags):
        if f:
            out[i // 8] |= 0x80 >> (i % 8)
    return bytes(out)


def _optional_metadata(t: TableDef, full: bool = True) -> bytes:
    """The Table_map optional metadata (``Table_map_log_event::init_metadata_fields``), fields in MySQL's order:
    SIGNEDNESS, DEFAULT_CHARSET or COLUMN_CHARSET, GEOMETRY_TYPE (all that ``binlog_row_metadata=MINIMAL`` writes);
    with ``full`` (FULL) also COLUMN_NAME, ENUM_AND_SET_(DEFAULT|COLUMN)_CHARSET, SET_STR_VALUE, ENUM_STR_VALUE,
    SIMPLE_PRIMARY_KEY or PRIMARY_KEY_WITH_PREFIX (the key MySQL treats as primary: :func:`identifying_key`) and
    COLUMN_VISIBILITY (8.0.23+). Each field appears only when some column needs it (the real
    ``mysql-enum-string-set`` and ``binlog-invisible-columns`` binlogs show this layout)."""
    w = Writer()

    def tlv(kind: int, payload: bytes) -> None:
        w.u8(kind)
        w.packed_int(len(payload))
        w.bytes(payload)

    numeric = [c for c in t.columns if c.info.binlog_type in _NUMERIC_TYPES]
    if numeric:
        tlv(_OM_SIGNEDNESS, _bits_msb([c.unsigned for c in numeric]))
    chars = [c for c in t.columns if c.info.binlog_type in _CHARACTER_TYPES and c.type not in ENUM_SET_TYPES]
    if chars:
        tlv(
            *_charset_field([_column_collation(c, t) for c in chars], _OM_DEFAULT_CHARSET, _OM_COLUMN_CHARSET)
        )
    geometries = [c for c in t.columns if c.info.binlog_type == 255]
    if geometries:
        geo = Writer()
        for c in geometries:
            geo.packed_int(GEOMETRY_CODES[c.type])
        tlv(_OM_GEOMETRY_TYPE, geo.getvalue())
    if not full:
        return w.getvalue()
    names = Writer()
    for c in t.columns:
        raw = c.name.encode("utf-8")
        names.packed_int(len(raw))
        names.bytes(raw)
    tlv(_OM_COLUMN_NAME, names.getvalue())
    enums_sets = [c for c in t.columns if c.type in ENUM_SET_TYPES]
    if enums_sets:
        tlv(
            *_charset_field(
                [_column_collation(c, t) for c in enums_sets],
                _OM_ENUM_AND_SET_DEFAULT_CHARSET,
                _OM_ENUM_AND_SET_COLUMN_CHARSET,
            )
        )
        sets = [c for c in enums_sets if c.type == "set"]
        if sets:
            tlv(_OM_SET_STR_VALUE, _str_values(sets))
        enums = [c for c in enums_sets if c.type == "enum"]
        if enums:
            tlv(_OM_ENUM_STR_VALUE, _str_values(enums))
    key = identifying_key(t)
    if key is not None:
        # column indexes; with a prefix key part, (index, prefix length in characters, 0 = whole column) pairs
        index = next(ix for ix in t.indexes if tuple(t.column_index(n) for n in ix.columns) == key)
        pk = Writer()
        for k, column in enumerate(key):
            pk.packed_int(column)
            if index.prefixes:
                pk.packed_int(index.prefixes[k])
        tlv(_OM_PRIMARY_KEY_WITH_PREFIX if index.prefixes else _OM_SIMPLE_PRIMARY_KEY, pk.getvalue())
    tlv(_OM_COLUMN_VISIBILITY, _bits_msb([not c.invisible for c in t.columns]))
    return w.getvalue()


#: id(object) -> (object, value derived from it): table definitions are immutable and the same ones come back
#: for every transaction, so their Table_map parts and column specs are derived once (the object is kept, so its
#: id cannot be reused while the entry exists)
_DERIVED: dict[tuple[str, int], tuple[Any, Any]] = {}


def _derived(kind: str, obj: Any, make: Callable[[Any], Any]) -> Any:
    key = (kind, id(obj))
    hit = _DERIVED.get(key)
    if hit is not None and hit[0] is obj:
        return hit[1]
    value = make(obj)
    if len(_DERIVED) >= 4096:
        _DERIVED.clear()
    _DERIVED[key] = (obj, value)
    return value


def _table_map_parts(table_def: TableDef) -> tuple[bytes, bytes, bytes, bytes, bytes]:
    cols = table_def.columns
    types = bytes(c.info.binlog_type for c in cols)
    meta = b"".join(_meta(c) for c in cols)
    nulls = bytearray((len(cols) + 7) // 8)
    for i, c in enumerate(cols):
        if c.nullable:
            nulls[i // 8] |= 1 << (i % 8)
    return (
        types,
        meta,
        bytes(nulls),
        _optional_metadata(table_def, False),
        _optional_metadata(table_def, True),
    )


def table_map_event(table_def: TableDef, table_id: int, *, full_metadata: bool = True) -> TableMapEvent:
    """TABLE_MAP_EVENT for ``table_def`` under ``table_id``.

    Args:
        table_def: the table.
        table_id: its table id in this binlog.
        full_metadata: ``binlog_row_metadata=FULL`` (column names, primary key, visibility); ``False`` writes
            MINIMAL's optional metadata (:func:`_optional_metadata`).
    """
    by_id: dict[tuple[int, bool], TableMapEvent] = _derived("table_map_events", table_def, lambda _t: {})
    event = by_id.get((table_id, full_metadata))
    if event is None:  # an immutable value: the same one serves every transaction touching the table
        types, meta, nulls, minimal, full = _derived("table_map", table_def, _table_map_parts)
        optional = full if full_metadata else minimal
        event = by_id[(table_id, full_metadata)] = TableMapEvent(
            table_id=table_id,
            flags=TM_BIT_LEN_EXACT_F,
            database=table_def.schema,
            table=table_def.name,
            column_types=types,
            metadata=meta,
            null_bitmap=nulls,
            optional_metadata=optional,
        )
    return event


# ---------------------------------------------------------------- catalog columns -> the codec's columns -------
def column_spec(col: ColumnDef) -> ColumnSpec:
    """What the Table_map says about ``col``: binlog type code, metadata and signedness."""
    return ColumnSpec(col.info.binlog_type, _meta(col), bool(col.unsigned))


def decimal_from_bin(data: bytes, precision: int, scale: int) -> Decimal:
    """A MySQL binary DECIMAL(precision, scale) value (``bin2decimal``), e.g. a DECIMAL user variable's payload
    (:func:`gtidkit.binlog.row_image.decode_decimal`).

    Raises:
        BinlogDecodeError: ``data`` is shorter than the encoding needs.
    """
    return row_image.decode_decimal(Cursor(bytes(data)), precision, scale)


def _packed_char(v: Any) -> bytes:
    """A CHAR column's storage value in the codec's terms: trailing spaces dropped (``Field_string::pack``)."""
    raw = v if isinstance(v, bytes) else str(v).encode("utf-8")
    return raw.rstrip(b" ")


def encode_row(table_def: TableDef, row: tuple) -> bytes:
    """One full row image (null bitmap + values) for ``row`` in storage form, columns in table order.

    Raises:
        MySQLError: 1264 for a DECIMAL value out of range, 1235 for a value no row image can hold (negative TIME).
    """
    return _row_image(table_def.columns, row)


def _char_columns(cols: tuple[ColumnDef, ...]) -> tuple[bool, ...]:
    """Per column: a CHAR column (its values go through :func:`_packed_char`)."""
    return tuple(
        c.info.binlog_type == 254 and c.info.family == "string" and c.type not in ENUM_SET_TYPES for c in cols
    )


def _pre_encoder(col: ColumnDef, char: bool) -> Callable[[Any], Any] | None:
    """What a stored value of ``col`` goes through before the codec packs it (``None``: nothing)."""
    if col.info.binlog_type == 245:
        return _json_to_image
    if col.type in ENUM_SET_TYPES:
        return lambda v: enum_set.to_image(col, v)
    cs = _charset_of(col)
    if col.info.family == "string" and not charsets.is_utf8(cs):
        # the column's character set bytes (a latin1 'é' is E9, not C3 A9): Field_str::store converts to it
        if char:
            return lambda v: charsets.encode(str(v), cs).rstrip(b" ")
        return lambda v: charsets.encode(str(v), cs)
    return _packed_char if char else None


def _row_encoder(cols: tuple[ColumnDef, ...]) -> Callable[[tuple], bytes]:
    """The codec's compiled row encoder for ``cols`` (:func:`gtidkit.binlog.row_image.row_encoder`), CHAR values
    stripped first, JSON text as binary JSON, ENUM / SET text as index / bit set."""
    return row_image.row_encoder(
        [column_spec(c) for c in cols],
        [_pre_encoder(c, char) for c, char in zip(cols, _char_columns(cols))],
    )


def _row_image(cols: tuple[ColumnDef, ...], row: tuple) -> bytes:
    encode = _derived("encoder", cols, _row_encoder)  # per table, not per row
    try:
        return encode(row)
    except ValueError as err:
        bad = next((c for c, v in zip(cols, row) if v is not None and c.info.binlog_type == 246), None)
        if bad is not None and "DECIMAL" in str(err):
            raise MySQLError(1264, "Out of range value for decimal column", "22003") from err
        raise mysql_error(1235, err) from err


# ---------------------------------------------------------------- binlog_row_image ------------------------------
#: ``binlog_row_image`` values (RM8 "Binary Logging Options and Variables": binlog_row_image)
ROW_IMAGE_FULL, ROW_IMAGE_MINIMAL, ROW_IMAGE_NOBLOB = "FULL", "MINIMAL", "NOBLOB"
#: MYSQL_TYPE_BLOB: the TEXT/BLOB family NOBLOB leaves out (JSON and GEOMETRY have types of their own)
_BLOB_TYPE = 252


def identifying_key(t: TableDef) -> tuple[int, ...] | None:
    """The columns of the key MySQL treats as the table's primary key (``TABLE_SHARE::primary_key``): the PRIMARY
    KEY, else the first UNIQUE index whose columns are all NOT NULL; ``None`` when there is none."""
    for ix in t.indexes:
        if ix.primary or (ix.unique and all(not (c := t.column(n)) or not c.nullable for n in ix.columns)):
            return tuple(t.column_index(n) for n in ix.columns)
    return None


def _image_masks(t: TableDef, mode: str) -> tuple[int, int]:
    """``(before, after base)`` column masks (bit i = column i) for ``binlog_row_image=mode``, as
    ``TABLE::mark_columns_per_binlog_row_image`` and ``binlog_prepare_row_images`` choose them: FULL every column;
    MINIMAL the key columns before (every column without a key) and only what the statement wrote after; NOBLOB
    every column but the TEXT/BLOB ones outside the key before (every column without a key), and every non-BLOB
    column plus what the statement wrote after."""
    n = len(t.columns)
    full = (1 << n) - 1
    if mode not in (ROW_IMAGE_MINIMAL, ROW_IMAGE_NOBLOB):
        return full, full
    key = identifying_key(t)
    key_mask = sum(1 << i for i in key) if key is not None else full
    if mode == ROW_IMAGE_MINIMAL:
        return key_mask, 0
    non_blob = sum(1 << i for i, c in enumerate(t.columns) if c.info.binlog_type != _BLOB_TYPE)
    return (non_blob | key_mask) if key is not None else full, non_blob


def _masked_columns(cols: tuple[ColumnDef, ...], mask: int) -> tuple[tuple[ColumnDef, ...], tuple[int, ...]]:
    """The columns of ``mask`` and their positions (derived once per table and mask)."""
    per_mask: dict[int, Any] = _derived("masked_columns", cols, lambda _c: {})
    hit = per_mask.get(mask)
    if hit is None:
        idx = tuple(i for i in range(len(cols)) if mask >> i & 1)
        hit = per_mask[mask] = (tuple(cols[i] for i in idx), idx)
    return hit


def _partial_image(cols: tuple[ColumnDef, ...], row: tuple, mask: int) -> bytes:
    """The row image of the columns of ``mask`` (``pack_row`` over the columns-present bitmap)."""
    if mask == (1 << len(cols)) - 1:
        return _row_image(cols, row)
    sub, idx = _masked_columns(cols, mask)
    return _row_image(sub, tuple(row[i] for i in idx))


def _change_masks(t: TableDef, ch: RowChange, masks: tuple[int, int]) -> tuple[int, int]:
    """``(columns before, columns after)`` of one change under the image masks of its table."""
    before, base = masks
    full = (1 << len(t.columns)) - 1
    if base == full or ch.written is None:  # FULL (the common case): nothing to compute per row
        after = full
    else:
        after = base | sum(1 << i for i in ch.written)
    if ch.kind == "insert":
        return after, after
    if ch.kind == "delete":
        return before, before
    return before, after


def rows_events(
    changes: list[RowChange],
    table_ids: dict[tuple[str, str], int],
    *,
    catalog: Catalog | None = None,
    table_defs: dict[tuple[str, str], TableDef] | None = None,
    row_image_mode: str = ROW_IMAGE_FULL,
    partial_json: bool = False,
) -> list[RowsEvent]:
    """Write/Update/Delete_rows_v2 events for ``changes``: consecutive changes of one table, kind and columns
    bitmaps share events (``binlog_prepare_pending_rows_event`` starts a new event when the bitmaps differ),
    split as MySQL splits them (:func:`gtidkit.binlog.row_image.rows_events`); only the very last event carries
    STMT_END_F.

    Args:
        changes: the statement's row changes.
        table_ids: (schema, table) -> Table_map table id.
        catalog, table_defs: where table definitions come from (``table_defs`` first).
        row_image_mode: ``binlog_row_image`` (FULL, MINIMAL, NOBLOB): which columns each image carries
            (:func:`_image_masks`; a MINIMAL after image is the change's :attr:`RowChange.written` columns).
        partial_json: ``binlog_row_value_options=PARTIAL_JSON``: updates are PARTIAL_UPDATE_ROWS_EVENTs whose
            after images may carry JSON diffs (:func:`_partial_after_image`).

    The caller emits each table's Table_map (:func:`table_map_event`) before these events, as MySQL does.

    Raises:
        KeyError: a change's table has no table id; ValueError: no definition for a table.
        MySQLError: a value no row image can hold (see :func:`encode_row`).
    """
    events: list[RowsEvent] = []
    i = 0
    while i < len(changes):
        ch = changes[i]
        key = (ch.schema, ch.table)
        t = (table_defs or {}).get(key) or (catalog.get_table(*key) if catalog is not None else None)
        if t is None:
            raise ValueError(f"no table definition for {key[0]}.{key[1]}")
        images: list[bytes] = []
        cols = t.columns
        kind = ch.kind
        masks = _image_masks(t, row_image_mode)
        bits = _change_masks(t, ch, masks)
        scheme = _derived("partitions", t, _partition_scheme)
        extra = _partition_extra(scheme, ch)
        j = i
        while (
            j < len(changes)
            and (changes[j].schema, changes[j].table) == key
            and changes[j].kind == kind
            and (j == i or _change_masks(t, changes[j], masks) == bits)
            and (scheme is None or _partition_extra(scheme, changes[j]) == extra)
        ):
            c = changes[j]
            if kind == "update" and partial_json:
                images.append(_partial_image(cols, c.before, bits[0]) + _partial_after_image(t, c, bits[1]))  # type: ignore[arg-type]
            elif kind == "update":
                images.append(
                    _partial_image(cols, c.before, bits[0]) + _partial_image(cols, c.after, bits[1])  # type: ignore[arg-type]
                )
            elif kind == "delete":
                images.append(_partial_image(cols, c.before, bits[0]))  # type: ignore[arg-type]
            elif kind == "insert":
                images.append(_partial_image(cols, c.after, bits[1]))  # type: ignore[arg-type]
            else:
                images.append(b"")
            j += 1
        # each group's events end with STMT_END_F; only the statement's very last event keeps it
        if events and events[-1].flags != 0:
            events[-1] = dataclasses.replace(events[-1], flags=0)
        nbytes = (len(cols) + 7) // 8
        type_code = (
            EventType.PARTIAL_UPDATE_ROWS_EVENT if kind == "update" and partial_json else _KIND_TYPE[kind]
        )
        group = row_image.rows_events(
            type_code,
            table_ids[key],
            len(t.columns),
            images,
            columns_before=bits[0].to_bytes(nbytes, "little"),
            columns_after=bits[1].to_bytes(nbytes, "little"),
        )
        if extra:
            group = [dataclasses.replace(e, extra=extra) for e in group]
        events.extend(group)
        i = j
    if events and events[-1].flags != STMT_END_F:
        events[-1] = dataclasses.replace(events[-1], flags=STMT_END_F)
    return events


def _partition_scheme(t: TableDef) -> partitions.Scheme | None:
    if not t.partitioning:
        return None
    return partitions.scheme_of(
        t.partitioning,
        t.column_names,
        tuple(c.type for c in t.columns),
        t.primary_key,
        key_column=lambda p: _key_column(t, p),
    )


#: binlog types whose row-image bytes are the field's record bytes and whose ``Field::hash`` runs the numeric
#: collation (``my_charset_numeric``): integers, FLOAT, DOUBLE, DECIMAL, DATE, YEAR
_NUMERIC_KEY_TYPES = frozenset((1, 2, 3, 8, 9, 4, 5, 246, 10, 13))
#: binlog types whose row-image bytes are the record bytes, hashed as ``binary``: TIMESTAMP2, DATETIME2, TIME2
_BINARY_KEY_TYPES = frozenset((17, 18, 19))


def _key_column(t: TableDef, position: int) -> partitions.KeyColumn | None:
    """How KEY partitioning hashes column ``position`` of ``t`` (:class:`partitions.KeyColumn`): the field's
    record bytes (for fixed-size types the row-image bytes, which ``Field::pack`` copies from the record; a CHAR
    / BINARY padded back to its byte length with spaces / zeros; a VARCHAR's data bytes; a BIT as 8 big-endian
    bytes, ``Field_bit::hash``) and the collation hashing them. None for a type or collation not computed here
    (BLOB / TEXT / JSON / GEOMETRY cannot be KEY-partitioned in MySQL)."""
    col = t.columns[position]
    spec = column_spec(col)
    code = spec.type_code

    def image(v: Any) -> bytes:
        w = Writer()
        row_image.encode_value(w, spec, v)
        return w.getvalue()

    if col.type in ENUM_SET_TYPES:
        return partitions.KeyColumn(position, lambda v: image(enum_set.to_image(col, v)), "binary")
    if code in _NUMERIC_KEY_TYPES or code in _BINARY_KEY_TYPES:
        collation = partitions.NUMERIC_COLLATION if code in _NUMERIC_KEY_TYPES else "binary"
        return partitions.KeyColumn(position, image, collation)
    if code == 16:
        return partitions.KeyColumn(position, lambda v: image(v).rjust(8, b"\0"), "binary")
    if code not in (254, 15) or col.info.family not in ("string", "binary"):
        return None
    if col.info.family == "binary":
        collation = "binary"
        pad = b"\0"
    else:
        collation = col.collation or (None if col.charset else t.collation) or _default(col)
        pad = b" "
    if not partitions.hashable_collation(collation):
        return None
    cs = _charset_of(col)
    length = _byte_len(col)

    def data(v: Any) -> bytes:
        if isinstance(v, bytes):
            return v
        return charsets.encode(str(v), cs) if cs != "binary" else str(v).encode("utf-8")

    if code == 254:
        return partitions.KeyColumn(position, lambda v: data(v).ljust(length, pad), collation)
    return partitions.KeyColumn(position, data, collation)


def _partition_extra(scheme: partitions.Scheme | None, ch: RowChange) -> bytes:
    """The rows-event extra data of ``ch``'s row on a partitioned table (``b""`` when none is computed); an
    update carries the new row's partition and the old row's (``source_partition_id``)."""
    if scheme is None:
        return b""
    row = ch.after if ch.kind != "delete" else ch.before
    part = scheme.partition(row) if row is not None else None
    if part is None:
        return b""
    if ch.kind != "update":
        return partitions.extra_data(part)
    source = scheme.partition(ch.before) if ch.before is not None else None
    return partitions.extra_data(part, source if source is not None else part)


def _to_storage(col: ColumnDef, v: Any) -> Any:
    from gtidkit.engine.sql.values import coerce, from_sqlite

    if v is None:
        return None
    fam = col.info.family
    if col.type in ENUM_SET_TYPES and isinstance(v, int):
        return enum_set.from_image(col, v)
    if fam == "string" and isinstance(v, bytes):
        return charsets.decode(v, _charset_of(col))
    if fam == "binary" and col.type == "binary" and isinstance(v, bytes):
        return v.ljust(col.length or 1, b"\0")
    if fam == "float" and col.type == "float":
        return float(struct.unpack("<f", struct.pack("<f", v))[0])
    if fam == "decimal":
        return from_sqlite(col, v)
    if fam == "temporal" and isinstance(v, str):
        return coerce(col, v) if not v.startswith("0000") else v
    if fam == "json" and isinstance(v, bytes):
        return _json_from_image(v)
    return v


# ---------------------------------------------------------------- JSON columns ----------------------------------
# A JSON column is stored as MySQL's printed text (engine/sql/json_functions.py) and travels in row images as binary
# JSON (binlog/json_binary.py), with Table_map metadata 4: the bytes of its length (Field_json::pack_length_no_ptr).
_JSON_META = b"\x04"


def _json_columns(cols: tuple[ColumnDef, ...]) -> tuple[int, ...]:
    """Positions of the JSON columns (their values go through :func:`_json_to_image`)."""
    return tuple(i for i, c in enumerate(cols) if c.info.binlog_type == 245)


def _json_to_image(text: Any) -> bytes:
    """A JSON column's stored text -> its binary JSON (a partial update's :class:`JsonDiffs` -> its diff list)."""
    from gtidkit.engine.sql.json_functions import load_stored

    if isinstance(text, JsonDiffs):
        return encode_diffs(text.diffs)
    return json_binary.encode(load_stored(text))  # typed scalars become opaque DATE / TIME / DECIMAL values


def _partial_after_image(t: TableDef, ch: RowChange, mask: int) -> bytes:
    """A PARTIAL_UPDATE_ROWS_EVENT after image: ``value_options`` (PARTIAL_JSON_UPDATES when the statement changed
    JSON columns with JSON_SET / JSON_REPLACE / JSON_REMOVE), then one bit per JSON column of the table (set: its
    value is a diff list, :mod:`gtidkit.binlog.json_diff`), then the image (``pack_row`` with ``value_options``)."""
    ops = dict(ch.json_ops or ())
    json_cols = _json_columns(t.columns)
    if not ops or not json_cols:
        return packed_int_bytes(0) + _partial_image(t.columns, ch.after, mask)  # type: ignore[arg-type]
    row = list(ch.after)  # type: ignore[arg-type]
    flags = 0
    for k, i in enumerate(json_cols):
        if i in ops and mask >> i & 1 and ch.before is not None:
            diffs = _json_diffs(ch.before[i], row[i], ops[i])
            if diffs is not None:
                row[i] = diffs
                flags |= 1 << k
    bits = flags.to_bytes((len(json_cols) + 7) // 8, "little")
    return packed_int_bytes(PARTIAL_JSON_UPDATES) + bits + _partial_image(t.columns, tuple(row), mask)


def _json_diffs(before: Any, after: Any, ops: Any) -> JsonDiffs | None:
    """The diffs turning the document ``before`` into ``after`` by the statement's JSON_SET / JSON_REPLACE /
    JSON_REMOVE ``ops`` (``Json_diff_vector``: REPLACE where the path existed, INSERT where a value was added,
    REMOVE), or None when the whole document must be logged: a NULL side, diffs that would not rebuild ``after``
    exactly, or diffs no smaller than the document (MySQL logs the full value when that is smaller)."""
    from gtidkit.engine.sql.json_functions import (
        MISSING_VALUE,
        apply_json_diff,
        json_path_value,
    )
    from gtidkit.engine.sql.json_functions import load_stored as parse_text

    if before is None or after is None:
        return None
    try:
        final = parse_text(after)
        doc = before
        diffs: list[JsonDiff] = []
        for kind, paths in ops:
            for path in paths:
                present = json_path_value(parse_text(doc), path) is not MISSING_VALUE
                if kind == "REMOVE":
                    if present:
                        diffs.append(JsonDiff(REMOVE, path))
                        doc = apply_json_diff(doc, REMOVE, path)
                    continue
                if kind == "REPLACE" and not present:
                    continue
                value = json_path_value(final, path)
                if value is MISSING_VALUE:
                    continue
                op = REPLACE if present else INSERT
                diffs.append(JsonDiff(op, path, json_binary.encode(value)))
                doc = apply_json_diff(doc, op, path, value)
        if doc != after:
            return None
        if len(encode_diffs(diffs)) >= len(json_binary.encode(final)):
            return None
    except (MySQLError, ValueError):
        return None
    return JsonDiffs(tuple(diffs))


def _opaque_text(v: Any) -> Any:
    """Opaque JSON values a MySQL source put in a document, as the engine keeps them: a DATE / TIME / DATETIME /
    TIMESTAMP stays a typed value (as DECIMALs do), anything else becomes the string MySQL prints,
    ``"base64:type<field type>:<data>"`` (``Json_opaque``, mysql-test ``json_insert_innodb.result``:
    ``CAST(x'cafe' AS JSON)`` prints ``"base64:type15:yv4="``)."""
    if isinstance(v, json_binary.JsonOpaque):
        if json_binary.temporal_text(v) is not None:
            return v
        return f"base64:type{v.field_type}:{base64.b64encode(v.data).decode()}"
    if isinstance(v, dict):
        return {k: _opaque_text(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_opaque_text(x) for x in v]
    return v


def _json_from_image(raw: bytes) -> str:
    """A row image's binary JSON -> the JSON column's stored text.

    Raises:
        BinlogDecodeError: malformed binary JSON.
    """
    from gtidkit.engine.sql.json_functions import stored_text

    return stored_text(_opaque_text(json_binary.decode(raw)))


def apply_rows_event(
    target: Any, table_map: TableMapEvent, rows_event: RowsEvent, *, type_conversions: str = ""
) -> list[RowChange]:
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
            a column without a default; 13146 when a column's type cannot become the table's under
            ``type_conversions`` (the ``replica_type_conversions`` value, '' = the types must match).
        BinlogDecodeError: undecodable image.
    """

    from gtidkit.engine.sql.dml import dup_entry_error, failed_index
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
    conversions = _check_conversions(t, table_map, type_conversions)
    converting = any(c is not None and c.converts for c in conversions)
    in_before = columns_present(rows_event.columns_before, n)
    in_after = (
        columns_present(rows_event.columns_after, n) if rows_event.columns_after is not None else in_before
    )
    phys = quote_ident(physical_name(t.schema, t.name))
    cols = ", ".join(quote_ident(c.name) for c in t.columns)
    pk = [t.column_index(c) for c in t.primary_key]
    key_cols = pk if pk and all(in_before[i] for i in pk) else [i for i in range(n) if in_before[i]]
    where = " AND ".join(f"{quote_ident(t.columns[i].name)} IS ?" for i in key_cols)
    ai = next((i for i, c in enumerate(t.columns) if c.auto_increment), None)
    sets = ", ".join(f"{quote_ident(c.name)} = ?" for c in t.columns)
    changes: list[RowChange] = []
    for row_no, (before, after) in enumerate(decode_rows(table_map, rows_event), 1):
        b = tuple(_to_storage(c, v) for c, v in zip(t.columns, before)) if before is not None else None
        a = tuple(_to_storage(c, v) for c, v in zip(t.columns, after)) if after is not None else None
        if converting:
            b = _converted_row(t, b, conversions, row_no) if b is not None else None
            a = _converted_row(t, a, conversions, row_no) if a is not None else None
        if b is not None:
            found = conn.raw.execute(
                f"SELECT {t.rowid_alias}, {cols} FROM {phys} WHERE {where}",
                [to_sqlite(b[i]) for i in key_cols],
            ).fetchone()
            if found is None:
                raise mysql_error(1032, t.name)
            old = tuple(from_sqlite(c, v) for c, v in zip(t.columns, found[1:]))
            if a is None:
                conn.raw.execute(f"DELETE FROM {phys} WHERE {t.rowid_alias} = ?", (found[0],))
                changes.append(RowChange(t.schema, t.name, "delete", old, None))
                continue
            new = tuple(
                (_apply_diffs(old[i], a[i]) if isinstance(a[i], JsonDiffs) else a[i])
                if in_after[i]
                else old[i]
                for i in range(n)
            )
            try:
                conn.raw.execute(
                    f"UPDATE {phys} SET {sets} WHERE {t.rowid_alias} = ?",
                    [to_sqlite(v) for v in new] + [found[0]],
                )
            except IntegrityError as err:
                ix = failed_index(err, t)
                raise (dup_entry_error(t, ix, new) if ix else unknown_error(str(err))) from err
            written = frozenset(i for i in range(n) if in_after[i])
            # a partial update received stays one when this server logs with PARTIAL_JSON too
            json_ops = tuple(
                (i, tuple((_DIFF_OPS[d.operation], (d.path,)) for d in a[i].diffs))
                for i in range(n)
                if isinstance(a[i], JsonDiffs)
            )
            changes.append(RowChange(t.schema, t.name, "update", old, new, written, json_ops or None))
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
                ix = failed_index(err, t)
                raise (dup_entry_error(t, ix, a) if ix else unknown_error(str(err))) from err
            if ai is not None and a[ai] is not None:
                catalog.next_auto_increment(conn, t, explicit=int(a[ai]))
            changes.append(
                RowChange(t.schema, t.name, "insert", None, a, frozenset(i for i in range(n) if in_after[i]))
            )
    return changes


#: binlog type code -> MySQL's type name in conversion errors (``show_sql_type``)
_TYPE_NAMES = {
    1: "tinyint",
    2: "smallint",
    9: "mediumint",
    3: "int",
    8: "bigint",
    4: "float",
    5: "double",
    13: "year",
    10: "date",
    17: "timestamp",
    18: "datetime",
    19: "time",
    245: "json",
    247: "enum",
    248: "set",
}
_BLOB_NAMES = {1: "tinyblob", 2: "blob", 3: "mediumblob", 4: "longblob"}


#: pre-5.6.4 temporal types (and pre-5.0.3 VAR_STRING) a MySQL 8.0 replica takes as today's (``Field::real_type``)
_EQUIVALENT_TYPES = {7: 17, 12: 18, 11: 19, 253: 15}


def _real_type(code: int, meta: bytes) -> int:
    """The column's real type: ENUM and SET travel as STRING (254) with their type in the first metadata byte; an
    old temporal type counts as its 5.6.4+ form."""
    if code == 254 and meta and meta[0] in (247, 248):
        return meta[0]
    return _EQUIVALENT_TYPES.get(code, code)


def _source_type_name(code: int, meta: bytes, unsigned: bool) -> str:
    """How MySQL names a source column of a Table_map in 13146 (``show_sql_type``: lengths in bytes)."""
    real = _real_type(code, meta)
    if real == 246 and len(meta) == 2:
        return f"decimal({meta[0]},{meta[1]})"
    if real == 15 and len(meta) == 2:
        return f"varchar({struct.unpack('<H', meta)[0]}(bytes))"
    if real == 254 and len(meta) == 2:
        m0, m1 = meta  # the length's high bits are folded into the type byte (Field_string metadata)
        length = m1 | (((m0 & 0x30) ^ 0x30) << 4) if (m0 & 0x30) != 0x30 else m1
        return f"char({length}(bytes))"
    if real == 252 and meta:
        return _BLOB_NAMES.get(meta[0], "blob")
    name = _TYPE_NAMES.get(real, f"type {real}")
    return name + " unsigned" if unsigned and real in row_image.NUMERIC_TYPES else name


def _column_type_name(t: TableDef, col: ColumnDef) -> str:
    """How MySQL names a replica column in 13146: VARCHAR / CHAR with their byte length and character set
    (``'varchar(1020(bytes) utf8mb4)'``), integers with ``unsigned``, TEXT / BLOB by their own name."""
    charset = (col.collation or t.collation or "utf8mb4").split("_")[0]
    if col.type in ("varchar", "char") and col.info.family == "string":
        return f"{col.type}({_byte_len(col)}(bytes) {charset})"
    if col.info.binlog_type == 246:
        return f"decimal({col.precision or 10},{col.scale or 0})"
    if col.unsigned and col.info.binlog_type in row_image.NUMERIC_TYPES:
        return f"{col.type} unsigned"
    return str(col.type)


def _target(t: TableDef, col: ColumnDef) -> type_conversion.Target:
    """The replica column as :func:`type_conversion.compare_types` compares it."""
    code = _real_type(col.info.binlog_type, _meta(col))
    meta = _meta(col)
    if code == 252:  # BLOB / TEXT: the most bytes its length bytes allow, times the character size
        length = ((1 << (8 * meta[0])) - 1) * charsets.lookup(_charset_of(col)).maxlen
    else:
        length = _byte_len(col) if col.info.family in ("string", "binary") else 0
    return type_conversion.Target(code, meta, bool(col.unsigned), length)


def _check_conversions(
    t: TableDef, table_map: TableMapEvent, flags: str
) -> list[type_conversion.Conversion | None]:
    """How each column of a rows event goes into this server's table, as MySQL's applier decides with
    ``replica_type_conversions`` = ``flags`` (``table_def::compatible_with``; :mod:`type_conversion`); None for
    the columns the table map does not describe.

    Raises:
        MySQLError: 13146 naming the first column (0-based) that cannot be converted, the table and both types.
    """
    metas = table_map.column_metadata()
    unsigned = row_image.signedness(table_map)
    out: list[type_conversion.Conversion | None] = [None] * len(t.columns)
    for i, (code, meta) in enumerate(zip(table_map.column_types, metas)):
        if i >= len(t.columns):
            break
        col = t.columns[i]
        conv = type_conversion.compare_types(_real_type(code, meta), meta, _target(t, col), flags)
        if conv is None:
            raise type_conversion.conversion_error(
                i, t.schema, t.name, _source_type_name(code, meta, unsigned[i]), _column_type_name(t, col)
            )
        out[i] = conv
    return out


def _converted_row(
    t: TableDef, row: tuple, conversions: list[type_conversion.Conversion | None], row_no: int
) -> tuple:
    """A decoded image with its converted columns stored as the replica's columns store them: MySQL converts
    through a temporary table of the source's types and stores each field non-strictly (too long cut, out of
    range to the nearest bound, DECIMAL rounded; type_conversions.test's expected values)."""
    from gtidkit.engine.sql.values import FieldStore, coerce

    out = list(row)
    store = FieldStore(strict=False)
    for i, conv in enumerate(conversions):
        if conv is None or not conv.converts or out[i] is None or isinstance(out[i], JsonDiffs):
            continue
        value = out[i]
        if conv.int_bytes and isinstance(value, int):
            value = conv.read_integer(value)
        out[i] = coerce(t.columns[i], value, row_no, store)
    return tuple(out)


#: a received diff's operation -> the function that makes it (the re-logged change, :func:`_json_diffs`)
_DIFF_OPS = {REPLACE: "REPLACE", INSERT: "SET", REMOVE: "REMOVE"}


def _apply_diffs(doc: Any, partial: JsonDiffs) -> Any:
    """A JSON column's new stored text: its current document with a partial update's diffs applied in order
    (``binlog_row_value_options=PARTIAL_JSON``; :func:`gtidkit.engine.sql.json_functions.apply_json_diff`).

    Raises:
        MySQLError: 3141 / 3143 when the document or a path does not parse.
    """
    from gtidkit.engine.sql.json_functions import apply_json_diff

    if (
        doc is None
    ):  # a diff on SQL NULL: MySQL's applier finds no document to change (as JSON_SET(NULL, ...))
        return None
    for d in partial.diffs:
        value = None if d.value is None else _opaque_text(json_binary.decode(d.value))
        doc = apply_json_diff(doc, d.operation, d.path, value)
    return doc


def _fill_missing(conn: Any, t: TableDef, row: tuple, present: Sequence[bool]) -> tuple:
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
            # a TIMESTAMP is stored in UTC; a DATETIME default is the applier's local (SYSTEM) time
            out[i] = (
                _dt.datetime.now(_dt.timezone.utc).replace(tzinfo=None)
                if c.type == "timestamp"
                else _dt.datetime.now()
            )
        elif c.has_default:
            out[i] = c.default
        elif c.nullable:
            out[i] = None
        else:
            raise mysql_error(1364, c.name)
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
