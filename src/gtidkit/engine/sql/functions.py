"""MySQL functions that SQLite lacks or that sqlglot's MySQL->SQLite transpile gets wrong, as SQLite UDFs plus
tree rewrites applied before generation.

Found by running MySQL expressions through sqlglot 30 + SQLite 3.40 (see tests): ``LEFT``/``RIGHT`` become a
syntax error; ``DATE_ADD(d, INTERVAL 1 HOUR)`` becomes SQLite ``DATE(d, '1 HOUR')``, which truncates to a date
(a silently wrong result); ``CURRENT_TIMESTAMP``/``CURRENT_DATE`` are UTC in SQLite but session-local in MySQL;
``YEAR()``/``MONTH()``/..., ``UNHEX``, ``FROM_UNIXTIME`` do not exist. Temporal values are MySQL's canonical
text (``YYYY-MM-DD[ HH:MM:SS[.ffffff]]``); the functions that depend on the session time zone are in
:mod:`gtidkit.engine.sql.temporal`.
Sources: MySQL manual "Date and Time Functions", "String Functions".
"""

from __future__ import annotations

import calendar
import datetime as _dt
from collections.abc import Callable
from typing import Any

from sqlglot import exp

__all__ = ["UDFS", "date_add", "rewrite_for_sqlite"]

_UNITS = {"MICROSECOND", "SECOND", "MINUTE", "HOUR", "DAY", "WEEK", "MONTH", "QUARTER", "YEAR"}


def _parse(v: Any) -> tuple[_dt.datetime, bool] | None:
    """(datetime, has_time) of a MySQL temporal text, or None when it is not one."""
    if v is None:
        return None
    text = (v.decode() if isinstance(v, bytes) else str(v)).strip()
    for fmt, has_time in (("%Y-%m-%d %H:%M:%S.%f", True), ("%Y-%m-%d %H:%M:%S", True), ("%Y-%m-%d", False)):
        try:
            return _dt.datetime.strptime(text, fmt), has_time
        except ValueError:
            continue
    return None


def _fmt(d: _dt.datetime, has_time: bool) -> str:
    if not has_time:
        return d.strftime("%Y-%m-%d")
    out = d.strftime("%Y-%m-%d %H:%M:%S")
    return out + f".{d.microsecond:06d}" if d.microsecond else out


def _add_months(d: _dt.datetime, months: int) -> _dt.datetime:
    y, m = divmod(d.month - 1 + months, 12)
    year, month = d.year + y, m + 1
    day = min(d.day, calendar.monthrange(year, month)[1])  # MySQL clamps to the month's last day
    return d.replace(year=year, month=month, day=day)


def date_add(value: Any, amount: Any, unit: str, sign: int = 1) -> str | None:
    """MySQL ``DATE_ADD(value, INTERVAL amount unit)`` (``sign=-1``: DATE_SUB); NULL for NULL or invalid input.

    A DATE stays a DATE for DAY and larger units, as in MySQL.
    """
    parsed = _parse(value)
    if parsed is None or amount is None:
        return None
    d, has_time = parsed
    n = float(amount) * sign
    unit = unit.upper()
    try:
        if unit in ("MONTH", "QUARTER", "YEAR"):
            months = int(n) * {"MONTH": 1, "QUARTER": 3, "YEAR": 12}[unit]
            d = _add_months(d, months)
        else:
            seconds = {
                "MICROSECOND": 1e-6,
                "SECOND": 1,
                "MINUTE": 60,
                "HOUR": 3600,
                "DAY": 86400,
                "WEEK": 604800,
            }[unit]
            d = d + _dt.timedelta(seconds=n * seconds)
            if unit not in ("DAY", "WEEK"):
                has_time = True
    except (OverflowError, ValueError):
        return None
    return _fmt(d, has_time)


def _part(attr: str) -> Callable[[Any], Any]:
    def f(v: Any) -> Any:
        p = _parse(v)
        return None if p is None else getattr(p[0], attr)

    return f


def _last_day(v: Any) -> Any:
    p = _parse(v)
    if p is None:
        return None
    d = p[0]
    return d.replace(day=calendar.monthrange(d.year, d.month)[1]).strftime("%Y-%m-%d")


def _dayofweek(v: Any) -> Any:
    p = _parse(v)
    return None if p is None else (p[0].isoweekday() % 7) + 1  # MySQL: 1 = Sunday ... 7 = Saturday


def _right(s: Any, n: Any) -> Any:
    if s is None or n is None:
        return None
    s = s.decode() if isinstance(s, bytes) else str(s)
    n = int(n)
    return s[-n:] if n > 0 else ""


