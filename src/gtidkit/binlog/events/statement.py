"""Statement events: Query, Intvar, Rand, User_var.

MySQL source: ``libs/mysql/binlog/event/statement_events.h`` / ``.cpp`` (``Query_event``, ``Intvar_event``,
``Rand_event``, ``User_var_event``); formats.md §1.7. Text fields are kept as ``str`` decoded with
``surrogateescape``, so bytes in any character set survive decode → encode unchanged.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gtidkit.binlog.constants import EventType
from gtidkit.binlog.cursor import Cursor, CursorError, Writer

if TYPE_CHECKING:
    from typing_extensions import Self

    from gtidkit.binlog.events.control import FormatDescriptionEvent

#: ``QUERY_HEADER_LEN``: thread_id(4) + exec_time(4) + db_len(1) + error_code(2) + status_vars_len(2).
QUERY_POST_HEADER_LEN = 4 + 4 + 1 + 2 + 2
#: ``QUERY_HEADER_MINIMAL_LEN`` (binlog v1/v3: no status vars).
QUERY_POST_HEADER_MINIMAL_LEN = 4 + 4 + 1 + 2

_ENC = ("utf-8", "surrogateescape")
#: Query post-header: thread_id, exec_time, db_len, error_code, status_vars_len
_QUERY_HEAD = struct.Struct("<IIBHH")


def _text(raw: bytes) -> str:
    return raw.decode(*_ENC)


def _raw(text: str) -> bytes:
    return text.encode(*_ENC)


@dataclass(frozen=True, slots=True)
class QueryEvent:
    """QUERY_EVENT (2): a statement (BEGIN, COMMIT, DDL, statement-based DML).

    | field            | size | meaning                                      |
    |------------------|------|----------------------------------------------|
    | thread_id        | 4    | pseudo thread id of the session              |
    | exec_time        | 4    | seconds the statement ran                    |
    | db_len           | 1    | length of ``database``                       |
    | error_code       | 2    | error the statement raised on the source     |
    | status_vars_len  | 2    | length of ``status_vars`` (post-header 13)   |
    | status_vars      | n    | kept as raw bytes                            |
    | database         | db_len + NUL | default database                     |
    | query            | rest | statement text                               |

    Args:
        thread_id, exec_time, error_code: as in the table.
        status_vars: raw status variable block.
        database: default database (``""`` when none).
        query: the statement text.
    """

    thread_id: int
    exec_time: int
    error_code: int
    status_vars: bytes
    database: str
    query: str

    @classmethod
    def decode(cls, body: Cursor, fde: FormatDescriptionEvent) -> Self:
        """Decode; the post-header length (13 or 11) comes from ``fde``.

        Raises:
            CursorError: truncated body or a missing NUL after the database name.
        """
        post = fde.post_header_len(EventType.QUERY_EVENT)
        thread_id = body.u32()
        exec_time = body.u32()
        db_len = body.u8()
        error_code = body.u16()
        status_vars = b""
        if post >= QUERY_POST_HEADER_LEN:
            status_vars = body.bytes(body.u16())
            if post > QUERY_POST_HEADER_LEN:
                raise CursorError(f"Query post-header length {post} is not supported")
        database = body.bytes(db_len)
        if body.u8() != 0:
            raise CursorError("Query event: database name is not NUL-terminated")
        return cls(thread_id, exec_time, error_code, status_vars, _text(database), _text(body.rest()))

    def encode(self, out: Writer, fde: FormatDescriptionEvent) -> None:
        """Mirror of :meth:`decode`."""
        db = _raw(self.database)
        if fde.post_header_len(EventType.QUERY_EVENT) >= QUERY_POST_HEADER_LEN:
            try:  # packed at once; a field out of range is written field by field below, which raises its error
                head = _QUERY_HEAD.pack(
                    self.thread_id, self.exec_time, len(db), self.error_code, len(self.status_vars)
                )
            except struct.error:
                pass
            else:
                out.bytes(b"".join((head, self.status_vars, db, b"\0", _raw(self.query))))
                return
        out.u32(self.thread_id)
        out.u32(self.exec_time)
        out.u8(len(db))
        out.u16(self.error_code)
        if fde.post_header_len(EventType.QUERY_EVENT) >= QUERY_POST_HEADER_LEN:
            out.u16(len(self.status_vars))
            out.bytes(self.status_vars)
        elif self.status_vars:
            raise ValueError("this FDE's Query layout has no status variables")
        out.bytes(db)
        out.u8(0)
        out.bytes(_raw(self.query))

    @property
    def kind(self) -> str:
        """``"BEGIN"``, ``"COMMIT"``, ``"ROLLBACK"``, ``"XA"`` or ``"STATEMENT"`` (see :func:`query_kind`)."""
        return query_kind(self.query)


def query_kind(query: str) -> str:
    """Classify a Query event's text as MySQL's ``Trx_boundary_parser`` does.

    ``BEGIN`` / ``XA START`` open a transaction; ``COMMIT`` / ``XA COMMIT``/``XA ROLLBACK`` and ``ROLLBACK``
    end one (``ROLLBACK TO`` savepoint statements are ordinary statements); anything else is a statement.
    Returns one of ``"BEGIN"``, ``"COMMIT"``, ``"ROLLBACK"``, ``"STATEMENT"``.
    """
    head = query[:24].lstrip().upper()
    if head.startswith(("BEGIN", "XA START")):
        return "BEGIN"
    if head.startswith(("COMMIT", "XA COMMIT", "XA ROLLBACK")):
        return "COMMIT"
    if head.startswith("ROLLBACK") and not head[8:].lstrip().startswith("TO"):
        return "ROLLBACK"
    return "STATEMENT"


@dataclass(frozen=True, slots=True)
class IntvarEvent:
    """INTVAR_EVENT (5): LAST_INSERT_ID (1) or INSERT_ID (2) for the next statement.

    Body: type | 1 | :class:`~gtidkit.binlog.constants.IntvarType`; value | 8 | u64.
    """

    type: int
    value: int

    @classmethod
    def decode(cls, body: Cursor, fde: FormatDescriptionEvent) -> Self:
        """Read type and value."""
        return cls(body.u8(), body.u64())

    def encode(self, out: Writer, fde: FormatDescriptionEvent) -> None:
        """Write type and value."""
        out.u8(self.type)
        out.u64(self.value)


@dataclass(frozen=True, slots=True)
class RandEvent:
    """RAND_EVENT (13): the two RAND() seeds for the next statement. Body: seed1 | 8; seed2 | 8."""

    seed1: int
    seed2: int

    @classmethod
    def decode(cls, body: Cursor, fde: FormatDescriptionEvent) -> Self:
        """Read the seeds."""
        return cls(body.u64(), body.u64())

    def encode(self, out: Writer, fde: FormatDescriptionEvent) -> None:
        """Write the seeds."""
        out.u64(self.seed1)
        out.u64(self.seed2)


@dataclass(frozen=True, slots=True)
class UserVarEvent:
    """USER_VAR_EVENT (14): a user variable the next statement reads.

    | field     | size | meaning                                                   |
    |-----------|------|-----------------------------------------------------------|
    | name_len  | 4    |                                                           |
    | name      | n    |                                                           |
    | is_null   | 1    | 1 ⇒ nothing follows                                       |
    | type      | 1    | Item_result (STRING 0, REAL 1, INT 2, ROW 3, DECIMAL 4)  |
    | charset   | 4    | collation number                                          |
    | value_len | 4    |                                                           |
    | value     | n    | raw value                                                 |
    | flags     | 1    | optional (5.6+: UNSIGNED_F = 1)                            |
    """

    name: str
    is_null: bool
    value_type: int = 0
    charset: int = 0
    value: bytes = b""
    flags: int | None = None

    @classmethod
    def decode(cls, body: Cursor, fde: FormatDescriptionEvent) -> Self:
        """Read the variable."""
        name = _text(body.bytes(body.u32()))
        is_null = body.u8()
        if is_null:
            return cls(name, True)
        value_type = body.u8()
        charset = body.u32()
        value = body.bytes(body.u32())
        flags = body.u8() if body.remaining else None
        return cls(name, False, value_type, charset, value, flags)

    def encode(self, out: Writer, fde: FormatDescriptionEvent) -> None:
        """Write the variable."""
        name = _raw(self.name)
        out.u32(len(name))
        out.bytes(name)
        out.u8(1 if self.is_null else 0)
        if self.is_null:
            return
        out.u8(self.value_type)
        out.u32(self.charset)
        out.u32(len(self.value))
        out.bytes(self.value)
        if self.flags is not None:
            out.u8(self.flags)
