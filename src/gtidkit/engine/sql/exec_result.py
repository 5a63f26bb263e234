"""What the SQL layer's statement runners return, shared by the executor and the DML / ALTER / SHOW runners it
dispatches to (kept apart from :mod:`gtidkit.engine.sql.executor` so those runners need not import it back).
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from sqlglot import exp
from sqlglot.dialects.sqlite import SQLite

if TYPE_CHECKING:
    from gtidkit.engine.results import Column

__all__ = [
    "NEG_FUNCTION",
    "SQLITE",
    "ConstPlan",
    "ExecResult",
    "GkSQLite",
    "RowChange",
    "bindable",
    "neg_udf",
]


#: SQL function negating a bound literal (see :meth:`GkSQLite.Generator.neg_sql`, registered by the DML UDFs)
NEG_FUNCTION = "_GK_NEG"


def neg_udf(v: Any) -> Any:
    """``_GK_NEG(v)``: SQLite's unary minus, with an 8-byte BIGINT UNSIGNED blob read as its value first (``-2**63``
    comes back as an integer, more negative values as the nearest double, as MySQL's literal would be DECIMAL) and a
    literal's text of more than 15 digits negated exactly (as text)."""
    t = type(v)
    if t is int or t is float:
        return -v
    if v is None:
        return None
    if t is bytes and len(v) == 8 and v[0] & 0x80:
        n = -int.from_bytes(v, "big")
        return n if n >= -(2**63) else float(n)
    try:
        d = Decimal((v.decode() if t is bytes else str(v)).strip())
    except (InvalidOperation, UnicodeDecodeError):
        return -0.0
    if not d.is_finite():
        return -0.0
    if len(d.as_tuple().digits) > 15:  # a DECIMAL literal wider than a double: its exact negated text
        return format(d.copy_negate(), "f")
    return -int(d) if d == d.to_integral_value() else -float(d)


def _escapes_bytes(text: str) -> bool:
    """Whether ``text`` holds a surrogate escape (``surrogateescape`` decoding of a byte that is no UTF-8
    character), which no UTF-8 text can carry."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _invalid_utf8(text: str) -> str | bytes:
    """``text``'s bytes when they are no UTF-8 (a bound blob; reading it back into a text column finds the same
    surrogate escapes, 1366); else ``text`` unchanged: bytes that are UTF-8 but were no character of a utf8mb3 or
    latin1 client's set would read back as valid characters, so they stay escapes for the value checks."""
    b = text.encode("utf-8", "surrogateescape")
    try:
        b.decode("utf-8")
    except UnicodeDecodeError:
        return b
    return text


