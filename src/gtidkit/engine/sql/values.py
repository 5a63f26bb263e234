"""Value coercion to MySQL column types under strict SQL mode (STRICT_TRANS_TABLES, MySQL 8.0's default).

A value headed for a column is converted the way MySQL's ``Field::store`` does for the supported types, or
rejected with MySQL's error: 1264 out of range, 1265 data truncated, 1366 incorrect value, 1406 data too long,
1292 incorrect datetime value, 1048 column cannot be null. Storage form (what SQLite holds and row images carry):
int for INT family/YEAR, float for FLOAT/DOUBLE, ``Decimal`` (stored as text-free NUMERIC) for DECIMAL, ``str``
for CHAR/VARCHAR/TEXT and temporal types (MySQL's canonical text, e.g. ``2024-01-31 12:00:00.123``), ``bytes`` for
BINARY/VARBINARY/BLOB.
Known gap: DECIMAL values are stored with SQLite NUMERIC affinity (so comparisons and ORDER BY are numeric), which
keeps about 15 significant digits; DECIMAL(p,s) columns with more digits lose precision at rest, and arithmetic on
them in SELECT is binary floating point. Row images and SELECTs of the column itself come back as ``Decimal``
quantised to the column's scale.
Sources: MySQL ``sql/field.cc`` (Field_long::store, Field_string::store, Field_new_decimal::store),
manual "Out-of-Range and Overflow Handling", "The DATE, DATETIME, and TIMESTAMP Types".
"""

from __future__ import annotations

import datetime as _dt
import math
import re
import struct
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

from gtidkit.engine.sql.catalog import ColumnDef
from gtidkit.errors import MySQLError
from gtidkit.mysql_errors import mysql_error

__all__ = ["coerce", "format_datetime", "from_sqlite", "to_sqlite"]

