"""Control events: Format_description, Previous_gtids, Gtid/Anonymous_gtid/Gtid_tagged, Xid, Rotate, Stop,
Heartbeat (v1, v2) and Transaction_payload.

MySQL source: ``libs/mysql/binlog/event/control_events.h`` / ``.cpp`` (8.x; ``libbinlogevents/`` in 5.7/8.0),
``sql/log_event.cc`` (writers); byte layouts in ../shared/research/formats.md §1.4, §1.7, §2, §3.

Every class decodes from a :class:`~gtidkit.binlog.cursor.Cursor` over the event *body* (everything after the
19-byte header, CRC footer already removed) and encodes the same bytes into a
:class:`~gtidkit.binlog.cursor.Writer`: ``decode`` then ``encode`` gives back MySQL's bytes exactly.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from uuid import UUID

from gtidkit.binlog.constants import (
    CHECKSUM_ALG_DESC_LEN,
    ENCODED_SID_LENGTH,
    EVENT_HEADER_LEN,
    LOGICAL_TIMESTAMP_TYPECODE,
    SERVER_VERSION_LEN,
    ChecksumAlg,
    CompressionType,
    EventType,
)
from gtidkit.binlog.cursor import (
    Cursor,
    CursorError,
    Writer,
    packed_int_bytes,
    packed_int_width,
    varlen_width,
)
from gtidkit.binlog.versions import (
    has_checksum_alg,
    is_mariadb,
    parse_server_version,
    post_header_lengths_for,
)
from gtidkit.gtid import Gtid, GtidSet
from gtidkit.version import MYSQL_VERSION

if TYPE_CHECKING:
    from typing_extensions import Self

# ---------------------------------------------------------------------------------------------------------------
# Format_description_event (15)
# ---------------------------------------------------------------------------------------------------------------

#: binlog_version(2) + server_version(50) + create_timestamp(4) + header_length(1): the fixed part of the FDE.
FDE_FIXED_LEN = 2 + SERVER_VERSION_LEN + 4 + 1


@dataclass(frozen=True, slots=True)
class FormatDescriptionEvent:
    """FORMAT_DESCRIPTION_EVENT (15): the first event of every binlog and relay log; describes the rest.

    Body:

    | field               | size     | meaning                                                          |
    |---------------------|----------|------------------------------------------------------------------|
    | binlog_version      | 2        | 4                                                                |
    | server_version      | 50       | ASCII, NUL-padded                                                |
    | create_timestamp    | 4        | s since epoch; non-zero only in the first file after start-up    |
    | header_length       | 1        | 19                                                               |
    | post_header_lengths | N        | one byte per event type 1..N                                     |
    | checksum_alg        | 1        | only when server_version >= 5.6.1 (:class:`ChecksumAlg`)          |

    The CRC32 footer of the FDE is present whenever the version is >= 5.6.1, even when ``checksum_alg`` is OFF
    (MySQL always checksums the FDE). Pre-5.6.1 FDEs carry no algorithm byte: ``checksum_alg`` is then OFF.

    Args:
        binlog_version: 4 for every file gtidkit reads.
        server_version: the writer's version string (at most 50 bytes).
        create_timestamp: seconds since the epoch, or 0.
        header_length: common header length (19).
        post_header_lengths: ``bytes``; index ``t - 1`` holds the post-header length of type ``t``.
        checksum_alg: :class:`ChecksumAlg` value for the events that follow.

    Raises:
        ValueError: an over-long version, or a checksum algorithm a pre-5.6.1 FDE cannot carry.
    """

    binlog_version: int
    server_version: str
    create_timestamp: int
    header_length: int
    post_header_lengths: bytes
    checksum_alg: int = ChecksumAlg.CRC32

    def __post_init__(self) -> None:
        if len(self.server_version.encode("utf-8", "surrogateescape")) > SERVER_VERSION_LEN:
            raise ValueError(
                f"server_version longer than {SERVER_VERSION_LEN} bytes: {self.server_version!r}"
            )
        if not has_checksum_alg(self.server_version) and self.checksum_alg != ChecksumAlg.OFF:
            raise ValueError(f"server {self.server_version!r} (< 5.6.1) has no checksum algorithm byte")
        if not 0 <= self.checksum_alg <= 255:
            raise ValueError(f"checksum_alg {self.checksum_alg} outside u8")

    @classmethod
    def for_server(
        cls,
        server_version: str = MYSQL_VERSION,
        *,
        checksum_alg: int = ChecksumAlg.CRC32,
        create_timestamp: int = 0,
    ) -> FormatDescriptionEvent:
        """The FDE MySQL ``server_version`` writes (its post-header table from :mod:`gtidkit.binlog.versions`).

        Raises:
            ValueError: version older than 5.0, or a checksum for a pre-5.6.1 version.
        """
        if not has_checksum_alg(server_version):
            checksum_alg = ChecksumAlg.OFF
        return cls(
            4,
            server_version,
            create_timestamp,
            EVENT_HEADER_LEN,
            post_header_lengths_for(server_version),
            checksum_alg,
        )

    @property
    def has_checksum_alg_byte(self) -> bool:
        """True when this FDE's body ends with the checksum byte (and its event with a CRC: version >= 5.6.1)."""
        return has_checksum_alg(self.server_version)

    @property
    def crc32(self) -> bool:
        """True when the events this FDE describes end with a CRC32 footer."""
        return self.checksum_alg == ChecksumAlg.CRC32

    @property
    def version_tuple(self) -> tuple[int, int, int]:
        """``server_version`` as ``(major, minor, patch)``."""
        return parse_server_version(self.server_version)

    @property
    def is_mariadb(self) -> bool:
        """True when the writer is a MariaDB server."""
        return is_mariadb(self.server_version)

    def post_header_len(self, type_code: int) -> int:
        """Post-header length of ``type_code`` (0 for types this writer does not know)."""
        i = type_code - 1
        return self.post_header_lengths[i] if 0 <= i < len(self.post_header_lengths) else 0

    @classmethod
    def decode(cls, body: Cursor, fde: FormatDescriptionEvent | None = None) -> Self:
        """Decode an FDE body (``fde`` is ignored: an FDE describes itself)."""
        binlog_version = body.u16()
        raw_version = body.bytes(SERVER_VERSION_LEN)
        server_version = raw_version.split(b"\0", 1)[0].decode("utf-8", "surrogateescape")
        if raw_version != server_version.encode("utf-8", "surrogateescape").ljust(SERVER_VERSION_LEN, b"\0"):
            raise CursorError(f"FDE server_version has bytes after its NUL terminator: {raw_version!r}")
        create_timestamp = body.u32()
        header_length = body.u8()
        if header_length != EVENT_HEADER_LEN:
            raise CursorError(f"FDE header_length {header_length}, only {EVENT_HEADER_LEN} is supported")
        alg_len = CHECKSUM_ALG_DESC_LEN if has_checksum_alg(server_version) else 0
        n_types = body.remaining - alg_len
        if n_types < 0:
            raise CursorError("FDE body too short for its checksum algorithm byte")
        post = body.bytes(n_types)
        alg = body.u8() if alg_len else ChecksumAlg.OFF
        return cls(binlog_version, server_version, create_timestamp, header_length, post, alg)

    def encode(self, out: Writer, fde: FormatDescriptionEvent | None = None) -> None:
        """Encode this FDE's body (mirror of :meth:`decode`)."""
        out.u16(self.binlog_version)
        out.bytes(self.server_version.encode("utf-8", "surrogateescape").ljust(SERVER_VERSION_LEN, b"\0"))
        out.u32(self.create_timestamp)
        out.u8(self.header_length)
        out.bytes(self.post_header_lengths)
        if self.has_checksum_alg_byte:
            out.u8(self.checksum_alg)


