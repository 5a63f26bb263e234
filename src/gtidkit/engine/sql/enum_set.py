"""ENUM and SET columns: their members, how a value becomes a member (``Field_enum::store`` /
``Field_set::store``), and the index / bit set a row image carries.

Storage form (what SQLite holds and SELECT returns): the member's text as the column defines it (an ENUM
``'Small'`` stays ``'Small'`` whatever case the INSERT used), ``''`` for ENUM's error value (index 0), and for SET
the members present joined by ``,`` in definition order. Row images carry the 1-based ENUM index (1 byte for up
to 255 members, else 2) and the SET bit set (bit ``i`` = member ``i``; 1, 2, 3, 4 or 8 bytes), as the Table_map
metadata ``(real type, pack length)`` says.

Sources: RM 8.0 "The ENUM Type" (index values, the empty-string error value, numbers as indexes, trailing spaces
of members removed), "The SET Type" (order and duplicates, numbers as bit sets), ``sql/field.cc``
(``Field_enum::store`` takes a string of digits that matches no member as an index; ``Field_set::store`` likewise
as a bit set), ``get_enum_pack_length`` / ``get_set_pack_length`` (``sql/field.h``).
"""

from __future__ import annotations

import functools
import json
import re
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from gtidkit.engine.sql.function_table import register, rows_from
from gtidkit.mysql_errors import mysql_error

if TYPE_CHECKING:
    from gtidkit.engine.sql.catalog import ColumnDef
    from gtidkit.engine.sql.values import FieldStore

__all__ = [
    "ENUM_SET_TYPES",
    "MAX_SET_MEMBERS",
    "UDFS",
    "check_members",
    "coerce_enum",
    "coerce_set",
    "from_image",
    "member_list_sql",
    "numeric_rewrite",
    "pack_length",
    "to_image",
]

#: The two type names this module serves.
ENUM_SET_TYPES = ("enum", "set")
#: A SET has at most 64 members (RM "The SET Type"; more is ER_TOO_BIG_SET 1097).
MAX_SET_MEMBERS = 64
_DIGITS = re.compile(r"^\s*\+?\d+\s*$")


def pack_length(col: ColumnDef) -> int:
    """Bytes of the column's value in a row image: ENUM 1 (up to 255 members) or 2; SET ``(n + 7) // 8``,
    with 5..8 rounded up to 8 (``get_enum_pack_length`` / ``get_set_pack_length``)."""
    n = len(col.members)
    if col.type == "enum":
        return 1 if n < 256 else 2
    size = (n + 7) // 8
    return 8 if size > 4 else size


def check_members(name: str, kind: str, members: tuple[str, ...]) -> tuple[str, ...]:
    """The members of an ENUM / SET definition with trailing spaces removed (MySQL removes them at CREATE TABLE).

    Args:
        name: the column name (for messages).
        kind: ``"enum"`` or ``"set"``.
        members: the quoted values, as written.

    Raises:
        MySQLError: 1291 a value twice (compared case-insensitively, as the default collation does);
            1097 a SET with more than 64 members.
    """
    out = tuple(m.rstrip(" ") for m in members)
    seen: set[str] = set()
    for m in out:
        if m.lower() in seen:
            raise mysql_error(1291, name, m, kind.upper())
        seen.add(m.lower())
    if kind == "set" and len(out) > MAX_SET_MEMBERS:
        raise mysql_error(1097, name)
    return out


def member_list_sql(members: tuple[str, ...]) -> str:
    """``'a','b'``: the member list as ``COLUMN_TYPE`` and ``SHOW CREATE TABLE`` print it (quotes doubled)."""
    return ",".join("'" + m.replace("'", "''") + "'" for m in members)


def _find(members: tuple[str, ...], text: str) -> int:
    """1-based index of ``text`` among ``members`` (case-insensitive, trailing spaces ignored), 0 when absent."""
    key = text.rstrip(" ").lower()
    for i, m in enumerate(members, 1):
        if m.lower() == key:
            return i
    return 0


def coerce_enum(col: ColumnDef, v: Any, row: int, store: FieldStore) -> str:
    """The stored text of ``v`` in ENUM column ``col``: a member (in its defined case), or ``''`` (index 0).

    A string naming a member is that member; a number, or a string of digits naming no member, is an index
    (0 is the error value ``''``). Anything else is WARN_DATA_TRUNCATED: error 1265 in strict mode, else a
    warning and ``''``. The integer 0 is also 1265 (``Field_enum::store(longlong)``); the string ``'0'`` is not.

    Raises:
        MySQLError: 1265 in strict mode.
    """
    members = col.members
    if isinstance(v, bool):
        v = int(v)
    if isinstance(v, (int, float, Decimal)):
        n = round(v)
        if 0 < n <= len(members):
            return members[n - 1]
        return str(store.adjust(mysql_error(1265, col.name, row), ""))
    text = v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)
    i = _find(members, text)
    if i:
        return members[i - 1]
    if len(text) < 6 and _DIGITS.match(text):
        n = int(text)
        if n <= len(members):
            return members[n - 1] if n else ""
    return str(store.adjust(mysql_error(1265, col.name, row), ""))


