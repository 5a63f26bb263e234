"""Value coercion to MySQL column types, strict or not (the statement's :class:`FieldStore` says which).

A value headed for a column is converted the way MySQL's ``Field::store`` does for the supported types. In strict
mode (STRICT_TRANS_TABLES, MySQL 8.0's default) a bad value is rejected with MySQL's error: 1264 out of range, 1265
data truncated, 1366 incorrect value, 1406 data too long, 1292 incorrect datetime value, 1048 column cannot be
null; otherwise (``sql_mode=''``, INSERT IGNORE) the adjusted value is stored with a warning of the same family.
Storage form (what SQLite holds and row images carry): int for INT family/YEAR/BIT, float for FLOAT/DOUBLE,
``Decimal`` for DECIMAL, ``str`` for CHAR/VARCHAR/TEXT, JSON (MySQL's printed form of the document) and temporal
types (MySQL's canonical text, e.g. ``2024-01-31 12:00:00.123``, ``-838:59:59``, partial dates such as
``2024-00-15`` where sql_mode allows them), ``bytes`` for BINARY/VARBINARY/BLOB.
Where SQLite cannot hold a MySQL value natively the encoding keeps order and equality (never a double): an integer
of 2**63 .. 2**64-1 (BIGINT UNSIGNED, BIT(64)) is an 8-byte big-endian blob (:func:`u64_to_sqlite`: SQLite sorts
every INTEGER before every BLOB and blobs by memcmp), and a DECIMAL(M,D) with M > 15 is its exact text in a column
whose ``GK_DECIMAL`` collation compares by value (``catalog.physical_ddl``, ``storage.decimal_collation``); narrower
DECIMALs are SQLite numbers, exact since a double keeps 15 significant digits. :func:`result_value` turns what
SQLite returns into what a client receives (BIT as bytes, ZEROFILL and YEAR padded).
Sources: MySQL ``sql/field.cc`` (Field_long::store, Field_string::store, Field_new_decimal::store),
manual "Out-of-Range and Overflow Handling", "The DATE, DATETIME, and TIMESTAMP Types".
"""

from __future__ import annotations

import datetime as _dt
import math
import re
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Context, Decimal, InvalidOperation, localcontext
from typing import Any

from gtidkit.engine import charsets
from gtidkit.engine.sql import enum_set, json_functions, spatial
from gtidkit.engine.sql.catalog import ColumnDef
from gtidkit.errors import MySQLError
from gtidkit.mysql_errors import mysql_error

__all__ = [
    "FieldStore",
    "coerce",
    "column_coercer",
    "converts_on_read",
    "format_datetime",
    "from_sqlite",
    "holds_u64_blobs",
    "implicit_default",
    "result_value",
    "store_null",
    "to_sqlite",
    "u64_to_sqlite",
]

