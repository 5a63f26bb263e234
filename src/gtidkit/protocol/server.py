"""The socket edge of the wire server: accept loop, one thread and one engine session per client, TLS switch.

Sources: MySQL ``sql/conn_handler/connection_handler_per_thread.cc`` (a thread per connection),
``sql/conn_handler/connection_handler_manager.cc`` (``max_connections``: ERR 1040 "Too many connections"
instead of the Handshake), ``sql/sql_connect.cc`` (``connect_timeout`` during the handshake,
``wait_timeout`` / ``interactive_timeout`` between commands, error 4031 when it expires).

This is the only module of :mod:`gtidkit.protocol` that touches sockets. Before the client has answered the
Handshake, packets are read exactly (header, then payload), so no TLS byte is ever read as plain text: after an
SSLRequest the socket is wrapped with the datadir's certificate and the conversation goes on inside TLS.
"""

from __future__ import annotations

import logging
import socket
import ssl
import struct
import threading
from collections.abc import Callable
from typing import Any

from gtidkit.protocol.connection import State
from gtidkit.protocol.constants import Capability
from gtidkit.protocol.handler import ClientHandler, ServerContext, StreamIO
from gtidkit.protocol.packets import HEADER_LENGTH, LENGTH_WIDTH, PacketReader, frame
from gtidkit.protocol.tls import rsa_keys, server_context

log = logging.getLogger("gtidkit.server")

RECV_SIZE = 256 * 1024
_CAP_INTERACTIVE = int(Capability.INTERACTIVE)


