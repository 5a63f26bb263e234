"""Statements the wire server answers itself, before the engine: SHUTDOWN, KILL; the rows of SHOW PROCESSLIST.

Sources: MySQL manual "SHUTDOWN Statement", "KILL Statement" (1094 ER_NO_SUCH_THREAD "Unknown thread id: %lu"),
"SHOW PROCESSLIST Statement" (columns Id, User, Host, db, Command, Time, State, Info; Info cut to 100
characters without FULL).

These need the server process (its connections), which the engine does not know, so they live in the protocol
layer, registered as the handlers of their rows of the engine's statement specs (:func:`register`): they run the
engine's statement lifecycle like any statement, on the connection the session serves (``session.client``).
Account statements (CREATE USER, GRANT ...) and SHOW GRANTS are the engine's (:mod:`gtidkit.engine.accounts`):
their privilege check is the connection's authorizer's (:mod:`gtidkit.protocol.privileges`), and here only the
connection's state after them (fast-auth cache, sandbox). SHOW PROCESSLIST is a SHOW like the others
(``engine/statements/show.py``): the wire server registers :func:`show_processlist` as its provider on the engine
server when it starts.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

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


def attach(handler: ClientHandler) -> None:
    """Serve one logged-in connection: its session reads information_schema.PROCESSLIST /
    performance_schema.processlist from the connections of this server."""
    if handler.session is None:
        return
    engine_seam.provide_tables(
        handler.session,
        {
            ("information_schema", "PROCESSLIST"): lambda: _processlist_rows(handler, full=True, table=True),
            ("performance_schema", "processlist"): lambda: [
                (*r, "PRIMARY") for r in _processlist_rows(handler, full=True, table=True)
            ],
        },
    )


def register(engine: Any) -> None:
    """Register the wire server's statements in the engine server's statement specs (``engine.statements``, once
    per engine server): SHUTDOWN and KILL are answered from the connections of this server
    (:data:`ANSWERS`), and an account statement also updates its connection (fast-auth cache, sandbox) once it
    committed. Each runs the engine's statement lifecycle; a session without a connection (the engine's own, the
    replica applier's) keeps the engine's handler."""
    table = engine.statements
    if getattr(table.spec("kill").handler, "wire_answer", False):
        return  # registered by an earlier ServerContext of this engine server
    for key, answer in ANSWERS.items():
        table.register(key, _answer(key, answer, table.spec(key).handler))
    account = table.spec("account")
    table.register("account", account.handler, after_commit=_account_committed(account.after_commit))


def _answer(key: str, answer: Callable[[ClientHandler, Any], StatementResult], engine_handler: Any) -> Any:
    """The handler of ``key``'s row: ``answer`` on the session's connection, else the engine's handler."""

    def handle(session: Any, stmt: Any) -> StatementResult:
        client = session.client
        if client is None:
            return engine_handler(session, stmt)
        return answer(client, stmt)

    handle.__doc__ = f"The wire server's {key} statement (protocol/admin.py ANSWERS), else the engine's."
    handle.wire_answer = True  # type: ignore[attr-defined]
    return handle


def _account_committed(engine_after: Any) -> Any:
    def after(session: Any, stmt: Any) -> None:
        if engine_after is not None:
            engine_after(session, stmt)
        client = session.client
        outcome = session.account_outcome
        if client is None or outcome is None:
            return
        with client.ctx.lock:  # a changed password drops its fast-auth cache entry
            for key in outcome.changed:
                client.ctx.sha2_cache.pop(key, None)
        if outcome.own_password:  # setting one's own password ends the expired-password sandbox
            client.sandbox = False

    return after


def _shutdown(handler: ClientHandler, stmt: Any) -> StatementResult:
    # the SHUTDOWN privilege (its statement spec) was checked by the session's authorizer
    handler.shutdown_requested = True  # the edge acts on it after this statement's OK is sent
    return _ok(handler)


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