# ---------------------------------------------------------------------------------------------------------------
# Previous_gtids_log_event (35)
# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PreviousGtidsEvent:
    """PREVIOUS_GTIDS_LOG_EVENT (35): the GTIDs executed before this binlog file (gtid_executed at creation).

    Body: the binary GTID-set encoding (formats.md §3; ``Gtid_set::encode`` in ``sql/rpl_gtid_set.cc``), classic
    (5.6+) or tagged (8.3+). Decoding and encoding live in :mod:`gtidkit.gtid`.

    Args:
        gtids: the set.
        tagged_format: which encoding the body uses; ``None`` = tagged iff the set holds a tagged GTID
            (MySQL may pick the tagged format for an untagged set, so decoding records what it saw).
    """

    gtids: GtidSet = field(default_factory=GtidSet)
    tagged_format: bool | None = None

    @classmethod
    def decode(cls, body: Cursor, fde: FormatDescriptionEvent) -> Self:
        """Decode the set; raises :class:`~gtidkit.errors.GtidParseError` (1773) on a malformed encoding."""
        data = body.view(body.remaining)
        tagged = len(data) >= 8 and data[7] != 0
        return cls(GtidSet.decode(data), tagged)

    def encode(self, out: Writer, fde: FormatDescriptionEvent) -> None:
        """Encode the set in the recorded (or implied) format."""
        out.bytes(self.gtids.encode(tagged=self.tagged_format))


# ---------------------------------------------------------------------------------------------------------------
# Gtid_log_event (33) / Anonymous_gtid_log_event (34) / Gtid_tagged_log_event (42)
# ---------------------------------------------------------------------------------------------------------------

#: 5.6 post header: gtid_flags(1) + sid(16) + gno(8).
GTID_POST_HEADER_56 = 1 + ENCODED_SID_LENGTH + 8
#: 5.7+ post header: 5.6 + lt_type(1) + last_committed(8) + sequence_number(8).
GTID_POST_HEADER_57 = GTID_POST_HEADER_56 + 1 + 8 + 8
#: ``IMMEDIATE_COMMIT_TIMESTAMP_LENGTH`` / ``ORIGINAL_COMMIT_TIMESTAMP_LENGTH``: 7-byte µs timestamps.
COMMIT_TIMESTAMP_LEN = 7
#: Bit 55 of the immediate timestamp: set ⇒ an original_commit_timestamp follows.
COMMIT_TIMESTAMP_FLAG = 1 << (COMMIT_TIMESTAMP_LEN * 8 - 1)
#: ``IMMEDIATE_SERVER_VERSION_LENGTH``.
SERVER_VERSION_FIELD_LEN = 4
#: Bit 31 of the immediate server version: set ⇒ an original_server_version follows.
SERVER_VERSION_FLAG = 1 << 31
#: ``COMMIT_GROUP_TICKET_LENGTH``.
COMMIT_GROUP_TICKET_LEN = 8
#: mysql::serialization format version written by 8.3+ (the tagged event).
SERIALIZATION_FORMAT_VERSION = 1

