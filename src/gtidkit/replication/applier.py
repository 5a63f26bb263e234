"""The replica applier (MySQL's SQL thread): reads the relay log by transaction and applies it through the engine.

MySQL sources: ``sql/rpl_replica.cc`` (``handle_slave_sql``: read the next event, execute, stop on error;
``sql_slave_killed``: STOP REPLICA SQL_THREAD lets the transaction being applied finish), ``sql/rpl_rli.cc``
(``Relay_log_info``: the group relay-log position, stored with ``relay_log_info_repository=TABLE`` in
``mysql.slave_relay_log_info`` inside each applied transaction; ``purge_first_log`` under ``relay_log_purge``:
a relay file is deleted once the applier has moved past it), ``sql/rpl_rli_pdb.cc`` (``Slave_worker::do_report``:
``Worker %u failed executing transaction '%s' at source log %s, end_log_pos %llu; %s``), and the manual's
"Replication Applier Status" / SHOW REPLICA STATUS (Last_SQL_Errno, Last_SQL_Error, Last_SQL_Error_Timestamp in
``YYMMDD hh:mm:ss``).

Theory of operation
-------------------
:meth:`Applier.start` runs one thread. It opens the engine's applier session (``server.applier_session(channel)``:
no session tracking, ``log_replica_updates`` applies to it alone), reads the applied position the engine stored
with the data (``applied_position()``) and reads the relay log from there through a
:class:`~gtidkit.replication.relay_log.RelayReader`, which blocks on the relay log's condition until the receiver
writes a whole transaction (no polling). Each transaction goes to ``applier.apply(trx)``: its GTID becomes
GTID_NEXT, an already executed GTID is skipped (counted as applied, as MySQL does), and the data, the
``mysql.gtid_executed`` row (binary log off, WL#6559) or the replica's own binlog (``log_replica_updates=ON``),
and the relay position commit in one SQLite transaction: no fsync of ours, no window where one is durable without
the others. Once the applier has committed a transaction from a later relay file, the files before it are purged
(``relay_log_purge=ON``).

:meth:`Applier.stop` is STOP REPLICA SQL_THREAD: the transaction being applied finishes, then the thread exits. An
error stops the thread with Last_SQL_Errno / Last_SQL_Error set (and nothing of the failed transaction applied).

Multi-threaded applier: ``replica_parallel_workers`` > 1 is accepted and recorded but transactions are applied by
one worker in commit order. ``bench/replica_apply.py`` measured a logical-clock scheduler on this engine (one SQLite
writer, the engine's write lock held for a whole transaction): it did not help (see ``bench/RESULTS.md``).
"""

from __future__ import annotations

import logging
import math
import threading
import time
from dataclasses import dataclass
from typing import Any

from gtidkit.engine.apply import apply as engine_apply
from gtidkit.errors import BinlogDecodeError, MySQLError
from gtidkit.mysql_errors import mysql_error
from gtidkit.replication.filters import ReplicationFilter
from gtidkit.replication.relay_log import RelayLog, RelayReader

log = logging.getLogger(__name__)

__all__ = ["AppliedTransaction", "Applier", "SqlError", "event_error_text", "worker_error_text"]

#: ``Slave_worker::do_report`` (rpl_rli_pdb.cc, 8.0.26+ wording): the worker's error text; the engine's message
#: follows after ``"; "``.
WORKER_ERROR = "Worker %d failed executing transaction '%s' at source log %s, end_log_pos %d"
#: The coordinator's Last_SQL_Error when a worker failed (``Slave_worker::do_report`` -> ``fill_coord_err_buf``).
COORDINATOR_ERROR = (
    "Coordinator stopped because there were error(s) in the worker(s). The most recent failure being: %s. "
    "See error log and/or performance_schema.replication_applier_status_by_worker table for more details "
    "about this failure or others, if any."
)
from gtidkit.binlog.constants import EVENT_TYPE_NAMES
from gtidkit.binlog.events.rows import RowsEvent
from gtidkit.binlog.events.statement import QueryEvent


def worker_error_text(worker: int, gtid: str, source_file: str, source_pos: int, message: str) -> str:
    """``Worker 1 failed executing transaction '<gtid>' at source log <file>, end_log_pos <pos>; <message>``.

    Args:
        worker: the worker's number (1-based, as MySQL prints it).
        gtid: the transaction's GTID text, or ``ANONYMOUS``.
        source_file, source_pos: the transaction's end in the source's binlog.
        message: the error's own text.
    """
    return WORKER_ERROR % (worker, gtid, source_file, source_pos) + "; " + message


