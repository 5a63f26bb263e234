"""MySQL date and time functions SQLite lacks or computes differently, as SQLite UDFs.

Temporal values travel as MySQL's canonical text: DATE ``YYYY-MM-DD``, DATETIME ``YYYY-MM-DD HH:MM:SS[.ffffff]``,
TIME ``[-]HH:MM:SS[.ffffff]`` (hours may exceed 24). Arguments are read as MySQL reads them: text with any
punctuation between parts, or numbers ``YYMMDD`` / ``YYYYMMDD`` / ``YYYYMMDDHHMMSS``; two-digit years 70-99 are
19xx, 00-69 are 20xx. An invalid date gives NULL. Day numbers (TO_DAYS, FROM_DAYS, DATEDIFF) count from year 0
of the proleptic Gregorian calendar, ``TO_DAYS('0000-01-01')`` being 1. Functions of the session time zone are
in :mod:`gtidkit.engine.sql.temporal`.
Source: MySQL 8.4 Reference Manual, "Date and Time Functions"
(https://dev.mysql.com/doc/refman/8.4/en/date-and-time-functions.html), "The DATE, DATETIME, and TIMESTAMP Types".
"""

from __future__ import annotations

import calendar
import datetime as _dt
import re
from collections.abc import Callable
from typing import Any, NamedTuple

from gtidkit.engine.sql.function_table import register, rows_from
from gtidkit.engine.sql.functions_args import check_count, ranged, to_float, to_int, to_text
from gtidkit.mysql_errors import mysql_error

__all__ = [
    "DATETIME_FUNCTIONS",
    "Parts",
    "cast_date",
    "cast_datetime",
    "cast_time",
    "date_format",
    "day_number",
    "extract",
    "get_format",
    "parse_datetime",
    "parse_time",
    "str_to_date",
    "timestampdiff",
    "week",
]

_DAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTH_NAMES = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
    "November", "December",
)  # fmt: skip


class Parts(NamedTuple):
    """A date/datetime read from an argument (month and day may be 0, as MySQL's zero-in-date values)."""

    year: int
    month: int
    day: int
    hour: int = 0
    minute: int = 0
    second: int = 0
    micro: int = 0
    has_time: bool = False

    def date(self) -> _dt.date | None:
        """The calendar date, or None for a zero or invalid one."""
        try:
            return _dt.date(self.year, self.month, self.day)
        except ValueError:
            return None

    def datetime(self) -> _dt.datetime | None:
        """The datetime, or None for a zero or invalid date."""
        d = self.date()
        return None if d is None else _dt.datetime(d.year, d.month, d.day, self.hour, self.minute, self.second,
                                                   self.micro)  # fmt: skip


_DT_TEXT = re.compile(
    r"\s*(\d{1,4})[^\d](\d{1,2})[^\d](\d{1,2})"
    r"(?:(?:[T ]+|[^\d])(\d{1,2})[^\d](\d{1,2})(?:[^\d](\d{1,2})(?:\.(\d{0,6})\d*)?)?)?\s*$"
)


def _year(y: int, digits: int) -> int:
    if digits <= 2:
        return y + (2000 if y < 70 else 1900)
    return y


def _from_digits(s: str) -> Parts | None:
    frac = ""
    if "." in s:
        s, frac = s.split(".", 1)
    n = len(s)
    if n in (6, 12):
        y, rest = _year(int(s[:2]), 2), s[2:]
    elif n in (8, 14):
        y, rest = int(s[:4]), s[4:]
    elif n == 5 or n == 7:
        return _from_digits("0" + s)
    else:
        return None
    mo, d = int(rest[:2]), int(rest[2:4])
    if len(rest) > 4:
        t = rest[4:]
        return _valid(Parts(y, mo, d, int(t[:2]), int(t[2:4]), int(t[4:6]), int((frac + "000000")[:6]), True))
    return _valid(Parts(y, mo, d))


def _valid(p: Parts) -> Parts | None:
    if not (0 <= p.month <= 12 and 0 <= p.day <= 31 and p.hour < 24 and p.minute < 60 and p.second < 60):
        return None
    if p.month and p.day and p.day > calendar.monthrange(p.year or 2000, p.month)[1]:
        return None
    return p


def parse_datetime(v: Any) -> Parts | None:
    """A DATE/DATETIME argument as :class:`Parts`, or None when it is NULL or not a valid date."""
    if v is None:
        return None
    if isinstance(v, (int, float)):
        return _from_digits(str(int(v)) if float(v).is_integer() else repr(v)) if v >= 0 else None
    text = to_text(v).strip()
    m = _DT_TEXT.match(text)
    if m is None:
        return _from_digits(text) if re.fullmatch(r"\d+(?:\.\d*)?", text) else None
    y, mo, d, h, mi, s, us = m.groups()
    if h is None:
        return _valid(Parts(_year(int(y), len(y)), int(mo), int(d)))
    micro = int((us or "").ljust(6, "0"))
    # 'YYYY-MM-DD hh:mm' without seconds is a datetime too (str_to_datetime reads the parts there are)
    return _valid(Parts(_year(int(y), len(y)), int(mo), int(d), int(h), int(mi), int(s or 0), micro, True))


