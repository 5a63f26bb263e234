"""Catalog SHOW statements: SHOW DATABASES, SHOW TABLES, SHOW [FULL] COLUMNS / DESCRIBE, SHOW CREATE TABLE / VIEW,
SHOW INDEX — with MySQL 8.0's column names (manual "SHOW Statements"); and the SHOW CREATE TABLE text.

Each ``show_*`` function provides the rows of one SHOW command from the catalog, given the arguments
:mod:`gtidkit.engine.statements.classify` parsed (``info``); :mod:`gtidkit.engine.statements.show` is what maps a
parsed SHOW to it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from gtidkit.engine import charsets
from gtidkit.engine.sql.catalog import ColumnDef, TableDef
from gtidkit.engine.sql.ddl import not_supported
from gtidkit.mysql_errors import mysql_error

if TYPE_CHECKING:
    from gtidkit.engine.sql.exec_result import ExecResult
    from gtidkit.engine.sql.executor import Executor

__all__ = [
    "INDEX_COLUMNS",
    "VIEW_DEFINER",
    "show_columns",
    "show_create",
    "show_create_table",
    "show_create_view",
    "show_databases",
    "show_index",
    "show_tables",
]

_ID = r"(`(?:[^`]|``)+`|[A-Za-z0-9_$]+)"


def _default_literal(c: ColumnDef) -> str:
    """A column default as SHOW CREATE TABLE writes it: quoted text (a DECIMAL with the column's scale), a BIT
    default as ``b'101'``, a YEAR in four digits (``Field::val_str``)."""
    if c.info.family == "bit":
        return f"b'{int(c.default):b}'"
    if c.info.family == "year":
        return f"'{int(c.default):04d}'"
    return f"'{c.default}'"


def _unid(s: str | None) -> str | None:
    if s is None:
        return None
    return s[1:-1].replace("``", "`") if s.startswith("`") else s


def _like(pattern: str | None):
    if pattern is None:
        return lambda s: True
    from gtidkit.engine.sql.parse import unquote_string

    p = unquote_string(pattern)
    # MySQL's LIKE: % and _ are wildcards, a backslash makes the next character ordinary (engine/sql/like.py)
    rx = "".join(
        re.escape(tok[1]) if len(tok) == 2 else ".*" if tok == "%" else "." if tok == "_" else re.escape(tok)
        for tok in re.findall(r"\\[\s\S]|[\s\S]", p)
    )
    return lambda s: re.fullmatch(rx, s, re.IGNORECASE | re.DOTALL) is not None


def _table_name(db: str | None, qualified: str) -> tuple[str | None, str]:
    m = re.fullmatch(rf"{_ID}(?:\.{_ID})?", qualified)
    if m is None:
        raise not_supported(f"SHOW ... {qualified}")
    if m.group(2):
        return _unid(m.group(1)), _unid(m.group(2))  # type: ignore[return-value]
    return db, _unid(m.group(1))  # type: ignore[return-value]


def _column_charset_clause(t: TableDef, c: ColumnDef) -> str:
    """`` CHARACTER SET cs [COLLATE coll]`` of a character column as SHOW CREATE TABLE prints it: the set when the
    column's collation is not the table's, the collation when it is not its set's default (``sql_show.cc``
    ``store_create_info``)."""
    if c.info.family != "string" or not (c.charset or c.collation):
        return ""
    cs = charsets.lookup(c.charset or str(c.collation).split("_")[0])
    coll = c.collation or cs.default_collation
    if coll == t.collation:
        return ""
    out = f" CHARACTER SET {cs.name}"
    if coll != cs.default_collation or (coll == "utf8mb4_0900_ai_ci" and t.charset != "utf8mb4"):
        out += f" COLLATE {coll}"
    return out


def show_create_table(t: TableDef) -> str:
    """``SHOW CREATE TABLE`` text in MySQL 8.0's layout (backquoted names, two-space indent)."""
    lines = []
    for c in t.columns:
        s = f"  `{c.name}` {c.column_type()}"
        s += _column_charset_clause(t, c)
        s += " NOT NULL" if not c.nullable else ""
        if c.srid is not None:
            s += f" /*!80003 SRID {c.srid} */"
        if c.auto_increment:
            s += " AUTO_INCREMENT"
        elif c.default_expr:
            s += f" DEFAULT {c.default_expr}"
        elif c.has_default:
            s += " DEFAULT NULL" if c.default is None else f" DEFAULT {_default_literal(c)}"
        if c.on_update:
            s += f" ON UPDATE {c.on_update}"
        if c.invisible:  # RM8 13.1.20.10: "SHOW CREATE TABLE displays invisible columns" with this comment
            s += " /*!80023 INVISIBLE */"
        if c.comment:
            s += " COMMENT '" + c.comment.replace("'", "''") + "'"
        lines.append(s)
    for ix in t.indexes:
        cols = ",".join(
            f"`{c}`" + (f"({ix.prefixes[k]})" if ix.prefixes and ix.prefixes[k] else "")
            for k, c in enumerate(ix.columns)
        )
        if ix.primary:
            lines.append(f"  PRIMARY KEY ({cols})")
        else:
            lines.append(f"  {'UNIQUE KEY' if ix.unique else 'KEY'} `{ix.name}` ({cols})")
    body = ",\n".join(lines)
    partitioning = f"\n/*!50100 {t.partitioning} */" if t.partitioning else ""
    return (
        f"CREATE TABLE `{t.name}` (\n{body}\n) ENGINE={t.engine} DEFAULT CHARSET={t.charset} "
        f"COLLATE={t.collation}{partitioning}"
    )


