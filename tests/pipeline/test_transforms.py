"""The pipeline's DataFrame steps on small hand-built tables, checked against GtidSet computed in plain Python."""

from __future__ import annotations

import random

import pytest

from gtidkit.gtid import GtidSet
from gtidkit.pipeline import checks as C
from gtidkit.pipeline import schemas
from gtidkit.pipeline import transforms as T
from tests.pipeline.frames import assert_frames_equal

pytestmark = pytest.mark.spark

A = "3e11fa47-71ca-11e1-9e33-c80aa9429562"
B = "4f22fb58-82db-22f2-af44-d91bba53a673"
TXN_COLS = schemas.field_names(schemas.TRANSACTIONS)


def txn(host, file, pos, sid=None, gno=None, tag="", *, idx=0, lc=0, sn=1, server_id=1):
    """A transactions row (anonymous when sid is None)."""
    return (
        host,
        file,
        idx,
        pos,
        pos + 100,
        sid,
        None if sid is None else tag,
        gno,
        sid is None,
        lc,
        sn,
        1_768_471_200 + pos,
        None,
        None,
        100,
        4,
        server_id,
        ["db"],
        True,
    )


def file_row(host, file, idx, prev_intervals, *, series="binlog", status="ok", prev_pos=126):
    prev_text = None if prev_intervals is None else str(GtidSet.from_intervals(prev_intervals))
    return (
        host,
        file,
        f"/x/{file}",
        idx,
        series,
        idx + 1,
        1000,
        "8.0.36",
        4,
        "CRC32",
        1,
        prev_text,
        None if prev_intervals is None else prev_pos,
        None if prev_intervals is None else [tuple(i) for i in prev_intervals],
        None,
        None,
        0,
        0,
        0,
        0,
        False,
        "ROTATE",
        None,
        None,
        None,
        status,
        None,
        None,
        1000,
        0,
    )


def test_gtid_executed_matches_gtidset(spark):
    rng = random.Random(7)
    gnos = sorted(rng.sample(range(1, 400), 250))
    rows = [txn("h1", "binlog.000002", 1000 + i, A, g, idx=1) for i, g in enumerate(gnos)]
    rows += [
        txn("h1", "binlog.000002", 5000 + i, B, g, tag="blue", idx=1) for i, g in enumerate([3, 4, 5, 9])
    ]
    rows += [txn("h1", "binlog.000002", 9000, None, None, idx=1)]  # anonymous: not in the set
    rows += [txn("h2", "binlog.000001", 4, A, 1)]
    prev = [(A, "", 500, 600), (A, "", 1, 2)]
    files = [file_row("h1", "binlog.000002", 1, prev), file_row("h2", "binlog.000001", 0, [])]
    t = spark.createDataFrame(rows, schemas.TRANSACTIONS)
    f = spark.createDataFrame(files, schemas.FILES)
    got = T.gtid_executed(t, f)
    expected_h1 = GtidSet.from_intervals(
        [(A, "", g, g) for g in gnos] + [(B, "blue", g, g) for g in (3, 4, 5, 9)] + prev
    )
    expected = [("h1", str(s), tag, a, b) for s, tag, a, b in expected_h1.intervals()] + [("h2", A, "", 1, 1)]
    assert_frames_equal(got, spark.createDataFrame(expected, schemas.GTID_EXECUTED))


def test_merge_intervals_overlaps_and_duplicates(spark):
    rows = [("k", 1, 3), ("k", 2, 2), ("k", 4, 4), ("k", 4, 4), ("k", 10, 20), ("k", 12, 13), ("k", 22, 22)]
    df = spark.createDataFrame(rows, "k STRING, interval_start BIGINT, interval_end BIGINT")
    assert_frames_equal(
        T.merge_intervals(df, ["k"]),
        spark.createDataFrame(
            [("k", 1, 4), ("k", 10, 20), ("k", 22, 22)],
            "k STRING, interval_start BIGINT, interval_end BIGINT",
        ),
    )


def test_checks_on_plain_rows(spark):
    rows = [
        txn("h", "binlog.000001", 200, A, 1),
        txn("h", "binlog.000001", 300, A, 2),
        txn("h", "binlog.000001", 400, None, None),  # anonymous between GTIDs
        txn("h", "binlog.000001", 500, A, 5),  # gap 3-4
        txn("h", "binlog.000002", 200, A, 2, idx=1),  # duplicate of 2, also in its Previous_gtids
        txn("h", "binlog.000002", 300, A, 6, idx=1),
    ]
    files = [
        file_row("h", "binlog.000001", 0, []),
        file_row("h", "binlog.000002", 1, [(A, "", 1, 2), (A, "", 5, 5)]),
    ]
    t = spark.createDataFrame(rows, schemas.TRANSACTIONS)
    f = spark.createDataFrame(files, schemas.FILES)
    ge = T.gtid_executed(t, f)
    gaps = C.gaps(ge, t, f).collect()
    assert [(r.host, r.file, r.offset, r.gtid) for r in gaps] == [("h", "binlog.000001", 500, f"{A}:3-4")]
    dups = sorted((r.file, r.offset, r.detail[:12]) for r in C.duplicate_gtids(t, f).collect())
    assert dups == [("binlog.000002", 200, "GTID already"), ("binlog.000002", 200, "GTID committ")]
    anon = C.anonymous_in_gtid_mode(t, f).collect()
    assert [(r.file, r.offset) for r in anon] == [("binlog.000001", 400)]


def test_parallelism_groups(spark):
    rows = [txn("h", "f1", i * 10, A, i + 1, lc=lc, sn=i + 1) for i, lc in enumerate([0, 0, 0, 3, 3, 5])]
    rows.append(txn("h", "f2", 10, A, 99, lc=0, sn=1, idx=1))
    t = spark.createDataFrame(rows, schemas.TRANSACTIONS)
    groups = T.parallelism(t)
    assert_frames_equal(
        groups,
        spark.createDataFrame(
            [("h", "f1", 0, 3, 1), ("h", "f1", 3, 2, 4), ("h", "f1", 5, 1, 6), ("h", "f2", 0, 1, 1)],
            schemas.PARALLELISM,
        ),
    )
    per_host = T.parallelism_per_host(groups).collect()[0]
    assert (per_host.commit_groups, per_host.avg_group_size, per_host.max_group_size) == (4, 7 / 4, 3)
