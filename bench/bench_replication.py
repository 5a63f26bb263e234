"""Replication benchmarks (issue 9): apply rate vs commit rate, binlog-off vs log_replica_updates replica, lag
percentiles, read-your-writes wait latency against lag, failover time.

All servers are `gtidkit server` processes on 127.0.0.1 (fresh datadirs, GTID mode ON), replicating by GTID
auto-position; figures are ratios and percentiles measured in one run on this machine.

1. **Keeping up.** One source under a sustained load of ``--writers`` clients (``BEGIN; INSERT; UPDATE counter;
   COMMIT`` as fast as it acknowledges, ``--seconds``) with two replicas at once: binlog off (WL#6559's passive replica) and
   ``log_replica_updates`` on. Per replica: the apply rate while the load ran, the time to catch up after it stopped,
   and the lag of every transaction (replica commit time minus source acknowledgement time; the replica's commit is
   seen by a watcher blocked in WAIT_FOR_EXECUTED_GTID_SET, woken by the commit).
   Then each replica's own capacity: both appliers stopped while ``--backlog`` transactions commit, then each
   drains its relay log alone (``--rounds`` rounds, order alternating).
2. **Read-your-writes.** Under background loads of 0 %, 50 % and 100 % of the writer's speed, a ReadYourWrites session
   (timeout 1 s) does ``--ryw-pairs`` write+read pairs; the wait latency on the replica, the share of reads that fell
   back to the source, and the replica's lag in transactions behind the source at the same time. Then the wait
   against a deterministic lag: the replica's applier stopped (STOP REPLICA SQL_THREAD) while a backlog of 0 to 400
   transactions commits, the session writes, the applier restarts, the session's read waits.
3. **Failover.** ``--failover-trials`` times: A (source) + B (log_replica_updates) + C (binlog off) under load, A
   SIGKILLed; time to promote B (apply its relay log; STOP REPLICA; RESET REPLICA ALL), to point C at B, and until C
   has every GTID B has.

Run: ``.venv/bin/python bench/bench_replication.py`` (writes the ``replication`` section of bench/RESULTS.md).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT / "tests"))

from _results import update_section
from replication.cluster import Load, Node, cluster

from gtidkit.gtid import GtidSet
from gtidkit.replication.read_your_writes import Endpoint, ReadYourWrites


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values`` by nearest rank; NaN when empty."""
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


class ApplyWatcher:
    """Records when each GNO of ``uuid`` (from ``first``) becomes executed on ``replica``, without polling: a
    connection blocked in WAIT_FOR_EXECUTED_GTID_SET for the next GNO, then @@gtid_executed for how far it got."""

    def __init__(self, replica: Node, uuid: str, first: int) -> None:
        self.replica, self.uuid, self.next = replica, uuid, first
        self.applied: dict[int, float] = {}
        self.last_gno = 0  # set by finish(): stop once every GNO up to it is seen
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        conn = self.replica.connect()
        cur = conn.cursor()
        while not self.last_gno or self.next <= self.last_gno:
            cur.execute("SELECT WAIT_FOR_EXECUTED_GTID_SET(%s, 1)", (f"{self.uuid}:{self.next}",))
            reached = cur.fetchone()[0] == 0
            now = time.monotonic()
            if reached:
                cur.execute("SELECT @@GLOBAL.gtid_executed")
                last = GtidSet.parse(cur.fetchone()[0]).last_gno(_uuid(self.uuid))
                for g in range(self.next, last + 1):
                    self.applied[g] = now
                self.next = last + 1
        conn.close()

    def finish(self, last_gno: int, timeout: float = 600) -> None:
        """Wait until every GNO up to ``last_gno`` was seen."""
        self.last_gno = last_gno
        self._thread.join(timeout)


def _uuid(text: str) -> Any:
    from uuid import UUID

    return UUID(text)


