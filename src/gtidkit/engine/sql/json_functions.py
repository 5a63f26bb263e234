"""MySQL's common JSON functions on SQLite: JSON_OBJECT, JSON_ARRAY, JSON_EXTRACT / ``->`` / ``->>``, JSON_UNQUOTE,
JSON_QUOTE, JSON_VALID, JSON_TYPE, JSON_LENGTH, JSON_DEPTH, JSON_KEYS, JSON_CONTAINS, JSON_CONTAINS_PATH, JSON_SET,
JSON_INSERT, JSON_REPLACE, JSON_REMOVE, the aggregates JSON_ARRAYAGG and JSON_OBJECTAGG, and CAST(... AS JSON),
with MySQL's text; and the stored form of a JSON column's value (:func:`column_value`).

Every call is rewritten (:func:`rewrite_json`) to a private UDF (``_GK_JSON_*``: SQLite's own json_* functions stay
as they are for the engine's internal queries). Values are Python objects (dict, list, str, int, float, bool,
None); a JSON result is sent as MySQL prints a JSON value (``Json_wrapper::to_string``; RM8 "The JSON Data Type",
"Normalization, Merging, and Autowrapping of JSON Values"):

- ``{"a": 1, "b": "x"}`` / ``[1, 2]``: ", " between members, ": " after a key;
- object keys sorted by length, then bytewise ("MySQL also discards extra whitespace between keys, values, or
  elements in the original JSON document, and leaves (or inserts, when necessary) a single space following each
  comma (,) or colon (:) when displaying it"; keys are sorted as stored: shorter keys first);
- a duplicate key keeps its last value ("last duplicate key wins", 8.0.3 and later);
- a string argument of JSON_OBJECT / JSON_ARRAY is a JSON string, a JSON result of a nested JSON function stays
  JSON, and a boolean SQL expression (``TRUE``, ``a = b``) becomes ``true`` / ``false``.

SQLite has no JSON type, so a JSON value passed to another JSON function travels as text tagged with
:data:`_TAG` (added by ``_GK_JSON_TAG`` around nested JSON calls) and booleans through ``_GK_JSON_BOOL``.

Errors: 3141 ER_INVALID_JSON_TEXT_IN_PARAM for a document that does not parse, 3143 ER_INVALID_JSON_PATH for a
bad path, 1582 for JSON_OBJECT with an odd number of arguments, 3158 for a NULL key.

Known differences: JSON_TYPE tells no UNSIGNED INTEGER (DATE, TIME, DATETIME, TIMESTAMP and DECIMAL are kept:
:func:`typed_value`); the
``[m to n]`` path leg is not supported (3143); document error positions follow Python's parser (the same for a
missing value, comma or closing quote); JSON_ARRAYAGG / JSON_OBJECTAGG take no ORDER BY.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any

from sqlglot import exp

from gtidkit.binlog.json_binary import JsonOpaque, temporal_opaque, temporal_text
from gtidkit.engine.results import Column, ColumnFlag, FieldType
from gtidkit.engine.sql.function_table import (
    FOLLOWS_ARGUMENTS,
    Kind,
    ResultType,
    SqlFunction,
    lookup,
    mysql_arity,
    register,
    register_nodes,
    rows_from,
)
from gtidkit.errors import MySQLError
from gtidkit.mysql_errors import mysql_error

__all__ = [
    "AGGREGATES",
    "COLUMN_KINDS",
    "JSON_RESULT_FUNCTIONS",
    "UDFS",
    "JsonTextError",
    "column_value",
    "json_result_column",
    "load_stored",
    "parse_text",
    "printed_text",
    "rewrite_json",
    "stored_text",
    "to_text",
    "typed_value",
]

#: prefix of a JSON value passed between JSON UDFs as text (a private-use character no client sends first)
_TAG = "\ue000"
#: utf8mb4_bin: the collation of JSON function results (Item_json_func)
_UTF8MB4_BIN = 46
_MAX_BLOB_WIDTH = 4294967295

#: MySQL name -> private UDF name
_NAMES = {
    name: "_GK_" + name
    for name in (
        "JSON_OBJECT",
        "JSON_ARRAY",
        "JSON_EXTRACT",
        "JSON_UNQUOTE",
        "JSON_QUOTE",
        "JSON_VALID",
        "JSON_TYPE",
        "JSON_LENGTH",
        "JSON_KEYS",
        "JSON_CONTAINS",
        "JSON_CONTAINS_PATH",
        "JSON_DEPTH",
        "JSON_SET",
        "JSON_INSERT",
        "JSON_REPLACE",
        "JSON_REMOVE",
        "JSON_ARRAYAGG",
        "JSON_OBJECTAGG",
    )
}
#: functions whose result is of type JSON (column type 245)
JSON_RESULT_FUNCTIONS = frozenset(
    {
        "JSON_OBJECT",
        "JSON_ARRAY",
        "JSON_EXTRACT",
        "JSON_KEYS",
        "JSON_SET",
        "JSON_INSERT",
        "JSON_REPLACE",
        "JSON_REMOVE",
        "JSON_ARRAYAGG",
        "JSON_OBJECTAGG",
    }
)
#: the private UDFs whose result is JSON (a value argument made of one of them stays JSON)
_NO_TYPED: Mapping[str, tuple[str, int | None]] = {}
_PRIVATE_JSON_RESULTS = frozenset({_NAMES[n] for n in JSON_RESULT_FUNCTIONS} | {"_GK_CAST_JSON"})
_BOOLEAN_NODES = (
    exp.Boolean,
    exp.EQ,
    exp.NEQ,
    exp.GT,
    exp.GTE,
    exp.LT,
    exp.LTE,
    exp.And,
    exp.Or,
    exp.Not,
    exp.In,
    exp.Like,
    exp.Is,
    exp.Between,
)


# ---------------------------------------------------------------- text form
def _key_order(key: str) -> tuple[int, bytes]:
    raw = key.encode("utf-8", "surrogateescape")
    return (len(raw), raw)


def _number_text(v: float) -> str:
    if math.isnan(v) or math.isinf(v):
        raise mysql_error(3141, 1, "json_array", "Invalid value.", 0)
    return repr(v).replace("e+", "e")


def to_text(v: Any, stored: bool = False) -> str:
    """MySQL's printed form of a JSON value (see the module docstring); with ``stored``, the engine's stored form,
    where a DATE / TIME / DATETIME / TIMESTAMP or DECIMAL scalar is a marked string (:func:`_typed_string`)."""
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return _number_text(v)
    if isinstance(v, Decimal):
        return json.dumps(_typed_string(v), ensure_ascii=False) if stored else format(v, "f")
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ", ".join(to_text(x, stored) for x in v) + "]"
    if isinstance(v, dict):
        return (
            "{" + ", ".join(f"{to_text(k)}: {to_text(v[k], stored)}" for k in sorted(v, key=_key_order)) + "}"
        )
    if isinstance(v, JsonOpaque) and v.field_type in _TEMPORAL_KINDS:
        if stored:
            return json.dumps(_typed_string(v), ensure_ascii=False)
        return json.dumps(temporal_text(v))
    raise TypeError(f"not a JSON value: {v!r}")


def stored_text(v: Any) -> str:
    """The stored form of a JSON value: :func:`to_text` keeping typed scalars (see :func:`printed_text`)."""
    return to_text(v, stored=True)


# ---------------------------------------------------------------- typed scalars
# MySQL keeps a DATE, TIME, DATETIME, TIMESTAMP or DECIMAL put into a document (CAST(DATE'2015-01-15' AS JSON),
# JSON_OBJECT('t', dt_col), JSON_ARRAY(3.14)) as a binary JSON opaque value of that field type (json_binary.cc;
# JSON_TYPE names it, ``Json_datetime`` / ``Json_decimal`` in json_dom.h). SQLite has no such JSON type, so the
# engine's stored text writes such a scalar as a JSON string opening with :data:`_MARK` and a kind letter
# (``"\ue001d2015-01-15"``); a document without one is MySQL's printed text unchanged (the common case), and
# :func:`printed_text` turns a stored text into what a client sees.
_MARK = "\ue001"
#: kind letter -> MySQL field type (enum_field_types) of a temporal scalar
_TEMPORAL_KINDS_BY_LETTER = {"d": 10, "t": 11, "D": 12, "s": 7}
_TEMPORAL_KINDS = {ft: k for k, ft in _TEMPORAL_KINDS_BY_LETTER.items()}
_DECIMAL_KIND = "n"
#: JSON_TYPE of a temporal scalar (item_json_func.cc json_type_string_map)
_TEMPORAL_TYPE_NAMES = {10: "DATE", 11: "TIME", 12: "DATETIME", 7: "TIMESTAMP"}


def _typed_string(v: Decimal | JsonOpaque) -> str:
    if isinstance(v, Decimal):
        return _MARK + _DECIMAL_KIND + format(v, "f")
    return _MARK + _TEMPORAL_KINDS[v.field_type] + (temporal_text(v) or "")


def _untyped(s: str) -> Any:
    """A marked string back to its Decimal / :class:`JsonOpaque` (a string without the mark as it is)."""
    if not s.startswith(_MARK) or len(s) < 3:
        return s
    kind, text = s[1], s[2:]
    try:
        if kind == _DECIMAL_KIND:
            return Decimal(text)
        field_type = _TEMPORAL_KINDS_BY_LETTER.get(kind)
        if field_type is not None:
            return temporal_opaque(field_type, text)
    except (ValueError, ArithmeticError):
        pass
    return s


def _retype(v: Any) -> Any:
    if isinstance(v, str):
        return _untyped(v)
    if isinstance(v, dict):
        return {k: _retype(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_retype(x) for x in v]
    return v


def load_stored(text: str) -> Any:
    """Parse a stored JSON text (or any JSON text) to Python values with its typed scalars as Decimal /
    :class:`JsonOpaque`.

    Raises:
        JsonTextError: see :func:`parse_text`.
    """
    value = parse_text(text)
    return _retype(value) if _MARK in text else value


def printed_text(text: Any) -> Any:
    """What a client receives for a stored JSON text: the text itself, or, when it holds typed scalars, MySQL's
    printed form of the document (``"2015-01-15"``, ``"23:24:25.000000"``, ``1.50``)."""
    if isinstance(text, str) and _MARK in text:
        try:
            return to_text(load_stored(text[1:] if text.startswith(_TAG) else text))
        except JsonTextError:
            return text
    return text


def typed_value(v: Any, kind: str, scale: Any = None) -> Any:
    """``_GK_JSON_TYPED``: an SQL DATE / TIME / DATETIME / TIMESTAMP / DECIMAL value as the JSON value MySQL makes
    of it (``kind`` ``d`` / ``t`` / ``D`` / ``s`` / ``n``; ``scale``: a DECIMAL's digits after the point), passed on
    tagged; a value that is not of the kind (NULL, text SQLite could not convert) passes unchanged.
    """
    if v is None:
        return None
    try:
        if kind == _DECIMAL_KIND:
            if isinstance(v, bytes):
                v = v.decode()
            d = Decimal(str(v))
            if scale is not None:
                d = d.quantize(Decimal(1).scaleb(-int(scale)))
            return _TAG + stored_text(d)
        text = v.decode() if isinstance(v, bytes) else str(v)
        return _TAG + stored_text(temporal_opaque(_TEMPORAL_KINDS_BY_LETTER[kind], text))
    except (ValueError, ArithmeticError, KeyError):
        return v


# ---------------------------------------------------------------- parsing
def _reject_constant(name: str) -> Any:
    raise ValueError(f"Invalid value: {name}")


def _parse_int(text: str) -> int | float:
    """An integer literal as MySQL's parser keeps it: a 64-bit signed or unsigned integer, else a double
    (``json_insert_innodb.result``: '18446744073709551616' is stored as 1.8446744073709552e19)."""
    v = int(text)
    return v if -(2**63) <= v <= 2**64 - 1 else float(v)


_REASONS = (
    ("Expecting property name", "Missing a name for object member."),
    ("Expecting ':' delimiter", "Missing a colon after a name of object member."),
    ("Extra data", "The document root must not be followed by other values."),
    ("Unterminated string", "Missing a closing quotation mark in string."),
    ("Invalid control character", "Invalid encoding in string."),
    ("Invalid \\escape", "Invalid escape character in string."),
)


class JsonTextError(ValueError):
    """A JSON text that does not parse: MySQL's reason text and the byte position it reports."""

    def __init__(self, reason: str, position: int) -> None:
        super().__init__(f"{reason} at position {position}")
        self.reason = reason
        self.position = position


def parse_text(text: str) -> Any:
    """Parse a JSON text the way MySQL's JSON parser accepts it, to Python values (dict, list, str, int, float,
    bool, None); a duplicate key keeps its last value ("last duplicate key wins", RM8 "The JSON Data Type").

    Raises:
        JsonTextError: the text is empty or no valid JSON; ``reason`` is MySQL's (``rapidjson``'s) wording and
            ``position`` the byte offset MySQL reports.
    """
    if not text.strip():
        raise JsonTextError("The document is empty.", len(text.encode()))
    try:
        return json.loads(text, parse_constant=_reject_constant, parse_int=_parse_int)
    except json.JSONDecodeError as err:
        reason = "Invalid value."
        for start, mysql_reason in _REASONS:
            if err.msg.startswith(start):
                reason = mysql_reason
                break
        if err.msg.startswith("Expecting ',' delimiter"):
            opener = _innermost_open(text, err.pos)
            reason = f"Missing a comma or '{']' if opener == '[' else '}'}' after an {'array element' if opener == '[' else 'object member'}."
        raise JsonTextError(reason, len(text[: err.pos].encode())) from err
    except ValueError as err:
        raise JsonTextError("Invalid value.", 0) from err


def _parse(text: str, arg: int, function: str) -> Any:
    """Parse a JSON document argument.

    Raises:
        MySQLError: 3141 "Invalid JSON text in argument %s to function %s: "%s" at position %s."
    """
    try:
        return load_stored(text)
    except JsonTextError as err:
        raise mysql_error(3141, arg, function, err.reason, err.position) from err


def column_value(v: Any, column: str) -> str:
    """The stored form of value ``v`` assigned to a JSON column: MySQL's text of the parsed document
    (``Field_json::store``: the text is parsed, then kept as binary JSON, which prints keys sorted and with
    MySQL's separators).

    Args:
        v: the SQL value: a string holding a JSON text (JSON function results arrive as text).
        column: ``table.column`` for the message.

    Raises:
        MySQLError: 3140 ER_INVALID_JSON_TEXT for text that does not parse, and for a number or temporal value
            ("not a JSON text, may need CAST" at position 0: Field_json::store of a non-string); 3144
            ER_INVALID_JSON_CHARSET for a binary string (all from mysql-test ``suite/json/r/json_insert_innodb.result``).
    """
    if isinstance(v, bytes):
        raise mysql_error(3144, "binary")  # a binary string (x'cafebabe') is no text
    if not isinstance(v, str):
        raise mysql_error(3140, "not a JSON text, may need CAST", 0, column)
    try:
        return stored_text(load_stored(v[1:] if v.startswith(_TAG) else v))
    except JsonTextError as err:
        raise mysql_error(3140, err.reason, err.position, column) from err


def _innermost_open(text: str, pos: int) -> str:
    stack: list[str] = []
    in_str = esc = False
    for ch in text[:pos]:
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            stack.append(ch)
        elif ch in "]}" and stack:
            stack.pop()
    return stack[-1] if stack else "["


def _doc(v: Any, arg: int, function: str) -> Any:
    """A JSON document argument: a tagged JSON value or text to parse."""
    if isinstance(v, bytes):
        v = v.decode("utf-8", "surrogateescape")
    if isinstance(v, str):
        return _parse(v[1:] if v.startswith(_TAG) else v, arg, function)
    if isinstance(v, (int, float)):
        # a number where a document is expected: MySQL reports the argument as not a JSON text
        raise mysql_error(3146, arg, function)
    return v


def _value(v: Any) -> Any:
    """A value argument (JSON_OBJECT / JSON_ARRAY): strings are JSON strings, tagged text is JSON; a BIGINT
    UNSIGNED above 2**63-1 arrives as the 8-byte blob SQLite holds it as (``values.u64_to_sqlite``)."""
    if isinstance(v, bytes):
        if len(v) == 8 and v[0] & 0x80:
            return int.from_bytes(v, "big")
        v = v.decode("utf-8", "surrogateescape")
    if isinstance(v, str) and v.startswith(_TAG):
        return load_stored(v[1:])
    return v


# ---------------------------------------------------------------- paths
_LEG = re.compile(
    r"\s*(?:\.\s*(?P<key>[A-Za-z_$][A-Za-z0-9_$]*)|\.\s*(?P<qkey>\"(?:[^\"\\]|\\.)*\")|\.\s*(?P<kstar>\*)"
    r"|(?P<desc>\*\*)(?=\s*[.\[])"
    r"|\[\s*(?:(?P<idx>\d+)|(?P<last>last)(?:\s*-\s*(?P<back>\d+))?|(?P<astar>\*))\s*\])"
)

#: a path leg: (kind, argument); kinds ``key``, ``key*`` (.*), ``idx``, ``last`` (argument: n of last-n),
#: ``idx*`` ([*]) and ``**`` (any depth, the value itself included)
Leg = tuple[str, Any]


def _path(text: Any, function: str) -> tuple[list[Leg], bool]:
    """Parse a path (``$.a[0]."b c"[*]``, ``$**.x``): its legs and whether it has a wildcard or ``**``.

    MySQL reports the character position after an opening ``.`` / ``[`` whose leg does not parse, else the
    position of the unexpected character (1 when the path does not start with ``$``).

    Raises:
        MySQLError: 3143 "Invalid JSON path expression. The error is around character position %s."
    """
    s = text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text)
    m = re.match(r"\s*\$", s)
    if m is None:
        raise mysql_error(3143, 1)
    pos = m.end()
    legs: list[Leg] = []
    wild = False
    while pos < len(s) and s[pos:].strip():
        lm = _LEG.match(s, pos)
        if lm is None:
            at = pos + len(s[pos:]) - len(s[pos:].lstrip())
            raise mysql_error(3143, at + 1 if s[at] in ".[" else max(at, 1))
        if lm.group("key") is not None:
            legs.append(("key", lm.group("key")))
        elif lm.group("qkey") is not None:
            legs.append(("key", json.loads(lm.group("qkey"))))
        elif lm.group("kstar") is not None:
            legs.append(("key*", None))
            wild = True
        elif lm.group("desc") is not None:
            legs.append(("**", None))
            wild = True
        elif lm.group("idx") is not None:
            legs.append(("idx", int(lm.group("idx"))))
        elif lm.group("last") is not None:
            legs.append(("last", int(lm.group("back") or 0)))
        else:
            legs.append(("idx*", None))
            wild = True
        pos = lm.end()
    return legs, wild


