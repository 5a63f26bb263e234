"""Temporary tables (CREATE / DROP TEMPORARY TABLE): one session's tables, invisible to the others.

Source: RM8 "CREATE TEMPORARY TABLE Statement" (visible only within the current session, dropped automatically when
the session is closed; a temporary table may share its name with a base table, which it then hides; ``CREATE
TEMPORARY TABLE`` and ``DROP TEMPORARY TABLE`` do not commit the open transaction), RM8 "Replication and Temporary
Tables" (with ``binlog_format=ROW`` / MIXED, operations on temporary tables are not logged) and "Restrictions on
Replication with GTIDs" (8.0.13+: with ROW / MIXED the statements are allowed inside a transaction under
``enforce_gtid_consistency``; with STATEMENT they give ER_CLIENT_GTID_UNSAFE_CREATE_DROP_TEMP_TABLE_IN_TRX_IN_SBR
3748).

How: each engine session has its own SQLite connection, and SQLite's ``temp`` schema belongs to one connection and
is searched before ``main``. A temporary table is created in ``temp`` under the same physical name
(``"db.t"``) a base table would have, so every statement the SQL layer plans for ``db.t`` reads and writes the
temporary table when there is one, exactly MySQL's shadowing rule. The definitions live in
:attr:`gtidkit.engine.sql.executor.Executor.temp_tables` (not in the shared catalog: no other session sees them,
information_schema and SHOW TABLES do not list them, as in MySQL); plans that read them are cached under a
per-session key. SQLite rolls back the creation of a ``temp`` table with its transaction, which MySQL does not
do (``ROLLBACK`` keeps a temporary table created in the transaction, and a dropped one stays dropped):
:func:`resync` re-creates / re-drops them after a rollback (their rows follow the rollback, as InnoDB's do).
"""

from __future__ import annotations

import itertools
import re
from typing import TYPE_CHECKING

from sqlglot import exp

from gtidkit.engine.sql.catalog import TableDef, auto_increment_series, physical_ddl
from gtidkit.engine.sql.exec_result import ExecResult
from gtidkit.engine.storage import physical_name, quote_ident
from gtidkit.mysql_errors import mysql_error

if TYPE_CHECKING:
    from gtidkit.engine.sql.executor import Executor

__all__ = [
    "TEMPORARY_DDL",
    "create",
    "drop",
    "drop_one",
    "is_temporary_ddl",
    "mark_changed",
    "next_auto_increment",
    "resync",
]

#: ``CREATE TEMPORARY TABLE`` / ``DROP TEMPORARY TABLE`` (comments already stripped by the classifier).
TEMPORARY_DDL = re.compile(r"^\s*(?:CREATE|DROP)\s+TEMPORARY\s+TABLES?\b", re.IGNORECASE)
_KEYS = itertools.count(1)
#: ``temp`` tables the engine itself keeps per connection (per-query system tables), never user temporary tables
_SYSTEM_PREFIXES = ("performance_schema.", "information_schema.")


def is_temporary_ddl(text: str) -> bool:
    """True for ``CREATE TEMPORARY TABLE`` / ``DROP TEMPORARY TABLE`` text."""
    return bool(TEMPORARY_DDL.match(text))


def mark_changed(ex: Executor) -> None:
    """Note that the session's set of temporary tables changed (its plans are made again)."""
    _changed(ex)


def _changed(ex: Executor) -> None:
    ex.temp_key = (ex.connection_id, next(_KEYS)) if ex.temp_tables else None


def _physical(t: TableDef) -> list[str]:
    out = []
    for sql in physical_ddl(t):
        if sql.startswith("CREATE TABLE "):
            sql = "CREATE TEMP TABLE " + sql[len("CREATE TABLE ") :]
        else:  # CREATE [UNIQUE] INDEX "name" ON ...: the index lives in the temp schema with its table
            sql = re.sub(r"^CREATE (UNIQUE )?INDEX ", r"CREATE \1INDEX temp.", sql)
        out.append(sql)
    return out


def create(ex: Executor, t: TableDef, *, if_not_exists: bool) -> ExecResult:
    """Create the temporary table ``t`` for this session.

    Raises:
        MySQLError: 1049 unknown database; 1050 a temporary table of that name exists (without IF NOT EXISTS).
    """
    catalog = ex.storage.catalog
    if not catalog.has_schema(t.schema):
        raise mysql_error(1049, t.schema)
    key = (t.schema, t.name)
    if key in ex.temp_tables:
        if if_not_exists:
            return ExecResult(warnings=[("Note", 1050, f"Table '{t.name}' already exists")])
        raise mysql_error(1050, t.name)
    for sql in _physical(t):
        ex.run_sqlite(sql)
    ex.temp_tables[key] = t
    _changed(ex)
    return ExecResult()


def drop(ex: Executor, tables: list[exp.Table], current_db: str | None, *, if_exists: bool) -> ExecResult:
    """``DROP TEMPORARY TABLE [IF EXISTS] t [, ...]``: only temporary tables are dropped.

    Raises:
        MySQLError: 1046 no database; 1051 "Unknown table 'db.t'" for names that are not temporary tables of
            this session (without IF EXISTS; nothing is dropped then).
    """
    keys: list[tuple[str, str]] = []
    missing: list[tuple[str, str]] = []
    for node in tables:
        db = node.db or current_db
        if db is None:
            raise mysql_error(1046)
        key = (ex.storage.catalog.canonical_schema(db), node.name)
        (keys if key in ex.temp_tables else missing).append(key)
    if missing and not if_exists:
        raise mysql_error(1051, ",".join(f"{s}.{n}" for s, n in missing))
    for key in keys:
        drop_one(ex, key)
    return ExecResult(warnings=[("Note", 1051, f"Unknown table '{s}.{n}'") for s, n in missing])


def drop_one(ex: Executor, key: tuple[str, str]) -> None:
    """Drop this session's temporary table ``key`` = (schema, name)."""
    ex.run_sqlite(f"DROP TABLE temp.{quote_ident(physical_name(*key))}")
    del ex.temp_tables[key]
    _changed(ex)


def resync(ex: Executor) -> None:
    """After a SQLite rollback: bring the ``temp`` schema back to :attr:`Executor.temp_tables` (MySQL does not
    roll back CREATE / DROP TEMPORARY TABLE; their rows do follow the rollback)."""
    raw = ex.conn.raw
    present = {r[0] for r in raw.execute("SELECT name FROM temp.sqlite_master WHERE type = 'table'")}
    wanted = {physical_name(*k): t for k, t in ex.temp_tables.items()}
    for name, t in wanted.items():
        if name not in present:
            for sql in _physical(t):
                raw.execute(sql)
    for name in present - wanted.keys():
        if not name.startswith(_SYSTEM_PREFIXES):
            raw.execute(f"DROP TABLE temp.{quote_ident(name)}")


def next_auto_increment(ex: Executor, t: TableDef, explicit: int | None) -> int:
    """The next AUTO_INCREMENT value of temporary table ``t`` (MAX + 1 in the session's increment / offset
    series; ``explicit`` is returned as given)."""
    if explicit is not None:
        return explicit
    col = t.auto_increment_column
    assert col is not None
    row = ex.conn.raw.execute(
        f"SELECT MAX({quote_ident(col.name)}) FROM temp.{quote_ident(physical_name(t.schema, t.name))}"
    ).fetchone()
    # negative values never move the counter (InnoDB's is unsigned)
    return auto_increment_series(
        max(int(row[0] or 0), 0) + 1, (ex.auto_increment_increment, ex.auto_increment_offset)
    )
