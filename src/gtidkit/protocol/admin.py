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

import json
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from gtidkit.engine.api import COM_NAMES, THREAD_ID_OFFSET, row_status, statement_status
from gtidkit.engine.shared.control import OP_KILL, OP_KILL_QUERY, OP_PROCESSLIST, OP_STATUS
from gtidkit.engine.shared.service import PEER_TIMEOUT
from gtidkit.mysql_errors import mysql_error
from gtidkit.protocol import engine_seam, privileges
from gtidkit.protocol.constants import BINARY_COLLATION, UTF8MB4_0900_AI_CI, ColumnFlag, FieldType
from gtidkit.protocol.engine_seam import Column, StatementResult

if TYPE_CHECKING:
    from gtidkit.protocol.handler import ClientHandler

log = logging.getLogger("gtidkit.server")


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
    connection without SUPER or CONNECTION_ADMIN); in a multi-worker server a connection of another worker is
    killed by that worker, asked over the control service (:func:`_kill_in_peers`)."""
    target_id = stmt.info["id"]
    query_only = bool(stmt.info["query_only"])
    with handler.ctx.lock:
        target = handler.ctx.handlers.get(target_id)
    if target is None:
        outcome = _kill_in_peers(handler, target_id, query_only)
        if outcome == _DENIED:
            raise mysql_error(1095, target_id)
        if outcome != _KILLED:
            raise mysql_error(1094, target_id)
        return _ok(handler)
    me = handler.current_account()
    if target.user != handler.user and not privileges.has_global(me, "SUPER", "CONNECTION_ADMIN"):
        raise mysql_error(1095, target_id)
    _kill_target(target, handler, query_only)
    return _ok(handler)


def _kill_target(target: ClientHandler, killer: ClientHandler | None, query_only: bool) -> None:
    """What KILL does to connection ``target`` of this process (``killer``: the connection running the KILL, None
    when another worker asked). ``THD::awake``: KILL CONNECTION shuts the client's socket down first
    (``shutdown_active_vio``), then both forms stop the running statement; in that order the interrupted
    statement's answer can no longer reach the client, which sees the connection end (2013) as with MySQL, never
    an ERR 1317 racing the shutdown."""
    if not query_only:
        target.killed = True
        if target is not killer:
            target.kill_hook()
    if target.session is not None:
        engine_seam.interrupt(target.session)
    target.kill_query_hook()  # a running command hook (binlog dump) stops too


#: answers of a worker asked to KILL one of its connections (OP_KILL / OP_KILL_QUERY)
_KILLED, _DENIED, _UNKNOWN = b"killed", b"denied", b"unknown"
#: seconds a KILL waits for the other workers: only a stalled worker makes it wait this long
KILL_TIMEOUT = 5.0


def _kill_in_peers(handler: ClientHandler, target_id: int, query_only: bool) -> bytes:
    """Ask every other worker to KILL [QUERY] ``target_id`` on behalf of ``handler``'s account: the one owning the
    connection checks the privilege rule and kills it. Returns :data:`_KILLED`, :data:`_DENIED`, or
    :data:`_UNKNOWN` (no worker has it, or none is running: one process)."""
    control = getattr(handler.ctx.engine, "control", None)
    if control is None or not control.active:
        return _UNKNOWN
    body = json.dumps(
        {
            "id": target_id,
            "user": handler.user,
            "admin": privileges.has_global(handler.current_account(), "SUPER", "CONNECTION_ADMIN"),
        }
    ).encode()
    op = OP_KILL_QUERY if query_only else OP_KILL
    answers = control.ask_peers(op, body, timeout=KILL_TIMEOUT).values()
    for outcome in (_KILLED, _DENIED):
        if outcome in answers:
            return outcome
    return _UNKNOWN


def _answer_kill(ctx: Any, message: Any, query_only: bool) -> bytes:
    """OP_KILL / OP_KILL_QUERY from another worker (body: JSON ``{"id", "user", "admin"}``, the killer's user
    name and whether it has SUPER or CONNECTION_ADMIN): the same rule and action as a local KILL."""
    asked = json.loads(message.body)
    with ctx.lock:
        target = ctx.handlers.get(int(asked["id"]))
    if target is None:
        return _UNKNOWN
    if target.user != asked["user"] and not asked["admin"]:
        return _DENIED
    _kill_target(target, None, query_only)
    return _KILLED


def serve_control(ctx: Any) -> None:
    """Answer the other workers of a multi-worker server for the connections of ``ctx`` (a ``ServerContext``):
    registers OP_PROCESSLIST (this worker's process-list rows), OP_KILL / OP_KILL_QUERY and OP_STATUS (its
    running connections) on the engine server's control service (engine/shared/service.py). Harmless in one
    process: the service is never started there."""
    control = getattr(ctx.engine, "control", None)
    if control is None:
        return
    control.register(OP_PROCESSLIST, lambda _m: json.dumps(_local_entries(ctx, None, table=False)).encode())
    control.register(OP_KILL, lambda m: _answer_kill(ctx, m, query_only=False))
    control.register(OP_KILL_QUERY, lambda m: _answer_kill(ctx, m, query_only=True))
    control.register(OP_STATUS, lambda _m: json.dumps(_local_counts(ctx)).encode())


def _local_counts(ctx: Any) -> dict[str, int]:
    """OP_STATUS's answer: this worker's running connections, open connections, and its share of the server-wide
    counters of :data:`SUMMED` (by status name)."""
    with ctx.lock:
        connected = len(ctx.handlers)
        received, sent = ctx.bytes_received, ctx.bytes_sent
    counts: dict[str, int] = {"running": _running(ctx), "connected": connected}
    counts.update({"Bytes_received": received, "Bytes_sent": sent})
    counts.update(row_status(ctx.engine))
    counts.update(statement_status(ctx.engine))  # Com_xxx, Questions, Queries of this worker's sessions
    return counts


#: SHOW GLOBAL STATUS counters MySQL keeps for the whole server that each worker counts for its own connections
#: and statements: a multi-worker server answers their sum over the workers (with every Com_xxx)
SUMMED = (
    "Bytes_received",
    "Bytes_sent",
    "Innodb_rows_deleted",
    "Innodb_rows_inserted",
    "Innodb_rows_updated",
    "Queries",
    "Questions",
    *(f"Com_{name}" for name in COM_NAMES),
)


def statistics(ctx: Any) -> tuple[int, int]:
    """``(threads, questions)`` of COM_STATISTICS (``mysqladmin status``) for the server of ``ctx``: open
    connections and statements received, summed over the workers of a multi-worker server."""
    counts = [_local_counts(ctx), *_peer_answers(ctx, OP_STATUS, "the status counters")]
    return sum(int(c.get("connected", 0)) for c in counts), sum(int(c.get("Questions", 0)) for c in counts)


def _running(ctx: Any) -> int:
    """Connections of ``ctx`` executing a command (MySQL's Threads_running: a thread counts from the start of a
    command to its end, so a sleeping or still-authenticating connection does not)."""
    with ctx.lock:
        handlers = list(ctx.handlers.values())
    return sum(1 for h in handlers if h.command not in ("Sleep", "Connect"))


def _peer_answers(ctx: Any, op: int, what: str) -> list[Any]:
    """The decoded JSON answers of the other workers to ``op`` (none in one process); a worker that does not
    answer within :data:`~gtidkit.engine.shared.service.PEER_TIMEOUT` is left out and named in the error log."""
    control = getattr(ctx.engine, "control", None)
    if control is None or not control.active:
        return []
    out = []
    for worker, answer in sorted(control.ask_peers(op, timeout=PEER_TIMEOUT).items()):
        if answer is None:
            log.warning("worker %d did not answer for %s within %s s", worker, what, PEER_TIMEOUT)
            continue
        out.append(json.loads(answer))
    return out


def status_values(ctx: Any, wire: Any) -> dict[str, str]:
    """SHOW GLOBAL STATUS values the wire server answers (an engine status provider): Threads_running and the
    counters of :data:`SUMMED` (summed over the workers), Connections and Max_used_connections (this server's connection attempts and its peak of open
    connections; with several workers the supervisor counts them, with Threads_connected, in the shared page)."""
    counts = [_local_counts(ctx), *_peer_answers(ctx, OP_STATUS, "the status counters")]
    out = {"Threads_running": str(sum(int(c.get("running", 0)) for c in counts))}
    out.update((name, str(sum(int(c.get(name, 0)) for c in counts))) for name in SUMMED)
    page = getattr(ctx.engine, "shared_page", None)
    control = getattr(ctx.engine, "control", None)
    if page is not None and control is not None and control.active:
        out["Connections"] = str(page.counter("connections").get())
        out["Max_used_connections"] = str(page.counter("max_used_connections").get())
        out["Threads_connected"] = str(page.counter("threads_connected").get())
    else:
        out["Connections"] = str(wire.connections_total)
        out["Max_used_connections"] = str(wire.max_used_connections)
    return out


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
    "executing" instead of "init"); without PROCESS only the user's own connections (RM8 "SHOW PROCESSLIST").
    In a multi-worker server the other workers' connections are merged in, in Id order (MySQL walks every THD of
    its one process: ``mysqld_list_processes``)."""
    entries = _local_entries(handler.ctx, handler, table=table)
    for answer in _peer_answers(handler.ctx, OP_PROCESSLIST, "the process list"):
        entries.extend(answer)
    if len(entries) > 1:
        entries.sort(key=lambda e: e[1][0])
    see_all = privileges.has_global(handler.current_account(), "PROCESS")
    rows = []
    for user, row in entries:
        if not see_all and user != handler.user:
            continue
        info = row[7]
        if info is not None and not full:
            info = info[:100]
        rows.append((*row[:7], info))
    return rows


