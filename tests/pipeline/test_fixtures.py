"""The pipeline on the real MySQL binlogs of ../shared/research/fixtures/binlogs (hosts = origin directories),
checked against the facts INDEX.md states for every file."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import pytest

from gtidkit.gtid import GtidSet

pytestmark = pytest.mark.spark

_GTID_ON = re.compile(
    r"GTID ON \((\d+) Gtid(?:, (\d+) Gtid_tagged)?\)(?: gno (\d+)\.\.(\d+) sid ([0-9a-f]{32}))?"
)
_GTID_OFF = re.compile(r"GTID OFF \((\d+) Anonymous_gtid\)")
_PARSE = re.compile(r"PARSE: trailing (\d+) bytes at (\d+)")


def index_rows(root: Path) -> list[dict]:
    """The "Binlog files (verified)" table of INDEX.md as dicts."""
    rows = []
    text = (root / "INDEX.md").read_text()
    table = text.split("## Binlog files (verified)", 1)[1].split("\n## ", 1)[0]
    for line in table.splitlines():
        if not line.startswith("| `"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        path = cells[0].strip("`")
        host, _, name = path.partition("/")
        prev = cells[6].replace(" [tagged format]", "")
        rows.append(
            {
                "host": host,
                "file": name,
                "bytes": int(cells[2]),
                "version": cells[3].strip("`"),
                "gtids": cells[5],
                "prev": None if prev == "" else ("" if prev == "(empty)" else prev),
                "notes": cells[8],
            }
        )
    return rows


@pytest.fixture(scope="module")
def rows(binlog_fixtures):
    r = index_rows(binlog_fixtures)
    assert len(r) > 50
    return r


def _gtids_of(row) -> GtidSet:
    """sid:lo-hi of the row's "GTID events" cell (INDEX.md summarises one SID and the GNO range)."""
    m = _GTID_ON.search(row["gtids"])
    if not m or not m.group(5):
        return GtidSet()
    return GtidSet.from_intervals([(uuid.UUID(m.group(5)), "", int(m.group(3)), int(m.group(4)))])


def _first_gtid_of(row) -> GtidSet:
    m = _GTID_ON.search(row["gtids"])
    if not m or not m.group(5):
        return GtidSet()
    return GtidSet.from_intervals([(uuid.UUID(m.group(5)), "", int(m.group(3)), int(m.group(3)))])


#: Files where gtidkit stops earlier than INDEX.md's header-only walk: (host, file) -> fault offset. The Query
#: event at 91204 of this (aptly named) relay log has a garbage body whose status_vars_len runs past the event;
#: MySQL's Query_event decoder rejects it too (tests/binlog/test_binlog_fixtures.py DEVIATIONS says the same).
READER_DEVIATIONS = {("blackbeam__rust_mysql_common", "corrupt-relay-bin.000624"): 91204}


def test_every_file_as_index_md_says(fixtures_result, rows):
    files = {(f["host"], f["file"]): f for f in fixtures_result.files}
    assert set(files) == {(r["host"], r["file"]) for r in rows}  # companion files (text, .gz, .index) skipped
    for r in rows:
        if (r["host"], r["file"]) in READER_DEVIATIONS:
            continue
        f = files[(r["host"], r["file"])]
        where = f"{r['host']}/{r['file']}"
        assert f["size"] == r["bytes"] and f["good_bytes"] + f["bad_bytes"] == f["size"], where
        parse = _PARSE.search(r["notes"])
        if parse:
            assert (f["status"], f["error_offset"], f["good_bytes"]) == (
                "truncated",
                int(parse.group(2)),
                int(parse.group(2)),
            ), where
            continue
        if "MariaDB" in r["version"]:
            assert f["status"] == "unsupported" and f["error_offset"] == 4, where
            continue
        assert f["status"] == "ok", (where, f["error"])
        assert f["server_version"] == r["version"], where
        on, off = _GTID_ON.search(r["gtids"]), _GTID_OFF.search(r["gtids"])
        want_gtid = int(on.group(1)) + int(on.group(2) or 0) if on else 0
        assert f["gtid_transactions"] == want_gtid, where
        assert f["anonymous_transactions"] == (int(off.group(1)) if off else 0), where
        if r["prev"] is None:
            assert f["previous_gtids"] is None, where
        else:
            assert GtidSet.parse(f["previous_gtids"]) == GtidSet.parse(r["prev"]), where


