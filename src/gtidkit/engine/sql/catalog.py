"""Catalog: MySQL schemas and table definitions, persisted in the engine database next to the data.

Every MySQL column keeps its full definition (type with length/precision/unsigned, nullability, default,
AUTO_INCREMENT, charset) because ROW-format binlog events and ``information_schema.COLUMNS`` need MySQL's view of
a table, not SQLite's. The catalog lives in SQLite tables of the same database (``_gk_schemata``, ``_gk_tables``
with the definition as JSON, ``_gk_columns`` normalised for information_schema), so a DDL statement and its
catalog change commit in one SQLite transaction (MySQL 8.0's atomic DDL, WL#9536).

Built-in schemas: ``mysql`` (with ``mysql.gtid_executed`` in its 8.3+/8.4 shape or, for a datadir created as 5.7/8.0,
without ``gtid_tag``; ``scripts/mysql_system_tables.sql``),
``information_schema`` (SCHEMATA, TABLES, COLUMNS, STATISTICS as SQLite views over the catalog tables, MySQL's column names)
and ``performance_schema`` (``threads``, filled per query from :attr:`Storage.threads_provider`).

Physical layout of a table (SQLite): one column per MySQL column with the affinity of its family (a BIGINT UNSIGNED /
BIT(64) column is declared ``INT``, so a single-column key never becomes the rowid, which cannot hold the blobs of
values above 2**63-1; a DECIMAL(M,D) with M > 15 is ``TEXT COLLATE GK_DECIMAL``, see ``values.py``, and a TIME
``TEXT COLLATE GK_TIME``, which orders its text by duration); CHECK
constraints named ``gk:<kind>:<column>`` enforce MySQL strict-mode ranges and lengths (mapped back to errors
1264/1406/1366 by the executor); a single integer primary key becomes SQLite's ``INTEGER PRIMARY KEY`` (rowid);
other keys become UNIQUE/plain indexes named ``<table>.<index>``.
"""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from gtidkit.engine import charsets
from gtidkit.engine.accounts.tables import GRANT_TABLE_DDL
from gtidkit.engine.sql.is_objects import IS_OBJECT_TYPES, IS_OBJECT_VIEWS
from gtidkit.engine.sql.log_tables import LOG_TABLE_DDL
from gtidkit.mysql_errors import mysql_error

if TYPE_CHECKING:
    from gtidkit.engine.storage import Connection, Storage

__all__ = [
    "DOUBLE_EXACT_DIGITS",
    "GTID_EXECUTED_DDL",
    "GTID_EXECUTED_DDL_UNTAGGED",
    "LOCK_WAIT_TABLES",
    "PROCESSLIST_TABLES",
    "REPLICATION_TABLES",
    "SQLGLOT_TYPES",
    "SYSTEM_SCHEMAS",
    "THREADS_COLUMNS",
    "THREAD_ID_OFFSET",
    "TYPE_INFO",
    "VARIABLES_COLUMNS",
    "VARIABLES_TABLES",
    "Catalog",
    "ColumnDef",
    "IndexDef",
    "TableDef",
    "auto_increment_series",
]

#: MySQL's DDL of mysql.gtid_executed (8.3+/8.4 shape with gtid_tag; formats.md §5.1).
GTID_EXECUTED_DDL = (
    "CREATE TABLE IF NOT EXISTS mysql.gtid_executed ("
    "source_uuid CHAR(36) NOT NULL COMMENT 'uuid of the source where the transaction was originally executed.', "
    "interval_start BIGINT NOT NULL COMMENT 'First number of interval.', "
    "interval_end BIGINT NOT NULL COMMENT 'Last number of interval.', "
    "gtid_tag CHAR(32) NOT NULL COMMENT 'GTID Tag.', "
    "PRIMARY KEY(source_uuid, gtid_tag, interval_start)) ENGINE=InnoDB STATS_PERSISTENT=0"
)

#: mysql.gtid_executed before 8.3 (5.7 and 8.0, the manual's "mysql.gtid_executed Table" and their
#: ``scripts/mysql_system_tables.sql``): no gtid_tag column, primary key (source_uuid, interval_start).
GTID_EXECUTED_DDL_UNTAGGED = (
    "CREATE TABLE IF NOT EXISTS mysql.gtid_executed ("
    "source_uuid CHAR(36) NOT NULL COMMENT 'uuid of the source where the transaction was originally executed.', "
    "interval_start BIGINT NOT NULL COMMENT 'First number of interval.', "
    "interval_end BIGINT NOT NULL COMMENT 'Last number of interval.', "
    "PRIMARY KEY(source_uuid, interval_start)) ENGINE=InnoDB STATS_PERSISTENT=0"
)

SYSTEM_SCHEMAS = ("mysql", "information_schema", "performance_schema", "sys")
#: Schemas whose names (and table names) MySQL treats case-insensitively.
_CI_SCHEMAS = {"information_schema": str.upper, "performance_schema": str.lower}


#: Significant decimal digits every double gives back exactly (DBL_DIG): DECIMAL(M,D) with M up to this is held as
#: a SQLite number, wider ones as exact text (ColumnDef.exact_text).
DOUBLE_EXACT_DIGITS = 15


@dataclass(frozen=True, slots=True)
class TypeInfo:
    """One MySQL data type: family, SQLite affinity, binlog type code, storage bytes (ints), default length."""

    family: str  # int, float, decimal, string, binary, temporal, year, json
    affinity: str
    binlog_type: int
    int_bytes: int = 0
    default_length: int | None = None
    max_length: int | None = None  # bytes/characters for TEXT/BLOB variants


#: MySQL type name -> TypeInfo. Binlog codes from ``include/field_types.h`` (enum_field_types).
TYPE_INFO: dict[str, TypeInfo] = {
    "tinyint": TypeInfo("int", "INTEGER", 1, 1),
    "smallint": TypeInfo("int", "INTEGER", 2, 2),
    "mediumint": TypeInfo("int", "INTEGER", 9, 3),
    "int": TypeInfo("int", "INTEGER", 3, 4),
    "bigint": TypeInfo("int", "INTEGER", 8, 8),
    # BIT(M) (RM8 13.1.5 "Bit-Value Type"): 1..64 bits, held as its unsigned integer value (BIT(64) above 2**63-1 as
    # values.u64_to_sqlite's blob); binlogged as MYSQL_TYPE_BIT 16, sent to clients as its big-endian bytes
    "bit": TypeInfo("bit", "INTEGER", 16, 8, default_length=1),
    "float": TypeInfo("float", "REAL", 4),
    "double": TypeInfo("float", "REAL", 5),
    "decimal": TypeInfo("decimal", "NUMERIC", 246),
    "char": TypeInfo("string", "TEXT", 254, default_length=1),
    "varchar": TypeInfo("string", "TEXT", 15),
    "tinytext": TypeInfo("string", "TEXT", 252, max_length=255),
    "text": TypeInfo("string", "TEXT", 252, max_length=65535),
    "mediumtext": TypeInfo("string", "TEXT", 252, max_length=16777215),
    "longtext": TypeInfo("string", "TEXT", 252, max_length=4294967295),
    "binary": TypeInfo("binary", "BLOB", 254, default_length=1),
    "varbinary": TypeInfo("binary", "BLOB", 15),
    "tinyblob": TypeInfo("binary", "BLOB", 252, max_length=255),
    "blob": TypeInfo("binary", "BLOB", 252, max_length=65535),
    "mediumblob": TypeInfo("binary", "BLOB", 252, max_length=16777215),
    "longblob": TypeInfo("binary", "BLOB", 252, max_length=4294967295),
    "date": TypeInfo("temporal", "TEXT", 10),
    "datetime": TypeInfo("temporal", "TEXT", 18),
    "timestamp": TypeInfo("temporal", "TEXT", 17),
    "time": TypeInfo("temporal", "TEXT", 19),
    "year": TypeInfo("year", "INTEGER", 13),
    # JSON (RM8 13.5 "The JSON Data Type"): stored in SQLite as MySQL's canonical text, binlogged as binary JSON
    # (MYSQL_TYPE_JSON 245); no default literal (1101), like the BLOB family it is sized as (4 GiB)
    "json": TypeInfo("json", "TEXT", 245, max_length=4294967295),
    # ENUM / SET (RM8 13.3.5 / 13.3.6, engine/sql/enum_set.py): stored as the member text, binlogged as STRING (254)
    # whose metadata names the real type (MYSQL_TYPE_ENUM 247 / MYSQL_TYPE_SET 248) and the index's pack length
    "enum": TypeInfo("string", "TEXT", 254),
    "set": TypeInfo("string", "TEXT", 254),
    # spatial types (RM8 13.4, engine/sql/spatial.py): MySQL's internal SRID + WKB bytes, binlogged as
    # MYSQL_TYPE_GEOMETRY (255) with a 4-byte length like a LONGBLOB
    **{
        name: TypeInfo("geometry", "BLOB", 255, max_length=4294967295)
        for name in ("geometry", "point", "linestring", "polygon", "multipoint", "multilinestring")
        + ("multipolygon", "geomcollection")
    },
}