class WireServer:
    """A MySQL-protocol server over an open engine ``Server``.

    Args:
        engine: the engine ``Server`` (already open; shut down by the caller after :meth:`shutdown`).
        datadir: the data directory (certificates, RSA keys; accounts are the engine's grant tables).
        bind_address: address to listen on (127.0.0.1 by default).
        port: TCP port (0 picks a free one: read :attr:`port` after :meth:`start`).
        max_connections: concurrent client connections accepted (MySQL's default 151).
        wait_timeout: seconds an idle non-interactive client may wait between commands.
        interactive_timeout: the same for clients with CLIENT_INTERACTIVE.
        connect_timeout: seconds a client has to complete the handshake.
        max_allowed_packet: largest client packet, in bytes.
        server_version: the version string of the Handshake.
    """

    def __init__(
        self,
        engine: Any,
        datadir: str,
        *,
        bind_address: str = "127.0.0.1",
        port: int = 3306,
        max_connections: int = 151,
        wait_timeout: int = 28800,
        interactive_timeout: int = 28800,
        connect_timeout: int = 10,
        max_allowed_packet: int = 64 * 1024 * 1024,
        server_version: str | None = None,
    ) -> None:
        self.engine = engine
        self.bind_address = bind_address
        self.port = port
        self.max_connections = max_connections
        # SET GLOBAL max_connections (here or, in a multi-process server, in another worker): the new limit
        engine.globals.on_change.setdefault("max_connections", []).append(self._max_connections_changed)
        self.wait_timeout = wait_timeout
        self.interactive_timeout = interactive_timeout
        self.connect_timeout = connect_timeout
        self.ssl_context = server_context(datadir)
        version = server_version or str(engine.globals.get("version"))
        self.ctx = ServerContext(
            engine=engine,
            accounts=engine.accounts,
            server_version=version,
            ssl_available=self.ssl_context is not None,
            rsa_keys=rsa_keys(datadir),
            max_allowed_packet=max_allowed_packet,
        )
        self.shutdown_requested = threading.Event()
        self.ctx.request_shutdown = self.shutdown_requested.set
        from gtidkit.protocol.admin import (
            connection_thread_rows,
            serve_control,
            show_processlist,
            status_values,
        )

        ctx = self.ctx
        #: SHOW GLOBAL STATUS Connections (connection attempts, refused ones included) and Max_used_connections
        #: (the most connections open at once) of this wire server
        self.connections_total = 0
        self.max_used_connections = 0
        status = getattr(engine, "status_providers", None)
        if status is not None:
            status.append(lambda: status_values(ctx, self))
        serve_control(ctx)  # a multi-worker server's other workers ask for this one's connections
        providers = getattr(engine, "thread_providers", None)
        if providers is not None:  # performance_schema.threads: one row per connection
            providers.append(lambda: connection_thread_rows(ctx))
        provide_show = getattr(engine, "provide_show", None)
        if provide_show is not None:  # SHOW PROCESSLIST: the connections are the wire server's
            provide_show("processlist", lambda session, stmt: show_processlist(ctx, session, stmt))
        self._listener: socket.socket | None = None
        self._accept_thread: threading.Thread | None = None
        self._threads: set[threading.Thread] = set()
        self._sockets: dict[int, socket.socket] = {}
        self._lock = threading.Lock()
        self._active = 0
        self._stopping = False

    def _max_connections_changed(self, _old: Any, new: Any) -> None:
        """``@@GLOBAL.max_connections`` changed: connections accepted from now on count against ``new``."""
        self.max_connections = int(new)

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        """Bind, listen and start accepting in a background thread.

        Raises:
            OSError: the address is in use or cannot be bound.
        """
        family = socket.AF_INET6 if ":" in self.bind_address else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.bind_address, self.port))
        sock.listen(128)
        self.port = sock.getsockname()[1]
        self.engine.globals.set("port", self.port)  # @@port: the port actually bound (--port=0 picks one)
        if not self.engine.globals.get("report_port"):  # mysqld.cc: report_port 0 becomes mysqld_port
            self.engine.globals.set("report_port", self.port)
        self._listener = sock
        self._accept_thread = threading.Thread(target=self._accept_loop, name="gtidkit-accept", daemon=True)
        self._accept_thread.start()
        log.info(
            "ready for connections. Version: '%s'  bind-address: '%s'  port: %d",
            self.ctx.server_version,
            self.bind_address,
            self.port,
        )

    def attach(self, port: int) -> None:
        """Serve connections a supervisor accepts and hands over (:meth:`adopt`) instead of listening here.

        Args:
            port: the TCP port the supervisor listens on (``@@port``, and ``report_port`` when not set).
        """
        self.port = port
        self.engine.globals.set("port", port)
        if not self.engine.globals.get("report_port"):
            self.engine.globals.set("report_port", port)

    def adopt(
        self,
        sock: socket.socket,
        peer: str,
        connection_id: int,
        on_close: Callable[[], None] | None = None,
    ) -> None:
        """Serve a client connection another process accepted (a supervisor's hand-off over SCM_RIGHTS), in its
        own thread as :meth:`start`'s accept loop does.

        Args:
            sock: the client's connected socket (now owned by this server: closed when the connection ends).
            peer: the client's IP address.
            connection_id: the connection id the supervisor allocated (the Handshake's and CONNECTION_ID()).
            on_close: called once the connection has ended and its session is released (the supervisor's count of
                connections for ``max_connections``).
        """
        if self._stopping:
            sock.close()
            if on_close is not None:
                on_close()
            return
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        t = threading.Thread(
            target=self._serve, args=(sock, peer, connection_id, on_close), name="gtidkit-conn", daemon=True
        )
        with self._lock:
            self._threads.add(t)
        t.start()

    def shutdown(self, timeout: float = 30.0) -> None:
        """Stop accepting, disconnect every client (their open transactions roll back) and wait for their threads.

        The engine itself is left open: the caller shuts it down (WL#6559's save of gtid_executed) afterwards.
        """
        self._stopping = True
        if self._listener is not None:
            try:
                self._listener.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self._listener.close()
        if self._accept_thread is not None:
            self._accept_thread.join(timeout)
        with self._lock:
            socks = list(self._sockets.values())
            threads = list(self._threads)
        for s in socks:
            _shutdown(s)
        for t in threads:
            t.join(timeout)

    def __enter__(self) -> WireServer:  # noqa: PYI034 - Self needs Python 3.11
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()

    # ------------------------------------------------------------------ accept
    def _accept_loop(self) -> None:
        assert self._listener is not None
        while not self._stopping:
            try:
                client, addr = self._listener.accept()
            except OSError:
                break
            if self._stopping:
                client.close()
                break
            client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            t = threading.Thread(target=self._serve, args=(client, addr[0]), name="gtidkit-conn", daemon=True)
            with self._lock:
                self._threads.add(t)
            t.start()

    # ------------------------------------------------------------------ one connection
    def _serve(
        self,
        sock: socket.socket,
        peer: str,
        connection_id: int | None = None,
        on_close: Callable[[], None] | None = None,
    ) -> None:
        handler = ClientHandler(self.ctx, peer)
        handler.os_thread_id = threading.get_native_id()
        holder = {"sock": sock}
        key = id(handler)
        with self._lock:
            self._sockets[key] = sock
            full = self._active >= self.max_connections
            self.connections_total += 1
            if not full:
                self._active += 1
                self.max_used_connections = max(self.max_used_connections, self._active)

        def kill() -> None:
            _shutdown(holder["sock"])

        handler.kill_hook = kill

        def recv() -> bytes:
            try:
                return holder["sock"].recv(RECV_SIZE)
            except (TimeoutError, BlockingIOError):
                return b""

        handler.stream = (lambda data: holder["sock"].sendall(data), recv)
        try:
            if full:
                sock.sendall(handler.refuse(1040, "Too many connections", "08004"))
                return
            greeting = handler.start(connection_id)
            sock.sendall(greeting)
            self.ctx.count_bytes(0, len(greeting))
            self._loop(handler, holder)
        except (OSError, ssl.SSLError) as err:
            log.debug("connection from %s ended: %s", peer, err)
        except Exception:
            log.exception("connection %d from %s failed", handler.connection_id, peer)
        finally:
            try:
                handler.close()
            finally:
                try:
                    holder["sock"].close()
                except OSError:
                    pass
                with self._lock:
                    self._sockets.pop(key, None)
                    self._threads.discard(threading.current_thread())
                    if not full:
                        self._active -= 1
                if on_close is not None:
                    on_close()

    def _loop(self, handler: ClientHandler, holder: dict[str, Any]) -> None:
        buf = bytearray(RECV_SIZE)
        view = memoryview(buf)
        timer = _Timeouts()
        while not handler.closed:
            sock = holder["sock"]
            state = handler.conn.state
            tls = handler.tls_active
            if state is State.COMMAND:
                # an int test: IntFlag arithmetic costs a microsecond on every command
                # the session's wait_timeout (SET SESSION wait_timeout=N applies from the next wait on); an
                # interactive client's starts as interactive_timeout (handler._auth_ok)
                timeout: float | None = handler.wait_timeout()
            elif state in (State.AWAIT_RESPONSE, State.AWAIT_AUTH_DATA):
                timeout = self.connect_timeout
            else:
                timeout = None
            timer.apply(sock, timeout, tls)
            try:
                if state is State.AWAIT_RESPONSE and not tls:
                    data = _read_packet(sock)
                else:
                    n = sock.recv_into(buf)
                    data = bytes(view[:n])
            except (TimeoutError, BlockingIOError):
                if state is State.COMMAND:
                    sock.sendall(handler.idle_timeout())
                return
            out = handler.receive_data(data)
            # counted before the answer leaves: a client that got its answer then reads SHOW STATUS (in any worker)
            # sees its own command's bytes, as mysqld counts them when it reads and writes the packets
            self.ctx.count_bytes(len(data), len(out))
            if out:
                sock.sendall(out)
            if handler.want_tls:
                assert self.ssl_context is not None
                timer.apply(sock, self.connect_timeout, True)
                holder["sock"] = self.ssl_context.wrap_socket(sock, server_side=True)
                with self._lock:
                    self._sockets[id(handler)] = holder["sock"]
                cipher = holder["sock"].cipher()
                handler.tls_started(cipher[0] if cipher else "", holder["sock"].version() or "")
            if handler.shutdown_requested:
                self.ctx.request_shutdown()
            if handler.takeover is not None:
                timer.apply(holder["sock"], None, handler.tls_active)
                if not self._run_takeover(handler, holder):
                    return
            if not data:
                return

    def _run_takeover(self, handler: ClientHandler, holder: dict[str, Any]) -> bool:
        """Serve a command registered in ``ctx.command_hooks`` on the raw stream; True to resume commands."""
        hook, cmd = handler.takeover  # type: ignore[misc]
        handler.takeover = None
        ctx = self.ctx
        sock = holder["sock"]
        conn = handler.conn
        seq = [1]
        reader = PacketReader(conn.max_allowed_packet)
        leftover = conn.take_buffered()
        if leftover:
            reader.feed(leftover)

        def send(payload: bytes) -> None:
            data, seq[0] = frame(payload, seq[0])
            sock.sendall(data)
            ctx.count_bytes(0, len(data))

        def recv() -> bytes | None:
            while True:
                pkt = reader.next_packet()
                if pkt is not None:
                    seq[0] = pkt.next_sequence_id
                    return pkt.payload
                chunk = sock.recv(RECV_SIZE)
                if not chunk:
                    return None
                ctx.count_bytes(len(chunk), 0)
                reader.feed(chunk)

        resume = bool(hook(StreamIO(handler, send, recv), cmd))
        if resume:
            conn.resume_commands()
        else:
            handler.closed = True
        return resume


