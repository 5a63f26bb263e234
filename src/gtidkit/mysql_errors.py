"""The one table of MySQL error messages: code -> (ER_* name, SQLSTATE, English message template).

Every :class:`~gtidkit.errors.MySQLError` that gtidkit raises with a MySQL error code is built here by
:func:`mysql_error`, so each message text is written once (issue 7, "one error-message table"). Templates follow
MySQL 8.4's ``share/messages_to_clients.txt`` (English), with MySQL's ``%s`` / ``%d`` / ``%-.192s`` / ``%lu``
conversions written as ``%s``; ``%%`` is a literal percent. SQLSTATEs are those of ``include/mysqld_ername.h``
(``HY000`` where MySQL has no specific one). Client-side codes (2000+, ``CR_*`` of libmysql) that the engine reports
when it is used in-process are at the end.

The table lives at the top of the package (not in ``engine/``) because ``gtid``, ``binlog``, ``engine`` and
``protocol`` all raise MySQL errors and lower layers must not import higher ones.
"""

from __future__ import annotations

from typing import NamedTuple

from gtidkit.errors import MySQLError


class ErrorSpec(NamedTuple):
    """One row of :data:`ER`: MySQL's symbolic name, SQLSTATE and English message template (``%s`` slots)."""

    name: str
    sqlstate: str
    template: str


def _e(name: str, sqlstate: str, template: str) -> ErrorSpec:
    return ErrorSpec(name, sqlstate, template)