_NUM_PREFIX = re.compile(r"\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
_DATETIME = re.compile(
    r"^\s*(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.(\d{1,6}))?)?\s*$"
)
_TIME = re.compile(r"^\s*(-)?(\d{1,3}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,6}))?)?\s*$")


def _err_range(col: ColumnDef, row: int) -> MySQLError:
    return mysql_error(1264, col.name, row)


def _parse_number(col: ColumnDef, v: str, row: int, kind: str) -> Decimal:
    m = _NUM_PREFIX.match(v)
    if not m:
        raise mysql_error(1366, kind, v, col.name, row)
    if v[m.end() :].strip():
        raise mysql_error(1265, col.name, row)
    return Decimal(m.group(0).strip())


def _round_half_away(d: Decimal) -> int:
    return int(d.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def format_datetime(value: _dt.datetime | _dt.date, fsp: int = 0) -> str:
    """MySQL's canonical text of a DATETIME (with ``fsp`` fractional digits) or DATE."""
    if isinstance(value, _dt.datetime):
        s = value.strftime("%Y-%m-%d %H:%M:%S")
        if fsp:
            s += "." + f"{value.microsecond:06d}"[:fsp]
        return s
    return value.strftime("%Y-%m-%d")


def coerce(col: ColumnDef, v: Any, row: int = 1) -> Any:
    """Convert ``v`` to the storage form of column ``col`` (strict mode), row number ``row`` for messages.

    ``None`` stays ``None`` (NOT NULL is checked by the caller, which knows about AUTO_INCREMENT and defaults).

    Raises:
        MySQLError: 1264, 1265, 1366, 1406, 1292 as MySQL does in strict mode.
    """
    if v is None:
        return None
    fam = col.info.family
    if fam in ("int", "year"):
        if isinstance(v, bool):
            v = int(v)
        if isinstance(v, int):
            n = v
        elif isinstance(v, float):
            if not math.isfinite(v):
                raise _err_range(col, row)
            n = _round_half_away(Decimal(repr(v)))
        elif isinstance(v, Decimal):
            n = _round_half_away(v)
        elif isinstance(v, bytes):
            return coerce(col, v.decode("utf-8", "replace"), row)
        else:
            n = _round_half_away(_parse_number(col, str(v), row, "integer"))
        lo, hi = col.int_range()  # type: ignore[misc]
        if fam == "year" and 0 < n < 100:  # MySQL: 1-69 -> 2001-2069, 70-99 -> 1970-1999
            n += 2000 if n < 70 else 1900
        if n < lo or n > hi or (fam == "year" and n != 0 and n < 1901):
            raise _err_range(col, row)
        return n
    if fam == "float":
        if isinstance(v, (bytes, str)):
            f = float(_parse_number(col, v.decode() if isinstance(v, bytes) else v, row, "double"))
        else:
            f = float(v)
        if col.unsigned and f < 0:
            raise _err_range(col, row)
        if col.type == "float":
            try:
                f = to_float32(f)
            except OverflowError:
                raise _err_range(col, row) from None
        return f
    if fam == "decimal":
        try:
            d = Decimal(v) if not isinstance(v, float) else Decimal(repr(v))
        except (InvalidOperation, TypeError, ValueError):
            d = _parse_number(col, v.decode() if isinstance(v, bytes) else str(v), row, "decimal")
        scale = col.scale or 0
        d = d.quantize(Decimal(1).scaleb(-scale), rounding=ROUND_HALF_UP)
        if abs(d) >= Decimal(10) ** ((col.precision or 10) - scale) or (col.unsigned and d < 0):
            raise _err_range(col, row)
        return d
    if fam == "string":
        if isinstance(v, bytes):
            s = v.decode("utf-8", "replace")
        elif isinstance(v, float):
            s = repr(v).rstrip("0").rstrip(".") if "e" not in repr(v) else repr(v)
        elif isinstance(v, (_dt.datetime, _dt.date)):
            s = format_datetime(v)
        else:
            s = str(v)
        if col.type == "char":
            s = s.rstrip(" ")  # CHAR is padded on disk and stripped on read (PAD_CHAR_TO_FULL_LENGTH off)
        n = col.max_chars()
        if n is not None and len(s) > n:
            raise mysql_error(1406, col.name, row)
        return s
    if fam == "binary":
        # a string literal's bytes as the client sent them: the wire text is decoded with surrogateescape, so
        # bytes that are not UTF-8 (mysqldump's '\0\xff...' BLOB literals) come back unchanged
        b = v if isinstance(v, bytes) else str(v).encode("utf-8", "surrogateescape")
        n = col.max_chars()
        if n is not None and len(b) > n:
            raise mysql_error(1406, col.name, row)
        if col.type == "binary" and n is not None:
            b = b.ljust(n, b"\0")
        return b
    if fam == "temporal":
        return _coerce_temporal(col, v, row)
    raise mysql_error(1235, "column type " + str(col.type))


def _coerce_temporal(col: ColumnDef, v: Any, row: int) -> str:
    kind = {"date": "date", "time": "time"}.get(col.type, "datetime")
    bad = mysql_error(1292, kind, v, col.name, row, text_of=1366)
    fsp = col.scale or 0
    if isinstance(v, (_dt.datetime, _dt.date)):
        dt = v
    elif col.type == "time":
        m = _TIME.match(str(v))
        if not m:
            raise bad
        sign, h, mi, s, frac = m.groups()
        if int(mi) > 59 or int(s or 0) > 59:
            raise bad
        out = f"{sign or ''}{int(h):02d}:{int(mi):02d}:{int(s or 0):02d}"
        if fsp:
            out += "." + (frac or "").ljust(6, "0")[:fsp]
        return out
    else:
        m = _DATETIME.match(str(v))
        if not m:
            raise bad
        y, mo, d, h, mi, s, frac = m.groups()
        if (y, mo, d) == ("0000", "00", "00") or y == "0000" and mo in ("0", "00"):
            return "0000-00-00" if col.type == "date" else "0000-00-00 00:00:00"
        try:
            dt = _dt.datetime(
                int(y),
                int(mo),
                int(d),
                int(h or 0),
                int(mi or 0),
                int(s or 0),
                int((frac or "0").ljust(6, "0")),
            )
        except ValueError:
            raise bad from None
    if col.type == "date":
        return format_datetime(dt if not isinstance(dt, _dt.datetime) else dt.date())
    if not isinstance(dt, _dt.datetime):
        dt = _dt.datetime(dt.year, dt.month, dt.day)
    if col.type == "timestamp" and not (1970 <= dt.year <= 2038):
        raise bad
    return format_datetime(dt, fsp)


def to_float32(f: float) -> float:
    """``f`` rounded to IEEE single precision, as MySQL stores FLOAT (raises OverflowError beyond its range)."""
    return struct.unpack("<f", struct.pack("<f", f))[0]


def to_sqlite(v: Any) -> Any:
    """Storage form -> value bound into SQLite (Decimal becomes str to keep digits; NUMERIC affinity converts)."""
    if isinstance(v, Decimal):
        return str(v)
    return v


def from_sqlite(col: ColumnDef, v: Any) -> Any:
    """Value read from SQLite -> storage form of ``col`` (Decimal for DECIMAL, int for INT)."""
    if v is None:
        return None
    fam = col.info.family
    if fam == "decimal":
        return Decimal(str(v)).quantize(Decimal(1).scaleb(-(col.scale or 0)), rounding=ROUND_HALF_UP)
    if fam == "float" and isinstance(v, int):
        return float(v)
    if fam == "binary" and isinstance(v, str):
        return v.encode("utf-8", "surrogateescape")
    if fam == "string" and not isinstance(v, str):
        return str(v)
    return v