_TIME_TEXT = re.compile(r"\s*(-)?\s*(?:(\d+)\s+)?(\d+)(?::(\d{1,2}))?(?::(\d{1,2}))?(?:\.(\d{0,6})\d*)?\s*$")


def parse_time(v: Any) -> int | None:
    """A TIME argument as signed microseconds: ``[-][D ]HH:MM[:SS][.ffffff]``, ``HHMMSS`` numbers, or the time of
    a datetime; None for NULL or text that is not a time."""
    if v is None:
        return None
    if not isinstance(v, (int, float)):
        p = parse_datetime(v) if re.search(r"\d[-/]\d", to_text(v)) else None
        if p is not None:
            return ((p.hour * 60 + p.minute) * 60 + p.second) * 1_000_000 + p.micro
    text = to_text(v)
    m = _TIME_TEXT.match(text)
    if m is None:
        return None
    neg, days, a, b, c, frac = m.groups()
    if b is None and days is not None:  # 'D hh': hours after the days (RM "Date and Time Literals")
        h, mi, s = int(a), 0, 0
    elif b is None:  # digits only: [H..H]MMSS
        digits = a.rjust(6, "0")
        h, mi, s = int(digits[:-4]), int(digits[-4:-2]), int(digits[-2:])
    else:
        h, mi, s = int(a), int(b), int(c or 0)
    if mi > 59 or s > 59:
        return None
    h += int(days or 0) * 24
    total = ((h * 60 + mi) * 60 + s) * 1_000_000 + int((frac or "").ljust(6, "0"))
    return -total if neg else total


def format_time(us: int, frac: bool | None = None) -> str:
    """Microseconds as TIME text (``frac=None``: fraction shown only when non-zero)."""
    sign = "-" if us < 0 else ""
    us = abs(us)
    secs, micro = divmod(us, 1_000_000)
    h, rest = divmod(secs, 3600)
    mi, s = divmod(rest, 60)
    out = f"{sign}{h:02d}:{mi:02d}:{s:02d}"
    return out + f".{micro:06d}" if (micro if frac is None else frac) else out


def _date_text(d: _dt.date) -> str:
    return f"{d.year:04d}-{d.month:02d}-{d.day:02d}"


def _datetime_text(d: _dt.datetime, frac: bool | None = None) -> str:
    out = f"{_date_text(d)} {d.hour:02d}:{d.minute:02d}:{d.second:02d}"
    return out + f".{d.microsecond:06d}" if (d.microsecond if frac is None else frac) else out