def _shutdown(sock: socket.socket) -> None:
    """Shut both directions of a client socket from another thread (KILL, server shutdown): its thread's blocked
    recv returns end-of-file and its next send fails.

    A TLS socket is shut down at the socket level, not through ``SSLSocket.shutdown``: that one also drops the TLS
    object first, and a response the connection's thread sends in between would go out as plain text inside the
    TLS stream (the client then fails with WRONG_VERSION_NUMBER instead of seeing the connection end).
    """
    try:
        socket.socket.shutdown(sock, socket.SHUT_RDWR)
    except OSError:
        pass


class _Timeouts:
    """The receive/send timeout of one client socket, changed only when it differs (each change is a system call).

    A plain TCP socket stays in blocking mode and the kernel enforces the timeout (SO_RCVTIMEO / SO_SNDTIMEO: an
    expired wait fails with EAGAIN, raised as BlockingIOError), so a command costs one recv and one send and no
    poll. A TLS socket keeps Python's own timeout (poll before each read): the ssl module reports a kernel timeout
    as SSLWantReadError, not as a timeout. KILL still works on both: it shuts the socket down, which wakes a
    blocked recv with end-of-file.
    """

    __slots__ = ("current",)

    def __init__(self) -> None:
        self.current: tuple[float | None, bool] | None = None

    def apply(self, sock: Any, timeout: float | None, tls: bool) -> None:
        """Make ``timeout`` (seconds, None = wait forever) the socket's read and write timeout."""
        wanted = (timeout, tls)
        if wanted == self.current:
            return
        if tls:
            if self.current is not None and not self.current[1] and self.current[0] is not None:
                _kernel_timeout(sock, None)  # the fd outlives the plain phase: no kernel timeout under TLS
            sock.settimeout(timeout)
        else:
            if sock.gettimeout() is not None:
                sock.settimeout(None)
            _kernel_timeout(sock, timeout)
        self.current = wanted


def _kernel_timeout(sock: Any, timeout: float | None) -> None:
    seconds = 0.0 if timeout is None else max(float(timeout), 0.001)
    whole = int(seconds)
    value = _TIMEVAL.pack(whole, int((seconds - whole) * 1_000_000))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, value)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, value)


#: struct timeval (seconds, microseconds) as SO_RCVTIMEO / SO_SNDTIMEO take it
_TIMEVAL = struct.Struct("@ll")


def _read_exact(sock: socket.socket, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            return bytes(buf)
        buf += chunk
    return bytes(buf)


def _read_packet(sock: socket.socket) -> bytes:
    """Exactly one physical packet (header + payload), or what arrived before the peer closed."""
    header = _read_exact(sock, HEADER_LENGTH)
    if len(header) < HEADER_LENGTH:
        return header
    length = int.from_bytes(header[:LENGTH_WIDTH], "little")
    return header + _read_exact(sock, length)
