"""The OK packet's session-state block (WL#6972 / WL#4797): encoding only; the engine decides what to report.

Sources: MySQL ``sql/session_tracker.cc`` (``Session_tracker::store`` walks the trackers in enum order:
system variables, current schema, state change, GTIDs, transaction info; ``Session_gtids_tracker::store`` with
``Session_gtids_ctx_encoder_string``), ``include/mysql_com.h`` (``enum_session_state_type``), DEVDOC
``page_protocol_basic_ok_packet``, and ``../shared/research/formats.md`` section 6.

Block layout (the OK packet wraps it in one more lenenc length)::

    entry*        each: type (1) | lenenc length of data | data
    data by type  SYSTEM_VARIABLES (0)             lenenc name | lenenc value
                  SCHEMA (1)                       lenenc schema name
                  STATE_CHANGE (2)                 lenenc "1"
                  GTIDS (3)                        encoding specification (1) = 0 | lenenc GTID-set text
                  TRANSACTION_CHARACTERISTICS (4)  lenenc SQL text (may be empty)
                  TRANSACTION_STATE (5)            lenenc 8-character state string

Example (OWN_GTID after committing ``3e11fa47-71ca-11e1-9e33-c80aa9429562:1``, 38 characters): entry
``03 28 00 26 <38 bytes>``; in the OK packet: ``00`` (empty info) ``2a`` (block length 42) then the entry.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from gtidkit.errors import LocalProtocolError
from gtidkit.protocol.constants import SessionStateType
from gtidkit.protocol.wire import Reader, lenenc_int, lenenc_str

#: The only GTID encoding specification MySQL defines: the set as text.
GTID_ENCODING_TEXT = 0


@dataclass(frozen=True, slots=True)
class TrackedChange:
    """One session-state entry to encode.

    Args:
        type: the entry type.
        value: schema name, GTID-set text, ``"1"`` for STATE_CHANGE, the variable's value, or the transaction
            text/state.
        name: the system variable's name (SYSTEM_VARIABLES only).

    Raises:
        LocalProtocolError: a system-variable entry without a name, or a transaction state that is not 8
            characters.
    """

    type: SessionStateType
    value: str
    name: str = ""

    def __post_init__(self) -> None:
        if self.type == SessionStateType.SESSION_TRACK_SYSTEM_VARIABLES and not self.name:
            raise LocalProtocolError("a system-variable entry needs a name")
        if self.type == SessionStateType.SESSION_TRACK_TRANSACTION_STATE and len(self.value) != 8:
            raise LocalProtocolError(f"transaction state must be 8 characters, got {self.value!r}")

    def data(self) -> bytes:
        """The entry's data (without its type byte and length)."""
        return entry_data(self)


def entry_data(change: Any) -> bytes:
    """The data of one entry (without its type byte and length) for anything with ``type``, ``value`` and
    ``name`` (a :class:`TrackedChange`, or the engine's ``StateChange``)."""
    value = change.value.encode("utf-8", "surrogateescape")
    if change.type == SessionStateType.SESSION_TRACK_SYSTEM_VARIABLES:
        return lenenc_str(change.name.encode()) + lenenc_str(value)
    if change.type == SessionStateType.SESSION_TRACK_GTIDS:
        return bytes((GTID_ENCODING_TEXT,)) + lenenc_str(value)
    return lenenc_str(value)


def encode_state(changes: Iterable[Any]) -> bytes:
    """The session-state block's entries, in MySQL's tracker order (type order; stable within a type).

    ``changes`` are :class:`TrackedChange` or the engine's ``StateChange`` (same fields). Returns ``b""`` when there
    is nothing to report: the caller then must not set SERVER_SESSION_STATE_CHANGED.
    """
    out = bytearray()
    for change in sorted(changes, key=lambda c: int(c.type)):
        data = entry_data(change)
        out.append(int(change.type))
        out += lenenc_int(len(data))
        out += data
    return bytes(out)


def decode_state(block: bytes) -> list[TrackedChange]:
    """Parse entries back (the client's view: tests and the read-your-writes helper).

    Raises:
        RemoteProtocolError: malformed block.
    """
    r = Reader(block)
    out: list[TrackedChange] = []
    while r.remaining():
        kind = SessionStateType(r.u8())
        d = Reader(r.lenenc_str())
        if kind == SessionStateType.SESSION_TRACK_SYSTEM_VARIABLES:
            name = d.lenenc_str().decode()
            out.append(TrackedChange(kind, d.lenenc_str().decode("utf-8", "surrogateescape"), name))
        elif kind == SessionStateType.SESSION_TRACK_GTIDS:
            d.u8()
            out.append(TrackedChange(kind, d.lenenc_str().decode()))
        else:
            out.append(TrackedChange(kind, d.lenenc_str().decode("utf-8", "surrogateescape")))
    return out
