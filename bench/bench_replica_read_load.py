"""The binlog-off passive replica under read load (issue 21): does its applier keep up with a source committing at
its maximum rate while clients read from the replica?

Two `gtidkit server` processes on 127.0.0.1, fresh datadirs, as the README's passive-replica recipe: a source
(``--log-bin --server-id=1 --gtid-mode=ON --enforce-gtid-consistency=ON``) and a replica (``--skip-log-bin
--server-id=2``, GTIDs on) replicating by GTID auto-position; ``--source-option`` / ``--replica-option`` add
server options (e.g. ``--replica-option=--workers=4`` once the multi-worker server exists). sysbench prepares its
table on the source (1 table, ``--table-size`` rows) and the replica receives it.

Each phase runs ``--write-test`` (sysbench oltp_write_only by default, ``--write-threads`` clients, as fast as the
source acknowledges) on the source for ``--seconds`` while ``--readers`` sysbench oltp_point_select clients read from
the replica; a phase with 0 readers is the control, and the phases alternate over ``--rounds``. Once a second a
sampler records, on the replica, SHOW REPLICA STATUS's Seconds_Behind_Source and the applier's lag as MySQL 8.0
measures it from performance_schema (now minus APPLYING_TRANSACTION_ORIGINAL_COMMIT_TIMESTAMP while a transaction is
applied, else minus LAST_APPLIED_TRANSACTION_ORIGINAL_COMMIT_TIMESTAMP while the replica lacks some of the source's
GTIDs, else 0; both servers share this machine's clock), and the transactions the replica lacks (the source's
@@GLOBAL.gtid_executed minus the replica's). When the writers stop, the catch-up time is how long the replica's
WAIT_FOR_EXECUTED_GTID_SET(source's gtid_executed) takes; then the table's row count and checksums are compared.

Run: ``.venv/bin/python bench/bench_replica_read_load.py`` (writes the ``replica_read_load`` section of
bench/RESULTS.md; ``--quick`` for a short run, ``--no-write`` to leave RESULTS.md alone).
"""

from __future__ import annotations

import argparse
import datetime
import math
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import pymysql
import pymysql.cursors

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT / "tests"))

from _results import update_section
from protocol.server_proc import ServerProcess, running_server

from gtidkit.gtid import GtidSet


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values`` by nearest rank; NaN when empty."""
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


def _connect(srv: ServerProcess, dict_rows: bool = False) -> pymysql.Connection:
    return pymysql.connect(
        host="127.0.0.1",
        port=srv.port,
        user="root",
        password="",
        autocommit=True,
        cursorclass=pymysql.cursors.DictCursor if dict_rows else pymysql.cursors.Cursor,
    )


def _query(conn: pymysql.Connection, sql: str) -> Any:
    with conn.cursor() as cur:
        cur.execute(sql)
        return cur.fetchall()


def _executed(conn: pymysql.Connection) -> GtidSet:
    return GtidSet.parse(_query(conn, "SELECT @@GLOBAL.gtid_executed")[0][0].replace("\n", ""))


def _sysbench_args(port: int, test: str, table_size: int) -> list[str]:
    exe = shutil.which("sysbench")
    assert exe is not None
    return [
        exe,
        test,
        "--db-driver=mysql",
        "--mysql-host=127.0.0.1",
        f"--mysql-port={port}",
        "--mysql-user=root",
        "--mysql-password=",
        "--tables=1",
        f"--table-size={table_size}",
    ]


def _sysbench_figures(out: str) -> dict[str, float]:
    """TPS, queries and p95 latency (ms) from a sysbench run's report."""
    figures: dict[str, float] = {}
    for line in out.splitlines():
        line = line.strip()
        if line.startswith("transactions:"):
            figures["transactions"] = float(line.split()[1])
            figures["tps"] = float(line.split("(")[1].split()[0])
        elif line.startswith("95th percentile:"):
            figures["p95_ms"] = float(line.split()[2])
        elif line.startswith("ignored errors:"):
            figures["ignored_errors"] = float(line.split()[2])
    return figures


