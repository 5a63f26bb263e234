"""One client connection's logic: authentication, command dispatch, results to packets. No sockets here.

Sources: MySQL ``sql/auth/sql_authentication.cc`` (``acl_authenticate``: account lookup, plugin switch, error
1045), ``sql/sql_parse.cc`` (``dispatch_command``: one ``case`` per COM_*), ``sql/sql_prepare.cc`` and
``sql/protocol_classic.cc`` (result sets, OK/EOF with SERVER_MORE_RESULTS_EXISTS between the results of a
multi-statement).

A :class:`ClientHandler` drives one :class:`~gtidkit.protocol.connection.ServerConnection`: the socket edge
(:mod:`gtidkit.protocol.server`) feeds it received bytes and writes back what it returns; everything else
(which account, which engine session, which packets) is decided here, through the single engine seam
(:mod:`gtidkit.protocol.engine_seam`). Tests drive a handler with bytes in memory, exactly as the edge does.
"""

from __future__ import annotations

import dataclasses
import logging
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gtidkit.engine import charsets
from gtidkit.engine.accounts.store import Account, AccountStore
from gtidkit.errors import MySQLError, ProtocolError, RemoteProtocolError
from gtidkit.mysql_errors import mysql_error
from gtidkit.protocol import auth, engine_seam, privileges
from gtidkit.protocol.connection import (
    NEED_DATA,
    PAUSED,
    ConnectionClosed,
    ServerConnection,
    State,
    Statistics,
)
from gtidkit.protocol.constants import (
    BINARY_COLLATION,
    CAP_FOUND_ROWS,
    CAP_QUERY_ATTRIBUTES,
    CAP_SESSION_TRACK,
    FLAG_NUM,
    FLAG_UNSIGNED,
    SERVER_CAPABILITIES,
    STATUS_MORE_RESULTS_EXISTS,
    STATUS_SESSION_STATE_CHANGED,
    Capability,
    FieldType,
    ServerStatus,
)
from gtidkit.protocol.messages import (
    AuthData,
    AuthMoreData,
    AuthSwitchRequest,
    ColumnDefinition,
    ComChangeUser,
    ComDebug,
    ComFieldList,
    ComInitDb,
    ComPing,
    ComProcessKill,
    ComQuery,
    ComQuit,
    ComResetConnection,
    ComSetOption,
    ComStatistics,
    ComStmtClose,
    ComStmtExecute,
    ComStmtPrepare,
    ComStmtReset,
    ComStmtSendLongData,
    Eof,
    Err,
    Handshake,
    HandshakeResponse,
    LocalInfileRequest,
    Ok,
    SSLRequest,
    StmtPrepareOk,
    UnknownCommand,
)
from gtidkit.protocol.prepared import PreparedStatement
from gtidkit.protocol.session_tracker import encode_state
from gtidkit.protocol.wire_fast import execute_parameters
from gtidkit.version import SERVER_VERSION

log = logging.getLogger("gtidkit.server")

#: status flags without SERVER_MORE_RESULTS_EXISTS (the last result of a command)
_NOT_MORE_RESULTS = ~STATUS_MORE_RESULTS_EXISTS & 0xFFFF
#: the command byte of COM_STMT_EXECUTE, as the fifth byte of its packet
_EXECUTE_BYTE = b"\x17"
#: the command byte of COM_QUERY, as the fifth byte of its packet
_QUERY_BYTE = b"\x03"
#: command byte + statement_id (4) + flags (1) + iteration_count (4)
_EXECUTE_FIXED = 10
#: COM_STMT_EXECUTE's statement_id: 4 bytes little-endian after the command byte
_STATEMENT_ID = struct.Struct("<I")
#: prepared statements whose execution is ``session.execute_prepared`` behind the privilege hook
_FAST_KINDS = frozenset({"select", "dml"})
#: COM_BINLOG_DUMP and COM_BINLOG_DUMP_GTID (command bytes; their hooks are replication's)
_BINLOG_DUMP_COMMANDS = frozenset({0x12, 0x1E})
#: client command -> its name in the engine's statement counters (Com_xxx, Questions: ``Session.count_command``)
_COMMAND_COUNTERS: dict[type, str] = {
    ComQuery: "query",
    ComStmtExecute: "stmt_execute",
    ComPing: "ping",
    ComQuit: "quit",
    ComInitDb: "init_db",
    ComFieldList: "field_list",
    ComStatistics: "statistics",
    ComSetOption: "set_option",
    ComDebug: "debug",
    ComResetConnection: "reset_connection",
    ComChangeUser: "change_user",
    ComProcessKill: "process_kill",
    ComStmtPrepare: "stmt_prepare",
    ComStmtSendLongData: "stmt_send_long_data",
    ComStmtClose: "stmt_close",
    ComStmtReset: "stmt_reset",
}


class StreamIO:
    """What a takeover hook gets: the connection's raw stream after a command it owns.

    Attributes:
        handler: the connection (``handler.current_account()`` for privilege checks, ``handler.session``).
        send: ``send(payload: bytes)`` frames one packet with the next sequence id and writes it.
        recv: ``recv() -> bytes | None`` reads the next whole client packet's payload (None when it closed).
    """

    def __init__(
        self, handler: ClientHandler, send: Callable[[bytes], None], recv: Callable[[], bytes | None]
    ) -> None:
        self.handler = handler
        self.send = send
        self.recv = recv


#: ``hook(io, command)``: serves one command (an :class:`~gtidkit.protocol.messages.UnknownCommand` with the
#: command byte and body) on the raw stream; returns True to go back to the command phase (sequence ids restart),
#: False to close the connection.
TakeoverHook = Callable[[StreamIO, Any], bool]


