"""MySQL mathematical and bit functions SQLite lacks or computes differently, and the bit and statistical
aggregates, as SQLite UDFs.

Domain errors give NULL as MySQL's do (``LN(-2)``, ``LOG(1, 100)``, ``SQRT(-16)``); integer results of CEILING,
FLOOR and TRUNCATE stay integers. Bit functions work on unsigned 64-bit integers.
Sources: MySQL 8.4 Reference Manual, "Mathematical Functions", "Bit Functions and Operators", "Aggregate Function
Descriptions", "Comparison Functions and Operators" (INTERVAL)
(https://dev.mysql.com/doc/refman/8.4/en/mathematical-functions.html,
https://dev.mysql.com/doc/refman/8.4/en/bit-functions.html,
https://dev.mysql.com/doc/refman/8.4/en/aggregate-functions.html,
https://dev.mysql.com/doc/refman/8.4/en/comparison-operators.html).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from decimal import ROUND_DOWN, Decimal
from typing import Any

from gtidkit.engine.sql.function_table import Kind, register, rows_from
from gtidkit.engine.sql.functions_args import check_count, to_float, to_int, to_number

__all__ = [
    "AGGREGATES",
    "NUMERIC_FUNCTIONS",
    "BitAnd",
    "BitOr",
    "BitXor",
    "Variance",
    "bit_count",
    "ceiling",
    "floor",
    "interval",
    "log",
    "mod",
    "truncate",
]

_U64 = 1 << 64
_I64_MAX = (1 << 63) - 1


def _num(v: Any) -> int | float | None:
    return None if v is None else to_number(v)


def log(*args: Any) -> float | None:
    """``LOG(X)`` (natural) or ``LOG(B, X)`` (base ``B``): NULL when ``X <= 0`` or ``B <= 1`` would be undefined
    (``B`` of 1 or below), or any argument is NULL.

    Raises:
        MySQLError: 1582 for other than one or two arguments.
    """
    check_count("log", args, 1, 2)
    if any(a is None for a in args):
        return None
    x = to_float(args[-1])
    if x <= 0:
        return None
    if len(args) == 1:
        return math.log(x)
    b = to_float(args[0])
    if b <= 0 or b == 1:
        return None
    return math.log(x) / math.log(b)


def _ln(x: Any) -> float | None:
    return None if x is None or to_float(x) <= 0 else math.log(to_float(x))


def _log_base(base: float) -> Callable[[Any], float | None]:
    def f(x: Any) -> float | None:
        if x is None or to_float(x) <= 0:
            return None
        return math.log2(to_float(x)) if base == 2 else math.log10(to_float(x))

    return f


def mod(n: Any, m: Any) -> int | float | None:
    """``MOD(N, M)`` / ``N % M`` / ``N MOD M``: the remainder with the sign of ``N``; NULL when ``M`` is 0 or an
    argument is NULL (manual: ``MOD(34.5, 3)`` -> 1.5)."""
    if n is None or m is None:
        return None
    a, b = to_number(n), to_number(m)
    if b == 0:
        return None
    if isinstance(a, int) and isinstance(b, int):
        r = abs(a) % abs(b)
        return -r if a < 0 else r
    return math.fmod(a, b)


def _integral(v: Any, fn: Callable[[float], float]) -> int | float | None:
    if v is None:
        return None
    n = to_number(v)
    if isinstance(n, int):
        return n
    r = fn(n)
    return int(r) if math.isfinite(r) and abs(r) <= _I64_MAX else r


def ceiling(v: Any) -> int | float | None:
    """``CEILING(X)`` / ``CEIL(X)``: the smallest integer not less than ``X``, as an integer; NULL -> NULL."""
    return _integral(v, math.ceil)


def floor(v: Any) -> int | float | None:
    """``FLOOR(X)``: the largest integer not greater than ``X``, as an integer; NULL -> NULL."""
    return _integral(v, math.floor)


def truncate(x: Any, d: Any) -> int | float | None:
    """``TRUNCATE(X, D)``: ``X`` cut (toward zero) to ``D`` decimals; a negative ``D`` zeroes ``-D`` integer
    digits; integer ``X`` stays an integer; NULL if either is NULL (manual: ``TRUNCATE(122, -2)`` -> 100)."""
    if x is None or d is None:
        return None
    n, places = to_number(x), to_int(d)
    if isinstance(n, int):
        if places >= 0:
            return n
        unit = 10**-places
        return (abs(n) // unit * unit) * (-1 if n < 0 else 1)
    value = Decimal(repr(n)).quantize(Decimal(1).scaleb(-places), rounding=ROUND_DOWN)
    return float(value)


def interval(*args: Any) -> int:
    """``INTERVAL(N, N1, N2, ...)``: 0 if ``N < N1``, 1 if ``N < N2`` and so on (the list is taken as sorted);
    -1 when ``N`` is NULL.

    Raises:
        MySQLError: 1582 with fewer than two arguments.
    """
    check_count("interval", args, 2)
    if args[0] is None:
        return -1
    n = to_float(args[0])
    count = 0
    for v in args[1:]:
        if v is not None and to_float(v) > n:
            break
        count += 1
    return count


def _signed(v: int) -> int | str:
    """An unsigned 64-bit result as SQLite can carry it: its digits when above BIGINT's range."""
    return v if v <= _I64_MAX else str(v)


