"""Binary GTID-set encoding (the SID-block format): Previous_gtids body, COM_BINLOG_DUMP_GTID data.

Layout (all little-endian; MySQL ``sql/rpl_gtid_set.cc`` ``Gtid_set::encode`` / ``add_gtid_encoding``,
``encode_nsids_format`` / ``decode_nsids_format``; formats.md §3)::

    header    | 8 bytes | classic: n_sids (top byte 0)
              |         | tagged (8.3+): (1 << 56) | (n_sids << 8) | 1  -> bytes 01 <n_sids: 6 bytes> 01
    per TSID (sorted by uuid bytes, then tag; untagged first):
      uuid        | 16 bytes | binary, text order
      tag         | varlen   | tagged format only: varlen-uint length, then the lowercase ASCII bytes
      n_intervals | 8 bytes  | u64
      intervals   | 16 * n   | i64 start, i64 end -- end EXCLUSIVE (text ``1-5`` is stored as 1, 6)

This module is the ONLY place where MySQL's exclusive interval end (``+1`` / ``-1``) appears: everything
else in gtidkit uses closed (inclusive) intervals as GTID text does.

The decoder is strict like ``Gtid_set::add_gtid_encoding``: the exact length must be used, and per TSID each
interval needs ``start > previous end`` (so ``start >= 1`` and no overlap or adjacency) and ``end > start``.
Every failure raises :class:`~gtidkit.errors.GtidParseError` 1773 "Malformed GTID set encoding." with the
byte offset in ``position``. Pure: no I/O.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable

from gtidkit.errors import GtidParseError
from gtidkit.gtid.interval import union
from gtidkit.gtid.sid import TAG_MAX_LENGTH, scan_tag

__all__ = [
    "CLASSIC",
    "TAGGED",
    "decode_nsids",
    "decode_sid_blocks",
    "decode_varlen_uint",
    "encode_sid_blocks",
    "encode_varlen_uint",
    "malformed_encoding",
]

#: ``Gtid_format::untagged`` and ``Gtid_format::tagged``.
CLASSIC = 0
TAGGED = 1

HEADER_LENGTH = 8
UUID_LENGTH = 16
N_INTERVALS_LENGTH = 8
INTERVAL_LENGTH = 8 + 8  # start + exclusive end
#: INT64_MAX: the largest exclusive end MySQL can store (the inclusive end is then MAX_GNO = 2**63-2).
GNO_END = 2**63 - 1

_U64 = struct.Struct("<Q")

Key = tuple[bytes, str]
Flat = tuple[int, ...]


def malformed_encoding(data: bytes | bytearray | memoryview | None, position: int | None) -> GtidParseError:
    """ER_MALFORMED_GTID_SET_ENCODING (1773), failing at byte ``position``."""
    raw = bytes(data) if data is not None else None
    return GtidParseError(1773, "Malformed GTID set encoding.", raw, position)


def encode_varlen_uint(value: int) -> bytes:
    """MySQL serialization varlen unsigned integer (formats.md §2.3; ``variable_length_integers.h``).

    Width n = 1 for values below 2**7, else ceil(bit_length / 7) up to 8 bytes (56 bits); wider values take
    9 bytes (``FF`` + u64). For n <= 8 the bytes read LE equal ``(value << n) | ((1 << (n - 1)) - 1)``.

    Raises:
        ValueError: for a negative value or one above 2**64-1.
    """
    if value < 0 or value >= 2**64:
        raise ValueError(f"varlen uint out of range: {value}")
    bits = value.bit_length()
    if bits <= 7:
        return bytes((value << 1,))
    if bits <= 56:
        n = (bits + 6) // 7
        return ((value << n) | ((1 << (n - 1)) - 1)).to_bytes(n, "little")
    return b"\xff" + value.to_bytes(8, "little")


def decode_varlen_uint(data: bytes | memoryview, pos: int) -> tuple[int, int]:
    """Decode a varlen unsigned integer at ``data[pos:]``; return ``(value, new position)``.

    Raises:
        GtidParseError: 1773 if the bytes are truncated.
    """
    if pos >= len(data):
        raise malformed_encoding(data, pos)
    first = data[pos]
    n = 1
    while n < 9 and (first >> (n - 1)) & 1:
        n += 1
    if pos + n > len(data):
        raise malformed_encoding(data, pos)
    if n == 9:
        return int.from_bytes(data[pos + 1 : pos + 9], "little"), pos + 9
    raw = int.from_bytes(data[pos : pos + n], "little")
    return raw >> n, pos + n


def decode_nsids(data: bytes | memoryview, pos: int = 0) -> tuple[int, int]:
    """Read the 8-byte header: ``(format, n_sids)`` where format is :data:`CLASSIC` or :data:`TAGGED`.

    MySQL ``decode_nsids_format``: the top byte is the format; classic keeps ``n_sids`` in the low 56 bits,
    tagged in bits 8..55 (the low byte repeats the format and is ignored).

    Raises:
        GtidParseError: 1773 if fewer than 8 bytes remain or the format byte is unknown.
    """
    if len(data) - pos < HEADER_LENGTH:
        raise malformed_encoding(data, pos)
    (word,) = _U64.unpack_from(data, pos)
    fmt = word >> 56
    if fmt == CLASSIC:
        return CLASSIC, word & ((1 << 56) - 1)
    if fmt == TAGGED:
        return TAGGED, (word >> 8) & ((1 << 48) - 1)
    raise malformed_encoding(data, pos + 7)


def encode_sid_blocks(items: Iterable[tuple[bytes, str, Flat]], tagged: bool) -> bytes:
    """Encode ``(sid bytes, tag, closed flat intervals)`` TSIDs, already in MySQL order, as SID blocks.

    Args:
        items: TSIDs sorted by (sid bytes, tag) with non-empty normalised closed intervals
            ``(s0, e0, s1, e1, ...)``; the ends are turned into MySQL's exclusive ends here.
        tagged: write the 8.3+ tagged format (header ``01 .. 01`` and a tag field per TSID).

    Raises:
        ValueError: if ``tagged`` is False and an item carries a tag.
    """
    out = bytearray(HEADER_LENGTH)
    n = 0
    pack = struct.pack
    for sid, tag, flat in items:
        n += 1
        out += sid
        if tagged:
            tb = tag.encode("ascii")
            out += encode_varlen_uint(len(tb))
            out += tb
        elif tag:
            raise ValueError(f"tagged GTIDs (tag {tag!r}) cannot be written in the classic (untagged) format")
        k = len(flat) // 2
        out += _U64.pack(k)
        # exclusive end: every odd slot gets +1
        excl = list(flat)
        excl[1::2] = [e + 1 for e in flat[1::2]]
        out += pack(f"<{2 * k}q", *excl)
    if tagged:
        header = (TAGGED << 56) | (n << 8) | TAGGED
    else:
        header = n
    _U64.pack_into(out, 0, header)
    return bytes(out)


def decode_sid_blocks(
    data: bytes | bytearray | memoryview, *, exact: bool = True
) -> tuple[dict[Key, Flat], list[Key], int]:
    """Decode SID blocks into ``({(sid bytes, tag): closed flat intervals}, tsids in order read, bytes used)``.

    TSIDs that carry zero intervals are accepted (MySQL does) and appear only in the second list. A TSID that
    appears twice is merged by union, as ``add_gtid_encoding`` adds every block to one set.

    Args:
        data: the encoded set.
        exact: when True (the default, MySQL's check), trailing bytes are an error.

    Raises:
        GtidParseError: 1773 "Malformed GTID set encoding." with the byte offset of the fault.
    """
    mv = memoryview(data)
    size = len(mv)
    fmt, n_sids = decode_nsids(mv, 0)
    pos = HEADER_LENGTH
    result: dict[Key, Flat] = {}
    order: dict[Key, None] = {}
    min_block = UUID_LENGTH + N_INTERVALS_LENGTH + (1 if fmt == TAGGED else 0)
    if n_sids * min_block > size - pos:
        raise malformed_encoding(data, pos)
    unpack_from = struct.unpack_from
    for _ in range(n_sids):
        if size - pos < UUID_LENGTH:
            raise malformed_encoding(data, pos)
        sid = bytes(mv[pos : pos + UUID_LENGTH])
        pos += UUID_LENGTH
        tag = ""
        if fmt == TAGGED:
            tag_pos = pos
            length, pos = decode_varlen_uint(mv, pos)
            if length > TAG_MAX_LENGTH or size - pos < length:
                raise malformed_encoding(data, tag_pos)
            try:
                text = bytes(mv[pos : pos + length]).decode("ascii")
            except UnicodeDecodeError:
                raise malformed_encoding(data, tag_pos) from None
            # Tag::decode_tag: from_cstring must accept every byte.
            used, tag = scan_tag(text, 0)
            if length and (used != length or len(tag) != length):
                raise malformed_encoding(data, tag_pos)
            pos += length
        if size - pos < N_INTERVALS_LENGTH:
            raise malformed_encoding(data, pos)
        (n_iv,) = _U64.unpack_from(mv, pos)
        pos += N_INTERVALS_LENGTH
        if n_iv > (size - pos) // INTERVAL_LENGTH:
            raise malformed_encoding(data, pos)
        values = unpack_from(f"<{2 * n_iv}q", mv, pos)
        # start > last and end > start (exclusive ends); signed reads make >= 2**63 values negative -> rejected.
        last = 0
        for i in range(0, 2 * n_iv, 2):
            start = values[i]
            end = values[i + 1]
            if start <= last or end <= start:
                raise malformed_encoding(data, pos + 8 * i)
            last = end
        pos += INTERVAL_LENGTH * n_iv
        key = (sid, tag)
        order.setdefault(key)
        if n_iv:
            closed = list(values)
            closed[1::2] = [e - 1 for e in values[1::2]]
            flat = tuple(closed)
            old = result.get(key)
            result[key] = union(old, flat) if old else flat
    if exact and pos != size:
        raise malformed_encoding(data, pos)
    return result, list(order), pos