@dataclass
class ServerContext:
    """What every connection of one server shares.

    Attributes:
        engine: the engine ``Server``.
        accounts: the engine's account store (``engine.accounts``: the grant tables, cached).
        server_version: the version string of the Handshake (``@@version``).
        ssl_available: the server has a certificate (CLIENT_SSL is offered).
        rsa_keys: ``(private PEM, public PEM)`` for caching_sha2_password's key exchange, or None.
        max_allowed_packet: largest client packet accepted (bytes).
        sha2_cache: caching_sha2_password's fast-path cache: (user, host) -> (the authentication_string it was
            verified against, SHA256(SHA256(password))); an entry whose account has another stored hash now (ALTER
            USER here, or applied from a source) is not used.
        handlers: open connections by connection id (SHOW PROCESSLIST, KILL).
        request_shutdown: called by the SHUTDOWN statement.
        started: server start time (``time.monotonic()``), for COM_STATISTICS' Uptime.
    """

    engine: Any
    accounts: AccountStore
    server_version: str = SERVER_VERSION
    ssl_available: bool = False
    rsa_keys: tuple[bytes, bytes] | None = None
    max_allowed_packet: int = 64 * 1024 * 1024
    sha2_cache: dict[tuple[str, str], tuple[str, bytes]] = field(default_factory=dict)
    handlers: dict[int, ClientHandler] = field(default_factory=dict)
    request_shutdown: Callable[[], None] = lambda: None
    started: float = field(default_factory=time.monotonic)
    #: protocol bytes read from / written to this server's clients (SHOW GLOBAL STATUS Bytes_received /
    #: Bytes_sent; counted by the edge under :attr:`lock`, :meth:`count_bytes`)
    bytes_received: int = 0
    bytes_sent: int = 0
    #: command byte -> hook for commands served outside the request/response loop (the replication layer
    #: registers COM_BINLOG_DUMP / COM_BINLOG_DUMP_GTID / COM_REGISTER_SLAVE here); see :class:`StreamIO`.
    command_hooks: dict[int, TakeoverHook] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: run before each batch of client bytes is handled (a login step, a command): loads what another worker
    #: process of a multi-process server changed (SET GLOBAL, accounts: engine/shared_config.py); None in a
    #: one-process server
    refresh: Callable[[], None] | None = None

    def __post_init__(self) -> None:
        config = getattr(self.engine, "shared_config", None)
        if config is not None and self.refresh is None:
            self.refresh = config.refresh
        if getattr(self.engine, "statements", None) is not None:
            from gtidkit.protocol import admin

            admin.register(self.engine)  # SHUTDOWN, KILL: the engine's statement specs

    def count_bytes(self, received: int, sent: int) -> None:
        """Add ``received`` / ``sent`` protocol bytes of one exchange with a client (Bytes_received, Bytes_sent)."""
        with self.lock:
            self.bytes_received += received
            self.bytes_sent += sent

    def capabilities(self) -> Capability:
        """The capability flags offered in the Handshake."""
        caps = Capability(SERVER_CAPABILITIES)
        if self.ssl_available:
            caps |= Capability.SSL
        return caps


def _denied(user: str, host: str, with_password: bool) -> MySQLError:
    return mysql_error(1045, user, host, "YES" if with_password else "NO")