_NUM_PREFIX = re.compile(r"\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
_DATETIME = re.compile(
    r"^\s*(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.(\d{1,6}))?)?\s*$"
)
_TIME = re.compile(r"^\s*(-)?(?:(\d+)\s+)?(\d{1,3}):(\d{1,2})(?::(\d{1,2})(?:\.(\d*))?)?\s*$")
#: TIME as ``'D hh'`` (RM8 "Date and Time Literals": the relaxed forms 'D hh:mm' and 'D hh'; D is 0 to 34)
_TIME_DAY_HOURS = re.compile(r"^\s*(-)?(\d+)\s+(\d{1,3})\s*$")
#: TIME as digits: ``[-]HHMMSS[.f]``, ``MMSS``, ``SS`` (RM8 11.1.3 "Date and Time Literals")
_TIME_DIGITS = re.compile(r"^\s*(-)?(\d+)(?:\.(\d*))?\s*$")
#: TIME's range, in microseconds: -838:59:59.000000 .. 838:59:59.000000
_TIME_MAX_US = (838 * 3600 + 59 * 60 + 59) * 1_000_000


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
    #: NO_ZERO_DATE / NO_ZERO_IN_DATE of the statement's sql_mode (off where no session mode applies: DDL
    #: defaults, the applier)
    no_zero_date: bool = False
    no_zero_in_date: bool = False
    #: rows (counted from 1) an INSERT IGNORE skipped as duplicates, in order: the row of each 1062 warning, which
    #: names none (LOAD DATA puts its own conditions in row order around them)
    duplicate_rows: list[int] = field(default_factory=list)

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
    # to_integral_value, not quantize: quantize raises InvalidOperation past the context's 28 digits (1e308)
    return int(d.to_integral_value(rounding=ROUND_HALF_UP))


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
    if fam in ("int", "year", "bit"):
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
    if fam == "bit":
        return _coerce_bit(col, v, row, store)
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
            # bytes that are no UTF-8 (a literal the client sent with bytes invalid in its character set, bound
            # as its bytes) stay surrogate escapes, which _in_charset reports as 1366, as MySQL does
            s = v.decode("utf-8", "surrogateescape")
        elif isinstance(v, float):
            s = repr(v).rstrip("0").rstrip(".") if "e" not in repr(v) else repr(v)
        elif isinstance(v, (_dt.datetime, _dt.date)):
            s = format_datetime(v)
        else:
            s = str(v)
        if (
            col.charset is not None
            and not charsets.is_utf8(col.charset)
            or col.charset == "utf8mb3"
            or (not s.isascii() and _has_undecodable(s))
        ):
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


def column_coercer(col: ColumnDef, table: str | None = None) -> Callable[[Any, int, FieldStore | None], Any]:
    """:func:`coerce` for the column ``col`` of the table ``table`` as a function of ``(v, row, store)``, with
    what depends on the column alone decided once (a DML plan keeps one per column: dml.py ``_Facts``).

    Two cases return the value without :func:`coerce`'s tests, because it would return it unchanged: an ``int``
    (not a bool) within an integer column's range (``_coerce_int``), and an ASCII ``str`` no longer than a UTF-8
    (utf8mb4 or none given) CHAR / VARCHAR / TEXT column's length (a CHAR's trailing spaces stripped, as
    ``coerce`` strips them). Everything else is ``coerce(col, v, row, store, table)``, warnings and errors
    included.
    """
    fam = col.info.family

    def general(v: Any, row: int = 1, store: FieldStore | None = None) -> Any:
        return coerce(col, v, row, store, table)

    if fam == "int":
        bounds = col.int_range()
        assert bounds is not None  # an integer column has one
        lo, hi = bounds

        def integer(v: Any, row: int = 1, store: FieldStore | None = None) -> Any:
            if type(v) is int and lo <= v <= hi:
                return v
            return coerce(col, v, row, store, table)

        return integer
    cs = col.charset
    if (
        fam == "string"
        and col.type not in ("enum", "set")
        and not (cs is not None and not charsets.is_utf8(cs) or cs == "utf8mb3")
    ):
        n = col.max_chars()
        char = col.type == "char"

        def string(v: Any, row: int = 1, store: FieldStore | None = None) -> Any:
            if type(v) is str and v.isascii() and (n is None or len(v) <= n):
                return v.rstrip(" ") if char else v
            return coerce(col, v, row, store, table)

        return string
    return general


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
        if _undecodable(ch) or ((ord(ch) > 0xFFFF) if utf8mb3 else charsets.encode(ch, cs) == b"?"):
            tail = s[i:].encode("utf-8", "surrogateescape")
            shown = "".join(chr(b) if 32 <= b < 127 else f"\\x{b:02X}" for b in tail[:6])
            err = mysql_error(1366, "string", shown + ("..." if len(tail) > 6 else ""), col.name, row)
            store.adjust(err, None)
            break
    else:
        return s
    s = "".join("?" if _undecodable(ch) else ch for ch in s)
    if utf8mb3:
        return "".join("?" if ord(ch) > 0xFFFF else ch for ch in s)
    return charsets.decode(charsets.encode(s, cs), cs)


_UNDECODABLE = re.compile("[\udc80-\udcff]")


def _has_undecodable(s: str) -> bool:
    return _UNDECODABLE.search(s) is not None


def _undecodable(ch: str) -> bool:
    """A byte the client sent that is no character of its set: the wire text keeps it as a surrogate escape
    (U+DC80..U+DCFF), and no text column can hold it (1366, as an ill-formed string in MySQL)."""
    return "\udc80" <= ch <= "\udcff"


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
        if len(v) == 8 and v[0] & 0x80:
            n = int.from_bytes(v, "big")  # a value above 2**63-1 as SQLite holds it (u64_to_sqlite)
        else:
            return _coerce_int(col, v.decode("utf-8", "replace"), row, store)
    else:
        n = _round_half_away(_parse_number(col, str(v), row, "integer", store))
    if year and (0 < n < 100 or (n == 0 and _two_digit_text(v))):
        # MySQL: 1-69 -> 2001-2069, 70-99 -> 1970-1999; as a string, '0' and '00' are 2000 too (the number 0 and
        # the string '0000' are the year 0000; RM8 13.2.4 "The YEAR Type")
        n += 2000 if n < 70 else 1900
    if n < lo or n > hi or (year and n != 0 and n < 1901):
        # Field_year stores 0 for an out-of-range year; integer types clip to the nearest bound
        return int(store.adjust(_out_of_range(col, row), 0 if year else (lo if n < lo else hi)))
    return n


def _two_digit_text(v: Any) -> bool:
    """True for a YEAR given as a string of one or two digits (``'0'``, ``'00'``)."""
    if isinstance(v, bytes):
        v = v.decode("utf-8", "replace")
    return isinstance(v, str) and len(v.strip()) in (1, 2) and v.strip().isdigit()


def _coerce_bit(col: ColumnDef, v: Any, row: int, store: FieldStore) -> int:
    """A value for a BIT(M) column as ``Field_bit::store`` takes it: a number is its 64-bit two's complement (so a
    negative one only fits BIT(64)), a string its bytes read big-endian (``b'..'`` and ``x'..'`` literals are
    numbers already); more than M bits is error 1406 in strict mode, else the all-ones value with warning 1264.
    """
    width = col.length or 1
    if isinstance(v, bool):
        n = int(v)
    elif isinstance(v, int):
        n = v
    elif isinstance(v, (float, Decimal)):
        n = _round_half_away(Decimal(v)) if not isinstance(v, float) or math.isfinite(v) else 2**64 - 1
    else:
        raw = v if isinstance(v, bytes) else str(v).encode("utf-8", "surrogateescape")
        n = int.from_bytes(raw, "big") if len(raw) <= 8 else 2**64
    if n < 0:
        n &= 2**64 - 1
    top = 2**width - 1
    if n > top:
        if store.strict:
            raise mysql_error(1406, col.name, row)
        return int(store.adjust(_out_of_range(col, row), top))
    return n


_DBL_MAX = 1.7976931348623157e308
_FLT_MAX = 3.4028234663852886e38


def _coerce_float(col: ColumnDef, v: Any, row: int, store: FieldStore) -> float:
    if type(v) is bytes and len(v) == 8 and v[0] & 0x80:
        v = int.from_bytes(v, "big")  # an integer literal above 2**63-1 as SQLite carries it (u64_to_sqlite)
    if isinstance(v, (bytes, str)):
        text = v.decode("utf-8", "replace") if isinstance(v, bytes) else v
        f = float(_parse_number(col, text, row, "double", store))
    else:
        f = float(v)
    if col.scale is not None and math.isfinite(f):
        # FLOAT(M,D) / DOUBLE(M,D) keep D decimals, rounded half away from zero (Field_real::truncate_decimal)
        f = float(Decimal(repr(f)).quantize(Decimal(1).scaleb(-col.scale), rounding=ROUND_HALF_UP))
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
    if type(v) is bytes and len(v) == 8 and v[0] & 0x80:
        v = int.from_bytes(v, "big")  # an integer literal above 2**63-1 as SQLite carries it (u64_to_sqlite)
    try:
        d = Decimal(v) if not isinstance(v, float) else Decimal(repr(v))
        if not d.is_finite():
            raise InvalidOperation
    except (InvalidOperation, TypeError, ValueError):
        d = _parse_number(
            col, v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v), row, "decimal", store
        )
    with localcontext(_WIDE):
        return _fit_decimal(col, d, row, store)


