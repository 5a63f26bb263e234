"""Apply one decoded binlog transaction to the engine: the seam crash recovery and the replica applier share.

MySQL sources: ``sql/log_event.cc`` (``Query_log_event::do_apply_event``: default database and status variables
into the THD, then ``mysql_parse``; ``Intvar_log_event`` / ``Rand_log_event`` / ``User_var_log_event``
``::do_apply_event``: state for the *next* statement; ``Rows_log_event::do_apply_event`` with
``slave_rows_search_algorithms``: find the before image by primary key, else by a full-row match;
``Xid_log_event::do_commit``), ``sql/rpl_gtid_execution.cc`` (``set_gtid_next`` and
``gtid_pre_statement_checks``: a GTID already in gtid_executed makes the whole transaction be *skipped*, which
counts as applied), ``sql/rpl_rli.cc`` / ``rpl_info_table.cc`` (``mysql.slave_relay_log_info`` updated in the
applied transaction itself, so the position and the data commit atomically: WL#6559 with the binary log off puts
the GTID row in that same transaction), ``Gtid_log_event::do_apply_event`` (``original_commit_timestamp``,
``original_server_version`` and the event's ``server_id`` carry over into what a ``log_replica_updates`` replica
re-logs; ``immediate_*`` are the replica's own).

The input (docs/INTERFACES.md "engine: applier seam") is a :class:`BinlogTransaction`: the decoded events of one
transaction, the Gtid/Anonymous_gtid event first when the source wrote one, each item carrying its ``header``
(:class:`~gtidkit.binlog.header.EventHeader`) and ``event`` (a :class:`~gtidkit.binlog.codec.BinlogEvent` from
:func:`~gtidkit.binlog.codec.decode_event` / :class:`~gtidkit.binlog.stream.BinlogStream`, or a
:class:`~gtidkit.binlog.file.PositionedEvent` from :func:`~gtidkit.binlog.file.read_events`), plus where it ends in
the file it came from (relay log or binlog) and, when known, in the source's binlog.

:func:`apply` walks the events through one table, event class -> handler, against an :class:`ApplyTarget`:

* :class:`ApplierSession` (``server.applier_session()``): MySQL's replica applier thread. GTID_NEXT is set through
  the session API, executed GTIDs are skipped, Query events run as statements of this session (so DDL and DML follow
  the session's commit path and the WL#6559 write matrix, with "applier thread" as an input), rows events are
  applied to storage and recorded as the session's row changes, so with ``log_replica_updates=ON`` its binlog
  re-logs them in ROW format under the ORIGINAL GTID, original_commit_timestamp and server id. The applied
  position goes into ``mysql.slave_relay_log_info`` in the same SQLite transaction as the data and the GTID row.
* :class:`ExecutorTarget`: a bare storage transaction (crash recovery re-applying the server's own binlog, whose
  transactions are already logged and whose GTIDs start-up recomputes): events applied, then a caller-supplied
  position writer, then one SQLite COMMIT.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from gtidkit.binlog.constants import IntvarType
from gtidkit.binlog.events.control import GtidEvent, TransactionPayloadEvent, XidEvent
from gtidkit.binlog.events.query_status import QueryStatusVars, decode_status_vars
from gtidkit.binlog.events.rows import STMT_END_F, RowsEvent, RowsQueryEvent, TableMapEvent
from gtidkit.binlog.events.statement import IntvarEvent, QueryEvent, RandEvent, UserVarEvent, query_kind
from gtidkit.binlog.file import read_transactions as read_file_transactions
from gtidkit.binlog.transactions import TransactionParser, kind_of
from gtidkit.engine import charsets, sysvars
from gtidkit.engine.binlog.transaction_events import SQL_MODE_BITS, statement_rows
from gtidkit.engine.gtid import gtid_next as gnx
from gtidkit.engine.session import Session
from gtidkit.engine.sql import rowimage
from gtidkit.engine.sql.mysql_random import MySQLRandom
from gtidkit.engine.statements import transaction as txn
from gtidkit.engine.statements.classify import classify
from gtidkit.engine.time_zone import parse_time_zone
from gtidkit.errors import MySQLError
from gtidkit.gtid import Gtid
from gtidkit.mysql_errors import mysql_error, unknown_error

if TYPE_CHECKING:
    from gtidkit.engine.server import Server
    from gtidkit.engine.sql.executor import Executor, RowChange
    from gtidkit.engine.storage import Connection

__all__ = [
    "RELAY_LOG_INFO_DDL",
    "RELAY_LOG_INFO_NEW_COLUMNS",
    "AppliedPosition",
    "ApplierSession",
    "ApplyTarget",
    "BinlogTransaction",
    "ExecutorTarget",
    "MySQLRandom",
    "apply",
    "read_transactions",
    "statement_text",
    "transactions_from_events",
    "user_var_value",
]

#: ``original_server_version`` a replica records when the source's Gtid event has none (``UNDEFINED_SERVER_VERSION``
#: in ``control_events.h``: a pre-8.0.14 source).
UNDEFINED_SERVER_VERSION = 999999

#: MySQL's ``mysql.slave_relay_log_info`` (``relay_log_info_repository=TABLE``, the only choice in 8.0.23+), the
#: columns the applier maintains; one row per channel (``''`` is the default channel).
RELAY_LOG_INFO_DDL = (
    "CREATE TABLE IF NOT EXISTS mysql.slave_relay_log_info ("
    "Number_of_lines INT UNSIGNED NOT NULL, "
    "Relay_log_name TEXT NOT NULL, "
    "Relay_log_pos BIGINT UNSIGNED NOT NULL, "
    "Master_log_name TEXT NOT NULL, "
    "Master_log_pos BIGINT UNSIGNED NOT NULL, "
    "Sql_delay INT NOT NULL, "
    "Number_of_workers INT UNSIGNED NOT NULL, "
    "Id INT UNSIGNED NOT NULL, "
    "Channel_name CHAR(64) NOT NULL, "
    "Require_row_format TINYINT NOT NULL DEFAULT 0, "
    "Assign_gtids_to_anonymous_transactions_type VARCHAR(5) NOT NULL DEFAULT 'OFF', "
    "Assign_gtids_to_anonymous_transactions_value TEXT, "
    "PRIMARY KEY (Channel_name)) ENGINE=InnoDB"
)
#: Session tracking never runs on the applier (WL#6972: it serves clients; the applier has none), whatever the
#: global defaults a read-your-writes setup gives client sessions: (variable, SESSION value) set when it opens.
NO_TRACKING = (
    ("session_track_gtids", "OFF"),
    ("session_track_state_change", "OFF"),
    ("session_track_transaction_info", "OFF"),
    ("session_track_schema", "OFF"),
    ("session_track_system_variables", ""),
)
#: Columns of :data:`RELAY_LOG_INFO_DDL` a table written by an older gtidkit lacks (the replica adds them).
RELAY_LOG_INFO_NEW_COLUMNS = ("Require_row_format", "Assign_gtids_to_anonymous_transactions_type")
#: ``Number_of_lines`` MySQL 8.0 writes (the count of fields of the row format).
_RLI_LINES = 14


# ---------------------------------------------------------------------------------------------------- input
@dataclass(frozen=True, slots=True)
class BinlogTransaction:
    """One decoded binlog transaction, ready to apply.

    Args:
        events: the transaction's events in order, each with ``.header`` (EventHeader) and ``.event`` (decoded
            body); the Gtid / Anonymous_gtid / Gtid_tagged event first when the source wrote one (a transaction
            from a pre-5.6 source has none and applies as anonymous). Events inside a Transaction_payload must be
            expanded (:func:`~gtidkit.binlog.file.read_events` does so by default).
        file: the file holding it (relay log or binlog base name); ``""`` when it comes from the network only.
        end_pos: offset right after its last event in ``file``: the position recorded as applied.
        source_file: the source's binlog file (``Relay_Master_Log_File``), ``""`` when unknown.
        source_end_pos: end of the transaction in ``source_file`` (``Exec_Master_Log_Pos``), 0 when unknown.
    """

    events: tuple[Any, ...]
    file: str = ""
    end_pos: int = 0
    source_file: str = ""
    source_end_pos: int = 0

    @property
    def gtid_event(self) -> GtidEvent | None:
        """The Gtid / Anonymous_gtid event that opens the transaction, or None (pre-GTID source)."""
        if self.events and isinstance(self.events[0].event, GtidEvent):
            return self.events[0].event
        return None

    @property
    def gtid(self) -> Gtid | None:
        """The transaction's GTID; None when anonymous or without a Gtid event."""
        gev = self.gtid_event
        return gev.gtid if gev is not None else None


