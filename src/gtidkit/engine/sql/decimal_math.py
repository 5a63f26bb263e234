"""Exact DECIMAL arithmetic for statements run on SQLite: UDFs, the tree rewrite that calls them, and the final
conversion of result values to their MySQL type.

SQLite holds a DECIMAL(M,D) value with M <= 15 as the nearest double (NUMERIC affinity, see ``values.py``), and a
double of at most 15 significant digits gives its decimal digits back exactly (``repr``); wider ones as exact text. Arithmetic whose MySQL result type is
DECIMAL (:mod:`numeric_types`) is therefore rewritten into UDFs that read their operands back as ``Decimal``,
compute exactly (Python ``decimal``, rounding half away from zero as MySQL does) and hand SQLite the nearest
double of the exact result again. Equal exact results give equal doubles, so WHERE / HAVING comparisons, GROUP
BY and ORDER BY see MySQL's values (``0.1 + 0.2 = 0.3`` is 1); the values sent are then formatted to the
result's scale (:func:`result_converter`, ``'600.50'``). Integer arithmetic, DOUBLE arithmetic and every
statement without DECIMAL-typed arithmetic stay plain SQLite (the point-select path is untouched).

Division follows MySQL's ``decimal_div``: the quotient keeps the dividend's and divisor's fraction digits plus
``div_precision_increment`` rounded up to a multiple of 9 (one ``decimal_digit_t``), truncated, and is rounded to
the declared scale only when sent (manual "Arithmetic Operators": ``(14620 / 9432456) / (24250 / 9432456)``
gives 0.60288653). SUM and AVG of DECIMAL/integer arguments are exact aggregates (``_GK_DEC_SUM``,
``_GK_DEC_AVG``). A result with more than 15 significant digits goes back to SQLite as its exact text (a wide
DECIMAL column holds its values the same way, ``values.py``), which :func:`to_decimal` reads back exactly; integer
arithmetic with a BIGINT UNSIGNED operand runs here too, its values above 2**63-1 being 8-byte blobs in SQLite.
Sources: MySQL manual "Precision Math", "Arithmetic Operators", "Aggregate Function Descriptions".
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import ROUND_DOWN, ROUND_HALF_UP, Context, Decimal, InvalidOperation, localcontext
from typing import Any, cast

from sqlglot import exp

from gtidkit.engine.results import Column, FieldType
from gtidkit.engine.sql import int_math
from gtidkit.engine.sql.function_table import Kind, register, rows_from
from gtidkit.engine.sql.numeric_types import (
    DECIMAL_MAX_PRECISION,
    DIV_PRECISION_INCREMENT,
    NumType,
    cast_decimal_type,
    numeric_type,
)
from gtidkit.engine.sql.scopes import scoped_columns

__all__ = [
    "DecimalAvg",
    "DecimalSum",
    "dbl_round",
    "dec_add",
    "dec_div",
    "dec_mod",
    "dec_mul",
    "dec_round",
    "dec_sub",
    "result_converter",
    "rewrite_exact",
    "to_decimal",
    "to_unsigned",
]

#: Exact intermediate arithmetic: wide enough for two 65-digit operands multiplied.
_CTX = Context(prec=160, rounding=ROUND_HALF_UP)
_DIG_PER_DEC1 = 9  # decimal digits per MySQL decimal_digit_t word


def to_decimal(v: Any) -> Decimal | None:
    """The exact DECIMAL value of an operand as SQLite hands it to a UDF.

    A double gives back its shortest decimal form (the DECIMAL it was stored from), an int itself, a str (a
    literal bound as text) its digits; None stays None (NULL). Non-numeric text counts as 0, as MySQL's string to
    number conversion of a non-number does.
    """
    t = type(v)
    if t is float:
        return Decimal(repr(v))
    if t is int:
        return Decimal(v)
    if v is None:
        return None
    if isinstance(v, Decimal):
        return v
    if t is bytes and len(v) == 8 and v[0] & 0x80:
        return Decimal(int.from_bytes(v, "big"))  # a BIGINT UNSIGNED value above 2**63-1 (u64_to_sqlite)
    try:
        return Decimal(v.decode() if isinstance(v, bytes) else str(v).strip())
    except InvalidOperation:
        return Decimal(0)


def _to_sqlite(d: Decimal) -> int | float | bytes | str:
    """The value SQLite carries for an exact result: an int when integral and within 64 bits (2**63 .. 2**64-1 as
    the 8-byte blob a BIGINT UNSIGNED column holds, ``values.u64_to_sqlite``), else the nearest double when it keeps
    every digit (up to 15 significant digits), else the exact text (:func:`to_decimal` reads both back)."""
    if d == d.to_integral_value() and -(2**63) <= d < 2**64:
        n = int(d)
        return n if n < 2**63 else n.to_bytes(8, "big")
    if len(d.as_tuple().digits) > 15:
        return format(d, "f")  # a double would lose digits: the exact text, which to_decimal reads back
    return float(d)


def _frac_digits(d: Decimal) -> int:
    e = d.as_tuple().exponent
    return -e if isinstance(e, int) and e < 0 else 0


def dec_add(a: Any, b: Any) -> int | float | None:
    """UDF ``_GK_DEC_ADD(a, b)``: exact ``a + b`` (NULL if either is NULL)."""
    x, y = to_decimal(a), to_decimal(b)
    if x is None or y is None:
        return None
    return _to_sqlite(_CTX.add(x, y))


def dec_sub(a: Any, b: Any) -> int | float | None:
    """UDF ``_GK_DEC_SUB(a, b)``: exact ``a - b`` (NULL if either is NULL)."""
    x, y = to_decimal(a), to_decimal(b)
    if x is None or y is None:
        return None
    return _to_sqlite(_CTX.subtract(x, y))


def dec_mul(a: Any, b: Any) -> int | float | None:
    """UDF ``_GK_DEC_MUL(a, b)``: exact ``a * b`` (NULL if either is NULL)."""
    x, y = to_decimal(a), to_decimal(b)
    if x is None or y is None:
        return None
    return _to_sqlite(_CTX.multiply(x, y))


def divide(x: Decimal, y: Decimal, increment: int = DIV_PRECISION_INCREMENT) -> Decimal | None:
    """MySQL's DECIMAL division ``x / y``: None when ``y`` is 0 (MySQL returns NULL), else the quotient truncated
    to (fraction digits of x + of y + ``increment``) rounded up to a multiple of 9 digits (``decimal_div``)."""
    if y == 0:
        return None
    digits = _frac_digits(x) + _frac_digits(y) + increment
    frac = -(-digits // _DIG_PER_DEC1) * _DIG_PER_DEC1
    with localcontext(_CTX):
        return (x / y).quantize(Decimal(1).scaleb(-frac), rounding=ROUND_DOWN)


def dec_div(a: Any, b: Any, increment: Any = DIV_PRECISION_INCREMENT) -> int | float | None:
    """UDF ``_GK_DEC_DIV(a, b, increment)``: :func:`divide` of two exact values with the session's
    ``div_precision_increment`` (NULL for NULL or a zero divisor)."""
    x, y = to_decimal(a), to_decimal(b)
    if x is None or y is None:
        return None
    q = divide(x, y, int(increment))
    return None if q is None else _to_sqlite(q)


def dec_mod(a: Any, b: Any) -> int | float | None:
    """UDF ``_GK_DEC_MOD(a, b)``: exact ``a % b`` with the dividend's sign, NULL for NULL or a zero divisor
    (manual "Arithmetic Operators": ``MOD(N, 0)`` returns NULL)."""
    x, y = to_decimal(a), to_decimal(b)
    if x is None or y is None or y == 0:
        return None
    return _to_sqlite(_CTX.remainder(x, y))


def dbl_round(a: Any, d: Any = 0) -> float | None:
    """UDF ``_GK_DBL_ROUND(a, d)``: ROUND of an approximate value, MySQL's ``rint(a * 10^d) / 10^d`` (round half
    to even in the default floating-point mode: ``ROUND(25E-1)`` is 2, manual "Rounding Behavior")."""
    if a is None or d is None:
        return None
    x, n = float(a), int(d)
    if n > 308 or not math.isfinite(x):
        return x  # more digits than a double has: unchanged
    if n < -308:
        return 0.0
    if n >= 0:
        f = 10.0**n
        return round(x * f) / f
    f = 10.0**-n
    return float(round(x / f) * f)


def dec_round(a: Any, d: Any = 0) -> int | float | None:
    """UDF ``_GK_DEC_ROUND(a, d)``: ``a`` rounded half away from zero to ``d`` fraction digits (negative ``d``
    rounds left of the point), MySQL's ROUND of a DECIMAL."""
    x = to_decimal(a)
    if x is None or d is None:
        return None
    # MySQL caps the digits at DECIMAL_MAX_SCALE (30); rounding left of a 65-digit value's first digit gives 0
    n = max(min(int(d), 30), -DECIMAL_MAX_PRECISION)
    with localcontext(_CTX):
        return _to_sqlite(x.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP))


