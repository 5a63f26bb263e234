"""Statements the wire server answers itself, before the engine: SHUTDOWN, KILL; the rows of SHOW PROCESSLIST.

Sources: MySQL manual "SHUTDOWN Statement", "KILL Statement" (1094 ER_NO_SUCH_THREAD "Unknown thread id: %lu"),
"SHOW PROCESSLIST Statement" (columns Id, User, Host, db, Command, Time, State, Info; Info cut to 100
characters without FULL).

These need the server process (its connections), which the engine does not know, so they live in the protocol
layer. Account statements (CREATE USER, GRANT ...) and SHOW GRANTS are the engine's (:mod:`gtidkit.engine.accounts`):
here they only get their privilege check, and the connection's state after them (fast-auth cache, sandbox).
The engine session classifies each statement (:mod:`gtidkit.engine.statements.classify`) and hands it to the hook
of :func:`interceptor`, which answers the commands of :data:`ANSWERS`; everything else goes to the engine. SHOW
PROCESSLIST is a SHOW like the others (``engine/statements/show.py``): the wire server registers
:func:`show_processlist` as its provider on the engine server when it starts.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from gtidkit.engine.accounts import statements as account_statements
from gtidkit.engine.accounts.grants import GRANT_OPTION
from gtidkit.engine.api import THREAD_ID_OFFSET
from gtidkit.mysql_errors import mysql_error
from gtidkit.protocol import engine_seam, privileges
from gtidkit.protocol.constants import BINARY_COLLATION, UTF8MB4_0900_AI_CI, ColumnFlag, FieldType
from gtidkit.protocol.engine_seam import Column, StatementResult

if TYPE_CHECKING:
    from gtidkit.protocol.handler import ClientHandler


def _ok(handler: ClientHandler, affected: int = 0) -> StatementResult:
    return StatementResult(
        columns=None, affected_rows=affected, status_flags=engine_seam.status_flags(handler.live_session)
    )


def interceptor(handler: ClientHandler) -> engine_seam.Interceptor:
    """The hook that answers the statements of :data:`ANSWERS` and the account statements for one connection
    (the engine session calls it with each statement it has classified and authorized; None: the engine runs
    the statement)."""

    if handler.session is not None:  # information_schema.PROCESSLIST / performance_schema.processlist
        engine_seam.provide_tables(
            handler.session,
            {
                ("information_schema", "PROCESSLIST"): lambda: _processlist_rows(
                    handler, full=True, table=True
                ),
                ("performance_schema", "processlist"): lambda: [
                    (*r, "PRIMARY") for r in _processlist_rows(handler, full=True, table=True)
                ],
            },
        )
    running_account_statement = [False]

    def intercept(stmt: Any) -> StatementResult | None:
        # read_only lets SUPER / CONNECTION_ADMIN write (engine/statements/transaction.py check_read_only)
        engine_seam.set_read_only_exempt(
            handler.live_session,
            privileges.has_global(handler.current_account(), "SUPER", "CONNECTION_ADMIN"),
        )
        if stmt.kind == "account":
            if running_account_statement[0]:
                return None  # the engine runs the statement this hook passed on (_account_statement)
            running_account_statement[0] = True
            try:
                return _account_statement(handler, handler.current_account(), stmt)
            finally:
                running_account_statement[0] = False
        answer = ANSWERS.get(stmt.info.get("command") or "")
        return None if answer is None else answer(handler, stmt)

    return intercept


def _shutdown(handler: ClientHandler, stmt: Any) -> StatementResult:
    # the SHUTDOWN privilege (its statement spec) was checked by the session's authorizer
    handler.shutdown_requested = True  # the edge acts on it after this statement's OK is sent
    return _ok(handler)


def _need_create_user(account: Any) -> None:
    if not privileges.has_global(account, "CREATE USER"):
        raise mysql_error(1227, "CREATE USER")


def _account_statement(handler: ClientHandler, account: Any, stmt: Any) -> StatementResult:
    """An account statement: the privilege it needs (``sql/auth/sql_authorization.cc``: CREATE USER for another
    account's CREATE / ALTER / DROP / RENAME USER and SET PASSWORD, CREATE ROLE / DROP ROLE or CREATE USER for
    roles, GRANT OPTION plus each privilege granted or revoked), then the engine runs it as DDL (its GTID, its
    binlog event, the grant tables); a changed password drops its fast-auth cache entry, and setting one's own
    password ends the expired-password sandbox. In the sandbox only ALTER USER and SET PASSWORD run (1820,
    ``sql_parse.cc``).

    Raises:
        MySQLError: 1820 in the sandbox, 1227 / 1044 / 1045 without the privilege, the engine's errors.
    """
    text = stmt.text
    if handler.sandbox and stmt.info.get("keyword") not in ("ALTER", "SET"):
        raise mysql_error(1820)
    st = account_statements.parse(text)
    verb = st.verb
    if verb in ("alter_user", "set_password"):
        me = (account.user, account.host.lower()) if account is not None else None
        others = [s for s in st.specs if not s.current and (s.user, s.host.lower()) != me]
        if others:
            _need_create_user(account)
    elif verb in ("create_role", "drop_role"):
        role_priv = "CREATE ROLE" if verb == "create_role" else "DROP ROLE"
        if not privileges.has_global(account, role_priv, "CREATE USER"):
            raise mysql_error(1227, f"{role_priv} or CREATE USER")
    elif verb in ("grant", "revoke"):
        _check_grant(handler, account, st)
    else:
        _need_create_user(account)
    res = handler.live_session.execute(text, split=False)[-1]
    outcome = handler.live_session.account_outcome
    if outcome is not None:
        with handler.ctx.lock:
            for key in outcome.changed:
                handler.ctx.sha2_cache.pop(key, None)
        if outcome.own_password:
            handler.sandbox = False
    return res


def _check_grant(handler: ClientHandler, account: Any, st: Any) -> None:
    db = st.target
    if db == "":
        db = engine_seam.current_schema(handler.live_session)
        if db is None:
            raise mysql_error(1046)
    allowed = privileges.has_global(account, GRANT_OPTION) or (
        db is not None and privileges.has_on_db(account, GRANT_OPTION, db)
    )
    if not allowed or not all(
        privileges.has_global(account, n) if db is None else privileges.has_on_db(account, n, db)
        for n in st.privileges
        if n != GRANT_OPTION
    ):
        if db is None:
            raise mysql_error(1045, handler.user, handler.peer_host_name(), "YES")
        raise mysql_error(1044, handler.user, handler.peer_host_name(), db)


def _kill(handler: ClientHandler, stmt: Any) -> StatementResult:
    """KILL [CONNECTION | QUERY] id of any connection of the server (1094 unknown id, 1095 another user's
    connection without SUPER or CONNECTION_ADMIN)."""
    target_id = stmt.info["id"]
    with handler.ctx.lock:
        target = handler.ctx.handlers.get(target_id)
    if target is None:
        raise mysql_error(1094, target_id)
    me = handler.current_account()
    if target.user != handler.user and not privileges.has_global(me, "SUPER", "CONNECTION_ADMIN"):
        raise mysql_error(1095, target_id)
    # THD::awake: KILL CONNECTION shuts the client's socket down first (shutdown_active_vio), then both forms stop
    # the running statement; in that order the interrupted statement's answer can no longer reach the client, which
    # sees the connection end (2013) as with MySQL, never an ERR 1317 racing the shutdown
    if not stmt.info["query_only"]:
        target.killed = True
        if target is not handler:
            target.kill_hook()
    if target.session is not None:
        engine_seam.interrupt(target.session)
    target.kill_query_hook()  # a running command hook (binlog dump) stops too
    return _ok(handler)


_PROCESSLIST_COLUMNS = (
    ("Id", FieldType.MYSQL_TYPE_LONGLONG, 21, ColumnFlag.NOT_NULL | ColumnFlag.UNSIGNED | ColumnFlag.NUM),
    ("User", FieldType.MYSQL_TYPE_VAR_STRING, 128, ColumnFlag.NOT_NULL),
    ("Host", FieldType.MYSQL_TYPE_VAR_STRING, 1020, ColumnFlag.NOT_NULL),
    ("db", FieldType.MYSQL_TYPE_VAR_STRING, 256, 0),
    ("Command", FieldType.MYSQL_TYPE_VAR_STRING, 64, ColumnFlag.NOT_NULL),
    ("Time", FieldType.MYSQL_TYPE_LONG, 7, ColumnFlag.NOT_NULL | ColumnFlag.NUM),
    ("State", FieldType.MYSQL_TYPE_VAR_STRING, 120, 0),
    ("Info", FieldType.MYSQL_TYPE_VAR_STRING, 400, 0),
)


def _processlist_rows(handler: ClientHandler, *, full: bool, table: bool) -> list[tuple[Any, ...]]:
    """The rows of SHOW [FULL] PROCESSLIST (``table``: as the PROCESSLIST tables show them, the reader's own row
    "executing" instead of "init"); without PROCESS only the user's own connections (RM8 "SHOW PROCESSLIST")."""
    with handler.ctx.lock:
        handlers = sorted(handler.ctx.handlers.items())
    now = time.monotonic()
    rows = []
    see_all = privileges.has_global(handler.current_account(), "PROCESS")
    for cid, h in handlers:
        if not see_all and h.user != handler.user:
            continue
        info = h.info
        if info is not None and not full:
            info = info[:100]
        db = engine_seam.current_schema(h.session) if h.session is not None else None
        if h is handler:
            state = "executing" if table else "init"
        else:
            # a statement's stage, else "executing"; other commands show their own stage (the binlog dump's
            # "Source has sent all binlog to replica; waiting for more updates"), Sleep none
            state = engine_seam.stage(h.session) if h.session is not None else ""
            if h.command == "Query":
                state = state or "executing"
        rows.append(
            (
                cid,
                h.user or "unauthenticated user",
                f"{h.peer_host_name()}",
                db,
                h.command,
                int(now - h.command_started),
                state,
                info,
            )
        )
    return rows


