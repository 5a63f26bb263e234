"""The receiver (replication I/O thread): connect to the source, ask for what we lack by GTID, queue the events.

What MySQL's ``handle_slave_io()`` in ``sql/rpl_replica.cc`` does, in order (formats.md section 7.5):

1. connect (``safe_connect`` / ``connect_to_source``): handshake, authentication and TLS are PyMySQL's; a failed
   attempt sets Last_IO_Error to ``Error connecting to source 'user@host:port'. This was attempt n/RETRY, with a
   delay of CONNECT_RETRY seconds between attempts. Message: ...`` with the client's error number, and is retried
   every SOURCE_CONNECT_RETRY seconds up to SOURCE_RETRY_COUNT times;
2. ``get_source_version_and_clock()``: ``SELECT UNIX_TIMESTAMP()`` (clock difference, for Seconds_Behind_Source),
   ``SELECT @@GLOBAL.SERVER_ID`` (equal to ours: fatal, 13117), ``SET @master_heartbeat_period``/
   ``@source_heartbeat_period`` (nanoseconds), ``SET @master_binlog_checksum``/``@source_binlog_checksum``
   (``= @@global.binlog_checksum``) and ``SELECT @source_binlog_checksum``, ``SELECT @@GLOBAL.GTID_MODE``
   (auto-position needs ON on both sides);
3. ``get_source_uuid()``: ``SELECT @@GLOBAL.SERVER_UUID`` (equal to ours: fatal), then ``SET @slave_uuid``/
   ``@replica_uuid``;
4. ``register_replica_on_source()``: COM_REGISTER_SLAVE;
5. ``request_dump()``: COM_BINLOG_DUMP_GTID with ``gtid_executed ∪ Retrieved_Gtid_Set`` in the binary SID-block
   format (so nothing already held is asked for again), binlog name empty and position 4;
6. ``read_event()`` / ``queue_event()``: every ``00``-prefixed packet is one raw event, handed unchanged to the relay
   log (heartbeats too: they advance the source position there). An ERR packet is the source's fatal error:
   Last_IO_Errno 13114, ``Got fatal error 1236 from source when reading data from binary log: '<msg>'``, and the
   thread stops. A lost connection (or no byte for ``replica_net_timeout`` seconds) is retried like a failed connect.

The thread owns the socket; :meth:`Receiver.stop` shuts it down from outside to end a blocking read.
"""

from __future__ import annotations

import logging
import socket
import ssl as ssl_module
import struct
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from gtidkit.binlog.constants import EventType
from gtidkit.gtid.gtid_set import GtidSet
from gtidkit.mysql_errors import (
    COULD_NOT_QUEUE_EVENT,
    GTID_MODE_MISMATCH,
    REPLICA_AUTO_POSITION_GTID_MODE,
    REPLICA_EQUAL_SERVER_IDS,
    REPLICA_EQUAL_SERVER_UUIDS,
    REPLICA_ERRANT_GTIDS,
    SOURCE_AUTO_POSITION_GTID_MODE,
    SOURCE_CONNECT_ERROR,
    message,
)
from gtidkit.replication.channel import ChannelConfig

log = logging.getLogger(__name__)

__all__ = [
    "COM_BINLOG_DUMP",
    "COM_BINLOG_DUMP_GTID",
    "COM_REGISTER_SLAVE",
    "IoError",
    "Receiver",
    "RemoteDumpError",
    "dump_body",
    "dump_events",
    "dump_gtid_body",
    "gtid_modes_compatible",
    "register_body",
]

COM_BINLOG_DUMP = 0x12
COM_REGISTER_SLAVE = 0x15
COM_BINLOG_DUMP_GTID = 0x1E
#: ``Gtid_mode`` values in their order (``rpl_gtid.h``): compatibility is decided by distance in this order.
GTID_MODES = ("OFF", "OFF_PERMISSIVE", "ON_PERMISSIVE", "ON")
#: Replica_IO_State values (``stage_*`` of ``sql/rpl_replica.cc``, 8.0.26+ wording).
STATE_CONNECTING = "Connecting to source"
STATE_WAITING = "Waiting for source to send event"
STATE_RECONNECTING = "Reconnecting after a failed source event read"
STATE_WAIT_RECONNECT = "Waiting to reconnect after a failed source event read"
STATE_REGISTERING = "Registering replica on source"
STATE_REQUESTING = "Requesting binlog dump"
STATE_QUEUEING = "Queueing source event to the relay log"
STATE_WAITING_SPACE = "Waiting for the replica SQL thread to free relay log space"
_T = EventType


