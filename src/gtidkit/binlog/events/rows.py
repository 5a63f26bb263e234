"""Row events: Table_map (fully decoded) and Write/Update/Delete rows v1/v2 and Update_rows_partial.

MySQL source: ``libs/mysql/binlog/event/rows_event.h`` / ``.cpp`` (``Table_map_event``, ``Rows_event``).
Row images are kept as opaque bytes (``body``): decoding them needs the table's column metadata and is not
needed to track GTIDs; the header, table id, flags, extra data, column count and column bitmaps are decoded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gtidkit.binlog.constants import EventType
from gtidkit.binlog.cursor import Cursor, CursorError, Writer, packed_int_bytes

if TYPE_CHECKING:
    from typing_extensions import Self

    from gtidkit.binlog.events.control import FormatDescriptionEvent

#: Post-header with a 6-byte table id (5.1.4+); a 6-byte post-header means a 4-byte table id.
TABLE_ID_LEN = 6
OLD_TABLE_ID_LEN = 4

_ENC = ("utf-8", "surrogateescape")
_ONE_BYTE = tuple(bytes((i,)) for i in range(256))


def _table_id(body: Cursor, post_header_len: int) -> int:
    return body.u32() if post_header_len == OLD_TABLE_ID_LEN + 2 else body.u48()


def _put_table_id(out: Writer, post_header_len: int, table_id: int) -> None:
    if post_header_len == OLD_TABLE_ID_LEN + 2:
        out.u32(table_id)
    else:
        out.u48(table_id)


@dataclass(frozen=True, slots=True)
class TableMapEvent:
    """TABLE_MAP_EVENT (19): maps a table id to a table definition for the rows events that follow.

    | field             | size      | meaning                                               |
    |-------------------|-----------|-------------------------------------------------------|
    | table_id          | 6 (4)     | post-header                                           |
    | flags             | 2         | post-header                                           |
    | database          | 1+n+NUL   | length-prefixed, NUL-terminated                       |
    | table             | 1+n+NUL   | length-prefixed, NUL-terminated                       |
    | column_count      | packed    |                                                       |
    | column_types      | n         | one MySQL type byte per column                        |
    | metadata          | packed+n  | per-type metadata block                               |
    | null_bitmap       | (n+7)/8   | nullable columns                                      |
    | optional_metadata | rest      | 8.0 TLV block (signedness, names, …), kept as bytes   |
    """

    table_id: int
    flags: int
    database: str
    table: str
    column_types: bytes
    metadata: bytes
    null_bitmap: bytes
    optional_metadata: bytes = b""

    @property
    def column_count(self) -> int:
        """Number of columns."""
        return len(self.column_types)

    def nullable(self, column: int) -> bool:
        """Whether column ``column`` (0-based) may be NULL (bit ``column`` of the null bitmap)."""
        return bool(self.null_bitmap[column // 8] >> (column % 8) & 1)

    def column_metadata(self) -> tuple[bytes, ...]:
        """The metadata block split per column (empty ``bytes`` for types without metadata).

        Widths by type follow ``Table_map_log_event::save_field_metadata`` (:data:`METADATA_WIDTHS`).

        Raises:
            CursorError: a column type whose metadata width is unknown, or a block of the wrong length.
        """
        out = []
        at = 0
        for t in self.column_types:
            width = METADATA_WIDTHS.get(t)
            if width is None:
                raise CursorError(f"Table_map: no metadata width known for column type {t}")
            out.append(self.metadata[at : at + width])
            at += width
        if at != len(self.metadata):
            raise CursorError(
                f"Table_map: metadata block is {len(self.metadata)} bytes, column types need {at}"
            )
        return tuple(out)

    def optional_metadata_fields(self) -> tuple[tuple[int, bytes], ...]:
        """The 8.0 optional metadata as ``(type, value)`` pairs (``enum_optional_metadata_field_type``:
        1 SIGNEDNESS, 2 DEFAULT_CHARSET, 3 COLUMN_CHARSET, 4 COLUMN_NAME, 5 SET_STR_VALUE, 6 ENUM_STR_VALUE,
        7 GEOMETRY_TYPE, 8 SIMPLE_PRIMARY_KEY, 9 PRIMARY_KEY_WITH_PREFIX, 10 ENUM_AND_SET_DEFAULT_CHARSET,
        11 ENUM_AND_SET_COLUMN_CHARSET, 12 COLUMN_VISIBILITY, 13 VECTOR_DIMENSIONALITY).

        Each field is ``type (u8) length (packed int) value``.

        Raises:
            CursorError: a field runs past the block.
        """
        c = Cursor(self.optional_metadata)
        fields = []
        while c.remaining:
            t = c.u8()
            fields.append((t, c.bytes(c.packed_int())))
        return tuple(fields)

    def column_names(self) -> tuple[str, ...] | None:
        """Column names from the COLUMN_NAME optional field (binlog_row_metadata=FULL), else ``None``."""
        for t, value in self.optional_metadata_fields():
            if t == 4:
                c = Cursor(value)
                names = []
                while c.remaining:
                    names.append(c.bytes(c.packed_int()).decode(*_ENC))
                return tuple(names)
        return None

    @classmethod
    def decode(cls, body: Cursor, fde: FormatDescriptionEvent) -> Self:
        """Decode every field; raises :class:`CursorError` on truncation or a missing NUL."""
        post = fde.post_header_len(EventType.TABLE_MAP_EVENT)
        table_id = _table_id(body, post)
        flags = body.u16()
        database = body.bytes(body.u8())
        if body.u8() != 0:
            raise CursorError("Table_map: database name is not NUL-terminated")
        table = body.bytes(body.u8())
        if body.u8() != 0:
            raise CursorError("Table_map: table name is not NUL-terminated")
        n = body.packed_int()
        column_types = body.bytes(n)
        metadata = body.bytes(body.packed_int())
        null_bitmap = body.bytes((n + 7) // 8)
        return cls(
            table_id,
            flags,
            database.decode(*_ENC),
            table.decode(*_ENC),
            column_types,
            metadata,
            null_bitmap,
            body.rest(),
        )

    def encode(self, out: Writer, fde: FormatDescriptionEvent) -> None:
        """Mirror of :meth:`decode`."""
        post = fde.post_header_len(EventType.TABLE_MAP_EVENT)
        try:  # packed at once; a field out of range is written field by field below, which raises its error
            db = self.database.encode(*_ENC)
            table = self.table.encode(*_ENC)
            n = len(self.column_types)
            if len(self.null_bitmap) == (n + 7) // 8 and len(db) < 256 and len(table) < 256:
                out.bytes(
                    b"".join(
                        (
                            self.table_id.to_bytes(4 if post == OLD_TABLE_ID_LEN + 2 else 6, "little"),
                            self.flags.to_bytes(2, "little"),
                            _ONE_BYTE[len(db)],
                            db,
                            b"\0",
                            _ONE_BYTE[len(table)],
                            table,
                            b"\0",
                            packed_int_bytes(n),
                            self.column_types,
                            packed_int_bytes(len(self.metadata)),
                            self.metadata,
                            self.null_bitmap,
                            self.optional_metadata,
                        )
                    )
                )
                return
        except (OverflowError, ValueError):
            pass
        _put_table_id(out, post, self.table_id)
        out.u16(self.flags)
        for name in (self.database, self.table):
            raw = name.encode(*_ENC)
            out.u8(len(raw))
            out.bytes(raw)
            out.u8(0)
        out.packed_int(len(self.column_types))
        out.bytes(self.column_types)
        out.packed_int(len(self.metadata))
        out.bytes(self.metadata)
        if len(self.null_bitmap) != (len(self.column_types) + 7) // 8:
            raise ValueError("null_bitmap length does not match the column count")
        out.bytes(self.null_bitmap)
        out.bytes(self.optional_metadata)


#: Metadata bytes per column type (``enum_field_types`` → width), from ``save_field_metadata`` in MySQL's
#: ``sql/field.cc``: FLOAT/DOUBLE/BLOBs/JSON/GEOMETRY/TIMESTAMP2/DATETIME2/TIME2/VECTOR store one byte;
#: VARCHAR/BIT/NEWDECIMAL/ENUM/SET/VAR_STRING/STRING two; the rest none.
METADATA_WIDTHS: dict[int, int] = {
    **{t: 0 for t in (0, 1, 2, 3, 6, 7, 8, 9, 10, 11, 12, 13, 14)},
    4: 1,  # FLOAT
    5: 1,  # DOUBLE
    15: 2,  # VARCHAR
    16: 2,  # BIT
    17: 1,  # TIMESTAMP2
    18: 1,  # DATETIME2
    19: 1,  # TIME2
    242: 1,  # VECTOR (9.0)
    245: 1,  # JSON
    246: 2,  # NEWDECIMAL
    247: 2,  # ENUM
    248: 2,  # SET
    249: 1,  # TINY_BLOB
    250: 1,  # MEDIUM_BLOB
    251: 1,  # LONG_BLOB
    252: 1,  # BLOB
    253: 2,  # VAR_STRING
    254: 2,  # STRING
    255: 1,  # GEOMETRY
}

#: Rows event types whose body carries two column bitmaps (before and after image).
_UPDATE_TYPES = frozenset(
    {EventType.UPDATE_ROWS_EVENT_V1, EventType.UPDATE_ROWS_EVENT, EventType.PARTIAL_UPDATE_ROWS_EVENT}
)
#: Rows event type codes handled by :class:`RowsEvent`.
ROWS_EVENT_TYPES = frozenset(
    {
        EventType.WRITE_ROWS_EVENT_V1,
        EventType.UPDATE_ROWS_EVENT_V1,
        EventType.DELETE_ROWS_EVENT_V1,
        EventType.WRITE_ROWS_EVENT,
        EventType.UPDATE_ROWS_EVENT,
        EventType.DELETE_ROWS_EVENT,
        EventType.PARTIAL_UPDATE_ROWS_EVENT,
    }
)
#: Rows event flag ``STMT_END_F``: last rows event of the statement.
STMT_END_F = 0x0001


@dataclass(frozen=True, slots=True)
class RowsEvent:
    """WRITE/UPDATE/DELETE_ROWS v1 (23-25), v2 (30-32) and PARTIAL_UPDATE_ROWS (39).

    | field          | size            | meaning                                            |
    |----------------|-----------------|----------------------------------------------------|
    | table_id       | 6 (4)           | post-header                                        |
    | flags          | 2               | post-header (STMT_END_F = 1, …)                    |
    | extra_len      | 2               | v2 only (post-header 10): includes these 2 bytes   |
    | extra          | extra_len − 2   | v2 only, kept as bytes                             |
    | column_count   | packed          |                                                    |
    | columns_before | (n+7)/8         | columns present in the (before) image              |
    | columns_after  | (n+7)/8         | update types only                                  |
    | body           | rest            | row images, opaque                                 |

    Args:
        type_code: which rows event (23-25, 30-32, 39).
    """

    type_code: int
    table_id: int
    flags: int
    extra: bytes | None
    column_count: int
    columns_before: bytes
    columns_after: bytes | None
    body: bytes

    @classmethod
    def decode_typed(cls, type_code: int, body: Cursor, fde: FormatDescriptionEvent) -> Self:
        """Decode a rows event of ``type_code``; v2 extra data present when the post-header is 10 bytes."""
        post = fde.post_header_len(type_code)
        table_id = _table_id(body, post)
        flags = body.u16()
        extra = None
        if post == TABLE_ID_LEN + 2 + 2:
            extra_len = body.u16()
            if extra_len < 2:
                raise CursorError(f"rows event extra data length {extra_len} < 2")
            extra = body.bytes(extra_len - 2)
        n = body.packed_int()
        nbytes = (n + 7) // 8
        before = body.bytes(nbytes)
        after = body.bytes(nbytes) if type_code in _UPDATE_TYPES else None
        return cls(type_code, table_id, flags, extra, n, before, after, body.rest())

    def encode(self, out: Writer, fde: FormatDescriptionEvent) -> None:
        """Mirror of :meth:`decode_typed`."""
        post = fde.post_header_len(self.type_code)
        if (
            post == TABLE_ID_LEN + 2 + 2
        ):  # v2, packed at once; a field out of range takes the checked path below
            extra = self.extra or b""
            try:
                out.bytes(
                    b"".join(
                        (
                            self.table_id.to_bytes(TABLE_ID_LEN, "little"),
                            self.flags.to_bytes(2, "little"),
                            (len(extra) + 2).to_bytes(2, "little"),
                            extra,
                            packed_int_bytes(self.column_count),
                            self.columns_before,
                            (self.columns_after or b"") if self.type_code in _UPDATE_TYPES else b"",
                            self.body,
                        )
                    )
                )
                return
            except (OverflowError, ValueError):
                pass
        _put_table_id(out, post, self.table_id)
        out.u16(self.flags)
        if post == TABLE_ID_LEN + 2 + 2:
            extra = self.extra or b""
            out.u16(len(extra) + 2)
            out.bytes(extra)
        elif self.extra is not None:
            raise ValueError("this FDE's rows layout (v1) has no extra data")
        out.packed_int(self.column_count)
        out.bytes(self.columns_before)
        if self.type_code in _UPDATE_TYPES:
            out.bytes(self.columns_after or b"")
        out.bytes(self.body)


@dataclass(frozen=True, slots=True)
class RowsQueryEvent:
    """ROWS_QUERY_LOG_EVENT (29): the text of the statement whose Table_map and rows events follow, written with
    ``binlog_rows_query_log_events=ON`` before the statement's first Table_map; informational (IGNORABLE flag),
    a replica applies nothing from it (``libs/mysql/binlog/event/rows_event.h`` ``Rows_query_event``).

    | field  | size | meaning                                                                        |
    |--------|------|--------------------------------------------------------------------------------|
    | length | 1    | the text's byte length truncated to 8 bits (``write_str_at_most_255_bytes``); |
    |        |      | readers ignore it and take the rest of the body                               |
    | query  | rest | the statement text                                                             |
    """

    query: str

    @classmethod
    def decode(cls, body: Cursor, fde: FormatDescriptionEvent) -> Self:
        """Skip the length byte and read the text to the end of the body.

        Raises:
            CursorError: an empty body.
        """
        body.u8()
        return cls(body.rest().decode(*_ENC))

    def encode(self, out: Writer, fde: FormatDescriptionEvent) -> None:
        """Write the length byte (mod 256) and the whole text."""
        raw = self.query.encode(*_ENC)
        out.u8(len(raw) & 0xFF)
        out.bytes(raw)
