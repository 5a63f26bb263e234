"""BIGINT arithmetic with MySQL's range checks, and the bit operators as BIGINT UNSIGNED.

MySQL computes integer ``+ - * DIV``, unary minus and ABS in 64 bits and raises ERROR 1690 (ER_DATA_OUT_OF_RANGE,
22003) when the exact result leaves the range of the expression's type: ``BIGINT UNSIGNED`` (0 .. 2**64-1) when
an operand is UNSIGNED (``Item_func_additive_op::result_precision``, ``Item_func_mul::result_precision``:
"Integer operations keep unsigned_flag if one of arguments is unsigned"; ``Item_func_minus::resolve_type`` drops
it under sql_mode NO_UNSIGNED_SUBTRACTION), else ``BIGINT`` (-2**63 .. 2**63-1); ``Item_func::
check_integer_overflow`` / ``raise_integer_overflow``. The message names the expression as ``Item::print``
writes it (mysql-test ``func_math.result``: ``BIGINT UNSIGNED value is out of range in '(18446744073709551615 +
1)'``, ``BIGINT value is out of range in '-(`test`.`t1`.`a`)'``): see :func:`item_text`.

SQLite's own integer arithmetic turns an overflow into a REAL, so the arithmetic that can overflow (an operand
of 19 or more digits: a BIGINT column, a wide literal, a product) is rewritten into the UDFs here; narrower
arithmetic cannot leave 64 bits and stays in SQLite. Values of 2**63 .. 2**64-1 travel through SQLite as the
8-byte blobs a BIGINT UNSIGNED column holds (``values.u64_to_sqlite``).

Bit operators (``~ | & ^ << >>``) work on 64-bit unsigned values and give BIGINT UNSIGNED (manual "Bit
Functions and Operators": "~0" is 18446744073709551615; ``Item_func_bit``), which SQLite's signed operators
do not (``~0`` is -1 there, ``>>`` sign-extends).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

from sqlglot import exp

from gtidkit.engine.sql.function_table import register, rows_from
from gtidkit.mysql_errors import mysql_error

__all__ = [
    "BIT_FUNCTION",
    "DOUBLE_CHECK_FUNCTION",
    "INT_ARITH_FUNCTION",
    "bit_op",
    "double_check",
    "int_arith",
    "int_value",
    "item_text",
]

#: ``_GK_INT_ARITH(op, a, b, unsigned, text, literal...)``: checked integer arithmetic (:func:`int_arith`)
INT_ARITH_FUNCTION = "_GK_INT_ARITH"
#: ``_GK_BIT(op, a, b)``: a bit operator on 64-bit unsigned values (:func:`bit_op`)
BIT_FUNCTION = "_GK_BIT"
#: ``_GK_DBL_CHECK(value, text, literal...)``: a DOUBLE result checked for overflow (:func:`double_check`)
DOUBLE_CHECK_FUNCTION = "_GK_DBL_CHECK"

_U64 = 2**64
_MASK = _U64 - 1
#: marks a literal's position in an :func:`item_text` template: the n-th extra UDF argument
_MARK = "\x01"


def int_value(v: Any) -> int | None:
    """The exact integer an operand stands for as SQLite hands it to a UDF: an int itself, an 8-byte blob the
    BIGINT UNSIGNED value it encodes, a double or text rounded half away from zero (MySQL's ``val_int``), None
    for NULL; text that is no number counts as 0."""
    t = type(v)
    if t is int:
        return v  # type: ignore[no-any-return]
    if v is None:
        return None
    if t is bytes and len(v) == 8 and v[0] & 0x80:
        return int.from_bytes(v, "big")
    try:
        d = Decimal(v.decode() if t is bytes else str(v).strip()) if t is not float else Decimal(repr(v))
    except (InvalidOperation, UnicodeDecodeError):
        return 0
    if not d.is_finite():
        return 0
    return int(d.to_integral_value(rounding=ROUND_HALF_UP))


def _to_sqlite(n: int) -> int | bytes:
    return n if n < 2**63 else n.to_bytes(8, "big")


def int_arith(op: str, a: Any, b: Any, unsigned: int, text: str, *literals: Any) -> int | bytes | None:
    """UDF ``_GK_INT_ARITH``: ``a op b`` (``op`` one of ``+ - * DIV neg abs``, ``=`` for ``a`` itself, ``rint``
    / ``rint_clip`` for a DOUBLE ``a`` as an integer; ``b`` unused for the unary ones) computed
    exactly, NULL if an operand is NULL (or for ``DIV`` by 0, as MySQL's without the strict-mode error).

    Args:
        op: the operator.
        a, b: the operands as SQLite carries them (see :func:`int_value`).
        unsigned: 1 when the expression is BIGINT UNSIGNED.
        text: the expression as MySQL prints it, literals marked (:func:`item_text`).
        literals: the values of the marked literals.

    Returns:
        The result as SQLite carries it (2**63 .. 2**64-1 as an 8-byte blob).

    Raises:
        MySQLError: 1690 when the exact result leaves the expression type's range.
    """
    if op in ("rint", "rint_clip"):
        if type(a) is float:
            return _double_to_bigint(a, op == "rint_clip", text, literals)
        op = "="
    x = int_value(a)
    if x is None:
        return None
    if op == "=":
        r = x  # a value computed elsewhere (ROUND of an integer), range-checked here
    elif op == "neg":
        r = -x
    elif op == "abs":
        r = abs(x)
    else:
        y = int_value(b)
        if y is None:
            return None
        if op == "+":
            r = x + y
        elif op == "-":
            r = x - y
        elif op == "*":
            r = x * y
        else:  # DIV truncates toward zero
            if y == 0:
                return None
            q = abs(x) // abs(y)
            r = q if (x < 0) == (y < 0) else -q
    if (0 <= r < _U64) if unsigned else (-(2**63) <= r < 2**63):
        return _to_sqlite(r)
    kind = "BIGINT UNSIGNED" if unsigned else "BIGINT"
    raise mysql_error(1690, kind, _fill(text, literals))


def _double_to_bigint(v: float, clip: bool, text: str, literals: tuple[Any, ...]) -> int:
    """A DOUBLE in an integer context (``CAST(x AS SIGNED)``): rounded half to even (``llrint`` / ``rint``); out of
    BIGINT's range a function's value raises 1690 naming it (``Item_func::llrint_with_overflow_check``:
    ``cast(pow(2,63) as signed)`` -> ``BIGINT value is out of range in 'pow(2,63)'``, mysql-test func_math.result),
    a literal's is clipped to the nearest bound (``Item_float::val_int``)."""
    if not -(2.0**63) <= v < 2.0**63:
        if clip:
            return -(2**63) if v < 0 else 2**63 - 1
        raise mysql_error(1690, "BIGINT", _fill(text, literals))
    return round(v)


def double_check(value: Any, text: str, *literals: Any) -> Any:
    """UDF ``_GK_DBL_CHECK``: ``value`` (a DOUBLE expression's result) unchanged, unless it is infinite or NaN,
    which MySQL never returns: ``Item_func::check_float_overflow`` raises ERROR 1690 instead (mysql-test
    ``func_math.result``: ``DOUBLE value is out of range in 'pow(10,309)'``, ``'(1e308 + 1e308)'``,
    ``'cot(0)'``).

    Args:
        value: the result as SQLite computed it.
        text: the expression as MySQL prints it, literals marked (:func:`item_text`).
        literals: the values of the marked literals.

    Raises:
        MySQLError: 1690 for an infinite or NaN result.
    """
    if type(value) is float and not math.isfinite(value):
        raise mysql_error(1690, "DOUBLE", _fill(text, literals))
    return value


def _fill(text: str, literals: tuple[Any, ...]) -> str:
    """``text`` with each marked literal written as MySQL prints it."""
    parts = text.split(_MARK)
    out = [parts[0]]
    for i in range(1, len(parts), 2):
        v = literals[int(parts[i])]
        out.append(_literal_text(v))
        out.append(parts[i + 1] if i + 1 < len(parts) else "")
    return "".join(out)


def _literal_text(v: Any) -> str:
    if v is None:
        return "NULL"
    if type(v) is bytes and len(v) == 8 and v[0] & 0x80:
        return str(int.from_bytes(v, "big"))
    if isinstance(v, str):
        return "'" + v.replace("'", "\\'") + "'"
    if isinstance(v, float) and v == int(v) and abs(v) < 1e16:
        return str(int(v))
    return str(v)


def bit_op(op: str, a: Any, b: Any = None) -> int | bytes | None:
    """UDF ``_GK_BIT(op, a, b)``: ``~a``, ``a | b``, ``a & b``, ``a ^ b``, ``a << b``, ``a >> b`` on the 64-bit
    two's-complement forms of the operands, the result BIGINT UNSIGNED (a shift by 64 or more gives 0); NULL if
    an operand is NULL (manual "Bit Functions and Operators")."""
    x = int_value(a)
    if x is None:
        return None
    x &= _MASK
    if op == "~":
        return _to_sqlite(~x & _MASK)
    y = int_value(b)
    if y is None:
        return None
    y &= _MASK
    if op == "|":
        r = x | y
    elif op == "&":
        r = x & y
    elif op == "^":
        r = x ^ y
    elif op == "<<":
        r = (x << y) & _MASK if y < 64 else 0
    else:
        r = x >> y if y < 64 else 0
    return _to_sqlite(r)


#: :func:`int_arith`, :func:`bit_op` and :func:`double_check`, through the executor's wrapper (a raised MySQLError
#: reaches the statement)
register(
    *rows_from(
        {
            INT_ARITH_FUNCTION: (-1, int_arith),
            BIT_FUNCTION: (-1, bit_op),
            DOUBLE_CHECK_FUNCTION: (-1, double_check),
        }
    )
)


_BINARY_TEXT = {
    exp.Add: "+",
    exp.Sub: "-",
    exp.Mul: "*",
    exp.Div: "/",
    exp.IntDiv: "DIV",
    exp.Mod: "%",
    exp.BitwiseOr: "|",
    exp.BitwiseAnd: "&",
    exp.BitwiseXor: "^",
    exp.BitwiseLeftShift: "<<",
    exp.BitwiseRightShift: ">>",
}


#: functions whose ``func_name()`` differs from sqlglot's name for them (POW and POWER are ``pow``)
_FUNC_NAMES: dict[type, str] = {exp.Pow: "pow"}


def item_text(
    node: exp.Expression, column_prefix: Callable[[exp.Column], str], literals: list[exp.Expression]
) -> str:
    """``node`` written as MySQL's ``Item::print`` writes it in error messages: ``(a + b)`` for an operator,
    ``-(x)`` for unary minus, ``cast(x as unsigned)``, a column as ```db`.`table`.`col``` (```alias`.`col``` for
    an aliased table), a function as ``name(a,b)`` in lower case.

    Args:
        node: the expression (a resolved statement's: column qualifiers are table aliases).
        column_prefix: what MySQL writes before a column's name: ```db`.`table`.`` for a table referred to by
            its name, ```alias`.`` for an aliased one, "" when unknown.
        literals: collects the placeholders standing for literals; each is marked in the text by its index
            here (the UDF receives their values and :func:`int_arith` writes them in).
    """
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Placeholder):
        literals.append(node)
        return f"{_MARK}{len(literals) - 1}{_MARK}"
    if isinstance(node, exp.Literal):
        return "'" + node.this.replace("'", "\\'") + "'" if node.is_string else node.this
    if isinstance(node, exp.Null):
        return "NULL"
    if isinstance(node, exp.Neg):
        return f"-({item_text(node.this, column_prefix, literals)})"
    if isinstance(node, exp.BitwiseNot):
        return f"~({item_text(node.this, column_prefix, literals)})"
    if isinstance(node, exp.Column):
        return f"{column_prefix(node)}`{node.name}`"
    op = _BINARY_TEXT.get(type(node))
    if op is not None:
        left = item_text(node.this, column_prefix, literals)
        right = item_text(node.expression, column_prefix, literals)
        return f"({left} {op} {right})"
    if isinstance(node, exp.Cast):
        to = node.args.get("to")
        kind = (
            "unsigned" if isinstance(to, exp.DataType) and to.this == exp.DataType.Type.UBIGINT else "signed"
        )
        return f"cast({item_text(node.this, column_prefix, literals)} as {kind})"
    if isinstance(node, exp.Func):
        name = _FUNC_NAMES.get(type(node)) or (
            node.sql_name().lower() if not isinstance(node, exp.Anonymous) else node.name.lower()
        )
        args = [a for a in node.args.values() if isinstance(a, exp.Expression)]
        return f"{name}({','.join(item_text(a, column_prefix, literals) for a in args)})"
    return node.sql(dialect="mysql")
