"""Which source column types a replica's applier takes into its own column types (``replica_type_conversions``).

Sources: MySQL manual "Replication with Differing Table Definitions on Source and Replica" (attribute promotion
and demotion); the facts of ``sql/rpl_utility.cc`` (``can_convert_field_to``, ``compare_lengths``,
``is_conversion_ok``) and the fields' ``compatible_field_size``; the oracle is mysql-test
``extra/rpl_tests/type_conversions.test`` (every row: source type, target type, value, and whether it converts
under '', ALL_NON_LOSSY, ALL_LOSSY).

Theory of operation
-------------------
An *order* compares the source column with the replica's, as MySQL does: ``0`` no conversion, ``-1`` the target
is larger (a non-lossy conversion), ``1`` the source is larger (a lossy one). A column converts when

* the real types are the same (ENUM / SET inside STRING, a pre-5.6.4 temporal type as its new form): the sizes
  decide the order (``compatible_field_size``: integer / float pack lengths, DECIMAL precision then scale,
  CHAR / VARCHAR byte lengths, BLOB / TEXT length bytes, BIT bits, ENUM / SET pack lengths);
* or, with ``replica_type_conversions`` not empty, both are in one family and the order comes from the maximum
  display lengths (``compare_lengths``): integers; FLOAT / DOUBLE / DECIMAL (DECIMAL to or from a float is
  always lossy); CHAR / VARCHAR / BLOB / TEXT (two different string types of the same length need ALL_NON_LOSSY).

and the order is allowed: ``-1`` needs ALL_NON_LOSSY, ``1`` needs ALL_LOSSY. Anything else stops the applier with
13146. ALL_SIGNED / ALL_UNSIGNED say how a promoted or demoted integer is read: signed (the default, and ALL_SIGNED
wins when both are set) or unsigned.
"""

from __future__ import annotations

from dataclasses import dataclass

from gtidkit.errors import MySQLError
from gtidkit.mysql_errors import mysql_error

__all__ = ["FLAGS", "Conversion", "Target", "compare_types", "conversion_error", "normalise_flags"]

#: ``replica_type_conversions``'s members, in ``sql/sys_vars.cc``'s order (SELECT shows them in this order; bit i
#: of a numeric value is member i)
FLAGS = ("ALL_LOSSY", "ALL_NON_LOSSY", "ALL_UNSIGNED", "ALL_SIGNED")

INTEGER_TYPES = (1, 2, 9, 3, 8)  # TINY, SHORT, INT24, LONG, LONGLONG
DECIMAL_TYPES = (246, 4, 5)  # NEWDECIMAL, FLOAT, DOUBLE
STRING_TYPES = (254, 15, 252)  # STRING (CHAR), VARCHAR, BLOB / TEXT

#: ``max_display_length_for_field`` of the integer types (signed, as the source is taken), and the target's
#: ``max_display_length`` (``field_length``: one digit less when unsigned, BIGINT 20 either way)
_INT_DISPLAY = {1: 4, 2: 6, 9: 9, 3: 11, 8: 20}
_UINT_DISPLAY = {1: 3, 2: 5, 9: 8, 3: 10, 8: 20}
#: pack lengths of the integer and float types (``Field::pack_length``)
_INT_BYTES = {1: 1, 2: 2, 9: 3, 3: 4, 8: 8}
_FLOAT_DISPLAY = {4: 12, 5: 22}


@dataclass(frozen=True, slots=True)
class Conversion:
    """How the applier stores one source column into the replica's column.

    Args:
        order: ``0`` none, ``-1`` non-lossy (target larger), ``1`` lossy (source larger).
        int_bytes: the source integer's width in bytes when an integer changes type (0 otherwise): the value is
            re-read as signed or unsigned of that width.
        unsigned: with ``int_bytes``: read the source integer as unsigned (ALL_UNSIGNED without ALL_SIGNED).
    """

    order: int
    int_bytes: int = 0
    unsigned: bool = False

    @property
    def converts(self) -> bool:
        """The value goes through the replica column's store (a type or size changes)."""
        return self.order != 0 or self.int_bytes != 0

    def read_integer(self, value: int) -> int:
        """The source integer as the flags read it (two's complement of ``int_bytes``)."""
        if not self.int_bytes:
            return value
        bits = 8 * self.int_bytes
        raw = value & ((1 << bits) - 1)
        if self.unsigned:
            return raw
        return raw - (1 << bits) if raw >> (bits - 1) else raw


def normalise_flags(value: object) -> str:
    """A ``replica_type_conversions`` value (comma list in any case and order, '' or a bitmask number) as MySQL
    stores and shows it: the members in :data:`FLAGS` order.

    Raises:
        MySQLError: 1231 naming the first unknown member (mysql-test rpl typeconv results: ``Variable
            'replica_type_conversions' can't be set to the value of 'NONEXISTING_BIT'``), or a number out of range.
    """
    if isinstance(value, bool) or value is None:
        raise mysql_error(1231, "replica_type_conversions", "NULL" if value is None else str(int(value)))
    if isinstance(value, int):
        if not 0 <= value < 1 << len(FLAGS):
            raise mysql_error(1231, "replica_type_conversions", str(value))
        return ",".join(f for i, f in enumerate(FLAGS) if value >> i & 1)
    given = [p.strip().upper() for p in str(value).split(",") if p.strip()]
    for name in given:
        if name not in FLAGS:
            raise mysql_error(1231, "replica_type_conversions", name)
    return ",".join(f for f in FLAGS if f in given)


