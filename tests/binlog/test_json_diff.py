"""The JSON diff list codec of PARTIAL_UPDATE_ROWS events (binlog/json_diff.py).

Oracle: the bytes MySQL 8.0.22 wrote for ``JSON_REPLACE(json_col, '$.age', 26)`` (fixture json.binlog.000001,
first row of its PARTIAL_UPDATE_ROWS event): operation 0, path length 5, ``$.age``, value length 3, int16 26.
"""

from __future__ import annotations

import pytest

from gtidkit.binlog.cursor import CursorError
from gtidkit.binlog.json_binary import encode
from gtidkit.binlog.json_diff import INSERT, REMOVE, REPLACE, JsonDiff, JsonDiffs, decode_diffs, encode_diffs

MYSQL_8022 = bytes.fromhex("0005242e61676503051a00")

CASES = [
    ("mysql-8.0.22-replace", (JsonDiff(REPLACE, "$.age", encode(26)),), MYSQL_8022),
    ("remove-has-no-value", (JsonDiff(REMOVE, "$.a"),), b"\x02\x03$.a"),
    (
        "several",
        (JsonDiff(INSERT, "$.c", encode("x")), JsonDiff(REMOVE, "$[0]")),
        b"\x01\x03$.c\x03\x0c\x01x" + b"\x02\x04$[0]",
    ),
]


@pytest.mark.parametrize(("diffs", "raw"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_round_trip(diffs, raw: bytes) -> None:
    assert encode_diffs(diffs) == raw
    assert decode_diffs(raw) == JsonDiffs(diffs)


@pytest.mark.parametrize(
    "raw",
    [b"\x03\x03$.a", b"\x00\x05$.a", b"\x00\x03$.a\x05\x05"],
    ids=["bad-op", "short-path", "short-value"],
)
def test_malformed_lists_raise_decode_errors(raw: bytes) -> None:
    with pytest.raises(CursorError):
        decode_diffs(raw)


def test_a_replace_needs_a_value() -> None:
    with pytest.raises(ValueError):
        encode_diffs([JsonDiff(REPLACE, "$.a")])
