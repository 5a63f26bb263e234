"""The fork server of a supervised `gtidkit server`: a process that has imported everything and forks workers.

The supervisor forks it at start-up (:func:`start`), before it starts any thread or opens SQLite: the child keeps
the request channel, the datadir lock's descriptor and stdio, drops every other descriptor and the supervisor's
log handlers and signal handlers, imports what a worker runs (:data:`PRELOAD`; nothing when the supervisor had
them already, as a server forked by the test suite's prefork process has) and serves. A supervisor that already
runs a thread (something it imported started one) cannot fork safely, and execs a fresh interpreter instead, as
``python -m gtidkit.cli.fork_server REQUEST_FD LOCK_FD SUPERVISOR_PID -- SERVER_ARGS...`` (:func:`main`). Either
way the fork server never opens SQLite and never starts a thread, so a fork of it is safe (a fork of a process with
threads can inherit a lock held by a thread that does not exist in the child: the spike of
docs/design/multi_worker.md §7 hung that way). A worker forked from here is serving in about 0.1-0.2 s, against
several seconds for a new interpreter that imports everything (§3.3); forking the fork server itself instead of
exec'ing it saves a second interpreter's start and imports at every supervised start (bench/RESULTS.md).

Each ``fork <i> <port>`` request (cli/handoff.py; the worker's control and id sockets attached) is served by a
double fork: the intermediate child forks the worker and exits at once, so the worker is reparented to the
supervisor (a child subreaper, ``PR_SET_CHILD_SUBREAPER``), which reaps it and sees its exit status. The reply is
``forked <pid>``. The worker inherits the datadir lock's descriptor.

The fork server exits when the supervisor closes the request channel, and with the supervisor's death
(``PR_SET_PDEATHSIG``: SIGKILL; it holds nothing to clean up).
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from gtidkit.cli import handoff

__all__ = ["ForkServer", "fork_safe", "main", "preload", "start"]


#: what a worker imports while it opens the engine and starts serving (measured: the modules new in a worker
#: after its first statement), imported once here instead of in every worker
PRELOAD = (
    "gtidkit.cli.server_cmd",
    "gtidkit.cli.worker",
    "gtidkit.engine",
    "gtidkit.engine.recovery",
    "gtidkit.engine.accounts.bootstrap",
    "gtidkit.protocol.server",
    "gtidkit.protocol.admin",
    "gtidkit.protocol.options",
    "gtidkit.protocol.tls",
    "gtidkit.replication",
    "gtidkit.replication.replica",
    "gtidkit.replication.source",
    "gtidkit.replication.channel_map",
    "gtidkit.replication.pos_wait",
    "gtidkit.replication.statements",
    "cryptography.x509",
    "cryptography.x509.oid",
    "cryptography.hazmat.primitives.hashes",
    "cryptography.hazmat.primitives.serialization",
    "cryptography.hazmat.primitives.asymmetric.rsa",
)


def preload() -> None:
    """Import what a worker runs (:data:`PRELOAD`), so that forked workers start with it loaded."""
    import importlib

    for name in PRELOAD:
        importlib.import_module(name)


def _fork_worker(
    request: socket.socket, msg: handoff.Message, datadir: Path, args: list[str], lock_fd: int, sup: int
) -> int:
    """Double-fork worker ``msg.fields[0]``; returns its pid (the intermediate reports it through a pipe)."""
    from gtidkit.cli.worker import run_worker

    index, port = int(msg.fields[0]), int(msg.fields[1])
    role = str(msg.fields[2]) if len(msg.fields) > 2 else "primary"
    ctl_fd, ids_fd = msg.fds[0], msg.fds[1]
    forked_at = time.monotonic()
    rfd, wfd = os.pipe()
    first = os.fork()
    if first == 0:  # the intermediate
        status = 1
        try:
            os.close(rfd)
            worker = os.fork()
            if worker == 0:  # the worker
                status = 1
                try:
                    os.close(wfd)
                    request.close()
                    status = run_worker(
                        datadir,
                        args,
                        index=index,
                        port=port,
                        lock_fd=lock_fd,
                        ctl=socket.socket(fileno=ctl_fd),
                        ids=socket.socket(fileno=ids_fd),
                        supervisor_pid=sup,
                        forked_at=forked_at,
                        role=role,
                    )
                except BaseException as err:  # noqa: BLE001 - never return into the fork server's loop
                    print(f"[ERROR] [Server] worker {index} failed: {err!r}", file=sys.stderr, flush=True)
                finally:
                    sys.stdout.flush()
                    sys.stderr.flush()
                    os._exit(status)
            os.write(wfd, str(worker).encode())
            status = 0
        finally:
            os._exit(status)
    os.close(wfd)
    try:
        os.waitpid(first, 0)
        text = b""
        while chunk := os.read(rfd, 64):
            text += chunk
    finally:
        os.close(rfd)
        for fd in msg.fds:
            os.close(fd)
    if not text:
        raise OSError("the worker could not be forked")
    return int(text)


class ForkServer:
    """The supervisor's handle on its fork server: its pid, and whether the supervisor forked or exec'd it.

    Args:
        pid: the fork server's pid (the supervisor's child either way).
        forked: True when it is a fork of the supervisor, False when a fresh interpreter was exec'd.
        proc: the :class:`subprocess.Popen` of an exec'd one (None for a fork).
    """

    def __init__(self, pid: int, forked: bool, proc: subprocess.Popen[bytes] | None = None) -> None:
        self.pid = pid
        self.forked = forked
        self._proc = proc

    def wait(self, timeout: float) -> int | None:
        """Wait up to ``timeout`` seconds for it to exit and reap it; returns its wait status, None if it runs on."""
        if self._proc is not None:
            try:
                return self._proc.wait(timeout)
            except subprocess.TimeoutExpired:
                return None
        deadline = time.monotonic() + timeout
        while True:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                return 0
            if pid:
                return status
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.02)

    def kill(self) -> None:
        """SIGKILL it and reap it."""
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.wait(10)


def fork_safe() -> bool:
    """Whether this process may fork a fork server: it runs one thread only (Python's and any other, counted in
    ``/proc/self/task``). SQLite is the caller's to keep closed (the supervisor never opens it)."""
    import threading

    try:
        tasks = len(os.listdir("/proc/self/task"))
    except OSError:
        return False
    return tasks == 1 and threading.active_count() == 1


