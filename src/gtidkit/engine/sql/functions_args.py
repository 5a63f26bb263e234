"""Argument conversions shared by the built-in SQL function families (``functions_string``, ``functions_numeric``,
``functions_datetime``): MySQL's implicit string-to-number and number-to-string rules, and the parameter-count
check.

Values arrive as SQLite hands them to a UDF: ``None`` (SQL NULL), ``int``, ``float``, ``str`` or ``bytes``.
Source: MySQL 8.4 Reference Manual, "Type Conversion in Expression Evaluation" (a string used as a number is
read up to its first character that cannot continue a number; ``'x-3'`` is 0).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from gtidkit.errors import MySQLError
from gtidkit.mysql_errors import mysql_error

__all__ = ["check_count", "ranged", "to_bytes", "to_float", "to_int", "to_number", "to_text", "wrong_count"]

_NUM_PREFIX = re.compile(r"\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)")


def to_text(v: Any) -> str:
    """MySQL's string form of a non-NULL value: bytes as UTF-8, an integral float without ``.0``."""
    if isinstance(v, str):
        return v
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, float):
        if v.is_integer() and abs(v) < 1e15:
            return str(int(v))
        return repr(v)
    return str(v)


def to_bytes(v: Any) -> bytes:
    """The bytes of a non-NULL value as MySQL stores it in utf8mb4 (bytes unchanged)."""
    return v if isinstance(v, bytes) else to_text(v).encode("utf-8")


def to_number(v: Any) -> int | float:
    """A non-NULL value as a number: ints and floats unchanged, strings read by their numeric prefix (0 if none)."""
    if isinstance(v, (int, float)):
        return v
    m = _NUM_PREFIX.match(to_text(v))
    if m is None:
        return 0
    text = m.group(1)
    if re.fullmatch(r"[+-]?\d+", text):
        return int(text)
    return float(text)


def to_float(v: Any) -> float:
    """A non-NULL value as a double (:func:`to_number`)."""
    return float(to_number(v))


def to_int(v: Any) -> int:
    """A non-NULL value as an integer: numbers rounded half away from zero, as MySQL converts a DECIMAL or
    DOUBLE argument to an integer parameter."""
    n = to_number(v)
    if isinstance(n, int):
        return n
    if not math.isfinite(n):
        return 0
    return int(n + 0.5) if n >= 0 else -int(-n + 0.5)


def check_count(name: str, args: tuple[Any, ...], low: int, high: int | None = None) -> None:
    """Raise ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT (1582) unless ``low <= len(args) <= high`` (``high=None``: no upper
    bound).

    Raises:
        MySQLError: 1582 "Incorrect parameter count in the call to native function '<name>'".
    """
    if len(args) < low or (high is not None and len(args) > high):
        raise wrong_count(name)


def wrong_count(name: str) -> MySQLError:
    """ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT (1582) for function ``name``."""
    return mysql_error(1582, name)


def ranged(name: str, low: int, high: int | None, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` registered as a variadic UDF that accepts ``low..high`` arguments (1582 otherwise, as MySQL's
    ``Create_func`` classes check at parse time)."""

    def call(*args: Any) -> Any:
        check_count(name, args, low, high)
        return fn(*args)

    call.__doc__ = fn.__doc__
    return call
