"""Binary SID-block encoding: classic and tagged, varlen integers, strict decoding (formats.md §2.3, §3)."""

from __future__ import annotations

import struct
from uuid import UUID

import pytest

from gtidkit.errors import GtidParseError
from gtidkit.gtid import MAX_GNO, GtidSet
from gtidkit.gtid.encoding import decode_nsids, decode_sid_blocks, decode_varlen_uint, encode_varlen_uint

A = "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa"
SID = UUID(A).bytes


def classic(*blocks: tuple[bytes, list[tuple[int, int]]]) -> bytes:
    out = struct.pack("<Q", len(blocks))
    for sid, ivs in blocks:
        out += sid + struct.pack("<Q", len(ivs)) + b"".join(struct.pack("<qq", s, e) for s, e in ivs)
    return out


@pytest.mark.parametrize(
    "value, hexs",
    [
        (0, "00"),
        (1, "02"),
        (63, "7e"),
        (127, "fe"),
        (128, "0102"),
        (337, "4505"),
        (16384, "030002"),
        (80411, "dbd009"),
        (2**56 - 1, "7fffffffffffffff"),
        (2**56, "ff0000000000000001"),
        (2**64 - 1, "ff" + "ff" * 8),
    ],
)
def test_varlen_uint(value: int, hexs: str) -> None:
    assert encode_varlen_uint(value).hex() == hexs
    assert decode_varlen_uint(bytes.fromhex(hexs) + b"\x99", 0) == (value, len(hexs) // 2)
    with pytest.raises(GtidParseError):
        decode_varlen_uint(bytes.fromhex(hexs)[:-1], 0) if len(hexs) > 2 else decode_varlen_uint(b"", 0)


def test_empty_and_single() -> None:
    assert GtidSet().encode() == bytes(8)
    assert GtidSet.decode(bytes(8)) == GtidSet()
    s = GtidSet.parse(f"{A}:1-5:7")
    assert s.encode() == classic((SID, [(1, 6), (7, 8)]))  # exclusive ends
    assert len(GtidSet.parse(f"{A}:1").encode()) == 8 + 16 + 8 + 16


def test_tagged_layout() -> None:
    s = GtidSet.parse(f"{A}:1:tg:2-3")
    data = s.encode()
    assert data[:8] == bytes.fromhex("0102000000000001")
    assert data[8:24] == SID and data[24] == 0  # untagged TSID: empty tag, one byte 00
    assert GtidSet.decode(data) == s
    assert s.encode(tagged=True) == data
    with pytest.raises(ValueError):
        s.encode(tagged=False)
    untagged = GtidSet.parse(f"{A}:1")
    assert GtidSet.decode(untagged.encode(tagged=True)) == untagged


def test_max_gno_round_trip() -> None:
    s = GtidSet.parse(f"{A}:1-{MAX_GNO}")
    assert s.encode()[-8:] == struct.pack("<q", 2**63 - 1)
    assert GtidSet.decode(s.encode()) == s


BAD = {
    "short header": bytes(7),
    "unknown format": bytes.fromhex("0000000000000002"),
    "n_sids too big": struct.pack("<Q", 2),
    "start 0": classic((SID, [(0, 2)])),
    "end == start": classic((SID, [(3, 3)])),
    "end < start": classic((SID, [(5, 3)])),
    "adjacent": classic((SID, [(1, 3), (3, 5)])),
    "overlap": classic((SID, [(1, 4), (3, 5)])),
    "unsorted": classic((SID, [(5, 6), (1, 2)])),
    "end beyond int64": classic((SID, [(1, 2)]))[:-8] + b"\xff" * 8,
    "trailing byte": classic((SID, [(1, 2)])) + b"\x00",
    "truncated": classic((SID, [(1, 2)]))[:-1],
    "n_intervals huge": classic((SID, []))[:-8] + struct.pack("<Q", 2**60),
    "tag too long": bytes.fromhex("0101000000000001") + SID + bytes([33 << 1]) + b"a" * 33 + bytes(8),
    "tag bad char": bytes.fromhex("0101000000000001") + SID + bytes([2 << 1]) + b"a-" + bytes(8),
    "tag starts with digit": bytes.fromhex("0101000000000001") + SID + bytes([2 << 1]) + b"1a" + bytes(8),
    "tag not ascii": bytes.fromhex("0101000000000001") + SID + bytes([1 << 1]) + b"\xe9" + bytes(8),
}


@pytest.mark.parametrize("data", BAD.values(), ids=list(BAD))
def test_decode_rejects(data: bytes) -> None:
    with pytest.raises(GtidParseError) as exc:
        GtidSet.decode(data)
    assert exc.value.code == 1773 and exc.value.message == "Malformed GTID set encoding."
    assert 0 <= exc.value.position <= len(data)


def test_decode_accepts_mysql_leniencies() -> None:
    # zero-interval TSID, a repeated TSID (merged), an upper-case tag (lower-cased by Tag::from_cstring)
    assert GtidSet.decode(classic((SID, []))) == GtidSet()
    assert decode_sid_blocks(classic((SID, [])))[1] == [(SID, "")]
    assert str(GtidSet.decode(classic((SID, [(5, 6)]), (SID, [(1, 2)])))) == f"{A}:1:5"
    tagged = bytes.fromhex("0101000000000001") + SID + bytes([2 << 1]) + b"Ab" + struct.pack("<Qqq", 1, 1, 2)
    assert str(GtidSet.decode(tagged)) == f"{A}:ab:1"


def test_decode_prefix_and_memoryview() -> None:
    s = GtidSet.parse(f"{A}:1-3:t:9")
    data = s.encode()
    got, used = GtidSet.decode_prefix(data + b"rest")
    assert got == s and used == len(data)
    assert GtidSet.decode(memoryview(bytearray(data))) == s
    with pytest.raises(GtidParseError):
        GtidSet.decode_prefix(data[:-1])


@pytest.mark.parametrize(
    "hexs, want",
    [
        ("0000000000000000", (0, 0)),
        ("0500000000000000", (0, 5)),
        ("0105000000000001", (1, 5)),
        ("0105010000000001", (1, 261)),
    ],
)
def test_decode_nsids(hexs: str, want: tuple[int, int]) -> None:
    assert decode_nsids(bytes.fromhex(hexs)) == want


def test_encode_is_byte_identical_to_python_mysql_replication_for_classic_sets() -> None:
    from pymysqlreplication.gtid import GtidSet as PeerSet

    text = f"{A}:1-5:7-9,bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb:3"
    assert GtidSet.parse(text).encode() == PeerSet(text).encode()
