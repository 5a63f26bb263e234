"""The supervisor of `gtidkit server --supervised` / `--workers=N`: one server, its connections in worker processes.

`gtidkit server` runs it whenever it runs more than one worker, which is the default on a machine where the process
may use more than one CPU (``--workers`` defaults to that count, protocol/cpus.py; docs/design/multi_worker.md "Step
8 as built"); one worker without ``--supervised`` is the one-process server (cli/server_cmd.py).

Design: docs/design/multi_worker.md §3.5 (the supervisor accepts and hands off), §5.1 (processes), §5.6 (a worker
dies), §7 (fork discipline). The supervisor is the ``gtidkit server`` process (its pid is the pid file's):

* it holds the datadir lock (engine/datadir_lock.py) and hands its descriptor to the fork server
  (``pass_fds``), whose forks -- the workers -- inherit it: while any of them lives no second server starts;
* it owns the listening TCP socket, accepts, counts connections against ``max_connections`` (ERR 1040 "Too many
  connections" before any worker is involved, as ``connection_handler_manager.cc`` refuses before a thread),
  allocates connection ids (one sequence for the whole server, its workers' own threads included, over the id
  channel) and passes socket + id to a worker over that worker's control channel (SCM_RIGHTS, cli/handoff.py);
* placement is round-robin in accept order: the i-th connection goes to worker ``i mod N`` (a worker being
  replaced is skipped when another is ready); ``@@gtidkit_worker_id`` shows where a connection landed;
* workers come from the fork server (cli/fork_server.py), a child forked at start-up before the supervisor's first
  thread (exec'd when a thread already runs) that imported the server and holds no thread and no SQLite
  connection; the supervisor is their child subreaper, so it reaps them;
* a worker that dies (SIGKILL, a crash) loses its own connections only (their sockets close with it); the
  supervisor forgets their ids, releases what the dead process held in the shared page (its GTID ownerships,
  waiter slots and write-lock record: engine/shared/workers.py ``clear_worker``, waking whoever waited on them)
  and forks a replacement, which opens the engine again (one worker: crash recovery; several: the worker open,
  and a replacement of worker 0 takes over the singletons -- the compressor, the replication threads);
* SIGTERM / SIGINT or a client's SHUTDOWN stop the workers (each shuts down cleanly), then the supervisor;
  SIGUSR1 is passed on to every worker (each reopens its error log, as the supervisor does); SIGHUP flushes once
  for the whole server, as mysqld's one signal thread does: the first live worker gets SIGHUP (rotate the binary
  log, re-read the grant tables and publish them to the others), every other worker SIGUSR1 (its error log only).

The supervisor itself never opens the engine: with one worker, that worker runs the engine exactly as the
one-process server does (recovery, the compressor and replication threads all live in it). With
``--workers=N``, N > 1, worker 0 opens the engine as the one-process server does plus the shared page
(``Server.open(shared=True)``: recovery, compressor, replication threads), and the others -- started once it is
ready, and every replacement -- open it as workers (``Server.open(role="worker")``, engine/follow.py); a
replacement of worker 0 then takes over its singletons (``Server.open(role="worker", singletons=True)``); see
docs/design/multi_worker.md "Step 4 as built" and "Step 7 as built" for what crosses workers.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from gtidkit.cli import handoff
from gtidkit.errors import MySQLError

__all__ = ["Supervisor"]

log = logging.getLogger("gtidkit.server")

#: seconds a new connection waits for a worker to be ready (one being replaced) before it is closed
PLACEMENT_WAIT = 60.0
#: seconds a stopping worker gets before SIGKILL
STOP_WAIT = 60.0
#: a replacement that dies sooner than this after its fork counts as a failed start
FAST_FAILURE = 5.0
#: failed starts in a row after which the supervisor gives up and stops the server
MAX_FAILED_STARTS = 5
#: a worker's exit status when it refused to start (cli/worker.py ``serve``): it has logged why, and "Aborting"
EXIT_START_FAILED = 1


@dataclass
class _Worker:
    """One worker slot: the process serving it now, its channels and its connections."""

    index: int
    pid: int = 0
    ctl: socket.socket | None = None
    ids: socket.socket | None = None
    forked_at: float = 0.0
    ready: threading.Event = field(default_factory=threading.Event)
    exited: threading.Event = field(default_factory=threading.Event)
    connections: set[int] = field(default_factory=set)
    send_lock: threading.Lock = field(default_factory=threading.Lock)
    failed_starts: int = 0
    ever_ready: bool = False
    #: how its last process ended (:func:`_reap`'s words; "" while it runs)
    ended: str = ""


class Supervisor:
    """The supervisor process of one server.

    Args:
        datadir: the data directory.
        opts: the parsed options (:func:`gtidkit.protocol.options.load`).
        args: the server's command line as given (passed to the fork server; each worker parses it again).
    """

    def __init__(self, datadir: Path, opts: Any, args: list[str]) -> None:
        self.datadir = datadir
        self.opts = opts
        self.workers = [_Worker(i) for i in range(int(opts.command.get("gtidkit_workers") or 1))]
        # each worker parses the command line again: the count this process resolved goes last (a later option
        # wins), so a default computed from the CPUs (protocol/cpus.py) cannot differ in a worker forked later
        # (a replacement after `taskset -p` changed the affinity)
        end = args.index("--") if "--" in args else len(args)  # before an end-of-options marker
        self.args = [*args[:end], f"--workers={len(self.workers)}", *args[end:]]
        self._primary_started = False
        self.max_connections = int(opts.wire["max_connections"])
        self.connect_timeout = float(opts.wire["connect_timeout"])
        self.port = 0
        self.version = ""
        self._next_id = 10  # the engine's first connection id (engine/server.py), so ids read the same
        self._rr = 0
        self._live = 0
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._stopping = threading.Event()
        self._stop_reason: list[str] = []
        self._listener: socket.socket | None = None
        self._fork_lock = threading.Lock()
        self._fork_sock: socket.socket | None = None
        self._fork_server: Any = None
        self._datadir_lock: Any = None
        #: the shared page (engine/shared/shm.py), mapped once worker 0 built it (several workers only)
        self._page: Any = None
        self.received: list[int] = []
        #: SHOW STATUS Connections (attempts, refused ones included) and Max_used_connections; with Threads_connected
        #: (``_live``) published in the shared page of a multi-worker server (:meth:`_publish`)
        self.connections = 0
        self.max_used = 0

    # ------------------------------------------------------------------ ids
    def next_id(self) -> int:
        """The server's next connection id (client connections and workers' own threads alike)."""
        with self._lock:
            cid = self._next_id
            self._next_id += 1
        return cid

    # ------------------------------------------------------------------ start
    def run(self) -> int:
        """Start, serve until stopped, stop; returns the exit status (1 when start-up failed)."""
        from gtidkit.cli.server_cmd import log_start_failure, pid_file_path
        from gtidkit.cli.worker import PR_SET_CHILD_SUBREAPER, prctl
        from gtidkit.engine.datadir_lock import DatadirLock
        from gtidkit.engine.storage import DB_FILE_NAME

        try:
            self.datadir.mkdir(parents=True, exist_ok=True)
            self._datadir_lock = DatadirLock.acquire(self.datadir / DB_FILE_NAME)
        except (MySQLError, OSError) as err:
            log.error("%s", err)
            log.error("Aborting", extra={"mysql_code": 10119})
            return 1
        try:
            prctl(PR_SET_CHILD_SUBREAPER, 1)
            self._listen()
        except (OSError, MySQLError) as err:
            log_start_failure(log, err, self.opts.wire["port"])
            self._datadir_lock.release()
            return 1
        try:
            self._start_fork_server()
            # the first worker recovers the datadir and builds the shared page before the others join it
            self._spawn(self.workers[0])
            for i, w in enumerate(self.workers):
                if i == 1:
                    self._attach_page()
                    for other in self.workers[1:]:
                        self._spawn(other)
                while not w.ready.wait(0.2):
                    if w.exited.is_set() or self._stopping.is_set():
                        # a worker that refused to start (exit status 1) logged its reason and "Aborting" as
                        # the one-process server does: the server's output is the same; any other end is ours
                        # to report
                        if w.ended != f"exit status {EXIT_START_FAILED}":
                            log.error("worker %d did not start (%s)", w.index, w.ended or "stopping")
                            log.error("Aborting", extra={"mysql_code": 10119})
                        self._stop_all()
                        return 1
        except OSError as err:
            log.error("Can't start server: the fork server failed: %s", err)
            log.error("Aborting", extra={"mysql_code": 10119})
            self._stop_all()
            return 1
        if (
            self._page is not None
        ):  # worker 0 built the shared page (several workers): the connection counts go there
            with self._lock:
                self._publish()
        pid_file = pid_file_path(self.datadir, self.opts)
        try:
            pid_file.write_text(f"{os.getpid()}\n")
        except OSError as err:
            log.error("Can't start server: can't create PID file: %s", err)
            self._stop_all()
            return 1
        return self._serve(pid_file)

    def _listen(self) -> None:
        s = self.opts.wire
        address = str(s["bind_address"])
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((address, int(s["port"])))
            sock.listen(128)
        except OSError:
            sock.close()
            raise
        self.port = sock.getsockname()[1]
        self._listener = sock

    def _attach_page(self) -> None:
        """Map the shared page worker 0 built (its first, ``shared`` open), to clean up after dead workers.

        Raises:
            OSError: the page is missing or unusable (SharedPageError is an OSError's sibling: re-raised as one).
        """
        from gtidkit.engine.shared.shm import SharedPage, SharedPageError

        try:
            self._page = SharedPage.attach(self.datadir)
        except SharedPageError as err:
            raise OSError(f"the shared page of worker 0 cannot be mapped: {err}") from err

    def _clear_dead(self, w: _Worker) -> None:
        """Release what worker ``w``'s dead process held in the shared page and wake its waiters (§5.6)."""
        from gtidkit.engine.shared.workers import clear_worker

        page = self._page
        if page is None or w.index >= page.layout.workers:
            return
        try:
            cleared = clear_worker(page, w.index)
        except (OSError, ValueError) as err:
            log.error("worker %d: could not release its shared state: %s", w.index, err)
            return
        if cleared.gtids or cleared.waiters or cleared.held_write_lock:
            log.info(
                "worker %d (pid %d): released %d owned GTID(s), %d waiter slot(s)%s",
                w.index,
                w.pid,
                len(cleared.gtids),
                cleared.waiters,
                ", the write lock's record" if cleared.held_write_lock else "",
            )

    def _start_fork_server(self) -> None:
        """Start the fork server (cli/fork_server.py ``start``: a fork of this process, which has no thread yet,
        or an exec) with the request channel and the datadir lock's descriptor.

        Raises:
            OSError: it could not be started.
        """
        from gtidkit.cli import fork_server

        mine, theirs = handoff.channel_pair()
        close = [mine] if self._listener is None else [mine, self._listener]
        try:
            self._fork_server = fork_server.start(theirs, self._datadir_lock.fileno(), self.args, close=close)
        except OSError:
            mine.close()
            theirs.close()
            raise
        self._fork_sock = mine

    def _spawn(self, w: _Worker) -> None:
        """Fork a worker into slot ``w`` (a first start or a replacement) and start its channel threads.

        Raises:
            OSError: the fork server is gone or could not fork.
        """
        ctl_mine, ctl_theirs = handoff.channel_pair()
        ids_mine, ids_theirs = handoff.channel_pair()
        sock = self._fork_sock
        if sock is None:
            raise OSError("the fork server is not running")
        w.ready.clear()
        w.exited.clear()
        w.forked_at = time.monotonic()
        # one worker: the one-process open (a replacement recovers); several: the first start of worker 0
        # recovers and builds the shared page, every other start (replacements of worker 0 included) joins it
        if len(self.workers) == 1:
            role = "primary"
        elif w.index == 0 and not self._primary_started:
            role = "shared"
            self._primary_started = True
        elif w.index == 0:  # the singletons (compressor, replication threads) died with it: take them over
            role = "takeover"
        else:
            role = "worker"
        try:
            with self._fork_lock:
                handoff.send(
                    sock, "fork", w.index, self.port, role, fds=(ctl_theirs.fileno(), ids_theirs.fileno())
                )
                reply = handoff.receive(sock)
        finally:
            ctl_theirs.close()
            ids_theirs.close()
        if reply is None or reply.kind != "forked":
            ctl_mine.close()
            ids_mine.close()
            w.exited.set()
            raise OSError(f"the fork server could not fork worker {w.index}: {reply}")
        w.pid = int(reply.fields[0])
        w.ctl, w.ids = ctl_mine, ids_mine
        threading.Thread(
            target=self._watch, args=(w, ctl_mine), name=f"gtidkit-worker-{w.index}", daemon=True
        ).start()
        threading.Thread(
            target=self._serve_ids, args=(ids_mine,), name=f"gtidkit-ids-{w.index}", daemon=True
        ).start()

    # ------------------------------------------------------------------ channels
    def _serve_ids(self, sock: socket.socket) -> None:
        while True:
            try:
                msg = handoff.receive(sock)
            except OSError:
                return
            if msg is None:
                sock.close()
                return
            try:
                handoff.send(sock, str(self.next_id()))
            except OSError:
                return

    def _watch(self, w: _Worker, ctl: socket.socket) -> None:
        """Read worker ``w``'s control channel until it ends; then reap the worker and replace it."""
        while True:
            try:
                msg = handoff.receive(ctl)
            except OSError:
                msg = None
            if msg is None:
                break
            for fd in msg.fds:
                os.close(fd)
            if msg.kind == "ready":
                self.version = self.version or msg.fields[1]
                w.ever_ready = True
                w.failed_starts = 0
                log.info(
                    "worker %d (pid %d) ready, %s ms after its fork was requested (engine open %s ms)",
                    w.index,
                    w.pid,
                    msg.fields[0],
                    msg.fields[2] if len(msg.fields) > 2 else "?",
                )
                with self._changed:
                    w.ready.set()
                    self._changed.notify_all()
            elif msg.kind == "closed":
                cid = int(msg.fields[0])
                with self._lock:
                    if cid in w.connections:
                        w.connections.discard(cid)
                        self._live -= 1
                        self._publish()
            elif msg.kind == "max_connections":  # SET GLOBAL max_connections in some worker
                with self._lock:
                    self.max_connections = int(msg.fields[0])
            elif msg.kind == "shutdown":
                log.info("SHUTDOWN from a client of worker %d: stopping the server", w.index)
                self._stop_reason.append("shutdown")
                self._stopping.set()
        self._reaped(w, ctl)

    def _reaped(self, w: _Worker, ctl: socket.socket) -> None:
        status = _reap(w.pid)
        w.ended = status
        self._clear_dead(w)  # before the slot reads as exited: a stop closes the page after every exit
        lifetime = time.monotonic() - w.forked_at
        with self._changed:
            w.ready.clear()
            self._live -= len(w.connections)
            lost = len(w.connections)
            w.connections.clear()
            self._publish()
            w.exited.set()
            self._changed.notify_all()
        try:
            ctl.close()
        except OSError:
            pass
        if w.ctl is ctl:
            w.ctl = None
        if self._stopping.is_set():
            log.info("worker %d (pid %d) stopped (%s)", w.index, w.pid, status)
            return
        if not w.ever_ready:  # start-up: run() reports it and stops the server (no replacement)
            log.info("worker %d (pid %d) ended before it was ready (%s)", w.index, w.pid, status)
            self._stop_reason.append("worker")
            self._stopping.set()
            return
        log.error(
            "worker %d (pid %d) ended (%s); %d connection(s) lost; starting a replacement",
            w.index,
            w.pid,
            status,
            lost,
        )
        if lifetime < FAST_FAILURE:
            w.failed_starts += 1
        if w.failed_starts >= MAX_FAILED_STARTS:
            log.error(
                "worker %d failed to start %d times in a row: stopping the server", w.index, w.failed_starts
            )
            self._stop_reason.append("worker")
            self._stopping.set()
            return
        if w.failed_starts:
            time.sleep(min(2.0, 0.2 * w.failed_starts))
        try:
            self._spawn(w)
        except OSError as err:
            log.error("could not replace worker %d: %s; stopping the server", w.index, err)
            self._stop_reason.append("worker")
            self._stopping.set()

    # ------------------------------------------------------------------ serving
    def _serve(self, pid_file: Path) -> int:
        from gtidkit.cli.interrupt import EXIT_INTERRUPTED
        from gtidkit.cli.server_cmd import reopen_error_log

        def on_signal(signum: int, _frame: Any) -> None:
            log.info("Received signal %d: shutting down", signum)
            self.received.append(signum)
            self._stopping.set()

        flushes: list[int] = []
        signal.signal(signal.SIGTERM, on_signal)
        signal.signal(signal.SIGINT, on_signal)
        signal.signal(signal.SIGHUP, lambda s, _f: flushes.append(s))
        signal.signal(signal.SIGUSR1, lambda s, _f: flushes.append(s))
        accept = threading.Thread(target=self._accept_loop, name="gtidkit-accept", daemon=True)
        accept.start()
        log.info("supervisor (pid %d): %d worker process(es) serving", os.getpid(), len(self.workers))
        # the one-process server's line (protocol/server.py), which scripts look for in the error log
        log.info(
            "ready for connections. Version: '%s'  bind-address: '%s'  port: %d",
            self.version.replace("_", " "),
            self.opts.wire["bind_address"],
            self.port,
        )
        click.echo(
            f"ready for connections. Version: '{self.version.replace('_', ' ')}'  socket: ''  port: {self.port}",
            err=True,
        )
        try:
            while not self._stopping.wait(0.2):
                while flushes:
                    sig = flushes.pop(0)
                    try:
                        reopen_error_log()
                    except OSError as err:
                        log.error(
                            "Could not open file '%s' for error logging: %s", err.filename, err.strerror
                        )
                    live = [w for w in self.workers if w.pid and not w.exited.is_set()]
                    for i, w in enumerate(live):
                        _signal(w.pid, sig if i == 0 else signal.SIGUSR1)
        finally:
            log.info("Normal shutdown")
            self._stop_all()
            accept.join(5)
            try:
                pid_file.unlink()
            except OSError:
                pass
            log.info("Shutdown complete")
        if signal.SIGINT in self.received:
            click.echo(
                "gtidkit: interrupted: the server shut down cleanly; client connections were closed and their open "
                "transactions rolled back",
                err=True,
            )
            return EXIT_INTERRUPTED
        return 1 if "worker" in self._stop_reason else 0

    def _accept_loop(self) -> None:
        listener = self._listener
        assert listener is not None
        while not self._stopping.is_set():
            try:
                client, addr = listener.accept()
            except OSError:
                return
            try:
                self._place(client, str(addr[0]))
            except OSError as err:
                log.debug("connection from %s lost before its hand-off: %s", addr[0], err)
            finally:
                client.close()  # the worker has its own descriptor now

    def _place(self, client: socket.socket, peer: str) -> None:
        """Refuse (1040) or hand ``client`` to the next worker in round-robin order."""
        with self._lock:
            full = self._live >= self.max_connections
            self.connections += 1
            if not full:
                self._live += 1
                self.max_used = max(self.max_used, self._live)
                turn = self._rr
                self._rr += 1
            self._publish()
        if full:
            client.sendall(_refusal(1040))
            return
        cid = self.next_id()
        deadline = time.monotonic() + PLACEMENT_WAIT
        n = len(self.workers)
        while not self._stopping.is_set():
            with self._changed:
                w = next(
                    (
                        self.workers[(turn + k) % n]
                        for k in range(n)
                        if self.workers[(turn + k) % n].ready.is_set()
                    ),
                    None,
                )
                if w is None:
                    if time.monotonic() > deadline:
                        break
                    self._changed.wait(0.5)
                    continue
                w.connections.add(cid)
                ctl = w.ctl
            try:
                if ctl is None:
                    raise OSError("no control channel")
                with w.send_lock:
                    handoff.send(ctl, "conn", cid, peer, fds=(client.fileno(),))
                return
            except OSError:  # the worker died between its ready mark and the hand-off: try the next one
                with self._changed:
                    w.connections.discard(cid)
                    w.ready.clear()
        with self._lock:
            self._live -= 1
            self._publish()

    def _publish(self) -> None:
        """Write the connection counts into the shared page (lock held: the supervisor is their one writer),
        where every worker's SHOW STATUS reads them (protocol/admin.py ``status_values``)."""
        page = self._page
        if page is None:
            return
        page.counter("connections").set(self.connections)
        page.counter("threads_connected").set(self._live)
        page.counter("max_used_connections").set(self.max_used)

    # ------------------------------------------------------------------ stop
    def _stop_all(self) -> None:
        """Stop accepting, stop every worker (SIGKILL after :data:`STOP_WAIT`), the fork server, release the lock."""
        self._stopping.set()
        if self._listener is not None:
            try:
                self._listener.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self._listener.close()
        # the other workers first, worker 0 last: the process that opened the datadir as the primary closes the
        # binary log (its Stop event) after every other writer is gone
        for group in (self.workers[1:], self.workers[:1]):
            for w in group:
                ctl = w.ctl
                if ctl is not None and not w.exited.is_set():
                    try:
                        handoff.send(ctl, "stop")
                    except OSError:
                        pass
            for w in group:
                if w.pid and not w.exited.wait(STOP_WAIT):
                    log.error(
                        "worker %d (pid %d) did not stop in %d s: killing it", w.index, w.pid, STOP_WAIT
                    )
                    _signal(w.pid, signal.SIGKILL)
                    w.exited.wait(10)
        if self._fork_sock is not None:
            self._fork_sock.close()
            self._fork_sock = None
        if self._fork_server is not None and self._fork_server.wait(10) is None:
            self._fork_server.kill()
        with self._lock:
            page, self._page = self._page, None
        if page is not None:
            page.close()
        if self._datadir_lock is not None:
            self._datadir_lock.release()


def _reap(pid: int) -> str:
    """Wait for worker ``pid`` (our child once reparented) and describe how it ended."""
    if not pid:
        return "never started"
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:
        return "status unknown"
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            return f"killed by {signal.Signals(sig).name}"
        except ValueError:
            return f"killed by signal {sig}"
    return f"exit status {os.WEXITSTATUS(status)}"


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass


def _refusal(code: int) -> bytes:
    """The ERR packet a refused connection gets instead of the Handshake (sequence id 0, PROTOCOL_41 layout)."""
    from gtidkit.mysql_errors import ER, message
    from gtidkit.protocol.constants import Capability
    from gtidkit.protocol.messages import Err
    from gtidkit.protocol.packets import frame

    payload = Err(code, message(code), ER[code].sqlstate).encode(int(Capability.PROTOCOL_41))
    return frame(payload, 0)[0]
