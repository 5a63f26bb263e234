"""A table of fixed-size slots in the shared page: where slot ``i`` lives, which slots are used, claiming a free one
and releasing one, with the table's high-water mark.

The GTID-owner table (:mod:`.owners`) and the waiter table (:mod:`.waiters`) are such tables: ``capacity`` slots of
``size`` bytes from ``base``, a slot used while its first 8-byte word is not 0 (an owned GNO; a waiter's kind and
worker id), and a page counter ``high`` one past the highest used slot, so that readers copy only ``high`` slots and
a claim finds the first free one with one C-speed search (``mmap.find`` of an all-zero word at a slot boundary).
Every change happens under the page lock (``page.locked()``); the ``_locked`` methods expect it held. Claiming
leaves the slot zeroed: the caller writes it in the same critical section.

Sources: InnoDB's lock-wait table (``lock_wait_table`` of ``storage/innobase/lock/lock0wait.cc``, one slot per
suspended thread, a slot free when its thread pointer is null) and MySQL's ``Owned_gtids`` (``sql/rpl_gtid_owned.cc``).
"""

from __future__ import annotations

import struct
from typing import Any

from gtidkit.engine.shared.shm import SharedPage
from gtidkit.mysql_errors import mysql_error

__all__ = ["TABLES", "SlotTable", "table"]

#: the leading word of a free slot
_FREE = bytes(8)


class SlotTable:
    """One slot table of the shared page.

    Args:
        page: the mapped shared page.
        base: byte offset of slot 0 (8-byte aligned).
        size: bytes per slot (a multiple of 8).
        capacity: how many slots there are.
        high: the name of the page counter holding the high-water mark.
    """

    __slots__ = ("_high", "base", "capacity", "page", "size")

    def __init__(self, page: SharedPage, base: int, size: int, capacity: int, high: str) -> None:
        self.page = page
        self.base = base
        self.size = size
        self.capacity = capacity
        self._high = page.counter(high)

    def offset(self, slot: int) -> int:
        """The byte offset of ``slot`` in the page."""
        return self.base + slot * self.size

    def top(self) -> int:
        """The high-water mark: no slot at or above it is used (lock-free read)."""
        return self._high.get()

    def rows(self, layout: struct.Struct) -> list[tuple[int, tuple[Any, ...]]]:
        """``(slot, fields)`` of every used slot below the high-water mark (its first field, the leading word, is
        not 0), its bytes unpacked with ``layout`` (whose size is the slot size). Page lock held, or the caller
        accepts a racy view."""
        raw = self.page.buf[self.base : self.base + self.top() * self.size]
        return [(i, row) for i, row in enumerate(layout.iter_unpack(raw)) if row[0]]

    def unpack_used(self, layout: struct.Struct) -> list[tuple[Any, ...]]:
        """The fields of every slot below the high-water mark unpacked with ``layout`` (the slot's size; free
        slots included: their first field is 0, which callers filter on). Page lock held, or a racy view."""
        return list(layout.iter_unpack(self.page.buf[self.base : self.base + self.top() * self.size]))

    def find(self, key: bytes, top: int | None = None) -> int:
        """The first slot below ``top`` (the high-water mark by default) whose leading bytes are ``key``, or -1."""
        start = self.base
        end = start + (self.top() if top is None else top) * self.size
        buf = self.page.buf
        at = buf.find(key, start, end)
        while at >= 0 and (at - start) % self.size:
            at = buf.find(key, at + 1, end)
        return -1 if at < 0 else (at - start) // self.size

    def free_below(self, top: int) -> int:
        """The first slot below ``top`` whose leading word is 0 (free), or -1: the slots' leading words read at
        their stride (:meth:`find` of zero bytes stops at every zero inside a used slot)."""
        if not top:
            return -1
        first = self.base // 8
        step = self.size // 8
        leading = self.page.words[first : first + top * step : step].tolist()
        # no exception on the common "all used" answer (a raised ValueError costs more than the search)
        return leading.index(0) if 0 in leading else -1

    def claim_locked(self) -> int:
        """A free slot (the first one below the high-water mark, else the next one, which raises the mark); its
        bytes are zero for the caller to fill.

        Raises:
            MySQLError: 1041 ER_OUT_OF_RESOURCES when every slot is used.
        """
        top = self.top()
        slot = self.free_below(top)
        if slot < 0:
            slot = top
        if slot >= self.capacity:
            raise mysql_error(1041)
        if slot == top:
            self._high.set(top + 1)
        return slot

    def release_locked(self, slot: int) -> None:
        """Zero ``slot`` and lower the high-water mark past the free slots below it."""
        page = self.page
        at = self.offset(slot)
        page.buf[at : at + self.size] = bytes(self.size)
        self.lower_high_locked()

    def lower_high_locked(self) -> None:
        """Lower the high-water mark past the free slots at the table's top (after slots were zeroed)."""
        page = self.page
        top = self.top()
        while top and not page.word(self.offset(top - 1)):
            top -= 1
        self._high.set(top)


#: the page's slot tables: name -> (Layout attribute of slot 0's offset, Layout attribute of the capacity, bytes per
#: slot, the high-water counter)
TABLES = {
    "owners": ("owner_table", "owners", 32, "owners_high"),
    "waiters": ("waiter_table", "waiters", 64, "waiters_high"),
}


def table(page: SharedPage, name: str) -> SlotTable:
    """The slot table ``name`` (a key of :data:`TABLES`) of ``page``.

    Raises:
        KeyError: no such table.
    """
    base, capacity, size, high = TABLES[name]
    return SlotTable(page, getattr(page.layout, base), size, getattr(page.layout, capacity), high)
