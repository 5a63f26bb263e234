"""Binlog constants with MySQL's names: event type codes, header flags, checksum algorithms, widths.

Sources: MySQL ``libs/mysql/binlog/event/binlog_event.h`` (``Log_event_type``, ``LOG_EVENT_*_F``,
``enum_binlog_checksum_alg``), ``sql/log_event.cc`` (``Log_event::get_type_str``: the SHOW BINLOG EVENTS names),
MariaDB ``sql/log_event.h`` for the MariaDB-only codes 160.. (recognised only so that MariaDB files can be
rejected with a clear message); ../shared/research/formats.md §1.
"""

from __future__ import annotations

from enum import IntEnum, IntFlag

#: ``\xfebin``: the 4 bytes every binlog and relay log file starts with (``BINLOG_MAGIC``).
BINLOG_MAGIC = b"\xfebin"
#: Offset of the first event (right after the magic).
FIRST_EVENT_POS = len(BINLOG_MAGIC)
#: ``LOG_EVENT_HEADER_LEN``: the v4 common header.
EVENT_HEADER_LEN = 19
#: ``BINLOG_CHECKSUM_LEN``: the CRC32 footer.
CHECKSUM_LEN = 4
#: ``BINLOG_CHECKSUM_ALG_DESC_LEN``: the checksum algorithm byte at the end of a 5.6.1+ FDE body.
CHECKSUM_ALG_DESC_LEN = 1
#: ``ST_SERVER_VER_LEN``: the NUL-padded server version field of the FDE.
SERVER_VERSION_LEN = 50
#: ``ENCODED_SID_LENGTH``: a server UUID in binary form.
ENCODED_SID_LENGTH = 16
#: ``ENCODED_GNO_LENGTH``.
ENCODED_GNO_LENGTH = 8
#: zlib.crc32 over an event *including* a correct little-endian CRC32 footer always gives this residue.
CRC32_RESIDUE = 0x2144DF1C
#: First server version whose FDE carries the checksum algorithm byte (``checksum_version_split``).
CHECKSUM_VERSION_SPLIT = (5, 6, 1)


class EventType(IntEnum):
    """``Log_event_type``: the type code in byte 4 of every event header (MySQL's enum names).

    Codes 160..171 are MariaDB's (``MARIADB_`` prefix added here, since MariaDB's own names clash with MySQL's,
    e.g. its ``GTID_EVENT``); gtidkit reads MySQL binlogs only and rejects files containing them.
    """

    UNKNOWN_EVENT = 0
    START_EVENT_V3 = 1
    QUERY_EVENT = 2
    STOP_EVENT = 3
    ROTATE_EVENT = 4
    INTVAR_EVENT = 5
    LOAD_EVENT = 6
    SLAVE_EVENT = 7
    CREATE_FILE_EVENT = 8
    APPEND_BLOCK_EVENT = 9
    EXEC_LOAD_EVENT = 10
    DELETE_FILE_EVENT = 11
    NEW_LOAD_EVENT = 12
    RAND_EVENT = 13
    USER_VAR_EVENT = 14
    FORMAT_DESCRIPTION_EVENT = 15
    XID_EVENT = 16
    BEGIN_LOAD_QUERY_EVENT = 17
    EXECUTE_LOAD_QUERY_EVENT = 18
    TABLE_MAP_EVENT = 19
    PRE_GA_WRITE_ROWS_EVENT = 20
    PRE_GA_UPDATE_ROWS_EVENT = 21
    PRE_GA_DELETE_ROWS_EVENT = 22
    WRITE_ROWS_EVENT_V1 = 23
    UPDATE_ROWS_EVENT_V1 = 24
    DELETE_ROWS_EVENT_V1 = 25
    INCIDENT_EVENT = 26
    HEARTBEAT_LOG_EVENT = 27
    IGNORABLE_LOG_EVENT = 28
    ROWS_QUERY_LOG_EVENT = 29
    WRITE_ROWS_EVENT = 30
    UPDATE_ROWS_EVENT = 31
    DELETE_ROWS_EVENT = 32
    GTID_LOG_EVENT = 33
    ANONYMOUS_GTID_LOG_EVENT = 34
    PREVIOUS_GTIDS_LOG_EVENT = 35
    TRANSACTION_CONTEXT_EVENT = 36
    VIEW_CHANGE_EVENT = 37
    XA_PREPARE_LOG_EVENT = 38
    PARTIAL_UPDATE_ROWS_EVENT = 39
    TRANSACTION_PAYLOAD_EVENT = 40
    HEARTBEAT_LOG_EVENT_V2 = 41
    GTID_TAGGED_LOG_EVENT = 42
    # MariaDB (sql/log_event.h, MARIA_EVENTS_BEGIN = 160)
    MARIADB_ANNOTATE_ROWS_EVENT = 160
    MARIADB_BINLOG_CHECKPOINT_EVENT = 161
    MARIADB_GTID_EVENT = 162
    MARIADB_GTID_LIST_EVENT = 163
    MARIADB_START_ENCRYPTION_EVENT = 164
    MARIADB_QUERY_COMPRESSED_EVENT = 165
    MARIADB_WRITE_ROWS_COMPRESSED_EVENT_V1 = 166
    MARIADB_UPDATE_ROWS_COMPRESSED_EVENT_V1 = 167
    MARIADB_DELETE_ROWS_COMPRESSED_EVENT_V1 = 168
    MARIADB_WRITE_ROWS_COMPRESSED_EVENT = 169
    MARIADB_UPDATE_ROWS_COMPRESSED_EVENT = 170
    MARIADB_DELETE_ROWS_COMPRESSED_EVENT = 171


