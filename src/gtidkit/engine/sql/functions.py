"""MySQL functions that SQLite lacks or that sqlglot's MySQL->SQLite transpile gets wrong, as SQLite UDFs plus
tree rewrites applied before generation.

Found by running MySQL expressions through sqlglot 30 + SQLite 3.40 (see tests): ``LEFT``/``RIGHT`` become a
syntax error; ``DATE_ADD(d, INTERVAL 1 HOUR)`` becomes SQLite ``DATE(d, '1 HOUR')``, which truncates to a date
(a silently wrong result); ``CURRENT_TIMESTAMP``/``CURRENT_DATE`` are UTC in SQLite but session-local in MySQL;
``YEAR()``/``MONTH()``/..., ``UNHEX``, ``FROM_UNIXTIME`` do not exist. Temporal values are MySQL's canonical
text (``YYYY-MM-DD[ HH:MM:SS[.ffffff]]``); the functions that depend on the session time zone are in
:mod:`gtidkit.engine.sql.temporal`.
The function families themselves live in :mod:`~gtidkit.engine.sql.functions_string`,
:mod:`~gtidkit.engine.sql.functions_numeric` and :mod:`~gtidkit.engine.sql.functions_datetime`; this module
decides which MySQL call reaches which UDF. Some MySQL functions are parsed by sqlglot into expressions whose
SQLite form loses MySQL's meaning (``DATE_FORMAT``'s ``%i`` and ``%M`` both become ``%M``, ``TO_DAYS`` becomes
``JULIANDAY`` arithmetic, ``TRUNCATE(x, d)`` drops ``d``): :data:`PLAIN_CALLS` are parsed as plain calls instead
(:func:`install_plain_calls`), and :func:`rewrite_for_sqlite` maps the other expressions to UDFs.
Sources: MySQL 8.4 Reference Manual "Date and Time Functions", "String Functions and Operators",
"Mathematical Functions", "Bit Functions and Operators", "Aggregate Function Descriptions".
"""

from __future__ import annotations

import calendar
import datetime as _dt
import re
from collections.abc import Callable
from typing import Any

from sqlglot import exp
from sqlglot.dialects.mysql import MySQL

# the families first: their UDF rows serve some of the built-ins registered below (_register_rewritten)
from gtidkit.engine.sql import functions_datetime, functions_numeric, functions_string  # noqa: F401
from gtidkit.engine.sql.function_arities import NATIVE_ARITIES
from gtidkit.engine.sql.function_table import (
    FIXED_RESULTS,
    FOLLOWS_ARGUMENTS,
    FUNCTIONS,
    MANY,
    Kind,
    SqlFunction,
    check_call,
    register,
    register_nodes,
    rows_from,
)

__all__ = [
    "PLAIN_CALLS",
    "UDFS",
    "date_add",
    "install_plain_calls",
    "register_rewritten_rows",
    "rewrite_for_sqlite",
]

_UNITS = {"MICROSECOND", "SECOND", "MINUTE", "HOUR", "DAY", "WEEK", "MONTH", "QUARTER", "YEAR"}
#: compound INTERVAL units -> the simple units of their parts, largest first (manual "Temporal Intervals")
_COMPOUND_UNITS = {
    "SECOND_MICROSECOND": ("SECOND", "MICROSECOND"),
    "MINUTE_MICROSECOND": ("MINUTE", "SECOND", "MICROSECOND"),
    "MINUTE_SECOND": ("MINUTE", "SECOND"),
    "HOUR_MICROSECOND": ("HOUR", "MINUTE", "SECOND", "MICROSECOND"),
    "HOUR_SECOND": ("HOUR", "MINUTE", "SECOND"),
    "HOUR_MINUTE": ("HOUR", "MINUTE"),
    "DAY_MICROSECOND": ("DAY", "HOUR", "MINUTE", "SECOND", "MICROSECOND"),
    "DAY_SECOND": ("DAY", "HOUR", "MINUTE", "SECOND"),
    "DAY_MINUTE": ("DAY", "HOUR", "MINUTE"),
    "DAY_HOUR": ("DAY", "HOUR"),
    "YEAR_MONTH": ("YEAR", "MONTH"),
}
_US = {"MICROSECOND": 1, "SECOND": 10**6, "MINUTE": 60 * 10**6, "HOUR": 3600 * 10**6, "DAY": 86400 * 10**6}