def _descendants(v: Any, path: tuple[Any, ...]) -> list[tuple[Any, tuple[Any, ...]]]:
    """``v`` and everything inside it, in document order (pre-order), with their paths."""
    out = [(v, path)]
    if isinstance(v, dict):
        for k in sorted(v, key=_key_order):
            out.extend(_descendants(v[k], (*path, k)))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            out.extend(_descendants(x, (*path, i)))
    return out


def _walk(v: Any, legs: list[Leg]) -> list[Any]:
    """The values ``legs`` select in ``v``, in document order, each once (a scalar or object autowraps as a
    one-element array for ``[0]`` / ``[last]``: RM8 "Searching and Modifying JSON Values")."""
    found: list[tuple[Any, tuple[Any, ...]]] = [(v, ())]
    for kind, arg in legs:
        nxt: list[tuple[Any, tuple[Any, ...]]] = []
        for x, path in found:
            if kind == "key":
                if isinstance(x, dict) and arg in x:
                    nxt.append((x[arg], (*path, arg)))
            elif kind == "key*":
                if isinstance(x, dict):
                    nxt.extend((x[k], (*path, k)) for k in sorted(x, key=_key_order))
            elif kind == "idx*":
                if isinstance(x, list):
                    nxt.extend((e, (*path, i)) for i, e in enumerate(x))
            elif kind == "**":
                nxt.extend(_descendants(x, path))
            elif isinstance(x, list):
                i = arg if kind == "idx" else len(x) - 1 - arg
                if 0 <= i < len(x):
                    nxt.append((x[i], (*path, i)))
            elif (arg if kind == "idx" else -arg) == 0:
                nxt.append((x, path))  # autowrapping: the value itself is element 0 (and the last)
        seen: set[tuple[Any, ...]] = set()
        found = []
        for x, path in nxt:  # one value reached twice (through ** and autowrapping) counts once
            if path not in seen:
                seen.add(path)
                found.append((x, path))
    return [x for x, _ in found]


