"""The generator: fleets and corpora read back cleanly with the reader, and the manifest's anomalies are really
in the bytes (checked with the reader, never with the generator's own bookkeeping)."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import uuid
from itertools import pairwise
from pathlib import Path

import pytest
from click.testing import CliRunner

from gtidkit.binlog.constants import EventType
from gtidkit.binlog.file import read_events, scan_file
from gtidkit.cli.binlog_generate import parse_size
from gtidkit.cli.main import cli
from gtidkit.generate import generate_corpus, generate_fleet, load_manifest
from gtidkit.gtid import GtidSet


def _binlogs(host_dir: Path) -> list[Path]:
    return sorted(p for p in host_dir.iterdir() if p.name.startswith("binlog."))


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("fleet") / "fleet"
    manifest = generate_fleet(out, seed=11, transactions=300, max_binlog_size=96 * 1024)
    scans = {h.name: [scan_file(p) for p in _binlogs(out / h.directory)] for h in manifest.hosts}
    return out, manifest, scans


def _executed_from_bytes(scans) -> GtidSet:
    """GTIDs a host has according to its binlogs: the oldest Previous_gtids plus every transaction's GTID."""
    s = scans[0].previous_gtids
    return s | GtidSet.from_gtids(t.gtid for f in scans for t in f.transactions if t.gtid is not None)


def test_fleet_reads_back_cleanly(fleet) -> None:
    out, manifest, scans = fleet
    assert [h.name for h in manifest.hosts] == ["source", "replica1", "replica2"]
    for host in manifest.hosts:
        files = scans[host.name]
        assert [Path(f.file).name for f in files] == [f.name for f in host.files]
        assert len(files) >= 3, "expected several rotations"
        for f, info in zip(files, host.files):
            assert f.error is None, (f.file, f.error, f.error_offset)
            assert f.server_version == "8.0.36" and f.checksum_alg == 1
            assert f.good_bytes == f.size == (out / info.path).stat().st_size
            assert all(t.complete for t in f.transactions)
            assert str(f.previous_gtids) == info.previous_gtids
            assert len(f.transactions) == info.transactions
            assert f.event_count == info.events
        # WL#6559 §5 GTID_EXECUTED from binlogs = last Previous_gtids + last file's GTIDs; on the host with the
        # chain break that set lacks the GTID the broken Previous_gtids forgot.
        last = files[-1].previous_gtids | GtidSet.from_gtids(t.gtid for t in files[-1].transactions if t.gtid)
        assert str(last) == host.gtid_executed
        lost = [
            a["missing"]
            for a in manifest.anomalies_of("previous_gtids_chain_break")
            if a["host"] == host.name
        ]
        assert str(_executed_from_bytes(files) - last) == (lost[0] if lost else "")


def test_transaction_length_and_log_pos_in_fleet(fleet) -> None:
    out, manifest, _ = fleet
    path = out / manifest.hosts[1].files[0].path
    events = list(read_events(path))
    gtids = [
        e
        for e in events
        if e.header.type_code in (EventType.GTID_LOG_EVENT, EventType.ANONYMOUS_GTID_LOG_EVENT)
    ]
    ends = {t.begin_pos: t.end_pos for t in scan_file(path).transactions}
    assert gtids
    for g in gtids:
        assert g.event.transaction_length == ends[g.pos] - g.pos
    assert all(e.header.log_pos == e.end_pos for e in events)


def test_rotation_and_previous_gtids_chain(fleet) -> None:
    _, manifest, scans = fleet
    breaks = {(a["host"], a["file"]): a for a in manifest.anomalies_of("previous_gtids_chain_break")}
    assert len(breaks) == 1
    found = {}
    for host in manifest.hosts:
        files = scans[host.name]
        for a, b in pairwise(files):
            assert a.ends_with == "ROTATE" and a.next_file == Path(b.file).name and not a.in_use
            expected = a.previous_gtids | GtidSet.from_gtids(t.gtid for t in a.transactions if t.gtid)
            if b.previous_gtids != expected:
                found[(host.name, Path(b.file).name)] = (expected, b.previous_gtids)
    assert set(found) == set(breaks)
    for key, (expected, got) in found.items():
        assert str(expected) == breaks[key]["expected"] and str(got) == breaks[key]["found"]
        prev_event = list(read_events(fleet[0] / key[0] / key[1]))[1]
        assert prev_event.header.type_code == EventType.PREVIOUS_GTIDS_LOG_EVENT
        assert breaks[key]["pos"] == prev_event.pos == 126
        assert str(expected - got) == breaks[key]["missing"]
    last = {h.name: scans[h.name][-1] for h in manifest.hosts}
    assert (last["source"].in_use, last["source"].ends_with) == (True, None)
    assert (last["replica1"].in_use, last["replica1"].ends_with) == (True, None)
    assert (last["replica2"].in_use, last["replica2"].ends_with) == (False, "STOP")