#: code -> ErrorSpec. Source: MySQL 8.4 ``share/messages_to_clients.txt`` and ``include/mysqld_ername.h``.
ER: dict[int, ErrorSpec] = {
    # ER_YES's text is "YES"; EXPLAIN's note 1003 carries the rewritten query in its place (sql_explain.cc
    # push_warning(thd, SL_NOTE, ER_YES, query)): the template is the query itself
    1003: _e("ER_YES", "HY000", "%s"),
    # mysys EE_CANTCREATEFILE: a file SELECT ... INTO OUTFILE cannot create
    1: _e("EE_CANTCREATEFILE", "HY000", "Can't create/write to file '%s' (OS errno %s - %s)"),
    # mysys EE_FILENOTFOUND (include/mysys_err.h, mysys/errors.cc): a server file LOAD DATA INFILE cannot open
    29: _e("EE_FILENOTFOUND", "HY000", "File '%s' not found (OS errno %s - %s)"),
    1083: _e(
        "ER_WRONG_FIELD_TERMINATORS",
        "42000",
        "Field separator argument is not what is expected; check the manual",
    ),
    1085: _e(
        "ER_TEXTFILE_NOT_READABLE",
        "HY000",
        "The file '%s' must be in the database directory or be readable by all",
    ),
    1086: _e("ER_FILE_EXISTS_ERROR", "HY000", "File '%s' already exists"),
    1087: _e("ER_LOAD_INFO", "HY000", "Records: %s  Deleted: %s  Skipped: %s  Warnings: %s"),
    1261: _e("ER_WARN_TOO_FEW_RECORDS", "01000", "Row %s doesn't contain data for all columns"),
    1262: _e(
        "ER_WARN_TOO_MANY_RECORDS",
        "01000",
        "Row %s was truncated; it contained more data than there were input columns",
    ),
    1263: _e(
        "ER_WARN_NULL_TO_NOTNULL",
        "22004",
        "Column set to default value; NULL supplied to NOT NULL column '%s' at row %s",
    ),
    1006: _e("ER_CANT_CREATE_DB", "HY000", "Can't create database '%s' (errno: %s - %s)"),
    1213: _e(
        "ER_LOCK_DEADLOCK", "40001", "Deadlock found when trying to get lock; try restarting transaction"
    ),
    1007: _e("ER_DB_CREATE_EXISTS", "HY000", "Can't create database '%s'; database exists"),
    1008: _e("ER_DB_DROP_EXISTS", "HY000", "Can't drop database '%s'; database doesn't exist"),
    1031: _e("ER_ILLEGAL_HA", "HY000", "Table storage engine for '%s' doesn't have this option"),
    1032: _e("ER_KEY_NOT_FOUND", "HY000", "Can't find record in '%s'"),
    1040: _e("ER_CON_COUNT_ERROR", "08004", "Too many connections"),
    # a shared-memory table of the multi-worker server (engine/shared/) is full: mysqld's answer when a fixed-size
    # resource cannot grow (``ER_OUT_OF_RESOURCES``)
    1041: _e(
        "ER_OUT_OF_RESOURCES",
        "HY000",
        "Out of memory; check if mysqld or some other process uses all available memory; if not, you may have to "
        "use 'ulimit' to allow mysqld to use more memory or you can add more swap space",
    ),
    1044: _e("ER_DBACCESS_DENIED_ERROR", "42000", "Access denied for user '%s'@'%s' to database '%s'"),
    1045: _e("ER_ACCESS_DENIED_ERROR", "28000", "Access denied for user '%s'@'%s' (using password: %s)"),
    1046: _e("ER_NO_DB_ERROR", "3D000", "No database selected"),
    1048: _e("ER_BAD_NULL_ERROR", "23000", "Column '%s' cannot be null"),
    1049: _e("ER_BAD_DB_ERROR", "42000", "Unknown database '%s'"),
    1050: _e("ER_TABLE_EXISTS_ERROR", "42S01", "Table '%s' already exists"),
    1051: _e("ER_BAD_TABLE_ERROR", "42S02", "Unknown table '%s'"),
    1052: _e("ER_NON_UNIQ_ERROR", "23000", "Column '%s' in %s is ambiguous"),
    1053: _e("ER_SERVER_SHUTDOWN", "08S01", "Server shutdown in progress"),
    1054: _e("ER_BAD_FIELD_ERROR", "42S22", "Unknown column '%s' in '%s'"),
    1060: _e("ER_DUP_FIELDNAME", "42S21", "Duplicate column name '%s'"),
    1061: _e("ER_DUP_KEYNAME", "42000", "Duplicate key name '%s'"),
    1062: _e("ER_DUP_ENTRY", "23000", "Duplicate entry '%s' for key '%s'"),
    1063: _e("ER_WRONG_FIELD_SPEC", "42000", "Incorrect column specifier for column '%s'"),
    1064: _e("ER_PARSE_ERROR", "42000", "%s near '%s' at line %s"),
    1065: _e("ER_EMPTY_QUERY", "42000", "Query was empty"),
    1067: _e("ER_INVALID_DEFAULT", "42000", "Invalid default value for '%s'"),
    1068: _e("ER_MULTIPLE_PRI_KEY", "42000", "Multiple primary key defined"),
    1072: _e("ER_KEY_COLUMN_DOES_NOT_EXITS", "42000", "Key column '%s' doesn't exist in table"),
    1074: _e(
        "ER_TOO_BIG_FIELDLENGTH",
        "42000",
        "Column length too big for column '%s' (max = %s); use BLOB or TEXT instead",
    ),
    1075: _e(
        "ER_WRONG_AUTO_KEY",
        "42000",
        "Incorrect table definition; there can be only one auto column and it must be defined as a key",
    ),
    1090: _e(
        "ER_CANT_REMOVE_ALL_FIELDS",
        "42000",
        "You can't delete all columns with ALTER TABLE; use DROP TABLE instead",
    ),
    1091: _e("ER_CANT_DROP_FIELD_OR_KEY", "42000", "Can't DROP '%s'; check that column/key exists"),
    1094: _e("ER_NO_SUCH_THREAD", "HY000", "Unknown thread id: %s"),
    1095: _e("ER_KILL_DENIED_ERROR", "HY000", "You are not owner of thread %s"),
    1097: _e("ER_TOO_BIG_SET", "HY000", "Too many strings for column %s and SET"),
    1099: _e(
        "ER_TABLE_NOT_LOCKED_FOR_WRITE",
        "HY000",
        "Table '%s' was locked with a READ lock and can't be updated",
    ),
    1100: _e("ER_TABLE_NOT_LOCKED", "HY000", "Table '%s' was not locked with LOCK TABLES"),
    1101: _e(
        "ER_BLOB_CANT_HAVE_DEFAULT",
        "42000",
        "BLOB, TEXT, GEOMETRY or JSON column '%s' can't have a default value",
    ),
    1105: _e("ER_UNKNOWN_ERROR", "HY000", "Unknown error"),
    1110: _e("ER_FIELD_SPECIFIED_TWICE", "42000", "Column '%s' specified twice"),
    1111: _e("ER_INVALID_GROUP_FUNC_USE", "HY000", "Invalid use of group function"),
    1113: _e("ER_TABLE_MUST_HAVE_COLUMNS", "42000", "A table must have at least 1 column"),
    1115: _e("ER_UNKNOWN_CHARACTER_SET", "42000", "Unknown character set: '%s'"),
    1136: _e("ER_WRONG_VALUE_COUNT_ON_ROW", "21S01", "Column count doesn't match value count at row %s"),
    1138: _e("ER_INVALID_USE_OF_NULL", "22004", "Invalid use of NULL value"),
    1109: _e("ER_UNKNOWN_TABLE", "42S02", "Unknown table '%s' in %s"),
    1347: _e("ER_WRONG_OBJECT", "HY000", "'%s.%s' is not %s"),
    1351: _e("ER_VIEW_SELECT_VARIABLE", "HY000", "View's SELECT contains a variable or parameter"),
    1352: _e("ER_VIEW_SELECT_TMPTABLE", "HY000", "View's SELECT refers to a temporary table '%s'"),
    1353: _e(
        "ER_VIEW_WRONG_LIST",
        "HY000",
        "In definition of view, derived table or common table expression, SELECT list and column names list have "
        "different column counts",
    ),
    1471: _e("ER_NON_INSERTABLE_TABLE", "HY000", "The target table %s of the %s is not insertable-into"),
    1288: _e("ER_NON_UPDATABLE_TABLE", "HY000", "The target table %s of the %s is not updatable"),
    3748: _e(
        "ER_CLIENT_GTID_UNSAFE_CREATE_DROP_TEMP_TABLE_IN_TRX_IN_SBR",
        "HY000",
        "Statement violates GTID consistency: CREATE TEMPORARY TABLE and DROP TEMPORARY TABLE are not allowed inside "
        "a transaction or inside a procedure in a transactional context when @@session.binlog_format=STATEMENT.",
    ),
    1243: _e("ER_UNKNOWN_STMT_HANDLER", "HY000", "Unknown prepared statement handler (%s) given to %s"),
    1146: _e("ER_NO_SUCH_TABLE", "42S02", "Table '%s.%s' doesn't exist"),
    1149: _e(
        "ER_SYNTAX_ERROR",
        "42000",
        "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for "
        "the right syntax to use",
    ),
    1172: _e("ER_TOO_MANY_ROWS", "42000", "Result consisted of more than one row"),
    1192: _e(
        "ER_LOCK_OR_ACTIVE_TRANSACTION",
        "HY000",
        "Can't execute the given command because you have active locked tables or an active transaction",
    ),
    1193: _e("ER_UNKNOWN_SYSTEM_VARIABLE", "HY000", "Unknown system variable '%s'"),
    1205: _e("ER_LOCK_WAIT_TIMEOUT", "HY000", "Lock wait timeout exceeded; try restarting transaction"),
    1210: _e("ER_WRONG_ARGUMENTS", "HY000", "Incorrect arguments to %s"),
    1220: _e("ER_ERROR_WHEN_EXECUTING_COMMAND", "HY000", "Error when executing command %s: %s"),
    1222: _e(
        "ER_WRONG_NUMBER_OF_COLUMNS_IN_SELECT",
        "21000",
        "The used SELECT statements have a different number of columns",
    ),
    1223: _e(
        "ER_CANT_UPDATE_WITH_READLOCK",
        "HY000",
        "Can't execute the query because you have a conflicting read lock",
    ),
    1227: _e(
        "ER_SPECIFIC_ACCESS_DENIED_ERROR",
        "42000",
        "Access denied; you need (at least one of) the %s privilege(s) for this operation",
    ),
    1228: _e(
        "ER_LOCAL_VARIABLE", "HY000", "Variable '%s' is a SESSION variable and can't be used with SET GLOBAL"
    ),
    1229: _e(
        "ER_GLOBAL_VARIABLE", "HY000", "Variable '%s' is a GLOBAL variable and should be set with SET GLOBAL"
    ),
    1230: _e("ER_NO_DEFAULT", "42000", "Variable '%s' doesn't have a default value"),
    1231: _e("ER_WRONG_VALUE_FOR_VAR", "42000", "Variable '%s' can't be set to the value of '%s'"),
    1232: _e("ER_WRONG_TYPE_FOR_VAR", "42000", "Incorrect argument type to variable '%s'"),
    1235: _e("ER_NOT_SUPPORTED_YET", "42000", "This version of MySQL doesn't yet support '%s'"),
    1236: _e(
        "ER_SOURCE_FATAL_ERROR_READING_BINLOG",
        "HY000",
        "Got fatal error %s from source when reading data from binary log: '%s'",
    ),
    1238: _e("ER_INCORRECT_GLOBAL_LOCAL_VAR", "HY000", "Variable '%s' is a %s variable"),
    1411: _e("ER_WRONG_VALUE_FOR_TYPE", "HY000", "Incorrect %s value: '%s' for function %s"),
    1412: _e("ER_TABLE_DEF_CHANGED", "HY000", "Table definition has changed, please retry transaction"),
    1253: _e("ER_COLLATION_CHARSET_MISMATCH", "42000", "COLLATION '%s' is not valid for CHARACTER SET '%s'"),
    1260: _e("ER_CUT_VALUE_GROUP_CONCAT", "HY000", "Row %s was cut by GROUP_CONCAT()"),
    1273: _e("ER_UNKNOWN_COLLATION", "HY000", "Unknown collation: '%s'"),
    1264: _e("ER_WARN_DATA_OUT_OF_RANGE", "22003", "Out of range value for column '%s' at row %s"),
    1265: _e("WARN_DATA_TRUNCATED", "01000", "Data truncated for column '%s' at row %s"),
    1277: _e(
        "ER_BAD_REPLICA_UNTIL_COND",
        "HY000",
        "Incorrect parameter or combination of parameters for START REPLICA UNTIL",
    ),
    1278: _e(
        "ER_MISSING_SKIP_REPLICA",
        "HY000",
        "It is recommended to use --skip-replica-start when doing step-by-step replication with START REPLICA "
        "UNTIL; otherwise, you will get problems if you get an unexpected replica's mysqld restart",
    ),
    1279: _e(
        "ER_UNTIL_COND_IGNORED", "HY000", "SQL thread is not to be started so UNTIL options are ignored"
    ),
    1287: _e(
        "ER_WARN_DEPRECATED_SYNTAX",
        "HY000",
        "'%s' is deprecated and will be removed in a future release. Please use %s instead",
    ),
    1416: _e(
        "ER_CANT_CREATE_GEOMETRY_OBJECT",
        "22003",
        "Cannot get geometry object from data you send to the GEOMETRY field",
    ),
    1295: _e(
        "ER_UNSUPPORTED_PS", "HY000", "This command is not supported in the prepared statement protocol yet"
    ),
    1290: _e(
        "ER_OPTION_PREVENTS_STATEMENT",
        "HY000",
        "The MySQL server is running with the %s option so it cannot execute this statement",
    ),
    1291: _e("ER_DUPLICATED_VALUE_IN_TYPE", "HY000", "Column '%s' has duplicated value '%s' in %s"),
    1292: _e("ER_TRUNCATED_WRONG_VALUE", "22007", "Truncated incorrect %s value: '%s'"),
    1294: _e("ER_INVALID_ON_UPDATE", "HY000", "Invalid ON UPDATE clause for '%s' column"),
    1298: _e("ER_UNKNOWN_TIME_ZONE", "HY000", "Unknown or incorrect time zone: '%s'"),
    1300: _e("ER_INVALID_CHARACTER_STRING", "HY000", "Invalid %s character string: '%s'"),
    1305: _e("ER_SP_DOES_NOT_EXIST", "42000", "%s %s does not exist"),
    1329: _e("ER_SP_FETCH_NO_DATA", "02000", "No data - zero rows fetched, selected, or processed"),
    1317: _e("ER_QUERY_INTERRUPTED", "70100", "Query execution was interrupted"),
    1364: _e("ER_NO_DEFAULT_FOR_FIELD", "HY000", "Field '%s' doesn't have a default value"),
    1365: _e("ER_DIVISION_BY_ZERO", "22012", "Division by 0"),
    1366: _e(
        "ER_TRUNCATED_WRONG_VALUE_FOR_FIELD", "HY000", "Incorrect %s value: '%s' for column '%s' at row %s"
    ),
    1373: _e("ER_UNKNOWN_TARGET_BINLOG", "HY000", "Target log not found in binlog index"),
    1406: _e("ER_DATA_TOO_LONG", "22001", "Data too long for column '%s' at row %s"),
    1439: _e("ER_TOO_BIG_DISPLAYWIDTH", "42000", "Display width out of range for column '%s' (max = %s)"),
    1426: _e("ER_TOO_BIG_PRECISION", "42000", "Too-big precision %s specified for '%s'. Maximum is %s."),
    1690: _e("ER_DATA_OUT_OF_RANGE", "22003", "%s value is out of range in '%s'"),
    1582: _e(
        "ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT",
        "42000",
        "Incorrect parameter count in the call to native function '%s'",
    ),
    3140: _e(
        "ER_INVALID_JSON_TEXT",
        "22032",
        "Invalid JSON text: \"%s\" at position %s in value for column '%s'.",
    ),
    3141: _e(
        "ER_INVALID_JSON_TEXT_IN_PARAM",
        "22032",
        'Invalid JSON text in argument %s to function %s: "%s" at position %s.',
    ),
    3143: _e(
        "ER_INVALID_JSON_PATH",
        "42000",
        "Invalid JSON path expression. The error is around character position %s.",
    ),
    3144: _e(
        "ER_INVALID_JSON_CHARSET",
        "22032",
        "Cannot create a JSON value from a string with CHARACTER SET '%s'.",
    ),
    3146: _e(
        "ER_INVALID_TYPE_FOR_JSON",
        "22032",
        "Invalid data type for JSON data in argument %s to function %s; a JSON string or JSON type is required.",
    ),
    3149: _e(
        "ER_INVALID_JSON_PATH_WILDCARD",
        "42000",
        "In this situation, path expressions may not contain the * and ** tokens or an array range.",
    ),
    3150: _e(
        "ER_JSON_BAD_ONE_OR_ALL_ARG",
        "42000",
        "The oneOrAll argument to %s may take these values: 'one' or 'all'.",
    ),
    3153: _e("ER_JSON_VACUOUS_PATH", "42000", "The path expression '$' is not allowed in this context."),
    3158: _e("ER_JSON_DOCUMENT_NULL_KEY", "22032", "JSON documents may not contain NULL member names."),
    1598: _e("ER_BINLOG_LOGGING_IMPOSSIBLE", "HY000", "Binary logging not possible. Message: %s"),
    # the BINLOG statement (sql/sql_binlog.cc) and the session variables mysqlbinlog's output sets
    1575: _e("ER_BASE64_DECODE_ERROR", "HY000", "Decoding of base64 string failed"),
    1609: _e(
        "ER_NO_FORMAT_DESCRIPTION_EVENT_BEFORE_BINLOG_STATEMENT",
        "HY000",
        "The BINLOG statement of type `%s` was not preceded by a format description BINLOG statement.",
    ),
    1649: _e("ER_UNKNOWN_LOCALE", "HY000", "Unknown locale: '%s'"),
    1730: _e(
        "ER_ONLY_FD_AND_RBR_EVENTS_ALLOWED_IN_BINLOG_STATEMENT",
        "HY000",
        "Only Format_description_log_event and row events are allowed in BINLOG statements (but %s was provided)",
    ),
    # binlog_format=STATEMENT: Note 1592 with the reason's text (engine/binlog/statement_context.py; 8.0.41
    # share/messages_to_clients.txt). The reasons are messages of their own, never raised alone.
    1592: _e(
        "ER_BINLOG_UNSAFE_STATEMENT",
        "HY000",
        "Unsafe statement written to the binary log using statement format since BINLOG_FORMAT = STATEMENT. %s",
    ),
    1668: _e(
        "ER_BINLOG_UNSAFE_LIMIT",
        "HY000",
        "The statement is unsafe because it uses a LIMIT clause. This is unsafe because the set of rows included "
        "cannot be predicted.",
    ),
    1670: _e(
        "ER_BINLOG_UNSAFE_SYSTEM_TABLE",
        "HY000",
        "The statement is unsafe because it uses the general log, slow query log, or performance_schema table(s). "
        "This is unsafe because system tables may differ on replicas.",
    ),
    1673: _e(
        "ER_BINLOG_UNSAFE_SYSTEM_VARIABLE",
        "HY000",
        "Statement is unsafe because it uses a system variable that may have a different value on the replica.",
    ),
    1674: _e(
        "ER_BINLOG_UNSAFE_SYSTEM_FUNCTION",
        "HY000",
        "Statement is unsafe because it uses a system function that may return a different value on the replica.",
    ),
    1714: _e(
        "ER_BINLOG_UNSAFE_INSERT_IGNORE_SELECT",
        "HY000",
        "INSERT IGNORE... SELECT is unsafe because the order in which rows are retrieved by the SELECT determines "
        "which (if any) rows are ignored. This order cannot be predicted and may differ on source and the replica.",
    ),
    1715: _e(
        "ER_BINLOG_UNSAFE_INSERT_SELECT_UPDATE",
        "HY000",
        "INSERT... SELECT... ON DUPLICATE KEY UPDATE is unsafe because the order in which rows are retrieved by the "
        "SELECT determines which (if any) rows are updated. This order cannot be predicted and may differ on source "
        "and the replica.",
    ),
    1716: _e(
        "ER_BINLOG_UNSAFE_REPLACE_SELECT",
        "HY000",
        "REPLACE... SELECT is unsafe because the order in which rows are retrieved by the SELECT determines which (if "
        "any) rows are replaced. This order cannot be predicted and may differ on source and the replica.",
    ),
    1719: _e(
        "ER_BINLOG_UNSAFE_UPDATE_IGNORE",
        "HY000",
        "UPDATE IGNORE is unsafe because the order in which rows are updated determines which (if any) rows are "
        "ignored. This order cannot be predicted and may differ on source and the replica.",
    ),
    1722: _e(
        "ER_BINLOG_UNSAFE_WRITE_AUTOINC_SELECT",
        "HY000",
        "Statements writing to a table with an auto-increment column after selecting from another table are unsafe "
        "because the order in which rows are retrieved determines what (if any) rows will be written. This order "
        "cannot be predicted and may differ on source and the replica.",
    ),
    1724: _e(
        "ER_BINLOG_UNSAFE_INSERT_TWO_KEYS",
        "HY000",
        "INSERT... ON DUPLICATE KEY UPDATE  on a table with more than one UNIQUE KEY is unsafe",
    ),
    3570: _e(
        "ER_BINLOG_UNSAFE_SKIP_LOCKED",
        "HY000",
        "Statement is unsafe because it uses SKIP LOCKED. The set of inserted values is non-deterministic.",
    ),
    3571: _e(
        "ER_BINLOG_UNSAFE_NOWAIT",
        "HY000",
        "Statement is unsafe because it uses NOWAIT. Whether the command will succeed or fail is not deterministic.",
    ),
    1677: _e(
        "ER_REPLICA_CONVERSION_FAILED",
        "HY000",
        "Column %s of table '%s.%s' cannot be converted from type '%s' to type '%s'",
    ),
    1681: _e(
        "ER_WARN_DEPRECATED_SYNTAX_NO_REPLACEMENT",
        "HY000",
        "'%s' is deprecated and will be removed in a future release.",
    ),
    1766: _e(
        "ER_VARIABLE_NOT_SETTABLE_IN_TRANSACTION",
        "HY000",
        "The system variable %s cannot be set when there is an ongoing transaction.",
    ),
    1772: _e("ER_MALFORMED_GTID_SET_SPECIFICATION", "HY000", "Malformed GTID set specification '%s'."),
    1773: _e("ER_MALFORMED_GTID_SET_ENCODING", "HY000", "Malformed GTID set encoding."),
    1774: _e("ER_MALFORMED_GTID_SPECIFICATION", "HY000", "Malformed GTID specification '%s'."),
    1775: _e(
        "ER_GNO_EXHAUSTED",
        "HY000",
        "Impossible to generate GTID: the integer component reached the maximum value. Restart the server with a "
        "new server_uuid.",
    ),
    1778: _e(
        "ER_CANT_DO_IMPLICIT_COMMIT_INSIDE_TRX_WHEN_GTID_NEXT_IS_SET",
        "HY000",
        "Cannot execute statements with implicit commit inside a transaction when @@SESSION.GTID_NEXT == 'UUID:NUMBER'.",
    ),
    1779: _e(
        "ER_GTID_MODE_ON_REQUIRES_ENFORCE_GTID_CONSISTENCY_ON",
        "HY000",
        "GTID_MODE = ON requires ENFORCE_GTID_CONSISTENCY = ON.",
    ),
    1781: _e(
        "ER_CANT_SET_GTID_NEXT_TO_GTID_WHEN_GTID_MODE_IS_OFF",
        "HY000",
        "@@SESSION.GTID_NEXT cannot be set to UUID:NUMBER when @@GLOBAL.GTID_MODE = OFF.",
    ),
    1782: _e(
        "ER_CANT_SET_GTID_NEXT_TO_ANONYMOUS_WHEN_GTID_MODE_IS_ON",
        "HY000",
        "@@SESSION.GTID_NEXT cannot be set to ANONYMOUS when @@GLOBAL.GTID_MODE = ON.",
    ),
    1788: _e(
        "ER_GTID_MODE_CAN_ONLY_CHANGE_ONE_STEP_AT_A_TIME",
        "HY000",
        "The value of @@GLOBAL.GTID_MODE can only be changed one step at a time: OFF <-> OFF_PERMISSIVE <-> "
        "ON_PERMISSIVE <-> ON. Also note that this value must be stepped up or down simultaneously on all servers. "
        "See the Manual for instructions.",
    ),
    # sent by the dump thread as ERR 1236 with this text (sql/binlog.cc report_missing_purged_gtids, 8.0.26+)
    1789: _e(
        "ER_SOURCE_HAS_PURGED_REQUIRED_GTIDS",
        "HY000",
        "Cannot replicate because the source purged required binary logs. Replicate the missing transactions from "
        "elsewhere, or provision a new replica from backup. Consider increasing the source's binary log expiration "
        "period. %s",
    ),
    1790: _e(
        "ER_CANT_SET_GTID_NEXT_WHEN_OWNING_GTID",
        "HY000",
        "@@SESSION.GTID_NEXT cannot be changed by a client that owns a GTID. The client owns %s. Ownership is "
        "released on COMMIT or ROLLBACK.",
    ),
    1792: _e(
        "ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION",
        "25006",
        "Cannot execute statement in a READ ONLY transaction.",
    ),
    1837: _e(
        "ER_GTID_NEXT_TYPE_UNDEFINED_GTID",
        "HY000",
        "When @@SESSION.GTID_NEXT is set to a GTID, you must explicitly set it to a different value after a COMMIT "
        "or ROLLBACK. Please check GTID_NEXT variable manual page for detailed explanation. Current "
        "@@SESSION.GTID_NEXT is '%s'.",
    ),
    1835: _e("ER_MALFORMED_PACKET", "HY000", "Malformed communication packet."),
    # sent by the dump thread as ERR 1236 with this text (sql/rpl_binlog_sender.cc check_start_file, 8.0.26+)
    1885: _e(
        "ER_REPLICA_HAS_MORE_GTIDS_THAN_SOURCE",
        "HY000",
        "Replica has more GTIDs than the source has, using the source's SERVER_UUID. This may indicate that the "
        "end of the binary log was truncated or that the last binary log file was lost, e.g., after a power or "
        "disk failure when sync_binlog != 1. The source may or may not have rolled back transactions that were "
        "already replicated to the replica. Suggest to replicate any transactions that source has rolled back "
        "from replica to source, and/or commit empty transactions on source to account for transactions that "
        "have been committed on source but are not included in GTID_EXECUTED.",
    ),
    3062: _e("ER_GTID_MODE_OFF", "HY000", "Cannot %s when GTID_MODE = OFF."),
    3017: _e(
        "ER_REPLICA_SQL_THREAD_MUST_STOP",
        "HY000",
        "This operation cannot be performed with a running replica sql thread; run STOP REPLICA SQL_THREAD first",
    ),
    3023: _e(
        "ER_WARN_ONLY_SOURCE_LOG_FILE_NO_POS",
        "HY000",
        "CHANGE REPLICATION SOURCE TO with a SOURCE_LOG_FILE clause but no SOURCE_LOG_POS clause may not be safe. "
        "The old position value may not be valid for the new binary log file.",
    ),
    3111: _e(
        "ER_CANT_SET_GTID_MODE",
        "HY000",
        "SET @@GLOBAL.GTID_MODE = %s is not allowed because %s.",
    ),
    3112: _e(
        "ER_CANT_USE_AUTO_POSITION_WITH_GTID_MODE_OFF",
        "HY000",
        "The replication receiver thread%s cannot start in AUTO_POSITION mode: this server uses "
        "@@GLOBAL.GTID_MODE = OFF.",
    ),
    3129: _e(
        "ER_WARN_ON_MODIFYING_GTID_EXECUTED_TABLE",
        "HY000",
        "Please do not modify the %s table. This is a mysql internal system table to store GTIDs for committed "
        "transactions. Modifying it can lead to an inconsistent GTID state.",
    ),
    3138: _e(
        "ER_CANT_SET_VARIABLE_WHEN_OWNING_GTID",
        "HY000",
        "Variable %s cannot be changed by a client that owns a GTID. The client owns %s. Ownership is released on "
        "COMMIT or ROLLBACK.",
    ),
    3173: _e(
        "ER_CANT_WAIT_FOR_EXECUTED_GTID_SET_WHILE_OWNING_A_GTID",
        "HY000",
        "The client holds ownership of the GTID %s. Therefore, WAIT_FOR_EXECUTED_GTID_SET cannot wait for this GTID.",
    ),
    3546: _e(
        "ER_CANT_SET_GTID_PURGED_DUE_SETS_CONSTRAINTS", "HY000", "@@GLOBAL.GTID_PURGED cannot be changed: %s"
    ),
    3552: _e("ER_NO_SYSTEM_SCHEMA_ACCESS", "HY000", "Access to system schema '%s' is rejected."),
    1015: _e("ER_CANT_LOCK", "HY000", "Can't lock file (errno: %s - %s)"),
    3037: _e("ER_GIS_INVALID_DATA", "22023", "Invalid GIS data provided to function %s."),
    3643: _e(
        "ER_WRONG_SRID_FOR_COLUMN",
        "HY000",
        "The SRID of the geometry does not match the SRID of the column '%s'. The SRID of the geometry is %s, but "
        "the SRID of the column is %s. Consider changing the SRID of the geometry or the SRID property of the "
        "column.",
    ),
    4028: _e(
        "ER_TABLE_MUST_HAVE_A_VISIBLE_COLUMN", "HY000", "A table must have at least one visible column."
    ),
    1026: _e("ER_ERROR_ON_WRITE", "HY000", "Error writing file '%s' (errno: %s - %s)"),
    1030: _e("ER_GET_ERRNO", "HY000", "Got error %s from storage engine"),
    1133: _e("ER_PASSWORD_NO_MATCH", "42000", "Can't find any matching row in the user table"),
    1141: _e("ER_NONEXISTING_GRANT", "42000", "There is no such grant defined for user '%s' on host '%s'"),
    1142: _e("ER_TABLEACCESS_DENIED_ERROR", "42000", "%s command denied to user '%s'@'%s' for table '%s'"),
    1221: _e("ER_WRONG_USAGE", "HY000", "Incorrect usage of %s and %s"),
    1396: _e("ER_CANNOT_USER", "HY000", "Operation %s failed for %s"),
    1524: _e("ER_PLUGIN_IS_NOT_LOADED", "HY000", "Plugin '%s' is not loaded"),
    1410: _e("ER_CANT_CREATE_USER_WITH_GRANT", "42000", "You are not allowed to create a user with GRANT"),
    3118: _e("ER_ACCOUNT_HAS_BEEN_LOCKED", "HY000", "Access denied for user '%s'@'%s'. Account is locked."),
    3162: _e("ER_USER_DOES_NOT_EXIST", "HY000", "Authorization ID %s does not exist."),
    3163: _e("ER_USER_ALREADY_EXISTS", "HY000", "Authorization ID %s already exists."),
    1594: _e("ER_REPLICA_RELAY_LOG_READ_FAILURE", "HY000", "Relay log read failure: %s"),
    1820: _e(
        "ER_MUST_CHANGE_PASSWORD",
        "HY000",
        "You must reset your password using ALTER USER statement before executing this statement.",
    ),
    1381: _e("ER_NO_BINARY_LOGGING", "HY000", "You are not using binary logging"),
    1568: _e(
        "ER_CANT_CHANGE_TX_CHARACTERISTICS",
        "25001",
        "Transaction characteristics can't be changed while a transaction is in progress",
    ),
    # replica control (CHANGE REPLICATION SOURCE / START|STOP|RESET REPLICA; gtidkit.replication.statements) and the
    # receiver's Last_IO_Errno values (sql/rpl_replica.cc; 8.0.22+ SOURCE/REPLICA wording)
    1200: _e(
        "ER_BAD_REPLICA",
        "HY000",
        "The server is not configured as replica; fix in config file or with CHANGE REPLICATION SOURCE TO",
    ),
    1759: _e(
        "ER_INSECURE_PLAIN_TEXT",
        "HY000",
        "Sending passwords in plain text without SSL/TLS is extremely insecure.",
    ),
    1760: _e(
        "ER_INSECURE_CHANGE_SOURCE",
        "HY000",
        "Storing MySQL user name or password information in the connection metadata repository is not secure and is "
        "therefore not recommended. Please consider using the USER and PASSWORD connection options for START "
        "REPLICA; see the 'START REPLICA Syntax' in the MySQL Manual for more information.",
    ),
    1380: _e("ER_RELAY_LOG_INIT", "HY000", "Failed initializing relay log position: %s"),
    1776: _e(
        "ER_BAD_REPLICA_AUTO_POSITION",
        "HY000",
        "Parameters SOURCE_LOG_FILE, SOURCE_LOG_POS, RELAY_LOG_FILE and RELAY_LOG_POS cannot be set when "
        "SOURCE_AUTO_POSITION is active.",
    ),
    1777: _e(
        "ER_AUTO_POSITION_REQUIRES_GTID_MODE_NOT_OFF",
        "HY000",
        "CHANGE REPLICATION SOURCE TO SOURCE_AUTO_POSITION = 1 cannot be executed because @@GLOBAL.GTID_MODE = OFF.",
    ),
    3021: _e(
        "ER_REPLICA_CHANNEL_IO_THREAD_MUST_STOP",
        "HY000",
        "This operation cannot be performed with a running replica io thread; run STOP REPLICA IO_THREAD FOR "
        "CHANNEL '%s' first.",
    ),
    3056: _e(
        "ER_CHANGE_SOURCE_PASSWORD_LENGTH",
        "HY000",
        "The password provided for the replication user exceeds the maximum length of 32 characters",
    ),
    3074: _e("ER_REPLICA_CHANNEL_DOES_NOT_EXIST", "HY000", "Replica channel '%s' does not exist."),
    3076: _e(
        "ER_REPLICA_CHANNEL_NAME_INVALID_OR_TOO_LONG",
        "HY000",
        "Couldn't create channel: Channel name is either invalid or too long.",
    ),
    3079: _e(
        "ER_REPLICA_MULTIPLE_CHANNELS_CMD",
        "HY000",
        "Multiple channels exist on the replica. Please provide channel name as an argument.",
    ),
    3080: _e(
        "ER_REPLICA_MAX_CHANNELS_EXCEEDED",
        "HY000",
        "Maximum number of replication channels allowed exceeded.",
    ),
    3081: _e(
        "ER_REPLICA_CHANNEL_MUST_STOP",
        "HY000",
        "This operation cannot be performed with running replication threads; run STOP REPLICA FOR CHANNEL '%s' "
        "first",
    ),
    3083: _e(
        "ER_REPLICA_CHANNEL_WAS_RUNNING",
        "HY000",
        "Replication thread(s) for channel '%s' are already runnning.",
    ),
    3084: _e(
        "ER_REPLICA_CHANNEL_WAS_NOT_RUNNING",
        "HY000",
        "Replication thread(s) for channel '%s' are already stopped.",
    ),
    3085: _e(
        "ER_REPLICA_CHANNEL_SQL_THREAD_MUST_STOP",
        "HY000",
        "This operation cannot be performed with a running replica sql thread; run STOP REPLICA SQL_THREAD FOR "
        "CHANNEL '%s' first.",
    ),
    3139: _e("ER_REPLICA_CHANNEL_OPERATION_NOT_ALLOWED", "HY000", "%s cannot be performed on channel '%s'."),
    3944: _e(
        "ER_CLIENT_QUERY_FAILURE_INVALID_NON_ROW_FORMAT",
        "HY000",
        "The query does not comply with variable require_row_format restrictions.",
    ),
    3945: _e(
        "ER_REQUIRE_ROW_FORMAT_INVALID_VALUE",
        "HY000",
        "The requested value %s is invalid for REQUIRE_ROW_FORMAT, must be either 0 or 1.",
    ),
    4014: _e(
        "ER_CANT_COMBINE_ANONYMOUS_TO_GTID_AND_AUTOPOSITION",
        "HY000",
        "The options ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS = LOCAL|<UUID> and SOURCE_AUTO_POSITION = 1 cannot be "
        "used together.",
    ),
    4015: _e(
        "ER_ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS_REQUIRES_GTID_MODE_ON",
        "HY000",
        "CHANGE REPLICATION SOURCE TO ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS = LOCAL|<UUID> cannot be executed "
        "because @@GLOBAL.GTID_MODE <> ON.",
    ),
    4017: _e(
        "ER_USING_ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS_AS_LOCAL_OR_UUID",
        "HY000",
        "Using ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS creates limitations on the replication topology - you cannot "
        "fail over between downstream and upstream servers. Only use this option if it is not possible to enable "
        "GTIDs on the source, for instance, because of lack of permissions. If possible, use the procedure for "
        "enabling GTID transactions online instead, as described in the documentation.",
    ),
    4065: _e(
        "ER_CHANGE_REPLICATION_SOURCE_NO_OPTIONS_FOR_GTID_ONLY",
        "HY000",
        "GTID_ONLY cannot be enabled for replication channel '%s'. You need GTID_MODE = ON, SOURCE_AUTO_POSITION = 1 "
        "and REQUIRE_ROW_FORMAT = 1.",
    ),
    4066: _e(
        "ER_CHANGE_REP_SOURCE_CANT_DISABLE_REQ_ROW_FORMAT_WITH_GTID_ONLY",
        "HY000",
        "REQUIRE_ROW_FORMAT cannot be disabled for replication channel '%s' when GTID_ONLY=1.",
    ),
    4067: _e(
        "ER_CHANGE_REP_SOURCE_CANT_DISABLE_AUTO_POSITION_WITH_GTID_ONLY",
        "HY000",
        "SOURCE_AUTO_POSITION cannot be disabled for replication channel '%s' when GTID_ONLY=1.",
    ),
    4068: _e(
        "ER_CHANGE_REP_SOURCE_CANT_DISABLE_GTID_ONLY_WITHOUT_POSITIONS",
        "HY000",
        "When disabling GTID_ONLY and SOURCE_AUTO_POSITION FOR CHANNEL '%s' you must provide SOURCE_LOG_FILE and "
        "SOURCE_LOG_POS as source positions are invalid.",
    ),
    4069: _e(
        "ER_CHANGE_REP_SOURCE_CANT_DISABLE_AUTO_POS_WITHOUT_POSITIONS",
        "HY000",
        "When disabling SOURCE_AUTO_POSITION FOR CHANNEL '%s' you must provide SOURCE_LOG_FILE and SOURCE_LOG_POS as "
        "source positions are invalid.",
    ),
    4071: _e(
        "ER_CANT_USE_GTID_ONLY_WITH_GTID_MODE_NOT_ON",
        "HY000",
        "Replication cannot start%s with GTID_ONLY = 1 as this server uses @@GLOBAL.GTID_MODE <> ON.",
    ),
    4072: _e(
        "ER_WARN_C_DISABLE_GTID_ONLY_WITH_SOURCE_AUTO_POS_INVALID_POS",
        "HY000",
        "The replication positions relative to the source may be out-of-date on channel '%s', due to the use of "
        "GTID_ONLY=1. The out-of-date positions can still be used in some cases so, in order to update them, we "
        "suggest that you start the replication to receive and apply at least one transaction, which will set the "
        "positions to valid values.",
    ),
    4019: _e(
        "ER_CANT_SET_SQL_AFTER_OR_BEFORE_GTIDS_WITH_ANONYMOUS_TO_GTID",
        "HY000",
        "The SQL_AFTER_GTIDS or SQL_BEFORE_GTIDS clauses for START REPLICA cannot be used when the replication "
        "channel is configured with ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS = LOCAL|<UUID>.",
    ),
    # error-log section codes the receiver reports as Last_IO_Errno (messages_to_error_log.txt)
    13114: _e(
        "ER_SERVER_SOURCE_FATAL_ERROR_READING_BINLOG",
        "HY000",
        "Got fatal error %s from source when reading data from binary log: '%s'",
    ),
    13117: _e("ER_REPLICA_FATAL_ERROR", "HY000", "Fatal error: %s"),
    13122: _e("ER_REPLICA_RELAY_LOG_WRITE_FAILURE", "HY000", "Relay log write failure: %s"),
    # queue_event()'s refusals (logged; Last_IO_Error then becomes 13122 "could not queue event from source")
    13148: _e(
        "ER_CANT_REPLICATE_ANONYMOUS_WITH_AUTO_POSITION",
        "HY000",
        "Cannot replicate anonymous transaction when AUTO_POSITION = 1, at file %s, position %s.",
    ),
    13149: _e(
        "ER_CANT_REPLICATE_ANONYMOUS_WITH_GTID_MODE_ON",
        "HY000",
        "Cannot replicate anonymous transaction when @@GLOBAL.GTID_MODE = ON, at file %s, position %s.",
    ),
    13150: _e(
        "ER_CANT_REPLICATE_GTID_WITH_GTID_MODE_OFF",
        "HY000",
        "Cannot replicate GTID-transaction when @@GLOBAL.GTID_MODE = OFF, at file %s, position %s.",
    ),
    # mysys's global messages (EE_*, mysys/errors.cc globerrs; MY-0000NN in the error log): option files and
    # my_getopt, as `gtidkit server` reports them at start-up (gtidkit.protocol.options)
    12: _e("EE_DIR", "HY000", "Can't read dir of '%s' (OS errno %s - %s)"),
    47: _e("EE_FAILED_TO_OPEN_DEFAULTS_FILE", "HY000", "Failed to open required defaults file: %s"),
    48: _e(
        "EE_FAILED_TO_HANDLE_DEFAULTS_FILE", "HY000", "Fatal error in defaults handling. Program aborted!"
    ),
    49: _e(
        "EE_WRONG_DIRECTIVE_IN_CONFIG_FILE", "HY000", "Wrong '!%s' directive in config file %s at line %s."
    ),
    51: _e(
        "EE_INCORRECT_GRP_DEFINITION_IN_CONFIG_FILE",
        "HY000",
        "Wrong group definition in config file %s at line %s.",
    ),
    52: _e(
        "EE_OPTION_WITHOUT_GRP_IN_CONFIG_FILE",
        "HY000",
        "Found option without preceding group in config file %s at line %s.",
    ),
    58: _e(
        "EE_UNKNOWN_SUFFIX_FOR_VARIABLE", "HY000", "Unknown suffix '%s' used for variable '%s' (value '%s')."
    ),
    67: _e("EE_UNKNOWN_VARIABLE", "HY000", "unknown variable '%s'."),
    68: _e("EE_UNKNOWN_OPTION", "HY000", "unknown option '--%s'."),
    69: _e("EE_UNKNOWN_SHORT_OPTION", "HY000", "%s: unknown option '-%s'."),
    71: _e("EE_OPTION_REQUIRES_ARGUMENT", "HY000", "%s: option '--%s' requires an argument."),
    72: _e("EE_SHORT_OPTION_REQUIRES_ARGUMENT", "HY000", "%s: option '-%s' requires an argument."),
    73: _e(
        "EE_OPTION_IGNORED_DUE_TO_INVALID_VALUE",
        "HY000",
        "%s: ignoring option '--%s' due to invalid value '%s'.",
    ),
    77: _e("EE_FAILED_TO_SET_OPTION_VALUE", "HY000", "%s: Error while setting value '%s' to '%s'."),
    79: _e("EE_INCORRECT_UINT_VALUE_FOR_OPTION", "HY000", "Incorrect unsigned integer value: '%s'."),
    81: _e(
        "EE_ADJUSTED_UNSIGNED_VALUE_FOR_OPTION", "HY000", "option '%s': unsigned value %s adjusted to %s."
    ),
    82: _e("EE_ADJUSTED_ULONGLONG_VALUE_FOR_OPTION", "HY000", "option '%s': value %s adjusted to %s."),
    # what drivers and CI scripts meet around the SQL (issue 19 section 3)
    1096: _e("ER_NO_TABLES_USED", "HY000", "No tables used"),
    1241: _e("ER_OPERAND_COLUMNS", "21000", "Operand should contain %s column(s)"),
    1327: _e("ER_SP_UNDECLARED_VAR", "42000", "Undeclared variable: %s"),
    1367: _e("ER_ILLEGAL_VALUE_FOR_TYPE", "22007", "Illegal %s '%s' value found during parsing"),
    1425: _e("ER_TOO_BIG_SCALE", "42000", "Too big scale %s specified for column '%s'. Maximum is %s."),
    1427: _e(
        "ER_M_BIGGER_THAN_D",
        "42000",
        "For float(M,D), double(M,D) or decimal(M,D), M must be >= D (column '%s').",
    ),
    1461: _e(
        "ER_MAX_PREPARED_STMT_COUNT_REACHED",
        "42000",
        "Can't create more than max_prepared_stmt_count statements (current value: %s)",
    ),
    3024: _e(
        "ER_QUERY_TIMEOUT",
        "HY000",
        "Query execution was interrupted, maximum statement execution time exceeded",
    ),
    3636: _e(
        "ER_CTE_MAX_RECURSION_DEPTH",
        "HY000",
        "Recursive query aborted after %s iterations. Try increasing @@cte_max_recursion_depth to a larger value.",
    ),
    3948: _e(
        "ER_CLIENT_LOCAL_FILES_DISABLED",
        "42000",
        "Loading local data is disabled; this must be enabled on both the client and server sides",
    ),
    4031: _e(
        "ER_CLIENT_INTERACTION_TIMEOUT",
        "HY000",
        "The client was disconnected by the server because of inactivity. See wait_timeout and "
        "interactive_timeout for configuring this behavior.",
    ),
    # mysqld's start-up error-log messages (share/messages_to_error_log.txt)
    10119: _e("ER_ABORTING", "HY000", "Aborting"),
    10147: _e("ER_EXTRA_ARGS", "HY000", "Too many arguments (first extra is '%s')."),
    # the applier's column type check (8.0: the server-side twin of 1677; MY-013146 in replica error logs)
    13146: _e(
        "ER_SERVER_REPLICA_CONVERSION_FAILED",
        "HY000",
        "Column %s of table '%s.%s' cannot be converted from type '%s' to type '%s'",
    ),
    # client-side (libmysql CR_*) codes that the in-process engine reports
    2006: _e("CR_SERVER_GONE_ERROR", "HY000", "MySQL server has gone away"),
    2013: _e("CR_SERVER_LOST", "HY000", "Lost connection to MySQL server during query"),
    2003: _e("CR_CONN_HOST_ERROR", "HY000", "Can't connect to MySQL server on '%s:%s' (%s)"),
    2005: _e("CR_UNKNOWN_HOST", "HY000", "Unknown MySQL server host '%s' (%s)"),
    2026: _e("CR_SSL_CONNECTION_ERROR", "HY000", "SSL connection error: %s"),
    2068: _e(
        "CR_LOAD_DATA_LOCAL_INFILE_REJECTED",
        "HY000",
        "LOAD DATA LOCAL INFILE file request rejected due to restrictions on access.",
    ),
}