@dataclass(frozen=True, slots=True)
class IoError:
    """The receiver's last error (Last_IO_Errno / Last_IO_Error / Last_IO_Error_Timestamp).

    Attributes:
        errno: the number (13114 for a source's dump error, 13117 for fatal checks, the client's 2003/1045/... for
            connection failures).
        message: the text as SHOW REPLICA STATUS shows it.
        timestamp: ``YYMMDD hh:mm:ss`` local time, as MySQL prints Last_IO_Error_Timestamp.
        time: the same moment in seconds since the epoch.
    """

    errno: int
    message: str
    timestamp: str
    time: float


class _Fatal(Exception):
    """The thread stops with this Last_IO error (no reconnection)."""

    def __init__(self, errno: int, text: str) -> None:
        super().__init__(text)
        self.errno = errno
        self.text = text


class _Stopped(Exception):
    """STOP REPLICA was asked for while connecting or waiting."""


def register_body(server_id: int, host: str = "", user: str = "", password: str = "", port: int = 0) -> bytes:
    """COM_REGISTER_SLAVE's body after the command byte: ``u32 server_id, u8 len + report_host, u8 len + user,
    u8 len + password, u16 port, u32 rank (0), u32 source_id (0)`` (``register_replica_on_source()``).

    Args:
        server_id: this replica's server_id.
        host, user, password, port: ``report_host`` / ``report_user`` / ``report_password`` / ``report_port``.
    """
    out = struct.pack("<I", server_id)
    for s in (host, user, password):
        b = s.encode()[:255]
        out += bytes([len(b)]) + b
    return out + struct.pack("<HII", port, 0, 0)


def dump_gtid_body(server_id: int, gtids: GtidSet, flags: int = 0) -> bytes:
    """COM_BINLOG_DUMP_GTID's body after the command byte: ``u16 flags, u32 server_id, u32 name_size (0), u64 pos
    (4), u32 data_size, data`` with ``data`` the SID-block encoding of ``gtids`` (``request_dump()``).

    Args:
        server_id: this replica's server_id.
        gtids: the set the replica already has (gtid_executed ∪ Retrieved_Gtid_Set).
        flags: BINLOG_DUMP_NON_BLOCK (1) to get EOF at the end instead of waiting.
    """
    data = gtids.encode()
    return (
        struct.pack("<HII", flags, server_id, 0) + struct.pack("<Q", 4) + struct.pack("<I", len(data)) + data
    )


