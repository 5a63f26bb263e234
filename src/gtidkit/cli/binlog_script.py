"""The text output of ``gtidkit binlog show``: mysqlbinlog's replayable script over several binlog files.

The file side of ``client/mysqlbinlog.cc`` (``dump_multiple_logs`` / ``dump_local_log_entries``): the files are read
in the order given, ``--start-position`` applies to the first one and ``--stop-position`` to the last,
``--to-last-log`` goes on with the binlogs that follow the last one in its directory, and each file's
Previous_gtids is checked against the GTIDs of the files before it (a gap or an overlap means files are missing or
out of order: a warning on stderr, the output goes on). The events themselves are printed by
:class:`gtidkit.binlog.mysqlbinlog.ScriptPrinter`.
"""

from __future__ import annotations

import datetime as _dt
import re
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from gtidkit.binlog.codec import decode_event
from gtidkit.binlog.constants import CRC32_RESIDUE, ChecksumAlg, EventType
from gtidkit.binlog.events.control import GtidEvent, PreviousGtidsEvent
from gtidkit.binlog.file import READ_CHUNK, FrameReader
from gtidkit.binlog.mysqlbinlog import Frame, ScriptPrinter
from gtidkit.gtid import Gtid, GtidSet

__all__ = ["FileRange", "LiveScript", "following_binlogs", "parse_datetime", "write_script"]

_ENC = ("utf-8", "surrogateescape")
_FDE = EventType.FORMAT_DESCRIPTION_EVENT
_PREV = EventType.PREVIOUS_GTIDS_LOG_EVENT
_GTID = EventType.GTID_LOG_EVENT
_GTID_TAGGED = EventType.GTID_TAGGED_LOG_EVENT
#: Formats ``--start-datetime`` / ``--stop-datetime`` accept (MySQL's DATETIME literals).
_DATETIME_FORMATS = (
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%d %H:%M:%S.%f",
    "%Y-%m-%dT%H:%M:%S",
    "%Y-%m-%d",
    "%Y%m%d%H%M%S",
)


def parse_datetime(text: str) -> int:
    """``--start-datetime`` / ``--stop-datetime``: a DATETIME in the local time zone, as epoch seconds
    (mysqlbinlog converts with the client's time zone).

    Raises:
        ValueError: ``Incorrect date and time argument: X`` (mysqlbinlog's message).
    """
    value = text.strip()
    for fmt in _DATETIME_FORMATS:
        try:
            parsed = _dt.datetime.strptime(value, fmt)
        except ValueError:
            continue
        return int(time.mktime(parsed.timetuple()))
    raise ValueError(f"Incorrect date and time argument: {text}")


def following_binlogs(path: str) -> list[str]:
    """The binlogs after ``path`` in its directory (``--to-last-log`` on local files): the files listed after it
    in the ``<base>.index`` file beside it when there is one, else the files ``<base>.<number>`` with a higher
    number, in order."""
    p = Path(path)
    m = re.fullmatch(r"(.*)\.(\d+)", p.name)
    if m is None:
        return []
    base, number = m.group(1), int(m.group(2))
    index = p.with_name(f"{base}.index")
    if index.is_file():
        names = [
            Path(line.strip()).name for line in index.read_text(errors="replace").splitlines() if line.strip()
        ]
        if p.name in names:
            return [str(p.with_name(n)) for n in names[names.index(p.name) + 1 :]]
    later = []
    for q in p.parent.glob(f"{glob_escape(base)}.*"):
        mm = re.fullmatch(rf"{re.escape(base)}\.(\d+)", q.name)
        if mm and int(mm.group(1)) > number:
            later.append((int(mm.group(1)), str(q)))
    return [name for _, name in sorted(later)]


def glob_escape(text: str) -> str:
    """``text`` with glob metacharacters escaped."""
    return re.sub(r"([*?\[])", r"[\1]", text)


@dataclass(slots=True)
class FileRange:
    """Where to read one file: from ``start`` (the FDE is always printed) up to ``stop`` (exclusive)."""

    path: str
    start: int = 4
    stop: int | None = None