def day_number(year: int, month: int, day: int) -> int:
    """MySQL's day number of a date (``TO_DAYS``): days since year 0, ``0000-01-01`` being day 1."""
    if year == 0 and month == 0:
        return 0
    total = 365 * year + 31 * (month - 1) + day
    if month <= 2:
        year -= 1
    else:
        total -= (month * 4 + 23) // 10
    century = (abs(year) // 100 + 1) * 3 // 4 if year >= 0 else 0
    return total + (year // 4 if year >= 0 else 0) - century


def _days_in_year(year: int) -> int:
    return 366 if calendar.isleap(year) or year == 0 else 365


def week(v: Any, mode: Any = 0) -> int | None:
    """``WEEK(date[, mode])``: the week number (modes 0-7 of the manual's table); NULL for NULL or invalid."""
    p = parse_datetime(v)
    if p is None or mode is None or not p.month or not p.day:
        return None
    return _calc_week(p, _week_mode(to_int(mode)))[0]


def _week_mode(mode: int) -> int:
    m = mode & 7
    if not m & 1:
        m ^= 4
    return m


def _calc_week(p: Parts, behaviour: int) -> tuple[int, int]:
    """(week, year) for ``behaviour`` bits 1 = Monday first, 2 = week of the year it belongs to (1..53),
    4 = the first week is the one containing the first weekday (else: the one with 4+ days in the year)."""
    monday_first, week_year, first_weekday = bool(behaviour & 1), bool(behaviour & 2), bool(behaviour & 4)
    daynr = day_number(p.year, p.month, p.day)
    first = day_number(p.year, 1, 1)
    weekday = (first + 5 + (0 if monday_first else 1)) % 7
    year = p.year
    if p.month == 1 and p.day <= 7 - weekday:
        if not week_year and ((first_weekday and weekday != 0) or (not first_weekday and weekday >= 4)):
            return 0, year
        week_year = True
        year -= 1
        days = _days_in_year(year)
        first -= days
        weekday = (weekday + 53 * 7 - days) % 7
    if (first_weekday and weekday != 0) or (not first_weekday and weekday >= 4):
        days = daynr - (first + (7 - weekday))
    else:
        days = daynr - (first - weekday)
    if week_year and days >= 52 * 7:
        weekday = (weekday + _days_in_year(year)) % 7
        if (not first_weekday and weekday < 4) or (first_weekday and weekday == 0):
            return 1, year + 1
    return days // 7 + 1, year


def _yearweek(v: Any, mode: Any = 0) -> int | None:
    p = parse_datetime(v)
    if p is None or mode is None or not p.month or not p.day:
        return None
    w, y = _calc_week(p, _week_mode(to_int(mode)) | 2)
    return y * 100 + w


def _ordinal(n: int) -> str:
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    return f"{n}" + {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


def _weekday(p: Parts) -> int | None:
    d = p.date()
    return None if d is None else d.weekday()  # Monday = 0


def date_format(v: Any, fmt: Any) -> str | None:
    """``DATE_FORMAT(date, format)`` with MySQL's ``%`` specifiers (table in the manual); ``%x`` for an unknown
    ``x`` gives ``x``; NULL for NULL or an invalid date."""
    p = parse_datetime(v)
    if p is None:
        us = parse_time(v) if v is not None else None
        if us is None or fmt is None:
            return None
        secs = abs(us) // 1_000_000
        p = Parts(0, 0, 0, secs // 3600, secs // 60 % 60, secs % 60, abs(us) % 1_000_000, True)
    if fmt is None:
        return None
    return _render(p, to_text(fmt), time_only=False)


def _render(p: Parts, fmt: str, time_only: bool) -> str | None:
    out: list[str] = []
    i = 0
    h12 = (p.hour % 12) or 12
    while i < len(fmt):
        c = fmt[i]
        if c != "%" or i + 1 == len(fmt):
            out.append(c)
            i += 1
            continue
        s = fmt[i + 1]
        i += 2
        if time_only and s in "aDbcdeMmjUuVvWwXxYy":
            return None
        wd = _weekday(p)
        if s in "aWwUuVvXxj" and wd is None:
            return None
        if s == "a":
            out.append(_DAY_NAMES[wd][:3])  # type: ignore[index]
        elif s == "b":
            out.append(_MONTH_NAMES[p.month - 1][:3] if p.month else "")
        elif s == "c":
            out.append(str(p.month))
        elif s == "D":
            out.append(_ordinal(p.day))
        elif s == "d":
            out.append(f"{p.day:02d}")
        elif s == "e":
            out.append(str(p.day))
        elif s == "f":
            out.append(f"{p.micro:06d}")
        elif s == "H":
            out.append(f"{p.hour:02d}")
        elif s in "hI":
            out.append(f"{h12:02d}")
        elif s == "i":
            out.append(f"{p.minute:02d}")
        elif s == "j":
            out.append(f"{day_number(p.year, p.month, p.day) - day_number(p.year, 1, 1) + 1:03d}")
        elif s == "k":
            out.append(str(p.hour))
        elif s == "l":
            out.append(str(h12))
        elif s == "M":
            out.append(_MONTH_NAMES[p.month - 1] if p.month else "")
        elif s == "m":
            out.append(f"{p.month:02d}")
        elif s == "p":
            out.append("AM" if p.hour % 24 < 12 else "PM")
        elif s == "r":
            out.append(f"{h12:02d}:{p.minute:02d}:{p.second:02d} {'AM' if p.hour % 24 < 12 else 'PM'}")
        elif s in "Ss":
            out.append(f"{p.second:02d}")
        elif s == "T":
            out.append(f"{p.hour:02d}:{p.minute:02d}:{p.second:02d}")
        elif s == "U":
            out.append(f"{_calc_week(p, _week_mode(0))[0]:02d}")
        elif s == "u":
            out.append(f"{_calc_week(p, _week_mode(1))[0]:02d}")
        elif s == "V":
            out.append(f"{_calc_week(p, _week_mode(2))[0]:02d}")
        elif s == "v":
            out.append(f"{_calc_week(p, _week_mode(3))[0]:02d}")
        elif s == "W":
            out.append(_DAY_NAMES[wd])  # type: ignore[index]
        elif s == "w":
            out.append(str((wd + 1) % 7))  # type: ignore[operator]
        elif s == "X":
            out.append(f"{_calc_week(p, _week_mode(2))[1]:04d}")
        elif s == "x":
            out.append(f"{_calc_week(p, _week_mode(3))[1]:04d}")
        elif s == "Y":
            out.append(f"{p.year:04d}")
        elif s == "y":
            out.append(f"{p.year % 100:02d}")
        else:
            out.append(s)
    return "".join(out)


def _time_format(v: Any, fmt: Any) -> str | None:
    """``TIME_FORMAT(time, format)``: DATE_FORMAT's time specifiers over a TIME (hours may exceed 23); date
    specifiers give NULL."""
    us = parse_time(v)
    if us is None or fmt is None:
        return None
    secs = abs(us) // 1_000_000
    p = Parts(0, 0, 0, secs // 3600, secs // 60 % 60, secs % 60, abs(us) % 1_000_000, True)
    text = to_text(fmt)
    # %H / %k show all hours; %h %I %l the hour modulo 12
    return _render(p, text, time_only=True)


_STR_NUM = {"d": 2, "e": 2, "m": 2, "c": 2, "Y": 4, "y": 2, "H": 2, "k": 2, "h": 2, "I": 2, "l": 2, "i": 2,
            "s": 2, "S": 2, "f": 6, "j": 3}  # fmt: skip


def str_to_date(s: Any, fmt: Any) -> str | None:
    """``STR_TO_DATE(str, format)``: ``str`` read with DATE_FORMAT's specifiers; a DATE, TIME or DATETIME text as
    the format has date parts, time parts or both; extra characters after the format are ignored. NULL when
    ``str`` does not match, the date is invalid, or (default ``sql_mode``: NO_ZERO_DATE, NO_ZERO_IN_DATE) it
    has zero parts."""
    if s is None or fmt is None:
        return None
    text, f = to_text(s), to_text(fmt)
    vals = {"Y": 0, "m": 0, "d": 0, "H": 0, "i": 0, "s": 0, "f": 0}
    pm: bool | None = None
    has_date = has_time = False
    pos = i = 0
    while i < len(f):
        c = f[i]
        if c != "%" or i + 1 == len(f):
            if c.isspace():
                while pos < len(text) and text[pos].isspace():
                    pos += 1
            elif pos < len(text) and text[pos] == c:
                pos += 1
            else:
                return None
            i += 1
            continue
        spec = f[i + 1]
        i += 2
        while pos < len(text) and text[pos].isspace() and spec not in "%":
            pos += 1
        if spec in _STR_NUM:
            m = re.match(rf"\d{{1,{_STR_NUM[spec]}}}", text[pos:])
            if m is None:
                return None
            n, pos = int(m.group()), pos + m.end()
            if spec in "Yy":
                vals["Y"] = _year(n, len(m.group())) if spec == "y" else n
                has_date = True
            elif spec in "mc":
                vals["m"], has_date = n, True
            elif spec in "de":
                vals["d"], has_date = n, True
            elif spec in "Hkh Il":
                vals["H"], has_time = n, True
            elif spec == "i":
                vals["i"], has_time = n, True
            elif spec in "sS":
                vals["s"], has_time = n, True
            elif spec == "f":
                vals["f"], has_time = int(m.group().ljust(6, "0")), True
        elif spec in "Mb":
            names = _MONTH_NAMES if spec == "M" else tuple(n[:3] for n in _MONTH_NAMES)
            for k, name in enumerate(names):
                if text[pos : pos + len(name)].lower() == name.lower():
                    vals["m"], pos, has_date = k + 1, pos + len(name), True
                    break
            else:
                return None
        elif spec in "Wa":
            names = _DAY_NAMES if spec == "W" else tuple(n[:3] for n in _DAY_NAMES)
            for name in names:
                if text[pos : pos + len(name)].lower() == name.lower():
                    pos += len(name)
                    break
            else:
                return None
        elif spec == "p":
            word = text[pos : pos + 2].upper()
            if word not in ("AM", "PM"):
                return None
            pm, pos = word == "PM", pos + 2
        elif spec in "rT":
            m = re.match(r"(\d{1,2}):(\d{1,2}):(\d{1,2})", text[pos:])
            if m is None:
                return None
            vals["H"], vals["i"], vals["s"] = (int(g) for g in m.groups())
            pos, has_time = pos + m.end(), True
            if spec == "r":
                rest = text[pos:].lstrip()
                if rest[:2].upper() in ("AM", "PM"):
                    pm = rest[:2].upper() == "PM"
                    pos = len(text) - len(rest) + 2
        elif spec == "%":
            if text[pos : pos + 1] != "%":
                return None
            pos += 1
        else:
            if text[pos : pos + 1] != spec:
                return None
            pos += 1
    if pm is not None:
        vals["H"] = vals["H"] % 12 + (12 if pm else 0)
    if has_date:
        p = _valid(
            Parts(vals["Y"], vals["m"], vals["d"], vals["H"], vals["i"], vals["s"], vals["f"], has_time)
        )
        if p is None or not p.year and not p.month and not p.day or not p.month or not p.day:
            return None
        d = p.datetime()
        if d is None:
            return None
        return _datetime_text(d) if has_time else _date_text(d)
    if has_time:
        if vals["i"] > 59 or vals["s"] > 59:
            return None
        return format_time(((vals["H"] * 60 + vals["i"]) * 60 + vals["s"]) * 1_000_000 + vals["f"])
    return None


def _date_part(fn: Callable[[Parts], Any]) -> Callable[[Any], Any]:
    def f(v: Any) -> Any:
        p = parse_datetime(v)
        return None if p is None else fn(p)

    return f


def _valid_date_part(fn: Callable[[_dt.date], Any]) -> Callable[[Any], Any]:
    def f(v: Any) -> Any:
        p = parse_datetime(v)
        d = None if p is None else p.date()
        return None if d is None else fn(d)

    return f


def _time_part(fn: Callable[[int], int]) -> Callable[[Any], Any]:
    def f(v: Any) -> Any:
        p = parse_datetime(v) if not isinstance(v, (int, float)) else None
        if p is not None and p.has_time:
            us = ((p.hour * 60 + p.minute) * 60 + p.second) * 1_000_000 + p.micro
        else:
            us = parse_time(v)
        return None if us is None else fn(abs(us))

    return f


def _to_days(v: Any) -> int | None:
    p = parse_datetime(v)
    if p is None or (not p.year and not p.month and not p.day):
        return None
    return day_number(p.year, p.month, p.day)


def _from_days(n: Any) -> str | None:
    if n is None:
        return None
    days = to_int(n)
    if days <= 365 or days > 3652424:
        return "0000-00-00"
    return _date_text(_dt.date.fromordinal(days - 365))


def _to_seconds(v: Any) -> int | None:
    p = parse_datetime(v)
    if p is None or (not p.year and not p.month and not p.day):
        return None
    return day_number(p.year, p.month, p.day) * 86400 + p.hour * 3600 + p.minute * 60 + p.second


def _datediff(a: Any, b: Any) -> int | None:
    pa, pb = parse_datetime(a), parse_datetime(b)
    if pa is None or pb is None or pa.date() is None or pb.date() is None:
        return None
    return day_number(pa.year, pa.month, pa.day) - day_number(pb.year, pb.month, pb.day)


_UNIT_US = {"MICROSECOND": 1, "SECOND": 10**6, "MINUTE": 60 * 10**6, "HOUR": 3600 * 10**6, "DAY": 86400 * 10**6,
            "WEEK": 7 * 86400 * 10**6}  # fmt: skip


def timestampdiff(unit: Any, a: Any, b: Any) -> int | None:
    """``TIMESTAMPDIFF(unit, a, b)``: ``b - a`` in whole ``unit``s, truncated toward zero; months, quarters and
    years count whole calendar months (``'2003-02-01'`` to ``'2003-05-01'`` is 3 months). NULL for NULL or
    invalid dates."""
    pa, pb = parse_datetime(a), parse_datetime(b)
    if unit is None or pa is None or pb is None:
        return None
    da, db = pa.datetime(), pb.datetime()
    if da is None or db is None:
        return None
    u = to_text(unit).upper()
    if u in ("MONTH", "QUARTER", "YEAR"):
        sign = 1 if db >= da else -1
        lo, hi = (da, db) if sign > 0 else (db, da)
        months = (hi.year - lo.year) * 12 + hi.month - lo.month
        if (hi.day, hi.time()) < (lo.day, lo.time()):
            months -= 1
        return sign * (months // {"MONTH": 1, "QUARTER": 3, "YEAR": 12}[u])
    us = (db - da) // _dt.timedelta(microseconds=1)
    per = _UNIT_US.get(u)
    if per is None:
        return None
    q = abs(us) // per
    return q if us >= 0 else -q


def _makedate(year: Any, doy: Any) -> str | None:
    if year is None or doy is None:
        return None
    y, n = to_int(year), to_int(doy)
    if n <= 0 or y < 0 or y > 9999:
        return None
    y = _year(y, 2) if y < 100 else y
    d = _dt.date(y, 1, 1) + _dt.timedelta(days=n - 1)
    return None if d.year > 9999 else _date_text(d)


def _maketime(h: Any, m: Any, s: Any) -> str | None:
    if h is None or m is None or s is None:
        return None
    hours, minutes, secs = to_int(h), to_int(m), to_float(s)
    if not (0 <= minutes <= 59 and 0 <= secs < 60):
        return None
    us = ((abs(hours) * 60 + minutes) * 60) * 1_000_000 + round(secs * 1_000_000)
    return format_time(-us if hours < 0 else us)


def _sec_to_time(v: Any) -> str | None:
    if v is None:
        return None
    secs = to_float(v)
    us = round(secs * 1_000_000)
    limit = (838 * 3600 + 59 * 60 + 59) * 1_000_000
    return format_time(max(-limit, min(limit, us)))


def _time_to_sec(v: Any) -> int | None:
    us = _time_part(lambda x: x)(v) if v is not None else None
    if us is None:
        return None
    neg = isinstance(v, str) and v.strip().startswith("-")
    secs = us // 1_000_000
    return -secs if neg else secs


def _period(p: int) -> int:
    y, m = divmod(p, 100)
    if p < 10000 and y < 100:
        y = _year(y, 2)
    return y * 12 + m - 1


def _period_add(p: Any, n: Any) -> int | None:
    if p is None or n is None:
        return None
    pv = to_int(p)
    if pv == 0:
        return 0
    months = _period(pv) + to_int(n)
    y, m = divmod(months, 12)
    return y * 100 + m + 1


def _period_diff(a: Any, b: Any) -> int | None:
    if a is None or b is None:
        return None
    return _period(to_int(a)) - _period(to_int(b))


def _add_time(a: Any, b: Any, sign: int) -> str | None:
    delta = parse_time(b)
    if a is None or delta is None:
        return None
    p = parse_datetime(a) if not isinstance(a, (int, float)) and re.search(r"\d[-/]\d", to_text(a)) else None
    if p is not None:
        d = p.datetime()
        if d is None:
            return None
        r = d + _dt.timedelta(microseconds=sign * delta)
        return _datetime_text(r)
    base = parse_time(a)
    if base is None:
        return None
    return format_time(base + sign * delta)


#: TIME's range, which TIMEDIFF's result is clamped to: 838:59:59 (``TIME_MAX_VALUE``, RM8 13.2.3 "The TIME Type")
_TIME_MAX_US = (838 * 3600 + 59 * 60 + 59) * 1_000_000


def _datetime_us(p: Parts) -> int | None:
    """``p`` as microseconds since MySQL's day zero (``calc_daynr``: ``0000-00-00`` is day 0), or None for a date
    with a zero month or day only (``2008-00-26``), which has no day number."""
    if (p.month == 0 or p.day == 0) and (p.year, p.month, p.day) != (0, 0, 0):
        return None
    days = day_number(p.year, p.month, p.day)
    return ((days * 86400 + (p.hour * 60 + p.minute) * 60 + p.second) * 1_000_000) + p.micro


def _timediff(a: Any, b: Any) -> str | None:
    """``TIMEDIFF(a, b)``: ``a - b`` as a TIME, both datetimes or both times (else NULL), clamped to TIME's range
    (RM8 14.7 "Date and Time Functions": "The result returned by TIMEDIFF() is limited to the range allowed for
    TIME values"). A zero datetime (``'0000-00-00 00:00:00'``, what a TIMESTAMP column of performance_schema holds
    before the event it records: LAST_HEARTBEAT_TIMESTAMP) counts from day zero, as ``calc_time_diff`` reads
    the value a column gives with TIME_FUZZY_DATE, so ``TIMEDIFF(NOW(), zero)`` is ``838:59:59``."""
    pa = parse_datetime(a) if a is not None and re.search(r"\d[-/]\d", to_text(a)) else None
    pb = parse_datetime(b) if b is not None and re.search(r"\d[-/]\d", to_text(b)) else None
    if pa is not None and pb is not None:
        ua, ub = _datetime_us(pa), _datetime_us(pb)
        if ua is None or ub is None:
            return None
        diff = ua - ub
    elif (pa is None) != (pb is None):
        return None
    else:
        ta, tb = parse_time(a), parse_time(b)
        if ta is None or tb is None:
            return None
        diff = ta - tb
    if abs(diff) > _TIME_MAX_US:
        return format_time(_TIME_MAX_US if diff > 0 else -_TIME_MAX_US)
    return format_time(diff)


def _time(v: Any) -> str | None:
    us = _time_part(lambda x: x)(v) if v is not None else None
    if us is None:
        return None
    neg = isinstance(v, str) and v.strip().startswith("-")
    return format_time(-us if neg else us)


def _timestamp(*args: Any) -> str | None:
    check_count("timestamp", args, 1, 2)
    p = parse_datetime(args[0])
    d = None if p is None else p.datetime()
    if d is None:
        return None
    if len(args) == 2:
        delta = parse_time(args[1])
        if delta is None:
            return None
        d += _dt.timedelta(microseconds=delta)
    return _datetime_text(d)


def _date(v: Any) -> str | None:
    p = parse_datetime(v)
    if p is None:
        return None
    return f"{p.year:04d}-{p.month:02d}-{p.day:02d}"


def _round_micro(us: int, fsp: int) -> int:
    """``us`` microseconds rounded half up to ``fsp`` fractional digits (MySQL rounds on conversion unless
    sql_mode has TIME_TRUNCATE_FRACTIONAL: manual "Fractional Seconds in Time Values")."""
    step = 10 ** (6 - fsp)
    return (abs(us) + step // 2) // step * step * (-1 if us < 0 else 1)


def _fraction(us: int, fsp: int) -> str:
    return "." + f"{us % 1_000_000:06d}"[:fsp] if fsp else ""


def _cast_fsp(fsp: Any) -> int:
    """The fractional-seconds precision of ``CAST(x AS DATETIME(fsp) / TIME(fsp))`` (a BIGINT UNSIGNED constant
    arrives as its 8 big-endian bytes).

    Raises:
        MySQLError: 1426 ER_TOO_BIG_PRECISION above 6 (mysql-test ``type_temporal_fractional.result``: "Too-big
            precision 7 specified for 'CAST'. Maximum is 6.").
    """
    n = int.from_bytes(fsp, "big") if isinstance(fsp, bytes) else int(fsp or 0)
    if n > 6:
        raise mysql_error(1426, n, "CAST", 6)
    return max(0, n)


def cast_date(v: Any) -> str | None:
    """``CAST(v AS DATE)``: the date part of a date / datetime value, NULL for anything else."""
    return _date(v)


def cast_datetime(v: Any, fsp: Any = 0) -> str | None:
    """``CAST(v AS DATETIME(fsp))``: a DATETIME text with exactly ``fsp`` fractional digits (rounded), a date
    getting ``00:00:00``; NULL when ``v`` is not a date or datetime."""
    n = _cast_fsp(fsp)
    p = parse_datetime(v)
    if p is None:
        return None
    d = p.datetime()
    if d is None:  # a zero date or one with zero parts: no calendar arithmetic, only the digits
        us = _round_micro(p.micro, n)
        return (
            f"{p.year:04d}-{p.month:02d}-{p.day:02d} {p.hour:02d}:{p.minute:02d}:{p.second:02d}"
            + _fraction(us, n)
        )
    micro = _round_micro(d.microsecond, n)
    d = d.replace(microsecond=0) + _dt.timedelta(microseconds=micro)
    return _datetime_text(d, False) + _fraction(d.microsecond, n)


def cast_time(v: Any, fsp: Any = 0) -> str | None:
    """``CAST(v AS TIME(fsp))``: a TIME text with exactly ``fsp`` fractional digits (rounded); NULL when ``v`` is
    not a time."""
    n = _cast_fsp(fsp)
    us = parse_time(v)
    if us is None:
        return None
    us = _round_micro(us, n)
    text = format_time(us, False)
    return text + _fraction(abs(us), n)


#: EXTRACT unit -> parts it reads, joined as digits (compound units) or a single number
_EXTRACT = {
    "YEAR_MONTH": ("year", "month"),
    "DAY_HOUR": ("day", "hour"),
    "DAY_MINUTE": ("day", "hour", "minute"),
    "DAY_SECOND": ("day", "hour", "minute", "second"),
    "DAY_MICROSECOND": ("day", "hour", "minute", "second", "micro"),
    "HOUR_MINUTE": ("hour", "minute"),
    "HOUR_SECOND": ("hour", "minute", "second"),
    "HOUR_MICROSECOND": ("hour", "minute", "second", "micro"),
    "MINUTE_SECOND": ("minute", "second"),
    "MINUTE_MICROSECOND": ("minute", "second", "micro"),
    "SECOND_MICROSECOND": ("second", "micro"),
}


def extract(unit: Any, v: Any) -> int | None:
    """``EXTRACT(unit FROM date)``: one part, or the digits of a compound unit's parts (``YEAR_MONTH`` of
    ``'2019-07-02 01:02:03'`` -> 201907); NULL for NULL or an invalid date."""
    if unit is None:
        return None
    u = to_text(unit).upper()
    p = parse_datetime(v)
    if p is None:
        us = parse_time(v)
        if us is None:
            return None
        secs = abs(us) // 1_000_000
        p = Parts(0, 0, 0, secs // 3600, secs // 60 % 60, secs % 60, abs(us) % 1_000_000, True)
    single = {"YEAR": p.year, "MONTH": p.month, "DAY": p.day, "HOUR": p.hour, "MINUTE": p.minute,
              "SECOND": p.second, "MICROSECOND": p.micro, "QUARTER": (p.month + 2) // 3}  # fmt: skip
    if u in single:
        return single[u]
    if u == "WEEK":
        return week(v, 0)
    parts = _EXTRACT.get(u)
    if parts is None:
        return None
    text = "".join(
        f"{getattr(p, name):06d}" if name == "micro" else f"{getattr(p, name):02d}" for name in parts
    )
    if parts[0] == "year":
        text = f"{p.year}{p.month:02d}"
    return int(text)


#: GET_FORMAT's table (RM 8.4 "Date and Time Functions", GET_FORMAT): (type, standard) -> format
_GET_FORMAT = {
    ("DATE", "USA"): "%m.%d.%Y",
    ("DATE", "JIS"): "%Y-%m-%d",
    ("DATE", "ISO"): "%Y-%m-%d",
    ("DATE", "EUR"): "%d.%m.%Y",
    ("DATE", "INTERNAL"): "%Y%m%d",
    ("DATETIME", "USA"): "%Y-%m-%d %H.%i.%s",
    ("DATETIME", "JIS"): "%Y-%m-%d %H:%i:%s",
    ("DATETIME", "ISO"): "%Y-%m-%d %H:%i:%s",
    ("DATETIME", "EUR"): "%Y-%m-%d %H.%i.%s",
    ("DATETIME", "INTERNAL"): "%Y%m%d%H%i%s",
    ("TIME", "USA"): "%h:%i:%s %p",
    ("TIME", "JIS"): "%H:%i:%s",
    ("TIME", "ISO"): "%H:%i:%s",
    ("TIME", "EUR"): "%H.%i.%s",
    ("TIME", "INTERNAL"): "%H%i%s",
}


def get_format(kind: Any, standard: Any) -> str | None:
    """``GET_FORMAT({DATE|TIME|DATETIME|TIMESTAMP}, {'EUR'|'USA'|'JIS'|'ISO'|'INTERNAL'})``: the format string
    of the manual's table (TIMESTAMP as DATETIME); NULL for another standard or NULL."""
    if kind is None or standard is None:
        return None
    k = to_text(kind).upper()
    return _GET_FORMAT.get(("DATETIME" if k == "TIMESTAMP" else k, to_text(standard).upper()))


#: name -> (argument count, -1 for variadic; implementation)
DATETIME_FUNCTIONS: dict[str, tuple[int, Callable[..., Any]]] = {
    "DATE_FORMAT": (2, date_format),
    "GET_FORMAT": (2, get_format),
    "TIME_FORMAT": (2, _time_format),
    "STR_TO_DATE": (2, str_to_date),
    "DAYNAME": (1, _valid_date_part(lambda d: _DAY_NAMES[d.weekday()])),
    "MONTHNAME": (1, _date_part(lambda p: _MONTH_NAMES[p.month - 1] if p.month else None)),
    "DAYOFYEAR": (1, _valid_date_part(lambda d: d.timetuple().tm_yday)),
    "WEEKDAY": (1, _valid_date_part(lambda d: d.weekday())),
    "QUARTER": (1, _date_part(lambda p: (p.month + 2) // 3)),
    "WEEK": (-1, ranged("week", 1, 2, week)),
    "WEEKOFYEAR": (1, lambda v: week(v, 3)),
    "YEARWEEK": (-1, ranged("yearweek", 1, 2, _yearweek)),
    "TO_DAYS": (1, _to_days),
    "FROM_DAYS": (1, _from_days),
    "TO_SECONDS": (1, _to_seconds),
    "DATEDIFF": (2, _datediff),
    "TIMESTAMPDIFF": (3, timestampdiff),
    "MAKEDATE": (2, _makedate),
    "MAKETIME": (3, _maketime),
    "SEC_TO_TIME": (1, _sec_to_time),
    "TIME_TO_SEC": (1, _time_to_sec),
    "PERIOD_ADD": (2, _period_add),
    "PERIOD_DIFF": (2, _period_diff),
    "ADDTIME": (2, lambda a, b: _add_time(a, b, 1)),
    "SUBTIME": (2, lambda a, b: _add_time(a, b, -1)),
    "TIMEDIFF": (2, _timediff),
    "_GK_TIME": (1, _time),
    "_GK_CAST_DATE": (1, cast_date),
    "_GK_CAST_DATETIME": (2, cast_datetime),
    "_GK_CAST_TIME": (2, cast_time),
    "_GK_DATE": (1, _date),
    "TIMESTAMP": (-1, _timestamp),
    "_GK_EXTRACT": (2, extract),
    "HOUR": (1, _time_part(lambda us: us // 3_600_000_000)),
    "MINUTE": (1, _time_part(lambda us: us // 60_000_000 % 60)),
    "SECOND": (1, _time_part(lambda us: us // 1_000_000 % 60)),
    "MICROSECOND": (1, _time_part(lambda us: us % 1_000_000)),
}

register(*rows_from(DATETIME_FUNCTIONS))