class DecimalSum:
    """Aggregate ``_GK_DEC_SUM(x)``: the exact sum of DECIMAL values (NULL for no non-NULL value)."""

    def __init__(self) -> None:
        self.total: Decimal | None = None

    def step(self, v: Any) -> None:
        """Add one value (NULL is skipped)."""
        d = to_decimal(v)
        if d is not None:
            self.total = d if self.total is None else _CTX.add(self.total, d)

    def finalize(self) -> int | float | None:
        """The sum as SQLite carries it."""
        return None if self.total is None else _to_sqlite(self.total)


class DecimalAvg(DecimalSum):
    """Aggregate ``_GK_DEC_AVG(x)``: exact sum divided by the count with MySQL's :func:`divide`
    (``_GK_DEC_AVG_<n>``: with ``div_precision_increment`` n instead of the default 4)."""

    increment = DIV_PRECISION_INCREMENT

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def step(self, v: Any) -> None:
        """Add one value (NULL is skipped and not counted)."""
        if v is not None:
            self.count += 1
        super().step(v)

    def finalize(self) -> int | float | None:
        """The average as SQLite carries it (NULL for no rows)."""
        if self.total is None:
            return None
        q = divide(self.total, Decimal(self.count), self.increment)
        return None if q is None else _to_sqlite(q)


