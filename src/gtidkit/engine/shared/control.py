"""Per-worker control sockets: small messages between the processes of one server (issue 21, §5.2).

Each worker binds one Unix datagram socket named after the server and its worker id, in Linux's abstract
namespace (``\\0gtidkit.<instance token>.w<worker id>``: no file in the datadir to clean up, no 108-byte path
limit, gone with the process; the token is the shared page's, random per server start, so a restarted server
never reaches an orphan of the previous one). On it the worker receives:

* **notifications** (:meth:`ControlSocket.send`): one datagram, no answer — a wake-up of its dump threads after a
  binlog flush, ``KILL`` / ``KILL QUERY`` of one of its connections (MySQL's ``THD::awake`` from another thread,
  ``sql/sql_class.cc``);
* **requests** (:func:`request`, :func:`fan_out`): answered on the requester's own socket, possibly in several
  datagrams (:data:`CHUNK` bytes each), matched by request id, with a timeout — e.g. the rows of SHOW PROCESSLIST
  that a worker gathers from every other worker (``sql/sql_show.cc`` ``mysqld_list_processes`` walks every THD
  of the server).

Only processes of the server's own user are heard: the socket asks the kernel for each sender's credentials
(``SO_PASSCRED``), and :meth:`ControlSocket.receive` drops a datagram from another uid (an abstract socket has no
file permissions, and the ops kill connections and run replication statements).

A datagram is 20 bytes of header (kind, last-chunk flag, op, sender worker id, request id, chunk number) and the
body, which callers encode (ops and body formats belong to whoever uses them; :data:`OP_PING` is answered by
:meth:`ControlSocket.serve` itself). Unix datagrams between live processes are neither lost nor reordered.
"""

from __future__ import annotations

import itertools
import math
import os
import select
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from gtidkit.errors import GtidkitError

__all__ = [
    "CHUNK",
    "DEFERRED",
    "OP_COMPRESS",
    "OP_INNODB_STATUS",
    "OP_KILL",
    "OP_KILL_QUERY",
    "OP_PING",
    "OP_PROCESSLIST",
    "OP_REPLICA",
    "OP_REPLICAS",
    "OP_STATUS",
    "OP_THREADS",
    "OP_WAKE",
    "OP_ZOMBIE_DUMP",
    "ControlError",
    "ControlMessage",
    "ControlSocket",
    "control_address",
    "fan_out",
    "request",
    "request_while",
]

_HEADER = struct.Struct("=BBHIQI")  # kind, flags, op, sender worker, request id, chunk number
#: body bytes per datagram (responses longer than this are split)
CHUNK = 60_000
_NOTIFY, _REQUEST, _RESPONSE = 1, 2, 3
_LAST = 1
_STOP = 0xFFFF  # op of the datagram close() sends itself to end serve()

#: ops used by the multi-worker server; who answers each, and its body, is said where it is registered
#: (:class:`~gtidkit.engine.shared.service.ControlService`): KILL / KILL QUERY / PROCESSLIST / STATUS in
#: ``protocol/admin.py``, THREADS in ``engine/server.py``, ZOMBIE_DUMP in ``replication/source.py``, INNODB_STATUS in
#: ``engine/statements/innodb_status.py``, COMPRESS and FLUSH_STATUS in ``engine/server.py``, REPLICA in
#: ``replication/forward.py``, REPLICAS in ``replication/source.py``. A new feature appends its op here.
OP_PING = 1
OP_WAKE = 2
OP_KILL = 3
OP_KILL_QUERY = 4
OP_PROCESSLIST = 5
OP_THREADS = 6
OP_STATUS = 7
OP_ZOMBIE_DUMP = 8
OP_INNODB_STATUS = 9
OP_COMPRESS = 10
#: a replication statement (or a read of replication state) run by the process with the replication threads
OP_REPLICA = 11
#: the replicas registered (COM_REGISTER_SLAVE) with a worker's connections: SHOW REPLICAS' merge
OP_REPLICAS = 12
#: FLUSH STATUS in another worker: reset this worker's sessions' statement counters (engine/server.py)
OP_FLUSH_STATUS = 13


