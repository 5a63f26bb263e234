"""The character-set table (gtidkit.engine.charsets) against MySQL 8.4's ``SHOW CHARACTER SET`` (RM 8.4
"Character Sets and Collations Supported by MySQL": 41 sets, default collation, Maxlen) and its latin1, which is
cp1252 with the five undefined bytes kept as the code points of the same value (RM 8.4 "West European Character
Sets")."""

from __future__ import annotations

import pytest

from gtidkit.engine import charsets
from gtidkit.errors import MySQLError

# (Charset, Default collation, Maxlen) rows of RM 8.4's SHOW CHARACTER SET
SHOW_CHARACTER_SET = [
    ("armscii8", "armscii8_general_ci", 1),
    ("ascii", "ascii_general_ci", 1),
    ("big5", "big5_chinese_ci", 2),
    ("binary", "binary", 1),
    ("cp1250", "cp1250_general_ci", 1),
    ("cp1251", "cp1251_general_ci", 1),
    ("cp1256", "cp1256_general_ci", 1),
    ("cp1257", "cp1257_general_ci", 1),
    ("cp850", "cp850_general_ci", 1),
    ("cp852", "cp852_general_ci", 1),
    ("cp866", "cp866_general_ci", 1),
    ("cp932", "cp932_japanese_ci", 2),
    ("dec8", "dec8_swedish_ci", 1),
    ("eucjpms", "eucjpms_japanese_ci", 3),
    ("euckr", "euckr_korean_ci", 2),
    ("gb18030", "gb18030_chinese_ci", 4),
    ("gb2312", "gb2312_chinese_ci", 2),
    ("gbk", "gbk_chinese_ci", 2),
    ("geostd8", "geostd8_general_ci", 1),
    ("greek", "greek_general_ci", 1),
    ("hebrew", "hebrew_general_ci", 1),
    ("hp8", "hp8_english_ci", 1),
    ("keybcs2", "keybcs2_general_ci", 1),
    ("koi8r", "koi8r_general_ci", 1),
    ("koi8u", "koi8u_general_ci", 1),
    ("latin1", "latin1_swedish_ci", 1),
    ("latin2", "latin2_general_ci", 1),
    ("latin5", "latin5_turkish_ci", 1),
    ("latin7", "latin7_general_ci", 1),
    ("macce", "macce_general_ci", 1),
    ("macroman", "macroman_general_ci", 1),
    ("sjis", "sjis_japanese_ci", 2),
    ("swe7", "swe7_swedish_ci", 1),
    ("tis620", "tis620_thai_ci", 1),
    ("ucs2", "ucs2_general_ci", 2),
    ("ujis", "ujis_japanese_ci", 3),
    ("utf16", "utf16_general_ci", 4),
    ("utf16le", "utf16le_general_ci", 4),
    ("utf32", "utf32_general_ci", 4),
    ("utf8mb3", "utf8mb3_general_ci", 3),
    ("utf8mb4", "utf8mb4_0900_ai_ci", 4),
]


def test_table_is_show_character_set() -> None:
    assert len(SHOW_CHARACTER_SET) == 41
    for name, collation, maxlen in SHOW_CHARACTER_SET:
        cs = charsets.lookup(name)
        assert (cs.name, cs.default_collation, cs.maxlen) == (name, collation, maxlen)


def test_utf8_is_utf8mb3_and_names_fold_case() -> None:
    assert charsets.lookup("UTF8").name == "utf8mb3"
    assert charsets.lookup("Latin1").name == "latin1"


def test_unknown_set_is_1115() -> None:
    with pytest.raises(MySQLError) as err:
        charsets.lookup("klingon")
    assert (err.value.code, err.value.message) == (1115, "Unknown character set: 'klingon'")


def test_client_sets() -> None:
    # RM 8.4: ucs2, utf16, utf16le and utf32 cannot be used as a client character set
    assert {c.name for c in charsets.CHARSETS.values() if not c.client_ok} == {
        "ucs2",
        "utf16",
        "utf16le",
        "utf32",
    }


def test_latin1_is_cp1252_with_every_byte_defined() -> None:
    every = bytes(range(256))
    text = charsets.decode(every, "latin1")
    assert len(text) == 256
    assert text[0x80] == "€" and text[0x9F] == "Ÿ" and text[0xE9] == "é"
    assert [text[b] for b in (0x81, 0x8D, 0x8F, 0x90, 0x9D)] == ["\x81", "\x8d", "\x8f", "\x90", "\x9d"]
    assert charsets.encode(text, "latin1") == every
    assert charsets.encode("a→b", "latin1") == b"a?b"


def test_handshake_collation_ids() -> None:
    # SHOW COLLATION ids: 8 latin1_swedish_ci, 51 cp1251_general_ci, 255 utf8mb4_0900_ai_ci, 45
    # utf8mb4_general_ci, 33 utf8mb3_general_ci, 63 binary
    ids = {8: "latin1", 51: "cp1251", 255: "utf8mb4", 45: "utf8mb4", 33: "utf8mb3", 63: "binary"}
    for cid, name in ids.items():
        found = charsets.for_collation_id(cid)
        assert found is not None and found.name == name
    assert charsets.for_collation_id(2000) is None