_ZERO_SID = bytes(ENCODED_SID_LENGTH)
#: 16 SID bytes -> UUID, filled by :func:`sid_from_bytes`; hot loops may read it directly (``.get``) to skip a call.
SID_CACHE: dict[bytes, UUID] = {}


def sid_from_bytes(raw: bytes) -> UUID:
    """A cached ``UUID`` for 16 SID bytes (a binlog repeats a handful of SIDs millions of times)."""
    sid = SID_CACHE.get(raw)
    if sid is None:
        if len(SID_CACHE) > 4096:
            SID_CACHE.clear()
        sid = SID_CACHE[raw] = UUID(bytes=raw)
    return sid


#: 5.7.5+ untagged Gtid post-header: gtid_flags, sid, gno, lt_type, last_committed, sequence_number (42 bytes).
_GTID_FIXED = struct.Struct("<B16sqBqq")
#: The same plus the 8.0 immediate_commit_timestamp (u56 as u32+u16+u8) and the next byte, in one unpack.
_GTID_FIXED_TS = struct.Struct("<B16sqBqqIHBB")
_TS_FLAG = 1 << 55
_PACKED_WIDTH = {0xFC: 2, 0xFD: 3, 0xFE: 8}


_SERVER_VERSION = struct.Struct("<I")
_SERVER_VERSION_FLAG = 1 << 31


def gtid_server_versions(
    buf: Any, p: int, end: int, transaction_length: int | None
) -> tuple[int | None, int | None, int] | None:
    """The Gtid body's immediate / original server versions (8.0.14+), read at ``buf[p:end]`` right after
    transaction_length (:func:`gtid_body_fields`' ``next``): a u32 immediate_server_version whose top bit says an
    original_server_version u32 follows (else the two are equal). Both ``None`` when the body has no
    transaction_length or fewer than 4 bytes remain (``libbinlogevents/src/control_events.cpp``).

    Returns:
        ``(immediate_server_version, original_server_version, next)``, or ``None`` when the top bit announces an
        original version the body is too short to hold (the caller decodes with the codec for the error).
    """
    if transaction_length is None or end - p < 4:
        return None, None, p
    imm = _SERVER_VERSION.unpack_from(buf, p)[0]
    p += 4
    if not imm & _SERVER_VERSION_FLAG:
        return imm, imm, p
    if end - p < 4:
        return None
    return imm & (_SERVER_VERSION_FLAG - 1), _SERVER_VERSION.unpack_from(buf, p)[0], p + 4


def gtid_body_fields(buf: Any, body: int, end: int) -> tuple | None:
    """The raw fields of an untagged (5.7.5+/8.0) Gtid or Anonymous_gtid body at ``buf[body:end]`` without a
    :class:`~gtidkit.binlog.cursor.Cursor`: the one byte-level parse behind the scanner's and the listing's fast
    paths (``Gtid_log_event`` layout, ``libbinlogevents/src/control_events.cpp``).

    Reads the 42 fixed bytes, then (8.0) immediate_commit_timestamp, original_commit_timestamp when the
    immediate one has its top bit set (else equal to it), and transaction_length (a packed integer). SID/GNO
    rules (anonymous or not, GNO range) and whatever follows transaction_length (server versions, commit group
    ticket) are left to the caller, which starts at the returned ``next`` offset.

    Args:
        buf: bytes-like (``bytes``, ``mmap``, ``memoryview``); ``body``/``end``: the body's bounds (no footer).

    Returns:
        ``(gtid_flags, raw_sid, gno, last_committed, sequence_number, immediate_ts, original_ts,
        transaction_length, next)`` (the last three ``None`` when absent), or ``None`` when the layout is not one
        of these (lt_type not 2, a length between the known ones, a field running past ``end``, an unknown packed
        length prefix): the caller then decodes the event with the codec, which raises the precise error.
    """
    n = end - body
    imm: int | None
    orig: int | None
    tlen: int | None
    if n >= _GTID_FIXED_TS.size:
        flags, raw_sid, gno, lt_type, lc, seq, lo, mid, hi, first = _GTID_FIXED_TS.unpack_from(buf, body)
        imm = lo | mid << 32 | hi << 48
        p = body + 49
        if imm & _TS_FLAG:
            if end - p < 7:
                return None
            imm &= _TS_FLAG - 1
            orig = int.from_bytes(buf[p : p + 7], "little")
            p += 7
            if p >= end:
                return (flags, raw_sid, gno, lc, seq, imm, orig, None, p) if lt_type == 2 else None
            first = buf[p]
        else:
            orig = imm
        if first < 251:
            tlen = first
            p += 1
        else:
            width = _PACKED_WIDTH.get(first)
            if width is None or p + 1 + width > end:
                return None
            tlen = int.from_bytes(buf[p + 1 : p + 1 + width], "little")
            p += 1 + width
    elif n == 49:  # immediate_commit_timestamp only (its top bit set would announce an original one: missing)
        flags, raw_sid, gno, lt_type, lc, seq = _GTID_FIXED.unpack_from(buf, body)
        imm = orig = int.from_bytes(buf[body + 42 : end], "little")
        if imm & _TS_FLAG:
            return None
        tlen, p = None, end
    elif n == 42:
        flags, raw_sid, gno, lt_type, lc, seq = _GTID_FIXED.unpack_from(buf, body)
        imm = orig = tlen = None
        p = end
    else:
        return None
    if lt_type != 2:
        return None
    return (flags, raw_sid, gno, lc, seq, imm, orig, tlen, p)


