"""Primary weights of ``utf8mb4_0900_ai_ci`` (UCA 9.0.0's DUCET, no tailoring) and MySQL's hash over them.

MySQL 8.0's ``utf8mb4_0900_ai_ci`` compares at the primary level only (``levels_for_compare`` 1), with the weights
of the Unicode 9.0.0 Default Unicode Collation Element Table (``allkeys.txt``) as its ``uca900`` scanner reads them
(``strings/ctype-uca.cc``, ``uca_scanner_900::next_raw`` / ``more_weight`` / ``next_implicit``):

* a code point listed in the DUCET gives the primary weights of its collation elements, zeros skipped; a code point
  whose first element has primary weight 0 (an accent, a control) gives none at all;
* a Hangul syllable (U+AC00..U+D7A3) is its jamo L, V [, T] (each the first primary weight of its own entry);
* any other code point gets the implicit weights ``page, (cp & 0x7FFF) | 0x8000`` with ``page`` 0xFB40 + cp >> 15
  for the CJK unified ideographs (U+4E00..U+9FD5, U+FA0E..U+FA29), 0xFB80 + cp >> 15 for the extensions A..E,
  0xFB00 with ``(cp - 0x17000) | 0x8000`` for Tangut, else 0xFBC0 + cp >> 15.

mysql-test ``r/ctype_unicode900.result`` shows them: ``WEIGHT_STRING('abc')`` is ``1C471C601C7A``,
``WEIGHT_STRING('aA')`` ``1C471C47``, U+337F ``FB40E82AFB40DF0FFB40CF1AFB40F93E`` (its four ideographs' implicit
weights), U+FDFA ``2364239C23C50209230B239C239C23B1``.

``my_hash_sort_uca_900`` hashes a string as FNV-1a over its 16-bit weights: ``h = nr1 ^ 14695981039346656037``,
then per weight ``h ^= w; h *= 1099511628211`` (64 bits); the second seed is not used. The table is read from the
``allkeys-9.0.0.txt`` that the ``pyuca`` package ships (the Unicode Consortium's file); without it, weights are
unavailable (:func:`available` is False).
"""

from __future__ import annotations

import functools
import re
from importlib import resources

__all__ = ["available", "hash_sort", "primary_weights"]

_U64 = 2**64 - 1
_FNV_OFFSET = 14695981039346656037
_FNV_PRIME = 1099511628211
_LINE = re.compile(r"^([0-9A-F]{4,6})\s*;\s*((?:\[[.*][0-9A-F]{4}\.[0-9A-F]{4}\.[0-9A-F]{4}\])+)")
_ELEMENT = re.compile(r"\[[.*]([0-9A-F]{4})\.")
#: Hangul syllables and their jamo (Unicode 9.0 3.12 "Conjoining Jamo Behavior")
_S_BASE, _S_COUNT, _L_BASE, _V_BASE, _T_BASE, _V_COUNT, _T_COUNT = (
    0xAC00,
    11172,
    0x1100,
    0x1161,
    0x11A7,
    21,
    28,
)
#: ideograph ranges of ``next_implicit`` (UCA 9.0.0's Unified_Ideograph blocks as MySQL lists them)
_CORE_HAN = ((0x4E00, 0x9FD5), (0xFA0E, 0xFA29))
_EXT_HAN = ((0x3400, 0x4DB5), (0x20000, 0x2A6D6), (0x2A700, 0x2B734), (0x2B740, 0x2B81D), (0x2B820, 0x2CEA1))


@functools.cache
def _table() -> dict[int, tuple[int, ...]] | None:
    """Code point -> the primary weights of its DUCET 9.0.0 collation elements (zeros kept), None without the
    file. Multi-code-point entries (contractions) are not read."""
    try:
        text = resources.files("pyuca").joinpath("allkeys-9.0.0.txt").read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError, OSError):
        return None
    table: dict[int, tuple[int, ...]] = {}
    for line in text.splitlines():
        m = _LINE.match(line)
        if m is not None:
            table[int(m.group(1), 16)] = tuple(int(w, 16) for w in _ELEMENT.findall(m.group(2)))
    return table


def available() -> bool:
    """Whether the DUCET 9.0.0 weights can be read (the ``pyuca`` package is installed)."""
    return _table() is not None


def _implicit(cp: int) -> tuple[int, int]:
    if 0x17000 <= cp <= 0x18AFF:  # Tangut
        return 0xFB00, (cp - 0x17000) | 0x8000
    if any(lo <= cp <= hi for lo, hi in _EXT_HAN):
        base = 0xFB80
    elif any(lo <= cp <= hi for lo, hi in _CORE_HAN):
        base = 0xFB40
    else:
        base = 0xFBC0
    return base + (cp >> 15), (cp & 0x7FFF) | 0x8000


def primary_weights(text: str) -> list[int]:
    """The primary weights ``utf8mb4_0900_ai_ci`` gives ``text`` (what ``WEIGHT_STRING`` shows, as numbers).

    Raises:
        RuntimeError: the DUCET table is unavailable (see :func:`available`).
    """
    table = _table()
    if table is None:
        raise RuntimeError("utf8mb4_0900_ai_ci weights need the pyuca package's allkeys-9.0.0.txt")
    out: list[int] = []
    for ch in text:
        cp = ord(ch)
        entry = table.get(cp)
        if entry is not None:
            if entry[0]:
                out.extend(w for w in entry if w)
            continue
        if _S_BASE <= cp < _S_BASE + _S_COUNT:
            s = cp - _S_BASE
            jamo = [_L_BASE + s // (_V_COUNT * _T_COUNT), _V_BASE + (s % (_V_COUNT * _T_COUNT)) // _T_COUNT]
            if s % _T_COUNT:
                jamo.append(_T_BASE + s % _T_COUNT)
            out.extend(w for j in jamo if (w := table.get(j, (0,))[0]))
            continue
        out.extend(_implicit(cp))
    return out


def hash_sort(text: str, nr1: int) -> int:
    """``my_hash_sort_uca_900``: the new ``nr1`` (64 bits) after hashing ``text``'s primary weights.

    Raises:
        RuntimeError: the DUCET table is unavailable.
    """
    h = nr1 ^ _FNV_OFFSET
    for w in primary_weights(text):
        h = ((h ^ w) * _FNV_PRIME) & _U64
    return h
