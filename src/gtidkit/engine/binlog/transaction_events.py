"""The events of one transaction as MySQL logs it (after its Gtid/Anonymous_gtid event).

Source: MySQL ``sql/binlog.cc`` / ``sql/log_event.cc`` (``binlog_cache_data``: ``Query(BEGIN)`` opens a DML
transaction, ``Xid`` ends it; a DDL is a single ``Query`` with the default database; an empty transaction with an
explicit GTID is ``Query(BEGIN)`` + ``Query(COMMIT)``), RM8 "Binary Logging Formats", formats.md §1.7 and §8.2.

* ROW: ``Query(BEGIN)``, then per statement a ``Table_map`` for each table and its
  ``Write/Update/Delete_rows_v2`` events (built by the SQL layer's :mod:`gtidkit.engine.sql.rowimage`), ``Xid``.
* STATEMENT: ``Query(BEGIN)``, per DML statement its context events then its ``Query`` (with its default
  database), ``Xid``. As ``MYSQL_BIN_LOG::write_event``: ``Intvar(LAST_INSERT_ID)`` first when the statement calls
  ``LAST_INSERT_ID()`` (value = what it returned, the previous statement's first generated id), then
  ``Intvar(INSERT_ID)`` = the first AUTO_INCREMENT value the statement generated, then ``Rand`` (seeds of its
  ``RAND()``), then a ``User_var`` per user variable it reads (:mod:`gtidkit.engine.binlog.statement_context`); a
  replica or recovery sets them before running the statement so it produces the same data.
* MIXED: as STATEMENT, except that each statement MySQL deems unsafe
  (:func:`gtidkit.engine.binlog.statement_context.unsafe_reason`) is logged as its Table_map + rows events.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Protocol

from gtidkit.binlog.constants import IntvarType
from gtidkit.binlog.events.control import XidEvent
from gtidkit.binlog.events.rows import RowsQueryEvent
from gtidkit.binlog.events.statement import IntvarEvent, QueryEvent
from gtidkit.engine import charsets
from gtidkit.engine.binlog.dependency import NO_WRITESET, Writeset, extract_writeset
from gtidkit.engine.sql import rowimage
from gtidkit.engine.time_zone import SYSTEM
from gtidkit.mysql_errors import mysql_error

if TYPE_CHECKING:
    from gtidkit.engine.binlog.error_action import ServerGlobals
    from gtidkit.engine.binlog.statement_context import LoggedStatement
    from gtidkit.engine.storage import Storage


# ---------------------------------------------------------------------------------------------------- seams
class HasGlobals(Protocol):
    """Something with the server's global system variables (a session's ``server``)."""

    @property
    def globals(self) -> ServerGlobals:
        """The global system variables."""
        ...


class LoggingServer(HasGlobals, Protocol):
    """What building a transaction's events needs of the server (:class:`gtidkit.engine.server.Server` is one)."""

    @property
    def storage(self) -> Storage:
        """The storage (its catalog: the tables' definitions for Table_map events and writesets)."""
        ...

    def next_xid(self) -> int:
        """The next Xid event's transaction id."""
        ...

    def table_id(self, schema: str, table: str) -> int:
        """The binlog table id of ``schema.table`` (stable while the table's definition is)."""
        ...