@dataclass(frozen=True, slots=True)
class AppliedPosition:
    """A row of ``mysql.slave_relay_log_info``: where the applier stands.

    Args:
        relay_log_file, relay_log_pos: end of the last applied transaction in the relay log.
        source_log_file, source_log_pos: the same point in the source's binlog (``""``/0 when unknown).
    """

    relay_log_file: str
    relay_log_pos: int
    source_log_file: str = ""
    source_log_pos: int = 0


def transactions_from_events(events: Iterable[Any], file: str = "") -> Iterator[BinlogTransaction]:
    """Group events into :class:`BinlogTransaction` values with :class:`~gtidkit.binlog.transactions.
    TransactionParser` (the one copy of MySQL's ``Transaction_boundary_parser``), e.g. a relay log being read.

    Args:
        events: items with ``pos``, ``end_pos``, ``header`` and ``event`` in file order
            (:class:`~gtidkit.binlog.file.PositionedEvent`; Transaction_payload contents expanded).
        file: file name stored into each transaction.

    Returns:
        Complete transactions only (one cut short, or still open at the end of the input, is not yielded).
    """
    parser = TransactionParser(file, keep_events=True)
    for pe in events:
        ev = pe.event
        if isinstance(ev, TransactionPayloadEvent) and not getattr(pe, "in_payload", False):
            continue  # its contents follow, expanded (the payload event belongs to no grammar rule)
        qk = query_kind(ev.query) if isinstance(ev, QueryEvent) else None
        parser.feed(
            kind_of(pe.header.type_code, pe.header.flags, qk),
            pe.pos,
            pe.end_pos,
            pe.header.timestamp,
            pe.header.server_id,
            ev if isinstance(ev, GtidEvent) else None,
            None,
            pe,
        )
        for trx, evs in zip(parser.finished, parser.finished_events):
            if trx.complete:
                yield BinlogTransaction(tuple(evs), file=file, end_pos=trx.end_pos)
        parser.finished.clear()
        parser.finished_events.clear()


