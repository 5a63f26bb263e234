"""A supervised server's worker process: the engine and the wire server of `gtidkit server`, fed by hand-offs.

Forked by the fork server (cli/fork_server.py) for the supervisor (cli/supervisor.py). It opens the engine as the
one-process server does (recovery, compressor, replication threads), adopting the datadir lock its supervisor
holds (the inherited descriptor, engine/datadir_lock.py), then serves the client sockets the supervisor accepts
and passes over the control channel with their connection ids (cli/handoff.py: ``conn <id> <peer>`` + fd ->
:meth:`~gtidkit.protocol.server.WireServer.adopt`). Connection ids for its own threads (replication) come from
the supervisor too (the id channel), so every id of the server is in one sequence. In a server of several workers it
also starts the engine's control service (engine/shared/service.py): the thread answering the other workers'
requests (their SHOW PROCESSLIST, KILL, SHOW STATUS) on this worker's named control socket.

It dies with its supervisor, as every thread of a mysqld dies with it: ``PR_SET_PDEATHSIG`` (SIGKILL, armed once
it has been reparented to the supervisor, a child subreaper) and end-of-file on the control channel (the watch
for when the signal could not be armed) both end it at once; the next start recovers the datadir as after a crash
of the whole server. Until it is gone its inherited lock descriptor keeps a second server off the datadir.
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import socket
import threading
import time
from pathlib import Path
from typing import Any

from gtidkit.cli import handoff
from gtidkit.protocol.cpus import worker_cpu

__all__ = ["FORK_SERVER_NAME", "WORKER_NAME", "IdClient", "die_with", "prctl", "run_worker"]

#: the process names (``/proc/PID/comm``, what ``ps`` and ``top`` show) of a worker (+ its index) and a fork server
WORKER_NAME = "gtidkit-worker"
FORK_SERVER_NAME = "gtidkit-forksrv"

log = logging.getLogger("gtidkit.server")

#: prctl(2) options (linux/prctl.h)
PR_SET_PDEATHSIG = 1
PR_SET_NAME = 15
PR_SET_CHILD_SUBREAPER = 36


def prctl(option: int, value: int | bytes) -> None:
    """``prctl(option, value)`` through libc (``value``: a number, or a string for PR_SET_NAME).

    Raises:
        OSError: the call failed (errno from libc).
    """
    libc = ctypes.CDLL(None, use_errno=True)
    arg = ctypes.c_char_p(value) if isinstance(value, bytes) else ctypes.c_ulong(value)
    if libc.prctl(option, arg, 0, 0, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


def die_with(parent_pid: int, sig: int, timeout: float = 2.0) -> bool:
    """Ask the kernel for ``sig`` when ``parent_pid`` (our parent once reparented) dies.

    The parent-death signal fires when the current parent thread exits, which for a double-forked worker is
    first the intermediate process: so wait (up to ``timeout`` seconds) until the supervisor is the parent, set
    the signal, and check the parent again (it may have died in between).

    Returns:
        True when the signal is armed for ``parent_pid``; False when it never became the parent (or died).
    """
    deadline = time.monotonic() + timeout
    while os.getppid() != parent_pid:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.001)
    prctl(PR_SET_PDEATHSIG, sig)
    return os.getppid() == parent_pid


class IdClient:
    """Connection ids from the supervisor over the id channel (one request at a time).

    Args:
        sock: the worker's end of the id channel.
    """

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self._lock = threading.Lock()

    def next_id(self) -> int:
        """The server's next connection id.

        Raises:
            MySQLError: 1053 ER_SERVER_SHUTDOWN when the supervisor is gone.
        """
        from gtidkit.mysql_errors import mysql_error

        with self._lock:
            try:
                handoff.send(self.sock, "id")
                reply = handoff.receive(self.sock)
            except OSError:
                reply = None
        if reply is None:
            raise mysql_error(1053)
        return int(reply.kind)


def _pin(index: int, workers: int) -> None:
    """Run this worker (its main thread now, every thread it starts later inherits it) on the CPU
    :func:`~gtidkit.protocol.cpus.worker_cpu` gives it; nothing with one worker. Called before any thread starts:
    ``sched_setaffinity`` sets the calling thread's mask only."""
    try:
        cpu = worker_cpu(index, workers, os.sched_getaffinity(0))
        if cpu is not None:
            os.sched_setaffinity(0, {cpu})
            log.info("worker %d runs on CPU %d", index, cpu)
    except (AttributeError, OSError) as err:  # not Linux, or a mask the kernel refuses (a CPU gone offline)
        log.warning("worker %d: CPU affinity not set (%s)", index, err)