class _Deferred(bytes):
    """The type of :data:`DEFERRED`."""


#: what a handler returns to :meth:`ControlSocket.serve` when it answers the request later itself
#: (:meth:`ControlSocket.reply` from another thread): ``serve`` then sends nothing
DEFERRED: bytes = _Deferred(b"")

_request_ids = itertools.count(1)
_local = threading.local()


class ControlError(GtidkitError):
    """A control request failed: the worker is not listening (gone), or it did not answer in time.

    Args:
        message: what happened, naming the worker.
        worker_id: the worker asked.
    """

    def __init__(self, message: str, worker_id: int) -> None:
        super().__init__(message)
        self.worker_id = worker_id


@dataclass(frozen=True, slots=True)
class ControlMessage:
    """A notification or request received by a worker.

    Attributes:
        op: the operation (e.g. :data:`OP_KILL`).
        body: the payload.
        sender: the sending worker's id.
        request_id: 0 for a notification, else the id :meth:`ControlSocket.reply` answers.
        reply_to: the requester's socket address (requests only).
    """

    op: int
    body: bytes
    sender: int
    request_id: int = 0
    reply_to: bytes | None = None


def control_address(token: bytes, worker_id: int) -> bytes:
    """The abstract socket name of worker ``worker_id`` of the server whose shared page has ``token``."""
    return b"\0gtidkit." + token.hex().encode() + b".w%d" % worker_id


def _frames(kind: int, op: int, sender: int, request_id: int, body: bytes) -> Iterable[bytes]:
    chunks = max(1, math.ceil(len(body) / CHUNK))
    for n in range(chunks):
        flags = _LAST if n == chunks - 1 else 0
        yield _HEADER.pack(kind, flags, op, sender, request_id, n) + body[n * CHUNK : (n + 1) * CHUNK]


