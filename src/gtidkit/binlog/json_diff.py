"""JSON partial updates in row images: the diff list a PARTIAL_UPDATE_ROWS_EVENT (39) carries for a JSON column
instead of the whole document (``binlog_row_value_options=PARTIAL_JSON``). Pure codec.

MySQL source: ``Json_diff_vector::write_binary`` / ``Json_diff::write_binary`` (``sql/json_diff.cc``), read the same
way by python-mysql-replication (``BinLogPacketWrapper.read_binary_json`` with ``is_partial``) and go-mysql
(``decodeJsonPartialBinary``); the layout, checked against a MySQL 8.0.22 binlog (fixture ``json.binlog.000001``,
``UPDATE t SET json_col = JSON_REPLACE(json_col, '$.age', ...)``)::

    column value ::= length diff*              -- length: the JSON column's length bytes (4), little-endian
    diff         ::= operation path [value]    -- no value for REMOVE
    operation    ::= uint8: 0 REPLACE | 1 INSERT | 2 REMOVE
    path         ::= packed-length utf8 text   -- the JSON path as written: '$.age', '$[1]'
    value        ::= packed-length binary-JSON (gtidkit.binlog.json_binary)

In the event, the after image of each row starts with ``value_options`` (a packed integer; bit 0
PARTIAL_JSON_UPDATES) and, when the bit is set, a bitmap with one bit per JSON column of the table (least
significant bit first) telling which JSON values are diff lists (:func:`gtidkit.binlog.row_image.decode_rows`).
"""

from __future__ import annotations

from dataclasses import dataclass

from gtidkit.binlog.cursor import Cursor, Writer

__all__ = [
    "INSERT",
    "PARTIAL_JSON_UPDATES",
    "REMOVE",
    "REPLACE",
    "JsonDiff",
    "JsonDiffs",
    "decode_diffs",
    "encode_diffs",
]

#: ``enum_json_diff_operation``
REPLACE, INSERT, REMOVE = 0, 1, 2
#: ``value_options`` bit of a partial update's after image (``PARTIAL_JSON_UPDATES``)
PARTIAL_JSON_UPDATES = 1


@dataclass(frozen=True, slots=True)
class JsonDiff:
    """One change of a JSON document.

    Args:
        operation: :data:`REPLACE` (as JSON_REPLACE), :data:`INSERT` (JSON_INSERT, or JSON_ARRAY_INSERT for an
            array element) or :data:`REMOVE` (JSON_REMOVE).
        path: the JSON path text.
        value: the new value as binary JSON; ``None`` for REMOVE.
    """

    operation: int
    path: str
    value: bytes | None = None


@dataclass(frozen=True, slots=True)
class JsonDiffs:
    """A JSON column's value in a partial after image: the changes to apply to the row's current document."""

    diffs: tuple[JsonDiff, ...]


def encode_diffs(diffs: tuple[JsonDiff, ...] | list[JsonDiff]) -> bytes:
    """The diff list bytes (without the column's length prefix).

    Raises:
        ValueError: an unknown operation, or a REPLACE/INSERT without a value.
    """
    w = Writer()
    for d in diffs:
        if d.operation not in (REPLACE, INSERT, REMOVE):
            raise ValueError(f"unknown JSON diff operation {d.operation}")
        w.u8(d.operation)
        path = d.path.encode("utf-8")
        w.packed_int(len(path))
        w.bytes(path)
        if d.operation != REMOVE:
            if d.value is None:
                raise ValueError("a JSON REPLACE / INSERT diff needs a value")
            w.packed_int(len(d.value))
            w.bytes(d.value)
    return w.getvalue()


def decode_diffs(data: bytes) -> JsonDiffs:
    """Read a diff list (mirror of :func:`encode_diffs`).

    Raises:
        BinlogDecodeError: truncated data (``CursorError``) or an unknown operation.
    """
    from gtidkit.binlog.cursor import CursorError

    cur = Cursor(bytes(data))
    out: list[JsonDiff] = []
    while cur.remaining:
        op = cur.u8()
        if op not in (REPLACE, INSERT, REMOVE):
            raise CursorError(f"unknown JSON diff operation {op}")
        path = cur.bytes(cur.packed_int()).decode("utf-8", "surrogateescape")
        value = None if op == REMOVE else cur.bytes(cur.packed_int())
        out.append(JsonDiff(op, path, value))
    return JsonDiffs(tuple(out))