class RemoteDumpError(Exception):
    """The source refused or ended the dump with an error packet (fatal: reconnecting would not help).

    Attributes:
        code: the MySQL error number (1236 for dump errors).
        message: the source's text.
    """

    def __init__(self, code: int, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def dump_events(conn: Any, request: Any) -> Iterator[bytes]:
    """Send ``request`` (a :class:`~gtidkit.replication.dump.DumpRequest`) on a PyMySQL connection and yield each
    raw event of the stream (the ``00`` packet prefix removed) until the
    source's EOF (non-blocking dump).

    Raises:
        RemoteDumpError: an ERR packet from the source.
        pymysql.err.OperationalError / OSError: the connection was lost.
    """
    import pymysql

    conn._execute_command(request.command, request.encode())
    while True:
        try:
            pkt = conn._read_packet()
        except pymysql.err.InternalError as err:
            raise RemoteDumpError(int(err.args[0]), str(err.args[1]) if len(err.args) > 1 else "") from err
        except pymysql.err.OperationalError as err:
            code = err.args[0] if err.args else 0
            if isinstance(code, int) and 1000 <= code < 2000:
                raise RemoteDumpError(code, str(err.args[1]) if len(err.args) > 1 else "") from err
            raise
        data = pkt.get_all_data()
        if data[:1] == b"\xfe" and len(data) < 9:
            return
        yield bytes(data[1:])


def dump_body(server_id: int, file: str, pos: int, flags: int = 0) -> bytes:
    """COM_BINLOG_DUMP's body after the command byte: ``u32 pos, u16 flags, u32 server_id, file name`` (the rest
    of the packet; ``request_dump()`` without auto-positioning). A position past 4 GiB cannot be asked for this way
    (MySQL sends the low 32 bits too).

    Args:
        server_id: this replica's server_id.
        file: the source binlog file to start in (``""`` = the source's first file).
        pos: byte offset in that file (4 = its start).
        flags: BINLOG_DUMP_NON_BLOCK (1) to get EOF at the end instead of waiting.
    """
    return struct.pack("<IHI", pos & 0xFFFFFFFF, flags, server_id) + file.encode()


def gtid_modes_compatible(source_mode: str, replica_mode: str, *, assign_gtids: bool = False) -> bool:
    """Whether a replica with ``replica_mode`` may replicate from a source with ``source_mode``
    (``get_source_version_and_clock()``): an OFF replica refuses an ON_PERMISSIVE or ON source, an ON replica an
    OFF or OFF_PERMISSIVE one unless ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS is set.

    Args:
        source_mode, replica_mode: GTID_MODE names (case-insensitive).
        assign_gtids: the channel's ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS is not OFF.
    """
    src, mine = GTID_MODES.index(source_mode.upper()), GTID_MODES.index(replica_mode.upper())
    if mine == 0 and src >= 2:
        return False
    return not (mine == 3 and src <= 1 and not assign_gtids)


def _now_text(t: float) -> str:
    return time.strftime("%y%m%d %H:%M:%S", time.localtime(t))


class Receiver:
    """The I/O thread of one channel.

    Args:
        server: the engine ``Server`` of the replica (server_id, server_uuid, gtid_mode, gtid_executed).
        relay: the channel's ``RelayLog`` (``append``, ``begin_source``, ``retrieved_gtids``).
        config: returns the channel's current :class:`ChannelConfig` (read at each (re)connection).
        on_source_uuid: called with the source's server_uuid once known (stored in the connection metadata).

    Attributes:
        state: Replica_IO_State (``""`` when stopped).
        last_error: the :class:`IoError` shown as Last_IO_*, or None (cleared at START and at each connect).
        connected: True while a dump stream is open (Replica_IO_Running ``Yes``; ``Connecting`` otherwise).
        source_server_id, source_uuid: what the source answered (Source_Server_Id, Source_UUID).
        clock_diff: replica clock minus source clock in whole seconds (``clock_diff_with_source``).
        last_heartbeat, heartbeats: time of the last heartbeat received, and how many (performance_schema).
        last_queued: the GTID text of the last transaction queued whole; ``queueing``: the one being queued.
        last_queued_times: (original_commit_timestamp µs, immediate_commit_timestamp µs, start of queueing s, end of
            queueing s) of ``last_queued``; queueing_times: the first three for ``queueing``.
        last_event_time: header timestamp of the last Gtid event received.
    """

    def __init__(
        self,
        server: Any,
        relay: Any,
        config: Callable[[], ChannelConfig],
        *,
        on_source_uuid: Callable[[str], None] | None = None,
    ) -> None:
        self.server = server
        self.relay = relay
        self._config = config
        self._on_source_uuid = on_source_uuid
        self.state = ""
        self.last_error: IoError | None = None
        self.connected = False
        self.source_server_id = 0
        self.source_uuid = ""
        #: GTIDs this replica held at its last dump request that the source lacked (errant transactions)
        self.errant_gtids = GtidSet()
        self.clock_diff = 0
        self.last_heartbeat = 0.0
        self.heartbeats = 0
        self.last_queued = ""
        self.queueing = ""
        self.last_queued_times: tuple[int, int, float, float] = (0, 0, 0.0, 0.0)
        self.queueing_times: tuple[int, int, float] = (0, 0, 0.0)
        self._queueing_event: Any = None  # the relay log's Gtid event objects last seen (identity compared)
        self._last_queued_event: Any = None
        self.last_event_time = 0
        self.thread_id: int | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._conn: Any = None
        #: SOURCE_AUTO_POSITION of the current connection (queue_event refuses anonymous transactions under it)
        self._auto_position = False
        #: the channel's ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS is not OFF (anonymous transactions are accepted)
        self.assign_gtids = False

    # ------------------------------------------------------------------------------------------------ control
    @property
    def running(self) -> bool:
        """True while the thread runs (connecting, connected or waiting to reconnect)."""
        t = self._thread
        return t is not None and t.is_alive()

    def start(self) -> None:
        """START REPLICA IO_THREAD: start the thread (no-op when running); clears Last_IO_Error."""
        with self._lock:
            if self.running:
                return
            self.last_error = None
            self._stop.clear()
            self.state = STATE_CONNECTING
            self._thread = threading.Thread(target=self._run, name="replica-io", daemon=True)
            self._thread.start()

    def stop(self, timeout: float | None = 60) -> bool:
        """STOP REPLICA IO_THREAD: end the connection (a blocking read is interrupted) and the thread.

        Returns:
            True when the thread has ended within ``timeout`` seconds.
        """
        with self._lock:
            self._stop.set()
            conn = self._conn
            t = self._thread
        if conn is not None:
            _shutdown(conn)
        if t is None:
            return True
        t.join(timeout)
        return not t.is_alive()

    # ------------------------------------------------------------------------------------------------ thread
    def _run(self) -> None:
        attempt = 0
        reconnect = False
        try:
            while not self._stop.is_set():
                cfg = self._config()
                self.state = STATE_RECONNECTING if reconnect else STATE_CONNECTING
                try:
                    conn = self._connect(cfg)
                except _Stopped:
                    return
                except Exception as err:  # noqa: BLE001 - every client failure is a Last_IO_Error and a retry
                    attempt += 1
                    errno, text = _client_error(err, cfg.host, cfg.port)
                    self._set_error(
                        errno,
                        SOURCE_CONNECT_ERROR
                        % (
                            "reconnecting" if reconnect else "connecting",
                            cfg.user,
                            cfg.host,
                            cfg.port,
                            attempt,
                            cfg.retry_count,
                            cfg.connect_retry,
                            text,
                        ),
                    )
                    if attempt >= max(cfg.retry_count, 1):
                        return
                    self.state = STATE_WAIT_RECONNECT if reconnect else STATE_CONNECTING
                    if self._stop.wait(cfg.connect_retry):
                        return
                    continue
                attempt = 0
                try:
                    self._session(conn, cfg)
                except _Fatal as err:
                    self._set_error(err.errno, err.text)
                    return
                except _Stopped:
                    return
                except Exception as err:  # noqa: BLE001 - a lost connection: reconnect
                    if self._stop.is_set():
                        return
                    log.warning(
                        "Replica I/O thread: Failed reading log event, reconnecting to retry, log '%s' at "
                        "position %s (%s)",
                        *self._source_position(),
                        err,
                    )
                finally:
                    self.connected = False
                    with self._lock:
                        self._conn = None
                    _close(conn)
                reconnect = True
                # try_to_reconnect(): the first reconnection is immediate; failed ones wait connect_retry
        except Exception as err:  # the thread must report, not die silently
            log.exception("replica I/O thread failed")
            self._set_error(getattr(err, "errno", 1105), str(err))
        finally:
            self.connected = False
            self.state = ""

    def _source_position(self) -> tuple[str, int]:
        try:
            return self.relay.source_position()
        except Exception:  # noqa: BLE001 - only for a log line
            return ("", 0)

    def _set_error(self, errno: int, text: str) -> None:
        now = time.time()
        self.last_error = IoError(errno, text, _now_text(now), now)
        log.error("Replica I/O for channel '%s': %s, Error_code: MY-%06d", self.relay.channel, text, errno)

    def _connect(self, cfg: ChannelConfig) -> Any:
        import pymysql  # lazy: loaded once a channel connects, so a server that replicates from no one starts lighter

        ssl_ctx = None
        if cfg.ssl:
            ssl_ctx = ssl_module.create_default_context(
                cafile=cfg.ssl_ca or None, capath=cfg.ssl_capath or None
            )
            if not cfg.ssl_verify_server_cert:
                ssl_ctx.check_hostname = False
                ssl_ctx.verify_mode = ssl_module.CERT_NONE
            if cfg.ssl_cert:
                ssl_ctx.load_cert_chain(cfg.ssl_cert, cfg.ssl_key or None)
            if cfg.ssl_cipher:
                ssl_ctx.set_ciphers(cfg.ssl_cipher)
        net_timeout = float(_global(self.server, "replica_net_timeout", 60))
        conn = pymysql.connections.Connection(
            host=cfg.host,
            port=cfg.port,
            user=cfg.user,
            password=cfg.password,
            ssl=ssl_ctx,
            connect_timeout=max(1, min(cfg.connect_retry or 60, 60)),
            read_timeout=net_timeout,
            write_timeout=net_timeout,
            autocommit=True,
            charset="utf8mb4",
            defer_connect=True,
        )
        with self._lock:
            if self._stop.is_set():
                raise _Stopped
            self._conn = conn
        conn.connect()
        return conn

    def _query(self, conn: Any, sql: str) -> Any:
        with conn.cursor() as cur:
            cur.execute(sql)
            row = cur.fetchone()
        return row[0] if row else None

    def _session(self, conn: Any, cfg: ChannelConfig) -> None:
        import pymysql

        server = self.server
        my_id = int(_global(server, "server_id", 1))
        my_uuid = str(server.server_uuid)
        # get_source_version_and_clock()
        src_time = self._query(conn, "SELECT UNIX_TIMESTAMP()")
        if src_time is not None:
            self.clock_diff = int(time.time() - float(src_time))
        src_id = self._query(conn, "SELECT @@GLOBAL.SERVER_ID")
        self.source_server_id = int(src_id or 0)
        if self.source_server_id == my_id and not _global(server, "replicate_same_server_id", False):
            raise _Fatal(13117, message(13117, REPLICA_EQUAL_SERVER_IDS))
        period_ns = round(cfg.heartbeat_period * 1e9)
        with conn.cursor() as cur:
            cur.execute(f"SET @master_heartbeat_period = {period_ns}, @source_heartbeat_period = {period_ns}")
            cur.execute(
                "SET @master_binlog_checksum = @@global.binlog_checksum, "
                "@source_binlog_checksum = @@global.binlog_checksum"
            )
        self._query(conn, "SELECT @source_binlog_checksum")
        my_mode = str(_global(server, "gtid_mode", "ON")).upper()
        if cfg.auto_position and my_mode != "ON":
            raise _Fatal(13117, message(13117, REPLICA_AUTO_POSITION_GTID_MODE % my_mode))
        src_mode = str(self._query(conn, "SELECT @@GLOBAL.GTID_MODE") or "OFF").upper()
        if src_mode not in GTID_MODES:
            src_mode = "OFF"
        if not gtid_modes_compatible(src_mode, my_mode, assign_gtids=self.assign_gtids):
            raise _Fatal(13117, message(13117, GTID_MODE_MISMATCH % (src_mode, my_mode)))
        if cfg.auto_position and src_mode != "ON":
            raise _Fatal(13117, message(13117, SOURCE_AUTO_POSITION_GTID_MODE % src_mode))
        self._auto_position = cfg.auto_position
        self.relay.ignore_server_ids = frozenset(cfg.ignore_server_ids)
        # get_source_uuid()
        self.source_uuid = str(self._query(conn, "SELECT @@GLOBAL.SERVER_UUID") or "")
        if self.source_uuid and self.source_uuid == my_uuid:
            raise _Fatal(13117, message(13117, REPLICA_EQUAL_SERVER_UUIDS))
        if self._on_source_uuid is not None and self.source_uuid:
            self._on_source_uuid(self.source_uuid)
        with conn.cursor() as cur:
            cur.execute(f"SET @slave_uuid = '{my_uuid}', @replica_uuid = '{my_uuid}'")
        if self._stop.is_set():
            raise _Stopped
        # register_replica_on_source()
        self.state = STATE_REGISTERING
        # report_port defaults to the port this replica listens on (RM 8.4 "Replica Server Options": report_port)
        conn._execute_command(
            COM_REGISTER_SLAVE,
            register_body(
                my_id,
                host=str(_global(server, "report_host", "") or ""),
                user=str(_global(server, "report_user", "") or ""),
                password=str(_global(server, "report_password", "") or ""),
                port=int(_global(server, "report_port", 0) or server.globals.get("port") or 0),
            ),
        )
        conn._read_packet()
        self.state = STATE_REQUESTING
        if cfg.auto_position:
            # request_dump(): what we hold, executed or only received, is never asked for again
            have = server.gtid_state.executed() | self.relay.retrieved_gtids()
            # errant transactions: what we hold that the source lacks (its set only grows, so a snapshot read
            # before the dump request never over-reports); SHOW REPLICA STATUS warns with them
            self.errant_gtids = have - self._source_executed(conn)
            if self.errant_gtids:
                log.warning(REPLICA_ERRANT_GTIDS, self.errant_gtids)
            self.relay.begin_source()
            conn._execute_command(COM_BINLOG_DUMP_GTID, dump_gtid_body(my_id, have))
        else:
            # request_dump() without auto-positioning: from the source position the relay log holds whole
            # transactions up to (Source_Log_File / Read_Source_Log_Pos), else CHANGE REPLICATION SOURCE TO's
            # SOURCE_LOG_FILE / SOURCE_LOG_POS ("" = the source's first binlog)
            self.errant_gtids = GtidSet()
            self.relay.begin_source()
            file, pos = self.relay.source_position()
            if not file:
                file, pos = cfg.log_file, cfg.log_pos
            conn._execute_command(COM_BINLOG_DUMP, dump_body(my_id, file, max(pos, 4)))
        self.connected = True
        self.last_error = None
        self.state = STATE_WAITING
        while not self._stop.is_set():
            self._wait_for_relay_space()
            try:
                pkt = conn._read_packet()
            except pymysql.err.MySQLError as err:
                code = err.args[0] if err.args else 0
                if isinstance(code, int) and code < 2000 and not isinstance(err, pymysql.err.InterfaceError):
                    # the source's ERR packet: fatal (get_source_version_and_clock / read_event)
                    raise _Fatal(
                        13114, message(13114, code, err.args[1] if len(err.args) > 1 else "")
                    ) from err
                raise
            data = pkt.get_all_data()
            if data[:1] == b"\xfe" and len(data) < 9:
                raise ConnectionError("end of dump stream")  # non-blocking dump ended: reconnect
            self._queue(memoryview(data)[1:].tobytes())

    def _wait_for_relay_space(self) -> None:
        """``relay_log_space_limit`` (``wait_for_relay_log_space`` in ``sql/rpl_replica.cc``): while the relay log
        is bigger than the limit, stop reading and wait for the applier to purge relay files. Never waits when
        nothing can be purged (only the active file, or ``relay_log_purge`` OFF) nor once the applier has applied
        everything received (MySQL's ``ignore_log_space_limit``): the two threads cannot wait for each other."""
        limit = int(_global(self.server, "relay_log_space_limit", 0))
        if not limit or not _global(self.server, "relay_log_purge", True):
            return
        relay = self.relay
        while not self._stop.is_set() and relay.space() > limit and len(relay.index) > 1:
            if relay.retrieved_gtids().issubset(self.server.gtid_state.executed()):
                break
            self.state = STATE_WAITING_SPACE
            with relay.changed:
                relay.changed.wait(0.5)
        self.state = STATE_WAITING

    def _source_executed(self, conn: Any) -> GtidSet:
        """The source's ``@@GLOBAL.gtid_executed`` (empty when it cannot be read or parsed)."""
        try:
            return GtidSet.parse(str(self._query(conn, "SELECT @@GLOBAL.GTID_EXECUTED") or ""))
        except Exception:  # noqa: BLE001 - only the errant-GTID warning depends on it
            return GtidSet()

    def _queue(self, event: bytes) -> None:
        """``queue_event()``: note what the stream says, then hand the event to the relay log.

        Transaction boundaries (LAST_QUEUED_TRANSACTION / QUEUEING_TRANSACTION) are the relay log's: its one
        TransactionParser decides them (:meth:`RelayLog.queue_status`); the receiver only adds the wall-clock times.
        """
        if len(event) >= 19:
            t = event[4]
            self._check_gtid_mode(t)
            if t in (_T.HEARTBEAT_LOG_EVENT, _T.HEARTBEAT_LOG_EVENT_V2):
                self.last_heartbeat = time.time()
                self.heartbeats += 1
            elif t in (_T.GTID_LOG_EVENT, _T.GTID_TAGGED_LOG_EVENT, _T.ANONYMOUS_GTID_LOG_EVENT):
                self.last_event_time = struct.unpack_from("<I", event, 0)[0]  # common header: timestamp (s)
        self.state = STATE_QUEUEING
        self.relay.append(event)
        self.state = STATE_WAITING
        self._note_queue_status()

    def _check_gtid_mode(self, t: int) -> None:
        """``queue_event()``'s refusals, checked per transaction (GTID_MODE may change while the thread runs): a
        GTID transaction with GTID_MODE = OFF (13150), an anonymous one under SOURCE_AUTO_POSITION (13148) or with
        GTID_MODE = ON (13149). Each is logged, and the thread stops with 13122 "could not queue event from
        source" as Last_IO_Error (``handle_slave_io`` reports after ``queue_event`` failed).

        Raises:
            _Fatal: 13122.
        """
        if t in (_T.GTID_LOG_EVENT, _T.GTID_TAGGED_LOG_EVENT, _T.ANONYMOUS_GTID_LOG_EVENT):
            # a SET GLOBAL gtid_mode made in another worker of a multi-worker server counts from the next
            # transaction, as in one process (one counter read when nothing changed: engine/shared_config.py)
            self.server.refresh_shared()
        if t in (_T.GTID_LOG_EVENT, _T.GTID_TAGGED_LOG_EVENT):
            if str(_global(self.server, "gtid_mode", "ON")).upper() == "OFF":
                self._refuse(13150)
        elif t == _T.ANONYMOUS_GTID_LOG_EVENT:
            if self._auto_position:
                self._refuse(13148)
            if not self.assign_gtids and str(_global(self.server, "gtid_mode", "ON")).upper() == "ON":
                self._refuse(13149)

    def _refuse(self, code: int) -> None:
        file, pos = self._source_position()
        log.error(
            "Replica I/O for channel '%s': %s, Error_code: MY-%06d",
            self.relay.channel,
            message(code, file, pos),
            code,
        )
        raise _Fatal(13122, message(13122, COULD_NOT_QUEUE_EVENT))

    def _note_queue_status(self) -> None:
        last, queueing = self.relay.queue_status()
        now = time.time()
        if queueing is not None and queueing is not self._queueing_event:
            self._queueing_event = queueing
            self.queueing = str(queueing.gtid) if queueing.gtid is not None else "ANONYMOUS"
            self.queueing_times = (
                int(getattr(queueing, "original_commit_timestamp", 0) or 0),
                int(getattr(queueing, "immediate_commit_timestamp", 0) or 0),
                now,
            )
        if last is not None and last is not self._last_queued_event:
            self._last_queued_event = last
            self.last_queued = str(last.gtid) if last.gtid is not None else "ANONYMOUS"
            self.last_queued_times = (*self.queueing_times, now)
            if queueing is None or queueing is last:
                self.queueing = ""


def _global(server: Any, name: str, default: Any) -> Any:
    try:
        return server.globals.get(name)
    except Exception:  # noqa: BLE001 - a variable this build does not have
        return default


def _client_error(err: Exception, host: str, port: int) -> tuple[int, str]:
    """(errno, message) of a PyMySQL / socket failure, as libmysql numbers and words it: 2003 CR_CONN_HOST_ERROR
    ``Can't connect to MySQL server on 'host:port' (errno)``, 2005 CR_UNKNOWN_HOST ``Unknown MySQL server host
    'host' (errno)``, else the server's own error (1045 ...)."""
    orig = getattr(err, "original_exception", None)
    tls = (
        orig
        if isinstance(orig, ssl_module.SSLError)
        else err
        if isinstance(err, ssl_module.SSLError)
        else None
    )
    if tls is not None:
        return 2026, message(2026, getattr(tls, "reason", None) or str(tls))
    if isinstance(orig, socket.gaierror):
        return 2005, message(2005, host, orig.errno if orig.errno is not None else 0)
    if isinstance(orig, OSError):
        return 2003, message(2003, host, port, orig.errno if orig.errno is not None else 0)
    args = getattr(err, "args", ())
    if len(args) >= 2 and isinstance(args[0], int):
        return int(args[0]), str(args[1])
    if isinstance(err, (socket.timeout, TimeoutError)):
        return 2003, "Can't connect to MySQL server (timed out)"
    return 2003, str(err)


def _shutdown(conn: Any) -> None:
    sock = getattr(conn, "_sock", None)  # PyMySQL's socket: shut down to end a blocking read
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def _close(conn: Any) -> None:
    try:
        conn._force_close()
    except Exception:
        log.debug("closing the source connection failed", exc_info=True)
