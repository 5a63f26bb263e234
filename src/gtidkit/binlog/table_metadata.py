"""mysqlbinlog ``--print-table-metadata``: a Table_map's optional metadata as ``# Columns(...)`` and
``# Primary Key(...)`` comments (pure).

MySQL source (facts only): ``sql/log_event.cc`` ``Table_map_log_event::print_columns``, ``print_primary_key``,
``get_type_name`` and ``Optional_metadata_fields`` (the field layouts of
``libs/mysql/binlog/event/rows_event.h``: SIGNEDNESS bits, DEFAULT_CHARSET default + (index, collation) pairs,
COLUMN_CHARSET one collation per character column, COLUMN_NAME, SET/ENUM_STR_VALUE, GEOMETRY_TYPE,
SIMPLE_PRIMARY_KEY, PRIMARY_KEY_WITH_PREFIX, ENUM_AND_SET_*_CHARSET, COLUMN_VISIBILITY), checked against
mysql-test ``binlog_table_map_optional_metadata.result``.
"""

from __future__ import annotations

from gtidkit.binlog.cursor import Cursor
from gtidkit.binlog.events.rows import TableMapEvent
from gtidkit.binlog.text import USER_VAR_COLLATIONS

__all__ = ["table_metadata_lines"]

_ENC = ("utf-8", "surrogateescape")
_STRING, _VARCHAR, _VAR_STRING, _BLOB, _ENUM, _SET, _GEOMETRY = 254, 15, 253, 252, 247, 248, 255
_CHARACTER = frozenset({_STRING, _VARCHAR, _VAR_STRING, _BLOB})
_NUMERIC = frozenset({1, 2, 3, 4, 5, 8, 9, 246})
_BINARY_COLLATION = 63
#: Bytes per character of the character sets the collation table knows (``CHARSET_INFO::mbmaxlen``).
_MBMAXLEN = {"latin1": 1, "ascii": 1, "binary": 1, "utf8mb3": 3, "utf8mb4": 4}
_SIMPLE_NAMES = {1: "TINYINT", 2: "SMALLINT", 9: "MEDIUMINT", 3: "INT", 8: "BIGINT", 4: "FLOAT", 5: "DOUBLE",
                 10: "DATE", 14: "DATE", 13: "YEAR", 245: "JSON", _ENUM: "ENUM", _SET: "SET"}  # fmt: skip
_BLOB_NAMES = {1: ("TINYBLOB", "TINYTEXT"), 2: ("BLOB", "TEXT"), 3: ("MEDIUMBLOB", "MEDIUMTEXT"),
               4: ("LONGBLOB", "LONGTEXT")}  # fmt: skip
_GEOMETRY_NAMES = ("GEOMETRY", "POINT", "LINESTRING", "POLYGON", "MULTIPOINT", "MULTILINESTRING", "MULTIPOLYGON",
                   "GEOMETRYCOLLECTION")  # fmt: skip


def _packed_list(raw: bytes) -> list[int]:
    c = Cursor(raw)
    out = []
    while c.remaining:
        out.append(c.packed_int())
    return out


def _charsets(default: bytes | None, per_column: bytes | None, count: int) -> list[int | None]:
    """The collation of each of ``count`` columns from a DEFAULT_CHARSET or a COLUMN_CHARSET field."""
    if per_column is not None:
        ids: list[int | None] = list(_packed_list(per_column))
        return (ids + [None] * count)[:count]
    if default is not None:
        values = _packed_list(default)
        out: list[int | None] = [values[0] if values else None] * count
        for k in range(1, len(values) - 1, 2):
            if values[k] < count:
                out[values[k]] = values[k + 1]
        return out
    return [None] * count


def _str_values(raw: bytes) -> list[list[bytes]]:
    c = Cursor(raw)
    out = []
    while c.remaining:
        out.append([c.bytes(c.packed_int()) for _ in range(c.packed_int())])
    return out


def _quoted_str(raw: bytes) -> str:
    return "'" + raw.decode(*_ENC).replace("\\", "\\\\").replace("'", "\\'") + "'"


