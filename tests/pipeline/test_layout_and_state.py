"""Driver-side pieces without Spark: input discovery, Previous_gtids chains, topology and errant sets."""

from __future__ import annotations

import json

import pytest

from gtidkit.gtid import GtidSet
from gtidkit.pipeline import gtid_state as S
from gtidkit.pipeline.layout import BINLOG_MAGIC, LayoutError, discover

A = "3e11fa47-71ca-11e1-9e33-c80aa9429562"
B = "4f22fb58-82db-22f2-af44-d91bba53a673"
C = "5a33ac69-93ec-33a3-b055-ea2ccb64b784"


def _touch(path, body=b""):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(BINLOG_MAGIC + body)
    return path


def test_discover_hosts_series_and_skips(tmp_path):
    for n in (10, 9, 11):
        _touch(tmp_path / "db1" / f"binlog.{n:06d}")
    _touch(tmp_path / "db2" / "sub" / "relay.000001")
    (tmp_path / "db2" / "notes.txt").write_text("not a binlog")
    (tmp_path / "manifest.json").write_text("{}")
    layout = discover(tmp_path)
    assert [(f.host, f.file, f.file_index) for f in layout.files] == [
        ("db1", "binlog.000009", 0),
        ("db1", "binlog.000010", 1),
        ("db1", "binlog.000011", 2),
        ("db2", "sub/relay.000001", 0),
    ]
    assert layout.files[0].series == "binlog" and layout.files[3].series == "sub/relay"
    assert sorted(reason for _p, reason in layout.skipped) == ["no binlog magic (fe 62 69 6e)"] * 2


def test_index_file_gives_the_order(tmp_path):
    for name in ("binlog.000001", "binlog.000002"):
        _touch(tmp_path / "h" / name)
    (tmp_path / "h" / "binlog.index").write_text("./binlog.000002\n./binlog.000001\n")
    assert [f.file for f in discover(tmp_path).files] == ["binlog.000002", "binlog.000001"]


def test_mapping_file(tmp_path):
    a = _touch(tmp_path / "x" / "a.000001")
    b = _touch(tmp_path / "y" / "b.000001")
    mapping = tmp_path / "hosts.json"
    mapping.write_text(json.dumps({"primary": ["x/a.000001"], "replica": [str(b)]}))
    layout = discover(mapping)
    assert [(f.host, f.path) for f in layout.files] == [("primary", str(a)), ("replica", str(b))]


@pytest.mark.parametrize("content", ["[1, 2]", "{not json", '{"h": "x"}'])
def test_bad_mapping_file(tmp_path, content):
    mapping = tmp_path / "m.json"
    mapping.write_text(content)
    with pytest.raises(LayoutError, match="m.json"):
        discover(mapping)


def test_no_binlogs(tmp_path):
    (tmp_path / "h").mkdir()
    with pytest.raises(LayoutError, match="no binlog files"):
        discover(tmp_path)


def _facts(host, name, idx, prev, series="binlog"):
    return S.FileFacts(host, name, idx, series, None if prev is None else GtidSet.parse(prev), 126, "ok")


def test_chain_breaks():
    files = [
        _facts("h", "binlog.1", 0, f"{A}:1-10"),
        _facts("h", "binlog.2", 1, f"{A}:1-20"),
        _facts("h", "binlog.3", 2, f"{A}:1-24"),
        _facts("h", "other.1", 3, f"{B}:1-5", series="other"),
    ]
    gtids = {("h", "binlog.1"): GtidSet.parse(f"{A}:11-20"), ("h", "binlog.2"): GtidSet.parse(f"{A}:21-25")}
    rows = S.chain_breaks(files, gtids)
    assert [(r[0], r[2], r[3], r[4], r[5]) for r in rows] == [
        ("chain_break", "h", "binlog.3", 126, f"{A}:25")
    ]
    assert "missing" in rows[0][6]


def test_executed_and_purged_simple_recovery():
    files = [_facts("h", "binlog.1", 0, f"{A}:1-10"), _facts("h", "binlog.2", 1, f"{A}:1-19")]
    gtids = {("h", "binlog.1"): GtidSet.parse(f"{A}:11-20"), ("h", "binlog.2"): GtidSet.parse(f"{A}:21-22")}
    executed, purged = S.executed_and_purged(files, gtids)["h"]
    # WL#6559 §5: newest Previous_gtids ∪ newest GTIDs (the damaged chain propagates, as on a server)
    assert executed == GtidSet.parse(f"{A}:1-19:21-22")
    assert purged == GtidSet.parse(f"{A}:1-10")


def test_infer_topology_and_errant():
    uuids = S.infer_server_uuids(
        [
            {"host": "src", "sid": A, "n": 100},
            {"host": "r1", "sid": B, "n": 1},
            {"host": "r2", "sid": A, "n": 0},
        ]
    )
    assert uuids == {"src": A, "r1": B}
    counts = [
        {"host": "src", "sid": A, "n": 100},
        {"host": "r1", "sid": A, "n": 99},
        {"host": "r1", "sid": B, "n": 1},
        {"host": "r2", "sid": A, "n": 97},
        {"host": "r2", "sid": C, "n": 2},
    ]
    topo = S.infer_topology(uuids, counts)
    assert topo == {"r1": ["src"], "r2": ["src"]}
    executed = {
        "src": GtidSet.parse(f"{A}:1-100"),
        "r1": GtidSet.parse(f"{A}:1-99,{B}:1"),
        "r2": GtidSet.parse(f"{A}:1-97,{C}:1-2"),
    }
    errant = S.errant_sets(executed, topo)
    assert errant == {"r1": GtidSet.parse(f"{B}:1"), "r2": GtidSet.parse(f"{C}:1-2")}


def test_load_topology(tmp_path):
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"r1": "s", "r2": ["s", "t"]}))
    assert S.load_topology(p) == {"r1": ["s"], "r2": ["s", "t"]}
    p.write_text(json.dumps({"r1": 3}))
    with pytest.raises(ValueError, match="t.json"):
        S.load_topology(p)
