"""Query event status variables: the session state a statement ran under on the source.

MySQL source: ``libs/mysql/binlog/event/statement_events.h`` (``Query_event``'s status-variable codes and their
widths; ``Query_event::Query_event(const char *buf, ...)`` reads them) and ``sql/log_event.cc``
(``Query_log_event::do_apply_event``: the applier copies sql_mode, auto_increment_*, the character sets and the
time zone into its THD before running the statement). Each entry is a one-byte code followed by a value whose
width depends on the code; MySQL stops reading at an unknown code, and so does :func:`decode_status_vars`.

| code | name                               | value                                                          |
|------|------------------------------------|----------------------------------------------------------------|
| 0    | Q_FLAGS2_CODE                      | 4 bytes: OPTION_* bits (autocommit off, foreign/unique checks) |
| 1    | Q_SQL_MODE_CODE                    | 8 bytes: sql_mode bits                                         |
| 2    | Q_CATALOG_CODE                     | 1-byte length + name + NUL (5.0.0 - 5.0.3)                     |
| 3    | Q_AUTO_INCREMENT                   | 2 bytes increment, 2 bytes offset                              |
| 4    | Q_CHARSET_CODE                     | 2 bytes each: character_set_client, collation_connection,      |
|      |                                    | collation_server (collation ids)                               |
| 5    | Q_TIME_ZONE_CODE                   | 1-byte length + time zone name                                 |
| 6    | Q_CATALOG_NZ_CODE                  | 1-byte length + catalog name (``std``)                         |
| 7    | Q_LC_TIME_NAMES_CODE               | 2 bytes: lc_time_names number                                  |
| 8    | Q_CHARSET_DATABASE_CODE            | 2 bytes: collation_database id                                 |
| 9    | Q_TABLE_MAP_FOR_UPDATE_CODE        | 8 bytes: bitmap of multi-table-update tables                   |
| 10   | Q_MASTER_DATA_WRITTEN_CODE         | 4 bytes (relay logs of old servers)                            |
| 11   | Q_INVOKER                          | 1-byte length + user, 1-byte length + host                     |
| 12   | Q_UPDATED_DB_NAMES                 | 1-byte count, then count NUL-terminated names (254: too many)  |
| 13   | Q_MICROSECONDS                     | 3 bytes: microseconds of the statement start time              |
| 14   | Q_COMMIT_TS                        | (never written by a GA server; stops the scan)                 |
| 15   | Q_COMMIT_TS2                       | (never written by a GA server; stops the scan)                 |
| 16   | Q_EXPLICIT_DEFAULTS_FOR_TIMESTAMP  | 1 byte                                                         |
| 17   | Q_DDL_LOGGED_WITH_XID              | 8 bytes: xid of a DDL logged with one                          |
| 18   | Q_DEFAULT_COLLATION_FOR_UTF8MB4    | 2 bytes: collation id                                          |
| 19   | Q_SQL_REQUIRE_PRIMARY_KEY          | 1 byte                                                         |
| 20   | Q_DEFAULT_TABLE_ENCRYPTION         | 1 byte                                                         |
"""

from __future__ import annotations

from dataclasses import dataclass

from gtidkit.binlog.cursor import Cursor, CursorError

__all__ = ["OVER_MAX_DBS_IN_EVENT_MTS", "QueryStatusVars", "decode_status_vars"]

Q_FLAGS2_CODE = 0
Q_SQL_MODE_CODE = 1
Q_CATALOG_CODE = 2
Q_AUTO_INCREMENT = 3
Q_CHARSET_CODE = 4
Q_TIME_ZONE_CODE = 5
Q_CATALOG_NZ_CODE = 6
Q_LC_TIME_NAMES_CODE = 7
Q_CHARSET_DATABASE_CODE = 8
Q_TABLE_MAP_FOR_UPDATE_CODE = 9
Q_MASTER_DATA_WRITTEN_CODE = 10
Q_INVOKER = 11
Q_UPDATED_DB_NAMES = 12
Q_MICROSECONDS = 13
Q_EXPLICIT_DEFAULTS_FOR_TIMESTAMP = 16
Q_DDL_LOGGED_WITH_XID = 17
Q_DEFAULT_COLLATION_FOR_UTF8MB4 = 18
Q_SQL_REQUIRE_PRIMARY_KEY = 19
Q_DEFAULT_TABLE_ENCRYPTION = 20
#: Q_UPDATED_DB_NAMES count meaning "more databases than MAX_DBS_IN_EVENT_MTS (16)": no names follow.
OVER_MAX_DBS_IN_EVENT_MTS = 254

#: Fixed-width codes: code -> value width in bytes.
_FIXED = {
    Q_FLAGS2_CODE: 4,
    Q_SQL_MODE_CODE: 8,
    Q_AUTO_INCREMENT: 4,
    Q_CHARSET_CODE: 6,
    Q_LC_TIME_NAMES_CODE: 2,
    Q_CHARSET_DATABASE_CODE: 2,
    Q_TABLE_MAP_FOR_UPDATE_CODE: 8,
    Q_MASTER_DATA_WRITTEN_CODE: 4,
    Q_MICROSECONDS: 3,
    Q_EXPLICIT_DEFAULTS_FOR_TIMESTAMP: 1,
    Q_DDL_LOGGED_WITH_XID: 8,
    Q_DEFAULT_COLLATION_FOR_UTF8MB4: 2,
    Q_SQL_REQUIRE_PRIMARY_KEY: 1,
    Q_DEFAULT_TABLE_ENCRYPTION: 1,
}