def _compare(a: int, b: int) -> int:
    return (a > b) - (a < b)


@dataclass(frozen=True, slots=True)
class Target:
    """The replica column as the comparison needs it.

    Args:
        real_type: its binlog type code (ENUM 247 / SET 248 for those).
        meta: its own Table_map metadata (what it would write as a source).
        unsigned: an UNSIGNED integer.
        byte_length: CHAR / VARCHAR length in bytes; BLOB / TEXT maximum bytes (``max_display_length``).
    """

    real_type: int
    meta: bytes
    unsigned: bool = False
    byte_length: int = 0


def _display_length(code: int, meta: bytes) -> int:
    """``max_display_length_for_field`` of a source column from its type and Table_map metadata."""
    if code in _INT_DISPLAY:
        return _INT_DISPLAY[code]
    if code in _FLOAT_DISPLAY:
        return _FLOAT_DISPLAY[code]
    if code == 15:
        return int.from_bytes(meta[:2], "little")
    if code == 254:
        return _char_bytes(meta)
    if code == 252:
        return (1 << (8 * meta[0])) - 1 if meta else 0
    return 0


def _char_bytes(meta: bytes) -> int:
    """A CHAR's byte length from its two metadata bytes (the high bits folded into the type byte)."""
    if len(meta) < 2:
        return 0
    m0, m1 = meta
    return m1 | (((m0 & 0x30) ^ 0x30) << 4) if (m0 & 0x30) != 0x30 else m1


def _target_display(target: Target) -> int:
    if target.real_type in _INT_DISPLAY:
        return (_UINT_DISPLAY if target.unsigned else _INT_DISPLAY)[target.real_type]
    if target.real_type in _FLOAT_DISPLAY:
        return _FLOAT_DISPLAY[target.real_type]
    return target.byte_length


def _same_type_order(code: int, meta: bytes, target: Target) -> int:
    """``compatible_field_size``: the order of two columns of one real type."""
    if code == 246 and len(meta) == 2 and len(target.meta) == 2:  # precision first, then scale
        order = _compare(meta[0], target.meta[0])
        return order if order else _compare(meta[1], target.meta[1])
    if code == 16 and len(meta) == 2 and len(target.meta) == 2:  # BIT: bits
        return _compare(8 * meta[1] + meta[0], 8 * target.meta[1] + target.meta[0])
    if code == 254 or code in (247, 248):
        if code in (247, 248):  # ENUM / SET: the value's pack length
            return _compare(meta[1] if len(meta) > 1 else 0, target.meta[1] if len(target.meta) > 1 else 0)
        return _compare(_char_bytes(meta), _char_bytes(target.meta))
    if code == 15:
        return _compare(int.from_bytes(meta[:2], "little"), int.from_bytes(target.meta[:2], "little"))
    if meta and target.meta:  # BLOB / TEXT length bytes, FLOAT / DOUBLE pack length, fractional digits
        return _compare(meta[0], target.meta[0])
    return 0


def compare_types(code: int, meta: bytes, target: Target, flags: str) -> Conversion | None:
    """How a source column of real type ``code`` with Table_map metadata ``meta`` goes into ``target`` under the
    ``replica_type_conversions`` value ``flags`` (module docstring); None when it cannot (the applier's 13146).
    """
    members = set(flags.split(",")) if flags else set()
    if code == target.real_type:
        order = _same_type_order(code, meta, target)
        return Conversion(order) if _allowed(order, members) else None
    if not members:
        return None
    if code in INTEGER_TYPES and target.real_type in INTEGER_TYPES:
        order = _compare(_display_length(code, meta), _target_display(target))
        unsigned = "ALL_UNSIGNED" in members and "ALL_SIGNED" not in members
        conv = Conversion(order, int_bytes=_INT_BYTES[code], unsigned=unsigned)
        return conv if _allowed(order, members) else None
    if code in DECIMAL_TYPES and target.real_type in DECIMAL_TYPES:
        if 246 in (code, target.real_type):
            order = 1  # DECIMAL to or from a float: always lossy
        else:
            order = _compare(_display_length(code, meta), _target_display(target))
        return Conversion(order) if _allowed(order, members) else None
    if code in STRING_TYPES and target.real_type in STRING_TYPES:
        order = _compare(_display_length(code, meta), _target_display(target)) or -1
        return Conversion(order) if _allowed(order, members) else None
    return None


def _allowed(order: int, members: set[str]) -> bool:
    """``is_conversion_ok``: a non-lossy order needs ALL_NON_LOSSY, a lossy one ALL_LOSSY."""
    if order < 0:
        return "ALL_NON_LOSSY" in members
    if order > 0:
        return "ALL_LOSSY" in members
    return True


def conversion_error(column: int, schema: str, table: str, source: str, target: str) -> MySQLError:
    """ER_SERVER_REPLICA_CONVERSION_FAILED 13146 (names cut to 32 characters, as MySQL's buffers)."""
    return mysql_error(13146, column, schema, table, source[:32], target[:32])
