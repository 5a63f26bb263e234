"""The one place where the protocol meets the engine's Session API (STYLE.md section 5).

Everything the wire server needs from a session goes through the functions here: run a statement text and get
one :class:`~gtidkit.engine.results.StatementResult` per statement (column metadata, rows, OK-packet fields,
status flags, session-state changes), the session's idle status flags, its CONNECTION_ID(), its current schema.
The rest of :mod:`gtidkit.protocol` only reads the attributes of these results. The session-state changes
(``session_track_*``) are decided by the engine (:mod:`gtidkit.engine.tracking`); the protocol only encodes them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from gtidkit.engine.results import Column, StateChange, StatementResult
from gtidkit.engine.sql.parse import split_statements
from gtidkit.errors import MySQLError
from gtidkit.mysql_errors import mysql_error
from gtidkit.protocol.constants import (
    BINARY_COLLATION,
    UTF8MB4_0900_AI_CI,
    ColumnFlag,
    FieldType,
    ServerStatus,
)

__all__ = ["Column", "StateChange", "StatementResult"]

#: A hook that answers a statement itself (server-level statements: SHUTDOWN, KILL, accounts) or returns None.
Interceptor = Callable[[str], "StatementResult | None"]


def open_session(server: Any) -> Any:
    """A new engine session of ``server`` (one per client connection)."""
    return server.session()


def connection_id(session: Any) -> int:
    """The session's CONNECTION_ID() (what the Handshake and SHOW PROCESSLIST show)."""
    return int(session.id) & 0xFFFFFFFF


def current_schema(session: Any) -> str | None:
    """The session's default database, or None."""
    return session.current_db


def set_account(session: Any, user: str, host: str, priv_user: str, priv_host: str) -> None:
    """Tell the engine session who authenticated: the client's ``user``/``host`` (USER()) and the matched
    account ``priv_user``/``priv_host`` (CURRENT_USER())."""
    session.set_account(user, host, priv_user, priv_host)


def set_tls(session: Any, cipher: str, version: str) -> None:
    """Tell the engine session its connection is encrypted: Ssl_cipher / Ssl_version in SHOW STATUS."""
    session.tls_cipher = cipher
    session.tls_version = version


def set_wire_prepared(session: Any, count: int) -> None:
    """Tell the engine session how many COM_STMT_PREPARE statements the wire server holds for it
    (Prepared_stmt_count, max_prepared_stmt_count)."""
    session.wire_prepared = count


def start_interactive(session: Any) -> None:
    """A CLIENT_INTERACTIVE client logged in: its session ``wait_timeout`` is the global ``interactive_timeout``
    (``sql/sql_connect.cc``, RM8 "wait_timeout")."""
    session.session_vars["wait_timeout"] = session.server.globals.values["interactive_timeout"]


def interrupt(session: Any) -> None:
    """KILL QUERY: stop the statement ``session`` runs now (a SLEEP() returns 1, anything else fails with 1317).

    Safe from another thread; a session between statements is not affected (the flag is cleared when its next
    statement starts).
    """
    session.interrupt()


def session_ended(session: Any) -> bool:
    """The engine session asked for its connection to end once the current answer is sent: ``COMMIT RELEASE`` /
    ``ROLLBACK RELEASE`` (or ``completion_type=RELEASE``), which set MySQL's ``thd->killed = KILL_CONNECTION``;
    mysqld sends the statement's OK, then closes the connection (the client's next command fails with 2013)."""
    return bool(session is not None and session.killed)


def stage(session: Any) -> str:
    """The thread stage a waiting statement shows in PROCESSLIST's State ("" when none, e.g.
    "Waiting for GTID to be committed" inside WAIT_FOR_EXECUTED_GTID_SET)."""
    return str(getattr(session, "stage", "") or "")


def provide_tables(
    session: Any, providers: dict[tuple[str, str], Callable[[], list[tuple[Any, ...]]]]
) -> None:
    """Fill the engine's per-query system tables from the server: ``{(schema, table): () -> rows}`` (e.g.
    ``("information_schema", "PROCESSLIST")``, see ``gtidkit.engine.sql.catalog.PROCESSLIST_TABLES``)."""
    session.executor.virtual_tables.update(providers)


def status_flags(session: Any) -> int:
    """SERVER_STATUS_* of the session between statements: AUTOCOMMIT and IN_TRANS."""
    flags = 0
    if _autocommit(session):
        flags |= ServerStatus.SERVER_STATUS_AUTOCOMMIT
    if session.in_transaction() or session.tracker.transaction_active:
        flags |= ServerStatus.SERVER_STATUS_IN_TRANS
    return flags