#: sqlglot DType name -> (MySQL type name, unsigned).
SQLGLOT_TYPES: dict[str, tuple[str, bool]] = {
    "TINYINT": ("tinyint", False),
    "UTINYINT": ("tinyint", True),
    "SMALLINT": ("smallint", False),
    "USMALLINT": ("smallint", True),
    "MEDIUMINT": ("mediumint", False),
    "UMEDIUMINT": ("mediumint", True),
    "INT": ("int", False),
    "UINT": ("int", True),
    "BIGINT": ("bigint", False),
    "UBIGINT": ("bigint", True),
    "BOOLEAN": ("tinyint", False),
    "BIT": ("bit", False),
    "FLOAT": ("float", False),
    "UFLOAT": ("float", True),
    "DOUBLE": ("double", False),
    "UDOUBLE": ("double", True),
    "DECIMAL": ("decimal", False),
    "UDECIMAL": ("decimal", True),
    "BIGDECIMAL": ("decimal", False),
    "CHAR": ("char", False),
    "NCHAR": ("char", False),
    "VARCHAR": ("varchar", False),
    "NVARCHAR": ("varchar", False),
    "TINYTEXT": ("tinytext", False),
    "TEXT": ("text", False),
    "MEDIUMTEXT": ("mediumtext", False),
    "LONGTEXT": ("longtext", False),
    "BINARY": ("binary", False),
    "VARBINARY": ("varbinary", False),
    "TINYBLOB": ("tinyblob", False),
    "BLOB": ("blob", False),
    "MEDIUMBLOB": ("mediumblob", False),
    "LONGBLOB": ("longblob", False),
    "DATE": ("date", False),
    "DATETIME": ("datetime", False),
    "TIMESTAMP": ("timestamp", False),
    "TIMESTAMPTZ": ("timestamp", False),
    "TIMESTAMPLTZ": ("timestamp", False),
    "TIME": ("time", False),
    "YEAR": ("year", False),
    "JSON": ("json", False),
    "ENUM": ("enum", False),
    "SET": ("set", False),
    "GEOMETRY": ("geometry", False),
}

#: Columns of performance_schema.threads (MySQL 8.0), in order.
#: performance_schema.threads' THREAD_ID of a thread with a PROCESSLIST_ID: the id plus this offset (MySQL numbers
#: all its threads in one sequence, background ones first, so the two differ; tools join on PROCESSLIST_ID).
THREAD_ID_OFFSET = 40
THREADS_COLUMNS = (
    "THREAD_ID",
    "NAME",
    "TYPE",
    "PROCESSLIST_ID",
    "PROCESSLIST_USER",
    "PROCESSLIST_HOST",
    "PROCESSLIST_DB",
    "PROCESSLIST_COMMAND",
    "PROCESSLIST_TIME",
    "PROCESSLIST_STATE",
    "PROCESSLIST_INFO",
    "PARENT_THREAD_ID",
    "ROLE",
    "INSTRUMENTED",
    "HISTORY",
    "CONNECTION_TYPE",
    "THREAD_OS_ID",
    "RESOURCE_GROUP",
)
#: performance_schema tables of system variables (RM8 29.12.14): ``global_variables`` / ``session_variables``, and
#: of status variables (RM8 29.12.15): ``global_status`` / ``session_status`` (VARIABLE_NAME, VARIABLE_VALUE), filled
#: per query by the session (see ``Executor.virtual_tables``).
VARIABLES_TABLES = ("global_variables", "session_variables", "global_status", "session_status")
VARIABLES_COLUMNS = ("VARIABLE_NAME", "VARIABLE_VALUE")
#: The process list as tables (RM8 28.3.23 INFORMATION_SCHEMA.PROCESSLIST, 29.12.21.7 performance_schema.processlist),
#: filled per query by the session (``Executor.virtual_tables``; the wire server provides the rows, as SHOW
#: PROCESSLIST shows them): ``(schema, table) -> ((column, type, length, unsigned, nullable), ...)``.
PROCESSLIST_TABLES: dict[tuple[str, str], tuple[tuple[str, str, int | None, bool, bool], ...]] = {
    ("information_schema", "PROCESSLIST"): (
        ("ID", "bigint", None, True, False),
        ("USER", "varchar", 32, False, False),
        ("HOST", "varchar", 261, False, False),
        ("DB", "varchar", 64, False, True),
        ("COMMAND", "varchar", 16, False, False),
        ("TIME", "int", None, False, False),
        ("STATE", "varchar", 64, False, True),
        ("INFO", "varchar", 65535, False, True),
    ),
    ("performance_schema", "processlist"): (
        ("ID", "bigint", None, True, False),
        ("USER", "varchar", 32, False, True),
        ("HOST", "varchar", 255, False, True),
        ("DB", "varchar", 64, False, True),
        ("COMMAND", "varchar", 16, False, True),
        ("TIME", "bigint", None, False, True),
        ("STATE", "varchar", 64, False, True),
        ("INFO", "longtext", None, False, True),
        ("EXECUTION_ENGINE", "varchar", 9, False, True),
    ),
}
#: performance_schema replication tables (RM8 29.12.11 "Performance Schema Replication Tables", MySQL 8.0 columns in
#: order), filled per query by the replica role (``Storage.table_providers``, see ``gtidkit.replication.replica``):
#: ``(schema, table) -> ((column, type, length, unsigned, nullable), ...)``. MySQL's ENUM columns (SERVICE_STATE,
#: AUTO_POSITION ...) and HEARTBEAT_INTERVAL (DECIMAL(10,3)) are VARCHAR here, holding the same texts.
REPLICATION_TABLES: dict[tuple[str, str], tuple[tuple[str, str, int | None, bool, bool], ...]] = {
    ("performance_schema", "replication_connection_configuration"): (
        ("CHANNEL_NAME", "char", 64, False, False),
        ("HOST", "char", 255, False, False),
        ("PORT", "int", None, False, False),
        ("USER", "char", 32, False, False),
        ("NETWORK_INTERFACE", "char", 60, False, False),
        ("AUTO_POSITION", "varchar", 16, False, False),
        ("SSL_ALLOWED", "varchar", 16, False, False),
        ("SSL_CA_FILE", "varchar", 512, False, False),
        ("SSL_CA_PATH", "varchar", 512, False, False),
        ("SSL_CERTIFICATE", "varchar", 512, False, False),
        ("SSL_CIPHER", "varchar", 512, False, False),
        ("SSL_KEY", "varchar", 512, False, False),
        ("SSL_VERIFY_SERVER_CERTIFICATE", "varchar", 16, False, False),
        ("SSL_CRL_FILE", "varchar", 255, False, False),
        ("SSL_CRL_PATH", "varchar", 255, False, False),
        ("CONNECTION_RETRY_INTERVAL", "int", None, False, False),
        ("CONNECTION_RETRY_COUNT", "bigint", None, True, False),
        ("HEARTBEAT_INTERVAL", "varchar", 16, False, False),
        ("TLS_VERSION", "varchar", 255, False, False),
        ("PUBLIC_KEY_PATH", "varchar", 512, False, False),
        ("GET_PUBLIC_KEY", "varchar", 16, False, False),
        ("NETWORK_NAMESPACE", "varchar", 64, False, False),
        ("COMPRESSION_ALGORITHM", "char", 64, False, False),
        ("ZSTD_COMPRESSION_LEVEL", "int", None, False, False),
        ("TLS_CIPHERSUITES", "text", None, False, True),
        ("SOURCE_CONNECTION_AUTO_FAILOVER", "varchar", 16, False, False),
        ("GTID_ONLY", "varchar", 16, False, False),
    ),
    ("performance_schema", "replication_connection_status"): (
        ("CHANNEL_NAME", "char", 64, False, False),
        ("GROUP_NAME", "char", 36, False, False),
        ("SOURCE_UUID", "char", 36, False, False),
        ("THREAD_ID", "bigint", None, True, True),
        ("SERVICE_STATE", "varchar", 16, False, False),
        ("COUNT_RECEIVED_HEARTBEATS", "bigint", None, True, False),
        ("LAST_HEARTBEAT_TIMESTAMP", "timestamp", None, False, False),
        ("RECEIVED_TRANSACTION_SET", "longtext", None, False, False),
        ("LAST_ERROR_NUMBER", "int", None, False, False),
        ("LAST_ERROR_MESSAGE", "varchar", 1024, False, False),
        ("LAST_ERROR_TIMESTAMP", "timestamp", None, False, False),
        ("LAST_QUEUED_TRANSACTION", "char", 57, False, True),
        ("LAST_QUEUED_TRANSACTION_ORIGINAL_COMMIT_TIMESTAMP", "timestamp", None, False, False),
        ("LAST_QUEUED_TRANSACTION_IMMEDIATE_COMMIT_TIMESTAMP", "timestamp", None, False, False),
        ("LAST_QUEUED_TRANSACTION_START_QUEUE_TIMESTAMP", "timestamp", None, False, False),
        ("LAST_QUEUED_TRANSACTION_END_QUEUE_TIMESTAMP", "timestamp", None, False, False),
        ("QUEUEING_TRANSACTION", "char", 57, False, True),
        ("QUEUEING_TRANSACTION_ORIGINAL_COMMIT_TIMESTAMP", "timestamp", None, False, False),
        ("QUEUEING_TRANSACTION_IMMEDIATE_COMMIT_TIMESTAMP", "timestamp", None, False, False),
        ("QUEUEING_TRANSACTION_START_QUEUE_TIMESTAMP", "timestamp", None, False, False),
    ),
    ("performance_schema", "replication_applier_status"): (
        ("CHANNEL_NAME", "char", 64, False, False),
        ("SERVICE_STATE", "varchar", 16, False, False),
        ("REMAINING_DELAY", "int", None, True, True),
        ("COUNT_TRANSACTIONS_RETRIES", "bigint", None, True, False),
    ),
    # storage/perfschema/table_replication_applier_configuration.cc (8.0.41)
    ("performance_schema", "replication_applier_configuration"): (
        ("CHANNEL_NAME", "char", 64, False, False),
        ("DESIRED_DELAY", "int", None, False, False),
        ("PRIVILEGE_CHECKS_USER", "text", None, False, True),
        ("REQUIRE_ROW_FORMAT", "varchar", 16, False, False),
        ("REQUIRE_TABLE_PRIMARY_KEY_CHECK", "varchar", 16, False, False),
        ("ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS_TYPE", "varchar", 16, False, False),
        ("ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS_VALUE", "text", None, False, True),
    ),
    # table_replication_applier_status_by_coordinator.cc: one row per channel with a multi-threaded applier
    ("performance_schema", "replication_applier_status_by_coordinator"): (
        ("CHANNEL_NAME", "char", 64, False, False),
        ("THREAD_ID", "bigint", None, True, True),
        ("SERVICE_STATE", "varchar", 16, False, False),
        ("LAST_ERROR_NUMBER", "int", None, False, False),
        ("LAST_ERROR_MESSAGE", "varchar", 1024, False, False),
        ("LAST_ERROR_TIMESTAMP", "timestamp", None, False, False),
        ("LAST_PROCESSED_TRANSACTION", "char", 57, False, True),
        ("LAST_PROCESSED_TRANSACTION_ORIGINAL_COMMIT_TIMESTAMP", "timestamp", None, False, False),
        ("LAST_PROCESSED_TRANSACTION_IMMEDIATE_COMMIT_TIMESTAMP", "timestamp", None, False, False),
        ("LAST_PROCESSED_TRANSACTION_START_BUFFER_TIMESTAMP", "timestamp", None, False, False),
        ("LAST_PROCESSED_TRANSACTION_END_BUFFER_TIMESTAMP", "timestamp", None, False, False),
        ("PROCESSING_TRANSACTION", "char", 57, False, True),
        ("PROCESSING_TRANSACTION_ORIGINAL_COMMIT_TIMESTAMP", "timestamp", None, False, False),
        ("PROCESSING_TRANSACTION_IMMEDIATE_COMMIT_TIMESTAMP", "timestamp", None, False, False),
        ("PROCESSING_TRANSACTION_START_BUFFER_TIMESTAMP", "timestamp", None, False, False),
    ),
    # table_replication_applier_status_by_worker.cc: one row per worker (WORKER_ID 0: the single-threaded applier)
    ("performance_schema", "replication_applier_status_by_worker"): (
        ("CHANNEL_NAME", "char", 64, False, False),
        ("WORKER_ID", "bigint", None, True, False),
        ("THREAD_ID", "bigint", None, True, True),
        ("SERVICE_STATE", "varchar", 16, False, False),
        ("LAST_ERROR_NUMBER", "int", None, False, False),
        ("LAST_ERROR_MESSAGE", "varchar", 1024, False, False),
        ("LAST_ERROR_TIMESTAMP", "timestamp", None, False, False),
        ("LAST_APPLIED_TRANSACTION", "char", 57, False, True),
        ("LAST_APPLIED_TRANSACTION_ORIGINAL_COMMIT_TIMESTAMP", "timestamp", None, False, False),
        ("LAST_APPLIED_TRANSACTION_IMMEDIATE_COMMIT_TIMESTAMP", "timestamp", None, False, False),
        ("LAST_APPLIED_TRANSACTION_START_APPLY_TIMESTAMP", "timestamp", None, False, False),
        ("LAST_APPLIED_TRANSACTION_END_APPLY_TIMESTAMP", "timestamp", None, False, False),
        ("APPLYING_TRANSACTION", "char", 57, False, True),
        ("APPLYING_TRANSACTION_ORIGINAL_COMMIT_TIMESTAMP", "timestamp", None, False, False),
        ("APPLYING_TRANSACTION_IMMEDIATE_COMMIT_TIMESTAMP", "timestamp", None, False, False),
        ("APPLYING_TRANSACTION_START_APPLY_TIMESTAMP", "timestamp", None, False, False),
        ("LAST_APPLIED_TRANSACTION_RETRIES_COUNT", "bigint", None, True, False),
        ("LAST_APPLIED_TRANSACTION_LAST_TRANSIENT_ERROR_NUMBER", "int", None, False, False),
        ("LAST_APPLIED_TRANSACTION_LAST_TRANSIENT_ERROR_MESSAGE", "varchar", 1024, False, True),
        ("LAST_APPLIED_TRANSACTION_LAST_TRANSIENT_ERROR_TIMESTAMP", "timestamp", None, False, False),
        ("APPLYING_TRANSACTION_RETRIES_COUNT", "bigint", None, True, False),
        ("APPLYING_TRANSACTION_LAST_TRANSIENT_ERROR_NUMBER", "int", None, False, False),
        ("APPLYING_TRANSACTION_LAST_TRANSIENT_ERROR_MESSAGE", "varchar", 1024, False, True),
        ("APPLYING_TRANSACTION_LAST_TRANSIENT_ERROR_TIMESTAMP", "timestamp", None, False, False),
    ),
    ("performance_schema", "replication_applier_filters"): (
        ("CHANNEL_NAME", "char", 64, False, False),
        ("FILTER_NAME", "char", 64, False, False),
        ("FILTER_RULE", "longtext", None, False, False),
        ("CONFIGURED_BY", "varchar", 64, False, False),
        ("ACTIVE_SINCE", "timestamp", None, False, False),
        ("COUNTER", "bigint", None, True, False),
    ),
    ("performance_schema", "replication_applier_global_filters"): (
        ("FILTER_NAME", "char", 64, False, False),
        ("FILTER_RULE", "longtext", None, False, False),
        ("CONFIGURED_BY", "varchar", 64, False, False),
        ("ACTIVE_SINCE", "timestamp", None, False, False),
    ),
}
#: Who waits for whom (issue 19 §4): InnoDB's lock-wait tables, MySQL 8.0 columns in order (RM8 "The
#: INFORMATION_SCHEMA INNODB_TRX Table", "The data_lock_waits Table"), filled per query by the engine server
#: (``engine/lock_waits.py``): ``(schema, table) -> ((column, type, length, unsigned, nullable), ...)``.
LOCK_WAIT_TABLES: dict[tuple[str, str], tuple[tuple[str, str, int | None, bool, bool], ...]] = {
    ("information_schema", "INNODB_TRX"): (
        ("trx_id", "bigint", None, True, False),
        ("trx_state", "varchar", 13, False, False),
        ("trx_started", "datetime", None, False, False),
        ("trx_requested_lock_id", "varchar", 105, False, True),
        ("trx_wait_started", "datetime", None, False, True),
        ("trx_weight", "bigint", None, True, False),
        ("trx_mysql_thread_id", "bigint", None, True, False),
        ("trx_query", "varchar", 1024, False, True),
        ("trx_operation_state", "varchar", 64, False, True),
        ("trx_tables_in_use", "bigint", None, True, False),
        ("trx_tables_locked", "bigint", None, True, False),
        ("trx_lock_structs", "bigint", None, True, False),
        ("trx_lock_memory_bytes", "bigint", None, True, False),
        ("trx_rows_locked", "bigint", None, True, False),
        ("trx_rows_modified", "bigint", None, True, False),
        ("trx_concurrency_tickets", "bigint", None, True, False),
        ("trx_isolation_level", "varchar", 16, False, False),
        ("trx_unique_checks", "int", None, False, False),
        ("trx_foreign_key_checks", "int", None, False, False),
        ("trx_last_foreign_key_error", "varchar", 256, False, True),
        ("trx_adaptive_hash_latched", "int", None, False, False),
        ("trx_adaptive_hash_timeout", "bigint", None, True, False),
        ("trx_is_read_only", "int", None, False, False),
        ("trx_autocommit_non_locking", "int", None, False, False),
        ("trx_schedule_weight", "bigint", None, True, True),
    ),
    ("performance_schema", "data_lock_waits"): (
        ("ENGINE", "varchar", 32, False, False),
        ("REQUESTING_ENGINE_LOCK_ID", "varchar", 128, False, False),
        ("REQUESTING_ENGINE_TRANSACTION_ID", "bigint", None, True, True),
        ("REQUESTING_THREAD_ID", "bigint", None, True, True),
        ("REQUESTING_EVENT_ID", "bigint", None, True, True),
        ("REQUESTING_OBJECT_INSTANCE_BEGIN", "bigint", None, True, False),
        ("BLOCKING_ENGINE_LOCK_ID", "varchar", 128, False, False),
        ("BLOCKING_ENGINE_TRANSACTION_ID", "bigint", None, True, True),
        ("BLOCKING_THREAD_ID", "bigint", None, True, True),
        ("BLOCKING_EVENT_ID", "bigint", None, True, True),
        ("BLOCKING_OBJECT_INSTANCE_BEGIN", "bigint", None, True, False),
    ),
}
_THREADS_TYPES = {
    "THREAD_ID": "bigint",
    "PROCESSLIST_ID": "bigint",
    "PROCESSLIST_TIME": "bigint",
    "PARENT_THREAD_ID": "bigint",
    "THREAD_OS_ID": "bigint",
}


