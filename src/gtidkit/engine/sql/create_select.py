"""CREATE [TEMPORARY] TABLE ... SELECT: the table's columns from the SELECT's result, its rows inserted at once.

Sources: RM8 "CREATE TABLE ... SELECT Statement" (a column for each item of the SELECT, after the explicitly defined
ones, a same-named explicit definition wins; the AUTO_INCREMENT attribute and indexes are not copied; NULL / NOT
NULL, character set, collation and DEFAULT are), WL#13355 / 8.0.21 release notes (atomic with an InnoDB target,
and allowed with ``enforce_gtid_consistency``: with ROW format it is logged as one transaction, ``BEGIN``, the
table's definition as ``CREATE TABLE ... START TRANSACTION``, the rows events, ``COMMIT``; one GTID).

Column types: an item that reads a table column copies that column's definition; any other item takes the type
of its result-set metadata (:mod:`gtidkit.engine.sql.metadata`), as MySQL derives a field from the item's type.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from gtidkit.engine.results import ColumnFlag, FieldType
from gtidkit.engine.sql.catalog import ColumnDef, TableDef
from gtidkit.engine.sql.exec_result import ExecResult
from gtidkit.mysql_errors import mysql_error

if TYPE_CHECKING:
    from gtidkit.engine.results import Column
    from gtidkit.engine.sql.executor import Executor

__all__ = ["START_TRANSACTION", "binlog_text", "column_from_metadata", "run", "select_text"]

#: The clause the binlog's form of a CREATE TABLE ... SELECT ends with (``CREATE TABLE `t` (...) START TRANSACTION``).
START_TRANSACTION = re.compile(r"\)\s*START\s+TRANSACTION\s*;?\s*$", re.IGNORECASE)
_SELECT_START = re.compile(
    r"'(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.|\"\")*\"|`(?:[^`]|``)*`|\b(?P<kw>SELECT|WITH|TABLE\s+(?!`?\w+`?\s*\())\b",
    re.IGNORECASE | re.DOTALL,
)
#: integer result types -> MySQL base type name
_INTS = {
    FieldType.MYSQL_TYPE_TINY: "tinyint",
    FieldType.MYSQL_TYPE_SHORT: "smallint",
    FieldType.MYSQL_TYPE_INT24: "mediumint",
    FieldType.MYSQL_TYPE_LONG: "int",
    FieldType.MYSQL_TYPE_LONGLONG: "bigint",
}
_BINARY = 63
#: collation id -> (charset, collation, bytes per character) for result strings
_CHARSETS = {255: ("utf8mb4", "utf8mb4_0900_ai_ci", 4), 33: ("utf8mb3", "utf8mb3_general_ci", 3)}


def select_text(text: str) -> str:
    """The SELECT part of a ``CREATE TABLE ... [AS] SELECT`` statement text, as written.

    Raises:
        MySQLError: 1064 when there is none.
    """
    for m in _SELECT_START.finditer(text):
        # TABLE t (a TABLE statement) is the one SELECT form not detected: CREATE TABLE's own TABLE keyword
        if m.group("kw") and not re.match(r"TABLE\b", m.group("kw"), re.IGNORECASE):
            return text[m.start() :].strip().rstrip(";")
    raise mysql_error(1064, "You have an error in your SQL syntax", text[-80:], 1)


def column_from_metadata(name: str, col: Column) -> ColumnDef:
    """The column MySQL creates for a result-set item of metadata ``col`` (``create_table_from_items``)."""
    t = FieldType(col.type)
    nullable = not col.flags & ColumnFlag.NOT_NULL
    unsigned = bool(col.flags & ColumnFlag.UNSIGNED)
    base: dict[str, Any] = {"name": name, "nullable": nullable, "has_default": nullable}
    if t in _INTS:
        return ColumnDef(type=_INTS[t], unsigned=unsigned, **base)
    if t in (FieldType.MYSQL_TYPE_NEWDECIMAL, FieldType.MYSQL_TYPE_DECIMAL):
        scale = int(col.decimals)
        precision = int(col.length) - (1 if scale else 0) - (0 if unsigned else 1)
        return ColumnDef(type="decimal", precision=max(precision, 1), scale=scale, unsigned=unsigned, **base)
    if t == FieldType.MYSQL_TYPE_FLOAT:
        return ColumnDef(type="float", **base)
    if t == FieldType.MYSQL_TYPE_DOUBLE:
        return ColumnDef(type="double", **base)
    if t in (FieldType.MYSQL_TYPE_DATE, FieldType.MYSQL_TYPE_NEWDATE):
        return ColumnDef(type="date", **base)
    if t in (FieldType.MYSQL_TYPE_DATETIME, FieldType.MYSQL_TYPE_DATETIME2):
        return ColumnDef(type="datetime", scale=_fsp(col), **base)
    if t in (FieldType.MYSQL_TYPE_TIMESTAMP, FieldType.MYSQL_TYPE_TIMESTAMP2):
        return ColumnDef(type="timestamp", scale=_fsp(col), **base)
    if t in (FieldType.MYSQL_TYPE_TIME, FieldType.MYSQL_TYPE_TIME2):
        return ColumnDef(type="time", scale=_fsp(col), **base)
    if t == FieldType.MYSQL_TYPE_YEAR:
        return ColumnDef(type="year", length=4, **base)
    if t == FieldType.MYSQL_TYPE_NULL:
        return ColumnDef(type="binary", length=0, **base)  # SELECT NULL creates binary(0)
    if t == FieldType.MYSQL_TYPE_JSON:
        return ColumnDef(type="json", **base)  # a JSON function's result makes a JSON column (Item_json_func)
    binary = int(col.charset) == _BINARY
    charset, collation, width = _CHARSETS.get(int(col.charset), ("utf8mb4", "utf8mb4_0900_ai_ci", 4))
    chars = int(col.length) if binary else int(col.length) // width
    text_cs = {} if binary else {"charset": None, "collation": None}
    if (
        t
        in (
            FieldType.MYSQL_TYPE_BLOB,
            FieldType.MYSQL_TYPE_TINY_BLOB,
            FieldType.MYSQL_TYPE_MEDIUM_BLOB,
            FieldType.MYSQL_TYPE_LONG_BLOB,
        )
        or chars > 16383
    ):
        if binary:
            kind = "blob" if chars <= 65535 else "longblob"
        else:
            kind = "text" if chars <= 16383 else "longtext"
        return ColumnDef(type=kind, **base, **text_cs)
    if t == FieldType.MYSQL_TYPE_STRING:
        return ColumnDef(type="binary" if binary else "char", length=chars, **base, **text_cs)
    del charset, collation
    return ColumnDef(type="varbinary" if binary else "varchar", length=chars, **base, **text_cs)


def _fsp(col: Column) -> int | None:
    return int(col.decimals) if 0 < int(col.decimals) <= 6 else None


def _source_column(ex: Executor, col: Column) -> ColumnDef | None:
    """The definition of the table column a result item reads directly (None for an expression)."""
    if not col.org_table or not col.org_name or not col.schema:
        return None
    t = ex.get_table(col.schema, col.org_table)
    if t is None:
        return None
    return t.column(col.org_name)


def run(ex: Executor, tree: exp.Create, text: str, current_db: str | None, *, temporary: bool) -> ExecResult:
    """Run ``CREATE [TEMPORARY] TABLE [IF NOT EXISTS] t [(defs)] [AS] SELECT ...`` (``text`` as written).

    Returns the INSERT's result (row changes for the binlog) with ``binlog_ddl`` set to the definition MySQL logs
    (``CREATE TABLE `t` (...) START TRANSACTION``).

    Raises:
        MySQLError: what the SELECT, the table creation or the inserts fail with (the whole statement is undone:
            it runs atomically); 1050 when the table exists (a note with IF NOT EXISTS, and no rows inserted).
    """
    from gtidkit.engine.sql import temporary as temp
    from gtidkit.engine.sql.ddl import parse_create_table
    from gtidkit.engine.sql.metadata import result_columns

    query = select_text(text)
    probe = ex.execute_select(query, current_db)
    metadata = result_columns(probe.columns, probe.rows, probe.metadata)
    columns = []
    for name, meta in zip(probe.columns, metadata):
        src = _source_column(ex, meta)
        if src is not None:
            col = replace(src, name=name, auto_increment=False)
            if col.nullable and not col.has_default:
                col = replace(col, has_default=True, default=None)
        else:
            col = column_from_metadata(name, meta)
        columns.append(col)
    tdef, if_not_exists = parse_create_table(
        tree,
        current_db,
        temporary=temporary,
        select_columns=tuple(columns),
        schema_charset=ex.schema_charset,
    )
    exists = (
        ex.temp_tables.get((tdef.schema, tdef.name))
        if temporary
        else ex.storage.catalog.get_table(tdef.schema, tdef.name)
    )
    if exists is not None:
        if if_not_exists:
            return ExecResult(warnings=[("Note", 1050, f"Table '{tdef.name}' already exists")])
        raise mysql_error(1050, tdef.name)
    if temporary:
        ex.temp_used = True
        temp.create(ex, tdef, if_not_exists=False)
    else:
        ex.storage.catalog.create_table(ex.conn, tdef)
    names = ", ".join("`" + n.replace("`", "``") + "`" for n in probe.columns)
    target = "`" + tdef.schema.replace("`", "``") + "`.`" + tdef.name.replace("`", "``") + "`"
    res = ex.execute_dml(f"INSERT INTO {target} ({names}) {query}", current_db)
    res.info = f"Records: {res.affected_rows}  Duplicates: 0  Warnings: {len(res.warnings)}"
    res.binlog_ddl = binlog_text(tdef)
    return res


def binlog_text(t: TableDef) -> str:
    """How MySQL 8.0.21+ logs the definition of a table created by CREATE TABLE ... SELECT in ROW format."""
    from gtidkit.engine.sql.show import show_create_table

    head, _sep, _options = show_create_table(t).rpartition("\n)")
    return head + "\n) START TRANSACTION"