#: AVG aggregates for every other ``div_precision_increment`` (0..30, the variable's range)
_AVG_BY_INCREMENT: dict[int, type[DecimalAvg]] = {
    n: type(f"DecimalAvg{n}", (DecimalAvg,), {"increment": n})
    for n in range(31)
    if n != DIV_PRECISION_INCREMENT
}

_BINARY_UDF = {
    exp.Add: "_GK_DEC_ADD",
    exp.Sub: "_GK_DEC_SUB",
    exp.Mul: "_GK_DEC_MUL",
    exp.Div: "_GK_DEC_DIV",
    exp.Mod: "_GK_DEC_MOD",
}


def _register() -> None:
    """This module's rows of the function table: the UDFs and aggregates :func:`rewrite_exact` calls (exact
    arithmetic on text; no MySQL error of their own reaches the statement through them)."""
    scalars = {
        "_GK_DEC_ADD": (2, dec_add),
        "_GK_DEC_SUB": (2, dec_sub),
        "_GK_DEC_MUL": (2, dec_mul),
        "_GK_DEC_DIV": (3, dec_div),
        "_GK_DEC_MOD": (2, dec_mod),
        "_GK_DEC_ROUND": (2, dec_round),
        "_GK_DBL_ROUND": (2, dbl_round),
        "_GK_UNSIGNED": (1, to_unsigned),
    }
    aggregates: dict[str, tuple[int, type]] = {"_GK_DEC_SUM": (1, DecimalSum), "_GK_DEC_AVG": (1, DecimalAvg)}
    aggregates.update({f"_GK_DEC_AVG_{n}": (1, cls) for n, cls in _AVG_BY_INCREMENT.items()})
    register(*rows_from(scalars, reports_errors=False))
    register(*rows_from(aggregates, Kind.AGGREGATE, reports_errors=False))


def _exact_operand(node: exp.Expression) -> exp.Expression:
    """A decimal literal is passed as text so that all its digits reach the UDF."""
    if (
        isinstance(node, exp.Literal)
        and not node.is_string
        and "." in node.this
        and "e" not in node.this.lower()
    ):
        return exp.Literal.string(node.this)
    return node