def read_transactions(path: Any) -> Iterator[BinlogTransaction]:
    """The complete transactions of one binlog or relay-log file, as :class:`BinlogTransaction` values
    (:func:`gtidkit.binlog.file.read_transactions`; a torn tail ends the file quietly).

    Raises:
        BinlogDecodeError: a corrupt event.
        OSError: the file cannot be read.
    """
    res = read_file_transactions(path, keep_events_from=0)
    name = os.path.basename(os.fspath(path))
    for trx in res.transactions:
        yield BinlogTransaction(res.events[trx.begin_pos], file=name, end_pos=trx.end_pos)


# ---------------------------------------------------------------------------------------------------- values
#: ``Item_result`` codes of a User_var event.
_STRING_RESULT, _REAL_RESULT, _INT_RESULT, _ROW_RESULT, _DECIMAL_RESULT = 0, 1, 2, 3, 4
#: ``User_var_event::UNSIGNED_F``.
_UNSIGNED_F = 0x01
#: Collation ids whose bytes are not UTF-8 (``binary``) or are latin1 (MySQL's latin1 is cp1252).
_BINARY_COLLATION = 63
_LATIN1_COLLATIONS = frozenset({5, 8, 15, 31, 47, 48, 49, 94})


def user_var_value(ev: UserVarEvent) -> Any:
    """The Python value a User_var event assigns (``User_var_log_event::do_apply_event``).

    NULL -> None; REAL -> float; INT -> int (unsigned with UNSIGNED_F); DECIMAL -> Decimal (precision, scale, then
    MySQL's binary decimal); STRING -> str in the event's collation (bytes for ``binary``).

    Raises:
        MySQLError: 1105 for a ROW value or an unknown type (MySQL never logs them).
    """
    if ev.is_null:
        return None
    raw = ev.value
    if ev.value_type == _REAL_RESULT:
        return struct.unpack("<d", raw[:8])[0]
    if ev.value_type == _INT_RESULT:
        unsigned = bool((ev.flags or 0) & _UNSIGNED_F)
        return int.from_bytes(raw[:8], "little", signed=not unsigned)
    if ev.value_type == _DECIMAL_RESULT:
        return rowimage.decimal_from_bin(raw[2:], raw[0], raw[1])
    if ev.value_type == _STRING_RESULT:
        if ev.charset == _BINARY_COLLATION:
            return bytes(raw)
        if ev.charset in _LATIN1_COLLATIONS:
            return bytes(raw).decode("cp1252", "replace")
        return bytes(raw).decode("utf-8", "surrogateescape")
    raise unknown_error(
        f"User variable '{ev.name}' has an unsupported type {ev.value_type} in the binary log"
    )


#: collation id -> (character set, collation) for the ids the status variables carry (``SHOW COLLATION``).
_COLLATIONS = {
    255: ("utf8mb4", "utf8mb4_0900_ai_ci"),
    45: ("utf8mb4", "utf8mb4_general_ci"),
    46: ("utf8mb4", "utf8mb4_bin"),
    224: ("utf8mb4", "utf8mb4_unicode_ci"),
    33: ("utf8mb3", "utf8mb3_general_ci"),
    83: ("utf8mb3", "utf8mb3_bin"),
    192: ("utf8mb3", "utf8mb3_unicode_ci"),
    8: ("latin1", "latin1_swedish_ci"),
    47: ("latin1", "latin1_bin"),
    5: ("latin1", "latin1_german1_ci"),
    11: ("ascii", "ascii_general_ci"),
    65: ("ascii", "ascii_bin"),
    63: ("binary", "binary"),
}


def sql_mode_text(bits: int) -> str:
    """The ``sql_mode`` text of a Q_SQL_MODE_CODE value (names in bit order, as ``@@sql_mode`` shows them)."""
    names = [name for name, bit in sorted(SQL_MODE_BITS.items(), key=lambda kv: kv[1]) if bits & bit]
    # combination modes (ANSI, TRADITIONAL) have bits of their own only in old servers' values; MySQL 8 shows
    # the individual modes, so drop the combination names when they appear
    return ",".join(n for n in names if n not in ("ANSI", "TRADITIONAL"))


