"""The fork server of a supervised `gtidkit server`: a process that has imported everything and forks workers.

Started (fork + exec of a fresh interpreter) by the supervisor at start-up, as
``python -m gtidkit.cli.fork_server REQUEST_FD LOCK_FD SUPERVISOR_PID -- SERVER_ARGS...``. It imports the engine,
the wire server and replication, and then only waits for requests: it never opens SQLite and never starts a
thread, so a fork of it is safe (a fork of a process with threads can inherit a lock held by a thread that does
not exist in the child: the spike of docs/design/multi_worker.md §7 hung that way). A worker forked from here is
serving in about 0.1-0.2 s, against several seconds for a new interpreter that imports everything (§3.3).

Each ``fork <i> <port>`` request (cli/handoff.py; the worker's control and id sockets attached) is served by a
double fork: the intermediate child forks the worker and exits at once, so the worker is reparented to the
supervisor (a child subreaper, ``PR_SET_CHILD_SUBREAPER``), which reaps it and sees its exit status. The reply is
``forked <pid>``. The worker inherits the datadir lock's descriptor (passed to this process with ``pass_fds``).

The fork server exits when the supervisor closes the request channel, and with the supervisor's death
(``PR_SET_PDEATHSIG``: SIGKILL; it holds nothing to clean up).
"""

from __future__ import annotations

import os
import signal
import socket
import sys
import time
from pathlib import Path

from gtidkit.cli import handoff

__all__ = ["main", "preload"]


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


def main(argv: list[str]) -> int:
    """Serve fork requests until the supervisor closes the channel; returns the exit status.

    Args:
        argv: ``REQUEST_FD LOCK_FD SUPERVISOR_PID -- SERVER_ARGS...``.
    """
    from gtidkit.cli.worker import FORK_SERVER_NAME, PR_SET_NAME, PR_SET_PDEATHSIG, prctl
    from gtidkit.protocol.options import load

    request_fd, lock_fd, sup = int(argv[0]), int(argv[1]), int(argv[2])
    args = argv[4:] if len(argv) > 3 and argv[3] == "--" else argv[3:]
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


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
