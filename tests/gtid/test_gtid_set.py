"""Table tests for GtidSet text parsing, formatting and algebra (Vitess mysql56_gtid_set_test.go style)."""

from __future__ import annotations

from uuid import UUID

import pytest

from gtidkit.errors import GtidParseError, MySQLError
from gtidkit.gtid import MAX_GNO, Gtid, GtidSet, parse_tsids
from gtidkit.gtid.gtid_set import _finish, _parse_fast, _parse_plain, _parse_slow

A = "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa"
B = "bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb"
C = "00000000-0000-0000-0000-00000000000c"
SID_A = UUID(A)


def P(text: str) -> GtidSet:
    return GtidSet.parse(text)


# input -> MySQL's normalised single-line form
PARSE_OK = {
    "": "",
    "   ": "",
    ",": "",
    ",,, ,\n,": "",
    f"{A}:1-5": f"{A}:1-5",
    f"{A.upper()}:1-5": f"{A}:1-5",
    f"{A}:5": f"{A}:5",
    f"{A}:5-5": f"{A}:5",
    f"{A}:1-3:4-6": f"{A}:1-6",  # adjacent intervals merge
    f"{A}:4-6:1-3": f"{A}:1-6",
    f"{A}:1-10:3-4": f"{A}:1-10",
    f"{A}:1-3,{A}:5": f"{A}:1-3:5",  # repeated UUID
    f"{B}:1,{A}:2": f"{A}:2,{B}:1",  # sorted by UUID bytes
    f"{A}:1,\n{B}:2": f"{A}:1,{B}:2",
    f"{A}:1-2,": f"{A}:1-2",  # trailing comma: an empty element
    f",{A}:1-2,,{B}:3,": f"{A}:1-2,{B}:3",
    f"  {A} : 1 - 3 : 7 ,  {B}:2  ": f"{A}:1-3:7,{B}:2",
    f"\t{A}:1\r\n,\v{B}:2\f": f"{A}:1,{B}:2",
    f"{A}:5-4": "",  # end < start silently ignored
    f"{A}:1-3:5-4": f"{A}:1-3",
    f"{A}:1-": "",  # strtoll converts nothing: end 0, an empty interval
    f"{A}:1-:3": f"{A}:3",
    f"{A}": "",  # bare UUID
    f"{A},{B}:1": f"{B}:1",
    f"{A}:0x1F": f"{A}:31",  # strtoll base 0: hex
    f"{A}:0X1f-0x20": f"{A}:31-32",
    f"{A}:017": f"{A}:15",  # leading 0: octal
    f"{A}:1-010": f"{A}:1-8",
    f"{A}:+5": f"{A}:5",  # strtoll takes a sign
    f"{A}:1--0": "",  # end "-0" reads as 0: the interval 1..0 is empty and ignored
    f"{A}:{MAX_GNO}": f"{A}:{MAX_GNO}",
    f"{A}:1-{MAX_GNO}": f"{A}:1-{MAX_GNO}",
    f"{A}:tag:1-3": f"{A}:tag:1-3",
    f"{A}:TaG:1-3": f"{A}:tag:1-3",
    f"{A}: tag :1-3": f"{A}:tag:1-3",
    f"{A}:t2:1:t1:2:3": f"{A}:t1:2-3:t2:1",
    f"{A}:x:1,{A}:2": f"{A}:2:x:1",  # untagged first within a UUID
    f"{A}:x:1: :2": f"{A}:2:x:1",  # MySQL quirk: whitespace-only tag switches back to untagged
    f"{A}:tag": "",
    f"{A}:_:1": f"{A}:_:1",
    f"{A}:{'a' * 32}:1": f"{A}:{'a' * 32}:1",
    f"{A}:1\0garbage": f"{A}:1",  # MySQL reads a C string
    f"{A}:1:  ": f"{A}:1",  # trailing ':' then spaces reads as an empty tag (MySQL quirk)
}

PARSE_BAD = {
    "x": 0,
    f"{A}:": 37,
    f"{A}:1:": 39,
    f"{A}::1": 37,
    f"{A}:0": 37,
    f"{A}:0-1": 37,
    f"{A}:-1": 37,
    f"{A}:1--1": 39,
    f"{A}:1-2-3": 40,
    f"{A}:1-2:3-4-5:6": 44,  # the extra dash must not pair up with the single GNO
    f"{A}:7:1-2-3": 42,
    f"{A}:1-2-3:7,{B}:9": 40,
    f"{A}:1 2": 39,
    f"{A} x": 37,
    f"{A}:{MAX_GNO + 1}": 37,
    f"{A}:1-{MAX_GNO + 1}": 39,
    f"{A}:99999999999999999999999": 37,
    f"{A}:99999999999999999999-1": 37,  # out of range even where the interval would be ignored (m < n)
    f"{A}:{MAX_GNO + 1}-1,{B}:1": 37,
    f"{A}:1-5:{2**64}": 41,
    f"{A}:08": 37,  # octal: strtoll reads "0" and stops at "8": GNO 0
    f"{A}:1,x": 39,
    f"{A}:{'a' * 33}:1": 37,
    f"{A}:1a:2": 38,
    f"{A}:tag.x:1": 37,
    A[:-1]: 0,
    A.replace("-", "", 1) + "a:1": 0,
    f"{{{A}}}:1": 0,
    f"{A}:1 {B}:1": 39,  # space-separated sets
    f"{A}:1;{B}:1": 38,
    "  bad": 2,
}