# ---------------------------------------------------------------- functions
def json_object(*args: Any) -> str:
    """JSON_OBJECT(key, value, ...).

    Raises:
        MySQLError: 1582 an odd number of arguments; 3158 a NULL key.
    """
    if len(args) % 2:
        raise mysql_error(1582, "json_object")
    out: dict[str, Any] = {}
    for k, v in zip(args[::2], args[1::2]):
        if k is None:
            raise mysql_error(3158)
        key = k.decode("utf-8", "surrogateescape") if isinstance(k, bytes) else _scalar_text(k)
        out[key] = _value(v)  # the last duplicate key wins
    return stored_text(out)


def _scalar_text(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def json_array(*args: Any) -> str:
    """JSON_ARRAY(value, ...)."""
    return stored_text([_value(v) for v in args])


def json_extract(doc: Any, *paths: Any) -> str | None:
    """JSON_EXTRACT(doc, path[, path] ...): one value, or an array of matches with several paths or a wildcard;
    NULL when nothing matches or an argument is NULL.

    Raises:
        MySQLError: 1582 without a path; 3141 bad document; 3143 bad path.
    """
    if not paths:
        raise mysql_error(1582, "json_extract")
    if doc is None or any(p is None for p in paths):
        return None
    value = _doc(doc, 1, "json_extract")
    parsed = [_path(p, "json_extract") for p in paths]
    matches: list[Any] = []
    for legs, _ in parsed:
        matches.extend(_walk(value, legs))
    if len(parsed) == 1 and not parsed[0][1]:
        return stored_text(matches[0]) if matches else None
    return stored_text(matches) if matches else None


def json_unquote(v: Any) -> str | None:
    """JSON_UNQUOTE(json_val): a JSON string's content; any other text as it is.

    Raises:
        MySQLError: 3141 for text that starts and ends with a double quote but is no valid JSON string.
    """
    if v is None:
        return None
    s = v.decode("utf-8", "surrogateescape") if isinstance(v, bytes) else str(v)
    if s.startswith(_TAG):
        s = s[1:]
    if _MARK in s:  # a stored document with typed scalars: a scalar unquoted, a container printed
        parsed = _parse(s, 1, "json_unquote")
        if isinstance(parsed, (Decimal, JsonOpaque)):
            return json.loads(to_text(parsed)) if isinstance(parsed, JsonOpaque) else format(parsed, "f")
        return parsed if isinstance(parsed, str) else to_text(parsed)
    if len(s) >= 2 and s[0] == '"' and s[-1] == '"':
        parsed = _parse(s, 1, "json_unquote")
        return parsed if isinstance(parsed, str) else s
    return s


def json_quote(v: Any) -> str | None:
    """JSON_QUOTE(string): the string as a JSON string literal."""
    if v is None:
        return None
    return to_text(v.decode("utf-8", "surrogateescape") if isinstance(v, bytes) else str(v))


def json_valid(v: Any) -> int | None:
    """JSON_VALID(val): 1 when ``val`` is a valid JSON document, else 0; NULL for NULL."""
    if v is None:
        return None
    if isinstance(v, str) and v.startswith(_TAG):
        return 1
    if not isinstance(v, (str, bytes)):
        return 0
    try:
        _doc(v, 1, "json_valid")
    except MySQLError:
        return 0
    return 1


def json_type(v: Any) -> str | None:
    """JSON_TYPE(json_val): OBJECT, ARRAY, STRING, INTEGER, DOUBLE, DECIMAL, DATE, TIME, DATETIME, TIMESTAMP,
    BOOLEAN or NULL (``json_type_string_map`` in item_json_func.cc).

    Raises:
        MySQLError: 3141 for a document that does not parse.
    """
    if v is None:
        return None
    x = _doc(v, 1, "json_type")
    if isinstance(x, bool):
        return "BOOLEAN"
    for cls, name in (
        (dict, "OBJECT"),
        (list, "ARRAY"),
        (str, "STRING"),
        (int, "INTEGER"),
        (float, "DOUBLE"),
        (Decimal, "DECIMAL"),
    ):
        if isinstance(x, cls):
            return name
    if isinstance(x, JsonOpaque):
        return _TEMPORAL_TYPE_NAMES.get(x.field_type, "OPAQUE")
    return "NULL"


def _at(doc: Any, path: Any, function: str) -> tuple[bool, Any]:
    """The value at ``path`` (no wildcards) in the document ``doc``: (found, value)."""
    value = _doc(doc, 1, function)
    if path is None:
        return True, value
    legs, wild = _path(path, function)
    if wild:
        raise mysql_error(3149)  # ER_INVALID_JSON_PATH_WILDCARD
    found = _walk(value, legs)
    return (True, found[0]) if found else (False, None)


def json_length(doc: Any, *path: Any) -> int | None:
    """JSON_LENGTH(doc[, path]): members of an object, elements of an array, 1 for a scalar; NULL when the path
    selects nothing."""
    if doc is None or (path and path[0] is None):
        return None
    ok, v = _at(doc, path[0] if path else None, "json_length")
    if not ok:
        return None
    return len(v) if isinstance(v, (dict, list)) else 1


def json_keys(doc: Any, *path: Any) -> str | None:
    """JSON_KEYS(doc[, path]): the top-level keys of the object as a JSON array (in stored order), else NULL."""
    if doc is None or (path and path[0] is None):
        return None
    ok, v = _at(doc, path[0] if path else None, "json_keys")
    if not ok or not isinstance(v, dict):
        return None
    return to_text(sorted(v, key=_key_order))


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float, Decimal)) and isinstance(b, (int, float, Decimal)):
        return a == b
    return type(a) is type(b) and a == b


