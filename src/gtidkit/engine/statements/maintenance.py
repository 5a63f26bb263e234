"""Table maintenance statements: ANALYZE / OPTIMIZE / CHECK / REPAIR [NO_WRITE_TO_BINLOG | LOCAL] TABLE t [, t2 ...].

Each answers a result set of four columns (Table, Op, Msg_type, Msg_text), rows per table, as MySQL's
``mysql_admin_table`` (``sql/sql_admin.cc``) sends them for InnoDB tables:

=========  ==========================================================================================
ANALYZE    ``db.t | analyze | status | OK``
OPTIMIZE   ``note | Table does not support optimize, doing recreate + analyze instead``, then ``status | OK``
CHECK      ``status | OK``
REPAIR     ``note | The storage engine for the table doesn't support repair``
missing    ``Error | Table 'db.x' doesn't exist``, then ``status | Operation failed`` (no warning is raised)
no schema  ``Error | Unknown database 'x'``, then ``error | Corrupt``
=========  ==========================================================================================

Binary log (RM8 "ANALYZE TABLE Statement" / "OPTIMIZE TABLE" / "REPAIR TABLE": "By default, the server writes
ANALYZE TABLE statements to the binary log so that they replicate to replicas. To suppress logging, specify the
optional NO_WRITE_TO_BINLOG keyword or its alias LOCAL"): ANALYZE, OPTIMIZE and REPAIR are logged as a statement
(``write_bin_log`` after ``mysql_admin_table`` succeeded: a Query event with the text, under its own GTID with
gtid_mode=ON), through the same commit path as DDL (:func:`gtidkit.engine.statements.transaction.commit` with
``ddl_text``), so the write matrix decides the binlog / mysql.gtid_executed writes as for any DDL. CHECK TABLE is
never logged. All four commit the open transaction first (RM8 "Statements That Cause an Implicit Commit": "Table
maintenance statements"). SQLite needs no maintenance, so nothing is done to the data besides ANALYZE's
statistics refresh.

Sources: mysql-test ``r/analyze.result`` (ANALYZE / CHECK rows), randgen's ``conf/runtime/WL5004_sql.yy`` comments
(missing-table rows), ``sql/sql_admin.cc`` (message texts, Corrupt for an open error other than a missing table).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from gtidkit.engine.results import StatementResult
from gtidkit.engine.sql.unsupported import syntax_error
from gtidkit.mysql_errors import mysql_error

if TYPE_CHECKING:
    from gtidkit.engine.session import Session
    from gtidkit.engine.statements.classify import Statement

__all__ = ["COLUMNS", "check_maintenance", "logged_text", "run_maintenance", "table_names"]

#: the result-set columns (``Sql_cmd_analyze_table`` ... ``send_fields``: four strings)
COLUMNS = ("Table", "Op", "Msg_type", "Msg_text")

#: op -> rows for an existing InnoDB table (Msg_type, Msg_text)
_OK_ROWS: dict[str, tuple[tuple[str, str], ...]] = {
    "analyze": (("status", "OK"),),
    "optimize": (
        ("note", "Table does not support optimize, doing recreate + analyze instead"),
        ("status", "OK"),
    ),
    "check": (("status", "OK"),),
    "repair": (("note", "The storage engine for the table doesn't support repair"),),
}

_NAME = re.compile(r"\s*(`(?:[^`]|``)+`|[\w$]+)(?:\s*\.\s*(`(?:[^`]|``)+`|[\w$]+))?\s*(?:,|$)")
#: CHECK TABLE options (sql_yacc.yy ``mi_check_type``) and REPAIR options after the table list
_TRAILING = re.compile(
    r"\s+(?:(?:FOR\s+UPGRADE|QUICK|FAST|MEDIUM|EXTENDED|CHANGED|USE_FRM)\s*)+$", re.IGNORECASE
)


def _unquote(name: str) -> str:
    return name[1:-1].replace("``", "`") if name.startswith("`") else name


def table_names(text: str) -> list[tuple[str | None, str]]:
    """The ``(schema or None, table)`` list of a maintenance statement's table list.

    Args:
        text: the list after ``TABLE`` / ``TABLES`` (``t1, db.t2, `x y```), options such as QUICK allowed after it.

    Raises:
        MySQLError: 1064 for a list that is not a comma-separated list of table names.
    """
    rest = _TRAILING.sub("", text.strip())
    out: list[tuple[str | None, str]] = []
    pos = 0
    while pos < len(rest):
        m = _NAME.match(rest, pos)
        if m is None or m.end() == pos:
            raise syntax_error(text)
        first, second = m.group(1), m.group(2)
        out.append((_unquote(first), _unquote(second)) if second else (None, _unquote(first)))
        pos = m.end()
    if not out:
        raise syntax_error(text)
    return out


def _rows(session: Session, op: str, tables: list[tuple[str | None, str]]) -> list[tuple[str, ...]]:
    catalog = session.server.storage.catalog
    rows: list[tuple[str, ...]] = []
    for schema, name in tables:
        db = schema if schema is not None else session.current_db
        if db is None:
            raise mysql_error(1046)
        label = f"{db}.{name}"
        if not catalog.has_schema(db):
            rows.append((label, op, "Error", mysql_error(1049, db).message))
            rows.append((label, op, "error", "Corrupt"))
            continue
        if session.executor.get_table(db, name) is None:
            rows.append((label, op, "Error", mysql_error(1146, db, name).message))
            rows.append((label, op, "status", "Operation failed"))
            continue
        rows.extend((label, op, kind, msg) for kind, msg in _OK_ROWS[op])
    return rows


def check_maintenance(session: Session, stmt: Statement) -> None:
    """The table list of an ANALYZE / OPTIMIZE / CHECK / REPAIR TABLE statement parses (before anything happens).

    Raises:
        MySQLError: 1064 a malformed table list.
    """
    table_names(stmt.info["tables"])


def run_maintenance(session: Session, stmt: Statement) -> StatementResult:
    """Run one ANALYZE / OPTIMIZE / CHECK / REPAIR TABLE statement (classified as admin ``table_maintenance``
    with ``info``: ``op`` lowercase, ``local`` when NO_WRITE_TO_BINLOG / LOCAL was given, ``tables`` text): its
    rows; the implicit commit, the GTID and the logging (:func:`logged_text`) are the lifecycle's
    (:func:`gtidkit.engine.statements.dispatch.dispatch`).

    Raises:
        MySQLError: 1046 an unqualified name without a default database; 1064 a malformed table list.
    """
    from gtidkit.engine.sql.metadata import result_set

    rows = _rows(session, stmt.info["op"], table_names(stmt.info["tables"]))
    return result_set(list(COLUMNS), rows)


def logged_text(session: Session, stmt: Statement) -> str | None:
    """The text a maintenance statement is logged with (ANALYZE / OPTIMIZE / REPAIR without LOCAL), or None
    (CHECK TABLE, NO_WRITE_TO_BINLOG / LOCAL)."""
    logged = stmt.info["op"] != "check" and not stmt.info.get("local")
    return stmt.text if logged else None