@dataclass(frozen=True, slots=True)
class SqlError:
    """The applier's last error (SHOW REPLICA STATUS and performance_schema.replication_applier_status_by_*).

    Attributes:
        errno: Last_SQL_Errno (the engine error's code, e.g. 1062).
        message: Last_SQL_Error as the worker reports it (``Worker 1 failed executing transaction ...; <error>``;
            performance_schema.replication_applier_status_by_worker.LAST_ERROR_MESSAGE).
        coordinator_message: the coordinator's text that wraps it (what SHOW REPLICA STATUS shows with
            replica_parallel_workers > 0, the 8.0.27+ default).
        timestamp: Last_SQL_Error_Timestamp, ``YYMMDD hh:mm:ss`` local time.
        time: the same moment, seconds since the epoch.
    """

    errno: int
    message: str
    coordinator_message: str
    timestamp: str
    time: float


@dataclass(frozen=True, slots=True)
class AppliedTransaction:
    """One transaction the applier finished (performance_schema.replication_applier_status_by_worker's
    LAST_APPLIED_TRANSACTION* columns).

    Attributes:
        gtid: its GTID text (``ANONYMOUS`` without one).
        original_commit_timestamp, immediate_commit_timestamp: µs since the epoch from its Gtid event (0 when the
            source wrote none).
        start_apply_timestamp, end_apply_timestamp: seconds since the epoch on this replica.
        skipped: True when its GTID was already executed (MySQL counts it as applied).
    """

    gtid: str
    original_commit_timestamp: int
    immediate_commit_timestamp: int
    start_apply_timestamp: float
    end_apply_timestamp: float
    skipped: bool


