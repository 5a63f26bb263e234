"""Closed GNO intervals and the merge algorithms GtidSet runs on them.

Convention (as in GTID text and in ``mysql.gtid_executed``): an interval is ``start..end`` with BOTH ends
**inclusive**. MySQL's in-memory ``Gtid_set::Interval`` and the binary encoding use an exclusive end; that
``+1`` lives only in :mod:`gtidkit.gtid.encoding`.

A GtidSet keeps, per TSID, its intervals as one flat tuple of ints ``(s0, e0, s1, e1, ...)`` that is
*normalised*: ``1 <= s_i <= e_i`` and ``e_i + 1 < s_{i+1}`` (sorted, no overlap, no adjacency — MySQL merges
``1-3`` and ``4-5`` into ``1-5``; ``rpl_gtid_set.cc`` ``add_gno_interval``). Every function here takes and
returns normalised flat tuples and never expands GNOs, so cost is linear in the number of intervals.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import repeat
from operator import add, le, lt

#: Largest usable GNO: MySQL reserves INT64_MAX (2**63-1) as the exclusive bound (``GNO_END``).
MAX_GNO = 2**63 - 2

Flat = tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Interval:
    """A closed GNO range ``start..end`` (both inclusive), as printed in GTID text (``5-9``, or ``5``).

    Raises:
        ValueError: unless ``1 <= start <= end <= MAX_GNO``.
    """

    start: int
    end: int

    def __post_init__(self) -> None:
        if not (1 <= self.start <= self.end <= MAX_GNO):
            raise ValueError(
                f"invalid GNO interval {self.start}-{self.end} (need 1 <= start <= end <= {MAX_GNO})"
            )

    def __len__(self) -> int:
        return self.end - self.start + 1

    def __contains__(self, gno: object) -> bool:
        return isinstance(gno, int) and self.start <= gno <= self.end

    def __str__(self) -> str:
        return str(self.start) if self.start == self.end else f"{self.start}-{self.end}"


def is_normal(flat: Flat) -> bool:
    """True if ``flat`` (s0, e0, s1, e1, ...) is sorted, each ``s <= e``, and no two intervals touch."""
    starts = flat[0::2]
    ends = flat[1::2]
    if len(starts) != len(ends):
        return False
    if not all(map(le, starts, ends)):
        return False
    # e_i + 1 < s_{i+1}: adjacent intervals must have been merged.
    return all(map(lt, map(add, ends[:-1], repeat(1)), starts[1:]))


def normalize_pairs(pairs: Iterable[tuple[int, int]]) -> Flat:
    """Sort and merge closed ``(start, end)`` pairs (overlapping or adjacent ones coalesce) into a flat tuple.

    Pairs with ``end < start`` must have been dropped by the caller (MySQL ignores them silently).
    """
    ordered = sorted(pairs)
    if not ordered:
        return ()
    out: list[int] = []
    cs, ce = ordered[0]
    for s, e in ordered:
        if s <= ce + 1:
            ce = max(ce, e)
        else:
            out.append(cs)
            out.append(ce)
            cs, ce = s, e
    out.append(cs)
    out.append(ce)
    return tuple(out)


def normalize_flat(flat: Flat) -> Flat:
    """Return ``flat`` normalised (fast when it already is): sort and merge its ``(start, end)`` pairs."""
    if is_normal(flat):
        return flat
    return normalize_pairs(zip(flat[0::2], flat[1::2]))


def union(a: Flat, b: Flat) -> Flat:
    """Union of two normalised flat interval tuples.

    ::

        a:  [1----5]      [9--10]
        b:       [4--7]  [8]
        =   [1------7]   [8-----10]   -> merged again because 7+1 == 8 (adjacent) -> [1-10]
    """
    if not a:
        return b
    if not b or a == b:
        return a
    if a[-1] + 1 < b[0]:  # all of a strictly before b
        return a + b
    if a[-1] + 1 == b[0]:  # b starts right after a ends (a source's next GNOs): a's last and b's first join
        return a[:-1] + b[1:]
    if b[-1] + 1 < a[0]:
        return b + a
    if b[-1] + 1 == a[0]:
        return b[:-1] + a[1:]
    # sorted() on two sorted runs is a linear timsort merge.
    return normalize_pairs(list(zip(a[0::2], a[1::2])) + list(zip(b[0::2], b[1::2])))


def subtract(a: Flat, b: Flat) -> Flat:
    """``a - b`` for normalised flat interval tuples (two-pointer sweep).

    ::

        a:  [1---------10]
        b:      [4-5]   [9-------15]
        =   [1-3]   [6-8]
    """
    if not a or not b:
        return a
    if a == b:
        return ()
    if a[-1] < b[0] or b[-1] < a[0]:
        return a
    out: list[int] = []
    nb = len(b)
    j = 0
    for i in range(0, len(a), 2):
        s = a[i]
        e = a[i + 1]
        # skip b intervals that end before s
        while j < nb and b[j + 1] < s:
            j += 2
        k = j
        while k < nb and b[k] <= e:
            bs = b[k]
            be = b[k + 1]
            if bs > s:
                out.append(s)
                out.append(bs - 1)
            if be >= e:
                s = e + 1
                break
            s = be + 1
            k += 2
        if s <= e:
            out.append(s)
            out.append(e)
        j = max(j, k)
    return tuple(out)


def intersection(a: Flat, b: Flat) -> Flat:
    """``a & b`` for normalised flat interval tuples (two-pointer sweep).

    ::

        a:  [1-----6]   [9-12]
        b:     [3------------10]
        =      [3--6]   [9-10]
    """
    if not a or not b:
        return ()
    if a == b:
        return a
    if a[-1] < b[0] or b[-1] < a[0]:
        return ()
    out: list[int] = []
    i = j = 0
    na, nb = len(a), len(b)
    while i < na and j < nb:
        s = max(b[j], a[i])
        ae = a[i + 1]
        be = b[j + 1]
        e = min(be, ae)
        if s <= e:
            out.append(s)
            out.append(e)
        if ae < be:
            i += 2
        else:
            j += 2
    return tuple(out)


def is_subset(a: Flat, b: Flat) -> bool:
    """True if every GNO of ``a`` is in ``b`` (both normalised); binary search per interval of ``a``."""
    if not a or a == b:
        return True
    if not b or a[0] < b[0] or a[-1] > b[-1]:
        return False
    if len(b) == 2:
        return True
    # An a-interval [s, e] lies in b iff the first b-interval ending at or after e starts at or before s.
    # Its index is bisect_left(b_ends, e) (< len because a[-1] <= b[-1]). All loops run in C.
    owners = map(bisect_left, repeat(b[1::2]), a[1::2])
    return all(map(le, map(b[0::2].__getitem__, owners), a[0::2]))


def overlaps(a: Flat, b: Flat) -> bool:
    """True if ``a`` and ``b`` share at least one GNO."""
    if not a or not b or a[-1] < b[0] or b[-1] < a[0]:
        return False
    return bool(intersection(a, b))


def count(flat: Flat) -> int:
    """Number of GNOs in ``flat`` (sum of ``end - start + 1``), computed without expanding."""
    return sum(flat[1::2]) - sum(flat[0::2]) + len(flat) // 2


def contains_gno(flat: Flat, gno: int) -> bool:
    """True if ``gno`` lies in one of the closed intervals of ``flat``."""
    k = bisect_right(flat, gno)
    # k odd: gno falls after a start and before (or at) ... check exactly with the pair.
    if k % 2 == 1:
        return True
    # k even: gno equals an end (bisect_right moved past it) or lies in a gap.
    return k > 0 and flat[k - 1] == gno


def add_gno(flat: Flat, gno: int) -> Flat:
    """``flat`` with ``gno`` added, merging with neighbours (``1-3`` + 4 -> ``1-4``)."""
    if contains_gno(flat, gno):
        return flat
    return union(flat, (gno, gno))


def next_free(flat: Flat, start: int = 1) -> int:
    """Smallest GNO ``>= start`` not in ``flat`` (may exceed MAX_GNO; callers check)."""
    g = start
    k = bisect_right(flat, g)
    if k % 2 == 1:  # inside an interval
        return flat[k] + 1
    if k > 0 and flat[k - 1] == g:  # exactly at an interval end
        return g + 1
    return g


def pairs(flat: Flat) -> Iterable[tuple[int, int]]:
    """Iterate ``(start, end)`` closed pairs of a flat tuple."""
    return zip(flat[0::2], flat[1::2])