def session_settings(sv: QueryStatusVars) -> dict[str, Any]:
    """Session variables a Query event's status block sets on the applier (``Query_log_event::do_apply_event``).

    Returns ``{variable: value}`` for sql_mode, auto_increment_increment / _offset, character_set_client,
    collation_connection, collation_server, time_zone, explicit_defaults_for_timestamp,
    default_collation_for_utf8mb4, sql_require_primary_key, default_table_encryption; absent ones are left out
    (MySQL keeps the previous event's value: the applier's THD persists across events).
    """
    out: dict[str, Any] = {}
    if sv.sql_mode is not None:
        out["sql_mode"] = sql_mode_text(sv.sql_mode)
    if sv.auto_increment_increment is not None:
        out["auto_increment_increment"] = sv.auto_increment_increment
        out["auto_increment_offset"] = sv.auto_increment_offset
    if sv.character_set_client is not None:
        for name, cid in (
            ("character_set_client", sv.character_set_client),
            ("collation_connection", sv.collation_connection),
            ("collation_server", sv.collation_server),
        ):
            cs, coll = _COLLATIONS.get(cid or 0, ("", ""))
            if cs:
                out[name] = cs if name == "character_set_client" else coll
        if sv.collation_connection in _COLLATIONS:
            out["character_set_connection"] = _COLLATIONS[sv.collation_connection][0]
    if sv.time_zone is not None:
        out["time_zone"] = sv.time_zone
    if sv.explicit_defaults_for_timestamp is not None:
        out["explicit_defaults_for_timestamp"] = bool(sv.explicit_defaults_for_timestamp)
    if sv.default_collation_for_utf8mb4 in _COLLATIONS:
        out["default_collation_for_utf8mb4"] = _COLLATIONS[sv.default_collation_for_utf8mb4][1]
    if sv.sql_require_primary_key is not None:
        out["sql_require_primary_key"] = bool(sv.sql_require_primary_key)
    if sv.default_table_encryption is not None:
        out["default_table_encryption"] = bool(sv.default_table_encryption)
    return out


# ---------------------------------------------------------------------------------------------------- targets
class ApplyTarget(Protocol):
    """Where :func:`apply` sends a transaction's effects (the replica applier session, or recovery's bare
    storage transaction). Every method may raise :class:`~gtidkit.errors.MySQLError`.

    Attributes:
        table_maps: table id -> Table_map event in force; kept across transactions until the end of a statement
            (STMT_END_F), since a pre-5.6 MyISAM statement's Table_map and rows events are separate groups.
    """

    table_maps: dict[int, TableMapEvent]

    def start(self, trx: BinlogTransaction) -> bool:
        """Prepare for ``trx`` (GTID_NEXT); False when it must be skipped (its GTID is already executed)."""
        ...

    def skip(self, trx: BinlogTransaction) -> None:
        """Finish a skipped transaction (it counts as applied: record its position)."""
        ...

    def statement_context(self, ev: QueryEvent, header: Any) -> None:
        """Default database and status variables of the next statement."""
        ...

    def run_statement(self, text: str, ev: QueryEvent) -> None:
        """Execute one statement of the transaction."""
        ...

    def begin(self) -> None:
        """The transaction's ``BEGIN``."""
        ...

    def commit(self) -> None:
        """The transaction's end (``Xid`` / ``COMMIT``)."""
        ...

    def rollback(self) -> None:
        """A ``ROLLBACK`` ending the transaction."""
        ...

    def set_intvar(self, ev: IntvarEvent) -> None:
        """LAST_INSERT_ID / INSERT_ID for the next statement."""
        ...

    def set_rand(self, ev: RandEvent) -> None:
        """RAND() seeds for the next statement."""
        ...

    def set_user_var(self, name: str, value: Any) -> None:
        """A user variable the next statement reads."""
        ...

    def apply_rows(self, table_map: TableMapEvent, ev: RowsEvent) -> None:
        """Apply one rows event."""
        ...

    def rows_query(self, text: str) -> None:
        """A Rows_query event: the text of the statement whose rows follow (changes nothing)."""
        ...

    def finish(self, trx: BinlogTransaction) -> None:
        """After the last event: commit whatever is still open, with the applied position."""
        ...

    def abort(self) -> None:
        """Undo everything of the current transaction after an error."""
        ...


def _on_query(t: ApplyTarget, item: Any, maps: dict[int, TableMapEvent]) -> None:
    ev: QueryEvent = item.event
    kind = query_kind(ev.query)
    t.statement_context(ev, item.header)
    if kind == "BEGIN":
        t.begin()
    elif kind == "COMMIT":
        t.commit()
    elif kind == "ROLLBACK":
        t.rollback()
    else:
        t.run_statement(statement_text(ev), ev)


def statement_text(ev: QueryEvent) -> str:
    """The statement of a Query event as text: its bytes are the source client's, in the character set its
    Q_CHARSET_CODE names (``Query_log_event::do_apply_event`` sets ``character_set_client`` before parsing), so a
    latin1 client's ``'é'`` (E9) reads as é, not as an undecodable byte.

    Raises:
        BinlogDecodeError: a malformed status-variable block.
    """
    if not ev.status_vars:
        return ev.query
    cid = decode_status_vars(ev.status_vars).character_set_client
    cs = charsets.for_collation_id(cid) if cid is not None else None
    if cs is None or charsets.is_utf8(cs.name) or cs.name == "binary":
        return ev.query
    return charsets.decode(ev.query.encode("utf-8", "surrogateescape"), cs.name)


def _on_table_map(t: ApplyTarget, item: Any, maps: dict[int, TableMapEvent]) -> None:
    maps[item.event.table_id] = item.event