def start(
    request: socket.socket, lock_fd: int, args: Sequence[str], *, close: Sequence[socket.socket] = ()
) -> ForkServer:
    """Start the fork server for the supervisor calling this: a fork of it when :func:`fork_safe`, else an exec.

    Args:
        request: the fork server's end of the request channel (closed here, in the supervisor).
        lock_fd: the datadir lock's descriptor (inherited by the fork server and its workers).
        args: the server's command line (each worker parses it again).
        close: the supervisor's sockets the fork server must not hold (the listener, its end of the channel).

    Raises:
        OSError: neither a fork nor an exec could be started.
    """
    sup = os.getpid()
    if not fork_safe():
        cmd = [sys.executable, "-m", "gtidkit.cli.fork_server", str(request.fileno()), str(lock_fd), str(sup)]
        proc = subprocess.Popen(
            [*cmd, "--", *args], pass_fds=(request.fileno(), lock_fd), stdin=subprocess.DEVNULL
        )
        request.close()
        return ForkServer(proc.pid, False, proc)
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the fork server: never return into the supervisor's code
        status = 1
        try:
            for sock in close:
                sock.close()
            request_fd = request.detach()
            _leave_supervisor(keep=(request_fd, lock_fd))
            status = serve(request_fd, lock_fd, sup, list(args))
        except BaseException as err:  # noqa: BLE001 - report, and exit with a status
            print(f"[ERROR] [Server] fork server failed: {err!r}", file=sys.stderr, flush=True)
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(status)
    request.close()
    return ForkServer(pid, True)


def _leave_supervisor(keep: Sequence[int]) -> None:
    """In a fork of the supervisor: become what an exec'd fork server starts as (its stdio, ``keep``, no log
    handler, default signal handlers)."""
    signal.set_wakeup_fd(-1)
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGCHLD):
        signal.signal(sig, signal.SIG_DFL)
    gtidkit_log = logging.getLogger("gtidkit")
    for handler in list(gtidkit_log.handlers):  # a worker sets up its own (cli/server_cmd.py setup_logging)
        gtidkit_log.removeHandler(handler)
        if isinstance(handler, logging.FileHandler):
            handler.close()
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    low = 3
    for fd in sorted({fd for fd in keep if fd >= 3}):  # what an exec with pass_fds would have left open
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, 1 << 16)


def serve(request_fd: int, lock_fd: int, sup: int, args: list[str]) -> int:
    """Serve fork requests until the supervisor closes the channel; returns the exit status.

    Args:
        request_fd: the request channel's descriptor.
        lock_fd: the datadir lock's descriptor (each worker inherits it).
        sup: the supervisor's pid (the fork server exits when it is no longer its parent).
        args: the server's command line.
    """
    from gtidkit.cli.worker import FORK_SERVER_NAME, PR_SET_NAME, PR_SET_PDEATHSIG, prctl
    from gtidkit.protocol.options import load

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the supervisor handles Ctrl-C and stops us
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    prctl(PR_SET_NAME, FORK_SERVER_NAME.encode())
    if os.getppid() != sup:  # the supervisor died before the signal was armed
        return 1
    preload()
    import threading

    if threading.active_count() != 1:  # a thread here would make every fork unsafe (module docstring)
        print("[ERROR] [Server] fork server: importing the server started a thread", file=sys.stderr)
        return 1
    datadir = Path(str(load(args).command["datadir"])).resolve()
    request = socket.socket(fileno=request_fd)
    while True:
        msg = handoff.receive(request)
        if msg is None:
            return 0
        if msg.kind != "fork" or len(msg.fds) != 2:
            for fd in msg.fds:
                os.close(fd)
            handoff.send(request, "error", "bad-request")
            continue
        try:
            pid = _fork_worker(request, msg, datadir, args, lock_fd, sup)
        except OSError as err:
            handoff.send(request, "error", str(err).replace(" ", "_"))
            continue
        handoff.send(request, "forked", pid)


def main(argv: list[str]) -> int:
    """The exec'd fork server (:func:`start` when the supervisor could not fork): serve; returns the exit status.

    Args:
        argv: ``REQUEST_FD LOCK_FD SUPERVISOR_PID -- SERVER_ARGS...``.
    """
    request_fd, lock_fd, sup = int(argv[0]), int(argv[1]), int(argv[2])
    args = argv[4:] if len(argv) > 3 and argv[3] == "--" else argv[3:]
    return serve(request_fd, lock_fd, sup, args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
