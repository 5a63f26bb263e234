"""One client session: statement dispatch, GTID_NEXT, ownership, transaction boundaries (WL#6559/WL#7592).

Sources: MySQL ``sql/rpl_gtid_execution.cc`` (``set_gtid_next``, ``gtid_pre_statement_checks``: a statement other
than an "innocent" one (SELECT, SET, SHOW without stored functions) fails with ER_GTID_NEXT_TYPE_UNDEFINED_GTID
1837 while gtid_next is UNDEFINED; an already-executed GTID makes the transaction be skipped), ``sql/sys_vars.cc``
(``Sys_var_gtid_next::session_update``), ``sql/transaction.cc`` (implicit commits), and formats.md §8.2–8.3.

Statement kinds come from :func:`gtidkit.engine.sql.executor.classify`; SELECT/DML/DDL/USE run in the SQL layer's
:class:`~gtidkit.engine.sql.executor.Executor`; SET, transaction control, SHOW of binlog/GTID state and the admin
statements are handled here and in :mod:`gtidkit.engine.statements.admin`. The commit path itself (binlog, GTID table, GTID
state, observers) is :meth:`gtidkit.engine.server.Server.commit_transaction`.

Locking: a session holds the server's write lock from the first write of a transaction until its commit or
rollback (SQLite has one writer; this lock makes the wait FIFO-ish and lock-free at the SQLite level), so a
transaction's binlog write, GTID row and applied-position row are all in one serial section.
"""

from __future__ import annotations

import dataclasses
import re
import time
from typing import TYPE_CHECKING, Any

from gtidkit.engine import sysvars
from gtidkit.engine.diagnostics import DiagnosticsArea
from gtidkit.engine.gtid.state import EXECUTED
from gtidkit.engine.results import Condition, ServerStatus, StatementResult
from gtidkit.engine.statements import set_parser
from gtidkit.engine.statements.set_parser import Default, Expression, Keyword, SysVarRef, UserVarRef
from gtidkit.errors import MySQLError
from gtidkit.gtid import Gtid

if TYPE_CHECKING:
    from gtidkit.engine.server import Server

AUTOMATIC = "AUTOMATIC"
ANONYMOUS = "ANONYMOUS"
ASSIGNED = "ASSIGNED_GTID"
UNDEFINED = "UNDEFINED"


def _gtid_next_undefined_error(shown: str) -> MySQLError:
    return MySQLError(
        1837,
        "When @@SESSION.GTID_NEXT is set to a GTID, you must explicitly set it to a different value after a COMMIT "
        "or ROLLBACK. Please check GTID_NEXT variable manual page for detailed explanation. Current "
        f"@@SESSION.GTID_NEXT is '{shown}'.",
    )