def _contains(target: Any, candidate: Any) -> bool:
    if isinstance(target, list):
        if isinstance(candidate, list):
            return all(_contains(target, c) for c in candidate)
        return any(_contains(t, candidate) for t in target)
    if isinstance(target, dict):
        if not isinstance(candidate, dict):
            return False
        return all(k in target and _contains(target[k], v) for k, v in candidate.items())
    if isinstance(candidate, (list, dict)):
        return False
    return _equal(target, candidate)


def json_contains(target: Any, candidate: Any, *path: Any) -> int | None:
    """JSON_CONTAINS(target, candidate[, path]): 1 when ``candidate`` is contained in ``target`` (at ``path``)."""
    if target is None or candidate is None or (path and path[0] is None):
        return None
    cand = _doc(candidate, 2, "json_contains")
    ok, v = _at(target, path[0] if path else None, "json_contains")
    if not ok:
        return None
    return int(_contains(v, cand))


def json_contains_path(doc: Any, one_or_all: Any = None, *paths: Any) -> int | None:
    """JSON_CONTAINS_PATH(doc, 'one' | 'all', path[, path] ...): 1 when one / all of the paths select something.

    Raises:
        MySQLError: 1582 fewer than three arguments; 3150 a oneOrAll other than 'one' / 'all' (any case); 3141
            bad document; 3143 bad path.
    """
    if not paths:
        raise mysql_error(1582, "json_contains_path")
    if doc is None or one_or_all is None or any(p is None for p in paths):
        return None
    value = _doc(doc, 1, "json_contains_path")
    mode = (
        one_or_all.decode("utf-8", "replace") if isinstance(one_or_all, bytes) else str(one_or_all)
    ).lower()
    if mode not in ("one", "all"):
        raise mysql_error(3150, "json_contains_path")
    found = [bool(_walk(value, _path(p, "json_contains_path")[0])) for p in paths]
    return int(any(found) if mode == "one" else all(found))


