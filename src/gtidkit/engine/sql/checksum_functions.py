"""The functions of a replica-consistency checksum query: CONV, BIT_XOR and CONVERT(expr USING charset).

Percona Toolkit's pt-table-checksum (and pt-table-sync) checksum a chunk of rows with::

    SELECT COUNT(*), COALESCE(LOWER(CONV(BIT_XOR(CAST(CRC32(CONCAT_WS('#', c1, CONVERT(c2 USING utf8mb4), ...,
           CONCAT(ISNULL(c2), ...))) AS UNSIGNED)), 10, 16)), 0) FROM t WHERE <chunk>

CRC32, CONCAT_WS, ISNULL and CAST ... AS UNSIGNED were already run; this module adds the rest:

* ``CONV(N, from_base, to_base)``: N read as a number in ``from_base`` (digits up to the first one invalid in that
  base; a negative ``from_base`` reads N as signed), written in ``to_base`` with upper-case digits (a negative
  ``to_base`` writes it as signed). Values are 64-bit: a negative number read as unsigned wraps
  (``CONV(-1, 10, 16)`` is ``FFFFFFFFFFFFFFFF``), an overflow saturates. NULL for a NULL argument or a base
  outside 2..36.
* ``BIT_XOR(expr)``: aggregate XOR of the values as unsigned 64-bit integers, 0 for no rows (sqlglot's
  ``BitwiseXorAgg`` is renamed to this aggregate).
* ``CONVERT(expr USING charset)`` (sqlglot: a CAST to ``CHARACTER SET``): the engine keeps every string as
  Unicode text, so the conversion is the string value itself.

Kept in its own module so a sibling builtin-function branch can absorb it: ``UDFS`` and ``AGGREGATES`` are
registered by the executor, :func:`rewrite_checksum` runs in ``Executor.fix_functions``.

Source: MySQL 8.4 Reference Manual "Mathematical Functions" (CONV), "Aggregate Function Descriptions"
(BIT_XOR: "returns 0 if there were no matching rows"; unsigned 64-bit), "Cast Functions and Operators"
(CONVERT ... USING); Percona Toolkit 3.2.1 man page pt-table-checksum (the checksum query).
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from sqlglot import exp

__all__ = ["AGGREGATES", "UDFS", "BitXor", "conv", "rewrite_checksum"]

_U64 = 1 << 64
_DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _text(v: Any) -> str:
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def conv(n: Any, from_base: Any, to_base: Any) -> str | None:
    """MySQL's ``CONV(N, from_base, to_base)`` (see the module docstring); None for NULL or a bad base."""
    if n is None or from_base is None or to_base is None:
        return None
    fb, tb = int(from_base), int(to_base)
    if not (2 <= abs(fb) <= 36 and 2 <= abs(tb) <= 36):
        return None
    s = _text(n).strip()
    neg = s.startswith("-")
    if s[:1] in "+-" and s:
        s = s[1:]
    value = 0
    for ch in s.upper():
        d = _DIGITS.find(ch)
        if d < 0 or d >= abs(fb):
            break
        value = value * abs(fb) + d
    if fb < 0:  # signed input: saturate to the signed range
        value = min(value, (1 << 63) if neg else (1 << 63) - 1)
        value = -value if neg else value
    else:
        value = min(value, _U64 - 1)
        if neg:
            value = -value
    value %= _U64
    out_neg = False
    if tb < 0 and value >= 1 << 63:  # signed output
        value, out_neg = _U64 - value, True
    digits = ""
    base = abs(tb)
    while True:
        value, d = divmod(value, base)
        digits = _DIGITS[d] + digits
        if value == 0:
            break
    return "-" + digits if out_neg else digits


def _unsigned(v: Any) -> int | None:
    if v is None:
        return None
    if isinstance(v, (bytes, str)):
        try:
            v = Decimal(_text(v).strip() or 0)
        except ArithmeticError:
            return 0
    return int(v) % _U64


class BitXor:
    """SQLite aggregate for ``BIT_XOR(expr)``: XOR of the non-NULL values as unsigned 64-bit integers."""

    def __init__(self) -> None:
        self.acc = 0

    def step(self, v: Any) -> None:
        """Fold one row's value (NULL is skipped)."""
        u = _unsigned(v)
        if u is not None:
            self.acc ^= u

    def finalize(self) -> int | str:
        """The XOR (0 for no rows); a value above SQLite's signed range is returned as its decimal text."""
        return self.acc if self.acc < 1 << 63 else str(self.acc)


#: scalar functions: name -> (argument count, implementation)
UDFS: dict[str, tuple[int, Callable[..., Any]]] = {"CONV": (3, conv)}
#: aggregates: name -> (argument count, class with step/finalize)
AGGREGATES: dict[str, tuple[int, type]] = {"BIT_XOR": (1, BitXor)}


def rewrite_checksum(tree: exp.Expression) -> exp.Expression:
    """Rewrite ``tree`` in place for SQLite: BitwiseXorAgg -> ``BIT_XOR()``, CONVERT(x USING cs) -> x."""
    for node in list(tree.find_all(exp.BitwiseXorAgg, exp.Cast)):
        if isinstance(node, exp.BitwiseXorAgg):
            # SQLite's Python aggregates give NULL for no rows without calling finalize: MySQL's BIT_XOR gives 0
            call = exp.Anonymous(this="BIT_XOR", expressions=[node.this])
            node.replace(exp.Coalesce(this=call, expressions=[exp.Literal.number(0)]))
        elif node.to.this == exp.DataType.Type.CHARACTER_SET:
            node.replace(node.this)
    return tree