class Session:
    """A session of :class:`~gtidkit.engine.server.Server` (create with ``server.session()``).

    Not thread-safe: use one session from one thread at a time (as a MySQL connection). Different sessions run
    concurrently from different threads.
    """

    #: The replica applier's commit origin (:class:`gtidkit.engine.apply.CommitOrigin`) while it applies a
    #: transaction; None for client sessions. The commit path reads it (write matrix, original timestamps).
    applier: Any = None

    def __init__(self, server: Server, session_id: int) -> None:
        from gtidkit.engine.sql.executor import Executor

        self.server = server
        self.id = session_id
        self.conn = server.storage.connect()
        self.executor = Executor(server.storage, self.conn)
        self.executor.sysvar_resolver = self.resolve_sysvar
        self.executor.functions.update(server.sql_functions(self))
        self.executor.connection_id = session_id
        self.executor.sysvar_kind = _sysvar_kind
        self.diagnostics = DiagnosticsArea()
        self.current_db: str | None = None
        self.session_vars: dict[str, Any] = {}
        self.user_vars: dict[str, Any] = {}
        # gtid_next: kind AUTOMATIC (with tag), ANONYMOUS, ASSIGNED (self.next_gtid) or UNDEFINED
        self.gtid_next_kind = AUTOMATIC
        self.gtid_next_tag = ""
        self.next_gtid: Gtid | None = None
        self.owned_gtid: Gtid | None = None
        self.skip_transaction = False
        # transaction state
        self.explicit_trx = False
        self.holds_write_lock = False
        self.row_changes: list[Any] = []
        self.row_statements: list[list[Any]] = []  # RowChanges per DML statement (ROW events)
        # (db, text, Intvar events, schemas of the rows it changed) of each DML statement, for STATEMENT format
        self.statements: list[tuple[str, str, tuple[Any, ...], tuple[str, ...]]] = []
        self.trx_dirty = False
        self.last_insert_id = 0
        self.closed = False
        self.committed_gtids: list[Gtid] = []  # since the last take_committed_gtids() (session tracking)

    # ------------------------------------------------------------------ public
    def execute(self, sql: str) -> list[StatementResult]:
        """Run one or more ``;``-separated statements; one :class:`StatementResult` per statement, in order.

        Statements run eagerly, one after the other, as mysqld runs a multi-statement COM_QUERY. Every result
        but the last carries SERVER_MORE_RESULTS_EXISTS in its status flags.

        Raises:
            MySQLError: MySQL's code, SQLSTATE and message for the first failing statement; the statements
                before it have taken effect and their results are on the error as ``err.results`` (a tuple of
                :class:`StatementResult`, empty when the first statement failed): a wire server sends them,
                then the ERR packet. Statements after the failing one are not run. 1065 ER_EMPTY_QUERY for
                text without a statement; 2006 after :meth:`close`.
        """
        from gtidkit.engine.sql.parse import split_statements

        if self.closed:
            raise MySQLError(2006, "MySQL server has gone away")
        texts = split_statements(sql)
        if not texts:
            raise MySQLError(1065, "Query was empty", "42000")
        results: list[StatementResult] = []
        for i, text in enumerate(texts):
            try:
                results.append(self._execute_statement(text, more=i + 1 < len(texts)))
            except MySQLError as err:
                err.results = tuple(results)  # type: ignore[attr-defined]
                raise
        return results

    def _execute_statement(self, text: str, *, more: bool) -> StatementResult:
        """Run one statement and complete its result: diagnostics area, warning count, status flags."""
        from gtidkit.engine.sql.parse import classify

        stmt = classify(text)
        command = stmt.info.get("command")
        diagnostic = command in ("warnings", "errors", "count_warnings", "count_errors")
        self.diagnostics.begin_statement(diagnostic=diagnostic, uses_tables=_uses_tables(stmt))
        max_errors = self._max_error_count()
        try:
            res = self._dispatch(stmt)
        except MySQLError as err:
            self.diagnostics.push(Condition("Error", err.code, err.message), max_errors)
            raise
        for w in res.warnings:
            self.diagnostics.push(w, max_errors)
        flags = 0
        if self.in_transaction():
            flags |= ServerStatus.SERVER_STATUS_IN_TRANS
        if self._autocommit():
            flags |= ServerStatus.SERVER_STATUS_AUTOCOMMIT
        if more:
            flags |= ServerStatus.SERVER_MORE_RESULTS_EXISTS
        return dataclasses.replace(
            res, warning_count=min(self.diagnostics.statement_count, 0xFFFF), status_flags=int(flags)
        )

    def _max_error_count(self) -> int:
        return int(self.session_vars.get("max_error_count", self.server.globals.get("max_error_count")))

    def close(self) -> None:
        """Roll back any open transaction, release owned GTIDs and close the connection."""
        if self.closed:
            return
        try:
            self._rollback_trx()
        finally:
            if self.owned_gtid is not None:
                self.server.gtid_state.release(self.owned_gtid)
                self.owned_gtid = None
            self.closed = True
            self.conn.close()
            self.server._forget_session(self)

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def take_committed_gtids(self) -> list[Gtid]:
        """GTIDs this session committed since the last call (for session_track_gtids=OWN_GTID)."""
        out, self.committed_gtids = self.committed_gtids, []
        return out

    # ------------------------------------------------------------------ dispatch
    def _dispatch(self, stmt: Any) -> StatementResult:
        """Run one classified statement; the result's status flags and warning count are completed by the caller."""
        kind = stmt.kind
        if kind == "set":
            return self._set(stmt.text)
        if self.gtid_next_kind == UNDEFINED and kind not in ("select", "show", "commit", "rollback"):
            raise _gtid_next_undefined_error(str(self.next_gtid))
        if kind == "show" and stmt.info.get("command") in _DIAGNOSTIC_SHOWS:
            return _DIAGNOSTIC_SHOWS[stmt.info["command"]](self, stmt.info)
        if kind == "show":
            handled = self.server.admin.show(self, stmt.text)
            if handled is not None:
                return handled
            return self._run_executor(stmt, writes=False)
        if kind == "admin":
            self._implicit_commit()
            return self.server.admin.run(self, stmt.text)
        if kind == "begin":
            self._implicit_commit()
            self.explicit_trx = True
            return StatementResult()
        if kind == "commit":
            self._commit_trx()
            return StatementResult()
        if kind == "rollback":
            self._rollback_trx()
            return StatementResult()
        if kind in ("savepoint", "release_savepoint", "rollback_to_savepoint"):
            if self.skip_transaction:
                return StatementResult()
            self._ensure_write_trx()
            return self._run_executor(stmt, writes=True)
        if kind == "ddl":
            self._implicit_commit()
            if self.skip_transaction:
                self._finish_skipped()
                return StatementResult()
            self._ensure_write_trx()
            try:
                res = self._run_executor(stmt, writes=True)
            except BaseException:
                self._rollback_trx()
                raise
            self._commit_trx(ddl_text=stmt.text)
            return res
        if kind == "dml":
            if self.skip_transaction:
                if not self.explicit_trx and self._autocommit():
                    self._finish_skipped()
                return StatementResult()
            self._ensure_write_trx()
            try:
                res = self._run_executor(stmt, writes=True)
            except BaseException:
                if not self.explicit_trx and self._autocommit():
                    self._rollback_trx()
                raise
            if not self.explicit_trx and self._autocommit():
                self._commit_trx()
            return res
        if kind == "use":
            res = self._run_executor(stmt, writes=False)
            return res
        # select and anything the SQL layer knows better than we do
        return self._run_executor(stmt, writes=False)

    def _run_executor(self, stmt: Any, *, writes: bool) -> StatementResult:
        prev_last_insert_id = self.executor.last_insert_id
        forced = self.session_vars.pop("insert_id", 0) if writes else 0
        if forced:
            self.executor.forced_insert_id = int(forced)  # SET insert_id = N: the next statement only
        try:
            er = self.executor.execute(stmt, self.current_db)
        finally:
            self.executor.forced_insert_id = None
        new_db = getattr(er, "new_db", None)
        if new_db is not None:
            self.current_db = new_db or None
        changes = list(getattr(er, "row_changes", None) or [])
        if writes:
            self.row_changes.extend(changes)
            if changes:
                self.row_statements.append(changes)
            if stmt.kind in ("dml",):
                from gtidkit.engine.binlog.transaction_events import statement_intvars

                intvars = statement_intvars(
                    stmt.text, prev_last_insert_id, int(getattr(er, "insert_id", 0) or 0)
                )
                updated = tuple(dict.fromkeys(ch.schema for ch in changes))
                self.statements.append((self.current_db or "", stmt.text, intvars, updated))
                if changes or er.affected_rows:
                    self.trx_dirty = True
        if er.last_insert_id:
            self.last_insert_id = er.last_insert_id
        affected = int(er.affected_rows or 0)
        res = StatementResult(
            affected_rows=affected,
            matched_rows=affected if er.matched_rows is None else int(er.matched_rows),
            last_insert_id=int(er.last_insert_id or 0),
            info=er.info or "",
            warnings=tuple(Condition(*w) for w in (er.warnings or [])),
        )
        if er.columns:
            from gtidkit.engine.sql.metadata import result_columns

            rows = [tuple(r) for r in (er.rows or [])]
            res = dataclasses.replace(res, columns=result_columns(er.columns, rows, er.metadata), rows=rows)
        return res

    # ------------------------------------------------------------------ transactions
    def _autocommit(self) -> bool:
        return bool(self.session_vars.get("autocommit", self.server.globals.get("autocommit")))

    def in_transaction(self) -> bool:
        """True inside BEGIN ... COMMIT, or with autocommit=0 after a write (MySQL's ``in_active_multi_stmt``)."""
        return self.explicit_trx or self.holds_write_lock

    def _ensure_write_trx(self) -> None:
        if self.holds_write_lock:
            return
        self.server.acquire_write_lock(self)
        self.holds_write_lock = True
        try:
            self.conn.begin()
        except BaseException:
            self.holds_write_lock = False
            self.server.release_write_lock(self)
            raise
        if not self._autocommit():
            self.explicit_trx = True

    def _implicit_commit(self) -> None:
        if self.explicit_trx or self.holds_write_lock:
            self._commit_trx()

    def _finish_skipped(self) -> None:
        """End a transaction skipped because its GTID was already executed (gtid_next → UNDEFINED)."""
        self.skip_transaction = False
        self.explicit_trx = False
        self.gtid_next_kind = UNDEFINED

    def _commit_trx(self, ddl_text: str | None = None) -> None:
        if self.skip_transaction:
            self._discard_storage_trx()
            self._finish_skipped()
            return
        assigned = self.gtid_next_kind == ASSIGNED
        has_work = ddl_text is not None or self.trx_dirty or self.row_changes
        if not has_work and not (assigned and self.explicit_trx):
            # read-only or empty transaction without an explicit GTID: nothing to log
            self._discard_storage_trx()
            self.explicit_trx = False
            return
        self._ensure_write_trx()
        try:
            gtid = self.server.commit_transaction(self, ddl_text=ddl_text)
        except BaseException:
            self._discard_storage_trx()
            self.explicit_trx = False
            raise
        finally:
            self._reset_trx_state()
        if gtid is not None:
            self.committed_gtids.append(gtid)
        if assigned:
            self.owned_gtid = None
            self.gtid_next_kind = UNDEFINED
        self.server.notify_commit(self, gtid)

    def _rollback_trx(self) -> None:
        self._discard_storage_trx()
        was_active = self.explicit_trx
        self.explicit_trx = False
        if self.skip_transaction:
            self._finish_skipped()
            return
        if self.gtid_next_kind == ASSIGNED and was_active and self.owned_gtid is not None:
            # MySQL: ROLLBACK of a transaction with an assigned GTID releases it and gtid_next becomes UNDEFINED
            self.server.gtid_state.release(self.owned_gtid)
            self.owned_gtid = None
            self.gtid_next_kind = UNDEFINED

    def _discard_storage_trx(self) -> None:
        try:
            if self.conn.in_transaction:
                self.conn.rollback()
        finally:
            self._reset_trx_state()
            if self.holds_write_lock:
                self.holds_write_lock = False
                self.server.release_write_lock(self)

    def _reset_trx_state(self) -> None:
        self.row_changes = []
        self.row_statements = []
        self.statements = []
        self.trx_dirty = False

    def release_after_commit(self) -> None:
        """Called by the server once the storage transaction is committed: drop the write lock."""
        self.holds_write_lock = False
        self.explicit_trx = False
        self.server.release_write_lock(self)

    # ------------------------------------------------------------------ SET
    def _set(self, text: str) -> StatementResult:
        warnings: list[sysvars.Warning_] = []
        for a in set_parser.parse_set(text):
            if a.kind == "user":
                self.user_vars[a.name] = self._eval(a.value)
            elif a.kind == "names":
                for n in ("character_set_client", "character_set_connection", "character_set_results"):
                    self.session_vars[n] = a.value
            elif a.kind == "transaction":
                continue  # isolation level / access mode: accepted (SQLite serialises writers anyway)
            else:
                self._set_sysvar(a.name, a.scope, a.value, warnings)
        return StatementResult(warnings=tuple(Condition(*w.as_tuple()) for w in warnings))

    def _eval(self, value: Any) -> Any:
        if isinstance(value, SysVarRef):
            return self.resolve_sysvar(value.name, value.scope)
        if isinstance(value, UserVarRef):
            return self.user_vars.get(value.name)
        if isinstance(value, Keyword):
            return value.word
        if isinstance(value, Expression):
            from gtidkit.engine.sql.executor import classify

            er = self.executor.execute(classify(f"SELECT {value.text}"), self.current_db)
            return er.rows[0][0] if er.rows else None
        return value

    def _set_sysvar(self, name: str, scope: str | None, value: Any, warnings: list[sysvars.Warning_]) -> None:
        var = sysvars.lookup(name)
        if scope == "PERSIST":
            scope = "GLOBAL"
        if var.read_only and not var.dynamic_value or var.name in ("gtid_executed", "gtid_owned"):
            raise MySQLError(1238, f"Variable '{var.name}' is a read only variable")
        if scope is None:
            scope = "GLOBAL" if var.scope == sysvars.GLOBAL else "SESSION"
        if scope == "SESSION" and var.scope == sysvars.GLOBAL:
            raise MySQLError(
                1229, f"Variable '{var.name}' is a GLOBAL variable and should be set with SET GLOBAL"
            )
        if scope == "GLOBAL" and var.scope == sysvars.SESSION:
            raise MySQLError(
                1228, f"Variable '{var.name}' is a SESSION variable and can't be used with SET GLOBAL"
            )
        if isinstance(value, Default):
            raw: Any = var.default
        else:
            raw = self._eval(value)
        if var.name == "gtid_next":
            self._set_gtid_next(raw)
            return
        if var.name == "gtid_purged":
            self.server.admin.set_gtid_purged(self, raw)
            return
        if var.name == "last_insert_id":
            self.executor.last_insert_id = sysvars.coerce(var, raw, warnings)  # what LAST_INSERT_ID() returns
            return
        if var.name == "session_track_gtids" and self.in_transaction():
            raise MySQLError(
                1766,
                "The system variable session_track_gtids cannot be set when there is an ongoing transaction.",
            )
        new = sysvars.coerce(var, raw, warnings)
        if scope == "GLOBAL":
            self.server.set_global(self, var.name, new)
        else:
            if var.name == "autocommit" and new and not self._autocommit():
                self._implicit_commit()  # SET autocommit=1 commits the open transaction
            self.session_vars[var.name] = new

    def before_storage_commit(self, db: Any) -> None:
        """Hook run by the commit path just before the SQLite COMMIT (the applier stores its position here)."""

    # ------------------------------------------------------------------ GTID_NEXT
    def set_gtid_next(self, value: Gtid | str) -> None:
        """``SET GTID_NEXT`` through the API (a :class:`Gtid`, ``"ANONYMOUS"``, ``"AUTOMATIC[:tag]"``).

        Raises:
            MySQLError: as the SQL form (1766, 1790, 1781, 1782, 1774).
        """
        self._set_gtid_next(str(value))

    def gtid_next_text(self) -> str:
        """``@@SESSION.gtid_next`` as MySQL shows it."""
        if self.gtid_next_kind == AUTOMATIC:
            return f"AUTOMATIC:{self.gtid_next_tag}" if self.gtid_next_tag else "AUTOMATIC"
        if self.gtid_next_kind == ANONYMOUS:
            return "ANONYMOUS"
        return str(self.next_gtid)

    def _set_gtid_next(self, value: Any) -> None:
        """``SET gtid_next`` (``Sys_var_gtid_next`` + ``set_gtid_next``); errors per formats.md §8.2."""
        if value is None:
            raise MySQLError(1231, "Variable 'gtid_next' can't be set to the value of 'NULL'", "42000")
        text = str(value).strip()
        if self.in_transaction():
            raise MySQLError(
                1766, "The system variable gtid_next cannot be set when there is an ongoing transaction."
            )
        if self.owned_gtid is not None:
            raise MySQLError(
                1790,
                f"@@SESSION.GTID_NEXT cannot be changed by a client that owns a GTID. The client owns "
                f"{self.owned_gtid}. Ownership is released on COMMIT or ROLLBACK.",
            )
        mode = self.server.globals.get("gtid_mode")
        upper = text.upper()
        if upper == "AUTOMATIC" or upper.startswith("AUTOMATIC:"):
            tag = ""
            if ":" in text:
                from gtidkit.gtid import normalize_tag

                try:
                    tag = normalize_tag(text.split(":", 1)[1].strip())
                except ValueError as err:
                    raise MySQLError(1774, f"Malformed GTID specification '{text}'.") from err
                if mode in ("OFF", "OFF_PERMISSIVE"):
                    raise MySQLError(
                        1781,
                        "@@SESSION.GTID_NEXT cannot be set to UUID:NUMBER when @@GLOBAL.GTID_MODE = OFF.",
                    )
            self.gtid_next_kind, self.gtid_next_tag, self.next_gtid = AUTOMATIC, tag, None
            self.skip_transaction = False
            return
        if upper == "ANONYMOUS":
            if mode == "ON":
                raise MySQLError(
                    1782, "@@SESSION.GTID_NEXT cannot be set to ANONYMOUS when @@GLOBAL.GTID_MODE = ON."
                )
            self.gtid_next_kind, self.next_gtid = ANONYMOUS, None
            self.skip_transaction = False
            return
        if upper == "UNDEFINED":
            raise MySQLError(1231, f"Variable 'gtid_next' can't be set to the value of '{text}'", "42000")
        gtid = Gtid.parse(text)  # 1774 on malformed text
        if mode == "OFF":
            raise MySQLError(
                1781, "@@SESSION.GTID_NEXT cannot be set to UUID:NUMBER when @@GLOBAL.GTID_MODE = OFF."
            )
        state = self.server.gtid_state.acquire_ownership(
            gtid, self.id, timeout=float(self._lock_wait_timeout())
        )
        self.gtid_next_kind, self.next_gtid = ASSIGNED, gtid
        if state == EXECUTED:
            self.skip_transaction = True
            self.owned_gtid = None
        else:
            self.skip_transaction = False
            self.owned_gtid = gtid

    def _lock_wait_timeout(self) -> int:
        return int(
            self.session_vars.get(
                "innodb_lock_wait_timeout", self.server.globals.get("innodb_lock_wait_timeout")
            )
        )

    # ------------------------------------------------------------------ @@variables
    def resolve_sysvar(self, name: str, scope: str | None = None) -> Any:
        """Value of ``@@[scope.]name`` for SELECT (``scope`` GLOBAL, SESSION/LOCAL or None).

        Raises:
            MySQLError: 1193 unknown variable; 1238 "Variable '%s' is a GLOBAL/SESSION variable" when read in
                the wrong scope.
        """
        var = sysvars.lookup(name)
        sc = (scope or "").upper()
        if sc == "LOCAL":
            sc = "SESSION"
        if sc == "SESSION" and var.scope == sysvars.GLOBAL:
            raise MySQLError(1238, f"Variable '{var.name}' is a GLOBAL variable")
        if sc == "GLOBAL" and var.scope == sysvars.SESSION:
            raise MySQLError(1238, f"Variable '{var.name}' is a SESSION variable")
        if var.name in _DIAGNOSTICS_VARS:
            return _DIAGNOSTICS_VARS[var.name](self.diagnostics)
        if var.dynamic_value:
            return self.server.dynamic_sysvar(self, var.name, sc or None)
        if sc != "GLOBAL" and var.scope != sysvars.GLOBAL and var.name in self.session_vars:
            return sysvars.display(var, self.session_vars[var.name])
        return sysvars.display(var, self.server.globals.get(var.name))

    def sysvar_show_value(self, name: str, scope: str | None) -> str:
        """Value as SHOW [GLOBAL|SESSION] VARIABLES prints it."""
        var = sysvars.lookup(name)
        if var.name in _DIAGNOSTICS_VARS:
            return str(_DIAGNOSTICS_VARS[var.name](self.diagnostics))
        if var.dynamic_value:
            v = self.server.dynamic_sysvar(self, var.name, scope if var.scope == sysvars.BOTH else None)
            return "" if v is None else str(v)
        if scope != "GLOBAL" and var.scope != sysvars.GLOBAL and var.name in self.session_vars:
            return sysvars.show_text(var, self.session_vars[var.name])
        return sysvars.show_text(var, self.server.globals.get(var.name))


