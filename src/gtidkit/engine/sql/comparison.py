"""Comparisons of a string with a number, as MySQL makes them: both sides as double-precision numbers.

SQLite compares a TEXT value with a number by affinity (a TEXT column makes ``0`` the text ``'0'``; an expression
without affinity orders every number before every text), MySQL by the rules of the manual's "Type Conversion in
Expression Evaluation" (https://dev.mysql.com/doc/refman/8.4/en/type-conversion.html): "If both arguments in a
comparison operation are strings, they are compared as strings. If both arguments are integers, they are compared
as integers. [...] In all other cases, the arguments are compared as floating-point (double-precision) numbers. For
example, a comparison of string and numeric operands takes place as a comparison of floating-point numbers."
(``SELECT 1 > '6x'`` -> 0, ``SELECT 7 > '6x'`` -> 1, ``SELECT 0 = 'x6'`` -> 1; ``item_cmp_type`` gives REAL_RESULT
for a STRING_RESULT and a numeric result).

Theory of operation. :func:`rewrite_comparisons` runs on the sqlglot tree (tables resolved, before any other
rewrite) and, where one operand of ``= <=> <> != < <= > >=``, BETWEEN or IN is statically a string and the other
statically a number, wraps the string side in ``_GK_DOUBLE(x)``: MySQL's string-to-double conversion (the longest
numeric prefix, ``my_strntod``: leading spaces and tabs skipped, ``'10abc'`` -> 10, ``'abc'`` -> 0, ``' 1e2'`` ->
100) that reports warning 1292 "Truncated incorrect DOUBLE value: 'abc'" when anything but trailing spaces is left
over (``double_from_string_with_check`` in ``sql/item.cc``). An operand's kind (:func:`operand_kind`):

* string: a string literal, a CHAR/VARCHAR/TEXT/BINARY/BLOB column, CONCAT / UPPER / LOWER / CAST AS CHAR;
* number: a number literal, an integer / DECIMAL / FLOAT / DOUBLE / YEAR column, arithmetic and numeric aggregates
  (:func:`numeric_types.numeric_type`), CAST AS SIGNED / UNSIGNED / DECIMAL;
* unknown (left alone): NULL, hex and bit literals (numbers when compared with a number: "Hexadecimal values are
  treated as binary strings if not compared to a number"), temporal columns, user and system variables, a prepared
  statement's ``?`` parameters (their type is known only when the statement runs), anything else.

BETWEEN compares its three arguments by one aggregated type (``Item_func_between::resolve_type``), so a number
among them turns every string argument into a double (``2 BETWEEN 2 AND 'x-3'`` -> 0). IN compares its left
operand with each list value by that pair's type (``Item_func_in``: one comparator per type found), so ``s IN (1,
'a')`` becomes ``s IN ('a') OR _GK_DOUBLE(s) IN (1)``: the same three-valued result. ``CASE x WHEN v ...``
compares pairwise too (a mixed pair makes it a searched CASE), and ``NULLIF(a, b)`` of a string and a number
becomes ``CASE WHEN a = b THEN NULL ELSE a END`` with the pair converted.

Where MySQL keeps an index, so does the rewrite: a number column compared with a string constant converts the
constant (``id = _GK_DOUBLE('5x')``, evaluated once), never the column; a string column compared with a number is
converted per row, and MySQL cannot use its index either ("If str_col is an indexed string column, the index cannot
be used when performing the lookup", same manual page).

Warnings and errors. ``_GK_DOUBLE`` reports a truncated conversion where the running statement keeps its
conditions: a SELECT's warnings (``Executor.udf_warnings``); in INSERT ... SELECT, UPDATE and DELETE, the
statement's :class:`~gtidkit.engine.sql.values.FieldStore`, so that strict mode without IGNORE makes it error 1292
(MySQL's ``Strict_error_handler`` upgrades ER_TRUNCATED_WRONG_VALUE to an error for those statements and leaves a
SELECT's a warning).

Statement templates. The statement cache plans ``WHERE name = 'x'`` once for all literals as ``name = :gk0``; the
plan of a string operand compared with a literal depends on that literal's kind (``name = 0`` converts ``name``),
so :func:`compared_literals` names those literal positions (and those compared with a number expression that is
not a column, ``k + 1 = '5'``) and the cache keeps one plan per kind. A number column compared with a literal
keeps one plan for all literals (the point-select hot path ``id = :gk0`` is unchanged): a
quoted numeric literal there is converted by SQLite's column affinity, as MySQL converts it; a quoted literal that
is not a number (``id = '5x'``) does not compare as its numeric prefix. Known differences left: that last case; a
prepared statement's ``?`` compared with a string column (compared by SQLite's affinity, as text); GREATEST and
LEAST with mixed arguments (MySQL compares those as strings); integers beyond 2^53 compared with strings are exact here when SQLite's
affinity converts the string (MySQL compares them as doubles).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from gtidkit.engine.sql.function_table import register, session_rows
from gtidkit.engine.sql.numeric_types import NumType, numeric_type
from gtidkit.engine.sql.scopes import scoped_columns
from gtidkit.errors import MySQLError
from gtidkit.mysql_errors import mysql_error

if TYPE_CHECKING:
    from gtidkit.engine.sql.executor import Executor

__all__ = [
    "DOUBLE_FUNCTION",
    "INT_TEXT_FUNCTION",
    "U64_FUNCTION",
    "compared_literals",
    "operand_kind",
    "rewrite_comparisons",
    "session_functions",
    "string_to_double",
    "u64_constant",
]

#: The SQLite function a string operand compared with a number is wrapped in.
DOUBLE_FUNCTION = "_GK_DOUBLE"
#: SQLite function around the string operand of CAST(... AS SIGNED / UNSIGNED): MySQL's string-to-integer reading
INT_TEXT_FUNCTION = "_GK_INT_TEXT"

#: Second argument of ``_GK_DOUBLE`` saying where a truncation is reported (absent: a SELECT's warnings).
#: 1: the running INSERT ... SELECT / UPDATE / multi-table statement's FieldStore (strict: error 1292);
#: 2: a single-table DELETE (strict mode: error 1292, otherwise a warning the DELETE returns).
_IN_DML = 1
_IN_DELETE = 2

_STRING, _NUMBER = "string", "number"

_BINARY_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ)
_COMPARISONS = (*_BINARY_COMPARISONS, exp.Between, exp.In, exp.Case, exp.Nullif)
_STRING_FAMILIES = frozenset({"string", "binary"})
_NUMBER_FAMILIES = frozenset({"int", "decimal", "float", "year"})
_STRING_FUNCTIONS = (exp.Concat, exp.ConcatWs, exp.Upper, exp.Lower)
_CHAR_TYPES = frozenset(
    {exp.DataType.Type.CHAR, exp.DataType.Type.VARCHAR, exp.DataType.Type.TEXT, exp.DataType.Type.NCHAR}
)
_NUMBER_CASTS = frozenset(
    {
        exp.DataType.Type.BIGINT,
        exp.DataType.Type.UBIGINT,
        exp.DataType.Type.INT,
        exp.DataType.Type.UINT,
        exp.DataType.Type.DECIMAL,
        exp.DataType.Type.DOUBLE,
        exp.DataType.Type.FLOAT,
    }
)
#: ``my_strtod``'s number: leading spaces/tabs, a sign, digits with an optional fraction, an optional exponent
_DOUBLE_PREFIX = re.compile(r"[ \t]*([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)")
_DBL_MAX = 1.7976931348623157e308
_TEMPLATE_LITERAL = re.compile(r"gk\d+")


# ---------------------------------------------------------------------------------------------- conversion
def string_to_double(text: str) -> tuple[float, bool]:
    """MySQL's conversion of a string to a double: (value, whether it was clean).

    The value is the longest numeric prefix (``'10abc'`` -> 10.0, ``'abc'`` -> 0.0, ``' 1e2'`` -> 100.0, ``'1e'``
    -> 1.0, ``'0x10'`` -> 0.0); clean means nothing but spaces follows it (``''`` is clean). An overflowing value
    is +-DBL_MAX and not clean. Source: ``double_from_string_with_check`` (``sql/item.cc``) over ``my_strtod``
    (``strings/dtoa.cc``, which skips leading spaces and tabs) and ``check_if_only_end_space``.

    Args:
        text: the string (a column value, a literal).

    Returns:
        (the double, True when no warning 1292 is due).
    """
    m = _DOUBLE_PREFIX.match(text)
    if m is None:  # no number: my_strtod's end is the start of the text
        return 0.0, not text.strip(" ")
    value = float(m.group(1))
    clean = not text[m.end() :].strip(" ")
    if math.isinf(value):
        return math.copysign(_DBL_MAX, value), False
    return value, clean


#: ``my_strtoll10``'s integer: leading spaces/tabs, a sign, digits
_INTEGER_PREFIX = re.compile(r"[ \t]*([+-]?[0-9]+)")


def string_to_integer(text: str) -> tuple[int, bool]:
    """MySQL's reading of a string as an integer (``CAST('12x' AS SIGNED)``): (value, whether it was clean).

    The value is the longest integer prefix (``'12x'`` -> 12, ``'abc'`` -> 0, ``'1.9'`` -> 1, ``'1e3'`` -> 1),
    clamped to BIGINT's range (BIGINT UNSIGNED's top for a positive overflow); clean means nothing but spaces
    follows it. Source: ``Item_func_signed::val_int`` / ``val_int_from_str`` (``sql/item_func.cc``) over
    ``my_strtoll10``; the warning is 1292 "Truncated incorrect INTEGER value: '...'".
    """
    m = _INTEGER_PREFIX.match(text)
    if m is None:
        return 0, not text.strip(" ")
    n = int(m.group(1))
    clean = not text[m.end() :].strip(" ")
    if n < -(1 << 63):
        return -(1 << 63), False
    if n >= 1 << 64:
        return (1 << 64) - 1, False
    return n, clean


def _to_double(value: Any) -> tuple[Any, str | None]:
    """(the double of ``value``, the text a 1292 warning quotes or None); numbers and NULL pass unchanged."""
    if value is None or isinstance(value, (int, float)):
        return value, None
    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
    d, clean = string_to_double(text)
    return d, None if clean else text


def session_functions(ex: Executor) -> dict[str, tuple[int, Callable[..., Any]]]:
    """``{name: (nargs, fn)}`` of this module's SQLite functions for ``ex``'s session, for the executor to register
    deterministic (a constant's conversion then runs, and warns, once per statement): ``_GK_DOUBLE(x[, where])``,
    reporting a truncation (1292 "Truncated incorrect DOUBLE value: '...'") as the module docstring says: the
    function raises MySQLError 1292 in INSERT ... SELECT / UPDATE / DELETE under strict mode without IGNORE.

    Args:
        ex: the session's executor (its ``udf_warnings``, ``dml_store`` and ``sql_mode()`` receive the reports).

    Returns:
        ``{"_GK_DOUBLE": (-1, fn), "_GK_U64": (1, u64_constant)}``.
    """

    def report(text: str, where: int) -> None:
        err = mysql_error(1292, "DOUBLE", text)
        if where == _IN_DML and ex.dml_store is not None:
            ex.dml_store.adjust(err, None)  # raises in strict mode
            return
        if where == _IN_DELETE and ex.sql_mode().strict:
            raise err
        ex.udf_warnings.append(("Warning", err.code, err.message))

    def to_double(value: Any, where: int = 0) -> Any:
        d, bad = _to_double(value)
        if bad is not None:
            report(bad, where)
        return d

    def int_text(value: Any, where: int = 0) -> Any:
        if not isinstance(value, (str, bytes)):
            return value
        text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
        n, clean = string_to_integer(text)
        if not clean:
            err = mysql_error(1292, "INTEGER", text)
            if where == _IN_DML and ex.dml_store is not None:
                ex.dml_store.adjust(err, None)
            elif where == _IN_DELETE and ex.sql_mode().strict:
                raise err
            else:
                ex.udf_warnings.append(("Warning", err.code, err.message))
        return n if -(1 << 63) <= n < (1 << 63) else n.to_bytes(8, "big") if 0 < n < (1 << 64) else n

    return {
        DOUBLE_FUNCTION: (-1, to_double),
        U64_FUNCTION: (1, u64_constant),
        INT_TEXT_FUNCTION: (-1, int_text),
    }


# ---------------------------------------------------------------------------------------------- operand kinds
ColumnFamily = Callable[[exp.Column], "str | None"]


def column_families(tree: exp.Expression) -> ColumnFamily:
    """The catalog type family (``int``, ``string``, ``temporal`` ...) of a column reference of ``tree`` (tables
    already resolved): the one column it names by qualifier and name, looked up by SELECT scope
    (:func:`scopes.scoped_columns`), else None (unknown or ambiguous).

    Args:
        tree: the statement, its ``exp.Table`` nodes carrying ``meta["gk_table"]`` (``Executor.resolve_tables``).

    Returns:
        ``fn(column reference) -> family | None``.
    """
    tables = [(t.alias_or_name, t.meta["gk_table"]) for t in tree.find_all(exp.Table) if "gk_table" in t.meta]

    def family(ref: exp.Column) -> str | None:
        found = scoped_columns(ref, tables)
        return found[0][2].info.family if len(found) == 1 else None

    return family


def _unwrap(node: exp.Expression) -> exp.Expression:
    while isinstance(node, exp.Paren):
        node = node.this
    return node


def operand_kind(
    node: exp.Expression,
    family: ColumnFamily,
    literal_of: Callable[[str], Any] | None = None,
    known: frozenset[str] = frozenset(),
) -> str | None:
    """``"string"``, ``"number"`` or None (unknown) for one comparison operand, per the module docstring.

    Args:
        node: the operand (sqlglot, MySQL dialect, tables resolved).
        family: :func:`column_families` of the statement.
        literal_of: the value of a ``:gk<i>`` placeholder that stands for a literal (the statement cache's
            template); None when there are none.
        known: the placeholder names whose value's kind may be used (:func:`compared_literals` put them in the
            cache key); any other placeholder is unknown.
    """
    node = _unwrap(node)
    if isinstance(node, exp.Literal):
        return _STRING if node.is_string else _NUMBER
    if isinstance(node, exp.Placeholder):
        if literal_of is None or node.name not in known:
            return None
        v = literal_of(node.name)
        if isinstance(v, str):
            return _STRING
        return _NUMBER if isinstance(v, (int, float, Decimal)) else None
    if isinstance(node, exp.Column):
        fam = family(node)
        if fam in _STRING_FAMILIES:
            return _STRING
        return _NUMBER if fam in _NUMBER_FAMILIES else None
    if isinstance(node, _STRING_FUNCTIONS):
        return _STRING
    if isinstance(node, exp.Cast):
        to = node.args.get("to")
        if isinstance(to, exp.DataType):
            if to.this in _CHAR_TYPES:
                return _STRING
            if to.this in _NUMBER_CASTS:
                return _NUMBER
        return None
    if isinstance(node, (exp.Neg, exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod, exp.Count, exp.Sum, exp.Avg)):

        def numeric_column(ref: exp.Column) -> NumType | None:
            return NumType("double", 17) if family(ref) in _NUMBER_FAMILIES else None

        return _NUMBER if numeric_type(node, numeric_column, literal_of) is not None else None
    return None


# ---------------------------------------------------------------------------------------------- templates
def _comparisons(tree: exp.Expression) -> list[exp.Expression]:
    """The comparison nodes of ``tree``, without the assignments sqlglot also reads as ``=`` (UPDATE ... SET, ON
    DUPLICATE KEY UPDATE, SET)."""
    return [
        node
        for node in tree.find_all(*_COMPARISONS)
        if not (
            isinstance(node, exp.EQ)
            and node.arg_key == "expressions"
            and isinstance(node.parent, (exp.Update, exp.OnConflict, exp.Set, exp.SetItem))
        )
    ]


def _partners(cmp: exp.Expression) -> list[tuple[exp.Expression, list[exp.Expression]]]:
    """(operand, the operands it is compared with) for each operand of a comparison node."""
    if isinstance(cmp, exp.Between):  # the bounds are compared with x, not with each other
        low, high = cmp.args["low"], cmp.args["high"]
        return [(cmp.this, [low, high]), (low, [cmp.this]), (high, [cmp.this])]
    if isinstance(cmp, exp.In):
        if cmp.args.get("query") is not None or cmp.args.get("unnest") is not None:
            return []
        items = list(cmp.expressions)
        return [(cmp.this, items)] + [(i, [cmp.this]) for i in items]
    if isinstance(cmp, exp.Case):  # CASE x WHEN v1 ... (a searched CASE compares nothing itself)
        if cmp.this is None:
            return []
        values = [i.this for i in cmp.args.get("ifs") or []]
        return [(cmp.this, values)] + [(v, [cmp.this]) for v in values]
    return [(cmp.this, [cmp.expression]), (cmp.expression, [cmp.this])]


def _any_literal(name: str) -> Any:
    """A stand-in value for a ``:gk<i>`` literal inside arithmetic, whose result is a number whatever the literal
    (a string operand is a DOUBLE); None for any other placeholder."""
    return 0 if _TEMPLATE_LITERAL.fullmatch(name) else None


def _kind_matters(tree: exp.Expression, family: ColumnFamily) -> set[str]:
    """Names of the ``:gk<i>`` literals whose kind the rewrite uses: those compared with a string operand (``name =
    :gk0``: a number converts ``name``), with another literal, or with a number that is not a column (``k + 1 =
    '5'``: SQLite gives an expression no affinity, so a string there is converted). A literal compared with a
    number column is not among them (its plan serves every literal: the hot path ``id = :gk0``)."""
    names: set[str] = set()
    for cast in _integer_casts(tree):  # CAST(:gk0 AS SIGNED): a string literal is read as MySQL reads it
        node = _unwrap(cast.this)
        if isinstance(node, exp.Placeholder) and _TEMPLATE_LITERAL.fullmatch(str(node.name)):
            names.add(node.name)
    for cmp in _comparisons(tree):
        for operand, others in _partners(cmp):
            node = _unwrap(operand)
            if not isinstance(node, exp.Placeholder) or not _TEMPLATE_LITERAL.fullmatch(str(node.name)):
                continue
            for other in others:
                o = _unwrap(other)
                if isinstance(o, exp.Placeholder) and _TEMPLATE_LITERAL.fullmatch(str(o.name)):
                    names.add(node.name)
                    continue
                kind = operand_kind(o, family, _any_literal)
                if kind == _STRING or (kind == _NUMBER and not isinstance(o, exp.Column)):
                    names.add(node.name)
    return names


def compared_literals(ex: Executor, tree: exp.Expression, current_db: str | None) -> tuple[int, ...]:
    """The positions ``i`` of the ``:gk<i>`` literals of a statement template whose kind (string or number) its
    plan depends on (see the module docstring): the statement cache keys the plan by their kinds too.

    Args:
        ex: the executor (its tables resolve the template's column references).
        tree: the template's tree, not resolved yet (it is not modified: a copy is resolved).
        current_db: the default database.

    Returns:
        Sorted positions; every literal that is a comparison operand when the tables cannot be resolved (the
        planning that follows reports that error).
    """
    if not any(
        isinstance(p.parent, _COMPARISONS + (exp.Paren, exp.Cast)) for p in tree.find_all(exp.Placeholder)
    ):
        return ()
    copy = tree.copy()
    try:
        ex.resolve_tables(copy, current_db)
        names = _kind_matters(copy, column_families(copy))
    except MySQLError:
        names = {
            str(p.name)
            for cmp in _comparisons(copy)
            for p in cmp.find_all(exp.Placeholder)
            if _TEMPLATE_LITERAL.fullmatch(str(p.name))
        }
    return tuple(sorted(int(n[2:]) for n in names))


# ---------------------------------------------------------------------------------------------- the rewrite
def _double(node: exp.Expression, where: int) -> exp.Expression:
    args = [node.copy()] + ([exp.Literal.number(where)] if where else [])
    return exp.Anonymous(this=DOUBLE_FUNCTION, expressions=args)


def rewrite_comparisons(tree: exp.Expression, literal_of: Callable[[str], Any] | None = None) -> None:
    """Wrap the string side of each string-with-number comparison of ``tree`` in ``_GK_DOUBLE`` (in place).

    Args:
        tree: a statement tree whose tables are resolved (SELECT, INSERT, UPDATE, DELETE; a multi-table
            statement's SELECT carries ``meta["gk_dml"]``).
        literal_of: the values of the template's ``:gk<i>`` literals, or None.
    """
    comparisons = _comparisons(tree)
    casts = _integer_casts(tree)
    if not comparisons and not casts:
        return
    _convert_u64_constants(tree, comparisons)
    family = column_families(tree)
    known = frozenset(_kind_matters(tree, family)) if literal_of is not None else frozenset()
    if isinstance(tree, exp.Delete):
        where = _IN_DELETE
    elif isinstance(tree, (exp.Insert, exp.Update)) or tree.meta.get("gk_dml"):
        where = _IN_DML
    else:
        where = 0

    def kind(node: exp.Expression) -> str | None:
        return operand_kind(node, family, literal_of, known)

    for cast in casts:  # SQLite's CAST AS INTEGER reads '12x' as 12 without MySQL's warning 1292
        if kind(cast.this) == _STRING:
            args = [cast.this.copy()] + ([exp.Literal.number(where)] if where else [])
            cast.this.replace(exp.Anonymous(this=INT_TEXT_FUNCTION, expressions=args))

    for cmp in comparisons:
        if isinstance(cmp, exp.In):
            _rewrite_in(cmp, kind, where)
            continue
        if isinstance(cmp, exp.Case):
            _rewrite_case(cmp, kind, where)
            continue
        if isinstance(cmp, exp.Nullif):
            _rewrite_nullif(cmp, kind, where)
            continue
        operands = _partners(cmp)
        kinds = [kind(o) for o, _ in operands]
        if _STRING in kinds and _NUMBER in kinds:
            for (operand, _), k in zip(operands, kinds):
                if k == _STRING:
                    operand.replace(_double(operand, where))


_INTEGER_CASTS = frozenset({exp.DataType.Type.BIGINT, exp.DataType.Type.UBIGINT})


def _integer_casts(tree: exp.Expression) -> list[exp.Cast]:
    """The CAST(... AS SIGNED / UNSIGNED) nodes of ``tree``."""
    return [
        c
        for c in tree.find_all(exp.Cast)
        if isinstance(c.args.get("to"), exp.DataType) and c.args["to"].this in _INTEGER_CASTS
    ]


def _u64_columns(tree: exp.Expression) -> Callable[[exp.Expression], bool]:
    """Whether a comparison operand of ``tree`` is a BIGINT UNSIGNED column (the one column it names)."""
    tables = [(t.alias_or_name, t.meta["gk_table"]) for t in tree.find_all(exp.Table) if "gk_table" in t.meta]

    def is_u64(node: exp.Expression) -> bool:
        node = _unwrap(node)
        if not isinstance(node, exp.Column):
            return False
        found = [c for _, _, c in scoped_columns(node, tables)]
        return len(found) == 1 and found[0].type == "bigint" and found[0].unsigned

    return is_u64


def _convert_u64_constants(tree: exp.Expression, comparisons: list[exp.Expression]) -> None:
    """A BIGINT UNSIGNED column compared with a quoted constant: the constant becomes the column's integer when it
    is one exactly (MySQL's ``convert_constant_item``, ``sql/item_cmpfunc.cc``: a constant compared with an
    integer field is stored into the field and replaced by that integer when nothing is lost), so ``u =
    '18446744073709551615'`` finds the row holding 2**64-1. A string literal of 2**63 .. 2**64-1 becomes that
    number (written as the blob such a column holds it as); a template's literal, whose kind the plan does not
    know, is converted when the statement runs (``_GK_U64``, :func:`u64_constant`). Other constants are left to
    the rest of :func:`rewrite_comparisons` and SQLite's affinity (values below 2**63 need nothing)."""
    is_u64 = _u64_columns(tree)
    for cmp in comparisons:
        if isinstance(cmp, exp.Case | exp.Nullif):
            continue
        for operand, others in _partners(cmp):
            node = _unwrap(operand)
            if not any(is_u64(o) for o in others):
                continue
            if isinstance(node, exp.Literal) and node.is_string:
                if u64_constant(node.this) != node.this:
                    node.replace(exp.Literal.number(node.this.strip()))
            elif isinstance(node, exp.Placeholder) and _TEMPLATE_LITERAL.fullmatch(str(node.name)):
                node.replace(exp.Anonymous(this=U64_FUNCTION, expressions=[node.copy()]))


#: The SQLite function a template literal compared with a BIGINT UNSIGNED column is wrapped in.
U64_FUNCTION = "_GK_U64"


def u64_constant(v: Any) -> Any:
    """``_GK_U64(x)``: a quoted integer of 2**63 .. 2**64-1 (spaces around it allowed) as the 8-byte blob a BIGINT
    UNSIGNED column holds it as (``values.u64_to_sqlite``); any other value unchanged (SQLite's affinity or
    ``_GK_DOUBLE`` then compares it)."""
    if type(v) is str:
        text = v.strip(" ")
        if 19 <= len(text) <= 20 and text.isdigit() and 2**63 <= int(text) < 2**64:
            return int(text).to_bytes(8, "big")
    return v


def _rewrite_in(node: exp.In, kind: Callable[[exp.Expression], str | None], where: int) -> None:
    """``x IN (...)`` compared pairwise: string list values of a number ``x`` are converted; a string ``x`` is
    converted for its number list values only (``x IN (strings) OR _GK_DOUBLE(x) IN (numbers)``)."""
    if node.args.get("query") is not None or node.args.get("unnest") is not None:
        return
    left = kind(node.this)
    if left is None:
        return
    kinds = [kind(i) for i in node.expressions]
    if left == _NUMBER:
        for item, k in zip(list(node.expressions), kinds):
            if k == _STRING:
                item.replace(_double(item, where))
        return
    numbers = [i for i, k in zip(node.expressions, kinds) if k == _NUMBER]
    if not numbers:
        return
    others = [i.copy() for i, k in zip(node.expressions, kinds) if k != _NUMBER]
    converted = exp.In(this=_double(node.this, where), expressions=[i.copy() for i in numbers])
    if not others:
        node.replace(converted)
        return
    plain = exp.In(this=node.this.copy(), expressions=others)
    node.replace(exp.Paren(this=exp.Or(this=plain, expression=converted)))


def _pair(a: exp.Expression, b: exp.Expression, kinds: tuple[str | None, str | None], where: int) -> exp.EQ:
    """``a = b`` with the string side converted when ``kinds`` mix a string and a number (copies of both)."""
    mixed = set(kinds) == {_STRING, _NUMBER}
    left = _double(a, where) if mixed and kinds[0] == _STRING else a.copy()
    right = _double(b, where) if mixed and kinds[1] == _STRING else b.copy()
    return exp.EQ(this=left, expression=right)


def _rewrite_case(node: exp.Case, kind: Callable[[exp.Expression], str | None], where: int) -> None:
    """``CASE x WHEN v ...`` compares ``x`` with each ``v`` by that pair's type (``Item_func_case``, as IN): with a
    mixed pair it becomes the searched ``CASE WHEN x = v ...``, each pair converted as a comparison."""
    x = node.this
    if x is None:
        return
    kx = kind(x)
    ifs = list(node.args.get("ifs") or [])
    kinds = [(kx, kind(i.this)) for i in ifs]
    if not any(set(k) == {_STRING, _NUMBER} for k in kinds):
        return
    node.set(
        "ifs", [exp.If(this=_pair(x, i.this, k, where), true=i.args["true"]) for i, k in zip(ifs, kinds)]
    )
    node.set("this", None)


def _rewrite_nullif(node: exp.Nullif, kind: Callable[[exp.Expression], str | None], where: int) -> None:
    """``NULLIF(a, b)`` of a string and a number compares them as doubles and returns ``a`` unconverted: it
    becomes ``CASE WHEN a = b THEN NULL ELSE a END`` with the pair converted."""
    a, b = node.this, node.expression
    kinds = (kind(a), kind(b))
    if set(kinds) != {_STRING, _NUMBER}:
        return
    when = exp.If(this=_pair(a, b, kinds, where), true=exp.Null())
    node.replace(exp.Case(ifs=[when], default=a.copy()))


register(
    *session_rows(
        session_functions, {DOUBLE_FUNCTION: (1, 2), U64_FUNCTION: (1, 1), INT_TEXT_FUNCTION: (1, 2)}
    )
)