@dataclass(frozen=True, slots=True)
class QueryStatusVars:
    """The decoded status variables of one Query event; ``None`` for each one the event does not carry.

    Attributes:
        flags2: OPTION_* bits (``OPTION_NOT_AUTOCOMMIT`` 1<<19, ``OPTION_NO_FOREIGN_KEY_CHECKS`` 1<<26,
            ``OPTION_RELAXED_UNIQUE_CHECKS`` 1<<27, ``OPTION_AUTO_IS_NULL`` 1<<14).
        sql_mode: the sql_mode bit set.
        auto_increment_increment, auto_increment_offset: as the source's session had them.
        character_set_client, collation_connection, collation_server: collation ids.
        time_zone: the session time zone name (``SYSTEM``, ``+00:00``, ``Europe/Paris`` ...).
        lc_time_names: lc_time_names number (0 = en_US).
        collation_database: collation id of the default database.
        updated_db_names: databases the statement changed (``None`` when absent or over the limit).
        microseconds: sub-second part of the statement start time.
        explicit_defaults_for_timestamp, sql_require_primary_key, default_table_encryption: 0/1 flags.
        ddl_xid: xid of a DDL logged with one.
        default_collation_for_utf8mb4: collation id (255 on 8.0).
        catalog: catalog name (``std``).
        invoker: ``(user, host)`` of a stored-program definer, else ``None``.
    """

    flags2: int | None = None
    sql_mode: int | None = None
    auto_increment_increment: int | None = None
    auto_increment_offset: int | None = None
    character_set_client: int | None = None
    collation_connection: int | None = None
    collation_server: int | None = None
    time_zone: str | None = None
    lc_time_names: int | None = None
    collation_database: int | None = None
    updated_db_names: tuple[str, ...] | None = None
    microseconds: int | None = None
    explicit_defaults_for_timestamp: int | None = None
    ddl_xid: int | None = None
    default_collation_for_utf8mb4: int | None = None
    sql_require_primary_key: int | None = None
    default_table_encryption: int | None = None
    catalog: str | None = None
    invoker: tuple[str, str] | None = None


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def decode_status_vars(raw: bytes | memoryview) -> QueryStatusVars:
    """Decode a Query event's status-variable block (``QueryEvent.status_vars``).

    Reading stops at the first code this table does not know, as MySQL's decoder does (the rest of the block
    cannot be framed without knowing the width).

    Raises:
        CursorError: a value runs past the end of the block (a corrupt event).
    """
    cur = Cursor(bytes(raw))
    out: dict[str, object] = {}
    while cur.remaining:
        code = cur.u8()
        if code in _FIXED and cur.remaining < _FIXED[code]:
            raise CursorError(f"Query status variable {code} is truncated")
        if code == Q_FLAGS2_CODE:
            out["flags2"] = cur.u32()
        elif code == Q_SQL_MODE_CODE:
            out["sql_mode"] = cur.u64()
        elif code == Q_AUTO_INCREMENT:
            out["auto_increment_increment"] = cur.u16()
            out["auto_increment_offset"] = cur.u16()
        elif code == Q_CHARSET_CODE:
            out["character_set_client"] = cur.u16()
            out["collation_connection"] = cur.u16()
            out["collation_server"] = cur.u16()
        elif code == Q_TIME_ZONE_CODE:
            out["time_zone"] = _text(cur.bytes(cur.u8()))
        elif code == Q_CATALOG_NZ_CODE:
            out["catalog"] = _text(cur.bytes(cur.u8()))
        elif code == Q_CATALOG_CODE:
            out["catalog"] = _text(cur.bytes(cur.u8()))
            cur.u8()  # the NUL MySQL 5.0.0-5.0.3 wrote after it
        elif code == Q_LC_TIME_NAMES_CODE:
            out["lc_time_names"] = cur.u16()
        elif code == Q_CHARSET_DATABASE_CODE:
            out["collation_database"] = cur.u16()
        elif code == Q_TABLE_MAP_FOR_UPDATE_CODE:
            cur.u64()
        elif code == Q_MASTER_DATA_WRITTEN_CODE:
            cur.u32()
        elif code == Q_INVOKER:
            user = _text(cur.bytes(cur.u8()))
            host = _text(cur.bytes(cur.u8()))
            out["invoker"] = (user, host)
        elif code == Q_UPDATED_DB_NAMES:
            count = cur.u8()
            if count == OVER_MAX_DBS_IN_EVENT_MTS:
                continue
            names = []
            for _ in range(count):
                name = bytearray()
                while True:
                    b = cur.u8()
                    if b == 0:
                        break
                    name.append(b)
                names.append(_text(bytes(name)))
            out["updated_db_names"] = tuple(names)
        elif code == Q_MICROSECONDS:
            out["microseconds"] = cur.u24()
        elif code == Q_EXPLICIT_DEFAULTS_FOR_TIMESTAMP:
            out["explicit_defaults_for_timestamp"] = cur.u8()
        elif code == Q_DDL_LOGGED_WITH_XID:
            out["ddl_xid"] = cur.u64()
        elif code == Q_DEFAULT_COLLATION_FOR_UTF8MB4:
            out["default_collation_for_utf8mb4"] = cur.u16()
        elif code == Q_SQL_REQUIRE_PRIMARY_KEY:
            out["sql_require_primary_key"] = cur.u8()
        elif code == Q_DEFAULT_TABLE_ENCRYPTION:
            out["default_table_encryption"] = cur.u8()
        else:
            break  # unknown code: its width is unknown, MySQL stops here too
    return QueryStatusVars(**out)  # type: ignore[arg-type]