class LoggingSession(Protocol):
    """What building a transaction's events reads of the committing session (:class:`gtidkit.engine.session.
    Session` is one): its id (the Query events' thread id), session variables, default database and the
    transaction's recorded changes."""

    @property
    def id(self) -> int:
        """CONNECTION_ID(): the Query events' thread id."""
        ...

    @property
    def server(self) -> HasGlobals:
        """The session's server (the global values behind the session's own)."""
        ...

    @property
    def session_vars(self) -> dict[str, Any]:
        """Canonical variable name -> the session's own value (absent: the global one)."""
        ...

    @property
    def current_db(self) -> str | None:
        """The default database."""
        ...

    @property
    def ddl_binlog_text(self) -> str | None:
        """The open transaction's CREATE TABLE ... SELECT as ROW format logs it, or None."""
        ...

    @property
    def row_changes(self) -> list[Any]:
        """Every RowChange of the open transaction."""
        ...

    @property
    def row_statements(self) -> list[list[Any]]:
        """The RowChanges of each DML statement (:class:`StatementRows` when recorded with their settings)."""
        ...

    @property
    def statements(self) -> list[LoggedStatement]:
        """Each DML statement as STATEMENT / MIXED format logs it."""
        ...

    @property
    def trx_dirty(self) -> bool:
        """The open transaction changed rows."""
        ...


# Query event status variables (``Query_log_event::write``; codes from ``statement_events.h``), in the order
# MySQL 8.0/8.4 writes them. Checked against 8.0.28 and 8.4 captures (fixtures/binlogs, formats.md §1.7).
Q_FLAGS2_CODE = 0
Q_SQL_MODE_CODE = 1
Q_CHARSET_CODE = 4
Q_TIME_ZONE_CODE = 5
Q_CATALOG_NZ_CODE = 6
Q_UPDATED_DB_NAMES = 12
Q_DEFAULT_COLLATION_FOR_UTF8MB4 = 18
Q_SQL_REQUIRE_PRIMARY_KEY = 19
Q_DEFAULT_TABLE_ENCRYPTION = 20
#: ``MAX_DBS_IN_EVENT_MTS``: more updated databases than this are logged as ``OVER_MAX_DBS_IN_EVENT_MTS``.
MAX_DBS_IN_EVENT_MTS = 16
OVER_MAX_DBS_IN_EVENT_MTS = 254
Q_AUTO_INCREMENT = 3
#: flags2 bits (``sql/query_options.h``): what mysqlbinlog prints as ``SET @@session.foreign_key_checks=...,
#: @@session.sql_auto_is_null=..., @@session.unique_checks=..., @@session.autocommit=...``
OPTION_AUTO_IS_NULL = 1 << 14
OPTION_NOT_AUTOCOMMIT = 1 << 19
OPTION_NO_FOREIGN_KEY_CHECKS = 1 << 26
OPTION_RELAXED_UNIQUE_CHECKS = 1 << 27

#: ``sql_mode`` names → bits of the 8-byte Q_SQL_MODE_CODE value (``sql/system_variables.h`` MODE_*).
SQL_MODE_BITS = {
    "REAL_AS_FLOAT": 1 << 0,
    "PIPES_AS_CONCAT": 1 << 1,
    "ANSI_QUOTES": 1 << 2,
    "IGNORE_SPACE": 1 << 3,
    "ONLY_FULL_GROUP_BY": 1 << 5,
    "NO_UNSIGNED_SUBTRACTION": 1 << 6,
    "NO_DIR_IN_CREATE": 1 << 7,
    "ANSI": 1 << 18,
    "NO_AUTO_VALUE_ON_ZERO": 1 << 19,
    "NO_BACKSLASH_ESCAPES": 1 << 20,
    "STRICT_TRANS_TABLES": 1 << 21,
    "STRICT_ALL_TABLES": 1 << 22,
    "NO_ZERO_IN_DATE": 1 << 23,
    "NO_ZERO_DATE": 1 << 24,
    "ALLOW_INVALID_DATES": 1 << 25,
    "ERROR_FOR_DIVISION_BY_ZERO": 1 << 26,
    "TRADITIONAL": 1 << 27,
    "HIGH_NOT_PRECEDENCE": 1 << 29,
    "NO_ENGINE_SUBSTITUTION": 1 << 30,
    "PAD_CHAR_TO_FULL_LENGTH": 1 << 31,
    "TIME_TRUNCATE_FRACTIONAL": 1 << 32,
}