#: The receiver's Last_IO_Error when it cannot (re)connect: a literal of ``connect_to_source()`` in
#: ``sql/rpl_replica.cc`` (8.0.27+, ``mi->report(ERROR_LEVEL, last_errno, ...)``), not a catalogued message; its
#: Last_IO_Errno is the client library's error (2003, 2005, 1045, 2061 ...). Slots: "connecting" or "reconnecting",
#: user, host, port, attempt, SOURCE_RETRY_COUNT, SOURCE_CONNECT_RETRY, the client's message.
SOURCE_CONNECT_ERROR = "Error %s to source '%s@%s:%s'. This was attempt %s/%s, with a delay of %s seconds between attempts. Message: %s"

#: The receiver's fatal texts (slot of 13117 "Fatal error: %s"), as ``get_source_version_and_clock`` /
#: ``get_source_uuid`` in ``sql/rpl_replica.cc`` word them.
REPLICA_EQUAL_SERVER_IDS = (
    "The replica I/O thread stops because source and replica have equal MySQL server ids; these ids must be "
    "different for replication to work (or the --replicate-same-server-id option must be used on replica but this "
    "does not always make sense; please check the manual before using it)."
)
REPLICA_EQUAL_SERVER_UUIDS = (
    "The replica I/O thread stops because source and replica have equal MySQL server UUIDs; these UUIDs must be "
    "different for replication to work."
)
#: gtidkit's SHOW REPLICA STATUS warning (code 1105, as mysqld's my_message texts): MySQL has no such check on the
#: replica side; the issue asks for errant transactions to be reported where a DBA looks first.
REPLICA_ERRANT_GTIDS = (
    "Replica has GTIDs that the source lacks (errant transactions, committed on this replica or on a former "
    "source): '%s'. Failover to this replica would replicate them; remove them or commit empty transactions with "
    "these GTIDs on the source."
)
REPLICA_AUTO_POSITION_GTID_MODE = (
    "The replication receiver thread cannot start in AUTO_POSITION mode: this server uses @@GLOBAL.GTID_MODE = "
    "%s."
)
#: ``get_source_version_and_clock``: incompatible GTID_MODE of source and replica (slots: source's, ours).
GTID_MODE_MISMATCH = (
    "The replication receiver thread cannot start because the source has GTID_MODE = %s and this server has "
    "GTID_MODE = %s."
)
#: ``queue_event`` failed (slot of 13122 "Relay log write failure: %s").
COULD_NOT_QUEUE_EVENT = "could not queue event from source"
SOURCE_AUTO_POSITION_GTID_MODE = "The replication receiver thread cannot start in AUTO_POSITION mode: the source has GTID_MODE = %s instead of ON."

