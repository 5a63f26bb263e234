"""MySQL 8.4's character sets: name, default collation (name and id), maxlen, and the Python codec that carries
each one's bytes to and from the engine's text (Python ``str``).

Sources: RM 8.4 "Character Sets and Collations Supported by MySQL" (``SHOW CHARACTER SET``: 41 sets, their
default collation and Maxlen), the collation ids of ``SHOW COLLATION`` / ``INFORMATION_SCHEMA.COLLATIONS`` (the ids
a client sends in its HandshakeResponse and a server puts in column definitions), RM 8.4 "Connection Character
Sets and Collations" (``SET NAMES``, ``character_set_client`` / ``_connection`` / ``_results``; ucs2, utf16,
utf16le and utf32 "cannot be used as a client character set").

MySQL's ``latin1`` is cp1252, with the five bytes cp1252 leaves undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D) mapped to
the code points of the same value (RM 8.4 "West European Character Sets"), so every byte string is valid latin1;
:func:`decode` / :func:`encode` implement exactly that. Single-byte sets Python has no codec for (armscii8, dec8,
geostd8, hp8, keybcs2, swe7) map byte ``n`` to code point ``n``: their bytes round-trip unchanged and each byte is
one character, but the characters shown are not the set's own (a deliberate, documented difference).
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

from gtidkit.errors import MySQLError
from gtidkit.mysql_errors import mysql_error


@dataclass(frozen=True, slots=True)
class Charset:
    """One character set as ``SHOW CHARACTER SET`` lists it, plus how its bytes become text here.

    Attributes:
        name: MySQL's name (``utf8mb4``, ``latin1``).
        default_collation: the 8.4 default collation's name.
        collation_id: that collation's id (``SHOW COLLATION``'s Id; what column definitions carry).
        maxlen: the most bytes one character takes.
        codec: the Python codec of its bytes; None for ``binary`` (bytes are not converted).
        client_ok: allowed as ``character_set_client`` (not ucs2 / utf16 / utf16le / utf32).
    """

    name: str
    default_collation: str
    collation_id: int
    maxlen: int
    codec: str | None
    client_ok: bool = True


#: ``mysql-latin1``: cp1252 with its five undefined bytes as the code points of the same value.
_LATIN1_TABLE = "".join(
    bytes([b]).decode("cp1252") if b not in (0x81, 0x8D, 0x8F, 0x90, 0x9D) else chr(b) for b in range(256)
)
_LATIN1_ENCODING = codecs.charmap_build(_LATIN1_TABLE)

_SETS = (
    Charset("armscii8", "armscii8_general_ci", 32, 1, "latin-1"),
    Charset("ascii", "ascii_general_ci", 11, 1, "ascii"),
    Charset("big5", "big5_chinese_ci", 1, 2, "big5"),
    Charset("binary", "binary", 63, 1, None),
    Charset("cp1250", "cp1250_general_ci", 26, 1, "cp1250"),
    Charset("cp1251", "cp1251_general_ci", 51, 1, "cp1251"),
    Charset("cp1256", "cp1256_general_ci", 57, 1, "cp1256"),
    Charset("cp1257", "cp1257_general_ci", 59, 1, "cp1257"),
    Charset("cp850", "cp850_general_ci", 4, 1, "cp850"),
    Charset("cp852", "cp852_general_ci", 40, 1, "cp852"),
    Charset("cp866", "cp866_general_ci", 36, 1, "cp866"),
    Charset("cp932", "cp932_japanese_ci", 95, 2, "cp932"),
    Charset("dec8", "dec8_swedish_ci", 3, 1, "latin-1"),
    Charset("eucjpms", "eucjpms_japanese_ci", 97, 3, "euc_jp"),
    Charset("euckr", "euckr_korean_ci", 19, 2, "euc_kr"),
    Charset("gb18030", "gb18030_chinese_ci", 248, 4, "gb18030"),
    Charset("gb2312", "gb2312_chinese_ci", 24, 2, "gb2312"),
    Charset("gbk", "gbk_chinese_ci", 28, 2, "gbk"),
    Charset("geostd8", "geostd8_general_ci", 92, 1, "latin-1"),
    Charset("greek", "greek_general_ci", 25, 1, "iso8859_7"),
    Charset("hebrew", "hebrew_general_ci", 16, 1, "iso8859_8"),
    Charset("hp8", "hp8_english_ci", 6, 1, "latin-1"),
    Charset("keybcs2", "keybcs2_general_ci", 37, 1, "latin-1"),
    Charset("koi8r", "koi8r_general_ci", 7, 1, "koi8_r"),
    Charset("koi8u", "koi8u_general_ci", 22, 1, "koi8_u"),
    Charset("latin1", "latin1_swedish_ci", 8, 1, "mysql-latin1"),
    Charset("latin2", "latin2_general_ci", 9, 1, "iso8859_2"),
    Charset("latin5", "latin5_turkish_ci", 30, 1, "iso8859_9"),
    Charset("latin7", "latin7_general_ci", 41, 1, "iso8859_13"),
    Charset("macce", "macce_general_ci", 38, 1, "mac_latin2"),
    Charset("macroman", "macroman_general_ci", 39, 1, "mac_roman"),
    Charset("sjis", "sjis_japanese_ci", 13, 2, "shift_jis"),
    Charset("swe7", "swe7_swedish_ci", 10, 1, "latin-1"),
    Charset("tis620", "tis620_thai_ci", 18, 1, "tis_620"),
    Charset("ucs2", "ucs2_general_ci", 35, 2, "utf-16-be", client_ok=False),
    Charset("ujis", "ujis_japanese_ci", 12, 3, "euc_jp"),
    Charset("utf16", "utf16_general_ci", 54, 4, "utf-16-be", client_ok=False),
    Charset("utf16le", "utf16le_general_ci", 56, 4, "utf-16-le", client_ok=False),
    Charset("utf32", "utf32_general_ci", 60, 4, "utf-32-be", client_ok=False),
    Charset("utf8mb3", "utf8mb3_general_ci", 33, 3, "utf-8"),
    Charset("utf8mb4", "utf8mb4_0900_ai_ci", 255, 4, "utf-8"),
)
#: name -> Charset (``utf8`` is 8.4's alias of ``utf8mb3``).
CHARSETS: dict[str, Charset] = {c.name: c for c in _SETS}
CHARSETS["utf8"] = CHARSETS["utf8mb3"]

#: Collation id -> its character set, for the ids clients send (each set's collations that PyMySQL and
#: mysql-connector-python know; ids of ``SHOW COLLATION``).
_EXTRA_COLLATIONS = {
    "latin1": (5, 15, 31, 47, 48, 49, 94),
    "utf8mb4": (
        45,
        46,
        224,
        225,
        226,
        227,
        228,
        229,
        230,
        231,
        232,
        233,
        234,
        235,
        236,
        237,
        238,
        239,
        240,
        241,
        242,
        243,
        244,
        245,
        246,
        247,
        255,
        *range(256, 324),
    ),
    "utf8mb3": (33, 76, 83, *range(192, 216), 223),
    "ascii": (11, 65),
    "binary": (63,),
    "cp1251": (14, 23, 50, 51, 52),
    "cp1250": (26, 34, 44, 66, 99),
    "latin2": (2, 9, 21, 27, 77),
    "gbk": (28, 87),
    "big5": (1, 84),
    "sjis": (13, 88),
    "euckr": (19, 85),
    "gb2312": (24, 86),
    "koi8r": (7, 74),
    "greek": (25, 70),
    "hebrew": (16, 71),
    "cp850": (4, 80),
    "cp866": (36, 68),
    "tis620": (18, 89),
    "ujis": (12, 91),
    "cp932": (95, 96),
    "eucjpms": (97, 98),
    "gb18030": (248, 249, 250),
    "latin5": (30, 78),
    "latin7": (20, 41, 42, 79),
    "koi8u": (22, 75),
    "cp1256": (57, 67),
    "cp1257": (29, 58, 59),
    "cp852": (40, 81),
    "macce": (38, 43),
    "macroman": (39, 53),
    "armscii8": (32, 64),
    "dec8": (3, 69),
    "hp8": (6, 72),
    "keybcs2": (37, 73),
    "swe7": (10, 82),
    "geostd8": (92, 93),
}
COLLATION_CHARSETS: dict[int, Charset] = {c.collation_id: c for c in _SETS}
for _name, _ids in _EXTRA_COLLATIONS.items():
    for _id in _ids:
        COLLATION_CHARSETS.setdefault(_id, CHARSETS[_name])


#: Collation name -> id for the non-default collations of the common sets (``SHOW COLLATION``'s Id); each set's
#: default collation comes from :data:`CHARSETS`.
_COLLATION_IDS = {
    "utf8mb4_general_ci": 45,
    "utf8mb4_bin": 46,
    "utf8mb4_unicode_ci": 224,
    "utf8mb4_0900_as_cs": 278,
    "utf8mb4_0900_as_ci": 305,
    "utf8mb4_0900_bin": 309,
    "utf8mb3_bin": 83,
    "utf8mb3_unicode_ci": 192,
    "latin1_german1_ci": 5,
    "latin1_danish_ci": 15,
    "latin1_german2_ci": 31,
    "latin1_bin": 47,
    "latin1_general_ci": 48,
    "latin1_general_cs": 49,
    "latin1_spanish_ci": 94,
    "ascii_bin": 65,
    **{c.default_collation: c.collation_id for c in _SETS},
}


def collation_id(name: str | None) -> int:
    """The id of collation ``name`` (``utf8_`` spelled ``utf8mb3_``); 255 (utf8mb4_0900_ai_ci) for None, and the
    id of its set's default collation for a collation this table does not list."""
    if not name:
        return 255
    low = name.lower()
    if low.startswith("utf8_"):
        low = "utf8mb3_" + low[5:]
    cid = _COLLATION_IDS.get(low)
    if cid is not None:
        return cid
    cs = CHARSETS.get(low.split("_")[0])
    return cs.collation_id if cs is not None else 255


