"""The source role: COM_REGISTER_SLAVE, COM_BINLOG_DUMP, COM_BINLOG_DUMP_GTID and SHOW REPLICAS.

MySQL source: ``sql/rpl_source.cc`` (``register_replica``, ``unregister_replica``, ``show_replicas``,
``com_binlog_dump``, ``com_binlog_dump_gtid``, ``kill_zombie_dump_threads``, ``get_replica_uuid``,
``get_user_var_from_alternatives``); the stream itself is :mod:`gtidkit.replication.dump`.

- COM_REGISTER_SLAVE (0x15): ``server_id u32, host, user, password (each a length byte + bytes), port u16,
  rank u32 (ignored), source_id u32 (0 = this server's server_id)``; needs REPLICATION SLAVE; answers OK. The
  replica is listed by SHOW REPLICAS (8.4 columns Server_Id, Host, Port, Source_Id, Replica_UUID) and SHOW SLAVE
  HOSTS (the same with 5.7's names Server_id, Master_id, Slave_UUID) until its connection ends; a later
  registration with the same server_id replaces it. In a multi-worker server each worker keeps its connections'
  registrations and SHOW REPLICAS merges every worker's (``OP_REPLICAS`` over the control service), so the list
  is the server's whichever worker the registering connection and the asking one live in. Replica_UUID is the connection's ``@replica_uuid`` (else
  ``@slave_uuid``), "" when unset or not a UUID.
- COM_BINLOG_DUMP (0x12) / COM_BINLOG_DUMP_GTID (0x1e): REPLICATION SLAVE is checked first (ERR 1227, and the
  connection stays usable, as MySQL's ``check_global_access`` failure); then any other dump thread of the same
  replica is killed (``kill_zombie_dump_threads``: same ``@replica_uuid`` when this connection set one, else the
  same server_id among dumps without a UUID; a server_id 0 dump without UUID kills nothing); the killed dump ends
  with ERR 1236 "A replica with the same server_uuid/server_id as this replica has connected to the source".
  In a multi-worker server the zombie may be served by another worker: when this worker has none, every other
  worker is asked (control op ``OP_ZOMBIE_DUMP``) and stops its own (MySQL walks every THD of its one process).
  The connection then shows Command ``Binlog Dump`` / ``Binlog Dump GTID`` in SHOW PROCESSLIST, its session's
  ``stage`` (PROCESSLIST State) follows the sender (``Binlog_sender``'s stages, ``dump.STAGE_*``), and it streams; it
  is closed after the dump (MySQL's "fake COM_QUIT"), after EOF (non-blocking end) or ERR 1236. A KILL (CONNECTION or
  QUERY), a newer dump of the same replica and shutdown wake a sender waiting for the binlog (``THD::awake``): it never
  polls.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import struct
import threading
import time
import uuid
from dataclasses import dataclass
from typing import Any

from gtidkit.engine.api import result_set
from gtidkit.engine.results import StatementResult
from gtidkit.engine.shared.control import OP_REPLICAS, OP_ZOMBIE_DUMP
from gtidkit.engine.shared.service import PEER_TIMEOUT
from gtidkit.errors import MySQLError
from gtidkit.mysql_errors import mysql_error, unknown_error
from gtidkit.protocol.messages import Eof, Err, Ok
from gtidkit.protocol.privileges import has_global
from gtidkit.replication.dump import (
    COM_BINLOG_DUMP,
    COM_BINLOG_DUMP_GTID,
    COM_REGISTER_SLAVE,
    MYSQL_ERRMSG_SIZE,
    BinlogSender,
    DumpError,
    DumpRequest,
    DumpStopped,
)

log = logging.getLogger("gtidkit.server")

REPLICATION_SLAVE = "REPLICATION SLAVE"
#: SHOW REPLICAS (8.4) and SHOW SLAVE HOSTS (5.7 names) columns
REPLICAS_COLUMNS = ("Server_Id", "Host", "Port", "Source_Id", "Replica_UUID")
SLAVE_HOSTS_COLUMNS = ("Server_id", "Host", "Port", "Master_id", "Slave_UUID")


@dataclass(frozen=True, slots=True)
class ReplicaInfo:
    """One registered replica (MySQL's ``REPLICA_INFO``).

    Attributes:
        server_id: the replica's server_id (the registry key).
        host, user, password, port: what it reported (``report_host`` ...).
        source_id: the source id it reported, or this server's server_id when it sent 0.
        replica_uuid: ``@replica_uuid`` / ``@slave_uuid`` of its connection when that is a UUID, else "".
        connection_id: the registering connection (the entry goes away with it).
        registered: when it registered (seconds since the epoch): across the workers of a multi-worker server the
            latest registration of a server_id wins, as one process's registry keeps the latest.
    """

    server_id: int
    host: str
    user: str
    password: str
    port: int
    source_id: int
    replica_uuid: str
    connection_id: int
    registered: float = 0.0


def parse_register(body: bytes, own_server_id: int) -> tuple[int, str, str, str, int, int]:
    """COM_REGISTER_SLAVE body -> (server_id, host, user, password, port, source_id).

    Raises:
        MySQLError: 1835 when shorter than the server id; 1105 "Wrong parameters when registering replica" (or the
            "too long" texts) for the rest, as ``register_replica``.
    """
    b = bytes(body)
    if len(b) < 4:
        raise mysql_error(1835)
    (server_id,) = struct.unpack_from("<I", b, 0)
    p = 4
    fields = []
    for what, limit in (("'report-host'", 256), ("'report-user'", 33), ("'report-password'", 33)):
        if p >= len(b):
            raise mysql_error(1835)
        n = b[p]
        p += 1
        if p + n > len(b) or n >= limit:
            sep = ";" if what == "'report-password'" else ":"
            raise unknown_error(f"Failed to register replica{sep} too long {what}")
        fields.append(b[p : p + n].decode("utf-8", "surrogateescape"))
        p += n
    if p + 10 > len(b):
        raise unknown_error("Wrong parameters when registering replica")
    port, _rank, source_id = struct.unpack_from("<HII", b, p)
    return server_id, fields[0], fields[1], fields[2], port, source_id or own_server_id


def _user_var(session: Any, *names: str) -> Any:
    """``get_user_var_from_alternatives``: the first of ``names`` that is set in the session."""
    store = getattr(session, "user_vars", None) or {}
    for n in names:
        if n in store:
            return store[n]
    return None


def replica_uuid_of(session: Any) -> str:
    """``get_replica_uuid``: ``@replica_uuid`` else ``@slave_uuid`` as text ("" when unset or empty)."""
    v = _user_var(session, "replica_uuid", "slave_uuid")
    if v is None:
        return ""
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)


class _Dump:
    """A running dump: its connection, replica identity and stop flag."""

    def __init__(self, handler: Any, server_id: int, replica_uuid: str, engine: Any) -> None:
        self.handler = handler
        self.server_id = server_id
        self.replica_uuid = replica_uuid
        self.engine = engine
        self.stop = threading.Event()
        self.duplicate = False

    def should_stop(self) -> bool | str:
        """The sender's stop test: the fatal text of a killed zombie, True when stopped or KILLed."""
        if self.duplicate:
            return "A replica with the same server_uuid/server_id as this replica has connected to the source"
        return self.stop.is_set() or bool(self.handler.killed)

    def wake(self) -> None:
        """Wake the sender if it waits for the binlog, so it sees :meth:`should_stop` now (``THD::awake``)."""
        binlog = self.engine.binlog
        if binlog is not None:
            binlog.wake_readers()

    def request_stop(self, *, duplicate: bool = False) -> None:
        """Stop the sender (quietly, or with the zombie's fatal error) and wake it."""
        if duplicate:
            self.duplicate = True
        self.stop.set()
        self.wake()


class SourceRole:
    """The source side of replication over one engine ``Server`` and its ``WireServer``.

    Attributes:
        replicas: registered replicas by server_id.
    """

    def __init__(self, engine_server: Any, wire_server: Any) -> None:
        self.engine = engine_server
        self.wire = wire_server
        self.replicas: dict[int, ReplicaInfo] = {}
        self._dumps: list[_Dump] = []
        self._lock = threading.Lock()
        self._stopping = False

    # -- wiring ---------------------------------------------------------------------------------------------
    def install(self) -> None:
        """Register the command hooks and the SHOW REPLICAS provider."""
        hooks = self.wire.ctx.command_hooks
        hooks[COM_REGISTER_SLAVE] = self.register_hook
        hooks[COM_BINLOG_DUMP] = self.dump_hook
        hooks[COM_BINLOG_DUMP_GTID] = self.dump_hook
        self.engine.provide_show("replicas", self.show_replicas)
        # a multi-worker server: the other workers' SHOW REPLICAS ask for this worker's registrations, and a new
        # dump in another worker may find its zombie here
        control = self.engine.control
        control.register(OP_REPLICAS, self._answer_replicas)
        control.register(OP_ZOMBIE_DUMP, self._answer_zombie)

    def shutdown(self) -> None:
        """Stop every dump (their connections close) and wait briefly for them to end."""
        with self._lock:
            self._stopping = True
            dumps = list(self._dumps)
        for d in dumps:
            d.request_stop()
            try:
                d.handler.kill_hook()
            except Exception:  # a socket already gone
                log.debug("closing dump connection %s", d.handler.connection_id, exc_info=True)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            with self._lock:
                if not self._dumps:
                    return
            time.sleep(0.02)

    def dumps(self) -> list[tuple[int, int, str]]:
        """Running dumps as (connection id, replica server_id, replica UUID), for tests and tools."""
        with self._lock:
            return [(d.handler.connection_id, d.server_id, d.replica_uuid) for d in self._dumps]

    # -- helpers --------------------------------------------------------------------------------------------
    @staticmethod
    def _caps(io: Any) -> int:
        return int(io.handler.conn.capabilities)

    def _send_error(self, io: Any, err: MySQLError) -> None:
        io.send(Err(err.code, err.message, err.sqlstate).encode(self._caps(io)))

    def _send_fatal(self, io: Any, text: str) -> None:
        """ERR 1236 (ER_SOURCE_FATAL_ERROR_READING_BINLOG) with the sender's own text, as ``my_message(m_errno,
        m_errmsg)``; the replica words it with the table's template ("Got fatal error 1236 from source ...")."""
        # the diagnostics area keeps MYSQL_ERRMSG_SIZE - 1 bytes (strmake): the 1885 text reaches replicas cut
        # after "...transactions that have been", as real ones show it
        raw = text.encode("utf-8", "surrogateescape")[: MYSQL_ERRMSG_SIZE - 1]
        text = raw.decode("utf-8", "ignore")
        try:
            io.send(Err(1236, text, "HY000").encode(self._caps(io)))
        except OSError:
            pass

    def _privileged(self, io: Any) -> bool:
        if has_global(io.handler.current_account(), REPLICATION_SLAVE):
            return True
        self._send_error(io, mysql_error(1227, REPLICATION_SLAVE))
        return False

    def _live_replicas(self) -> list[ReplicaInfo]:
        with self.wire.ctx.lock:
            alive = {cid for cid, h in self.wire.ctx.handlers.items() if not h.closed}
        with self._lock:
            for sid in [s for s, r in self.replicas.items() if r.connection_id not in alive]:
                del self.replicas[sid]  # unregister_replica at the end of the registering connection
            return sorted(self.replicas.values(), key=lambda r: r.server_id)

    # -- COM_REGISTER_SLAVE ---------------------------------------------------------------------------------
    def register_hook(self, io: Any, cmd: Any) -> bool:
        """COM_REGISTER_SLAVE: record the replica, answer OK (or ERR); the connection stays in command phase."""
        if not self._privileged(io):
            return True
        own = int(self.engine.globals.get("server_id") or 0)
        try:
            server_id, host, user, password, port, source_id = parse_register(cmd.body, own)
        except MySQLError as err:
            self._send_error(io, err)
            return True
        session = io.handler.session
        text = replica_uuid_of(session)
        try:
            ruuid = str(uuid.UUID(text)) if text else ""
        except ValueError:
            ruuid = ""
        info = ReplicaInfo(
            server_id, host, user, password, port, source_id, ruuid, io.handler.connection_id, time.time()
        )
        with self._lock:
            self.replicas[server_id] = info
        control = self.engine.control
        for worker in control.peers():  # the same server_id registered in another worker: replaced
            control.notify(worker, OP_REPLICAS, json.dumps([server_id, info.registered]).encode())
        io.send(Ok().encode(self._caps(io)))
        return True

    def _answer_replicas(self, message: Any) -> bytes | None:
        """OP_REPLICAS: a request is answered with this worker's live registrations (JSON lists of
        :class:`ReplicaInfo`'s fields); a notification ``[server_id, registered]`` says another worker registered
        that server_id: an earlier registration of it here is dropped (one process's registry keeps one entry per
        server_id, ``register_replica``)."""
        if message.reply_to is None:
            server_id, registered = json.loads(message.body)
            with self._lock:
                old = self.replicas.get(int(server_id))
                if old is not None and old.registered < float(registered):
                    del self.replicas[int(server_id)]
            return None
        return json.dumps([dataclasses.astuple(r) for r in self._live_replicas()]).encode()

    def server_replicas(self) -> list[ReplicaInfo]:
        """The replicas registered with any connection of the server: this process's, and in a multi-worker server
        every other worker's (OP_REPLICAS; a worker that does not answer within ``PEER_TIMEOUT`` is left out and
        named in the error log), the latest registration of each server_id, by server_id."""
        found = {r.server_id: r for r in self._live_replicas()}
        control = self.engine.control
        if control.active:
            for worker, answer in sorted(control.ask_peers(OP_REPLICAS, timeout=PEER_TIMEOUT).items()):
                if answer is None:
                    log.warning(
                        "worker %d did not answer for SHOW REPLICAS within %s s", worker, PEER_TIMEOUT
                    )
                    continue
                for fields in json.loads(answer):
                    r = ReplicaInfo(*fields)
                    old = found.get(r.server_id)
                    if old is None or r.registered > old.registered:
                        found[r.server_id] = r
        return sorted(found.values(), key=lambda r: r.server_id)

    def show_replicas(self, session: Any, stmt: Any) -> StatementResult:
        """SHOW REPLICAS / SHOW SLAVE HOSTS (the engine's SHOW provider for ``replicas``; ``stmt.info["slave"]``:
        the old spelling, with the old column names): every worker's registrations (:meth:`server_replicas`)."""
        old_names = bool(stmt.info.get("slave"))
        rows = [(r.server_id, r.host, r.port, r.source_id, r.replica_uuid) for r in self.server_replicas()]
        return result_set(list(SLAVE_HOSTS_COLUMNS if old_names else REPLICAS_COLUMNS), rows)

    # -- COM_BINLOG_DUMP / COM_BINLOG_DUMP_GTID ------------------------------------------------------------
    def dump_hook(self, io: Any, cmd: Any) -> bool:
        """COM_BINLOG_DUMP[_GTID]: stream the binlog on this connection, then close it."""
        if not self._privileged(io):
            return True
        handler = io.handler
        try:
            request = DumpRequest.decode(cmd.command, cmd.body)
        except MySQLError as err:
            self._send_error(io, err)
            return False
        session = handler.session
        ruuid = replica_uuid_of(session)
        me = _Dump(handler, request.server_id, ruuid, self.engine)
        self._kill_zombies(me)
        with self._lock:
            if self._stopping:
                return False
            self._dumps.append(me)
        handler.command = "Binlog Dump GTID" if cmd.command == COM_BINLOG_DUMP_GTID else "Binlog Dump"
        handler.command_started = time.monotonic()
        # KILL sets handler.killed, then calls the edge's kill_hook (which shuts the socket down): wake the sender
        # too, which may be waiting for the binlog and would not see the socket go
        edge_kill = handler.kill_hook

        def kill() -> None:
            me.wake()
            edge_kill()

        handler.kill_hook = kill
        # KILL QUERY ends the dump too (the sender checks thd->killed, com_binlog_dump returns, the connection closes)
        handler.kill_query_hook = me.request_stop
        log.info(  # ER_RPL_BINLOG_STARTING_DUMP, plus the GTID set the general log shows
            "Start binlog_dump to source_thread_id(%d) replica_server(%d), pos(%s, %d)%s",
            handler.connection_id,
            request.server_id,
            request.file,
            request.pos,
            "" if request.gtids is None else f" GTIDs: '{request.gtids}'",
        )
        period = _user_var(session, "source_heartbeat_period", "master_heartbeat_period")
        checksum = _user_var(session, "source_binlog_checksum", "master_binlog_checksum")
        verify = str(self.engine.globals.get("source_verify_checksum") or "").upper() in ("1", "ON", "TRUE")
        sender = BinlogSender(
            self.engine,
            request,
            send=io.send,
            replica_checksum=None if checksum is None else _text(checksum),
            heartbeat_period_ns=_int(period),
            should_stop=me.should_stop,
            verify_checksum=verify,
            on_stage=lambda stage: setattr(session, "stage", stage),  # PROCESSLIST State (engine_seam.stage)
        )
        try:
            sender.run()
            io.send(Eof().encode(self._caps(io)))
        except DumpStopped:
            pass  # KILL [QUERY] / shutdown: the connection just closes
        except DumpError as err:
            log.info("binlog dump to connection %d ended: %s", handler.connection_id, err.message)
            self._send_fatal(io, err.message)
        except OSError as err:
            log.debug("dump connection %d: %s", handler.connection_id, err)
        finally:
            handler.kill_hook = edge_kill
            handler.kill_query_hook = lambda: None
            with self._lock:
                if me in self._dumps:
                    self._dumps.remove(me)
                # unregister_replica(thd, only_mine=true)
                info = self.replicas.get(request.server_id)
                if info is not None and info.connection_id == handler.connection_id:
                    del self.replicas[request.server_id]
        return False

    def _kill_zombies(self, me: _Dump) -> None:
        """``kill_zombie_dump_threads``: stop the other dump of the same replica (UUID, else server_id), in this
        worker or, when it has none, in the other workers of a multi-worker server (the first match of each)."""
        if not me.replica_uuid and me.server_id == 0:
            return
        killed = self._stop_zombie(me.server_id, me.replica_uuid)
        if killed is None:
            control = getattr(self.engine, "control", None)
            if control is not None:
                body = json.dumps({"server_id": me.server_id, "uuid": me.replica_uuid}).encode()
                for answer in control.ask_peers(OP_ZOMBIE_DUMP, body).values():
                    if answer:
                        killed = int(answer)
                        break
        if killed is not None:
            log.info(
                "While initializing dump thread for replica with %s <%s>, found a zombie dump thread "
                "with the same %s. Source is killing the zombie dump thread(%d).",
                "UUID" if me.replica_uuid else "server_id",
                me.replica_uuid or me.server_id,
                "UUID" if me.replica_uuid else "server_id",
                killed,
            )

    def _stop_zombie(self, server_id: int, replica_uuid: str) -> int | None:
        """Stop this worker's first dump of the replica ``replica_uuid`` (when set, else ``server_id`` among dumps
        without a UUID) with the zombie's fatal error; returns its connection id, or None when there is none."""
        with self._lock:
            for d in self._dumps:
                if replica_uuid:
                    zombie = bool(d.replica_uuid) and d.replica_uuid[:36] == replica_uuid[:36]
                else:
                    zombie = d.server_id == server_id and not d.replica_uuid
                if zombie:
                    d.request_stop(duplicate=True)
                    return int(d.handler.connection_id)  # MySQL's find_thd stops at the first match
        return None

    def _answer_zombie(self, message: Any) -> bytes:
        """OP_ZOMBIE_DUMP from another worker (body: JSON ``server_id`` and ``uuid`` of its new dump): stop this
        worker's zombie of that replica; answers its connection id, or ``b""`` when there is none."""
        asked = json.loads(message.body)
        killed = self._stop_zombie(int(asked["server_id"]), str(asked["uuid"]))
        return b"" if killed is None else str(killed).encode()


def _text(v: Any) -> str:
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)


def _int(v: Any) -> int:
    if v is None:
        return 0
    try:
        return int(float(_text(v))) if not isinstance(v, int) else v
    except ValueError:
        return 0


def install(engine_server: Any, wire_server: Any, repl: Any) -> SourceRole:
    """Plug the source role into ``wire_server`` over ``engine_server``; its shutdown joins ``repl``'s.

    Args:
        engine_server: the engine ``Server``.
        wire_server: the protocol ``WireServer`` (before ``start()``).
        repl: the :class:`gtidkit.replication.Replication` being built (``roles["source"]`` is set).
    """
    role = SourceRole(engine_server, wire_server)
    role.install()
    repl.roles["source"] = role
    repl.on_shutdown(role.shutdown)
    return role


__all__ = ["ReplicaInfo", "SourceRole", "install", "parse_register", "replica_uuid_of"]
