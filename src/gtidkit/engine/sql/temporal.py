"""Date and time functions that depend on the session time zone, and TIMESTAMP storage in UTC.

MySQL sources: manual "Date and Time Functions" (NOW()/CURRENT_TIMESTAMP/LOCALTIME/LOCALTIMESTAMP/CURDATE()/
CURTIME() return the statement time in the session time zone, SYSDATE() the time it executes; UTC_TIMESTAMP()/
UTC_DATE()/UTC_TIME() are in UTC; UNIX_TIMESTAMP(date) reads its argument and FROM_UNIXTIME(n) writes its result in
the session zone; CONVERT_TZ() returns NULL for an unknown zone and its argument unchanged when it falls outside the
TIMESTAMP range), "The DATE, DATETIME, and TIMESTAMP Types" ("MySQL converts TIMESTAMP values from the current time
zone to UTC for storage, and back from UTC to the current time zone for retrieval. (This does not occur for other
types such as DATETIME.)"), and ``mysql-test/r/timezone2.result`` for CONVERT_TZ's edges.

Storage decision: a TIMESTAMP column holds MySQL's canonical text of its UTC value (``2024-01-01 07:00:00``).
Datadirs written before sessions honoured ``time_zone`` hold the text as written; the binary log and row images
always read that text as UTC (:mod:`gtidkit.engine.sql.rowimage`), so it is kept as is: on a host whose system zone
is UTC (and with ``time_zone='+00:00'``) old values read back unchanged, and what replicas received stays true.
Everything the SQL layer reads goes through :func:`timestamp_out` (``_GK_TS_OUT``) and everything written through
:func:`timestamp_in` / :func:`timestamp_to_storage`, so the zone is applied in one place.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import sqlglot
from sqlglot import exp

from gtidkit.engine.sql.function_table import MANY, register, session_rows
from gtidkit.engine.sql.parse import parse_error
from gtidkit.engine.storage import physical_name, quote_ident
from gtidkit.engine.time_zone import TimeZone, find_time_zone
from gtidkit.mysql_errors import mysql_error

if TYPE_CHECKING:
    from gtidkit.engine.sql.catalog import TableDef
    from gtidkit.engine.sql.executor import Executor

__all__ = [
    "TS_IN_FUNCTION",
    "TS_OUT_FUNCTION",
    "convert_tz",
    "localize_columns",
    "localize_tables",
    "session_functions",
    "timestamp_in",
    "timestamp_out",
    "timestamp_to_storage",
]

#: SQL function converting a TIMESTAMP column's stored UTC text to the session zone (SELECT, WHERE, SET x = ts)
TS_OUT_FUNCTION = "_GK_TS_OUT"
#: SQL function converting a session-zone value headed for a TIMESTAMP column to its stored UTC text
TS_IN_FUNCTION = "_GK_TS_IN"

#: the TIMESTAMP range in seconds since the epoch ('1970-01-01 00:00:01' .. '2038-01-19 03:14:07' UTC)
TIMESTAMP_MIN = 1
TIMESTAMP_MAX = 2**31 - 1


def _text(v: Any) -> str:
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)


def _parse(v: Any) -> tuple[_dt.datetime, int] | None:
    """(datetime, fractional digits written) of a MySQL datetime text or value, or None when it is not one."""
    if isinstance(v, _dt.datetime):
        return v, 6 if v.microsecond else 0
    text = _text(v).strip()
    whole, _, frac = text.partition(".")
    try:
        if len(whole) == 10:
            d = _dt.datetime.strptime(whole, "%Y-%m-%d")
        else:
            d = _dt.datetime.strptime(whole, "%Y-%m-%d %H:%M:%S")
    except ValueError:
        return None
    if frac:
        if not frac.isdigit() or len(frac) > 6:
            return None
        d = d.replace(microsecond=int(frac.ljust(6, "0")))
    return d, len(frac)


def _format(d: _dt.datetime, fsp: int = 0) -> str:
    out = d.strftime("%Y-%m-%d %H:%M:%S")
    return out + "." + f"{d.microsecond:06d}"[:fsp] if fsp else out


def _fsp(arg: Any, name: str = "now") -> int:
    """The fractional-seconds precision argument of NOW(n) / CURTIME(n) / SYSDATE(n) / UTC_*(n).

    MySQL's grammar takes an integer literal only (``func_datetime_precision: '(' NUM ')'``), at most 6.

    Raises:
        MySQLError: 1064 for anything but an integer; 1426 ER_TOO_BIG_PRECISION above 6.
    """
    if arg is None:
        return 0
    if isinstance(arg, bool) or not (isinstance(arg, int) or (isinstance(arg, str) and arg.isdigit())):
        raise parse_error(str(arg), 0)
    n = int(arg)
    if n > 6:
        raise mysql_error(1426, n, name, 6)
    return max(0, n)


def timestamp_out(tz: TimeZone, stored: Any) -> Any:
    """A TIMESTAMP column's stored UTC text as the session zone shows it (zero dates and NULL unchanged)."""
    if stored is None or tz.is_utc:
        return stored
    parsed = _parse(stored)
    if parsed is None or parsed[0].year < 1970:
        return stored
    d, fsp = parsed
    return _format(tz.from_utc(d), fsp)