class ControlSocket:
    """A worker's named control socket.

    Args:
        token: the server's instance token (:attr:`~.shm.SharedPage.token`).
        worker_id: this worker's id.

    Raises:
        OSError: the name is taken (another live worker with this id) or sockets are unavailable.
    """

    def __init__(self, token: bytes, worker_id: int) -> None:
        self.token = token
        self.worker_id = worker_id
        self.address = control_address(token, worker_id)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        try:
            self.sock.bind(self.address)
            # the kernel attaches each sender's credentials (SCM_CREDENTIALS): an abstract socket has no file
            # permissions, so :meth:`receive` drops what a process of another user sent
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        except OSError:
            self.sock.close()
            raise
        self._closed = False
        self._serving = False

    def close(self) -> None:
        """Stop :meth:`serve` (from any thread) and close the socket (:meth:`serve` closes it on its way out, so
        its thread never polls a descriptor closed under it)."""
        if self._closed:
            return
        self._closed = True
        try:
            self.sock.sendto(_HEADER.pack(_NOTIFY, _LAST, _STOP, self.worker_id, 0, 0), self.address)
        except OSError:
            pass
        if not self._serving:
            self.sock.close()

    def send(self, worker_id: int, op: int, body: bytes = b"") -> bool:
        """Notify worker ``worker_id`` (one datagram, no answer).

        Returns:
            False when that worker is not listening (gone) or its queue is full.
        """
        if len(body) > CHUNK:
            raise ValueError(f"a notification body is at most {CHUNK} bytes, not {len(body)}")
        try:
            self.sock.sendto(
                _HEADER.pack(_NOTIFY, _LAST, op, self.worker_id, 0, 0) + body,
                socket.MSG_DONTWAIT,
                control_address(self.token, worker_id),
            )
        except (BlockingIOError, ConnectionRefusedError, FileNotFoundError):
            return False
        return True

    def receive(self, timeout: float | None = None) -> ControlMessage | None:
        """The next notification or request, or None after ``timeout`` seconds (or once closed, or when the
        datagram came from a process of another user: the server's processes all run as one user, and any local
        user can reach an abstract socket, so such a datagram is dropped and logged nowhere).

        A request longer than one datagram is not supported (requests are small: the op and a few bytes).
        """
        if self._closed:
            return None
        poller = select.poll()
        poller.register(self.sock.fileno(), select.POLLIN)
        if not poller.poll(None if timeout is None else max(0, math.ceil(timeout * 1000))):
            return None
        try:
            data, ancdata, _flags, addr = self.sock.recvmsg(CHUNK + _HEADER.size, _CREDS_SPACE)
        except OSError:
            return None
        if _sender_uid(ancdata) != os.getuid():
            return None
        kind, _flags, op, sender, request_id, _chunk = _HEADER.unpack_from(data)
        if op == _STOP and sender == self.worker_id:
            return None
        reply_to = addr if kind == _REQUEST and isinstance(addr, bytes) and addr else None
        return ControlMessage(op, data[_HEADER.size :], sender, request_id, reply_to)

    def reply(self, message: ControlMessage, body: bytes, timeout: float = 1.0) -> bool:
        """Answer ``message`` (a request) with ``body``, split into datagrams of :data:`CHUNK` bytes.

        Args:
            message: the request received.
            body: the answer.
            timeout: seconds to wait for room in the requester's queue before giving up.

        Returns:
            False when the requester is gone or did not make room in time (it has given up).
        """
        if message.reply_to is None:
            raise ValueError("a notification has no one to reply to")
        out = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        out.settimeout(timeout)
        try:
            for frame in _frames(_RESPONSE, message.op, self.worker_id, message.request_id, body):
                out.sendto(frame, message.reply_to)
        except (OSError, TimeoutError):
            return False
        finally:
            out.close()
        return True

    def serve(self, handler: Callable[[ControlMessage], bytes | None]) -> None:
        """Run until :meth:`close`: each message goes to ``handler``; a request is answered with what it returns
        (:data:`OP_PING` is answered here with the worker's pid), unless it returns :data:`DEFERRED` (the handler
        replies later, from another thread)."""
        self._serving = True
        try:
            while not self._closed:
                message = self.receive()
                if message is None:
                    continue
                if message.op == OP_PING and message.reply_to is not None:
                    self.reply(message, b"%d" % os.getpid())
                    continue
                answer = handler(message)
                if message.reply_to is not None and answer is not DEFERRED:
                    self.reply(message, answer or b"")
        finally:
            self._serving = False
            self.sock.close()


_UCRED = struct.Struct("=iII")  # struct ucred: pid, uid, gid
_CREDS_SPACE = socket.CMSG_SPACE(_UCRED.size)


def _sender_uid(ancdata: list[tuple[int, int, bytes]]) -> int | None:
    """The sender's uid from a datagram's SCM_CREDENTIALS (None when absent)."""
    for level, kind, data in ancdata:
        if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS and len(data) >= _UCRED.size:
            return int(_UCRED.unpack_from(data)[1])
    return None


def _requester() -> socket.socket:
    """The calling thread's autobound requester socket (answers come back to it)."""
    sock: socket.socket | None = getattr(_local, "sock", None)
    if sock is None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind("")
        _local.sock = sock
    return sock


def _drained_requester(body: bytes) -> socket.socket:
    """This thread's requester socket, non-blocking, emptied of late answers to an earlier timed-out request.

    Raises:
        ValueError: ``body`` is longer than :data:`CHUNK` bytes.
    """
    if len(body) > CHUNK:
        raise ValueError(f"a request body is at most {CHUNK} bytes, not {len(body)}")
    sock = _requester()
    sock.setblocking(False)
    while True:  # late answers to an earlier, timed-out request
        try:
            sock.recv(CHUNK + _HEADER.size)
        except BlockingIOError:
            break
    return sock