def _depth(v: Any) -> int:
    if isinstance(v, dict) and v:
        return 1 + max(_depth(x) for x in v.values())
    if isinstance(v, list) and v:
        return 1 + max(_depth(x) for x in v)
    return 1


def json_depth(doc: Any) -> int | None:
    """JSON_DEPTH(doc): 1 for a scalar or an empty array / object, else 1 + the deepest member's depth.

    Raises:
        MySQLError: 3141 bad document; 3146 a number instead of a document.
    """
    if doc is None:
        return None
    return _depth(_doc(doc, 1, "json_depth"))


# ---------------------------------------------------------------- modifying functions
def _modify(v: Any, legs: list[Leg], value: Any, mode: str) -> Any:
    """``v`` with ``value`` put at the path ``legs`` (no wildcards): ``mode`` "set" replaces or adds, "insert" only
    adds, "replace" only replaces. A missing object member is added, an array index past the end appends, and
    ``[n]`` (n > 0) on a non-array wraps it in an array with the value after it (RM8 "Functions That Modify JSON
    Values": JSON_SET, JSON_INSERT, JSON_REPLACE). Returns the new ``v`` (containers change in place)."""
    if not legs:
        return value if mode != "insert" else v
    kind, arg = legs[0]
    rest = legs[1:]
    if kind == "key":
        if isinstance(v, dict):
            if arg in v:
                v[arg] = _modify(v[arg], rest, value, mode)
            elif not rest and mode != "replace":
                v[arg] = value
        return v
    if isinstance(v, list):
        i = arg if kind == "idx" else len(v) - 1 - arg
        if 0 <= i < len(v):
            v[i] = _modify(v[i], rest, value, mode)
        elif i >= len(v) and not rest and mode != "replace":
            v.append(value)
        return v
    i = arg if kind == "idx" else -arg  # autowrapping: a non-array is a one-element array
    if i == 0:
        return _modify(v, rest, value, mode)
    if i > 0 and not rest and mode != "replace":
        return [v, value]
    return v


def _remove(v: Any, legs: list[Leg]) -> Any:
    """``v`` without the element at ``legs`` (no wildcards), when there is one."""
    kind, arg = legs[0]
    rest = legs[1:]
    if kind == "key" and isinstance(v, dict) and arg in v:
        if rest:
            v[arg] = _remove(v[arg], rest)
        else:
            del v[arg]
    elif kind in ("idx", "last") and isinstance(v, list):
        i = arg if kind == "idx" else len(v) - 1 - arg
        if 0 <= i < len(v):
            if rest:
                v[i] = _remove(v[i], rest)
            else:
                del v[i]
    elif kind in ("idx", "last") and arg == 0 and rest:
        return _remove(v, rest)
    return v


def _modifier(function: str, mode: str) -> Callable[..., str | None]:
    def modify(doc: Any, *args: Any) -> str | None:
        if not args or len(args) % 2:
            raise mysql_error(1582, function)
        if doc is None:
            return None
        value = _doc(doc, 1, function)
        for path, new in zip(args[::2], args[1::2]):
            if path is None:
                return None
            legs, wild = _path(path, function)
            if wild:
                raise mysql_error(3149)  # ER_INVALID_JSON_PATH_WILDCARD
            value = _modify(value, legs, _value(new), mode)
        return stored_text(value)

    modify.__doc__ = f"""{function.upper()}(doc, path, value[, path, value] ...) (see :func:`_modify`).

    Raises:
        MySQLError: 1582 a missing path or value; 3141 bad document; 3143 bad path; 3149 a wildcard path."""
    return modify


json_set = _modifier("json_set", "set")
json_insert = _modifier("json_insert", "insert")
json_replace = _modifier("json_replace", "replace")


def json_remove(doc: Any, *paths: Any) -> str | None:
    """JSON_REMOVE(doc, path[, path] ...): the document without the elements the paths name, removed in order.

    Raises:
        MySQLError: 1582 without a path; 3141 bad document; 3143 bad path; 3149 a wildcard path; 3153 the path
            ``$`` (ER_JSON_VACUOUS_PATH).
    """
    if not paths:
        raise mysql_error(1582, "json_remove")
    if doc is None or any(p is None for p in paths):
        return None
    value = _doc(doc, 1, "json_remove")
    for path in paths:
        legs, wild = _path(path, "json_remove")
        if wild:
            raise mysql_error(3149)
        if not legs:
            raise mysql_error(3153)
        value = _remove(value, legs)
    return stored_text(value)


class JsonArrayAgg:
    """JSON_ARRAYAGG(value): the group's values as a JSON array, NULL for no rows (a NULL value is ``null``)."""

    def __init__(self) -> None:
        self.items: list[Any] = []
        self.rows = 0

    def step(self, v: Any) -> None:
        """Add one row's value (a string is a JSON string; tagged JSON stays JSON)."""
        self.rows += 1
        self.items.append(_value(v))

    def finalize(self) -> str | None:
        """The JSON array's text, or NULL for a group without rows."""
        return stored_text(self.items) if self.rows else None


class JsonObjectAgg:
    """JSON_OBJECTAGG(key, value): the group's pairs as a JSON object (the last duplicate key wins), NULL for no
    rows. A NULL key is error 3158 in MySQL; SQLite reports an aggregate's error without MySQL's code."""

    def __init__(self) -> None:
        self.members: dict[str, Any] = {}
        self.rows = 0

    def step(self, k: Any, v: Any) -> None:
        """Add one row's member (a later duplicate key replaces the value).

        Raises:
            MySQLError: 3158 for a NULL key.
        """
        if k is None:
            raise mysql_error(3158)
        self.rows += 1
        key = k.decode("utf-8", "surrogateescape") if isinstance(k, bytes) else _scalar_text(k)
        self.members[key] = _value(v)

    def finalize(self) -> str | None:
        """The JSON object's text, or NULL for a group without rows."""
        return stored_text(self.members) if self.rows else None


#: private aggregate name -> (argument count, class)
AGGREGATES: dict[str, tuple[int, type]] = {
    "_GK_JSON_ARRAYAGG": (1, JsonArrayAgg),
    "_GK_JSON_OBJECTAGG": (2, JsonObjectAgg),
}


def _tag(v: Any) -> Any:
    return None if v is None else _TAG + (v.decode() if isinstance(v, bytes) else str(v))


def _bool(v: Any) -> Any:
    return None if v is None else _TAG + ("true" if v else "false")