#: MySQL functions parsed as plain calls (exp.Anonymous) and served by a UDF of the same name (not MOD: it stays
#: exp.Mod, so DECIMAL typing and exact arithmetic see it; rewrite_for_sqlite then makes it the MOD UDF)
PLAIN_CALLS = (
    "DATE_FORMAT", "STR_TO_DATE", "MONTHNAME", "DAYNAME", "DAYOFYEAR", "WEEK", "WEEKOFYEAR", "TO_DAYS",
    "DATEDIFF", "MAKETIME", "TIMESTAMP", "TRUNCATE", "LOG", "LN", "LOG2", "LOG10", "ATAN", "FORMAT",
    "QUARTER", "ELT", "LOCATE", "INSTR",
)  # fmt: skip


def _build_get_format(args: list[exp.Expression]) -> exp.Expression:
    """``GET_FORMAT({DATE|TIME|DATETIME|TIMESTAMP}, 'EUR'|'USA'|'JIS'|'ISO'|'INTERNAL')``: the type keyword, which
    sqlglot reads as a column, becomes a string argument."""
    if args and isinstance(args[0], exp.Column) and not args[0].table:
        args = [exp.Literal.string(args[0].name.upper()), *args[1:]]
    return exp.Anonymous(this="GET_FORMAT", expressions=args)


#: sqlglot's own builders of MySQL calls (before :func:`install_plain_calls` replaced them)
_SQLGLOT_BUILDERS: dict[str, Callable[..., Any]] = dict(MySQL.Parser.FUNCTIONS)


def _checked(name: str, builder: Callable[..., Any]) -> Callable[..., Any]:
    """``builder`` of the call ``name`` checking the argument count against the function table first: MySQL checks
    it as the name is resolved (1582), where sqlglot's parser would give a syntax error or drop arguments."""

    def build(args: list[exp.Expression], dialect: Any = None) -> Any:
        row = FUNCTIONS.get(name)
        if row is not None:
            row.check_arity(len(args))  # the name as written replaces the row's name (parse.parse_tree)
        return builder(args) if dialect is None else builder(args, dialect=dialect)

    build.gk_checked = True  # type: ignore[attr-defined]
    return build


def install_plain_calls() -> None:
    """Make sqlglot's MySQL parser read :data:`PLAIN_CALLS` as plain calls and ``GET_FORMAT``'s type keyword as a
    string, and check every call's argument count against the function table (idempotent; MySQL dialect only)."""
    parser = MySQL.Parser
    if all(getattr(b, "gk_checked", False) for b in parser.FUNCTIONS.values()):
        return
    functions = {k: v for k, v in _SQLGLOT_BUILDERS.items() if k not in PLAIN_CALLS}
    functions["GET_FORMAT"] = _build_get_format
    parser.FUNCTIONS = {name: _checked(name, builder) for name, builder in functions.items()}


install_plain_calls()