def _on_rows(t: ApplyTarget, item: Any, maps: dict[int, TableMapEvent]) -> None:
    ev: RowsEvent = item.event
    tm = maps.get(ev.table_id)
    if tm is None:
        # Rows_log_event::do_apply_event: a table id with no Table_map before it
        raise mysql_error(1594, "rows event for unmapped table id " + str(ev.table_id))
    t.apply_rows(tm, ev)
    if ev.flags & STMT_END_F:
        maps.clear()  # rows_event_stmt_cleanup: the table mappings last until the end of the statement


#: Event types that change data but that this engine cannot apply: applying the rest of their transaction would
#: lose data silently, so the applier stops with 1235 as for any unsupported statement (LOAD DATA's file blocks,
#: pre-GA rows events, an unexpanded Transaction_payload).
_UNAPPLIABLE = {
    6: "LOAD_EVENT",
    8: "CREATE_FILE_EVENT",
    9: "APPEND_BLOCK_EVENT",
    10: "EXEC_LOAD_EVENT",
    11: "DELETE_FILE_EVENT",
    12: "NEW_LOAD_EVENT",
    17: "BEGIN_LOAD_QUERY_EVENT",
    18: "EXECUTE_LOAD_QUERY_EVENT",
    20: "PRE_GA_WRITE_ROWS_EVENT",
    21: "PRE_GA_UPDATE_ROWS_EVENT",
    22: "PRE_GA_DELETE_ROWS_EVENT",
    40: "TRANSACTION_PAYLOAD_EVENT",
}


def _on_other(t: ApplyTarget, item: Any, maps: dict[int, TableMapEvent]) -> None:
    name = _UNAPPLIABLE.get(item.header.type_code)
    if name is not None:
        raise mysql_error(1235, "applying " + str(name))


#: Event class -> handler(target, item, table maps). Events not listed (Previous_gtids inside a relay
#: log, Heartbeat ...) change nothing, as ``do_apply_event`` of those classes does nothing.
HANDLERS: dict[type, Callable[[ApplyTarget, Any, dict[int, TableMapEvent]], None]] = {
    QueryEvent: _on_query,
    XidEvent: lambda t, item, maps: t.commit(),
    IntvarEvent: lambda t, item, maps: t.set_intvar(item.event),
    RandEvent: lambda t, item, maps: t.set_rand(item.event),
    UserVarEvent: lambda t, item, maps: t.set_user_var(item.event.name, user_var_value(item.event)),
    RowsQueryEvent: lambda t, item, maps: t.rows_query(item.event.query),
    TableMapEvent: _on_table_map,
    RowsEvent: _on_rows,
}


def apply(target: ApplyTarget, trx: BinlogTransaction) -> bool:
    """Apply one binlog transaction through ``target``.

    Args:
        target: an :class:`ApplierSession` (replica applier) or :class:`ExecutorTarget` (crash recovery).
        trx: the transaction (:class:`BinlogTransaction`).

    Returns:
        True when applied, False when skipped because its GTID was already executed (MySQL counts a skipped
        transaction as applied: its position is recorded all the same).

    Raises:
        MySQLError: the error that stopped it (MySQL's applier would show it as Last_SQL_Error); everything the
            transaction did is rolled back and its GTID is not owned any more.
        BinlogDecodeError: an undecodable row image.
    """
    if not target.start(trx):
        target.skip(trx)
        return False
    maps = target.table_maps
    try:
        for item in trx.events:
            HANDLERS.get(type(item.event), _on_other)(target, item, maps)
        target.finish(trx)
    except BaseException:
        maps.clear()
        target.abort()
        raise
    return True