#: Start-up refused because another process holds the datadir (code 1015 ER_CANT_LOCK): InnoDB's two error-log
#: lines ``Unable to lock ./ibdata1 error: 11`` and ``Check that you do not already have another mysqld process
#: using the same InnoDB data or log files`` (MY-012574, ``os_file_lock`` in ``storage/innobase/os/os0file.cc``),
#: naming the datadir and the holder instead of ibdata1. Slots: lock file, errno, strerror, datadir, holder.
DATADIR_IN_USE = (
    "Unable to lock %s error: %s (%s). The data directory %s is in use by %s: check that you do not already have "
    "another gtidkit server or gtidkit sql process using the same data directory, stop it, then start again."
)

#: ``gtidkit server --workers=N`` with N > 1 before workers can share one datadir (issue 21, docs/design/
#: multi_worker.md §8 steps 1-4; a start-up error-log line, then "Aborting"). Slot: N.
WORKERS_NOT_AVAILABLE = (
    "--workers=%s is not available yet: more than one worker process needs the secondary engine open (workers "
    "sharing one datadir through the commit log and the shared-memory GTID state, issue 21 plan steps 1-4), which "
    "this build does not have. Start with --workers=1 (--supervised runs the supervisor and one worker process)."
)

#: Start-up recovery could not read a binary log (code 1105; MySQL logs ER_BINLOG_CRASH_RECOVERY_MALFORMED_LOG and
#: "Aborting" in this case, ``MYSQL_BIN_LOG::open_binlog`` in ``sql/binlog.cc``). Slots: datadir, binlog path,
#: offset, what failed, offset, binlog path.
RECOVERY_BINLOG_UNREADABLE = (
    "Start-up recovery of data directory %s failed: binary log %s cannot be read at offset %s: %s. Recovery "
    "rebuilds the server's state from the binary log, so the server does not start on a damaged one. To fix: "
    "restore the file from a backup; or, if it is the last binary log and you accept losing the transactions "
    "from that offset on, truncate it there (truncate -s %s %s) and start again (recovery then drops the "
    "incomplete transaction)."
)
#: binlog.index lists binary logs that do not exist (code 1105; mysqld logs "Failed to open log (file '...', errno
#: 2)", "Could not open log file", "Can't init tc log" and aborts). Slots: datadir, the missing names, the index.
RECOVERY_BINLOG_MISSING = (
    "Start-up recovery of data directory %s failed: binary log(s) %s listed in %s do not exist. The server "
    "rebuilds its GTID state from its binary logs, so it does not start without them. To fix: put the files "
    "back (from a backup); or, if they were deleted on purpose, remove their lines from the index and start again "
    "(use PURGE BINARY LOGS to delete binary logs; after a crash, GTIDs found only in a deleted newest file would "
    "be lost from gtid_executed)."
)
#: Start-up recovery could not re-apply a binary-log transaction to the engine (the applier's error code is kept).
#: Slots: datadir, GTID or ANONYMOUS, binlog file, begin offset, end offset, the applier's "ERROR n (state): text".
#: Start-up recovery found a binary log that its commit log cannot complete (code 1105). Slots: datadir, binlog
#: file, what the file holds, GTID, start offset, end offset.
RECOVERY_COMMIT_LOG_MISMATCH = (
    "Start-up recovery of data directory %s failed: binary log %s %s, but the commit log (gtidkit.sqlite) holds "
    "transaction %s at offsets %s to %s of it. The engine database and the binary log disagree, which happens "
    "when two processes wrote the data directory at once or its files come from different backups; the server "
    "does not start rather than serve a binary log that lacks committed transactions. To fix: restore the data "
    "directory from a backup."
)
RECOVERY_REAPPLY_FAILED = (
    "Start-up recovery of data directory %s failed: re-applying transaction %s (binary log %s, %s to %s) to the "
    "engine gave %s. The engine database (gtidkit.sqlite) and the binary log disagree, which happens when two "
    "processes wrote the data directory at once or its files come from different backups; the server does not "
    "start rather than guess. To fix: restore the data directory from a backup, or build a new one from another "
    "server of the topology (a replica with SOURCE_AUTO_POSITION=1)."
)
#: auto.cnf without a valid server-uuid (code 1105; mysqld logs "The server_uuid stored in auto.cnf file is not a
#: valid UUID." and aborts, ``init_server_auto_options`` in ``sql/mysqld.cc``). Slots: the file, what is wrong.
AUTO_CNF_DAMAGED = (
    "The server_uuid stored in %s is not usable: %s. The server's own GTIDs are numbered under that UUID, so it "
    "does not start without it. To fix: restore auto.cnf from a backup, or write the old value back ('[auto]' "
    "then 'server-uuid=<uuid>'; a replica's SHOW REPLICA STATUS shows it as Source_UUID); or, for a server nobody "
    "replicates from, delete auto.cnf to generate a new server_uuid."
)