def test_errant_gtid_is_in_the_bytes(fleet) -> None:
    _, manifest, scans = fleet
    (errant,) = manifest.anomalies_of("errant_gtid")
    replica = manifest.host(errant["host"])
    source_has = _executed_from_bytes(scans[errant["source"]])
    extra = _executed_from_bytes(scans[replica.name]) - source_has
    assert str(extra) == errant["gtid"]
    assert str(extra).startswith(replica.server_uuid)
    (trx,) = [
        t for f in scans[replica.name] for t in f.transactions if t.gtid and str(t.gtid) == errant["gtid"]
    ]
    assert (Path(trx.file).name, trx.begin_pos) == (errant["file"], errant["pos"])
    assert trx.server_id == replica.server_id  # written locally, not replicated
    assert trx.original_commit_timestamp == trx.immediate_commit_timestamp
    # the other replicas have nothing the source lacks
    for h in manifest.hosts[2:]:
        assert not (_executed_from_bytes(scans[h.name]) - source_has)


def test_gno_gap_is_in_the_bytes(fleet) -> None:
    _, manifest, scans = fleet
    gaps = manifest.anomalies_of("gno_gap")
    assert {g["host"] for g in gaps} == {h.name for h in manifest.hosts}
    for g in gaps:
        sid = uuid.UUID(g["sid"])
        gnos = sorted(
            t.gtid.gno for f in scans[g["host"]] for t in f.transactions if t.gtid and t.gtid.sid == sid
        )
        holes = [n for a, b in pairwise(gnos) for n in range(a + 1, b)]
        assert [f"{sid}:{n}" for n in holes] == [g["missing"]]
        (after,) = [
            t for f in scans[g["host"]] for t in f.transactions if t.gtid and str(t.gtid) == g["after"]
        ]
        assert (Path(after.file).name, after.begin_pos) == (g["file"], g["pos"])


def test_anonymous_transaction_is_in_the_bytes(fleet) -> None:
    _, manifest, scans = fleet
    (anon,) = manifest.anomalies_of("anonymous_in_gtid_mode_on")
    found = [
        (Path(f.file).name, t.begin_pos) for f in scans[anon["host"]] for t in f.transactions if t.anonymous
    ]
    assert found == [(anon["file"], anon["pos"])]
    for h in manifest.hosts:
        if h.name != anon["host"]:
            assert not any(t.anonymous for f in scans[h.name] for t in f.transactions)
    # it sits in a GTID_MODE=ON stretch: its file also holds GTID transactions on both sides of it
    f = next(f for f in scans[anon["host"]] if Path(f.file).name == anon["file"])
    i = next(i for i, t in enumerate(f.transactions) if t.anonymous)
    assert 0 < i < len(f.transactions) - 1 and f.transactions[i - 1].gtid and f.transactions[i + 1].gtid


def test_replicas_carry_source_gtids_with_original_timestamps(fleet) -> None:
    _, manifest, scans = fleet
    src = manifest.host("source")
    src_trx = {str(t.gtid): t for f in scans["source"] for t in f.transactions if t.gtid}
    assert all(t.original_commit_timestamp == t.immediate_commit_timestamp for t in src_trx.values())
    for h in manifest.hosts[1:]:
        replicated = [
            t for f in scans[h.name] for t in f.transactions if t.gtid and str(t.gtid.sid) == src.server_uuid
        ]
        assert len(replicated) > 100
        for t in replicated:
            s = src_trx[str(t.gtid)]
            assert t.original_commit_timestamp == s.immediate_commit_timestamp < t.immediate_commit_timestamp
            assert t.server_id == src.server_id
    assert json.loads((fleet[0] / "topology.json").read_text()) == {
        "replica1": "source",
        "replica2": "source",
    }