@pytest.mark.parametrize("text, want", PARSE_OK.items(), ids=[repr(k) for k in PARSE_OK])
def test_parse_ok(text: str, want: str) -> None:
    s = P(text)
    assert str(s) == want
    assert P(str(s)) == s  # identity round trip
    assert _finish(_parse_slow(text)) == s._map  # the careful parser agrees with whichever path ran


@pytest.mark.parametrize("text, position", PARSE_BAD.items(), ids=[repr(k) for k in PARSE_BAD])
def test_parse_bad(text: str, position: int) -> None:
    with pytest.raises(GtidParseError) as exc:
        P(text)
    err = exc.value
    assert err.code == 1772 and err.sqlstate == "HY000"
    assert err.message == f"Malformed GTID set specification '{text.lstrip()}'."
    assert err.text == text
    assert err.position == position
    assert isinstance(err, ValueError)
    assert str(err) == f"ERROR 1772 (HY000): Malformed GTID set specification '{text.lstrip()}'."


def test_error_message_truncates_at_200_bytes() -> None:
    text = f"{A}:1," + "z" * 500
    with pytest.raises(GtidParseError) as exc:
        P(text)
    assert exc.value.message == f"Malformed GTID set specification '{text[:200]}'."


def test_parse_rejects_non_str() -> None:
    with pytest.raises(TypeError):
        GtidSet.parse(b"x")  # type: ignore[arg-type]


def test_fast_paths_decline_what_they_do_not_understand() -> None:
    assert _parse_plain(f"{A}:017") is None  # octal
    assert _parse_plain(f"{A}:1e5") is None  # JSON would read an exponent
    assert _parse_plain(f"{A}:tag:1") is None
    assert _parse_plain(f"{A}:1-2-3") is None
    assert _parse_plain(f"{A}:1-2:3-4-5:6") is None
    assert _parse_plain(f"{A}:1::2") is None
    assert _parse_fast(f"{A}: 1") is None
    assert _parse_plain(f"{A}:1-5:7,{B}:3") == {(SID_A.bytes, ""): (1, 5, 7, 7), (UUID(B).bytes, ""): (3, 3)}


def test_parse_tsids_keeps_tsids_without_gtids() -> None:
    got = parse_tsids(f"{B}:x:1-2, {A}, {A}:y ,,")
    assert got == [(SID_A, "", []), (SID_A, "y", []), (UUID(B), "x", [(1, 2)])]


# ---- formatting --------------------------------------------------------------------------------------


def test_to_text_formats() -> None:
    s = P(f"{B}:1-3,{A}:5:t:1")
    assert str(s) == f"{A}:5:t:1,{B}:1-3"
    assert s.to_text() == f"{A}:5:t:1,\n{B}:1-3"
    assert s.to_text(separator=",") == str(s)
    assert s.to_text(commented=True) == f"# {A}:5:t:1,\n# {B}:1-3"
    assert GtidSet().to_text(commented=True) == "# [empty]"
    assert GtidSet().to_text() == "" == str(GtidSet())
    assert repr(s) == f"GtidSet.parse('{A}:5:t:1,{B}:1-3')"


def test_intervals_tsids_sids() -> None:
    s = P(f"{B}:1-3:7,{A}:z:1,{A}:5")
    assert list(s.intervals()) == [
        (SID_A, "", 5, 5),
        (SID_A, "z", 1, 1),
        (UUID(B), "", 1, 3),
        (UUID(B), "", 7, 7),
    ]
    assert s.tsids() == [(SID_A, ""), (SID_A, "z"), (UUID(B), "")]
    assert s.sids() == [SID_A, UUID(B)]
    assert GtidSet.from_intervals(s.intervals()) == s


def test_from_intervals_and_gtids() -> None:
    s = GtidSet.from_intervals([(A, "", 4, 6), (SID_A, "", 1, 3), (SID_A.bytes, "T", 9, 9)])
    assert str(s) == f"{A}:1-6:t:9"
    assert GtidSet.from_gtids([Gtid(SID_A, 2), Gtid(SID_A, 1), Gtid(SID_A, 3, "t")]) == P(f"{A}:1-2:t:3")
    for bad in [
        (A, "", 0, 1),
        (A, "", 3, 2),
        (A, "", 1, MAX_GNO + 1),
        (A, "bad-tag", 1, 1),
        ("nope", "", 1, 1),
    ]:
        with pytest.raises(ValueError):
            GtidSet.from_intervals([bad])