#: mysys's file errors as client programs print them (``mysys/errors.cc``: EE_FILENOTFOUND 29, EE_READ 2), e.g.
#: ``mysqlbinlog: File 'x' not found (OS errno 2 - No such file or directory)``. Slots: file, errno, strerror.
EE_FILENOTFOUND = "File '%s' not found (OS errno %s - %s)"
EE_READ = "Error reading file '%s' (OS errno %s - %s)"


def message(code: int, *args: object) -> str:
    """MySQL's English message for ``code`` with ``args`` put in its ``%s`` slots, in order.

    Args:
        code: a MySQL error number present in :data:`ER`.
        *args: the values of the template's slots (formatted with ``str``).

    Raises:
        KeyError: ``code`` is not in the table (a bug: add the row).
        TypeError: the number of ``args`` does not match the template's slots (a bug).
    """
    spec = ER[code]
    return spec.template % tuple(str(a) for a in args) if args or "%" in spec.template else spec.template


def mysql_error(
    code: int, *args: object, sqlstate: str | None = None, text_of: int | None = None
) -> MySQLError:
    """A :class:`~gtidkit.errors.MySQLError` carrying MySQL's code, SQLSTATE and formatted message.

    Args:
        code: a MySQL error number present in :data:`ER` (e.g. 1790).
        *args: the message template's slot values, in order (see :func:`message`).
        sqlstate: overrides the table's SQLSTATE (MySQL does so for a few statement-specific uses).
        text_of: take the message template of this other code. MySQL does this in a few places, e.g. a bad
            datetime for a column is error 1292 (ER_TRUNCATED_WRONG_VALUE) with the text of 1366
            (``make_truncated_value_warning`` in ``sql/sql_time.cc``).

    Returns:
        The error (not raised: ``raise mysql_error(1790, gtid)``).

    Raises:
        KeyError: ``code`` is not in the table.
    """
    return MySQLError(code, message(text_of or code, *args), sqlstate or ER[code].sqlstate)


