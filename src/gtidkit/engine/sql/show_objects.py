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

import re
from typing import TYPE_CHECKING

from gtidkit.mysql_errors import mysql_error

if TYPE_CHECKING:
    from gtidkit.engine.sql.catalog import Catalog
    from gtidkit.engine.sql.exec_result import ExecResult

__all__ = ["run_show_objects", "show_create_database"]

_ID = r"(`(?:[^`]|``)+`|[A-Za-z0-9_$]+)"
_TAIL = r"(?: (?:LIKE '(?:[^'\\]|\\.|'')*'|WHERE .*))?"

_CREATE_DATABASE = re.compile(rf"SHOW CREATE (?:DATABASE|SCHEMA) (IF NOT EXISTS )?{_ID}", re.IGNORECASE)
_TRIGGERS = re.compile(rf"SHOW (?:FULL )?TRIGGERS(?: (?:FROM|IN) {_ID})?{_TAIL}", re.IGNORECASE)
_EVENTS = re.compile(rf"SHOW EVENTS(?: (?:FROM|IN) {_ID})?{_TAIL}", re.IGNORECASE)
_ROUTINE_STATUS = re.compile(rf"SHOW (?:PROCEDURE|FUNCTION) STATUS{_TAIL}", re.IGNORECASE)

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


def _unid(s: str | None) -> str | None:
    return None if s is None else s[1:-1].replace("``", "`") if s.startswith("`") else s


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


def run_show_objects(cat: Catalog, norm: str, current_db: str | None) -> ExecResult | None:
    """Answer ``norm`` (a normalised SHOW statement) if it is one of this module's forms, else None.

    Raises:
        MySQLError: 1046 ER_NO_DB_ERROR (no database named or selected), 1049 ER_BAD_DB_ERROR.
    """
    from gtidkit.engine.sql.exec_result import ExecResult

    m = _CREATE_DATABASE.fullmatch(norm)
    if m:
        row = show_create_database(cat, _unid(m.group(2)) or "", if_not_exists=bool(m.group(1)))
        return ExecResult(columns=["Database", "Create Database"], rows=[row])
    m = _TRIGGERS.fullmatch(norm)
    if m:
        _require_db(cat, _unid(m.group(1)) or current_db)
        return ExecResult(columns=list(TRIGGER_COLUMNS), rows=[])
    m = _EVENTS.fullmatch(norm)
    if m:
        _require_db(cat, _unid(m.group(1)) or current_db)
        return ExecResult(columns=list(EVENT_COLUMNS), rows=[])
    if _ROUTINE_STATUS.fullmatch(norm):
        return ExecResult(columns=list(ROUTINE_STATUS_COLUMNS), rows=[])
    return None