# ---- algebra tables ----------------------------------------------------------------------------------

UNION = [
    ("", "", ""),
    (f"{A}:1-5", "", f"{A}:1-5"),
    (f"{A}:1-5", f"{A}:6-9", f"{A}:1-9"),
    (f"{A}:1-5", f"{A}:7-9", f"{A}:1-5:7-9"),
    (f"{A}:1-5:10-20", f"{A}:3-12", f"{A}:1-20"),
    (f"{A}:1:3:5", f"{A}:2:4", f"{A}:1-5"),
    (f"{A}:1-5", f"{B}:1-5", f"{A}:1-5,{B}:1-5"),
    (f"{A}:1-5", f"{A}:t:1-5", f"{A}:1-5:t:1-5"),
    (f"{A}:20-30", f"{A}:1-2", f"{A}:1-2:20-30"),
]
SUBTRACT = [
    (f"{A}:1-10", f"{A}:4-5", f"{A}:1-3:6-10"),
    (f"{A}:1-10", f"{A}:1-10", ""),
    (f"{A}:1-10", f"{A}:0x1-0x2:9-20", f"{A}:3-8"),
    (f"{A}:1-10:20-30", f"{A}:5-25", f"{A}:1-4:26-30"),
    (f"{A}:1-10", f"{B}:1-10", f"{A}:1-10"),
    (f"{A}:1-10:t:1-3", f"{A}:t:2", f"{A}:1-10:t:1:3"),
    (f"{A}:1:3:5:7", f"{A}:2-6", f"{A}:1:7"),
    (f"{A}:5-6", f"{A}:1-2:8-9", f"{A}:5-6"),
    ("", f"{A}:1", ""),
]
INTERSECTION = [
    (f"{A}:1-10", f"{A}:5-20", f"{A}:5-10"),
    (f"{A}:1-3:7-9", f"{A}:2-8", f"{A}:2-3:7-8"),
    (f"{A}:1-3", f"{A}:4-6", ""),
    (f"{A}:1-3", f"{B}:1-3", ""),
    (f"{A}:1-3:t:1-3", f"{A}:t:2-9", f"{A}:t:2-3"),
]


@pytest.mark.parametrize("a, b, want", UNION, ids=[f"{a!r}|{b!r}" for a, b, _ in UNION])
def test_union(a: str, b: str, want: str) -> None:
    sa, sb = P(a), P(b)
    assert str(sa | sb) == want and str(sb | sa) == want
    assert str(sa.union(sb)) == want
    assert (str(sa), str(sb)) == (str(P(a)), str(P(b)))  # receivers untouched
    m = P(a)
    m.union_in_place(sb)
    assert str(m) == want


@pytest.mark.parametrize("a, b, want", SUBTRACT, ids=[f"{a!r}-{b!r}" for a, b, _ in SUBTRACT])
def test_subtract(a: str, b: str, want: str) -> None:
    sa, sb = P(a), P(b)
    assert str(sa - sb) == want
    assert str(sa.subtract(sb)) == want
    assert str(sa) == str(P(a))
    m = P(a)
    m.subtract_in_place(sb)
    assert str(m) == want


@pytest.mark.parametrize("a, b, want", INTERSECTION, ids=[f"{a!r}&{b!r}" for a, b, _ in INTERSECTION])
def test_intersection(a: str, b: str, want: str) -> None:
    sa, sb = P(a), P(b)
    assert str(sa & sb) == want and str(sb & sa) == want


def test_symmetric_difference() -> None:
    assert str(P(f"{A}:1-5") ^ P(f"{A}:4-9,{B}:1")) == f"{A}:1-3:6-9,{B}:1"


SUBSET = [
    ("", "", True),
    ("", f"{A}:1", True),
    (f"{A}:1", "", False),
    (f"{A}:2-3", f"{A}:1-5", True),
    (f"{A}:2-6", f"{A}:1-5", False),
    (f"{A}:1:5", f"{A}:1-5", True),
    (f"{A}:1:5", f"{A}:1-2:4-5", True),
    (f"{A}:3", f"{A}:1-2:4-5", False),
    (f"{A}:1-5", f"{A}:1-2:3-5", True),
    (f"{A}:t:1", f"{A}:1", False),
    (f"{A}:1", f"{A}:1,{B}:1", True),
    (f"{A}:1,{B}:1", f"{A}:1", False),
    (f"{A}:1-2:8-9", f"{A}:1-3:5:7-10", True),
    (f"{A}:1-2:6", f"{A}:1-3:5:7-10", False),
]