@dataclass(frozen=True, slots=True)
class GtidEvent:
    """GTID_LOG_EVENT (33), ANONYMOUS_GTID_LOG_EVENT (34) and GTID_TAGGED_LOG_EVENT (42): one class.

    The type code follows from the value: ``gtid is None`` → 34, a tagged GTID (or ``tagged_layout``) → 42,
    else 33. Untagged body (formats.md §2.1, ``Gtid_event`` in ``control_events.h``):

    | field                       | size      | present                                                |
    |-----------------------------|-----------|--------------------------------------------------------|
    | gtid_flags                  | 1         | always (bit 0 = FLAG_MAY_HAVE_SBR)                     |
    | sid                         | 16        | always (zeros when anonymous)                          |
    | gno                         | 8 (i64)   | always (0 when anonymous)                              |
    | lt_type                     | 1         | post-header 42 (5.7.5+); always 2                      |
    | last_committed              | 8 (i64)   | post-header 42                                         |
    | sequence_number             | 8 (i64)   | post-header 42                                         |
    | immediate_commit_timestamp  | 7         | 8.0.1+; bit 55 set ⇒ original follows                  |
    | original_commit_timestamp   | 7         | only when ≠ immediate                                  |
    | transaction_length          | 1/3/4/9   | 8.0.2+, net_store_length, bytes of the whole trx       |
    | immediate_server_version    | 4         | 8.0.14+; bit 31 set ⇒ original follows                 |
    | original_server_version     | 4         | only when ≠ immediate                                  |
    | commit_group_ticket         | 8         | only when non-zero (group replication)                 |

    Tagged body (type 42, post-header 0): a ``mysql::serialization`` message, formats.md §2.3: varlen
    format version (1), varlen message size, varlen last_non_ignorable_field_id (0), then (field id, value)
    pairs 0..11 in the same order as the table above (uuid bytes each varlen, gno/last_committed/
    sequence_number zig-zag signed, tag as varlen length + bytes, optional fields only when they differ/are set).

    Args:
        flags: gtid_flags byte (:class:`~gtidkit.binlog.constants.GtidFlags`).
        gtid: the GTID, or ``None`` for an anonymous transaction.
        last_committed: logical clock (5.7.5+), ``None`` in the 5.6 layout.
        sequence_number: logical clock (5.7.5+), ``None`` in the 5.6 layout.
        immediate_commit_timestamp: µs since the epoch on this server, ``None`` when absent (pre-8.0.1).
        original_commit_timestamp: µs on the originating server; defaults to (and is written only when it
            differs from) the immediate one.
        transaction_length: bytes of the transaction, this event and the COMMIT/Xid included; ``None`` if absent.
        immediate_server_version: e.g. 80036; ``None`` when absent (pre-8.0.14).
        original_server_version: defaults to (and is written only when it differs from) the immediate one.
        commit_group_ticket: group replication ticket, written only when non-zero.
        tagged_layout: encode as type 42 even for an untagged/anonymous GTID (set automatically for tags).
        extra: trailing body bytes this version does not know (kept for an exact round trip).

    Raises:
        ValueError: a value out of range, or a tagged GTID in an event that cannot carry it.
    """

    flags: int = 0
    gtid: Gtid | None = None
    last_committed: int | None = 0
    sequence_number: int | None = 0
    immediate_commit_timestamp: int | None = None
    original_commit_timestamp: int | None = None
    transaction_length: int | None = None
    immediate_server_version: int | None = None
    original_server_version: int | None = None
    commit_group_ticket: int = 0
    tagged_layout: bool = False
    extra: bytes = b""

    def __post_init__(self) -> None:
        if self.original_commit_timestamp is None:
            object.__setattr__(self, "original_commit_timestamp", self.immediate_commit_timestamp)
        if self.original_server_version is None:
            object.__setattr__(self, "original_server_version", self.immediate_server_version)
        if self.gtid is not None and self.gtid.tag and not self.tagged_layout:
            object.__setattr__(self, "tagged_layout", True)
        if not 0 <= self.flags < 256:
            raise ValueError(f"gtid_flags {self.flags} outside u8")
        if (self.last_committed is None) != (self.sequence_number is None):
            raise ValueError("last_committed and sequence_number are present together or not at all")

    @property
    def type_code(self) -> int:
        """33, 34 or 42, from the value (see the class docstring)."""
        if self.tagged_layout:
            return EventType.GTID_TAGGED_LOG_EVENT
        return EventType.ANONYMOUS_GTID_LOG_EVENT if self.gtid is None else EventType.GTID_LOG_EVENT

    @property
    def anonymous(self) -> bool:
        """True for an Anonymous_gtid event (no GTID: gtid_mode OFF or OFF_PERMISSIVE)."""
        return self.gtid is None

    @property
    def may_have_sbr(self) -> bool:
        """``FLAG_MAY_HAVE_SBR``: mysqlbinlog prints ``rbr_only=no`` when set."""
        return bool(self.flags & 1)

    # -- untagged layout (33/34) -------------------------------------------------------------------------

    @classmethod
    def decode(cls, body: Cursor, fde: FormatDescriptionEvent) -> Self:
        """Decode a type 33/34 body; the layout (25 or 42 post-header bytes) comes from ``fde``.

        Raises:
            CursorError: truncated body, or an lt_type other than 2.
            ValueError: a GNO outside 1..2^63-2 in a type 33 event.
        """
        gtid_flags = body.u8()
        raw_sid = body.bytes(ENCODED_SID_LENGTH)
        gno = body.i64()
        gtid = None if (gno == 0 and raw_sid == _ZERO_SID) else Gtid(sid_from_bytes(raw_sid), gno)
        last_committed = sequence_number = None
        if fde.post_header_len(EventType.GTID_LOG_EVENT) >= GTID_POST_HEADER_57:
            lt_type = body.u8()
            if lt_type != LOGICAL_TIMESTAMP_TYPECODE:
                raise CursorError(f"Gtid event lt_type {lt_type}, expected {LOGICAL_TIMESTAMP_TYPECODE}")
            last_committed = body.i64()
            sequence_number = body.i64()
        imm_ts = orig_ts = trx_len = imm_ver = orig_ver = None
        ticket = 0
        if body.remaining >= COMMIT_TIMESTAMP_LEN:
            imm_ts = body.u56()
            if imm_ts & COMMIT_TIMESTAMP_FLAG:
                imm_ts &= ~COMMIT_TIMESTAMP_FLAG
                orig_ts = body.u56()
            if body.remaining:
                trx_len = body.packed_int()
                if body.remaining >= SERVER_VERSION_FIELD_LEN:
                    imm_ver = body.u32()
                    if imm_ver & SERVER_VERSION_FLAG:
                        imm_ver &= ~SERVER_VERSION_FLAG
                        orig_ver = body.u32()
                    if body.remaining >= COMMIT_GROUP_TICKET_LEN:
                        ticket = body.u64()
        return cls(
            gtid_flags,
            gtid,
            last_committed,
            sequence_number,
            imm_ts,
            orig_ts,
            trx_len,
            imm_ver,
            orig_ver,
            ticket,
            False,
            body.rest(),
        )

    def encode(self, out: Writer, fde: FormatDescriptionEvent) -> None:
        """Encode in the layout of :attr:`type_code` and ``fde`` (mirror of :meth:`decode`).

        Raises:
            ValueError: fields the layout cannot carry (e.g. a logical clock in a 5.6 layout), or absent
                fields it needs.
        """
        if self.tagged_layout:
            self._encode_tagged(out)
            return
        fast = self._untagged_fast(fde)
        if fast is not None:
            out.bytes(fast)
            return
        out.u8(self.flags)
        if self.gtid is None:
            out.bytes(_ZERO_SID)
            out.i64(0)
        else:
            out.bytes(self.gtid.sid.bytes)
            out.i64(self.gtid.gno)
        if fde.post_header_len(EventType.GTID_LOG_EVENT) >= GTID_POST_HEADER_57:
            if self.last_committed is None or self.sequence_number is None:
                raise ValueError("this FDE's Gtid layout (5.7.5+) needs last_committed and sequence_number")
            out.u8(LOGICAL_TIMESTAMP_TYPECODE)
            out.i64(self.last_committed)
            out.i64(self.sequence_number)
        elif self.last_committed is not None:
            raise ValueError("the 5.6 Gtid layout (post-header 25) has no logical clock; use None")
        if self.immediate_commit_timestamp is not None:
            imm, orig = self.immediate_commit_timestamp, self.original_commit_timestamp
            if imm >= COMMIT_TIMESTAMP_FLAG or orig >= COMMIT_TIMESTAMP_FLAG:  # type: ignore[operator]
                raise ValueError("commit timestamps must be < 2^55 µs")
            if orig != imm:
                out.u56(imm | COMMIT_TIMESTAMP_FLAG)
                out.u56(orig)  # type: ignore[arg-type]
            else:
                out.u56(imm)
            if self.transaction_length is not None:
                out.packed_int(self.transaction_length)
                if self.immediate_server_version is not None:
                    iv, ov = self.immediate_server_version, self.original_server_version
                    if iv >= SERVER_VERSION_FLAG or ov >= SERVER_VERSION_FLAG:  # type: ignore[operator]
                        raise ValueError("server versions must be < 2^31")
                    if ov != iv:
                        out.u32(iv | SERVER_VERSION_FLAG)
                        out.u32(ov)  # type: ignore[arg-type]
                    else:
                        out.u32(iv)
                    if self.commit_group_ticket:
                        out.u64(self.commit_group_ticket)
        out.bytes(self.extra)

    def _untagged_fast(self, fde: FormatDescriptionEvent) -> bytes | None:
        """The 5.7.5+ untagged body :meth:`encode` writes, packed at once; None when a field needs its checks
        (out of range, absent where the layout needs it): :meth:`encode` then writes it field by field and
        raises its error."""
        return untagged_gtid_body(
            fde,
            self.flags,
            self.gtid,
            self.last_committed,
            self.sequence_number,
            self.immediate_commit_timestamp,
            self.original_commit_timestamp,
            self.transaction_length,
            self.immediate_server_version,
            self.original_server_version,
            self.commit_group_ticket,
            self.extra,
        )

    # -- tagged layout (42) ------------------------------------------------------------------------------

    @classmethod
    def decode_tagged(cls, body: Cursor, fde: FormatDescriptionEvent | None = None) -> Self:
        """Decode a type 42 body (``mysql::serialization`` message; formats.md §2.3).

        Raises:
            CursorError: truncated/non-canonical integers, a wrong size or format version, fields out of order,
                or an unknown field the writer marked non-ignorable.
        """
        start = body.pos
        version = body.varlen_uint()
        if version != SERIALIZATION_FORMAT_VERSION:
            raise CursorError(f"tagged Gtid event serialization format {version}, expected 1")
        size = body.varlen_uint()
        if size != body.end - start:
            raise CursorError(f"tagged Gtid event message size {size}, body holds {body.end - start} bytes")
        last_non_ignorable = body.varlen_uint()
        values: dict[int, Any] = {}  # field id -> int (bytes for the SID, str for the tag)
        extra = b""
        last_id = -1
        while body.remaining:
            fid = body.varlen_uint()
            if fid <= last_id:
                raise CursorError(f"tagged Gtid event field {fid} after field {last_id}")
            last_id = fid
            if fid == 1:
                raw = bytes(body.varlen_uint() for _ in range(ENCODED_SID_LENGTH))
                values[1] = raw
            elif fid == 3:
                n = body.varlen_uint()
                values[3] = body.bytes(n).decode("ascii")
            elif fid in (2, 4, 5):
                values[fid] = body.varlen_int()
            elif fid <= 11:
                values[fid] = body.varlen_uint()
            else:
                if fid <= last_non_ignorable:
                    raise CursorError(f"tagged Gtid event has unknown non-ignorable field {fid}")
                body.pos -= varlen_width(fid)
                extra = body.rest()
                break
        raw_sid = values.get(1, _ZERO_SID)
        gno = values.get(2, 0)
        tag = values.get(3, "")
        gtid = None if (gno == 0 and raw_sid == _ZERO_SID) else Gtid(sid_from_bytes(raw_sid), gno, tag)
        return cls(
            flags=values.get(0, 0),
            gtid=gtid,
            last_committed=values.get(4, 0),
            sequence_number=values.get(5, 0),
            immediate_commit_timestamp=values.get(6, 0),
            original_commit_timestamp=values.get(7),
            transaction_length=values.get(8, 0),
            immediate_server_version=values.get(9, 0),
            original_server_version=values.get(10),
            commit_group_ticket=values.get(11, 0),
            tagged_layout=True,
            extra=extra,
        )

    def _encode_tagged(self, out: Writer) -> None:
        fields = Writer()
        fields.varlen_uint(0)
        fields.varlen_uint(self.flags)
        fields.varlen_uint(1)
        raw_sid = _ZERO_SID if self.gtid is None else self.gtid.sid.bytes
        for b in raw_sid:
            fields.varlen_uint(b)
        fields.varlen_uint(2)
        fields.varlen_int(0 if self.gtid is None else self.gtid.gno)
        fields.varlen_uint(3)
        tag = b"" if self.gtid is None else self.gtid.tag.encode("ascii")
        fields.varlen_uint(len(tag))
        fields.bytes(tag)
        fields.varlen_uint(4)
        fields.varlen_int(self.last_committed or 0)
        fields.varlen_uint(5)
        fields.varlen_int(self.sequence_number or 0)
        imm = self.immediate_commit_timestamp or 0
        fields.varlen_uint(6)
        fields.varlen_uint(imm)
        if self.original_commit_timestamp is not None and self.original_commit_timestamp != imm:
            fields.varlen_uint(7)
            fields.varlen_uint(self.original_commit_timestamp)
        fields.varlen_uint(8)
        fields.varlen_uint(self.transaction_length or 0)
        iv = self.immediate_server_version or 0
        fields.varlen_uint(9)
        fields.varlen_uint(iv)
        if self.original_server_version is not None and self.original_server_version != iv:
            fields.varlen_uint(10)
            fields.varlen_uint(self.original_server_version)
        if self.commit_group_ticket:
            fields.varlen_uint(11)
            fields.varlen_uint(self.commit_group_ticket)
        fields.bytes(self.extra)
        head = Writer()
        head.varlen_uint(SERIALIZATION_FORMAT_VERSION)
        payload = fields.getvalue()
        last_non_ignorable = b"\x00"
        # The size field counts itself: grow its width until it is stable (MySQL does the same fix-up).
        fixed = 1 + len(last_non_ignorable) + len(payload)
        size = fixed + 1
        while varlen_width(size) + fixed != size:
            size = fixed + varlen_width(size)
        head.varlen_uint(size)
        out.bytes(head.getvalue())
        out.bytes(last_non_ignorable)
        out.bytes(payload)


