"""Applier (the SQL thread) over a RelayLog: a source engine's binlog and real MySQL binlogs relayed and applied
into a replica engine, binlog off (GTID rows with the data, WL#6559) and log_replica_updates on (original GTIDs
in the replica's binlog); stop, restart, errors, purge.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from gtidkit.binlog.file import read_events, read_transactions
from gtidkit.engine import Server
from gtidkit.gtid import GtidSet
from gtidkit.replication.applier import Applier
from gtidkit.replication.relay_log import RelayLog

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from relay_helpers import binlog_paths, dump_stream
from workload import checksum, workload

MODES = {
    "binlog_off": {"log_bin": False, "server_id": 2},
    "log_replica_updates": {"log_bin": True, "log_replica_updates": True, "server_id": 2},
}


@pytest.fixture
def source(tmp_path):
    d = tmp_path / "source"
    with Server.open(d, log_bin=True, server_id=1, max_binlog_size=8192) as srv, srv.session() as s:
        workload(s)
        state = (checksum(srv), srv.gtid_state.executed())
    return d, state


def relay_all(relay: RelayLog, source_dir: Path) -> None:
    relay.begin_source()
    for ev in dump_stream(binlog_paths(source_dir)):
        relay.append(ev)


@pytest.mark.parametrize("mode", sorted(MODES))
def test_apply_source_binlog(tmp_path, source, mode):
    src_dir, (src_sum, src_gtids) = source
    with Server.open(tmp_path / "replica", **MODES[mode]) as srv:
        relay = RelayLog.open(tmp_path / "replica", server=srv, basename="relay-bin", max_relay_log_size=4096)
        applier = Applier(srv, relay)
        applier.start()
        relay_all(relay, src_dir)
        assert srv.gtid_state.wait_for_executed(src_gtids, 30)
        assert applier.stop(10)
        assert applier.last_error is None
        assert checksum(srv) == src_sum
        assert srv.gtid_state.executed() == src_gtids
        assert relay.retrieved_gtids() == src_gtids
        last_src = [t for p in binlog_paths(src_dir) for t in read_transactions(p).transactions][-1]
        done = applier.last_applied_transaction
        assert done is not None and done.gtid == str(last_src.gtid) and not done.skipped
        assert done.original_commit_timestamp == last_src.original_commit_timestamp
        assert done.start_apply_timestamp <= done.end_apply_timestamp
        # applied relay files were purged (relay_log_purge=ON): only the file holding the last one is left,
        # plus the active one
        assert len(relay.index) <= 2
        if mode == "binlog_off":
            assert srv.binlog is None
            with srv.session() as s:
                rows = s.execute("SELECT COUNT(*) FROM mysql.gtid_executed")[-1].rows
            assert rows[0][0] >= 1
        else:
            seen = [
                t.gtid
                for name in srv.binlog.existing_files()
                for t in read_transactions(srv.binlog.path(name)).transactions
            ]
            assert GtidSet.from_gtids(seen) == src_gtids and len(seen) == len(set(seen))
            # the original GTIDs keep the source's original_commit_timestamp (Gtid_log_event::do_apply_event)
            src_ts = {
                t.gtid: t.original_commit_timestamp
                for p in binlog_paths(src_dir)
                for t in read_transactions(p).transactions
            }
            rep_ts = {
                t.gtid: t.original_commit_timestamp
                for name in srv.binlog.existing_files()
                for t in read_transactions(srv.binlog.path(name)).transactions
            }
            assert rep_ts == src_ts
        relay.close()


def test_live_relay_stop_and_restart(tmp_path):
    """The applier follows a relay log being written; STOP finishes the current transaction; START resumes from
    the position stored with the data; nothing is applied twice (r.nopk has no key: a double apply shows)."""
    src_dir = tmp_path / "source"
    with Server.open(tmp_path / "replica", log_bin=False, server_id=2) as rep:
        relay = RelayLog.open(tmp_path / "replica", server=rep, basename="relay-bin", max_relay_log_size=2048)
        applier = Applier(rep, relay)
        applier.start()
        with Server.open(src_dir, log_bin=True, server_id=1, max_binlog_size=4096) as src, src.session() as s:
            workload(s, 20)
            relay_all(relay, src_dir)  # first half, applied while running
            assert rep.gtid_state.wait_for_executed(src.gtid_state.executed(), 30)
            assert applier.stop(10) and not applier.running
            workload(s, 20, start=20)
            # a reconnection re-sends everything (the test stream is not auto-positioned): executed GTIDs skip
            relay_all(relay, src_dir)
            applier.start()
            assert rep.gtid_state.wait_for_executed(src.gtid_state.executed(), 30)
            want = (checksum(src), src.gtid_state.executed())
        assert applier.stop(10)
        assert (checksum(rep), rep.gtid_state.executed()) == want
        assert applier.skipped > 0
        relay.close()


def test_query_error_stops_with_mysql_wording(tmp_path, source):
    src_dir, (_sum, _gtids) = source
    with Server.open(tmp_path / "replica", log_bin=False, server_id=2) as srv:
        with srv.session() as s:  # a database the source's first transaction creates
            s.execute("CREATE DATABASE r")
        relay = RelayLog.open(tmp_path / "replica", server=srv, basename="relay-bin")
        applier = Applier(srv, relay)
        applier.start()
        relay_all(relay, src_dir)
        first = next(iter(read_transactions(binlog_paths(src_dir)[0]).transactions))
        applier._thread.join(30)
        assert not applier.running
        err = applier.last_error
        assert err is not None and err.errno == 1007
        # rpl_rli_pdb.cc Slave_worker::do_report + log_event.cc Query_log_event::do_apply_event
        head = (
            f"Worker 1 failed executing transaction '{first.gtid}' at source log binlog.000001, "
            f"end_log_pos {first.end_pos}"
        )
        assert err.message == (
            head + "; Error 'Can't create database 'r'; database exists' on query. Default database: ''. "
            "Query: 'CREATE DATABASE r'"
        )
        assert err.coordinator_message == (
            "Coordinator stopped because there were error(s) in the worker(s). The most recent failure being: "
            + head
            + ". See error log and/or performance_schema.replication_applier_status_by_worker table for more "
            "details about this failure or others, if any."
        )
        assert len(err.timestamp) == 15 and err.timestamp[6] == " "
        assert first.gtid not in srv.gtid_state.executed()
        relay.close()


def test_single_threaded_applier_reports_the_error_itself(tmp_path, source):
    """replica_parallel_workers = 0: no worker or coordinator wrapping; Last_SQL_Error is the event's error as the
    SQL thread reports it (mysql-test ``rpl_nogtid/t/rpl_perfschema_applier_status_by_worker.test`` suppresses
    "Error 'Table 'test.t' doesn't exist' on query." for its single-threaded run)."""
    src_dir, _ = source
    with Server.open(tmp_path / "replica", log_bin=False, server_id=2) as srv:
        with srv.session() as s:
            s.execute("CREATE DATABASE r")
        relay = RelayLog.open(tmp_path / "replica", server=srv, basename="relay-bin")
        applier = Applier(srv, relay, replica_parallel_workers=0)
        applier.start()
        relay_all(relay, src_dir)
        applier._thread.join(30)
        err = applier.last_error
        assert err is not None and err.errno == 1007
        text = "Error 'Can't create database 'r'; database exists' on query. Default database: ''. Query: 'CREATE DATABASE r'"
        assert (err.message, err.coordinator_message) == (text, text)
        relay.close()


def test_rows_error_stops_with_mysql_wording(tmp_path, source):
    src_dir, (_sum, _gtids) = source
    trxs = [t for p in binlog_paths(src_dir) for t in read_transactions(p).transactions]
    with Server.open(tmp_path / "replica", log_bin=False, server_id=2) as srv:
        with (
            srv.session() as s
        ):  # the source's DDL, executed here already, and a row its first INSERT also adds
            s.execute(f"SET GLOBAL gtid_purged = '{GtidSet.from_gtids(t.gtid for t in trxs[:3])}'")
            s.execute("CREATE DATABASE r")
            s.execute("CREATE TABLE r.t (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(30), n INT)")
            s.execute("CREATE TABLE r.nopk (a INT, b VARCHAR(10))")
            s.execute("SET sql_log_bin = 0")
            s.execute("INSERT INTO r.t VALUES (1, 'mine', 0)")
        relay = RelayLog.open(tmp_path / "replica", server=srv, basename="relay-bin")
        applier = Applier(srv, relay)
        applier.start()
        relay_all(relay, src_dir)
        applier._thread.join(30)
        err = applier.last_error
        assert err is not None and err.errno == 1062
        bad = trxs[3]
        rows_end = next(
            pe.end_pos
            for pe in read_events(binlog_paths(src_dir)[0])
            if bad.begin_pos <= pe.pos < bad.end_pos and pe.header.type_code == 30
        )
        assert err.message == (
            f"Worker 1 failed executing transaction '{bad.gtid}' at source log binlog.000001, end_log_pos "
            f"{rows_end}; Could not execute Write_rows event on table r.t; Duplicate entry '1' for key "
            f"'t.PRIMARY', Error_code: 1062; handler error HA_ERR_FOUND_DUPP_KEY; the event's source log "
            f"binlog.000001, end_log_pos {rows_end}"
        )
        assert srv.gtid_state.executed() == GtidSet.from_gtids(t.gtid for t in trxs[:3])
        relay.close()


@pytest.mark.parametrize(
    "name",
    [
        "apecloud__mysql-binlog-connector-rust/mysql-bin.000080",
        "blackbeam__rust_mysql_common/binlog-invisible-columns.000001",
    ],
    ids=lambda n: n.split("/")[-1],
)
def test_apply_real_mysql_binlog_skipping_executed(tmp_path, binlog_fixtures, name):
    """A real MySQL binlog relayed: every GTID is retrieved; with all of them already executed on the replica
    (SET GTID_PURGED) the applier skips each one and records the position (MySQL's skip counts as applied)."""
    path = binlog_fixtures / name
    gtids = GtidSet.from_gtids(t.gtid for t in read_transactions(path).transactions)
    with Server.open(tmp_path / "replica", log_bin=False, server_id=2) as srv:
        with srv.session() as s:
            s.execute(f"SET GLOBAL gtid_purged = '{gtids}'")
        relay = RelayLog.open(tmp_path / "replica", server=srv, basename="relay-bin")
        applier = Applier(srv, relay)
        applier.start()
        relay_all_paths(relay, [path])
        done = threading.Event()
        for _ in range(300):
            if applier.applied == len(read_transactions(path).transactions):
                done.set()
                break
            threading.Event().wait(0.05)
        assert done.is_set() and applier.skipped == applier.applied
        assert applier.stop(10)
        with srv.applier_session() as ap:
            pos = ap.applied_position()
        assert pos is not None and pos.source_log_file == path.name
        relay.close()


def relay_all_paths(relay: RelayLog, paths) -> None:
    relay.begin_source()
    for ev in dump_stream(paths):
        relay.append(ev)


def test_reset_replica_forgets_the_applied_position(tmp_path, source):
    """RESET REPLICA reuses relay file names from .000001: the old applied position must not skip the new
    files' transactions (MySQL's reset_slave resets the relay log info with the relay logs)."""
    src_dir, (src_sum, src_gtids) = source
    with Server.open(tmp_path / "replica", log_bin=False, server_id=2) as srv:
        relay = RelayLog.open(tmp_path / "replica", server=srv, basename="relay-bin")
        applier = Applier(srv, relay, relay_log_purge=False)
        applier.start()
        relay_all(relay, src_dir)
        assert srv.gtid_state.wait_for_executed(src_gtids, 30)
        assert applier.stop(10)
        relay.reset()
        applier.reset()
        assert (applier.last_applied, applier.last_applied_transaction, applier.applied) == (None, None, 0)
        with srv.applier_session() as ap:
            assert ap.applied_position() is None
        with srv.session() as s:  # start over: the replica forgets everything it applied
            s.execute("RESET BINARY LOGS AND GTIDS")
            s.execute("DROP DATABASE r")
        applier.start()
        relay_all(relay, src_dir)
        assert srv.gtid_state.wait_for_executed(src_gtids, 30)
        assert applier.stop(10)
        assert checksum(srv) == src_sum
        relay.close()


def test_stop_finishes_the_transaction_being_applied(tmp_path, source):
    """STOP REPLICA SQL_THREAD in the middle of a stream: what is executed is a prefix of whole transactions and
    the stored position is the end of the last one (position, data and GTID row commit together)."""
    src_dir, (_sum, src_gtids) = source
    trxs = [t for p in binlog_paths(src_dir) for t in read_transactions(p).transactions]
    with Server.open(tmp_path / "replica", log_bin=False, server_id=2) as srv:
        relay = RelayLog.open(tmp_path / "replica", server=srv, basename="relay-bin")
        applier = Applier(srv, relay)
        applier.start()
        relay.begin_source()
        stopped = False
        for i, ev in enumerate(dump_stream(binlog_paths(src_dir))):
            relay.append(ev)
            if i == 200:
                assert srv.gtid_state.wait_for_executed(GtidSet.from_gtids(t.gtid for t in trxs[:3]), 30)
                assert applier.stop(30)
                stopped = True
        assert stopped and not applier.running
        executed = srv.gtid_state.executed()
        n = len(executed)
        assert executed == GtidSet.from_gtids(t.gtid for t in trxs[:n])
        assert applier.applied == n and 0 < n < len(trxs)
        with srv.applier_session() as ap:
            pos = ap.applied_position()
        assert (pos.source_log_file, pos.source_log_pos) == (
            trxs[n - 1].file.rsplit("/", 1)[-1],
            trxs[n - 1].end_pos,
        )
        applier.start()  # resumes from there
        assert srv.gtid_state.wait_for_executed(src_gtids, 30)
        assert applier.stop(10)
        relay.close()


def test_session_tracking_never_runs_on_the_applier(tmp_path, source):
    src_dir, (_sum, src_gtids) = source
    with Server.open(tmp_path / "replica", log_bin=False, server_id=2, session_track_gtids="OWN_GTID") as srv:
        relay = RelayLog.open(tmp_path / "replica", server=srv, basename="relay-bin")
        applier = Applier(srv, relay)
        applier.start()
        relay_all(relay, src_dir)
        assert srv.gtid_state.wait_for_executed(src_gtids, 30)
        (ap,) = [s for s in srv.sessions() if s.id == applier.session_id]
        assert ap.resolve_sysvar("session_track_gtids", "SESSION") == "OFF"
        assert ap.resolve_sysvar("session_track_state_change", "SESSION") in (0, False, "OFF")
        with srv.session() as client:  # a client still gets the global default
            assert client.resolve_sysvar("session_track_gtids", "SESSION") == "OWN_GTID"
        assert applier.stop(10)
        relay.close()


#: Real MySQL binlogs the engine can apply from an empty replica: (file, databases the source had beforehand
#: (MySQL 5.6's default ``test``), tables expected at the end with their row count).
REAL_APPLY = [
    ("blackbeam__rust_mysql_common/binlog_transaction_with_GTID.000001", ["test"], {}),
    ("blackbeam__rust_mysql_common/binlog_56_gtid_reserved_word.000001", ["test"], {}),
    ("percona__percona-server-mysql-operator/binlog.000002", [], {"t.a": 0}),
]


@pytest.mark.parametrize(("name", "dbs", "tables"), REAL_APPLY, ids=[r[0].split("/")[-1] for r in REAL_APPLY])
def test_apply_real_mysql_binlog(tmp_path, binlog_fixtures, name, dbs, tables):
    """A real MySQL binlog relayed and applied for real into a binlog-off replica: its GTIDs become
    gtid_executed and the tables end as its statements leave them (DDL, DML, DROP)."""
    path = binlog_fixtures / name
    gtids = GtidSet.from_gtids(t.gtid for t in read_transactions(path).transactions)
    with Server.open(tmp_path / "replica", log_bin=False, server_id=2) as srv:
        with srv.session() as s:
            for db in dbs:
                s.execute(f"CREATE DATABASE {db}")
        executed_before = srv.gtid_state.executed()
        relay = RelayLog.open(tmp_path / "replica", server=srv, basename="relay-bin")
        applier = Applier(srv, relay)
        applier.start()
        relay_all_paths(relay, [path])
        assert srv.gtid_state.wait_for_executed(gtids, 30), applier.last_error
        assert applier.stop(10) and applier.last_error is None
        assert srv.gtid_state.executed() == executed_before | gtids
        with srv.session() as s:
            for db in {*dbs, *(t.split(".")[0] for t in tables)}:
                rows = s.execute(
                    f"SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = '{db}'"
                )[-1].rows
                have = {f"{db}.{r[0]}" for r in rows}
                assert have == {t for t in tables if t.startswith(db + ".")}
            for t, n in tables.items():
                assert s.execute(f"SELECT COUNT(*) FROM {t}")[-1].rows[0][0] == n
        relay.close()


def test_rows_on_a_missing_table_mysql_wording(tmp_path, binlog_fixtures):
    """A real 5.7 binlog whose tables the replica lacks: the applier stops at its first rows event with 1146 in
    MySQL's words (Worker 1 failed executing transaction ...; Error executing row event: '...')."""
    path = binlog_fixtures / "apecloud__mysql-binlog-connector-rust/mysql-bin.000080"
    first = read_transactions(path).transactions[0]
    rows = next(
        pe
        for pe in read_events(path)
        if first.begin_pos <= pe.pos < first.end_pos and pe.header.type_code in (30, 31, 32)
    )
    table = next(pe.event for pe in read_events(path) if pe.header.type_code == 19)
    with Server.open(tmp_path / "replica", log_bin=False, server_id=2) as srv:
        relay = RelayLog.open(tmp_path / "replica", server=srv, basename="relay-bin")
        applier = Applier(srv, relay)
        applier.start()
        relay_all_paths(relay, [path])
        applier._thread.join(30)
        err = applier.last_error
        assert err is not None and err.errno == 1146
        assert err.message == (
            f"Worker 1 failed executing transaction '{first.gtid}' at source log {path.name}, end_log_pos "
            f"{rows.header.log_pos}; Error executing row event: 'Table '{table.database}.{table.table}' "
            "doesn't exist'"
        )
        relay.close()