class Applier:
    """The SQL thread of one channel.

    Args:
        server: the engine ``Server`` (replica).
        relay: the channel's :class:`~gtidkit.replication.relay_log.RelayLog`.
        channel: channel name (``""`` = default).
        relay_log_purge: delete relay files once applied (MySQL's ``relay_log_purge``, default ON).
        replica_parallel_workers: recorded for SHOW/performance_schema; the applier uses one worker (see the
            module docstring).

    Attributes:
        last_error: the :class:`SqlError` that stopped the thread, or None (cleared by :meth:`start`).
        applied: transactions applied since start (skipped ones included).
        skipped: of those, how many were skipped because their GTID was already executed.
    """

    def __init__(
        self,
        server: Any,
        relay: RelayLog,
        *,
        channel: str = "",
        relay_log_purge: bool = True,
        replica_parallel_workers: int = 1,
    ) -> None:
        self.server = server
        self.relay = relay
        self.channel = channel
        self.relay_log_purge = relay_log_purge
        self.replica_parallel_workers = replica_parallel_workers
        #: ``replica_skip_errors``: the error codes that do not stop the thread (None = all)
        self.skip_errors: frozenset[int] | None = frozenset()
        self.last_error: SqlError | None = None
        self.applied = 0
        self.skipped = 0
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._reader: RelayReader | None = None
        self._lock = threading.Lock()
        self._started = threading.Event()
        #: (relay file, end offset, source file, source end) of the last transaction applied
        self.last_applied: tuple[str, int, str, int] | None = None
        #: the applier session's CONNECTION_ID() while running (processlist, KILL)
        self.session_id: int | None = None
        #: PROCESSLIST_ID of its worker in performance_schema.threads (reserved when first shown)
        self.worker_id: int | None = None
        #: START REPLICA ... UNTIL's condition (:class:`~gtidkit.replication.until.Until`), kept after the thread
        #: stops (Until_Condition) until the next start
        self.until: Any = None
        #: SOURCE_DELAY in seconds (SQL_Delay): a transaction is applied no sooner than this long after the source
        #: committed it (``sql_delay_event``)
        self.delay = 0
        #: ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS: the UUID anonymous transactions get GTIDs of, or None
        self.anonymous_sid: str | None = None
        #: the replication filters in force (:class:`~gtidkit.replication.filters.ReplicationFilter`)
        self.filter: Any = ReplicationFilter()
        #: the channel's GTID_ONLY: applied positions are kept in memory only, not in mysql.slave_relay_log_info
        self.gtid_only = False
        #: while holding a transaction back for SOURCE_DELAY: when it may be applied (seconds since the epoch)
        self.delay_until: float | None = None
        #: the transaction being applied (performance_schema APPLYING_TRANSACTION), or None
        self.applying: Any = None
        #: when the applier started applying ``applying`` (seconds since the epoch; APPLYING_TRANSACTION_START_APPLY)
        self.applying_started = 0.0
        #: the last transaction applied (:class:`AppliedTransaction`), or None
        self.last_applied_transaction: AppliedTransaction | None = None
        #: the source-clock timestamp (s, the event header's) of the transaction being processed, from when this
        #: thread reads it (a SOURCE_DELAY hold included), kept after it is applied until the next one; 0 before
        #: the first (``Relay_log_info::last_master_timestamp``: Seconds_Behind_Source counts from it)
        self.source_timestamp = 0

    @property
    def running(self) -> bool:
        """True while the thread runs (Replica_SQL_Running)."""
        t = self._thread
        return t is not None and t.is_alive()

    def start(self) -> None:
        """START REPLICA SQL_THREAD: start the thread (no-op when running); clears the last error.

        Raises:
            MySQLError: the applier session cannot be opened (the server is shut down: 2006).
        """
        with self._lock:
            if self.running:
                return
            self.last_error = None
            self._stop.clear()
            self._started.clear()
            session = self.server.applier_session(self.channel)
            session.anonymous_sid = self.anonymous_sid
            session.persist_position = not self.gtid_only
            self.session_id = session.id
            self._thread = threading.Thread(
                target=self._run, args=(session,), name=f"replica-sql{self.channel and '-' + self.channel}"
            )
            self._thread.daemon = True
            self._thread.start()
        self._started.wait(10)

    def reset(self) -> None:
        """RESET REPLICA's part of the applier: forget the last error, the last applied transaction and the counters
        (the stored position goes with :meth:`RelayLog.reset`). The thread must be stopped.

        Raises:
            RuntimeError: the thread is running.
        """
        if self.running:
            raise RuntimeError("the applier must be stopped before RESET REPLICA")
        self.last_error = None
        self.last_applied = None
        self.last_applied_transaction = None
        self.applied = self.skipped = 0

    def stop(self, timeout: float | None = None) -> bool:
        """STOP REPLICA SQL_THREAD: let the transaction being applied finish, then end the thread.

        Args:
            timeout: seconds to wait for the thread (``None`` = as long as it takes; MySQL's
                ``rpl_stop_replica_timeout`` is 31536000).

        Returns:
            True when the thread has ended.
        """
        with self._lock:
            self._stop.set()
            reader = self._reader
            if reader is not None:
                reader.close()
            t = self._thread
        if t is None:
            return True
        t.join(timeout)
        return not t.is_alive()

    def _run(self, session: Any) -> None:
        reader = None
        try:
            pos = session.applied_position()
            start = (
                (pos.relay_log_file, pos.relay_log_pos) if pos is not None and pos.relay_log_file else None
            )
            if self.gtid_only:
                # the stored position is stale: resume where this thread got to, else from the oldest relay
                # file still there (transactions already executed are skipped by their GTIDs)
                if self.last_applied is not None and self.last_applied[0]:
                    start = (self.last_applied[0], self.last_applied[1])
                if start is not None and start[0] not in self.relay.index:
                    start = None
            until = self.until
            if until is not None:
                at = pos if pos is not None else None
                source = (at.source_log_file, at.source_log_pos) if at is not None else ("", 0)
                if self.last_applied is not None:
                    source = (self.last_applied[2], self.last_applied[3])
                if until.reached_at_start(self.server.gtid_state.executed(), source, start or ("", 0)):
                    log.info("Replica SQL thread stopped because UNTIL %s was already reached", until.kind)
                    return
            reader = self.relay.reader(start)
            if self.relay_log_purge:
                # the reader moves on only once every transaction of the file was returned, and this thread
                # asks for the next one only after applying (and committing) the previous: the file is applied
                reader.on_next_file = self.relay.purge_applied
            reader.on_caught_up = self._caught_up
            with self._lock:
                self._reader = reader
                if self._stop.is_set():
                    return
            self._started.set()
            tracker = _EventTracker(session)
            for trx in reader:
                if until is not None and until.stops_before(trx.gtid):
                    log.info("Replica SQL thread stopped before %s because of UNTIL %s", trx.gtid, until.kind)
                    return
                if trx.events and trx.events[0].header.timestamp:
                    self.source_timestamp = trx.events[0].header.timestamp
                if self.delay and not self._hold_back(trx):
                    return
                tracker.current = tracker.table_map = None
                started = time.time()
                self.applying_started = started
                self.applying = trx
                try:
                    # session.apply(trx) is apply(session, trx); the tracker in between remembers which event
                    # failed, for MySQL's wording of the error
                    filtered, _removed = self.filter.filter_transaction(trx)
                    done = engine_apply(tracker, filtered)
                except MySQLError as err:
                    if not self._skippable(err.code):
                        self._fail(err.code, err.message, trx, tracker.current, tracker.table_map)
                        return
                    self._skip_failed(session, trx, err)
                    done = True
                finally:
                    self.applying = None
                self.applied += 1
                if not done:
                    self.skipped += 1
                self.last_applied_transaction = _applied(trx, started, not done)
                self.last_applied = (trx.file, trx.end_pos, trx.source_file, trx.source_end_pos)
                if self.relay_log_purge:
                    self.relay.purge_applied(trx.file)
                if self._stop.is_set() or self._until_reached():
                    return
        except BinlogDecodeError as err:
            e = mysql_error(1594, str(err))
            self._fail(e.code, e.message, None, None, None)
        except Exception as err:  # the thread must report, not die silently
            log.exception("replica SQL thread failed")
            self._fail(getattr(err, "code", 1105), str(err), None, None, None)
        finally:
            self._started.set()
            with self._lock:
                self._reader = None
            if reader is not None:
                reader.close()
            try:
                session.close()
            except Exception:
                log.exception("closing the applier session failed")

    def _skippable(self, errno: int) -> bool:
        """``replica_skip_errors`` lists ``errno`` (None = ``all``)."""
        return self.skip_errors is None or errno in self.skip_errors

    def _skip_failed(self, session: Any, trx: Any, err: MySQLError) -> None:
        """``replica_skip_errors``: the applier goes on after an error it lists (RM8 "replica_skip_errors": "causes
        the replication SQL thread to continue replication when a statement returns any of the errors listed").
        The failed transaction was rolled back whole; its GTID commits as an empty transaction, so the GTID is
        executed and never fetched again. MySQL keeps the transaction's other statements: here a transaction is
        skipped whole (the same for the usual one-statement transaction)."""
        log.warning(
            "Replica SQL for channel '%s': skipping transaction '%s' after error %d (replica_skip_errors): %s",
            self.channel,
            trx.gtid if trx.gtid is not None else "ANONYMOUS",
            err.code,
            err.message,
        )
        if trx.gtid is None:
            return
        session.set_gtid_next(trx.gtid)
        try:
            session.end_gtid_transaction()  # the GTID commits as an empty transaction (gtid_end_transaction)
        finally:
            session.set_gtid_next("AUTOMATIC")

    def _hold_back(self, trx: Any) -> bool:
        """``sql_delay_event``: wait until SOURCE_DELAY seconds after the source committed ``trx`` (its
        immediate_commit_timestamp, else the first event's timestamp), rounded up to a whole second as MySQL does.

        Returns:
            False when STOP REPLICA came first (the transaction is not applied).
        """
        gev = trx.gtid_event
        committed = (gev.immediate_commit_timestamp or 0) / 1e6 if gev is not None else 0.0
        if not committed and trx.events:
            committed = float(trx.events[0].header.timestamp)
        end = math.ceil(committed) + self.delay
        try:
            while True:
                left = end - time.time()
                if left <= 0:
                    return True
                self.delay_until = end
                if self._stop.wait(left):
                    return False
        finally:
            self.delay_until = None

    def _caught_up(self, relay_file: str, relay_pos: int, source_file: str, source_pos: int) -> None:
        """Everything in the relay log is applied: the executed position is where the reader is, events outside
        transactions included (Relay_Source_Log_File / Exec_Source_Log_Pos follow the source's rotations)."""
        self.last_applied = (relay_file, relay_pos, source_file, source_pos)
        if self._until_reached():
            reader = self._reader
            if reader is not None:
                reader.close()

    def _until_reached(self) -> bool:
        until, last = self.until, self.last_applied
        if until is None or last is None:
            return False
        if until.reached_after(self.server.gtid_state.executed(), (last[2], last[3]), (last[0], last[1])):
            log.info("Replica SQL thread stopped because it reached its UNTIL %s condition", until.kind)
            return True
        return False

    def _fail(self, errno: int, message: str, trx: Any, failed: Any, table_map: Any) -> None:
        now = time.time()
        if trx is not None:
            gtid = trx.gtid
            item = _item_of(trx, failed)
            pos = item.header.log_pos if item is not None and item.header.log_pos else trx.source_end_pos
            detail = event_error_text(errno, message, item, trx.source_file, pos, table_map)
            head = WORKER_ERROR % (1, str(gtid) if gtid is not None else "ANONYMOUS", trx.source_file, pos)
            text = head + "; " + detail
            coord = COORDINATOR_ERROR % head
            if self.replica_parallel_workers == 0:  # the single-threaded applier reports the error itself
                text = coord = detail
        else:
            text = coord = message
        stamp = time.strftime("%y%m%d %H:%M:%S", time.localtime(now))
        self.last_error = SqlError(errno, text, coord, stamp, now)
        log.error("Replica SQL for channel '%s': %s, Error_code: MY-%06d", self.channel, text, errno)