def _local_entries(ctx: Any, me: ClientHandler | None, *, table: bool) -> list[Any]:
    """``(user, row)`` for each connection of this process: the account's user name (None before it logged in)
    and the PROCESSLIST row (Id, User, Host, db, Command, Time, State, Info uncut); ``me``: the reader's own
    connection, whose State is "init" (``table``: "executing")."""
    with ctx.lock:
        handlers = sorted(ctx.handlers.items())
    now = time.monotonic()
    entries: list[Any] = []
    for cid, h in handlers:
        db = engine_seam.current_schema(h.session) if h.session is not None else None
        if h is me:
            state = "executing" if table else "init"
        else:
            # a statement's stage, else "executing"; other commands show their own stage (the binlog dump's
            # "Source has sent all binlog to replica; waiting for more updates"), Sleep none
            state = engine_seam.stage(h.session) if h.session is not None else ""
            if h.command == "Query":
                state = state or "executing"
        row = (
            cid,
            h.user or "unauthenticated user",
            f"{h.peer_host_name()}",
            db,
            h.command,
            int(now - h.command_started),
            state,
            h.info,
        )
        entries.append((h.user, row))
    return entries


def connection_thread_rows(ctx: Any) -> list[dict[str, Any]]:
    """performance_schema.threads rows of the client connections of ``ctx`` (a ``ServerContext``): MySQL's
    ``thread/sql/one_connection`` (a binlog dump is one too, its COMMAND ``Binlog Dump GTID``), with the
    processlist columns as SHOW FULL PROCESSLIST shows them and THREAD_OS_ID, the OS thread serving it (in a
    multi-worker server a thread of the worker process that serves it) (RM8 "The threads Table")."""
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
                "THREAD_OS_ID": h.os_thread_id,
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