#: The definer shown for views (the engine has no accounts of its own: MySQL's default root account).
VIEW_DEFINER = "`root`@`localhost`"


def show_create_view(t: TableDef) -> tuple[str, str, str, str]:
    """The row of ``SHOW CREATE VIEW`` (View, Create View, character_set_client, collation_connection)."""
    text = (
        f"CREATE ALGORITHM=UNDEFINED DEFINER={VIEW_DEFINER} SQL SECURITY DEFINER VIEW `{t.name}` AS "
        f"{t.view_definition}"
    )
    return (t.name, text, "utf8mb4", "utf8mb4_0900_ai_ci")


def _columns_rows(t: TableDef, like: str | None) -> list[tuple]:
    ok = _like(like)
    rows = []
    for c in t.columns:
        if not ok(c.name):
            continue
        key = (
            "PRI"
            if c.name in t.primary_key
            else (
                "UNI"
                if any(ix.unique and ix.columns == (c.name,) for ix in t.indexes)
                else "MUL"
                if any(ix.columns[0] == c.name for ix in t.indexes if not ix.primary)
                else ""
            )
        )
        default = c.default_expr or (None if c.default is None else str(c.default))
        extra = "auto_increment" if c.auto_increment else ("DEFAULT_GENERATED" if c.default_expr else "")
        if c.on_update:
            extra = (extra + " " if extra else "") + "on update CURRENT_TIMESTAMP"
        rows.append((c.name, c.column_type(), "YES" if c.nullable else "NO", key, default, extra))
    return rows


def show_databases(ex: Executor, info: dict[str, Any], current_db: str | None) -> ExecResult:
    """SHOW DATABASES | SCHEMAS [LIKE 'pattern']: column ``Database`` (``info``: its parsed ``like`` literal)."""
    from gtidkit.engine.sql.exec_result import ExecResult

    ok = _like(info.get("like"))
    return ExecResult(columns=["Database"], rows=[(s,) for s in ex.storage.catalog.schemas() if ok(s)])