def untagged_gtid_body(
    fde: FormatDescriptionEvent,
    flags: int,
    gtid: Gtid | None,
    last_committed: int | None,
    sequence_number: int | None,
    immediate_commit_timestamp: int | None,
    original_commit_timestamp: int | None,
    transaction_length: int | None,
    immediate_server_version: int | None,
    original_server_version: int | None,
    commit_group_ticket: int = 0,
    extra: bytes = b"",
) -> bytes | None:
    """The body of the untagged (type 33 / 34) :class:`GtidEvent` of these fields in the 5.7.5+ layout, packed
    at once, without building the event (a committing transaction's writer, :mod:`gtidkit.binlog.writer`).

    The fields are the event's, with its defaults already applied (an original timestamp / version equal to the
    immediate one when the event has none of its own). The GTID must be untagged (a tag makes a type 42 event).

    Returns:
        The body :meth:`GtidEvent.encode` writes, or None when a field needs that method's checks (out of range,
        absent where the layout needs it, an FDE without the 5.7.5 layout).
    """
    if fde.post_header_len(EventType.GTID_LOG_EVENT) < GTID_POST_HEADER_57:
        return None
    try:
        head = _GTID_FIXED.pack(
            flags,
            _ZERO_SID if gtid is None else gtid.sid.bytes,
            0 if gtid is None else gtid.gno,
            LOGICAL_TIMESTAMP_TYPECODE,
            last_committed,
            sequence_number,
        )
    except struct.error:
        return None
    imm, orig = immediate_commit_timestamp, original_commit_timestamp
    if imm is None:
        return head + extra
    if orig is None or not (0 <= imm < COMMIT_TIMESTAMP_FLAG and 0 <= orig < COMMIT_TIMESTAMP_FLAG):
        return None
    if orig != imm:
        parts = [head, (imm | COMMIT_TIMESTAMP_FLAG).to_bytes(7, "little"), orig.to_bytes(7, "little")]
    else:
        parts = [head, imm.to_bytes(7, "little")]
    length = transaction_length
    if length is not None:
        if not 0 <= length < 1 << 64:
            return None
        parts.append(packed_int_bytes(length))
        iv, ov = immediate_server_version, original_server_version
        if iv is not None:
            if ov is None or not (0 <= iv < SERVER_VERSION_FLAG and 0 <= ov < SERVER_VERSION_FLAG):
                return None
            if ov != iv:
                parts.append((iv | SERVER_VERSION_FLAG).to_bytes(4, "little") + ov.to_bytes(4, "little"))
            else:
                parts.append(iv.to_bytes(4, "little"))
            ticket = commit_group_ticket
            if ticket:
                if not 0 <= ticket < 1 << 64:
                    return None
                parts.append(ticket.to_bytes(8, "little"))
    parts.append(extra)
    return b"".join(parts)


