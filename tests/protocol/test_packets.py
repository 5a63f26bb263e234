"""Packet framing: 3-byte length + sequence id, 16 MiB split and join (MySQL DEVDOC page_protocol_basic_packets)."""

from __future__ import annotations

import pytest

from gtidkit.errors import RemoteProtocolError
from gtidkit.protocol.packets import MAX_PAYLOAD, PacketReader, frame


def test_frame_small_packet_layout() -> None:
    # COM_QUERY "SELECT 1" as the DEVDOC shows it: 09 00 00 00 03 53 45 4c 45 43 54 20 31
    data, nxt = frame(b"\x03SELECT 1", 0)
    assert data.hex() == "09000000" + "0353454c4543542031"
    assert nxt == 1


def test_sequence_id_wraps() -> None:
    _, nxt = frame(b"x", 255)
    assert nxt == 0


@pytest.mark.parametrize(
    ("size", "parts"),
    [
        (0, [0]),
        (MAX_PAYLOAD - 1, [MAX_PAYLOAD - 1]),
        (MAX_PAYLOAD, [MAX_PAYLOAD, 0]),
        (MAX_PAYLOAD + 5, [MAX_PAYLOAD, 5]),
        (2 * MAX_PAYLOAD, [MAX_PAYLOAD, MAX_PAYLOAD, 0]),
    ],
    ids=["empty", "max-1", "exactly-max", "max+5", "2max"],
)
def test_split_and_join(size: int, parts: list[int]) -> None:
    payload = (bytes(range(251)) * (size // 251 + 1))[:size]
    data, nxt = frame(payload, 7)
    # the physical packets: lengths and consecutive sequence ids, as my_net_write writes them
    pos, seq, seen = 0, 7, []
    while pos < len(data):
        length = int.from_bytes(data[pos : pos + 3], "little")
        assert data[pos + 3] == seq
        seen.append(length)
        pos += 4 + length
        seq += 1
    assert seen == parts
    assert nxt == (7 + len(parts)) & 0xFF
    reader = PacketReader()
    reader.feed(data)
    pkt = reader.next_packet()
    assert pkt is not None and pkt.payload == payload and pkt.sequence_id == 7 and pkt.next_sequence_id == nxt
    assert reader.next_packet() is None


def _feed_all(data: bytes, step: int | None) -> list[bytes]:
    reader = PacketReader()
    out = []
    chunks = [data] if step is None else [data[i : i + step] for i in range(0, len(data), step)]
    for chunk in chunks:
        reader.feed(chunk)
        while (pkt := reader.next_packet()) is not None:
            out.append(pkt.payload)
    return out


@pytest.mark.parametrize("step", [None, 1, 3], ids=["whole", "byte-by-byte", "three-bytes"])
def test_incremental(step: int | None) -> None:
    a, s = frame(b"hello", 0)
    b, s = frame(b"", s)
    c, _ = frame(b"world" * 10, s)
    assert _feed_all(a + b + c, step) == [b"hello", b"", b"world" * 10]


def test_trailing_partial_packet_waits() -> None:
    a, s = frame(b"one", 0)
    b, _ = frame(b"two", s)
    reader = PacketReader()
    reader.feed(a + b[:5])
    assert reader.next_packet().payload == b"one"  # type: ignore[union-attr]
    assert reader.next_packet() is None
    assert reader.buffered == 5
    reader.feed(b[5:])
    assert reader.next_packet().payload == b"two"  # type: ignore[union-attr]


def test_too_large_raises_1153_from_header() -> None:
    reader = PacketReader(max_payload=10)
    reader.feed((11).to_bytes(3, "little") + b"\0")  # header only: refused before the payload arrives
    with pytest.raises(RemoteProtocolError) as exc:
        reader.next_packet()
    assert exc.value.code == 1153


def test_split_parts_out_of_order_raises_1156() -> None:
    data, _ = frame(bytes(MAX_PAYLOAD + 1), 0)
    bad = bytearray(data)
    bad[4 + MAX_PAYLOAD + 3] = 9  # second part should carry sequence id 1
    reader = PacketReader()
    reader.feed(bytes(bad))
    with pytest.raises(RemoteProtocolError) as exc:
        reader.next_packet()
    assert exc.value.code == 1156
