"""The Data Source's Arrow form (issue 10): record batches equal the tuple rows on every real binlog, their schema
is the one Spark derives from the DDL (tests/pipeline/test_datasource.py, with the other tests that need the Spark
session), and a task's memory stays flat in the file size. No test here starts Spark: the module runs beside the
Spark tests under pytest-xdist (tests/conftest.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gtidkit.pipeline import scan, schemas
from gtidkit.pipeline.layout import FileSpec
from tests.pipeline.test_object_storage import FIXTURE_FILES


def _spec(path: Path) -> FileSpec:
    return FileSpec(
        host="h", path=str(path), file=path.name, series="s", seq=None, file_index=3, size=path.stat().st_size
    )


def _plain(value):
    """Arrow's to_pylist() of a struct gives dicts; the tuple rows hold tuples."""
    if isinstance(value, dict):
        return tuple(_plain(v) for v in value.values())
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_arrow_batches_equal_tuple_rows(path: Path) -> None:
    spec = _spec(path)
    want = list(scan.scan_records(spec))
    got = []
    for batch in scan.arrow_batches(spec, "scan", schemas.arrow_schema(schemas.SCAN), batch_rows=100):
        assert 0 < batch.num_rows <= 100
        got += [(r["kind"], _plain(r["txn"]), _plain(r["file"])) for r in batch.to_pylist()]
    assert got == want
    txns = [
        r
        for b in scan.arrow_batches(spec, "transactions", schemas.arrow_schema(schemas.TRANSACTIONS))
        for r in b.to_pylist()
    ]
    assert [tuple(r.values()) for r in txns] == [t for k, t, _ in want if k == "txn"]


_PEAK = """
import json, sys, tracemalloc
import pyarrow as pa
from pathlib import Path
from gtidkit.pipeline import scan, schemas
from gtidkit.pipeline.layout import FileSpec
p = Path(sys.argv[1])
spec = FileSpec("h", str(p), p.name, "s", None, 0, p.stat().st_size)
tracemalloc.start()
rows = 0
for b in scan.arrow_batches(spec, "scan", schemas.arrow_schema(schemas.SCAN), batch_rows=2048):
    rows += b.num_rows
print(json.dumps({"rows": rows, "python": tracemalloc.get_traced_memory()[1],
                  "arrow": pa.default_memory_pool().max_memory()}))
"""


def test_task_memory_is_flat_in_file_size(tmp_path) -> None:
    """One 4 MB and one 32 MB binlog through the executor code, each in a fresh process: the peak of Python
    allocations and of Arrow's memory pool is about one batch for both (the file itself is memory-mapped, i.e.
    page cache, never copied)."""
    from gtidkit.generate import generate_corpus

    peaks = {}
    for mb in (4, 32):
        generate_corpus(tmp_path / f"c{mb}", mb * 1_000_000, hosts=1, max_binlog_size=64 << 20)
        (path,) = [p for p in (tmp_path / f"c{mb}").rglob("binlog.0*")]
        out = subprocess.run(
            [sys.executable, "-c", _PEAK, str(path)], capture_output=True, text=True, check=True
        ).stdout
        peaks[mb] = json.loads(out)
    small, big = peaks[4], peaks[32]
    assert big["rows"] > 6 * small["rows"]
    assert big["python"] + big["arrow"] < 1.3 * (small["python"] + small["arrow"]) + (1 << 20), peaks