def _autocommit(session: Any) -> bool:
    return bool(session.autocommit())


def sysvar(session: Any, name: str) -> Any:
    """``@@SESSION.name`` (or the global value for global-only variables).

    Raises:
        MySQLError: 1193 unknown variable.
    """
    try:
        return session.resolve_sysvar(name, "SESSION")
    except MySQLError as err:
        if err.code != 1238:
            raise
        return session.resolve_sysvar(name, "GLOBAL")


def connection_charsets(session: Any) -> tuple[str, str | None]:
    """``(character_set_client, character_set_results)`` of ``session`` (session values, else the global ones);
    results is None when ``character_set_results`` is NULL (RM 8.4 "Connection Character Sets and Collations":
    no conversion)."""
    sv = session.session_vars
    glob = session.server.globals.values
    client = sv["character_set_client"] if "character_set_client" in sv else glob["character_set_client"]
    results = sv["character_set_results"] if "character_set_results" in sv else glob["character_set_results"]
    return str(client or "utf8mb4"), (None if results is None else str(results))


def set_names(session: Any, charset: str) -> None:
    """What a HandshakeResponse's collation does (``thd_init_client_charset``): character_set_client,
    _connection and _results all become ``charset`` (its default collation for collation_connection)."""
    for _ in session.execute(f"SET NAMES {charset}"):
        pass


def split(sql: str) -> list[str]:
    """The statements of a multi-statement text (MySQL's splitting rules: quotes, comments, ``;``)."""
    return [s for s in split_statements(sql) if s.strip()]


def execute(
    session: Any, sql: str, intercept: Interceptor | None = None, *, statements: list[str] | None = None
) -> Iterator[StatementResult]:
    """Run ``sql`` (one or more statements); yield one result per statement, in order.

    ``intercept`` sees each statement first and may answer it (returning a result) instead of the engine.
    ``statements`` is ``split(sql)`` when the caller has it already.

    Raises:
        MySQLError: from the failing statement (results of the statements before it were yielded first).
    """
    if statements is None:
        statements = split(sql)
    if not statements:
        raise mysql_error(1065)
    for text in statements:
        res = intercept(text) if intercept is not None else None
        if res is not None:
            session.note_result(res)  # ROW_COUNT() after CREATE USER / GRANT ... answered by the server
            yield res
            continue
        yield from session.execute(text)


def describe(session: Any, sql: str, param_count: int) -> tuple[Column, ...] | None:
    """The result-set columns a prepared statement will return (for COM_STMT_PREPARE_OK), or None for a statement
    without a result set (``session.prepare(sql).columns``; ``param_count`` is implied by the text).

    Raises:
        MySQLError: the statement does not parse or names unknown tables/columns (MySQL also fails at prepare).
    """
    return prepare(session, sql).columns


def prepare(session: Any, sql: str) -> Any:
    """COM_STMT_PREPARE: the engine's prepared statement (``param_count``, ``columns``, ``kind``, ``template``).

    Raises:
        MySQLError: 1065 / 1064 / 1146 / 1054 ... as MySQL's PREPARE.
    """
    return session.prepare(sql)


def execute_prepared(
    session: Any, stmt: Any, params: list[Any], intercept: Interceptor | None = None
) -> Iterator[StatementResult]:
    """COM_STMT_EXECUTE: run the engine's prepared ``stmt`` with ``params`` (typed values, bound by the engine);
    ``intercept`` sees the statement first as :func:`execute` does (privileges, server-level statements).

    Raises:
        MySQLError: 1210 for a wrong number of values; what the statement fails with.
    """
    from gtidkit.engine.statements.prepared import bound_text

    if stmt.kind in ("select", "dml"):
        if (
            intercept is not None and intercept(stmt.template) is not None
        ):  # pragma: no cover - never answered
            raise mysql_error(1235, "this statement as a prepared statement")
        yield from session.execute_prepared(stmt, params)
        return
    if len(params) != stmt.param_count:
        raise mysql_error(1210, "mysqld_stmt_execute")
    yield from execute(session, bound_text(stmt.text, stmt.positions, params), intercept)


def reset_session(session: Any) -> None:
    """COM_RESET_CONNECTION / COM_CHANGE_USER: roll back, forget user variables and session values, deallocate
    SQL-level prepared statements and drop the session's temporary tables (``THD::cleanup_connection``).

    Raises:
        MySQLError: from the rollback.
    """
    session.execute("ROLLBACK")
    session.user_vars.clear()
    session.session_vars.clear()
    session.sql_prepared.clear()
    session.drop_temporary_tables()