def source_and_two_replicas(c: Any) -> tuple[Node, dict[str, Node]]:
    """A source with the Load schema and its two replicas, caught up: {"binlog off", "log_replica_updates"}."""
    source = c.node("source", 1, log_bin=True)
    replicas = {
        "binlog off": c.node("r_off", 2, log_bin=False),
        "log_replica_updates": c.node("r_lru", 3, log_bin=True, log_replica_updates=True),
    }
    Load.create_schema(source)
    for r in replicas.values():
        r.replicate_from(source)
        assert r.wait_for(source.executed())
    return source, replicas


def keeping_up(base: Path, seconds: float, writers: int) -> dict[str, Any]:
    """Part 1: one source, a binlog-off and a log_replica_updates replica, ``writers`` max-speed writers for
    ``seconds``."""
    out: dict[str, Any] = {}
    with cluster(base) as c:
        source, replicas = source_and_two_replicas(c)
        uuid = source.server_uuid()
        first = source.executed().last_gno(_uuid(uuid)) + 1
        watchers = {name: ApplyWatcher(r, uuid, first) for name, r in replicas.items()}
        loads = [Load(source, first_id=1 + k * 10_000_000) for k in range(writers)]
        t0 = time.monotonic()
        for load in loads:
            load.start()
        time.sleep(seconds)
        for load in loads:
            load.stop()
        t1 = time.monotonic()
        commit_at = {g: t for load in loads for g, t in zip(load.commit_gnos, load.commit_times)}
        n = len(commit_at)
        last = first + n - 1
        assert source.executed().last_gno(_uuid(uuid)) == last and min(commit_at) == first, (
            "GTIDs not contiguous"
        )
        out["commits"], out["load_seconds"], out["writers"] = n, t1 - t0, writers
        out["commit_rate"] = n / (t1 - t0)
        for name, w in watchers.items():
            w.finish(last)
            applied_in_window = sum(1 for g in range(first, last + 1) if w.applied.get(g, 1e18) <= t1)
            done = max(w.applied.values())
            lags = [w.applied[g] - t for g, t in commit_at.items()]
            out[name] = {
                "apply_rate": applied_in_window / (t1 - t0),
                "drain_rate": n / (done - t0),
                "catch_up": max(0.0, done - t1),
                "lag_p50": pct(lags, 0.5),
                "lag_p95": pct(lags, 0.95),
                "lag_p99": pct(lags, 0.99),
                "lag_max": max(lags),
                "same_data": replicas[name].checksum("app") == source.checksum("app"),
            }
    return out


def apply_capacity(base: Path, backlog: int, rounds: int) -> dict[str, Any]:
    """Part 1b: each replica's own apply rate, not bounded by the source: both appliers stopped while ``backlog``
    transactions commit (the receivers keep fetching into the relay logs), then one applier at a time drains its
    relay log alone; the order alternates between rounds so drift hits both alike."""
    times: dict[str, list[float]] = {"binlog off": [], "log_replica_updates": []}
    with cluster(base) as c:
        source, replicas = source_and_two_replicas(c)
        next_id = 1
        for rnd in range(rounds):
            for r in replicas.values():
                r.query("STOP REPLICA SQL_THREAD")
            conn = source.connect()
            cur = conn.cursor()
            for _ in range(backlog):
                cur.execute("BEGIN")
                cur.execute(
                    "INSERT INTO app.log VALUES (%s, %s, %s)", (next_id, f"row {next_id}", next_id % 7)
                )
                cur.execute("UPDATE app.counter SET n = n + 1 WHERE id = 1")
                cur.execute("COMMIT")
                next_id += 1
            conn.close()
            target = source.executed()
            for r in replicas.values():  # every transaction is in the relay logs before any applier starts
                deadline = time.monotonic() + 600
                while not target <= GtidSet.parse(r.replica_status().get("Retrieved_Gtid_Set") or ""):
                    assert time.monotonic() < deadline, "receiver did not fetch the backlog"
                    time.sleep(0.05)
            order = list(replicas) if rnd % 2 == 0 else list(reversed(list(replicas)))
            for name in order:
                r = replicas[name]
                t0 = time.monotonic()
                r.query("START REPLICA SQL_THREAD")
                assert r.wait_for(target, 600)
                times[name].append(time.monotonic() - t0)
        same = {name: r.checksum("app") == source.checksum("app") for name, r in replicas.items()}
    rates = {name: backlog * len(ts) / sum(ts) for name, ts in times.items()}
    return {"backlog": backlog, "rounds": rounds, "rates": rates, "same_data": same}


