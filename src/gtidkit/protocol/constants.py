"""Numbers of the MySQL client/server protocol: capability flags, status flags, commands, column types and flags.

Source: MySQL ``include/mysql_com.h`` (``CLIENT_*``, ``SERVER_STATUS_*``, ``enum_server_command``,
``*_FLAG``), ``include/field_types.h`` (``enum_field_types``), ``include/mysql_com.h``
(``enum_session_state_type``) and ``include/mysql/strings/m_ctype.h`` collation ids. Names keep MySQL's spelling
without the common prefix.
"""

from __future__ import annotations

from enum import IntEnum, IntFlag


class Capability(IntFlag):
    """``CLIENT_*`` capability flags (``mysql_com.h``)."""

    LONG_PASSWORD = 1
    FOUND_ROWS = 1 << 1
    LONG_FLAG = 1 << 2
    CONNECT_WITH_DB = 1 << 3
    NO_SCHEMA = 1 << 4
    COMPRESS = 1 << 5
    ODBC = 1 << 6
    LOCAL_FILES = 1 << 7
    IGNORE_SPACE = 1 << 8
    PROTOCOL_41 = 1 << 9
    INTERACTIVE = 1 << 10
    SSL = 1 << 11
    IGNORE_SIGPIPE = 1 << 12
    TRANSACTIONS = 1 << 13
    RESERVED = 1 << 14
    SECURE_CONNECTION = 1 << 15
    MULTI_STATEMENTS = 1 << 16
    MULTI_RESULTS = 1 << 17
    PS_MULTI_RESULTS = 1 << 18
    PLUGIN_AUTH = 1 << 19
    CONNECT_ATTRS = 1 << 20
    PLUGIN_AUTH_LENENC_CLIENT_DATA = 1 << 21
    CAN_HANDLE_EXPIRED_PASSWORDS = 1 << 22
    SESSION_TRACK = 1 << 23
    DEPRECATE_EOF = 1 << 24
    OPTIONAL_RESULTSET_METADATA = 1 << 25
    ZSTD_COMPRESSION_ALGORITHM = 1 << 26
    QUERY_ATTRIBUTES = 1 << 27
    MULTI_FACTOR_AUTHENTICATION = 1 << 28
    CAPABILITY_EXTENSION = 1 << 29
    SSL_VERIFY_SERVER_CERT = 1 << 30
    REMEMBER_OPTIONS = 1 << 31


#: What gtidkit's server offers in its Handshake (no compression, no LOCAL INFILE, no result-set metadata
#: suppression, no multi-factor auth). SSL is added only when the server has a certificate.
SERVER_CAPABILITIES = (
    Capability.LONG_PASSWORD
    | Capability.FOUND_ROWS
    | Capability.LONG_FLAG
    | Capability.CONNECT_WITH_DB
    | Capability.NO_SCHEMA
    | Capability.ODBC
    | Capability.IGNORE_SPACE
    | Capability.PROTOCOL_41
    | Capability.INTERACTIVE
    | Capability.IGNORE_SIGPIPE
    | Capability.TRANSACTIONS
    | Capability.RESERVED
    | Capability.SECURE_CONNECTION
    | Capability.MULTI_STATEMENTS
    | Capability.MULTI_RESULTS
    | Capability.PS_MULTI_RESULTS
    | Capability.PLUGIN_AUTH
    | Capability.CONNECT_ATTRS
    | Capability.PLUGIN_AUTH_LENENC_CLIENT_DATA
    | Capability.CAN_HANDLE_EXPIRED_PASSWORDS
    | Capability.SESSION_TRACK
    | Capability.DEPRECATE_EOF
    | Capability.QUERY_ATTRIBUTES
)


class ServerStatus(IntFlag):
    """``SERVER_STATUS_*`` / ``SERVER_*`` status flags sent in OK and EOF packets (``mysql_com.h``)."""

    IN_TRANS = 1
    AUTOCOMMIT = 2
    MORE_RESULTS_EXISTS = 8
    QUERY_NO_GOOD_INDEX_USED = 16
    QUERY_NO_INDEX_USED = 32
    CURSOR_EXISTS = 64
    LAST_ROW_SENT = 128
    DB_DROPPED = 256
    NO_BACKSLASH_ESCAPES = 512
    METADATA_CHANGED = 1024
    QUERY_WAS_SLOW = 2048
    PS_OUT_PARAMS = 4096
    IN_TRANS_READONLY = 8192
    SESSION_STATE_CHANGED = 16384