@dataclass(frozen=True, slots=True)
class ColumnDef:
    """A MySQL column definition.

    ``type`` is MySQL's lowercase base type name (a key of :data:`TYPE_INFO`); ``length`` is characters for
    CHAR/VARCHAR, bytes for BINARY/VARBINARY, display width for YEAR; ``precision``/``scale`` for DECIMAL
    (MySQL's defaults 10,0) and fractional seconds (``scale``) for DATETIME/TIMESTAMP/TIME. ``default`` is the
    Python value after coercion to the column type (``None`` = NULL) and only meaningful when ``has_default``;
    ``default_expr`` is ``"CURRENT_TIMESTAMP"`` for such defaults; ``on_update`` likewise for ``ON UPDATE
    CURRENT_TIMESTAMP`` (set by UPDATE and ON DUPLICATE KEY UPDATE when the row changes and the column is not
    assigned).
    """

    name: str
    type: str
    length: int | None = None
    precision: int | None = None
    scale: int | None = None
    unsigned: bool = False
    zerofill: bool = False
    nullable: bool = True
    has_default: bool = False
    default: Any = None
    default_expr: str | None = None
    auto_increment: bool = False
    charset: str | None = None
    collation: str | None = None
    comment: str = ""
    on_update: str | None = None  # "CURRENT_TIMESTAMP" for ON UPDATE CURRENT_TIMESTAMP
    #: ENUM / SET members in definition order (trailing spaces removed), empty for other types
    members: tuple[str, ...] = ()
    #: INVISIBLE (RM8 13.1.20.10 "Invisible Columns"): left out of ``SELECT *`` and of INSERTs without a column list
    invisible: bool = False
    #: a spatial column's SRID attribute (values must have it: 3643), None when it has none
    srid: int | None = None

    @property
    def info(self) -> TypeInfo:
        """The :class:`TypeInfo` of this column's type."""
        return TYPE_INFO[self.type]

    def column_type(self) -> str:
        """MySQL 8.0's ``COLUMN_TYPE`` text (``int unsigned``, ``char(120)``, ``decimal(10,2)``, ``tinyint(1)``)."""
        t = self.type
        if t in ("char", "varchar", "binary", "varbinary"):
            t = f"{t}({self.length})"
        elif t in ("enum", "set"):
            t = f"{t}(" + ",".join("'" + m.replace("'", "''") + "'" for m in self.members) + ")"
        elif t == "decimal":
            t = f"decimal({self.precision},{self.scale})"
        elif t in ("float", "double") and self.precision is not None:
            t = f"{t}({self.precision},{self.scale or 0})"
        elif t in ("datetime", "timestamp", "time") and self.scale:
            t = f"{t}({self.scale})"
        elif t == "tinyint" and self.length == 1:
            t = "tinyint(1)"
        elif t == "bit":
            t = f"bit({self.length or 1})"
        elif self.zerofill and self.info.family == "int" and self.length:
            t = f"{t}({self.length})"  # 8.0.19+ shows a display width only with ZEROFILL (and for tinyint(1))
        if self.unsigned:
            t += " unsigned"
        if self.zerofill:
            t += " zerofill"
        return t

    def int_range(self) -> tuple[int, int] | None:
        """(min, max) of an integer column as MySQL enforces in strict mode, else ``None``."""
        info = self.info
        if info.family == "int":
            bits = info.int_bytes * 8
            return (0, 2**bits - 1) if self.unsigned else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
        if info.family == "year":
            return (0, 2155)
        if info.family == "bit":
            return (0, 2 ** (self.length or 1) - 1)
        return None

    def exact_text(self) -> bool:
        """True for a DECIMAL(M,D) with M > 15, held as its exact text (a double keeps 15 significant digits)."""
        return self.type == "decimal" and (self.precision or 10) > DOUBLE_EXACT_DIGITS

    def max_chars(self) -> int | None:
        """Maximum length (characters for strings, bytes for binary) or ``None`` for unbounded/non-string."""
        info = self.info
        if info.family not in ("string", "binary"):
            return None
        return self.length if self.length is not None else info.max_length

    def display_chars(self) -> int:
        """Characters of an ENUM (its longest member) or SET (all members with their commas); 0 for other types
        (``CHARACTER_MAXIMUM_LENGTH`` of information_schema.COLUMNS, the result-set length over mbmaxlen)."""
        if self.type == "enum":
            return max((len(m) for m in self.members), default=0)
        if self.type == "set":
            return sum(len(m) for m in self.members) + max(len(self.members) - 1, 0)
        return 0

    def is_text_ci(self) -> bool:
        """True when comparisons are case-insensitive (non-binary string with a ``_ci`` or default collation)."""
        return self.info.family == "string" and not (self.collation or "").endswith("_bin")


