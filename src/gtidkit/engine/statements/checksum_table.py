"""CHECKSUM TABLE tbl [, tbl] ... [QUICK | EXTENDED]: MySQL's live checksum of each table's rows.

Source: ``sql/sql_table.cc`` ``mysql_checksum_table`` (8.0): one row (``Table`` = ``db.name`` as written,
``Checksum`` BIGINT) per table; a table that cannot be opened gives NULL and its error becomes a warning
(binlog_gtid_next_partially_failed_stmts.result: ``test.t_non_existent NULL`` with ``Error 1146``). InnoDB keeps no
live checksum, so QUICK answers NULL and otherwise every row is read: the row's CRC-32 (zlib's) starts over the
record's null-bit bytes (the unused high bits of the last byte set, and bit 0 of the first byte too unless the
table packs its records: any VARCHAR / BLOB / TEXT / JSON column), then goes over each field in column order:
VARCHAR, BLOB, TEXT and JSON by their value's bytes, every other type by its bytes in the record (the fixed-size
form binlog row images also use; CHAR padded with spaces to its byte length). A NULL field contributes the bytes
InnoDB leaves in the record, its default value's. The table's checksum is the 32-bit sum of the row CRCs (mysql-test
``merge_myisam.result``: the INT rows 1, 2, 3, 4, 4 sum to 46622073).

CHECKSUM TABLE writes nothing: it is not logged, consumes no GTID (the same .result: "Does not generate
MASTER_UUID:10") and does not commit the open transaction (mysql-test ``implicit_commit.result``: SQLCOM_CHECKSUM
"NO").
"""

from __future__ import annotations

import dataclasses
import re
import zlib
from typing import TYPE_CHECKING, Any

from gtidkit.binlog.cursor import Writer
from gtidkit.binlog.row_image import encode_value
from gtidkit.engine.results import Condition, StatementResult
from gtidkit.engine.sql.rowimage import column_spec
from gtidkit.engine.sql.values import from_sqlite
from gtidkit.engine.statements.maintenance import table_names
from gtidkit.mysql_errors import mysql_error

if TYPE_CHECKING:
    from gtidkit.engine.session import Session
    from gtidkit.engine.sql.catalog import ColumnDef, TableDef
    from gtidkit.engine.statements.classify import Statement

__all__ = ["COLUMNS", "check_checksum_table", "run_checksum_table", "table_checksum"]

#: the result-set columns (``Item_empty_string("Table")``, ``Item_int("Checksum")``)
COLUMNS = ("Table", "Checksum")
#: types whose field goes into the CRC as its value's bytes (``f->val_str``), not its record bytes
_BY_VALUE = frozenset({"varchar", "varbinary", "tinytext", "text", "mediumtext", "longtext"})
_BY_VALUE_FAMILIES = frozenset({"json"})
_BLOBS = frozenset({"tinyblob", "blob", "mediumblob", "longblob"})
#: bytes per character of a CHAR column's character set (``mbmaxlen``)
_MBMAXLEN = {"utf8mb4": 4, "utf8mb3": 3, "utf8": 3, "latin1": 1, "ascii": 1, "binary": 1}
_QUICK = re.compile(r"\bQUICK\s*$", re.IGNORECASE)


def _value_bytes(col: ColumnDef, v: Any) -> bytes:
    if isinstance(v, bytes):
        return v
    return str(v).encode("utf-8", "surrogateescape")


def _packs_record(t: TableDef) -> bool:
    """``HA_OPTION_PACK_RECORD`` (``mysql_prepare_create_table``): a BLOB-like or VARCHAR column."""
    return any(
        c.type in _BY_VALUE or c.type in _BLOBS or c.info.family in _BY_VALUE_FAMILIES for c in t.columns
    )


