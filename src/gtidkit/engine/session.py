"""One client session (MySQL's THD): statement dispatch, results, SET, @@variables; GTID and transaction rules elsewhere.

Sources: MySQL ``sql/sql_parse.cc`` (``mysql_execute_command``), ``sql/rpl_gtid_execution.cc``
(``gtid_pre_statement_checks``), formats.md §8.2–8.3.

Where the logic lives: GTID_NEXT and ownership are the transition table of :mod:`gtidkit.engine.gtid.gtid_next`
(``self.gtid``); BEGIN / COMMIT / ROLLBACK / implicit commit and the per-statement GTID checks are
:mod:`gtidkit.engine.statements.transaction`; the commit path (write matrix, binlog, GTID table, GTID state) is
:mod:`gtidkit.engine.gtid.commit`; SET goes through the sysvar table's hooks (:func:`gtidkit.engine.sysvars.set_variable`).
Statements are classified once (:func:`gtidkit.engine.statements.classify.classify`); SELECT/DML/DDL/USE run in the
SQL layer's :class:`~gtidkit.engine.sql.executor.Executor`; SHOW of binlog/GTID state and the admin statements in
:mod:`gtidkit.engine.statements.admin`; results, diagnostics and session-state tracking in
:mod:`gtidkit.engine.results`, :mod:`gtidkit.engine.diagnostics` and :mod:`gtidkit.engine.tracking`.

Locking: a session holds the server's write lock from the first write of a transaction until its commit or
rollback (SQLite has one writer; this lock makes the wait FIFO-ish and lock-free at the SQLite level), so a
transaction's binlog write, GTID row and applied-position row are all in one serial section.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, ClassVar

from typing_extensions import Self

from gtidkit.engine import charsets, sysvars
from gtidkit.engine.binlog import statement_context as ctx
from gtidkit.engine.binlog.transaction_events import (
    session_binlog_format,
    statement_intvars,
    statement_rows,
    user_var_collation,
)
from gtidkit.engine.diagnostics import DiagnosticsArea
from gtidkit.engine.gtid.gtid_next import GtidNext
from gtidkit.engine.results import Condition, ServerStatus, StatementResult
from gtidkit.engine.sql.executor import PreparedPlan
from gtidkit.engine.sql.metadata import result_columns
from gtidkit.engine.sql.parse import (
    escape_backslashes,
    lexed_introducers,
    lexical_error,
    split_statements,
    strip_newer_version_comments,
    type_synonyms,
)
from gtidkit.engine.statements import (
    com_counters,
    innodb_status,
    prepared,
    set_parser,
    status,
    user_vars,
    variables,
)
from gtidkit.engine.statements import transaction as trx
from gtidkit.engine.statements.classify import classify
from gtidkit.engine.statements.dispatch import dispatch
from gtidkit.engine.statements.set_parser import Default, Expression, Keyword, SysVarRef, UserVarRef
from gtidkit.engine.statements.system_tables import replicated_changes
from gtidkit.engine.tracking import SessionTracker, StatementFacts
from gtidkit.errors import MySQLError
from gtidkit.gtid import Gtid, GtidSet
from gtidkit.mysql_errors import mysql_error

if TYPE_CHECKING:
    from gtidkit.engine.server import Server
    from gtidkit.engine.statements.access import Authorizer


class Session:
    """A session of :class:`~gtidkit.engine.server.Server` (create with ``server.session()``).

    Not thread-safe: use one session from one thread at a time (as a MySQL connection). Different sessions run
    concurrently from different threads.
    """

    #: The replica applier's commit origin (:class:`gtidkit.engine.apply.CommitOrigin`) while it applies a
    #: transaction; None for client sessions. The commit path reads it: log_replica_updates applies to the applier
    #: alone (gtidkit.engine.gtid.commit), which re-logs with the source's timestamps and server id.
    applier: Any = None
    #: COMMIT / ROLLBACK follow ``completion_type`` (False for the replica applier: its Xid events commit through
    #: ``trans_commit``, never SQLCOM_COMMIT's chain / release; gtidkit.engine.statements.transaction.completion)
    follows_completion_type: ClassVar[bool] = True
    #: a replication thread (the applier): ``read_only`` / ``super_read_only`` never stop its writes
    replication_thread: ClassVar[bool] = False

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
        # @@session.time_zone, however it was set (SET, the applier's Query status variables) or the global one
        self.executor.time_zone_source = lambda: str(self._session_value("time_zone"))
        self.executor.sql_mode_source = lambda: self._session_value("sql_mode")
        self.diagnostics = DiagnosticsArea()
        self.current_db: str | None = None
        self.session_vars: dict[str, Any] = {}
        self.user_vars: dict[str, Any] = {}
        # a new session starts from the GLOBAL AUTO_INCREMENT series (SET SESSION changes it: sysvars.py hooks)
        self.executor.auto_increment_increment = int(server.globals.get("auto_increment_increment"))
        self.executor.auto_increment_offset = int(server.globals.get("auto_increment_offset"))
        self.executor.user_variables = self.user_vars  # one store: SET @a is what SELECT @a reads
        self.executor.virtual_tables.update(variables.providers(self))  # performance_schema.*_variables
        self.executor.virtual_tables.update(status.providers(self))  # performance_schema.*_status
        # gtid_next and GTID ownership (the transition table of gtidkit.engine.gtid.gtid_next)
        self.gtid = GtidNext()
        #: gtid_purged rows saved through this session's open transaction (saved again if it rolls back)
        self.purged_in_trx = GtidSet()
        #: MySQL's thread stage while a statement waits (PROCESSLIST State / PROCESSLIST_STATE), "" otherwise
        self.stage = ""
        #: what the last account statement did (engine/accounts/statements.py ``Outcome``), for the wire server
        self.account_outcome: Any = None
        #: the session's account holds SUPER or CONNECTION_ADMIN, so ``read_only`` (not ``super_read_only``) lets
        #: it write; the wire server sets it before each statement, an embedded session acts as root
        self.read_only_exempt = True
        # transaction state
        self.explicit_trx = False
        #: the open explicit transaction is READ ONLY (MySQL's ``thd->tx_read_only``; writes fail with 1792)
        self.trx_read_only = False
        #: a one-shot ``SET TRANSACTION READ ONLY|READ WRITE`` for the next transaction (True / False), or None
        self.oneshot_read_only: bool | None = None
        self.holds_write_lock = False
        #: ``gtidkit_row_locks``: the transaction's queued rows, (table key, primary key) -> their table; their
        #: final state is in the shadow, applied at COMMIT (engine/statements/deferred.py)
        self.deferred: dict[tuple[int, int], Any] = {}
        #: its shadow connection (an in-memory SQLite database where deferred statements run), made on first use
        self.shadow: Any = None
        #: the engine write lock (main file: catalog, commit log, GTIDs, binary log) is held; with schema files a
        #: transaction that writes only them takes it at COMMIT (engine/schema_files.py)
        self.holds_main_lock = False
        self.row_changes: list[Any] = []
        self.row_statements: list[list[Any]] = []  # RowChanges per DML statement (ROW events)
        #: each DML statement as STATEMENT / MIXED format logs it (text, context events, updated schemas ...)
        self.statements: list[ctx.LoggedStatement] = []
        self.trx_dirty = False
        #: the open transaction changed temporary tables (not logged in ROW format, committed all the same)
        self.temp_dirty = False
        #: the client connection uses TLS (``thd->get_ssl()``; set by the wire server)
        self.secure_transport = False
        #: the open transaction's CREATE TABLE ... SELECT as ROW format logs it before its rows, or None
        self.ddl_binlog_text: str | None = None
        self.last_insert_id = 0
        self.closed = False
        self.tracker = SessionTracker()
        self.killed = False  # set by KILL CONNECTION
        #: COMMIT / ROLLBACK RELEASE (or completion_type=RELEASE) ended this session: also ``killed``, and closed
        #: once the statement's results are made
        self.released = False
        #: SQL PREPARE'd statements by lowercase name (engine/statements/prepared.py)
        self.sql_prepared: dict[str, Any] = {}
        #: the connection's TLS cipher and protocol version ("" on a plain connection): SHOW STATUS Ssl_cipher /
        #: Ssl_version (set by the wire server)
        self.tls_cipher = ""
        self.tls_version = ""
        #: statements the wire server holds prepared for this session (COM_STMT_PREPARE), for
        #: Prepared_stmt_count and max_prepared_stmt_count
        self.wire_prepared = 0
        #: this session's statement counters (Com_xxx, Questions, its statements' share of Queries), indexed by
        #: the slots of :mod:`gtidkit.engine.statements.com_counters`; added to the server's when it closes
        self.status_counts = com_counters.new_counters()
        #: FOUND_ROWS() after the running SELECT SQL_CALC_FOUND_ROWS (its count without LIMIT), else None
        self.calc_found_rows: int | None = None
        #: what BINLOG statements keep between statements (MySQL's ``rli_fake``:
        #: engine/statements/binlog_statement.py), None until the first one
        self.binlog_statement_state: Any = None

        #: the privilege check of the authenticated client (:class:`gtidkit.engine.statements.access.Authorizer`,
        #: set by the wire server at login); None: every statement may run (the engine's own sessions, the applier)
        self.authorizer: Authorizer | None = None
        #: LOAD DATA LOCAL's file request: ``reader(file_name) -> bytes`` asks the client for the file and returns
        #: what it sent (set by the wire server when the client offered CLIENT_LOCAL_FILES); None: 3948
        self.local_infile_reader: Callable[[str], bytes] | None = None
        #: the wire server's connection this session serves (set at login with :attr:`authorizer`), opaque to the
        #: engine: the handlers the wire server registered in the statement specs (KILL, SHUTDOWN, SHOW
        #: PROCESSLIST, the account statements) find it here; None: the engine's own handlers answer
        self.client: Any = None

    # ------------------------------------------------------------------ public
    def execute(self, sql: str, *, lexed: bool = False, split: bool = True) -> list[StatementResult]:
        """Run one or more ``;``-separated statements; one :class:`StatementResult` per statement, in order.
        ``split=False``: ``sql`` is one statement as :func:`~gtidkit.engine.sql.parse.split_statements` returned it
        (the wire server splits a COM_QUERY once).

        ``lexed``: ``sql`` is already in the engine's lexing (:meth:`lexed`: a prepared statement's text, a text
        with bound values), not a client's text read under the session's sql_mode.

        Statements run eagerly, one after the other, as mysqld runs a multi-statement COM_QUERY. Every result
        but the last carries SERVER_MORE_RESULTS_EXISTS in its status flags.

        Raises:
            MySQLError: MySQL's code, SQLSTATE and message for the first failing statement; the statements
                before it have taken effect and their results are on the error as ``err.results`` (a tuple of
                :class:`StatementResult`, empty when the first statement failed): a wire server sends them,
                then the ERR packet. Statements after the failing one are not run. 1065 ER_EMPTY_QUERY for
                text without a statement; 2006 after :meth:`close`.
        """
        if self.closed:
            raise mysql_error(2006)
        if self.server.crashed:  # binlog_error_action=ABORT_SERVER stopped the server
            raise mysql_error(2013)
        if self.killed:  # KILL CONNECTION from another session (statements/admin.py)
            self.close()
            raise mysql_error(2013)
        text = sql if lexed else self.lexed(sql)
        texts = split_statements(text) if split else [text]
        if not texts:
            raise mysql_error(1065)
        results: list[StatementResult] = []
        for i, text in enumerate(texts):
            try:
                stray = lexical_error(text)  # `?` / `:name` belong to prepared statements only
                if stray is not None:
                    self.diagnostics.begin_statement(diagnostic=False, uses_tables=False)
                    self.diagnostics.push(
                        Condition("Error", stray.code, stray.message), self._max_error_count()
                    )
                    raise stray
                results.append(self._execute_statement(text, more=i + 1 < len(texts)))
            except MySQLError as err:
                err.results = tuple(results)  # type: ignore[attr-defined]
                raise
            if self.killed:  # COMMIT RELEASE: mysqld runs no further statement of the text (thd->killed)
                break
        if self.released:
            self.close()  # mysqld ends the connection once the RELEASE statement's OK is out
        return results

    def prepare(self, sql: str) -> Any:
        """Prepare one statement: a :class:`gtidkit.engine.statements.prepared.PreparedStatement` (its
        ``param_count`` and result ``columns``) for :meth:`execute_prepared`.

        Raises:
            MySQLError: 1065 / 1064 / 1146 / 1054 ... as MySQL's PREPARE (the statement is checked now).
        """
        if self.closed:
            raise mysql_error(2006)
        try:
            stmt = prepared.prepare(self, self.lexed(sql))
            if self.authorizer is not None and stmt.kind in _CHECKED_WHEN_PREPARED:
                self._authorize_prepared(
                    stmt
                )  # MySQL checks a prepared statement's privileges at PREPARE too
        except BaseException:
            prepared.publish_prepared(self.server)  # the place check_prepared_limit reserved is free again
            raise
        return stmt

    def set_wire_prepared(self, count: int) -> None:
        """The wire server holds ``count`` COM_STMT_PREPARE statements for this session now (Prepared_stmt_count,
        max_prepared_stmt_count; published to the other workers of a multi-worker server)."""
        self.wire_prepared = count
        prepared.publish_prepared(self.server)

    def _authorize_prepared(self, stmt: Any) -> None:
        """The privilege check of a prepared SELECT / DML (its template), skipped when it passed for this statement
        under the same privileges (:meth:`Authorizer.state`) and default schema.

        Raises:
            MySQLError: the access error (1142, 1044, 1820 ...).
        """
        authorizer = self.authorizer
        assert authorizer is not None
        state = (authorizer.state(), self.current_db)
        shape = stmt.shape
        if shape.authorized == state:
            return
        authorizer.check(self, classify(stmt.template))
        shape.authorized = state

    def no_backslash_escapes(self) -> bool:
        """sql_mode has NO_BACKSLASH_ESCAPES: a backslash in a string literal is an ordinary character, and OK /
        EOF packets carry SERVER_STATUS_NO_BACKSLASH_ESCAPES (``sql_lex.cc``, ``mysql_com.h``)."""
        return "NO_BACKSLASH_ESCAPES" in str(self._session_value("sql_mode")).upper()

    def lexed(self, sql: str) -> str:
        """``sql`` as the engine parses it: under sql_mode NO_BACKSLASH_ESCAPES its string literals' backslashes
        doubled (:func:`~gtidkit.engine.sql.parse.escape_backslashes`), so they stay ordinary characters; a
        literal after a character set introducer written as the bytes the client sent
        (:func:`~gtidkit.engine.sql.parse.lexed_introducers`: ``_binary'..'`` -> ``_binary X'..'``); a version
        comment ``/*!NNNNN ... */`` above the presented release's version removed
        (:func:`~gtidkit.engine.sql.parse.strip_newer_version_comments`); else ``sql`` itself. Statement texts enter the engine through here once (:meth:`execute`, :meth:`prepare`)."""
        if "\\" in sql:
            mode = str(self._session_value("sql_mode")).upper()
            if "NO_BACKSLASH_ESCAPES" in mode:
                sql = escape_backslashes(sql, ansi_quotes="ANSI_QUOTES" in mode or "ANSI" in mode.split(","))
        if "_" in sql or not sql.isascii():
            client = str(self._session_value("character_set_client") or "utf8mb4")
            if "_" in sql:
                sql = lexed_introducers(sql, client)
            if client.lower() in ("utf8mb3", "utf8") and not sql.isascii():
                sql = _UTF8MB3_ILL_FORMED.sub(_as_sent_bytes, sql)
        if "REAL" in sql.upper():
            # REAL is FLOAT, not DOUBLE, under REAL_AS_FLOAT (RM8 "Server SQL Modes"; ANSI includes it)
            modes = str(self._session_value("sql_mode")).upper().split(",")
            if "REAL_AS_FLOAT" in modes or "ANSI" in modes:
                sql = type_synonyms(sql, real_as_float=True)
        if "/*!" in sql:
            major, minor, patch = self.server.release.number
            sql = strip_newer_version_comments(sql, major * 10000 + minor * 100 + patch)
        return sql

    def execute_prepared(self, stmt: Any, params: list[Any] | tuple[Any, ...]) -> list[StatementResult]:
        """Run a prepared statement with ``params`` (one Python value per placeholder, bound as typed values);
        one result, completed (status flags, session-state changes) exactly as :meth:`execute` completes it.

        Raises:
            MySQLError: 1210 for a wrong number of values; what the statement fails with (``err.results`` is
                empty).
        """
        if self.closed:
            raise mysql_error(2006)
        if self.authorizer is not None and stmt.kind in _CHECKED_WHEN_PREPARED:
            self._authorize_prepared(stmt)
        if (
            stmt.shape.fast_select
            and not self.server.table_locks.active
            and not self.deferred  # gtidkit_row_locks: dispatch applies the queue first (deferred.py)
            and (
                self.holds_main_lock or not self.holds_write_lock
            )  # else dispatch's guard_main_reads decides
        ):
            return [self._prepared_select(stmt, params)]
        bound = prepared.bound_statement(stmt, params)
        if isinstance(bound, str):
            if bound is stmt.text and stmt.shape.single_text:  # BEGIN, COMMIT ...: execute() of one statement
                if self.server.crashed:
                    raise mysql_error(2013)
                if self.killed:
                    self.close()
                    raise mysql_error(2013)
                try:
                    res = self._execute_statement(bound, more=False)
                except MySQLError as err:
                    err.results = ()  # type: ignore[attr-defined]
                    raise
                if self.released:
                    self.close()
                return [prepared.named_result(res)]
            return [prepared.named_result(r) for r in self.execute(bound, lexed=True)]
        if stmt.shape.fast_select is None:
            prepared.classify_fast_select(stmt, bound)
            stmt.shape.uses_tables = _uses_tables(bound)
        bound.info["hints"] = stmt.text  # its optimizer hints: the bound text has lost its comments
        try:
            results = [prepared.named_result(self._execute_statement(bound.text, more=False, stmt=bound))]
        except MySQLError as err:
            err.results = ()  # type: ignore[attr-defined]
            raise
        if self.released:
            self.close()  # a prepared COMMIT RELEASE ends the session as the text statement does
        return results

    def _prepared_select(self, prepared_stmt: Any, params: list[Any] | tuple[Any, ...]) -> StatementResult:
        """A prepared SELECT on the short path (``shape.fast_select``, no LOCK TABLES in force): what
        :meth:`_execute_statement` does for it, step for step, with what does not depend on the values kept with
        the statement (its plan, its result columns) and the session variables read once.

        Raises:
            MySQLError: what the statement fails with (``err.results`` is empty).
        """
        shape = prepared_stmt.shape
        counts = self.status_counts  # one statement, a SELECT (Com_select; Queries)
        counts[_COM_SELECT] += 1
        counts[_QUERIES] += 1
        values = prepared.fast_select_values(prepared_stmt, params)
        server = self.server
        sv = self.session_vars
        gv = server.globals.values
        self.diagnostics.begin_plain_statement(shape.uses_tables)
        tracker = self.tracker  # started at the end (end_select): a SELECT commits nothing in between
        executor = self.executor
        current_db = self.current_db
        general = None
        # max_execution_time and /*+ MAX_EXECUTION_TIME(ms) */ as for a text SELECT (3024): the hint read once with
        # the statement (its text keeps the comments), the session's variables at each execution
        timeout_ms = shape.hint_ms
        if timeout_ms is None:
            timeout_ms = sv["max_execution_time"] if "max_execution_time" in sv else gv["max_execution_time"]
        cte_limit = (
            sv["cte_max_recursion_depth"]
            if "cte_max_recursion_depth" in sv
            else gv["cte_max_recursion_depth"]
        )
        try:
            slot = shape.plan
            got = None
            if slot is not None:  # None: its plan is not for this schema, catalog ... (prepared_plan decides)
                got = executor.run_prepared_select(slot, values, current_db, timeout_ms, cte_limit)
            if got is None:
                if slot is None:
                    slot = shape.plan = PreparedPlan()
                stmt = prepared.bound_statement(prepared_stmt, params)
                assert not isinstance(stmt, str)  # a SELECT with parameters is bound, never written out
                executor.prepared_plan(stmt, slot, current_db)
                if not slot.simple:  # planned as a constant or reading variables: the general path
                    general = stmt
                else:
                    got = executor.run_prepared_select(slot, values, current_db, timeout_ms, cte_limit)
                    assert got is not None  # planned just now
            if general is None:
                assert got is not None
                names, rows, meta, warnings = got
        except MySQLError as err:
            self.diagnostics.push(Condition("Error", err.code, err.message), self._max_error_count())
            tracker.statement_failed()
            executor.row_count = -1
            self.calc_found_rows = None
            err.results = ()  # type: ignore[attr-defined]
            raise
        if general is not None:
            return self._prepared_general(prepared_stmt, general)
        columns = slot.columns
        if columns is None:
            columns = prepared.named_columns(result_columns(names, rows, meta))
            if meta is not None and None not in meta and meta is slot.plan.metadata:
                slot.columns = columns  # known at planning time: the same for every execution
        # note_result for a result set
        executor.row_count = -1
        calc, self.calc_found_rows = self.calc_found_rows, None
        executor.found_rows = len(rows) if calc is None else calc
        conditions: tuple[Condition, ...] = ()
        if warnings:
            conditions = tuple(Condition(*w) for w in warnings)
            max_errors = self._max_error_count()
            notes = bool(self._session_value("sql_notes"))
            for w in conditions:
                if notes or w.level != "Note":
                    self.diagnostics.push(w, max_errors)
        explicit = self.explicit_trx
        autocommit = bool(sv["autocommit"] if "autocommit" in sv else gv["autocommit"])
        changes = tracker.end_select(
            str(sv["session_track_gtids"] if "session_track_gtids" in sv else gv["session_track_gtids"]),
            bool(
                sv["session_track_state_change"]
                if "session_track_state_change" in sv
                else gv["session_track_state_change"]
            ),
            str(
                sv["session_track_transaction_info"]
                if "session_track_transaction_info" in sv
                else gv["session_track_transaction_info"]
            ),
            shape.classified[1],
            shape.uses_tables,
            autocommit,
            explicit,
            server.gtid_state.executed,
        )
        flags = _SESSION_STATE_CHANGED if changes else 0
        if explicit or self.holds_write_lock or tracker.transaction_active:
            flags |= _IN_TRANS
            if tracker.read_only_transaction or (explicit and self.trx_read_only):
                flags |= _IN_TRANS_READONLY
        if autocommit:
            flags |= _AUTOCOMMIT
        mode = sv["sql_mode"] if "sql_mode" in sv else gv["sql_mode"]
        no_backslash = _NO_BACKSLASH_IN.get(mode)
        if no_backslash is None:  # a sql_mode value not met yet: its answer kept (a few values come back)
            no_backslash = "NO_BACKSLASH_ESCAPES" in str(mode).upper()
            if len(_NO_BACKSLASH_IN) >= 64:
                _NO_BACKSLASH_IN.clear()
            _NO_BACKSLASH_IN[mode] = no_backslash
        if no_backslash:
            flags |= _NO_BACKSLASH_ESCAPES
        # rows is a list of tuples: sqlite3's fetchall without a row_factory, or the executor's conversions
        return StatementResult.result_set(
            columns, rows, min(self.diagnostics.statement_count, 0xFFFF), flags, changes, conditions
        )

    def _prepared_general(self, prepared_stmt: Any, stmt: Any) -> StatementResult:
        """A prepared SELECT the short path cannot run after all: the general path, from the diagnostics area on.
        ``prepared_stmt.shape.fast_select`` is switched off (its plan is a constant or reads variables)."""
        prepared_stmt.shape.fast_select = False
        stmt.info["hints"] = prepared_stmt.text
        try:
            return prepared.named_result(
                self._execute_statement(stmt.text, more=False, stmt=stmt, counted=True)
            )
        except MySQLError as err:
            err.results = ()  # type: ignore[attr-defined]
            raise

    def _execute_statement(
        self, text: str, *, more: bool, stmt: Any = None, counted: bool = False
    ) -> StatementResult:
        """Run one statement and complete its result: diagnostics area, warning count, status flags.
        ``counted``: its Com_ counter and Queries were counted already (a prepared SELECT the short path gave
        up on)."""
        counts = self.status_counts
        if stmt is None:
            stmt = classify(text)
            # Com_xxx counts a statement that parsed, before its privilege check (mysql_execute_command)
            counts[_QUERIES] += 1
            slot = com_counters.slot_of(stmt)
            if slot is not None:
                counts[slot] += 1
            if stmt.kind == "prepared":  # PREPARE / EXECUTE / DEALLOCATE count Com_stmt_* too
                counts[_SQL_PREPARED_ALSO[stmt.info["command"]]] += 1
            if self.authorizer is not None:  # privileges before anything of the statement happens
                self.authorizer.check(self, stmt)
            if stmt.kind == "prepared" and stmt.info["command"] == "execute":
                bound = prepared.sql_execute(self, stmt)  # EXECUTE runs as the statement it names
                stmt = classify(bound) if isinstance(bound, str) else bound
                slot = com_counters.slot_of(stmt)  # ... and counts as it (Prepared_statement::execute)
                if slot is not None:
                    counts[slot] += 1
        elif not counted:  # a prepared statement's execution (COM_STMT_EXECUTE): counted as what it is
            counts[_QUERIES] += 1
            slot = com_counters.slot_of(stmt)
            if slot is not None:
                counts[slot] += 1
        kind = stmt.kind
        if kind == "select":
            self.executor.note_hints(
                stmt.info.get("hints", text),
                int(self._session_value("max_execution_time")),
                int(self._session_value("cte_max_recursion_depth")),
            )
        command = stmt.info.get("command")
        uses_tables = _uses_tables(stmt)
        spec = self.server.statements.of(stmt)  # its row of the statement specs: looked up once
        self.diagnostics.begin_statement(diagnostic=spec.diagnostic, uses_tables=uses_tables)
        assignments = stmt.assignments if kind == "set" else ()
        db_before = self.current_db
        sv = self.session_vars
        gv = self.server.globals.values
        # the limit in force when the statement started (a SET may change it); read later for other statements,
        # which cannot, and only when a condition is recorded
        max_errors = (
            int(sv["max_error_count"] if "max_error_count" in sv else gv["max_error_count"])
            if assignments
            else -1
        )
        tracker = self.tracker
        self._begin_tracking(sv, gv)
        try:
            if assignments:
                tracker.check_set_transaction(assignments, self.in_transaction())
            res = dispatch(self, stmt, spec)
        except MySQLError as err:
            if max_errors < 0:
                max_errors = self._max_error_count()
            self.diagnostics.push(Condition("Error", err.code, err.message), max_errors)
            tracker.statement_failed()
            self.executor.row_count = -1  # a failed statement: ROW_COUNT() -1
            self.calc_found_rows = None
            raise
        self.note_result(res, select=kind == "select")
        if res.warnings:
            if max_errors < 0:
                max_errors = self._max_error_count()
            # sql_notes=0: notes are not recorded (RM8.4 sql_notes)
            notes = bool(self._session_value("sql_notes"))
            for w in res.warnings:
                if notes or w.level != "Note":
                    self.diagnostics.push(w, max_errors)
        # the values after the statement (a SET may have changed them)
        sv = self.session_vars
        autocommit = bool(sv["autocommit"] if "autocommit" in sv else gv["autocommit"])
        explicit = self.explicit_trx
        if kind != "set" and kind != "use":  # only the GTID and transaction trackers can report
            changes = tracker.end_plain_statement(
                kind,
                stmt.text,
                command,
                uses_tables,
                res.columns is not None,
                autocommit,
                explicit,
                str(
                    sv["session_track_transaction_info"]
                    if "session_track_transaction_info" in sv
                    else gv["session_track_transaction_info"]
                ),
                self.server.gtid_state.executed,
            )
        else:
            changes = tracker.end_statement(self._statement_facts(stmt, uses_tables, res, assignments))
        flags = _SESSION_STATE_CHANGED if changes else 0  # plain ints: IntFlag arithmetic is slow here
        if explicit or self.holds_write_lock or tracker.transaction_active:
            flags |= _IN_TRANS
            if tracker.read_only_transaction or (explicit and self.trx_read_only):
                flags |= _IN_TRANS_READONLY
        if db_before is not None and self.current_db is None and kind == "ddl":
            flags |= _DB_DROPPED
        if autocommit:
            flags |= _AUTOCOMMIT
        mode = sv["sql_mode"] if "sql_mode" in sv else gv["sql_mode"]
        no_backslash = _NO_BACKSLASH_IN.get(mode)
        if (
            no_backslash is None
        ):  # a sql_mode value not met yet: its answer kept (as _prepared_select keeps it)
            no_backslash = "NO_BACKSLASH_ESCAPES" in str(mode).upper()
            if len(_NO_BACKSLASH_IN) >= 64:
                _NO_BACKSLASH_IN.clear()
            _NO_BACKSLASH_IN[mode] = no_backslash
        if no_backslash:
            flags |= _NO_BACKSLASH_ESCAPES
        if more:
            flags |= _MORE_RESULTS_EXISTS
        return res.completed(min(self.diagnostics.statement_count, 0xFFFF), flags, changes)

    def _begin_tracking(self, sv: dict[str, Any], gv: dict[str, Any]) -> str:
        """Start the session-state trackers for a statement with the session values ``sv`` (else the global ones
        ``gv``) of session_track_gtids / _state_change / _transaction_info (WL#6972); returns the last one's
        value. Reads the dictionaries inline: this runs for every statement."""
        track_trx_info = str(
            sv["session_track_transaction_info"]
            if "session_track_transaction_info" in sv
            else gv["session_track_transaction_info"]
        )
        self.tracker.begin_statement(
            track_gtids=str(
                sv["session_track_gtids"] if "session_track_gtids" in sv else gv["session_track_gtids"]
            ),
            track_state_change=bool(
                sv["session_track_state_change"]
                if "session_track_state_change" in sv
                else gv["session_track_state_change"]
            ),
            track_trx_info=track_trx_info,
        )
        return track_trx_info

    def session_value(self, name: str) -> Any:
        """The session value of the variable called ``name`` (its canonical name), else the global one."""
        return self._session_value(name)

    def _session_value(self, name: str) -> Any:
        """The session value of the variable called ``name`` (its canonical name), else the global one."""
        sv = self.session_vars
        return sv[name] if name in sv else self.server.globals.values[name]

    def _statement_facts(
        self, stmt: Any, uses_tables: bool, res: StatementResult, assignments: Any
    ) -> StatementFacts:
        """What the session-state trackers need to know about a statement that succeeded."""
        value = self._session_value
        return StatementFacts(
            kind=str(stmt.kind),
            text=stmt.text,
            command=stmt.info.get("command"),
            uses_tables=uses_tables,
            result_set=res.columns is not None,
            assignments=assignments,
            autocommit=self.autocommit(),
            explicit_trx=self.explicit_trx,
            current_db=self.current_db,
            track_gtids=str(value("session_track_gtids")),
            track_schema=bool(value("session_track_schema")),
            track_state_change=bool(value("session_track_state_change")),
            track_sysvars=str(value("session_track_system_variables")),
            track_trx_info=str(value("session_track_transaction_info")),
            sysvar_text=self._sysvar_text,
            gtid_executed=self.server.gtid_state.executed,
        )

    def _sysvar_text(self, name: str) -> str:
        """A variable's session value as SHOW VARIABLES prints it (for the system-variables tracker)."""
        return self.sysvar_show_value(name, None)

    def _max_error_count(self) -> int:
        return int(self._session_value("max_error_count"))

    def drop_temporary_tables(self) -> None:
        """Drop every temporary table of this session (COM_RESET_CONNECTION; a closing connection drops them with
        its SQLite connection)."""
        from gtidkit.engine.sql import temporary

        for key in list(self.executor.temp_tables):
            temporary.drop_one(self.executor, key)

    def close(self) -> None:
        """Roll back any open transaction, release owned GTIDs and close the connection."""
        if self.closed:
            return
        try:
            trx.rollback(self)
        finally:
            self.server.table_locks.unlock(self.id)
            self.closed = True
            self.conn.close(bound=frozenset(self.executor.registered_names()))
            self.server.forget_session(self)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def note_result(self, res: StatementResult, *, select: bool = False) -> None:
        """Remember what ROW_COUNT() and FOUND_ROWS() report after a statement that returned ``res``: my_ok()
        stores the affected rows and my_eof() (a result set) -1 (sql_class.h); FOUND_ROWS() is the rows a SELECT
        sent, or its count without LIMIT under SQL_CALC_FOUND_ROWS (RM8 "Information Functions").

        The wire server calls it for the statements it answers itself (SHOW GRANTS, KILL, SHUTDOWN ...).
        """
        executor = self.executor
        if res.columns is None:
            executor.row_count = res.affected_rows
            return
        executor.row_count = -1
        if select:
            calc, self.calc_found_rows = self.calc_found_rows, None
            executor.found_rows = len(res.rows) if calc is None else calc

    def set_account(self, user: str, host: str, priv_user: str, priv_host: str) -> None:
        """Who this session is, as the wire server authenticated it (MySQL's Security_context).

        Args:
            user: the user name the client sent; ``host``: the client's host (``localhost`` for loopback).
                USER(), SESSION_USER() and SYSTEM_USER() return ``user@host``.
            priv_user: the matched account's user; ``priv_host``: its host pattern (``%``, ``localhost``).
                CURRENT_USER() returns ``priv_user@priv_host``.

        Source: RM8 "Information Functions" (USER(), CURRENT_USER()); ``Item_func_user::val_str``.
        """
        self.executor.user = f"{user}@{host}"
        self.executor.current_user = f"{priv_user}@{priv_host}"

    def named_tables(self, stmt: Any) -> tuple[tuple[str, str], ...]:
        """``(database, table)`` of every table the classified ``stmt`` names, unqualified ones in the default
        schema (:meth:`gtidkit.engine.sql.executor.Executor.named_tables`: kept with the statement's plan key, so a
        statement of a shape seen before is not parsed for it)."""
        return self.executor.named_tables(stmt, self.current_db)

    # ------------------------------------------------------------------ dispatch
    def run_sql(self, stmt: Any, *, writes: bool) -> StatementResult:
        """Run a classified statement in the SQL layer; ``writes`` records its row changes into the transaction
        (binlog events, writeset, Intvar events) and consumes a pending SET INSERT_ID."""
        prev_last_insert_id = self.executor.last_insert_id
        unsafe: tuple[tuple[str, int, str], ...] = ()
        fmt = session_binlog_format(self.server, self) if writes and stmt.kind == "dml" else "ROW"
        traits = seeds = read_vars = None
        if fmt != "ROW":  # the session state the statement reads, before it runs (statement_context)
            traits = ctx.statement_traits(stmt.text)
            seeds = self.executor.rand.seeds if traits.rand_used else None
            if traits.user_vars:
                read_vars = [(n, self.user_vars.get(n)) for n in traits.user_vars]
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
        if writes and changes:
            kept = replicated_changes(changes)
            if len(kept) != len(changes):
                # mysql.gtid_executed & co (no_replicate): committed with the transaction, never logged; a
                # statement changing only them is not logged at all (no GTID of its own)
                self.temp_dirty = True
                writes = bool(kept)
            changes = kept
        if writes and self.executor.temp_tables:
            writes = self._log_temporary(stmt, changes)
        if writes:
            if er.binlog_ddl is not None:  # CREATE TABLE ... SELECT (engine/binlog/transaction_events.py)
                self.ddl_binlog_text = er.binlog_ddl
            self.row_changes.extend(changes)
            if changes:
                innodb_status.count_rows(self.server, changes)  # SHOW ENGINE INNODB STATUS's ROW OPERATIONS
            if changes:
                text = stmt.info.get("bound_text", stmt.text)  # a prepared statement: with its values
                # the same list object goes into the statement's ctx.LoggedStatement below (MIXED matches them by id)
                changes = statement_rows(self.server, self, changes, text)
                self.row_statements.append(changes)
            if stmt.kind == "dml":
                insert_id = int(getattr(er, "insert_id", 0) or 0)
                sql = stmt.text
                calls = _CALLS_LAST_INSERT_ID.get(sql)
                if calls is None:  # its LAST_INSERT_ID() call is what makes an event without an insert id
                    calls = bool(statement_intvars(sql, 0, 0))
                    if len(sql) <= _MEMO_TEXT_MAX:  # a restore's multi-megabyte INSERTs are not kept
                        if len(_CALLS_LAST_INSERT_ID) >= 4096:
                            _CALLS_LAST_INSERT_ID.clear()
                        _CALLS_LAST_INSERT_ID[sql] = calls
                intvars: tuple[Any, ...] = (
                    statement_intvars(sql, prev_last_insert_id, insert_id) if calls or insert_id else ()
                )
                updated = (
                    (changes[0].schema,)
                    if len(changes) == 1
                    else tuple(dict.fromkeys(ch.schema for ch in changes))
                )
                # a prepared statement: the text with its values
                text = stmt.info.get("bound_text", sql)
                # the zone it ran in, for the Query event's Q_TIME_ZONE_CODE
                zone = self.executor.time_zone().name
                as_rows = False
                if traits is not None:
                    if seeds is not None:
                        intvars = (*intvars, ctx.rand_event(seeds))
                    if read_vars:
                        coll = user_var_collation(self)
                        intvars = (*intvars, *(ctx.user_var_event(n, v, coll) for n, v in read_vars))
                    reasons = ctx.unsafe_reasons(sql, self.server.storage.catalog, self.current_db)
                    if fmt == "MIXED":
                        as_rows = bool(reasons)
                    elif reasons and self._logs_statements():  # THD::issue_unsafe_warnings: a note per reason
                        unsafe = tuple(ctx.unsafe_note(r) for r in reasons)
                self.statements.append(
                    ctx.LoggedStatement(self.current_db or "", text, intvars, updated, zone, changes, as_rows)
                )
                if changes or er.affected_rows:
                    self.trx_dirty = True
        if er.last_insert_id:
            self.last_insert_id = er.last_insert_id
        affected = int(er.affected_rows or 0)
        columns = None
        rows: list[tuple[Any, ...]] = []
        if er.columns:
            rows = er.rows or []
            if type(rows) is not list or (rows and set(map(type, rows)) != _TUPLE_ONLY):  # C-speed check
                rows = [r if type(r) is tuple else tuple(r) for r in rows]
            columns = result_columns(er.columns, rows, er.metadata)
        return StatementResult(
            columns=columns,
            rows=rows,
            affected_rows=affected,
            matched_rows=affected if er.matched_rows is None else int(er.matched_rows),
            last_insert_id=int(er.last_insert_id or 0),
            info=er.info or "",
            warnings=tuple(Condition(*w) for w in (*(er.warnings or ()), *unsafe))
            if er.warnings or unsafe
            else (),
        )

    def _logs_statements(self) -> bool:
        """This session's statements reach the binary log (it is open and ``sql_log_bin`` is on)."""
        return self.server.binlog is not None and bool(self.session_vars.get("sql_log_bin", True))

    def _log_temporary(self, stmt: Any, changes: list[Any]) -> bool:
        """Drop the row changes of temporary tables from ``changes`` (ROW / MIXED format never logs them); False
        when nothing of the statement is to be logged (it changed temporary tables only)."""
        from gtidkit.engine.binlog.transaction_events import session_binlog_format

        if session_binlog_format(self.server, self) == "STATEMENT":
            return True
        temp = self.executor.temp_tables
        kept = [c for c in changes if (c.schema, c.table) not in temp]
        if len(kept) != len(changes):
            self.temp_dirty = True  # committed with the transaction even when nothing else is
            changes[:] = kept
            return bool(kept)
        return True

    # ------------------------------------------------------------------ transactions
    def autocommit(self) -> bool:
        """@@SESSION.autocommit."""
        return bool(self.session_vars.get("autocommit", self.server.globals.values["autocommit"]))

    def in_transaction(self) -> bool:
        """True inside BEGIN ... COMMIT, or with autocommit=0 after a write (MySQL's ``in_active_multi_stmt``)."""
        return self.explicit_trx or self.holds_write_lock

    def next_read_only(self) -> bool:
        """The access mode the next transaction starts with: a one-shot ``SET TRANSACTION`` one, else
        ``@@SESSION.transaction_read_only``."""
        if self.oneshot_read_only is not None:
            return self.oneshot_read_only
        return bool(self._session_value("transaction_read_only"))

    def reset_one_shot_characteristics(self) -> None:
        """Forget a one-shot ``SET TRANSACTION`` (``trans_reset_one_shot_chistics``: a transaction ended unchained)."""
        self.oneshot_read_only = None

    def has_changes(self) -> bool:
        """True when the open transaction changed rows (something to binlog)."""
        return bool(self.trx_dirty or self.row_changes)

    def interrupt(self) -> None:
        """KILL QUERY from another thread: the running statement stops (a SLEEP() returns 1, a
        WAIT_FOR_EXECUTED_GTID_SET fails with 1317, anything else with 1317 at its next progress check)."""
        self.executor.interrupt.set()
        self.server.gtid_state.wake_waiters()
        self.server.wake_shared_waiter(self.id)

    def interrupted(self) -> bool:
        """Whether KILL [QUERY] reached this session (its running statement must stop with 1317)."""
        return self.killed or self.executor.interrupt.is_set()

    def count_command(self, command: str) -> None:
        """A client command arrived for this session: bump its Com_ counter, Questions and Queries as
        :data:`~gtidkit.engine.statements.com_counters.COMMAND_COUNTERS` says (``dispatch_command``).

        Args:
            command: ``"query"``, ``"ping"``, ``"stmt_execute"`` ... (a key of ``COMMAND_COUNTERS``).

        Raises:
            KeyError: an unknown command name.
        """
        counts = self.status_counts
        # its Com_ counter, Questions, and its query id (Queries) unless a statement takes its own
        for slot in com_counters.COMMAND_SLOTS[command]:
            counts[slot] += 1

    @property
    def owned_gtid(self) -> Gtid | None:
        """The GTID this session owns (``SET gtid_next='uuid:n'``), or None."""
        return self.gtid.owned_gtid

    def gtid_next_text(self) -> str:
        """``@@SESSION.gtid_next`` as MySQL shows it."""
        return self.gtid.text()

    def ensure_write_trx(self, *, files_only: bool = False) -> None:
        """Open the storage transaction once per transaction, and take the engine write lock unless the
        statement writes schema files only.

        Args:
            files_only: the statement reads and writes tables of schemas that have their own SQLite file only
                (``gtidkit_file_per_schema``, :func:`gtidkit.engine.statements.transaction.writes_files_only`):
                the transaction takes each file's write lock at its first write to it (waiting up to
                innodb_lock_wait_timeout for another writer of that file) and the engine write lock at COMMIT
                (a later statement that writes anything else takes it then), so writers of different schemas do
                not wait for each other (docs/design/multi_worker.md §5.5).

        Raises:
            MySQLError: 1205 after innodb_lock_wait_timeout seconds waiting for the write lock.
        """
        if self.holds_write_lock:
            if not files_only and not self.holds_main_lock:
                self._take_main_lock()
            return
        if not files_only:
            self._take_main_lock()
        self.holds_write_lock = True
        try:
            conn = self.conn
            conn.sync_attachments()
            if conn.attached:  # a wait for another writer of a schema file is SQLite's busy wait
                conn.set_busy_timeout(int(self.lock_wait_timeout()) * 1000)
            conn.begin(defer_sync=self._defers_sync())
        except BaseException:
            self.holds_write_lock = False
            self._drop_main_lock()
            raise
        if not self.autocommit():
            self.explicit_trx = True

    def lock_schema_files(self, schemas: Iterable[str]) -> None:
        """Take the write locks of the files of ``schemas`` now (a statement about to write them; schemas in the
        main file are skipped): a wait for another writer of a file ends with 1205 after innodb_lock_wait_timeout,
        and when another worker process wrote one of them since this one did, the cached AUTO_INCREMENT counters
        restart at MAX(col)+1 (engine/schema_files.py).

        Raises:
            MySQLError: 1205 ER_LOCK_WAIT_TIMEOUT; 1213 ER_LOCK_DEADLOCK (a cycle of waits in this process, or a
                file this transaction read before another transaction committed to it); 1317 after KILL [QUERY].
        """
        killed = lambda: self.killed or self.executor.interrupt.is_set()  # KILL [QUERY] ends the wait
        self.conn.owner_id = self.id  # its waits and locks in the deadlock detector's graph
        if self.conn.lock_files(schemas, timeout=float(self.lock_wait_timeout()), killed=killed):
            self.server.storage.catalog.forget_auto_increments()

    def record_file_redo(self) -> None:
        """At COMMIT, engine write lock held: the redo row of the schema files this transaction locked, with its
        row changes of their tables (engine/schema_files.py ``record_redo``: crash atomicity across files)."""
        conn = self.conn
        if not conn.locked_files:
            return
        storage = self.server.storage
        temp = self.executor.temp_tables
        conn.record_redo(
            [c for c in self.row_changes if (c.schema, c.table) not in temp and storage.has_file(c.schema)]
        )

    def _take_main_lock(self) -> None:
        """The engine write lock, with the session's innodb_lock_wait_timeout (SET SESSION applies to its next
        wait, as in InnoDB)."""
        self.server.acquire_write_lock(self, timeout=float(self.lock_wait_timeout()))
        self.holds_main_lock = True

    def _drop_main_lock(self) -> None:
        """Release the engine write lock if this session holds it."""
        if self.holds_main_lock:
            self.holds_main_lock = False
            self.server.release_write_lock(self)

    def _defers_sync(self) -> bool:
        """This session's transactions go to the binary log: the commit path fsyncs their WAL itself, in its sync
        stage after the COMMIT (:mod:`gtidkit.engine.gtid.commit`, ``binlog_error_action`` on failure). Client
        sessions only: the replica applier's transactions keep the fsync inside COMMIT."""
        return (
            self.server.binlog is not None
            and self.applier is None
            and type(self).applier is Session.applier  # never an applier session, even between transactions
            and bool(self.session_vars.get("sql_log_bin", True))
        )

    def implicit_commit(self) -> None:
        """Commit the open transaction, if any (``trans_commit_implicit``)."""
        trx.implicit_commit(self)

    # ------------------------------------------------------------------ typed transaction operations
    def begin_transaction(self) -> None:
        """BEGIN without a statement (the replica applier's Query BEGIN event): nothing is split, classified or
        tracked (:func:`gtidkit.engine.statements.transaction.begin_transaction`).

        Raises:
            MySQLError: 2006 after :meth:`close`; 2013 when the server crashed or the session was killed; 1778
                while a transaction with gtid_next=UUID:NUMBER is open.
        """
        self._check_usable()
        trx.begin_transaction(self)

    def commit_transaction(self) -> None:
        """COMMIT without a statement (an Xid or COMMIT Query event, an autocommitted BINLOG statement's end):
        ``trans_commit``, no chain nor release (:func:`gtidkit.engine.statements.transaction.commit_transaction`).

        Raises:
            MySQLError: 2006 / 2013 as :meth:`begin_transaction`; what the commit path raises.
        """
        self._check_usable()
        trx.commit_transaction(self)

    def rollback_transaction(self) -> None:
        """ROLLBACK without a statement (a ROLLBACK Query event): the transaction discarded, what it owned
        released (:func:`gtidkit.engine.statements.transaction.rollback_transaction`).

        Raises:
            MySQLError: 2006 / 2013 as :meth:`begin_transaction`.
        """
        self._check_usable()
        trx.rollback_transaction(self)

    def end_gtid_transaction(self) -> bool:
        """``gtid_end_transaction``: commit the open transaction, else an owned GTID as an empty transaction,
        release ANONYMOUS, end a skipped GTID (:func:`gtidkit.engine.statements.transaction.end_gtid_transaction`).

        Returns:
            True when something ended.

        Raises:
            MySQLError: 2006 / 2013 as :meth:`begin_transaction`; what the commit path raises.
        """
        self._check_usable()
        return trx.end_gtid_transaction(self)

    def _check_usable(self) -> None:
        """What :meth:`execute` checks before any statement: closed (2006), crashed server or killed (2013)."""
        if self.closed:
            raise mysql_error(2006)
        if self.server.crashed:
            raise mysql_error(2013)
        if self.killed:
            self.close()
            raise mysql_error(2013)

    def release_after_rollback(self) -> None:
        """Roll back the storage transaction (if open), forget its changes and drop the write lock."""
        try:
            if self.conn.in_transaction:
                self.conn.rollback()
                self.executor.after_rollback()
        finally:
            self._reset_trx_state()
            self.holds_write_lock = False
            self._drop_main_lock()

    def _reset_trx_state(self) -> None:
        if self.deferred:
            self.deferred.clear()
        if self.shadow is not None:  # the rows the transaction's deferred statements loaded (deferred.py)
            self.shadow.end()
        locks = self.server.row_locks
        if locks is not None:  # the transaction's row and table locks (engine/shared/row_locks.py)
            locks.release_all(self.id)
        self.row_changes = []
        self.row_statements = []
        self.statements = []
        self.trx_dirty = False
        self.temp_dirty = False
        self.ddl_binlog_text = None

    def release_after_commit(self) -> None:
        """Called once the storage transaction is committed: forget its changes, drop the write lock."""
        self._reset_trx_state()
        self.holds_write_lock = False
        self.explicit_trx = False
        self.purged_in_trx = GtidSet()
        self._drop_main_lock()

    # ------------------------------------------------------------------ SET
    def run_set(self, text: str, assignments: tuple[Any, ...] | None = None) -> StatementResult:
        """SET: user variables, SET NAMES, SET TRANSACTION, system variables (through the sysvar table's hooks).
        ``assignments``: ``parse_set(text)`` when the caller has parsed it already."""
        warnings: list[sysvars.Warning_] = []
        m = _SET_GTID_NEXT.match(text)
        if m is not None:
            # the replica-style "SET gtid_next='...'" before every transaction: skip the general SET parser
            sysvars.set_variable(self, "gtid_next", None, m.group(1), is_default=False, warnings=warnings)
            return StatementResult()
        for a in set_parser.parse_set(text) if assignments is None else assignments:
            if a.kind == "user":
                self.user_vars[a.name] = user_vars.value_of(self, a)
            elif a.kind == "names":
                self._set_names(str(a.value), _NAMES_COLLATE.search(a.text))
            elif a.kind == "transaction":
                self._set_transaction(a.scope, str(a.value))
            else:
                self._set_sysvar(a.name, a.scope, a.value, warnings)
        return StatementResult(warnings=tuple(Condition(*w.as_tuple()) for w in warnings))

    def _set_names(self, name: str, collate: re.Match[str] | None = None) -> None:
        """``SET NAMES cs [COLLATE coll]`` / ``SET CHARACTER SET cs``: character_set_client, _connection and _results
        become the set's canonical name and collation_connection ``coll``, else the set's default collation (RM 8.4
        "Connection Character Sets and Collations"; ``DEFAULT`` is the server's character_set_server).

        Raises:
            MySQLError: 1115 an unknown set; 1231 a set no client may use (ucs2, utf16, utf16le, utf32); 1273 an
                unknown collation; 1253 a collation of another set.
        """
        if name.upper() == "DEFAULT":
            name = str(self.server.globals.values.get("character_set_server", "utf8mb4"))
        cs = charsets.lookup(name)
        if not cs.client_ok:
            raise mysql_error(1231, "character_set_client", name)
        collation = cs.default_collation
        if collate is not None:
            collation = collate.group(1).strip("'\"`").lower()
            if collation.startswith("utf8_"):
                collation = "utf8mb3_" + collation[5:]
            own = charsets.collation_set(collation)
            if own is None:
                raise mysql_error(1273, collate.group(1).strip("'\"`"))
            if own.name != cs.name:
                raise mysql_error(1253, collation, cs.name)
        for n in ("character_set_client", "character_set_connection", "character_set_results"):
            self.session_vars[n] = cs.name
        self.session_vars["collation_connection"] = collation

    def _set_transaction(self, scope: str | None, text: str) -> None:
        """``SET [GLOBAL|SESSION] TRANSACTION ...``: the access mode (no scope: the next transaction only). The
        isolation level is accepted and not kept (SQLite serialises writers; the trackers report it)."""
        access = _ACCESS_MODE.search(text)
        if access is None:
            return
        read_only = access.group(1).upper() == "ONLY"
        if scope is None:
            self.oneshot_read_only = read_only
        elif scope.upper() == "GLOBAL":
            self.server.globals.set("transaction_read_only", read_only)
            if self.server.shared_config is not None:  # the other worker processes' sessions too
                self.server.shared_config.publish_globals({"transaction_read_only": read_only})
        else:
            self.session_vars["transaction_read_only"] = read_only

    def _eval(self, value: Any) -> Any:
        if isinstance(value, SysVarRef):
            return self.resolve_sysvar(value.name, value.scope)
        if isinstance(value, UserVarRef):
            return self.user_vars.get(value.name)
        if isinstance(value, Keyword):
            return value.word
        if isinstance(value, Expression):
            er = self.executor.execute(classify(f"SELECT {value.text}"), self.current_db)
            return er.rows[0][0] if er.rows else None
        return value

    def _set_sysvar(self, name: str, scope: str | None, value: Any, warnings: list[sysvars.Warning_]) -> None:
        is_default = isinstance(value, Default)
        raw = None if is_default else self._eval(value)
        sysvars.set_variable(self, name, scope, raw, is_default=is_default, warnings=warnings)

    def before_storage_commit(self, db: Any) -> None:
        """Hook run by the commit path just before the SQLite COMMIT (the applier stores its position here)."""

    # ------------------------------------------------------------------ GTID_NEXT
    def set_gtid_next(self, value: Gtid | str) -> None:
        """``SET GTID_NEXT`` through the API (a :class:`Gtid`, ``"ANONYMOUS"``, ``"AUTOMATIC[:tag]"``).

        Raises:
            MySQLError: as the SQL form (1766, 1790, 1781, 1782, 1774).
        """
        sysvars.set_variable(self, "gtid_next", None, str(value), is_default=False, warnings=[])

    def lock_wait_timeout(self) -> int:
        """``@@SESSION.innodb_lock_wait_timeout`` in seconds."""
        return int(
            self.session_vars.get(
                "innodb_lock_wait_timeout", self.server.globals.values["innodb_lock_wait_timeout"]
            )
        )

    # ------------------------------------------------------------------ @@variables
    def resolve_sysvar(self, name: str, scope: str | None = None) -> Any:
        """Value of ``@@[scope.]name`` for SELECT (``scope`` GLOBAL, SESSION/LOCAL or None).

        Raises:
            MySQLError: 1193 unknown variable; 1238 "Variable '%s' is a GLOBAL/SESSION variable" when read in
                the wrong scope.
        """
        var = sysvars.lookup(name, self.server.globals.absent)
        sc = (scope or "").upper()
        if sc == "LOCAL":
            sc = "SESSION"
        if sc == "SESSION" and var.scope == sysvars.GLOBAL:
            raise mysql_error(1238, var.name, "GLOBAL")
        if sc == "GLOBAL" and var.scope == sysvars.SESSION:
            raise mysql_error(1238, var.name, "SESSION")
        if var.read is not None:
            return var.read(self, sc or None)
        if sc != "GLOBAL" and var.scope != sysvars.GLOBAL and var.name in self.session_vars:
            return sysvars.display(var, self.session_vars[var.name])
        return sysvars.display(var, self.server.globals.get(var.name))

    def sysvar_show_value(self, name: str, scope: str | None) -> str:
        """Value as SHOW [GLOBAL|SESSION] VARIABLES prints it."""
        var = sysvars.lookup(name, self.server.globals.absent)
        if var.read is not None:
            v = var.read(self, scope if var.scope == sysvars.BOTH else None)
            return "" if v is None else str(v)
        if scope != "GLOBAL" and var.scope != sysvars.GLOBAL and var.name in self.session_vars:
            return sysvars.show_text(var, self.session_vars[var.name])
        return sysvars.show_text(var, self.server.globals.get(var.name))


#: ``SET [SESSION|LOCAL|@@SESSION.|@@LOCAL.|@@]gtid_next = '<text>'`` with a plain quoted value.
_SET_GTID_NEXT = re.compile(
    r"^\s*SET\s+(?:(?:SESSION|LOCAL)\s+|@@(?:SESSION\.|LOCAL\.)?)?gtid_next\s*=\s*'([^'\\]*)'\s*;?\s*$",
    re.IGNORECASE,
)

_ACCESS_MODE = re.compile(r"\bREAD\s+(ONLY|WRITE)\b", re.IGNORECASE)


def now_us() -> int:
    """Microseconds since the epoch (commit timestamps)."""
    return time.time_ns() // 1000


def _sysvar_kind(name: str) -> str | None:
    """The metadata kind of ``@@name`` (``bool``, ``uint``, ``int``, ``str``) for result-set columns."""
    try:
        var = sysvars.lookup(name)
    except MySQLError:
        return None
    if var.kind == sysvars.INT:
        return "uint" if var.minimum >= 0 else "int"
    return var.kind if var.kind == sysvars.BOOL else "str"


_SESSION_STATE_CHANGED = int(ServerStatus.SERVER_SESSION_STATE_CHANGED)
_IN_TRANS = int(ServerStatus.SERVER_STATUS_IN_TRANS)
_IN_TRANS_READONLY = int(ServerStatus.SERVER_STATUS_IN_TRANS_READONLY)
_DB_DROPPED = int(ServerStatus.SERVER_STATUS_DB_DROPPED)
_AUTOCOMMIT = int(ServerStatus.SERVER_STATUS_AUTOCOMMIT)
_MORE_RESULTS_EXISTS = int(ServerStatus.SERVER_MORE_RESULTS_EXISTS)
_NO_BACKSLASH_ESCAPES = int(ServerStatus.SERVER_STATUS_NO_BACKSLASH_ESCAPES)
#: sql_mode value -> whether it holds NO_BACKSLASH_ESCAPES (a prepared SELECT's status flags, every execution)
_NO_BACKSLASH_IN: dict[Any, bool] = {}
#: a 4-byte UTF-8 character: no character of utf8mb3 (RM "The utf8mb3 Character Set")
_UTF8MB3_ILL_FORMED = re.compile("[\U00010000-\U0010ffff]")


def _as_sent_bytes(m: re.Match[str]) -> str:
    """A character a utf8mb3 client cannot send, as the bytes it did send (surrogate escapes, the engine's form of
    bytes that are no character of the client's set): a text column refuses them with 1366 ("Incorrect string
    value: '\\xF0\\x9F\\x98\\x80'"), a binary one stores them as they are."""
    return "".join(chr(0xDC00 + b) for b in m.group().encode("utf-8"))


#: the COLLATE part of SET NAMES cs COLLATE coll (the assignment's text)
_NAMES_COLLATE = re.compile(r"\bCOLLATE\s+(\S+)", re.IGNORECASE)


_TUPLE_ONLY = {tuple}


#: prepared statement kinds whose privileges are checked at PREPARE and remembered for their executions (the others
#: are checked as the statement each execution runs)
_CHECKED_WHEN_PREPARED = frozenset({"select", "dml"})
#: statement counter slots the session bumps itself
_COM_SELECT = com_counters.slot("select")
_QUERIES = com_counters.QUERIES
#: SQL PREPARE / EXECUTE / DEALLOCATE PREPARE also count Com_stmt_prepare / _execute / _close (RM8 "Com_stmt_xxx")
_SQL_PREPARED_ALSO = {
    "prepare": com_counters.slot("stmt_prepare"),
    "execute": com_counters.slot("stmt_execute"),
    "deallocate": com_counters.slot("stmt_close"),
}


def _uses_tables(stmt: Any) -> bool:
    """Whether a statement names tables (MySQL clears the diagnostics area at the start of such statements)."""
    kind = stmt.kind
    if kind == "dml":
        return True
    if kind == "select":
        text = stmt.text
        known = _SELECT_USES_TABLES.get(text)
        if known is None:
            known = bool(_FROM.search(text))
            if len(text) <= _MEMO_TEXT_MAX:
                if len(_SELECT_USES_TABLES) >= 4096:
                    _SELECT_USES_TABLES.clear()
                _SELECT_USES_TABLES[text] = known
        return known
    if kind == "ddl":
        return bool(stmt.ddl_object.kind != "DATABASE")
    return False


#: DML text -> whether it logs a LAST_INSERT_ID Intvar event in STATEMENT format (it calls LAST_INSERT_ID(); see
#: transaction_events.statement_intvars), remembered per text as prepared statements repeat theirs
_CALLS_LAST_INSERT_ID: dict[str, bool] = {}

#: the longest statement text the two memo tables above and below keep (4096 texts each at the most)
_MEMO_TEXT_MAX = 8192

#: SELECT text -> whether it reads a table (prepared statements and sysbench repeat a few texts)
_SELECT_USES_TABLES: dict[str, bool] = {}


_FROM = re.compile(r"\bFROM\s+(?!DUAL\b)", re.IGNORECASE)


__all__ = ["Session"]