@dataclass(frozen=True, slots=True)
class IndexDef:
    """An index: MySQL name (``PRIMARY`` for the primary key), its columns in key order, uniqueness."""

    name: str
    columns: tuple[str, ...]
    unique: bool = False
    primary: bool = False
    #: per column, the key's prefix length in characters (``PRIMARY KEY (c(10))``), 0 for the whole column;
    #: empty when no column is a prefix
    prefixes: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class TableDef:
    """A MySQL table: schema, name, columns in order, indexes (primary first), options."""

    schema: str
    name: str
    columns: tuple[ColumnDef, ...]
    indexes: tuple[IndexDef, ...] = ()
    engine: str = "InnoDB"
    charset: str = "utf8mb4"
    collation: str = "utf8mb4_0900_ai_ci"
    comment: str = ""
    table_type: str = (
        "BASE TABLE"  # "VIEW" (CREATE VIEW), "SYSTEM VIEW" for information_schema / performance_schema
    )
    #: a VIEW's SELECT as written (engine/sql/views.py)
    view_definition: str = ""
    #: the ``PARTITION BY ...`` clause as written ("" when not partitioned); rows are stored in one table
    partitioning: str = ""

    @property
    def primary_key(self) -> tuple[str, ...]:
        """Column names of the primary key (empty when none)."""
        for ix in self.indexes:
            if ix.primary:
                return ix.columns
        return ()

    @property
    def column_names(self) -> tuple[str, ...]:
        """Column names in table order."""
        return tuple(c.name for c in self.columns)

    def column(self, name: str) -> ColumnDef | None:
        """The column called ``name`` (MySQL column names are case-insensitive), or ``None``."""
        low = name.lower()
        for c in self.columns:
            if c.name.lower() == low:
                return c
        return None

    def column_index(self, name: str) -> int:
        """Position of column ``name``; -1 when absent."""
        low = name.lower()
        for i, c in enumerate(self.columns):
            if c.name.lower() == low:
                return i
        return -1

    @property
    def auto_increment_column(self) -> ColumnDef | None:
        """The AUTO_INCREMENT column, if any."""
        for c in self.columns:
            if c.auto_increment:
                return c
        return None

    @property
    def rowid_pk(self) -> bool:
        """True when the primary key is one integer column, stored as SQLite's ``INTEGER PRIMARY KEY``."""
        pk = self.primary_key
        if len(pk) != 1:
            return False
        col = self.column(pk[0])
        # a BIGINT UNSIGNED key can hold values above SQLite's rowid range (values.u64_to_sqlite)
        return col is not None and col.info.family == "int" and not (col.unsigned and col.info.int_bytes == 8)

    @property
    def rowid_alias(self) -> str:
        """A name reaching SQLite's rowid that no MySQL column shadows (``rowid``, ``_rowid_`` or ``oid``).

        Raises:
            MySQLError: 1235 when the table has columns named all three.
        """
        names = {c.name.lower() for c in self.columns}
        for alias in ("rowid", "_rowid_", "oid"):
            if alias not in names:
                return alias
        raise mysql_error(1235, "columns named rowid, _rowid_ and oid")

    @property
    def unique_keys(self) -> tuple[IndexDef, ...]:
        """Primary and unique keys in MySQL's check order (primary first)."""
        return tuple(ix for ix in self.indexes if ix.unique or ix.primary)

    def to_json(self) -> str:
        """Serialise (with defaults that are not JSON-native wrapped): the text of ``_gk_tables.DEFINITION``."""
        d = _fields_dict(self)
        d["columns"] = [{**_fields_dict(c), "default": _wrap_default(c.default)} for c in self.columns]
        d["indexes"] = [_fields_dict(ix) for ix in self.indexes]
        return json.dumps(d, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> TableDef:
        """Inverse of :meth:`to_json`. Definitions are immutable, so equal texts share one decoded object (every
        start of a server reads the same system-table definitions)."""
        return _table_from_json(text)


def _fields_dict(obj: Any) -> dict[str, Any]:
    """The fields of a definition dataclass as a dict, values as they are (``dataclasses.asdict`` without its deep
    copy: the definitions are frozen and hold only immutable values; JSON writes tuples as lists either way)."""
    cls = type(obj)
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in fields(cls))
    return {name: getattr(obj, name) for name in names}


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


@functools.lru_cache(maxsize=4096)
def _table_from_json(text: str) -> TableDef:
    d = json.loads(text)
    cols = tuple(
        ColumnDef(**{**c, "default": _unwrap_default(c["default"]), "members": tuple(c.get("members", ()))})
        for c in d.pop("columns")
    )
    idx = tuple(
        IndexDef(
            name=i["name"],
            columns=tuple(i["columns"]),
            unique=i["unique"],
            primary=i["primary"],
            prefixes=tuple(i.get("prefixes", ())),
        )
        for i in d.pop("indexes")
    )
    return TableDef(columns=cols, indexes=idx, **d)


def _wrap_default(v: Any) -> Any:
    if isinstance(v, Decimal):
        return {"decimal": str(v)}
    if isinstance(v, bytes):
        return {"hex": v.hex()}
    return v


def _unwrap_default(v: Any) -> Any:
    if isinstance(v, dict):
        return Decimal(v["decimal"]) if "decimal" in v else bytes.fromhex(v["hex"])
    return v


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _lit(v: Any) -> str:
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return str(int(v))
    if isinstance(v, int) and v >= 2**63:
        return f"X'{v.to_bytes(8, 'big').hex()}'"  # values.u64_to_sqlite's form
    if isinstance(v, (int, float, Decimal)):
        return str(v)
    if isinstance(v, bytes):
        return f"X'{v.hex()}'"
    return "'" + str(v).replace("'", "''") + "'"


