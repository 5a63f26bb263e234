"""mysqlbinlog ``-v`` / ``-vv``: a rows event as ``### INSERT INTO ...`` pseudo-SQL comments (pure).

MySQL source (facts only): ``sql/log_event.cc`` ``Rows_log_event::print_verbose``, ``print_verbose_one_row`` and
``log_event_print_value``. Values print from the row image's bytes as MySQL does, without the table's
signedness: an integer whose signed reading is negative also shows its unsigned reading (``-1 (4294967295)``);
strings are quoted with ``\\'``, ``\\\\``, ``\\n`` ... and ``\\xHH`` for other control bytes; FLOAT is ``%-20g``,
DOUBLE ``%-.20g``; BIT and SET print as ``b'0101'``; ENUM as its index; ``-vv`` adds
``/* TYPE meta=N nullable=0|1 is_null=0|1 */`` after each value.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Callable, Sequence

from gtidkit.binlog import json_binary
from gtidkit.binlog.constants import EventType
from gtidkit.binlog.cursor import Cursor
from gtidkit.binlog.events.rows import RowsEvent, TableMapEvent
from gtidkit.binlog.json_diff import PARTIAL_JSON_UPDATES
from gtidkit.binlog.row_image import ColumnSpec, column_specs, columns_present, decode_decimal, decode_value
from gtidkit.errors import BinlogDecodeError

__all__ = ["column_meta", "quoted", "rows_pseudo_sql"]

_T = EventType
_COMMANDS = {
    _T.WRITE_ROWS_EVENT: ("INSERT INTO", "### SET\n", None),
    _T.WRITE_ROWS_EVENT_V1: ("INSERT INTO", "### SET\n", None),
    _T.DELETE_ROWS_EVENT: ("DELETE FROM", "### WHERE\n", None),
    _T.DELETE_ROWS_EVENT_V1: ("DELETE FROM", "### WHERE\n", None),
    _T.UPDATE_ROWS_EVENT: ("UPDATE", "### WHERE\n", "### SET\n"),
    _T.UPDATE_ROWS_EVENT_V1: ("UPDATE", "### WHERE\n", "### SET\n"),
    _T.PARTIAL_UPDATE_ROWS_EVENT: ("UPDATE", "### WHERE\n", "### SET\n"),
}


def _quote_table() -> list[str]:
    table = []
    special = {8: "\\b", 12: "\\f", 10: "\\n", 13: "\\r", 9: "\\t", 92: "\\\\", 39: "\\'"}
    for i in range(256):
        if i in special:
            table.append(special[i])
        elif i < 32:
            table.append(f"\\x{i:02x}")
        else:
            table.append(chr(i))
    return table


_QUOTE = _quote_table()


def quoted(raw: bytes) -> str:
    """``my_b_write_quoted``: ``'...'`` with MySQL's escapes; bytes >= 0x80 are kept (decoded as UTF-8 where they
    form UTF-8, as a terminal shows mysqlbinlog's bytes)."""
    text = "".join(_QUOTE[b] for b in raw)
    try:
        text = text.encode("latin-1").decode("utf-8")
    except UnicodeError:
        pass
    return f"'{text}'"


def column_meta(spec: ColumnSpec) -> int:
    """The column's metadata as one number, as ``table_def::field_metadata`` holds it (``-vv`` prints it)."""
    m = spec.meta
    code = spec.type_code
    if not m:
        return 0
    if code in (15, 16) and len(m) == 2:  # VARCHAR: u16 LE; BIT: bytes << 8 | bits
        return m[0] | m[1] << 8 if code == 15 else m[1] << 8 | m[0]
    if len(m) == 2:  # STRING (real type, length) and NEWDECIMAL (precision, scale): big-endian
        return m[0] << 8 | m[1]
    return m[0]


def _int(raw: bytes) -> str:
    si = int.from_bytes(raw, "little", signed=True)
    if si < 0:
        return f"{si} ({int.from_bytes(raw, 'little')})"
    return str(si)


def _bits(raw: bytes, nbits: int) -> str:
    value = int.from_bytes(raw, "big")
    return "b'" + format(value, f"0{nbits}b")[-nbits:] + "'" if nbits else "b''"


def _json_text(raw: bytes) -> str:
    try:
        doc = json_binary.decode(raw)
    except BinlogDecodeError:
        return "Invalid JSON"

    def default(o: object) -> object:
        if isinstance(o, json_binary.JsonOpaque):
            return json_binary.temporal_text(o) or "base64:..."
        return str(o)

    return quoted(json.dumps(doc, ensure_ascii=False, default=default).encode("utf-8"))