def rewrite_exact(
    tree: exp.Expression,
    column_type: Callable[[exp.Column], NumType | None],
    literal_of: Callable[[str], Any] | None = None,
    increment: int = DIV_PRECISION_INCREMENT,
) -> exp.Expression:
    """Replace, in place, the arithmetic and aggregates of ``tree`` whose MySQL result is DECIMAL by the exact
    UDFs above (``a * b`` -> ``_GK_DEC_MUL(a, b)``, ``SUM(d)`` -> ``_GK_DEC_SUM(d)``, ``7 / 2`` ->
    ``_GK_DEC_DIV(7, 2, 4)``, ``CAST(x AS DECIMAL(5,2))`` -> ``_GK_DEC_ROUND(x, 2)``; ROUND of a DOUBLE ->
    ``_GK_DBL_ROUND``). Other nodes are left to SQLite. Returns ``tree``.

    Args:
        tree: a resolved statement tree (its column references answer ``column_type``).
        column_type: the :class:`NumType` of a column reference (None: unknown).
        literal_of: values of the ``:gk<i>`` placeholders standing for literals.
        increment: the session's ``div_precision_increment``.
    """
    kinds = (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.IntDiv, exp.Mod, exp.Sum, exp.Avg, exp.Round, exp.Cast)
    owners = _column_prefixes(tree)
    # integer arithmetic that may leave 64 bits: (node, type, its text as MySQL prints it), and the literals
    # that text names
    checked: list[tuple[exp.Expression, NumType, str]] = []
    checked_literals: list[list[exp.Expression]] = []
    for found in tree.find_all(exp.Neg, exp.Abs):
        node = cast(exp.Expression, found)
        operand = node.this
        while isinstance(operand, exp.Paren):
            operand = operand.this
        if isinstance(node, exp.Neg) and isinstance(operand, (exp.Literal, exp.Placeholder)):
            continue  # a negative literal: SQLite's minus (or _GK_NEG) is exact
        t = numeric_type(operand, column_type, literal_of, increment)
        if t is not None and t.kind == "int" and t.length >= _WIDE_LENGTH:
            # unary minus is signed (Item_func_neg); ABS keeps its argument's sign flag (Item_func_abs)
            unsigned = isinstance(node, exp.Abs) and t.unsigned
            checked.append(
                (node, NumType("int", 19, 0, 20, unsigned), int_math.item_text(node, owners, lits := []))
            )
            checked_literals.append(lits)
    # DOUBLE results that may overflow (Item_func::check_float_overflow: 1690 where SQLite gives inf): typed
    # DOUBLE arithmetic, and the functions that can leave the DOUBLE range
    doubles: list[tuple[exp.Expression, str, list[exp.Expression]]] = []
    for found in tree.find_all(exp.Add, exp.Sub, exp.Mul, exp.Div, *_DOUBLE_FUNCTIONS):
        node = cast(exp.Expression, found)
        if not isinstance(node, _DOUBLE_FUNCTIONS):
            t = numeric_type(node, column_type, literal_of, increment)
            if t is None or t.kind != "double":
                continue
        doubles.append((node, int_math.item_text(node, owners, lits := []), lits))
    # CAST(<DOUBLE> AS SIGNED): rounded as MySQL's val_int rounds a DOUBLE, 1690 for a function's value out of range
    signed_casts: list[tuple[exp.Expression, str, str, list[exp.Expression]]] = []
    for found in tree.find_all(exp.Cast):
        node = cast(exp.Expression, found)
        to = node.args.get("to")
        if not isinstance(to, exp.DataType) or to.this != exp.DataType.Type.BIGINT:
            continue
        operand = node.this
        while isinstance(operand, (exp.Paren, exp.Neg)):
            operand = operand.this
        t = numeric_type(node.this, column_type, literal_of, increment)
        if (t is None or t.kind != "double") and not isinstance(operand, _REAL_FUNCTIONS):
            continue
        op = "rint_clip" if isinstance(operand, (exp.Literal, exp.Placeholder)) else "rint"
        signed_casts.append((node, op, int_math.item_text(node.this, owners, lits := []), lits))
    # ROUND of an integer: the same integer type, 1690 when rounding leaves its range (Item_func_round::int_op:
    # ROUND(9223372036854775807, -1))
    rounded: list[tuple[exp.Expression, NumType, str, list[exp.Expression]]] = []
    for found in tree.find_all(exp.Round):
        node = cast(exp.Expression, found)
        t = numeric_type(node, column_type, literal_of, increment)
        if t is not None and t.kind == "int":
            rounded.append((node, t, int_math.item_text(node, owners, lits := []), lits))
    bits = [
        cast(exp.Expression, b)
        for b in tree.find_all(*_BIT_UDF)
        if numeric_type(cast(exp.Expression, b), column_type, literal_of, increment) is not None
    ]
    # every node is typed on the original tree first (a replaced operand could no longer be typed), then the
    # nodes are replaced deepest first (find_all is breadth-first), each new call taking its already-replaced
    # operands along
    todo: list[tuple[exp.Expression, NumType]] = []
    for found in tree.find_all(*kinds):
        node = cast(exp.Expression, found)
        t = numeric_type(node, column_type, literal_of, increment)
        if t is None:
            continue
        if isinstance(node, exp.Sum | exp.Avg):
            inner = node.this
            if isinstance(inner, exp.Distinct) and len(inner.expressions) == 1:
                inner = inner.expressions[0]
            arg = numeric_type(inner, column_type, literal_of, increment)
            if arg is None or arg.kind == "double":
                continue  # DOUBLE stays DOUBLE
            if isinstance(node, exp.Sum) and arg.kind == "int" and not _wide_unsigned(arg):
                continue  # SQLite's SUM of integers is exact (BIGINT UNSIGNED values may be blobs)
        elif isinstance(node, exp.Round):
            pass  # exact (integer, DECIMAL) and approximate ROUND both differ from SQLite's round()
        elif isinstance(node, exp.Cast):
            if cast_decimal_type(node) is None:
                continue
        elif isinstance(node, exp.IntDiv) or (
            t.kind == "int" and isinstance(node, (exp.Add, exp.Sub, exp.Mul))
        ):
            if _may_overflow(node, column_type, literal_of):
                checked.append((node, t, int_math.item_text(node, owners, lits := [])))
                checked_literals.append(lits)
            continue
        elif t.kind != "decimal":
            continue
        todo.append((node, t))
    casts = [
        c
        for c in tree.find_all(exp.Cast)
        if isinstance(c.args.get("to"), exp.DataType) and c.args["to"].this == exp.DataType.Type.UBIGINT
    ]
    replaced: dict[int, exp.Expression] = {}  # id(original node) -> the call that replaced it
    for node, t in reversed(todo):
        new: exp.Expression
        if isinstance(node, exp.Sum | exp.Avg):
            name = "_GK_DEC_SUM" if isinstance(node, exp.Sum) else "_GK_DEC_AVG"
            if isinstance(node, exp.Avg) and increment != DIV_PRECISION_INCREMENT:
                name = f"_GK_DEC_AVG_{increment}"
            operand: exp.Expression = node.this
            if isinstance(operand, exp.Distinct):
                operand = exp.Distinct(expressions=[_exact_operand(operand.expressions[0])])
            new = exp.Anonymous(this=name, expressions=[operand])
        elif isinstance(node, exp.Cast):
            # CAST to DECIMAL(p,s) rounds half away from zero to s digits (manual "Rounding Behavior")
            new = exp.Anonymous(
                this="_GK_DEC_ROUND", expressions=[_exact_operand(node.this), exp.Literal.number(t.scale)]
            )
        elif isinstance(node, exp.Round):
            d = node.args.get("decimals")
            new = exp.Anonymous(
                this="_GK_DBL_ROUND" if t.kind == "double" else "_GK_DEC_ROUND",
                expressions=[_exact_operand(node.this), d if d is not None else exp.Literal.number(0)],
            )
        else:
            udf = _BINARY_UDF[type(node)]  # type: ignore[index]
            args = [_exact_operand(node.this), _exact_operand(node.expression)]
            if isinstance(node, exp.Div):
                args.append(exp.Literal.number(increment))
            new = exp.Anonymous(this=udf, expressions=args)
        node.replace(new)
        replaced[id(node)] = new
    for (node, t, text), lits in reversed(list(zip(checked, checked_literals))):
        if isinstance(node, exp.Neg | exp.Abs):
            op, args = ("neg" if isinstance(node, exp.Neg) else "abs"), [node.this, exp.Null()]
        else:
            op, args = _INT_OP[type(node)], [node.this, node.expression]
        node.replace(
            exp.Anonymous(
                this=int_math.INT_ARITH_FUNCTION,
                expressions=[
                    exp.Literal.string(op),
                    *args,
                    exp.Literal.number(int(t.unsigned)),
                    exp.Literal.string(text),
                    *(exp.Placeholder(this=p.name) for p in lits),
                ],
            )
        )
    for b in reversed(bits):  # bit operators: BIGINT UNSIGNED (SQLite's are signed)
        operands = [b.this] if isinstance(b, exp.BitwiseNot) else [b.this, b.expression]
        b.replace(
            exp.Anonymous(
                this=int_math.BIT_FUNCTION, expressions=[exp.Literal.string(_BIT_UDF[type(b)]), *operands]
            )
        )
    for c in reversed(casts):  # CAST(x AS UNSIGNED): SQLite's CAST AS INTEGER has no unsigned half
        c.replace(exp.Anonymous(this="_GK_UNSIGNED", expressions=[c.this]))
    for node, op, text, lits in reversed(signed_casts):
        node.replace(
            exp.Anonymous(
                this=int_math.INT_ARITH_FUNCTION,
                expressions=[
                    exp.Literal.string(op),
                    node.this,
                    exp.Null(),
                    exp.Literal.number(0),
                    exp.Literal.string(text),
                    *(exp.Placeholder(this=p.name) for p in lits),
                ],
            )
        )
    for node, t, text, lits in reversed(rounded):
        _wrap(
            replaced.get(id(node), node),
            int_math.INT_ARITH_FUNCTION,
            [
                exp.Literal.string("="),
                None,
                exp.Null(),
                exp.Literal.number(int(t.unsigned)),
                exp.Literal.string(text),
            ],
            lits,
        )
    for node, text, lits in reversed(doubles):
        _wrap(
            replaced.get(id(node), node),
            int_math.DOUBLE_CHECK_FUNCTION,
            [None, exp.Literal.string(text)],
            lits,
        )
    return tree