#: character set / collation names → collation ids (``SHOW COLLATION``); a charset maps to its 8.0 default.
COLLATION_IDS = {
    "utf8mb4": 255,
    "utf8mb4_0900_ai_ci": 255,
    "utf8mb4_general_ci": 45,
    "utf8mb4_bin": 46,
    "utf8mb4_unicode_ci": 224,
    "utf8mb3": 33,
    "utf8": 33,
    "utf8mb3_general_ci": 33,
    "utf8_general_ci": 33,
    "latin1": 8,
    "latin1_swedish_ci": 8,
    "ascii": 11,
    "binary": 63,
}


def _collation_id(name: Any) -> int:
    return COLLATION_IDS.get(str(name or "").lower(), 255)


def sql_mode_bits(sql_mode: str) -> int:
    """The Q_SQL_MODE_CODE value of a ``sql_mode`` text (names MySQL 8.0 no longer has are ignored)."""
    bits = 0
    for name in str(sql_mode or "").upper().split(","):
        bits |= SQL_MODE_BITS.get(name.strip(), 0)
    return bits


def query_status_vars(
    session: LoggingSession,
    text: str,
    *,
    updated_dbs: tuple[str, ...] | None = None,
    time_zone: str | None = None,
) -> bytes:
    """The status-variable block MySQL 8.0 writes into a Query event of ``session``.

    Always: Q_FLAGS2_CODE (4 bytes: autocommit off, foreign_key_checks=0, unique_checks=0, sql_auto_is_null=1),
    Q_SQL_MODE_CODE (8), Q_CATALOG_NZ_CODE ('std'), Q_AUTO_INCREMENT (increment, offset; only when either is not
    1), Q_CHARSET_CODE (client,
    connection, server collation ids, 2 bytes each) and Q_DEFAULT_COLLATION_FOR_UTF8MB4 (255). With
    ``updated_dbs`` (the databases of the tables the statement changed): Q_UPDATED_DB_NAMES (count, NUL-terminated
    names; ``OVER_MAX_DBS_IN_EVENT_MTS`` past 16) — left out when unknown, which makes a multi-threaded replica
    apply the event alone (always safe). CREATE/ALTER TABLE add Q_SQL_REQUIRE_PRIMARY_KEY, CREATE/ALTER DATABASE
    Q_DEFAULT_TABLE_ENCRYPTION (both 0), as in 8.0.28 / 8.4 captures. ``time_zone`` (the zone a DML statement
    ran in) adds Q_TIME_ZONE_CODE after Q_CHARSET_CODE unless it is ``SYSTEM``, so a replica applies the
    statement's NOW() and TIMESTAMP values in the source's zone (``Query_log_event::do_apply_event``). MySQL
    writes it whenever the statement used the zone (``thd->time_zone_used``), ``SYSTEM`` included; gtidkit leaves
    ``SYSTEM`` out, which its applier reads as its own default zone.
    """
    var = session.session_vars
    g = session.server.globals.values  # canonical names: no alias lookup, and only when the session has none
    autocommit = bool(var["autocommit"] if "autocommit" in var else g["autocommit"])
    sql_mode = var["sql_mode"] if "sql_mode" in var else g["sql_mode"]
    charset_client = (
        var["character_set_client"] if "character_set_client" in var else g["character_set_client"]
    )
    # SET NAMES x sets character_set_connection (and, in MySQL, collation_connection to x's default)
    connection_name = (
        var.get("collation_connection") or var.get("character_set_connection") or g["collation_connection"]
    )
    head = " ".join(text.split()[:2]).upper()
    zone = time_zone if time_zone is not None and time_zone != SYSTEM else None
    flags2 = 0 if autocommit else OPTION_NOT_AUTOCOMMIT
    for name, bit, when in _FLAGS2_VARS:
        if _truthy(var[name] if name in var else g.get(name, not when)) == when:  # a variable absent: default
            flags2 |= bit
    # auto_increment_*: set on an applier session from the source's Q_AUTO_INCREMENT (apply.session_settings)
    increment = var.get("auto_increment_increment", g.get("auto_increment_increment", 1))
    offset = var.get("auto_increment_offset", g.get("auto_increment_offset", 1))
    auto_inc = (int(increment), int(offset))
    key = (flags2, sql_mode, charset_client, connection_name, updated_dbs, head, zone, auto_inc)
    try:
        known = _STATUS_VARS.get(key)
    except TypeError:  # a value that cannot be a key: no caching
        return _status_vars(*key)
    if known is None:
        if len(_STATUS_VARS) >= 256:
            _STATUS_VARS.clear()
        known = _STATUS_VARS[key] = _status_vars(*key)
    return known