#: MariaDB-only type codes: their presence marks a MariaDB binlog.
MARIADB_EVENT_TYPES = frozenset(t for t in EventType if t >= 160)

#: Type code → ``Event_type`` column of SHOW BINLOG EVENTS (``Log_event::get_type_str``); absent codes print
#: ``Unknown`` in MySQL.
EVENT_TYPE_NAMES: dict[int, str] = {
    EventType.START_EVENT_V3: "Start_v3",
    EventType.QUERY_EVENT: "Query",
    EventType.STOP_EVENT: "Stop",
    EventType.ROTATE_EVENT: "Rotate",
    EventType.INTVAR_EVENT: "Intvar",
    EventType.LOAD_EVENT: "Load",
    EventType.SLAVE_EVENT: "Slave",
    EventType.CREATE_FILE_EVENT: "Create_file",
    EventType.APPEND_BLOCK_EVENT: "Append_block",
    EventType.EXEC_LOAD_EVENT: "Exec_load",
    EventType.DELETE_FILE_EVENT: "Delete_file",
    EventType.NEW_LOAD_EVENT: "New_load",
    EventType.RAND_EVENT: "RAND",
    EventType.USER_VAR_EVENT: "User var",
    EventType.FORMAT_DESCRIPTION_EVENT: "Format_desc",
    EventType.XID_EVENT: "Xid",
    EventType.BEGIN_LOAD_QUERY_EVENT: "Begin_load_query",
    EventType.EXECUTE_LOAD_QUERY_EVENT: "Execute_load_query",
    EventType.TABLE_MAP_EVENT: "Table_map",
    EventType.PRE_GA_WRITE_ROWS_EVENT: "Write_rows_event_old",
    EventType.PRE_GA_UPDATE_ROWS_EVENT: "Update_rows_event_old",
    EventType.PRE_GA_DELETE_ROWS_EVENT: "Delete_rows_event_old",
    EventType.WRITE_ROWS_EVENT_V1: "Write_rows_v1",
    EventType.UPDATE_ROWS_EVENT_V1: "Update_rows_v1",
    EventType.DELETE_ROWS_EVENT_V1: "Delete_rows_v1",
    EventType.INCIDENT_EVENT: "Incident",
    EventType.HEARTBEAT_LOG_EVENT: "Heartbeat",
    EventType.IGNORABLE_LOG_EVENT: "Ignorable",
    EventType.ROWS_QUERY_LOG_EVENT: "Rows_query",
    EventType.WRITE_ROWS_EVENT: "Write_rows",
    EventType.UPDATE_ROWS_EVENT: "Update_rows",
    EventType.DELETE_ROWS_EVENT: "Delete_rows",
    EventType.GTID_LOG_EVENT: "Gtid",
    EventType.ANONYMOUS_GTID_LOG_EVENT: "Anonymous_Gtid",
    EventType.PREVIOUS_GTIDS_LOG_EVENT: "Previous_gtids",
    EventType.TRANSACTION_CONTEXT_EVENT: "Transaction_context",
    EventType.VIEW_CHANGE_EVENT: "View_change",
    EventType.XA_PREPARE_LOG_EVENT: "XA_prepare",
    EventType.PARTIAL_UPDATE_ROWS_EVENT: "Update_rows_partial",
    EventType.TRANSACTION_PAYLOAD_EVENT: "Transaction_payload",
    EventType.GTID_TAGGED_LOG_EVENT: "Gtid_tagged_log_event",
}


