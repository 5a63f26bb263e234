"""The one place where the protocol meets the engine's Session API (STYLE.md section 5).

Everything the wire server needs from a session goes through the functions here: run a statement text and get
one :class:`~gtidkit.engine.results.StatementResult` per statement (column metadata, rows, OK-packet fields,
status flags, session-state changes), the session's idle status flags, its CONNECTION_ID(), its current schema.
The rest of :mod:`gtidkit.protocol` only reads the attributes of these results. The session-state changes
(``session_track_*``) are decided by the engine (:mod:`gtidkit.engine.tracking`); the protocol only encodes them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Protocol

from gtidkit.engine.api import bound_text, split_statements
from gtidkit.engine.results import Column, StateChange, StatementResult
from gtidkit.errors import MySQLError
from gtidkit.mysql_errors import mysql_error
from gtidkit.protocol.constants import (
    BINARY_COLLATION,
    UTF8MB4_0900_AI_CI,
    ColumnFlag,
    FieldType,
    ServerStatus,
)

__all__ = [
    "Column",
    "EngineAPI",
    "PreparedAPI",
    "SessionAPI",
    "StateChange",
    "StatementResult",
]

#: ``{(schema, table): () -> rows}``: the rows of a per-query system table (information_schema.PROCESSLIST ...)
TableProviders = dict[tuple[str, str], Callable[[], list[tuple[Any, ...]]]]


class PreparedAPI(Protocol):
    """What the protocol reads of an engine prepared statement (``session.prepare(sql)``,
    :class:`gtidkit.engine.statements.prepared.PreparedStatement`)."""

    @property
    def text(self) -> str:
        """The statement as given, with its ``?`` placeholders."""
        ...

    @property
    def param_count(self) -> int:
        """Number of placeholders."""
        ...

    @property
    def columns(self) -> tuple[Column, ...] | None:
        """The result-set metadata EXECUTE returns (None: an OK packet)."""
        ...

    @property
    def kind(self) -> str:
        """The statement's kind ("select", "dml", "begin", ...)."""
        ...

    @property
    def positions(self) -> tuple[int, ...]:
        """Offsets of the placeholders in :attr:`text`."""
        ...

    @property
    def template(self) -> str:
        """:attr:`text` with placeholder i written ``:gp<i>``."""
        ...


class _Globals(Protocol):
    @property
    def values(self) -> dict[str, Any]: ...


class _ServerGlobals(Protocol):
    @property
    def globals(self) -> _Globals: ...


class _Executor(Protocol):
    @property
    def virtual_tables(self) -> TableProviders: ...


class _Tracker(Protocol):
    @property
    def transaction_active(self) -> bool: ...


