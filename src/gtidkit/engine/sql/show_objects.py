"""SHOW statements about databases and stored objects: SHOW CREATE DATABASE, SHOW TRIGGERS, SHOW EVENTS,
SHOW PROCEDURE STATUS, SHOW FUNCTION STATUS.

Backup tools send them for every database they dump (mariadb-dump / mysqldump: ``SHOW CREATE DATABASE IF NOT
EXISTS `d1```, ``SHOW TRIGGERS LIKE 't1'``, with ``--events`` / ``--routines`` the other three). gtidkit has no
triggers, events or stored programs, so those answer MySQL's columns with no rows, after MySQL's database checks.

Sources: RM8.4 15.7.7.7 "SHOW CREATE DATABASE" (the row, ``/*!32312 IF NOT EXISTS*/``), 15.7.7.40 "SHOW
TRIGGERS", 15.7.7.19 "SHOW EVENTS", 15.7.7.30 "SHOW PROCEDURE STATUS" (columns); mysql-test
``r/show_check.result`` for the ``/*!40100 DEFAULT CHARACTER SET ... COLLATE ... */ /*!80016 DEFAULT
ENCRYPTION='N' */`` text of a MySQL 8 database.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gtidkit.mysql_errors import mysql_error

if TYPE_CHECKING:
    from gtidkit.engine.sql.catalog import Catalog
    from gtidkit.engine.sql.exec_result import ExecResult
    from gtidkit.engine.sql.executor import Executor

__all__ = ["create_database", "events", "routine_status", "show_create_database", "triggers"]

#: Column names of the SHOW forms that list no rows here (RM8.4 15.7.7.40, 15.7.7.19, 15.7.7.30).
TRIGGER_COLUMNS = [
    "Trigger",
    "Event",
    "Table",
    "Statement",
    "Timing",
    "Created",
    "sql_mode",
    "Definer",
    "character_set_client",
    "collation_connection",
] + ["Database Collation"]
EVENT_COLUMNS = [
    "Db",
    "Name",
    "Definer",
    "Time zone",
    "Type",
    "Execute at",
    "Interval value",
    "Interval field",
    "Starts",
    "Ends",
    "Status",
    "Originator",
    "character_set_client",
    "collation_connection",
    "Database Collation",
]
ROUTINE_STATUS_COLUMNS = [
    "Db",
    "Name",
    "Type",
    "Definer",
    "Modified",
    "Created",
    "Security_type",
    "Comment",
    "character_set_client",
    "collation_connection",
] + ["Database Collation"]


def show_create_database(cat: Catalog, name: str, *, if_not_exists: bool = False) -> tuple[str, str]:
    """The row of ``SHOW CREATE DATABASE [IF NOT EXISTS] name``: (Database, Create Database).

    Args:
        cat: the catalog holding the database.
        name: the database name as written (case folded as the catalog folds it).
        if_not_exists: the statement said ``IF NOT EXISTS`` (MySQL puts ``/*!32312 IF NOT EXISTS*/`` in the text).

    Raises:
        MySQLError: 1049 ER_BAD_DB_ERROR for an unknown database.
    """
    if not cat.has_schema(name):
        raise mysql_error(1049, name)
    canonical = cat.canonical_schema(name)
    charset, collation = cat.schema_charset(canonical)
    quoted = "`" + canonical.replace("`", "``") + "`"
    guard = "/*!32312 IF NOT EXISTS*/ " if if_not_exists else ""
    text = (
        f"CREATE DATABASE {guard}{quoted} /*!40100 DEFAULT CHARACTER SET {charset} COLLATE {collation} */ "
        "/*!80016 DEFAULT ENCRYPTION='N' */"
    )
    return (canonical, text)


def _require_db(cat: Catalog, db: str | None) -> None:
    if db is None:
        raise mysql_error(1046)
    if not cat.has_schema(db):
        raise mysql_error(1049, db)


def create_database(ex: Executor, info: dict[str, Any], current_db: str | None) -> ExecResult:
    """SHOW CREATE {DATABASE | SCHEMA} [IF NOT EXISTS] db (``info``: ``db``, ``if_not_exists``).

    Raises:
        MySQLError: 1049 ER_BAD_DB_ERROR for an unknown database.
    """
    from gtidkit.engine.sql.exec_result import ExecResult

    row = show_create_database(
        ex.storage.catalog, info.get("db") or "", if_not_exists=bool(info.get("if_not_exists"))
    )
    return ExecResult(columns=["Database", "Create Database"], rows=[row])


def triggers(ex: Executor, info: dict[str, Any], current_db: str | None) -> ExecResult:
    """SHOW [FULL] TRIGGERS [{FROM | IN} db] [LIKE | WHERE]: MySQL's columns, no rows (``info``: ``db``).

    Raises:
        MySQLError: 1046 ER_NO_DB_ERROR (no database named or selected), 1049 ER_BAD_DB_ERROR.
    """
    from gtidkit.engine.sql.exec_result import ExecResult

    _require_db(ex.storage.catalog, info.get("db") or current_db)
    return ExecResult(columns=list(TRIGGER_COLUMNS), rows=[])


def events(ex: Executor, info: dict[str, Any], current_db: str | None) -> ExecResult:
    """SHOW EVENTS [{FROM | IN} db] [LIKE | WHERE]: MySQL's columns, no rows (``info``: ``db``).

    Raises:
        MySQLError: 1046 ER_NO_DB_ERROR (no database named or selected), 1049 ER_BAD_DB_ERROR.
    """
    from gtidkit.engine.sql.exec_result import ExecResult

    _require_db(ex.storage.catalog, info.get("db") or current_db)
    return ExecResult(columns=list(EVENT_COLUMNS), rows=[])


def routine_status(ex: Executor, info: dict[str, Any], current_db: str | None) -> ExecResult:
    """SHOW {PROCEDURE | FUNCTION} STATUS [LIKE | WHERE]: MySQL's columns, no rows."""
    from gtidkit.engine.sql.exec_result import ExecResult

    return ExecResult(columns=list(ROUTINE_STATUS_COLUMNS), rows=[])
