"""The merge algorithms on flat closed-interval tuples (each checked against a brute-force GNO model)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gtidkit.gtid import MAX_GNO, Interval
from gtidkit.gtid import interval as iv


def flat_of(gnos: set[int]) -> tuple[int, ...]:
    return iv.normalize_pairs((g, g) for g in gnos)


def gnos_of(flat: tuple[int, ...]) -> set[int]:
    return {g for s, e in iv.pairs(flat) for g in range(s, e + 1)}


small_sets = st.sets(st.integers(1, 60), max_size=40)


@given(small_sets.filter(bool), small_sets, st.booleans())
def test_union_of_adjacent_runs(a: set[int], rest: set[int], swap: bool) -> None:
    """b starting at a's last GNO + 1 (the next GNOs of a source, the catch-up's common case) merges the two
    intervals that touch, in either order."""
    top = max(a)
    b = {top + 1} | {top + 1 + g for g in rest}
    fa, fb = flat_of(a), flat_of(b)
    u = iv.union(fb, fa) if swap else iv.union(fa, fb)
    assert gnos_of(u) == a | b and iv.is_normal(u)


@given(small_sets, small_sets)
def test_against_gno_model(a: set[int], b: set[int]) -> None:
    fa, fb = flat_of(a), flat_of(b)
    assert iv.is_normal(fa) and gnos_of(fa) == a
    assert gnos_of(iv.union(fa, fb)) == a | b and iv.is_normal(iv.union(fa, fb))
    assert gnos_of(iv.subtract(fa, fb)) == a - b and iv.is_normal(iv.subtract(fa, fb))
    assert gnos_of(iv.intersection(fa, fb)) == a & b and iv.is_normal(iv.intersection(fa, fb))
    assert iv.is_subset(fa, fb) == (a <= b)
    assert iv.overlaps(fa, fb) == bool(a & b)
    assert iv.count(fa) == len(a)
    for g in range(62):
        assert iv.contains_gno(fa, g) == (g in a)
        if g >= 1:
            want = min(x for x in range(g, 200) if x not in a)
            assert iv.next_free(fa, g) == want
            assert gnos_of(iv.add_gno(fa, g)) == a | {g}


@pytest.mark.parametrize(
    "flat, normal",
    [
        ((), True),
        ((1, 1), True),
        ((1, 3, 5, 6), True),
        ((1, 3, 4, 6), False),
        ((1, 3, 3, 6), False),
        ((3, 1), False),
        ((5, 6, 1, 2), False),
        ((1, 2, 3), False),
    ],
)
def test_is_normal(flat: tuple[int, ...], normal: bool) -> None:
    assert iv.is_normal(flat) is normal


def test_interval_value() -> None:
    i = Interval(3, 5)
    assert len(i) == 3 and 4 in i and 6 not in i and str(i) == "3-5" and str(Interval(7, 7)) == "7"
    for bad in [(0, 1), (2, 1), (1, MAX_GNO + 1)]:
        with pytest.raises(ValueError):
            Interval(*bad)