def connection_thread_rows(ctx: Any) -> list[dict[str, Any]]:
    """performance_schema.threads rows of the client connections of ``ctx`` (a ``ServerContext``): MySQL's
    ``thread/sql/one_connection`` (a binlog dump is one too, its COMMAND ``Binlog Dump GTID``), with the
    processlist columns as SHOW FULL PROCESSLIST shows them (RM8 "The threads Table")."""
    with ctx.lock:
        handlers = sorted(ctx.handlers.items())
    now = time.monotonic()
    rows = []
    for cid, h in handlers:
        state = engine_seam.stage(h.session) if h.session is not None else ""
        if h.command == "Query":
            state = state or "executing"
        rows.append(
            {
                "THREAD_ID": cid + THREAD_ID_OFFSET,
                "NAME": "thread/sql/one_connection",
                "TYPE": "FOREGROUND",
                "PROCESSLIST_ID": cid,
                "PROCESSLIST_USER": h.user or None,
                "PROCESSLIST_HOST": h.peer_host_name() or None,
                "PROCESSLIST_DB": engine_seam.current_schema(h.session) if h.session is not None else None,
                "PROCESSLIST_COMMAND": h.command,
                "PROCESSLIST_TIME": int(now - h.command_started),
                "PROCESSLIST_STATE": state or None,
                "PROCESSLIST_INFO": h.info,
                "PARENT_THREAD_ID": 1,
                "INSTRUMENTED": "YES",
                "HISTORY": "YES",
                "CONNECTION_TYPE": "SSL/TLS" if h.tls_active else "TCP/IP",
                "RESOURCE_GROUP": "USR_default",
            }
        )
    return rows