#: Decimal arithmetic wide enough for DECIMAL(65,30) values and their bounds (the default context keeps 28 digits).
_WIDE = Context(prec=200, rounding=ROUND_HALF_UP)


def _fit_decimal(col: ColumnDef, d: Decimal, row: int, store: FieldStore) -> Decimal:
    """``d`` rounded to ``col``'s scale and checked against its precision (in the :data:`_WIDE` context)."""
    scale = col.scale or 0
    quantum = Decimal(1).scaleb(-scale)
    top = Decimal(10) ** ((col.precision or 10) - scale) - quantum
    q = d.quantize(quantum, rounding=ROUND_HALF_UP) if d.adjusted() < 100 else d
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
        if col.type == "time":
            return _parse_time(col, v, row, mysql_error(1292, kind, v, col.name, row, text_of=1366), store)
        return _parse_temporal(col, v, kind, row, store)
    except MySQLError:
        if store.strict:
            raise
        # non-strict: the zero value with warning 1265 (strict.result: INSERT IGNORE of '2004-13-31' into DATE)
        return str(store.adjust(mysql_error(1265, col.name, row), _zero_temporal(col)))


def _parse_temporal(col: ColumnDef, v: Any, kind: str, row: int, store: FieldStore) -> str:
    bad = mysql_error(1292, kind, v, col.name, row, text_of=1366)
    fsp = col.scale or 0
    if isinstance(v, (_dt.datetime, _dt.date)):
        dt = v
    elif col.type == "time":
        return _parse_time(col, v, row, bad, store)
    else:
        m = _DATETIME.match(str(v))
        if not m:
            raise bad
        y, mo, d, h, mi, s, frac = m.groups()
        if int(y) == int(mo) == int(d) == 0:
            # the zero date: refused under NO_ZERO_DATE in strict mode (1292), else kept, with warning 1264 when
            # NO_ZERO_DATE is set (RM8 7.1.11 "Server SQL Modes", NO_ZERO_DATE)
            if store.no_zero_date:
                if store.strict:
                    raise bad
                store.warnings.append(("Warning", 1264, mysql_error(1264, col.name, row).message))
            return _zero_temporal(col)
        if int(mo) == 0 or int(d) == 0:
            return _partial_date(col, bad, store, int(y), int(mo), int(d), (h, mi, s, frac), row)
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
    unit = 10 ** (6 - fsp)
    if dt.microsecond % unit:
        # fractional seconds are rounded to the column's fsp, carrying into the seconds (RM8 13.2.6 "Fractional
        # Seconds in Time Values": '2024-12-31 23:59:59.996' into DATETIME(2) is 2025-01-01 00:00:00.00)
        us = (dt.microsecond + unit // 2) // unit * unit
        try:
            dt = dt.replace(microsecond=0) + _dt.timedelta(microseconds=us)
        except OverflowError:
            raise bad from None
    if col.type == "timestamp" and not (1970 <= dt.year <= 2038):
        raise bad
    return format_datetime(dt, fsp)


def _partial_date(
    col: ColumnDef,
    bad: MySQLError,
    store: FieldStore,
    y: int,
    mo: int,
    d: int,
    clock: tuple[str | None, ...],
    row: int,
) -> str:
    """A date with a zero month or day (``'2024-00-15'``): kept as written unless NO_ZERO_IN_DATE is set, which
    refuses it in strict mode (1292) and stores the zero date with warning 1264 otherwise (RM8 7.1.11 "Server SQL
    Modes", NO_ZERO_IN_DATE); a TIMESTAMP cannot hold one (1292).

    Raises:
        MySQLError: ``bad`` as said.
    """
    if col.type == "timestamp" or mo > 12 or d > 31:
        raise bad
    if store.no_zero_in_date:
        if store.strict:
            raise bad
        store.warnings.append(("Warning", 1264, mysql_error(1264, col.name, row).message))
        return _zero_temporal(col)
    text = f"{y:04d}-{mo:02d}-{d:02d}"
    if col.type == "date":
        return text
    h, mi, s, frac = clock
    if int(h or 0) > 23 or int(mi or 0) > 59 or int(s or 0) > 59:
        raise bad
    text += f" {int(h or 0):02d}:{int(mi or 0):02d}:{int(s or 0):02d}"
    fsp = col.scale or 0
    return text + ("." + (frac or "").ljust(6, "0")[:fsp] if fsp else "")


def _parse_time(col: ColumnDef, v: Any, row: int, bad: MySQLError, store: FieldStore) -> str:
    """A TIME value as ``Field_time::store`` reads it: ``[-][D ]h:mm[:ss[.f]]`` text, or a number / digit string
    ``[-]HHMMSS[.f]`` (so ``TIME DEFAULT 0`` is 00:00:00); the fraction rounded half up to the column's fsp (MySQL
    rounds unless TIME_TRUNCATE_FRACTIONAL); beyond +-838:59:59 clipped to it with 1264 (ER_WARN_DATA_OUT_OF_RANGE,
    an error in strict mode). Returns MySQL's text ``[-]hh:mm:ss[.f]``.

    Raises:
        MySQLError: ``bad`` (1292) for text that is no time, 1264 out of range in strict mode.
    """
    fsp = col.scale or 0
    if isinstance(v, _dt.timedelta):
        total = v.days * 86_400_000_000 + v.seconds * 1_000_000 + v.microseconds
        neg, total = total < 0, abs(total)
    else:
        if isinstance(v, bytes):
            v = v.decode("utf-8", "replace")
        text = format(v, "f") if isinstance(v, Decimal) else repr(v) if isinstance(v, float) else str(v)
        m = _TIME.match(text)
        day_hours = None if m else _TIME_DAY_HOURS.match(text)
        if m:
            sign, days, h, mi, sec, frac = m.groups()
            hours = int(h) + 24 * int(days or 0)
            minutes, seconds = int(mi), int(sec or 0)
        elif day_hours:
            sign, days, h = day_hours.groups()
            hours, minutes, seconds, frac = int(h) + 24 * int(days), 0, 0, None
        else:
            m = _TIME_DIGITS.match(text)
            if not m:
                raise bad
            sign, digits, frac = m.groups()
            n = int(digits)
            hours, minutes, seconds = n // 10000, n // 100 % 100, n % 100
        if minutes > 59 or seconds > 59:
            raise bad
        neg = bool(sign)
        frac_us = int((frac or "").ljust(7, "0")[:7])  # one digit more, for the rounding below
        total = ((hours * 3600 + minutes * 60 + seconds) * 1_000_000) * 10 + frac_us
        total = (total + 5) // 10
    unit = 10 ** (6 - fsp)
    total = (total + unit // 2) // unit * unit
    if total > _TIME_MAX_US:
        total = int(store.adjust(mysql_error(1264, col.name, row), _TIME_MAX_US))
    secs, us = divmod(total, 1_000_000)
    out = f"{'-' if neg and total else ''}{secs // 3600:02d}:{secs // 60 % 60:02d}:{secs % 60:02d}"
    return out + ("." + f"{us:06d}"[:fsp] if fsp else "")


def to_float32(f: float) -> float:
    """``f`` rounded to IEEE single precision, as MySQL stores FLOAT (raises OverflowError beyond its range)."""
    return struct.unpack("<f", struct.pack("<f", f))[0]


#: The smallest integer SQLite's signed 64-bit INTEGER cannot hold (BIGINT UNSIGNED and BIT(64) go up to 2**64-1).
U64_BLOB_MIN = 2**63


def u64_to_sqlite(v: int) -> bytes:
    """An unsigned 64-bit value above SQLite's INTEGER range as stored: 8 bytes big-endian.

    SQLite orders every INTEGER before every BLOB and BLOBs by ``memcmp``, so a column holding 0 .. 2**63-1 as
    INTEGER and 2**63 .. 2**64-1 as these blobs keeps MySQL's order, equality, PRIMARY KEY and index lookups, and
    no affinity ever turns a blob into a lossy REAL (the rule for a too large integer text).
    """
    return v.to_bytes(8, "big")


def to_sqlite(v: Any) -> Any:
    """Storage form -> value bound into SQLite (Decimal becomes str to keep digits; NUMERIC affinity converts;
    an integer above 2**63-1 becomes :func:`u64_to_sqlite`'s blob)."""
    if isinstance(v, Decimal):
        return str(v)
    if type(v) is int and v >= U64_BLOB_MIN:
        return v.to_bytes(8, "big")
    return v


def holds_u64_blobs(col: ColumnDef) -> bool:
    """True when ``col`` can hold values above 2**63-1 (BIGINT UNSIGNED, BIT(64)), stored as 8-byte blobs."""
    if col.type == "bit":
        return (col.length or 1) == 64
    return col.unsigned and col.info.int_bytes == 8


def converts_on_read(col: ColumnDef) -> bool:
    """True when a value of ``col`` read from SQLite needs :func:`result_value` before it is sent (DECIMAL, BIT,
    ZEROFILL, BIGINT UNSIGNED); every other column's values go out as SQLite returns them."""
    fam = col.info.family
    return (
        fam in ("decimal", "bit", "year")
        or col.zerofill
        or holds_u64_blobs(col)
        or (fam == "float" and col.scale is not None)
    )


def result_value(col: ColumnDef, v: Any) -> Any:
    """A value of ``col`` read from SQLite as a client receives it: :func:`from_sqlite`, then a BIT value as its
    big-endian bytes (``(M + 7) // 8`` of them, what the text protocol sends for MYSQL_TYPE_BIT), a YEAR as its
    four digits and a ZEROFILL
    value as its text padded with zeros to the display width (RM8 13.1.6: "INT(4) ZEROFILL ... 5 is retrieved
    as 0005")."""
    if type(v) is int and not col.zerofill and col.info.family == "int":
        return v  # a BIGINT UNSIGNED value below 2**63: as SQLite holds it
    v = from_sqlite(col, v)
    if v is None:
        return None
    fam = col.info.family
    if fam == "bit":
        return int(v).to_bytes(((col.length or 1) + 7) // 8, "big")
    if fam == "year":
        return f"{v:04d}"  # Field_year is ZEROFILL: the year 0 is sent as 0000
    if fam == "float" and col.scale is not None and not col.zerofill:
        return float(f"{v:.{col.scale}f}")  # FLOAT(M,D) prints D decimals, not the binary float's digits
    if col.zerofill:
        if fam == "int":
            return str(v).zfill(col.length or 0)
        if fam == "decimal":
            scale = col.scale or 0
            return format(v, "f").zfill((col.precision or 10) + (1 if scale else 0))
    return v


def from_sqlite(col: ColumnDef, v: Any) -> Any:
    """Value read from SQLite -> storage form of ``col`` (Decimal for DECIMAL, int for INT)."""
    if v is None:
        return None
    fam = col.info.family
    if type(v) is bytes and fam in ("int", "bit"):
        return int.from_bytes(v, "big")
    if fam == "decimal":
        return Decimal(str(v)).quantize(
            Decimal(1).scaleb(-(col.scale or 0)), rounding=ROUND_HALF_UP, context=_WIDE
        )
    if fam == "float" and isinstance(v, int):
        return float(v)
    if fam == "binary" and isinstance(v, str):
        return v.encode("utf-8", "surrogateescape")
    if fam == "string" and not isinstance(v, str):
        return str(v)
    return v
