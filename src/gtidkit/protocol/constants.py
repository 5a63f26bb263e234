"""Numbers of the MySQL client/server protocol: capability flags, status flags, commands, column types and flags.

Source: MySQL ``include/mysql_com.h`` (``CLIENT_*``, ``SERVER_STATUS_*``, ``enum_server_command``,
``*_FLAG``), ``include/field_types.h`` (``enum_field_types``), ``include/mysql_com.h``
(``enum_session_state_type``) and ``include/mysql/strings/m_ctype.h`` collation ids. Names keep MySQL's spelling
without the common prefix.
"""

from __future__ import annotations

from enum import IntEnum, IntFlag

# Result-side wire values are the engine's (one copy: gtidkit.engine.results), re-exported here for the codecs.
from gtidkit.engine.results import ColumnFlag, FieldType, ServerStatus, SessionStateType

__all__ = [
    "AUTH_MORE_DATA_HEADER",
    "AUTH_SWITCH_HEADER",
    "BINARY_COLLATION",
    "CAP_DEPRECATE_EOF",
    "CAP_FOUND_ROWS",
    "CAP_PROTOCOL_41",
    "CAP_QUERY_ATTRIBUTES",
    "CAP_SESSION_TRACK",
    "CAP_TRANSACTIONS",
    "EOF_HEADER",
    "ERR_HEADER",
    "FLAG_NUM",
    "FLAG_UNSIGNED",
    "LOCAL_INFILE_HEADER",
    "OK_HEADER",
    "PARAMETER_COUNT_AVAILABLE",
    "SERVER_CAPABILITIES",
    "STATUS_MORE_RESULTS_EXISTS",
    "STATUS_SESSION_STATE_CHANGED",
    "UNSIGNED_PARAM_FLAG",
    "UTF8MB3_GENERAL_CI",
    "UTF8MB4_0900_AI_CI",
    "Capability",
    "ColumnFlag",
    "Command",
    "FieldType",
    "ServerStatus",
    "SessionStateType",
]


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
    | Capability.LOCAL_FILES  # offered always; local_infile OFF refuses LOAD DATA LOCAL with 3948 (sql_load.cc)
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


#: Plain-int copies of the flags tested on every packet (IntFlag arithmetic costs microseconds per operation).
CAP_PROTOCOL_41 = int(Capability.PROTOCOL_41)
CAP_TRANSACTIONS = int(Capability.TRANSACTIONS)
CAP_SESSION_TRACK = int(Capability.SESSION_TRACK)
CAP_DEPRECATE_EOF = int(Capability.DEPRECATE_EOF)
CAP_FOUND_ROWS = int(Capability.FOUND_ROWS)
CAP_QUERY_ATTRIBUTES = int(Capability.QUERY_ATTRIBUTES)
STATUS_MORE_RESULTS_EXISTS = int(ServerStatus.SERVER_MORE_RESULTS_EXISTS)
STATUS_SESSION_STATE_CHANGED = int(ServerStatus.SERVER_SESSION_STATE_CHANGED)
FLAG_UNSIGNED = int(ColumnFlag.UNSIGNED)
#: NUM_FLAG is the client library's: libmysql's ``unpack_field`` sets it on numeric types after reading the
#: definition (so mysqltest's ``--enable_metadata`` prints it); MySQL's server never sends it
#: (``Protocol_classic::send_field_metadata`` sends the field's own flags).
FLAG_NUM = int(ColumnFlag.NUM)

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