def collation_ids() -> dict[str, int]:
    """Collation name -> id for the collations gtidkit knows (``SHOW COLLATION``'s Name and Id)."""
    return dict(_COLLATION_IDS)


def collation_set(name: str) -> Charset | None:
    """The character set collation ``name`` belongs to (its listed id's set, else the set its name starts with:
    MySQL names every collation ``<set>_...``, and ``binary`` is the binary set's); None when neither is known."""
    low = str(name).strip().lower()
    if low.startswith("utf8_"):
        low = "utf8mb3_" + low[5:]
    cid = _COLLATION_IDS.get(low)
    if cid is not None:
        return COLLATION_CHARSETS.get(cid)
    return CHARSETS.get(low) if low == "binary" else CHARSETS.get(low.split("_")[0]) if "_" in low else None


def lookup(name: str) -> Charset:
    """The character set called ``name`` (any case; ``utf8`` = ``utf8mb3``).

    Raises:
        MySQLError: 1115 ER_UNKNOWN_CHARACTER_SET.
    """
    cs = CHARSETS.get(str(name).strip().lower())
    if cs is None:
        raise mysql_error(1115, name)
    return cs


def for_collation_id(collation_id: int) -> Charset | None:
    """The character set of collation ``collation_id`` (a HandshakeResponse's), or None when unknown."""
    return COLLATION_CHARSETS.get(collation_id)