class Sampler(threading.Thread):
    """Once a second until :meth:`stop`: the replica's Seconds_Behind_Source, its applier lag (s) and the number
    of the source's transactions it lacks, each sample stamped with ``time.monotonic()``."""

    def __init__(self, source: ServerProcess, replica: ServerProcess, interval: float = 1.0) -> None:
        super().__init__(daemon=True)
        self.src = _connect(source)
        self.rep = _connect(replica, dict_rows=True)
        self.interval = interval
        self.samples: list[dict[str, Any]] = []
        self.errors: list[str] = []
        self._halt = threading.Event()

    def sample(self) -> dict[str, Any]:
        """One sample: the source's gtid_executed first, then the replica's state."""
        src_set = _executed(self.src)
        with self.rep.cursor() as cur:
            cur.execute("SHOW REPLICA STATUS")
            status = cur.fetchone()
            cur.execute(
                "SELECT NOW(6) AS now, APPLYING_TRANSACTION, APPLYING_TRANSACTION_ORIGINAL_COMMIT_TIMESTAMP AS applying,"
                " LAST_APPLIED_TRANSACTION_ORIGINAL_COMMIT_TIMESTAMP AS applied"
                " FROM performance_schema.replication_applier_status_by_worker"
            )
            worker = cur.fetchone()
            cur.execute("SELECT @@GLOBAL.gtid_executed AS g")
            rep_set = GtidSet.parse(cur.fetchone()["g"].replace("\n", ""))
        behind = (src_set - rep_set).count()
        lag = 0.0
        if behind and worker is not None:
            since = worker["applying"] if worker["APPLYING_TRANSACTION"] else worker["applied"]
            if isinstance(since, datetime.datetime) and since.year > 1970:
                lag = max(0.0, (worker["now"] - since).total_seconds())
        return {
            "t": time.monotonic(),
            "sbs": status["Seconds_Behind_Source"] if status else None,
            "lag": lag,
            "behind": behind,
        }

    def run(self) -> None:
        """Sample every ``interval`` seconds (a failed sample is recorded in :attr:`errors`)."""
        while not self._halt.is_set():
            t0 = time.monotonic()
            try:
                self.samples.append(self.sample())
            except (pymysql.err.Error, KeyError, TypeError, ValueError) as exc:
                self.errors.append(repr(exc))
            self._halt.wait(max(0.0, self.interval - (time.monotonic() - t0)))

    def stop(self) -> None:
        """End the sampling and close its connections."""
        self._halt.set()
        self.join(30)
        self.src.close()
        self.rep.close()


def _count_of(gtids: GtidSet, uuid: str) -> int:
    return gtids.restrict(uuid).count()


def _checksum(srv: ServerProcess) -> tuple[Any, ...]:
    conn = _connect(srv)
    try:
        return tuple(
            _query(
                conn, "SELECT COUNT(*), SUM(id), SUM(k), SUM(CRC32(c)), SUM(CRC32(pad)) FROM sbtest.sbtest1"
            )[0]
        )
    finally:
        conn.close()