#: SHOW COLUMNS type prefix -> (FieldType, collation, display length, flags) for COM_FIELD_LIST.
_SQL_TYPES: dict[str, tuple[int, int, int, int]] = {
    "tinyint": (FieldType.MYSQL_TYPE_TINY, BINARY_COLLATION, 4, ColumnFlag.NUM),
    "smallint": (FieldType.MYSQL_TYPE_SHORT, BINARY_COLLATION, 6, ColumnFlag.NUM),
    "mediumint": (FieldType.MYSQL_TYPE_INT24, BINARY_COLLATION, 9, ColumnFlag.NUM),
    "int": (FieldType.MYSQL_TYPE_LONG, BINARY_COLLATION, 11, ColumnFlag.NUM),
    "integer": (FieldType.MYSQL_TYPE_LONG, BINARY_COLLATION, 11, ColumnFlag.NUM),
    "bigint": (FieldType.MYSQL_TYPE_LONGLONG, BINARY_COLLATION, 20, ColumnFlag.NUM),
    "double": (FieldType.MYSQL_TYPE_DOUBLE, BINARY_COLLATION, 22, ColumnFlag.NUM),
    "float": (FieldType.MYSQL_TYPE_FLOAT, BINARY_COLLATION, 12, ColumnFlag.NUM),
    "decimal": (FieldType.MYSQL_TYPE_NEWDECIMAL, BINARY_COLLATION, 11, ColumnFlag.NUM),
    "datetime": (FieldType.MYSQL_TYPE_DATETIME, BINARY_COLLATION, 19, ColumnFlag.BINARY),
    "timestamp": (FieldType.MYSQL_TYPE_TIMESTAMP, BINARY_COLLATION, 19, ColumnFlag.BINARY),
    "date": (FieldType.MYSQL_TYPE_DATE, BINARY_COLLATION, 10, ColumnFlag.BINARY),
    "time": (FieldType.MYSQL_TYPE_TIME, BINARY_COLLATION, 10, ColumnFlag.BINARY),
    "blob": (FieldType.MYSQL_TYPE_BLOB, BINARY_COLLATION, 65535, ColumnFlag.BLOB | ColumnFlag.BINARY),
    "varbinary": (FieldType.MYSQL_TYPE_VAR_STRING, BINARY_COLLATION, 255, ColumnFlag.BINARY),
    "text": (FieldType.MYSQL_TYPE_BLOB, UTF8MB4_0900_AI_CI, 262140, ColumnFlag.BLOB),
    "char": (FieldType.MYSQL_TYPE_STRING, UTF8MB4_0900_AI_CI, 4, 0),
    "varchar": (FieldType.MYSQL_TYPE_VAR_STRING, UTF8MB4_0900_AI_CI, 1020, 0),
}


def field_list(session: Any, table: str, wildcard: str = "") -> list[Column]:
    """COM_FIELD_LIST: the columns of ``table`` in the current schema (names matching ``wildcard``).

    Raises:
        MySQLError: 1046 no database selected, 1146 unknown table.
    """
    import re

    db = session.current_db
    if not db:
        raise mysql_error(1046)
    quoted = table.replace("`", "``")
    res = session.execute(f"SHOW COLUMNS FROM `{quoted}`")[0]
    pattern = None
    if wildcard:
        pattern = "".join(".*" if c == "%" else "." if c == "_" else re.escape(c) for c in wildcard)
    out = []
    for row in res.rows:
        name, sql_type, nullable, key = str(row[0]), str(row[1]).lower(), str(row[2]), str(row[3] or "")
        if pattern and not re.fullmatch(pattern, name, re.IGNORECASE):
            continue
        base = re.match(r"[a-z]+", sql_type)
        ftype, charset, length, flags = _SQL_TYPES.get(base.group(0) if base else "", _SQL_TYPES["varchar"])
        m = re.search(r"\((\d+)", sql_type)
        if (
            m
            and ftype in (FieldType.MYSQL_TYPE_VAR_STRING, FieldType.MYSQL_TYPE_STRING)
            and charset != BINARY_COLLATION
        ):
            length = int(m.group(1)) * 4
        if nullable.upper() == "NO":
            flags |= ColumnFlag.NOT_NULL
        if key == "PRI":
            flags |= ColumnFlag.PRI_KEY
        if "unsigned" in sql_type:
            flags |= ColumnFlag.UNSIGNED
        out.append(
            Column(
                name=name,
                org_name=name,
                table=table,
                org_table=table,
                schema=db,
                type=ftype,
                charset=charset,
                length=length,
                flags=flags,
            )
        )
    return out