def fan_out(
    token: bytes, worker_ids: Iterable[int], op: int, body: bytes = b"", timeout: float = 1.0, sender: int = 0
) -> dict[int, bytes | None]:
    """Send one request to each worker in ``worker_ids`` and gather the answers (SHOW PROCESSLIST's merge).

    Args:
        token: the server's instance token.
        worker_ids: the workers to ask.
        op: the request's operation.
        body: its payload (at most :data:`CHUNK` bytes).
        timeout: seconds to wait for all answers.
        sender: the asking worker's id.

    Returns:
        worker id -> its answer, or None for a worker that is not listening or did not answer in time.
    """
    sock = _drained_requester(body)
    pending: dict[int, int] = {}  # request id -> worker
    answers: dict[int, bytes | None] = {}
    parts: dict[int, list[bytes]] = {}
    deadline = time.monotonic() + timeout
    for worker_id in worker_ids:
        rid = next(_request_ids)
        try:
            sock.sendto(
                _HEADER.pack(_REQUEST, _LAST, op, sender, rid, 0) + body, control_address(token, worker_id)
            )
        except (BlockingIOError, ConnectionRefusedError, FileNotFoundError):
            answers[worker_id] = None
            continue
        pending[rid] = worker_id
    poller = select.poll()
    poller.register(sock.fileno(), select.POLLIN)
    while pending:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not poller.poll(max(0, math.ceil(remaining * 1000))):
            break
        try:
            data = sock.recv(CHUNK + _HEADER.size)
        except BlockingIOError:
            continue
        kind, flags, _op, _sender, rid, _chunk = _HEADER.unpack_from(data)
        if kind != _RESPONSE or rid not in pending:
            continue
        parts.setdefault(rid, []).append(data[_HEADER.size :])
        if flags & _LAST:
            answers[pending.pop(rid)] = b"".join(parts.pop(rid))
    for worker_id in pending.values():
        answers[worker_id] = None
    return answers


def request(
    token: bytes, worker_id: int, op: int, body: bytes = b"", timeout: float = 1.0, sender: int = 0
) -> bytes:
    """Ask worker ``worker_id`` and wait for its answer.

    Raises:
        ControlError: the worker is not listening, or did not answer within ``timeout`` seconds.
    """
    answer = fan_out(token, [worker_id], op, body, timeout, sender).get(worker_id)
    if answer is None:
        raise ControlError(
            f"worker {worker_id} did not answer within {timeout} s (not listening, or busy)", worker_id
        )
    return answer


def request_while(
    token: bytes,
    worker_id: int,
    op: int,
    body: bytes,
    alive: Callable[[], bool],
    *,
    sender: int = 0,
    poll: float = 0.25,
) -> bytes | None:
    """Ask worker ``worker_id`` and wait for its answer as long as ``alive()`` says it can still come: for a
    request whose work may take long (a replication statement waiting for its threads or for the write lock).

    Args:
        token: the server's instance token.
        worker_id: the worker asked.
        op: the request's operation.
        body: its payload (at most :data:`CHUNK` bytes).
        alive: called every ``poll`` seconds while no answer came; False ends the wait (the worker died or was
            replaced, so its answer will never come).
        sender: the asking worker's id.
        poll: seconds between ``alive()`` checks.

    Returns:
        The answer, or None when the worker is not listening (gone, or not started yet): the request was not
        delivered.

    Raises:
        ControlError: ``alive()`` turned False before the answer came (the request may have been carried out).
    """
    sock = _drained_requester(body)
    rid = next(_request_ids)
    try:
        sock.sendto(
            _HEADER.pack(_REQUEST, _LAST, op, sender, rid, 0) + body, control_address(token, worker_id)
        )
    except (BlockingIOError, ConnectionRefusedError, FileNotFoundError):
        return None
    poller = select.poll()
    poller.register(sock.fileno(), select.POLLIN)
    parts: list[bytes] = []
    while True:
        if not poller.poll(max(1, math.ceil(poll * 1000))):
            if not alive():
                raise ControlError(f"worker {worker_id} ended before it answered", worker_id)
            continue
        try:
            data = sock.recv(CHUNK + _HEADER.size)
        except BlockingIOError:
            continue
        kind, flags, _op, _sender, got, _chunk = _HEADER.unpack_from(data)
        if kind != _RESPONSE or got != rid:
            continue
        parts.append(data[_HEADER.size :])
        if flags & _LAST:
            return b"".join(parts)
