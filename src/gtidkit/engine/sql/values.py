"""Value coercion to MySQL column types, strict or not (the statement's :class:`FieldStore` says which).

A value headed for a column is converted the way MySQL's ``Field::store`` does for the supported types. In strict
mode (STRICT_TRANS_TABLES, MySQL 8.0's default) a bad value is rejected with MySQL's error: 1264 out of range, 1265
data truncated, 1366 incorrect value, 1406 data too long, 1292 incorrect datetime value, 1048 column cannot be
null; otherwise (``sql_mode=''``, INSERT IGNORE) the adjusted value is stored with a warning of the same family. Storage form (what SQLite holds and row images carry):
int for INT family/YEAR, float for FLOAT/DOUBLE, ``Decimal`` (stored as text-free NUMERIC) for DECIMAL, ``str``
for CHAR/VARCHAR/TEXT, JSON (MySQL's printed form of the document) and temporal types (MySQL's canonical text, e.g. ``2024-01-31 12:00:00.123``), ``bytes`` for
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
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

from gtidkit.engine import charsets
from gtidkit.engine.sql import enum_set, json_functions, spatial
from gtidkit.engine.sql.catalog import ColumnDef
from gtidkit.errors import MySQLError
from gtidkit.mysql_errors import mysql_error

__all__ = [
    "FieldStore",
    "coerce",
    "format_datetime",
    "from_sqlite",
    "implicit_default",
    "store_null",
    "to_sqlite",
]

_NUM_PREFIX = re.compile(r"\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
_DATETIME = re.compile(
    r"^\s*(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.(\d{1,6}))?)?\s*$"
)
_TIME = re.compile(r"^\s*(-)?(\d{1,3}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,6}))?)?\s*$")


@dataclass(slots=True)
class FieldStore:
    """How one statement stores values into fields: MySQL's ``check_for_truncated_fields`` for the statement.

    In strict mode (``strict=True``: STRICT_TRANS_TABLES / STRICT_ALL_TABLES and no IGNORE) a conversion problem
    is the statement's error; otherwise it becomes a warning and the adjusted value is stored (manual "Server SQL
    Modes", strict mode: "If strict mode is not in effect, MySQL inserts adjusted values for invalid or missing
    values and produces warnings"). Notes (e.g. DECIMAL rounding, trailing spaces cut) are recorded in both.

    Attributes:
        strict: errors (True) or warnings with adjusted values (False).
        warnings: ``(level, code, message)`` conditions raised so far, in order (SHOW WARNINGS rows).
    """

    strict: bool = True
    warnings: list[tuple[str, int, str]] = field(default_factory=list)
    error_for_division_by_zero: bool = False

    def division_by_zero(self) -> None:
        """A ``/``, DIV, ``%`` or MOD by zero in a value the statement stores (the result is NULL either way).

        Manual "Server SQL Modes", ERROR_FOR_DIVISION_BY_ZERO: without the mode, no warning; with it, a warning
        1365, or (with strict mode and no IGNORE) error 1365 (strict.result: ``UPDATE t1 SET col1 = col1 / 0``
        -> ERROR 22012 Division by 0; ``INSERT IGNORE ... (1/0, 1/0)`` -> two warnings 1365).

        Raises:
            MySQLError: 1365 in strict mode with ERROR_FOR_DIVISION_BY_ZERO.
        """
        if self.error_for_division_by_zero:
            self.adjust(mysql_error(1365), None)

    def adjust(self, err: MySQLError, value: Any) -> Any:
        """Raise ``err`` in strict mode; else record it as a Warning and return the adjusted ``value``.

        Raises:
            MySQLError: ``err`` itself, in strict mode.
        """
        if self.strict:
            raise err
        self.warnings.append(("Warning", err.code, err.message))
        return value

    def note(self, err: MySQLError) -> None:
        """Record ``err``'s text as a Note (raised in either mode, never an error)."""
        self.warnings.append(("Note", err.code, err.message))


def _strict() -> FieldStore:
    """The store used when a caller passes none: strict, its notes discarded."""
    return FieldStore()