def test_logical_clock_forms_commit_groups(fleet) -> None:
    _, _, scans = fleet
    for files in scans.values():
        for f in files:
            trxs = f.transactions
            assert [t.sequence_number for t in trxs] == list(range(1, len(trxs) + 1))
            assert trxs[0].last_committed == 0
            assert all(0 <= t.last_committed < t.sequence_number for t in trxs)
            groups = {t.last_committed for t in trxs}
            assert len(groups) < len(trxs), "some transactions must share a commit group"


def test_event_mix_is_realistic(fleet) -> None:
    out, manifest, _ = fleet
    counts: dict[int, int] = {}
    for info in manifest.host("source").files:
        for e in read_events(out / info.path):
            counts[e.header.type_code] = counts.get(e.header.type_code, 0) + 1
    for t in (
        EventType.TABLE_MAP_EVENT,
        EventType.WRITE_ROWS_EVENT,
        EventType.UPDATE_ROWS_EVENT,
        EventType.DELETE_ROWS_EVENT,
        EventType.XID_EVENT,
        EventType.QUERY_EVENT,
    ):
        assert counts.get(t, 0) > 0, t.name
    # DDL: some transactions are a lone Query (Gtid + Query, no Xid)
    assert counts[EventType.QUERY_EVENT] > counts[EventType.XID_EVENT]


def test_manifest_round_trip(fleet) -> None:
    out, manifest, _ = fleet
    assert load_manifest(out) == manifest
    assert load_manifest(out / "manifest.json").total_bytes == sum(
        p.stat().st_size for h in manifest.hosts for p in _binlogs(out / h.directory)
    )


def test_fleet_is_deterministic(tmp_path: Path) -> None:
    def digest(d: Path) -> str:
        h = hashlib.sha256()
        for p in sorted(d.rglob("*")):
            if p.is_file():
                h.update(p.relative_to(d).as_posix().encode() + p.read_bytes())
        return h.hexdigest()

    a = generate_fleet(tmp_path / "a", seed=5, transactions=40, replicas=1)
    b = generate_fleet(tmp_path / "b", seed=5, transactions=40, replicas=1)
    c = generate_fleet(tmp_path / "c", seed=6, transactions=40, replicas=1)
    assert digest(tmp_path / "a") == digest(tmp_path / "b") != digest(tmp_path / "c")
    assert a == b != c


def test_fleet_options_and_refusals(tmp_path: Path) -> None:
    m = generate_fleet(
        tmp_path / "f", seed=2, transactions=40, replicas=1, chain_break=False, anonymous=False
    )
    assert {a["type"] for a in m.anomalies} == {"gno_gap", "errant_gtid"}
    with pytest.raises(FileExistsError):
        generate_fleet(tmp_path / "f", seed=2, transactions=40)
    generate_fleet(tmp_path / "f", seed=3, transactions=40, overwrite=True)
    other = tmp_path / "other"
    other.mkdir()
    (other / "precious.txt").write_text("keep me")
    with pytest.raises(FileExistsError):
        generate_fleet(other, overwrite=True)
    assert (other / "precious.txt").exists()
    with pytest.raises(ValueError):
        generate_fleet(tmp_path / "g", transactions=5)


def test_duplicate_gtid_option(tmp_path: Path) -> None:
    m = generate_fleet(
        tmp_path / "f", seed=8, transactions=80, replicas=1, max_binlog_size=40_000, duplicate=True
    )
    (dup,) = m.anomalies_of("duplicate_gtid")
    where = [
        (Path(f.file).name, t.begin_pos)
        for p in _binlogs(tmp_path / "f" / dup["host"])
        for f in [scan_file(p)]
        for t in f.transactions
        if t.gtid and str(t.gtid) == dup["gtid"]
    ]
    assert where == [(dup["first_file"], dup["first_pos"]), (dup["file"], dup["pos"])]
    # only there: every other GTID of the fleet appears once per host
    for h in m.hosts:
        gtids = [
            str(t.gtid)
            for p in _binlogs(tmp_path / "f" / h.name)
            for t in scan_file(p).transactions
            if t.gtid
        ]
        repeated = {g for g in gtids if gtids.count(g) > 1}
        assert repeated == ({dup["gtid"]} if h.name == dup["host"] else set())