def table_metadata_lines(tm: TableMapEvent) -> str:
    """The ``# Columns(...)`` line(s) and, when the metadata has one, ``# Primary Key(...)``, newline-ended.

    Raises:
        BinlogDecodeError: a malformed optional-metadata block.
    """
    fields = dict(tm.optional_metadata_fields())
    types = list(tm.column_types)
    metas = tm.column_metadata()
    real = [
        m[0] if t == _STRING and len(m) == 2 and m[0] in (_ENUM, _SET) else t for t, m in zip(types, metas)
    ]
    n_char = sum(1 for t in real if t in _CHARACTER)
    n_enum = sum(1 for t in real if t in (_ENUM, _SET))
    char_cs = iter(_charsets(fields.get(2), fields.get(3), n_char))
    enum_cs = iter(_charsets(fields.get(10), fields.get(11), n_enum))
    names = [c.decode(*_ENC) for c in _str_list(fields.get(4))]
    signed_bits = fields.get(1, b"")
    sets = iter(_str_values(fields.get(5, b"")))
    enums = iter(_str_values(fields.get(6, b"")))
    geometry = iter(_packed_list(fields.get(7, b"")))
    visibility = fields.get(12)
    numeric_k = 0
    parts = []
    for i, t in enumerate(real):
        cs = next(char_cs) if t in _CHARACTER else next(enum_cs) if t in (_ENUM, _SET) else None
        csname, coll = USER_VAR_COLLATIONS.get(cs, (None, None)) if cs is not None else (None, None)
        text = ""
        if i < len(names):
            text = "`" + names[i].replace("`", "``") + "` "
        text += _type_name(t, metas[i], cs, csname, next(geometry, 0) if t == _GEOMETRY else 0)
        if t in _NUMERIC and 1 in fields:
            if numeric_k // 8 < len(signed_bits) and signed_bits[numeric_k // 8] & (0x80 >> (numeric_k % 8)):
                text += " UNSIGNED"
            numeric_k += 1
        if not tm.nullable(i):
            text += " NOT NULL"
        values = next(enums, None) if t == _ENUM else next(sets, None) if t == _SET else None
        if values is not None:
            text += "(" + ", ".join(_quoted_str(v) for v in values) + ")"
        if csname is not None and (t in (_ENUM, _SET) or cs != _BINARY_COLLATION):
            text += f" CHARSET {csname} COLLATE {coll}"
        if visibility is not None and i // 8 < len(visibility) and not visibility[i // 8] & (0x80 >> (i % 8)):
            text += " INVISIBLE"
        parts.append(text)
    out = "# Columns(" + ",\n#         ".join(parts) + ")\n"
    pk = _primary_key(fields, names)
    return out + (f"# Primary Key({pk})\n" if pk else "")


def _str_list(raw: bytes | None) -> list[bytes]:
    if raw is None:
        return []
    c = Cursor(raw)
    out = []
    while c.remaining:
        out.append(c.bytes(c.packed_int()))
    return out


def _primary_key(fields: dict[int, bytes], names: list[str]) -> str:
    if 8 in fields:
        pairs = [(i, 0) for i in _packed_list(fields[8])]
    elif 9 in fields:
        values = _packed_list(fields[9])
        pairs = list(zip(values[::2], values[1::2]))
    else:
        return ""
    return ", ".join(
        (names[i] if i < len(names) else str(i)) + (f"({prefix})" if prefix else "") for i, prefix in pairs
    )


def _type_name(t: int, meta: bytes, cs: int | None, csname: str | None, geometry: int) -> str:
    """``get_type_name``."""
    name = _SIMPLE_NAMES.get(t)
    if name is not None:
        return name
    if t == 246:
        return f"DECIMAL({meta[0]},{meta[1]})"
    if t == 16:
        return f"BIT({meta[1] * 8 + meta[0]})"
    if t in (17, 18, 19):
        base = {17: "TIMESTAMP", 18: "DATETIME", 19: "TIME"}[t]
        return f"{base}({meta[0]})" if meta and meta[0] else base
    if t in (7, 12, 11):
        return {7: "TIMESTAMP", 12: "DATETIME", 11: "TIME"}[t]
    mb = _MBMAXLEN.get(csname or "", 1)
    if t == _BLOB:
        return _BLOB_NAMES.get(meta[0], ("BLOB", "TEXT"))[int(cs != _BINARY_COLLATION)]
    if t in (_VARCHAR, _VAR_STRING):
        length = int.from_bytes(meta[:2], "little")
        return f"VARBINARY({length})" if cs == _BINARY_COLLATION else f"VARCHAR({length // mb})"
    if t == _STRING:
        length = (((meta[0] & 0x30) ^ 0x30) << 4) | meta[1]
        return f"BINARY({length})" if cs == _BINARY_COLLATION else f"CHAR({length // mb})"
    if t == _GEOMETRY:
        return (
            _GEOMETRY_NAMES[geometry]
            if geometry < len(_GEOMETRY_NAMES)
            else f"INVALID_GEOMETRY_TYPE({geometry})"
        )
    return f"INVALID_TYPE({t})"
