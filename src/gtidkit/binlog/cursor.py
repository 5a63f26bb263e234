"""Bounded little-endian reading (:class:`Cursor`) and writing (:class:`Writer`) of binlog fields.

Follows MySQL ``libs/mysql/binlog/event/event_reader.h``: every read checks how many bytes remain and fails
instead of overrunning; the footer (CRC32) is cut off before the body is handed to a decoder, so a checksum is
never read as payload. Packed integers follow ``net_store_length`` (``mysys/pack.cc``) and the varlen integers of
``libs/mysql/serialization/variable_length_integers.h`` (used by the 8.3+ tagged Gtid event).

A short read raises :class:`CursorError`; :mod:`gtidkit.binlog.codec` turns it into a
:class:`~gtidkit.errors.BinlogDecodeError` that carries the file, offset and event type.
"""

from __future__ import annotations

import builtins
import struct

from gtidkit.errors import BinlogDecodeError

_U16 = struct.Struct("<H")
_U32 = struct.Struct("<I")
_U64 = struct.Struct("<Q")
_I64 = struct.Struct("<q")


class CursorError(BinlogDecodeError):
    """A field ran past the end of the bytes being decoded, or a packed integer is malformed."""


class Cursor:
    """A bounded read position over a ``memoryview``.

    Args:
        data: the bytes to read (``bytes``, ``bytearray`` or ``memoryview``); never copied.
        start: first readable offset (default 0).
        end: one past the last readable offset (default ``len(data)``).

    Every read advances :attr:`pos`; reading past :attr:`end` raises :class:`CursorError`.
    """

    __slots__ = ("_buf", "end", "pos")

    def __init__(self, data: bytes | bytearray | memoryview, start: int = 0, end: int | None = None) -> None:
        self._buf = data if isinstance(data, memoryview) else memoryview(data)
        self.pos = start
        self.end = len(self._buf) if end is None else end
        if not 0 <= start <= self.end <= len(self._buf):
            raise CursorError(f"cursor bounds {start}..{end} outside a buffer of {len(self._buf)} bytes")

    @property
    def remaining(self) -> int:
        """Bytes left between :attr:`pos` and :attr:`end`."""
        return self.end - self.pos

    def _take(self, n: int) -> int:
        p = self.pos
        if n < 0 or p + n > self.end:
            raise CursorError(f"need {n} bytes at offset {p}, only {self.end - p} left")
        self.pos = p + n
        return p

    def u8(self) -> int:
        """Read an unsigned 1-byte integer."""
        p = self.pos
        if p >= self.end:
            raise CursorError(f"need 1 bytes at offset {p}, only 0 left")
        self.pos = p + 1
        return self._buf[p]

    def u16(self) -> int:
        """Read an unsigned little-endian 2-byte integer."""
        p = self.pos
        if p + 2 > self.end:
            raise CursorError(f"need 2 bytes at offset {p}, only {self.end - p} left")
        self.pos = p + 2
        return _U16.unpack_from(self._buf, p)[0]

    def u24(self) -> int:
        """Read an unsigned little-endian 3-byte integer."""
        p = self._take(3)
        return int.from_bytes(self._buf[p : p + 3], "little")

    def u32(self) -> int:
        """Read an unsigned little-endian 4-byte integer."""
        p = self.pos
        if p + 4 > self.end:
            raise CursorError(f"need 4 bytes at offset {p}, only {self.end - p} left")
        self.pos = p + 4
        return _U32.unpack_from(self._buf, p)[0]

    def u48(self) -> int:
        """Read an unsigned little-endian 6-byte integer (table ids)."""
        p = self._take(6)
        return int.from_bytes(self._buf[p : p + 6], "little")

    def u56(self) -> int:
        """Read an unsigned little-endian 7-byte integer (commit timestamps)."""
        p = self._take(7)
        return int.from_bytes(self._buf[p : p + 7], "little")

    def u64(self) -> int:
        """Read an unsigned little-endian 8-byte integer."""
        p = self.pos
        if p + 8 > self.end:
            raise CursorError(f"need 8 bytes at offset {p}, only {self.end - p} left")
        self.pos = p + 8
        return _U64.unpack_from(self._buf, p)[0]

    def i64(self) -> int:
        """Read a signed little-endian 8-byte integer."""
        p = self.pos
        if p + 8 > self.end:
            raise CursorError(f"need 8 bytes at offset {p}, only {self.end - p} left")
        self.pos = p + 8
        return _I64.unpack_from(self._buf, p)[0]

    def bytes(self, n: int) -> bytes:
        """Read exactly ``n`` bytes (copied)."""
        p = self._take(n)
        return bytes(self._buf[p : p + n])

    def view(self, n: int) -> memoryview:
        """Read exactly ``n`` bytes as a zero-copy ``memoryview``."""
        p = self._take(n)
        return self._buf[p : p + n]

    def rest(self) -> builtins.bytes:  # (`bytes` in this class body is the method)
        """Read every remaining byte (copied)."""
        return self.bytes(self.end - self.pos)

    def packed_int(self) -> int:
        """Read a ``net_store_length`` integer: <251 → 1 byte; FC+u16; FD+u24; FE+u64.

        Raises:
            CursorError: truncated input, or a first byte of 251 (NULL) or 255 (invalid).
        """
        first = self.u8()
        if first < 251:
            return first
        if first == 0xFC:
            return self.u16()
        if first == 0xFD:
            return self.u24()
        if first == 0xFE:
            return self.u64()
        raise CursorError(f"invalid packed integer prefix 0x{first:02x} at offset {self.pos - 1}")

    def varlen_uint(self) -> int:
        """Read a ``mysql::serialization`` unsigned varlen integer.

        Width = 1 + number of trailing 1-bits of the first byte (at most 9). For widths up to 8 the bytes, read
        little-endian, hold ``(value << width) | ((1 << (width - 1)) - 1)``; width 9 is ``FF`` + u64.

        Raises:
            CursorError: truncated input or a non-canonical encoding (MySQL rejects both).
        """
        first = self._buf[self._take(1)]
        width = 1
        while width < 9 and (first >> (width - 1)) & 1:
            width += 1
        if width == 9:
            value = self.u64()
        else:
            self.pos -= 1
            p = self._take(width)
            raw = int.from_bytes(self._buf[p : p + width], "little")
            value = raw >> width
        if varlen_width(value) != width:
            raise CursorError(f"non-canonical varlen integer of width {width} at offset {self.pos - width}")
        return value

    def varlen_int(self) -> int:
        """Read a zig-zag signed ``mysql::serialization`` varlen integer (0→0, −1→1, 1→2, …)."""
        u = self.varlen_uint()
        return -(u >> 1) - 1 if u & 1 else u >> 1