def physical_ddl(t: TableDef, prefix: str = "") -> list[str]:
    """SQLite statements creating table ``t`` and its secondary indexes (strict-mode CHECKs included).

    Args:
        t: the table.
        prefix: the SQLite schema of the file to create them in (``main.``, ``"db1".``: Storage.qualifier), or
            ``""`` (SQLite's default: main; what a temporary table's caller rewrites).
    """
    from gtidkit.engine.sql.names import physical_name

    phys = physical_name(t.schema, t.name)
    parts: list[str] = []
    rowid = t.rowid_pk
    for c in t.columns:
        info = c.info
        rng = c.int_range()
        # "INT", not "INTEGER": a single-column INTEGER key would become the rowid, which cannot hold the blobs of
        # values above 2**63-1 (values.u64_to_sqlite); the affinity is the same
        sql = f"{_q(c.name)} {'INT' if rng is not None and rng[1] >= 2**63 else info.affinity}"
        if c.exact_text():
            # DECIMAL with more digits than a double keeps: its exact text, compared by value (storage.py's
            # GK_DECIMAL collation; the name is repeated here as storage imports this module)
            sql = f"{_q(c.name)} TEXT COLLATE GK_DECIMAL"
        elif c.type == "time":
            sql = f"{_q(c.name)} TEXT COLLATE GK_TIME"  # by duration (storage.time_collation)
        if rowid and c.name == t.primary_key[0]:
            sql = f"{_q(c.name)} INTEGER PRIMARY KEY"
        if not c.nullable:
            sql += " NOT NULL"
        if c.has_default and c.default_expr is None:
            sql += f" DEFAULT {_lit(c.default)}"
        if c.is_text_ci():
            sql += " COLLATE NOCASE"
        checks = []
        if rng is not None and rng[1] >= 2**63:
            # 2**63 .. 2**64-1 are 8-byte big-endian blobs (values.u64_to_sqlite), which sort after every integer
            checks.append((f"gk:range:{c.name}", f"{_q(c.name)} >= 0"))
            q = _q(c.name)
            blob = f"(typeof({q}) = 'blob' AND length({q}) = 8 AND {q} >= X'8000000000000000')"
            checks.append((f"gk:type:{c.name}", f"typeof({q}) = 'integer' OR {blob}"))
        elif rng is not None:
            checks.append((f"gk:range:{c.name}", f"{_q(c.name)} BETWEEN {rng[0]} AND {rng[1]}"))
            checks.append((f"gk:type:{c.name}", f"typeof({_q(c.name)}) = 'integer'"))
        if info.family == "float" and c.unsigned:
            checks.append((f"gk:range:{c.name}", f"{_q(c.name)} >= 0"))
        n = c.max_chars()
        if n is not None and n < 4294967295:
            checks.append((f"gk:len:{c.name}", f"length({_q(c.name)}) <= {n}"))
        for cname, expr in checks:
            sql += f" CONSTRAINT {_q(cname)} CHECK ({_q(c.name)} IS NULL OR {expr})"
        parts.append(sql)
    pk = t.primary_key
    if pk and not rowid:
        parts.append(f"CONSTRAINT {_q('PRIMARY')} PRIMARY KEY ({', '.join(_q(c) for c in pk)})")
    stmts = [f"CREATE TABLE {prefix}{_q(phys)} ({', '.join(parts)})"]
    for ix in t.indexes:
        if not ix.primary:
            stmts.append(index_ddl(t, ix, prefix))
    return stmts


def index_ddl(t: TableDef, ix: IndexDef, prefix: str = "") -> str:
    """SQLite ``CREATE [UNIQUE] INDEX`` for MySQL index ``ix`` of ``t`` (named ``schema.table.index``), in the file
    ``prefix`` names (:func:`physical_ddl`)."""
    from gtidkit.engine.sql.names import physical_name

    phys = physical_name(t.schema, t.name)
    u = "UNIQUE " if ix.unique else ""
    return f"CREATE {u}INDEX {prefix}{_q(phys + '.' + ix.name)} ON {_q(phys)} ({', '.join(_q(c) for c in ix.columns)})"


# ---------------------------------------------------------------- information_schema views ----------------
#: The views that read another SQLite file's tables (gtidkit_file_per_schema): physical name -> the
#: ``CREATE TEMP VIEW`` every connection runs (``Connection.sync_views``; a SQLite view in a file can name only
#: that file's tables, a TEMP view any attached file's)
CROSS_VIEWS_TABLE = "_gk_cross_views"
_CATALOG_DDL = [
    (
        "CREATE TABLE IF NOT EXISTS _gk_schemata (SCHEMA_NAME TEXT PRIMARY KEY, DEFAULT_CHARACTER_SET_NAME TEXT, "
        "DEFAULT_COLLATION_NAME TEXT)"
    ),
    (
        "CREATE TABLE IF NOT EXISTS _gk_tables (TABLE_SCHEMA TEXT, TABLE_NAME TEXT, TABLE_TYPE TEXT, ENGINE TEXT, "
        "TABLE_COLLATION TEXT, TABLE_COMMENT TEXT, DEFINITION TEXT, PRIMARY KEY (TABLE_SCHEMA, TABLE_NAME))"
    ),
    (
        "CREATE TABLE IF NOT EXISTS _gk_columns (TABLE_SCHEMA TEXT, TABLE_NAME TEXT, COLUMN_NAME TEXT, "
        "ORDINAL_POSITION INTEGER, COLUMN_DEFAULT TEXT, IS_NULLABLE TEXT, DATA_TYPE TEXT, "
        "CHARACTER_MAXIMUM_LENGTH INTEGER, CHARACTER_OCTET_LENGTH INTEGER, NUMERIC_PRECISION INTEGER, "
        "NUMERIC_SCALE INTEGER, DATETIME_PRECISION INTEGER, CHARACTER_SET_NAME TEXT, COLLATION_NAME TEXT, "
        "COLUMN_TYPE TEXT, COLUMN_KEY TEXT, EXTRA TEXT, COLUMN_COMMENT TEXT, "
        "PRIMARY KEY (TABLE_SCHEMA, TABLE_NAME, ORDINAL_POSITION))"
    ),
    (
        "CREATE TABLE IF NOT EXISTS _gk_statistics (TABLE_SCHEMA TEXT, TABLE_NAME TEXT, NON_UNIQUE INTEGER, "
        "INDEX_SCHEMA TEXT, INDEX_NAME TEXT, SEQ_IN_INDEX INTEGER, COLUMN_NAME TEXT, NULLABLE TEXT)"
    ),
    # views reading tables of another SQLite file (engine/schema_files.py): each connection's TEMP view
    f"CREATE TABLE IF NOT EXISTS {CROSS_VIEWS_TABLE} (NAME TEXT PRIMARY KEY, DDL TEXT NOT NULL)",
]

_IS_VIEWS = {
    "VIEWS": (
        (
            "SELECT 'def' AS TABLE_CATALOG, TABLE_SCHEMA, TABLE_NAME, "
            "json_extract(DEFINITION, '$.view_definition') AS VIEW_DEFINITION, 'NONE' AS CHECK_OPTION, "
            "'NO' AS IS_UPDATABLE, 'root@localhost' AS DEFINER, 'DEFINER' AS SECURITY_TYPE, "
            "'utf8mb4' AS CHARACTER_SET_CLIENT, 'utf8mb4_0900_ai_ci' AS COLLATION_CONNECTION "
            "FROM _gk_tables WHERE TABLE_TYPE = 'VIEW'"
        ),
        [
            "TABLE_CATALOG",
            "TABLE_SCHEMA",
            "TABLE_NAME",
            "VIEW_DEFINITION",
            "CHECK_OPTION",
            "IS_UPDATABLE",
            "DEFINER",
            "SECURITY_TYPE",
            "CHARACTER_SET_CLIENT",
            "COLLATION_CONNECTION",
        ],
    ),
    "SCHEMATA": (
        (
            "SELECT 'def' AS CATALOG_NAME, SCHEMA_NAME, DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME, "
            "NULL AS SQL_PATH, 'NO' AS DEFAULT_ENCRYPTION FROM _gk_schemata"
        ),
        [
            "CATALOG_NAME",
            "SCHEMA_NAME",
            "DEFAULT_CHARACTER_SET_NAME",
            "DEFAULT_COLLATION_NAME",
            "SQL_PATH",
            "DEFAULT_ENCRYPTION",
        ],
    ),
    "TABLES": (
        (
            "SELECT 'def' AS TABLE_CATALOG, TABLE_SCHEMA, TABLE_NAME, TABLE_TYPE, ENGINE, 10 AS VERSION, "
            "'Dynamic' AS ROW_FORMAT, NULL AS TABLE_ROWS, 0 AS AVG_ROW_LENGTH, 0 AS DATA_LENGTH, "
            "0 AS MAX_DATA_LENGTH, 0 AS INDEX_LENGTH, 0 AS DATA_FREE, NULL AS AUTO_INCREMENT, NULL AS CREATE_TIME, "
            "NULL AS UPDATE_TIME, NULL AS CHECK_TIME, TABLE_COLLATION, NULL AS CHECKSUM, '' AS CREATE_OPTIONS, "
            "TABLE_COMMENT FROM _gk_tables"
        ),
        [
            "TABLE_CATALOG",
            "TABLE_SCHEMA",
            "TABLE_NAME",
            "TABLE_TYPE",
            "ENGINE",
            "VERSION",
            "ROW_FORMAT",
            "TABLE_ROWS",
            "AVG_ROW_LENGTH",
            "DATA_LENGTH",
            "MAX_DATA_LENGTH",
            "INDEX_LENGTH",
            "DATA_FREE",
            "AUTO_INCREMENT",
            "CREATE_TIME",
            "UPDATE_TIME",
            "CHECK_TIME",
            "TABLE_COLLATION",
            "CHECKSUM",
            "CREATE_OPTIONS",
            "TABLE_COMMENT",
        ],
    ),
    "COLUMNS": (
        (
            "SELECT 'def' AS TABLE_CATALOG, TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, ORDINAL_POSITION, COLUMN_DEFAULT, "
            "IS_NULLABLE, DATA_TYPE, CHARACTER_MAXIMUM_LENGTH, CHARACTER_OCTET_LENGTH, NUMERIC_PRECISION, "
            "NUMERIC_SCALE, DATETIME_PRECISION, CHARACTER_SET_NAME, COLLATION_NAME, COLUMN_TYPE, COLUMN_KEY, EXTRA, "
            "'select,insert,update,references' AS PRIVILEGES, COLUMN_COMMENT, '' AS GENERATION_EXPRESSION, "
            "NULL AS SRS_ID FROM _gk_columns"
        ),
        [
            "TABLE_CATALOG",
            "TABLE_SCHEMA",
            "TABLE_NAME",
            "COLUMN_NAME",
            "ORDINAL_POSITION",
            "COLUMN_DEFAULT",
            "IS_NULLABLE",
            "DATA_TYPE",
            "CHARACTER_MAXIMUM_LENGTH",
            "CHARACTER_OCTET_LENGTH",
            "NUMERIC_PRECISION",
            "NUMERIC_SCALE",
            "DATETIME_PRECISION",
            "CHARACTER_SET_NAME",
            "COLLATION_NAME",
            "COLUMN_TYPE",
            "COLUMN_KEY",
            "EXTRA",
            "PRIVILEGES",
            "COLUMN_COMMENT",
            "GENERATION_EXPRESSION",
            "SRS_ID",
        ],
    ),
    "STATISTICS": (
        (
            "SELECT 'def' AS TABLE_CATALOG, TABLE_SCHEMA, TABLE_NAME, NON_UNIQUE, INDEX_SCHEMA, INDEX_NAME, "
            "SEQ_IN_INDEX, COLUMN_NAME, 'A' AS COLLATION, NULL AS CARDINALITY, NULL AS SUB_PART, NULL AS PACKED, "
            "NULLABLE, 'BTREE' AS INDEX_TYPE, '' AS COMMENT, '' AS INDEX_COMMENT, 'YES' AS IS_VISIBLE, "
            "NULL AS EXPRESSION FROM _gk_statistics"
        ),
        [
            "TABLE_CATALOG",
            "TABLE_SCHEMA",
            "TABLE_NAME",
            "NON_UNIQUE",
            "INDEX_SCHEMA",
            "INDEX_NAME",
            "SEQ_IN_INDEX",
            "COLUMN_NAME",
            "COLLATION",
            "CARDINALITY",
            "SUB_PART",
            "PACKED",
            "NULLABLE",
            "INDEX_TYPE",
            "COMMENT",
            "INDEX_COMMENT",
            "IS_VISIBLE",
            "EXPRESSION",
        ],
    ),
}
_IS_INT_COLUMNS = {
    "NON_UNIQUE",
    "SEQ_IN_INDEX",
    "CARDINALITY",
    "SUB_PART",
    "ORDINAL_POSITION",
    "CHARACTER_MAXIMUM_LENGTH",
    "CHARACTER_OCTET_LENGTH",
    "NUMERIC_PRECISION",
    "NUMERIC_SCALE",
    "DATETIME_PRECISION",
    "VERSION",
    "TABLE_ROWS",
    "AVG_ROW_LENGTH",
    "DATA_LENGTH",
    "MAX_DATA_LENGTH",
    "INDEX_LENGTH",
    "DATA_FREE",
    "AUTO_INCREMENT",
    "CHECKSUM",
    "SRS_ID",
}


