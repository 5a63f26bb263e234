"""Statements the wire server answers itself, before the engine: SHUTDOWN, KILL, SHOW PROCESSLIST.

Sources: MySQL manual "SHUTDOWN Statement", "KILL Statement" (1094 ER_NO_SUCH_THREAD "Unknown thread id: %lu"),
"SHOW PROCESSLIST Statement" (columns Id, User, Host, db, Command, Time, State, Info; Info cut to 100
characters without FULL).

These need the server process (its connections), which the engine does not know, so they live in the protocol
layer. Account statements (CREATE USER, GRANT ...) and SHOW GRANTS are the engine's (:mod:`gtidkit.engine.accounts`):
here they only get their privilege check, and the connection's state after them (fast-auth cache, sandbox).
Recognition is by a few anchored regular expressions; everything else goes to the engine untouched.
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING, Any

from gtidkit.engine.accounts import statements as account_statements
from gtidkit.engine.accounts.grants import GRANT_OPTION
from gtidkit.engine.accounts.statements import is_account_statement
from gtidkit.mysql_errors import mysql_error
from gtidkit.protocol import engine_seam, privileges
from gtidkit.protocol.constants import BINARY_COLLATION, UTF8MB4_0900_AI_CI, ColumnFlag, FieldType
from gtidkit.protocol.engine_seam import Column, StatementResult

if TYPE_CHECKING:
    from gtidkit.protocol.handler import ClientHandler

#: the first word of every statement answered here (each pattern below starts with ``^\s*`` and one of them)
_FIRST_WORD = re.compile(r"\s*(\w+)")
_ADMIN_WORDS = frozenset(
    {"shutdown", "kill", "show", "create", "alter", "drop", "rename", "set", "grant", "revoke"}
)
_SHUTDOWN = re.compile(r"^\s*shutdown\s*;?\s*$", re.IGNORECASE)
_KILL = re.compile(r"^\s*kill\s+(?:(connection|query)\s+)?(\d+)\s*;?\s*$", re.IGNORECASE)
_PROCESSLIST = re.compile(r"^\s*show\s+(full\s+)?processlist\s*;?\s*$", re.IGNORECASE)
_ALTER_USER = re.compile(r"^\s*alter\s+user\b", re.IGNORECASE)


def _ok(handler: ClientHandler, affected: int = 0) -> StatementResult:
    return StatementResult(
        columns=None, affected_rows=affected, status_flags=engine_seam.status_flags(handler.session)
    )


def may_answer(text: str) -> bool:
    """False when the hook of :func:`interceptor` certainly leaves ``text`` to the engine after its privilege
    check (its first word starts none of the statements answered here): what it does then depends only on the
    account, the default schema and the sandbox state, so a caller may remember that it passed."""
    first = _FIRST_WORD.match(text)
    return first is not None and first.group(1).lower() in _ADMIN_WORDS


def interceptor(handler: ClientHandler) -> engine_seam.Interceptor:
    """The statement hook for :func:`gtidkit.protocol.engine_seam.execute` bound to one connection."""

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

    def intercept(text: str) -> StatementResult | None:
        # sql_parse.cc: in the sandbox only ALTER USER, SET PASSWORD and SET (client initialisation) run
        if handler.sandbox and not _ALTER_USER.match(text) and not re.match(r"\s*set\b", text, re.IGNORECASE):
            raise mysql_error(1820)
        first = _FIRST_WORD.match(text)
        if first is None or first.group(1).lower() not in _ADMIN_WORDS:  # none of the statements below
            return None  # the engine session checks its privileges (privileges.AccountAuthorizer)
        account = handler.current_account()
        if _SHUTDOWN.match(text):
            if not privileges.has_global(account, "SHUTDOWN"):
                raise mysql_error(1227, "SHUTDOWN")
            handler.shutdown_requested = True  # the edge acts on it after this statement's OK is sent
            return _ok(handler)
        if is_account_statement(text):
            return _account_statement(handler, account, text)
        m = _KILL.match(text)
        if m:
            return _kill(handler, (m.group(1) or "connection").lower(), int(m.group(2)))
        m = _PROCESSLIST.match(text)
        if m:
            return _processlist(handler, full=bool(m.group(1)))
        return None

    return intercept


def _need_create_user(account: Any) -> None:
    if not privileges.has_global(account, "CREATE USER"):
        raise mysql_error(1227, "CREATE USER")


def _account_statement(handler: ClientHandler, account: Any, text: str) -> StatementResult:
    """An account statement: the privilege it needs (``sql/auth/sql_authorization.cc``: CREATE USER for another
    account's CREATE / ALTER / DROP / RENAME USER and SET PASSWORD, CREATE ROLE / DROP ROLE or CREATE USER for
    roles, GRANT OPTION plus each privilege granted or revoked), then the engine runs it as DDL (its GTID, its
    binlog event, the grant tables); a changed password drops its fast-auth cache entry, and setting one's own
    password ends the expired-password sandbox."""
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
    res = handler.session.execute(text)[-1]
    outcome = handler.session.account_outcome
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
        db = engine_seam.current_schema(handler.session)
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


def _kill(handler: ClientHandler, what: str, target_id: int) -> StatementResult:
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
    if what != "query":
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


def _processlist(handler: ClientHandler, *, full: bool) -> StatementResult:
    rows = _processlist_rows(handler, full=full, table=False)
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
    return StatementResult(columns=columns, rows=rows, status_flags=engine_seam.status_flags(handler.session))
