"""Transaction boundaries: a small state machine fed one event at a time, producing :class:`Transaction` values.

MySQL source: ``Transaction_boundary_parser`` (``libs/mysql/binlog/event/trx_boundary_parser.h/.cpp``).

Theory of operation
-------------------
Each event is first reduced to a *boundary kind* (``get_event_boundary_type`` in MySQL):

* ``GTID``       Gtid / Anonymous_gtid / Gtid_tagged event
* ``BEGIN``      Query ``BEGIN`` or ``XA START``
* ``END``        Xid, XA_prepare, Query ``COMMIT`` / ``ROLLBACK`` / ``XA COMMIT`` / ``XA ROLLBACK``
* ``PRE``        Intvar, Rand, User_var (they prefix a statement)
* ``STATEMENT``  any other Query (DDL, statement-based DML), Table_map, rows events, load-data events,
                 Rows_query, Transaction_context, View_change, and unknown types without the IGNORABLE flag
* ``IGNORE``     Format_description, Previous_gtids, Rotate, Stop, Heartbeat, Incident, and unknown types with
                 the IGNORABLE flag (e.g. Aurora's padding type 100): they belong to no transaction

The grammar of a transaction, with or without GTIDs (pre-5.6 files and gtid_mode=OFF 5.6 files have none)::

    transaction := [GTID] PRE* (BEGIN (STATEMENT | PRE)* END  |  STATEMENT  |  END)
                 | GTID? BEGIN ...            (cut short by the next GTID/BEGIN or the end of the file)

so a DDL is ``GTID STATEMENT``, a row-based DML is ``GTID BEGIN Table_map Rows... Xid`` and a pre-GTID
autocommit MyISAM statement is a lone ``STATEMENT``. Events inside a Transaction_payload are fed like any other
(their ``BEGIN ... XID`` closes the transaction the Gtid event before the payload opened).

The transitions are the table :data:`TRANSITIONS` (state × kind → action, next state). A transaction that the
next ``GTID``/``BEGIN`` interrupts, or that is open at the end of the input, is emitted with ``complete=False``;
an ``END`` with no open transaction is emitted alone, also with ``complete=False``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from gtidkit.binlog.constants import LOG_EVENT_IGNORABLE_F, EventType
from gtidkit.binlog.events.control import GtidEvent
from gtidkit.gtid import Gtid

# Boundary kinds.
K_GTID, K_BEGIN, K_END, K_PRE, K_STATEMENT, K_IGNORE = range(6)
KIND_NAMES = ("GTID", "BEGIN", "END", "PRE", "STATEMENT", "IGNORE")

# States.
S_NONE, S_GTID, S_PRE, S_DML = range(4)
STATE_NAMES = ("NONE", "GTID", "PRE", "DML")

# Actions.
A_IGNORE, A_START, A_ADD, A_END, A_RESTART, A_LONE, A_ORPHAN = range(7)

#: (state, kind) → (action, next state). Read a row as "in <state>, an event of <kind> does <action>".
TRANSITIONS: dict[tuple[int, int], tuple[int, int]] = {
    (S_NONE, K_GTID): (A_START, S_GTID),
    (S_NONE, K_BEGIN): (A_START, S_DML),
    (S_NONE, K_PRE): (A_START, S_PRE),
    (S_NONE, K_STATEMENT): (A_LONE, S_NONE),  # pre-GTID autocommit statement / DDL
    (S_NONE, K_END): (A_ORPHAN, S_NONE),  # COMMIT/Xid with nothing open
    (S_NONE, K_IGNORE): (A_IGNORE, S_NONE),
    (S_GTID, K_GTID): (A_RESTART, S_GTID),  # previous GTID never got its statement
    (S_GTID, K_BEGIN): (A_ADD, S_DML),
    (S_GTID, K_PRE): (A_ADD, S_PRE),
    (S_GTID, K_STATEMENT): (A_END, S_NONE),  # DDL: GTID + one Query
    (S_GTID, K_END): (A_END, S_NONE),
    (S_GTID, K_IGNORE): (A_IGNORE, S_GTID),
    (S_PRE, K_GTID): (A_RESTART, S_GTID),
    (S_PRE, K_BEGIN): (A_ADD, S_DML),
    (S_PRE, K_PRE): (A_ADD, S_PRE),
    (S_PRE, K_STATEMENT): (A_END, S_NONE),
    (S_PRE, K_END): (A_END, S_NONE),
    (S_PRE, K_IGNORE): (A_IGNORE, S_PRE),
    (S_DML, K_GTID): (A_RESTART, S_GTID),  # transaction cut short (e.g. a crashed source)
    (S_DML, K_BEGIN): (A_RESTART, S_DML),
    (S_DML, K_PRE): (A_ADD, S_DML),
    (S_DML, K_STATEMENT): (A_ADD, S_DML),
    (S_DML, K_END): (A_END, S_NONE),
    (S_DML, K_IGNORE): (A_IGNORE, S_DML),
}
# Flattened [state][kind] for the hot path.
_TABLE = [[TRANSITIONS[(s, k)] for k in range(6)] for s in range(4)]

_T = EventType
#: Boundary kind by type code for types whose kind does not depend on the body (Query is classified by text).
KIND_BY_TYPE: dict[int, int] = {
    _T.GTID_LOG_EVENT: K_GTID,
    _T.ANONYMOUS_GTID_LOG_EVENT: K_GTID,
    _T.GTID_TAGGED_LOG_EVENT: K_GTID,
    _T.XID_EVENT: K_END,
    _T.XA_PREPARE_LOG_EVENT: K_END,
    _T.INTVAR_EVENT: K_PRE,
    _T.RAND_EVENT: K_PRE,
    _T.USER_VAR_EVENT: K_PRE,
    _T.FORMAT_DESCRIPTION_EVENT: K_IGNORE,
    _T.PREVIOUS_GTIDS_LOG_EVENT: K_IGNORE,
    _T.ROTATE_EVENT: K_IGNORE,
    _T.STOP_EVENT: K_IGNORE,
    _T.HEARTBEAT_LOG_EVENT: K_IGNORE,
    _T.HEARTBEAT_LOG_EVENT_V2: K_IGNORE,
    _T.INCIDENT_EVENT: K_IGNORE,
    _T.START_EVENT_V3: K_IGNORE,
    _T.UNKNOWN_EVENT: K_IGNORE,
}
#: Types MySQL knows and classifies as STATEMENT even though their header may carry IGNORABLE (Rows_query…).
_KNOWN_STATEMENTS = frozenset(t for t in EventType if t < 160) - set(KIND_BY_TYPE) - {_T.QUERY_EVENT}


def kind_of(type_code: int, flags: int, query_kind: str | None = None) -> int:
    """Boundary kind of one event (see the module docstring).

    Args:
        type_code: header type code.
        flags: header flags (the IGNORABLE bit decides for unknown types).
        query_kind: for Query events, :func:`~gtidkit.binlog.events.statement.query_kind` of the text.
    """
    if type_code == _T.QUERY_EVENT:
        return _QUERY_KINDS[query_kind or "STATEMENT"]
    kind = KIND_BY_TYPE.get(type_code)
    if kind is not None:
        return kind
    if type_code in _KNOWN_STATEMENTS or not flags & LOG_EVENT_IGNORABLE_F:
        return K_STATEMENT
    return K_IGNORE


_QUERY_KINDS = {"BEGIN": K_BEGIN, "COMMIT": K_END, "ROLLBACK": K_END, "STATEMENT": K_STATEMENT}


class Transaction(NamedTuple):
    """One transaction as it sits in a binlog file (an immutable value).

    A ``NamedTuple`` rather than a frozen dataclass on purpose: files hold millions of transactions and a
    16-field frozen dataclass costs ~6x more to build (its ``__init__`` goes through ``object.__setattr__``).

    Args:
        file: file name (as given to the reader).
        begin_pos: offset of its first event (the Gtid event when there is one).
        end_pos: offset right after its last event (bytes, exclusive).
        gtid: its GTID, ``None`` when anonymous or in a file without GTID events.
        anonymous: True when preceded by an Anonymous_gtid event.
        last_committed, sequence_number: logical clock of the Gtid event (``None`` before 5.7.5 / without one).
        timestamp: header timestamp (seconds) of its first event.
        immediate_commit_timestamp, original_commit_timestamp: µs since the epoch from the Gtid event (8.0.1+),
            else ``None``.
        bytes: ``end_pos - begin_pos``.
        event_count: events in it (events inside a Transaction_payload included).
        databases: sorted default databases of its statements and databases of its Table_map events.
        server_id: header server id of its first event.
        complete: False when it was cut short (by the next transaction or the end of the file) or is a lone
            COMMIT/Xid.
        transaction_length: the Gtid event's transaction_length (8.0.2+), else ``None``.
    """

    file: str
    begin_pos: int
    end_pos: int
    gtid: Gtid | None
    anonymous: bool
    last_committed: int | None
    sequence_number: int | None
    timestamp: int
    immediate_commit_timestamp: int | None
    original_commit_timestamp: int | None
    bytes: int
    event_count: int
    databases: tuple[str, ...]
    server_id: int
    complete: bool
    transaction_length: int | None = None


#: The transaction fields of a Gtid event, in :class:`Transaction` order: (gtid, anonymous, last_committed,
#: sequence_number, immediate_commit_timestamp, original_commit_timestamp, transaction_length).
GtidFields = tuple[Any, bool, Any, Any, Any, Any, Any]
#: The fields of a transaction without a Gtid event (pre-GTID files, gtid_mode=OFF 5.6).
NO_GTID: GtidFields = (None, False, None, None, None, None, None)


def gtid_fields(ev: GtidEvent) -> GtidFields:
    """The :data:`GtidFields` of a decoded Gtid / Anonymous_gtid event."""
    return (
        ev.gtid,
        ev.gtid is None,
        ev.last_committed,
        ev.sequence_number,
        ev.immediate_commit_timestamp,
        ev.original_commit_timestamp,
        ev.transaction_length,
    )


_DB_NAMES: dict[bytes, str] = {}


def database_names(raw: set[Any] | None) -> tuple[str, ...]:
    """Sorted database names from a set of names as fed (``str``, or raw ``bytes`` decoded as UTF-8 with
    ``surrogateescape``; decoded names are cached: a file names a handful)."""
    if not raw:
        return ()
    names = _DB_NAMES
    out = []
    for d in raw:
        if isinstance(d, bytes):
            name = names.get(d)
            if name is None:
                if len(names) > 65536:
                    names.clear()
                name = names[d] = d.decode("utf-8", "surrogateescape")
            d = name
        out.append(d)
    if len(out) > 1:
        out.sort()
    return tuple(out)


_new_tuple = tuple.__new__


def make_transaction(
    file: str,
    begin: int,
    end: int,
    g: GtidFields,
    timestamp: int,
    count: int,
    databases: set[Any] | None,
    server_id: int,
    complete: bool,
) -> Transaction:
    """Build a :class:`Transaction` from its parts (``tuple.__new__`` directly: this runs once per transaction on
    the scanners' hot paths).

    Args:
        file, begin, end, timestamp, count, server_id, complete: as in :class:`Transaction` (``count`` is
            ``event_count``).
        g: the :data:`GtidFields` (:data:`NO_GTID` without a Gtid event).
        databases: the names fed (see :func:`database_names`), or ``None``.
    """
    return _new_tuple(
        Transaction,
        (
            file,
            begin,
            end,
            g[0],
            g[1],
            g[2],
            g[3],
            timestamp,
            g[4],
            g[5],
            end - begin,
            count,
            database_names(databases),
            server_id,
            complete,
            g[6],
        ),
    )


class TransactionParser:
    """Feed events one at a time (:meth:`feed`, or :meth:`feed_fields` from raw bytes); finished transactions
    accumulate in :attr:`finished`. The one implementation of the boundary grammar: the file scanners, the
    engine's start-up scan and SHOW-style readers all run it.

    Args:
        file: the file name copied into every :class:`Transaction`.
        keep_events: also collect the ``event`` objects fed with each transaction's events (IGNORE-kind events
            such as a Rotate inside a transaction are not part of it) into :attr:`finished_events`.

    Attributes:
        finished: transactions completed so far, in file order; callers may drain it (clear it, or replace it
            with another list).
        finished_events: with ``keep_events``, the events of each transaction in :attr:`finished` (same index,
            a tuple each); drain it with :attr:`finished`.
        state: current state (``S_NONE``, ``S_GTID``, ``S_PRE``, ``S_DML``).
    """

    __slots__ = (
        "_begin",
        "_count",
        "_dbs",
        "_end",
        "_events",
        "_gtid",
        "_server_id",
        "_ts",
        "file",
        "finished",
        "finished_events",
        "keep_events",
        "state",
    )

    def __init__(self, file: str, *, keep_events: bool = False) -> None:
        self.file = file
        self.keep_events = keep_events
        self.finished: list[Transaction] = []
        self.finished_events: list[tuple[Any, ...]] = []
        self._events: list[Any] = []
        self.state = S_NONE
        self._begin = 0
        self._end = 0
        self._gtid: GtidFields = NO_GTID
        self._ts = 0
        self._server_id = 0
        self._count = 0
        self._dbs: set[Any] | None = None

    def feed(
        self,
        kind: int,
        pos: int,
        end_pos: int,
        timestamp: int,
        server_id: int,
        gtid_event: GtidEvent | None = None,
        database: str | None = None,
        event: Any = None,
    ) -> None:
        """Advance the machine by one decoded event.

        Args:
            kind: boundary kind (:func:`kind_of`).
            pos, end_pos: the event's start and end offsets in the file (for events inside a payload, the
                payload event's).
            timestamp, server_id: from the event header.
            gtid_event: the decoded event when ``kind`` is GTID.
            database: a database the event touches (Query default database, Table_map database), if any.
            event: the event itself, kept with its transaction when ``keep_events`` is on.
        """
        g = None if gtid_event is None else gtid_fields(gtid_event)
        self.feed_fields(kind, pos, end_pos, timestamp, server_id, g, database, event)

    def feed_fields(
        self,
        kind: int,
        pos: int,
        end_pos: int,
        timestamp: int,
        server_id: int,
        gtid: GtidFields | None = None,
        database: str | bytes | None = None,
        event: Any = None,
    ) -> None:
        """:meth:`feed` for readers of raw bytes: the Gtid event as its :data:`GtidFields`, the database as
        ``str`` or raw ``bytes``."""
        action, self.state = _TABLE[self.state][kind]
        if action == A_IGNORE:
            return
        if action == A_ADD or action == A_END:
            self._end = end_pos
            self._count += 1
            if database:
                if self._dbs is None:
                    self._dbs = {database}
                else:
                    self._dbs.add(database)
            if self.keep_events:
                self._events.append(event)
            if action == A_END:
                self._emit(True)
            return
        if action == A_RESTART:
            self._emit(False)
        lone = action == A_LONE or action == A_ORPHAN  # a one-event transaction
        self._begin = pos
        self._end = end_pos
        self._ts = timestamp
        self._server_id = server_id
        self._gtid = NO_GTID if lone or gtid is None else gtid
        self._count = 1
        self._dbs = {database} if database else None
        if self.keep_events:
            self._events = [event]
        if lone:
            self._emit(action == A_LONE)

    def _emit(self, complete: bool) -> None:
        self.finished.append(
            make_transaction(
                self.file,
                self._begin,
                self._end,
                self._gtid,
                self._ts,
                self._count,
                self._dbs,
                self._server_id,
                complete,
            )
        )
        if self.keep_events:
            self.finished_events.append(tuple(self._events))
            self._events = []
        self._gtid = NO_GTID
        self._dbs = None

    def close(self) -> None:
        """End of input: emit a transaction still open as incomplete."""
        if self.state != S_NONE:
            self._emit(False)
            self.state = S_NONE