@dataclass(slots=True)
class _Continuity:
    """The Previous_gtids check across files: the GTIDs of the files read so far."""

    seen: GtidSet | None = None
    warnings: list[str] = field(default_factory=list)

    def previous(self, path: str, gtids: GtidSet) -> None:
        if self.seen is not None and gtids != self.seen:
            missing = self.seen.subtract(gtids)
            extra = gtids.subtract(self.seen)
            detail = []
            if extra:
                detail.append(f"missing before it: {extra}")
            if missing:
                detail.append(f"already past it: {missing}")
            self.warnings.append(
                f"WARNING: The Previous_gtids of {path} ({gtids}) do not follow the files before it "
                f"({self.seen}): {'; '.join(detail)}. Binlog files may be missing or out of order."
            )
        self.seen = gtids.union()  # a private copy: GTIDs are added to it in place

    def gtid(self, raw: bytes) -> None:
        """An untagged Gtid event's bytes: flags(1) sid(16) gno(8) after the header."""
        if self.seen is not None:
            sid = raw[20:36]
            gno = int.from_bytes(raw[36:44], "little")
            if gno and sid != bytes(16):
                self.seen.add_in_place(sid, "", gno)

    def gtids(self, pairs: list[tuple[bytes, int]]) -> None:
        """Untagged GTIDs as ``(sid bytes, gno)`` (those the compiled loop printed)."""
        if self.seen is not None:
            for sid, gno in pairs:
                self.seen.add_in_place(sid, "", gno)

    def tagged(self, gtid: Gtid) -> None:
        if self.seen is not None:
            self.seen.add_in_place(gtid.sid, gtid.tag, gtid.gno)


def _watched(reader: FrameReader, rng: FileRange, continuity: _Continuity) -> Iterator[Frame]:
    """The frames of one file from ``rng.start`` (its FDEs always), noting Previous_gtids and GTIDs on the way."""
    for frame in reader:
        pos, buf, at, size = frame
        t = buf[at + 4]
        if pos < rng.start and t != _FDE:
            continue
        if t == _GTID:
            continuity.gtid(buf[at : at + size])
        elif t == _PREV or t == _GTID_TAGGED:
            ev = decode_event(
                buf[at : at + size], reader.fde, verify_checksum=False, offset=pos, file=rng.path
            ).event
            if isinstance(ev, PreviousGtidsEvent):
                continuity.previous(rng.path, ev.gtids)
            elif isinstance(ev, GtidEvent) and ev.gtid is not None:
                continuity.tagged(ev.gtid)
        yield frame


def write_script(
    ranges: Iterable[FileRange],
    printer: ScriptPrinter,
    out: IO[bytes],
    *,
    verify_checksum: bool = True,
    warn: Callable[[str], None],
    on_file: Callable[[int], None] | None = None,
    batch: int = 512,
    chunk_size: int = READ_CHUNK,
) -> None:
    """Write mysqlbinlog's script for the files to ``out``: the preamble, every event, the end.

    Args:
        ranges: the files in order, each with its position range.
        printer: the event printer (its options: filters, base64 mode, verbosity).
        out: a binary stream.
        verify_checksum: check CRC32 footers.
        warn: called with each warning line (stderr).
        on_file: called with the index of each file as its reading starts.
        batch: events per write.
        chunk_size: bytes per read of a file.

    Raises:
        BinlogDecodeError: a file cannot be read to its end (what came before is written, the script is not
            ended: mysqlbinlog stops the same way).
        ScriptError: an event mysqlbinlog refuses to print.
        OSError: a file cannot be read.
    """
    write = out.write
    write(printer.preamble().encode(*_ENC))
    continuity = _Continuity()
    try:
        for i, rng in enumerate(ranges):
            if on_file is not None:
                on_file(i)
            reader = FrameReader(rng.path, verify_checksum=verify_checksum, chunk_size=chunk_size)
            printer.file = rng.path
            for text in printer.feed_frames(
                _watched(reader, rng, continuity),
                stop_position=rng.stop,
                batch=batch,
                reader=reader,
                on_gtids=continuity.gtids,
            ):
                write(text if isinstance(text, bytes) else text.encode(*_ENC))
            if printer.stopped:
                break
    finally:
        out.flush()
    for line in continuity.warnings:
        warn(line)
    end, warnings = printer.finish()
    for line in warnings:
        warn(f"WARNING: {line}")
    write(end.encode(*_ENC))
    write(printer.epilogue().encode(*_ENC))
    out.flush()