class SessionAPI(Protocol):
    """Everything the wire server uses of an engine session (:class:`gtidkit.engine.session.Session` is one;
    mypy checks that at the end of this block). Only this module reads these members; the rest
    of :mod:`gtidkit.protocol` calls the functions below."""

    @property
    def id(self) -> int:
        """The session id (CONNECTION_ID())."""
        ...

    #: the privilege check of the authenticated client (engine/statements/access.py Authorizer), None: none
    authorizer: Any
    #: LOAD DATA LOCAL's file request (``reader(file_name) -> bytes``), None when the client cannot send files
    local_infile_reader: Any
    #: the wire server's connection the session serves (what the wire server's statement handlers act on)
    client: Any

    #: the TLS cipher / protocol version of the client connection (Ssl_cipher / Ssl_version), "" without TLS
    tls_cipher: str
    tls_version: str
    #: COM_STMT_PREPARE statements the wire server holds for the session (Prepared_stmt_count)
    wire_prepared: int

    def set_wire_prepared(self, count: int) -> None:
        """Record (and publish across workers) how many COM_STMT_PREPARE statements the wire server holds."""
        ...

    #: the session's statement counters (engine/statements/com_counters.py)
    status_counts: list[int]

    def count_command(self, command: str) -> None:
        """A client command arrived: its Com_ counter and Questions (``"query"``, ``"ping"``, ``"stmt_execute"``
        ...: engine/statements/com_counters.py ``COMMAND_COUNTERS``)."""
        ...

    #: whether the client connection is TLS (CHANGE REPLICATION SOURCE's note 1759 looks at it)
    secure_transport: bool

    #: whether read_only lets this session write (SUPER / CONNECTION_ADMIN; super_read_only still refuses)
    read_only_exempt: bool

    @property
    def current_db(self) -> str | None:
        """The default database."""
        ...

    @property
    def killed(self) -> bool:
        """KILL CONNECTION or COMMIT/ROLLBACK RELEASE ended the session."""
        ...

    @property
    def stage(self) -> str:
        """The thread stage a waiting statement shows ("" when none)."""
        ...

    @property
    def session_vars(self) -> dict[str, Any]:
        """Session values of system variables set in this session (name -> value)."""
        ...

    @property
    def user_vars(self) -> dict[str, Any]:
        """User variables (``@name`` -> value)."""
        ...

    @property
    def sql_prepared(self) -> dict[str, Any]:
        """SQL PREPARE'd statements by lowercase name."""
        ...

    @property
    def account_outcome(self) -> Any:
        """What the last account statement did (``engine.accounts.statements.Outcome``), or None."""
        ...

    @property
    def server(self) -> _ServerGlobals:
        """The engine server (its global variable values)."""
        ...

    @property
    def executor(self) -> _Executor:
        """The session's SQL executor (its per-query system tables)."""
        ...

    @property
    def tracker(self) -> _Tracker:
        """The session-state tracker (whether a transaction is active)."""
        ...

    def execute(self, sql: str, *, lexed: bool = False, split: bool = True) -> list[StatementResult]:
        """Run ``sql``; one result per statement (``lexed``: already rewritten for NO_BACKSLASH_ESCAPES;
        ``split=False``: ``sql`` is one statement the wire server split)."""
        ...

    def drop_temporary_tables(self) -> None:
        """Drop every temporary table of the session (COM_RESET_CONNECTION)."""
        ...

    def no_backslash_escapes(self) -> bool:
        """Whether sql_mode has NO_BACKSLASH_ESCAPES (how the session lexes string literals)."""
        ...

    def lexed(self, sql: str) -> str:
        """``sql`` rewritten once to the default lexing when the session's sql_mode has NO_BACKSLASH_ESCAPES."""
        ...

    def prepare(self, sql: str) -> PreparedAPI:
        """COM_STMT_PREPARE: a :class:`PreparedAPI`."""
        ...

    def execute_prepared(
        self, stmt: PreparedAPI, params: list[Any] | tuple[Any, ...]
    ) -> list[StatementResult]:
        """COM_STMT_EXECUTE of a SELECT / DML prepared by :meth:`prepare`."""
        ...

    def note_result(self, res: StatementResult, *, select: bool = False) -> None:
        """Record a result the server answered itself (ROW_COUNT(), warnings)."""
        ...

    def set_account(self, user: str, host: str, priv_user: str, priv_host: str) -> None:
        """Who authenticated (USER() / CURRENT_USER())."""
        ...

    def interrupt(self) -> None:
        """KILL QUERY."""
        ...

    def in_transaction(self) -> bool:
        """A storage transaction is open."""
        ...

    def autocommit(self) -> bool:
        """``@@autocommit`` of the session."""
        ...

    def resolve_sysvar(self, name: str, scope: str | None = None) -> Any:
        """``@@[scope.]name``."""
        ...

    def close(self) -> None:
        """Roll back and release the session."""
        ...


class EngineAPI(Protocol):
    """What the wire server uses of the engine server to serve connections: one session per connection."""

    def session(self, connection_id: int | None = None) -> SessionAPI:
        """A new session (with ``connection_id`` when a supervisor allocated it)."""
        ...


if TYPE_CHECKING:  # the engine's classes have the shapes above (mypy checks these assignments)
    from gtidkit.engine.server import Server as _Server
    from gtidkit.engine.session import Session as _Session

    def _session_is_a_session_api(s: _Session) -> SessionAPI:
        return s

    def _server_is_an_engine_api(s: _Server) -> EngineAPI:
        return s


