"""Session-state trackers: what the OK packet's session-state block reports after each statement.

The engine decides what changed; the protocol only encodes the :class:`~gtidkit.engine.results.StateChange`
entries, in MySQL's tracker order: system variables, schema, state change, GTIDs, transaction characteristics,
transaction state. Sources: MySQL ``sql/session_tracker.cc``, ``sql/rpl_context.cc``, WL#6885 (schema, system
variables, state change), WL#6972 (GTIDs), WL#6631 (transaction state and characteristics); expected behaviour
from mysql-test ``suite/binlog_gtid/r/binlog_gtid_mix_response_packet.result``,
``binlog_gtid_ok_packet_all_gtids.result`` (shared fixtures) and ``r/session_tracker_trx_state.result``.

Rules, tracker by tracker:

- **session_track_system_variables** (default ``time_zone,autocommit,character_set_client,character_set_results,
  character_set_connection``; ``*`` = all): after a statement that set the session value of a listed variable,
  its name and value (as SHOW VARIABLES prints it). The list in force is the one after the statement (setting the
  list itself reports the new list when it names itself or is ``*``).
- **session_track_schema** (default ON): the new default database after USE.
- **session_track_state_change** (default OFF): ``"1"`` after a statement that changed session state: a session
  system variable (not SET GLOBAL, not a one-shot SET TRANSACTION), a user variable set with SET, the default
  database. The tracker must be on before and after the statement (turning it on or off reports nothing).
- **session_track_gtids** OFF / OWN_GTID / ALL_GTIDS, read at the *start* of the statement (a SET of the variable
  is tracked under its old value). OWN_GTID reports the GTIDs this session committed during the statement (a
  statement that commits two transactions, such as ``CREATE TABLE`` inside BEGIN, reports both; nothing when it
  committed none or only anonymous ones). ALL_GTIDS reports the whole ``gtid_executed`` after a statement that
  committed a transaction (also a read-only one: an autocommitted SELECT from a table, a COMMIT after reads), and
  after SET session_track_gtids; never after ROLLBACK, BEGIN, or a statement inside an open transaction. The
  committed GTIDs are collected into one :class:`~gtidkit.gtid.GtidSet` per statement (intervals coalesce),
  emptied when the statement ends: the bookkeeping is bounded by one statement's commits.
- **session_track_transaction_info** OFF / STATE / CHARACTERISTICS: STATE reports the 8-character state whenever
  it differs from the last one reported: position 1 ``T`` (explicit transaction) / ``I`` (implicit: autocommit=0
  and a table touched) / ``_``; 2 ``r`` / 3 ``R`` non-transactional / transactional reads; 4 ``w`` / 5 ``W``
  writes; 6 ``s`` unsafe statement (UUID(), SYSDATE() ..., LIMIT without ORDER BY); 7 ``S`` result set sent;
  8 ``L`` LOCK TABLES. Flags are only added inside a transaction (LOCK TABLES excepted). CHARACTERISTICS also
  reports the SQL that recreates the transaction's characteristics (``SET TRANSACTION ISOLATION LEVEL
  SERIALIZABLE; START TRANSACTION READ ONLY;``), "" when none, whenever that text changes. All engine tables are
  transactional (InnoDB-like), so ``r`` and ``w`` never appear.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gtidkit.engine.results import SessionStateType, StateChange
from gtidkit.gtid import Gtid, GtidSet
from gtidkit.mysql_errors import mysql_error

__all__ = ["TRX_STATE_EMPTY", "SessionTracker", "StatementFacts"]

TRX_STATE_EMPTY = "________"
_T = SessionStateType

#: Functions that make a statement unsafe for statement-based logging (``BINLOG_STMT_UNSAFE_SYSTEM_FUNCTION``).
_UNSAFE_CALL = re.compile(
    r"\b(?:UUID|UUID_SHORT|USER|CURRENT_USER|SESSION_USER|SYSTEM_USER|FOUND_ROWS|ROW_COUNT|SYSDATE|"
    r"LOAD_FILE|GET_LOCK|RELEASE_LOCK|IS_FREE_LOCK|IS_USED_LOCK|MASTER_POS_WAIT|SOURCE_POS_WAIT|SLEEP|VERSION)"
    r"\s*\(",
    re.IGNORECASE,
)
_LIMIT = re.compile(r"\bLIMIT\b", re.IGNORECASE)
_ORDER_BY = re.compile(r"\bORDER\s+BY\b", re.IGNORECASE)
_ISOLATION = re.compile(
    r"ISOLATION\s+LEVEL\s+(READ\s+UNCOMMITTED|READ\s+COMMITTED|REPEATABLE\s+READ|SERIALIZABLE)", re.IGNORECASE
)
_ACCESS = re.compile(r"\bREAD\s+(ONLY|WRITE)\b", re.IGNORECASE)
_SNAPSHOT = re.compile(r"\bWITH\s+CONSISTENT\s+SNAPSHOT\b", re.IGNORECASE)
#: SET NAMES / CHARACTER SET change three variables; MySQL reports them in this order
#: (Session_sysvars_tracker's map order, as in the manual's mysqltest example).
_NAMES_VARS = ("character_set_connection", "character_set_client", "character_set_results")


@dataclass(slots=True)
class StatementFacts:
    """What the session tells the trackers about a statement that succeeded (made once per statement and only
    read: not frozen, since a frozen dataclass's constructor costs twice as much on this per-statement path).

    Attributes:
        kind: the statement's kind (``select``, ``dml``, ``ddl``, ``begin``, ``commit``, ``set``, ``use`` ...).
        text: the statement text (comments stripped).
        command: the recogniser's command (``lock_tables``, ``flush_logs``...) or None.
        uses_tables: the statement read or wrote tables.
        result_set: the statement sent a result set.
        assignments: for SET, the parsed assignments (``set_parser.Assignment``), else empty.
        autocommit: @@autocommit after the statement.
        explicit_trx: an explicit transaction (BEGIN / START TRANSACTION) is open after the statement.
        current_db: the default database after the statement.
        track_gtids: session_track_gtids after the statement.
        track_schema / track_state_change: those variables after the statement.
        track_sysvars: session_track_system_variables after the statement.
        track_trx_info: session_track_transaction_info after the statement.
        sysvar_text: name -> the variable's session value as SHOW VARIABLES prints it.
        gtid_executed: returns @@GLOBAL.gtid_executed.
    """

    kind: str
    text: str
    command: str | None
    uses_tables: bool
    result_set: bool
    assignments: Sequence[Any]
    autocommit: bool
    explicit_trx: bool
    current_db: str | None
    track_gtids: str
    track_schema: bool
    track_state_change: bool
    track_sysvars: str
    track_trx_info: str
    sysvar_text: Callable[[str], str]
    gtid_executed: Callable[[], GtidSet]


class SessionTracker:
    """The ``session_track_*`` trackers of one session (see the module docstring for their rules)."""

    def __init__(self) -> None:
        self._gtids_mode = "OFF"
        self._state_change_on = False
        self._trx_info_mode = "OFF"
        self._own = GtidSet()
        #: a GTID was added to ``_own`` and not reported yet (``_own`` is non-empty), kept beside it so the
        #: per-statement path tests a bool instead of the set
        self._owns = False
        self._committed = False
        # transaction state (WL#6631)
        self._trx = ""  # "", "T" explicit, "I" implicit
        self._flags: set[str] = set()
        self._locked = False
        self._reported_state = TRX_STATE_EMPTY
        self._chistics = ""
        self._reported_chistics = ""
        self._oneshot_isolation: str | None = None
        self._oneshot_access: str | None = None

    @property
    def transaction_active(self) -> bool:
        """A transaction is open: explicit, or implicit (autocommit=0 after a table was touched, even read-only)."""
        return bool(self._trx)

    @property
    def read_only_transaction(self) -> bool:
        """The open transaction was started READ ONLY (SERVER_STATUS_IN_TRANS_READONLY)."""
        return bool(self._trx) and "READ ONLY" in self._chistics and "START TRANSACTION" in self._chistics

    def check_set_transaction(self, assignments: Sequence[Any], in_transaction: bool) -> None:
        """A one-shot SET TRANSACTION inside an active transaction fails (``trans_check_state``).

        Raises:
            MySQLError: 1568 ER_CANT_CHANGE_TX_CHARACTERISTICS (25001).
        """
        if (in_transaction or self._trx) and any(
            a.kind == "transaction" and not a.scope for a in assignments
        ):
            raise mysql_error(1568)

    # ---------------------------------------------------------------- per statement
    def begin_statement(self, *, track_gtids: str, track_state_change: bool, track_trx_info: str) -> None:
        """Snapshot the tracker variables as they are when a statement starts."""
        self._gtids_mode = track_gtids
        self._state_change_on = track_state_change
        self._trx_info_mode = track_trx_info
        self._committed = False

    def transaction_committed(self, gtid: Gtid | None) -> None:
        """The commit path: a transaction of this session committed with ``gtid`` (None = anonymous)."""
        self._committed = True
        if gtid is not None and self._gtids_mode == "OWN_GTID":
            self._own.add_in_place(gtid.sid, gtid.tag, gtid.gno)
            self._owns = True

    def statement_failed(self) -> None:
        """The statement failed (an ERR packet carries no session state): forget its per-statement marks."""
        self._committed = False

    def end_plain_statement(
        self,
        kind: str,
        text: str,
        command: str | None,
        uses_tables: bool,
        result_set: bool,
        autocommit: bool,
        explicit_trx: bool,
        track_trx_info: str,
        gtid_executed: Callable[[], GtidSet],
    ) -> tuple[StateChange, ...]:
        """:meth:`end_statement` for a statement other than SET and USE, without building
        :class:`StatementFacts`: such a statement changes no session variable, schema or session state, so only
        the GTID and transaction trackers can report. The arguments are the facts' fields of the same names."""
        gtids = self._gtids_text(kind, uses_tables, explicit_trx, False, gtid_executed)
        prev_mode = self._trx_info_mode
        if kind == "select" or kind == "dml":  # neither begins nor ends a transaction
            self._note_statement(kind, text, uses_tables, result_set, autocommit)
        else:
            self._transaction_marks(kind, text, command, uses_tables, result_set, autocommit, explicit_trx)
        if track_trx_info == "OFF" and gtids is None:  # the common case: nothing to report
            self._reported_state = TRX_STATE_EMPTY
            self._reported_chistics = ""
            return ()
        out = [StateChange(_T.SESSION_TRACK_GTIDS, gtids)] if gtids is not None else []
        out.extend(self._trx_info_changes(track_trx_info, prev_mode))
        return tuple(out)

    def end_select(
        self,
        track_gtids: str,
        track_state_change: bool,
        track_trx_info: str,
        text: str,
        uses_tables: bool,
        autocommit: bool,
        explicit_trx: bool,
        gtid_executed: Callable[[], GtidSet],
    ) -> tuple[StateChange, ...]:
        """:meth:`begin_statement` then :meth:`end_plain_statement` of a SELECT (a result set) that succeeded, in
        one call: a SELECT commits nothing, so nothing between the two reads the marks ``begin_statement`` sets
        (the session's prepared SELECT short path). The arguments are :meth:`begin_statement`'s and
        :meth:`end_plain_statement`'s of the same names; with the GTID and transaction-info trackers OFF and no GTID
        of this session left to report, only the transaction marks are noted and nothing is reported."""
        self._gtids_mode = track_gtids
        self._state_change_on = track_state_change
        self._trx_info_mode = track_trx_info
        self._committed = False
        if track_gtids != "OFF" or track_trx_info != "OFF" or self._owns:
            return self.end_plain_statement(
                "select",
                text,
                None,
                uses_tables,
                True,
                autocommit,
                explicit_trx,
                track_trx_info,
                gtid_executed,
            )
        # _note_statement("select", text, uses_tables, True, autocommit), inline
        trx = self._trx
        if uses_tables and not trx and not autocommit:
            trx = self._trx = "I"
        if trx:
            flags = self._flags
            if uses_tables:
                flags.add("R")
            flags.add("S")
            if _text_marks(text)[1]:
                flags.add("s")
        self._reported_state = TRX_STATE_EMPTY
        self._reported_chistics = ""
        return ()

    def end_statement(self, facts: StatementFacts) -> tuple[StateChange, ...]:
        """The state changes to report for a statement that succeeded (empty tuple when none)."""
        out: list[StateChange] = []
        changed_vars, state_changed, schema = self._session_changes(facts)
        tracked = _tracked_names(facts.track_sysvars) if changed_vars else frozenset()
        for name in changed_vars:
            if "*" in tracked or name in tracked:
                out.append(StateChange(_T.SESSION_TRACK_SYSTEM_VARIABLES, facts.sysvar_text(name), name))
        if schema is not None and facts.track_schema:
            out.append(StateChange(_T.SESSION_TRACK_SCHEMA, schema))
        if state_changed and self._state_change_on and facts.track_state_change:
            out.append(StateChange(_T.SESSION_TRACK_STATE_CHANGE, "1"))
        sets_tracker = any(
            a.kind == "sys" and a.name.lower() == "session_track_gtids" for a in facts.assignments
        )
        gtids = self._gtids_text(
            facts.kind, facts.uses_tables, facts.explicit_trx, sets_tracker, facts.gtid_executed
        )
        if gtids is not None:
            out.append(StateChange(_T.SESSION_TRACK_GTIDS, gtids))
        out.extend(self._transaction_report(facts))
        return tuple(out)

    # ---------------------------------------------------------------- system variables, schema, state change
    def _session_changes(self, facts: StatementFacts) -> tuple[list[str], bool, str | None]:
        names: dict[str, None] = {}
        state_changed = False
        schema = None
        if facts.kind == "use":
            schema = facts.current_db or ""
            state_changed = True
        for a in facts.assignments:
            if a.kind == "user":
                state_changed = True
            elif a.kind == "names":
                names.update(dict.fromkeys(_NAMES_VARS))
                state_changed = True
            elif a.kind == "transaction":
                if (a.scope or "").upper() in ("SESSION", "LOCAL"):
                    state_changed = True
                    if _ISOLATION.search(str(a.value)):
                        names["transaction_isolation"] = None
                    if _ACCESS.search(str(a.value)):
                        names["transaction_read_only"] = None
            elif (a.scope or "SESSION").upper() in ("SESSION", "LOCAL"):
                from gtidkit.engine import sysvars

                var = sysvars.SYSVARS.get(a.name.lower())
                if var is None:
                    continue
                if var.alias_of:
                    var = sysvars.SYSVARS[var.alias_of]
                if a.scope is None and var.scope == sysvars.GLOBAL:
                    continue  # SET x = v on a GLOBAL-only variable sets the global value
                names[var.name] = None
                state_changed = True
        return list(names), state_changed, schema

    # ---------------------------------------------------------------- GTIDs
    def _gtids_text(
        self,
        kind: str,
        uses_tables: bool,
        explicit_trx: bool,
        sets_tracker: bool,
        gtid_executed: Callable[[], GtidSet],
    ) -> str | None:
        """What session_track_gtids reports for the statement ending (None: nothing); ``sets_tracker``: the
        statement is a SET of session_track_gtids."""
        mode = self._gtids_mode
        own = self._own
        if own:
            self._own = GtidSet()
        self._owns = False
        if mode == "OWN_GTID":
            return own.to_text() if own else None
        if mode != "ALL_GTIDS":
            return None
        in_trx = explicit_trx or self._trx == "I"
        committed = (
            self._committed
            or (uses_tables and not in_trx)
            or kind == "commit"
            and (bool(self._flags) or self._committed)
        )
        if kind == "rollback" or not (committed or sets_tracker):
            return None
        executed = gtid_executed()
        return executed.to_text() if executed else None

    # ---------------------------------------------------------------- transaction state and characteristics
    def _end_transaction(self) -> None:
        self._trx = ""
        self._flags = set()
        self._chistics = ""

    def _transaction_report(self, facts: StatementFacts) -> list[StateChange]:
        kind = facts.kind
        prev_mode = self._trx_info_mode
        self._transaction_marks(
            kind,
            facts.text,
            facts.command,
            facts.uses_tables,
            facts.result_set,
            facts.autocommit,
            facts.explicit_trx,
        )
        if kind == "set":
            self._note_set_transaction(facts)
        if kind == "set" and facts.autocommit and self._trx == "I":
            self._end_transaction()  # SET autocommit=1 commits the implicit transaction
        return self._trx_info_changes(facts.track_trx_info, prev_mode)

    def _transaction_marks(
        self,
        kind: str,
        text: str,
        command: str | None,
        uses_tables: bool,
        result_set: bool,
        autocommit: bool,
        explicit_trx: bool,
    ) -> None:
        """The transaction state and characteristics after a statement (SET's own characteristics aside)."""
        if kind == "begin":
            self._end_transaction()
            self._trx = "T"
            snapshot, access_text = _begin_marks(text)
            if access_text is None:
                access_text = self._oneshot_access
            if snapshot:
                self._flags.add("R")
            if not snapshot and not access_text and not self._oneshot_isolation:
                self._chistics = "START TRANSACTION;"  # BEGIN, START TRANSACTION: what the lines below give
            else:
                opts = (["WITH CONSISTENT SNAPSHOT"] if snapshot else []) + (
                    [access_text] if access_text else []
                )
                start = "START TRANSACTION" + (" " + ", ".join(opts) if opts else "") + ";"
                iso = (
                    f"SET TRANSACTION ISOLATION LEVEL {self._oneshot_isolation}; "
                    if self._oneshot_isolation
                    else ""
                )
                self._chistics = iso + start
            self._oneshot_isolation = self._oneshot_access = None
        elif kind in ("commit", "rollback"):
            # the engine decided the completion (AND CHAIN, or completion_type=CHAIN without AND NO CHAIN): after
            # a COMMIT / ROLLBACK an explicit transaction is open exactly when it chained
            chain = explicit_trx
            access = _ACCESS.search(self._chistics)
            level = _ISOLATION.search(self._chistics)
            self._end_transaction()
            if chain:
                # the chained transaction keeps the access mode and the isolation level of the one it replaces
                # (Bug#53343, r/commit.result; trans_reset_one_shot_chistics runs only without a chain), not
                # WITH CONSISTENT SNAPSHOT (session_tracker_trx_state.result)
                self._trx = "T"
                self._chistics = (
                    f"SET TRANSACTION ISOLATION LEVEL {' '.join(level.group(1).upper().split())}; "
                    if level
                    else ""
                ) + (f"START TRANSACTION READ {access.group(1).upper()};" if access else "START TRANSACTION;")
        elif command == "lock_tables" or command == "unlock_tables":
            self._end_transaction()
            self._locked = command == "lock_tables"
        elif kind in ("ddl", "admin", "account") or (kind == "set" and self._trx == "T" and not explicit_trx):
            self._end_transaction()  # implicit commit: DDL, FLUSH / RESET / PURGE ..., SET autocommit=1
        else:
            self._note_statement(kind, text, uses_tables, result_set, autocommit)

    def _note_statement(
        self, kind: str, text: str, uses_tables: bool, result_set: bool, autocommit: bool
    ) -> None:
        """The transaction-state marks of a statement that neither begins nor ends a transaction."""
        if uses_tables and not self._trx and not autocommit:
            self._trx = "I"
        if self._trx:
            reads_in_dml, unsafe = _text_marks(text)
            flags = self._flags
            if uses_tables:
                if kind == "dml":
                    flags.add("W")
                    if reads_in_dml:
                        flags.add("R")
                else:
                    flags.add("R")
            if result_set:
                flags.add("S")
            if unsafe:
                flags.add("s")

    def _trx_info_changes(self, track_trx_info: str, prev_mode: str) -> list[StateChange]:
        """What session_track_transaction_info (``track_trx_info`` after the statement, ``prev_mode`` before it)
        reports now."""
        mode = track_trx_info if track_trx_info == "OFF" else track_trx_info.upper()
        out: list[StateChange] = []
        if mode == "OFF":
            self._reported_state = TRX_STATE_EMPTY
            self._reported_chistics = ""
            return out
        if mode == "CHARACTERISTICS" and (
            prev_mode.upper() != "CHARACTERISTICS" or self._chistics != self._reported_chistics
        ):
            out.append(StateChange(_T.SESSION_TRACK_TRANSACTION_CHARACTERISTICS, self._chistics))
            self._reported_chistics = self._chistics
        state = self.state_string()
        if state != self._reported_state or prev_mode.upper() == "OFF":
            out.append(StateChange(_T.SESSION_TRACK_TRANSACTION_STATE, state))
            self._reported_state = state
        return out

    def _note_set_transaction(self, facts: StatementFacts) -> None:
        for a in facts.assignments:
            if a.kind != "transaction":
                continue
            value = str(a.value)
            iso = _ISOLATION.search(value)
            access = _ACCESS.search(value)
            scope = (a.scope or "").upper()
            if scope in ("SESSION", "LOCAL"):
                if iso:
                    self._oneshot_isolation = None
                if access:
                    self._oneshot_access = None
            elif scope == "":
                if iso:
                    self._oneshot_isolation = " ".join(iso.group(1).upper().split())
                if access:
                    self._oneshot_access = f"READ {access.group(1).upper()}"
        if not self._trx:
            parts = []
            if self._oneshot_isolation:
                parts.append(f"SET TRANSACTION ISOLATION LEVEL {self._oneshot_isolation};")
            if self._oneshot_access:
                parts.append(f"SET TRANSACTION {self._oneshot_access};")
            self._chistics = " ".join(parts)

    def state_string(self) -> str:
        """The 8-character transaction state (``T___W_S_``) as SESSION_TRACK_TRANSACTION_STATE reports it."""
        f = self._flags
        return "".join(
            (
                self._trx or "_",
                "r" if "r" in f else "_",
                "R" if "R" in f else "_",
                "w" if "w" in f else "_",
                "W" if "W" in f else "_",
                "s" if "s" in f else "_",
                "S" if "S" in f else "_",
                "L" if self._locked else "_",
            )
        )


@functools.lru_cache(maxsize=256)
def _begin_marks(text: str) -> tuple[bool, str | None]:
    """(WITH CONSISTENT SNAPSHOT, ``READ ONLY`` / ``READ WRITE`` or None) of a BEGIN / START TRANSACTION text — per
    text, since clients send the same ones again."""
    access = _ACCESS.search(text)
    return bool(_SNAPSHOT.search(text)), f"READ {access.group(1).upper()}" if access else None


@functools.lru_cache(maxsize=1024)
def _text_marks(text: str) -> tuple[bool, bool]:
    """(the text has a SELECT: a DML statement that also reads, unsafe for statement logging: a system function
    or LIMIT without ORDER BY) — per text, since prepared statements and sysbench send the same texts again."""
    reads = re.search(r"\bSELECT\b", text, re.IGNORECASE) is not None
    unsafe = bool(_UNSAFE_CALL.search(text) or (_LIMIT.search(text) and not _ORDER_BY.search(text)))
    return reads, unsafe


@functools.lru_cache(maxsize=64)
def _tracked_names(track_sysvars: str) -> frozenset[str]:
    """The variable names listed in session_track_system_variables (lower case; ``*`` for all)."""
    return frozenset(v.strip().lower() for v in track_sysvars.split(",") if v.strip())