def _ryw_pair(c: Any) -> tuple[Any, Any]:
    """A source (binlog on) and a binlog-off replica of it, with the table app.ryw, caught up."""
    source = c.node("source", 1, log_bin=True)
    replica = c.node("replica", 2, log_bin=False)
    Load.create_schema(source)
    source.query("CREATE TABLE app.ryw (id INT PRIMARY KEY, v INT)")
    replica.replicate_from(source)
    assert replica.wait_for(source.executed())
    return source, replica


def ryw_vs_lag(base: Path, pairs: int, max_rate: float) -> list[dict[str, Any]]:
    """Part 2: RYW wait latency and fallbacks under background loads of 0, 50 and 100 % of ``max_rate``."""
    rows = []
    with cluster(base) as c:
        source, replica = _ryw_pair(c)
        next_id = 1
        for share in (0.0, 0.5, 1.0):
            load = None
            if share:
                load = Load(
                    source, first_id=10_000_000 * next_id, rate=None if share == 1.0 else share * max_rate
                )
                load.start()
                time.sleep(1.0)  # let the lag build up
            behind: list[int] = []
            stop = threading.Event()

            def sample(stop: threading.Event = stop, behind: list[int] = behind) -> None:
                while not stop.is_set():
                    behind.append(max(0, source.executed().count() - replica.executed().count()))
                    stop.wait(0.2)

            sampler = threading.Thread(target=sample, daemon=True)
            sampler.start()
            ep_s = Endpoint("127.0.0.1", source.port, "root", "", "app")
            ep_r = Endpoint("127.0.0.1", replica.port, "root", "", "app")
            with ReadYourWrites(ep_s, [ep_r], timeout=1.0) as rw:
                for _ in range(pairs):
                    rw.write("INSERT INTO app.ryw VALUES (%s, 1)", (next_id,))
                    r = rw.read("SELECT v FROM app.ryw WHERE id = %s", (next_id,))
                    assert r.rows == ((1,),), "read-your-writes returned a stale row"
                    next_id += 1
                waits = rw.counters.wait_seconds
                fallbacks = rw.counters.source_reads
            stop.set()
            sampler.join()
            if load is not None:
                load.stop()
            assert replica.wait_for(source.executed(), 600)
            rows.append(
                {
                    "share": share,
                    "rate": 0.0
                    if load is None
                    else load.commits / max(1e-9, load.commit_times[-1] - load.commit_times[0]),
                    "behind_p50": pct([float(b) for b in behind], 0.5),
                    "behind_p95": pct([float(b) for b in behind], 0.95),
                    "wait_p50": pct(waits, 0.5),
                    "wait_p95": pct(waits, 0.95),
                    "fallback_share": fallbacks / pairs,
                }
            )
    return rows


def ryw_vs_backlog(base: Path, backlogs: list[int], reps: int) -> list[dict[str, Any]]:
    """Part 2b: RYW wait latency against a lag made deterministic: the replica's applier is stopped
    (STOP REPLICA SQL_THREAD) while ``backlog`` transactions commit on the source, then the session writes, the
    applier starts, and the session's read waits (timeout 300 s, so the wait is measured, not cut)."""
    rows = []
    with cluster(base) as c:
        source, replica = _ryw_pair(c)
        ep_s = Endpoint("127.0.0.1", source.port, "root", "", "app")
        ep_r = Endpoint("127.0.0.1", replica.port, "root", "", "app")
        next_id, log_id = 1, 1
        for backlog in backlogs:
            waits = []
            for _ in range(reps):
                replica.query("STOP REPLICA SQL_THREAD")
                conn = source.connect()
                cur = conn.cursor()
                for _ in range(backlog):
                    cur.execute("INSERT INTO app.log VALUES (%s, 'backlog', 0)", (log_id,))
                    log_id += 1
                conn.close()
                with ReadYourWrites(ep_s, [ep_r], timeout=300) as rw:
                    # connect to the replica now, so the timed wait starts when the applier does
                    rw.read("SELECT 1")
                    rw.write("INSERT INTO app.ryw VALUES (%s, 1)", (next_id,))
                    replica.query("START REPLICA SQL_THREAD")
                    r = rw.read("SELECT v FROM app.ryw WHERE id = %s", (next_id,))
                    assert (r.rows, r.served_by, r.wait_result) == (((1,),), "replica", 0)
                    waits.append(r.wait_seconds)
                next_id += 1
            rows.append({"backlog": backlog, "wait_p50": pct(waits, 0.5), "wait_max": max(waits)})
    return rows


