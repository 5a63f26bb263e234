"""MySQL string functions SQLite lacks or computes differently, as SQLite UDFs.

Every function returns NULL when an argument that the manual names as NULL-propagating is NULL. Comparisons
that MySQL makes under the connection collation (STRCMP, FIELD, FIND_IN_SET) fold case, as the default
``utf8mb4_0900_ai_ci`` does; accent folding is a known gap shared with the rest of the engine.
Source: MySQL 8.4 Reference Manual, "String Functions and Operators" and "String Comparison Functions"
(https://dev.mysql.com/doc/refman/8.4/en/string-functions.html,
https://dev.mysql.com/doc/refman/8.4/en/string-comparison-functions.html).
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

from gtidkit.engine.sql.encoding_functions import hex_
from gtidkit.engine.sql.function_table import register, rows_from
from gtidkit.engine.sql.functions_args import check_count, ranged, to_bytes, to_int, to_number, to_text

__all__ = [
    "STRING_FUNCTIONS",
    "char_",
    "conv",
    "elt",
    "export_set",
    "field",
    "find_in_set",
    "format_",
    "hex_",
    "insert",
    "make_set",
    "octet_length",
    "ord_",
    "quote",
    "soundex",
    "strcmp",
    "substring",
    "substring_index",
    "substring_len",
    "trim",
]

_U64 = 1 << 64
_DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _fold(v: Any) -> Any:
    """Comparison key under the default case-insensitive collation (binary strings compare by bytes)."""
    return v if isinstance(v, bytes) else to_text(v).casefold()


def octet_length(s: Any) -> int | None:
    """``LENGTH(str)`` / ``OCTET_LENGTH(str)``: the length in bytes (a 2-byte ``'é'`` counts 2); NULL -> NULL."""
    return None if s is None else len(to_bytes(s))


def bit_length(s: Any) -> int | None:
    """``BIT_LENGTH(str)``: the length in bits; NULL -> NULL (manual: ``BIT_LENGTH('text')`` -> 32)."""
    return None if s is None else 8 * len(to_bytes(s))


def strcmp(a: Any, b: Any) -> int | None:
    """``STRCMP(expr1, expr2)``: 0 when equal under the collation, -1 when ``expr1`` sorts first, else 1; NULL if
    either is NULL."""
    if a is None or b is None:
        return None
    ka, kb = _fold(a), _fold(b)
    if isinstance(ka, bytes) != isinstance(kb, bytes):
        ka, kb = to_bytes(a), to_bytes(b)
    return 0 if ka == kb else (-1 if ka < kb else 1)


def field(*args: Any) -> int:
    """``FIELD(str, str1, str2, ...)``: 1-based index of ``str`` in the list, 0 when absent or ``str`` is NULL.

    All strings compare as strings, all numbers as numbers, anything else as doubles (manual).

    Raises:
        MySQLError: 1582 with fewer than two arguments.
    """
    check_count("field", args, 2)
    key, items = args[0], args[1:]
    if key is None:
        return 0
    values = [v for v in args if v is not None]
    as_strings = all(isinstance(v, (str, bytes)) for v in values)
    for i, v in enumerate(items, 1):
        if v is None:
            continue
        if as_strings:
            if _fold(key) == _fold(v):
                return i
        elif float(to_number(key)) == float(to_number(v)):
            return i
    return 0


def elt(*args: Any) -> Any:
    """``ELT(N, str1, str2, ...)``: the N-th string; NULL when N is NULL, below 1 or beyond the list.

    Raises:
        MySQLError: 1582 with fewer than two arguments.
    """
    check_count("elt", args, 2)
    if args[0] is None:
        return None
    n = to_int(args[0])
    return args[n] if 1 <= n < len(args) else None


def find_in_set(s: Any, strlist: Any) -> int | None:
    """``FIND_IN_SET(str, strlist)``: 1-based position of ``str`` in the comma-separated ``strlist``; 0 when absent
    or ``strlist`` is empty; NULL if either argument is NULL."""
    if s is None or strlist is None:
        return None
    needle, text = _fold(to_text(s)), to_text(strlist)
    if not text or "," in needle:
        return 0
    for i, item in enumerate(text.split(","), 1):
        if _fold(item) == needle:
            return i
    return 0


def insert(s: Any, pos: Any, length: Any, new: Any) -> Any:
    """``INSERT(str, pos, len, newstr)``: ``str`` with the ``len`` characters at ``pos`` replaced by ``newstr``;
    ``str`` unchanged when ``pos`` is outside it; the rest replaced when ``len`` runs past the end; NULL if any
    argument is NULL."""
    if s is None or pos is None or length is None or new is None:
        return None
    text, p, n = to_text(s), to_int(pos), to_int(length)
    if p < 1 or p > len(text):
        return text
    start = p - 1
    end = len(text) if n < 0 or start + n > len(text) else start + n
    return text[:start] + to_text(new) + text[end:]


def substring(s: Any, pos: Any) -> Any:
    """``SUBSTRING(str, pos)``: ``pos`` counts from 1, or from the end when negative; ``pos`` 0 or beyond the
    string gives ''; NULL if any argument is NULL (``SUBSTRING(str, pos, len)``: :func:`substring_len`)."""
    if s is None or pos is None:
        return None
    whole = s if isinstance(s, bytes) else to_text(s)
    p = to_int(pos)
    if p == 0 or abs(p) > len(whole):
        return whole[:0]
    start = p - 1 if p > 0 else len(whole) + p
    return whole[start:]


def substring_len(s: Any, pos: Any, length: Any) -> Any:
    """``SUBSTRING(str, pos, len)`` / ``MID(str, pos, len)``: :func:`substring`'s tail cut to ``len`` characters
    ('' when ``len`` is below 1); NULL if any argument is NULL."""
    if s is None or pos is None or length is None:
        return None
    tail = substring(s, pos)
    n = to_int(length)
    return tail[: max(n, 0)]


def substring_index(s: Any, delim: Any, count: Any) -> Any:
    """``SUBSTRING_INDEX(str, delim, count)``: the part of ``str`` before the ``count``-th ``delim`` (from the right
    when ``count`` is negative); a case-sensitive match; NULL if any argument is NULL."""
    if s is None or delim is None or count is None:
        return None
    text, d, n = to_text(s), to_text(delim), to_int(count)
    if n == 0 or not d:
        return ""
    parts = text.split(d)
    if n > 0:
        return d.join(parts[:n])
    return d.join(parts[n:])


def trim(position: str, s: Any, remstr: Any) -> Any:
    """``TRIM([BOTH | LEADING | TRAILING] remstr FROM str)``: ``str`` without the whole string ``remstr`` repeated
    at its start and/or end (``TRIM(TRAILING 'xyz' FROM 'barxxyz')`` -> ``'barx'``); NULL if either is NULL."""
    if s is None or remstr is None:
        return None
    text, rem = to_text(s), to_text(remstr)
    if not rem:
        return text
    if position in ("BOTH", "LEADING"):
        while text.startswith(rem):
            text = text[len(rem) :]
    if position in ("BOTH", "TRAILING"):
        while text.endswith(rem):
            text = text[: -len(rem)]
    return text


def locate(substr: Any, s: Any, pos: Any = 1) -> int | None:
    """``LOCATE(substr, str[, pos])`` / ``POSITION(substr IN str)``: 1-based position of the first ``substr`` at or
    after ``pos``, 0 when absent; NULL if any argument is NULL (manual: ``LOCATE('bar', 'foobarbar', 5)`` -> 7).
    Case-insensitive under the default collation, "case-sensitive only if at least one argument is a binary
    string" (manual)."""
    if substr is None or s is None or pos is None:
        return None
    p = to_int(pos)
    if isinstance(s, bytes) or isinstance(substr, bytes):  # case-sensitive only for a binary string (manual)
        data = to_bytes(s)
        return 0 if p < 1 or p > len(data) + 1 else data.find(to_bytes(substr), p - 1) + 1
    text = to_text(s)
    if p < 1 or p > len(text) + 1:
        return 0
    return _fold(text).find(_fold(to_text(substr)), p - 1) + 1


