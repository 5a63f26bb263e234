"""Test helpers: feed a binlog to a RelayLog the way a receiver gets it from a COM_BINLOG_DUMP_GTID stream.

What a MySQL source sends (``sql/rpl_binlog_sender.cc``): a fake Rotate naming the first file (timestamp 0,
log_pos 0, LOG_EVENT_ARTIFICIAL_F), then that file's events from its Format_description on (Previous_gtids
included), its closing Rotate, the next file's Format_description, and so on; a Stop event is sent as any other.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Iterable, Iterator
from pathlib import Path

from gtidkit.binlog.codec import encode_event
from gtidkit.binlog.constants import LOG_EVENT_ARTIFICIAL_F, ChecksumAlg
from gtidkit.binlog.events.control import FormatDescriptionEvent, RotateEvent
from gtidkit.binlog.file import FrameReader, read_transactions
from gtidkit.gtid import GtidSet


def fake_rotate(next_file: str, position: int = 4, *, checksum: bool = True, server_id: int = 1) -> bytes:
    """The fake Rotate a dump thread sends first (a CRC only when the replica declared one)."""
    alg = ChecksumAlg.CRC32 if checksum else ChecksumAlg.OFF
    fde = FormatDescriptionEvent.for_server("8.0.36", checksum_alg=alg)
    return encode_event(
        RotateEvent(position=position, next_file=next_file),
        fde,
        timestamp=0,
        server_id=server_id,
        log_pos=0,
        flags=LOG_EVENT_ARTIFICIAL_F,
    )


def file_events(path: str | os.PathLike[str]) -> Iterator[bytes]:
    """Every whole event of one binlog file, raw, in order (a torn tail ends it)."""
    for _pos, buf, at, size in FrameReader(path, stop_at_torn_tail=True):
        yield bytes(buf[at : at + size])


def dump_stream(
    paths: Iterable[str | os.PathLike[str]], *, checksum: bool = True, exclude: GtidSet | None = None
) -> Iterator[bytes]:
    """The events a replica receives for ``paths`` (consecutive binlog files of one source) from position 4.

    Args:
        paths: the source's binlog files, oldest first.
        checksum: the replica declared CRC32 (the fake Rotate carries one).
        exclude: the replica's GTID set (COM_BINLOG_DUMP_GTID): transactions whose GTID is in it are not sent,
            as the dump thread skips them (their events are left out whole).
    """
    paths = list(paths)
    if not paths:
        return
    yield fake_rotate(Path(paths[0]).name, checksum=checksum, server_id=_server_id(paths[0]))
    for p in paths:
        if not exclude:
            yield from file_events(p)
            continue
        skip = {(t.begin_pos, t.end_pos) for t in read_transactions(p).transactions if t.gtid in exclude}
        ranges = sorted(skip)
        i = 0
        for pos, buf, at, size in FrameReader(p, stop_at_torn_tail=True):
            while i < len(ranges) and ranges[i][1] <= pos:
                i += 1
            if i < len(ranges) and ranges[i][0] <= pos < ranges[i][1]:
                continue
            yield bytes(buf[at : at + size])


def _server_id(path: str | os.PathLike[str]) -> int:
    with open(path, "rb") as fh:
        head = fh.read(4 + 19)
    return struct.unpack_from("<I", head, 4 + 5)[0]


def binlog_paths(datadir: str | os.PathLike[str]) -> list[Path]:
    """The binlog files of an engine datadir in index order."""
    d = Path(datadir)
    names = [
        os.path.basename(line.strip())
        for line in (d / "binlog.index").read_text().splitlines()
        if line.strip()
    ]
    return [d / n for n in names]