def _cast_json(v: Any) -> str | None:
    """CAST(x AS JSON): a string is parsed as a document (a JSON value or boolean stays what it is); a number
    becomes a JSON number."""
    if v is None:
        return None
    if isinstance(v, (str, bytes)):
        return stored_text(_doc(v, 1, "cast_as_json"))
    return stored_text(v)


#: private UDF name -> (argument count, implementation)
UDFS: dict[str, tuple[int, Callable[..., Any]]] = {
    "_GK_JSON_OBJECT": (-1, json_object),
    "_GK_JSON_ARRAY": (-1, json_array),
    "_GK_JSON_EXTRACT": (-1, json_extract),
    "_GK_JSON_UNQUOTE": (1, json_unquote),
    "_GK_JSON_QUOTE": (1, json_quote),
    "_GK_JSON_VALID": (1, json_valid),
    "_GK_JSON_TYPE": (1, json_type),
    "_GK_JSON_LENGTH": (-1, json_length),
    "_GK_JSON_KEYS": (-1, json_keys),
    "_GK_JSON_CONTAINS": (-1, json_contains),
    "_GK_JSON_CONTAINS_PATH": (-1, json_contains_path),
    "_GK_JSON_DEPTH": (1, json_depth),
    "_GK_JSON_SET": (-1, json_set),
    "_GK_JSON_INSERT": (-1, json_insert),
    "_GK_JSON_REPLACE": (-1, json_replace),
    "_GK_JSON_REMOVE": (-1, json_remove),
    "_GK_JSON_TAG": (1, _tag),
    "_GK_JSON_BOOL": (1, _bool),
    "_GK_JSON_TYPED": (-1, typed_value),
    "_GK_JSON_PRINT": (1, printed_text),
    "_GK_CAST_JSON": (1, _cast_json),
    "_GK_JSON_SCALAR": (1, lambda v: _scalar(v)),
}


# ---------------------------------------------------------------- tree rewrite
def _path_arg(node: exp.Expression) -> exp.Expression:
    """sqlglot's parsed JSONPath back to the path text MySQL received."""
    if isinstance(node, exp.JSONPath):
        return exp.Literal.string(node.sql(dialect="mysql").strip("'"))
    return node


def _mysql_name(node: exp.Expression) -> str | None:
    if isinstance(node, exp.Anonymous):
        name = str(node.name).upper()
        return name if name in _NAMES else None
    if isinstance(node, exp.JSONObject):
        return "JSON_OBJECT"
    if isinstance(node, exp.JSONArray):
        return "JSON_ARRAY"
    if isinstance(node, (exp.JSONExtract, exp.JSONExtractScalar)):
        return "JSON_EXTRACT"
    if isinstance(node, exp.JSONType):
        return "JSON_TYPE"
    if isinstance(node, exp.JSONKeys):
        return "JSON_KEYS"
    if isinstance(node, exp.JSONSet):
        return "JSON_SET"
    if isinstance(node, exp.JSONRemove):
        return "JSON_REMOVE"
    if isinstance(node, exp.JSONObjectAgg):
        return "JSON_OBJECTAGG"
    return None


def _is_json_cast(node: exp.Expression) -> bool:
    return isinstance(node, exp.Cast) and node.to.is_type(exp.DataType.Type.JSON)


def _args(node: exp.Expression) -> list[exp.Expression]:
    if isinstance(node, (exp.JSONObject, exp.JSONObjectAgg)):
        out: list[exp.Expression] = []
        for kv in node.expressions:
            out.extend([kv.this, kv.expression] if isinstance(kv, exp.JSONKeyValue) else [kv])
        return out
    if isinstance(node, (exp.JSONExtract, exp.JSONExtractScalar)):
        return [node.this, _path_arg(node.expression), *[_path_arg(e) for e in node.expressions]]
    if isinstance(node, exp.Anonymous):
        return list(node.expressions)
    this = node.args.get("this")
    rest = [_path_arg(e) for e in (node.args.get("expression"), *node.expressions) if e is not None]
    return ([this] if this is not None else []) + rest


#: a CAST target -> the kind letter of :func:`typed_value` (TIMESTAMP'...' is a DATETIME literal in MySQL)
_CAST_KINDS = {
    exp.DataType.Type.DATE: "d",
    exp.DataType.Type.TIME: "t",
    exp.DataType.Type.DATETIME: "D",
    exp.DataType.Type.TIMESTAMP: "D",
    exp.DataType.Type.DECIMAL: _DECIMAL_KIND,
}
#: temporal functions -> kind letter (CURDATE() is a DATE, NOW() / SYSDATE() / CURRENT_TIMESTAMP a DATETIME)
_FUNCTION_KINDS = {
    "CURDATE": "d",
    "CURRENT_DATE": "d",
    "CURTIME": "t",
    "CURRENT_TIME": "t",
    "NOW": "D",
    "SYSDATE": "D",
    "CURRENT_TIMESTAMP": "D",
    "LOCALTIME": "D",
    "LOCALTIMESTAMP": "D",
    "UTC_DATE": "d",
    "UTC_TIME": "t",
    "UTC_TIMESTAMP": "D",
    # CAST(x AS DATE / TIME / DATETIME) as functions.rewrite_for_sqlite writes it (it runs first)
    "_GK_CAST_DATE": "d",
    "_GK_CAST_TIME": "t",
    "_GK_CAST_DATETIME": "D",
}
#: a column type -> kind letter (json_dom.cc: a DATE / TIME / DATETIME / TIMESTAMP / DECIMAL field's val_json)
COLUMN_KINDS = {"date": "d", "time": "t", "datetime": "D", "timestamp": "s", "decimal": _DECIMAL_KIND}


def _typed_kind(
    node: exp.Expression, typed_columns: Mapping[str, tuple[str, int | None]]
) -> tuple[str, int | None] | None:
    """(kind letter, DECIMAL scale) of an SQL value MySQL puts into JSON as a typed scalar, or None."""
    if isinstance(node, (exp.Cast, exp.TryCast)):
        kind = _CAST_KINDS.get(node.to.this)
        if kind is None:
            return None
        if kind != _DECIMAL_KIND:
            return kind, None
        params = node.to.expressions
        scale = params[1].this if len(params) > 1 else None
        return kind, int(scale.this) if isinstance(scale, exp.Literal) else 0
    if isinstance(node, (exp.CurrentDate, exp.CurrentTime, exp.CurrentTimestamp)):
        return {exp.CurrentDate: "d", exp.CurrentTime: "t"}.get(type(node), "D"), None
    if isinstance(node, exp.Anonymous):
        kind = _FUNCTION_KINDS.get(str(node.name).upper())
        return (kind, None) if kind is not None else None
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal):  # -1.5
        return _typed_kind(node.this, typed_columns)
    if isinstance(node, exp.Literal) and not node.is_string:
        text = str(node.this)
        if (
            "." in text and "e" not in text.lower()
        ):  # an exact-value literal: DECIMAL (RM8 "Numeric Literals")
            return _DECIMAL_KIND, len(text) - text.index(".") - 1
        return None
    if isinstance(node, exp.Column):
        return typed_columns.get(node.name.lower())
    return None