class LiveScript:
    """mysqlbinlog's script written as the events arrive from a server (``--stop-never`` without ``--raw``): the
    same text as the listing of the copied files, each event written and flushed as soon as it is saved.

    Events are given with the source file they belong to and their offset in it; one already printed (the copier
    asks again for an unfinished transaction after a reconnection) is not printed twice. Like the file listing,
    it verifies CRC32 footers and checks each file's Previous_gtids against the GTIDs before it.

    Args:
        printer: the event printer (its options: filters, base64 mode, verbosity).
        out: a binary stream (flushed after every event).
        verify_checksum: check CRC32 footers.
        warn: called with each warning line (stderr).

    Attributes:
        stopped: ``--stop-datetime`` was reached (the caller stops feeding and calls :meth:`close`).
    """

    def __init__(
        self,
        printer: ScriptPrinter,
        out: IO[bytes],
        *,
        verify_checksum: bool = True,
        warn: Callable[[str], None],
    ) -> None:
        self.printer = printer
        self.out = out
        self.verify = verify_checksum
        self.warn = warn
        self.continuity = _Continuity()
        self._crc = False
        self._fde: Any = None
        self._printed: dict[str, int] = {}
        out.write(printer.preamble().encode(*_ENC))
        out.flush()

    @property
    def stopped(self) -> bool:
        """True once ``--stop-datetime`` ended the listing."""
        return self.printer.stopped

    def event(self, name: str, pos: int, raw: bytes) -> None:
        """Print one event of source file ``name`` starting at offset ``pos``.

        Raises:
            BinlogDecodeError: the event does not decode or its CRC32 is wrong (with the file and offset).
            ScriptError: an event mysqlbinlog refuses to print.
        """
        if pos < self._printed.get(name, 0) or self.printer.stopped:
            return
        printer = self.printer
        printer.file = name
        t = raw[4]
        if t == _FDE:
            self._fde = decode_event(raw, None, verify_checksum=self.verify, offset=pos, file=name).event
            self._crc = self.verify and self._fde.checksum_alg == ChecksumAlg.CRC32
        elif self._crc and zlib.crc32(raw) != CRC32_RESIDUE:
            decode_event(raw, self._fde, verify_checksum=True, offset=pos, file=name)  # raises the mismatch
        if t == _GTID:
            self.continuity.gtid(raw)
        elif t == _PREV or t == _GTID_TAGGED:
            ev = decode_event(raw, self._fde, verify_checksum=False, offset=pos, file=name).event
            if isinstance(ev, PreviousGtidsEvent):
                self.continuity.previous(name, ev.gtids)
                for line in self.continuity.warnings:
                    self.warn(line)
                self.continuity.warnings.clear()
            elif isinstance(ev, GtidEvent) and ev.gtid is not None:
                self.continuity.tagged(ev.gtid)
        text = printer.feed(pos, raw)
        self._printed[name] = pos + len(raw)
        if text:
            self.out.write(text.encode(*_ENC))
            self.out.flush()

    def close(self) -> None:
        """The end of the script (after ``--stop-datetime``): what :func:`write_script` writes after the last
        file."""
        end, warnings = self.printer.finish()
        for line in warnings:
            self.warn(f"WARNING: {line}")
        self.out.write(end.encode(*_ENC))
        self.out.write(self.printer.epilogue().encode(*_ENC))
        self.out.flush()
