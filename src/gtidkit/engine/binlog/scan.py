"""Positioned reads of our own binlog files: events from an offset, transactions, the torn tail.

The engine needs what the general reader (:mod:`gtidkit.binlog.file`) does not promise: start at an arbitrary
event offset (SHOW BINLOG EVENTS ... FROM pos, recovery from the applied position) and stop *quietly* at a torn
tail (an event cut by a crash), reporting where the last complete transaction ends so recovery can truncate
there. Decoding is the codecs' (:func:`gtidkit.binlog.codec.decode_event`); this module only frames events.

Transaction grammar (``trx_boundary_parser.h``): ``Gtid|Anonymous_gtid`` then either one DDL ``Query``, or
``Query(BEGIN)`` ... ``Xid`` | ``Query(COMMIT)`` | ``Query(ROLLBACK)``.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gtidkit.binlog.codec import decode_event
from gtidkit.binlog.constants import BINLOG_MAGIC, EVENT_HEADER_LEN, FIRST_EVENT_POS
from gtidkit.binlog.events.control import FormatDescriptionEvent, GtidEvent, PreviousGtidsEvent, XidEvent
from gtidkit.binlog.events.statement import QueryEvent
from gtidkit.errors import BinlogDecodeError
from gtidkit.gtid import Gtid, GtidSet

_SIZE = struct.Struct("<I")


@dataclass(frozen=True, slots=True)
class ScannedEvent:
    """One event with its file offsets: ``pos`` (start) and ``end`` (= header log_pos for our files)."""

    pos: int
    end: int
    type_code: int
    server_id: int
    event: Any


@dataclass
class ScannedTransaction:
    """A complete transaction: its GTID (None = anonymous), offsets and events after the Gtid event."""

    gtid: Gtid | None
    begin: int
    end: int
    events: list[ScannedEvent] = field(default_factory=list)


def read_fde(data: bytes, name: str = "") -> tuple[FormatDescriptionEvent, int]:
    """Decode the FDE at offset 4 of ``data`` (a whole file). Returns (fde, end offset).

    Raises:
        BinlogDecodeError: bad magic or first event not an FDE.
    """
    if data[:4] != BINLOG_MAGIC:
        raise BinlogDecodeError("not a binlog file (bad magic)", file=name, offset=0)
    if len(data) < FIRST_EVENT_POS + EVENT_HEADER_LEN:
        raise BinlogDecodeError("truncated Format_description event", file=name, offset=FIRST_EVENT_POS)
    size = _SIZE.unpack_from(data, FIRST_EVENT_POS + 9)[0]
    ev = decode_event(data[FIRST_EVENT_POS : FIRST_EVENT_POS + size], None, offset=FIRST_EVENT_POS, file=name)
    if not isinstance(ev.event, FormatDescriptionEvent):
        raise BinlogDecodeError(
            "first event is not a Format_description event", file=name, offset=FIRST_EVENT_POS
        )
    return ev.event, FIRST_EVENT_POS + size


def iter_events(path: Path, start: int | None = None) -> Iterator[ScannedEvent]:
    """Events of ``path`` from ``start`` (default: the first event, the FDE included) to the last whole one.

    A torn last event (short header or body) ends the iteration silently; a corrupt whole event raises.

    Raises:
        BinlogDecodeError: bad magic, bad CRC or malformed event (with file and offset).
        OSError: the file cannot be read.
    """
    data = Path(path).read_bytes()
    name = Path(path).name
    fde, fde_end = read_fde(data, name)
    pos = FIRST_EVENT_POS if start is None else start
    if start is not None and start < fde_end and start != FIRST_EVENT_POS:
        raise BinlogDecodeError("position is inside the Format_description event", file=name, offset=start)
    while pos + EVENT_HEADER_LEN <= len(data):
        size = _SIZE.unpack_from(data, pos + 9)[0]
        if size < EVENT_HEADER_LEN:
            raise BinlogDecodeError(f"invalid event size {size}", file=name, offset=pos)
        if pos + size > len(data):
            return  # torn tail
        ev = decode_event(
            data[pos : pos + size], None if pos == FIRST_EVENT_POS else fde, offset=pos, file=name
        )
        yield ScannedEvent(pos, pos + size, ev.header.type_code, ev.header.server_id, ev.event)
        pos += size


def _query_text(ev: QueryEvent) -> str:
    q = ev.query
    return q.decode("utf-8", "replace") if isinstance(q, (bytes, bytearray)) else str(q)


@dataclass
class FileSummary:
    """What start-up needs from one file: Previous_gtids, complete transactions, where they end."""

    previous_gtids: GtidSet
    transactions: list[ScannedTransaction]
    complete_end: int  # end offset of the last complete event group (truncate a torn tail here)
    size: int
    stopped: bool  # ends with Stop or Rotate


def summarize(path: Path, *, from_pos: int | None = None, keep_events: bool = False) -> FileSummary:
    """Scan ``path``: Previous_gtids, the complete transactions (those starting at/after ``from_pos``), the tail.

    ``complete_end`` is the end of the last event that is not inside an unfinished transaction; recovery cuts
    the file there. Transactions before ``from_pos`` are listed (for their GTIDs) without their events.
    """
    prev = GtidSet()
    txs: list[ScannedTransaction] = []
    current: ScannedTransaction | None = None
    in_begin = False
    complete_end = FIRST_EVENT_POS
    stopped = False
    size = Path(path).stat().st_size
    for se in iter_events(path):
        ev = se.event
        if isinstance(ev, FormatDescriptionEvent):
            complete_end = se.end
            continue
        if isinstance(ev, PreviousGtidsEvent):
            prev = ev.gtids
            complete_end = se.end
            continue
        if isinstance(ev, GtidEvent):
            current = ScannedTransaction(ev.gtid, se.pos, se.end)
            in_begin = False
            continue
        if current is None:
            complete_end = se.end
            if se.type_code in (3, 4):  # Stop, Rotate
                stopped = True
            continue
        if keep_events and (from_pos is None or current.begin >= from_pos):
            current.events.append(se)
        done = False
        if isinstance(ev, QueryEvent):
            text = _query_text(ev).strip().upper()
            if text == "BEGIN":
                in_begin = True
            elif text in ("COMMIT", "ROLLBACK") or not in_begin:
                done = True
        elif isinstance(ev, XidEvent):
            done = True
        if done:
            current.end = se.end
            txs.append(current)
            complete_end = se.end
            current = None
            in_begin = False
    return FileSummary(prev, txs, complete_end, size, stopped)


def previous_gtids(path: Path) -> GtidSet:
    """The Previous_gtids set of ``path`` (the event right after the FDE)."""
    for se in iter_events(path):
        if isinstance(se.event, PreviousGtidsEvent):
            return se.event.gtids
        if not isinstance(se.event, FormatDescriptionEvent):
            break
    return GtidSet()