def _value_arg(
    arg: exp.Expression,
    json_columns: frozenset[str] = frozenset(),
    typed_columns: Mapping[str, tuple[str, int | None]] = _NO_TYPED,
) -> exp.Expression:
    """Wrap a value argument that is JSON (nested JSON call or cast, a JSON column named in ``json_columns``),
    boolean, or a temporal / DECIMAL value (``typed_columns``: such columns' kind and scale) so its type survives
    SQLite."""
    inner = arg.this if isinstance(arg, exp.Paren) else arg
    if isinstance(inner, exp.Anonymous) and str(inner.name) in _PRIVATE_JSON_RESULTS:  # rewritten already
        return exp.Anonymous(this="_GK_JSON_TAG", expressions=[arg])
    if isinstance(inner, exp.Column) and inner.name.lower() in json_columns:
        return exp.Anonymous(this="_GK_JSON_TAG", expressions=[arg])
    if isinstance(inner, _BOOLEAN_NODES):
        return exp.Anonymous(this="_GK_JSON_BOOL", expressions=[arg])
    typed = _typed_kind(inner, typed_columns)
    if typed is not None:
        kind, scale = typed
        extra = [exp.Literal.number(scale)] if scale is not None else []
        return exp.Anonymous(this="_GK_JSON_TYPED", expressions=[arg, exp.Literal.string(kind), *extra])
    return arg


def rewrite_json(
    tree: exp.Expression,
    json_columns: frozenset[str] = frozenset(),
    typed_columns: Mapping[str, tuple[str, int | None]] = _NO_TYPED,
) -> exp.Expression:
    """Rewrite MySQL's JSON calls, ``->`` / ``->>`` and CAST(... AS JSON) in ``tree`` (in place) to the private
    UDFs of :data:`UDFS` and aggregates of :data:`AGGREGATES`; returns ``tree``. Innermost calls are rewritten first.

    Args:
        tree: the statement.
        json_columns: lowercase names of the JSON columns of the statement's tables: such a column given as a
            value (JSON_OBJECT('k', doc), JSON_ARRAYAGG(doc)) is a JSON value, not a string.
    """
    nodes = [n for n in tree.find_all(exp.Expression) if _mysql_name(n) is not None or _is_json_cast(n)]
    for node in reversed(nodes):  # find_all is breadth-first: children after parents
        if _is_json_cast(node):
            node.replace(
                exp.Anonymous(
                    this="_GK_CAST_JSON", expressions=[_value_arg(node.this, typed_columns=typed_columns)]
                )
            )
            continue
        name = _mysql_name(node)
        assert name is not None
        args = _args(node)
        if name in ("JSON_OBJECT", "JSON_OBJECTAGG"):
            args = [
                a if i % 2 == 0 else _value_arg(a, json_columns, typed_columns) for i, a in enumerate(args)
            ]
        elif name in ("JSON_ARRAY", "JSON_ARRAYAGG"):
            args = [_value_arg(a, json_columns, typed_columns) for a in args]
        elif name in ("JSON_SET", "JSON_INSERT", "JSON_REPLACE"):
            args = [
                a if i % 2 or i == 0 else _value_arg(a, json_columns, typed_columns)
                for i, a in enumerate(args)
            ]
        call: exp.Expression = exp.Anonymous(this=_NAMES[name], expressions=args)
        if isinstance(node, exp.JSONExtractScalar):  # ->> is JSON_UNQUOTE(JSON_EXTRACT(...))
            call = exp.Anonymous(this="_GK_JSON_UNQUOTE", expressions=[call])
        node.replace(call)
    for cmp in list(tree.find_all(*_COMPARISONS)):
        if isinstance(cmp.parent, (exp.Update, exp.OnConflict)):
            continue  # an assignment (UPDATE ... SET j = JSON_OBJECT(...)), not a comparison: the value stays JSON
        # JSON compared with an SQL value compares as that value (c->'$.id' > 1, c->'$.name' = 'Barney'):
        # a JSON scalar's SQL form, not its JSON text
        for side in ("this", "expression"):
            arg = cmp.args.get(side)
            if isinstance(arg, exp.Anonymous) and str(arg.name) in _PRIVATE_JSON_RESULTS:
                arg.replace(exp.Anonymous(this="_GK_JSON_SCALAR", expressions=[arg.copy()]))
    for key in list(tree.find_all(exp.Ordered)):
        # ORDER BY c->'$.n' (or its alias): JSON numbers sort as numbers, below strings (MySQL's JSON ordering puts
        # INTEGER and DOUBLE below STRING), not as their text
        arg = key.this
        if isinstance(arg, exp.Column) and not arg.table:
            select = key.find_ancestor(exp.Select)
            aliased = {
                p.alias: p.this
                for p in (select.expressions if select is not None else [])
                if isinstance(p, exp.Alias)
            }
            target = aliased.get(arg.name)
            if isinstance(target, exp.Anonymous) and str(target.name) in _PRIVATE_JSON_RESULTS:
                arg.replace(exp.Anonymous(this="_GK_JSON_SCALAR", expressions=[target.copy()]))
        elif isinstance(arg, exp.Anonymous) and str(arg.name) in _PRIVATE_JSON_RESULTS:
            arg.replace(exp.Anonymous(this="_GK_JSON_SCALAR", expressions=[arg.copy()]))
    if json_columns:
        _print_json_columns(tree, json_columns)
    return tree


def _print_json_columns(tree: exp.Expression, json_columns: frozenset[str]) -> None:
    """A JSON column given to a non-JSON function or CAST (CONCAT(j), LENGTH(j), CAST(j AS CHAR)) is read as
    MySQL's printed text (``Field_json::val_str``), not as the stored text with typed-scalar marks."""
    for col in list(tree.find_all(exp.Column)):
        parent = col.parent
        if col.name.lower() not in json_columns or not isinstance(parent, (exp.Func, exp.Cast, exp.DPipe)):
            continue
        if isinstance(parent, exp.Anonymous) and str(parent.name).startswith(("_GK_JSON", "_GK_CAST_JSON")):
            continue
        if isinstance(parent, (exp.Cast, exp.TryCast)) and _is_json_cast(parent):
            continue
        col.replace(exp.Anonymous(this="_GK_JSON_PRINT", expressions=[col.copy()]))


_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ)


def _scalar(v: Any) -> Any:
    """A JSON value as SQL compares it with an SQL value: numbers as numbers, strings unquoted, true/false as 1/0,
    objects and arrays as their JSON text."""
    if v is None:
        return None
    x = _doc(v, 1, "json_compare")
    if isinstance(x, bool):
        return int(x)
    if isinstance(x, (int, float, str)) or x is None:
        return x
    if isinstance(x, Decimal):
        return float(x)  # SQLite compares and sorts it as a number
    if isinstance(x, JsonOpaque):
        # MySQL's text of the value sorts in time order within one type; without a zero fraction it equals the SQL
        # value's text (j->'$.t' = TIMESTAMP'2015-01-15 23:24:25')
        text = temporal_text(x)
        return text[:-7] if text is not None and text.endswith(".000000") else text
    return to_text(x)


