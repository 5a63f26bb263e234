"""Corrupt and truncated binlogs: the job completes, every good transaction before the fault is kept, and every
byte is accounted for (good_bytes + bad_bytes = size)."""

from __future__ import annotations

import shutil

import pytest

from gtidkit.binlog.file import iter_transactions

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def damaged(spark, fleet_dir, tmp_path_factory):
    """hostA: a copy of a generated binlog cut in the middle of an event; hostB: a copy with one byte flipped
    inside a Gtid event (CRC32 mismatch); hostC: an intact copy. Returns (result, originals, fault offsets)."""
    from gtidkit.pipeline.job import run_pipeline

    root = tmp_path_factory.mktemp("damaged")
    original = fleet_dir / "source" / "binlog.000002"
    txns = list(iter_transactions(original))
    data = original.read_bytes()
    cut = txns[len(txns) // 2].begin_pos + 40  # inside that transaction's Gtid event
    (root / "hostA").mkdir()
    (root / "hostA" / "binlog.000001").write_bytes(data[:cut])
    flip_at = txns[10].begin_pos
    bad = bytearray(data)
    bad[flip_at + 30] ^= 0xFF
    (root / "hostB").mkdir()
    (root / "hostB" / "binlog.000001").write_bytes(bytes(bad))
    (root / "hostC").mkdir()
    shutil.copy(original, root / "hostC" / "binlog.000001")
    result = run_pipeline(spark, root, tmp_path_factory.mktemp("damaged-out"))
    return result, txns, {"hostA": txns[len(txns) // 2].begin_pos, "hostB": flip_at}, len(data)


def test_job_completes_and_marks_files(damaged):
    result, _txns, faults, _ = damaged
    files = {f["host"]: f for f in result.files}
    assert files["hostA"]["status"] == "truncated"
    assert files["hostB"]["status"] == "corrupt" and "CRC32" in files["hostB"]["error"]
    assert files["hostC"]["status"] == "ok" and files["hostC"]["bad_bytes"] == 0
    for host, offset in faults.items():
        assert files[host]["error_offset"] == offset
        assert files[host]["good_bytes"] == offset
    findings = {(c["host"], c["offset"]) for c in result.checks_of("file_error")}
    assert findings == {("hostA", faults["hostA"]), ("hostB", faults["hostB"])}


def test_every_byte_accounted(damaged):
    result, _txns, _faults, _ = damaged
    for f in result.files:
        assert f["good_bytes"] + f["bad_bytes"] == f["size"]
    assert sum(h["bad_bytes"] for h in result.hosts) == sum(f["size"] - f["good_bytes"] for f in result.files)
    html = (result.output / "report.html").read_text()
    total = sum(f["size"] for f in result.files)
    good = sum(f["good_bytes"] for f in result.files)
    assert f"{total:,} bytes" in html and f"({good:,} decoded, {total - good:,} bad;" in html


def test_good_transactions_before_the_fault_are_kept(spark, damaged):
    result, txns, faults, _ = damaged
    got = spark.read.parquet(str(result.output / "transactions"))
    for host, offset in faults.items():
        kept = [
            (r["begin_pos"], r["end_pos"], r["gno"])
            for r in got.where(got.host == host).orderBy("begin_pos").collect()
        ]
        expected = [
            (t.begin_pos, t.end_pos, t.gtid.gno if t.gtid else None) for t in txns if t.end_pos <= offset
        ]
        assert kept == expected and len(kept) > 0
    assert got.where(got.host == "hostC").count() == len(txns)


def test_events_level_ends_with_an_error_row(spark, damaged):
    result, _txns, faults, _ = damaged
    path = next(f["path"] for f in result.files if f["host"] == "hostB")
    rows = spark.read.format("binlog").option("level", "events").load(path).orderBy("pos").collect()
    last = rows[-1]
    assert (last["type"], last["pos"]) == ("ERROR", faults["hostB"]) and "CRC32" in last["info"]
    assert all(r["end_pos"] <= faults["hostB"] for r in rows[:-1])
    assert rows[-2]["end_pos"] == faults["hostB"]  # every good event before the fault is there
