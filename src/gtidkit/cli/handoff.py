"""The messages between a supervisor, its fork server and its workers: one datagram each, descriptors attached.

Every channel is a Unix ``SOCK_SEQPACKET`` socket pair (message boundaries kept, a closed peer reads as end of
file). A message is a kind word and space-separated fields in ASCII (``conn 12 127.0.0.1``), with descriptors
passed as SCM_RIGHTS ancillary data (``socket.send_fds``; the receiver gets new descriptors of the same open
files, the sender closes its own). The kinds, by channel (cli/supervisor.py):

==================  =======================  ==========================================================
channel             kind                     meaning
==================  =======================  ==========================================================
supervisor → fork   ``fork <i> <port>``      fork worker ``i``; fds: its control and id sockets
fork → supervisor   ``forked <pid>``         the worker's pid (``error <text>`` when fork failed)
supervisor → worker ``conn <id> <peer>``     serve this client (fd attached) as connection ``id``
supervisor → worker ``stop``                 shut down cleanly (the server is stopping)
worker → supervisor ``ready <ms> <v> <o>``   serving: ms since the fork request, version, ms opening
worker → supervisor ``closed <id>``          connection ``id`` ended (``max_connections`` count)
worker → supervisor ``shutdown``             a client ran SHUTDOWN: stop the server
worker → supervisor ``max_connections <n>``  ``@@GLOBAL.max_connections`` is now ``n`` (SET GLOBAL)
worker → supervisor ``id``                   (id socket) the next connection id; answered by the number
==================  =======================  ==========================================================
"""

from __future__ import annotations

import socket
from dataclasses import dataclass

__all__ = ["MAX_MESSAGE", "Message", "channel_pair", "receive", "send"]

#: the longest message (a peer address and a version string fit easily)
MAX_MESSAGE = 4096
#: descriptors one message carries at most
MAX_FDS = 4


@dataclass(frozen=True, slots=True)
class Message:
    """One received message.

    Attributes:
        kind: the first word (``conn``, ``ready``, ...).
        fields: the other words.
        fds: descriptors that came with it (now owned by the receiver).
    """

    kind: str
    fields: tuple[str, ...] = ()
    fds: tuple[int, ...] = ()


def channel_pair() -> tuple[socket.socket, socket.socket]:
    """A connected ``AF_UNIX`` / ``SOCK_SEQPACKET`` pair (both ends non-inheritable)."""
    return socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)


def send(sock: socket.socket, kind: str, *fields: object, fds: tuple[int, ...] = ()) -> None:
    """Send one message.

    Args:
        sock: a channel end.
        kind: the message kind (one word).
        *fields: its fields (``str`` of each; none may contain a space).
        fds: descriptors to pass (the caller keeps and closes its own).

    Raises:
        OSError: the peer is gone (EPIPE / ECONNRESET) or the socket is closed.
    """
    data = " ".join((kind, *(str(f) for f in fields))).encode("ascii", "replace")
    if fds:
        socket.send_fds(sock, [data], list(fds))
    else:
        sock.sendall(data)


def receive(sock: socket.socket) -> Message | None:
    """The next message, or None when the peer closed its end (or died).

    Raises:
        OSError: the socket itself failed (closed locally).
    """
    try:
        data, fds, _flags, _addr = socket.recv_fds(sock, MAX_MESSAGE, MAX_FDS)
    except ConnectionResetError:
        return None
    if not data:
        for fd in fds:
            socket.close(fd)
        return None
    words = data.decode("ascii", "replace").split(" ")
    return Message(words[0], tuple(words[1:]), tuple(fds))