def _unhex(s: Any) -> Any:
    if s is None:
        return None
    try:
        return bytes.fromhex(s.decode() if isinstance(s, bytes) else str(s))
    except ValueError:
        return None


#: name -> (argument count, implementation); registered on every session connection.
UDFS: dict[str, tuple[int, Callable[..., Any]]] = {
    "YEAR": (1, _part("year")),
    "MONTH": (1, _part("month")),
    "DAY": (1, _part("day")),
    "DAYOFMONTH": (1, _part("day")),
    "HOUR": (1, _part("hour")),
    "MINUTE": (1, _part("minute")),
    "SECOND": (1, _part("second")),
    "DAY_OF_WEEK": (1, _dayofweek),
    "DAYOFWEEK": (1, _dayofweek),
    "LAST_DAY": (1, _last_day),
    "UNHEX": (1, _unhex),
    "_GK_RIGHT": (2, _right),
    "_GK_DATE_ADD": (4, lambda v, n, unit, sign: date_add(v, n, unit, int(sign))),
}


def _interval_call(base: exp.Expression, interval: exp.Interval, sign: int) -> exp.Expression | None:
    unit = interval.args.get("unit")
    unit_name = (unit.name if isinstance(unit, exp.Expression) else str(unit or "")).upper()
    if unit_name not in _UNITS:
        return None
    amount = interval.this
    return exp.Anonymous(
        this="_GK_DATE_ADD",
        expressions=[base, amount, exp.Literal.string(unit_name), exp.Literal.number(sign)],
    )


def rewrite_for_sqlite(tree: exp.Expression) -> exp.Expression:
    """Rewrite the MySQL constructs listed in the module docstring in place (returns ``tree``)."""
    for node in list(
        tree.find_all(
            exp.Left,
            exp.Right,
            exp.DateAdd,
            exp.DateSub,
            exp.Add,
            exp.Sub,
            exp.CurrentTimestamp,
            exp.CurrentDate,
            exp.CurrentTime,
            exp.UnixToTime,
            exp.Localtime,
            exp.Localtimestamp,
            exp.UtcDate,
            exp.UtcTime,
            exp.UtcTimestamp,
            exp.ConvertTimezone,
        )
    ):
        new: exp.Expression | None = None
        if isinstance(node, exp.Left):
            new = exp.Substring(this=node.this, start=exp.Literal.number(1), length=node.expression)
        elif isinstance(node, exp.Right):
            new = exp.Anonymous(this="_GK_RIGHT", expressions=[node.this, node.expression])
        elif isinstance(node, (exp.DateAdd, exp.DateSub)):
            unit = node.args.get("unit")
            iv = exp.Interval(this=node.expression, unit=unit if unit is not None else exp.var("DAY"))
            new = _interval_call(node.this, iv, -1 if isinstance(node, exp.DateSub) else 1)
        elif isinstance(node, (exp.Add, exp.Sub)):
            if isinstance(node.expression, exp.Interval):
                new = _interval_call(node.this, node.expression, -1 if isinstance(node, exp.Sub) else 1)
            elif isinstance(node, exp.Add) and isinstance(node.this, exp.Interval):
                new = _interval_call(node.expression, node.this, 1)
        elif isinstance(node, (exp.CurrentTimestamp, exp.Localtime, exp.Localtimestamp)):
            fsp = node.this if isinstance(node.this, exp.Expression) else None
            new = exp.Anonymous(this="NOW", expressions=[fsp] if fsp is not None else [])
        elif isinstance(node, exp.UtcDate):
            new = exp.Anonymous(this="UTC_DATE")
        elif isinstance(node, exp.UtcTime):
            new = exp.Anonymous(this="UTC_TIME")
        elif isinstance(node, exp.UtcTimestamp):
            new = exp.Anonymous(this="UTC_TIMESTAMP")
        elif isinstance(node, exp.ConvertTimezone):
            args = [node.args.get("timestamp"), node.args.get("source_tz"), node.args.get("target_tz")]
            new = exp.Anonymous(this="CONVERT_TZ", expressions=[a or exp.Null() for a in args])
        elif isinstance(node, exp.CurrentDate):
            new = exp.Anonymous(this="CURDATE")
        elif isinstance(node, exp.CurrentTime):
            new = exp.Anonymous(this="CURTIME")
        elif isinstance(node, exp.UnixToTime):
            args = [node.this] + ([node.args["format"]] if node.args.get("format") is not None else [])
            new = exp.Anonymous(this="FROM_UNIXTIME", expressions=args)
        if new is not None:
            node.replace(new)
    return tree