def _compound_amount(amount: Any, unit: str) -> tuple[int, int] | None:
    """(months, microseconds) of ``INTERVAL 'amount' unit`` for a compound unit: the string's numbers fill the
    unit's parts from the right (``'1:1' MINUTE_SECOND`` is 61 s; ``'-1 10' DAY_HOUR`` is minus 34 h)."""
    parts = _COMPOUND_UNITS[unit]
    text = (amount.decode() if isinstance(amount, bytes) else str(amount)).strip()
    negative = text.startswith("-")
    numbers = re.findall(r"\d+", text)
    if not numbers or len(numbers) > len(parts):
        return None
    values = dict(zip(parts[len(parts) - len(numbers) :], numbers, strict=True))
    months = us = 0
    for name, raw in values.items():
        if name == "YEAR":
            months += int(raw) * 12
        elif name == "MONTH":
            months += int(raw)
        elif name == "MICROSECOND":
            us += int(raw.ljust(6, "0")[:6]) if parts[-2:] == ("SECOND", "MICROSECOND") else int(raw)
        else:
            us += int(raw) * _US[name]
    return (-months, -us) if negative else (months, us)


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
    unit = unit.upper()
    if unit in _COMPOUND_UNITS:
        got = _compound_amount(amount, unit)
        if got is None:
            return None
        months, us = got
        try:
            d = _add_months(d, sign * months) + _dt.timedelta(microseconds=sign * us)
        except (OverflowError, ValueError):
            return None
        return _fmt(d, has_time or unit != "YEAR_MONTH")
    n = float(amount) * sign
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
    "DAY_OF_MONTH": (1, _part("day")),
    "DAY_OF_WEEK": (1, _dayofweek),
    "DAYOFWEEK": (1, _dayofweek),
    "LAST_DAY": (1, _last_day),
    "UNHEX": (1, _unhex),
    "_GK_RIGHT": (2, _right),
    "_GK_DATE_ADD": (4, lambda v, n, unit, sign: date_add(v, n, unit, int(sign))),
    "ADDDATE": (2, lambda v, n: date_add(v, n, "DAY")),
    "SUBDATE": (2, lambda v, n: date_add(v, n, "DAY", -1)),
}

register(*rows_from(UDFS, reports_errors=False))

#: node class -> UDF name for expressions whose arguments pass through unchanged
_SAME_ARGS: dict[type[exp.Expression], str] = {
    exp.BitwiseCount: "_GK_BIT_COUNT",
    exp.Ceil: "_GK_CEILING",
    exp.Floor: "_GK_FLOOR",
    exp.Hex: "_GK_HEX",
    exp.Time: "_GK_TIME",
    exp.BitwiseAndAgg: "BIT_AND",
    exp.BitwiseOrAgg: "BIT_OR",
    exp.BitwiseXorAgg: "BIT_XOR",
    exp.StddevPop: "_GK_STD_POP",
    exp.StddevSamp: "_GK_STD_SAMP",
    exp.VariancePop: "_GK_VAR_POP",
    exp.Variance: "_GK_VAR_SAMP",
    exp.Stddev: "_GK_STD_POP",
}


def _interval_call(base: exp.Expression, interval: exp.Interval, sign: int) -> exp.Expression | None:
    unit = interval.args.get("unit")
    unit_name = (unit.name if isinstance(unit, exp.Expression) else str(unit or "")).upper()
    if unit_name not in _UNITS and unit_name not in _COMPOUND_UNITS:
        return None
    amount = interval.this
    return exp.Anonymous(
        this="_GK_DATE_ADD",
        expressions=[base, amount, exp.Literal.string(unit_name), exp.Literal.number(sign)],
    )


def _call(name: str, *args: exp.Expression | None) -> exp.Anonymous:
    return exp.Anonymous(this=name, expressions=[a for a in args if a is not None])


def _unit_name(node: exp.Expression) -> str:
    unit = node.args.get("unit")
    return (unit.name if isinstance(unit, exp.Expression) else str(unit or "DAY")).upper()


