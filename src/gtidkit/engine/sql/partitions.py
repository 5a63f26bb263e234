"""Partition ids of rows in partitioned tables, for the partition information MySQL 8.0.16+ writes into rows
events (WL#12168): a v2 rows event's extra data ``PART (1) | partition_id (2 LE)``, plus ``source_partition_id
(2 LE)`` in an Update_rows event (the old row's partition), and one event per run of rows in the same partition.

The partitioning kinds computed here are those whose function is one integer column: ``[LINEAR] HASH(col)``,
``RANGE (col)`` and ``LIST (col)`` (RM8 24.2 "Partitioning Types": HASH is ``MOD(expr, num)``; LINEAR HASH the
powers-of-two algorithm of 24.2.4.1; RANGE the first partition whose ``VALUES LESS THAN`` bound exceeds the value,
NULL lowest; LIST the partition listing the value). KEY partitioning, expressions, RANGE/LIST COLUMNS and
subpartitions use MySQL's own hashing or more: their rows events carry no partition information here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

__all__ = ["Scheme", "extra_data", "scheme_of"]

#: enum_extra_row_info_keylen::PART
_PART = 1
_COL = r"`?(\w+)`?"
_HASH = re.compile(
    rf"^PARTITION\s+BY\s+(LINEAR\s+)?HASH\s*\(\s*{_COL}\s*\)\s*(?:PARTITIONS\s+(\d+))?\s*$", re.IGNORECASE
)
_RANGE_LIST = re.compile(
    rf"^PARTITION\s+BY\s+(RANGE|LIST)\s*\(\s*{_COL}\s*\)\s*\((.*)\)\s*$", re.IGNORECASE | re.DOTALL
)
_RANGE_PART = re.compile(
    r"PARTITION\s+\w+\s+VALUES\s+LESS\s+THAN\s*(?:\(\s*([-+]?\d+)\s*\)|(MAXVALUE))", re.IGNORECASE
)
_LIST_PART = re.compile(r"PARTITION\s+\w+\s+VALUES\s+IN\s*\(([^)]*)\)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Scheme:
    """A partitioning this module computes: kind (``hash``, ``linear``, ``range``, ``list``), the column's
    position, the partition count, and per partition its RANGE bound (None = MAXVALUE) or LIST values."""

    kind: str
    column: int
    count: int
    bounds: tuple[Any, ...] = ()

    def partition(self, row: tuple[Any, ...]) -> int | None:
        """The partition id of a row (storage form), or None when no partition takes it."""
        v = row[self.column]
        if self.kind in ("hash", "linear"):
            n = abs(int(v)) if v is not None else 0
            if self.kind == "hash":
                return n % self.count
            power = 1
            while power < self.count:
                power <<= 1
            part = n & (power - 1)
            while part >= self.count:
                power >>= 1
                part &= power - 1
            return part
        if self.kind == "range":
            for i, bound in enumerate(self.bounds):
                if v is None or bound is None or int(v) < bound:
                    return i
            return None
        for i, values in enumerate(self.bounds):
            if v in values:
                return i
        return None


def scheme_of(clause: str, column_names: tuple[str, ...]) -> Scheme | None:
    """The :class:`Scheme` of a ``PARTITION BY`` clause, or None for a kind this module does not compute."""
    names = [n.lower() for n in column_names]
    m = _HASH.match(clause.strip())
    if m:
        if m.group(2).lower() not in names:
            return None
        return Scheme(
            "linear" if m.group(1) else "hash", names.index(m.group(2).lower()), int(m.group(3) or 1)
        )
    m = _RANGE_LIST.match(clause.strip())
    if m is None or m.group(2).lower() not in names or re.search(r"SUBPARTITION", clause, re.IGNORECASE):
        return None
    col = names.index(m.group(2).lower())
    if m.group(1).upper() == "RANGE":
        bounds = tuple(None if mx else int(b) for b, mx in _RANGE_PART.findall(m.group(3)))
        return Scheme("range", col, len(bounds), bounds) if bounds else None
    lists = tuple(
        frozenset(None if x.strip().upper() == "NULL" else int(x) for x in part.split(",") if x.strip())
        for part in _LIST_PART.findall(m.group(3))
    )
    return Scheme("list", col, len(lists), lists) if lists else None


def extra_data(partition: int, source: int | None = None) -> bytes:
    """A rows event's extra data for rows of ``partition`` (and, for an update, the old rows' ``source``)."""
    out = bytes([_PART]) + partition.to_bytes(2, "little")
    return out if source is None else out + source.to_bytes(2, "little")