def _value(cur: Cursor, spec: ColumnSpec, meta: int) -> tuple[str, str]:
    """(text, type name) of one non-NULL value (``log_event_print_value``)."""
    code = spec.type_code
    m = spec.meta
    if code == 254 and meta >= 256:  # STRING: ENUM / SET / long CHAR hide in the metadata's first byte
        byte0, byte1 = meta >> 8, meta & 0xFF
        if (byte0 & 0x30) != 0x30:
            length = byte1 | (((byte0 & 0x30) ^ 0x30) << 4)
        else:
            code, length = byte0, byte1
    elif code == 254:
        length = meta
    fmt = _FORMATTERS.get(code)
    if fmt is None:
        raise BinlogDecodeError(f"column type {code} is not printed by -v")
    if code == 254:
        raw = cur.bytes(cur.u16() if length > 255 else cur.u8())
        return quoted(raw), f"STRING({length})"
    return fmt(cur, spec, m, meta)


def _fixed_int(n: int, name: str) -> Callable[[Cursor, ColumnSpec, bytes, int], tuple[str, str]]:
    def fmt(cur: Cursor, spec: ColumnSpec, m: bytes, meta: int) -> tuple[str, str]:
        return _int(cur.bytes(n)), name

    return fmt


def _float(cur: Cursor, spec: ColumnSpec, m: bytes, meta: int) -> tuple[str, str]:
    return f"{struct.unpack('<f', cur.bytes(4))[0]:<20g}", "FLOAT"  # C's %-20g


def _double(cur: Cursor, spec: ColumnSpec, m: bytes, meta: int) -> tuple[str, str]:
    return f"{struct.unpack('<d', cur.bytes(8))[0]:<.20g}", "DOUBLE"  # C's %-.20g


def _decimal(cur: Cursor, spec: ColumnSpec, m: bytes, meta: int) -> tuple[str, str]:
    p, s = m[0], m[1]
    return str(decode_decimal(cur, p, s)), f"DECIMAL({p},{s})"


