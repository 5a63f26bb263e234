"""``StreamScanner`` / ``scan_stream``: the FileScanner walk over a window of a binary stream must find what the
memory-mapped path scan finds on every real fixture binlog (corrupt and truncated ones included): the same
transactions, event counts, file facts, error message and error offset."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

import gtidkit.binlog.file as binlog_file
from gtidkit.binlog.file import FileScanner, StreamScanner, scan_file, scan_stream
from gtidkit.errors import BinlogDecodeError
from tests.binlog.test_binlog_transactions import FIXTURE_FILES


class _ShortReads(io.RawIOBase):
    """A raw stream returning at most ``step`` bytes per read (as a socket-backed stream may)."""

    def __init__(self, data: bytes, step: int) -> None:
        self.data, self.at, self.step = data, 0, step

    def readable(self) -> bool:
        return True

    def readinto(self, b: bytearray) -> int:  # type: ignore[override]
        n = min(len(b), self.step, len(self.data) - self.at)
        b[:n] = self.data[self.at : self.at + n]
        self.at += n
        return n


def test_fixtures_include_faulty_files() -> None:
    """The comparison below covers the error path: some fixtures stop with a fault."""
    assert sum(1 for p in FIXTURE_FILES if scan_file(p).error is not None) >= 3


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_stream_scan_equals_path_scan(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = scan_file(path)
    with open(path, "rb") as fh:  # a BufferedReader, default window
        assert scan_stream(fh, str(path)) == expected
    data = path.read_bytes()
    # tiny windows: every event, Gtid and transaction crosses a refill somewhere
    for chunk, step in ((64, 7), (997, 4096)):
        with monkeypatch.context() as m:
            m.setattr(binlog_file, "READ_CHUNK", chunk)
            m.setattr(binlog_file, "_LOW_WATER", chunk // 2 + 19)
            got = scan_stream(_ShortReads(data, step), str(path))
            assert got == expected, (chunk, step)
            # the known size is taken as given; the rest is the same
            sized = scan_stream(_ShortReads(data, step), str(path), size=len(data))
            assert sized == expected


@pytest.mark.parametrize("path", FIXTURE_FILES[:12], ids=lambda p: f"{p.parent.name}/{p.name}")
def test_stream_scanner_batches_and_counts_equal_file_scanner(path: Path) -> None:
    """The streaming interface (batches, counts, result) the pipeline uses, against FileScanner's."""

    def run(scanner: FileScanner) -> tuple[list, str | None, int | None]:
        got: list = []
        try:
            for batch in scanner.batches():
                got.extend(batch)
        except BinlogDecodeError as err:
            return got, err.message, err.offset
        return got, None, None

    path_scanner = FileScanner(path, True)
    expected = run(path_scanner)
    with open(path, "rb", buffering=0) as fh:
        stream_scanner = StreamScanner(fh, str(path), True)
        assert run(stream_scanner) == expected
    assert stream_scanner.counts == path_scanner.counts
    assert stream_scanner.result == path_scanner.result
    assert stream_scanner.head == path.read_bytes()[: len(stream_scanner.head)]


def test_empty_stream_is_not_a_binlog() -> None:
    scan = scan_stream(io.BytesIO(b""), "empty")
    assert (scan.error, scan.error_offset, scan.size) == ("not a binlog file (empty)", 0, 0)
