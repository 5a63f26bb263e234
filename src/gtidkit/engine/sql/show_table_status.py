"""SHOW TABLE STATUS [{FROM | IN} db] [LIKE 'pattern' | WHERE expr], as a query over information_schema.TABLES.

MySQL 8.0 runs this SHOW as a SELECT over the INFORMATION_SCHEMA.TABLES view with its columns renamed
(``sql/dd/info_schema/show.cc``, ``build_show_tables_query`` for SHOW TABLE STATUS), so we do the same: the 18
columns of RM8 "SHOW TABLE STATUS Statement" (Name, Engine, Version, Row_format, Rows, Avg_row_length,
Data_length, Max_data_length, Index_length, Data_free, Auto_increment, Create_time, Update_time, Check_time,
Collation, Checksum, Create_options, Comment), one row per table and view of the schema, LIKE matching Name, and a
WHERE condition over the renamed columns ("The WHERE clause can be given to select rows using more general
conditions", RM8 "Extensions to SHOW Statements"). Rows are ordered by Name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from gtidkit.engine.sql.parse import parse_tree, templatize
from gtidkit.mysql_errors import mysql_error

if TYPE_CHECKING:
    from gtidkit.engine.sql.exec_result import ExecResult
    from gtidkit.engine.sql.executor import Executor

__all__ = ["COLUMNS", "show_table_status"]

#: SHOW TABLE STATUS column -> information_schema.TABLES column, in MySQL's order
COLUMNS: tuple[tuple[str, str], ...] = (
    ("Name", "TABLE_NAME"),
    ("Engine", "ENGINE"),
    ("Version", "VERSION"),
    ("Row_format", "ROW_FORMAT"),
    ("Rows", "TABLE_ROWS"),
    ("Avg_row_length", "AVG_ROW_LENGTH"),
    ("Data_length", "DATA_LENGTH"),
    ("Max_data_length", "MAX_DATA_LENGTH"),
    ("Index_length", "INDEX_LENGTH"),
    ("Data_free", "DATA_FREE"),
    ("Auto_increment", "AUTO_INCREMENT"),
    ("Create_time", "CREATE_TIME"),
    ("Update_time", "UPDATE_TIME"),
    ("Check_time", "CHECK_TIME"),
    ("Collation", "TABLE_COLLATION"),
    ("Checksum", "CHECKSUM"),
    ("Create_options", "CREATE_OPTIONS"),
    ("Comment", "TABLE_COMMENT"),
)


@dataclass
class _Select:
    """The generated SELECT, shaped as :class:`gtidkit.engine.sql.parse.SqlStatement`."""

    text: str
    info: dict[str, Any] = field(default_factory=dict)
    kind: str = "select"

    @property
    def tree(self) -> exp.Expression:
        return parse_tree(self.text)

    @property
    def template(self) -> tuple[str, list[Any]] | None:
        return templatize(self.text)


def _quote(s: str) -> str:
    return "'" + s.replace("\\", "\\\\").replace("'", "''") + "'"


def _renamed(where: str) -> str:
    """The WHERE condition with SHOW TABLE STATUS names (any case) turned into information_schema.TABLES ones, so
    the condition applies to the view's columns and their metadata is kept."""
    by_name = {name.lower(): col for name, col in COLUMNS}
    tree = parse_tree(f"SELECT 1 FROM t WHERE {where}")
    for node in list(tree.find_all(exp.Column)):
        col = by_name.get(node.name.lower())
        if col is not None and not node.table:
            node.replace(exp.column(col, quoted=True))
    cond = tree.args["where"].this
    return str(cond.sql(dialect="mysql"))


def show_table_status(ex: Executor, info: dict[str, Any], current_db: str | None) -> ExecResult:
    """Run SHOW TABLE STATUS for ``current_db`` or the named schema.

    Args:
        ex: the session's executor.
        info: the statement's arguments as :mod:`gtidkit.engine.statements.classify` parsed them: ``db`` (the
            schema named, unquoted), ``like`` (the pattern's literal as written) or ``where`` (the condition's text).
        current_db: the session's default schema.

    Raises:
        MySQLError: 1046 no schema named and none selected; 1049 unknown schema; 1054 an unknown column in the
            WHERE condition.
    """
    like, where = info.get("like"), info.get("where")
    db = info.get("db") or current_db
    if db is None:
        raise mysql_error(1046)
    catalog = ex.storage.catalog
    if not catalog.has_schema(db):
        raise mysql_error(1049, db)
    items = ", ".join(f"`{col}` AS `{name}`" for name, col in COLUMNS)
    cond = f"`TABLE_SCHEMA` = {_quote(catalog.canonical_schema(db))}"
    if like is not None:
        cond += f" AND `TABLE_NAME` LIKE {like}"
    text = f"SELECT {items} FROM information_schema.`TABLES` WHERE {cond}"
    if where is not None:
        text += f" AND ({_renamed(where)})"
    return ex.execute(_Select(text + " ORDER BY `Name`"), current_db)