class Command(IntEnum):
    """``enum_server_command``: the first byte of every packet of the command phase."""

    COM_SLEEP = 0
    COM_QUIT = 1
    COM_INIT_DB = 2
    COM_QUERY = 3
    COM_FIELD_LIST = 4
    COM_CREATE_DB = 5
    COM_DROP_DB = 6
    COM_REFRESH = 7
    COM_SHUTDOWN = 8
    COM_STATISTICS = 9
    COM_PROCESS_INFO = 10
    COM_CONNECT = 11
    COM_PROCESS_KILL = 12
    COM_DEBUG = 13
    COM_PING = 14
    COM_TIME = 15
    COM_DELAYED_INSERT = 16
    COM_CHANGE_USER = 17
    COM_BINLOG_DUMP = 18
    COM_TABLE_DUMP = 19
    COM_CONNECT_OUT = 20
    COM_REGISTER_SLAVE = 21
    COM_STMT_PREPARE = 22
    COM_STMT_EXECUTE = 23
    COM_STMT_SEND_LONG_DATA = 24
    COM_STMT_CLOSE = 25
    COM_STMT_RESET = 26
    COM_SET_OPTION = 27
    COM_STMT_FETCH = 28
    COM_DAEMON = 29
    COM_BINLOG_DUMP_GTID = 30
    COM_RESET_CONNECTION = 31
    COM_CLONE = 32


class FieldType(IntEnum):
    """``enum_field_types`` (``field_types.h``): the type byte of a column definition and of binary values."""

    DECIMAL = 0
    TINY = 1
    SHORT = 2
    LONG = 3
    FLOAT = 4
    DOUBLE = 5
    NULL = 6
    TIMESTAMP = 7
    LONGLONG = 8
    INT24 = 9
    DATE = 10
    TIME = 11
    DATETIME = 12
    YEAR = 13
    NEWDATE = 14
    VARCHAR = 15
    BIT = 16
    TIMESTAMP2 = 17
    DATETIME2 = 18
    TIME2 = 19
    TYPED_ARRAY = 20
    VECTOR = 242
    INVALID = 243
    BOOL = 244
    JSON = 245
    NEWDECIMAL = 246
    ENUM = 247
    SET = 248
    TINY_BLOB = 249
    MEDIUM_BLOB = 250
    LONG_BLOB = 251
    BLOB = 252
    VAR_STRING = 253
    STRING = 254
    GEOMETRY = 255


class ColumnFlag(IntFlag):
    """Column definition flags (``*_FLAG`` in ``mysql_com.h``)."""

    NOT_NULL = 1
    PRI_KEY = 2
    UNIQUE_KEY = 4
    MULTIPLE_KEY = 8
    BLOB = 16
    UNSIGNED = 32
    ZEROFILL = 64
    BINARY = 128
    ENUM = 256
    AUTO_INCREMENT = 512
    TIMESTAMP = 1024
    SET = 2048
    NO_DEFAULT_VALUE = 4096
    ON_UPDATE_NOW = 8192
    NUM = 32768


class SessionStateType(IntEnum):
    """``enum_session_state_type``: the type byte of each entry of the OK packet's session-state block."""

    SESSION_TRACK_SYSTEM_VARIABLES = 0
    SESSION_TRACK_SCHEMA = 1
    SESSION_TRACK_STATE_CHANGE = 2
    SESSION_TRACK_GTIDS = 3
    SESSION_TRACK_TRANSACTION_CHARACTERISTICS = 4
    SESSION_TRACK_TRANSACTION_STATE = 5


#: Plain-int copies of the flags tested on every packet (IntFlag arithmetic costs microseconds per operation).
CAP_PROTOCOL_41 = int(Capability.PROTOCOL_41)
CAP_TRANSACTIONS = int(Capability.TRANSACTIONS)
CAP_SESSION_TRACK = int(Capability.SESSION_TRACK)
CAP_DEPRECATE_EOF = int(Capability.DEPRECATE_EOF)
CAP_FOUND_ROWS = int(Capability.FOUND_ROWS)
STATUS_MORE_RESULTS_EXISTS = int(ServerStatus.MORE_RESULTS_EXISTS)
STATUS_SESSION_STATE_CHANGED = int(ServerStatus.SESSION_STATE_CHANGED)
FLAG_UNSIGNED = int(ColumnFlag.UNSIGNED)

#: Collation ids used by the server: utf8mb4_0900_ai_ci (MySQL 8's default), binary, utf8mb3_general_ci.
UTF8MB4_0900_AI_CI = 255
BINARY_COLLATION = 63
UTF8MB3_GENERAL_CI = 33

#: Header bytes that start an OK, EOF and ERR packet, and the auth-phase markers.
OK_HEADER = 0x00
EOF_HEADER = 0xFE
ERR_HEADER = 0xFF
AUTH_MORE_DATA_HEADER = 0x01
AUTH_SWITCH_HEADER = 0xFE
LOCAL_INFILE_HEADER = 0xFB

#: COM_STMT_EXECUTE flag: parameter count sent although the statement has none (CLIENT_QUERY_ATTRIBUTES).
PARAMETER_COUNT_AVAILABLE = 0x08
#: Unsigned marker in the second byte of a binary parameter type.
UNSIGNED_PARAM_FLAG = 0x80
