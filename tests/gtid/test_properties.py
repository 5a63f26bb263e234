"""Hypothesis: set-algebra laws, text and binary round trips, and fuzzed input raising only GtidParseError."""

from __future__ import annotations

from uuid import UUID

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gtidkit.errors import GtidParseError
from gtidkit.gtid import MAX_GNO, Gtid, GtidSet
from gtidkit.gtid.gtid_set import _finish, _parse_slow

SIDS = [UUID(int=i * 0x0101_0101_0101_0101_0101_0101_0101_0101 + 7) for i in range(4)]
TAGS = ["", "", "a", "tag_2"]

gnos = st.one_of(st.integers(1, 40), st.integers(MAX_GNO - 3, MAX_GNO))
rows = st.tuples(st.sampled_from(SIDS), st.sampled_from(TAGS), gnos, st.integers(0, 6)).map(
    lambda r: (r[0], r[1], r[2], min(r[2] + r[3], MAX_GNO))
)
gtid_sets = st.lists(rows, max_size=12).map(GtidSet.from_intervals)
fast = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def model(s: GtidSet) -> set[tuple[UUID, str, int]]:
    """Brute-force model: the set of (sid, tag, gno) (GNO ranges are kept small, except near MAX_GNO)."""
    return {(sid, tag, g) for sid, tag, a, b in s.intervals() for g in range(a, b + 1)}


@fast
@given(gtid_sets, gtid_sets)
def test_operations_match_the_model(a: GtidSet, b: GtidSet) -> None:
    ma, mb = model(a), model(b)
    assert model(a | b) == ma | mb
    assert model(a - b) == ma - mb
    assert model(a & b) == ma & mb
    assert model(a ^ b) == ma ^ mb
    assert (a <= b) == (ma <= mb)
    assert (a < b) == (ma < mb)
    assert a.isdisjoint(b) == (not ma & mb)
    assert (a == b) == (ma == mb)
    assert len(a) == len(ma)


@fast
@given(gtid_sets, gtid_sets, gtid_sets)
def test_algebra_laws(a: GtidSet, b: GtidSet, c: GtidSet) -> None:
    assert a | b == b | a and a & b == b & a
    assert (a | b) | c == a | (b | c) and (a & b) & c == a & (b & c)
    assert a & (b | c) == (a & b) | (a & c)
    assert a - (b | c) == (a - b) & (a - c)  # De Morgan
    assert a - (b & c) == (a - b) | (a - c)
    assert (a - b).isdisjoint(b) and (a - b) | (a & b) == a
    assert (a <= b) == (a | b == b) == (a & b == a) == (not (a - b))
    assert len(a | b) == len(a) + len(b) - len(a & b)
    assert a | a == a and a & a == a and not (a - a)
    assert a <= a | b and a & b <= a
    if a == b:
        assert hash(a) == hash(b)


@fast
@given(gtid_sets, gtid_sets)
def test_in_place_variants_match(a: GtidSet, b: GtidSet) -> None:
    u = GtidSet.parse(str(a))
    u.union_in_place(b)
    assert u == a | b and str(u) == str(a | b)
    d = GtidSet.parse(str(a))
    d.subtract_in_place(b)
    assert d == a - b and str(d) == str(a - b)
    g = GtidSet.parse(str(a))
    for sid, tag, s, e in b.intervals():
        for gno in range(s, min(e, s + 3) + 1):
            g.add_in_place(sid, tag, gno)
            assert Gtid(sid, gno, tag) in g
    assert a <= g


@fast
@given(gtid_sets, st.sampled_from([",", ",\n", ", "]))
def test_text_round_trip(s: GtidSet, sep: str) -> None:
    assert GtidSet.parse(str(s)) == s
    assert GtidSet.parse(s.to_text(sep)) == s
    assert GtidSet.parse(s.to_text(sep).upper()) == s
    assert str(GtidSet.parse(str(s))) == str(s)
    assert _finish(_parse_slow(s.to_text(sep))) == s._map


@fast
@given(gtid_sets, st.booleans())
def test_binary_round_trip(s: GtidSet, force_tagged: bool) -> None:
    tagged = True if force_tagged else None
    data = s.encode(tagged=tagged)
    assert GtidSet.decode(data) == s
    assert GtidSet.decode_prefix(data + b"\x01\x02") == (s, len(data))
    assert GtidSet.decode(data).encode(tagged=tagged) == data


@fast
@given(gtid_sets)
def test_from_intervals_round_trip(s: GtidSet) -> None:
    assert GtidSet.from_intervals(s.intervals()) == s
    assert GtidSet.from_gtids(Gtid(sid, g, tag) for sid, tag, a, b in s.intervals() for g in (a, b)) <= s


TEXT_ALPHABET = st.sampled_from(
    list("0123456789abcdefABCDEFxX:-, \n\t_tagzZ+\0;") + ["aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa"]
)


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.text(max_size=60), st.lists(TEXT_ALPHABET, max_size=25).map("".join)))
def test_fuzzed_text_raises_only_gtid_parse_error(text: str) -> None:
    try:
        s = GtidSet.parse(text)
    except GtidParseError as err:
        assert err.code == 1772 and err.text == text
        assert err.position is not None and 0 <= err.position <= len(text)
        return
    # whatever parsed re-parses to itself, and the careful parser agrees with the fast paths
    assert GtidSet.parse(str(s)) == s
    assert _finish(_parse_slow(text)) == s._map


@settings(max_examples=200, deadline=None)
@given(st.lists(TEXT_ALPHABET, max_size=12).map("".join))
def test_fuzzed_gtid_text_raises_only_gtid_parse_error(text: str) -> None:
    try:
        g = Gtid.parse(text)
    except GtidParseError as err:
        assert err.code == 1774
        return
    assert Gtid.parse(str(g)) == g


@settings(max_examples=400, deadline=None)
@given(
    st.one_of(
        st.binary(max_size=120),
        gtid_sets.map(lambda s: s.encode()).flatmap(
            lambda data: st.tuples(st.integers(0, len(data)), st.integers(0, 255), st.booleans()).map(
                lambda m: (data[: m[0]] + bytes([m[1]]) + data[m[0] + 1 :]) if m[2] else data[: m[0]]
            )
        ),
    )
)
def test_fuzzed_bytes_raise_only_gtid_parse_error(data: bytes) -> None:
    try:
        s = GtidSet.decode(data)
    except GtidParseError as err:
        assert err.code == 1773
        return
    assert GtidSet.decode(s.encode()) == s


MUTATION_CHARS = st.sampled_from(list(":-,0123456789 \nxeE_t"))


@settings(max_examples=400, deadline=None)
@given(
    gtid_sets.filter(bool),
    st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 2), MUTATION_CHARS), min_size=1, max_size=4),
)
def test_mutated_text_fast_and_careful_parsers_agree(s: GtidSet, edits: list[tuple[int, int, str]]) -> None:
    """Differential check: small edits of valid text must get the same answer from every parsing path."""
    text = list(str(s))
    for where, kind, ch in edits:
        i = where % (len(text) + 1)
        if kind == 0:
            text.insert(i, ch)
        elif kind == 1 and i < len(text):
            del text[i]
        elif i < len(text):
            text[i] = ch
    mutated = "".join(text)
    try:
        careful = _finish(_parse_slow(mutated))
    except GtidParseError as err:
        try:
            GtidSet.parse(mutated)
        except GtidParseError as err2:
            assert (err2.message, err2.position) == (err.message, err.position)
        else:
            raise AssertionError(f"fast path accepted what MySQL rejects: {mutated!r}")
        return
    assert GtidSet.parse(mutated)._map == careful
