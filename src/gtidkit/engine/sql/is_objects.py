"""information_schema tables for objects gtidkit does not have or has one of: FILES, PARTITIONS, TRIGGERS,
ROUTINES, EVENTS.

Backup tools query them on every run (mariadb-dump: FILES and PARTITIONS "when trying to dump tablespaces",
TRIGGERS/ROUTINES/EVENTS for ``--triggers`` / ``--routines`` / ``--events``), so they must exist with MySQL's
columns, in MySQL's order, even where they have no rows.

Columns: RM8.4 "INFORMATION_SCHEMA Tables" (28.3.15 FILES, 28.3.21 PARTITIONS, 28.3.45 TRIGGERS, 28.3.30
ROUTINES, 28.3.14 EVENTS) and the system view definitions in mysql-test
``suite/information_schema/r/i_s_schema_definition_debug.result``.

Rows, compared with MySQL 8.4:

- PARTITIONS: MySQL lists every base table, a non-partitioned one as a single row whose PARTITION_* /
  SUBPARTITION_* columns are NULL; gtidkit has no partitioning, so it lists exactly those rows (statistics as in
  our information_schema.TABLES: lengths 0, TABLE_ROWS NULL).
- TRIGGERS, ROUTINES, EVENTS: gtidkit has no triggers, stored programs or events, so MySQL would list none of
  ours (MySQL 8.4 lists the ``sys`` schema's routines; our ``sys`` is empty): no rows.
- FILES: MySQL lists one row per InnoDB tablespace file (``innodb_system``, undo, temporary and file-per-table
  ``./db/t.ibd``); gtidkit stores everything in one SQLite file and lists none. Queries that look for NDB
  ``DATAFILE`` / ``UNDO LOG`` rows (mariadb-dump, mysqldump) get the same empty answer as from MySQL.
"""

from __future__ import annotations

__all__ = ["IS_OBJECT_TYPES", "IS_OBJECT_VIEWS"]

_FILES = [
    "FILE_ID",
    "FILE_NAME",
    "FILE_TYPE",
    "TABLESPACE_NAME",
    "TABLE_CATALOG",
    "TABLE_SCHEMA",
    "TABLE_NAME",
    "LOGFILE_GROUP_NAME",
    "LOGFILE_GROUP_NUMBER",
    "ENGINE",
    "FULLTEXT_KEYS",
    "DELETED_ROWS",
    "UPDATE_COUNT",
    "FREE_EXTENTS",
    "TOTAL_EXTENTS",
    "EXTENT_SIZE",
    "INITIAL_SIZE",
    "MAXIMUM_SIZE",
    "AUTOEXTEND_SIZE",
    "CREATION_TIME",
    "LAST_UPDATE_TIME",
    "LAST_ACCESS_TIME",
    "RECOVER_TIME",
    "TRANSACTION_COUNTER",
    "VERSION",
    "ROW_FORMAT",
    "TABLE_ROWS",
    "AVG_ROW_LENGTH",
    "DATA_LENGTH",
    "MAX_DATA_LENGTH",
    "INDEX_LENGTH",
    "DATA_FREE",
    "CREATE_TIME",
    "UPDATE_TIME",
    "CHECK_TIME",
    "CHECKSUM",
    "STATUS",
    "EXTRA",
]
_PARTITIONS = [
    "TABLE_CATALOG",
    "TABLE_SCHEMA",
    "TABLE_NAME",
    "PARTITION_NAME",
    "SUBPARTITION_NAME",
    "PARTITION_ORDINAL_POSITION",
    "SUBPARTITION_ORDINAL_POSITION",
    "PARTITION_METHOD",
    "SUBPARTITION_METHOD",
    "PARTITION_EXPRESSION",
    "SUBPARTITION_EXPRESSION",
    "PARTITION_DESCRIPTION",
    "TABLE_ROWS",
    "AVG_ROW_LENGTH",
    "DATA_LENGTH",
    "MAX_DATA_LENGTH",
    "INDEX_LENGTH",
    "DATA_FREE",
    "CREATE_TIME",
    "UPDATE_TIME",
    "CHECK_TIME",
    "CHECKSUM",
    "PARTITION_COMMENT",
    "NODEGROUP",
    "TABLESPACE_NAME",
]
_TRIGGERS = [
    "TRIGGER_CATALOG",
    "TRIGGER_SCHEMA",
    "TRIGGER_NAME",
    "EVENT_MANIPULATION",
    "EVENT_OBJECT_CATALOG",
    "EVENT_OBJECT_SCHEMA",
    "EVENT_OBJECT_TABLE",
    "ACTION_ORDER",
    "ACTION_CONDITION",
    "ACTION_STATEMENT",
    "ACTION_ORIENTATION",
    "ACTION_TIMING",
    "ACTION_REFERENCE_OLD_TABLE",
    "ACTION_REFERENCE_NEW_TABLE",
    "ACTION_REFERENCE_OLD_ROW",
    "ACTION_REFERENCE_NEW_ROW",
    "CREATED",
    "SQL_MODE",
    "DEFINER",
    "CHARACTER_SET_CLIENT",
    "COLLATION_CONNECTION",
    "DATABASE_COLLATION",
]
_ROUTINES = [
    "SPECIFIC_NAME",
    "ROUTINE_CATALOG",
    "ROUTINE_SCHEMA",
    "ROUTINE_NAME",
    "ROUTINE_TYPE",
    "DATA_TYPE",
    "CHARACTER_MAXIMUM_LENGTH",
    "CHARACTER_OCTET_LENGTH",
    "NUMERIC_PRECISION",
    "NUMERIC_SCALE",
    "DATETIME_PRECISION",
    "CHARACTER_SET_NAME",
    "COLLATION_NAME",
    "DTD_IDENTIFIER",
    "ROUTINE_BODY",
    "ROUTINE_DEFINITION",
    "EXTERNAL_NAME",
    "EXTERNAL_LANGUAGE",
    "PARAMETER_STYLE",
    "IS_DETERMINISTIC",
    "SQL_DATA_ACCESS",
    "SQL_PATH",
    "SECURITY_TYPE",
    "CREATED",
    "LAST_ALTERED",
    "SQL_MODE",
    "ROUTINE_COMMENT",
    "DEFINER",
    "CHARACTER_SET_CLIENT",
    "COLLATION_CONNECTION",
    "DATABASE_COLLATION",
]
_EVENTS = [
    "EVENT_CATALOG",
    "EVENT_SCHEMA",
    "EVENT_NAME",
    "DEFINER",
    "TIME_ZONE",
    "EVENT_BODY",
    "EVENT_DEFINITION",
    "EVENT_TYPE",
    "EXECUTE_AT",
    "INTERVAL_VALUE",
    "INTERVAL_FIELD",
    "SQL_MODE",
    "STARTS",
    "ENDS",
    "STATUS",
    "ON_COMPLETION",
    "CREATED",
    "LAST_ALTERED",
    "LAST_EXECUTED",
    "EVENT_COMMENT",
    "ORIGINATOR",
    "CHARACTER_SET_CLIENT",
    "COLLATION_CONNECTION",
    "DATABASE_COLLATION",
]