def test_host_gtid_state_from_index_md(fixtures_result, rows):
    """Single-series GTID hosts: executed = Previous_gtids(newest) ∪ its GTIDs, purged = Previous_gtids(oldest)."""
    for host, files in [
        ("percona__percona-server-mysql-operator", ["binlog.000001", "binlog.000002", "binlog.000003"]),
        ("apecloud__mysql-binlog-connector-rust", ["mysql-bin.000080"]),
    ]:
        by_name = {r["file"]: r for r in rows if r["host"] == host}
        newest, oldest = by_name[files[-1]], by_name[files[0]]
        executed = GtidSet.parse(newest["prev"]) | _gtids_of(newest)
        got = fixtures_result.host(host)
        assert GtidSet.parse(got["gtid_executed_binlog"]) == executed
        assert GtidSet.parse(got["gtid_purged_binlog"]) == GtidSet.parse(oldest["prev"])
        assert got["server_uuid"] is not None and got["server_uuid"] in str(executed)
    apecloud = fixtures_result.host("apecloud__mysql-binlog-connector-rust")
    assert len(GtidSet.parse(apecloud["gtid_executed_binlog"])) == 62


def test_chain_break_between_real_files(fixtures_result, rows):
    """ikarishinjieva's mysql-bin56.000001 has an empty Previous_gtids and no GTID; .000002 starts with four
    UUIDs: the chain is broken there (INDEX.md rows). percona's three files chain correctly."""
    breaks = {(c["host"], c["file"]) for c in fixtures_result.checks_of("chain_break")}
    assert ("ikarishinjieva__mysql_binlog_utils", "mysql-bin56.000002") in breaks
    assert not any(h == "percona__percona-server-mysql-operator" for h, _ in breaks)
    row = next(r for r in rows if r["file"] == "mysql-bin56.000002")
    finding = next(c for c in fixtures_result.checks_of("chain_break") if c["file"] == "mysql-bin56.000002")
    assert GtidSet.parse(finding["gtid"]) == GtidSet.parse(row["prev"])
    assert finding["offset"] == 120  # Previous_gtids right after the 116-byte 5.6 FDE


def test_gtid_executed_covers_every_gtid_file(spark, fixtures_result, rows):
    ge = spark.read.parquet(str(fixtures_result.output / "gtid_executed")).collect()
    per_host: dict[str, GtidSet] = {}
    for r in ge:
        per_host[r["host"]] = per_host.get(r["host"], GtidSet()) | GtidSet.from_intervals(
            [(r["source_uuid"], r["tag"], r["interval_start"], r["interval_end"])]
        )
    for r in rows:
        if r["prev"]:
            assert GtidSet.parse(r["prev"]) <= per_host[r["host"]], r["file"]
        # the cell names one SID and the GNO range; a file may hold other SIDs too (rpl_atomic_ddl_rollback_view)
        assert _first_gtid_of(r) <= per_host.get(r["host"], GtidSet()), r["file"]


@pytest.mark.parametrize("host,name,offset", [(h, n, o) for (h, n), o in sorted(READER_DEVIATIONS.items())])
def test_corrupt_event_marked_and_every_byte_accounted(fixtures_result, host, name, offset):
    f = next(f for f in fixtures_result.files if (f["host"], f["file"]) == (host, name))
    assert f["status"] != "ok" and f["error_offset"] == offset, f
    assert f["good_bytes"] == offset and f["good_bytes"] + f["bad_bytes"] == f["size"], f