def open_session(server: EngineAPI, connection_id: int | None = None) -> SessionAPI:
    """A new engine session of ``server`` (one per client connection); ``connection_id``: the id a supervisor
    allocated for a connection it handed over (None: the engine's next id)."""
    return server.session(connection_id)


def connection_id(session: SessionAPI) -> int:
    """The session's CONNECTION_ID() (what the Handshake and SHOW PROCESSLIST show)."""
    return int(session.id) & 0xFFFFFFFF


def current_schema(session: SessionAPI) -> str | None:
    """The session's default database, or None."""
    return session.current_db


def set_account(
    session: SessionAPI,
    user: str,
    host: str,
    priv_user: str,
    priv_host: str,
    authorizer: Any = None,
    client: Any = None,
) -> None:
    """Tell the engine session who authenticated: the client's ``user``/``host`` (USER()) and the matched
    account ``priv_user``/``priv_host`` (CURRENT_USER()). From now on ``authorizer`` (an
    :class:`gtidkit.engine.statements.access.Authorizer`) checks the privileges of each statement the session
    runs, and the statements the wire server registered in the engine's statement specs
    (:func:`gtidkit.protocol.admin.register`) act on ``client``, the connection (a ``ClientHandler``)."""
    session.set_account(user, host, priv_user, priv_host)
    session.authorizer = authorizer
    session.client = client


def set_local_infile_reader(session: SessionAPI, reader: Any) -> None:
    """Give the engine session the client's file reader for LOAD DATA LOCAL (``reader(file_name) -> bytes``: the
    protocol's LOCAL INFILE request and the file's packets), or None when the client did not offer
    CLIENT_LOCAL_FILES (then LOAD DATA LOCAL is 3948)."""
    session.local_infile_reader = reader


def set_tls(session: SessionAPI, cipher: str, version: str) -> None:
    """Tell the engine session its connection is encrypted: Ssl_cipher / Ssl_version in SHOW STATUS."""
    session.tls_cipher = cipher
    session.tls_version = version


def set_wire_prepared(session: SessionAPI, count: int) -> None:
    """Tell the engine session how many COM_STMT_PREPARE statements the wire server holds for it
    (Prepared_stmt_count, max_prepared_stmt_count)."""
    session.set_wire_prepared(count)


def start_interactive(session: SessionAPI) -> None:
    """A CLIENT_INTERACTIVE client logged in: its session ``wait_timeout`` is the global ``interactive_timeout``
    (``sql/sql_connect.cc``, RM8 "wait_timeout")."""
    session.session_vars["wait_timeout"] = session.server.globals.values["interactive_timeout"]


def interrupt(session: SessionAPI) -> None:
    """KILL QUERY: stop the statement ``session`` runs now (a SLEEP() returns 1, anything else fails with 1317).

    Safe from another thread; a session between statements is not affected (the flag is cleared when its next
    statement starts).
    """
    session.interrupt()


def session_ended(session: SessionAPI | None) -> bool:
    """The engine session asked for its connection to end once the current answer is sent: ``COMMIT RELEASE`` /
    ``ROLLBACK RELEASE`` (or ``completion_type=RELEASE``), which set MySQL's ``thd->killed = KILL_CONNECTION``;
    mysqld sends the statement's OK, then closes the connection (the client's next command fails with 2013)."""
    return bool(session is not None and session.killed)


def stage(session: SessionAPI) -> str:
    """The thread stage a waiting statement shows in PROCESSLIST's State ("" when none, e.g.
    "Waiting for GTID to be committed" inside WAIT_FOR_EXECUTED_GTID_SET)."""
    return str(getattr(session, "stage", "") or "")


def provide_tables(session: SessionAPI, providers: TableProviders) -> None:
    """Fill the engine's per-query system tables from the server: ``{(schema, table): () -> rows}`` (e.g.
    ``("information_schema", "PROCESSLIST")``, see ``gtidkit.engine.sql.catalog.PROCESSLIST_TABLES``)."""
    session.executor.virtual_tables.update(providers)