def timestamp_in(tz: TimeZone, value: Any) -> Any:
    """A session-zone datetime value headed for a TIMESTAMP column as its stored UTC text (anything that is not a
    datetime, such as the zero date, unchanged; it is checked where it is stored)."""
    if value is None or tz.is_utc:
        return value
    parsed = _parse(value)
    if parsed is None or parsed[0].year < 1000:
        return value
    d, fsp = parsed
    return _format(tz.to_utc(d), fsp)


def timestamp_to_storage(tz: TimeZone, canonical: Any) -> Any:
    """:func:`timestamp_in` for a value already in the column's canonical text (``values.coerce``)."""
    return timestamp_in(tz, canonical)


def convert_tz(value: Any, from_tz: Any, to_tz: Any) -> Any:
    """MySQL ``CONVERT_TZ(dt, from_tz, to_tz)`` (``Item_func_convert_tz``).

    Args:
        value: a datetime text (or datetime).
        from_tz, to_tz: zone values as ``time_zone`` takes them (``'+10:00'``, ``'SYSTEM'``).

    Returns:
        The datetime text in ``to_tz``; NULL when an argument is NULL, not a datetime or an unknown zone (named
        zones are unknown to a fresh MySQL: :mod:`gtidkit.engine.time_zone`); ``value`` unchanged when it falls
        outside the TIMESTAMP range in ``from_tz`` (timezone2.result: ``'1970-01-01 01:00:00'`` MET -> itself).
    """
    if value is None or from_tz is None or to_tz is None:
        return None
    src, dst = find_time_zone(_text(from_tz)), find_time_zone(_text(to_tz))
    parsed = _parse(value)
    if src is None or dst is None or parsed is None:
        return None
    d, fsp = parsed
    seconds = src.to_epoch(d)
    if not TIMESTAMP_MIN <= seconds <= TIMESTAMP_MAX:
        return _format(d, fsp)
    return _format(dst.from_epoch(seconds), fsp)


def _unix_timestamp(ex: Executor, *args: Any) -> Any:
    """``UNIX_TIMESTAMP([date])``: the statement time, or ``date`` read in the session zone; 0 outside the
    TIMESTAMP range or for a value that is no datetime (manual)."""
    if not args:
        return int(ex.statement_time())
    if args[0] is None:
        return None
    parsed = _parse(args[0])
    if parsed is None:
        return 0
    d, fsp = parsed
    seconds = ex.time_zone().to_epoch(d)
    if not 0 <= seconds <= TIMESTAMP_MAX:
        return 0
    return int(seconds) if not fsp else round(seconds, fsp)


def _from_unixtime(ex: Executor, n: Any, *rest: Any) -> Any:
    """``FROM_UNIXTIME(n)`` in the session zone; NULL for a negative or too large ``n`` (manual). The format
    argument form is not supported (1235)."""
    if rest:
        from gtidkit.engine.sql.ddl import not_supported

        raise not_supported("FROM_UNIXTIME(unix_timestamp, format)")
    if n is None:
        return None
    try:
        exact = Decimal(n.decode() if isinstance(n, bytes) else str(n))
    except (ArithmeticError, ValueError):  # not a number (BIGINT UNSIGNED past 2**63 comes as bytes)
        return None
    if not 0 <= exact <= TIMESTAMP_MAX:
        return None
    whole = int(exact)
    micro = int((exact - whole) * 1_000_000)
    d = ex.time_zone().from_epoch(whole) + _dt.timedelta(microseconds=micro)
    return _format(d, 6 if micro else 0)  # the result column's fsp (its metadata) trims the digits


