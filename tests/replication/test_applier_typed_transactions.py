"""The applier replays a transaction's BEGIN / COMMIT / Xid and an empty transaction through the session's typed
transaction operations, never as statement texts: while it applies a ROW-format source's relay log, the statement
front door (``split_statements`` and ``classify``) is never entered from the applier thread.

A source engine writes its binary log (DDL, ROW-format DML, a multi-statement transaction, an explicit GTID committed
empty, a ROLLBACK'd transaction that logs nothing); the replica runs the DDL itself under the source's GTIDs first,
so the applier skips those transactions (the skip path) and applies only Gtid / Query BEGIN / Table_map / rows /
Xid and Gtid / BEGIN / COMMIT groups. Both replica configurations: binary log off (WL#6559: the GTID row with the
data) and log_replica_updates on (re-logged under the original GTIDs).
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from gtidkit.binlog.events.statement import QueryEvent
from gtidkit.binlog.file import read_events, read_transactions
from gtidkit.engine import Server
from gtidkit.engine.sql import parse
from gtidkit.engine.statements import classify as classify_mod
from gtidkit.gtid import GtidSet
from gtidkit.replication.applier import Applier
from gtidkit.replication.relay_log import RelayLog

sys.path.insert(0, str(Path(__file__).parent))
from relay_helpers import binlog_paths, dump_stream

DDL = (
    "CREATE DATABASE d",
    "CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(20))",
)

REPLICAS = {
    "binlog_off": {"log_bin": False, "server_id": 2, "gtid_mode": "ON", "enforce_gtid_consistency": "ON"},
    "log_replica_updates": {
        "log_bin": True,
        "log_replica_updates": True,
        "server_id": 2,
        "gtid_mode": "ON",
        "enforce_gtid_consistency": "ON",
    },
}


def _rows(srv: Server) -> list[tuple[object, ...]]:
    with srv.session() as s:
        return list(s.execute("SELECT id, v FROM d.t ORDER BY id")[-1].rows)


@pytest.fixture
def source(tmp_path):
    d = tmp_path / "source"
    opts = {"log_bin": True, "server_id": 1, "gtid_mode": "ON", "enforce_gtid_consistency": "ON"}
    with Server.open(d, binlog_format="ROW", **opts) as srv, srv.session() as s:
        for text in DDL:
            s.execute(text)
        assert srv.gtid_state.executed().count() == len(DDL)
        uuid = srv.server_uuid
        s.execute("INSERT INTO d.t VALUES (1, 'a'), (2, 'b')")
        s.execute("BEGIN")
        s.execute("INSERT INTO d.t VALUES (3, 'c')")
        s.execute("UPDATE d.t SET v = 'B' WHERE id = 2")
        s.execute("COMMIT")
        s.execute(f"SET gtid_next = '{uuid}:100'")
        s.execute("COMMIT")  # an owned GTID committed empty: Gtid + Query BEGIN + Query COMMIT
        s.execute("SET gtid_next = 'AUTOMATIC'")
        s.execute("BEGIN")
        s.execute("INSERT INTO d.t VALUES (9, 'gone')")
        s.execute("ROLLBACK")  # nothing logged
        s.execute("DELETE FROM d.t WHERE id = 1")
        state = (_rows(srv), srv.gtid_state.executed(), uuid)
    return d, state


def _front_door_guard(monkeypatch: pytest.MonkeyPatch, calls: list[str]) -> None:
    """Every binding of ``classify`` and ``split_statements`` in gtidkit's loaded modules raises when the applier
    thread calls it (``calls`` records the text); other threads (the test's client sessions) are unaffected."""
    originals = {"classify": classify_mod.classify, "split_statements": parse.split_statements}

    def guarded(name: str, real):
        def call(text, *args, **kwargs):
            if threading.current_thread().name.startswith("replica-sql"):
                calls.append(f"{name}({text!r})")
                raise AssertionError(f"the applier called {name}({text!r})")
            return real(text, *args, **kwargs)

        return call

    for module in list(sys.modules.values()):
        if not getattr(module, "__name__", "").startswith("gtidkit"):
            continue
        for name, real in originals.items():
            if getattr(module, name, None) is real:
                monkeypatch.setattr(module, name, guarded(name, real))


@pytest.mark.parametrize("mode", sorted(REPLICAS))
def test_applier_never_enters_the_statement_front_door(tmp_path, source, mode, monkeypatch):
    src_dir, (src_rows, src_gtids, uuid) = source
    kinds = [
        ev.event.query
        for p in binlog_paths(src_dir)
        for ev in read_events(p)
        if isinstance(ev.event, QueryEvent) and ev.event.query in ("BEGIN", "COMMIT")
    ]
    assert (
        kinds.count("COMMIT") == 1 and kinds.count("BEGIN") >= 4
    )  # the relay log holds what the test is about
    with Server.open(tmp_path / "replica", **REPLICAS[mode]) as srv:
        with srv.session() as s:  # the schema, under the source's GTIDs: the applier skips those transactions
            for gno, text in enumerate(DDL, start=1):
                s.execute(f"SET gtid_next = '{uuid}:{gno}'")
                s.execute(text)
            s.execute("SET gtid_next = 'AUTOMATIC'")
        calls: list[str] = []
        _front_door_guard(monkeypatch, calls)
        relay = RelayLog.open(tmp_path / "replica", server=srv, basename="relay-bin")
        applier = Applier(srv, relay)
        applier.start()
        relay.begin_source()
        for ev in dump_stream(binlog_paths(src_dir)):
            relay.append(ev)
        done = srv.gtid_state.wait_for_executed(src_gtids, 30)
        assert applier.stop(10)
        relay.close()
        assert calls == []
        assert applier.last_error is None
        assert done
        assert srv.gtid_state.executed() == src_gtids
        assert applier.skipped == len(DDL)
        assert _rows(srv) == src_rows
        if mode == "log_replica_updates":
            logged = [
                t.gtid
                for n in srv.binlog.existing_files()
                for t in read_transactions(srv.binlog.path(n)).transactions
            ]
            # the applied transactions re-logged under their original GTIDs, the empty one included
            assert f"{uuid}:100" in {str(g) for g in logged}
            # the replica's own DDL and every applied transaction, each once
            assert GtidSet.from_gtids(logged) == src_gtids and len(logged) == len(set(logged))
