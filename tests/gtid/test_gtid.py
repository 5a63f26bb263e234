"""Table tests for one GTID (``uuid:gno`` / ``uuid:tag:gno``), as ``SET gtid_next`` parses it."""

from __future__ import annotations

from uuid import UUID

import pytest

from gtidkit.errors import GtidParseError
from gtidkit.gtid import MAX_GNO, Gtid
from gtidkit.gtid.gtid import strtoll_at

A = "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa"

GOOD = {
    f"{A}:1": f"{A}:1",
    f"{A.upper()}:7": f"{A}:7",
    f"  {A} :  7  ": f"{A}:7",
    f"{A}:0x10": f"{A}:16",
    f"{A}:010": f"{A}:8",
    f"{A}:Tag_1:5": f"{A}:tag_1:5",
    f"{A} : tag : 5": f"{A}:tag:5",
    f"{A}:{MAX_GNO}": f"{A}:{MAX_GNO}",
}
BAD = [
    "",
    A,
    f"{A}:",
    f"{A}:0",
    f"{A}:-1",
    f"{A}:{MAX_GNO + 1}",
    f"{A}:1-2",
    f"{A}:1,",
    f"{A}:1 x",
    f"{A}:tag",
    f"{A}:tag:",
    f"{A}::1",
    f"{A}:{'t' * 33}:1",
    f"{A}:1tag:1",
    "zaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:1",
]


@pytest.mark.parametrize("text, want", GOOD.items(), ids=[repr(k) for k in GOOD])
def test_parse_good(text: str, want: str) -> None:
    g = Gtid.parse(text)
    assert str(g) == want
    assert Gtid.parse(str(g)) == g


@pytest.mark.parametrize("text", BAD, ids=[repr(t) for t in BAD])
def test_parse_bad(text: str) -> None:
    with pytest.raises(GtidParseError) as exc:
        Gtid.parse(text)
    assert exc.value.code == 1774
    assert exc.value.message == f"Malformed GTID specification '{text}'."
    assert exc.value.text == text and isinstance(exc.value.position, int)


def test_value_validation() -> None:
    sid = UUID(A)
    assert Gtid(sid, 3).tsid == (sid, "")
    assert str(Gtid(sid, 3, "x")) == f"{A}:x:3"
    for args in [(sid, 0), (sid, MAX_GNO + 1), (sid, 1, "Upper"), (sid, 1, "1x")]:
        with pytest.raises(ValueError):
            Gtid(*args)  # type: ignore[arg-type]
    for args in [(A, 1), (sid, 1.0)]:
        with pytest.raises(TypeError):
            Gtid(*args)  # type: ignore[arg-type]
    with pytest.raises(AttributeError):
        Gtid(sid, 1).gno = 2  # type: ignore[misc]


@pytest.mark.parametrize(
    "text, want",
    [
        ("12", (12, 2)),
        (" 12x", (12, 3)),
        ("0x1f", (31, 4)),
        ("0x", (0, 1)),
        ("0xg", (0, 1)),
        ("017", (15, 3)),
        ("08", (0, 1)),
        ("-5", (-5, 2)),
        ("+5", (5, 2)),
        ("", (0, 0)),
        ("x", (0, 0)),
        ("-", (0, 0)),
        ("99999999999999999999", (2**63 - 1, 20)),
        ("-99999999999999999999", (-(2**63), 21)),
    ],
)
def test_strtoll(text: str, want: tuple[int, int]) -> None:
    assert strtoll_at(text, 0) == want