def phase(
    source: ServerProcess, replica: ServerProcess, args: argparse.Namespace, readers: int
) -> dict[str, Any]:
    """One load phase: writers on the source and ``readers`` point-select clients on the replica for
    ``args.seconds``, sampled each second, then the catch-up and the data check.

    Returns:
        The phase's figures: readers, write_tps, apply_rate, read_tps / read_p95_ms, the samples (sbs, lag,
        behind), catch_up_s, data_equal, sample_errors.
    """
    src_conn, rep_conn = _connect(source), _connect(replica)
    uuid = str(_query(src_conn, "SELECT @@GLOBAL.server_uuid")[0][0])
    committed0, applied0 = _count_of(_executed(src_conn), uuid), _count_of(_executed(rep_conn), uuid)
    sampler = Sampler(source, replica)
    timeout = args.seconds * 5 + 120
    t0 = time.monotonic()
    writer = subprocess.Popen(
        [
            *_sysbench_args(source.port, args.write_test, args.table_size),
            f"--threads={args.write_threads}",
            f"--time={args.seconds}",
            "run",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    reader = (
        subprocess.Popen(
            [
                *_sysbench_args(replica.port, "oltp_point_select", args.table_size),
                f"--threads={readers}",
                f"--time={args.seconds}",
                "run",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        if readers
        else None
    )
    sampler.start()
    try:
        w_out = writer.communicate(timeout=timeout)[0]
        t_end = time.monotonic()
        target = _executed(src_conn)
        applied_end = _count_of(_executed(rep_conn), uuid)
        r_out = reader.communicate(timeout=timeout)[0] if reader is not None else ""
        caught = _query(rep_conn, f"SELECT WAIT_FOR_EXECUTED_GTID_SET('{target}', {args.catch_up_timeout})")[
            0
        ][0]
        catch_up = time.monotonic() - t_end
    finally:
        sampler.stop()
        for p in (writer, reader):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()
    w_fig, r_fig = _sysbench_figures(w_out), _sysbench_figures(r_out)
    if writer.returncode != 0 or "tps" not in w_fig:
        raise SystemExit(f"the writers failed ({writer.returncode}): {w_out[-3000:]}")
    if reader is not None and (reader.returncode != 0 or "tps" not in r_fig):
        raise SystemExit(f"the readers failed ({reader.returncode}): {r_out[-3000:]}")
    duration = t_end - t0
    equal = caught == 0 and _checksum(source) == _checksum(replica)
    src_conn.close()
    rep_conn.close()
    return {
        "readers": readers,
        "seconds": duration,
        "write_tps": w_fig["tps"],
        "write_p95_ms": w_fig.get("p95_ms", float("nan")),
        "commit_rate": (_count_of(target, uuid) - committed0) / duration,
        "apply_rate": (applied_end - applied0) / duration,
        "read_tps": r_fig.get("tps"),
        "read_p95_ms": r_fig.get("p95_ms"),
        "samples": sampler.samples,
        "catch_up_s": catch_up if caught == 0 else float("inf"),
        "data_equal": equal,
        "sample_errors": sampler.errors,
    }


def setup(source: ServerProcess, replica: ServerProcess, table_size: int) -> None:
    """The replication account, sysbench's table on the source, the replica started (GTID auto-position) and
    caught up."""
    src = _connect(source)
    for sql in (
        "CREATE USER repl@'%' IDENTIFIED BY 'r'",
        "GRANT REPLICATION SLAVE ON *.* TO repl@'%'",
        "CREATE DATABASE sbtest",
    ):
        _query(src, sql)
    subprocess.run(
        [*_sysbench_args(source.port, "oltp_write_only", table_size), "prepare"],
        capture_output=True,
        check=True,
    )
    rep = _connect(replica)
    _query(
        rep,
        f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT={source.port}, SOURCE_USER='repl', "
        "SOURCE_PASSWORD='r', SOURCE_AUTO_POSITION=1",
    )
    _query(rep, "START REPLICA")
    target = _executed(src)
    if _query(rep, f"SELECT WAIT_FOR_EXECUTED_GTID_SET('{target}', 300)")[0][0] != 0:
        raise SystemExit("the replica did not receive sysbench's table within 300 s")
    src.close()
    rep.close()


def _fmt(v: float | None, digits: int = 1) -> str:
    return "" if v is None or math.isnan(v) else f"{v:.{digits}f}"


def render(
    args: argparse.Namespace, phases: list[dict[str, Any]], load: tuple[float, ...], elapsed: float
) -> str:
    """The ``replica_read_load`` section of bench/RESULTS.md."""
    opts = "".join(f" --source-option={shlex.quote(o)}" for o in args.source_option) + "".join(
        f" --replica-option={shlex.quote(o)}" for o in args.replica_option
    )
    cmd = (
        ".venv/bin/python bench/bench_replica_read_load.py"
        + (" --quick" if args.quick else "")
        + f" --seconds {args.seconds} --rounds {args.rounds} --write-test {args.write_test} "
        f"--write-threads {args.write_threads} --readers {args.readers} --table-size {args.table_size}{opts}"
    )
    after = os.getloadavg()
    lines = [
        "## Passive replica under read load (issue 21)",
        "",
        f"Command: `{cmd}` ({elapsed / 60:.1f} min). A gtidkit source (`--log-bin --server-id=1 --gtid-mode=ON "
        "--enforce-gtid-consistency=ON"
        + "".join(f" {o}" for o in args.source_option)
        + "`) and a binlog-off passive replica (`--skip-log-bin --server-id=2`, GTIDs on, GTID auto-position"
        + "".join(f", `{o}`" for o in args.replica_option)
        + f"), on 127.0.0.1; sysbench 1.0.20 {args.write_test} with {args.write_threads} clients on the source "
        f"(as fast as it acknowledges) for {args.seconds} s per phase while {args.readers} sysbench "
        "oltp_point_select clients read from the replica (0 in the control phase; phases alternate). Sampled "
        "each second on the replica: Seconds_Behind_Source (SHOW REPLICA STATUS); the applier lag as MySQL 8.0 "
        "defines it in performance_schema.replication_applier_status_by_worker (now minus the original commit "
        "timestamp of the transaction being applied, or of the last one applied while GTIDs are missing; one "
        "clock); the source's transactions the replica lacks. Max and p95 over the samples of the load and the catch-up; catch-up = "
        "from the writers' end until the replica has every GTID of the source. Load average (1/5/15 min) "
        f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} before the run, {after[0]:.1f} / {after[1]:.1f} / "
        f"{after[2]:.1f} after it, on {os.cpu_count()} CPUs shared with other work.",
        "",
        (
            "| round | replica readers | source commits/s (sysbench TPS, p95 ms) | replica applies/s | apply / "
            "commit | read TPS (p95 ms) | samples | Seconds_Behind_Source max / p95 (s) | applier lag max / p95 (s) "
            "| missing trx max / p95 | catch-up (s) | data equal |"
        ),
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for i, ph in enumerate(phases):
        sbs = [float(s["sbs"]) for s in ph["samples"] if s["sbs"] is not None]
        lag = [s["lag"] for s in ph["samples"]]
        behind = [float(s["behind"]) for s in ph["samples"]]
        null_sbs = sum(1 for s in ph["samples"] if s["sbs"] is None)
        lines.append(
            f"| {i // 2 + 1} | {ph['readers']} | {ph['commit_rate']:.0f} ({ph['write_tps']:.0f}, "
            f"{_fmt(ph['write_p95_ms'], 2)}) | {ph['apply_rate']:.0f} | "
            f"{ph['apply_rate'] / max(ph['commit_rate'], 1e-9):.2f} | "
            + (f"{ph['read_tps']:.0f} ({_fmt(ph['read_p95_ms'], 2)})" if ph["read_tps"] else "-")
            + f" | {len(ph['samples'])} | {_fmt(max(sbs, default=None), 0)} / {_fmt(pct(sbs, 0.95), 0)}"
            + (f" ({null_sbs} NULL)" if null_sbs else "")
            + f" | {_fmt(max(lag, default=None), 2)} / {_fmt(pct(lag, 0.95), 2)} | "
            f"{_fmt(max(behind, default=None), 0)} / {_fmt(pct(behind, 0.95), 0)} | {_fmt(ph['catch_up_s'], 2)} | "
            f"{'yes' if ph['data_equal'] else '**no**'} |"
        )
    loaded = [ph for ph in phases if ph["readers"]]
    control = [ph for ph in phases if not ph["readers"]]
    if loaded and control:

        def med(key: str, group: list[dict[str, Any]]) -> float:
            return statistics.median(p[key] for p in group)

        keep_up = [med("apply_rate", g) / max(1e-9, med("commit_rate", g)) for g in (loaded, control)]
        slowed = med("commit_rate", loaded) / max(1e-9, med("commit_rate", control))
        lines += [
            "",
            (
                f"Medians over the rounds: the replica applied **{keep_up[0]:.2f}** of what the source committed "
                f"with {args.readers} readers on it, {keep_up[1]:.2f} without; the source's commit rate with the "
                f"replica's readers running / without them: {slowed:.2f} (both servers and all clients share this "
                "machine's CPUs, so the readers also slow the source)."
            ),
        ]
    errors = [e for ph in phases for e in ph["sample_errors"]]
    if errors:
        lines += ["", f"Failed samples: {len(errors)} (first: `{errors[0]}`)."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Run the phases and write bench/RESULTS.md's ``replica_read_load`` section."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=int, default=60, help="load duration of each phase")
    ap.add_argument("--rounds", type=int, default=1, help="pairs of phases (with readers, control without)")
    ap.add_argument("--write-test", default="oltp_write_only", help="the sysbench workload on the source")
    ap.add_argument("--write-threads", type=int, default=4, help="sysbench clients on the source")
    ap.add_argument(
        "--readers", type=int, default=4, help="sysbench oltp_point_select clients on the replica"
    )
    ap.add_argument("--table-size", type=int, default=10000, help="rows in sysbench's table")
    ap.add_argument(
        "--catch-up-timeout", type=int, default=600, help="seconds the replica may take to catch up"
    )
    ap.add_argument("--source-option", action="append", default=[], help="an extra `gtidkit server` option")
    ap.add_argument("--replica-option", action="append", default=[], help="an extra `gtidkit server` option")
    ap.add_argument("--no-control", action="store_true", help="no phase without readers")
    ap.add_argument("--quick", action="store_true", help="5 s phases, 1000 rows")
    ap.add_argument("--no-write", action="store_true", help="print the section, leave bench/RESULTS.md alone")
    args = ap.parse_args(argv)
    if args.quick:
        for name, value in (("seconds", 5), ("table_size", 1000)):
            if getattr(args, name) == ap.get_default(name):
                setattr(args, name, value)
    if shutil.which("sysbench") is None:
        raise SystemExit("sysbench is not installed (.ci/run installs it)")
    load = os.getloadavg()
    started = time.monotonic()
    phases: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:  # noqa: SIM117 (the servers stop before the datadirs go)
        with (
            running_server(
                Path(tmp) / "source",
                "--log-bin",
                "--server-id=1",
                "--gtid-mode=ON",
                "--enforce-gtid-consistency=ON",
                *args.source_option,
            ) as source,
            running_server(
                Path(tmp) / "replica",
                "--skip-log-bin",
                "--server-id=2",
                "--gtid-mode=ON",
                "--enforce-gtid-consistency=ON",
                *args.replica_option,
            ) as replica,
        ):
            setup(source, replica, args.table_size)
            for rnd in range(args.rounds):
                order = [args.readers] if args.no_control else [args.readers, 0]
                for readers in order if rnd % 2 == 0 else order[::-1]:
                    ph = phase(source, replica, args, readers)
                    print(
                        f"round {rnd + 1} readers {readers}: source {ph['write_tps']:.0f} trx/s, replica "
                        f"{ph['apply_rate']:.0f} trx/s, catch-up {ph['catch_up_s']:.2f} s",
                        flush=True,
                    )
                    phases.append(ph)
    text = render(args, phases, load, time.monotonic() - started)
    if not args.no_write:
        update_section("replica_read_load", text)
    print(text)
    return 0 if all(ph["data_equal"] for ph in phases) else 1


if __name__ == "__main__":
    sys.exit(main())