_USE_RE = re.compile(r"^\s*use\s+`?([^`;\s]+)`?", re.IGNORECASE)


def _use_target(text: str) -> str | None:
    m = _USE_RE.match(text)
    return m.group(1) if m else None


def now_us() -> int:
    """Microseconds since the epoch (commit timestamps)."""
    return time.time_ns() // 1000


def _show_conditions(session: Session, info: dict[str, Any], errors_only: bool) -> StatementResult:
    """SHOW WARNINGS / SHOW ERRORS [LIMIT [offset,] n]: Level, Code, Message (``sql/sql_error.cc``)."""
    from gtidkit.engine.results import CHARSET_BINARY, CHARSET_UTF8MB3, Column, ColumnFlag, FieldType
    from gtidkit.engine.sql.metadata import result_set

    rows = [c.as_tuple() for c in session.diagnostics.show(errors_only=errors_only, offset=info.get("off", 0),
                                                            limit=info.get("cnt"))]  # fmt: skip
    text, nn = FieldType.MYSQL_TYPE_VAR_STRING, int(ColumnFlag.NOT_NULL)
    cols = (
        Column("Level", type=text, charset=CHARSET_UTF8MB3, length=21, flags=nn),
        Column("Code", type=FieldType.MYSQL_TYPE_LONG, charset=CHARSET_BINARY, length=4,
               flags=int(ColumnFlag.NOT_NULL | ColumnFlag.UNSIGNED | ColumnFlag.NUM), decimals=0),
        Column("Message", type=text, charset=CHARSET_UTF8MB3, length=1536, flags=nn),
    )  # fmt: skip
    return result_set(["Level", "Code", "Message"], rows, cols)


