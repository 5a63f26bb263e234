"""Result types of numeric expressions: MySQL's type derivation for arithmetic and numeric aggregates.

MySQL gives every expression a result type when it resolves the statement (``Item_num_op::resolve_type``,
``Item_func_*::result_precision``, ``Item_sum_sum`` / ``Item_sum_avg::resolve_type``); the column definition
packet announces it and the value is formatted to it. The rules (manual "Precision Math", "Arithmetic
Operators", "Aggregate Function Descriptions", "Type Conversion in Expression Evaluation"):

* an operand that is DOUBLE/FLOAT, an approximate literal (``1e0``) or a string makes the result DOUBLE;
* integer ``+ - *`` integer stays an integer (LONGLONG); ``/`` of exact values is DECIMAL;
* DECIMAL(p1,s1) op DECIMAL(p2,s2), an integer counting as DECIMAL(digits,0):
  ``+``/``-``: scale max(s1,s2), precision max(p1-s1, p2-s2) + 1 + scale;
  ``*``: scale s1+s2, precision p1+p2;
  ``/``: scale s1 + div_precision_increment (4), precision p1 + s2 + div_precision_increment
  (manual: "5.05 / 0.014 has a scale of six decimal places (360.714286)");
  ``%`` (MOD): scale max(s1,s2), precision max(p1-s1, p2-s2) + scale;
  precision at most 65 and scale at most 30 (DECIMAL_MAX_PRECISION / DECIMAL_MAX_SCALE);
* SUM of an exact value is DECIMAL(p + 22, s) (``DECIMAL_LONGLONG_DIGITS``), AVG is DECIMAL(p + 4, s + 4),
  MIN/MAX keep their argument's type, and SUM/AVG of an approximate value are DOUBLE ("The SUM() and AVG()
  functions return a DECIMAL value for exact-value arguments (integer or DECIMAL), and a DOUBLE value for
  approximate-value arguments (FLOAT or DOUBLE)");
* ROUND(x, d) of a DECIMAL keeps DECIMAL with scale d; ABS and unary minus keep their argument's type;
  COUNT is BIGINT; ``CAST(x AS DECIMAL(p,s))`` is DECIMAL(p,s), DECIMAL alone meaning DECIMAL(10,0) (manual
  "Cast Functions and Operators").

A DECIMAL result column is NEWDECIMAL (246) with length precision + (1 if scale) + (1 unless UNSIGNED) and
decimals = scale (``my_decimal_precision_to_length_no_truncation``); DOUBLE is length 23 with decimals 31
(NOT_FIXED_DEC); integer arithmetic keeps the lengths ``metadata.derived_column`` always used.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from sqlglot import exp

from gtidkit.engine.results import CHARSET_BINARY, NOT_FIXED_DEC, Column, ColumnFlag, FieldType

__all__ = [
    "DECIMAL_MAX_PRECISION",
    "DECIMAL_MAX_SCALE",
    "DIV_PRECISION_INCREMENT",
    "UNSIGNED_SUBTRACTION",
    "NumType",
    "cast_decimal_type",
    "column_of_type",
    "numeric_type",
    "type_of_column",
    "union_type",
]

_T = FieldType
_F = ColumnFlag

#: MySQL's limits for DECIMAL (``decimal.h``: DECIMAL_MAX_PRECISION 65, DECIMAL_MAX_SCALE 30).
DECIMAL_MAX_PRECISION = 65
DECIMAL_MAX_SCALE = 30
#: False while the statement being planned runs under sql_mode NO_UNSIGNED_SUBTRACTION: a subtraction with an
#: UNSIGNED operand is then signed (``Item_func_minus::resolve_type``; RM8 "Out-of-Range and Overflow Handling":
#: ``CAST(0 AS UNSIGNED) - 1`` is 18446744073709551615-overflow error 1690 without the mode, -1 with it). The
#: executor sets it for each statement it plans.
UNSIGNED_SUBTRACTION: ContextVar[bool] = ContextVar("unsigned_subtraction", default=True)
#: ``div_precision_increment``'s default: digits a division adds to its dividend's scale.
DIV_PRECISION_INCREMENT = 4
#: Digits SUM adds to its argument's precision (``DECIMAL_LONGLONG_DIGITS``).
_SUM_EXTRA_DIGITS = 22
#: Display length of a DOUBLE expression (``DBL_DIG + 8``).
_DOUBLE_LENGTH = 23

_INT_TYPES = frozenset(
    {_T.MYSQL_TYPE_TINY, _T.MYSQL_TYPE_SHORT, _T.MYSQL_TYPE_INT24, _T.MYSQL_TYPE_LONG, _T.MYSQL_TYPE_LONGLONG}
)
_STRING_TYPES = frozenset(
    {_T.MYSQL_TYPE_VAR_STRING, _T.MYSQL_TYPE_STRING, _T.MYSQL_TYPE_VARCHAR, _T.MYSQL_TYPE_BLOB}
)


@dataclass(frozen=True, slots=True)
class NumType:
    """The result type of a numeric expression.

    Attributes:
        kind: ``"int"`` (LONGLONG), ``"decimal"`` (NEWDECIMAL) or ``"double"`` (DOUBLE).
        precision: decimal digits in all (for ``int``, the digits of the widest value).
        scale: digits after the point (0 for ``int``; NOT_FIXED_DEC is not used here, a DOUBLE has scale 0).
        length: the display length sent in the column definition (for ``int``: digits plus sign).
        unsigned: the UNSIGNED flag.
        not_null: the NOT_NULL flag (every operand is NOT NULL).
    """

    kind: str
    precision: int
    scale: int = 0
    length: int = 0
    unsigned: bool = False
    not_null: bool = False

    def __post_init__(self) -> None:
        if self.kind not in ("int", "decimal", "double"):
            raise ValueError(f"unknown numeric kind {self.kind!r}")


def _decimal(precision: int, scale: int, unsigned: bool = False, not_null: bool = False) -> NumType:
    scale = min(scale, DECIMAL_MAX_SCALE)
    precision = max(min(precision, DECIMAL_MAX_PRECISION), scale, 1)
    length = precision + (1 if scale else 0) + (0 if unsigned else 1)
    return NumType("decimal", precision, scale, length, unsigned, not_null)


_DOUBLE = NumType("double", 17, 0, _DOUBLE_LENGTH)
_BIT_NODES = (
    exp.BitwiseNot,
    exp.BitwiseOr,
    exp.BitwiseAnd,
    exp.BitwiseXor,
    exp.BitwiseLeftShift,
    exp.BitwiseRightShift,
)


def type_of_column(col: Column) -> NumType | None:
    """The numeric type an operand with metadata ``col`` contributes to arithmetic (None: not numeric here).

    Integers count as DECIMAL(display digits, 0), NEWDECIMAL columns give back their (precision, scale), FLOAT,
    DOUBLE and strings give DOUBLE (MySQL converts a string operand to a double); temporal and NULL operands
    are unknown (None).
    """
    unsigned = bool(col.flags & _F.UNSIGNED)
    not_null = bool(col.flags & _F.NOT_NULL)
    if col.type in _INT_TYPES:
        digits = max(col.length - (0 if unsigned else 1), 1)
        return NumType("int", digits, 0, col.length, unsigned, not_null)
    if col.type == _T.MYSQL_TYPE_NEWDECIMAL:
        scale = col.decimals
        precision = col.length - (1 if scale else 0) - (0 if unsigned else 1)
        return NumType("decimal", max(precision, 1), scale, col.length, unsigned, not_null)
    if col.type in (_T.MYSQL_TYPE_DOUBLE, _T.MYSQL_TYPE_FLOAT) or col.type in _STRING_TYPES:
        return NumType("double", 17, 0, _DOUBLE_LENGTH, False, not_null)
    return None


def _literal_type(text: str) -> NumType:
    """A numeric literal as written: ``12`` BIGINT, ``1.50`` DECIMAL(3,2), ``1e0`` DOUBLE (manual "Numeric
    Literals": exact-value literals have an integer part, a fraction or both; an exponent makes them approximate)."""
    if "e" in text.lower():
        return NumType("double", 17, 0, _DOUBLE_LENGTH, False, True)
    intpart, _, frac = text.lstrip("+-").partition(".")
    digits = max(len(intpart.lstrip("0")), 1)
    if not frac and int(intpart or "0") <= 2**63 - 1:
        return NumType("int", digits, 0, digits + 1, False, True)
    if not frac and int(intpart or "0") <= 2**64 - 1:
        return NumType("int", digits, 0, digits, True, True)  # Item_uint: BIGINT UNSIGNED, no sign position
    return _decimal(digits + len(frac), len(frac), False, True)


def _value_type(value: Any) -> NumType | None:
    """The type of a literal the statement cache replaced by a placeholder (int, Decimal or str)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return _literal_type(str(abs(value)))
    if isinstance(value, Decimal):
        return _literal_type(format(value.copy_abs(), "f"))
    if isinstance(value, float):
        return _DOUBLE
    if isinstance(value, str):
        return NumType("double", 17, 0, _DOUBLE_LENGTH, False, True)
    return None


def _arith(op: type, a: NumType, b: NumType, increment: int) -> NumType:
    not_null = a.not_null and b.not_null
    if a.kind == "double" or b.kind == "double":
        return NumType("double", 17, 0, _DOUBLE_LENGTH, False, not_null)
    unsigned = a.unsigned and b.unsigned
    if a.kind == "int" and b.kind == "int":
        # "Integer operations keep unsigned_flag if one of arguments is unsigned" (Item_func_additive_op /
        # Item_func_mul::result_precision); MOD keeps the dividend's (Item_func_mod::result_precision)
        unsigned = a.unsigned if op is exp.Mod else a.unsigned or b.unsigned
    if op is exp.Sub and unsigned and not UNSIGNED_SUBTRACTION.get():
        unsigned = False  # NO_UNSIGNED_SUBTRACTION
    if op is exp.Mod and a.kind == "int" and b.kind == "int":
        length = max(a.length, b.length)  # the result is smaller than the divisor and has the dividend's sign
        return NumType("int", length - (0 if unsigned else 1), 0, length, unsigned, False)
    if op is not exp.Div and a.kind == "int" and b.kind == "int":
        # integer arithmetic: one digit more than the wider operand for + and -, the sum of the lengths for *
        # (metadata.result: t1.f1+t2.f1 of two INT columns -> LONGLONG length 12)
        length = a.length + b.length if op is exp.Mul else max(a.length, b.length) + 1
        length = min(length, 21 if not unsigned else 20)
        return NumType("int", length - (0 if unsigned else 1), 0, length, unsigned, not_null)
    if op is exp.Mod:
        scale = max(a.scale, b.scale)
        return _decimal(max(a.precision - a.scale, b.precision - b.scale) + scale, scale, unsigned, False)
    if op is exp.Mul:
        return _decimal(a.precision + b.precision, a.scale + b.scale, unsigned, not_null)
    if op is exp.Div:
        return _decimal(
            a.precision + b.scale + increment,
            a.scale + increment,
            unsigned,
            False,
        )
    scale = max(a.scale, b.scale)
    return _decimal(max(a.precision - a.scale, b.precision - b.scale) + 1 + scale, scale, unsigned, not_null)


def numeric_type(
    node: exp.Expression,
    column_type: Callable[[exp.Column], NumType | None],
    literal_of: Callable[[str], Any] | None = None,
    increment: int = DIV_PRECISION_INCREMENT,
) -> NumType | None:
    """The MySQL result type of a numeric expression, or None when it is not one this module derives.

    Args:
        node: a sqlglot expression (MySQL dialect; tables may be resolved already).
        column_type: the type of a column reference (None when unknown or not numeric).
        literal_of: the value of a ``:gk<i>`` placeholder that stands for a literal (the statement cache's
            template), or None when placeholders are unknown.
        increment: the session's ``div_precision_increment`` (digits ``/`` and AVG add to the scale).

    Returns:
        The :class:`NumType` per the rules in the module docstring, or None (string, temporal, unknown).
    """
    while isinstance(node, (exp.Paren, exp.Alias)):
        node = node.this
    if isinstance(node, exp.Column):
        return column_type(node)
    if isinstance(node, exp.Literal):
        return None if node.is_string else _literal_type(node.this)
    if isinstance(node, exp.Placeholder):
        return _value_type(literal_of(node.name)) if literal_of is not None and node.name else None
    if isinstance(node, exp.Neg):
        t = numeric_type(node.this, column_type, literal_of, increment)
        if t is not None and t.kind == "int" and t.unsigned:  # Item_func_neg: a signed BIGINT
            return NumType("int", t.precision, 0, t.length + 1, False, t.not_null)
        return t
    if isinstance(node, _BIT_NODES):
        # Item_func_bit: BIGINT UNSIGNED of 64-bit operands (a binary string operand is not typed here)
        operands = [node.this] if isinstance(node, exp.BitwiseNot) else [node.this, node.expression]
        types = [numeric_type(o, column_type, literal_of, increment) for o in operands]
        if any(t is None for t in types):
            return None
        return NumType("int", 20, 0, 21, True, all(t.not_null for t in types if t is not None))
    if isinstance(node, exp.Count):
        return NumType("int", 20, 0, 21, False, True)
    if isinstance(node, exp.Cast):
        to = node.args.get("to")
        if isinstance(to, exp.DataType) and to.this == exp.DataType.Type.UBIGINT:
            return NumType("int", 20, 0, 20, True, False)  # CAST(x AS UNSIGNED): BIGINT UNSIGNED
        return cast_decimal_type(node)
    if isinstance(node, (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod)):
        if isinstance(node.expression, exp.Interval) or isinstance(node.this, exp.Interval):
            return None  # date arithmetic
        a = numeric_type(node.this, column_type, literal_of, increment)
        b = numeric_type(node.expression, column_type, literal_of, increment)
        if a is None or b is None:
            return None
        return _arith(type(node), a, b, increment)
    if isinstance(node, exp.IntDiv):
        # integer DIV of integers: BIGINT, UNSIGNED if an operand is (Item_func_int_div::resolve_type); DIV of
        # other operands is not typed here
        a = numeric_type(node.this, column_type, literal_of, increment)
        b = numeric_type(node.expression, column_type, literal_of, increment)
        if a is None or b is None or a.kind != "int" or b.kind != "int":
            return None
        unsigned = a.unsigned or b.unsigned
        return NumType("int", a.precision, 0, a.precision + (0 if unsigned else 1), unsigned, False)
    if isinstance(node, (exp.Sum, exp.Avg, exp.Min, exp.Max, exp.Abs, exp.Round)):
        arg = node.this
        if isinstance(arg, exp.Distinct):
            arg = arg.expressions[0] if len(arg.expressions) == 1 else None
        if arg is None:
            return None
        t = numeric_type(arg, column_type, literal_of, increment)
        if t is None:
            return None
        if isinstance(node, exp.Sum):
            return (
                _DOUBLE
                if t.kind == "double"
                else _decimal(t.precision + _SUM_EXTRA_DIGITS, t.scale, t.unsigned)
            )
        if isinstance(node, exp.Avg):
            if t.kind == "double":
                return _DOUBLE
            inc = increment
            return _decimal(t.precision + inc, t.scale + inc, t.unsigned)
        if isinstance(node, exp.Round):
            return _round_type(node, t, literal_of)
        if isinstance(node, exp.Abs):
            return t
        return NumType(t.kind, t.precision, t.scale, t.length, t.unsigned, False)  # MIN / MAX
    return None


def cast_decimal_type(node: exp.Cast) -> NumType | None:
    """The DECIMAL(p,s) type of ``CAST(x AS DECIMAL(p,s))`` (default (10,0)), None for any other target."""
    to = node.args.get("to")
    if not isinstance(to, exp.DataType) or to.this != exp.DataType.Type.DECIMAL:
        return None
    params = [e.name for e in to.expressions]
    if not all(p.isdigit() for p in params):
        return None
    precision = int(params[0]) if params else 10
    scale = int(params[1]) if len(params) > 1 else 0
    return _decimal(precision, scale)


def _round_type(node: exp.Round, t: NumType, literal_of: Callable[[str], Any] | None) -> NumType | None:
    """ROUND(x[, d]) with a constant d (``Item_func_round::resolve_type``; manual "Mathematical Functions": "The
    return value has the same type as the first argument"): a DECIMAL gets scale d (none when d < 0), an integer
    stays an integer, a DOUBLE stays DOUBLE; None when d is not a constant."""
    if t.kind == "double":
        return t
    d_node = node.args.get("decimals")
    sign = 1
    if isinstance(d_node, exp.Neg):
        sign, d_node = -1, d_node.this
    d: Any = 0
    if d_node is not None:
        if isinstance(d_node, exp.Literal) and not d_node.is_string:
            d = d_node.this
        elif isinstance(d_node, exp.Placeholder) and literal_of is not None:
            d = literal_of(d_node.name)
        else:
            return None
    if not isinstance(d, (int, str)) or not str(d).lstrip("-").isdigit():
        return None
    if t.kind == "int":
        return t
    scale = max(min(sign * int(d), DECIMAL_MAX_SCALE), 0)
    grow = 1 if scale < t.scale else 0  # rounding may carry into a new integer digit
    return _decimal(t.precision - t.scale + scale + grow, scale, t.unsigned, t.not_null)


def union_type(types: list[NumType]) -> NumType:
    """The type of a UNION column whose SELECTs give ``types``: DOUBLE if any is approximate, else DECIMAL with
    the most integer digits and the largest scale of them (``Item_aggregate_type``; manual "UNION Clause": the
    column types are determined from all SELECTs).

    Raises:
        ValueError: ``types`` is empty.
    """
    if not types:
        raise ValueError("a UNION column has at least one SELECT")
    not_null = all(t.not_null for t in types)
    if any(t.kind == "double" for t in types):
        return NumType("double", 17, 0, _DOUBLE_LENGTH, False, not_null)
    scale = max(t.scale for t in types)
    digits = max(t.precision - t.scale for t in types)
    return _decimal(digits + scale, scale, all(t.unsigned for t in types), not_null)


def column_of_type(name: str, t: NumType) -> Column:
    """The column definition MySQL sends for an expression of type ``t`` named ``name``.

    Flags are BINARY | NUM (plus NOT_NULL / UNSIGNED from ``t``); charset binary (63).
    """
    flags = _F.BINARY | _F.NUM
    if t.not_null:
        flags |= _F.NOT_NULL
    if t.unsigned:
        flags |= _F.UNSIGNED
    if t.kind == "int":
        return Column(
            name, type=_T.MYSQL_TYPE_LONGLONG, charset=CHARSET_BINARY, length=t.length, flags=int(flags),
            decimals=0,
        )  # fmt: skip
    if t.kind == "decimal":
        return Column(
            name, type=_T.MYSQL_TYPE_NEWDECIMAL, charset=CHARSET_BINARY, length=t.length, flags=int(flags),
            decimals=t.scale,
        )  # fmt: skip
    return Column(
        name, type=_T.MYSQL_TYPE_DOUBLE, charset=CHARSET_BINARY, length=_DOUBLE_LENGTH, flags=int(flags),
        decimals=NOT_FIXED_DEC,
    )  # fmt: skip