_INT = "bigint"
_DATETIME = "datetime"
_TEXT = "longtext"

#: Column types that differ from the catalog's defaults (``bigint`` for the usual counters, else ``varchar``).
IS_OBJECT_TYPES: dict[str, str] = {
    **dict.fromkeys(
        (
            "FILE_ID",
            "LOGFILE_GROUP_NUMBER",
            "FULLTEXT_KEYS",
            "DELETED_ROWS",
            "UPDATE_COUNT",
            "FREE_EXTENTS",
            "TOTAL_EXTENTS",
            "EXTENT_SIZE",
            "INITIAL_SIZE",
            "MAXIMUM_SIZE",
            "AUTOEXTEND_SIZE",
            "TRANSACTION_COUNTER",
            "PARTITION_ORDINAL_POSITION",
            "SUBPARTITION_ORDINAL_POSITION",
            "ACTION_ORDER",
            "ORIGINATOR",
        ),
        _INT,
    ),
    **dict.fromkeys(
        (
            "CREATION_TIME",
            "LAST_UPDATE_TIME",
            "LAST_ACCESS_TIME",
            "RECOVER_TIME",
            "CREATED",
            "LAST_ALTERED",
            "EXECUTE_AT",
            "STARTS",
            "ENDS",
            "LAST_EXECUTED",
        ),
        _DATETIME,
    ),
    **dict.fromkeys(
        ("ACTION_STATEMENT", "ROUTINE_DEFINITION", "EVENT_DEFINITION", "PARTITION_EXPRESSION"),
        _TEXT,
    ),
}


def _no_rows(columns: list[str]) -> str:
    """A SELECT with ``columns`` as NULLs and no rows (the view of a table gtidkit has nothing for)."""
    return "SELECT " + ", ".join(f"NULL AS {c}" for c in columns) + " WHERE 0"


_PARTITION_VALUES = {
    "TABLE_CATALOG": "'def'",
    "TABLE_SCHEMA": "TABLE_SCHEMA",
    "TABLE_NAME": "TABLE_NAME",
    "TABLE_ROWS": "NULL",
    "AVG_ROW_LENGTH": "0",
    "DATA_LENGTH": "0",
    "MAX_DATA_LENGTH": "0",
    "INDEX_LENGTH": "0",
    "DATA_FREE": "0",
    "PARTITION_COMMENT": "''",
}

#: ``name -> (SQLite SELECT, MySQL's column names)``, the shape of the catalog's ``_IS_VIEWS``.
IS_OBJECT_VIEWS: dict[str, tuple[str, list[str]]] = {
    "FILES": (_no_rows(_FILES), _FILES),
    "PARTITIONS": (
        "SELECT "
        + ", ".join(f"{_PARTITION_VALUES.get(c, 'NULL')} AS {c}" for c in _PARTITIONS)
        + " FROM _gk_tables WHERE TABLE_TYPE = 'BASE TABLE'",
        _PARTITIONS,
    ),
    "TRIGGERS": (_no_rows(_TRIGGERS), _TRIGGERS),
    "ROUTINES": (_no_rows(_ROUTINES), _ROUTINES),
    "EVENTS": (_no_rows(_EVENTS), _EVENTS),
}