#: functions whose result is a DOUBLE (Item_real_func), typed here for CAST(... AS SIGNED)
_REAL_FUNCTIONS = (exp.Pow, exp.Exp, exp.Degrees, exp.Cot, exp.Ln, exp.Log, exp.Sqrt)
#: functions whose DOUBLE result can overflow (mysql-test func_math.result: EXP(750), POW(10, 309), COT(0),
#: DEGREES(1e307) give 1690)
_DOUBLE_FUNCTIONS = (exp.Pow, exp.Exp, exp.Degrees, exp.Cot)


def _wrap(
    node: exp.Expression, udf: str, args: list[exp.Expression | None], lits: list[exp.Expression]
) -> None:
    """Replace ``node`` (wherever it now sits in the tree) by ``udf(args...)``, ``node`` itself taking the place
    of the None in ``args``, followed by placeholders for the literals its text names."""
    call = exp.Anonymous(this=udf, expressions=[])
    node.replace(call)
    call.set(
        "expressions",
        [node if a is None else a for a in args] + [exp.Placeholder(this=p.name) for p in lits],
    )


def to_unsigned(v: Any) -> int | bytes | None:
    """UDF ``_GK_UNSIGNED(x)``: ``CAST(x AS UNSIGNED)`` (manual "Cast Functions and Operators": the value as a
    BIGINT UNSIGNED, a negative integer read as its 64-bit two's complement, so ``CAST(-1 AS UNSIGNED)`` is
    18446744073709551615; a fraction rounded half away from zero; beyond 64 bits the nearest bound). Values above
    2**63-1 go back to SQLite as the blob a BIGINT UNSIGNED column holds (``values.u64_to_sqlite``)."""
    d = to_decimal(v)
    if d is None:
        return None
    with localcontext(_CTX):
        n = int(d.to_integral_value(rounding=ROUND_HALF_UP)) if d.is_finite() else 0
    n = min(max(n, -(2**63)), 2**64 - 1) & (2**64 - 1)
    return n if n < 2**63 else n.to_bytes(8, "big")


