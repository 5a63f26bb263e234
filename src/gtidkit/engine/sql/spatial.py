"""Spatial values: MySQL's internal geometry format, WKT in and out (ST_GeomFromText / ST_AsText), and the spatial
column types.

MySQL stores a geometry as a 4-byte little-endian SRID followed by its WKB (little-endian byte order), and that is
what a GEOMETRY column holds, what a client reads from it and what a row image carries (RM8 13.4.3 "Supported
Spatial Data Formats", "Internal Geometry Storage Format"). The column types POINT, LINESTRING, POLYGON,
MULTIPOINT, MULTILINESTRING, MULTIPOLYGON and GEOMETRYCOLLECTION accept only their kind; GEOMETRY any. Their
Table_map GEOMETRY_TYPE code is ``Field::geometry_type`` (0 GEOMETRY, 1 POINT ... 7 GEOMETRYCOLLECTION), which
is also the WKB type number of the kind.

Only the formats are implemented (no spatial relations or measurements). WKT output follows MySQL 8.0's
``ST_AsText``: no space after commas, ``MULTIPOINT((1 1),(2 2))``, coordinates in their shortest form.
"""

from __future__ import annotations

import re
import struct
from typing import Any

from gtidkit.engine.sql.function_table import register, rows_from
from gtidkit.mysql_errors import mysql_error

__all__ = [
    "GEOMETRY_CODES",
    "SPATIAL_TYPES",
    "UDFS",
    "check_value",
    "from_text",
    "to_text",
]

#: column type name -> Field::geometry_type (= the WKB type of the kind; 0 = any)
GEOMETRY_CODES = {
    "geometry": 0,
    "point": 1,
    "linestring": 2,
    "polygon": 3,
    "multipoint": 4,
    "multilinestring": 5,
    "multipolygon": 6,
    "geomcollection": 7,
}
#: The spatial column types (MySQL 8.0 spells GEOMETRYCOLLECTION ``geomcollection`` in COLUMN_TYPE).
SPATIAL_TYPES = tuple(GEOMETRY_CODES)
_WKT_NAMES = {
    1: "POINT",
    2: "LINESTRING",
    3: "POLYGON",
    4: "MULTIPOINT",
    5: "MULTILINESTRING",
    6: "MULTIPOLYGON",
    7: "GEOMETRYCOLLECTION",
}
_TOKEN = re.compile(r"\s*([A-Za-z]+|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[(),])")


class _WktError(ValueError):
    """Text that is not WKT of a supported kind."""


def _tokens(text: str) -> list[str]:
    out, pos = [], 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise _WktError(text)
        out.append(m.group(1))
        pos = m.end()
    return out


class _Reader:
    """A recursive-descent reader of WKT tokens writing little-endian WKB."""

    def __init__(self, tokens: list[str]) -> None:
        self.t = tokens
        self.i = 0

    def take(self, want: str | None = None) -> str:
        if self.i >= len(self.t):
            raise _WktError("end of text")
        tok = self.t[self.i]
        if want is not None and tok.upper() != want:
            raise _WktError(tok)
        self.i += 1
        return tok

    def peek(self) -> str:
        return self.t[self.i] if self.i < len(self.t) else ""

    def number(self) -> float:
        try:
            return float(self.take())
        except ValueError as err:
            raise _WktError(str(err)) from None

    def coords(self) -> bytes:
        x, y = self.number(), self.number()
        return struct.pack("<dd", x, y)

    def listed(self, item: Any) -> tuple[int, bytes]:
        self.take("(")
        parts = [item()]
        while self.peek() == ",":
            self.take(",")
            parts.append(item())
        self.take(")")
        return len(parts), b"".join(parts)

    def counted(self, item: Any) -> bytes:
        n, body = self.listed(item)
        return struct.pack("<I", n) + body

    def point_in_multi(self) -> bytes:
        if self.peek() == "(":  # MULTIPOINT((1 1),(2 2)) and MULTIPOINT(1 1,2 2) are both accepted
            self.take("(")
            body = self.coords()
            self.take(")")
        else:
            body = self.coords()
        return struct.pack("<BI", 1, 1) + body

    def geometry(self) -> bytes:
        name = self.take().upper()
        code = {v: k for k, v in _WKT_NAMES.items()}.get(name)
        if code is None:
            raise _WktError(name)
        head = struct.pack("<BI", 1, code)
        if code == 1:
            self.take("(")
            body = self.coords()
            self.take(")")
            return head + body
        if code == 2:
            return head + self.counted(self.coords)
        if code == 3:
            return head + self.counted(lambda: self.counted(self.coords))
        if code == 4:
            return head + self.counted(self.point_in_multi)
        if code == 5:
            return head + self.counted(lambda: struct.pack("<BI", 1, 2) + self.counted(self.coords))
        if code == 6:
            return head + self.counted(
                lambda: struct.pack("<BI", 1, 3) + self.counted(lambda: self.counted(self.coords))
            )
        return head + self.counted(self.geometry)