def gtid_event_size(
    transaction_length: int,
    *,
    crc32: bool = True,
    original_differs: bool = False,
    server_versions_differ: bool = False,
) -> int:
    """Size in bytes of an 8.0 untagged Gtid event (header and CRC included), as MySQL computes it.

    77 for an originating server with ``transaction_length`` < 251 (formats.md §2.2), 79 up to 65535.
    """
    size = (
        EVENT_HEADER_LEN + GTID_POST_HEADER_57 + COMMIT_TIMESTAMP_LEN + packed_int_width(transaction_length)
    )
    size += SERVER_VERSION_FIELD_LEN
    if original_differs:
        size += COMMIT_TIMESTAMP_LEN
    if server_versions_differ:
        size += SERVER_VERSION_FIELD_LEN
    return size + (4 if crc32 else 0)


# ---------------------------------------------------------------------------------------------------------------
# Small control events
# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class XidEvent:
    """XID_EVENT (16): commit marker of a transactional-engine transaction.

    Body: xid | 8 bytes | transaction id, little-endian unsigned.
    """

    xid: int

    @classmethod
    def decode(cls, body: Cursor, fde: FormatDescriptionEvent) -> Self:
        """Read the u64 xid."""
        return cls(body.u64())

    def encode(self, out: Writer, fde: FormatDescriptionEvent) -> None:
        """Write the u64 xid."""
        out.u64(self.xid)