#: (variable, flags2 bit, the value that sets it): ``THD::variables.option_bits`` as Query_log_event writes them
_FLAGS2_VARS = (
    ("foreign_key_checks", OPTION_NO_FOREIGN_KEY_CHECKS, False),
    ("unique_checks", OPTION_RELAXED_UNIQUE_CHECKS, False),
    ("sql_auto_is_null", OPTION_AUTO_IS_NULL, True),
)


def _truthy(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().upper() in ("1", "ON", "TRUE")
    return bool(value)


#: the inputs of a Query event's status-variable block -> its bytes (every BEGIN of a session is the same)
_STATUS_VARS: dict[tuple[Any, ...], bytes] = {}


def _status_vars(
    flags2: int,
    sql_mode: Any,
    charset_client: Any,
    connection_name: Any,
    updated_dbs: tuple[str, ...] | None,
    head: str,
    time_zone: str | None,
    auto_inc: tuple[int, int],
) -> bytes:
    out = bytearray()
    out += bytes([Q_FLAGS2_CODE]) + flags2.to_bytes(4, "little")
    # the engine holds a statement read under NO_BACKSLASH_ESCAPES with its strings' backslashes doubled
    # (Session.lexed), so the logged text reads the same under the default lexing: the mode is not logged with it
    mode = sql_mode_bits(sql_mode) & ~SQL_MODE_BITS["NO_BACKSLASH_ESCAPES"]
    out += bytes([Q_SQL_MODE_CODE]) + mode.to_bytes(8, "little")
    out += bytes([Q_CATALOG_NZ_CODE, 3]) + b"std"
    if auto_inc != (1, 1):  # Q_AUTO_INCREMENT only when either differs from 1, as Query_log_event::write
        out += bytes([Q_AUTO_INCREMENT]) + b"".join((v & 0xFFFF).to_bytes(2, "little") for v in auto_inc)
    client = _collation_id(charset_client)
    connection = _collation_id(connection_name)
    out += bytes([Q_CHARSET_CODE]) + b"".join(v.to_bytes(2, "little") for v in (client, connection, 255))
    if time_zone is not None:
        name = time_zone.encode()
        out += bytes([Q_TIME_ZONE_CODE, len(name)]) + name
    if updated_dbs:
        if len(updated_dbs) > MAX_DBS_IN_EVENT_MTS:
            out += bytes([Q_UPDATED_DB_NAMES, OVER_MAX_DBS_IN_EVENT_MTS])
        else:
            out += bytes([Q_UPDATED_DB_NAMES, len(updated_dbs)])
            out += b"".join(db.encode() + b"\0" for db in sorted(updated_dbs))
    out += bytes([Q_DEFAULT_COLLATION_FOR_UTF8MB4]) + (255).to_bytes(2, "little")
    if head in ("CREATE TABLE", "ALTER TABLE"):
        out += bytes([Q_SQL_REQUIRE_PRIMARY_KEY, 0])
    elif head in ("CREATE DATABASE", "CREATE SCHEMA", "ALTER DATABASE", "ALTER SCHEMA"):
        out += bytes([Q_DEFAULT_TABLE_ENCRYPTION, 0])
    return bytes(out)


def query_event(
    session: LoggingSession,
    database: str,
    text: str,
    *,
    updated_dbs: tuple[str, ...] | None = None,
    time_zone: str | None = None,
) -> QueryEvent:
    """A Query event as the session's statement (thread id = session id, exec_time 0, no error, 8.0 status vars;
    ``time_zone``: the zone a DML statement ran in, see :func:`query_status_vars`)."""
    return QueryEvent(
        thread_id=session.id,
        exec_time=0,
        error_code=0,
        status_vars=query_status_vars(session, text, updated_dbs=updated_dbs, time_zone=time_zone),
        database=database or "",
        query=_client_text(session, text),
    )


def _client_text(session: LoggingSession, text: str) -> str:
    """``text`` as the bytes the client sent, in its ``character_set_client`` (MySQL logs the statement as
    received, with Q_CHARSET_CODE naming that set: a latin1 client's 'é' is E9 in the event), carried in the
    event's text as UTF-8 with surrogate escapes so they are written unchanged."""
    var = session.session_vars
    cs = var.get("character_set_client")
    if cs is None:
        cs = session.server.globals.values.get("character_set_client")
    if cs is None or charsets.is_utf8(str(cs)) or str(cs).lower() == "binary" or text.isascii():
        return text
    return charsets.encode(text, str(cs)).decode("utf-8", "surrogateescape")


def transaction_events(server: LoggingServer, session: LoggingSession, ddl_text: str | None) -> list[Any]:
    """The body events of the session's transaction being committed (the Gtid event is added by the writer)."""
    fmt = session_binlog_format(server, session)
    # CREATE TABLE ... SELECT in ROW format (8.0.21+): BEGIN, the definition "... START TRANSACTION", its rows, Xid
    ctas = session.ddl_binlog_text if fmt != "STATEMENT" else None
    if ddl_text is not None and ctas is None:
        return [query_event(session, session.current_db or "", ddl_text.strip().rstrip(";"))]
    if not session.row_changes and not session.trx_dirty and ctas is None:
        return [query_event(session, "", "BEGIN"), query_event(session, "", "COMMIT")]
    events: list[Any] = [query_event(session, "", "BEGIN")]
    if ctas is not None:
        events.append(query_event(session, session.current_db or "", ctas))
    if fmt == "STATEMENT" or (fmt == "MIXED" and ctas is None and _mixed_loggable(session)):
        for st in session.statements:
            if st.as_rows and fmt == "MIXED":
                events.extend(row_events(server, [st.changes or []]))
                continue
            events.extend(st.context)
            events.append(
                query_event(
                    session,
                    st.database,
                    st.text.strip().rstrip(";"),
                    updated_dbs=st.updated_dbs or None,
                    time_zone=st.time_zone,
                )
            )
    else:
        events.extend(row_events(server, session.row_statements))
    events.append(XidEvent(xid=server.next_xid()))
    return events


_LAST_INSERT_ID_CALL = re.compile(r"\bLAST_INSERT_ID\s*\(\s*\)", re.IGNORECASE)


def statement_intvars(text: str, last_insert_id_before: int, insert_id: int) -> tuple[IntvarEvent, ...]:
    """The Intvar events logged before a STATEMENT-format DML (``MYSQL_BIN_LOG::write_event``).

    Args:
        text: the statement text (a ``LAST_INSERT_ID()`` call in it makes the LAST_INSERT_ID event; the
            one-argument form ``LAST_INSERT_ID(expr)`` sets the value instead and needs none).
        last_insert_id_before: ``LAST_INSERT_ID()`` when the statement started
            (``first_successful_insert_id_in_prev_stmt``).
        insert_id: first AUTO_INCREMENT value the statement generated, 0 when none.

    Returns:
        ``(LAST_INSERT_ID event?, INSERT_ID event?)`` in that order, empty when neither applies.
    """
    out: list[IntvarEvent] = []
    if _LAST_INSERT_ID_CALL.search(text):
        out.append(IntvarEvent(type=int(IntvarType.LAST_INSERT_ID_EVENT), value=last_insert_id_before))
    if insert_id:
        out.append(IntvarEvent(type=int(IntvarType.INSERT_ID_EVENT), value=insert_id))
    return tuple(out)


def _mixed_loggable(session: LoggingSession) -> bool:
    """MIXED can log the transaction statement by statement: every rows list of it belongs to a logged DML (row
    changes from elsewhere, such as an applier's rows events, leave the whole transaction in ROW format)."""
    mine = {id(st.changes) for st in session.statements if st.changes is not None}
    return all(id(changes) in mine for changes in session.row_statements)


def user_var_collation(session: LoggingSession) -> int:
    """The collation id a User_var event gives a value of ``session`` (``collation_connection``)."""
    var = session.session_vars
    name = var.get("collation_connection") or var.get("character_set_connection")
    return _collation_id(name or session.server.globals.values["collation_connection"])


def session_binlog_format(server: LoggingServer, session: LoggingSession) -> str:
    """``@@SESSION.binlog_format`` (ROW, STATEMENT or MIXED)."""
    var = session.session_vars
    return str(var["binlog_format"] if "binlog_format" in var else server.globals.values["binlog_format"])


def transaction_compression(
    server: LoggingServer, session: LoggingSession, ddl_text: str | None
) -> int | None:
    """The zstd level to compress the committing transaction with, or None to write it uncompressed.

    ``@@SESSION.binlog_transaction_compression`` ON compresses a ROW-format DML transaction into a
    Transaction_payload at ``@@SESSION.binlog_transaction_compression_level_zstd`` (RM8 "Binary Log Transaction
    Compression"); DDL, STATEMENT-format transactions (and a CREATE TABLE ... SELECT, which carries a statement)
    and transactions without row events stay uncompressed, as MySQL excludes "events that are logged using
    statement-based binary logging".
    """
    var = session.session_vars
    g = server.globals.values
    on = (
        var["binlog_transaction_compression"]
        if "binlog_transaction_compression" in var
        else g["binlog_transaction_compression"]
    )
    if not on or ddl_text is not None or not session.row_changes or session.ddl_binlog_text is not None:
        return None
    if session_binlog_format(server, session) == "STATEMENT":
        return None
    name = "binlog_transaction_compression_level_zstd"
    return int(var[name] if name in var else g[name])


def transaction_writeset(server: LoggingServer, session: LoggingSession, ddl_text: str | None) -> Writeset:
    """The write set of the transaction being committed, for WRITESET dependency tracking.

    DDL and STATEMENT-format transactions have none (:data:`NO_WRITESET`: they depend on the previous transaction
    and reset the history, as in ``Writeset_trx_dependency_tracker::get_dependency``); an empty transaction
    (explicit GTID, ``BEGIN; COMMIT``) is marked so it may run in parallel; ROW-format DML hashes the unique keys
    of every before/after image (:func:`gtidkit.engine.binlog.dependency.extract_writeset`).
    """
    if ddl_text is not None:
        return NO_WRITESET
    if not session.row_changes and not session.trx_dirty:
        return Writeset(empty_transaction=True)
    fmt = session_binlog_format(server, session)
    if fmt == "STATEMENT":
        return NO_WRITESET
    if fmt == "MIXED" and _mixed_loggable(session) and not all(st.as_rows for st in session.statements):
        return NO_WRITESET  # a statement logged as text has no rows to hash
    return extract_writeset(session.row_changes, server.storage.catalog)


class StatementRows(list):
    """One DML statement's RowChanges with the session's row-logging settings when it ran (MySQL logs a
    statement's rows as it runs, so a later ``SET binlog_row_image`` does not change them).

    Args:
        changes: the statement's RowChanges.
        row_image: ``@@SESSION.binlog_row_image`` (FULL, MINIMAL, NOBLOB).
        query: the statement text for a Rows_query event (``binlog_rows_query_log_events=ON``), else None.
        partial_json: ``binlog_row_value_options=PARTIAL_JSON`` (updates as PARTIAL_UPDATE_ROWS events).
    """

    __slots__ = ("partial_json", "query", "row_image")

    def __init__(
        self,
        changes: Any = (),
        *,
        row_image: str = "FULL",
        query: str | None = None,
        partial_json: bool = False,
    ) -> None:
        super().__init__(changes)
        self.row_image = row_image
        self.query = query
        self.partial_json = partial_json


def statement_rows(
    server: LoggingServer, session: LoggingSession, changes: list[Any], text: str
) -> StatementRows:
    """``changes`` of the statement ``text`` with the session's current row-logging settings
    (:class:`StatementRows`)."""
    var = session.session_vars
    g = server.globals.values
    image = var["binlog_row_image"] if "binlog_row_image" in var else g["binlog_row_image"]
    rows_query = (
        var["binlog_rows_query_log_events"]
        if "binlog_rows_query_log_events" in var
        else g["binlog_rows_query_log_events"]
    )
    options = (
        var["binlog_row_value_options"]
        if "binlog_row_value_options" in var
        else g["binlog_row_value_options"]
    )
    return StatementRows(
        changes,
        row_image=str(image),
        query=text if rows_query else None,
        partial_json=options == "PARTIAL_JSON",
    )


def row_events(server: LoggingServer, statements: list[list[Any]]) -> list[Any]:
    """Table_map + rows events per statement (``statements`` = the RowChange list of each DML statement, a
    :class:`StatementRows` when the session's settings were recorded with it; a plain list, e.g. a replica
    applier's, is logged with the global settings).

    As MySQL's ``THD::binlog_write_table_map`` / ``binlog_prepare_pending_rows_event``: each statement first
    maps every table it touches (preceded by a Rows_query event with its text when the statement was run with
    ``binlog_rows_query_log_events=ON``), then its rows events follow; the statement's last rows event has
    STMT_END_F.
    """
    catalog = server.storage.catalog
    events: list[Any] = []
    g = server.globals.values
    # binlog_row_metadata is GLOBAL only: read when the Table_map is written (Table_map_log_event's constructor)
    full_metadata = g["binlog_row_metadata"] == "FULL"
    # each table looked up once per transaction (its id, definition and Table_map event are the same for every
    # statement of it; a table dropped since has no definition: the catalog says so)
    table_ids: dict[tuple[str, str], int] = {}
    table_defs: dict[tuple[str, str], Any] = {}
    table_maps: dict[tuple[str, str], Any] = {}
    for changes in statements:
        if not changes:
            continue
        mode = getattr(changes, "row_image", None) or g["binlog_row_image"]
        query = getattr(changes, "query", None)
        if query is not None:
            events.append(RowsQueryEvent(query))
        mapped: set[tuple[str, str]] = set()  # the statement maps each table it touches once, in order
        for ch in changes:
            key = (ch.schema, ch.table)
            if key in mapped:
                continue
            mapped.add(key)
            table_map = table_maps.get(key)
            if table_map is None:
                table_ids[key] = server.table_id(*key)
                table_def = table_defs[key] = catalog.get_table(*key)
                if table_def is None:  # dropped by another session since the statement ran: nothing to map
                    raise mysql_error(1146, *key)
                table_map = table_maps[key] = rowimage.table_map_event(
                    table_def, table_ids[key], full_metadata=full_metadata
                )
            events.append(table_map)
        events.extend(
            rowimage.rows_events(
                changes,
                table_ids,
                catalog=catalog,
                table_defs=table_defs,
                row_image_mode=str(mode),
                partial_json=bool(getattr(changes, "partial_json", False)),
            )
        )
    return events