def _applied(trx: Any, started: float, skipped: bool) -> AppliedTransaction:
    gev = trx.gtid_event
    gtid = trx.gtid
    return AppliedTransaction(
        str(gtid) if gtid is not None else "ANONYMOUS",
        int(gev.original_commit_timestamp or 0) if gev is not None else 0,
        int(gev.immediate_commit_timestamp or 0) if gev is not None else 0,
        started,
        time.time(),
        skipped,
    )


class _EventTracker:
    """The applier session as :func:`gtidkit.engine.apply.apply` sees it, remembering the Query or rows event
    being applied (``current``) so an error can name it as MySQL's applier does."""

    def __init__(self, session: Any) -> None:
        self._session = session
        self.current: Any = None
        self.table_map: Any = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)

    def statement_context(self, ev: Any, header: Any) -> None:
        """Remember the Query event, then the session's own."""
        self.current = ev
        self._session.statement_context(ev, header)

    def apply_rows(self, table_map: Any, ev: Any) -> None:
        """Remember the rows event and its table, then the session's own."""
        self.current = ev
        self.table_map = table_map
        self._session.apply_rows(table_map, ev)


def _item_of(trx: Any, ev: Any) -> Any:
    if ev is None:
        return None
    for item in trx.events:
        if item.event is ev:
            return item
    return None