def _bit(cur: Cursor, spec: ColumnSpec, m: bytes, meta: int) -> tuple[str, str]:
    nbits = (meta >> 8) * 8 + (meta & 0xFF)
    return _bits(cur.bytes((nbits + 7) // 8), nbits), f"BIT({nbits})"


def _date(cur: Cursor, spec: ColumnSpec, m: bytes, meta: int) -> tuple[str, str]:
    v = cur.u24()
    return f"'{v >> 9:04d}:{(v >> 5) & 15:02d}:{v & 31:02d}'", "DATE"


def _year(cur: Cursor, spec: ColumnSpec, m: bytes, meta: int) -> tuple[str, str]:
    return f"{cur.u8() + 1900:04d}", "YEAR"


def _temporal(name: str, quote: bool) -> Callable[[Cursor, ColumnSpec, bytes, int], tuple[str, str]]:
    def fmt(cur: Cursor, spec: ColumnSpec, m: bytes, meta: int) -> tuple[str, str]:
        text = decode_value(cur, spec)
        return (f"'{text}'" if quote else str(text)), f"{name}({meta})"

    return fmt


def _timestamp2(cur: Cursor, spec: ColumnSpec, m: bytes, meta: int) -> tuple[str, str]:
    secs = int.from_bytes(cur.bytes(4), "big")
    frac = ""
    if meta:
        nbytes = (meta + 1) // 2
        us = int.from_bytes(cur.bytes(nbytes), "big") * (100 ** (3 - nbytes))
        frac = "." + f"{us:06d}"[:meta]
    return f"{secs}{frac}", f"TIMESTAMP({meta})"


def _varchar(cur: Cursor, spec: ColumnSpec, m: bytes, meta: int) -> tuple[str, str]:
    raw = cur.bytes(cur.u16() if meta > 255 else cur.u8())
    return quoted(raw), f"VARSTRING({meta})"


_BLOB_NAMES = {1: "TINYBLOB/TINYTEXT", 2: "BLOB/TEXT", 3: "MEDIUMBLOB/MEDIUMTEXT", 4: "LONGBLOB/LONGTEXT"}


def _blob(cur: Cursor, spec: ColumnSpec, m: bytes, meta: int) -> tuple[str, str]:
    raw = cur.bytes(int.from_bytes(cur.bytes(meta), "little"))
    return quoted(raw), _BLOB_NAMES.get(meta, "BLOB")


def _enum(cur: Cursor, spec: ColumnSpec, m: bytes, meta: int) -> tuple[str, str]:
    n = meta & 0xFF
    return str(int.from_bytes(cur.bytes(n), "little")), f"ENUM({n} byte{'s' if n > 1 else ''})"


def _set(cur: Cursor, spec: ColumnSpec, m: bytes, meta: int) -> tuple[str, str]:
    n = meta & 0xFF
    return _bits(cur.bytes(n), n * 8), f"SET({n} bytes)"


def _json(cur: Cursor, spec: ColumnSpec, m: bytes, meta: int) -> tuple[str, str]:
    raw = cur.bytes(int.from_bytes(cur.bytes(meta), "little"))
    return _json_text(raw), "JSON"


def _geometry(cur: Cursor, spec: ColumnSpec, m: bytes, meta: int) -> tuple[str, str]:
    raw = cur.bytes(int.from_bytes(cur.bytes(meta), "little"))
    return quoted(raw), "GEOMETRY"


_FORMATTERS: dict[int, Callable[[Cursor, ColumnSpec, bytes, int], tuple[str, str]]] = {
    1: _fixed_int(1, "TINYINT"),
    2: _fixed_int(2, "SHORTINT"),
    9: _fixed_int(3, "MEDIUMINT"),
    3: _fixed_int(4, "INT"),
    8: _fixed_int(8, "LONGINT"),
    4: _float,
    5: _double,
    246: _decimal,
    16: _bit,
    10: _date,
    13: _year,
    17: _timestamp2,
    18: _temporal("DATETIME", True),
    19: _temporal("TIME", True),
    15: _varchar,
    252: _blob,
    247: _enum,
    248: _set,
    245: _json,
    255: _geometry,
    254: _varchar,  # replaced in _value (the STRING family)
}


def rows_pseudo_sql(type_code: int, ev: RowsEvent, table_map: TableMapEvent | None, verbose: int) -> str:
    """The ``###`` lines of one rows event (``Rows_log_event::print_verbose``).

    Args:
        type_code: the rows event's type.
        ev: the decoded rows event.
        table_map: the Table_map of its table id (``None``: unknown, as MySQL says).
        verbose: 1 for ``-v``, 2 or more for ``-vv`` (type comments).

    Returns:
        The text, each line ending in a newline; a row that cannot be read ends the text with MySQL's
        ``***Corrupted replication event`` line.
    """
    if table_map is None:
        return f"### Row event for unknown table #{ev.table_id}"
    command, clause1, clause2 = _COMMANDS[type_code]  # type: ignore[index]
    name = f"`{table_map.database.replace('`', '``')}`.`{table_map.table.replace('`', '``')}`"
    if clause2 is None and clause1 == "### SET\n" and not ev.body:
        return f"### INSERT INTO `{table_map.database}`.`{table_map.table}` VALUES ()\n"
    try:
        specs = column_specs(table_map)
    except BinlogDecodeError:
        return f"### Row event for unknown table #{ev.table_id}"
    metas = [column_meta(s) for s in specs]
    nullable = [table_map.nullable(i) for i in range(len(specs))]
    n = min(len(specs), ev.column_count)
    before = columns_present(ev.columns_before, n)
    after = columns_present(ev.columns_after, n) if ev.columns_after is not None else before
    json_cols = sum(1 for s in specs if s.type_code == 245)
    partial_event = type_code == _T.PARTIAL_UPDATE_ROWS_EVENT
    cur = Cursor(ev.body)
    out: list[str] = []

    def image(present: Sequence[bool], clause: str, is_after: bool) -> None:
        if is_after and partial_event and cur.packed_int() & PARTIAL_JSON_UPDATES:
            cur.bytes((json_cols + 7) // 8)
        k = sum(present)
        nulls = columns_present(cur.bytes((k + 7) // 8), k) if k else []
        out.append(clause)
        j = 0
        for i in range(n):
            if not present[i]:
                continue
            is_null = nulls[j]
            j += 1
            if is_null:
                text = "NULL"
                _, typename = _type_only(specs[i], metas[i])
            else:
                text, typename = _value(cur, specs[i], metas[i])
            line = f"###   @{i + 1}={text}"
            if verbose > 1:
                line += (
                    f" /* {typename} meta={metas[i]} nullable={int(nullable[i])} is_null={int(is_null)} */"
                )
            out.append(line + "\n")

    try:
        while cur.remaining:
            out.append(f"### {command} {name}\n")
            image(before, clause1, False)
            if clause2 is not None:
                image(after, clause2, True)
    except BinlogDecodeError:
        out.append(
            "***Corrupted replication event was detected: field size is set beyond the end of the event. "
            "Not printing the value***\n"
        )
    return "".join(out)


def _type_only(spec: ColumnSpec, meta: int) -> tuple[str, str]:
    """The type name of a NULL value's column (the value is not read)."""
    fake = Cursor(bytes(64))
    try:
        return _value(fake, spec, meta)
    except BinlogDecodeError:
        return "", ""