def bit_count(v: Any) -> int | None:
    """``BIT_COUNT(N)``: the number of bits set in ``N`` as an unsigned 64-bit integer; NULL -> NULL."""
    return None if v is None else (to_int(v) % _U64).bit_count()


def _atan(*args: Any) -> float | None:
    check_count("atan", args, 1, 2)
    if any(a is None for a in args):
        return None
    if len(args) == 1:
        return math.atan(to_float(args[0]))
    return math.atan2(to_float(args[0]), to_float(args[1]))


def _unary(
    fn: Callable[[float], float], domain: Callable[[float], bool] = lambda x: True
) -> Callable[..., Any]:
    def f(v: Any) -> float | None:
        if v is None:
            return None
        x = to_float(v)
        return fn(x) if domain(x) else None

    return f


#: name -> (argument count, -1 for variadic; implementation)
NUMERIC_FUNCTIONS: dict[str, tuple[int, Callable[..., Any]]] = {
    "LOG": (-1, log),
    "LN": (1, _ln),
    "LOG2": (1, _log_base(2)),
    "LOG10": (1, _log_base(10)),
    "MOD": (2, mod),
    "_GK_CEILING": (1, ceiling),
    "_GK_FLOOR": (1, floor),
    "TRUNCATE": (2, truncate),
    "_GK_INTERVAL": (-1, interval),
    "_GK_BIT_COUNT": (1, bit_count),
    "_GK_BIT_XOR": (
        2,
        lambda a, b: None if a is None or b is None else _signed((to_int(a) ^ to_int(b)) % _U64),
    ),
    "ATAN": (-1, _atan),
    # COT(0) is infinite: the DOUBLE overflow check turns it into MySQL's 1690 (decimal_math._DOUBLE_FUNCTIONS)
    "COT": (1, _unary(lambda x: 1 / math.tan(x) if x != 0 else math.inf)),
}


class _BitAgg:
    """Base of BIT_AND / BIT_OR / BIT_XOR: NULL values are ignored; the result is an unsigned 64-bit integer."""

    start = 0
    #: how the accumulator takes one value (``operator.and_`` / ``or_`` / ``xor``)
    combine: Callable[[int, int], int] = staticmethod(operator.or_)

    def __init__(self) -> None:
        self.acc = self.start

    def step(self, v: Any) -> None:
        """Fold one value (NULL ignored)."""
        if v is not None:
            self.acc = self.combine(self.acc, to_int(v) % _U64)

    def finalize(self) -> int | str:
        """The result (values above BIGINT's range, such as BIT_AND of no rows, as their decimal text)."""
        return self.acc if self.acc <= _I64_MAX else str(self.acc)


class BitAnd(_BitAgg):
    """``BIT_AND(expr)``: bitwise AND of all values; 18446744073709551615 (all bits) when there are none."""

    start = _U64 - 1
    combine = staticmethod(operator.and_)


class BitOr(_BitAgg):
    """``BIT_OR(expr)``: bitwise OR of all values; 0 when there are none."""

    combine = staticmethod(operator.or_)


class BitXor(_BitAgg):
    """``BIT_XOR(expr)``: bitwise XOR of all values; 0 when there are none."""

    combine = staticmethod(operator.xor)


class Variance:
    """Welford's running variance; subclasses choose population or sample and whether to take the root.

    ``STD`` / ``STDDEV`` / ``STDDEV_POP`` / ``VARIANCE`` / ``VAR_POP`` divide by N, ``STDDEV_SAMP`` / ``VAR_SAMP``
    by N - 1; NULL values are ignored; NULL when there are no values (or one value for the sample forms).
    """

    sample = False
    root = False

    def __init__(self) -> None:
        self.n = 0
        self.mean = 0.0
        self.m2 = 0.0

    def step(self, v: Any) -> None:
        """Fold one value (NULL ignored)."""
        if v is None:
            return
        x = to_float(v)
        self.n += 1
        delta = x - self.mean
        self.mean += delta / self.n
        self.m2 += delta * (x - self.mean)

    def finalize(self) -> float | None:
        """The statistic, or NULL."""
        divisor = self.n - 1 if self.sample else self.n
        if divisor <= 0:
            return None
        var = self.m2 / divisor
        return math.sqrt(var) if self.root else var


class _VarPop(Variance):
    pass


class _VarSamp(Variance):
    sample = True


class _StdPop(Variance):
    root = True


class _StdSamp(Variance):
    sample = True
    root = True


#: aggregate name -> (argument count, class with step/finalize)
AGGREGATES: dict[str, tuple[int, type]] = {
    "BIT_AND": (1, BitAnd),
    "BIT_OR": (1, BitOr),
    "BIT_XOR": (1, BitXor),
    "_GK_VAR_POP": (1, _VarPop),
    "_GK_VAR_SAMP": (1, _VarSamp),
    "_GK_STD_POP": (1, _StdPop),
    "_GK_STD_SAMP": (1, _StdSamp),
}

register(*rows_from(NUMERIC_FUNCTIONS))
#: SQLite gives a Python aggregate's own exceptions as its generic error: these raise none of MySQL's
register(*rows_from(AGGREGATES, Kind.AGGREGATE, reports_errors=False))