def run_worker(
    datadir: Path,
    args: list[str],
    *,
    index: int,
    port: int,
    lock_fd: int,
    ctl: socket.socket,
    ids: socket.socket,
    supervisor_pid: int,
    forked_at: float,
    role: str = "primary",
) -> int:
    """Serve as worker ``index`` until told to stop; returns the exit status.

    Args:
        datadir: the data directory.
        args: the server's command line (its options, parsed again here).
        index: ``@@gtidkit_worker_id``.
        port: the supervisor's TCP port.
        lock_fd: the datadir lock's inherited descriptor.
        ctl: the control channel (hand-offs in; ready / closed / shutdown out).
        ids: the id channel.
        supervisor_pid: the supervisor (parent-death signal).
        forked_at: ``time.monotonic()`` when the fork was requested (the ready message reports the delay).
        role: how the engine opens (:func:`~gtidkit.cli.server_cmd.start_serving`): ``primary`` (one worker:
            recovery and singletons), ``shared`` (the first worker of several: the same, plus the shared page),
            ``worker`` (the others, and their replacements: the secondary open), ``takeover`` (a replacement of
            worker 0 while several run: the secondary open, then the singletons, ``Server.take_over_singletons``).
    """
    from gtidkit.cli.server_cmd import flush_on_signal, setup_logging, start_serving
    from gtidkit.protocol.options import OptionError, load

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the supervisor decides; a terminal's Ctrl-C reaches it too
    prctl(PR_SET_NAME, f"{WORKER_NAME}{index}".encode())  # ps / /proc/PID/comm: which process is a worker
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda _s, _f: stop.set())
    flushes: list[int] = []
    signal.signal(signal.SIGHUP, lambda s, _f: flushes.append(s))
    signal.signal(signal.SIGUSR1, lambda s, _f: flushes.append(s))
    try:
        die_with(supervisor_pid, signal.SIGKILL)
    except OSError as err:
        log.warning("worker %d: no parent-death signal (%s); watching the control channel only", index, err)
    try:
        opts = load(args)
        setup_logging(str(opts.wire["log_error"] or ""), datadir)
    except (OptionError, OSError) as err:
        log.error("worker %d could not start: %s", index, err)
        return 1
    if opts.command.get("worker_cpu_affinity", True):
        _pin(index, int(opts.command.get("gtidkit_workers") or 1))
    id_client = IdClient(ids)
    opening = time.monotonic()
    started = start_serving(
        datadir, opts, lock_fd=lock_fd, port=port, id_source=id_client.next_id, worker_id=index, role=role
    )
    if isinstance(started, int):
        return started
    engine, wire, replication = started
    page = engine.shared_page
    workers = int(opts.command.get("gtidkit_workers") or 1)
    if page is not None and workers > 1:  # several workers: answer the others' control requests
        try:
            engine.control.start(page.token, index, workers)
        except OSError as err:
            log.error("worker %d could not bind its control socket: %s", index, err)
            replication.shutdown()
            wire.shutdown()
            engine.shutdown()
            return 1
    shutdown_asked = threading.Event()

    def request_shutdown() -> None:  # SHUTDOWN from a client: the supervisor stops every worker, then itself
        shutdown_asked.set()
        stop.set()

    wire.ctx.request_shutdown = request_shutdown

    def max_connections_changed(_old: Any, new: Any) -> None:
        # SET GLOBAL max_connections here or in another worker (engine/shared_config.py): the supervisor counts
        try:
            handoff.send(ctl, "max_connections", int(new))
        except OSError:
            pass

    engine.globals.on_change.setdefault("max_connections", []).append(max_connections_changed)

    def closed(connection_id: int) -> Any:
        def tell() -> None:
            try:
                handoff.send(ctl, "closed", connection_id)
            except OSError:
                pass

        return tell

    def read_control() -> None:
        while True:
            try:
                msg = handoff.receive(ctl)
            except OSError:
                msg = None
            if msg is None:  # the supervisor died (a clean stop says "stop" first): die with it
                log.error("worker %d: the supervisor is gone; exiting", index)
                os._exit(1)
            if msg.kind == "conn" and msg.fds:
                cid = int(msg.fields[0])
                sock = socket.socket(fileno=msg.fds[0])
                wire.adopt(sock, msg.fields[1], cid, on_close=closed(cid))
            elif msg.kind == "stop":
                stop.set()
            for fd in msg.fds[1:]:
                os.close(fd)

    now = time.monotonic()
    elapsed_ms, open_ms = (now - forked_at) * 1000, (now - opening) * 1000
    version = str(wire.ctx.server_version).replace(" ", "_")
    try:
        handoff.send(ctl, "ready", f"{elapsed_ms:.1f}", version, f"{open_ms:.1f}")
    except OSError:
        stop.set()
    threading.Thread(target=read_control, name="gtidkit-worker-control", daemon=True).start()
    log.info(
        "worker %d (pid %d) serving, %.1f ms after its fork was requested", index, os.getpid(), elapsed_ms
    )
    try:
        while not stop.wait(0.2):
            while flushes:
                flush_on_signal(
                    engine, flushes.pop(0)
                )  # the supervisor sends SIGHUP to one worker, SIGUSR1 to the rest
    finally:
        if shutdown_asked.is_set():
            try:
                handoff.send(ctl, "shutdown")
            except OSError:
                pass
        log.info("worker %d shutting down", index)
        replication.shutdown()
        wire.shutdown()
        engine.shutdown()
    return 0