def json_result_column(name: str, node: exp.Expression) -> Column | None:
    """Result metadata of a select-list item whose type is JSON (MYSQL_TYPE_JSON 245, utf8mb4_bin, the maximum
    BLOB width), or None. ``->>`` and JSON_UNQUOTE return text, not JSON."""
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.JSONExtractScalar):
        return None
    if _is_json_cast(node):
        return Column(
            name,
            type=FieldType.MYSQL_TYPE_JSON,
            charset=_UTF8MB4_BIN,
            length=_MAX_BLOB_WIDTH,
            flags=int(ColumnFlag.BLOB),
            decimals=0,
        )
    fname = _mysql_name(node)
    row = lookup(fname) if fname is not None else None
    if row is None or row.result.field_type != FieldType.MYSQL_TYPE_JSON:
        return None
    result = row.result  # the function table's result type (JSON_RESULT_FUNCTIONS)
    return Column(
        name,
        type=FieldType.MYSQL_TYPE_JSON,
        charset=_UTF8MB4_BIN,
        length=result.length,
        flags=result.flags,
        decimals=0,
    )


# ---------------------------------------------------------------- partial updates (binlog_row_value_options)
def apply_json_diff(doc: Any, operation: int, path: str, value: Any = None) -> str:
    """``doc`` (a JSON column's stored text) with one change of a PARTIAL_UPDATE_ROWS_EVENT applied, as
    ``Json_diff_vector`` is applied by the replica (``apply_json_diffs`` in ``sql/json_diff.cc``): operation 0
    REPLACE is JSON_REPLACE, 1 INSERT is JSON_ARRAY_INSERT for an array element and JSON_INSERT otherwise, 2 REMOVE
    is JSON_REMOVE.

    Args:
        doc: the current document (text as stored).
        operation: 0, 1 or 2 (:mod:`gtidkit.binlog.json_diff`).
        path: the JSON path text.
        value: the new value (a JSON value as :func:`gtidkit.binlog.json_binary.decode` gives it); ignored for
            REMOVE.

    Raises:
        MySQLError: 3141 a bad document; 3143 a bad path; 3149 a wildcard path.
    """
    current = _doc(doc, 1, "json_diff")
    legs, wild = _path(path, "json_diff")
    if wild:
        raise mysql_error(3149)
    if operation == 2:
        current = _remove(current, legs) if legs else current
    elif operation == 1 and legs and legs[-1][0] in ("idx", "last"):
        parents = _walk(current, legs[:-1]) if legs[:-1] else [current]
        parent = parents[0] if parents else None
        if isinstance(parent, list):
            kind, arg = legs[-1]
            i = arg if kind == "idx" else len(parent) - 1 - arg
            parent.insert(min(max(i, 0), len(parent)), value)
    else:
        current = _modify(current, legs, value, "replace" if operation == 0 else "insert")
    return stored_text(current)


#: the rewritten modifying calls a partial update is made of, and what each does at a path
_PARTIAL_CALLS = {"_GK_JSON_SET": "SET", "_GK_JSON_REPLACE": "REPLACE", "_GK_JSON_REMOVE": "REMOVE"}


def partial_update_ops(expr: exp.Expression, column: str) -> tuple[tuple[str, tuple[str, ...]], ...] | None:
    """The changes an UPDATE assignment ``column = expr`` makes, when MySQL can log it as a JSON partial update
    (RM8 "Partial Updates of JSON Values": ``col = JSON_SET / JSON_REPLACE / JSON_REMOVE (col, path, ...)``,
    nested, the innermost document being the column itself, paths as literals); ``None`` otherwise.

    Args:
        expr: the assignment's right-hand side after :func:`rewrite_json`.
        column: the assigned column's name.

    Returns:
        ``(("SET" | "REPLACE" | "REMOVE", (path, ...)), ...)`` innermost call first.
    """
    node = expr
    while isinstance(node, exp.Anonymous) and str(node.name).upper() in ("_GK_JSON_SCALAR", "_GK_JSON_TAG"):
        if len(node.expressions) != 1:
            return None
        node = node.expressions[0]
    ops: list[tuple[str, tuple[str, ...]]] = []
    while not isinstance(node, exp.Column):
        if isinstance(node, exp.Paren):
            node = node.this
            continue
        name = str(node.name).upper() if isinstance(node, exp.Anonymous) else ""
        kind = _PARTIAL_CALLS.get(name)
        if kind is None or len(node.expressions) < 2:
            return None
        args = list(node.expressions)
        paths = args[1:] if kind == "REMOVE" else args[1::2]
        if not all(isinstance(p, exp.Literal) and p.is_string for p in paths):
            return None
        ops.append((kind, tuple(str(p.this) for p in paths)))
        node = args[0]
        while isinstance(node, exp.Anonymous) and str(node.name).upper() == "_GK_JSON_TAG":
            node = node.expressions[0]
    if node.name.lower() != column.lower():
        return None
    return tuple(reversed(ops))


_MISSING = object()


def json_path_value(doc: Any, path: str) -> Any:
    """The value at ``path`` (no wildcards) in the parsed document ``doc``, or :data:`MISSING_VALUE`.

    Raises:
        MySQLError: 3143 a bad path.
    """
    legs, wild = _path(path, "json_diff")
    found = _walk(doc, legs) if not wild else []
    return found[0] if len(found) == 1 else _MISSING


#: what :func:`json_path_value` answers for a path that selects nothing
MISSING_VALUE = _MISSING


def _register() -> None:
    """This family's rows: the private UDFs and aggregates, and each MySQL name :func:`rewrite_json` maps to one
    (its argument counts are MySQL's, else the private function's; its result is JSON or follows the arguments)."""
    private = rows_from(UDFS) + rows_from(AGGREGATES, Kind.AGGREGATE)
    register(*private)
    by_name = {row.name: row for row in private}
    json_type = ResultType(FieldType.MYSQL_TYPE_JSON, _MAX_BLOB_WIDTH, int(ColumnFlag.BLOB))
    for name, target in _NAMES.items():
        row = by_name[target]
        register(
            SqlFunction(
                name,
                *(mysql_arity(name) or (row.min_args, row.max_args)),
                kind=Kind.REWRITE,
                impl=rewrite_json,
                result=json_type if name in JSON_RESULT_FUNCTIONS else FOLLOWS_ARGUMENTS,
            )
        )
    register_nodes(
        {
            exp.JSONObject: "JSON_OBJECT",
            exp.JSONArray: "JSON_ARRAY",
            exp.JSONExtract: "JSON_EXTRACT",
            exp.JSONExtractScalar: "JSON_EXTRACT",
            exp.JSONType: "JSON_TYPE",
            exp.JSONKeys: "JSON_KEYS",
            exp.JSONSet: "JSON_SET",
            exp.JSONRemove: "JSON_REMOVE",
            exp.JSONObjectAgg: "JSON_OBJECTAGG",
        }
    )


_register()
