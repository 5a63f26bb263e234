"""Session-state block encoding (formats.md section 6; MySQL session_tracker.cc layouts)."""

from __future__ import annotations

import pytest

from gtidkit.errors import LocalProtocolError
from gtidkit.protocol.constants import SessionStateType as T
from gtidkit.protocol.session_tracker import TrackedChange, decode_state, encode_state

GTID = "3e11fa47-71ca-11e1-9e33-c80aa9429562:1"


def test_gtid_entry_exact_bytes() -> None:
    # type 3, entry length 40, encoding specification 0, lenenc text (38)
    assert encode_state([TrackedChange(T.SESSION_TRACK_GTIDS, GTID)]) == bytes([3, 40, 0, 38]) + GTID.encode()


@pytest.mark.parametrize(
    ("change", "data"),
    [
        (TrackedChange(T.SESSION_TRACK_SCHEMA, "app"), b"\x03app"),
        (TrackedChange(T.SESSION_TRACK_STATE_CHANGE, "1"), b"\x011"),
        (TrackedChange(T.SESSION_TRACK_SYSTEM_VARIABLES, "UTC", "time_zone"), b"\x09time_zone\x03UTC"),
        (TrackedChange(T.SESSION_TRACK_TRANSACTION_STATE, "T_____S_"), b"\x08T_____S_"),
    ],
    ids=["schema", "state-change", "sysvar", "trx-state"],
)
def test_entry_layouts(change: TrackedChange, data: bytes) -> None:
    assert encode_state([change]) == bytes([int(change.type), len(data)]) + data
    assert decode_state(encode_state([change])) == [change]


def test_tracker_order_and_empty() -> None:
    changes = [
        TrackedChange(T.SESSION_TRACK_GTIDS, GTID),
        TrackedChange(T.SESSION_TRACK_SCHEMA, "d"),
        TrackedChange(T.SESSION_TRACK_SYSTEM_VARIABLES, "x", "autocommit"),
    ]
    block = encode_state(changes)
    assert [c.type for c in decode_state(block)] == [
        T.SESSION_TRACK_SYSTEM_VARIABLES,
        T.SESSION_TRACK_SCHEMA,
        T.SESSION_TRACK_GTIDS,
    ]
    assert encode_state([]) == b""


def test_long_gtid_text_uses_lenenc_lengths() -> None:
    text = ",\n".join(f"{i:08x}-71ca-11e1-9e33-c80aa9429562:1-100" for i in range(20))
    block = encode_state([TrackedChange(T.SESSION_TRACK_GTIDS, text)])
    assert block[1] == 0xFC  # entry length > 250: 0xFC + 2 bytes
    assert decode_state(block)[0].value == text


def test_invalid_entries() -> None:
    with pytest.raises(LocalProtocolError):
        TrackedChange(T.SESSION_TRACK_SYSTEM_VARIABLES, "v")
    with pytest.raises(LocalProtocolError):
        TrackedChange(T.SESSION_TRACK_TRANSACTION_STATE, "T")