def failover(base: Path, trials: int) -> list[dict[str, float]]:
    """Part 3: kill A under load; promote B; point C at B; measure each step."""
    rows = []
    for trial in range(trials):
        with cluster(base / f"t{trial}") as c:
            a = c.node("a", 1, log_bin=True)
            b = c.node("b", 2, log_bin=True, log_replica_updates=True)
            r = c.node("c", 3, log_bin=False)
            Load.create_schema(a)
            b.replicate_from(a)
            r.replicate_from(a)
            load = Load(a).start()
            time.sleep(2.0)
            a.kill()
            t0 = time.monotonic()
            load.stop(source_died=True)
            retrieved = GtidSet.parse(b.replica_status().get("Retrieved_Gtid_Set") or "")
            assert b.wait_for(retrieved, 600)  # B applies what it received before it serves writes
            b.query("STOP REPLICA")
            b.query("RESET REPLICA ALL")
            t1 = time.monotonic()
            r.query("STOP REPLICA")
            r.replicate_from(b)
            t2 = time.monotonic()
            assert r.wait_for(b.executed(), 600)
            t3 = time.monotonic()
            assert r.executed() == b.executed()
            rows.append({"promote": t1 - t0, "repoint": t2 - t1, "converge": t3 - t2, "total": t3 - t0})
    return rows


