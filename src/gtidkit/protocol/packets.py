"""Packet framing of the MySQL client/server protocol: 3-byte length + sequence id, 16 MiB split and join.

Source: MySQL DEVDOC ``page_protocol_basic_packets`` and ``sql-common/net_serv.cc`` (``my_net_write``,
``my_net_read``). Every packet is::

    payload_length | 3 bytes | little-endian, at most MAX_PAYLOAD (0xFFFFFF)
    sequence_id    | 1 byte  | incremented per packet, wrapping at 256; reset to 0 by each new command
    payload        | payload_length bytes

A payload of 0xFFFFFF bytes or more is sent as several packets of 0xFFFFFF bytes each, the last one shorter
(possibly empty: a payload whose length is an exact multiple of 0xFFFFFF ends with an empty packet), each
with the next sequence id. The receiver joins them until it sees a packet shorter than 0xFFFFFF.

This module is pure: bytes in, bytes out; it never touches a socket.
"""

from __future__ import annotations

from dataclasses import dataclass

from gtidkit.errors import RemoteProtocolError

#: Width of the length field and of the whole header.
LENGTH_WIDTH = 3
SEQUENCE_WIDTH = 1
HEADER_LENGTH = LENGTH_WIDTH + SEQUENCE_WIDTH
#: Largest payload of one physical packet (2**24 - 1); a longer logical payload is split.
MAX_PAYLOAD = (1 << (8 * LENGTH_WIDTH)) - 1


def frame(payload: bytes, sequence_id: int) -> tuple[bytes, int]:
    """Frame one logical payload into physical packets.

    Args:
        payload: the whole message (any length).
        sequence_id: sequence id of the first physical packet (0..255).

    Returns:
        ``(wire bytes, next sequence id)``: the next id is the one the following packet must carry (mod 256).

    Raises:
        ValueError: sequence_id outside 0..255.
    """
    if not 0 <= sequence_id <= 255:
        raise ValueError(f"sequence id {sequence_id} outside 0..255")
    out = bytearray()
    view = memoryview(payload)
    seq = sequence_id
    while True:
        chunk = view[:MAX_PAYLOAD]
        view = view[MAX_PAYLOAD:]
        out += len(chunk).to_bytes(LENGTH_WIDTH, "little")
        out.append(seq)
        out += chunk
        seq = (seq + 1) & 0xFF
        if len(chunk) < MAX_PAYLOAD:
            break
    return bytes(out), seq


@dataclass(frozen=True, slots=True)
class Packet:
    """One logical packet read from the wire (its physical parts already joined).

    Attributes:
        sequence_id: the sequence id of its first physical packet.
        payload: the joined payload.
        next_sequence_id: the sequence id the packet after this one must carry.
    """

    sequence_id: int
    payload: bytes
    next_sequence_id: int


class PacketReader:
    """Sans-I/O reassembly of logical packets from a byte stream.

    Feed bytes with :meth:`feed`; :meth:`next_packet` returns a :class:`Packet` or ``None`` when more bytes are
    needed. ``max_payload`` bounds the joined payload (MySQL's ``max_allowed_packet`` check on the server's
    read side): a longer one raises :class:`RemoteProtocolError` with ``code`` 1153 (ER_NET_PACKET_TOO_LARGE) as
    soon as its header shows it, before the payload is buffered.
    """

    def __init__(self, max_payload: int | None = None) -> None:
        self._buf = bytearray()
        self.max_payload = max_payload

    def feed(self, data: bytes) -> None:
        """Append received bytes."""
        self._buf += data

    @property
    def buffered(self) -> int:
        """Bytes received and not yet returned as a packet."""
        return len(self._buf)

    def take_buffered(self) -> bytes:
        """Remove and return every buffered byte (used when the stream switches to TLS)."""
        out = bytes(self._buf)
        self._buf.clear()
        return out

    def next_packet(self) -> Packet | None:
        """The next complete logical packet, or ``None`` if it has not fully arrived.

        Raises:
            RemoteProtocolError: the packet is bigger than ``max_payload`` (code 1153); the physical parts of a
                split packet carry non-consecutive sequence ids (code 1156, ER_NET_PACKETS_OUT_OF_ORDER).
        """
        pos = 0
        total = 0
        parts: list[tuple[int, int]] = []
        first_seq = None
        expect = None
        buf = self._buf
        while True:
            if len(buf) - pos < HEADER_LENGTH:
                return None
            length = int.from_bytes(buf[pos : pos + LENGTH_WIDTH], "little")
            seq = buf[pos + LENGTH_WIDTH]
            if first_seq is None:
                first_seq = seq
            elif seq != expect:
                raise RemoteProtocolError("Got packets out of order", code=1156)
            total += length
            if self.max_payload is not None and total > self.max_payload:
                raise RemoteProtocolError("Got a packet bigger than 'max_allowed_packet' bytes", code=1153)
            if len(buf) - pos - HEADER_LENGTH < length:
                return None
            parts.append((pos + HEADER_LENGTH, length))
            pos += HEADER_LENGTH + length
            expect = (seq + 1) & 0xFF
            if length < MAX_PAYLOAD:
                break
        if len(parts) == 1:
            start, length = parts[0]
            payload = bytes(buf[start : start + length])
        else:
            payload = b"".join(bytes(buf[s : s + n]) for s, n in parts)
        del buf[:pos]
        assert first_seq is not None and expect is not None
        return Packet(first_seq, payload, expect)
