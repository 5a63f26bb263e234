"""Result-set column metadata as MySQL sends it: from catalog columns, from expressions, from values.

A table column's metadata follows its definition (``Field::make_send_field``): type code, length in bytes
(characters x ``mbmaxlen`` for strings), flags (NOT_NULL, keys, UNSIGNED, BINARY for binary/temporal types,
NUM for numbers, BLOB, AUTO_INCREMENT, TIMESTAMP / ON_UPDATE_NOW for auto-set timestamps, NO_DEFAULT_VALUE) and
decimals. An expression's follows MySQL's item typing (``Item::make_field``): an integer literal is
LONGLONG with its digits plus a sign as length, a string literal is VAR_STRING utf8mb4 with 4 bytes per
character and decimals 31, NULL is MYSQL_TYPE_NULL, COUNT(*) is a NOT NULL LONGLONG of length 21, ``@@var``
follows the variable's type (strings are utf8mb3 VAR_STRING, the system character set).

Expected values come from MySQL's ``mysql-test/r/metadata.result`` (8.0, ``--enable_metadata``). Expressions the
typing below does not know fall back to the Python type of the values produced (:func:`value_column`).
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Callable
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from gtidkit.engine.results import (
    CHARSET_BINARY,
    CHARSET_UTF8MB3,
    CHARSET_UTF8MB4,
    NOT_FIXED_DEC,
    Column,
    ColumnFlag,
    FieldType,
    StatementResult,
    charset_id,
    mbmaxlen,
)
from gtidkit.engine.sql.function_table import FUNCTIONS, ResultType, name_of_node
from gtidkit.engine.sql.numeric_types import (
    DIV_PRECISION_INCREMENT,
    NumType,
    column_of_type,
    numeric_type,
    type_of_column,
)
from gtidkit.engine.sql.temporal_types import temporal_column

if TYPE_CHECKING:
    from gtidkit.engine.sql.catalog import ColumnDef, TableDef

__all__ = [
    "column_for_def",
    "derived_column",
    "expression_column",
    "function_column",
    "result_columns",
    "result_set",
    "string_union_column",
    "sysvar_column",
    "user_variable_column",
    "value_column",
]

_F = ColumnFlag
_T = FieldType

#: MySQL type name -> field type code as sent in result sets (VARCHAR columns are sent as VAR_STRING).
_SEND_TYPE: dict[str, FieldType] = {
    "bit": _T.MYSQL_TYPE_BIT,
    "tinyint": _T.MYSQL_TYPE_TINY,
    "smallint": _T.MYSQL_TYPE_SHORT,
    "mediumint": _T.MYSQL_TYPE_INT24,
    "int": _T.MYSQL_TYPE_LONG,
    "bigint": _T.MYSQL_TYPE_LONGLONG,
    "float": _T.MYSQL_TYPE_FLOAT,
    "double": _T.MYSQL_TYPE_DOUBLE,
    "decimal": _T.MYSQL_TYPE_NEWDECIMAL,
    "char": _T.MYSQL_TYPE_STRING,
    "varchar": _T.MYSQL_TYPE_VAR_STRING,
    "binary": _T.MYSQL_TYPE_STRING,
    "varbinary": _T.MYSQL_TYPE_VAR_STRING,
    "tinytext": _T.MYSQL_TYPE_BLOB,
    "text": _T.MYSQL_TYPE_BLOB,
    "mediumtext": _T.MYSQL_TYPE_BLOB,
    "longtext": _T.MYSQL_TYPE_BLOB,
    "tinyblob": _T.MYSQL_TYPE_BLOB,
    "blob": _T.MYSQL_TYPE_BLOB,
    "mediumblob": _T.MYSQL_TYPE_BLOB,
    "longblob": _T.MYSQL_TYPE_BLOB,
    "date": _T.MYSQL_TYPE_DATE,
    "datetime": _T.MYSQL_TYPE_DATETIME,
    "timestamp": _T.MYSQL_TYPE_TIMESTAMP,
    "time": _T.MYSQL_TYPE_TIME,
    "year": _T.MYSQL_TYPE_YEAR,
    "json": _T.MYSQL_TYPE_JSON,
    # ENUM / SET columns are sent as STRING with ENUM_FLAG / SET_FLAG (Field_enum::type() is MYSQL_TYPE_STRING)
    "enum": _T.MYSQL_TYPE_STRING,
    "set": _T.MYSQL_TYPE_STRING,
    **{
        name: _T.MYSQL_TYPE_GEOMETRY
        for name in ("geometry", "point", "linestring", "polygon", "multipoint", "multilinestring")
        + ("multipolygon", "geomcollection")
    },
}
#: Display width of integer types (signed, unsigned): metadata.result's tinyint 4/3 ... bigint 20/20.
_INT_WIDTH = {
    "tinyint": (4, 3),
    "smallint": (6, 5),
    "mediumint": (9, 8),
    "int": (11, 10),
    "bigint": (20, 20),
}
_BLOB_BYTES = {
    "tinytext": 255,
    "text": 65535,
    "mediumtext": 16777215,
    "longtext": 4294967295,
    "tinyblob": 255,
    "blob": 65535,
    "mediumblob": 16777215,
    "longblob": 4294967295,
}
_MAX_LEN = 0xFFFFFFFF


def _key_flags(col: ColumnDef, tdef: TableDef | None) -> int:
    if tdef is None:
        return 0
    low = col.name.lower()
    flags = 0
    for ix in tdef.indexes:
        names = [c.lower() for c in ix.columns]
        if low not in names:
            continue
        flags |= _F.PART_KEY
        if ix.primary:
            flags |= _F.PRI_KEY
        elif ix.unique and len(names) == 1:
            flags |= _F.UNIQUE_KEY
        elif names[0] == low:
            flags |= _F.MULTIPLE_KEY
    return flags


def column_for_def(
    col: ColumnDef, tdef: TableDef | None, *, name: str | None = None, table_alias: str | None = None
) -> Column:
    """Metadata of a result column that reads table column ``col`` of ``tdef`` directly.

    Args:
        col: the catalog column.
        tdef: its table (for schema, table name and key flags); ``None`` for a column without a table.
        name: the result column's name (its alias; default the column's name).
        table_alias: the alias the table was read through (default the table's name).

    Returns:
        The :class:`Column` MySQL sends (``mysql-test/r/metadata.result``).
    """
    t = col.type
    info = col.info
    family = info.family
    flags = 0
    decimals = 0
    cs = CHARSET_BINARY
    if not col.nullable:
        flags |= _F.NOT_NULL
    if col.unsigned:
        flags |= _F.UNSIGNED
    if col.zerofill:
        flags |= _F.ZEROFILL | _F.UNSIGNED
    if col.auto_increment:
        flags |= _F.AUTO_INCREMENT
    flags |= _key_flags(col, tdef)
    if not col.nullable and not col.has_default and not col.auto_increment and col.default_expr is None:
        flags |= _F.NO_DEFAULT_VALUE
    if family == "int":
        flags |= _F.NUM
        signed_w, unsigned_w = _INT_WIDTH[t]
        length = unsigned_w if col.unsigned else signed_w
        if t == "tinyint" and col.length == 1:
            length = 1  # BOOL / TINYINT(1)
        elif col.zerofill and col.length:
            length = col.length  # the display width the values are padded to
    elif family == "bit":
        flags |= _F.UNSIGNED  # Field_bit sets UNSIGNED_FLAG; the length is M bits
        length = col.length or 1
    elif family == "year":
        flags |= _F.NUM | _F.UNSIGNED | _F.ZEROFILL
        length = 4
    elif family == "float":
        flags |= _F.NUM
        if col.precision is not None and col.scale is not None:
            length, decimals = col.precision, col.scale
        else:
            length, decimals = (12 if t == "float" else 22), NOT_FIXED_DEC
    elif family == "decimal":
        flags |= _F.NUM
        prec = col.precision if col.precision is not None else 10
        scale = col.scale or 0
        length = prec + (1 if scale else 0) + (0 if col.unsigned else 1)
        decimals = scale
    elif family == "temporal":
        flags |= _F.BINARY
        frac = col.scale or 0
        base = {"date": 10, "time": 10, "datetime": 19, "timestamp": 19}[t]
        length = base + (frac + 1 if frac and t != "date" else 0)
        decimals = frac if t != "date" else 0
        if t == "timestamp":
            if col.default_expr == "CURRENT_TIMESTAMP" or col.on_update == "CURRENT_TIMESTAMP":
                flags |= _F.TIMESTAMP
            if col.on_update == "CURRENT_TIMESTAMP":
                flags |= _F.ON_UPDATE_NOW
    elif family == "binary":
        flags |= _F.BINARY
        if t in _BLOB_BYTES:
            flags |= _F.BLOB
            length = _BLOB_BYTES[t]
        else:
            length = col.length if col.length is not None else 1
    elif family == "geometry":  # Field_geom is a Field_blob over my_charset_bin, 4-byte length
        flags |= _F.BLOB | _F.BINARY
        length = _MAX_LEN
    elif family == "json":
        # Field_json is a Field_blob over my_charset_bin: binary charset, BLOB | BINARY, the 4 GiB BLOB width
        flags |= _F.BLOB | _F.BINARY
        length = _MAX_LEN
    else:  # string
        cs = charset_id(col.charset, col.collation)
        if (col.collation or "").lower() in ("binary",):
            flags |= _F.BINARY
        mb = mbmaxlen(col.charset)
        if t in _BLOB_BYTES:
            flags |= _F.BLOB
            length = min(_BLOB_BYTES[t] * mb, _MAX_LEN) if _BLOB_BYTES[t] < _MAX_LEN else _MAX_LEN
        elif t in ("enum", "set"):
            # field_length: the longest member (ENUM) or all members and their commas (SET), in bytes
            flags |= _F.ENUM if t == "enum" else _F.SET
            length = col.display_chars() * mb
        else:
            length = (col.length if col.length is not None else 1) * mb
    return Column(
        name=col.name if name is None else name,
        org_name=col.name,
        table=(tdef.name if tdef is not None else "") if table_alias is None else table_alias,
        org_table=tdef.name if tdef is not None else "",
        schema=tdef.schema if tdef is not None else "",
        type=_SEND_TYPE[t],
        charset=cs,
        length=length,
        flags=int(flags),
        decimals=decimals,
    )


def _int_literal_column(name: str, text: str, negative: bool) -> Column:
    digits = len(text.lstrip("0") or "0")
    value = int(text)
    if not negative and 2**63 <= value <= 2**64 - 1:
        # Item_uint (the lexer's ULONGLONG_NUM): BIGINT UNSIGNED, as many positions as digits
        return Column(
            name,
            type=_T.MYSQL_TYPE_LONGLONG,
            charset=CHARSET_BINARY,
            length=digits,
            flags=int(_F.NOT_NULL | _F.UNSIGNED | _F.BINARY | _F.NUM),
            decimals=0,
        )
    if value > 2**63 - 1 + (1 if negative else 0):
        return Column(
            name,
            type=_T.MYSQL_TYPE_NEWDECIMAL,
            charset=CHARSET_BINARY,
            length=digits + 1,
            flags=int(_F.NOT_NULL | _F.BINARY | _F.NUM),
            decimals=0,
        )
    return Column(
        name,
        type=_T.MYSQL_TYPE_LONGLONG,
        charset=CHARSET_BINARY,
        length=digits + 1,  # digits plus the sign (metadata.result: SELECT 1 -> 2, SELECT -1 -> 2)
        flags=int(_F.NOT_NULL | _F.BINARY | _F.NUM),
        decimals=0,
    )


def _decimal_literal_column(name: str, text: str) -> Column:
    if "e" in text.lower():
        return Column(
            name,
            type=_T.MYSQL_TYPE_DOUBLE,
            charset=CHARSET_BINARY,
            length=len(text),
            flags=int(_F.NOT_NULL | _F.BINARY | _F.NUM),
            decimals=NOT_FIXED_DEC,
        )
    intpart, _, frac = text.partition(".")
    prec = max(len(intpart.lstrip("0")), 1) + len(frac)
    return Column(
        name,
        type=_T.MYSQL_TYPE_NEWDECIMAL,
        charset=CHARSET_BINARY,
        length=prec + (1 if frac else 0) + 1,  # 1.0 -> 4 (metadata.result)
        flags=int(_F.NOT_NULL | _F.BINARY | _F.NUM),
        decimals=len(frac),
    )


def _string_column(name: str, chars: int, *, not_null: bool) -> Column:
    return Column(
        name,
        type=_T.MYSQL_TYPE_VAR_STRING,
        charset=CHARSET_UTF8MB4,
        length=min(chars * 4, _MAX_LEN),
        flags=int(_F.NOT_NULL) if not_null else 0,
        decimals=NOT_FIXED_DEC,
    )


def sysvar_column(name: str, value: Any, kind: str | None) -> Column:
    """Metadata of ``@@var`` in a select list (``Item_func_get_system_var``).

    Args:
        name: the result column's name (``@@autocommit``).
        value: the variable's current value (for string lengths).
        kind: the sysvar table's type (``bool``, ``int``, ``uint``, ``enum``, ``str``, ``gtid_set`` ...) or None.

    Returns:
        BOOL-like variables: LONGLONG length 1; integers: LONGLONG length 21 (UNSIGNED ones 20); others:
        VAR_STRING in the system character set utf8mb3 (33), 3 bytes per character, decimals 31.
    """
    if kind == "bool":
        return Column(
            name, type=_T.MYSQL_TYPE_LONGLONG, charset=CHARSET_BINARY, length=1,
            flags=int(_F.BINARY | _F.NUM), decimals=0,
        )  # fmt: skip
    if kind in ("int", "uint"):
        unsigned = kind == "uint"
        return Column(
            name,
            type=_T.MYSQL_TYPE_LONGLONG,
            charset=CHARSET_BINARY,
            length=20 if unsigned else 21,
            flags=int(_F.BINARY | _F.NUM | (_F.UNSIGNED if unsigned else 0)),
            decimals=0,
        )
    text = "" if value is None else str(value)
    return Column(
        name,
        type=_T.MYSQL_TYPE_VAR_STRING,
        charset=CHARSET_UTF8MB3,
        length=min(len(text) * 3, _MAX_LEN),
        flags=0,
        decimals=NOT_FIXED_DEC,
    )


def expression_column(
    name: str, node: exp.Expression, literal_of: Callable[[str], Any] | None = None
) -> Column | None:
    """Metadata of a select-list expression whose type does not depend on data, or ``None`` when unknown.

    Knows literals (integer, decimal, string, NULL, TRUE/FALSE), unary minus on numbers, ``COUNT(...)``, the
    functions of fixed type and temporal items (:mod:`~gtidkit.engine.sql.temporal_types`; ``literal_of``: the
    value of a ``:gk<i>`` placeholder standing for a literal).
    """
    if isinstance(node, exp.Alias):
        node = node.this
    while isinstance(node, exp.Paren):
        node = node.this
    negative = False
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal) and not node.this.is_string:
        negative, node = True, node.this
    if isinstance(node, exp.Null):
        return Column(
            name, type=_T.MYSQL_TYPE_NULL, charset=CHARSET_BINARY, length=0,
            flags=int(_F.BINARY | _F.NUM), decimals=0,
        )  # fmt: skip
    if isinstance(node, exp.Boolean):
        return _int_literal_column(name, "1" if node.this else "0", False)
    if isinstance(node, exp.HexString):  # X'..', _binary'..': a binary string of its bytes
        return Column(
            name, type=_T.MYSQL_TYPE_VAR_STRING, charset=CHARSET_BINARY, length=(len(str(node.this)) + 1) // 2,
            flags=int(_F.NOT_NULL | _F.BINARY), decimals=0,
        )  # fmt: skip
    if isinstance(node, exp.Literal):
        if node.is_string:
            return _string_column(name, len(node.this), not_null=True)
        text = node.this
        if re.fullmatch(r"\d+", text):
            return _int_literal_column(name, text, negative)
        return _decimal_literal_column(name, text)
    if isinstance(node, exp.Count):
        return Column(
            name, type=_T.MYSQL_TYPE_LONGLONG, charset=CHARSET_BINARY, length=21,
            flags=int(_F.NOT_NULL | _F.BINARY | _F.NUM), decimals=0,
        )  # fmt: skip
    return temporal_column(name, node, None, literal_of) or function_column(name, node)


_DATE_SPECIFIERS = frozenset("abcDdejMmUuVvWwXxYy")
_TIME_SPECIFIERS = frozenset("fHhIiklprSsT")


def _str_to_date_type(fmt: str) -> tuple[FieldType, int] | None:
    """STR_TO_DATE's result type from its format: DATE for date parts only, TIME for time parts only, DATETIME
    for both (RM 8.4 "Date and Time Functions", STR_TO_DATE)."""
    specs = {fmt[i + 1] for i in range(len(fmt) - 1) if fmt[i] == "%" and (i == 0 or fmt[i - 1] != "%")}
    has_date, has_time = bool(specs & _DATE_SPECIFIERS), bool(specs & _TIME_SPECIFIERS)
    if has_date and has_time:
        return _T.MYSQL_TYPE_DATETIME, 19
    if has_date:
        return _T.MYSQL_TYPE_DATE, 10
    if has_time:
        return _T.MYSQL_TYPE_TIME, 10
    return None


def function_column(name: str, node: exp.Expression) -> Column | None:
    """Metadata of a built-in function call whose result type is fixed (the function table's
    :attr:`~gtidkit.engine.sql.function_table.SqlFunction.result`), else None.

    Integer results: LONGLONG, length 21, BINARY | NUM (the bit aggregates UNSIGNED too); DATE / TIME results:
    length 10, BINARY, charset binary. JSON results are :func:`~gtidkit.engine.sql.json_functions.json_result_column`'s.
    """
    if isinstance(node, exp.Anonymous):
        fname = node.name.upper()
    elif isinstance(node, exp.Interval):
        fname = "INTERVAL" if node.args.get("unit") is None else ""
    else:
        fname = name_of_node(node) or ""
    row = FUNCTIONS.get(fname)
    result = row.result if row is not None else None
    decimals = 0
    if fname == "STR_TO_DATE" and isinstance(node, exp.Anonymous) and len(node.expressions) == 2:
        fmt = node.expressions[1]
        if isinstance(fmt, exp.Literal) and fmt.is_string:
            known = _str_to_date_type(fmt.this)
            if known is not None:
                ftype, length = known
                if ftype != _T.MYSQL_TYPE_DATE and "%f" in fmt.this:
                    decimals = 6  # Item_func_str_to_date: a format with %f gives microseconds
                    length += 7
                result = ResultType(ftype, length, int(_F.BINARY))
    if result is None or result.field_type is None or result.field_type == _T.MYSQL_TYPE_JSON:
        return None
    return Column(
        name,
        type=result.field_type,
        charset=CHARSET_BINARY,
        length=result.length,
        flags=result.flags,
        decimals=decimals,
    )


def user_variable_column(name: str, value: Any) -> Column:
    """Metadata of ``@var`` in a select list: an integer is LONGLONG length 21 with only NUM set
    (metadata.result's ``@arg00``); other values fall back to :func:`value_column`."""
    if isinstance(value, int) and not isinstance(value, bool):
        return Column(
            name,
            type=_T.MYSQL_TYPE_LONGLONG,
            charset=CHARSET_BINARY,
            length=21,
            flags=int(_F.NUM),
            decimals=0,
        )
    return value_column(name, [value])


#: expressions whose type :func:`numeric_types.numeric_type` derives
_NUMERIC_NODES = (
    exp.Add,
    exp.Sub,
    exp.Mul,
    exp.Div,
    exp.Mod,
    exp.Neg,
    exp.Sum,
    exp.Avg,
    exp.Round,
    exp.Abs,
    exp.Cast,
    exp.BitwiseNot,
    exp.BitwiseOr,
    exp.BitwiseAnd,
    exp.BitwiseXor,
    exp.BitwiseLeftShift,
    exp.BitwiseRightShift,
)


def _branches(node: exp.Expression) -> list[exp.Expression | None] | None:
    """The value-producing arguments of a type-preserving function (COALESCE/IFNULL, IF, CASE, GREATEST, LEAST)."""
    if isinstance(node, (exp.Coalesce, exp.Greatest, exp.Least)):
        return [node.this, *node.expressions]
    if isinstance(node, exp.If):
        return [node.args.get("true"), node.args.get("false")]
    if isinstance(node, exp.Case):
        return [i.args.get("true") for i in node.args.get("ifs") or []] + [node.args.get("default")]
    if isinstance(node, (exp.Min, exp.Max)) and not node.expressions:
        return [node.this]  # MIN / MAX keep their argument's type (manual "Aggregate Function Descriptions")
    return None


def derived_column(
    name: str,
    node: exp.Expression,
    column_of: Callable[[exp.Column], Column | None],
    literal_of: Callable[[str], Any] | None = None,
    increment: int = DIV_PRECISION_INCREMENT,
) -> Column | None:
    """Metadata of an expression over table columns, or None when unknown.

    Arithmetic and SUM / AVG / ROUND / ABS follow :func:`numeric_types.numeric_type` (integer ``+``/``-``:
    LONGLONG one digit wider than the wider operand, ``*`` the sum of their lengths; DECIMAL and DOUBLE per
    MySQL's precision-math rules); COALESCE / IFNULL / IF / CASE / GREATEST / LEAST / MIN / MAX over arguments
    of one type keep that type and length, without table, key or NOT NULL flags (metadata.result:
    ``t1.f1+t2.f1`` -> 8 / 12 / 32896; ``COALESCE(d, d)`` of a DATE -> 10 / 10 / 128).

    Args:
        name: the result column's name.
        node: the select-list expression (alias removed).
        column_of: the metadata of a column reference (None when it cannot be resolved).
        literal_of: the value of a ``:gk<i>`` placeholder standing for a literal (None: unknown).
        increment: the session's ``div_precision_increment``.
    """

    def meta(n: exp.Expression | None) -> Column | None:
        if n is None:
            return None
        while isinstance(n, exp.Paren):
            n = n.this
        if isinstance(n, exp.Column):
            return column_of(n)
        known = expression_column(name, n, literal_of)
        return known if known is not None else derived_column(name, n, column_of, literal_of, increment)

    temporal = temporal_column(name, node, meta, literal_of)  # before arithmetic: d + INTERVAL 1 DAY
    if temporal is not None:
        return temporal
    if isinstance(node, exp.Placeholder) and literal_of is not None:
        value = literal_of(node.name)  # a literal the statement cache took out: numbers are typed as written
        if not isinstance(value, (int, Decimal)) or isinstance(value, bool):
            return None
    if isinstance(node, (*_NUMERIC_NODES, exp.Placeholder)):

        def column_type(ref: exp.Column) -> NumType | None:
            col = column_of(ref)
            return None if col is None else type_of_column(col)

        t = numeric_type(node, column_type, literal_of, increment)
        return None if t is None else column_of_type(name, t)
    args = _branches(node)
    if not args or any(a is None for a in args):
        return None
    cols = [meta(a) for a in args]
    if any(c is None for c in cols) or len({(c.type, c.charset, c.decimals) for c in cols if c}) != 1:
        return None
    first = cols[0]
    assert first is not None
    keep = _F.BINARY | _F.UNSIGNED | _F.NUM | _F.BLOB
    return Column(
        name, type=first.type, charset=first.charset, length=max(c.length for c in cols if c),
        flags=int(first.flags & keep), decimals=first.decimals,
    )  # fmt: skip


#: result types that are character or byte strings (a column of one of them makes a UNION column a string)
_STRING_TYPES = frozenset(
    {_T.MYSQL_TYPE_VAR_STRING, _T.MYSQL_TYPE_STRING, _T.MYSQL_TYPE_VARCHAR}
)  # fmt: skip
_BLOB_TYPES = frozenset(
    {_T.MYSQL_TYPE_TINY_BLOB, _T.MYSQL_TYPE_BLOB, _T.MYSQL_TYPE_MEDIUM_BLOB, _T.MYSQL_TYPE_LONG_BLOB}
)  # fmt: skip


def string_union_column(name: str, cols: list[Column]) -> Column | None:
    """The type a UNION column (or CASE / IF / COALESCE branches) aggregates to when one of its branches is a
    string: a string type, whatever the other branches' number or temporal types (``Item_aggregate_type`` /
    ``Field::field_type_merge``: VARCHAR merged with any non-BLOB type is VARCHAR, with a BLOB type the BLOB; the
    manual's "UNION Clause": "the result column types are determined from all SELECT statements"). Sent as
    VAR_STRING (or the widest BLOB) in the first character-string branch's character set (binary when every
    string branch is binary), of the longest branch's length in bytes (a number's display width times 4, the
    utf8mb4 bytes per character); NOT_NULL only when every branch is.

    Args:
        name: the result column's name (the first SELECT's item).
        cols: one known metadata per SELECT, in order.

    Returns:
        None when no branch is a string (a numeric or temporal aggregate, typed elsewhere) or every branch is one.
    """
    strings = [c for c in cols if c.type in _STRING_TYPES or c.type in _BLOB_TYPES]
    if not strings or len(strings) == len(cols):
        return None  # no string, or only strings (typed from the values, as before)
    texts = [c for c in strings if c.charset != CHARSET_BINARY]
    charset = texts[0].charset if texts else CHARSET_BINARY
    blobs = [c for c in strings if c.type in _BLOB_TYPES]
    ftype = max(blobs, key=lambda c: c.length).type if blobs else _T.MYSQL_TYPE_VAR_STRING
    length = max(c.length if any(c is s for s in strings) else c.length * 4 for c in cols)
    flags = _F.BINARY if charset == CHARSET_BINARY else 0
    if blobs:
        flags |= _F.BLOB
    if all(c.flags & _F.NOT_NULL for c in cols):
        flags |= _F.NOT_NULL
    return Column(
        name, type=ftype, charset=charset, length=min(length, _MAX_LEN), flags=int(flags),
        decimals=0 if blobs else NOT_FIXED_DEC,
    )  # fmt: skip


def value_column(name: str, values: list[Any]) -> Column:
    """Fallback metadata from the Python values a column produced (first non-NULL value's type).

    int -> LONGLONG (length 21; DOUBLE when floats follow), float -> DOUBLE (length 23, decimals 31), Decimal -> NEWDECIMAL, str ->
    VAR_STRING utf8mb4 (4 bytes per character of the longest value), bytes -> BLOB binary, date/datetime/time
    -> DATE/DATETIME/TIME, all NULL -> VAR_STRING of length 0.
    """
    sample = next((v for v in values if v is not None), None)
    nullable_flags = 0
    if isinstance(sample, (bool, int)) and any(type(v) is float for v in values):
        sample = 0.0  # integers and fractions in one column: announcing an integer type would break clients
    kinds = {_value_kind(v) for v in values if v is not None}
    if len(kinds) > 1 and kinds & {"text", "bytes"}:
        # numbers (or dates) and strings in one column (SELECT 1 UNION SELECT 'a', CASE ... THEN 2 ELSE 'b'):
        # MySQL's aggregated type is a string one (Item_type_holder); a number type would make a driver read
        # 'a' as a number, and no binary-protocol number can carry it
        sample = "" if "text" in kinds else b""
    if isinstance(sample, (bool, int)):
        return Column(
            name, type=_T.MYSQL_TYPE_LONGLONG, charset=CHARSET_BINARY, length=21,
            flags=int(_F.BINARY | _F.NUM), decimals=0,
        )  # fmt: skip
    if isinstance(sample, float):
        return Column(
            name, type=_T.MYSQL_TYPE_DOUBLE, charset=CHARSET_BINARY, length=23,
            flags=int(_F.BINARY | _F.NUM), decimals=NOT_FIXED_DEC,
        )  # fmt: skip
    if isinstance(sample, Decimal):
        exps = [v.as_tuple().exponent for v in values if isinstance(v, Decimal)]
        scale = max((-e for e in exps if isinstance(e, int) and e < 0), default=0)
        width = max((len(str(v)) for v in values if v is not None), default=1)
        return Column(
            name, type=_T.MYSQL_TYPE_NEWDECIMAL, charset=CHARSET_BINARY, length=width + 1,
            flags=int(_F.BINARY | _F.NUM), decimals=min(scale, 30),
        )  # fmt: skip
    if isinstance(sample, (bytes, bytearray, memoryview)):
        return Column(
            name, type=_T.MYSQL_TYPE_BLOB, charset=CHARSET_BINARY, length=65535,
            flags=int(_F.BINARY | _F.BLOB), decimals=0,
        )  # fmt: skip
    if isinstance(sample, _dt.datetime):
        return Column(
            name, type=_T.MYSQL_TYPE_DATETIME, charset=CHARSET_BINARY, length=19, flags=128, decimals=0
        )
    if isinstance(sample, _dt.date):
        return Column(name, type=_T.MYSQL_TYPE_DATE, charset=CHARSET_BINARY, length=10, flags=128, decimals=0)
    if isinstance(sample, (_dt.time, _dt.timedelta)):
        return Column(name, type=_T.MYSQL_TYPE_TIME, charset=CHARSET_BINARY, length=10, flags=128, decimals=0)
    width = max((len(str(v)) for v in values if v is not None), default=0)
    return Column(
        name,
        type=_T.MYSQL_TYPE_VAR_STRING,
        charset=CHARSET_UTF8MB4,
        length=min(width * 4, _MAX_LEN),
        flags=nullable_flags,
        decimals=NOT_FIXED_DEC,
    )


def _value_kind(v: Any) -> str:
    if isinstance(v, str):
        return "text"
    if isinstance(v, (bytes, bytearray, memoryview)):
        return "bytes"
    if isinstance(v, (_dt.date, _dt.time, _dt.timedelta)):
        return "temporal"
    return "number"


def result_columns(
    names: list[str] | tuple[str, ...],
    rows: list[tuple[Any, ...]] | tuple[tuple[Any, ...], ...],
    known: tuple[Column | None, ...] | None = None,
) -> tuple[Column, ...]:
    """Complete metadata for a result set: ``known[i]`` where given, else :func:`value_column` of column i."""
    out = []
    for i, name in enumerate(names):
        col = known[i] if known is not None and i < len(known) else None
        if col is None:
            col = value_column(name, [r[i] for r in rows])
        elif col.name != name:
            col = Column(
                name, col.org_name, col.table, col.org_table, col.schema, col.type, col.charset, col.length,
                col.flags, col.decimals,
            )  # fmt: skip
        out.append(col)
    return tuple(out)


def result_set(
    names: list[str] | tuple[str, ...],
    rows: list[tuple[Any, ...]],
    known: tuple[Column | None, ...] | None = None,
) -> StatementResult:
    """A :class:`StatementResult` carrying a result set: columns from ``known`` or inferred from ``rows``.

    Args:
        names: column names in order.
        rows: the rows (tuples as wide as ``names``).
        known: optional per-column metadata (None entries are inferred).

    Raises:
        ValueError: a row whose width differs from ``names``.
    """
    return StatementResult(columns=result_columns(names, rows, known), rows=[tuple(r) for r in rows])
