"""The write-lock holds' ring in the shared page: what each of the last holds of the engine write lock committed to
the commit log, so the next holder catches up without reading SQLite (engine/follow.py, issue 21).

Every holder takes a hold number as it takes the lock (``write_lock_holds`` + 1, before it writes anything) and,
at its release, describes its hold in slot ``number % slots`` when it knows its commit-log rows exactly: none, or
one row (a row-format transaction with or without a GTID, or a GTID committed without the binary log). A slot is
nine 8-byte words: the hold number (written last; 0 while the slot is being written or when the hold is not
described), the row's kind (:data:`NO_ROW`, :data:`GTID_TRX`, :data:`ANONYMOUS_TRX`, :data:`LOST_GTID`), its
commit-log ``seq``, its GTID's UUID as two big-endian words and GNO, its binlog file number and end offset, and 1 +
the ``sequence_number`` of its Gtid event (0: unknown).

Only the write lock's holder writes a slot and only the next holders read them, under the same lock, so no page
lock is needed: the ``flock`` hand-off orders the accesses. A holder killed while writing leaves the slot's first
word 0 (no description), and one killed before describing leaves the slot of an older hold: in both cases the next
holder sees no description of that hold and reads the commit log.
"""

from __future__ import annotations

import struct

from gtidkit.engine.shared.shm import HOLD_SLOT, SharedPage

__all__ = ["ANONYMOUS_TRX", "GTID_TRX", "LOST_GTID", "NO_ROW", "describe", "described", "forget", "slots"]

#: a described hold's row kinds: none, a binlogged transaction with a GTID, an anonymous binlogged transaction, a
#: GTID committed without the binary log
NO_ROW, GTID_TRX, ANONYMOUS_TRX, LOST_GTID = 0, 1, 2, 3
_WORDS = HOLD_SLOT // 8
#: a slot's eight row words in the page's native order (the page's words are a native ``Q`` memoryview); written
#: and read in one call each (only under the write lock: the zero-fill of ``pack_into`` is seen by nobody)
_ROW = struct.Struct(f"={_WORDS - 1}Q")
_EMPTY = (NO_ROW, 0, 0, 0, 0, 0, 0, 0)


def describe(page: SharedPage, hold: int, row: tuple[int, ...] | None) -> None:
    """Describe ``hold`` (>= 1) in its slot (the caller holds the write lock and is that hold).

    Args:
        page: the mapped shared page.
        hold: the hold's number.
        row: its commit-log row as eight words (kind, seq, sid high, sid low, gno, file number, end offset,
            1 + sequence_number), or None when the hold committed no row.
    """
    base = _slot(page, hold)
    page.set_word(base, 0)
    _ROW.pack_into(page.buf, base + 8, *(row or _EMPTY))
    page.set_word(base, hold)


def forget(page: SharedPage, hold: int) -> None:
    """Leave ``hold`` undescribed (its holder wrote the commit log in a way a slot cannot say): its successors
    read the commit log. The caller holds the write lock and is that hold."""
    page.set_word(_slot(page, hold), 0)


def described(page: SharedPage, hold: int) -> tuple[int, ...] | None:
    """The eight row words of ``hold`` as its holder described it, or None when its slot does not describe it (not
    described, or overwritten by a later hold). The caller holds the write lock."""
    base = _slot(page, hold)
    if page.word(base) != hold:
        return None
    return _ROW.unpack_from(page.buf, base + 8)


def slots(page: SharedPage) -> int:
    """How many holds the ring describes at most."""
    return page.layout.holds


def _slot(page: SharedPage, hold: int) -> int:
    layout = page.layout
    return layout.hold_ring + HOLD_SLOT * (hold % layout.holds)