def status_flags(session: SessionAPI) -> int:
    """SERVER_STATUS_* of the session between statements: AUTOCOMMIT, IN_TRANS, NO_BACKSLASH_ESCAPES."""
    flags = 0
    if _autocommit(session):
        flags |= ServerStatus.SERVER_STATUS_AUTOCOMMIT
    if session.in_transaction() or session.tracker.transaction_active:
        flags |= ServerStatus.SERVER_STATUS_IN_TRANS
    if session.no_backslash_escapes():
        flags |= ServerStatus.SERVER_STATUS_NO_BACKSLASH_ESCAPES
    return flags


def set_read_only_exempt(session: SessionAPI, exempt: bool) -> None:
    """Whether ``read_only`` lets ``session``'s account write (it holds SUPER or CONNECTION_ADMIN; RM 8.4
    "read_only"): the engine's check_read_only reads it; super_read_only refuses every account."""
    session.read_only_exempt = exempt


def set_secure_transport(session: SessionAPI, secure: bool) -> None:
    """Record that ``session``'s client connection switched to TLS (``Protocol_classic::get_vio_type``)."""
    session.secure_transport = secure


def _autocommit(session: SessionAPI) -> bool:
    return bool(session.autocommit())


def sysvar(session: SessionAPI, name: str) -> Any:
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


def wait_timeout(session: SessionAPI) -> float:
    """``@@SESSION.wait_timeout`` of ``session`` in seconds (the session value, else the global one): what
    :func:`sysvar` gives for it, read from the variable dictionaries directly (the socket edge asks before every
    command; an INT variable has no reader of its own and displays as stored)."""
    sv = session.session_vars
    return float(
        sv["wait_timeout"] if "wait_timeout" in sv else session.server.globals.values["wait_timeout"]
    )


def connection_charsets(session: SessionAPI) -> tuple[str, str | None]:
    """``(character_set_client, character_set_results)`` of ``session`` (session values, else the global ones);
    results is None when ``character_set_results`` is NULL (RM 8.4 "Connection Character Sets and Collations":
    no conversion)."""
    sv = session.session_vars
    glob = session.server.globals.values
    client = sv["character_set_client"] if "character_set_client" in sv else glob["character_set_client"]
    results = sv["character_set_results"] if "character_set_results" in sv else glob["character_set_results"]
    return str(client or "utf8mb4"), (None if results is None else str(results))


def native_charsets(session: SessionAPI) -> bool:
    """True when ``session``'s character_set_client and character_set_results (:func:`connection_charsets`) need no
    conversion of statement text, parameters or results: each is utf8mb4 / utf8mb3 / utf8 / binary in any case,
    results also NULL. The per-command test of the wire server's COM_STMT_EXECUTE short path: the answer is kept
    per pair of stored values."""
    sv = session.session_vars
    glob = session.server.globals.values
    key = (
        sv.get("character_set_client", _UNSET),
        sv.get("character_set_results", _UNSET),
        glob["character_set_client"],
        glob["character_set_results"],
    )
    native = _NATIVE_PAIRS.get(key)
    if native is None:
        client, results = connection_charsets(session)
        native = client.lower() in NATIVE_CHARSETS and (results is None or results.lower() in NATIVE_CHARSETS)
        if len(_NATIVE_PAIRS) >= 64:
            _NATIVE_PAIRS.clear()
        _NATIVE_PAIRS[key] = native
    return native


#: character sets whose text the engine's UTF-8 strings are already (``binary`` is passed through)
NATIVE_CHARSETS = frozenset({"utf8mb4", "utf8mb3", "utf8", "binary"})
#: (character_set_client, character_set_results) as stored for the session (:data:`_UNSET` when it has no value
#: of its own), then as stored globally -> :func:`native_charsets`' answer
_NATIVE_PAIRS: dict[tuple[Any, Any, Any, Any], bool] = {}
#: a session variable without a session value
_UNSET = object()


