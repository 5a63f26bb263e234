"""The compiled hot loop of ``gtidkit binlog show`` (binlog/_scriptfast.c) prints exactly the bytes of the
pure-Python loop: every real fixture binlog (corrupt and truncated ones included: the same text before the same
error), several files in a row (the Previous_gtids continuity warnings too), generated binlogs read in small chunks
(events and statements cut at every buffer end), a CRC32 damaged in the middle of a statement, and the filters that
turn the compiled loop off.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from gtidkit.binlog.mysqlbinlog import COMPILED, ScriptOptions, ScriptPrinter
from gtidkit.cli.binlog_script import FileRange, write_script
from gtidkit.errors import GtidkitError
from tests.binlog.test_mysqlbinlog import BINLOGS

if not COMPILED:  # CI builds it (setup.py through `pip install -e .`): there its absence is a failure
    if os.environ.get("CI"):
        pytest.fail("gtidkit.binlog._scriptfast is not built", pytrace=False)
    pytest.skip("gtidkit.binlog._scriptfast is not built", allow_module_level=True)


def _script(
    paths: list[Path], compiled: bool, *, chunk: int = 4 << 20, options: ScriptOptions | None = None
) -> tuple[bytes, list[str], str | None]:
    """The script, the warnings and the error (type and text) of one run of write_script."""
    out = io.BytesIO()
    warnings: list[str] = []
    error = None
    printer = ScriptPrinter(options, compiled=compiled)
    try:
        write_script(
            [FileRange(str(p)) for p in paths], printer, out, warn=warnings.append, chunk_size=chunk, batch=7
        )
    except GtidkitError as err:
        error = f"{type(err).__name__}: {err}"
    return out.getvalue(), warnings, error


def _same(paths: list[Path], **kw: object) -> bytes:
    want = _script(paths, False, **kw)  # type: ignore[arg-type]
    got = _script(paths, True, **kw)  # type: ignore[arg-type]
    assert got[2] == want[2]
    assert got[1] == want[1]
    assert got[0] == want[0]
    return got[0]


@pytest.mark.parametrize("path", BINLOGS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_compiled_loop_equals_pure_python_on_every_fixture(path: Path) -> None:
    _same([path])
    _same([path], chunk=1000)


def test_fixture_series_with_continuity_warnings() -> None:
    """Each fixture directory's binlogs in a row (and in the wrong order): the GTIDs the compiled loop reads feed
    the Previous_gtids check."""
    by_dir: dict[Path, list[Path]] = {}
    for p in BINLOGS:
        by_dir.setdefault(p.parent, []).append(p)
    series = [sorted(v) for v in by_dir.values() if len(v) > 1]
    if not series:
        pytest.skip("no fixture directory with several binlogs")
    warned = 0
    for files in series:
        _same(files)
        rev = _script(list(reversed(files)), True)
        assert rev == _script(list(reversed(files)), False)
        warned += bool(rev[1])
    assert warned  # at least one reversed series is out of order


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    from gtidkit.generate import generate_corpus

    root = tmp_path_factory.mktemp("gen")
    generate_corpus(root, 600_000, hosts=1, seed=5, max_binlog_size=200_000, overwrite=True)
    return sorted(root.rglob("binlog.0*"))


@pytest.mark.parametrize("chunk", [4 << 20, 65536, 4099, 300], ids=lambda c: f"chunk{c}")
def test_generated_series_in_small_chunks(generated: list[Path], chunk: int) -> None:
    assert len(generated) > 2
    text = _same(generated, chunk=chunk)
    assert text.count(b"SET @@SESSION.GTID_NEXT= '") > 100


def _filters(files: list[Path]) -> dict[str, ScriptOptions]:
    """Options of every kind, with GTIDs and times taken from the files (the middle of their range)."""
    from gtidkit.binlog.file import read_transactions
    from gtidkit.gtid import GtidSet

    trxs = [t for f in files for t in read_transactions(f).transactions if t.gtid is not None]
    sid = str(trxs[0].gtid).rsplit(":", 1)[0]
    first, last = trxs[0].gtid.gno, trxs[-1].gtid.gno  # type: ignore[union-attr]
    mid = (first + last) // 2
    some = GtidSet.parse(f"{sid}:{first + 3}-{mid}:{mid + 7}")
    times = sorted({t.timestamp for t in trxs if t.timestamp})
    return {
        "verbose": ScriptOptions(verbose=1),
        "skip_gtids": ScriptOptions(skip_gtids=True),
        "database": ScriptOptions(database="sbtest"),
        "start_datetime_0": ScriptOptions(start_datetime=0),
        "exclude_gtids": ScriptOptions(exclude_gtids=some),
        "include_gtids": ScriptOptions(include_gtids=some),
        "stop_datetime": ScriptOptions(stop_datetime=times[len(times) // 2]),
        "start_stop_datetime": ScriptOptions(
            start_datetime=times[len(times) // 3], stop_datetime=times[2 * len(times) // 3]
        ),
        "exclude_and_stop": ScriptOptions(exclude_gtids=some, stop_datetime=times[len(times) // 2]),
        "skip_and_include": ScriptOptions(skip_gtids=True, include_gtids=some),
    }


@pytest.mark.parametrize(
    "name",
    [
        "verbose",
        "skip_gtids",
        "database",
        "start_datetime_0",
        "exclude_gtids",
        "include_gtids",
        "stop_datetime",
        "start_stop_datetime",
        "exclude_and_stop",
        "skip_and_include",
    ],
)
def test_filters_print_the_same(generated: list[Path], name: str) -> None:
    """The filters of a point-in-time recovery: the compiled loop takes the transactions they keep."""
    options = _filters(generated)[name]
    for chunk in (4 << 20, 3000):
        text = _same(generated, options=options, chunk=chunk)
    assert text.count(b"\n# at ") > 10


def _damaged(src: Path, dst: Path, nth_rows: int) -> Path:
    """A copy of ``src`` with one byte of the ``nth_rows``-th rows event (a statement's last event) flipped."""
    data = bytearray(src.read_bytes())
    at, seen = 4, 0
    while at + 19 <= len(data):
        size = int.from_bytes(data[at + 9 : at + 13], "little")
        if data[at + 4] in (30, 31, 32):
            seen += 1
            if seen == nth_rows:
                data[at + 30] ^= 0x55
                break
        at += size
    dst.write_bytes(bytes(data))
    return dst


def test_crc_error_inside_a_statement(generated: list[Path], tmp_path: Path) -> None:
    """A CRC32 mismatch on a rows event: both loops print up to the statement's Table_map, then the same error."""
    bad = _damaged(generated[0], tmp_path / "binlog.000001", 40)
    for chunk in (4 << 20, 5000):
        want, got = _script([bad], False, chunk=chunk), _script([bad], True, chunk=chunk)
        assert want[2] is not None and "ChecksumMismatch" in want[2]
        assert got == want


def test_the_compiled_loop_is_used(generated: list[Path]) -> None:
    """The generated binlogs are printed mostly by the compiled loop (its text comes as bytes), which reads on
    by itself: far fewer frames reach Python than the file has events."""
    from gtidkit.binlog.file import FrameReader

    reader = FrameReader(generated[0])
    frames = 0

    def counted():
        nonlocal frames
        for frame in reader:
            frames += 1
            yield frame

    parts = list(ScriptPrinter(compiled=True).feed_frames(counted(), reader=reader))
    compiled = sum(len(p) for p in parts if isinstance(p, bytes))
    assert compiled > 0.9 * sum(len(p) for p in parts)
    events = sum(1 for _ in FrameReader(generated[0]))
    assert frames < events / 3