def _show_count(session: Session, name: str) -> StatementResult:
    """SHOW COUNT(*) WARNINGS / ERRORS: one row, column ``@@session.warning_count`` / ``@@session.error_count``."""
    from gtidkit.engine.sql.metadata import result_set, sysvar_column

    value = _DIAGNOSTICS_VARS[name](session.diagnostics)
    col = f"@@session.{name}"
    return result_set([col], [(value,)], (sysvar_column(col, value, "uint"),))


_DIAGNOSTIC_SHOWS = {
    "warnings": lambda s, i: _show_conditions(s, i, False),
    "errors": lambda s, i: _show_conditions(s, i, True),
    "count_warnings": lambda s, i: _show_count(s, "warning_count"),
    "count_errors": lambda s, i: _show_count(s, "error_count"),
}

_DIAGNOSTICS_VARS = {
    "warning_count": lambda da: da.warning_count,
    "error_count": lambda da: da.error_count,
}


def _sysvar_kind(name: str) -> str | None:
    """The metadata kind of ``@@name`` (``bool``, ``uint``, ``int``, ``str``) for result-set columns."""
    try:
        var = sysvars.lookup(name)
    except MySQLError:
        return None
    if var.kind == sysvars.INT:
        return "uint" if var.minimum >= 0 else "int"
    return var.kind if var.kind == sysvars.BOOL else "str"


def _uses_tables(stmt: Any) -> bool:
    """Whether a statement names tables (MySQL clears the diagnostics area at the start of such statements)."""
    if stmt.kind in ("dml",):
        return True
    if stmt.kind == "ddl":
        return not _DB_DDL.match(stmt.text)
    if stmt.kind == "select":
        return bool(_FROM.search(stmt.text))
    return False


_DB_DDL = re.compile(r"^\s*(?:CREATE|DROP|ALTER)\s+(?:DATABASE|SCHEMA)\b", re.IGNORECASE)
_FROM = re.compile(r"\bFROM\s+(?!DUAL\b)", re.IGNORECASE)


__all__ = ["Session"]