def test_corpus_reads_back(tmp_path: Path) -> None:
    out = tmp_path / "corpus"
    seen = []
    m = generate_corpus(out, 3_000_000, 4, seed=3, max_binlog_size=400_000, progress=seen.append)
    assert [h.role for h in m.hosts] == ["source", "replica", "replica", "source"]
    assert m.topology == {"db02": "db01", "db03": "db01"}
    total = 0
    executed = {}
    for h in m.hosts:
        scans = [scan_file(p) for p in _binlogs(out / h.directory)]
        assert len(scans) == len(h.files) >= 2
        for s, info in zip(scans, h.files):
            assert s.error is None, (s.file, s.error, s.error_offset)
            assert s.event_count == info.events and len(s.transactions) == info.transactions
            total += s.size
        for a, b in pairwise(scans):
            assert b.previous_gtids == a.previous_gtids | GtidSet.from_gtids(t.gtid for t in a.transactions)
        executed[h.name] = _executed_from_bytes(scans)
        trxs = [t for sc in scans for t in sc.transactions]
        if h.role == "replica":  # replicated: the source's server_id and commit time, a later local commit
            assert all(t.server_id == m.host(h.source).server_id for t in trxs)
            assert all(t.original_commit_timestamp < t.immediate_commit_timestamp for t in trxs)
        else:
            assert all(t.original_commit_timestamp == t.immediate_commit_timestamp for t in trxs)
        assert str(executed[h.name]) == h.gtid_executed
        assert abs(sum(s.size for s in scans) - 3_000_000 / 4) < 40_000
    assert total == m.total_bytes
    assert 0.95 * total < sum(seen) <= total  # progress counts transaction bytes (not file headers)
    assert executed["db02"] <= executed["db01"] and executed["db03"] <= executed["db01"]
    assert executed["db04"].isdisjoint(executed["db01"])


MARIADB_BINLOG = shutil.which("mariadb-binlog") or shutil.which("mysqlbinlog")


@pytest.mark.skipif(
    MARIADB_BINLOG is None, reason="mariadb-binlog not on PATH (Debian package mariadb-client)"
)
def test_generated_files_pass_mariadb_binlog(tmp_path: Path, fleet) -> None:
    out, manifest, _ = fleet
    m = generate_corpus(tmp_path / "c", 600_000, 3, seed=1)
    paths = [out / manifest.host("replica1").files[0].path, tmp_path / "c" / m.hosts[1].files[0].path]
    for p in paths:
        res = subprocess.run(
            [MARIADB_BINLOG, "--verify-binlog-checksum", str(p)], capture_output=True, text=True, check=False
        )
        assert res.returncode == 0, res.stderr
        assert "crc check failed" not in (res.stdout + res.stderr).lower()


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1500", 1500),
        ("50MB", 50_000_000),
        ("1GB", 10**9),
        ("64MiB", 64 << 20),
        ("1.5 GiB", 3 << 29),
        ("256kib", 256 << 10),
    ],
    ids=str,
)
def test_parse_size(text: str, value: int) -> None:
    assert parse_size(text) == value


def test_cli_fleet_and_corpus(tmp_path: Path) -> None:
    runner = CliRunner()
    res = runner.invoke(
        cli,
        [
            "binlog",
            "generate",
            "fleet",
            "--output",
            str(tmp_path / "f"),
            "--seed",
            "4",
            "--transactions",
            "60",
            "--json",
        ],
    )
    assert res.exit_code == 0, res.output
    assert json.loads(res.output) == json.loads((tmp_path / "f" / "manifest.json").read_text())
    res = runner.invoke(cli, ["binlog", "generate", "fleet", "--output", str(tmp_path / "f")])
    assert res.exit_code == 1 and "not empty" in res.output
    res = runner.invoke(
        cli,
        ["binlog", "generate", "corpus", "--output", str(tmp_path / "c"), "--size", "1MB", "--hosts", "2"],
    )
    assert res.exit_code == 0, res.output
    assert load_manifest(tmp_path / "c").kind == "corpus"
    res = runner.invoke(
        cli, ["binlog", "generate", "corpus", "--output", str(tmp_path / "d"), "--size", "lots"]
    )
    assert res.exit_code == 2 and "not a size" in res.output