#: ``HA_ERR_*`` names MySQL prints after "handler error" for the row errors the engine raises.
HANDLER_ERRORS = {1032: "HA_ERR_KEY_NOT_FOUND", 1062: "HA_ERR_FOUND_DUPP_KEY"}


def event_error_text(
    errno: int, message: str, item: Any, source_file: str, log_pos: int, table_map: Any = None
) -> str:
    """The event-level part of an applier error, in MySQL's words.

    * Query event (``Query_log_event::do_apply_event``): ``Error '<message>' on query. Default database: '<db>'.
      Query: '<query>'``;
    * rows event whose table does not exist (1146): ``Error executing row event: '<message>'``;
    * other rows-event errors (``Rows_log_event::do_apply_event`` -> ``slave_rows_error_report``): ``Could not execute
      Write_rows event on table <db>.<table>; <message>, Error_code: <errno>; handler error <HA_ERR_...>; the
      event's source log <file>, end_log_pos <pos>``;
    * otherwise the message alone.

    Args:
        errno, message: the engine's error.
        item: the failing event (``.header``, ``.event``) or None.
        source_file, log_pos: where the event ends in the source's binlog.
        table_map: the Table_map event in force for a rows event.
    """
    ev = item.event if item is not None else None
    if isinstance(ev, QueryEvent):
        return f"Error '{message}' on query. Default database: '{ev.database}'. Query: '{ev.query}'"
    if isinstance(ev, RowsEvent):
        if errno == 1146:  # the table cannot be opened: Rows_log_event::do_apply_event's open_tables failure
            return f"Error executing row event: '{message}'"
        name = EVENT_TYPE_NAMES.get(item.header.type_code, str(item.header.type_code))
        table = f"{table_map.database}.{table_map.table}" if table_map is not None else "?"
        return (
            f"Could not execute {name} event on table {table}; {message}, Error_code: {errno}; handler error "
            f"{HANDLER_ERRORS.get(errno, '<unknown>')}; the event's source log {source_file}, end_log_pos {log_pos}"
        )
    return message