def _builtin_call(node: exp.Expression) -> exp.Expression | None:
    """The UDF call replacing a sqlglot expression of a MySQL built-in, or None to keep it."""
    name = _SAME_ARGS.get(type(node))
    if name is not None:
        call = _call(name, node.this, *node.expressions)
        if name in _EMPTY_SET_VALUE:  # SQLite gives a Python aggregate of no rows NULL
            return exp.Coalesce(this=call, expressions=[_EMPTY_SET_VALUE[name]])
        return call
    if isinstance(node, exp.Length):
        return _call("_GK_OCTET_LENGTH", node.this) if node.args.get("binary") else None
    if isinstance(node, exp.StrPosition):
        return _call("_GK_LOCATE", node.args.get("substr"), node.this, node.args.get("position"))
    if isinstance(node, exp.Substring):
        start, length = node.args.get("start"), node.args.get("length")
        if length is None:
            return _call("_GK_SUBSTRING", node.this, start or exp.Literal.number(1))
        return _call("MID", node.this, start or exp.Literal.number(1), length)
    if isinstance(node, exp.Chr):
        charset = node.args.get("charset")
        if not isinstance(charset, exp.Expression):
            return _call("_GK_CHAR", *node.expressions)
        return _call("_GK_CHAR_USING", *node.expressions, exp.Literal.string(charset.name))
    if isinstance(node, exp.Mod):
        return _call("MOD", node.this, node.expression)
    if isinstance(node, exp.Log):
        return _call("LOG", node.this, node.expression)
    if isinstance(node, exp.Interval) and node.args.get("unit") is None:
        if isinstance(node.this, exp.Tuple):  # INTERVAL(N, N1, ...), the comparison function
            return _call("_GK_INTERVAL", *node.this.expressions)
        if isinstance(node.this, exp.Paren):  # INTERVAL(N): MySQL's grammar wants a second argument
            from gtidkit.engine.sql.parse import parse_error

            raise parse_error(")", 0)
    if isinstance(node, exp.Concat) and len(node.expressions) == 1:  # sqlglot drops a one-argument CONCAT
        return _call("CONCAT", *node.expressions)
    if isinstance(node, exp.BitwiseXor):
        return _call("_GK_BIT_XOR", node.this, node.expression)
    if isinstance(node, exp.Trim) and node.expression is not None:
        position = str(node.args.get("position") or "BOTH").upper()
        return _call("_GK_TRIM", exp.Literal.string(position), node.this, node.expression)
    if isinstance(node, exp.Extract):
        return _call("_GK_EXTRACT", exp.Literal.string(node.this.name.upper()), node.expression)
    if isinstance(node, exp.TimestampDiff):
        return _call("TIMESTAMPDIFF", exp.Literal.string(_unit_name(node)), node.expression, node.this)
    if isinstance(node, exp.TimestampAdd):
        return _call(
            "_GK_DATE_ADD",
            node.this,
            node.expression,
            exp.Literal.string(_unit_name(node)),
            exp.Literal.number(1),
        )
    if isinstance(node, exp.TimeFromParts):
        return _call("MAKETIME", node.args.get("hour"), node.args.get("min"), node.args.get("sec"))
    if isinstance(node, exp.Anonymous) and node.name.upper() in ("ADDDATE", "SUBDATE"):
        args = node.expressions
        if len(args) == 2 and isinstance(args[1], exp.Interval):
            return _interval_call(args[0], args[1], -1 if node.name.upper() == "SUBDATE" else 1)
    return None


#: the value of a bit aggregate over no rows (manual: BIT_AND 18446744073709551615, BIT_OR / BIT_XOR 0)
_EMPTY_SET_VALUE: dict[str, exp.Expression] = {
    "BIT_AND": exp.Literal.string(str((1 << 64) - 1)),
    "BIT_OR": exp.Literal.number(0),
    "BIT_XOR": exp.Literal.number(0),
}

_BUILTIN_NODES = (
    *_SAME_ARGS,
    exp.Length,
    exp.StrPosition,
    exp.Substring,
    exp.Chr,
    exp.Mod,
    exp.Log,
    exp.Interval,
    exp.BitwiseXor,
    exp.Concat,
    exp.Trim,
    exp.Extract,
    exp.TimestampDiff,
    exp.TimestampAdd,
    exp.TimeFromParts,
    exp.Anonymous,
)