def _system_view_def(
    schema: str, name: str, columns: list[str], types: dict[str, str] | None = None
) -> TableDef:
    types = types or {}
    cols = []
    for c in columns:
        t = types.get(c) or ("bigint" if c in _IS_INT_COLUMNS else "varchar")
        cols.append(ColumnDef(name=c, type=t, length=64 if t == "varchar" else None, unsigned=t == "bigint"))
    return TableDef(
        schema=schema,
        name=name,
        columns=tuple(cols),
        engine="",
        table_type="SYSTEM VIEW",
        collation="utf8mb3_general_ci",
    )


#: catalog rows of recently stored definitions (every server start stores the same system tables)
_CATALOG_ROWS: dict[TableDef, tuple[str, list[tuple], list[tuple]]] = {}


def _catalog_rows(t: TableDef) -> tuple[str, list[tuple], list[tuple]]:
    """The ``_gk_tables.DEFINITION`` text, ``_gk_columns`` rows and ``_gk_statistics`` rows of ``t``.

    They depend only on the (immutable) definition, so equal definitions share them; a definition with a default
    that cannot be hashed is computed each time.
    """
    try:
        hit = _CATALOG_ROWS.get(t)
    except TypeError:
        return t.to_json(), _column_rows(t), _statistics_rows(t)
    if hit is None:
        if len(_CATALOG_ROWS) >= 1024:
            _CATALOG_ROWS.clear()
        hit = _CATALOG_ROWS[t] = (t.to_json(), _column_rows(t), _statistics_rows(t))
    return hit


def _column_rows(t: TableDef) -> list[tuple]:
    pk = set(t.primary_key)
    uniq = {ix.columns[0] for ix in t.indexes if ix.unique and not ix.primary and len(ix.columns) == 1}
    mul = {ix.columns[0] for ix in t.indexes if not ix.primary and not (ix.unique and len(ix.columns) == 1)}
    rows = []
    for pos, c in enumerate(t.columns, 1):
        info = c.info
        key = "PRI" if c.name in pk else "UNI" if c.name in uniq else "MUL" if c.name in mul else ""
        extra = "auto_increment" if c.auto_increment else ("DEFAULT_GENERATED" if c.default_expr else "")
        if c.on_update:
            extra = (extra + " " if extra else "") + "on update CURRENT_TIMESTAMP"
        if c.invisible:  # RM8 13.1.20.10: information_schema.COLUMNS.EXTRA says INVISIBLE
            extra = (extra + " " if extra else "") + "INVISIBLE"
        default = (
            c.default_expr
            if c.default_expr
            else (None if not c.has_default or c.default is None else _default_text(c.default))
        )
        charlen = octlen = nprec = nscale = dtprec = None
        cs = coll = None
        if info.family in ("string", "binary"):
            charlen = c.max_chars() if c.type not in ("enum", "set") else c.display_chars()
            maxlen = charsets.lookup(c.charset or t.charset).maxlen if info.family == "string" else 1
            octlen = (
                charlen * maxlen
                if info.family == "string" and charlen is not None and info.max_length is None
                else charlen
            )
            if info.family == "string":
                cs = c.charset or t.charset
                coll = c.collation or t.collation
        elif info.family == "int":
            nprec = {1: 3, 2: 5, 3: 7, 4: 10, 8: 19 if not c.unsigned else 20}[info.int_bytes]
            nscale = 0
        elif info.family == "bit":
            nprec = c.length or 1
        elif info.family == "decimal":
            nprec, nscale = c.precision, c.scale
        elif info.family == "float":
            nprec = 12 if c.type == "float" else 22
        elif info.family == "temporal" and c.type != "date":
            dtprec = c.scale or 0
        rows.append(
            (
                t.schema,
                t.name,
                c.name,
                pos,
                default,
                "YES" if c.nullable else "NO",
                c.type,
                charlen,
                octlen,
                nprec,
                nscale,
                dtprec,
                cs,
                coll,
                c.column_type(),
                key,
                extra,
                c.comment,
            )
        )
    return rows


def _delete_catalog_rows(conn: Connection, t: TableDef) -> None:
    for table in ("_gk_tables", "_gk_columns", "_gk_statistics"):
        conn.execute(f"DELETE FROM {table} WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?", (t.schema, t.name))


def _statistics_rows(t: TableDef) -> list[tuple]:
    rows = []
    for ix in t.indexes:
        for seq, c in enumerate(ix.columns, 1):
            col = t.column(c)
            rows.append(
                (
                    t.schema,
                    t.name,
                    0 if ix.unique else 1,
                    t.schema,
                    ix.name,
                    seq,
                    c,
                    "YES" if col is not None and col.nullable else "",
                )
            )
    return rows


def _default_text(v: Any) -> str:
    if isinstance(v, bytes):
        return "0x" + v.hex()
    return str(v)


@dataclass
class SchemaDef:
    """A MySQL database (schema): name and default character set / collation."""

    name: str
    charset: str = "utf8mb4"
    collation: str = "utf8mb4_0900_ai_ci"


def auto_increment_series(counter: int, step: tuple[int, int]) -> int:
    """The AUTO_INCREMENT value a row takes when the table's counter (the next free value) is ``counter``:
    the smallest ``offset + k * increment`` at or above it (``compute_next_insert_id`` applied to ``counter - 1``,
    ``sql/handler.cc``; RM8 "auto_increment_increment": increment 10, offset 5 give 5, 15, 25, ...).

    Args:
        counter: the table's next free value (>= 1).
        step: ``(auto_increment_increment, auto_increment_offset)``, each 1..65535; an offset above the
            increment is ignored (RM8), as 1.
    """
    increment, offset = step
    if increment == 1:
        return counter
    if offset > increment:
        offset = 1
    return (counter - 1 + increment - offset) // increment * increment + offset


