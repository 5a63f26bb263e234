"""Server UUIDs (SIDs) and GTID tags: parse, format, normalise.

A SID is a :class:`uuid.UUID` (16 bytes, printed as 36 lowercase chars ``8-4-4-4-12``). A tag (MySQL 8.3+) is
``""`` (untagged) or 1..32 characters ``[a-z_][a-z0-9_]*``, case-folded to lowercase. Sources: MySQL
``libs/mysql/gtid/uuid.cpp`` (``Uuid::parse`` with ``TEXT_LENGTH`` 36: dashes at fixed positions only),
``libs/mysql/gtid/tag.cpp`` (``Tag::from_cstring``, ``tag_max_length`` = 32).
"""

from __future__ import annotations

import re
from uuid import UUID

__all__ = [
    "TAG_MAX_LENGTH",
    "UUID_TEXT_LENGTH",
    "WHITESPACE",
    "Sid",
    "format_sid",
    "is_valid_tag",
    "normalize_tag",
    "parse_sid",
    "parse_sid_at",
    "scan_tag",
    "sid_bytes",
]

Sid = UUID

#: Characters C's ``isspace`` accepts in the "C" locale; MySQL's parsers skip exactly these.
WHITESPACE = " \t\n\v\f\r"
#: ``Tag::tag_max_length``.
TAG_MAX_LENGTH = 32
#: ``Uuid::TEXT_LENGTH``.
UUID_TEXT_LENGTH = 36

_HEX = frozenset("0123456789abcdefABCDEF")
_DASHES = (8, 13, 18, 23)
_UUID_RE = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_TAG_FIRST = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_TAG_REST = _TAG_FIRST | frozenset("0123456789")
_TAG_RE = re.compile(r"[a-z_][a-z0-9_]{0,31}")


def parse_sid_at(text: str, pos: int) -> bytes | None:
    """Parse the 36-char dashed UUID at ``text[pos:]``; return its 16 bytes or None if malformed.

    Follows ``Uuid::parse(s, TEXT_LENGTH)``: exactly ``8-4-4-4-12`` hex digits (either case), no braces.
    """
    chunk = text[pos : pos + UUID_TEXT_LENGTH]
    if _UUID_RE.fullmatch(chunk) is None:
        return None
    return bytes.fromhex(chunk.replace("-", ""))


def parse_sid(text: str) -> UUID:
    """Parse a server UUID (36-char dashed form, either case).

    Raises:
        ValueError: if ``text`` is not exactly a dashed UUID.
    """
    raw = parse_sid_at(text, 0) if len(text) == UUID_TEXT_LENGTH else None
    if raw is None:
        raise ValueError(f"malformed server UUID {text!r}")
    return UUID(bytes=raw)


def format_sid(raw: bytes) -> str:
    """Format 16 SID bytes as MySQL prints them: lowercase ``8-4-4-4-12``."""
    return str(UUID(bytes=raw))


def sid_bytes(sid: UUID | str | bytes) -> bytes:
    """The 16 bytes of a SID given as UUID, text, or bytes.

    Raises:
        ValueError: for malformed text or a bytes value that is not 16 bytes long.
    """
    if isinstance(sid, UUID):
        return sid.bytes
    if isinstance(sid, str):
        return parse_sid(sid).bytes
    if isinstance(sid, (bytes, bytearray, memoryview)) and len(sid) == 16:
        return bytes(sid)
    raise ValueError(f"not a server UUID: {sid!r}")


def scan_tag(text: str, pos: int) -> tuple[int, str]:
    """Run MySQL's ``Tag::from_cstring`` at ``text[pos:]``.

    Skips whitespace, reads up to 32 tag characters (first ``[A-Za-z_]``, then ``[A-Za-z0-9_]``), skips
    whitespace, and requires ``:``, ``,`` or end of text next. Returns ``(characters consumed, lowercase tag)``;
    ``(0, "")`` when the text there is not a tag. Note MySQL's quirk, kept here: only whitespace before a
    separator (``" :"``) reads as an *empty* tag and consumes those characters.
    """
    n = len(text)
    p = pos
    while p < n and text[p] in WHITESPACE:
        p += 1
    start = p
    if p < n and text[p] in _TAG_FIRST:
        p += 1
        while p < n and text[p] in _TAG_REST and p - start < TAG_MAX_LENGTH:
            p += 1
    end = p
    while p < n and text[p] in WHITESPACE:
        p += 1
    if p < n and text[p] not in ":,":
        return 0, ""
    return p - pos, text[start:end].lower()


def normalize_tag(tag: str) -> str:
    """Validate and normalise a tag the way ``Tag::from_string`` does: trim whitespace, lower-case.

    ``""`` (or whitespace only) is the empty tag (an untagged GTID).

    Raises:
        ValueError: if the trimmed text is not ``[A-Za-z_][A-Za-z0-9_]*`` of at most 32 characters.
        TypeError: if ``tag`` is not a str.
    """
    if not isinstance(tag, str):
        raise TypeError(f"tag must be a str, not {type(tag).__name__}")
    t = tag.strip(WHITESPACE).lower()
    if t == "":
        return ""
    if _TAG_RE.fullmatch(t) is None:
        raise ValueError(f"malformed GTID tag {tag!r} (1..32 chars [a-z_][a-z0-9_]*)")
    return t


def is_valid_tag(tag: str) -> bool:
    """True if ``tag`` is already normal: ``""`` or 1..32 chars ``[a-z_][a-z0-9_]*``."""
    return tag == "" or _TAG_RE.fullmatch(tag) is not None
