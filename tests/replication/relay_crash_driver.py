"""A replica process for relay-log crash tests: receives a source's binlog (an auto-positioned dump stream fed to
RelayLog.append, as the receiver does) while the Applier applies it, printing progress.

Run: ``python tests/replication/relay_crash_driver.py SOURCE_DATADIR REPLICA_DATADIR MODE SEED``. It opens the
replica engine and its relay log (relay_log_recovery runs), asks for the source's transactions it lacks
(``gtid_executed`` united with Retrieved_Gtid_Set, the receiver's COM_BINLOG_DUMP_GTID set), appends them with
small random pauses, and prints ``READY`` first, ``DONE`` once the replica's gtid_executed equals the source's
(then waits to be killed). The parent SIGKILLs it at random moments and checks with :func:`check`.
"""

from __future__ import annotations

import os
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from relay_helpers import binlog_paths, dump_stream
from workload import REPLICA_MODES, checksum, workload

#: mode -> replica Server.open options
MODES = REPLICA_MODES
#: small relay files so the kills land around rotations and purges too
RELAY_OPTIONS: dict[str, Any] = {"basename": "relay-bin", "max_relay_log_size": 4096}


def run(source: str, replica: str, mode: str, seed: int) -> None:
    """The child: recover, request what is missing, append while applying, report DONE, wait."""
    from gtidkit.engine import Server
    from gtidkit.replication.applier import Applier
    from gtidkit.replication.relay_log import RelayLog

    rng = random.Random(seed)
    with Server.open(source, log_bin=True, server_id=1) as src:
        want = src.gtid_state.executed()
    srv = Server.open(replica, **MODES[mode])
    relay = RelayLog.open(replica, server=srv, **RELAY_OPTIONS)
    applier = Applier(srv, relay)
    applier.start()
    have = srv.gtid_state.executed() | relay.retrieved_gtids()
    out = sys.stdout
    out.write("READY\n")
    out.flush()
    relay.begin_source()
    for ev in dump_stream(binlog_paths(source), exclude=have):
        relay.append(ev)
        if rng.random() < 0.05:
            time.sleep(rng.random() * 0.01)
    if not srv.gtid_state.wait_for_executed(want, 60):
        out.write(f"STUCK {applier.last_error}\n")
        out.flush()
    out.write("DONE\n")
    out.flush()
    while True:
        time.sleep(1)


def check(source: str, replica: str, mode: str, *, final: tuple[str, Any] | None = None) -> list[str]:
    """Reopen the replica (engine recovery, relay_log_recovery) and verify: every relay file ends on a whole
    transaction; no GTID is in the relay log twice (nothing re-requested); gtid_executed is a subset of
    Retrieved_Gtid_Set united with what was executed before the relay log was purged, and an ordered prefix of the
    source's transactions; with ``final`` the data and gtid_executed equal the source's."""
    from gtidkit.binlog.file import read_transactions
    from gtidkit.engine import Server
    from gtidkit.gtid import GtidSet
    from gtidkit.replication.relay_log import RelayLog

    problems: list[str] = []
    order = [t.gtid for p in binlog_paths(source) for t in read_transactions(p).transactions]
    with Server.open(replica, **MODES[mode]) as srv:
        relay = RelayLog.open(replica, server=srv, **RELAY_OPTIONS)
        try:
            seen: list[Any] = []
            for name in relay.index:
                res = read_transactions(relay.path(name))
                if res.complete_end != res.size:
                    problems.append(f"{name} ends inside a transaction after recovery")
                seen += [t.gtid for t in res.transactions]
            if len(seen) != len(set(seen)):
                problems.append("a GTID is in the relay log twice (re-requested)")
            retrieved = relay.retrieved_gtids()
            if GtidSet.from_gtids(seen) - retrieved:
                problems.append("relay log holds GTIDs outside Retrieved_Gtid_Set")
            if retrieved != GtidSet.from_gtids(order[: len(retrieved)]):
                problems.append("Retrieved_Gtid_Set is not a prefix of the source's transactions")
            executed = srv.gtid_state.executed()
            prefix = 0
            while prefix < len(order) and order[prefix] in executed:
                prefix += 1
            if executed != GtidSet.from_gtids(order[:prefix]):
                problems.append(f"gtid_executed {executed} is not a prefix of the source's transactions")
            if final is not None:
                if final[0] != checksum(srv):
                    problems.append("replica data differs from the source's")
                if final[1] != executed:
                    problems.append("replica gtid_executed differs from the source's")
            if srv.binlog is not None:
                logged = [
                    t.gtid
                    for name in srv.binlog.existing_files()
                    for t in read_transactions(srv.binlog.path(name)).transactions
                ]
                if len(logged) != len(set(logged)):
                    problems.append("a GTID appears twice in the replica's binlog")
        finally:
            relay.close()
    return problems


def make_source(datadir: str, transactions: int = 150) -> tuple[str, Any]:
    """A source with DDL, ROW and STATEMENT DML and a table without a primary key; returns (checksum,
    gtid_executed)."""
    from gtidkit.engine import Server

    with Server.open(datadir, log_bin=True, server_id=1, max_binlog_size=16384) as src, src.session() as s:
        workload(s, transactions)
        return checksum(src), src.gtid_state.executed()


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    run(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]))