@pytest.mark.parametrize("a, b, want", SUBSET, ids=[f"{a!r}<={b!r}" for a, b, _ in SUBSET])
def test_subset(a: str, b: str, want: bool) -> None:
    sa, sb = P(a), P(b)
    assert (sa <= sb) is want
    assert (sb >= sa) is want
    assert sa.issubset(sb) is want and sb.issuperset(sa) is want
    assert (sa < sb) is (want and sa != sb)
    assert (sb > sa) is (want and sa != sb)


def test_disjoint_contains_len() -> None:
    s = P(f"{A}:1-5:9,{B}:t:3")
    assert s.isdisjoint(P(f"{A}:6-8,{B}:3"))
    assert not s.isdisjoint(P(f"{A}:8-9"))
    assert Gtid(SID_A, 9) in s and Gtid(SID_A, 6) not in s
    assert Gtid(UUID(B), 3, "t") in s and Gtid(UUID(B), 3) not in s
    assert f"{B}:t:3" in s and 42 not in s
    assert len(s) == 7 == s.count()
    assert bool(s) and not GtidSet() and GtidSet().is_empty()
    huge = P(f"{A}:1-{MAX_GNO},{B}:1-{MAX_GNO}")
    assert huge.count() == 2 * MAX_GNO
    with pytest.raises(OverflowError):
        len(huge)


def test_equality_and_hash() -> None:
    a, b = P(f"{A}:1-3,{B}:5"), P(f"{B}:5,\n{A}:1:2:3")
    assert a == b and b == a and hash(a) == hash(b) and (a != b) is False
    assert a != P(f"{A}:1-3") and a != "x"
    assert len({a, b}) == 1


def test_add_restrict_without() -> None:
    s = P(f"{A}:1-3:5,{B}:1")
    assert str(s.add(Gtid(SID_A, 4))) == f"{A}:1-5,{B}:1"
    assert str(s) == f"{A}:1-3:5,{B}:1"
    assert str(s.add(Gtid(SID_A, 2))) == str(s)
    t = P(f"{A}:1-3:x:4,{B}:1")
    assert str(t.restrict(SID_A)) == f"{A}:1-3:x:4"
    assert str(t.restrict(A, "x")) == f"{A}:x:4"
    assert str(t.restrict(A, "")) == f"{A}:1-3"
    assert str(t.restrict(C)) == ""
    assert str(t.without(A)) == f"{B}:1"
    assert str(t.without(A, "x")) == f"{A}:1-3,{B}:1"


@pytest.mark.parametrize(
    "start_set, gnos, want",
    [
        ("", [1, 2, 3], f"{A}:1-3"),
        ("", [3, 1, 2], f"{A}:1-3"),
        (f"{A}:1-3", [10, 4, 9], f"{A}:1-4:9-10"),
        (f"{A}:1-3:5", [4], f"{A}:1-5"),
        (f"{A}:1-3", [2], f"{A}:1-3"),
    ],
)
def test_add_in_place(start_set: str, gnos: list[int], want: str) -> None:
    s = P(start_set)
    for g in gnos:
        s.add_in_place(SID_A, "", g)
    assert str(s) == want and s == P(want) and hash(s) == hash(P(want))
    with pytest.raises(ValueError):
        s.add_in_place(SID_A, "", 0)
    with pytest.raises(ValueError):
        s.add_in_place(SID_A, "Upper", 1)


def test_next_free_and_last_gno() -> None:
    s = P(f"{A}:1-3:5:7-9,{B}:t:4")
    assert s.next_free_gno(SID_A) == 4
    assert s.next_free_gno(SID_A, start=5) == 6
    assert s.next_free_gno(SID_A, start=7) == 10
    assert s.next_free_gno(SID_A, start=100) == 100
    assert s.next_free_gno(B) == 1 and s.next_free_gno(B, "t", 4) == 5
    assert s.last_gno(SID_A) == 9 and s.last_gno(B, "t") == 4 and s.last_gno(C) == 0
    full = P(f"{A}:1-{MAX_GNO}")
    with pytest.raises(MySQLError) as exc:
        full.next_free_gno(SID_A)
    assert exc.value.code == 1775
    with pytest.raises(ValueError):
        s.next_free_gno(SID_A, start=0)


def test_operators_reject_other_types() -> None:
    s = P(f"{A}:1")
    for op in ("__or__", "__sub__", "__and__", "__xor__", "__le__", "__ge__", "__lt__", "__gt__"):
        assert getattr(s, op)(1) is NotImplemented
    with pytest.raises(TypeError):
        s | 1  # type: ignore[operator]


def test_pickle_round_trip() -> None:
    import pickle

    s = P(f"{A}:1-3:t:5,{B}:9")
    assert pickle.loads(pickle.dumps(s)) == s