def _parse_number(col: ColumnDef, v: str, row: int, kind: str, store: FieldStore) -> Decimal:
    """The numeric prefix of ``v``: no number at all is 1366 (1265 for FLOAT/DOUBLE) with 0; trailing garbage is
    1265 with the prefix (for DECIMAL: 1366 in strict mode, a Note 1265 otherwise) — MySQL 8.0
    ``mysql-test/r/strict.result`` ('a59b', '1a', '2a' into INT, DECIMAL, FLOAT columns)."""
    m = _NUM_PREFIX.match(v)
    if not m:
        if kind == "double":
            return store.adjust(mysql_error(1265, col.name, row), Decimal(0))
        return store.adjust(mysql_error(1366, kind, v, col.name, row), Decimal(0))
    d = Decimal(m.group(0).strip())
    if v[m.end() :].strip():
        if kind == "decimal":
            if store.strict:
                raise mysql_error(1366, kind, v, col.name, row)
            store.note(mysql_error(1265, col.name, row))
            return d
        return store.adjust(mysql_error(1265, col.name, row), d)
    return d


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


def implicit_default(col: ColumnDef) -> Any:
    """The implicit default of ``col``'s type (manual "Data Type Default Values", implicit defaults): 0 for
    numbers, '' for strings, zero bytes for BINARY(n), the "zero" value for temporal types, 0 (0000) for YEAR."""
    fam = col.info.family
    if fam in ("int", "year"):
        return 0
    if fam == "float":
        return 0.0
    if fam == "decimal":
        return Decimal(0).quantize(Decimal(1).scaleb(-(col.scale or 0)))
    if col.type == "enum" and col.members:
        return col.members[0]  # RM "The ENUM Type": a NOT NULL ENUM's default is its first member
    if fam == "string":
        return ""
    if fam == "json":
        return "null"  # Field_json::reset stores the JSON null literal
    if fam == "binary":
        n = col.max_chars()
        return b"\0" * n if col.type == "binary" and n else b""
    return _zero_temporal(col)


def _zero_temporal(col: ColumnDef) -> str:
    if col.type == "date":
        return "0000-00-00"
    if col.type == "time":
        return "00:00:00" + ("." + "0" * col.scale if col.scale else "")
    return "0000-00-00 00:00:00" + ("." + "0" * col.scale if col.scale else "")


def store_null(col: ColumnDef, row: int, store: FieldStore | None = None) -> Any:
    """NULL assigned to NOT NULL column ``col``: error 1048 in strict mode, else warning 1048 and the implicit
    default (MySQL 8.0 ``mysql-test/r/strict.result``: ``INSERT IGNORE INTO t1 values (NULL,NULL,NULL)`` stores
    0, '' and 0000-00-00 with three warnings 1048).

    Raises:
        MySQLError: 1048 in strict mode.
    """
    return (store or _strict()).adjust(mysql_error(1048, col.name), implicit_default(col))


