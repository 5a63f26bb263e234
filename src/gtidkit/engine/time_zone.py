"""The session time zone (``@@time_zone``): parse its value, convert between it and UTC.

MySQL sources: manual "MySQL Server Time Zone Support" (values ``SYSTEM``, an offset ``'+HH:MM'`` / ``'-HH:MM'``
from ``-13:59`` to ``+14:00`` inclusive, or a named zone), "The DATE, DATETIME, and TIMESTAMP Types" (TIMESTAMP is
stored in UTC and converted from/to the session zone; DATETIME is not), and ``mysql-test/r/timezone2.result``
(``'0'``, ``'0:0'``, ``'-20:00'``, ``'+20:00'`` and unknown names fail with ER_UNKNOWN_TIME_ZONE 1298).

Named zones (``'Europe/Paris'``, ``'UTC'``, ``'MET'``) exist in MySQL only once the ``mysql.time_zone*`` tables
have been loaded (``mysql_tzinfo_to_sql``); a freshly initialised MySQL 8.4 has them empty, so ``SET
time_zone='UTC'`` fails with 1298 and ``CONVERT_TZ(x, 'UTC', ...)`` is NULL. gtidkit behaves as that fresh server:
it knows ``SYSTEM`` and offsets only (no time zone tables to load).

``SYSTEM`` is the host's local zone (``system_time_zone``), as mysqld started without ``--default-time-zone``.
"""

from __future__ import annotations

import datetime as _dt
import functools
import re
import time
from dataclasses import dataclass

from gtidkit.mysql_errors import mysql_error

__all__ = [
    "MAX_OFFSET",
    "MIN_OFFSET",
    "SYSTEM",
    "TimeZone",
    "find_time_zone",
    "parse_time_zone",
    "system_time_zone_name",
]

SYSTEM = "SYSTEM"
#: widest offsets MySQL accepts since 8.0.19: -13:59 .. +14:00 (manual "MySQL Server Time Zone Support")
MIN_OFFSET = -(13 * 3600 + 59 * 60)
MAX_OFFSET = 14 * 3600

#: MySQL's ``str_to_offset``: a sign, hour digits, ':', minute digits; nothing else
_OFFSET = re.compile(r"([+-])(\d+):(\d+)")

_EPOCH = _dt.datetime(1970, 1, 1)


@dataclass(frozen=True, slots=True)
class TimeZone:
    """One time zone a session can be in (MySQL's ``Time_zone``: ``Time_zone_system`` or ``Time_zone_offset``).

    Args:
        name: what ``@@time_zone`` shows: ``SYSTEM`` or ``+HH:MM`` / ``-HH:MM`` (MySQL prints offsets with two-digit
            hours and minutes whatever was written: ``'+5:00'`` shows ``+05:00``).
        offset: seconds east of UTC, or None for ``SYSTEM`` (the host's zone, daylight saving included).
    """

    name: str
    offset: int | None

    def __post_init__(self) -> None:
        if self.offset is not None and not MIN_OFFSET <= self.offset <= MAX_OFFSET:
            raise ValueError(f"time zone offset {self.offset} s outside -13:59..+14:00")

    @property
    def is_utc(self) -> bool:
        """The zone is UTC at every instant (offset 0), so conversions are the identity."""
        return self.offset == 0

    def from_epoch(self, seconds: float) -> _dt.datetime:
        """The naive local datetime in this zone of ``seconds`` since the epoch (``gmt_sec_to_TIME``)."""
        if self.offset is None:
            return _dt.datetime.fromtimestamp(seconds)
        return _EPOCH + _dt.timedelta(seconds=seconds + self.offset)

    def to_epoch(self, local: _dt.datetime) -> float:
        """Seconds since the epoch of the naive datetime ``local`` read in this zone (``TIME_to_gmt_sec``).

        A ``SYSTEM`` time inside a daylight-saving gap is taken as the platform's ``mktime`` takes it.
        """
        if self.offset is None:
            return local.timestamp()
        return (local - _EPOCH).total_seconds() - self.offset

    def to_utc(self, local: _dt.datetime) -> _dt.datetime:
        """``local`` (naive, in this zone) as a naive UTC datetime."""
        if self.offset is not None:
            return local - _dt.timedelta(seconds=self.offset)
        return _EPOCH + _dt.timedelta(seconds=self.to_epoch(local))

    def from_utc(self, utc: _dt.datetime) -> _dt.datetime:
        """The naive UTC datetime ``utc`` as a naive datetime in this zone."""
        if self.offset is not None:
            return utc + _dt.timedelta(seconds=self.offset)
        return self.from_epoch((utc - _EPOCH).total_seconds())


def _offset_name(offset: int) -> str:
    sign = "-" if offset < 0 else "+"
    hours, minutes = divmod(abs(offset) // 60, 60)
    return f"{sign}{hours:02d}:{minutes:02d}"


@functools.lru_cache(maxsize=256)
def find_time_zone(text: str) -> TimeZone | None:
    """The zone a ``time_zone`` value names, or None when MySQL would not know it (``my_tz_find``).

    Args:
        text: ``SYSTEM`` (any case) or an offset ``[+-]H[H]:MM``.

    Returns:
        The :class:`TimeZone`, or None for a malformed offset, one outside -13:59..+14:00, minutes above 59, or
        any name (a fresh MySQL 8.4 has empty time zone tables: module docstring).
    """
    if text.upper() == SYSTEM:
        return TimeZone(SYSTEM, None)
    m = _OFFSET.fullmatch(text)
    if m is None:
        return None
    sign, hours, minutes = m.groups()
    if int(minutes) > 59:
        return None
    offset = (int(hours) * 60 + int(minutes)) * 60 * (-1 if sign == "-" else 1)
    if not MIN_OFFSET <= offset <= MAX_OFFSET:
        return None
    return TimeZone(_offset_name(offset), offset)


def parse_time_zone(value: object) -> TimeZone:
    """The zone of a ``SET time_zone = value`` (or ``--default-time-zone``) right-hand side.

    Args:
        value: the evaluated value (str or bytes; anything else is shown as text in the error).

    Returns:
        The :class:`TimeZone`.

    Raises:
        MySQLError: 1298 ER_UNKNOWN_TIME_ZONE "Unknown or incorrect time zone: '%s'" (timezone2.result).
    """
    if type(value) is str:  # every statement that logs or stores a time reads the session's zone
        known = _PARSED.get(value)
        if known is not None:
            return known
    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
    tz = find_time_zone(text)
    if tz is None:
        raise mysql_error(1298, text)
    if type(value) is str:
        if len(_PARSED) >= 256:
            _PARSED.clear()
        _PARSED[value] = tz
    return tz


#: ``time_zone`` text -> its zone (:func:`find_time_zone` is a function of the text alone: SYSTEM or an offset)
_PARSED: dict[str, TimeZone] = {}


def system_time_zone_name() -> str:
    """``@@system_time_zone``: the host zone's abbreviation at start-up (``tzname`` of the current time)."""
    return time.strftime("%Z") or "UTC"