class ClientHandler:
    """The server's side of one client, from Handshake to COM_QUIT.

    Args:
        ctx: the shared :class:`ServerContext`.
        peer_host: the client's IP address (account host matching; ``localhost`` accounts match loopback).
        secure_transport: True for a connection that is already private (never for TCP; kept for tests).

    After each :meth:`receive_data`: ``want_tls`` asks the edge to start TLS now, ``closed`` to close.
    """

    def __init__(self, ctx: ServerContext, peer_host: str = "127.0.0.1") -> None:
        self.ctx = ctx
        self.peer_host = peer_host
        self.conn = ServerConnection(ctx.capabilities(), ctx.max_allowed_packet)
        self.session: engine_seam.SessionAPI | None = None
        self.connection_id = 0
        self.scramble = auth.generate_scramble()
        self.account: Account | None = None
        #: (account store version, self.account, current_account()): the account as stored, looked up again
        #: only when the store changed (every statement asks for it)
        self._current: tuple[int, Account, Account] | None = None
        self.user = ""
        self.want_tls = False
        self.tls_active = False
        self.closed = False
        self.multi_statements = True
        self.command = "Connect"
        self.command_started = time.monotonic()
        self.info: str | None = None
        self._auth_stage = ""
        self._pending_db: str | None = None
        #: the collation id of the HandshakeResponse / COM_CHANGE_USER (the connection's character sets)
        self._client_collation = 255
        self._client_plugin = ""
        self.statements: dict[int, PreparedStatement] = {}
        self._next_statement_id = 0
        self.killed = False
        #: SHUTDOWN was executed: the edge starts the server's shutdown once the OK is on the wire.
        self.shutdown_requested = False
        #: logged in with an expired password: only ALTER USER / SET PASSWORD until it is changed.
        self.sandbox = False
        #: (hook, command) when a registered command takes the stream over (see ServerContext.command_hooks).
        self.takeover: tuple[TakeoverHook, Any] | None = None
        #: set by the socket edge: close this connection from another thread (KILL).
        self.kill_hook: Callable[[], None] = lambda: None
        #: set by the socket edge: the OS thread id (``gettid``) serving this connection (performance_schema.threads
        #: THREAD_OS_ID), None when no thread of its own serves it
        self.os_thread_id: int | None = None
        #: set by a command hook while it runs (a binlog dump): stop that command from another thread (KILL QUERY,
        #: as MySQL's dump thread ends when it sees ``thd->killed``).
        self.kill_query_hook: Callable[[], None] = lambda: None
        #: set by the socket edge: ``(send, recv)``, writing bytes to the client now and reading what it sent (b""
        #: when it closed), for an exchange inside a command (LOAD DATA LOCAL's file request); None: no such
        #: exchange (LOAD DATA LOCAL is then 3948)
        self.stream: tuple[Callable[[bytes], None], Callable[[], bytes]] | None = None
        #: while :meth:`_query` runs: the bytes answered so far and the result not yet sent (it waits to learn
        #: whether more follow), which a LOCAL INFILE request must send first
        self._out: bytearray | None = None
        self._pending: Any = None
        #: (columns, their definition payloads, types, unsigned flags) of the last result set sent: a statement
        #: executed again gets the same engine Column objects back, so this is rarely rebuilt
        self._result_meta: tuple[Any, list[bytes], tuple[int, ...], tuple[bool, ...]] | None = None

    @property
    def live_session(self) -> engine_seam.SessionAPI:
        """The engine session of this open connection.

        Raises:
            MySQLError: 2006 when the connection was closed (its session released): no command runs after that.
        """
        session = self.session
        if session is None:
            raise mysql_error(2006)
        return session

    # ------------------------------------------------------------------ lifecycle
    def start(self, connection_id: int | None = None) -> bytes:
        """Open the engine session and return the Handshake bytes.

        Args:
            connection_id: the connection id a supervisor allocated (sent with the socket it handed over); None:
                the engine's next id.
        """
        self.session = engine_seam.open_session(self.ctx.engine, connection_id)
        self.connection_id = engine_seam.connection_id(self.live_session)
        with self.ctx.lock:
            self.ctx.handlers[self.connection_id] = self
        hs = Handshake(
            server_version=self.ctx.server_version,
            connection_id=self.connection_id,
            scramble=self.scramble,
            capabilities=self.ctx.capabilities(),
            status_flags=ServerStatus.SERVER_STATUS_AUTOCOMMIT,
            auth_plugin_name=self._default_plugin(),
        )
        return self.conn.send(hs)

    def _default_plugin(self) -> str:
        """The Handshake's plugin: ``default_authentication_plugin`` (5.7: mysql_native_password), or
        caching_sha2_password under 8.4, which has no such variable."""
        try:
            return str(engine_seam.sysvar(self.live_session, "default_authentication_plugin"))
        except MySQLError:
            return auth.CACHING_SHA2

    def refuse(self, code: int, message: str, sqlstate: str = "HY000") -> bytes:
        """An ERR packet instead of the Handshake (e.g. 1040 Too many connections); the connection closes."""
        self.closed = True
        return self.conn.send(Err(code, message, sqlstate))

    def close(self) -> None:
        """Release the engine session (rolling back an open transaction) and leave the process list."""
        self.closed = True
        with self.ctx.lock:
            self.ctx.handlers.pop(self.connection_id, None)
        if self.session is not None:
            session, self.session = self.session, None
            try:
                session.close()
            except MySQLError as err:
                log.warning("closing session %d: %s", self.connection_id, err)

    def tls_started(self, cipher: str = "", version: str = "") -> None:
        """The edge switched the stream to TLS with ``cipher`` (OpenSSL's name) and protocol ``version``
        (``TLSv1.3``): the session's Ssl_cipher / Ssl_version status."""
        self.want_tls = False
        self.tls_active = True
        if self.session is not None:
            engine_seam.set_secure_transport(self.session, True)
            engine_seam.set_tls(self.session, cipher, version)

    def idle_timeout(self) -> bytes:
        """ER_CLIENT_INTERACTION_TIMEOUT (4031) sent when wait_timeout expires; the connection then closes."""
        self.closed = True
        err = mysql_error(4031)
        return self.conn.send_error(err.code, err.message, err.sqlstate)

    def wait_timeout(self) -> float:
        """Seconds this connection may stay idle between commands: the session's ``wait_timeout``."""
        if self.session is None:
            return 28800.0  # closed: the default
        return engine_seam.wait_timeout(self.session)

    @property
    def in_command_phase(self) -> bool:
        """True between commands (where wait_timeout applies)."""
        return self.conn.state is State.COMMAND

    # ------------------------------------------------------------------ input
    def receive_data(self, data: bytes) -> bytes:
        """Feed bytes from the client (``b""`` = it closed); return the bytes to send back.

        Protocol violations are answered with an ERR packet (MySQL's code when it has one) and close the
        connection; they never escape.
        """
        refresh = self.ctx.refresh
        if (
            refresh is not None
        ):  # another worker process's SET GLOBAL / CREATE USER / GRANT, before this login
            refresh()  # step or command
        if data and not (self.closed or self.want_tls):
            command = data[4:5]
            if command == _EXECUTE_BYTE:
                fast = self._fast_execute(data)
                if fast is not None:
                    return fast
            elif command == _QUERY_BYTE:
                fast = self._fast_query(data)
                if fast is not None:
                    return fast
        self.conn.receive_data(data)
        out = bytearray()
        while not self.closed and not self.want_tls:
            try:
                event = self.conn.next_event()
            except ProtocolError as err:
                out += self.conn.send_error(err.code or 1835, err.message, err.sqlstate)
                self.closed = True
                break
            if event is NEED_DATA or event is PAUSED:
                break
            if isinstance(event, ConnectionClosed):
                self.closed = True
                break
            try:
                out += self._dispatch(event)
            except ProtocolError:
                raise
            except Exception as err:
                log.exception("internal error in connection %d", self.connection_id)
                out += self.conn.send_error(1815, f"Internal error: {type(err).__name__}: {err}")
                self.closed = True
        return bytes(out)

    def _dispatch(self, event: Any) -> bytes:
        if isinstance(event, SSLRequest):
            self.want_tls = True
            return b""
        if isinstance(event, HandshakeResponse):
            return self._handshake_response(event)
        if isinstance(event, AuthData):
            return self._auth_data(event.data)
        self.command = "Query"
        self.command_started = time.monotonic()
        try:
            return self._command(event)
        finally:
            self.command = "Sleep"
            self.info = None
            self.command_started = time.monotonic()

    # ------------------------------------------------------------------ authentication
    def _fail_auth(self, err: MySQLError) -> bytes:
        self.closed = True
        log.info("Access denied for connection %d: %s", self.connection_id, err.message)
        return self.conn.send(Err(err.code, err.message, err.sqlstate))

    def _handshake_response(self, resp: HandshakeResponse) -> bytes:
        self.user = resp.username
        self._pending_db = resp.database or None
        self.multi_statements = bool(resp.capabilities & Capability.MULTI_STATEMENTS)
        self._client_plugin = resp.auth_plugin_name or auth.NATIVE
        self._client_collation = resp.character_set
        return self._begin_auth(resp.username, resp.auth_response, self._client_plugin)

    def _begin_auth(self, user: str, token: bytes, client_plugin: str) -> bytes:
        account = self.ctx.accounts.find(user, self.peer_host)
        if account is None:
            return self._fail_auth(_denied(user, self.peer_host_name(), bool(token)))
        self.account = account
        if client_plugin != account.plugin:
            self._auth_stage = "switched"
            return self.conn.send(AuthSwitchRequest(account.plugin, self.scramble))
        return self._verify_token(token)

    def current_account(self) -> Account | None:
        """The logged-in account as stored now (GRANT / REVOKE take effect at once, as in MySQL)."""
        account = self.account
        if account is None:
            return None
        store = self.ctx.accounts
        version = store.version  # read before the lookup: a change made in between is seen next time
        cached = self._current
        if cached is not None and cached[0] == version and cached[1] is account:
            return cached[2]
        current = store.get(account.user, account.host) or account
        self._current = (version, account, current)
        return current

    def peer_host_name(self) -> str:
        """The host part MySQL shows in messages and PROCESSLIST (``localhost`` for loopback)."""
        return "localhost" if self.peer_host in ("127.0.0.1", "::1") else self.peer_host

    def _verify_token(self, token: bytes) -> bytes:
        acc = self.account
        assert acc is not None
        if acc.plugin == auth.NATIVE:
            if auth.native_verify(acc.authentication_string, self.scramble, token):
                return self._auth_ok()
            return self._fail_auth(_denied(self.user, self.peer_host_name(), bool(token)))
        if acc.plugin == auth.SHA256:
            return self._sha256_token(token)
        # caching_sha2_password
        if not acc.authentication_string:
            if token in (b"", b"\0"):
                return self._auth_ok()
            return self._fail_auth(_denied(self.user, self.peer_host_name(), True))
        if token in (b"", b"\0"):
            return self._fail_auth(_denied(self.user, self.peer_host_name(), False))
        cached = self.ctx.sha2_cache.get((acc.user, acc.host))
        if (
            cached is not None
            and cached[0] == acc.authentication_string
            and auth.sha2_fast_verify(cached[1], self.scramble, token)
        ):
            return self.conn.send(AuthMoreData(auth.FAST_AUTH_SUCCESS)) + self._auth_ok()
        self._auth_stage = "full"
        return self.conn.send(AuthMoreData(auth.PERFORM_FULL_AUTHENTICATION))

    def _sha256_token(self, token: bytes) -> bytes:
        """sha256_password (``sha256_password_authenticate``): an empty password is an empty token or NUL; over
        TLS the client sends the password in clear, NUL-terminated; otherwise it asks for the RSA public key with
        ``\\x01`` (answered as AuthMoreData) and sends the password XOR the scramble, RSA-OAEP encrypted."""
        acc = self.account
        assert acc is not None
        if token in (b"", b"\0"):
            if not acc.authentication_string:
                return self._auth_ok()
            return self._fail_auth(_denied(self.user, self.peer_host_name(), False))
        if self.tls_active:
            password: str | None = auth.clear_password(token)
        elif token == auth.SHA256_REQUEST_PUBLIC_KEY:
            if self.ctx.rsa_keys is None:
                return self._fail_auth(_denied(self.user, self.peer_host_name(), True))
            self._auth_stage = "sha256_rsa"
            return self.conn.send(AuthMoreData(self.ctx.rsa_keys[1]))
        elif self.ctx.rsa_keys is not None:
            password = auth.rsa_decrypt_password(self.ctx.rsa_keys[0], token, self.scramble)
        else:
            password = None
        if password is not None and auth.sha2_check_password(acc.authentication_string, password):
            return self._auth_ok()
        return self._fail_auth(_denied(self.user, self.peer_host_name(), True))

    def _auth_data(self, data: bytes) -> bytes:
        acc = self.account
        assert acc is not None
        if self._auth_stage == "switched":
            self._auth_stage = ""
            return self._verify_token(data)
        if self._auth_stage == "sha256_rsa":
            self._auth_stage = ""
            return self._sha256_token(data)
        if self._auth_stage == "full":
            if data == auth.REQUEST_PUBLIC_KEY:
                if self.ctx.rsa_keys is None:
                    return self._fail_auth(_denied(self.user, self.peer_host_name(), True))
                return self.conn.send(AuthMoreData(self.ctx.rsa_keys[1]))
            if self.tls_active:
                password: str | None = auth.clear_password(data)
            elif self.ctx.rsa_keys is not None:
                password = auth.rsa_decrypt_password(self.ctx.rsa_keys[0], data, self.scramble)
            else:
                password = None
            if password is not None and auth.sha2_check_password(acc.authentication_string, password):
                with self.ctx.lock:
                    self.ctx.sha2_cache[(acc.user, acc.host)] = (
                        acc.authentication_string,
                        auth.sha2_cache_entry(password),
                    )
                return self._auth_ok()
            return self._fail_auth(_denied(self.user, self.peer_host_name(), True))
        return self._fail_auth(_denied(self.user, self.peer_host_name(), True))

    def _auth_ok(self) -> bytes:
        self._auth_stage = ""
        acc = self.current_account()
        if acc is not None and acc.account_locked:
            # sql_authentication.cc: a locked account (ACCOUNT LOCK, every role) is refused after authentication
            return self._fail_auth(mysql_error(3118, self.user, self.peer_host_name()))
        if acc is not None and acc.ssl_type and not self.tls_active:
            # acl_check_ssl: REQUIRE SSL / X509 over a plain connection is refused as a wrong password is (1045);
            # X509's client certificate is not verified here (the TLS edge asks for none)
            return self._fail_auth(_denied(self.user, self.peer_host_name(), bool(acc.authentication_string)))
        # the client's collation sets the connection's character sets (sql_connect.cc thd_init_client_charset): an
        # unknown one, or one no client may use (ucs2, utf16, utf32), leaves the server's defaults
        cs = charsets.for_collation_id(self._client_collation)
        if (
            cs is not None
            and cs.client_ok
            and cs.name != engine_seam.connection_charsets(self.live_session)[0]
        ):
            engine_seam.set_names(self.live_session, cs.name)
        if self._pending_db:
            db, self._pending_db = self._pending_db, None
            try:
                if not privileges.any_on_db(self.current_account(), db):
                    raise mysql_error(1044, self.user, self.peer_host_name(), db)
                for _ in engine_seam.execute(self.live_session, f"USE `{db.replace('`', '``')}`"):
                    pass
            except MySQLError as err:
                self.closed = True
                return self.conn.send(Err(err.code, err.message, err.sqlstate))
        account = self.current_account()
        if account is not None and account.password_expired:
            # sql_authentication.cc: a client that cannot handle expired passwords is refused (1862); the others
            # enter the sandbox, where only ALTER USER / SET PASSWORD run (1820 for the rest)
            if not self.conn.client_capabilities & Capability.CAN_HANDLE_EXPIRED_PASSWORDS:
                self.closed = True
                return self.conn.send(
                    Err(
                        1862,
                        "Your password has expired. To log in you must change it using a "
                        "client that supports expired passwords.",
                        "HY000",
                    )
                )
            self.sandbox = True
        if account is not None:
            from gtidkit.protocol import admin

            engine_seam.set_account(
                self.live_session,
                self.user,
                self.peer_host_name(),
                account.user,
                account.host,
                privileges.AccountAuthorizer(self),
                self,
            )
            admin.attach(self)
            # read_only lets SUPER / CONNECTION_ADMIN write; refreshed before each statement (protocol/privileges.py)
            engine_seam.set_read_only_exempt(
                self.live_session, privileges.has_global(account, "SUPER", "CONNECTION_ADMIN")
            )
        engine_seam.set_local_infile_reader(
            self.live_session,
            self._read_local_file if self.conn.capability_bits & Capability.LOCAL_FILES else None,
        )
        if self.conn.client_capabilities & Capability.INTERACTIVE:
            # sql_connect.cc: an interactive client's session wait_timeout is the global interactive_timeout
            engine_seam.start_interactive(self.live_session)
        log.debug("connection %d authenticated as %s@%s", self.connection_id, self.user, self.peer_host)
        return self.conn.send(Ok(status_flags=engine_seam.status_flags(self.live_session)))

    # ------------------------------------------------------------------ commands
    def _text_in(self, data: bytes) -> str:
        """A statement's text from the client's bytes, in character_set_client (UTF-8 bytes it does not hold stay
        as surrogate escapes, as before)."""
        client, _ = engine_seam.connection_charsets(self.live_session)
        if _native(client):
            return data.decode("utf-8", "surrogateescape")
        return charsets.decode(data, client)

    def _command(self, cmd: Any) -> bytes:
        name = _COMMAND_COUNTERS.get(type(cmd))
        if name is None and isinstance(cmd, UnknownCommand) and cmd.command in self.ctx.command_hooks:
            # COM_BINLOG_DUMP[_GTID] count Com_admin_commands (com_binlog_dump: com_other); COM_REGISTER_SLAVE none
            name = "binlog_dump" if cmd.command in _BINLOG_DUMP_COMMANDS else "register_replica"
        if name is not None and self.session is not None:
            self.session.count_command(name)
        if isinstance(cmd, ComQuery):
            return self._query(self._text_in(cmd.query))
        if isinstance(cmd, ComStmtExecute):
            return self._stmt_execute(cmd)
        if isinstance(cmd, ComPing):
            return self.conn.send(Ok(status_flags=engine_seam.status_flags(self.live_session)))
        if isinstance(cmd, ComQuit):
            self.closed = True
            return b""
        if isinstance(cmd, ComInitDb):
            return self._query(f"USE `{cmd.schema.replace('`', '``')}`", track_command="Init DB")
        if isinstance(cmd, ComFieldList):
            return self._field_list(cmd)
        if isinstance(cmd, ComStatistics):
            return self.conn.send(Statistics(self._statistics()))
        if isinstance(cmd, ComSetOption):
            if cmd.option not in (0, 1):
                return self.conn.send(Err(1047, "Unknown command", "08S01"))
            self.multi_statements = cmd.option == 0
            return self.conn.send(Eof(0, engine_seam.status_flags(self.live_session)))
        if isinstance(cmd, ComDebug):
            return self.conn.send(Eof(0, engine_seam.status_flags(self.live_session)))
        if isinstance(cmd, ComResetConnection):
            engine_seam.reset_session(self.live_session)
            self.statements.clear()  # mysql_reset_connection: prepared statements are deallocated
            engine_seam.set_wire_prepared(self.live_session, 0)
            return self.conn.send(Ok(status_flags=engine_seam.status_flags(self.live_session)))
        if isinstance(cmd, ComChangeUser):
            engine_seam.reset_session(self.live_session)
            self.statements.clear()
            engine_seam.set_wire_prepared(self.live_session, 0)
            self.user = cmd.username
            self._pending_db = cmd.database or None
            self._client_collation = cmd.character_set
            return self._begin_auth(
                cmd.username, cmd.auth_response, cmd.auth_plugin_name or self._client_plugin
            )
        if isinstance(cmd, ComProcessKill):
            return self._query(f"KILL {cmd.connection_id}")
        if isinstance(cmd, UnknownCommand):
            hook = self.ctx.command_hooks.get(cmd.command)
            if hook is not None:
                # a long-lived exchange (COM_BINLOG_DUMP[_GTID]): the edge hands the stream over to the hook
                self.takeover = (hook, cmd)
                return b""
            return self.conn.send(Err(1047, "Unknown command", "08S01"))
        if isinstance(cmd, ComStmtPrepare):
            return self._stmt_prepare(cmd)
        if isinstance(cmd, ComStmtSendLongData):
            stmt = self.statements.get(cmd.statement_id)
            if stmt is not None:  # never answered, errors included (reported at execute in MySQL)
                stmt.long_data.setdefault(cmd.param_id, bytearray()).extend(cmd.data)
            return b""
        if isinstance(cmd, ComStmtClose):
            self.statements.pop(cmd.statement_id, None)
            engine_seam.set_wire_prepared(self.live_session, len(self.statements))
            return b""
        if isinstance(cmd, ComStmtReset):
            stmt = self.statements.get(cmd.statement_id)
            if stmt is None:
                return self._unknown_statement(cmd.statement_id, "mysqld_stmt_reset")
            stmt.long_data.clear()
            return self.conn.send(Ok(status_flags=engine_seam.status_flags(self.live_session)))
        return self.conn.send(Err(1047, "Unknown command", "08S01"))

    # ------------------------------------------------------------------ prepared statements
    def _unknown_statement(self, statement_id: int, where: str) -> bytes:
        return self.conn.send(
            Err(1243, f"Unknown prepared statement handler ({statement_id}) given to {where}")
        )

    def _stmt_prepare(self, cmd: ComStmtPrepare) -> bytes:
        sql = self._text_in(cmd.query)
        try:
            prepared = engine_seam.prepare(
                self.live_session, sql
            )  # the session checks privileges at PREPARE too
        except MySQLError as err:
            return self.conn.send(Err(err.code, err.message, err.sqlstate))
        self._next_statement_id += 1
        stmt = PreparedStatement(
            self._next_statement_id, prepared.text, list(prepared.positions), engine=prepared
        )
        self.statements[stmt.statement_id] = stmt
        engine_seam.set_wire_prepared(self.live_session, len(self.statements))
        params = tuple(
            ColumnDefinition("?", FieldType.MYSQL_TYPE_VAR_STRING, character_set=BINARY_COLLATION)
            for _ in range(stmt.param_count)
        )
        return self.conn.send(
            StmtPrepareOk(
                stmt.statement_id,
                params,
                tuple(_definition(c) for c in prepared.columns or ()),
                0,
                engine_seam.status_flags(self.live_session),
            )
        )

    def _stmt_execute(self, cmd: ComStmtExecute) -> bytes:
        stmt = self.statements.get(cmd.statement_id)
        if stmt is None:
            return self._unknown_statement(cmd.statement_id, "mysqld_stmt_execute")
        try:
            values, stmt.types = cmd.parameters(
                stmt.param_count, int(self.conn.capabilities), stmt.types, frozenset(stmt.long_data)
            )
        except RemoteProtocolError as err:
            return self.conn.send(Err(err.code or 1210, err.message, err.sqlstate))
        bound = [v.value for v in values[: stmt.param_count]]
        for index, data in stmt.long_data.items():
            if index < len(bound):
                bound[index] = bytes(data)
        stmt.long_data.clear()
        client, _ = engine_seam.connection_charsets(self.live_session)
        if not _native(client):
            bound = _params_in(bound, stmt.types, client)
        return self._query(stmt.sql, binary=True, prepared=(stmt.engine, bound))

    def _fast_execute(self, data: bytes) -> bytes | None:
        """COM_STMT_EXECUTE arriving alone in one packet: the answer, byte for byte what the general path
        (:meth:`receive_data` -> :meth:`_dispatch` -> :meth:`_stmt_execute` -> :meth:`_query`) sends, without its
        generic steps (packet buffering, the message object, the dispatch chain) and, for a prepared SELECT / DML
        or a :meth:`_plain` statement (BEGIN, COMMIT), without the per-call generators, statement splitting and hook
        of :meth:`_query`. None, with nothing changed, for anything else
        (long data, parameters the one-pass decoder leaves to the general one): then the general path answers.

        Kept as the general path does: PROCESSLIST's Command / Time / Info, the Questions counter, the privilege
        check (the engine session's, remembered per prepared statement while the account, the default schema and
        the sandbox stay the same: the check is a pure function of them), KILL QUERY / CONNECTION, the engine's own per-statement work (diagnostics,
        status flags, session-state tracking), every OK / ERR / result-set byte.
        """
        session = self.session
        if session is None:
            return None  # closed: the general path answers 2006
        if not engine_seam.native_charsets(session):
            return None  # text to convert: the general path converts it
        conn = self.conn
        payload = conn.peek_command(data)
        if payload is None or len(payload) < _EXECUTE_FIXED:
            return None
        stmt = self.statements.get(_STATEMENT_ID.unpack_from(payload, 1)[0])
        if stmt is None or stmt.long_data:
            return None
        prepared = stmt.engine
        if prepared is None:
            return None
        decoded = execute_parameters(
            payload,
            len(stmt.positions),
            bool(conn.capability_bits & CAP_QUERY_ATTRIBUTES),
            stmt.types,
        )
        if decoded is None:
            return None
        values, stmt.types = decoded
        conn.begin_response()
        self.command = "Query"
        self.command_started = time.monotonic()
        try:
            session.count_command("stmt_execute")
            fast = prepared.kind in _FAST_KINDS
            if not fast and not self._plain(stmt):  # SET, SHOW ...: as _stmt_execute goes on
                return self._query(stmt.sql, binary=True, prepared=(prepared, values))
            self.info = stmt.sql
            out = b""
            try:
                if fast:  # the session checks privileges (once per statement and privileges in force)
                    results = session.execute_prepared(prepared, values)
                else:  # BEGIN, COMMIT ...: what engine_seam.execute_prepared runs for them, without its steps
                    results = session.execute(prepared.text, lexed=True)
                if not results:
                    raise StopIteration  # what next() on the general path's empty generator raises
                if len(results) == 1:
                    res = results[0]
                    meta = stmt.result_meta if fast else None
                    if (
                        meta is None
                        or res.columns is not meta[0]
                        or res.state_changes
                        or (
                            again := conn.send_binary_rows_again(
                                meta[1],
                                res.rows,
                                res.warning_count,
                                res.status_flags & _NOT_MORE_RESULTS,
                                meta[2],
                                meta[3],
                            )
                        )
                        is None
                    ):
                        again = self._send_result(res, more=False, binary=True, stmt=stmt if fast else None)
                    out = again  # a prepared SELECT executed again: its result set's kept head and metadata
                else:
                    last = len(results) - 1
                    for i, res in enumerate(results):
                        out += self._send_result(res, more=i < last, binary=True, stmt=stmt if fast else None)
            except MySQLError as err:
                out += conn.send(Err(err.code, err.message, err.sqlstate))
            except ProtocolError:
                raise
            except Exception as err:
                log.exception("internal error in connection %d on %r", self.connection_id, stmt.sql[:200])
                out += conn.send(Err(1815, f"Internal error: {type(err).__name__}: {err}"))
            if (
                self.killed or session.killed
            ):  # KILL, or COMMIT / ROLLBACK RELEASE (engine_seam.session_ended)
                self.closed = True
            return out
        finally:
            self.command = "Sleep"
            self.info = None
            self.command_started = time.monotonic()

    def _fast_query(self, data: bytes) -> bytes | None:
        """COM_QUERY of one statement arriving alone in one packet (BEGIN, COMMIT ...): the answer, byte for byte
        what the general path (:meth:`receive_data` -> :meth:`_dispatch` -> :meth:`_command` -> :meth:`_query`)
        sends, without its generic steps (packet buffering, the message object, the dispatch chain, the statement
        splitting and the generator of :func:`engine_seam.execute`). None, with nothing changed, for anything else
        (query attributes to decode, text to convert from character_set_client, more than one statement, an
        empty query): then the general path answers.

        Kept as the general path does: PROCESSLIST's Command / Time / Info, the Questions counter, KILL QUERY /
        CONNECTION, LOAD DATA LOCAL's file request (:meth:`_read_local_file`), every OK / ERR / result-set byte.
        """
        session = self.session
        conn = self.conn
        if session is None or conn.capability_bits & CAP_QUERY_ATTRIBUTES:
            return None  # closed (2006), or attributes the general decoder reads and checks
        if not engine_seam.native_charsets(session):
            return None  # text to convert: the general path converts it
        payload = conn.peek_command(data)
        if payload is None:
            return None
        sql = payload[1:].decode("utf-8", "surrogateescape")  # _text_in of a utf8* / binary client
        if not engine_seam.one_statement(sql):
            return None  # several statements (or none): the general path splits them
        conn.begin_response()
        self.command = "Query"
        self.command_started = time.monotonic()
        try:
            session.count_command("query")
            self.info = sql
            out = self._out = bytearray()
            try:
                results = session.execute(sql, split=False)
                if not results:
                    raise StopIteration  # what next() on the general path's empty generator raises
                last = len(results) - 1
                for i, res in enumerate(results):
                    out += self._send_result(res, more=i < last)
            except MySQLError as err:
                if conn.state not in (
                    State.CLOSED,
                    State.ERROR,
                ):  # else the client left in a LOCAL INFILE file
                    out += conn.send(Err(err.code, err.message, err.sqlstate))
            except ProtocolError:
                raise
            except Exception as err:
                log.exception("internal error in connection %d on %r", self.connection_id, sql[:200])
                out += conn.send(Err(1815, f"Internal error: {type(err).__name__}: {err}"))
            if (
                self.killed or session.killed
            ):  # KILL, or COMMIT / ROLLBACK RELEASE (engine_seam.session_ended)
                self.closed = True
            self._out = self._pending = None
            return bytes(out)
        finally:
            self.command = "Sleep"
            self.info = None
            self.command_started = time.monotonic()

    @staticmethod
    def _plain(stmt: PreparedStatement) -> bool:
        """True for a prepared statement without placeholders whose execution on the general path
        (:func:`engine_seam.execute_prepared`: its text split into statements, each run by ``session.execute``)
        is one statement: BEGIN, COMMIT (sysbench prepares them)."""
        plain = stmt.plain
        if plain is None:
            text = stmt.engine.text
            plain = stmt.plain = stmt.param_count == 0 and engine_seam.split(text) == [text]
        return plain

    def _query(
        self,
        sql: str,
        track_command: str = "Query",
        *,
        binary: bool = False,
        prepared: tuple[Any, list[Any]] | None = None,
    ) -> bytes:
        """Run ``sql`` (or, with ``prepared`` = (engine statement, values), a prepared statement) and answer."""
        self.info = sql
        out = self._out = bytearray()
        try:
            if prepared is not None:
                results = engine_seam.execute_prepared(self.live_session, prepared[0], prepared[1])
                statements = [sql]
            else:
                statements = engine_seam.split(sql, self.session)
            if len(statements) > 1 and not self.multi_statements:
                raise mysql_error(
                    1064,
                    "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use",
                    statements[1][:80],
                    "1",
                )
            if prepared is None:
                results = engine_seam.execute(self.live_session, sql, statements=statements)
            current = self._pending = next(results)
            while True:
                try:
                    following = next(results)
                except StopIteration:
                    out += self._send_result(current, more=False, binary=binary)
                    break
                except MySQLError:
                    if self._pending is not None:  # else a LOCAL INFILE request sent it
                        out += self._send_result(current, more=True, binary=binary)
                    raise
                if self._pending is not None:
                    out += self._send_result(current, more=True, binary=binary)
                current = self._pending = following
        except MySQLError as err:
            if self.conn.state not in (
                State.CLOSED,
                State.ERROR,
            ):  # else the client left in a LOCAL INFILE file
                out += self.conn.send(Err(err.code, err.message, err.sqlstate))
        except ProtocolError:
            raise
        except Exception as err:
            log.exception("internal error in connection %d on %r", self.connection_id, sql[:200])
            out += self.conn.send(Err(1815, f"Internal error: {type(err).__name__}: {err}"))
        if self.killed or engine_seam.session_ended(self.live_session):  # KILL, or COMMIT / ROLLBACK RELEASE
            self.closed = True
        self._out = self._pending = None
        return bytes(out)

    def _read_local_file(self, file_name: str) -> bytes:
        """LOAD DATA LOCAL's file (the session's ``local_infile_reader``): what was answered so far goes out, then
        the LOCAL INFILE request naming ``file_name``; the client's packets are read up to the empty one that ends
        the file (``net_request_file`` then ``READ_INFO`` over the network, ``sql/sql_load.cc``). A client that
        may not or cannot send the file sends only the empty packet: an empty file (it reports 2068 or its own
        error itself).

        Raises:
            MySQLError: 3948 without a stream to ask on; 2013 when the client went away or broke the protocol in
                the middle (the connection then closes).
        """
        if self.stream is None or self._out is None:
            raise mysql_error(3948)
        send, recv = self.stream
        out = self._out
        if self._pending is not None:  # the result before this statement: more results follow it
            out += self._send_result(self._pending, more=True)
            self._pending = None
        client, _ = engine_seam.connection_charsets(self.live_session)
        out += self.conn.send(LocalInfileRequest(charsets.encode(file_name, client)))
        send(bytes(out))
        out.clear()
        data = bytearray()
        while True:
            try:
                event = self.conn.next_event()
            except RemoteProtocolError:
                self.closed = (
                    True  # out of step (1156 / 1153): nothing more can be answered on this connection
                )
                raise mysql_error(2013) from None
            if event is NEED_DATA:
                chunk = recv()
                self.conn.receive_data(chunk)
                continue
            if isinstance(event, ConnectionClosed) or event is PAUSED:
                self.closed = True
                raise mysql_error(2013)
            if not event.data:
                return bytes(data)
            data += event.data

    def _send_result(
        self,
        res: engine_seam.StatementResult,
        *,
        more: bool,
        binary: bool = False,
        stmt: PreparedStatement | None = None,
    ) -> bytes:
        """The packets of one statement's result (OK, or a result set in the text or ``binary`` protocol).

        ``stmt``: the prepared SELECT / DML of :meth:`_fast_execute`, which checked before running it that its
        results need no character-set conversion (such statements cannot change ``character_set_results``), and
        which keeps its own result-set metadata.
        """
        columns = res.columns
        if (
            columns is None and not more and not res.state_changes
        ):  # an OK, the last result (BEGIN, COMMIT, DML)
            # no state changes: the flags have no SERVER_SESSION_STATE_CHANGED (StatementResult's invariant)
            return self.conn.send_ok(
                # CLIENT_FOUND_ROWS: the client wants rows matched, not rows changed (UPDATE)
                res.matched_rows if self.conn.capability_bits & CAP_FOUND_ROWS else res.affected_rows,
                res.last_insert_id,
                res.status_flags & _NOT_MORE_RESULTS,
                res.warning_count,
                res.info.encode() if res.info else b"",
            )
        status = res.status_flags
        if more:
            status |= STATUS_MORE_RESULTS_EXISTS
        else:
            status &= ~STATUS_MORE_RESULTS_EXISTS
        caps = self.conn.capability_bits
        state = b""
        if res.state_changes and caps & CAP_SESSION_TRACK:
            state = encode_state(res.state_changes)
            if state:
                status |= STATUS_SESSION_STATE_CHANGED
        if not state:
            status &= ~STATUS_SESSION_STATE_CHANGED
        if columns is None:
            info = res.info.encode() if res.info else b""
            # CLIENT_FOUND_ROWS: the client wants rows matched, not rows changed (UPDATE)
            affected = res.matched_rows if caps & CAP_FOUND_ROWS else res.affected_rows
            return self.conn.send_ok(affected, res.last_insert_id, status, res.warning_count, info, state)
        rows = res.rows
        if stmt is None:
            _, results = engine_seam.connection_charsets(self.live_session)
            if results is not None and not _native(results):
                columns, rows = _results_out(columns, rows, results)
            meta = self._result_meta
        else:
            meta = stmt.result_meta
        # a statement's columns come back as a new tuple of the same Column objects: equal at identity speed
        if meta is not None and columns is not meta[0] and columns == meta[0] and stmt is not None:
            # the same columns in another tuple (a prepared SELECT keeps its result columns after its first
            # executions): kept in their place, so the next execution finds them by identity (_fast_execute)
            meta = stmt.result_meta = (columns, *meta[1:])
        if meta is None or (columns is not meta[0] and columns != meta[0]):
            meta = (
                columns,
                [_definition_payload(c) for c in columns],
                tuple(int(c.type) for c in columns),
                tuple(bool(c.flags & FLAG_UNSIGNED) for c in columns),
            )
            if stmt is None:
                self._result_meta = meta
            else:
                stmt.result_meta = meta
        return self.conn.send_result_set(
            meta[1],
            rows,
            warnings=res.warning_count,
            status_flags=status,
            session_state=state,
            binary=binary,
            types=meta[2] if binary else (),
            unsigned=meta[3] if binary else (),
        )

    def _field_list(self, cmd: ComFieldList) -> bytes:
        try:
            columns = engine_seam.field_list(self.live_session, cmd.table, cmd.wildcard)
        except MySQLError as err:
            return self.conn.send(Err(err.code, err.message, err.sqlstate))
        out = bytearray()
        for c in columns:
            out += self.conn.send(_definition(c, for_field_list=True))
        out += self.conn.send(Eof(0, engine_seam.status_flags(self.live_session)))
        return bytes(out)

    def _statistics(self) -> str:
        from gtidkit.protocol import admin

        uptime = max(1, int(time.monotonic() - self.ctx.started))
        threads, questions = admin.statistics(self.ctx)  # every worker's, in a multi-worker server
        return (
            f"Uptime: {uptime}  Threads: {threads}  Questions: {questions}  Slow queries: 0  Opens: 0  "
            f"Flush tables: 1  Open tables: 0  Queries per second avg: {questions / uptime:.3f}"
        )


