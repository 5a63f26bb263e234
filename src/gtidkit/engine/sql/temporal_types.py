"""Result metadata of temporal expressions: NOW(), CURDATE(), CAST(... AS DATE / DATETIME(n) / TIME(n)),
FROM_UNIXTIME(), DATE_ADD() and the other date arithmetic, UNIX_TIMESTAMP().

MySQL types these items as DATE / DATETIME / TIME with the binary character set (63), BINARY_FLAG, their fractional
seconds precision (fsp) as ``decimals`` and a display length of 10 (DATE), 19 (DATETIME) or 10 (TIME, which reaches
``-838:59:59``) plus ``fsp + 1`` when fsp > 0 (``Item_temporal_func``'s ``set_data_type_date/datetime/time``;
``MAX_DATE_WIDTH``, ``MAX_DATETIME_WIDTH``, ``MAX_TIME_WIDTH`` in ``my_time.h``). The current-time functions are
NOT NULL (an ``Item_func`` without nullable arguments is not nullable), CAST, FROM_UNIXTIME and DATE_ADD are
nullable (an invalid value gives NULL). DATE_ADD's type follows its first argument (manual "Date and Time
Functions", DATE_ADD: "DATE if the date argument is a DATE value and your calculations involve only YEAR, MONTH,
and DAY parts", DATETIME if it is a DATETIME / TIMESTAMP or a DATE with a time unit, a string otherwise).
UNIX_TIMESTAMP(d) is an integer, or a DECIMAL with d's fractional digits (manual: "the return value is an integer
if no fractional seconds part is given, or DECIMAL if a fractional part is given").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from sqlglot import exp

from gtidkit.engine.results import CHARSET_BINARY, Column, ColumnFlag, FieldType

__all__ = ["temporal_column", "temporal_converter", "temporal_result"]

_F = ColumnFlag
_T = FieldType

#: type -> display length without fractional seconds (my_time.h MAX_DATE_WIDTH / MAX_DATETIME_WIDTH /
#: MAX_TIME_WIDTH)
_WIDTH: dict[int, int] = {
    _T.MYSQL_TYPE_DATE: 10,
    _T.MYSQL_TYPE_DATETIME: 19,
    _T.MYSQL_TYPE_TIMESTAMP: 19,
    _T.MYSQL_TYPE_TIME: 10,
}

_NOW = frozenset({"NOW", "SYSDATE", "LOCALTIME", "LOCALTIMESTAMP", "CURRENT_TIMESTAMP", "UTC_TIMESTAMP"})
_TODAY = frozenset({"CURDATE", "CURRENT_DATE", "UTC_DATE"})
_CLOCK = frozenset({"CURTIME", "CURRENT_TIME", "UTC_TIME"})
_DATE_ADD = frozenset({"DATE_ADD", "DATE_SUB", "ADDDATE", "SUBDATE"})
#: interval units that change only the date part (a DATE stays a DATE)
_DATE_UNITS = frozenset({"YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "YEAR_MONTH"})

_CAST_TYPES = {
    exp.DataType.Type.DATE: _T.MYSQL_TYPE_DATE,
    exp.DataType.Type.DATETIME: _T.MYSQL_TYPE_DATETIME,
    exp.DataType.Type.DATETIME64: _T.MYSQL_TYPE_DATETIME,
    exp.DataType.Type.TIME: _T.MYSQL_TYPE_TIME,
}


def temporal_result(name: str, ftype: int, fsp: int = 0, *, not_null: bool = False) -> Column:
    """The metadata of a temporal item of type ``ftype`` with ``fsp`` fractional digits (0-6)."""
    fsp = 0 if ftype == _T.MYSQL_TYPE_DATE else max(0, min(6, fsp))
    flags = _F.BINARY | (_F.NOT_NULL if not_null else 0)
    return Column(
        name,
        type=ftype,
        charset=CHARSET_BINARY,
        length=_WIDTH[ftype] + (fsp + 1 if fsp else 0),
        flags=int(flags),
        decimals=fsp,
    )


#: the value of a ``:gk<i>`` placeholder the statement cache took a literal out as (None: unknown)
LiteralOf = Callable[[str], Any]
_UNKNOWN = object()


def _literal(node: Any, literal_of: LiteralOf | None) -> Any:
    """The value of a literal (or of a placeholder standing for one): int, Decimal or str; ``_UNKNOWN`` else."""
    if isinstance(node, exp.DataTypeParam):
        node = node.this
    if isinstance(node, exp.Placeholder) and literal_of is not None:
        value = literal_of(node.name)
        return _UNKNOWN if value is None or isinstance(value, bool) else value
    if isinstance(node, exp.Literal):
        if node.is_string:
            return node.this
        text = node.this
        return int(text) if re.fullmatch(r"\d+", text) else Decimal(text)
    return _UNKNOWN


def _literal_int(node: Any, literal_of: LiteralOf | None) -> int | None:
    value = _literal(node, literal_of)
    return value if type(value) is int else None


def _fsp_arg(node: Any, literal_of: LiteralOf | None) -> int | None:
    """The fsp argument of NOW(n) / CURTIME(n) ...: 0 when absent, None when not a literal."""
    if node is None:
        return 0
    n = _literal_int(node, literal_of)
    return None if n is None or n > 6 else n


def _function_name(node: exp.Expression) -> str:
    if isinstance(node, exp.Anonymous):
        return str(node.name).upper()
    names: dict[type, str] = {
        exp.CurrentTimestamp: "CURRENT_TIMESTAMP",
        exp.Localtime: "LOCALTIME",
        exp.Localtimestamp: "LOCALTIMESTAMP",
        exp.UtcTimestamp: "UTC_TIMESTAMP",
        exp.CurrentDate: "CURRENT_DATE",
        exp.UtcDate: "UTC_DATE",
        exp.CurrentTime: "CURRENT_TIME",
        exp.UtcTime: "UTC_TIME",
    }
    return names.get(type(node), "")


def _scale(
    node: exp.Expression | None,
    meta_of: Callable[[exp.Expression], Column | None] | None,
    literal_of: LiteralOf | None,
) -> int | None:
    """Fractional digits of a value argument (a literal's as written, else its metadata's), None if unknown."""
    if node is None:
        return None
    value = _literal(node, literal_of)
    if isinstance(value, str):
        m = re.search(r"\d:\d{1,2}:\d{1,2}\.(\d+)\s*$", value)
        return min(len(m.group(1)), 6) if m else 0
    if isinstance(value, int):
        return 0
    if isinstance(value, Decimal):
        exponent = value.as_tuple().exponent
        return min(-exponent, 6) if isinstance(exponent, int) and exponent < 0 else 0
    col = meta_of(node) if meta_of is not None else None
    if col is None:
        return None
    if col.type in (_T.MYSQL_TYPE_DOUBLE, _T.MYSQL_TYPE_FLOAT) or col.decimals > 6:
        return 6
    return col.decimals


def _interval(node: exp.Expression) -> tuple[exp.Expression, str] | None:
    """(the date argument, the interval unit) of DATE_ADD-like arithmetic, or None."""
    if isinstance(node, (exp.DateAdd, exp.DateSub, exp.TimestampAdd)):
        unit = node.args.get("unit")
        return node.this, (unit.name.upper() if unit is not None else "DAY")
    if isinstance(node, (exp.Add, exp.Sub)):
        for base, iv in ((node.this, node.expression), (node.expression, node.this)):
            if isinstance(iv, exp.Interval) and iv.args.get("unit") is not None:
                if isinstance(node, exp.Sub) and iv is node.this:
                    return None
                return base, iv.args["unit"].name.upper()
        return None
    if isinstance(node, exp.Anonymous) and _function_name(node) in _DATE_ADD and len(node.expressions) == 2:
        base, iv = node.expressions
        if isinstance(iv, exp.Interval) and iv.args.get("unit") is not None:
            return base, iv.args["unit"].name.upper()
        return base, "DAY"  # ADDDATE(d, n): n days
    return None


def temporal_column(
    name: str,
    node: exp.Expression,
    meta_of: Callable[[exp.Expression], Column | None] | None = None,
    literal_of: LiteralOf | None = None,
) -> Column | None:
    """Metadata of a temporal select-list item (see the module docstring), or None when ``node`` is not one or
    its type depends on something unknown (then the caller types it otherwise).

    Args:
        name: the result column's name.
        node: the expression (alias removed).
        meta_of: the metadata of a sub-expression (a column reference, a nested item), None when not known.
        literal_of: the value of a ``:gk<i>`` placeholder standing for a literal (None: unknown).
    """
    ftype: int | None
    fname = _function_name(node)
    args = list(node.expressions) if isinstance(node, exp.Anonymous) else [node.args.get("this")]
    first = args[0] if args else None
    if fname in _NOW or fname in _CLOCK:
        fsp = _fsp_arg(first, literal_of)
        if fsp is None:
            return None
        ftype = _T.MYSQL_TYPE_DATETIME if fname in _NOW else _T.MYSQL_TYPE_TIME
        return temporal_result(name, ftype, fsp, not_null=True)
    if fname in _TODAY:
        return temporal_result(name, _T.MYSQL_TYPE_DATE, not_null=True)
    if isinstance(node, (exp.Cast, exp.TryCast)):
        to = node.to
        ftype = _CAST_TYPES.get(to.this) if isinstance(to, exp.DataType) else None
        if ftype is None:
            return None
        params = to.expressions
        fsp = _literal_int(params[0], literal_of) if params else 0
        return None if fsp is None else temporal_result(name, ftype, fsp)
    if isinstance(node, exp.UnixToTime) and node.args.get("format") is None:
        fsp = _scale(node.this, meta_of, literal_of)
        return None if fsp is None else temporal_result(name, _T.MYSQL_TYPE_DATETIME, fsp)
    kept = _kept_precision(node, fname)
    if kept is not None:
        ftype, sources = kept
        scales = [_scale(a, meta_of, literal_of) for a in sources]
        if any(sc is None for sc in scales):
            if meta_of is None:
                return None  # a column argument: typed where its metadata is known
            scales = [
                6 if sc is None else sc for sc in scales
            ]  # Item::time_precision of a non-temporal value
        return temporal_result(name, ftype, max((sc for sc in scales if sc is not None), default=0))
    if fname == "UNIX_TIMESTAMP":
        return _unix_timestamp_column(name, args, meta_of, literal_of)
    shifted = _interval(node)
    if shifted is not None and meta_of is not None:
        base, unit = shifted
        col = meta_of(base)
        if col is None:
            return None
        micro = 6 if unit.endswith("MICROSECOND") else 0
        if col.type == _T.MYSQL_TYPE_DATE:
            if unit in _DATE_UNITS:
                return temporal_result(name, _T.MYSQL_TYPE_DATE)
            return temporal_result(name, _T.MYSQL_TYPE_DATETIME, micro)
        if col.type in (_T.MYSQL_TYPE_DATETIME, _T.MYSQL_TYPE_TIMESTAMP):
            return temporal_result(name, _T.MYSQL_TYPE_DATETIME, max(col.decimals, micro))
    return None


def _kept_precision(node: exp.Expression, fname: str) -> tuple[int, list[Any]] | None:
    """(result type, the arguments whose fractional digits it keeps) of TIME(x), TIMESTAMP(x[, t]),
    SEC_TO_TIME(s) and MAKETIME(h, m, s): their fsp is their value arguments' (``Item::time_precision`` /
    ``decimals``), so ``TIME('01:02:03.000123')`` is a TIME(6)."""
    if isinstance(node, exp.Time) or fname == "TIME":
        args = [node.this] if isinstance(node, exp.Time) else list(node.expressions)
        return (_T.MYSQL_TYPE_TIME, args[:1]) if args and args[0] is not None else None
    if isinstance(node, exp.Timestamp):
        return _T.MYSQL_TYPE_DATETIME, [a for a in (node.this, node.args.get("zone")) if a is not None]
    if fname == "TIMESTAMP" and 1 <= len(node.expressions) <= 2:
        return _T.MYSQL_TYPE_DATETIME, list(node.expressions)
    if fname == "SEC_TO_TIME" and len(node.expressions) == 1:
        return _T.MYSQL_TYPE_TIME, list(node.expressions)
    if isinstance(node, exp.TimeFromParts) and node.args.get("sec") is not None:
        return _T.MYSQL_TYPE_TIME, [node.args["sec"]]
    return None


def _unix_timestamp_column(
    name: str,
    args: list[Any],
    meta_of: Callable[[exp.Expression], Column | None] | None,
    literal_of: LiteralOf | None,
) -> Column | None:
    """UNIX_TIMESTAMP(): a NOT NULL integer; UNIX_TIMESTAMP(d): an integer, or DECIMAL(11 + fsp, fsp) for a
    d with fractional seconds (``Item_func_unix_timestamp``)."""
    if not args:
        return Column(
            name, type=_T.MYSQL_TYPE_LONGLONG, charset=CHARSET_BINARY, length=11,
            flags=int(_F.NOT_NULL | _F.BINARY | _F.NUM), decimals=0,
        )  # fmt: skip
    fsp = _scale(args[0], meta_of, literal_of)
    if fsp is None:
        return None
    if not fsp:
        return Column(
            name, type=_T.MYSQL_TYPE_LONGLONG, charset=CHARSET_BINARY, length=11,
            flags=int(_F.BINARY | _F.NUM), decimals=0,
        )  # fmt: skip
    return Column(
        name, type=_T.MYSQL_TYPE_NEWDECIMAL, charset=CHARSET_BINARY, length=11 + fsp + 1,
        flags=int(_F.BINARY | _F.NUM), decimals=fsp,
    )  # fmt: skip


_FRACTION = re.compile(r"(\d:\d{2}:\d{2})(?:\.(\d*))?$")


def temporal_converter(col: Column | None) -> Callable[[Any], Any] | None:
    """For a computed DATETIME / TIMESTAMP / TIME result column with ``decimals`` fsp: a function giving each
    text value exactly that many fractional digits (what MySQL prints for a DATETIME(3) item: ``.500``, and
    none for fsp 0); None for other columns."""
    if col is None or col.type not in (_T.MYSQL_TYPE_DATETIME, _T.MYSQL_TYPE_TIMESTAMP, _T.MYSQL_TYPE_TIME):
        return None
    fsp = col.decimals if 0 <= col.decimals <= 6 else 0

    def convert(v: Any) -> Any:
        if type(v) is not str:
            return v
        m = _FRACTION.search(v)
        if m is None:
            return v
        digits = (m.group(2) or "").ljust(fsp, "0")[:fsp]
        return v[: m.start()] + m.group(1) + ("." + digits if fsp else "")

    return convert