def from_text(wkt: Any, srid: Any = 0) -> bytes | None:
    """``ST_GeomFromText(wkt [, srid])``: the internal form (SRID + WKB) of a WKT text; NULL in, NULL out.

    Raises:
        MySQLError: 3037 (22023) "Invalid GIS data provided to function st_geomfromtext." for text that is not
            WKT of a supported kind.
    """
    if wkt is None or srid is None:
        return None
    text = wkt.decode("utf-8", "replace") if isinstance(wkt, bytes) else str(wkt)
    try:
        r = _Reader(_tokens(text))
        wkb = r.geometry()
        if r.i != len(r.t):
            raise _WktError("trailing text")
    except _WktError:
        raise mysql_error(3037, "st_geomfromtext") from None
    return struct.pack("<I", int(srid) & 0xFFFFFFFF) + wkb  # the SRID argument is a uint32 (-128 wraps)


def _num(v: float) -> str:
    if v == int(v) and abs(v) < 1e15:
        return str(int(v))
    return repr(v)


def _wkt(buf: bytes, pos: int) -> tuple[str, int]:
    """The WKT of the WKB geometry at ``pos`` and the position after it."""
    order = "<" if buf[pos] == 1 else ">"
    (code,) = struct.unpack_from(order + "I", buf, pos + 1)
    pos += 5

    def pt(p: int) -> tuple[str, int]:
        x, y = struct.unpack_from(order + "dd", buf, p)
        return f"{_num(x)} {_num(y)}", p + 16

    def many(p: int, item: Any) -> tuple[str, int]:
        (n,) = struct.unpack_from(order + "I", buf, p)
        p += 4
        parts = []
        for _ in range(n):
            s, p = item(p)
            parts.append(s)
        return "(" + ",".join(parts) + ")", p

    def ring(p: int) -> tuple[str, int]:
        return many(p, pt)

    def inner(p: int) -> tuple[str, int]:  # a member of a MULTI*: its own header, then its body
        s, p = _wkt(buf, p)
        return s[s.index("(") :], p

    if code == 1:
        s, pos = pt(pos)
        return f"POINT({s})", pos
    if code == 2:
        s, pos = many(pos, pt)
    elif code == 3:
        s, pos = many(pos, ring)
    elif code in (4, 5, 6):
        s, pos = many(pos, inner)
    elif code == 7:
        s, pos = many(pos, lambda p: _wkt(buf, p))
    else:
        raise ValueError(f"WKB type {code}")
    return _WKT_NAMES[code] + s, pos


def to_text(value: Any) -> str | None:
    """``ST_AsText(g)``: the WKT of an internal-format geometry; NULL in, NULL out.

    Raises:
        MySQLError: 3037 for bytes that are not a geometry.
    """
    if value is None:
        return None
    raw = value if isinstance(value, bytes) else str(value).encode("utf-8", "surrogateescape")
    try:
        text, end = _wkt(raw, 4)
    except (ValueError, struct.error, IndexError):
        raise mysql_error(3037, "st_astext") from None
    if end != len(raw):
        raise mysql_error(3037, "st_astext")
    return text


def check_value(col_type: str, name: str, v: Any, srid: int | None = None) -> bytes:
    """A value stored into spatial column ``name`` of type ``col_type``: internal-format bytes of the column's kind
    (and of its SRID attribute ``srid``, when it has one).

    Raises:
        MySQLError: 1416 (22003) "Cannot get geometry object from data you send to the GEOMETRY field" for bytes
            that are not a geometry or a geometry of another kind (``Field_geom::store``); 3643
            ER_WRONG_SRID_FOR_COLUMN for a geometry of another SRID.
    """
    raw = v if isinstance(v, bytes) else str(v).encode("utf-8", "surrogateescape")
    try:
        to_text(raw)
    except Exception:  # noqa: BLE001 - any undecodable value is the one MySQL error
        raise mysql_error(1416) from None
    want = GEOMETRY_CODES[col_type]
    (kind,) = struct.unpack_from("<I" if raw[4] == 1 else ">I", raw, 5)
    if want and kind != want:
        raise mysql_error(1416)
    (own,) = struct.unpack_from("<I", raw)
    if srid is not None and own != srid:
        raise mysql_error(3643, name, own, srid)
    return raw


#: SQLite UDFs (name -> (argument count, function)).
UDFS = {
    "ST_GEOMFROMTEXT": (-1, from_text),
    "ST_GEOMETRYFROMTEXT": (-1, from_text),
    "ST_ASTEXT": (1, to_text),
    "ST_ASWKT": (1, to_text),
}

register(*rows_from(UDFS))