#: the display length from which an integer operand may hold 19 digits (BIGINT, a wide literal)
_WIDE_LENGTH = 20
_INT_OP = {exp.Add: "+", exp.Sub: "-", exp.Mul: "*", exp.IntDiv: "DIV"}
_BIT_UDF: dict[type[exp.Expression], str] = {
    exp.BitwiseNot: "~",
    exp.BitwiseOr: "|",
    exp.BitwiseAnd: "&",
    exp.BitwiseXor: "^",
    exp.BitwiseLeftShift: "<<",
    exp.BitwiseRightShift: ">>",
}


def _column_prefixes(tree: exp.Expression) -> Callable[[exp.Column], str]:
    """What MySQL's ``Item_field::print`` writes before a column of a resolved tree: ```db`.`table`.`` when the
    table is referred to by its name, ```alias`.`` for an aliased table ("" when the column's table is unknown);
    the column's table is found by SELECT scope (:func:`scopes.scoped_columns`)."""
    tables = [
        (t.alias, t.meta["gk_table"]) for t in tree.find_all(exp.Table) if "gk_table" in t.meta and t.alias
    ]

    def prefix(ref: exp.Column) -> str:
        found = scoped_columns(ref, tables)
        if len(found) == 1:
            alias, tdef, _ = found[0]
            return f"`{tdef.schema}`.`{tdef.name}`." if alias == tdef.name else f"`{alias}`."
        return f"`{ref.table}`." if ref.table else ""

    return prefix