def format_(x: Any, d: Any, locale: Any = None) -> str | None:
    """``FORMAT(X, D[, locale])``: ``X`` rounded half away from zero to ``D`` decimals (0..30) with thousands
    separators ``'#,###,###.##'``; ``de_DE`` uses ``.`` and ``,`` the other way round. NULL if ``X`` or ``D`` is
    NULL."""
    if x is None or d is None:
        return None
    places = min(max(to_int(d), 0), 30)
    try:
        value = Decimal(repr(x)) if isinstance(x, float) else Decimal(str(to_number(x)))
        rounded = value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    except InvalidOperation:
        return None
    text = f"{rounded:,.{places}f}"
    if locale is not None and to_text(locale) in _COMMA_DECIMAL_LOCALES:
        text = text.replace(",", "\0").replace(".", ",").replace("\0", ".")
    return text


#: locales whose decimal point is a comma and thousands separator a period (MySQL's ``my_locale`` tables)
_COMMA_DECIMAL_LOCALES = frozenset({"de_DE", "es_ES", "it_IT", "nl_NL", "pt_BR", "id_ID", "da_DK", "tr_TR"})


def conv(n: Any, from_base: Any, to_base: Any) -> str | None:
    """``CONV(N, from_base, to_base)``: ``N`` read in ``from_base`` and written in ``to_base`` (2..36 in absolute
    value). A negative ``to_base`` writes a signed number, otherwise negatives wrap to 64 bits unsigned. NULL if
    any argument is NULL or a base is out of range (manual: ``CONV(-17,10,-18)`` -> ``'-H'``)."""
    if n is None or from_base is None or to_base is None:
        return None
    fb, tb = to_int(from_base), to_int(to_base)
    if not (2 <= abs(fb) <= 36 and 2 <= abs(tb) <= 36):
        return None
    text = to_text(n).strip().upper() if not isinstance(n, float) else str(int(n))
    negative = text.startswith("-")
    if text[:1] in "+-":
        text = text[1:]
    value = 0
    for ch in text:
        digit = _DIGITS.find(ch)
        if digit < 0 or digit >= abs(fb):
            break
        value = min(value * abs(fb) + digit, _U64 - 1)
    if negative:
        value = -value
    if tb < 0:
        if value >= 1 << 63:
            value -= _U64
        sign, value = ("-", -value) if value < 0 else ("", value)
    else:
        sign, value = "", value % _U64
    return sign + _in_base(value, abs(tb))


