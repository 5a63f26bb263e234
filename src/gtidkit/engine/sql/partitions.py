"""Partition ids of rows in partitioned tables, for the partition information MySQL 8.0.16+ writes into rows
events (WL#12168): a v2 rows event's extra data ``PART (1) | partition_id (2 LE)``, plus ``source_partition_id
(2 LE)`` in an Update_rows event (the old row's partition), and one event per run of rows in the same partition.

The partitioning kinds computed here (RM8 24.2 "Partitioning Types"):

* ``[LINEAR] HASH(expr)``: HASH is ``MOD(expr, num)`` (its absolute value, ``get_part_id_hash``); LINEAR HASH the
  powers-of-two algorithm of 24.2.4.1;
* ``RANGE (expr)``: the first partition whose ``VALUES LESS THAN`` bound exceeds the value, NULL lowest;
* ``LIST (expr)``: the partition listing the value;
* ``RANGE COLUMNS (c1, c2, ...)``: the first partition whose bound tuple is greater than the row's tuple, compared
  column by column with MAXVALUE above everything (24.2.1.1 "RANGE COLUMNS partitioning": ``(5, 11) < (5, 12)``);
* ``LIST COLUMNS (c1, c2, ...)``: the partition listing the row's tuple (mysql-test ``partition_column.result``).

``expr`` is one column or one of the functions MySQL allows in partitioning expressions (24.6.3 "Partitioning
Limitations Relating to Functions") applied to one column: YEAR, MONTH, DAY / DAYOFMONTH, DAYOFYEAR, DAYOFWEEK,
WEEKDAY, QUARTER, TO_DAYS, TO_SECONDS, HOUR, MINUTE, SECOND, ABS, FLOOR, CEILING; a RANGE / LIST bound may be such a function of a
quoted constant (``VALUES LESS THAN (TO_DAYS('2001-01-01'))``). Strings in COLUMNS bounds compare case-insensitively
(the default collation's case folding; accents are not folded).

``[LINEAR] KEY (c1, ...)`` (``KEY ()``: the primary key's columns): MySQL hashes the columns' record bytes
(``Partition_helper::ph_calculate_key_hash_value``: nr1 = 1, nr2 = 4, per column ``Field::hash``, which for a NULL
does ``nr1 ^= (nr1 << 1) | 1`` and otherwise runs the field's collation's ``hash_sort`` over its bytes), keeps the low
32 bits and takes them modulo the partition count (``get_part_id_key``) or through the LINEAR algorithm. The
collation is the field's ``sort_charset()``: numeric fields, DATE and YEAR have ``my_charset_numeric`` (latin1_swedish_ci:
``my_hash_sort_simple``, trailing 0x20 bytes dropped and each byte through the Swedish sort order), DATETIME /
TIMESTAMP / TIME, ENUM / SET and BIT are binary (``my_hash_sort_bin``: ``nr1 ^= (((nr1 & 63) + nr2) * byte) +
(nr1 << 8); nr2 += 3``), strings their own collation (``*_bin``: the bytes without trailing spaces;
utf8mb4_0900_ai_ci: FNV-1a over UCA 9.0.0 primary weights, :mod:`gtidkit.engine.sql.uca900`). A CHAR hashes its
whole record (padded to its byte length), a VARCHAR its data, a BIT its value as 8 big-endian bytes. Checked against
mysql-test ``suite/parts/r/partition_{char,decimal,datetime,float}_innodb.result`` (rows returned partition by
partition) and ``partition_alter3_innodb.result`` (``KEY (f_int1)`` puts 3 in partition 2 of 3 and of 4, 6 of 8 and
0 of 7). ``SUBPARTITION BY [LINEAR] HASH / KEY`` gives partition id ``part * subpartitions + subpart``
(``get_part_id_for_sub``). Not computed (no partition information in the rows event): KEY over other collations
(utf8mb4_general_ci ...), KEY ALGORITHM=1, and expressions of more than one column.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from gtidkit.engine.sql import uca900

__all__ = ["MAXVALUE", "Scheme", "extra_data", "key_hash", "partition_function", "scheme_of"]

#: enum_extra_row_info_keylen::PART
_PART = 1
#: a RANGE bound above every value (``VALUES LESS THAN MAXVALUE``)
MAXVALUE = None
_HEAD = re.compile(r"^PARTITION\s+BY\s+(LINEAR\s+)?(HASH|RANGE|LIST|KEY)(\s+COLUMNS)?\s*\(", re.IGNORECASE)
_NAME = re.compile(r"^`?(\w+)`?$")
_CALL = re.compile(r"^(\w+)\s*\((.*)\)$", re.DOTALL)
_PARTITIONS = re.compile(r"^PARTITIONS\s+(\d+)\s*$", re.IGNORECASE)
_DEF_RANGE = re.compile(
    r"^PARTITION\s+`?\w+`?\s+VALUES\s+LESS\s+THAN\s*(.*?)(?:\s+ENGINE\s*=\s*\w+)?$", re.IGNORECASE | re.DOTALL
)
_DEF_LIST = re.compile(
    r"^PARTITION\s+`?\w+`?\s+VALUES\s+IN\s*(.*?)(?:\s+ENGINE\s*=\s*\w+)?$", re.IGNORECASE | re.DOTALL
)
_DATE = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d+)?)?$")
#: MySQL's day number of 0001-01-01 minus Python's ordinal of it (TO_DAYS('1995-05-01') is 728779)
_TO_DAYS_OFFSET = 365


def _parts(v: Any) -> tuple[int, int, int, int, int, int] | None:
    """(year, month, day, hour, minute, second) of a DATE / DATETIME value (storage form or text), None when it
    is none or a zero date (MySQL's functions give NULL there)."""
    if isinstance(v, _dt.datetime):
        return v.year, v.month, v.day, v.hour, v.minute, v.second
    if isinstance(v, _dt.date):
        return v.year, v.month, v.day, 0, 0, 0
    m = _DATE.match(str(v).strip())
    if m is None:
        return None
    y, mo, d = int(m.group(1)), int(m.group(2)), int(m.group(3))
    if mo == 0 or d == 0:
        return None
    h, mi, s = (int(m.group(i) or 0) for i in (4, 5, 6))
    return y, mo, d, h, mi, s


def _date_fn(
    fn: Callable[[_dt.date, tuple[int, int, int, int, int, int]], int],
) -> Callable[[Any], int | None]:
    def apply(v: Any) -> int | None:
        p = _parts(v)
        if p is None:
            return None
        try:
            day = _dt.date(p[0], p[1], p[2])
        except ValueError:
            return None
        return fn(day, p)

    return apply


_CLOCK = re.compile(r"^-?(?:(\d+) )?(\d+):(\d{1,2})(?::(\d{1,2}))?(?:\.\d+)?$")


def _clock(v: Any, part: int) -> int | None:
    """HOUR / MINUTE / SECOND (``part`` 0, 1, 2) of a TIME or DATETIME value (storage form or text): a TIME's
    hours may exceed 23 (``HOUR('-838:59:59')`` is 838), None for NULL or text that is neither."""
    if v is None:
        return None
    if isinstance(v, _dt.timedelta):
        total = abs(int(v.total_seconds()))
        return (total // 3600, total // 60 % 60, total % 60)[part]
    if isinstance(v, (_dt.datetime, _dt.time)):
        return (v.hour, v.minute, v.second)[part]
    text = str(v).strip()
    m = _CLOCK.match(text)
    if m is not None:
        hours = int(m.group(1) or 0) * 24 + int(m.group(2))
        return (hours, int(m.group(3)), int(m.group(4) or 0))[part]
    p = _parts(text)
    return None if p is None else p[3 + part]


def _to_days(day: _dt.date, _p: Any) -> int:
    return day.toordinal() + _TO_DAYS_OFFSET


#: the functions of one column MySQL allows in a partitioning expression that are computed here (RM8 24.6.3)
_FUNCTIONS: dict[str, Callable[[Any], int | None]] = {
    "YEAR": _date_fn(lambda d, p: p[0]),
    "MONTH": _date_fn(lambda d, p: p[1]),
    "DAY": _date_fn(lambda d, p: p[2]),
    "DAYOFMONTH": _date_fn(lambda d, p: p[2]),
    "DAYOFYEAR": _date_fn(lambda d, p: d.timetuple().tm_yday),
    "DAYOFWEEK": _date_fn(lambda d, p: (d.weekday() + 1) % 7 + 1),
    "WEEKDAY": _date_fn(lambda d, p: d.weekday()),
    "QUARTER": _date_fn(lambda d, p: (p[1] + 2) // 3),
    "TO_DAYS": _date_fn(_to_days),
    "TO_SECONDS": _date_fn(lambda d, p: _to_days(d, p) * 86400 + p[3] * 3600 + p[4] * 60 + p[5]),
    "HOUR": lambda v: _clock(v, 0),
    "MINUTE": lambda v: _clock(v, 1),
    "SECOND": lambda v: _clock(v, 2),
    "ABS": lambda v: None if v is None else abs(int(v)),
    "FLOOR": lambda v: None if v is None else math.floor(Decimal(str(v))),
    "CEILING": lambda v: None if v is None else math.ceil(Decimal(str(v))),
}


def partition_function(name: str) -> Callable[[Any], int | None] | None:
    """The partitioning function ``name`` (YEAR, TO_DAYS ...) as computed here, None for one that is not."""
    return _FUNCTIONS.get(name.upper())


#: pack length (bytes) of the integer types KEY partitioning hashes (catalog type name -> Field::pack_length)
_INT_WIDTHS = {"tinyint": 1, "smallint": 2, "mediumint": 3, "int": 4, "bigint": 8}
_U64 = 2**64 - 1
#: latin1_swedish_ci's sort order (``sort_order_latin1``) for 0xC0..0xDF: Swedish folding (Ä Æ -> '\\', Å -> '[',
#: Ö -> ']', Ü -> 'Y'); 0xE0..0xFF fold the same way except ÷ (F7) and ÿ (FF), which stay, and ø / þ (F8 / FE),
#: which fold to Ø / Þ (D8 / DE)
_SWEDISH_HIGH = b"AAAA\\[\\CEEEEIIIIDNOOOO]\xd7\xd8UUUYY\xde\xdf"


def _sort_order(high: bytes) -> bytes:
    """A 256-byte 8-bit sort order: a-z folded to A-Z, ``high`` for 0xC0..0xDF and (but ÷ ÿ) 0xE0..0xFF."""
    order = bytearray(range(256))
    for c in range(0x61, 0x7B):
        order[c] = c - 0x20
    if high:
        order[0xC0:0xE0] = high
        order[0xE0:0x100] = high
        order[0xF7], order[0xFF] = 0xF7, 0xFF
    return bytes(order)


_LATIN1_SWEDISH_ORDER = _sort_order(_SWEDISH_HIGH)
_ASCII_GENERAL_ORDER = _sort_order(b"")


def _hash_bytes(data: bytes, nr1: int, nr2: int) -> tuple[int, int]:
    """``my_hash_sort_bin``'s loop: ``nr1 ^= (((nr1 & 63) + nr2) * byte) + (nr1 << 8); nr2 += 3`` (64 bits)."""
    for byte in data:
        nr1 ^= ((((nr1 & 63) + nr2) * byte) + (nr1 << 8)) & _U64
        nr2 = (nr2 + 3) & _U64
    return nr1, nr2


def _hash_bin(data: bytes, nr1: int, nr2: int) -> tuple[int, int]:
    """``my_hash_sort_bin`` (the ``binary`` collation): every byte, trailing ones included."""
    return _hash_bytes(data, nr1, nr2)


def _hash_pad_bin(data: bytes, nr1: int, nr2: int) -> tuple[int, int]:
    """``my_hash_sort_8bit_bin`` / ``my_hash_sort_mb_bin`` (``latin1_bin``, ``utf8mb4_bin``, ``utf8mb4_0900_bin``
    ...): the bytes without trailing spaces."""
    return _hash_bytes(data.rstrip(b" "), nr1, nr2)


def _hash_simple(order: bytes) -> Callable[[bytes, int, int], tuple[int, int]]:
    """``my_hash_sort_simple`` with a collation's sort order: trailing spaces dropped, each byte mapped."""

    def run(data: bytes, nr1: int, nr2: int) -> tuple[int, int]:
        return _hash_bytes(data.rstrip(b" ").translate(order), nr1, nr2)

    return run


def _hash_uca900(data: bytes, nr1: int, nr2: int) -> tuple[int, int]:
    """``my_hash_sort_uca_900`` (``utf8mb4_0900_ai_ci``): FNV-1a over the primary weights; ``nr2`` is unchanged."""
    return uca900.hash_sort(data.decode("utf-8", "replace"), nr1), nr2


#: collation -> its ``hash_sort`` as KEY partitioning runs it over a field's bytes (the collations computed here)
_HASH_SORT: dict[str, Callable[[bytes, int, int], tuple[int, int]]] = {
    "binary": _hash_bin,
    "latin1_swedish_ci": _hash_simple(_LATIN1_SWEDISH_ORDER),
    "ascii_general_ci": _hash_simple(_ASCII_GENERAL_ORDER),
    "latin1_bin": _hash_pad_bin,
    "ascii_bin": _hash_pad_bin,
    "utf8mb4_bin": _hash_pad_bin,
    "utf8mb3_bin": _hash_pad_bin,
    "utf8mb4_0900_bin": _hash_pad_bin,
    "utf8mb4_0900_ai_ci": _hash_uca900,
}
#: the collation numeric fields hash with: ``Field_num`` / ``Field_temporal`` ``charset()`` is
#: ``my_charset_numeric`` (``my_charset_latin1``), so integers, FLOAT / DOUBLE, DECIMAL, DATE and YEAR go through
#: latin1_swedish_ci's ``my_hash_sort_simple``; DATETIME / TIMESTAMP / TIME (``*f`` fields), ENUM / SET and BIT
#: hash as ``binary``
NUMERIC_COLLATION = "latin1_swedish_ci"


def hashable_collation(name: str) -> bool:
    """Whether KEY partitioning over a field of collation ``name`` is computed here."""
    if name == "utf8mb4_0900_ai_ci":
        return uca900.available()
    return name in _HASH_SORT


@dataclass(frozen=True, slots=True)
class KeyColumn:
    """One column of a ``[LINEAR] KEY`` partitioning, as ``Field::hash`` sees it.

    Attributes:
        position: the column's position in the row.
        record: maps a stored (non-NULL) value to the bytes ``Field::hash`` runs over: the field's record bytes
            of its pack length (an INT's 4 little-endian bytes, a DATETIME(0)'s 5 packed bytes, a CHAR(n)'s
            bytes padded to n x mbmaxlen), a VARCHAR's data bytes, a BIT's value as 8 big-endian bytes.
        collation: the collation whose ``hash_sort`` runs (:data:`NUMERIC_COLLATION` for numeric fields).
    """

    position: int
    record: Callable[[Any], bytes]
    collation: str


def int_key_column(position: int, type_name: str, unsigned: bool = False) -> KeyColumn | None:
    """The :class:`KeyColumn` of an integer column of catalog type ``type_name``, None for another type."""
    width = _INT_WIDTHS.get(type_name)
    if width is None:
        return None
    mask = (1 << (8 * width)) - 1
    return KeyColumn(position, lambda v: (int(v) & mask).to_bytes(width, "little"), NUMERIC_COLLATION)


def key_hash(values: tuple[Any, ...], columns: tuple[KeyColumn, ...]) -> int:
    """MySQL's KEY partitioning hash (``Partition_helper::ph_calculate_key_hash_value``): ``nr1 = 1, nr2 = 4``,
    per column ``Field::hash`` (a NULL: ``nr1 ^= (nr1 << 1) | 1``; else the column collation's ``hash_sort`` over
    its bytes), the low 32 bits of ``nr1``.

    Raises:
        KeyError: a column's collation is not one computed here (see :func:`hashable_collation`).
    """
    nr1, nr2 = 1, 4
    for v, col in zip(values, columns):
        if v is None:
            nr1 ^= ((nr1 << 1) | 1) & _U64
            continue
        nr1, nr2 = _HASH_SORT[col.collation](col.record(v), nr1, nr2)
    return nr1 & 0xFFFFFFFF


def _linear(n: int, count: int) -> int:
    """``get_part_id_from_linear_hash``: ``n`` masked by the next power of two, halved until below ``count``."""
    power = 1
    while power < count:
        power <<= 1
    part = n & (power - 1)
    while part >= count:
        power >>= 1
        part &= power - 1
    return part


@dataclass(frozen=True, slots=True)
class Scheme:
    """A partitioning this module computes.

    Attributes:
        kind: ``hash``, ``linear``, ``key``, ``linear_key``, ``range``, ``list``, ``range_columns`` or
            ``list_columns``.
        column: the position of the partitioning column (the first one for COLUMNS kinds).
        count: the number of partitions.
        bounds: per partition its RANGE bound (None = MAXVALUE) or LIST values; for COLUMNS kinds a tuple per
            partition (RANGE: the bound tuple, MAXVALUE as None; LIST: a frozenset of tuples).
        function: the partitioning function's name applied to the column (``YEAR``), or None for the column.
        columns: the COLUMNS and KEY kinds' column positions.
        key_columns: the KEY kinds' columns as their hash sees them.
        sub: the subpartitioning (a ``hash`` / ``linear`` / ``key`` / ``linear_key`` scheme whose ``count`` is the
            number of subpartitions per partition), None without subpartitions. A row's partition id is then
            ``part * sub.count + subpart`` (``get_part_id_for_sub``).
    """

    kind: str
    column: int
    count: int
    bounds: tuple[Any, ...] = ()
    function: str | None = None
    columns: tuple[int, ...] = ()
    key_columns: tuple[KeyColumn, ...] = ()
    sub: Scheme | None = None

    def partition(self, row: tuple[Any, ...]) -> int | None:
        """The partition id of a row (storage form), or None when no partition takes it."""
        part = self._partition(row)
        if part is None or self.sub is None:
            return part
        subpart = self.sub.partition(row)
        return None if subpart is None else part * self.sub.count + subpart

    def _partition(self, row: tuple[Any, ...]) -> int | None:
        if self.kind in ("key", "linear_key"):
            h = key_hash(tuple(row[c.position] for c in self.key_columns), self.key_columns)
            return h % self.count if self.kind == "key" else _linear(h, self.count)
        if self.kind == "range_columns":
            key = tuple(_key(row[c]) for c in self.columns)
            for i, bound in enumerate(self.bounds):
                if _tuple_less(key, bound):
                    return i
            return None
        if self.kind == "list_columns":
            key = tuple(_key(row[c]) for c in self.columns)
            for i, values in enumerate(self.bounds):
                if key in values:
                    return i
            return None
        v = row[self.column]
        if self.function is not None and v is not None:
            v = _FUNCTIONS[self.function](v)
        if self.kind in ("hash", "linear"):
            n = abs(int(v)) if v is not None else 0
            return n % self.count if self.kind == "hash" else _linear(n, self.count)
        if self.kind == "range":
            for i, bound in enumerate(self.bounds):
                if v is None or bound is None or int(v) < bound:
                    return i
            return None
        for i, values in enumerate(self.bounds):
            if v in values:
                return i
        return None


def _key(v: Any) -> Any:
    """A COLUMNS value as compared: NULL as itself, a string case-folded, a date / datetime as its ISO text, a
    DECIMAL or integer as a number."""
    if v is None or isinstance(v, (int, float, Decimal)):
        return v
    if isinstance(v, _dt.datetime):
        return v.isoformat(sep=" ")
    if isinstance(v, _dt.date):
        return v.isoformat()
    if isinstance(v, bytes):
        return v
    return str(v).casefold()


def _tuple_less(key: tuple[Any, ...], bound: tuple[Any, ...]) -> bool:
    """``key < bound`` as RANGE COLUMNS compares (a NULL is below every value, MAXVALUE above every value)."""
    for k, b in zip(key, bound):
        if b is MAXVALUE:
            return True
        if k is None:
            return True
        if type(k) is not type(b) and not (isinstance(k, (int, Decimal)) and isinstance(b, (int, Decimal))):
            k, b = str(k), str(b)
        if k < b:
            return True
        if k > b:
            return False
    return False


def _closing(text: str, start: int) -> int:
    """The index of the parenthesis closing the one at ``start - 1`` (quotes skipped), or -1."""
    depth, i, quote = 1, start, ""
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def _split(text: str) -> list[str]:
    """``text`` split at its top-level commas (not inside parentheses or quotes), each part stripped."""
    out, depth, quote, cur = [], 0, "", []
    i = 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\" and i + 1 < len(text):
                cur.append(ch)
                i += 1
                ch = text[i]
            elif ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
            i += 1
            continue
        cur.append(ch)
        i += 1
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out


def _unparen(text: str) -> str | None:
    text = text.strip()
    if not text.startswith("(") or _closing(text, 1) != len(text) - 1:
        return None
    return text[1:-1].strip()


def _constant(text: str) -> Any:
    """A bound or list value: an integer, a quoted string (as :func:`_key` compares it), NULL, MAXVALUE (None
    with ``"max"``), or a partitioning function of a constant; raises ValueError for anything else."""
    t = text.strip()
    upper = t.upper()
    if upper == "MAXVALUE":
        return "max"
    if upper == "NULL":
        return None
    if re.fullmatch(r"[-+]?\d+", t):
        return int(t)
    if len(t) >= 2 and t[0] == t[-1] and t[0] in "'\"":
        return t[1:-1].replace("\\'", "'").replace("''", "'")
    m = _CALL.match(t)
    if m and m.group(1).upper() in _FUNCTIONS:
        v = _FUNCTIONS[m.group(1).upper()](_constant(m.group(2)))
        if v is None:
            raise ValueError(t)
        return v
    raise ValueError(t)


def _expression(text: str, names: list[str]) -> tuple[int, str | None] | None:
    """(column position, function name or None) of a partitioning expression ``col`` or ``FUNC(col)``."""
    t = text.strip()
    m = _NAME.match(t)
    if m:
        return (names.index(m.group(1).lower()), None) if m.group(1).lower() in names else None
    m = _CALL.match(t)
    if m is None or m.group(1).upper() not in _FUNCTIONS:
        return None
    inner = _expression(m.group(2), names)
    if inner is None or inner[1] is not None:
        return None
    return inner[0], m.group(1).upper()


def scheme_of(
    clause: str,
    column_names: tuple[str, ...],
    column_types: tuple[str, ...] = (),
    primary_key: tuple[str, ...] = (),
    key_column: Callable[[int], KeyColumn | None] | None = None,
) -> Scheme | None:
    """The :class:`Scheme` of a ``PARTITION BY`` clause, or None for a kind this module does not compute.

    Args:
        clause: the clause as written (``PARTITION BY HASH(id) PARTITIONS 4``).
        column_names: the table's columns in order.
        column_types: their catalog type names (``int``, ``bigint`` ...): without ``key_column``, KEY partitioning
            is computed over integer columns of these types.
        primary_key: the primary key's column names (what ``KEY ()`` partitions by).
        key_column: the :class:`KeyColumn` of the column at a position (None: its type or collation is not
            computed), for KEY partitioning over any column type.
    """
    if key_column is None:
        types = column_types

        def key_column(p: int) -> KeyColumn | None:
            return int_key_column(p, types[p]) if p < len(types) else None

    try:
        return _scheme_of(
            clause.strip().rstrip(";").strip(),
            [n.lower() for n in column_names],
            key_column,
            [n.lower() for n in primary_key],
        )
    except ValueError:
        return None


_SUB_HEAD = re.compile(r"^SUBPARTITION\s+BY\s+(LINEAR\s+)?(HASH|KEY)\s*\(", re.IGNORECASE)
_SUBPARTITIONS = re.compile(r"^SUBPARTITIONS\s+(\d+)\s*", re.IGNORECASE)
_PARTITIONS_PREFIX = re.compile(r"^PARTITIONS\s+(\d+)\s*", re.IGNORECASE)
_SUB_DEFS = re.compile(r"\(\s*SUBPARTITION\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class _Tail:
    """What follows a ``PARTITION BY kind (...)``: ``PARTITIONS n``, the subpartitioning, and the definitions
    (each without its subpartition list), with the subpartitions the first definition lists."""

    partitions: int | None
    sub: tuple[bool, str, str] | None  # (linear, HASH | KEY, expression)
    subpartitions: int | None
    defs: list[str] | None
    sub_defs: int


def _tail(rest: str) -> _Tail:
    """Split a clause's tail; raises ValueError for one it cannot read."""
    partitions = subpartitions = None
    m = _PARTITIONS_PREFIX.match(rest)
    if m:
        partitions, rest = int(m.group(1)), rest[m.end() :]
    sub = None
    m = _SUB_HEAD.match(rest)
    if m:
        end = _closing(rest, m.end())
        if end < 0:
            raise ValueError(rest)
        sub = (bool(m.group(1)), m.group(2).upper(), rest[m.end() : end])
        rest = rest[end + 1 :].strip()
        m = _SUBPARTITIONS.match(rest)
        if m:
            subpartitions, rest = int(m.group(1)), rest[m.end() :]
    rest = rest.strip()
    if not rest:
        return _Tail(partitions, sub, subpartitions, None, 0)
    body = _unparen(rest)
    if body is None:
        raise ValueError(rest)
    defs, sub_defs = [], 0
    for i, d in enumerate(_split(body)):
        m = _SUB_DEFS.search(d)
        if m is not None:
            listed = _unparen(d[m.start() :])
            if listed is None:
                raise ValueError(d)
            if i == 0:
                sub_defs = len(_split(listed))
            d = d[: m.start()].strip()
        defs.append(d)
    return _Tail(partitions, sub, subpartitions, defs, sub_defs)


def _count(tail: _Tail) -> int:
    """The partition count of a HASH / KEY clause: ``PARTITIONS n``, its definitions, or 1."""
    if tail.partitions is not None:
        return tail.partitions
    return len(tail.defs) if tail.defs is not None else 1


def _key_scheme(
    linear: bool,
    inner: str,
    count: int,
    names: list[str],
    key_column: Callable[[int], KeyColumn | None],
    primary: list[str],
) -> Scheme | None:
    """``[LINEAR] KEY (columns)`` (``KEY ()``: the primary key's) over columns ``key_column`` computes."""
    cols = [c.strip() for c in _split(inner)] or list(primary)
    columns = []
    for name in cols:
        m = _NAME.match(name)
        if m is None or m.group(1).lower() not in names:
            return None
        col = key_column(names.index(m.group(1).lower()))
        if col is None:
            return None
        columns.append(col)
    if not columns or count < 1:
        return None
    kind = "linear_key" if linear else "key"
    return Scheme(kind, columns[0].position, count, key_columns=tuple(columns))


def _hash_scheme(
    linear: bool,
    kind: str,
    inner: str,
    count: int,
    names: list[str],
    key_column: Callable[[int], KeyColumn | None],
    primary: list[str],
) -> Scheme | None:
    """A ``[LINEAR] HASH (expr)`` or ``[LINEAR] KEY (columns)`` partitioning into ``count`` parts."""
    if kind == "KEY":
        return _key_scheme(linear, inner, count, names, key_column, primary)
    expr = _expression(inner, names)
    if expr is None or count < 1:
        return None
    return Scheme("linear" if linear else "hash", expr[0], count, function=expr[1])


def _scheme_of(
    clause: str, names: list[str], key_column: Callable[[int], KeyColumn | None], primary: list[str]
) -> Scheme | None:
    head = _HEAD.match(clause)
    if head is None:
        return None
    linear, kind, columns = bool(head.group(1)), head.group(2).upper(), bool(head.group(3))
    end = _closing(clause, head.end())
    if end < 0:
        return None
    inner, tail = clause[head.end() : end], _tail(clause[end + 1 :].strip())
    if kind in ("KEY", "HASH"):
        if columns or tail.sub is not None:
            return None
        return _hash_scheme(linear, kind, inner, _count(tail), names, key_column, primary)
    main = _listed_scheme(kind, columns, linear, inner, tail.defs, names)
    if main is None or tail.sub is None:
        return main
    sub_linear, sub_kind, sub_inner = tail.sub
    count = tail.subpartitions if tail.subpartitions is not None else (tail.sub_defs or 1)
    sub = _hash_scheme(sub_linear, sub_kind, sub_inner, count, names, key_column, primary)
    return None if sub is None else dataclasses.replace(main, sub=sub)


def _listed_scheme(
    kind: str, columns: bool, linear: bool, inner: str, defs: list[str] | None, names: list[str]
) -> Scheme | None:
    """RANGE / LIST [COLUMNS] with its partition definitions."""
    if not defs or linear:
        return None
    if columns:
        cols = []
        for name in _split(inner):
            m = _NAME.match(name)
            if m is None or m.group(1).lower() not in names:
                return None
            cols.append(names.index(m.group(1).lower()))
        return _columns_scheme(kind, tuple(cols), defs)
    expr = _expression(inner, names)
    if expr is None:
        return None
    if kind == "RANGE":
        bounds: list[Any] = []
        for d in defs:
            m = _DEF_RANGE.match(d)
            if m is None:
                return None
            value = m.group(1).strip()
            v = _constant(value if value.upper() == "MAXVALUE" else (_unparen(value) or "?"))
            bounds.append(None if v == "max" else v)
        return Scheme("range", expr[0], len(bounds), tuple(bounds), expr[1])
    lists = []
    for d in defs:
        m = _DEF_LIST.match(d)
        if m is None:
            return None
        values = _unparen(m.group(1))
        if values is None:
            return None
        lists.append(frozenset(_constant(v) for v in _split(values)))
    return Scheme("list", expr[0], len(lists), tuple(lists), expr[1])


def _columns_scheme(kind: str, cols: tuple[int, ...], defs: list[str]) -> Scheme | None:
    """RANGE COLUMNS / LIST COLUMNS over the columns at ``cols`` with partition definitions ``defs``."""
    bounds: list[Any] = []
    for d in defs:
        m = (_DEF_RANGE if kind == "RANGE" else _DEF_LIST).match(d)
        if m is None:
            return None
        values = _unparen(m.group(1))
        if values is None:
            return None
        if kind == "RANGE":
            bound = tuple(_constant(v) for v in _split(values))
            if len(bound) != len(cols):
                return None
            bounds.append(tuple(MAXVALUE if v == "max" else _key(v) for v in bound))
            continue
        items = _split(values)
        tuples = set()
        for item in items:
            inner = _unparen(item) if len(cols) > 1 else item
            if inner is None:
                return None
            t = tuple(_key(_constant(v)) for v in _split(inner))
            if len(t) != len(cols):
                return None
            tuples.add(t)
        bounds.append(frozenset(tuples))
    if not bounds:
        return None
    return Scheme(
        "range_columns" if kind == "RANGE" else "list_columns",
        cols[0],
        len(bounds),
        tuple(bounds),
        None,
        cols,
    )


def extra_data(partition: int, source: int | None = None) -> bytes:
    """A rows event's extra data for rows of ``partition`` (and, for an update, the old rows' ``source``)."""
    out = bytes([_PART]) + partition.to_bytes(2, "little")
    return out if source is None else out + source.to_bytes(2, "little")