def unknown_error(text: str) -> MySQLError:
    """Error 1105 (ER_UNKNOWN_ERROR) with a free text, as mysqld's ``my_message(ER_UNKNOWN_ERROR, text)``.

    The only code whose text is not the table's: MySQL itself reports conditions it has no catalogued message
    for this way (SQLSTATE HY000).

    Args:
        text: the message, as the client should see it.
    """
    return MySQLError(1105, text, ER[1105].sqlstate)


def recovery_reapply_failed(
    err: MySQLError, datadir: object, gtid: str, file: str, begin: int, end: int
) -> MySQLError:
    """Start-up recovery's error for a binlog transaction the engine could not re-apply: the applier's code and
    SQLSTATE, with :data:`RECOVERY_REAPPLY_FAILED` (what failed, why it can happen, how to fix it) as the text.

    Args:
        err: the applier's error.
        datadir: the data directory.
        gtid: the transaction's GTID text, or ``ANONYMOUS``.
        file: the binary log's base name.
        begin: the transaction's first byte offset in ``file``.
        end: the offset right after it.
    """
    return MySQLError(
        err.code, RECOVERY_REAPPLY_FAILED % (datadir, gtid, file, begin, end, err), err.sqlstate
    )


__all__ = [
    "AUTO_CNF_DAMAGED",
    "COULD_NOT_QUEUE_EVENT",
    "DATADIR_IN_USE",
    "EE_FILENOTFOUND",
    "EE_READ",
    "ER",
    "GTID_MODE_MISMATCH",
    "RECOVERY_BINLOG_MISSING",
    "RECOVERY_BINLOG_UNREADABLE",
    "RECOVERY_COMMIT_LOG_MISMATCH",
    "RECOVERY_REAPPLY_FAILED",
    "REPLICA_AUTO_POSITION_GTID_MODE",
    "REPLICA_EQUAL_SERVER_IDS",
    "REPLICA_EQUAL_SERVER_UUIDS",
    "REPLICA_ERRANT_GTIDS",
    "SOURCE_AUTO_POSITION_GTID_MODE",
    "SOURCE_CONNECT_ERROR",
    "ErrorSpec",
    "message",
    "mysql_error",
    "recovery_reapply_failed",
    "unknown_error",
]