def coerce_set(col: ColumnDef, v: Any, row: int, store: FieldStore) -> str:
    """The stored text of ``v`` in SET column ``col``: its members in definition order, joined by ``,``.

    A string is a comma-separated list of members (any order, any case, duplicates allowed); a number, or a
    string of digits that is not a member list, is a bit set. Unknown members or bits are WARN_DATA_TRUNCATED:
    error 1265 in strict mode, else dropped with a warning.

    Raises:
        MySQLError: 1265 in strict mode.
    """
    members = col.members
    if isinstance(v, bool):
        v = int(v)
    if isinstance(v, (int, float, Decimal)):
        bits = round(v)
        full = (1 << len(members)) - 1
        if bits < 0 or bits & ~full:
            store.adjust(mysql_error(1265, col.name, row), None)
            bits &= full
        return _text(members, bits)
    text = v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)
    bits = 0
    bad = False
    if text != "":
        for part in text.split(","):
            i = _find(members, part)
            if i:
                bits |= 1 << (i - 1)
            else:
                bad = True
    if bad:
        if _DIGITS.match(text) and int(text) < (1 << len(members)):
            return _text(members, int(text))
        store.adjust(mysql_error(1265, col.name, row), None)
    return _text(members, bits)


def _text(members: tuple[str, ...], bits: int) -> str:
    return ",".join(m for i, m in enumerate(members) if bits >> i & 1)


def to_image(col: ColumnDef, text: Any) -> int:
    """A stored ENUM / SET text -> the index / bit set a row image carries (0 for ``''``)."""
    s = text.decode("utf-8", "surrogateescape") if isinstance(text, bytes) else str(text)
    if col.type == "enum":
        return _find(col.members, s) if s else 0
    bits = 0
    if s:
        for part in s.split(","):
            i = _find(col.members, part)
            if i:
                bits |= 1 << (i - 1)
    return bits


def from_image(col: ColumnDef, value: int) -> str:
    """A row image's ENUM index / SET bit set -> the stored text (index 0 or out of range is ``''``)."""
    if col.type == "enum":
        return col.members[value - 1] if 0 < value <= len(col.members) else ""
    return _text(col.members, value)


# ---------------------------------------------------------------- numeric context ---------------------------------
#: SQLite UDF giving an ENUM text's index / a SET text's bit set from the members (a JSON list)
_INDEX_FUNCTION = "_GK_ENUM_SET_NUMBER"


@functools.lru_cache(maxsize=256)
def _members(spec: str) -> tuple[str, tuple[str, ...]]:
    kind, members = json.loads(spec)
    return kind, tuple(members)


def _number(value: Any, spec: str) -> int | None:
    """``_GK_ENUM_SET_NUMBER(text, '["enum", [...]]')``: the index / bit set of a stored text (NULL stays NULL)."""
    if value is None:
        return None
    kind, members = _members(spec)
    text = value.decode("utf-8", "surrogateescape") if isinstance(value, bytes) else str(value)
    if kind == "enum":
        return _find(members, text) if text else 0
    bits = 0
    for part in text.split(",") if text else ():
        i = _find(members, part)
        if i:
            bits |= 1 << (i - 1)
    return bits


#: SQLite UDFs (name -> (argument count, function)).
UDFS = {_INDEX_FUNCTION: (2, _number)}
_ARITHMETIC = (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.IntDiv, exp.Mod, exp.Neg)
_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ)


def numeric_rewrite(tree: exp.Expression, literal_of: Any = None) -> None:
    """Give ENUM / SET columns their numeric value where MySQL uses it (RM "The ENUM Type": "If you retrieve an
    ENUM value in a numeric context, the column value's index is returned", "ENUM values are sorted based on their
    index numbers"; "The SET Type": a SET in numeric context is its bit set): as an operand of arithmetic, compared
    with a number, and in ORDER BY. The tree's tables must be resolved (``gk_table`` in their meta);
    ``literal_of`` gives a statement template's ``:gk<i>`` literal values (the plan cache keys compared literals
    by kind, so a plan made for a number is not reused for a string)."""
    tables: list[tuple[str, Any]] = []
    for node in tree.find_all(exp.Table):
        if "gk_table" in node.meta:
            tables.append((node.alias_or_name, node.meta["gk_table"]))
    if not any(c.type in ENUM_SET_TYPES for _, t in tables for c in t.columns):
        return
    for col in list(tree.find_all(exp.Column)):
        parent = col.parent
        numeric = isinstance(parent, (*_ARITHMETIC, exp.Ordered))
        if isinstance(parent, _COMPARISONS):
            other = parent.expression if parent.this is col else parent.this
            numeric = isinstance(other, exp.Literal) and not other.is_string
            if isinstance(other, exp.Placeholder) and literal_of is not None:
                numeric = isinstance(literal_of(str(other.name)), (int, Decimal))
        if not numeric:
            continue
        found = [c for alias, t in tables if not col.table or col.table == alias if (c := t.column(col.name))]
        if len(found) != 1 or found[0].type not in ENUM_SET_TYPES:
            continue
        spec = json.dumps([found[0].type, list(found[0].members)])
        col.replace(exp.Anonymous(this=_INDEX_FUNCTION, expressions=[col.copy(), exp.Literal.string(spec)]))


register(*rows_from(UDFS))
