"""One GTID ``(sid, tag, gno)`` and its text form ``uuid:gno`` / ``uuid:tag:gno``.

Sources: MySQL ``sql/rpl_gtid_misc.cc`` (8.4 ``Gtid::parse_gtid_from_cstring``, ``parse_gno``),
``sql/rpl_gtid_set.cc`` (``parse_gno``: ``my_strtoll(s, &end, 0)``, rejecting negatives and ``>= GNO_END``).
"""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from gtidkit.errors import GtidParseError
from gtidkit.gtid.interval import MAX_GNO
from gtidkit.gtid.sid import WHITESPACE, is_valid_tag, parse_sid_at, scan_tag

__all__ = ["GNO_END", "Gtid", "malformed_gtid", "parse_gno_at", "strtoll_at"]

#: INT64_MAX: MySQL's exclusive upper bound on GNOs (``GNO_END``).
GNO_END = 2**63 - 1
_LLONG_MIN = -(2**63)
_OCT = frozenset("01234567")
_DEC = frozenset("0123456789")
_HEXD = frozenset("0123456789abcdefABCDEF")


def strtoll_at(text: str, pos: int) -> tuple[int, int]:
    """C ``strtoll(text + pos, &end, 0)``: returns ``(value, end index)``; ``end == pos`` when nothing converts.

    Like glibc: skips leading whitespace, takes an optional sign, reads ``0x``/``0X`` hex (only if a hex digit
    follows), a leading ``0`` as octal, else decimal; clamps to the int64 range on overflow.
    """
    n = len(text)
    p = pos
    while p < n and text[p] in WHITESPACE:
        p += 1
    neg = False
    if p < n and text[p] in "+-":
        neg = text[p] == "-"
        p += 1
    if p + 2 < n and text[p] == "0" and text[p + 1] in "xX" and text[p + 2] in _HEXD:
        digits, base, q = _HEXD, 16, p + 2
    elif p < n and text[p] == "0":
        digits, base, q = _OCT, 8, p
    else:
        digits, base, q = _DEC, 10, p
    r = q
    while r < n and text[r] in digits:
        r += 1
    if r == q:
        return 0, pos
    value = int(text[q:r], base)
    if neg:
        value = -value
    if value > GNO_END:
        value = GNO_END
    elif value < _LLONG_MIN:
        value = _LLONG_MIN
    return value, r


def parse_gno_at(text: str, pos: int) -> tuple[int, int]:
    """MySQL's ``parse_gno``: ``(gno, end)`` or ``(-1, pos)`` for a negative value or one ``>= GNO_END``.

    A position where no number starts yields ``(0, pos)`` (strtoll converts nothing), which callers reject
    where a start GNO is required.
    """
    value, end = strtoll_at(text, pos)
    if value < 0 or value >= GNO_END:
        return -1, pos
    return value, end


def malformed_gtid(text: str, position: int | None) -> GtidParseError:
    """ER_MALFORMED_GTID_SPECIFICATION (1774) for ``text``, failing at character ``position``."""
    shown = text.encode("utf-8", "surrogatepass")[:200].decode("utf-8", "ignore")
    return GtidParseError(1774, f"Malformed GTID specification '{shown}'.", text, position)


@dataclass(frozen=True, slots=True)
class Gtid:
    """One global transaction identifier: ``sid:gno`` (or ``sid:tag:gno`` from MySQL 8.3).

    Args:
        sid: the source server's UUID.
        gno: the transaction number, ``1 .. MAX_GNO`` (2**63-2).
        tag: ``""`` (untagged) or a normalised tag (1..32 chars ``[a-z_][a-z0-9_]*``, lowercase).

    Raises:
        ValueError: on a GNO out of range or a non-normal tag.
        TypeError: if ``sid`` is not a ``uuid.UUID`` or ``gno`` not an int.
    """

    sid: UUID
    gno: int
    tag: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.sid, UUID):
            raise TypeError(f"Gtid.sid must be a uuid.UUID, not {type(self.sid).__name__}")
        if not isinstance(self.gno, int):
            raise TypeError(f"Gtid.gno must be an int, not {type(self.gno).__name__}")
        if not 1 <= self.gno <= MAX_GNO:
            raise ValueError(f"GNO {self.gno!r} out of range 1..{MAX_GNO}")
        if not isinstance(self.tag, str) or not is_valid_tag(self.tag):
            raise ValueError(f"malformed GTID tag {self.tag!r} (lowercase, 1..32 chars [a-z_][a-z0-9_]*)")

    @classmethod
    def parse(cls, text: str) -> Gtid:
        """Parse ``uuid:gno`` or ``uuid:tag:gno`` as ``SET gtid_next`` does.

        Whitespace is allowed around the parts; the tag is case-folded; the GNO is read like
        ``strtoll(…, 0)`` and must be ``1 .. 2**63-2``; nothing may follow.

        Raises:
            GtidParseError: code 1774, "Malformed GTID specification '%.200s'.", with ``position``.
            TypeError: if ``text`` is not a str.
        """
        if not isinstance(text, str):
            raise TypeError(f"GTID text must be str, not {type(text).__name__}")
        s = text.split("\0", 1)[0]  # MySQL sees a C string
        n = len(s)
        p = 0
        while p < n and s[p] in WHITESPACE:
            p += 1
        raw = parse_sid_at(s, p)
        if raw is None:
            raise malformed_gtid(text, p)
        p += 36
        while p < n and s[p] in WHITESPACE:
            p += 1
        if p >= n or s[p] != ":":
            raise malformed_gtid(text, p)
        p += 1
        while p < n and s[p] in WHITESPACE:
            p += 1
        used, tag = scan_tag(s, p)
        p += used
        while p < n and s[p] in WHITESPACE:
            p += 1
        if tag:
            if p >= n or s[p] != ":":
                raise malformed_gtid(text, p)
            p += 1
            while p < n and s[p] in WHITESPACE:
                p += 1
        gno, end = parse_gno_at(s, p)
        if gno <= 0:
            raise malformed_gtid(text, p)
        p = end
        while p < n and s[p] in WHITESPACE:
            p += 1
        if p != n:
            raise malformed_gtid(text, p)
        return cls(UUID(bytes=raw), gno, tag)

    def __str__(self) -> str:
        if self.tag:
            return f"{self.sid}:{self.tag}:{self.gno}"
        return f"{self.sid}:{self.gno}"

    @property
    def tsid(self) -> tuple[UUID, str]:
        """The ``(sid, tag)`` pair this GTID belongs to."""
        return (self.sid, self.tag)