_RSS = """
import json, sys
from pathlib import Path
from gtidkit.pipeline import scan, schemas
from gtidkit.pipeline.layout import FileSpec
p = Path(sys.argv[1])
scan.MMAP_MAX_BYTES = int(sys.argv[2])
spec = FileSpec("h", str(p), p.name, "s", None, 0, p.stat().st_size)
def status(key):
    with open("/proc/self/status") as fh:
        return next(int(x.split()[1]) for x in fh if x.startswith(key + ":"))
first = next(iter(scan.arrow_batches(spec, "scan", schemas.arrow_schema(schemas.SCAN), batch_rows=2048)))
before = status("VmHWM")
rows = sum(b.num_rows for b in scan.arrow_batches(spec, "scan", schemas.arrow_schema(schemas.SCAN), batch_rows=2048))
print(json.dumps({"rows": rows, "growth_kib": status("VmHWM") - before}))
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmHWM from /proc")
def test_streamed_file_keeps_resident_memory_flat(tmp_path) -> None:
    """Above ``scan.MMAP_MAX_BYTES`` the Data Source streams the file: while scanning, the process's peak resident
    set (VmHWM, file-backed pages included) grows by the same read window for a 16 MB and a 64 MB binlog, whereas
    the memory-mapped scan keeps the pages of the file resident (the reason for the threshold)."""
    from gtidkit.generate import generate_corpus

    def run(path: Path, threshold: int) -> dict:
        out = subprocess.run(
            [sys.executable, "-c", _RSS, str(path), str(threshold)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        return json.loads(out)

    runs = {}
    for mb in (16, 64):
        generate_corpus(tmp_path / f"c{mb}", mb * 1_000_000, hosts=1, max_binlog_size=128 << 20)
        (path,) = list((tmp_path / f"c{mb}").rglob("binlog.0*"))
        runs[mb] = {"size_kib": path.stat().st_size // 1024, "stream": run(path, 0)}
    runs[64]["mmap"] = run(path, 1 << 40)
    small, big = runs[16], runs[64]
    assert big["stream"]["rows"] == big["mmap"]["rows"] > 3 * small["stream"]["rows"]
    assert big["stream"]["growth_kib"] < small["stream"]["growth_kib"] + (8 << 10), runs
    assert big["mmap"]["growth_kib"] > big["size_kib"] // 2, runs  # the contrast the threshold exists for


@pytest.mark.parametrize(
    ("values", "type_name"),
    [
        ((1, 2, 2**62), "int64"),
        ((1, None, 3), "int64"),
        ((None, None), "int64"),
        ((), "int64"),
        ((7, 2**31 - 1), "int32"),
        ((7, None), "int32"),
    ],
)
def test_int_columns_through_numpy_equal_pyarrow(values, type_name) -> None:
    """The numpy route for int columns gives the array ``pyarrow.array`` gives (values, nulls, type)."""
    import pyarrow as pa

    arrow_type = getattr(pa, type_name)()
    got = scan._int_array(values, arrow_type)
    want = pa.array(values, arrow_type)
    assert got.type == want.type
    assert got.equals(want)
    assert got.to_pylist() == list(values)


def test_int_column_out_of_range_is_refused_as_before() -> None:
    """A value outside the Arrow type's range fails as ``pyarrow.array`` fails (the numpy route is no looser)."""
    import pyarrow as pa

    with pytest.raises((OverflowError, pa.ArrowInvalid)):
        scan._int_array((1, 2**63), pa.int64())
    with pytest.raises((OverflowError, pa.ArrowInvalid)):
        scan._int_array((1, 2**31), pa.int32())


def test_gc_state_restored_after_scan(tmp_path) -> None:
    """The executor code pauses the cyclic GC while it scans (scan.gc_paused) and restores it afterwards, also
    when the consumer stops early; a caller that had it off keeps it off."""
    import gc

    path = FIXTURE_FILES[0] if FIXTURE_FILES else None
    if path is None:
        pytest.skip("no binlog fixtures")
    sch = schemas.arrow_schema(schemas.SCAN)
    assert gc.isenabled()
    batches = scan.arrow_batches(_spec(path), "scan", sch, batch_rows=1)
    next(batches)
    assert not gc.isenabled()
    batches.close()
    assert gc.isenabled()
    assert sum(b.num_rows for b in scan.arrow_batches(_spec(path), "scan", sch)) > 0
    assert gc.isenabled()
    gc.disable()
    try:
        list(scan.arrow_batches(_spec(path), "scan", sch))
        assert not gc.isenabled()
    finally:
        gc.enable()