def coerce(
    col: ColumnDef, v: Any, row: int = 1, store: FieldStore | None = None, table: str | None = None
) -> Any:
    """Convert ``v`` to the storage form of column ``col``, row number ``row`` for messages.

    ``None`` stays ``None`` (NOT NULL is checked by the caller, which knows about AUTO_INCREMENT and defaults;
    see :func:`store_null`). With a non-strict ``store`` each problem is recorded there as a warning and the
    adjusted value MySQL stores is returned: out of range -> the type's nearest bound (1264; YEAR -> 0), no
    number -> 0 (1366), trailing garbage -> the numeric prefix (1265), too long -> cut to the column length
    (1265), a bad date or time -> the zero value (1265). Sources: manual "Out-of-Range and Overflow Handling",
    "Server SQL Modes"; MySQL 8.0 ``mysql-test/r/strict.result`` (INSERT IGNORE, which converts as non-strict).

    Args:
        col: the target column.
        v: the value (int, float, Decimal, str, bytes, date/datetime, None).
        row: 1-based row number of the statement, for the messages.
        store: the statement's :class:`FieldStore`; ``None`` means strict, notes discarded.
        table: the table's name, for the JSON column message (``'t.doc'``).

    Raises:
        MySQLError: 1264, 1265, 1366, 1406, 1292 as MySQL does in strict mode; 3140 for a JSON column given
            invalid JSON text (in every mode, as MySQL: INSERT IGNORE does not store it either).
    """
    if store is None:
        store = _strict()
    if v is None:
        return None
    fam = col.info.family
    if fam in ("int", "year"):
        return _coerce_int(col, v, row, store)
    if fam == "float":
        return _coerce_float(col, v, row, store)
    if fam == "decimal":
        return _coerce_decimal(col, v, row, store)
    if col.type == "enum":
        return enum_set.coerce_enum(col, v, row, store)
    if col.type == "set":
        return enum_set.coerce_set(col, v, row, store)
    if fam == "string":
        if isinstance(v, bytes):
            s = v.decode("utf-8", "replace")
        elif isinstance(v, float):
            s = repr(v).rstrip("0").rstrip(".") if "e" not in repr(v) else repr(v)
        elif isinstance(v, (_dt.datetime, _dt.date)):
            s = format_datetime(v)
        else:
            s = str(v)
        if col.charset is not None and not charsets.is_utf8(col.charset) or col.charset == "utf8mb3":
            s = _in_charset(col, s, row, store)
        if col.type == "char":
            s = s.rstrip(" ")  # CHAR is padded on disk and stripped on read (PAD_CHAR_TO_FULL_LENGTH off)
        n = col.max_chars()
        if n is not None and len(s) > n:
            if not s[n:].strip(" "):
                # only spaces cut: a Note in every mode (strict.result: 'hello  ' into VARCHAR(6))
                store.note(mysql_error(1265, col.name, row))
                return s[:n]
            if store.strict:
                raise mysql_error(1406, col.name, row)
            return _truncated(store, col, row, s[:n])
        return s
    if fam == "binary":
        # a string literal's bytes as the client sent them: the wire text is decoded with surrogateescape, so
        # bytes that are not UTF-8 (mysqldump's '\0\xff...' BLOB literals) come back unchanged
        b = v if isinstance(v, bytes) else str(v).encode("utf-8", "surrogateescape")
        n = col.max_chars()
        if n is not None and len(b) > n:
            if store.strict:
                raise mysql_error(1406, col.name, row)
            b = _truncated(store, col, row, b[:n])
        if col.type == "binary" and n is not None:
            b = b.ljust(n, b"\0")
        return b
    if fam == "temporal":
        return _coerce_temporal(col, v, row, store)
    if fam == "json":
        return json_functions.column_value(v, f"{table}.{col.name}" if table else col.name)
    if fam == "geometry":
        return spatial.check_value(col.type, col.name, v, col.srid)
    raise mysql_error(1235, "column type " + str(col.type))


def _in_charset(col: ColumnDef, s: str, row: int, store: FieldStore) -> str:
    """``s`` as the column's character set can hold it: a character it cannot (a 4-byte character in utf8mb3,
    'あ' in latin1) is ER_TRUNCATED_WRONG_VALUE_FOR_FIELD 1366 "Incorrect string value: '\\xE3\\x81\\x82' ..."
    (up to 6 bytes from the first bad one, then ``...``; ``Field_longstr::check_string_copy_error``), in strict mode
    an error, else a warning and ``?`` in its place (``well_formed_copy_nchars``)."""
    cs = str(col.charset)
    utf8mb3 = cs.lower() in ("utf8mb3", "utf8")
    if s.isascii() or cs == "binary":
        return s
    for i, ch in enumerate(s):
        if (ord(ch) > 0xFFFF) if utf8mb3 else charsets.encode(ch, cs) == b"?":
            tail = s[i:].encode("utf-8", "surrogateescape")
            shown = "".join(chr(b) if 32 <= b < 127 else f"\\x{b:02X}" for b in tail[:6])
            err = mysql_error(1366, "string", shown + ("..." if len(tail) > 6 else ""), col.name, row)
            store.adjust(err, None)
            break
    else:
        return s
    if utf8mb3:
        return "".join("?" if ord(ch) > 0xFFFF else ch for ch in s)
    return charsets.decode(charsets.encode(s, cs), cs)


def _truncated(store: FieldStore, col: ColumnDef, row: int, value: Any) -> Any:
    """Non-strict: a value cut to fit is warning 1265 (strict mode reports 1406 instead)."""
    return store.adjust(mysql_error(1265, col.name, row), value)


def _out_of_range(col: ColumnDef, row: int) -> MySQLError:
    """1264 ER_WARN_DATA_OUT_OF_RANGE for ``col`` at ``row`` (built only when a value is out of range)."""
    return mysql_error(1264, col.name, row)


