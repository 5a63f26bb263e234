"""A worker's control service: one thread serving its named control socket, with handlers registered by op code.

Issue 21 step 6, docs/design/multi_worker.md §5.2 ("Control channel per worker") and "Step 6 as built (control
service)". Every worker of a multi-worker server (``gtidkit server --workers=N``, N > 1) runs one
:class:`ControlService`: the engine server creates it unstarted (``Server.control``), any layer registers the ops it
answers (:meth:`ControlService.register`, before or after the start), and the worker process starts it once the
shared page exists (``cli/worker.py``: the page's instance token names the sockets, the supervisor's worker count
says which ids exist). A one-process server never starts it: :meth:`ask_peers` then has no one to ask and answers
``{}``, so a feature written against the service needs no single-process branch.

How a feature uses it (the ops of the server are numbered in :mod:`.control`: add an ``OP_*`` constant there):

* answer an op in every worker: ``server.control.register(OP_X, handler)``; ``handler(message) -> bytes | None``
  runs in the service thread, must not block (no fan-out of its own, no lock another worker's request may hold),
  and a request is answered with what it returns (``b""`` for None); an exception is logged and answered ``b""``;
* ask every other worker: ``server.control.ask_peers(OP_X, body, timeout)`` -> ``{worker id: answer or None}``
  (None: that worker is gone, being replaced, or did not answer within ``timeout`` seconds);
* tell one worker without waiting: ``server.control.notify(worker_id, OP_X, body)``.

The model is MySQL's single process walking every THD (``Global_THD_manager::do_for_all_thd``,
``sql/mysqld_thd_manager.cc``): here each worker walks its own and the asking worker merges the answers.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable

from gtidkit.engine.shared.control import (
    DEFERRED,
    ControlMessage,
    ControlSocket,
    fan_out,
    request_while,
)

__all__ = ["PEER_TIMEOUT", "ControlHandler", "ControlService"]

log = logging.getLogger("gtidkit.server")

#: seconds a merge across workers (SHOW PROCESSLIST, performance_schema.threads, SHOW STATUS) waits for the other
#: workers' answers: a dead, replaced or stalled worker costs the statement this much and leaves its rows out
PEER_TIMEOUT = 1.0

#: ``handler(message) -> answer``: what a registered op runs in the service thread
ControlHandler = Callable[[ControlMessage], bytes | None]


class ControlService:
    """The control service of one worker: a handler registry by op code, and (once started) the thread serving it.

    Created unstarted (a registry only); :meth:`start` binds the worker's named socket and starts the thread.
    """

    def __init__(self) -> None:
        self._handlers: dict[int, ControlHandler] = {}
        self._threaded: set[int] = set()
        self._socket: ControlSocket | None = None
        self._thread: threading.Thread | None = None
        self.token = b""
        self.worker_id = 0
        self.workers = 1

    # ------------------------------------------------------------------ registry
    def register(self, op: int, handler: ControlHandler, *, threaded: bool = False) -> None:
        """Answer ``op`` with ``handler`` (a later registration of the same op replaces the earlier one).

        Args:
            op: the operation code (an ``OP_*`` constant of :mod:`gtidkit.engine.shared.control`).
            handler: ``fn(message) -> bytes | None``, run in the service thread; must not block.
            threaded: run ``handler`` in a thread of its own per request, answered when it returns: for work that
                may block (a replication statement waits for its threads or the write lock), which the service
                thread must never do.
        """
        self._handlers[op] = handler
        if threaded:
            self._threaded.add(op)
        else:
            self._threaded.discard(op)

    def handler(self, op: int) -> ControlHandler | None:
        """The handler registered for ``op``, or None."""
        return self._handlers.get(op)

    # ------------------------------------------------------------------ life
    @property
    def active(self) -> bool:
        """Whether the service runs (a worker of a multi-worker server)."""
        return self._socket is not None

    def start(self, token: bytes, worker_id: int, workers: int) -> None:
        """Bind worker ``worker_id``'s control socket and serve it in a daemon thread.

        Args:
            token: the server's instance token (the shared page's: :attr:`~.shm.SharedPage.token`).
            worker_id: this worker's id (``@@gtidkit_worker_id``).
            workers: how many workers the server runs (ids ``0 .. workers - 1``: ``@@gtidkit_workers``).

        Raises:
            OSError: the name is taken (another live process serves this worker id) or sockets are unavailable.
            RuntimeError: already started.
        """
        if self._socket is not None:
            raise RuntimeError("the control service is already running")
        self.token, self.worker_id, self.workers = token, worker_id, workers
        sock = ControlSocket(token, worker_id)
        self._socket = sock
        self._thread = threading.Thread(
            target=sock.serve, args=(self._dispatch,), name="gtidkit-control", daemon=True
        )
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop serving and close the socket (``timeout``: seconds to wait for the thread)."""
        sock, thread = self._socket, self._thread
        self._socket = self._thread = None
        if sock is not None:
            sock.close()
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    def _dispatch(self, message: ControlMessage) -> bytes | None:
        handler = self._handlers.get(message.op)
        if handler is None:
            log.warning(
                "worker %d: control op %d from worker %d has no handler",
                self.worker_id,
                message.op,
                message.sender,
            )
            return None
        if message.op in self._threaded and message.reply_to is not None:
            threading.Thread(
                target=self._answer_later, args=(handler, message), name="gtidkit-control-op", daemon=True
            ).start()
            return DEFERRED
        return self._run(handler, message)

    def _run(self, handler: ControlHandler, message: ControlMessage) -> bytes | None:
        try:
            return handler(message)
        except Exception:
            log.exception(
                "worker %d: control op %d from worker %d failed", self.worker_id, message.op, message.sender
            )
            return None

    def _answer_later(self, handler: ControlHandler, message: ControlMessage) -> None:
        answer = self._run(handler, message)
        sock = self._socket
        if sock is not None:
            sock.reply(message, answer or b"")

    # ------------------------------------------------------------------ asking
    def peers(self) -> list[int]:
        """The ids of the other workers (empty when the service is not running)."""
        if self._socket is None:
            return []
        return [w for w in range(self.workers) if w != self.worker_id]

    def ask_peers(
        self, op: int, body: bytes = b"", timeout: float = 1.0, workers: Iterable[int] | None = None
    ) -> dict[int, bytes | None]:
        """Send request ``op`` to every other worker (or to ``workers``) and gather the answers.

        Args:
            op: the operation code.
            body: its payload (at most :data:`~.control.CHUNK` bytes).
            timeout: seconds to wait for all answers.
            workers: the workers to ask (default: :meth:`peers`).

        Returns:
            worker id -> its answer, or None for a worker that is not listening or did not answer in time;
            ``{}`` when the service is not running (one process: no one else to ask).
        """
        ids = self.peers() if workers is None else [w for w in workers if w != self.worker_id]
        if self._socket is None or not ids:
            return {}
        return fan_out(self.token, ids, op, body, timeout, sender=self.worker_id)

    def ask_while(
        self, worker_id: int, op: int, body: bytes, alive: Callable[[], bool], poll: float = 0.25
    ) -> bytes | None:
        """Send request ``op`` to worker ``worker_id`` and wait for its answer while ``alive()`` holds (a request
        whose work may take long: :func:`~.control.request_while`).

        Returns:
            The answer; None when the service is not running or that worker is not listening (not delivered).

        Raises:
            ControlError: ``alive()`` turned False before the answer came.
        """
        if self._socket is None:
            return None
        return request_while(self.token, worker_id, op, body, alive, sender=self.worker_id, poll=poll)

    def notify(self, worker_id: int, op: int, body: bytes = b"") -> bool:
        """Send notification ``op`` to worker ``worker_id`` (no answer).

        Returns:
            False when the service is not running, or that worker is not listening (gone) or its queue is full.
        """
        sock = self._socket
        if sock is None:
            return False
        return sock.send(worker_id, op, body)