class Catalog:
    """In-memory view of the persisted catalog, shared by all connections of one :class:`Storage`.

    Readers use :meth:`get_table`/:meth:`has_schema` (dict lookups). Writers call the DDL methods with a
    connection inside an open transaction; the SQLite catalog rows change in that transaction and the cache is
    updated at once (and reloaded from disk if the transaction rolls back). ``version`` increments on every
    change, so statement caches keyed by it never serve a stale plan.
    """

    def __init__(self, storage: Storage, parse_ddl: Callable[[str, str | None], TableDef]) -> None:
        """Args:
        storage: the engine database this catalog describes.
        parse_ddl: MySQL ``CREATE TABLE`` text (and default schema) -> :class:`TableDef`, used for the built-in
            system tables; the DDL parser (:func:`gtidkit.engine.sql.ddl.parse_create_table_text`) sits above
            the catalog, so it is passed in rather than imported (no import cycle).
        """
        self.storage = storage
        self._parse_ddl = parse_ddl
        self.version = 0
        self._lock = threading.RLock()
        self._schemas: dict[str, SchemaDef] = {}
        self._tables: dict[tuple[str, str], TableDef] = {}
        self._auto_inc: dict[tuple[str, str], int] = {}

    # ---------------------------------------------------------------- reading
    def canonical_schema(self, name: str) -> str:
        """Return MySQL's spelling of schema ``name`` (information_schema/performance_schema fold case)."""
        low = name.lower()
        if low in _CI_SCHEMAS:
            return low
        return name

    def canonical_table(self, schema: str, name: str) -> str:
        """Return the stored spelling of table ``name`` in ``schema`` (case folding for system schemas)."""
        fold = _CI_SCHEMAS.get(schema)
        return fold(name) if fold else name

    def has_schema(self, name: str) -> bool:
        """True when schema ``name`` exists."""
        return self.canonical_schema(name) in self._schemas

    def schema_charset(self, name: str) -> tuple[str, str]:
        """``(default character set, default collation)`` of schema ``name`` (canonical spelling).

        Raises:
            KeyError: ``name`` is not a schema (check :meth:`has_schema` first).
        """
        s = self._schemas[self.canonical_schema(name)]
        return (s.charset, s.collation)

    def schemas(self) -> list[str]:
        """All schema names, sorted."""
        return sorted(self._schemas)

    def tables(self, schema: str) -> list[TableDef]:
        """Tables of ``schema`` sorted by name."""
        schema = self.canonical_schema(schema)
        return sorted((t for (s, _), t in self._tables.items() if s == schema), key=lambda t: t.name)

    def get_table(self, schema: str, name: str) -> TableDef | None:
        """The :class:`TableDef` of ``schema.name`` or ``None``."""
        schema = self.canonical_schema(schema)
        return self._tables.get((schema, self.canonical_table(schema, name)))

    def require_table(self, schema: str | None, name: str) -> TableDef:
        """Like :meth:`get_table` but raising MySQL's errors.

        Raises:
            MySQLError: 1046 (3D000) "No database selected" when ``schema`` is None; 1146 (42S02) "Table 'db.t'
                doesn't exist".
        """
        if schema is None:
            raise mysql_error(1046)
        t = self.get_table(schema, name)
        if t is None:
            raise mysql_error(1146, schema, name)
        return t

    # ---------------------------------------------------------------- bootstrap / reload
    def bootstrap(self, conn: Connection, *, gtid_tag_column: bool = True) -> None:
        """Create catalog tables, built-in schemas, information_schema views and ``mysql.gtid_executed`` if
        missing, then load the cache. Idempotent; runs in its own transaction.

        Args:
            gtid_tag_column: create mysql.gtid_executed with its 8.3+ ``gtid_tag`` column (else the 5.7/8.0
                shape). An existing table keeps its layout, except that a 5.7/8.0 one opened as 8.3+ is upgraded
                (gtid_tag added, rows kept with the empty tag), as MySQL upgrades its system tables.
        """
        conn.begin()
        try:
            for ddl in _CATALOG_DDL:
                conn.execute(ddl)
            self._load(conn)
            for s in SYSTEM_SCHEMAS:
                if s not in self._schemas:
                    coll = "utf8mb3_general_ci" if s in _CI_SCHEMAS else "utf8mb4_0900_ai_ci"
                    self._insert_schema(conn, SchemaDef(s, coll.split("_")[0], coll))
            for view, (select, cols) in _IS_VIEWS.items():
                if ("information_schema", view) not in self._tables:
                    conn.execute(f"CREATE VIEW {_q('information_schema.' + view)} AS {select}")
                    self._insert_table_rows(conn, _system_view_def("information_schema", view, cols))
            for view, (select, cols) in IS_OBJECT_VIEWS.items():
                if ("information_schema", view) not in self._tables:
                    conn.execute(f"CREATE VIEW {_q('information_schema.' + view)} AS {select}")
                    self._insert_table_rows(
                        conn, _system_view_def("information_schema", view, cols, IS_OBJECT_TYPES)
                    )
            if ("performance_schema", "threads") not in self._tables:
                self._insert_table_rows(
                    conn,
                    _system_view_def("performance_schema", "threads", list(THREADS_COLUMNS), _THREADS_TYPES),
                )
            for name in VARIABLES_TABLES:
                if ("performance_schema", name) not in self._tables:
                    self._insert_table_rows(
                        conn, _system_view_def("performance_schema", name, list(VARIABLES_COLUMNS))
                    )
            for (schema, name), spec in {
                **PROCESSLIST_TABLES,
                **REPLICATION_TABLES,
                **LOCK_WAIT_TABLES,
            }.items():
                if (schema, name) not in self._tables:
                    self._insert_table_rows(
                        conn,
                        TableDef(
                            schema=schema,
                            name=name,
                            columns=tuple(
                                ColumnDef(name=c, type=t, length=n, unsigned=u, nullable=null)
                                for c, t, n, u, null in spec
                            ),
                            engine="",
                            table_type="SYSTEM VIEW",
                            collation="utf8mb3_general_ci",
                        ),
                    )
            gtids = self._tables.get(("mysql", "gtid_executed"))
            if gtids is None:
                ddl = GTID_EXECUTED_DDL if gtid_tag_column else GTID_EXECUTED_DDL_UNTAGGED
                self.create_table(conn, self._parse_ddl(ddl, None), if_not_exists=True)
            elif gtid_tag_column and all(c.name != "gtid_tag" for c in gtids.columns):
                self._add_gtid_tag(conn)
            # log tables, grant tables (engine/accounts): parsed only when missing (a datadir's every open)
            for name, ddl in {**LOG_TABLE_DDL, **GRANT_TABLE_DDL}.items():
                if self.get_table("mysql", name) is None:
                    self.create_table(conn, self._parse_ddl(ddl, None), if_not_exists=True)
            conn.commit()
        except BaseException:
            conn.rollback()
            raise
        self._load(conn)

    def _add_gtid_tag(self, conn: Connection) -> None:
        """Upgrade a 5.7/8.0 datadir's mysql.gtid_executed to the 8.3+ shape (as MySQL's server upgrade does):
        re-create it with ``gtid_tag`` in the columns and the key, its rows kept with the empty tag."""
        from gtidkit.engine.sql.names import physical_name

        table = _q(physical_name("mysql", "gtid_executed"))
        rows = conn.execute(f"SELECT source_uuid, interval_start, interval_end FROM {table}").fetchall()
        self.drop_table(conn, "mysql", "gtid_executed")
        self.create_table(conn, self._parse_ddl(GTID_EXECUTED_DDL, None))
        conn.executemany(
            f"INSERT INTO {table} (source_uuid, interval_start, interval_end, gtid_tag) VALUES (?,?,?,'')",
            [tuple(r) for r in rows],
        )

    def ensure_table(self, conn: Connection, create_sql: str) -> bool:
        """Create a system table from MySQL DDL text (``CREATE TABLE IF NOT EXISTS db.t (...)``) if absent.

        For the GTID core's own tables (e.g. an applied-binlog-position table in ``mysql``). ``conn`` must be in
        a transaction. Returns True when created.
        """
        return self.create_table(conn, self._parse_ddl(create_sql, None), if_not_exists=True)

    def reload(self, conn: Connection) -> None:
        """Re-read the catalog from the database (after a rolled-back DDL)."""
        self._load(conn)

    def _load(self, conn: Connection) -> None:
        with self._lock:
            schemas = {r[0]: SchemaDef(r[0], r[1], r[2]) for r in conn.execute("SELECT * FROM _gk_schemata")}
            tables = {}
            for s, n, d in conn.execute("SELECT TABLE_SCHEMA, TABLE_NAME, DEFINITION FROM _gk_tables"):
                tables[(s, n)] = TableDef.from_json(d)
            self._schemas, self._tables = schemas, tables
            self._auto_inc = {k: v for k, v in self._auto_inc.items() if k in tables}
            self.version += 1

    # ---------------------------------------------------------------- DDL
    def _insert_schema(self, conn: Connection, s: SchemaDef) -> None:
        conn.execute("INSERT INTO _gk_schemata VALUES (?, ?, ?)", (s.name, s.charset, s.collation))
        self._schemas[s.name] = s
        self.version += 1

    def _insert_table_rows(self, conn: Connection, t: TableDef) -> None:
        definition, columns, statistics = _catalog_rows(t)
        conn.execute(
            "INSERT INTO _gk_tables VALUES (?, ?, ?, ?, ?, ?, ?)",
            (t.schema, t.name, t.table_type, t.engine or None, t.collation or None, t.comment, definition),
        )
        conn.executemany(f"INSERT INTO _gk_columns VALUES ({', '.join('?' * 18)})", columns)
        conn.executemany("INSERT INTO _gk_statistics VALUES (?, ?, ?, ?, ?, ?, ?, ?)", statistics)
        self._tables[(t.schema, t.name)] = t
        self.version += 1

    def create_schema(
        self,
        conn: Connection,
        name: str,
        *,
        if_not_exists: bool = False,
        charset: str | None = None,
        collation: str | None = None,
    ) -> bool:
        """``CREATE DATABASE``. Returns False (MySQL adds warning 1007) when it exists and ``if_not_exists``.

        Raises:
            MySQLError: 1007 (HY000) "Can't create database 'x'; database exists".
        """
        name = self.canonical_schema(name)
        with self._lock:
            if name in self._schemas:
                if if_not_exists:
                    return False
                raise mysql_error(1007, name)
            conn.ddl_in_transaction = True
            # a character set alone takes its default collation; a collation alone names its character set
            # (RM 8.4 "Database Character Set and Collation")
            if charset is None and collation:
                charset = collation.split("_")[0]
            cs = charsets.lookup(charset or "utf8mb4")
            self.storage.create_schema_file(name)  # gtidkit_file_per_schema: its own SQLite file
            self._insert_schema(conn, SchemaDef(name, cs.name, collation or cs.default_collation))
            return True

    def drop_schema(self, conn: Connection, name: str, *, if_exists: bool = False) -> list[str] | None:
        """``DROP DATABASE``: drops its tables too. Returns dropped table names, or None if absent + if_exists.

        Raises:
            MySQLError: 1008 (HY000) "Can't drop database 'x'; database doesn't exist"; 3552 (HY000) for a
                system schema ("Access to system schema 'mysql' is rejected.").
        """
        name = self.canonical_schema(name)
        with self._lock:
            if name not in self._schemas:
                if if_exists:
                    return None
                raise mysql_error(1008, name)
            if name in SYSTEM_SCHEMAS:
                raise mysql_error(3552, name)
            conn.ddl_in_transaction = True
            self.storage.drop_schema_file(conn, name)  # its file goes once the drop commits
            dropped = []
            for t in self.tables(name):
                self.drop_table(conn, name, t.name)
                dropped.append(t.name)
            conn.execute("DELETE FROM _gk_schemata WHERE SCHEMA_NAME = ?", (name,))
            del self._schemas[name]
            self.version += 1
            return dropped

    def create_table(self, conn: Connection, t: TableDef, *, if_not_exists: bool = False) -> bool:
        """Create the physical table, its indexes and catalog rows. False when it exists and ``if_not_exists``.

        Raises:
            MySQLError: 1049 unknown database; 1050 (42S01) "Table 't' already exists"; 1044-like 3552 for
                information_schema/performance_schema.
        """
        with self._lock:
            if t.schema not in self._schemas:
                raise mysql_error(1049, t.schema)
            if (t.schema, t.name) in self._tables or self._case_clash(t.schema, t.name):
                if if_not_exists:
                    return False
                raise mysql_error(1050, t.name)
            if t.schema in _CI_SCHEMAS:
                raise mysql_error(3552, t.schema)
            conn.ddl_in_transaction = True
            for stmt in physical_ddl(t, self.storage.qualifier(t.schema)):
                conn.file_execute(t.schema, stmt)  # kept for the schema file's redo (engine/schema_files.py)
            self._insert_table_rows(conn, t)
            self._auto_inc.pop((t.schema, t.name), None)
            return True

    def create_view(
        self,
        conn: Connection,
        view: TableDef,
        sqlite_ddl: str,
        *,
        replace: bool = False,
        cross_file: bool = False,
    ) -> None:
        """Create (or with ``replace``, redefine) the view ``view`` as the SQLite view ``sqlite_ddl`` defines.

        Args:
            cross_file: the view reads tables of another SQLite file than its schema's (gtidkit_file_per_schema):
                ``sqlite_ddl`` is then a ``CREATE TEMP VIEW``, kept in :data:`CROSS_VIEWS_TABLE` and run by every
                connection (``Connection.sync_views``), as SQLite lets only a TEMP view name several files.

        Raises:
            MySQLError: 1049 unknown database; 1050 the name exists (without ``replace``).
        """
        with self._lock:
            if view.schema not in self._schemas:
                raise mysql_error(1049, view.schema)
            old = self._tables.get((view.schema, view.name))
            if old is not None or self._case_clash(view.schema, view.name):
                if not replace or old is None:
                    raise mysql_error(1050, view.name)
                self.drop_table(conn, view.schema, view.name)
            conn.ddl_in_transaction = True
            if cross_file:
                from gtidkit.engine.sql.names import physical_name

                name = physical_name(view.schema, view.name)
                conn.execute(f"INSERT INTO {CROSS_VIEWS_TABLE} (NAME, DDL) VALUES (?, ?)", (name, sqlite_ddl))
                conn.execute(f"DROP VIEW IF EXISTS temp.{_q(name)}")
                conn.execute(sqlite_ddl)  # this connection's now; the others' at their next statement
                conn.after_commit(self.storage.cross_views_changed)
            else:
                conn.file_execute(view.schema, sqlite_ddl)
            self._insert_table_rows(conn, view)

    def _case_clash(self, schema: str, name: str) -> bool:
        low = name.lower()
        return any(s == schema and n.lower() == low for (s, n) in self._tables)

    def drop_table(self, conn: Connection, schema: str, name: str) -> None:
        """Drop table ``schema.name`` and its catalog rows.

        Raises:
            MySQLError: 1051 (42S02) "Unknown table 'db.t'"; 3552 for system views.
        """
        from gtidkit.engine.sql.names import physical_name

        with self._lock:
            t = self.get_table(schema, name)
            if t is None:
                raise mysql_error(1051, str(schema) + "." + str(name))
            if t.table_type not in ("BASE TABLE", "VIEW"):
                raise mysql_error(3552, t.schema)
            conn.ddl_in_transaction = True
            kind = "VIEW" if t.table_type == "VIEW" else "TABLE"
            phys = physical_name(t.schema, t.name)
            if kind == "VIEW" and phys in self.storage.cross_views():
                conn.execute(f"DELETE FROM {CROSS_VIEWS_TABLE} WHERE NAME = ?", (phys,))
                conn.execute(f"DROP VIEW IF EXISTS temp.{_q(phys)}")
                conn.after_commit(self.storage.cross_views_changed)
            else:
                conn.file_execute(t.schema, f"DROP {kind} {self.storage.qualifier(t.schema)}{_q(phys)}")
            _delete_catalog_rows(conn, t)
            del self._tables[(t.schema, t.name)]
            self._auto_inc.pop((t.schema, t.name), None)
            self.version += 1

    def drop_catalog_rows(self, conn: Connection, t: TableDef) -> None:
        """Remove ``t``'s catalog rows and cache entry (the physical table is the caller's business)."""
        with self._lock:
            conn.ddl_in_transaction = True
            _delete_catalog_rows(conn, t)
            self._tables.pop((t.schema, t.name), None)
            self._auto_inc.pop((t.schema, t.name), None)
            self.version += 1

    def insert_catalog_rows(self, conn: Connection, t: TableDef) -> None:
        """Add ``t``'s catalog rows and cache entry (the physical table must exist or be created alongside)."""
        with self._lock:
            conn.ddl_in_transaction = True
            self._insert_table_rows(conn, t)
            self._auto_inc.pop((t.schema, t.name), None)

    def alter_schema(self, conn: Connection, name: str, charset: str | None, collation: str | None) -> None:
        """``ALTER DATABASE``: change the default character set / collation.

        Raises:
            MySQLError: 1049 unknown database.
        """
        name = self.canonical_schema(name)
        with self._lock:
            s = self._schemas.get(name)
            if s is None:
                raise mysql_error(1049, name)
            conn.ddl_in_transaction = True
            s2 = SchemaDef(
                name,
                charset or s.charset,
                collation or (s.collation if not charset else f"{charset}_general_ci"),
            )
            conn.execute(
                "UPDATE _gk_schemata SET DEFAULT_CHARACTER_SET_NAME = ?, DEFAULT_COLLATION_NAME = ? "
                "WHERE SCHEMA_NAME = ?",
                (s2.charset, s2.collation, name),
            )
            self._schemas[name] = s2
            self.version += 1

    def replace_table(self, conn: Connection, t: TableDef) -> None:
        """Rewrite the catalog rows of existing table ``t`` (after CREATE INDEX and similar)."""
        with self._lock:
            conn.ddl_in_transaction = True
            _delete_catalog_rows(conn, t)
            self._insert_table_rows(conn, t)

    def create_index(self, conn: Connection, schema: str, table: str, ix: IndexDef) -> None:
        """``CREATE [UNIQUE] INDEX``.

        Raises:
            MySQLError: 1146 unknown table; 1061 (42000) "Duplicate key name 'x'"; 1072 (42000) "Key column 'c'
                doesn't exist in table".
        """
        with self._lock:
            t = self.require_table(schema, table)
            if any(i.name.lower() == ix.name.lower() for i in t.indexes):
                raise mysql_error(1061, ix.name)
            cols = []
            for c in ix.columns:
                col = t.column(c)
                if col is None:
                    raise mysql_error(1072, c)
                cols.append(col.name)
            ix = replace(ix, columns=tuple(cols))
            conn.ddl_in_transaction = True
            conn.file_execute(t.schema, index_ddl(t, ix, self.storage.qualifier(t.schema)))
            self.replace_table(conn, replace(t, indexes=t.indexes + (ix,)))

    def drop_index(self, conn: Connection, schema: str, table: str, name: str) -> None:
        """``DROP INDEX name ON t``.

        Raises:
            MySQLError: 1091 (42000) "Can't DROP 'x'; check that column/key exists".
        """
        from gtidkit.engine.sql.names import physical_name

        with self._lock:
            t = self.require_table(schema, table)
            keep = tuple(i for i in t.indexes if i.name.lower() != name.lower() or i.primary)
            if len(keep) == len(t.indexes):
                raise mysql_error(1091, name)
            ix = next(i for i in t.indexes if i not in keep)
            prefix = self.storage.qualifier(t.schema)
            conn.file_execute(
                t.schema, f"DROP INDEX {prefix}{_q(physical_name(t.schema, t.name) + '.' + ix.name)}"
            )
            self.replace_table(conn, replace(t, indexes=keep))

    # ---------------------------------------------------------------- AUTO_INCREMENT
    def next_auto_increment(
        self, conn: Connection, t: TableDef, explicit: int | None = None, step: tuple[int, int] = (1, 1)
    ) -> int:
        """Return the next AUTO_INCREMENT value of ``t`` and advance the counter.

        ``step`` is the session's ``(auto_increment_increment, auto_increment_offset)``: the value is the
        smallest of the series ``offset + k * increment`` not below the counter (:func:`auto_increment_series`).
        With ``explicit`` (a value the user supplied), only advance the counter past it and return it. The
        counter starts at MAX(col)+1 when first used after start-up (MySQL 5.7 semantics; 8.0 persists it in
        the redo log — here a restart after deleting the top rows may reuse their values). Values handed out to
        rolled-back statements are not reused (MySQL's gaps).
        """
        from gtidkit.engine.sql.names import physical_name

        key = (t.schema, t.name)
        col = t.auto_increment_column
        assert col is not None
        with self._lock:
            cur = self._auto_inc.get(key)
            if cur is None:
                row = conn.execute(
                    f"SELECT MAX({_q(col.name)}) FROM {_q(physical_name(t.schema, t.name))}"
                ).fetchone()
                cur = max(row[0] or 0, 0) + 1  # negative values never move the counter (InnoDB's is unsigned)
            if explicit is not None:
                self._auto_inc[key] = max(cur, explicit + 1)
                return explicit
            cur = auto_increment_series(cur, step)
            self._auto_inc[key] = cur + 1
            return cur

    def forget_auto_increments(self) -> None:
        """Drop every cached AUTO_INCREMENT counter: another process of the server inserted rows (a worker of a
        multi-worker server, :mod:`gtidkit.engine.follow`), so each restarts at MAX(col)+1 at its next use."""
        with self._lock:
            self._auto_inc.clear()

    def forget_auto_increment(self, schema: str, name: str) -> None:
        """Drop the cached AUTO_INCREMENT counter of ``schema.name`` (TRUNCATE TABLE restarts it at MAX(col)+1)."""
        with self._lock:
            self._auto_inc.pop((schema, name), None)
