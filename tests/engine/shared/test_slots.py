"""The shared page's slot tables (engine/shared/slots.py): claim, release, the high-water mark, aligned search, and
the two tables built on them (GTID owners, waiters) through their public functions."""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path
from uuid import UUID

import pytest

from gtidkit.engine.shared import waiters
from gtidkit.engine.shared.owners import GtidOwners
from gtidkit.engine.shared.shm import Layout, SharedPage
from gtidkit.engine.shared.slots import SlotTable
from gtidkit.errors import MySQLError

_ROW = struct.Struct("=QQQQ")  # the owner table's 32-byte slots, read as four words


@pytest.fixture
def page(tmp_path: Path) -> Iterator[SharedPage]:
    p = SharedPage.create(tmp_path, Layout(owners=4, waiters=4))
    yield p
    p.close()


def _table(page: SharedPage) -> SlotTable:
    return SlotTable(page, page.layout.owner_table, 32, page.layout.owners, "owners_high")


def _fill(table: SlotTable, slot: int, first: int, second: int = 0) -> None:
    _ROW.pack_into(table.page.buf, table.offset(slot), first, second, 0, 0)


#: (slots claimed and filled, slots then released, the high-water mark after, the next claim)
CASES = [
    ("empty", 0, (), 0, 0),
    ("three in order", 3, (), 3, 3),
    ("release the top lowers the mark", 3, (2,), 2, 2),
    ("release the middle keeps it", 3, (1,), 3, 1),
    ("release all", 3, (2, 0, 1), 0, 0),
    ("release below a free one lowers past both", 3, (1, 2), 1, 1),
]


@pytest.mark.parametrize(
    ("claimed", "released", "high", "next_claim"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_claim_release_and_the_high_water_mark(
    page: SharedPage, claimed: int, released: tuple[int, ...], high: int, next_claim: int
) -> None:
    table = _table(page)
    with page.locked():
        for i in range(claimed):
            slot = table.claim_locked()
            assert slot == i
            _fill(table, slot, 100 + i)
        for slot in released:
            table.release_locked(slot)
        assert table.top() == high
        assert [s for s, _ in table.rows(_ROW)] == [i for i in range(claimed) if i not in released]
        assert table.claim_locked() == next_claim
        assert page.buf[table.offset(next_claim) : table.offset(next_claim) + 32] == bytes(32)


def test_a_full_table_answers_1041(page: SharedPage) -> None:
    table = _table(page)
    with page.locked():
        for i in range(4):
            _fill(table, table.claim_locked(), 7 + i)
        with pytest.raises(MySQLError) as err:
            table.claim_locked()
    assert err.value.code == 1041


def test_find_matches_slot_starts_only(page: SharedPage) -> None:
    table = _table(page)
    key = struct.pack("=Q", 42)
    with page.locked():
        _fill(table, table.claim_locked(), 5, 42)  # 42 inside slot 0, not at its start
        _fill(table, table.claim_locked(), 42)
    assert table.find(key) == 1
    assert table.find(struct.pack("=Q", 43)) == -1
    assert table.find(key, top=1) == -1  # only slots below top


def test_owners_and_waiters_on_the_slot_tables(page: SharedPage) -> None:
    sid = UUID(int=7)
    owners = GtidOwners(page, worker_id=1)
    for gno in (1, 2, 3, 4):
        assert owners.try_claim(sid, gno, connection_id=10 + gno) is None
    with pytest.raises(MySQLError) as err:  # Layout(owners=4): no fifth slot
        owners.try_claim(sid, 5, connection_id=20)
    assert err.value.code == 1041
    assert owners.release(sid, 2, connection_id=12)
    assert not owners.release(sid, 2, connection_id=12)  # nothing owned any more
    assert owners.try_claim(sid, 5, connection_id=20) is None  # the freed slot is reused
    assert [(o.gno, o.connection_id) for o in owners.owned()] == [(1, 11), (5, 20), (3, 13), (4, 14)]
    assert page.counter("owners_high").get() == 4
    with waiters.waiting(page, waiters.GTID, worker_id=1, connection_id=30, sid_index=0, gno=9):
        (w,) = waiters.waiters(page, waiters.GTID)
        assert (w.slot, w.connection_id, w.gno) == (0, 30, 9)
        assert page.counter("gtid_waiters").get() == 1
    assert waiters.waiters(page) == []
    assert page.counter("gtid_waiters").get() == 0
    assert page.counter("waiters_high").get() == 0


#: (leading words of the slots below the mark, 0 = free; the first free slot by the aligned read, -1 = none)
FREE_CASES = [
    ("none used", (), -1),
    ("all used", (5, 6, 7), -1),
    ("a hole", (5, 0, 7), 1),
    ("the first", (0, 6), 0),
    ("zeros inside used slots are not free", (5, 6), -1),
]


@pytest.mark.parametrize(("leading", "free"), [c[1:] for c in FREE_CASES], ids=[c[0] for c in FREE_CASES])
def test_free_below_reads_only_the_leading_words(
    page: SharedPage, leading: tuple[int, ...], free: int
) -> None:
    table = _table(page)
    for slot, word in enumerate(leading):
        _fill(
            table, slot, word
        )  # words 2-4 of every slot stay zero: a byte search for zeros would stop there
    assert table.free_below(len(leading)) == free


def test_keyed_locked_reads_the_slots_of_one_kind_and_key(tmp_path: Path) -> None:
    page = SharedPage.create(tmp_path, Layout(owners=4, waiters=8))
    try:
        fields = {"pid": 1, "address": b"a", "since": 0.0}
        rows = [
            (waiters.ROW_HOLD, 0, 11, 7, 100),
            (waiters.ROW_HOLD, 1, 12, 7, 0),
            (waiters.ROW_HOLD, 0, 13, 8, 100),
            (waiters.ROW_WAIT, 0, 14, 7, 100),
        ]
        with page.locked():
            for kind, worker, conn, table, gno in rows:
                waiters.register_locked(
                    page, kind, worker_id=worker, connection_id=conn, sid_index=table, gno=gno, **fields
                )
            assert waiters.keyed_locked(page, waiters.ROW_HOLD, 7) == [(0, 11, 100), (1, 12, 0)]
            assert waiters.keyed_locked(page, waiters.ROW_HOLD, 9) == []
            assert waiters.keyed_locked(page, waiters.ROW_WAIT, 7) == [(0, 14, 100)]
    finally:
        page.close()