def show_processlist(ctx: Any, session: Any, stmt: Any) -> StatementResult:
    """SHOW [FULL] PROCESSLIST for the engine ``session`` of a client connection of ``ctx`` (the wire server's
    ``ServerContext``): the provider the wire server registers for the engine's ``processlist`` SHOW
    (``engine/statements/show.py``). ``stmt.info["full"]``: FULL (Info not cut to 100 characters).

    Raises:
        MySQLError: 1235 for a session that is no client connection (it has no process list to read).
    """
    with ctx.lock:
        handler = ctx.handlers.get(engine_seam.connection_id(session))
    if handler is None or handler.session is not session:
        raise mysql_error(1235, "SHOW PROCESSLIST")
    rows = _processlist_rows(handler, full=bool(stmt.info.get("full")), table=False)
    columns = tuple(
        Column(
            name=name,
            org_name=name,
            type=ftype,
            length=length,
            flags=flags,
            charset=BINARY_COLLATION if ftype != FieldType.MYSQL_TYPE_VAR_STRING else UTF8MB4_0900_AI_CI,
            decimals=0 if ftype != FieldType.MYSQL_TYPE_VAR_STRING else 31,
        )
        for name, ftype, length, flags in _PROCESSLIST_COLUMNS
    )
    return StatementResult(
        columns=columns, rows=rows, status_flags=engine_seam.status_flags(handler.live_session)
    )


#: statement command (engine/statements/classify.py) -> the answer of the wire server, which owns the connections
ANSWERS: dict[str, Callable[[ClientHandler, Any], StatementResult]] = {
    "shutdown": _shutdown,
    "kill": _kill,
}