class ExecutorTarget:
    """A bare storage transaction on one executor: what crash recovery needs to re-apply its own binlog.

    The transaction's events were already logged and its GTID is recomputed by start-up, so nothing is logged
    and no GTID row is written; ``position_writer(sqlite_connection)`` runs just before the single COMMIT
    (recovery records the binlog end position there).

    Args:
        executor: an :class:`~gtidkit.engine.sql.executor.Executor` over ``conn``.
        conn: the storage connection (not in a transaction).
        position_writer: ``fn(trx, raw_sqlite_connection)`` writing the applied position.
    """

    def __init__(
        self,
        executor: Executor,
        conn: Connection,
        position_writer: Callable[[BinlogTransaction, Any], None],
    ) -> None:
        self.executor = executor
        self.conn = conn
        self.position_writer = position_writer
        self.current_db: str | None = None
        self.table_maps: dict[int, TableMapEvent] = {}

    def start(self, trx: BinlogTransaction) -> bool:
        """Open the storage transaction (never skips: recovery decides by position)."""
        self.conn.begin()
        return True

    def skip(self, trx: BinlogTransaction) -> None:  # pragma: no cover - start() never skips
        """Not used."""

    def statement_context(self, ev: QueryEvent, header: Any) -> None:
        """Take the event's default database, auto_increment_increment and statement time."""
        self.current_db = ev.database or None
        micro = 0
        if ev.status_vars:
            sv = decode_status_vars(ev.status_vars)
            self.executor.auto_increment_increment = sv.auto_increment_increment or 1
            micro = sv.microseconds or 0
        if header is not None:
            self.executor.timestamp = header.timestamp + micro / 1e6

    def run_statement(self, text: str, ev: QueryEvent) -> None:
        """Run the statement on the executor (an account statement on the grant tables); an INSERT_ID applies to
        it alone."""
        stmt = classify(text)
        try:
            if stmt.kind == "account":
                from gtidkit.engine.accounts import statements as account_statements

                account_statements.run(self.conn, account_statements.parse(text), current_db=self.current_db)
                return
            self.executor.execute(stmt, self.current_db)
        finally:
            self.executor.forced_insert_id = None

    def begin(self) -> None:
        """Nothing: the storage transaction is already open."""

    def commit(self) -> None:
        """Nothing: :meth:`finish` commits once, with the position."""

    def rollback(self) -> None:
        """Nothing to keep: undo the transaction's changes, keep it open for the position."""
        self.conn.rollback()
        self.conn.begin()

    def set_intvar(self, ev: IntvarEvent) -> None:
        """INSERT_ID forces the next statement's AUTO_INCREMENT values; LAST_INSERT_ID sets LAST_INSERT_ID()."""
        if ev.type == IntvarType.INSERT_ID_EVENT:
            self.executor.forced_insert_id = ev.value
        elif ev.type == IntvarType.LAST_INSERT_ID_EVENT:
            self.executor.last_insert_id = ev.value

    def set_rand(self, ev: RandEvent) -> None:
        """Seed RAND() as the source's session was."""
        self.executor.rand = MySQLRandom(ev.seed1, ev.seed2)

    def set_user_var(self, name: str, value: Any) -> None:
        """Set ``@name`` for the next statement."""
        self.executor.user_variables[name.lower()] = value

    def apply_rows(self, table_map: TableMapEvent, ev: RowsEvent) -> None:
        """Apply the rows event to storage."""
        rowimage.apply_rows_event(self.executor, table_map, ev)

    def rows_query(self, text: str) -> None:
        """Nothing to do: recovery re-applies its own binlog, which already holds the text."""

    def finish(self, trx: BinlogTransaction) -> None:
        """Record the position and COMMIT."""
        self.position_writer(trx, self.conn.raw)
        self.conn.commit()

    def abort(self) -> None:
        """Roll the storage transaction back."""
        if self.conn.in_transaction:
            self.conn.rollback()


# ---------------------------------------------------------------------------------------------------- applier
@dataclass
class CommitOrigin:
    """What the commit path keeps from the source when the applier commits (``Gtid_log_event::do_apply_event``).

    Attributes:
        original_commit_timestamp: µs; 0 when the source's Gtid event had none (pre-8.0.1 source).
        original_server_version: the source's, or :data:`UNDEFINED_SERVER_VERSION`.
        server_id: the source event's header server_id: every event re-logged keeps it (loop detection).
        timestamp: header timestamp (s) for the re-logged events (the statement start time on the source).
    """

    original_commit_timestamp: int
    original_server_version: int
    server_id: int
    timestamp: int


@dataclass
class _Pending:
    trx: BinlogTransaction | None = None
    origin: CommitOrigin | None = None
    statement: list[Any] = field(default_factory=list)
    query: str = ""  # the text of the last Rows_query event (Rows_query_log_event::do_apply_event)