def varlen_width(value: int) -> int:
    """Bytes used by the varlen encoding of the unsigned ``value`` (1..9)."""
    bits = value.bit_length()
    if bits <= 7:
        return 1
    if bits >= 57:
        return 9
    return (bits + 6) // 7


def packed_int_width(value: int) -> int:
    """Bytes used by the ``net_store_length`` encoding of ``value`` (1, 3, 4 or 9)."""
    if value < 251:
        return 1
    if value < 1 << 16:
        return 3
    if value < 1 << 24:
        return 4
    return 9


def packed_int_bytes(value: int) -> bytes:
    """The ``net_store_length`` bytes of ``value`` (what :meth:`Writer.packed_int` appends).

    Raises:
        ValueError: ``value`` is negative or does not fit 64 bits.
    """
    if 0 <= value < 251:
        return _ONE_BYTE[value]
    w = Writer()
    w.packed_int(value)
    return w.getvalue()


_ONE_BYTE = tuple(bytes((i,)) for i in range(256))


class Writer:
    """Append-only little-endian encoder: the mirror of :class:`Cursor`.

    Every method checks the value fits its width and raises ``ValueError`` otherwise.
    """

    __slots__ = ("_buf",)

    def __init__(self) -> None:
        self._buf = bytearray()

    def __len__(self) -> int:
        return len(self._buf)

    def getvalue(self) -> bytes:
        """The bytes written so far."""
        return bytes(self._buf)

    def getbuffer(self) -> bytearray:
        """The bytes written so far, not copied: the writer's own buffer (stop writing once it is taken)."""
        return self._buf

    @staticmethod
    def _overflow(value: int, width: int) -> ValueError:
        return ValueError(f"{value} does not fit an unsigned {width}-byte field")

    def _uint(self, value: int, width: int) -> None:
        # int.to_bytes refuses a negative or too-wide value (OverflowError): one C call checks and packs
        try:
            self._buf += value.to_bytes(width, "little")
        except OverflowError:
            raise self._overflow(value, width) from None

    def u8(self, value: int) -> None:
        """Append an unsigned 1-byte integer."""
        try:
            self._buf += value.to_bytes(1, "little")
        except OverflowError:
            raise self._overflow(value, 1) from None

    def u16(self, value: int) -> None:
        """Append an unsigned little-endian 2-byte integer."""
        try:
            self._buf += value.to_bytes(2, "little")
        except OverflowError:
            raise self._overflow(value, 2) from None

    def u24(self, value: int) -> None:
        """Append an unsigned little-endian 3-byte integer."""
        self._uint(value, 3)

    def u32(self, value: int) -> None:
        """Append an unsigned little-endian 4-byte integer."""
        try:
            self._buf += value.to_bytes(4, "little")
        except OverflowError:
            raise self._overflow(value, 4) from None

    def u48(self, value: int) -> None:
        """Append an unsigned little-endian 6-byte integer."""
        self._uint(value, 6)

    def u56(self, value: int) -> None:
        """Append an unsigned little-endian 7-byte integer."""
        self._uint(value, 7)

    def u64(self, value: int) -> None:
        """Append an unsigned little-endian 8-byte integer."""
        try:
            self._buf += value.to_bytes(8, "little")
        except OverflowError:
            raise self._overflow(value, 8) from None

    def i64(self, value: int) -> None:
        """Append a signed little-endian 8-byte integer."""
        try:
            self._buf += value.to_bytes(8, "little", signed=True)
        except OverflowError:
            raise ValueError(f"{value} does not fit a signed 8-byte field") from None

    def bytes(self, data: bytes | bytearray | memoryview) -> None:
        """Append raw bytes."""
        self._buf += data

    def packed_int(self, value: int) -> None:
        """Append a ``net_store_length`` integer (see :meth:`Cursor.packed_int`)."""
        if value < 0:
            raise ValueError(f"packed integer must be >= 0, got {value}")
        if value < 251:
            self._buf.append(value)
        elif value < 1 << 16:
            self._buf.append(0xFC)
            self.u16(value)
        elif value < 1 << 24:
            self._buf.append(0xFD)
            self.u24(value)
        else:
            self._buf.append(0xFE)
            self.u64(value)

    def varlen_uint(self, value: int) -> None:
        """Append a ``mysql::serialization`` unsigned varlen integer (see :meth:`Cursor.varlen_uint`)."""
        if not 0 <= value < 1 << 64:
            raise ValueError(f"{value} does not fit a varlen unsigned 64-bit integer")
        width = varlen_width(value)
        if width == 9:
            self._buf.append(0xFF)
            self.u64(value)
        else:
            self._buf += ((value << width) | ((1 << (width - 1)) - 1)).to_bytes(width, "little")

    def varlen_int(self, value: int) -> None:
        """Append a zig-zag signed varlen integer."""
        if not -(1 << 63) <= value < 1 << 63:
            raise ValueError(f"{value} does not fit a varlen signed 64-bit integer")
        self.varlen_uint(2 * value if value >= 0 else 2 * (-value - 1) + 1)