#: engine Column -> its encoded column-definition payload (Columns are frozen; the same ones come back for every
#: execution of a statement, so each is encoded once)
_DEFINITIONS: dict[Any, bytes] = {}


def _definition_payload(c: Any) -> bytes:
    """The encoded column-definition packet payload of an engine ``Column`` (cached)."""
    payload = _DEFINITIONS.get(c)
    if payload is None:
        payload = _definition(c).encode()
        if len(_DEFINITIONS) >= 4096:
            _DEFINITIONS.clear()
        _DEFINITIONS[c] = payload
    return payload


def _definition(c: Any, *, for_field_list: bool = False) -> ColumnDefinition:
    """The column-definition packet of an engine ``Column`` (``for_field_list``: COM_FIELD_LIST's form, with the
    default-value field). The engine's flags are those a client shows (metadata.result's, with libmysql's
    NUM_FLAG); the server sends them without NUM_FLAG, as MySQL's does."""
    return ColumnDefinition(
        name=c.name,
        type=c.type,
        schema=c.schema,
        table=c.table,
        org_table=c.org_table,
        org_name=c.org_name,
        character_set=c.charset,
        column_length=c.length,
        flags=c.flags & ~FLAG_NUM,
        decimals=c.decimals,
        for_field_list=for_field_list,
    )