def _may_overflow(
    node: exp.Expression,
    column_type: Callable[[exp.Column], NumType | None],
    literal_of: Callable[[str], Any] | None,
) -> bool:
    """True when integer ``+ - *`` ``node`` can leave the range of its type: an UNSIGNED operand (the result may
    be negative or above 2**63-1), a BIGINT-wide operand, or a product of 19 or more digits. Narrower integer
    arithmetic always fits SQLite's 64-bit integers and MySQL's BIGINT."""
    a = numeric_type(node.this, column_type, literal_of)
    b = numeric_type(node.expression, column_type, literal_of)
    if a is None or b is None:
        return True
    if a.unsigned or b.unsigned:
        return True
    if isinstance(node, exp.Mul):
        return a.precision + b.precision >= 19
    return max(a.length, b.length) >= _WIDE_LENGTH


def _wide_unsigned(t: NumType) -> bool:
    """True for a BIGINT UNSIGNED operand, whose values above 2**63-1 SQLite holds as blobs."""
    return t.kind == "int" and t.unsigned and t.length >= 20


def _u64(v: Any) -> Any:
    """A BIGINT UNSIGNED result value as sent: an 8-byte blob back to its int."""
    return int.from_bytes(v, "big") if type(v) is bytes and len(v) == 8 else v


def _decimal_converter(scale: int) -> Callable[[Any], Any]:
    quantum = Decimal(1).scaleb(-scale)

    def convert(v: Any) -> Any:
        d = to_decimal(v)
        if d is None:
            return None
        with localcontext(_CTX):
            return d.quantize(quantum, rounding=ROUND_HALF_UP)

    return convert


def _double(v: Any) -> Any:
    return float(v) if isinstance(v, int) else v


def result_converter(col: Column | None) -> Callable[[Any], Any] | None:
    """The conversion from the value SQLite returns to the value sent for a result column of metadata ``col``:
    NEWDECIMAL -> ``Decimal`` with exactly ``col.decimals`` fraction digits (rounded half away from zero, so
    ``600.5`` is sent as ``'600.50'``), DOUBLE -> float; None when the value needs no conversion."""
    if col is None:
        return None
    if col.type == FieldType.MYSQL_TYPE_NEWDECIMAL:
        return _decimal_converter(col.decimals)
    if col.type == FieldType.MYSQL_TYPE_DOUBLE:
        return _double
    if col.type == FieldType.MYSQL_TYPE_LONGLONG:
        return _u64  # integer arithmetic on BIGINT UNSIGNED gives 2**63 .. 2**64-1 as blobs
    return None


_register()