def _fsp_args(node: exp.Expression) -> list[exp.Expression]:
    """The fsp argument of CURTIME(n) / UTC_TIME(n) / UTC_TIMESTAMP(n), as the UDF's argument list."""
    fsp = node.this if isinstance(node.this, exp.Expression) else None
    return [fsp] if fsp is not None else []


#: CAST target -> the UDF converting to it (functions_datetime.cast_*), whether it takes an fsp
_TEMPORAL_CASTS = {
    exp.DataType.Type.DATE: ("_GK_CAST_DATE", False),
    exp.DataType.Type.DATETIME: ("_GK_CAST_DATETIME", True),
    exp.DataType.Type.TIME: ("_GK_CAST_TIME", True),
}


def _temporal_cast(node: exp.Cast) -> exp.Expression | None:
    """``CAST(x AS DATE / DATETIME(n) / TIME(n))`` as MySQL converts (``Item_typecast_date`` / ``_datetime`` /
    ``_time``): SQLite's DATE() / DATETIME() / TIME() drop fractional seconds and read fewer forms."""
    to = node.to
    known = _TEMPORAL_CASTS.get(to.this) if isinstance(to, exp.DataType) else None
    if known is None:
        return None
    name, with_fsp = known
    args = [node.this]
    if with_fsp:
        params = to.expressions
        fsp = params[0].this if params and isinstance(params[0], exp.DataTypeParam) else None
        args.append(fsp if isinstance(fsp, exp.Expression) else exp.Literal.number(0))
    return exp.Anonymous(this=name, expressions=args)


def rewrite_for_sqlite(tree: exp.Expression, current_db: str | None = None) -> exp.Expression:
    """Rewrite the MySQL constructs listed in the module docstring in place (returns ``tree``), checking each plain
    call against the function table on the way (``current_db``: the default database its 1305 names).

    Raises:
        MySQLError: 1305 / 1046 for an unknown function, 1582 for a wrong argument count
            (:func:`~gtidkit.engine.sql.function_table.check_call`).
    """
    for node in list(tree.find_all(*_BUILTIN_NODES)):
        if type(node) is exp.Anonymous:
            check_call(node, current_db)
        new_call = _builtin_call(node)
        if new_call is not None:
            node.replace(new_call)
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
            exp.Cast,
        )
    ):
        new: exp.Expression | None = None
        if isinstance(node, exp.Cast):
            new = _temporal_cast(node)
        elif isinstance(node, exp.Left):
            new = exp.Substring(this=node.this, start=exp.Literal.number(1), length=node.expression)
        elif isinstance(node, exp.Right):
            new = exp.Anonymous(this="_GK_RIGHT", expressions=[node.this, node.expression])
        elif isinstance(node, (exp.DateAdd, exp.DateSub)):
            unit = node.args.get("unit")
            iv = exp.Interval(this=node.expression, unit=unit if unit is not None else exp.var("DAY"))
            new = _interval_call(node.this, iv, -1 if isinstance(node, exp.DateSub) else 1)
        elif isinstance(node, (exp.Add, exp.Sub)):
            if isinstance(node.expression, exp.Interval) and node.expression.args.get("unit") is not None:
                new = _interval_call(node.this, node.expression, -1 if isinstance(node, exp.Sub) else 1)
            elif isinstance(node, exp.Add) and isinstance(node.this, exp.Interval):
                other = node.expression
                if isinstance(other, exp.Interval) and other.args.get("unit") is None:
                    other = other.this  # sqlglot reads INTERVAL 1 DAY + '2018-12-31' as two intervals
                new = _interval_call(other, node.this, 1)
        elif isinstance(node, (exp.CurrentTimestamp, exp.Localtime, exp.Localtimestamp)):
            fsp = node.this if isinstance(node.this, exp.Expression) else None
            new = exp.Anonymous(this="NOW", expressions=[fsp] if fsp is not None else [])
        elif isinstance(node, exp.UtcDate):
            new = exp.Anonymous(this="UTC_DATE")
        elif isinstance(node, exp.UtcTime):
            new = exp.Anonymous(this="UTC_TIME", expressions=_fsp_args(node))
        elif isinstance(node, exp.UtcTimestamp):
            new = exp.Anonymous(this="UTC_TIMESTAMP", expressions=_fsp_args(node))
        elif isinstance(node, exp.ConvertTimezone):
            args = [node.args.get("timestamp"), node.args.get("source_tz"), node.args.get("target_tz")]
            new = exp.Anonymous(this="CONVERT_TZ", expressions=[a or exp.Null() for a in args])
        elif isinstance(node, exp.CurrentDate):
            new = exp.Anonymous(this="CURDATE")
        elif isinstance(node, exp.CurrentTime):
            new = exp.Anonymous(this="CURTIME", expressions=_fsp_args(node))
        elif isinstance(node, exp.UnixToTime):
            args = [node.this] + ([node.args["format"]] if node.args.get("format") is not None else [])
            new = exp.Anonymous(this="FROM_UNIXTIME", expressions=args)
        if new is not None:
            node.replace(new)
    return tree


