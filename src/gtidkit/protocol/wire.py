"""Primitive field codecs of the MySQL protocol: fixed-width integers, length-encoded integers and strings.

Source: MySQL DEVDOC ``page_protocol_basic_dt_integers`` / ``page_protocol_basic_dt_strings``
(``sql-common/pack.cc``: ``net_field_length_ll``, ``net_store_length``). A length-encoded integer is::

    value < 0xFB        | 1 byte  | the value itself
    value < 2**16       | 0xFC + 2 bytes little-endian
    value < 2**24       | 0xFD + 3 bytes little-endian
    otherwise           | 0xFE + 8 bytes little-endian

0xFB is NULL in a text row and 0xFF starts an ERR packet, so neither is ever a length.
:class:`Reader` is a bounded cursor: reading past the end raises :class:`RemoteProtocolError` (the peer sent a
truncated packet) instead of returning short data.
"""

from __future__ import annotations

import builtins

from gtidkit.errors import RemoteProtocolError

#: First byte of a length-encoded NULL (text rows).
NULL_MARKER = 0xFB


def lenenc_int(value: int) -> bytes:
    """Encode ``value`` (0 .. 2**64-1) as a length-encoded integer.

    Raises:
        ValueError: negative or too large.
    """
    if value < 0:
        raise ValueError(f"length-encoded integer must be >= 0, got {value}")
    if value < 0xFB:
        return bytes((value,))
    if value < 1 << 16:
        return b"\xfc" + value.to_bytes(2, "little")
    if value < 1 << 24:
        return b"\xfd" + value.to_bytes(3, "little")
    if value < 1 << 64:
        return b"\xfe" + value.to_bytes(8, "little")
    raise ValueError(f"length-encoded integer too large: {value}")


def lenenc_str(value: bytes) -> bytes:
    """Encode bytes as a length-encoded string (length, then the bytes)."""
    return lenenc_int(len(value)) + value


class Reader:
    """Bounded little-endian cursor over one packet payload.

    Args:
        data: the payload.
        pos: starting offset.

    Every read raises :class:`RemoteProtocolError` (code 1835, ER_MALFORMED_PACKET) when the payload is too
    short, so a truncated packet from a client can never be read as a shorter valid one.
    """

    __slots__ = ("data", "pos")

    def __init__(self, data: bytes, pos: int = 0) -> None:
        self.data = data
        self.pos = pos

    def remaining(self) -> int:
        """Bytes left to read."""
        return len(self.data) - self.pos

    def _need(self, n: int) -> None:
        if n < 0 or self.pos + n > len(self.data):
            raise RemoteProtocolError("Malformed communication packet.", code=1835, sqlstate="HY000")

    def u8(self) -> int:
        """One unsigned byte."""
        self._need(1)
        v = self.data[self.pos]
        self.pos += 1
        return v

    def uint(self, width: int) -> int:
        """An unsigned little-endian integer of ``width`` bytes."""
        self._need(width)
        v = int.from_bytes(self.data[self.pos : self.pos + width], "little")
        self.pos += width
        return v

    def sint(self, width: int) -> int:
        """A signed (two's complement) little-endian integer of ``width`` bytes."""
        self._need(width)
        v = int.from_bytes(self.data[self.pos : self.pos + width], "little", signed=True)
        self.pos += width
        return v

    def bytes(self, n: int) -> bytes:
        """Exactly ``n`` bytes."""
        self._need(n)
        v = self.data[self.pos : self.pos + n]
        self.pos += n
        return bytes(v)

    def rest(self) -> builtins.bytes:
        """Every byte left (a string at the end of a packet)."""
        v = self.data[self.pos :]
        self.pos = len(self.data)
        return bytes(v)

    def nul_str(self) -> builtins.bytes:
        """A NUL-terminated string (the NUL is consumed, not returned)."""
        end = self.data.find(b"\0", self.pos)
        if end < 0:
            raise RemoteProtocolError("Malformed communication packet.", code=1835, sqlstate="HY000")
        v = self.data[self.pos : end]
        self.pos = end + 1
        return bytes(v)

    def lenenc_int(self) -> int:
        """A length-encoded integer (0xFB and 0xFF are not valid lengths here)."""
        first = self.u8()
        if first < 0xFB:
            return first
        if first == 0xFC:
            return self.uint(2)
        if first == 0xFD:
            return self.uint(3)
        if first == 0xFE:
            return self.uint(8)
        raise RemoteProtocolError("Malformed communication packet.", code=1835, sqlstate="HY000")

    def lenenc_str(self) -> builtins.bytes:
        """A length-encoded string."""
        return self.bytes(self.lenenc_int())