def show_tables(ex: Executor, info: dict[str, Any], current_db: str | None) -> ExecResult:
    """SHOW [FULL] TABLES [{FROM | IN} db] [LIKE 'pattern']: ``Tables_in_<db>`` [, ``Table_type``].

    Raises:
        MySQLError: 1046 no database named or selected, 1049 unknown database.
    """
    from gtidkit.engine.sql.exec_result import ExecResult

    cat = ex.storage.catalog
    db = info.get("db") or current_db
    if db is None:
        raise mysql_error(1046)
    if not cat.has_schema(db):
        raise mysql_error(1049, db)
    ok = _like(info.get("like"))
    tables = [t for t in cat.tables(db) if ok(t.name)]
    col = f"Tables_in_{cat.canonical_schema(db)}"
    if info.get("full"):
        return ExecResult(columns=[col, "Table_type"], rows=[(t.name, t.table_type) for t in tables])
    return ExecResult(columns=[col], rows=[(t.name,) for t in tables])


def show_columns(ex: Executor, info: dict[str, Any], current_db: str | None) -> ExecResult:
    """SHOW [FULL] COLUMNS | FIELDS {FROM | IN} t [{FROM | IN} db] [LIKE 'p'], DESCRIBE t: Field, Type, Null, Key,
    Default, Extra (this session's temporary table first).

    Raises:
        MySQLError: 1046, 1049, 1146 as MySQL; 1235 for a table name the engine cannot read.
    """
    from gtidkit.engine.sql.exec_result import ExecResult

    db, name = _table_name(info.get("db") or current_db, info["table"])
    t = ex.require_table(db, name)  # this session's temporary table first
    return ExecResult(
        columns=["Field", "Type", "Null", "Key", "Default", "Extra"], rows=_columns_rows(t, info.get("like"))
    )


def show_create(ex: Executor, info: dict[str, Any], current_db: str | None) -> ExecResult:
    """SHOW CREATE TABLE | VIEW name: (Table, Create Table), or a view's four columns (SHOW CREATE TABLE of a view
    shows the view, RM8 15.7.7.10).

    Raises:
        MySQLError: 1046, 1146; 1347 SHOW CREATE VIEW of a base table.
    """
    from gtidkit.engine.sql.exec_result import ExecResult

    db, name = _table_name(current_db, info["table"])
    t = ex.require_table(db, name)
    if t.table_type == "VIEW":
        cols = ["View", "Create View", "character_set_client", "collation_connection"]
        return ExecResult(columns=cols, rows=[show_create_view(t)])
    if info.get("object") == "VIEW":
        raise mysql_error(1347, t.schema, t.name, "VIEW")
    text = show_create_table(t)
    if (t.schema, t.name) in ex.temp_tables:
        text = "CREATE TEMPORARY TABLE" + text[len("CREATE TABLE") :]
    return ExecResult(columns=["Table", "Create Table"], rows=[(t.name, text)])


#: SHOW INDEX columns (RM8 "SHOW INDEX Statement")
INDEX_COLUMNS = (
    "Table",
    "Non_unique",
    "Key_name",
    "Seq_in_index",
    "Column_name",
    "Collation",
    "Cardinality",
    "Sub_part",
    "Packed",
    "Null",
    "Index_type",
    "Comment",
    "Index_comment",
    "Visible",
    "Expression",
)


def show_index(ex: Executor, info: dict[str, Any], current_db: str | None) -> ExecResult:
    """SHOW INDEX | INDEXES | KEYS {FROM | IN} t [{FROM | IN} db]: one row per index column (:data:`INDEX_COLUMNS`).

    Raises:
        MySQLError: 1046, 1049, 1146 as MySQL.
    """
    from gtidkit.engine.sql.exec_result import ExecResult

    db, name = _table_name(info.get("db") or current_db, info["table"])
    t = ex.require_table(db, name)  # this session's temporary table first
    rows = []
    for ix in t.indexes:
        for seq, c in enumerate(ix.columns, 1):
            col = t.column(c)
            null = "YES" if col is not None and col.nullable else ""
            rows.append(
                (t.name, 0 if ix.unique else 1, ix.name, seq, c, "A", None, None, None, null)
                + ("BTREE", "", "", "YES", None)
            )
    return ExecResult(columns=list(INDEX_COLUMNS), rows=rows)
