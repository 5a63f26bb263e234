"""RelayLog: relay files as MySQL's I/O thread writes them (queue_event), Retrieved_Gtid_Set of whole transactions,
source coordinates, relay_log_recovery of a torn tail, purge and RESET REPLICA.

Expected values come from the source's own binlog (what MySQL wrote or what the engine wrote as MySQL would),
never from the relay log's output.
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

import pytest

from gtidkit.binlog.constants import LOG_EVENT_RELAY_LOG_F, EventType
from gtidkit.binlog.file import read_events, read_transactions, scan_file
from gtidkit.engine import Server
from gtidkit.gtid import GtidSet
from gtidkit.replication.relay_log import RelayLog, default_basename

sys.path.insert(0, str(Path(__file__).parent))
from relay_helpers import binlog_paths, dump_stream, fake_rotate, file_events

FIXTURE_GTID_FILES = [
    "apecloud__mysql-binlog-connector-rust/mysql-bin.000080",
    "blackbeam__rust_mysql_common/binlog-invisible-columns.000001",
    "blackbeam__rust_mysql_common/binlog_56_gtid_reserved_word.000001",
    "blackbeam__rust_mysql_common/binlog_transaction_with_GTID_TAG.000001",
]


@pytest.fixture
def source(tmp_path):
    """A source datadir with a binlog of three files: DDL, multi-row inserts, a multi-statement transaction."""
    d = tmp_path / "source"
    with Server.open(d, log_bin=True, server_id=1, max_binlog_size=4096) as srv, srv.session() as s:
        s.execute("CREATE DATABASE r")
        s.execute("CREATE TABLE r.t (id INT PRIMARY KEY, v VARCHAR(40))")
        for i in range(60):
            if i % 9 == 4:
                s.execute("BEGIN")
                s.execute(f"INSERT INTO r.t VALUES ({i}, 'a')")
                s.execute(f"UPDATE r.t SET v = 'b{i}' WHERE id < {i}")
                s.execute("COMMIT")
            else:
                s.execute(f"INSERT INTO r.t VALUES ({i}, '{'x' * (i % 30)}')")
    return d


def _source_gtids(paths) -> GtidSet:
    out = GtidSet()
    for p in paths:
        for trx in read_transactions(p).transactions:
            if trx.gtid is not None:
                out = out.add(trx.gtid)
    return out


def test_default_basename_is_mysqls():
    assert default_basename().endswith("-relay-bin")
    assert default_basename("ch1").endswith("-relay-bin-ch1")


def test_engine_binlog_through_relay_log(tmp_path, source):
    paths = binlog_paths(source)
    assert len(paths) >= 3
    want = _source_gtids(paths)
    relay = RelayLog.open(tmp_path / "replica", basename="relay-bin", server_id=2)
    relay.begin_source()
    for ev in dump_stream(paths):
        relay.append(ev)
    assert relay.retrieved_gtids() == want
    # Read_Master_Log_Pos: end of the last event queued (a Stop event is not: queue_event skips it)
    last = paths[-1]
    ends = [pe.end_pos for pe in read_events(last) if pe.header.type_code != EventType.STOP_EVENT]
    assert relay.source_position() == (last.name, ends[-1])
    files = relay.index
    assert (tmp_path / "replica" / "relay-bin.index").read_text() == "".join(f"./{n}\n" for n in files)
    relay.close()
    # every relay file: magic, our FDE (RELAY_LOG_F), Previous_gtids = what was retrieved before it
    seen = GtidSet()
    relayed = []
    for name in files:
        evs = list(read_events(tmp_path / "replica" / name))
        assert evs[0].header.type_code == EventType.FORMAT_DESCRIPTION_EVENT
        assert evs[0].header.flags & LOG_EVENT_RELAY_LOG_F
        assert evs[0].header.server_id == 2
        assert evs[1].header.type_code == EventType.PREVIOUS_GTIDS_LOG_EVENT
        assert evs[1].event.gtids == seen
        for trx in read_transactions(tmp_path / "replica" / name).transactions:
            seen = seen.add(trx.gtid)
        relayed += [e for e in evs if not e.header.flags & LOG_EVENT_RELAY_LOG_F]
    assert seen == want
    # the source's events are in the relay log byte for byte (Stop and Previous_gtids excepted: queue_event)
    sent = [
        ev
        for p in paths
        for ev in file_events(p)
        if ev[4] not in (EventType.STOP_EVENT, EventType.PREVIOUS_GTIDS_LOG_EVENT)
    ]
    raw = []
    for name in files:
        data = (tmp_path / "replica" / name).read_bytes()
        for pe in read_events(tmp_path / "replica" / name):
            if not pe.header.flags & LOG_EVENT_RELAY_LOG_F and pe.header.type_code != EventType.ROTATE_EVENT:
                raw.append(data[pe.pos : pe.end_pos])
    assert raw == [ev for ev in sent if ev[4] != EventType.ROTATE_EVENT]


@pytest.mark.parametrize("name", FIXTURE_GTID_FILES, ids=lambda n: n.split("/")[-1])
def test_mysql_binlogs_through_relay_log(tmp_path, binlog_fixtures, name):
    path = binlog_fixtures / name
    scan = scan_file(path)
    want = GtidSet.from_gtids(t.gtid for t in scan.transactions if t.gtid is not None and t.complete)
    relay = RelayLog.open(tmp_path, basename="relay-bin", server_id=99)
    relay.begin_source()
    for ev in dump_stream([path]):
        relay.append(ev)
    assert relay.retrieved_gtids() == want
    reader = relay.reader(None)
    got = []
    while (trx := reader.next(timeout=0)) is not None:
        got.append(trx.gtid)
    assert got == [t.gtid for t in scan.transactions if t.complete]
    relay.close()


def test_gtid_joins_retrieved_only_with_its_last_event(tmp_path, source):
    events = list(dump_stream(binlog_paths(source)))
    relay = RelayLog.open(tmp_path / "r", basename="relay-bin", server_id=2)
    relay.begin_source()
    reader = relay.reader(None)
    sizes = []
    for ev in events:
        relay.append(ev)
        if ev[4] == EventType.GTID_LOG_EVENT:
            # the Gtid event alone: not retrieved, not readable
            sizes.append(len(relay.retrieved_gtids()))
    while reader.next(timeout=0) is not None:
        pass
    assert sizes == list(range(len(sizes)))
    relay.close()


def test_fake_rotate_checksum_fitted_to_relay_file(tmp_path, source):
    # the replica declared no checksum: the fake Rotate comes without a CRC; the relay file has CRC32 (RSC_1)
    paths = binlog_paths(source)
    relay = RelayLog.open(tmp_path / "r", basename="relay-bin", server_id=2)
    relay.begin_source()
    relay.append(fake_rotate(paths[0].name, checksum=False))
    for ev in list(dump_stream(paths))[1:]:
        relay.append(ev)
    relay.close()
    for name in relay.index:
        list(read_events(tmp_path / "r" / name))  # every CRC verifies


def test_reader_blocks_until_a_whole_transaction(tmp_path, source):
    events = list(dump_stream(binlog_paths(source)))
    relay = RelayLog.open(tmp_path / "r", basename="relay-bin", server_id=2)
    relay.begin_source()
    reader = relay.reader(None)
    got: list = []
    done = threading.Event()

    def consume():
        got.extend(reader)  # blocks between transactions, ends when the relay log closes
        done.set()

    t = threading.Thread(target=consume)
    t.start()
    for ev in events:
        relay.append(ev)
    relay.close()
    assert done.wait(10)
    t.join()
    assert GtidSet.from_gtids(x.gtid for x in got) == _source_gtids(binlog_paths(source))
    assert [x.source_file for x in got][-1] == binlog_paths(source)[-1].name


def test_transaction_cut_by_reconnection_is_dropped(tmp_path, source):
    events = list(dump_stream(binlog_paths(source)))
    gtid_at = [i for i, ev in enumerate(events) if ev[4] == EventType.GTID_LOG_EVENT]
    cut = gtid_at[5] + 2  # inside the sixth transaction
    relay = RelayLog.open(tmp_path / "r", basename="relay-bin", server_id=2)
    relay.begin_source()
    for ev in events[:cut]:
        relay.append(ev)
    before = relay.retrieved_gtids()
    assert len(before) == 5
    relay.begin_source()  # the connection broke; the receiver reconnects and resumes by auto-position
    for ev in dump_stream(binlog_paths(source)):
        relay.append(ev)
    relay.close()
    got = []
    for name in relay.index:
        got += [t.gtid for t in read_transactions(tmp_path / "r" / name).transactions]
    # the five whole ones twice (this stream re-sent everything), the cut one once, never a partial one
    assert len(got) == len(set(got)) + 5
    assert all(t.complete for n in relay.index for t in scan_file(tmp_path / "r" / n).transactions)


@pytest.mark.parametrize("cut_back", [1, 7, 30, 100])
def test_recovery_truncates_torn_tail(tmp_path, source, cut_back):
    events = list(dump_stream(binlog_paths(source)))
    d = tmp_path / "r"
    relay = RelayLog.open(d, basename="relay-bin", server_id=2)
    relay.begin_source()
    for ev in events:
        relay.append(ev)
    want = relay.retrieved_gtids()
    last = relay.index[-1]
    relay.close()
    # simulate a crash inside the last transaction of the last file: cut bytes off its end
    p = d / last
    data = p.read_bytes()
    p.write_bytes(data[: len(data) - cut_back])
    trxs = read_transactions(p).transactions
    lost = {t.gtid for t in read_transactions_from_bytes(data, tmp_path)} - {t.gtid for t in trxs}
    relay = RelayLog.open(d, basename="relay-bin", server_id=2)
    assert relay.retrieved_gtids() == want - GtidSet.from_gtids(g for g in lost if g is not None)
    assert read_transactions(p).complete_end == p.stat().st_size
    # a new relay file was started with the recovered set as its Previous_gtids
    newest = relay.index[-1]
    assert newest != last
    assert next(iter(read_events(d / newest, start=5))).event.gtids == relay.retrieved_gtids()
    relay.close()


def read_transactions_from_bytes(data: bytes, tmp_path: Path):
    p = tmp_path / "whole.bin"
    p.write_bytes(data)
    return read_transactions(p).transactions


def test_purge_and_reset(tmp_path, source):
    d = tmp_path / "r"
    relay = RelayLog.open(d, basename="relay-bin", server_id=2)
    relay.begin_source()
    for ev in dump_stream(binlog_paths(source)):
        relay.append(ev)
    files = list(relay.index)
    assert len(files) >= 3
    assert relay.purge_applied(files[2]) == files[:2]
    assert not (d / files[0]).exists() and relay.index[0] == files[2]
    relay.reset()
    assert relay.retrieved_gtids() == GtidSet() and relay.source_position() == ("", 0)
    assert relay.index == ["relay-bin.000001"]
    assert sorted(x for x in os.listdir(d) if x.startswith("relay-bin")) == [
        "relay-bin.000001",
        "relay-bin.index",
    ]
    relay.close()


def test_reopen_keeps_retrieved_and_source_position(tmp_path, source):
    d = tmp_path / "r"
    relay = RelayLog.open(d, basename="relay-bin", server_id=2)
    relay.begin_source()
    for ev in dump_stream(binlog_paths(source)):
        relay.append(ev)
    want = (relay.retrieved_gtids(), relay.source_position())
    relay.close()
    relay = RelayLog.open(d, basename="relay-bin", server_id=2)
    assert (relay.retrieved_gtids(), relay.source_position()) == want
    relay.close()


def _events_of(relay: RelayLog, d: Path) -> list:
    return [pe for name in relay.index for pe in read_events(d / name)]


def test_heartbeat_moves_position_and_is_not_written(tmp_path, source):
    from gtidkit.binlog.codec import encode_event
    from gtidkit.binlog.events.control import FormatDescriptionEvent, HeartbeatV2Event

    paths = binlog_paths(source)
    d = tmp_path / "r"
    relay = RelayLog.open(d, basename="relay-bin", server_id=2)
    relay.begin_source()
    for ev in dump_stream(paths):
        relay.append(ev)
    name, pos = relay.source_position()
    before = len(_events_of(relay, d))
    fde = FormatDescriptionEvent.for_server("8.0.36")
    # a heartbeat at the current position changes nothing (heartbeat_queue_event)
    relay.append(encode_event(HeartbeatV2Event(name, pos), fde, server_id=1, flags=0x20))
    assert relay.source_position() == (name, pos) and len(_events_of(relay, d)) == before
    # past it (the source skipped transactions the replica has): the position moves, carried by a Rotate
    relay.append(encode_event(HeartbeatV2Event(name, pos + 500), fde, server_id=1, flags=0x20))
    assert relay.source_position() == (name, pos + 500)
    evs = _events_of(relay, d)
    assert len(evs) == before + 1 and evs[-1].header.type_code == EventType.ROTATE_EVENT
    assert (evs[-1].event.next_file, evs[-1].event.position) == (name, pos + 500)
    assert not any(pe.header.type_code in (27, 41) for pe in evs)
    relay.close()
    relay = RelayLog.open(d, basename="relay-bin", server_id=2)
    assert relay.source_position() == (name, pos + 500)
    relay.close()


def test_previous_gtids_replaced_by_rotate_and_own_events_filtered(tmp_path, source):
    paths = binlog_paths(source)
    d = tmp_path / "r"
    # this replica has the source's server_id: queue_event drops every event carrying it (FDE and Rotate kept)
    relay = RelayLog.open(d, basename="relay-bin", server_id=1)
    relay.begin_source()
    for ev in dump_stream(paths):
        relay.append(ev)
    assert relay.retrieved_gtids() == GtidSet()
    kinds = {
        pe.header.type_code for pe in _events_of(relay, d) if not pe.header.flags & LOG_EVENT_RELAY_LOG_F
    }
    assert kinds <= {EventType.ROTATE_EVENT}  # only the positions carried by our own Rotates
    # the coordinates still follow the stream
    last = paths[-1]
    ends = [pe.end_pos for pe in read_events(last) if pe.header.type_code != EventType.STOP_EVENT]
    assert relay.source_position() == (last.name, ends[-1])
    relay.close()
    relay = RelayLog.open(tmp_path / "r2", basename="relay-bin", server_id=2)
    relay.begin_source()
    for ev in dump_stream(paths):
        relay.append(ev)
    relay.close()
    prev = [pe for pe in _events_of(relay, tmp_path / "r2") if pe.header.type_code == 35]
    assert all(pe.header.flags & LOG_EVENT_RELAY_LOG_F for pe in prev)  # only the relay files' own


def test_checksum_mismatch_refused(tmp_path, source):
    from gtidkit.errors import BinlogDecodeError

    events = list(dump_stream(binlog_paths(source)))
    relay = RelayLog.open(tmp_path / "r", basename="relay-bin", server_id=2)
    relay.begin_source()
    for ev in events[:5]:
        relay.append(ev)
    bad = bytearray(events[5])
    bad[-6] ^= 0xFF
    with pytest.raises(BinlogDecodeError):
        relay.append(bytes(bad))
    with pytest.raises(BinlogDecodeError):
        relay.append(events[5][:-1])  # shorter than its header says
    relay.close()


def test_source_without_checksum(tmp_path):
    d = tmp_path / "source"
    with Server.open(d, log_bin=True, server_id=1, binlog_checksum="NONE") as srv, srv.session() as s:
        s.execute("CREATE DATABASE r")
        s.execute("CREATE TABLE r.t (id INT PRIMARY KEY)")
        for i in range(5):
            s.execute(f"INSERT INTO r.t VALUES ({i})")
        want = srv.gtid_state.executed()
    relay = RelayLog.open(tmp_path / "r", basename="relay-bin", server_id=2)
    relay.begin_source()
    for ev in dump_stream(binlog_paths(d), checksum=True):  # the replica declared CRC32, the source has none
        relay.append(ev)
    assert relay.retrieved_gtids() == want
    relay.close()
    for name in relay.index:
        list(read_events(tmp_path / "r" / name))
    relay = RelayLog.open(tmp_path / "r", basename="relay-bin", server_id=2)
    assert relay.retrieved_gtids() == want
    assert GtidSet.from_gtids(t.gtid for t in _drain(relay.reader(None))) == want
    relay.close()


@pytest.mark.parametrize("max_size", [0, 2048], ids=["one-file-per-source-file", "size-rotations"])
def test_reader_from_a_position_knows_the_source_file(tmp_path, source, max_size):
    paths = binlog_paths(source)
    relay = RelayLog.open(tmp_path / "r", basename="relay-bin", server_id=2, max_relay_log_size=max_size)
    relay.begin_source()
    for ev in dump_stream(paths):
        relay.append(ev)
    everything = list(_drain(relay.reader(None)))
    mid = everything[len(everything) // 2]
    rest = list(_drain(relay.reader((mid.file, mid.end_pos))))
    assert [(t.gtid, t.source_file, t.source_end_pos) for t in rest] == [
        (t.gtid, t.source_file, t.source_end_pos) for t in everything[len(everything) // 2 + 1 :]
    ]
    for k in (1, 7, len(everything) - 3):  # every start position gives the same rest
        at = everything[k]
        rest = list(_drain(relay.reader((at.file, at.end_pos))))
        assert [(t.gtid, t.source_file, t.source_end_pos, t.file, t.end_pos) for t in rest] == [
            (t.gtid, t.source_file, t.source_end_pos, t.file, t.end_pos) for t in everything[k + 1 :]
        ]
    # a position that is not an event boundary: the file is read from its start, transactions ending before it
    # are skipped all the same
    rest = list(_drain(relay.reader((mid.file, mid.end_pos - 1))))
    assert [t.gtid for t in rest] == [t.gtid for t in everything[len(everything) // 2 :]]
    # source coordinates match the source's binlog: each transaction ends where the source's does
    ends = {t.gtid: (p.name, t.end_pos) for p in paths for t in read_transactions(p).transactions}
    assert all(ends[t.gtid] == (t.source_file, t.source_end_pos) for t in everything)
    relay.close()


def _drain(reader):
    while (trx := reader.next(timeout=0)) is not None:
        yield trx


def test_queue_status_names_last_queued_and_queueing(tmp_path, source):
    events = list(dump_stream(binlog_paths(source)))
    gtid_at = [i for i, ev in enumerate(events) if ev[4] == EventType.GTID_LOG_EVENT]
    relay = RelayLog.open(tmp_path / "r", basename="relay-bin", server_id=2)
    relay.begin_source()
    assert relay.queue_status() == (None, None)
    for ev in events[: gtid_at[3] + 1]:
        relay.append(ev)
    trxs = [t for p in binlog_paths(source) for t in read_transactions(p).transactions]
    last, queueing = relay.queue_status()
    assert (last.gtid, queueing.gtid) == (trxs[2].gtid, trxs[3].gtid)
    assert last.original_commit_timestamp == trxs[2].original_commit_timestamp
    for ev in events[gtid_at[3] + 1 : gtid_at[4]]:
        relay.append(ev)
    assert [g.gtid if g else None for g in relay.queue_status()] == [trxs[3].gtid, None]
    relay.close()
