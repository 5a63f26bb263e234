"""A replica applier process for crash tests: applies a source's binlog into a datadir, printing each applied GTID.

Run: ``python tests/engine/apply_crash_driver.py SOURCE_DATADIR REPLICA_DATADIR MODE``. Output lines, flushed one
by one: ``READY``, ``ACK <gtid>`` after each ``applier.apply()`` returned, ``DONE`` once everything is applied
(then it waits to be killed). It resumes from ``mysql.slave_relay_log_info`` (the applied position stored with
the data), as MySQL's applier resumes from its relay-log info. The parent SIGKILLs it at random moments and calls
:func:`check`. :func:`make_source` builds the source once (its binlog is what gets applied).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from workload import REPLICA_MODES, checksum, workload

#: mode -> replica Server.open options
MODES = REPLICA_MODES


def make_source(datadir: str, transactions: int = 150) -> None:
    """A source running the shared :func:`workload.workload` (DDL, ROW and STATEMENT DML, AUTO_INCREMENT, a table
    without a primary key), binlog on."""
    from gtidkit.engine import Server

    with Server.open(datadir, log_bin=True, server_id=1, max_binlog_size=16384) as src, src.session() as s:
        workload(s, transactions)


def source_transactions(source: str) -> list[Any]:
    """The source's binlog transactions in order (files in index order)."""
    from gtidkit.engine.apply import read_transactions
    from gtidkit.engine.binlog.log import BinlogLog

    blog = BinlogLog(source, server_id=1)
    out: list[Any] = []
    for name in blog.existing_files():
        out += list(read_transactions(blog.path(name)))
    return out


def run(source: str, replica: str, mode: str) -> None:
    """The child: resume from the stored position, apply the rest, then wait."""
    from gtidkit.engine import Server

    trxs = source_transactions(source)
    srv = Server.open(replica, **MODES[mode])
    ap = srv.applier_session()
    pos = ap.applied_position()
    order = {name: i for i, name in enumerate(dict.fromkeys(t.file for t in trxs))}
    out = sys.stdout
    out.write("READY\n")
    out.flush()
    for trx in trxs:
        if pos is not None and (order[trx.file], trx.end_pos) <= (
            order[pos.relay_log_file],
            pos.relay_log_pos,
        ):
            continue
        ap.apply(trx)
        out.write(f"ACK {trx.gtid}\n")
        out.flush()
    out.write("DONE\n")
    out.flush()
    while True:
        time.sleep(1)


def source_state(source: str) -> tuple[str, Any]:
    """(data checksum, gtid_executed) of the source, read once before the trials."""
    from gtidkit.engine import Server

    with Server.open(source, log_bin=True, server_id=1) as src:
        return checksum(src), src.gtid_state.executed()


def check(
    source: str, replica: str, mode: str, acks: list[str], *, final: tuple[str, Any] | None = None
) -> list[str]:
    """Restart the replica (recovery) and verify: every acknowledged GTID is executed; gtid_executed is a prefix
    of the source's transactions; with the binlog off the stored position ends exactly that prefix (position,
    data and GTID row commit together); with ``final`` (the source's checksum and gtid_executed, once the
    applier reported DONE) the replica's data and gtid_executed equal the source's: nothing lost, nothing applied
    twice (the table without a primary key would show a duplicate)."""
    from gtidkit.engine import Server
    from gtidkit.gtid import Gtid, GtidSet

    trxs = source_transactions(source)
    problems: list[str] = []
    with Server.open(replica, **MODES[mode]) as srv:
        executed = srv.gtid_state.executed()
        for g in acks:
            if Gtid.parse(g) not in executed:
                problems.append(f"acknowledged {g} not executed")
                break
        prefix = 0
        while prefix < len(trxs) and trxs[prefix].gtid in executed:
            prefix += 1
        if executed != GtidSet.from_gtids(t.gtid for t in trxs[:prefix]):
            problems.append(f"gtid_executed {executed} is not a prefix of the source's transactions")
        with srv.applier_session() as ap:
            pos = ap.applied_position()
        if mode == "binlog_off" and prefix:
            want = (trxs[prefix - 1].file, trxs[prefix - 1].end_pos)
            if pos is None or (pos.relay_log_file, pos.relay_log_pos) != want:
                problems.append(f"stored position {pos} != end of the last executed transaction {want}")
        if final is not None:
            if final[0] != checksum(srv):
                problems.append("replica data differs from the source's")
            if final[1] != executed:
                problems.append("replica gtid_executed differs from the source's")
        if srv.binlog is not None:  # log_replica_updates: the replica's binlog has each GTID once
            from gtidkit.engine.apply import read_transactions

            seen = [
                t.gtid
                for name in srv.binlog.existing_files()
                for t in read_transactions(srv.binlog.path(name))
            ]
            if len(seen) != len(set(seen)):
                problems.append("a GTID appears twice in the replica's binlog")
            if GtidSet.from_gtids(g for g in seen if g is not None) != executed:
                problems.append("the replica's binlog GTIDs differ from its gtid_executed")
    return problems


def parse_acks(text: str) -> tuple[list[str], bool]:
    """(GTIDs acknowledged, DONE seen)."""
    acks = [
        line.split()[1] for line in text.splitlines() if line.startswith("ACK ") and len(line.split()) == 2
    ]
    return acks, "DONE" in text.split()


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    run(sys.argv[1], sys.argv[2], sys.argv[3])