__all__ = ["ClientHandler", "RemoteProtocolError", "ServerContext"]


#: Parameter types whose bytes are binary, never converted from character_set_client (sql_prepare.cc: a BLOB-typed
#: placeholder takes the binary character set).
_BLOB_PARAM_TYPES = frozenset({249, 250, 251, 252})


def _native(charset: str) -> bool:
    """``charset`` needs no conversion: the engine's text is UTF-8, and ``binary`` is passed through."""
    return charset in _NATIVE or charset.lower() in _NATIVE


_NATIVE = engine_seam.NATIVE_CHARSETS


def _params_in(values: list[Any], types: Any, client: str) -> list[Any]:
    """String parameters of COM_STMT_EXECUTE converted from ``client`` (character_set_client) to the engine's UTF-8
    bytes (RM 8.4 "Connection Character Sets and Collations"); BLOB-typed ones stay as sent."""
    out = list(values)
    for i, v in enumerate(out):
        if isinstance(v, (bytes, bytearray)):
            ftype = types[i][0] if types is not None and i < len(types) else 253
            if ftype not in _BLOB_PARAM_TYPES:
                out[i] = charsets.decode(bytes(v), client).encode("utf-8", "surrogateescape")
    return out


def _text_out(text: str, results: str) -> str:
    """``text`` as a string whose UTF-8 (surrogateescape) bytes are its bytes in character set ``results``: what
    the packet encoders write for it."""
    return charsets.encode(text, results).decode("utf-8", "surrogateescape")


def _results_out(columns: Any, rows: Any, results: str) -> tuple[Any, list[Any]]:
    """Columns and rows of a result set converted to ``character_set_results`` (Protocol_classic::
    send_field_metadata): names and string values in that set, a non-binary column announced with the set's
    default collation and a length of ``length / mbmaxlen(column) * mbmaxlen(results)``."""
    target = charsets.lookup(results)
    cols = []
    for c in columns:
        if c.charset == BINARY_COLLATION:
            charset, length = c.charset, c.length
        else:
            own = charsets.for_collation_id(c.charset)
            length = c.length // (own.maxlen if own is not None else 4) * target.maxlen
            charset = target.collation_id
        cols.append(
            dataclasses.replace(
                c,
                name=_text_out(c.name, results),
                org_name=_text_out(c.org_name, results),
                table=_text_out(c.table, results),
                org_table=_text_out(c.org_table, results),
                schema=_text_out(c.schema, results),
                charset=charset,
                length=min(length, 0xFFFFFFFF),
            )
        )
    out = [tuple(_text_out(v, results) if type(v) is str else v for v in row) for row in rows]
    return tuple(cols), out