def session_functions(ex: Executor) -> dict[str, tuple[int, Callable[..., Any]]]:
    """The zone-dependent SQL functions of ``ex``'s connection: name -> (argument count, implementation).

    NOW/CURDATE/CURTIME/UTC_* use the statement time (``@@timestamp`` when set, as a replica applying the
    source's statement does); SYSDATE the clock.
    """

    def utc_now() -> _dt.datetime:
        return _dt.datetime(1970, 1, 1) + _dt.timedelta(seconds=ex.statement_time())

    def sysdate(*a: Any) -> str:
        import time

        return _format(ex.time_zone().from_epoch(time.time()), _fsp(a[0] if a else None, "sysdate"))

    return {
        "NOW": (-1, lambda *a: _format(ex.now(), _fsp(a[0] if a else None))),
        "SYSDATE": (-1, sysdate),
        "CURDATE": (0, lambda: ex.now().date().isoformat()),
        "CURTIME": (-1, lambda *a: _format(ex.now(), _fsp(a[0] if a else None, "curtime"))[11:]),
        "UTC_TIMESTAMP": (-1, lambda *a: _format(utc_now(), _fsp(a[0] if a else None, "utc_timestamp"))),
        "UTC_DATE": (0, lambda: utc_now().date().isoformat()),
        "UTC_TIME": (-1, lambda *a: _format(utc_now(), _fsp(a[0] if a else None, "utc_time"))[11:]),
        "UNIX_TIMESTAMP": (-1, lambda *a: _unix_timestamp(ex, *a)),
        "FROM_UNIXTIME": (-1, lambda *a: _from_unixtime(ex, *a)),
        TS_OUT_FUNCTION: (1, lambda v: timestamp_out(ex.time_zone(), v)),
        TS_IN_FUNCTION: (1, lambda v: timestamp_in(ex.time_zone(), v)),
    }


def _timestamp_columns(tdef: TableDef) -> list[str]:
    return [c.name for c in tdef.columns if c.type == "timestamp"]


def localize_tables(tree: exp.Expression) -> None:
    """Make every table of a SELECT tree (after ``Executor.resolve_tables``) that has TIMESTAMP columns read
    them in the session zone: ``"db.t" AS t`` becomes ``(SELECT a, _GK_TS_OUT(ts) AS ts, ... FROM "db.t") AS t``
    (in place). Projections, WHERE, joins and ``*`` then all see session-zone values; SQLite flattens the
    subquery, so keys on the other columns are still used."""
    for t in list(tree.find_all(exp.Table)):
        tdef = t.meta.get("gk_table")
        if tdef is None or not _timestamp_columns(tdef) or not t.alias:
            continue
        items = ", ".join(
            f"{TS_OUT_FUNCTION}({quote_ident(c.name)}) AS {quote_ident(c.name)}"
            if c.type == "timestamp"
            else quote_ident(c.name)
            for c in tdef.columns
        )
        inner = sqlglot.parse_one(
            f"SELECT {items} FROM {quote_ident(physical_name(tdef.schema, tdef.name))}", read="sqlite"
        )
        physical = inner.find(exp.Table)
        if physical is not None:  # later rewrites (JSON column types) still see the table's definition
            physical.meta["gk_table"] = tdef
        t.replace(
            exp.Subquery(this=inner, alias=exp.TableAlias(this=exp.to_identifier(t.alias, quoted=True)))
        )


def localize_columns(node: exp.Expression, tdef: TableDef, alias: str) -> exp.Expression:
    """In an expression over the single table ``tdef`` (alias ``alias``), read its TIMESTAMP columns in the session
    zone: ``ts`` -> ``_GK_TS_OUT(ts)`` (in place; returns ``node``, replaced when it is such a column itself).
    The ``gknew<i>`` placeholders of ON DUPLICATE KEY UPDATE's ``VALUES(ts)`` hold stored values too."""
    names = {n.lower() for n in _timestamp_columns(tdef)}
    if not names:
        return node
    new_slots = {f"gknew{i}" for i, c in enumerate(tdef.columns) if c.type == "timestamp"}

    def stored(n: exp.Expression) -> bool:
        if isinstance(n.parent, exp.Anonymous) and n.parent.name == TS_OUT_FUNCTION:
            return False  # already converted
        if isinstance(n, exp.Placeholder):
            return n.name in new_slots
        return (
            isinstance(n, exp.Column)
            and n.name.lower() in names
            and (not n.table or n.table in (alias, tdef.name))
        )

    targets = [n for n in node.walk() if stored(n)]
    for n in targets:
        wrapped = exp.Anonymous(this=TS_OUT_FUNCTION, expressions=[n.copy()])
        if n is node:
            return wrapped
        n.replace(wrapped)
    return node


#: the session clock and zone make these differ from call to call: never deterministic (registered as before)
register(
    *session_rows(
        session_functions,
        {
            "NOW": (0, MANY), "SYSDATE": (0, MANY), "CURDATE": (0, 0), "CURTIME": (0, MANY),
            "UTC_TIMESTAMP": (0, MANY), "UTC_DATE": (0, 0), "UTC_TIME": (0, MANY), "UNIX_TIMESTAMP": (0, MANY),
            "FROM_UNIXTIME": (0, MANY), TS_OUT_FUNCTION: (1, 1), TS_IN_FUNCTION: (1, 1),
        },
        deterministic=False,
    )
)  # fmt: skip