def _in_base(value: int, base: int) -> str:
    if value == 0:
        return "0"
    out = []
    while value:
        value, r = divmod(value, base)
        out.append(_DIGITS[r])
    return "".join(reversed(out))


def _int_in_base(n: Any, base: int) -> str | None:
    if n is None:
        return None
    return _in_base(to_int(n) % _U64, base)


def char_(*args: Any) -> bytes:
    """``CHAR(N, ...)``: the bytes of each integer, big-endian without leading zero bytes (``CHAR(256)`` is
    ``CHAR(1,0)``); NULL arguments are skipped; the result is a binary string."""
    out = bytearray()
    for a in args:
        if a is None:
            continue
        n = to_int(a) % (1 << 32)
        out += n.to_bytes(max(1, (n.bit_length() + 7) // 8), "big")
    return bytes(out)


def _char_using(*args: Any) -> str | None:
    """``CHAR(N, ... USING charset)``: :func:`char_` decoded (last argument: the character set name)."""
    data = char_(*args[:-1])
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def ascii_(s: Any) -> int | None:
    """``ASCII(str)``: the numeric value of the first byte; 0 for ''; NULL -> NULL."""
    if s is None:
        return None
    data = to_bytes(s)
    return data[0] if data else 0


def ord_(s: Any) -> int | None:
    """``ORD(str)``: the leftmost character's bytes as a big-endian number (its code for a 1-byte character);
    0 for ''; NULL -> NULL."""
    if s is None:
        return None
    if isinstance(s, bytes):
        return s[0] if s else 0
    text = to_text(s)
    return int.from_bytes(text[0].encode("utf-8"), "big") if text else 0


def quote(s: Any) -> str:
    """``QUOTE(str)``: ``str`` in single quotes with backslash, quote, NUL and Control+Z escaped; NULL gives the
    word ``NULL`` without quotes."""
    if s is None:
        return "NULL"
    text = to_text(s)
    text = text.replace("\\", "\\\\").replace("'", "\\'").replace("\0", "\\0").replace("\x1a", "\\Z")
    return f"'{text}'"


#: soundex digit of A..Z (vowels, H, W and Y are 0: they separate equal digits)
_SOUNDEX = dict(zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "01230120022455012623010202", strict=True))


def soundex(s: Any) -> str | None:
    """``SOUNDEX(str)``: the first letter and the digits of the following consonants, adjacent equal digits
    collapsed, padded with zeros to 4 characters and not truncated (manual: ``SOUNDEX('Quadratically')`` ->
    ``'Q36324'``); non-letters ignored; NULL -> NULL."""
    if s is None:
        return None
    letters = [c for c in to_text(s).upper() if c in _SOUNDEX]
    if not letters:
        return ""
    out, last = [letters[0]], _SOUNDEX[letters[0]]
    for c in letters[1:]:
        code = _SOUNDEX[c]
        if code != "0" and code != last:
            out.append(code)
        last = code
    return "".join(out).ljust(4, "0")


def make_set(bits: Any, *strs: Any) -> str | None:
    """``MAKE_SET(bits, str1, ...)``: the strings whose bit is set in ``bits``, comma-separated; NULL strings are
    left out; NULL ``bits`` -> NULL."""
    if bits is None:
        return None
    check_count("make_set", (bits, *strs), 2)
    b = to_int(bits) % _U64
    return ",".join(to_text(v) for i, v in enumerate(strs) if v is not None and b >> i & 1)


def export_set(bits: Any, on: Any, off: Any, sep: Any = ",", number: Any = 64) -> str | None:
    """``EXPORT_SET(bits, on, off[, separator[, number_of_bits]])``: ``on`` or ``off`` for each of the lowest
    ``number_of_bits`` bits (64 at most), lowest first; NULL if any argument is NULL."""
    if bits is None or on is None or off is None or sep is None or number is None:
        return None
    b, n = to_int(bits) % _U64, to_int(number)
    if n < 0 or n > 64:
        n = 64
    return to_text(sep).join(to_text(on) if b >> i & 1 else to_text(off) for i in range(n))


def _export_set_checked(*args: Any) -> str | None:
    check_count("export_set", args, 3, 5)
    return export_set(*args)


#: name -> (argument count, -1 for variadic; implementation), registered on every session connection
STRING_FUNCTIONS: dict[str, tuple[int, Callable[..., Any]]] = {
    "_GK_OCTET_LENGTH": (1, octet_length),
    "OCTET_LENGTH": (1, octet_length),
    "BIT_LENGTH": (1, bit_length),
    "STRCMP": (2, strcmp),
    "FIELD": (-1, field),
    "ELT": (-1, elt),
    "FIND_IN_SET": (2, find_in_set),
    "STUFF": (4, insert),
    "_GK_SUBSTRING": (2, substring),
    "_GK_SUBSTRING_LEN": (3, substring_len),
    "MID": (3, substring_len),
    "SUBSTRING_INDEX": (3, substring_index),
    "_GK_TRIM": (3, trim),
    "_GK_LOCATE": (-1, ranged("locate", 2, 3, locate)),
    "LOCATE": (-1, ranged("locate", 2, 3, locate)),
    "INSTR": (2, lambda s, substr: locate(substr, s)),
    "FORMAT": (-1, ranged("format", 2, 3, format_)),
    "CONV": (3, conv),
    "BIN": (1, lambda n: _int_in_base(n, 2)),
    "OCT": (1, lambda n: _int_in_base(n, 8)),
    "_GK_HEX": (1, hex_),
    "_GK_CHAR": (-1, char_),
    "_GK_CHAR_USING": (-1, ranged("char", 2, None, _char_using)),
    "ASCII": (1, ascii_),
    "ORD": (1, ord_),
    "QUOTE": (1, quote),
    "SOUNDEX": (1, soundex),
    "MAKE_SET": (-1, make_set),
    "EXPORT_SET": (-1, _export_set_checked),
}

register(*rows_from(STRING_FUNCTIONS))