@dataclass(frozen=True, slots=True)
class RotateEvent:
    """ROTATE_EVENT (4): the next file and the position to continue at.

    Body: position | 8 (post-header) | u64, usually 4; next_file | rest | file name, no NUL.
    A real rotate ends a file; a *fake* rotate (log_pos 0, ARTIFICIAL flag in streams, relay logs) names the
    source's file a replica reads from.
    """

    position: int
    next_file: str

    @classmethod
    def decode(cls, body: Cursor, fde: FormatDescriptionEvent) -> Self:
        """Read the position (when the post-header has one) and the file name."""
        position = body.u64() if fde.post_header_len(EventType.ROTATE_EVENT) >= 8 else 4
        return cls(position, body.rest().decode("utf-8", "surrogateescape"))

    def encode(self, out: Writer, fde: FormatDescriptionEvent) -> None:
        """Write the position and the file name."""
        if fde.post_header_len(EventType.ROTATE_EVENT) >= 8:
            out.u64(self.position)
        out.bytes(self.next_file.encode("utf-8", "surrogateescape"))


@dataclass(frozen=True, slots=True)
class StopEvent:
    """STOP_EVENT (3): written at clean shutdown; empty body."""

    @classmethod
    def decode(cls, body: Cursor, fde: FormatDescriptionEvent) -> Self:
        """Nothing to read."""
        return cls()

    def encode(self, out: Writer, fde: FormatDescriptionEvent) -> None:
        """Nothing to write."""


@dataclass(frozen=True, slots=True)
class HeartbeatEvent:
    """HEARTBEAT_LOG_EVENT (27): idle keep-alive on the wire (never in files).

    Body: log_file | rest | the source's current file name. The position is the header's ``log_pos``.
    """

    log_file: str

    @classmethod
    def decode(cls, body: Cursor, fde: FormatDescriptionEvent) -> Self:
        """Read the file name."""
        return cls(body.rest().decode("utf-8", "surrogateescape"))

    def encode(self, out: Writer, fde: FormatDescriptionEvent) -> None:
        """Write the file name."""
        out.bytes(self.log_file.encode("utf-8", "surrogateescape"))