#: sqlglot expression classes that stand for a MySQL built-in (the name its row has)
register_nodes(
    {
        exp.StrPosition: "LOCATE",
        exp.BitLength: "BIT_LENGTH",
        exp.Ascii: "ASCII",
        exp.BitwiseCount: "BIT_COUNT",
        exp.TimestampDiff: "TIMESTAMPDIFF",
        exp.Extract: "EXTRACT",
        exp.DayOfWeek: "DAYOFWEEK",
        exp.DayOfMonth: "DAYOFMONTH",
        exp.Quarter: "QUARTER",
        exp.Year: "YEAR",
        exp.Month: "MONTH",
        exp.LastDay: "LAST_DAY",
        exp.TsOrDsToDate: "DATE",
        exp.BitwiseAndAgg: "BIT_AND",
        exp.BitwiseOrAgg: "BIT_OR",
        exp.BitwiseXorAgg: "BIT_XOR",
        exp.Length: "LENGTH",
    }
)

#: built-ins sqlglot parses into expressions of its own that MySQL's native-function list lacks (grammar functions
#: and aggregates), served by SQLite's functions or by :func:`rewrite_for_sqlite`: their argument counts
_REWRITTEN: dict[str, tuple[int, int]] = {
    "EXTRACT": (2, 2), "TIMESTAMPDIFF": (3, 3), "INTERVAL": (2, MANY), "DATE": (1, 1), "BIT_AND": (1, 1),
    "BIT_OR": (1, 1), "BIT_XOR": (1, 1), "YEAR": (1, 1), "MONTH": (1, 1), "OCTET_LENGTH": (1, 1),
}  # fmt: skip


def register_rewritten_rows() -> None:
    """Rows for the built-ins served through sqlglot's expressions and the rewrites (kind REWRITE): MySQL's native
    functions sqlglot builds (:data:`~gtidkit.engine.sql.function_arities.NATIVE_ARITIES`, implementation: the
    builder) and :data:`_REWRITTEN`, each unless a family registered a row of that name (call once every family
    is imported: :func:`gtidkit.engine.sql.function_families.load_families`)."""
    for name, builder in _SQLGLOT_BUILDERS.items():
        arity = NATIVE_ARITIES.get(name)
        if arity is not None and name not in FUNCTIONS:
            result = FIXED_RESULTS.get(name, FOLLOWS_ARGUMENTS)
            register(SqlFunction(name, *arity, Kind.REWRITE, builder, result=result))
    for name, (low, high) in _REWRITTEN.items():
        if name not in FUNCTIONS:
            result = FIXED_RESULTS.get(name, FOLLOWS_ARGUMENTS)
            register(SqlFunction(name, low, high, Kind.REWRITE, rewrite_for_sqlite, result=result))