class GkSQLite(SQLite):
    """sqlglot's SQLite dialect with backquoted identifiers.

    SQLite reads an unknown double-quoted identifier as a string literal (its "DQS" misfeature), which would turn
    ``SELECT nosuch FROM t`` into a constant instead of error 1054; a backquoted identifier never falls back.
    An integer literal of 2**63 .. 2**64-1 (BIGINT UNSIGNED's upper half), which SQLite would read as a lossy
    REAL, is written as the 8-byte blob such a column holds it as (``values.u64_to_sqlite``); a string literal
    holding NUL as a blob cast to TEXT; one holding bytes invalid in the client's character set (surrogate
    escapes of the wire text) as the blob of those bytes.
    """

    class Generator(SQLite.Generator):
        """SQLite's generator with BIGINT UNSIGNED literals above 2**63-1 written as blobs."""

        def literal_sql(self, expression: exp.Literal) -> str:
            """A literal's SQLite text (see the class docstring)."""
            text = expression.this or ""
            if (
                not expression.is_string
                and len(text) >= 19
                and text.isdigit()
                and 2**63 <= int(text) < 2**64
                and not isinstance(expression.parent, exp.Neg)
            ):
                return f"X'{int(text).to_bytes(8, 'big').hex()}'"
            if expression.is_string and not text.isascii() and _escapes_bytes(text):
                # bytes the client sent that are no character of its set (the wire text keeps them as surrogate
                # escapes, which SQLite's UTF-8 statement text cannot hold): the literal's exact bytes as a blob, as
                # MySQL's Item_string holds them unchecked (HEX, LENGTH and the row sent read those bytes)
                return f"X'{text.encode('utf-8', 'surrogateescape').hex()}'"
            if expression.is_string and "\0" in text:
                # SQLite refuses statement text holding NUL ('\0' is a valid MySQL string): the same characters
                # as a blob cast to TEXT
                return f"CAST(X'{text.encode('utf-8', 'surrogateescape').hex()}' AS TEXT)"
            return super().literal_sql(expression)

        def limit_sql(self, expression: exp.Limit, top: bool = False) -> str:
            """LIMIT n with n capped at 2**63-1: MySQL's LIMIT is a ulonglong (``LIMIT 18446744073709551615`` is the
            manual's "all rows"), SQLite's a signed 64-bit integer that a blob-held value would not satisfy."""
            return super().limit_sql(_capped(expression), top)

        def offset_sql(self, expression: exp.Offset) -> str:
            """OFFSET n capped as LIMIT is (:meth:`limit_sql`)."""
            return super().offset_sql(_capped(expression))

        def identifier_sql(self, expression: exp.Identifier) -> str:
            """An identifier without NUL (an item named after a ``'\\0'`` literal): SQLite refuses statement text
            holding NUL, and the result's names come from the plan, not from SQLite."""
            if "\0" in expression.this:
                expression = exp.Identifier(this=expression.this.replace("\0", "\\0"), quoted=True)
            if not expression.this.isascii() and _escapes_bytes(expression.this):
                # an item named after a literal holding bytes invalid in the client's character set: SQLite's
                # UTF-8 statement text cannot hold the surrogate escapes
                text = expression.this.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
                expression = exp.Identifier(this=text, quoted=True)
            return super().identifier_sql(expression)

        def neg_sql(self, expression: exp.Neg) -> str:
            """``-:gkN`` as ``_GK_NEG(:gkN)``: a bound literal may be a BIGINT UNSIGNED blob (``-9223372036854775808``
            is the negation of 2**63), which SQLite's own minus would read as 0."""
            if isinstance(expression.this, exp.Placeholder):
                return f"{NEG_FUNCTION}({self.sql(expression, 'this')})"
            return super().neg_sql(expression)


_LIMIT_MAX = exp.Literal.number((1 << 63) - 1)


def _capped(clause: exp.Expression) -> exp.Expression:
    """``clause`` (a LIMIT / OFFSET) whose count is ``MIN(n, 2**63-1)`` unless it is a small integer literal."""
    n = clause.expression
    if n is None or (
        isinstance(n, exp.Literal) and not n.is_string and len(n.this) < 19 and n.this.isdigit()
    ):
        return clause
    out = clause.copy()
    out.set("expression", exp.Anonymous(this="MIN", expressions=[n.copy(), _LIMIT_MAX.copy()]))
    return out


GkSQLite.IDENTIFIER_START = "`"
GkSQLite.IDENTIFIER_END = "`"
SQLITE = GkSQLite()


@dataclass(frozen=True, slots=True)
class ConstPlan:
    """A SELECT without tables evaluated in Python: projection trees and names (the executor's plan for it)."""

    items: tuple[exp.Expression, ...]
    columns: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RowChange:
    """One row changed by DML: images are full rows in table column order (storage form, see sql_values).

    ``kind`` is ``"insert"`` (after only), ``"update"`` (before and after) or ``"delete"`` (before only).
    ``written``: the column indexes the statement wrote (MySQL's ``write_set`` before ``binlog_row_image`` adds
    to it: an INSERT's listed columns plus AUTO_INCREMENT and function defaults, an UPDATE's assigned columns
    plus ON UPDATE CURRENT_TIMESTAMP ones), what a ``binlog_row_image=MINIMAL`` after image carries; ``None``
    means every column. It is not part of equality: two changes of the same rows are equal.
    """

    schema: str
    table: str
    kind: str
    before: tuple | None
    after: tuple | None
    written: frozenset[int] | None = field(default=None, compare=False)
    #: an UPDATE's JSON columns that may be logged as partial updates: ``((column index, changes), ...)``
    #: (:func:`gtidkit.engine.sql.json_functions.partial_update_ops`), else None
    json_ops: tuple[tuple[int, Any], ...] | None = field(default=None, compare=False)