#: Heartbeat v2 TLV field ids (``Heartbeat_event_v2`` in ``control_events.h``).
_HB_END, _HB_LOG_FILENAME, _HB_LOG_POSITION = 0, 1, 2


@dataclass(frozen=True, slots=True)
class HeartbeatV2Event:
    """HEARTBEAT_LOG_EVENT_V2 (41, 8.0.26+): heartbeat whose position is 64-bit.

    Body: TLV entries ``type(packed) length(packed) value``: 1 = file name, 2 = position (packed int); 0 ends.
    """

    log_file: str
    log_pos: int

    @classmethod
    def decode(cls, body: Cursor, fde: FormatDescriptionEvent) -> Self:
        """Read the TLV list up to its end marker."""
        name, pos = "", 0
        while True:
            t = body.packed_int()
            if t == _HB_END:
                break
            n = body.packed_int()
            value = Cursor(body.view(n))
            if t == _HB_LOG_FILENAME:
                name = value.rest().decode("utf-8", "surrogateescape")
            elif t == _HB_LOG_POSITION:
                pos = value.packed_int()
        return cls(name, pos)

    def encode(self, out: Writer, fde: FormatDescriptionEvent) -> None:
        """Write file name, position and the end marker."""
        name = self.log_file.encode("utf-8", "surrogateescape")
        out.packed_int(_HB_LOG_FILENAME)
        out.packed_int(len(name))
        out.bytes(name)
        pos = Writer()
        pos.packed_int(self.log_pos)
        out.packed_int(_HB_LOG_POSITION)
        out.packed_int(len(pos))
        out.bytes(pos.getvalue())
        out.packed_int(_HB_END)


#: Transaction_payload TLV field ids (``Transaction_payload_event::fields``).
_TP_END, _TP_PAYLOAD_SIZE, _TP_COMPRESSION_TYPE, _TP_UNCOMPRESSED_SIZE = 0, 1, 2, 3


@dataclass(frozen=True, slots=True)
class TransactionPayloadEvent:
    """TRANSACTION_PAYLOAD_EVENT (40, 8.0.20+): a whole transaction's events, compressed.

    Body: TLV header, each ``type(packed) length(packed) value(packed)``, in MySQL's order
    2 = compression_type (0 ZSTD, 255 NONE), 3 = uncompressed_size (only when compressed), 1 = payload_size,
    0 = end; then ``payload_size`` bytes of payload. The payload holds the transaction's inner events (their
    own headers, no CRC footers); the Gtid event stays outside, before this one.

    Args:
        compression_type: :class:`~gtidkit.binlog.constants.CompressionType`.
        uncompressed_size: bytes after decompression, ``None`` when the writer omitted it.
        payload: the (compressed) payload bytes.
    """

    compression_type: int
    uncompressed_size: int | None
    payload: bytes

    @classmethod
    def decode(cls, body: Cursor, fde: FormatDescriptionEvent) -> Self:
        """Read the TLV header and the payload.

        Raises:
            CursorError: truncated header, or a payload size that disagrees with the body.
        """
        ctype: int = CompressionType.NONE
        usize: int | None = None
        psize: int | None = None
        while True:
            t = body.packed_int()
            if t == _TP_END:
                break
            n = body.packed_int()
            value = Cursor(body.view(n))
            v = value.packed_int()
            if t == _TP_COMPRESSION_TYPE:
                ctype = v
            elif t == _TP_UNCOMPRESSED_SIZE:
                usize = v
            elif t == _TP_PAYLOAD_SIZE:
                psize = v
        if psize is None or psize != body.remaining:
            raise CursorError(f"Transaction_payload payload_size {psize}, body holds {body.remaining} bytes")
        return cls(ctype, usize, body.rest())

    def encode(self, out: Writer, fde: FormatDescriptionEvent) -> None:
        """Write the TLV header and the payload."""

        def field(t: int, v: int) -> None:
            w = Writer()
            w.packed_int(v)
            out.packed_int(t)
            out.packed_int(len(w))
            out.bytes(w.getvalue())

        field(_TP_COMPRESSION_TYPE, self.compression_type)
        if self.uncompressed_size is not None:
            field(_TP_UNCOMPRESSED_SIZE, self.uncompressed_size)
        field(_TP_PAYLOAD_SIZE, len(self.payload))
        out.packed_int(_TP_END)
        out.bytes(self.payload)

    def uncompressed(self, *, max_size: int = 1 << 30) -> bytes:
        """The inner events' bytes, decompressed with ``zstandard`` when compressed.

        Raises:
            CursorError: an unknown compression type, corrupt zstd data, or a size mismatch.
        """
        if self.compression_type == CompressionType.NONE:
            return self.payload
        if self.compression_type != CompressionType.ZSTD:
            raise CursorError(f"unknown Transaction_payload compression type {self.compression_type}")
        import zstandard  # lazy: only compressed payloads need it (the CLI loads this module at start)

        limit = self.uncompressed_size if self.uncompressed_size is not None else max_size
        try:
            data = zstandard.ZstdDecompressor().decompress(self.payload, max_output_size=limit)
        except zstandard.ZstdError as err:
            raise CursorError(f"corrupt zstd Transaction_payload: {err}") from err
        if self.uncompressed_size is not None and len(data) != self.uncompressed_size:
            raise CursorError(
                f"Transaction_payload decompressed to {len(data)} bytes, header says {self.uncompressed_size}"
            )
        return data