def set_names(session: SessionAPI, charset: str) -> None:
    """What a HandshakeResponse's collation does (``thd_init_client_charset``): character_set_client,
    _connection and _results all become ``charset`` (its default collation for collation_connection)."""
    for _ in session.execute(f"SET NAMES {charset}"):
        pass


def split(sql: str, session: Any = None) -> list[str]:
    """The statements of a multi-statement text (MySQL's splitting rules: quotes, comments, ``;``), its strings
    lexed as ``session``'s sql_mode says (NO_BACKSLASH_ESCAPES)."""
    escapes = session is None or not session.no_backslash_escapes()
    return [s for s in split_statements(sql, backslash_escapes=escapes) if s.strip()]


def one_statement(sql: str) -> bool:
    """True when ``sql`` is one statement as it stands: :func:`split` of it is ``[sql]`` under any sql_mode (no
    ``;``, no comment marker, no outer whitespace, not empty; ``split_statements``' own shortcut)."""
    return (
        ";" not in sql
        and "--" not in sql
        and "#" not in sql
        and "/*" not in sql
        and sql != ""
        and sql.strip() == sql
    )


def execute(
    session: SessionAPI, sql: str, *, statements: list[str] | None = None, lexed: bool = False
) -> Iterator[StatementResult]:
    """Run ``sql`` (one or more statements); yield one result per statement, in order. ``statements`` is
    ``split(sql, session)`` when the caller has it already (the text is split once). ``lexed``: the text is in the
    engine's lexing already (a prepared statement's text with its values bound), see ``Session.execute``.

    Raises:
        MySQLError: from the failing statement (results of the statements before it were yielded first).
    """
    if statements is None:
        statements = split(sql, None if lexed else session)
    if not statements:
        raise mysql_error(1065)
    for i, text in enumerate(statements):
        if (
            i
        ):  # each statement of a multi-statement COM_QUERY is a question (the first one's was its command's)
            session.count_command("query")
        yield from session.execute(text, lexed=lexed, split=False)


def describe(session: SessionAPI, sql: str, param_count: int) -> tuple[Column, ...] | None:
    """The result-set columns a prepared statement will return (for COM_STMT_PREPARE_OK), or None for a statement
    without a result set (``session.prepare(sql).columns``; ``param_count`` is implied by the text).

    Raises:
        MySQLError: the statement does not parse or names unknown tables/columns (MySQL also fails at prepare).
    """
    return prepare(session, sql).columns


def prepare(session: SessionAPI, sql: str) -> PreparedAPI:
    """COM_STMT_PREPARE: the engine's prepared statement (``param_count``, ``columns``, ``kind``, ``template``).

    Raises:
        MySQLError: 1065 / 1064 / 1146 / 1054 ... as MySQL's PREPARE.
    """
    return session.prepare(sql)


def execute_prepared(session: SessionAPI, stmt: PreparedAPI, params: list[Any]) -> Iterator[StatementResult]:
    """COM_STMT_EXECUTE: run the engine's prepared ``stmt`` with ``params`` (typed values, bound by the engine).

    Raises:
        MySQLError: 1210 for a wrong number of values; what the statement fails with.
    """
    if stmt.kind in ("select", "dml"):  # never a server-level statement
        yield from session.execute_prepared(stmt, params)
        return
    if len(params) != stmt.param_count:
        raise mysql_error(1210, "mysqld_stmt_execute")
    yield from execute(session, bound_text(stmt.text, stmt.positions, params), lexed=True)


def reset_session(session: SessionAPI) -> None:
    """COM_RESET_CONNECTION / COM_CHANGE_USER: roll back, forget user variables and session values, deallocate
    SQL-level prepared statements and drop the session's temporary tables (``THD::cleanup_connection``).

    Raises:
        MySQLError: from the rollback.
    """
    counts = list(session.status_counts)
    session.execute("ROLLBACK")
    session.status_counts[:] = (
        counts  # the command's own rollback is no ROLLBACK statement (Com_rollback, Queries)
    )
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


def field_list(session: SessionAPI, table: str, wildcard: str = "") -> list[Column]:
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