@dataclass
class ExecResult:
    """Result of one statement run by :class:`Executor`.

    Attributes:
        columns: result-set column names (empty when the statement returns no rows).
        rows: result rows as tuples.
        affected_rows: MySQL's count (ON DUPLICATE KEY UPDATE counts 2 per updated row, 0 when unchanged).
        last_insert_id: first AUTO_INCREMENT value generated (or the explicit value stored into the AUTO_INCREMENT
            column when none was generated), else 0 — what the OK packet carries.
        warnings: ``(level, code, message)`` as SHOW WARNINGS lists them.
        row_changes: before/after images of every changed row, in execution order.
        info: MySQL's info string (``Rows matched: 1  Changed: 1  Warnings: 0``, ``Records: 2  Duplicates: 0
            Warnings: 0``) or "".
        new_db: for USE, the database to make current (for DROP DATABASE of the current one: "").
        insert_id: first AUTO_INCREMENT value *generated* by this statement (explicit values excluded), else 0 —
            what MySQL logs as the INSERT_ID Intvar event in STATEMENT format.
        matched_rows: rows found by UPDATE ("Rows matched"), ``None`` when the statement has no such count.
        metadata: per result column, its MySQL metadata when the SQL layer knows it (a table column, a literal,
            COUNT, an ``@@variable``), ``None`` where it must be inferred from the values
            (:func:`gtidkit.engine.sql.metadata.result_columns`).
        binlog_ddl: for CREATE TABLE ... SELECT, the definition a ROW-format binlog logs before the rows
            (``CREATE TABLE `t` (...) START TRANSACTION``), else None.
    """

    columns: list[str] = field(default_factory=list)
    rows: list[tuple] = field(default_factory=list)
    affected_rows: int = 0
    last_insert_id: int = 0
    warnings: list[tuple[str, int, str]] = field(default_factory=list)
    row_changes: list[RowChange] = field(default_factory=list)
    info: str = ""
    new_db: str | None = None
    insert_id: int = 0
    matched_rows: int | None = None
    metadata: tuple[Column | None, ...] | None = None
    binlog_ddl: str | None = None


def bindable(v: Any) -> Any:
    """A value sqlite3 can bind: Decimal to int (integral) or float (its text beyond 15 digits), bool to int, an integer of 2**63 .. 2**64-1
    to the 8-byte blob a BIGINT UNSIGNED column holds it as (``values.u64_to_sqlite``: equal to and ordered with
    the column's values), other integers outside 64 bits to their text, datetime/date to their ISO text, a string
    holding surrogate escapes of bytes that are no UTF-8 (invalid in the client's character set) to those bytes;
    anything else
    unchanged."""
    t = type(v)
    if t is str:
        # bytes the client sent that are no character of its set (surrogate escapes of the wire text) and no
        # UTF-8: their exact bytes, which sqlite3 cannot bind as UTF-8 text
        return v if v.isascii() or not _escapes_bytes(v) else _invalid_utf8(v)
    if v is None or (t is int and -(2**63) <= v < 2**63):
        return v
    if isinstance(v, Decimal):
        if len(v.as_tuple().digits) > 15:
            # more digits than a double keeps: the exact text (a wide DECIMAL column's GK_DECIMAL collation and
            # the exact UDFs read it as the number it is)
            return int(v) if v == v.to_integral_value() and -(2**63) <= v < 2**63 else format(v, "f")
        return float(v) if v != v.to_integral_value() else int(v)
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int) and 2**63 <= v < 2**64:
        return v.to_bytes(8, "big")
    if isinstance(v, int) and not -(2**63) <= v < 2**63:
        return str(v)  # its exact digits (a DECIMAL literal; SQLite's numeric affinity reads it as a double)
    if isinstance(v, (_dt.datetime, _dt.date)):
        return str(v)
    return v
