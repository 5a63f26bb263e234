"""Every vector of ../shared/research/fixtures/gtid_vectors.jsonl, read in place (schema: gtid_vectors.README.md).

Where a peer library disagrees with MySQL (``mysql_disagrees``), MySQL wins: the table below states what
MySQL 8.4 does with that input, and the test asserts it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gtidkit.errors import GtidParseError
from gtidkit.gtid import Gtid, GtidSet, normalize_tag, parse_tsids
from gtidkit.gtid.encoding import CLASSIC, TAGGED, decode_nsids
from gtidkit.gtid.gtid_set import _finish, _parse_slow
from tests.conftest import GTID_VECTORS


def _load(path: Path) -> list[dict]:
    if not path.exists():
        pytest.fail(f"shared fixture missing: {path}")
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


VECTORS = _load(GTID_VECTORS)


def _id(v: dict) -> str:
    body = v.get("a", v.get("hex", ""))
    body = body if len(body) <= 48 else body[:45] + "..."
    return f"{v['op']}-{v['authority']}-{body!r}"


# What MySQL 8.4's parser does with inputs some peer rejects or renders differently (see README "mysql_disagrees").
MYSQL_ACCEPTS = {
    ",": "",  # empty elements are skipped (add_gtid_text: "we allow empty Gtid_sets containing only commas")
    "de278ad0-2106-11e4-9f8e-6edd0ca20947:1-2:foo:bar:1-2": "de278ad0-2106-11e4-9f8e-6edd0ca20947:1-2:bar:1-2",
    "00010203-0405-0607-0809-0a0b0c0d0e0f": "",  # a bare UUID registers the TSID, adds nothing
    "00010203-0405-0607-0809-0a0b0c0d0e0f:1-": "",  # "1-": strtoll converts nothing -> end 0 -> empty interval
    "57b70f4e-20d3-11e5-a393-4a63946f7eac:1-:1": "57b70f4e-20d3-11e5-a393-4a63946f7eac:1",
    "3E11FA47-71CA-11E1-9E33-C80AA9429562:1-5:10-15:20-": "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5:10-15",
    "3E11FA47-71CA-11E1-9E33-C80AA9429562:4-3": "",  # end < start is silently ignored
    "3E11FA47-71CA-11E1-9E33-C80AA9429562:InvalidTag:23": "3e11fa47-71ca-11e1-9e33-c80aa9429562:invalidtag:23",
}


def P(text: str) -> GtidSet:
    return GtidSet.parse(text)


def run_vector(v: dict) -> None:
    op = v["op"]
    disagrees = v.get("mysql_disagrees", False)
    if op == "subset":
        assert (P(v["a"]) <= P(v["b"])) is v["expect"]
        assert P(v["a"]).issubset(P(v["b"])) is v["expect"]
        assert (P(v["b"]) >= P(v["a"])) is v["expect"]
    elif op == "proper_subset":
        assert (P(v["a"]) < P(v["b"])) is v["expect"]
    elif op == "equal":
        a, b = P(v["a"]), P(v["b"])
        assert (a == b) is v["expect"] and (b == a) is v["expect"]
        assert (a != b) is (not v["expect"])
        if v["expect"]:
            assert hash(a) == hash(b) and str(a) == str(b)
    elif op == "disjoint":
        assert P(v["a"]).isdisjoint(P(v["b"])) is v["expect"]
    elif op == "disjoint_union":
        a, b = P(v["a"]), P(v["b"])
        assert (a.isdisjoint(b) and (a | b) == P(v["sum"])) is v["expect"]
    elif op in ("union", "subtract", "intersection", "symmetric_difference"):
        a, b = P(v["a"]), P(v["b"])
        got = {"union": a | b, "subtract": a - b, "intersection": a & b, "symmetric_difference": a ^ b}[op]
        assert got == P(v["expect"])
        assert str(got) == str(P(v["expect"]))
        if "\n" in v["expect"]:  # MySQL output format: ",\n" between UUIDs
            assert got.to_text() == v["expect"]
    elif op == "subtract_uuid":
        got = P(v["a"]).without(v["uuid"])
        assert got == P(v["expect"])
        if v["expect"] and "\n" in v["expect"]:
            assert got.to_text() == v["expect"]
    elif op == "intersect_uuid":
        assert P(v["a"]).restrict(v["uuid"]) == P(v["expect"])
    elif op == "count":
        assert len(P(v["a"])) == v["expect"] == P(v["a"]).count()
    elif op == "contains_gtid":
        assert (Gtid.parse(v["gtid"]) in P(v["a"])) is v["expect"]
    elif op == "add_gtid":
        a = P(v["a"])
        before = str(a)
        assert a.add(Gtid.parse(v["gtid"])) == P(v["expect"])
        assert str(a) == before  # the receiver is not mutated
    elif op == "next_gno":
        assert P(v["a"]).next_free_gno(v["uuid"]) == v["expect"]
    elif op == "next_gnos":
        s = P(v["a"])
        sid = v["uuid"]
        got = GtidSet()
        gno = 0
        for _ in range(v["n"]):
            gno = s.next_free_gno(sid, start=gno + 1)
            got.add_in_place(Gtid.parse(f"{sid}:1").sid, "", gno)
        assert got == P(v["expect"])
    elif op == "normalize":
        got = P(v["a"])
        if disagrees:  # peer keeps insertion order; MySQL sorts by UUID bytes
            assert got == P(v["expect"])
            assert str(got) == ",".join(
                sorted(v["expect"].split(","), key=lambda e: bytes.fromhex(e[:36].replace("-", "")))
            )
        elif "\n" in v["expect"]:
            assert got.to_text() == v["expect"]
        else:
            assert str(got) == v["expect"]
    elif op == "parse":
        got = parse_tsids(v["a"])
        # Entries with [] come from MySQL's expected-set builder (legacy_gtid_set-t.cc), whose comparison,
        # Gtid_set::equals, ignores TSIDs without GTIDs; so only TSIDs holding GTIDs are compared.
        want = sorted(
            (bytes.fromhex(u.replace("-", "")), tag, [tuple(iv) for iv in ivs])
            for u, tag, ivs in v["expect_struct"]
            if ivs
        )
        assert [(sid.bytes, tag, ivs) for sid, tag, ivs in got if ivs] == want
        assert P(v["a"]) == GtidSet.from_intervals((sid, tag, s, e) for sid, tag, ivs in got for s, e in ivs)
    elif op == "invalid":
        if disagrees:
            assert str(P(v["a"])) == MYSQL_ACCEPTS[v["a"]]
        else:
            with pytest.raises(GtidParseError) as exc:
                P(v["a"])
            assert exc.value.code == 1772
            assert exc.value.message == f"Malformed GTID set specification '{v['a'].lstrip()}'."
            assert v["error"] in exc.value.message if "error" in v else True
            assert exc.value.text == v["a"] and isinstance(exc.value.position, int)
    elif op == "tag_normalize":
        assert normalize_tag(v["a"]) == v["expect"]
        if v["expect"]:
            sid = "3e11fa47-71ca-11e1-9e33-c80aa9429562"
            assert Gtid.parse(f"{sid}:{v['a']}:7").tag == v["expect"]
            assert str(P(f"{sid}:{v['a']}:7")) == f"{sid}:{v['expect']}:7"
    elif op == "tag_invalid":
        with pytest.raises(ValueError):
            normalize_tag(v["a"])
        sid = "3e11fa47-71ca-11e1-9e33-c80aa9429562"
        with pytest.raises(GtidParseError):
            Gtid.parse(f"{sid}:{v['a']}:7")
        with pytest.raises(GtidParseError):
            P(f"{sid}:{v['a']}:7")
    elif op == "encode":
        s = P(v["a"])
        assert s.encode(tagged=v["format"] == "tagged").hex() == v["hex"]
        assert s.encode().hex() == v["hex"]  # format chosen by the presence of tags
        assert GtidSet.decode(bytes.fromhex(v["hex"])) == s
    elif op == "decode":
        got = GtidSet.decode(bytes.fromhex(v["hex"]))
        assert got == P(v["expect"])
        fmt, _n = decode_nsids(bytes.fromhex(v["hex"]))
        assert got.encode(tagged=fmt == TAGGED).hex() == v["hex"]
    elif op == "decode_invalid":
        data = bytes.fromhex(v["hex"])
        if disagrees:  # MySQL accepts a TSID with zero intervals: it adds nothing
            assert GtidSet.decode(data) == GtidSet()
        else:
            with pytest.raises(GtidParseError) as exc:
                GtidSet.decode(data)
            assert exc.value.code == 1773 and exc.value.message == "Malformed GTID set encoding."
            assert isinstance(exc.value.position, int)
    elif op == "decode_nsids":
        data = bytes.fromhex(v["hex"])
        if v["expect_error"]:
            with pytest.raises(GtidParseError):
                decode_nsids(data)
        else:
            fmt, n = decode_nsids(data)
            assert fmt == {"classic": CLASSIC, "tagged": TAGGED}[v["expect_format"]]
            assert n == v["expect_n_sids"]
    else:
        pytest.fail(f"unknown op {op!r}: extend the test")


@pytest.mark.parametrize("vector", VECTORS, ids=[_id(v) for v in VECTORS])
def test_vector(vector: dict) -> None:
    run_vector(vector)


def test_every_op_is_covered() -> None:
    ops = {v["op"] for v in VECTORS}
    assert len(VECTORS) > 100 and "invalid" in ops and "encode" in ops


SET_TEXTS = sorted(
    {
        v[k]
        for v in VECTORS
        for k in ("a", "b", "expect", "sum")
        if isinstance(v.get(k), str) and v["op"] not in ("tag_normalize", "tag_invalid")
    }
)


@pytest.mark.parametrize("text", SET_TEXTS, ids=[repr(t[:50]) for t in SET_TEXTS])
def test_fast_and_careful_parsers_agree(text: str) -> None:
    try:
        careful = _finish(_parse_slow(text))
    except GtidParseError as err:
        with pytest.raises(GtidParseError) as exc:
            GtidSet.parse(text)
        assert exc.value.message == err.message and exc.value.position == err.position
        return
    assert GtidSet.parse(text)._map == careful