def is_utf8(name: str | None) -> bool:
    """``name`` is a UTF-8 set (utf8mb4, utf8mb3, utf8): the engine's own text, nothing to convert."""
    return name is not None and str(name).lower() in ("utf8mb4", "utf8mb3", "utf8")


def decode(data: bytes, name: str) -> str:
    """Text of ``data`` written in character set ``name``; bytes the set cannot hold become U+FFFD (binary and
    UTF-8 keep undecodable bytes as surrogate escapes, so they reach the engine unchanged).

    Raises:
        MySQLError: 1115 for an unknown set.
    """
    cs = lookup(name)
    if cs.codec is None or cs.codec == "utf-8":
        return data.decode("utf-8", "surrogateescape")
    if cs.codec == "mysql-latin1":
        return codecs.charmap_decode(data, "strict", _LATIN1_TABLE)[0]
    return data.decode(cs.codec, "replace")


def encode(text: str, name: str) -> bytes:
    """The bytes of ``text`` in character set ``name``; characters it cannot hold become ``?`` as MySQL's
    conversion does (``binary`` and UTF-8 sets give the UTF-8 bytes).

    Raises:
        MySQLError: 1115 for an unknown set.
    """
    cs = lookup(name)
    if cs.codec is None or cs.codec == "utf-8":
        return text.encode("utf-8", "surrogateescape")
    if cs.codec == "mysql-latin1":
        return codecs.charmap_encode(text, "replace", _LATIN1_ENCODING)[0]
    return text.encode(cs.codec, "replace")


__all__ = [
    "CHARSETS",
    "COLLATION_CHARSETS",
    "Charset",
    "MySQLError",
    "collation_id",
    "collation_set",
    "decode",
    "encode",
    "for_collation_id",
    "is_utf8",
    "lookup",
]