def _field_bytes(col: ColumnDef, v: Any, default_charset: str) -> bytes:
    """The bytes of one field as the CRC sees them (see the module docstring)."""
    if col.type in _BY_VALUE or col.type in _BLOBS or col.info.family in _BY_VALUE_FAMILIES:
        return b"" if v is None else _value_bytes(col, v)
    if col.type == "char":
        width = (col.length or 1) * _MBMAXLEN.get(str(col.charset or default_charset).lower(), 4)
        return (b"" if v is None else _value_bytes(col, v)).ljust(width, b" ")
    if col.type == "binary":
        return (b"" if v is None else _value_bytes(col, v)).ljust(col.length or 1, b"\0")
    if v is None:  # NULL: InnoDB copies the default value's bytes into the record
        v = col.default if col.has_default and col.default is not None and not col.default_expr else None
        if v is None:
            v = (
                0
                if col.info.family in ("int", "float", "decimal", "year")
                else _ZERO_TEMPORAL.get(col.type, 0)
            )
    if col.info.family == "decimal":
        v = from_sqlite(col, v)
    w = Writer()
    encode_value(w, column_spec(col), v)
    return w.getvalue()


#: what an all-zero record field of a temporal type reads as
_ZERO_TEMPORAL = {
    "date": "0000-00-00",
    "datetime": "0000-00-00 00:00:00",
    "timestamp": "0000-00-00 00:00:00",
    "time": "00:00:00",
}


def table_checksum(t: TableDef, rows: list[tuple[Any, ...]], default_charset: str = "utf8mb4") -> int:
    """MySQL's CHECKSUM TABLE value of ``rows`` (storage form, columns in table order) of table ``t``.

    Raises:
        ValueError: a column type no record layout is known for here.
    """
    packed = _packs_record(t)
    nullable = [c.nullable for c in t.columns]
    first_bit = 0 if packed else 1
    null_fields = first_bit + sum(nullable)
    null_bytes = (null_fields + 7) // 8
    last_bit_pos = null_fields % 8
    null_mask = (256 - (1 << last_bit_pos)) & 0xFF
    total = 0
    for row in rows:
        crc = 0
        if null_bytes:
            bits = bytearray(null_bytes)
            pos = first_bit
            for col, v in zip(t.columns, row):
                if not col.nullable:
                    continue
                if v is None:
                    bits[pos // 8] |= 1 << (pos % 8)
                pos += 1
            bits[-1] |= null_mask
            if not packed:
                bits[0] |= 1
            crc = zlib.crc32(bytes(bits))
        for col, v in zip(t.columns, row):
            crc = zlib.crc32(_field_bytes(col, v, default_charset), crc)
        total = (total + crc) & 0xFFFFFFFF
    return total


def check_checksum_table(session: Session, stmt: Statement) -> None:
    """The table list of a CHECKSUM TABLE statement parses (before anything happens).

    Raises:
        MySQLError: 1064 a malformed table list.
    """
    table_names(stmt.info["tables"])


def run_checksum_table(session: Session, stmt: Statement) -> StatementResult:
    """Run one CHECKSUM TABLE statement (classified as admin ``checksum_table`` with ``info["tables"]``).

    Raises:
        MySQLError: 1046 an unqualified name without a default database; 1064 a malformed table list.
    """
    from gtidkit.engine.sql.metadata import result_set

    text = stmt.info["tables"]
    quick = bool(_QUICK.search(text))
    tables = table_names(text)
    storage = session.server.storage
    rows: list[tuple[Any, ...]] = []
    warnings: list[Condition] = []
    for schema, name in tables:
        db = schema if schema is not None else session.current_db
        if db is None:
            raise mysql_error(1046)
        t = session.executor.get_table(db, name)
        if t is None:
            err = mysql_error(1146, db, name)
            warnings.append(Condition("Error", err.code, err.message))
            rows.append((f"{db}.{name}", None))
            continue
        if quick:
            rows.append((f"{db}.{name}", None))
            continue
        physical = storage.physical_name(t.schema, t.name)
        cur = storage.sqlite(session.conn).execute(f'SELECT * FROM "{physical}"')
        data = [tuple(r) for r in cur.fetchall()]
        try:
            value = table_checksum(t, data, t.charset)
        except ValueError as err:
            raise mysql_error(1235, f"CHECKSUM TABLE of this column type ({err})") from err
        rows.append((f"{db}.{name}", value))
    res = result_set(list(COLUMNS), rows)
    return dataclasses.replace(res, warnings=tuple(warnings)) if warnings else res