class ApplierSession(Session):
    """MySQL's replica applier thread context (``server.applier_session()``): a session that applies
    :class:`BinlogTransaction` values with :meth:`apply`.

    It differs from a client session where MySQL's applier thread does: ``log_replica_updates`` decides whether
    its commits are binlogged (a client's never depend on it); what it re-logs keeps the source's GTID,
    original_commit_timestamp, original_server_version and server id; its applied position is stored in
    ``mysql.slave_relay_log_info`` (channel :attr:`channel`) inside each applied transaction. Session tracking does
    not run on it. One applier session applies one transaction at a time, from one thread.

    Args:
        server: the server.
        session_id: its id (the applier thread's CONNECTION_ID()).
        channel: the replication channel name (``""`` = the default channel).
    """

    #: its COMMIT never chains nor releases, whatever completion_type says (MySQL's Xid_log_event::do_commit
    #: commits through trans_commit, not SQLCOM_COMMIT)
    follows_completion_type = False
    #: the applier writes whatever read_only / super_read_only say (MySQL's replication threads are exempt)
    replication_thread = True

    def __init__(self, server: Server, session_id: int, channel: str = "") -> None:
        super().__init__(server, session_id)
        self.channel = channel
        self.table_maps: dict[int, TableMapEvent] = {}
        #: ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS = LOCAL | uuid: the UUID an anonymous transaction gets its GTID
        #: from (the next free number), or None to apply it as ANONYMOUS
        self.anonymous_sid: str | None = None
        #: write the applied position into mysql.slave_relay_log_info with each transaction (False for a
        #: channel with GTID_ONLY = 1, which does not persist positions: WL#7491)
        self.persist_position = True
        self._pending = _Pending()
        self._rli_table = server.storage.physical_name("mysql", "slave_relay_log_info")
        self._ensure_rli_table()
        for name, value in NO_TRACKING:
            sysvars.set_variable(self, name, "SESSION", value, is_default=False, warnings=[])

    # -- the seam --------------------------------------------------------------------------------------------
    def apply(self, trx: BinlogTransaction) -> bool:
        """Apply one transaction (see :func:`apply`): True when applied, False when skipped as executed.

        Raises:
            MySQLError: the statement or row error that stopped it (rolled back, GTID released).
        """
        return apply(self, trx)

    @property
    def applier(self) -> CommitOrigin | None:
        """The origin of the transaction being applied (read by the server's commit path), or None."""
        return self._pending.origin

    def applied_position(self) -> AppliedPosition | None:
        """The ``mysql.slave_relay_log_info`` row of this channel, or None before anything was applied."""
        row = self.conn.raw.execute(
            f'SELECT Relay_log_name, Relay_log_pos, Master_log_name, Master_log_pos FROM "{self._rli_table}" '
            "WHERE Channel_name = ?",
            (self.channel,),
        ).fetchone()
        if row is None:
            return None
        return AppliedPosition(str(row[0]), int(row[1]), str(row[2]), int(row[3]))

    def before_storage_commit(self, db: Any) -> None:
        """Called by the commit path right before the SQLite COMMIT: store the applied position in it."""
        trx = self._pending.trx
        if trx is not None and (trx.file or trx.source_file):
            self._write_position(db, trx)
            self._pending.trx = None  # one position per transaction: a later commit in it is not ours

    # -- ApplyTarget -----------------------------------------------------------------------------------------
    def start(self, trx: BinlogTransaction) -> bool:
        """Set GTID_NEXT to the transaction's GTID (ANONYMOUS without one); False when it is already executed."""
        gev = trx.gtid_event
        header = trx.events[0].header if trx.events else None
        self._pending = _Pending(trx=trx)
        if gev is not None:
            ocs = gev.original_commit_timestamp
            ver = gev.original_server_version
            self._pending.origin = CommitOrigin(
                original_commit_timestamp=int(ocs) if ocs is not None else 0,
                original_server_version=int(ver) if ver is not None else UNDEFINED_SERVER_VERSION,
                server_id=int(header.server_id) if header is not None else 0,
                timestamp=int(header.timestamp) if header is not None else 0,
            )
        else:
            self._pending.origin = CommitOrigin(
                0,
                UNDEFINED_SERVER_VERSION,
                int(header.server_id) if header is not None else 0,
                int(header.timestamp) if header is not None else 0,
            )
        gtid = trx.gtid
        if gtid is None and self.anonymous_sid is not None:
            # ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS: the next free number of that UUID (sql/rpl_gtid_execution.cc)
            state = self.server.gtid_state
            taken = state.executed() | state.owned()
            self.set_gtid_next(f"{self.anonymous_sid}:{taken.next_free_gno(self.anonymous_sid)}")
            return not self.gtid.skipping
        self.set_gtid_next(gtid if gtid is not None else "ANONYMOUS")
        return not self.gtid.skipping

    def skip(self, trx: BinlogTransaction) -> None:
        """A skipped transaction counts as applied: record its position in a transaction of its own."""
        self.end_gtid_transaction()  # ends the skipped transaction (nothing owned): gtid_next becomes UNDEFINED
        self._pending.origin = None
        self._record_position_alone(trx)
        self._pending = _Pending()

    def _record_position_alone(self, trx: BinlogTransaction) -> None:
        """Store ``trx``'s position in a SQLite transaction of its own (nothing of it was committed)."""
        if not (trx.file or trx.source_file):
            return
        self.server.acquire_write_lock(self)
        try:
            self.conn.begin()
            try:
                self._write_position(self.conn.raw, trx)
                self.conn.commit()
            except BaseException:
                self.conn.rollback()
                raise
        finally:
            self.server.release_write_lock(self)

    def statement_context(self, ev: QueryEvent, header: Any) -> None:
        """Default database and the status variables of the event (sql_mode, auto_increment_*, charsets,
        time_zone ...) into this session, as ``Query_log_event::do_apply_event`` sets the applier's THD."""
        self.current_db = ev.database or None
        micro = 0
        if ev.status_vars:
            sv = decode_status_vars(ev.status_vars)
            settings = session_settings(sv)
            if "time_zone" in settings:
                # an unknown zone fails the event as MySQL's applier does (my_tz_find -> ER_UNKNOWN_TIME_ZONE)
                settings["time_zone"] = parse_time_zone(settings["time_zone"]).name
            else:
                self.session_vars.pop("time_zone", None)  # no Q_TIME_ZONE_CODE: the applier's own zone
            self.session_vars.update(settings)
            self.executor.auto_increment_increment = int(settings.get("auto_increment_increment", 1) or 1)
            micro = sv.microseconds or 0
        if header is not None:
            # SET TIMESTAMP: NOW() on the replica is the source's statement time (the event's `when`)
            self.executor.timestamp = header.timestamp + micro / 1e6

    def run_statement(self, text: str, ev: QueryEvent) -> None:
        """Run the statement as this session's; an error the source also got (same code) is expected."""
        try:
            self.execute(text)
        except MySQLError as err:
            if ev.error_code and err.code == ev.error_code:
                return
            raise

    def begin(self) -> None:
        """A Query ``BEGIN``: :meth:`Session.begin_transaction` (no statement text is parsed)."""
        self.begin_transaction()

    def commit(self) -> None:
        """An Xid event or a COMMIT Query: :meth:`Session.commit_transaction` (``trans_commit``)."""
        self._close_statement()
        self.commit_transaction()

    def rollback(self) -> None:
        """A ROLLBACK Query: :meth:`Session.rollback_transaction`."""
        self._close_statement()
        self.rollback_transaction()

    def set_intvar(self, ev: IntvarEvent) -> None:
        """INSERT_ID as ``SET insert_id`` (the next statement only); LAST_INSERT_ID as ``SET last_insert_id``."""
        if ev.type == IntvarType.INSERT_ID_EVENT:
            self.session_vars["insert_id"] = ev.value
        elif ev.type == IntvarType.LAST_INSERT_ID_EVENT:
            self.executor.last_insert_id = ev.value

    def set_rand(self, ev: RandEvent) -> None:
        """Seed this session's RAND() with the source's seeds."""
        self.executor.rand = MySQLRandom(ev.seed1, ev.seed2)

    def set_user_var(self, name: str, value: Any) -> None:
        """``@name`` for the next statement."""
        self.user_vars[name] = value
        self.executor.user_variables[name.lower()] = value

    def apply_rows(self, table_map: TableMapEvent, ev: RowsEvent) -> None:
        """Apply a rows event in the open transaction; its changes become this session's row changes (one
        statement per STMT_END_F), which the commit path re-logs when this session's commits are binlogged."""
        self.ensure_write_trx()
        flags = str(self.server.globals.get("replica_type_conversions") or "")
        changes: list[RowChange] = rowimage.apply_rows_event(
            self.executor, table_map, ev, type_conversions=flags
        )
        self.row_changes.extend(changes)
        self._pending.statement.extend(changes)
        if changes:
            self.trx_dirty = True
        if ev.flags & STMT_END_F:
            self._close_statement()

    def finish(self, trx: BinlogTransaction) -> None:
        """Commit what is still open (a transaction cut before its Xid by a relay log is never passed here);
        an owned GTID whose transaction wrote nothing commits as an empty transaction, as MySQL does."""
        self._close_statement()
        # the open transaction commits; else an owned GTID commits as an empty transaction, ANONYMOUS is released
        self.end_gtid_transaction()
        if self._pending.trx is not None:
            # nothing committed it (a transaction that ended in ROLLBACK): it is consumed all the same
            self._record_position_alone(self._pending.trx)
        self._pending = _Pending()
        self.executor.timestamp = None

    def abort(self) -> None:
        """Roll back and release the GTID this transaction owns (the applier stops with the error)."""
        self._pending = _Pending()
        self.executor.timestamp = None
        try:
            txn.rollback(self)  # releases what is owned
        finally:
            self.gtid.handle(gnx.SET_AUTOMATIC)

    # -- helpers -----------------------------------------------------------------------------------------------
    def rows_query(self, text: str) -> None:
        """Keep the source's statement text: re-logged before the statement's rows when this server logs Rows_query
        events (``binlog_rows_query_log_events`` ON for the applier, as MySQL's applier thread does)."""
        self._pending.query = text

    def _close_statement(self) -> None:
        if self._pending.statement:
            # the statement is logged with this server's settings (the applier thread's copy of the globals)
            logged = statement_rows(self.server, self, self._pending.statement, self._pending.query)
            if not self._pending.query:
                logged.query = None
            self.row_statements.append(logged)
            self._pending.statement = []
            self._pending.query = ""

    def _ensure_rli_table(self) -> None:
        catalog = self.server.storage.catalog
        if catalog.get_table("mysql", "slave_relay_log_info") is not None:
            return
        self.server.acquire_write_lock(self)
        try:
            self.conn.begin()
            try:
                catalog.ensure_table(self.conn, RELAY_LOG_INFO_DDL)
                self.conn.commit()
            except BaseException:
                self.conn.rollback()
                raise
        finally:
            self.server.release_write_lock(self)

    def _write_position(self, db: Any, trx: BinlogTransaction) -> None:
        if not self.persist_position:
            return
        db.execute(
            f'INSERT INTO "{self._rli_table}" (Number_of_lines, Relay_log_name, Relay_log_pos, Master_log_name, '
            "Master_log_pos, Sql_delay, Number_of_workers, Id, Channel_name) VALUES (?, ?, ?, ?, ?, 0, 0, 1, ?) "
            "ON CONFLICT(Channel_name) DO UPDATE SET Relay_log_name = excluded.Relay_log_name, "
            "Relay_log_pos = excluded.Relay_log_pos, Master_log_name = excluded.Master_log_name, "
            "Master_log_pos = excluded.Master_log_pos",
            (_RLI_LINES, trx.file, trx.end_pos, trx.source_file, trx.source_end_pos, self.channel),
        )


if TYPE_CHECKING:  # the engine's classes have the GTID core's shapes (mypy checks these returns)
    from gtidkit.engine.gtid.seams import CommitServer, CommittingSession

    def _server_commits(server: Server) -> CommitServer:
        return server

    def _sessions_commit(
        session: Session, applier: ApplierSession
    ) -> tuple[CommittingSession, CommittingSession]:
        return session, applier