def event_type_name(type_code: int) -> str:
    """MySQL's enum name for ``type_code`` (``GTID_LOG_EVENT``), or the decimal code for codes MySQL lacks."""
    try:
        return EventType(type_code).name
    except ValueError:
        return str(type_code)


class EventFlags(IntFlag):
    """Common-header flags (u16 at header offset 17; ``LOG_EVENT_*_F``)."""

    NONE = 0
    BINLOG_IN_USE = 0x0001
    FORCED_ROTATE = 0x0002
    THREAD_SPECIFIC = 0x0004
    SUPPRESS_USE = 0x0008
    UPDATE_TABLE_MAP_VERSION = 0x0010
    ARTIFICIAL = 0x0020
    RELAY_LOG = 0x0040
    IGNORABLE = 0x0080
    NO_FILTER = 0x0100
    MTS_ISOLATE = 0x0200


#: ``LOG_EVENT_BINLOG_IN_USE_F``: set on the FDE while the file is open; cleared before the CRC is checked.
LOG_EVENT_BINLOG_IN_USE_F = 0x0001
#: ``LOG_EVENT_ARTIFICIAL_F``: fake Rotate / FDE made by the server, not read from a file.
LOG_EVENT_ARTIFICIAL_F = 0x0020
#: ``LOG_EVENT_RELAY_LOG_F``: an event the replica wrote itself into its relay log.
LOG_EVENT_RELAY_LOG_F = 0x0040
#: ``LOG_EVENT_IGNORABLE_F``: a reader that does not know the type may skip the event.
LOG_EVENT_IGNORABLE_F = 0x0080

#: Header flags MySQL sets on events it writes, by type (``Log_event`` constructors in ``sql/log_event.cc``);
#: :func:`gtidkit.binlog.codec.encode_event` uses them when the caller gives no flags. (Gtid and Anonymous_gtid
#: events carry 0 in every real 5.7-9.x file of the shared fixtures.)
DEFAULT_EVENT_FLAGS: dict[int, int] = {
    EventType.PREVIOUS_GTIDS_LOG_EVENT: LOG_EVENT_IGNORABLE_F,
    EventType.TRANSACTION_CONTEXT_EVENT: LOG_EVENT_IGNORABLE_F,
    EventType.VIEW_CHANGE_EVENT: LOG_EVENT_IGNORABLE_F,
    EventType.ROWS_QUERY_LOG_EVENT: LOG_EVENT_IGNORABLE_F,
}


class ChecksumAlg(IntEnum):
    """``enum_binlog_checksum_alg``: the last byte of a 5.6.1+ FDE body (``@@binlog_checksum``)."""

    OFF = 0
    CRC32 = 1
    UNDEFINED = 255


class GtidFlags(IntFlag):
    """``gtid_flags`` (first byte of a Gtid event body)."""

    NONE = 0
    #: ``FLAG_MAY_HAVE_SBR``: the transaction may contain statement-based events (``rbr_only=no``).
    MAY_HAVE_SBR = 0x01


#: ``LOGICAL_TIMESTAMP_TYPECODE``: the lt_type byte of a 5.7+ Gtid event.
LOGICAL_TIMESTAMP_TYPECODE = 2


class IntvarType(IntEnum):
    """Intvar_event ``type`` byte (``Intvar_event::Int_event_type``)."""

    INVALID_INT_EVENT = 0
    LAST_INSERT_ID_EVENT = 1
    INSERT_ID_EVENT = 2


class CompressionType(IntEnum):
    """Transaction_payload ``compression_type`` (``mysql::binlog::event::compression::type``)."""

    ZSTD = 0
    NONE = 255
