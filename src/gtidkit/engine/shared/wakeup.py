"""Blocking without polling across processes: a datagram socket per waiting thread (issue 21, §3.3).

A thread that must block on something another process releases (the engine write lock, a GTID owned by a
session of another worker) registers the address of its own Unix datagram socket in the shared page and sleeps in
``poll()`` on it; whoever releases reads the registered addresses and sends each a one-byte datagram (3-5 µs).
The socket is bound with Linux's *autobind* (an unused name in the abstract namespace, chosen by the kernel: no
file, nothing to clean up, gone when the process dies). A datagram sent before the sleeper reaches ``poll()`` waits
in the socket's queue, so a wake-up is never lost as long as the sleeper registers *before* its last check.

``poll()`` can watch one more descriptor: a *pidfd* of the process that holds what the thread waits for, which
becomes readable when that process exits (SIGKILL included). A waiter therefore learns of a dead holder at once,
without a supervisor and without a timer.

This is the cross-process stand-in for the condition variables MySQL's waits use (``Gtid_state::wait_for_gtid``
on the SIDNO's ``Mutex_cond_array`` entry, InnoDB's ``lock_wait_suspend_thread`` on the waiting thread's event).
"""

from __future__ import annotations

import errno
import math
import os
import select
import socket
import threading

__all__ = ["WakeSocket", "pidfd", "thread_wake_socket", "wake"]

#: the byte a wake-up carries (its content is never read: only its arrival matters)
WAKE = b"w"

_local = threading.local()
#: one sending socket per process (sendto on an unbound datagram socket is thread-safe)
_sender_lock = threading.Lock()
_sender: socket.socket | None = None


class WakeSocket:
    """One thread's wake-up socket: an autobound abstract Unix datagram socket.

    Use :func:`thread_wake_socket` (one per thread, made on first use) rather than the constructor.
    """

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind("")  # Linux autobind: a fresh abstract name such as b"\0" + 5 hex digits
        self.sock.setblocking(False)
        name = self.sock.getsockname()
        #: the socket's address (at most 8 bytes: it is stored in the shared page's fixed-width slots)
        self.address: bytes = name if isinstance(name, bytes) else name.encode()
        if len(self.address) > 8:
            raise OSError(errno.ENAMETOOLONG, f"autobind gave a {len(self.address)}-byte name")

    def drain(self) -> int:
        """Discard the wake-ups already queued (before registering for a new wait). Returns how many."""
        n = 0
        while True:
            try:
                self.sock.recv(64)
            except BlockingIOError:
                return n
            n += 1

    def wait(self, timeout: float | None, also: int | None = None) -> bool:
        """Sleep until a wake-up arrives, ``also`` becomes readable, or ``timeout`` seconds pass.

        Args:
            timeout: seconds (None = no limit).
            also: another descriptor to watch (a pidfd: readable once its process has exited), or None.

        Returns:
            True when woken (a datagram, consumed, or ``also`` readable), False on timeout.
        """
        poller = select.poll()
        poller.register(self.sock.fileno(), select.POLLIN)
        if also is not None:
            poller.register(also, select.POLLIN)
        ms = None if timeout is None else max(0, math.ceil(timeout * 1000))
        ready = poller.poll(ms)
        if not ready:
            return False
        self.drain()
        return True

    def close(self) -> None:
        """Close the socket (a wake-up sent afterwards is refused, which :func:`wake` ignores)."""
        self.sock.close()


def thread_wake_socket() -> WakeSocket:
    """The calling thread's :class:`WakeSocket`, made on first use and kept for the thread's life."""
    ws: WakeSocket | None = getattr(_local, "ws", None)
    if ws is None:
        ws = WakeSocket()
        _local.ws = ws
    return ws


def wake(address: bytes) -> bool:
    """Send one wake-up datagram to ``address`` (a :attr:`WakeSocket.address`).

    Never blocks and never raises for a gone or full receiver: a full queue already holds a wake-up, and a gone
    one (its process died, its slot not yet cleared) has nobody left to wake.

    Returns:
        True when the datagram was queued.
    """
    global _sender
    if _sender is None:
        with _sender_lock:
            if _sender is None:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
                s.setblocking(False)
                _sender = s
    try:
        _sender.sendto(WAKE, address)
    except (BlockingIOError, ConnectionRefusedError, FileNotFoundError):
        return False
    return True


def pidfd(pid: int) -> int | None:
    """A pidfd of process ``pid`` (readable once it exits; the caller closes it), or None for this process or
    pid 0 (nothing to watch).

    Raises:
        ProcessLookupError: ``pid`` has already exited.
    """
    if pid <= 0 or pid == os.getpid():
        return None
    return os.pidfd_open(pid)