def _coerce_int(col: ColumnDef, v: Any, row: int, store: FieldStore) -> int:
    lo, hi = col.int_range()  # type: ignore[misc]
    year = col.info.family == "year"
    if isinstance(v, bool):
        v = int(v)
    if isinstance(v, int):
        n = v
    elif isinstance(v, float):
        if not math.isfinite(v):
            clipped = 0 if year or math.isnan(v) else (hi if v > 0 else lo)
            return int(store.adjust(_out_of_range(col, row), clipped))
        # the exact binary value, not its shortest repr: -2**63 (BIGINT's minimum, bound as a double when a
        # statement template negates the literal 9223372036854775808) must not round to -9223372036854776000
        n = _round_half_away(Decimal(v))
    elif isinstance(v, Decimal):
        n = _round_half_away(v)
    elif isinstance(v, bytes):
        return _coerce_int(col, v.decode("utf-8", "replace"), row, store)
    else:
        n = _round_half_away(_parse_number(col, str(v), row, "integer", store))
    if year and 0 < n < 100:  # MySQL: 1-69 -> 2001-2069, 70-99 -> 1970-1999
        n += 2000 if n < 70 else 1900
    if n < lo or n > hi or (year and n != 0 and n < 1901):
        # Field_year stores 0 for an out-of-range year; integer types clip to the nearest bound
        return int(store.adjust(_out_of_range(col, row), 0 if year else (lo if n < lo else hi)))
    return n


_DBL_MAX = 1.7976931348623157e308
_FLT_MAX = 3.4028234663852886e38


def _coerce_float(col: ColumnDef, v: Any, row: int, store: FieldStore) -> float:
    if isinstance(v, (bytes, str)):
        text = v.decode() if isinstance(v, bytes) else v
        f = float(_parse_number(col, text, row, "double", store))
    else:
        f = float(v)
    top = _FLT_MAX if col.type == "float" else _DBL_MAX
    if math.isnan(f):
        return float(store.adjust(_out_of_range(col, row), 0.0))
    if col.unsigned and f < 0:
        return float(store.adjust(_out_of_range(col, row), 0.0))
    if abs(f) > top:
        return float(store.adjust(_out_of_range(col, row), math.copysign(top, f)))
    if col.type == "float":
        try:
            f = to_float32(f)
        except OverflowError:
            return float(store.adjust(_out_of_range(col, row), math.copysign(_FLT_MAX, f)))
    return f


def _coerce_decimal(col: ColumnDef, v: Any, row: int, store: FieldStore) -> Decimal:
    try:
        d = Decimal(v) if not isinstance(v, float) else Decimal(repr(v))
        if not d.is_finite():
            raise InvalidOperation
    except (InvalidOperation, TypeError, ValueError):
        d = _parse_number(col, v.decode() if isinstance(v, bytes) else str(v), row, "decimal", store)
    scale = col.scale or 0
    quantum = Decimal(1).scaleb(-scale)
    q = d.quantize(quantum, rounding=ROUND_HALF_UP)
    top = Decimal(10) ** ((col.precision or 10) - scale) - quantum
    if q > top or q < -top or (col.unsigned and q < 0):
        bound = Decimal(0).quantize(quantum) if col.unsigned and q < 0 else (top if q > 0 else -top)
        return Decimal(store.adjust(mysql_error(1264, col.name, row), bound))
    if q != d:
        # fractional digits dropped: Note 1265 in every mode (strict.result: 10.5555 into NUMERIC(4,2))
        store.note(mysql_error(1265, col.name, row))
    return q


def _coerce_temporal(col: ColumnDef, v: Any, row: int, store: FieldStore) -> str:
    kind = {"date": "date", "time": "time"}.get(col.type, "datetime")
    try:
        return _parse_temporal(col, v, kind, row)
    except MySQLError:
        if store.strict:
            raise
        # non-strict: the zero value with warning 1265 (strict.result: INSERT IGNORE of '2004-13-31' into DATE)
        return str(store.adjust(mysql_error(1265, col.name, row), _zero_temporal(col)))


def _parse_temporal(col: ColumnDef, v: Any, kind: str, row: int) -> str:
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