def render(
    args: argparse.Namespace,
    up: dict[str, Any],
    cap: dict[str, Any],
    ryw: list[dict[str, Any]],
    backlog: list[dict[str, Any]],
    fo: list[dict[str, float]],
) -> str:
    """The markdown section."""
    cmd = (
        f"`.venv/bin/python bench/bench_replication.py --seconds {args.seconds} --writers {args.writers} "
        f"--backlog {args.backlog} --rounds {args.rounds} --ryw-pairs {args.ryw_pairs} "
        f"--ryw-reps {args.ryw_reps} --failover-trials {args.failover_trials}`"
    )
    lines = [
        (
            f"Command: {cmd}. `gtidkit server` processes on 127.0.0.1, GTID auto-position; one run on a shared 2-core "
            "machine (the source, both replicas and the clients compete for the same cores)."
        ),
        "",
        (
            f"**Keeping up** ({up['writers']} writers, `BEGIN; INSERT; UPDATE; COMMIT`, {up['load_seconds']:.1f} s, "
            f"{up['commits']} transactions): source commit rate {up['commit_rate']:.0f} trx/s."
        ),
        "",
        (
            "| replica | apply rate during load (trx/s) | apply / commit | catch-up after load (s) | lag p50 (ms) | "
            "lag p95 (ms) | lag p99 (ms) | lag max (ms) | data equal |"
        ),
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name in ("binlog off", "log_replica_updates"):
        f = up[name]
        lines.append(
            f"| {name} | {f['apply_rate']:.0f} | {f['apply_rate'] / up['commit_rate']:.2f} | {f['catch_up']:.2f} | "
            f"{f['lag_p50'] * 1e3:.0f} | {f['lag_p95'] * 1e3:.0f} | {f['lag_p99'] * 1e3:.0f} | "
            f"{f['lag_max'] * 1e3:.0f} | {f['same_data']} |"
        )
    off, lru = up["binlog off"], up["log_replica_updates"]
    lines += [
        "",
        (
            f"binlog-off / log_replica_updates drain rate (all {up['commits']} transactions applied, from the load's "
            f"start): {off['drain_rate']:.0f} / {lru['drain_rate']:.0f} trx/s = {off['drain_rate'] / lru['drain_rate']:.2f}."
        ),
        "",
        (
            f"**Apply capacity** (both appliers stopped while {cap['backlog']} transactions commit on the source, the "
            f"receivers fetching them; then each applier drains its relay log alone, {cap['rounds']} rounds, order "
            "alternating): binlog off "
            f"{cap['rates']['binlog off']:.0f} trx/s, log_replica_updates {cap['rates']['log_replica_updates']:.0f} "
            f"trx/s, ratio {cap['rates']['binlog off'] / cap['rates']['log_replica_updates']:.2f} (WL#6559 NF-3: the "
            f"binlog-off replica should be the faster); data equal to the source's: {cap['same_data']}."
        ),
        "",
        f"**Read-your-writes** ({args.ryw_pairs} write+read pairs per row, timeout 1 s, binlog-off replica):",
        "",
        (
            "| background load | load rate (trx/s) | replica behind p50 / p95 (trx) | RYW wait p50 (ms) | RYW wait p95 (ms) | "
            "reads served by the source |"
        ),
        "|---|---|---|---|---|---|",
    ]
    for row in ryw:
        lines.append(
            f"| {row['share'] * 100:.0f} % | {row['rate']:.0f} | {row['behind_p50']:.0f} / {row['behind_p95']:.0f} | "
            f"{row['wait_p50'] * 1e3:.1f} | {row['wait_p95'] * 1e3:.1f} | {row['fallback_share'] * 100:.0f} % |"
        )
    lines += [
        "",
        (
            f"**Read-your-writes wait against a backlog** (the replica's applier stopped while the backlog commits on the "
            f"source, then the session writes, the applier starts and the session reads; {args.ryw_reps} repetitions; "
            "with Router's default timeout of 1 s, reads whose wait exceeds it go to the source):"
        ),
        "",
        "| backlog (transactions) | RYW wait median (ms) | max (ms) |",
        "|---|---|---|",
    ]
    for row in backlog:
        lines.append(f"| {row['backlog']} | {row['wait_p50'] * 1e3:.0f} | {row['wait_max'] * 1e3:.0f} |")
    lines += [
        "",
        (
            f"**Failover** ({len(fo)} trials; A SIGKILLed after 2 s of load; B has log_replica_updates, C binlog off; "
            "detection time not included):"
        ),
        "",
        "| step | median (s) | max (s) |",
        "|---|---|---|",
    ]
    for step, label in (
        ("promote", "B applies its relay log, STOP REPLICA, RESET REPLICA ALL"),
        ("repoint", "C: STOP REPLICA, CHANGE REPLICATION SOURCE TO B, START REPLICA"),
        ("converge", "C has every GTID of B"),
        ("total", "kill to converged"),
    ):
        vals = [r[step] for r in fo]
        lines.append(f"| {label} | {statistics.median(vals):.2f} | {max(vals):.2f} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Run the three parts and write the section."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument("--writers", type=int, default=4)
    p.add_argument("--backlog", type=int, default=500)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--ryw-pairs", type=int, default=100)
    p.add_argument("--ryw-reps", type=int, default=5)
    p.add_argument("--failover-trials", type=int, default=3)
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="gtidkit-bench-repl-") as tmp:
        base = Path(tmp)
        up = keeping_up(base / "up", args.seconds, args.writers)
        print("keeping up:", up, flush=True)
        cap = apply_capacity(base / "cap", args.backlog, args.rounds)
        print("capacity:", cap, flush=True)
        ryw = ryw_vs_lag(base / "ryw", args.ryw_pairs, up["commit_rate"])
        print("ryw:", ryw, flush=True)
        backlog = ryw_vs_backlog(base / "backlog", [0, 25, 100, 400], args.ryw_reps)
        print("backlog:", backlog, flush=True)
        fo = failover(base / "fo", args.failover_trials)
        print("failover:", fo, flush=True)
    update_section("replication", render(args, up, cap, ryw, backlog, fo))
    return 0


if __name__ == "__main__":
    sys.exit(main())
