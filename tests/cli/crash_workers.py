"""Crash trials of a multi-worker server (issue 21 step 7): SIGKILL one worker, or the whole server, under load.

A real ``gtidkit server --workers=N`` (supervisor, fork server, worker processes) on one datadir, real PyMySQL clients
committing through every worker (connections are placed round-robin, so C clients opened one after the other land
on every worker). Two modes:

* ``random_worker``: one server for every trial. A trial lets the clients commit, SIGKILLs one worker chosen at
  random at a random moment (sometimes while a client of that worker holds an open, uncommitted write transaction
  that makes every other writer wait for the write lock), waits for the supervisor's replacement, commits once
  through every worker, then checks the invariant on the live server. The clients of the killed worker get errors
  (2013 / 2006), the others none.
* ``whole_server``: every trial SIGKILLs the supervisor, the fork server and every worker at once (the process group:
  what a crash of mysqld does to its threads), restarts the server (its recovery) and checks the invariant.

The invariant, as tests/engine/crash_driver.py checks it after a single-process crash: every acknowledged
transaction is present (0 lost), none twice (0 duplicated), a transaction's two rows are both there or neither (its
open transactions roll back), rows that were never acknowledged belong to transactions in flight at the kill,
``@@GLOBAL.gtid_executed`` (the same in every worker) has one GTID per transaction present, mysql.gtid_executed equals
it, the binary log holds exactly the transactions present, each GTID once, and its GTIDs with the first file's
Previous_gtids equal gtid_executed (GNOs unique).

Used by tests/cli/test_crash_workers.py (a few trials) and bench/stress_crash.py ``--workers N`` (200 per mode).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import random
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pymysql
from protocol.prefork import popen_gtidkit, run_gtidkit

from gtidkit.binlog.file import read_previous_gtids, read_transactions
from gtidkit.gtid import GtidSet

MODES = ("random_worker", "whole_server")

#: the server's options: GTIDs and the binary log on (ROW), small files so the trials rotate across workers
SERVER_ARGS = (
    "--gtid-mode=ON",
    "--enforce-gtid-consistency=ON",
    "--log-bin",
    "--binlog-format=ROW",
    "--server-id=1",
    "--sync-binlog=1",
    "--max-binlog-size=16384",
)
SETUP = (
    "CREATE DATABASE IF NOT EXISTS crash",
    "CREATE TABLE IF NOT EXISTS crash.t (k INT NOT NULL, part INT NOT NULL)",
)
#: ``GTIDKIT_CRASH_SCHEMA_FILES=1``: the server runs with a SQLite file per schema (issue 21 step 9) and each
#: transaction's second row goes into another schema (crash2.t): both rows or neither checks atomicity across files
SCHEMA_FILES = os.environ.get("GTIDKIT_CRASH_SCHEMA_FILES") == "1"
if SCHEMA_FILES:
    SERVER_ARGS = (*SERVER_ARGS, "--gtidkit-file-per-schema=ON")
    SETUP = (
        *SETUP,
        "CREATE DATABASE IF NOT EXISTS crash2",
        "CREATE TABLE IF NOT EXISTS crash2.t (k INT NOT NULL, part INT NOT NULL)",
    )
#: ``GTIDKIT_CRASH_ROW_LOCKS=1``: the server runs with ``--gtidkit-row-locks=ON`` and crash.t has a primary key,
#: so each transaction's two INSERTs are deferred to its COMMIT (docs/design/multi_worker.md §5.7)
ROW_LOCKS = os.environ.get("GTIDKIT_CRASH_ROW_LOCKS") == "1"
if ROW_LOCKS:
    SERVER_ARGS = (*SERVER_ARGS, "--gtidkit-row-locks=ON")
    SETUP = (
        "CREATE DATABASE IF NOT EXISTS crash",
        "CREATE TABLE IF NOT EXISTS crash.t (id INT PRIMARY KEY, k INT NOT NULL, part INT NOT NULL)",
        *SETUP[2:],
    )
#: ``GTIDKIT_CRASH_DDL=1`` (with the schema files): one more client runs crash_driver's DDL cycle (CREATE, CREATE
#: ... SELECT, ALTER, RENAME across the files, TRUNCATE, DROP TABLE, CREATE / DROP DATABASE) while the others
#: commit; the check adds that every schema file holds the tables and columns the catalog lists
DDL = SCHEMA_FILES and os.environ.get("GTIDKIT_CRASH_DDL") == "1"
#: the table of each transaction's second row
SECOND = "crash2.t" if SCHEMA_FILES else "crash.t"


def insert_row(table: str, k: int, part: int) -> str:
    """The INSERT of row (``k``, ``part``) (with ``GTIDKIT_CRASH_ROW_LOCKS=1`` by its primary key)."""
    if ROW_LOCKS and table == "crash.t":
        return f"INSERT INTO crash.t (id, k, part) VALUES ({2 * k + part}, {k}, {part})"
    return f"INSERT INTO {table} VALUES ({k}, {part})"


#: every row of the workload's tables
ALL_ROWS = "(SELECT k FROM crash.t UNION ALL SELECT k FROM crash2.t)" if SCHEMA_FILES else "crash.t"
#: errors a client of a dying worker (or of a server being killed) may see: lost connection, gone away, can't connect
LOST = frozenset({2013, 2006, 2003, 2002, 2055, 0})


def _crash_driver() -> Any:
    """tests/engine/crash_driver.py (its DDL cycle and its check of the files against the catalog)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "crash_driver", Path(__file__).resolve().parents[1] / "engine" / "crash_driver.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _children(pid: int) -> list[int]:
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out += [int(x) for x in (task / "children").read_text().split()]
        except OSError:
            continue
    return out


def _name(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def connect(port: int, timeout: float = 30.0) -> pymysql.connections.Connection:
    """A PyMySQL connection as root (autocommit, generous timeouts: the machine is loaded)."""
    return pymysql.connect(
        host="127.0.0.1",
        port=port,
        user="root",
        autocommit=True,
        connect_timeout=timeout,
        read_timeout=120,
        write_timeout=120,
    )


def query(conn: pymysql.connections.Connection, sql: str) -> tuple:
    """Run ``sql``; its rows."""
    with conn.cursor() as cur:
        cur.execute(sql)
        return cur.fetchall()


class ServerRun:
    """One ``gtidkit server --workers=N`` process tree on ``datadir``, in its own process group.

    Args:
        datadir: the data directory (initialized by the caller).
        workers: N.
        extra: more server options.
    """

    def __init__(self, datadir: Path, workers: int, extra: tuple[str, ...] = ()) -> None:
        self.datadir = datadir
        self.workers = workers
        self.extra = extra
        self.proc: subprocess.Popen[str] | None = None
        self.port = 0

    def start(self, timeout: float = 180.0) -> None:
        """Start the server and wait for "ready for connections" (after its recovery).

        Raises:
            AssertionError: it exited or did not become ready in ``timeout`` seconds (with its error log).
        """
        cmd = [
            "server",
            "--datadir",
            str(self.datadir),
            "--port",
            "0",
            "--log-error",
            "error.log",
            f"--workers={self.workers}",
            *SERVER_ARGS,
            *self.extra,
        ]
        self.proc = popen_gtidkit(  # forked by the prefork process, as the suite's other servers
            cmd,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
            start_new_session=True,  # its own process group: the whole-server kill is one killpg
        )
        assert self.proc.stderr is not None
        deadline = time.monotonic() + timeout
        port = None
        while time.monotonic() < deadline:
            line = self.proc.stderr.readline()
            if not line:
                break
            if "ready for connections" in line:
                port = int(line.rsplit("port:", 1)[1])
                break
        if port is None:
            self.kill_all()
            raise AssertionError(f"server did not start: {self.error_log()[-3000:]}")
        self.port = port
        # drain stderr so the server never blocks on a full pipe
        threading.Thread(target=self._drain, args=(self.proc.stderr,), daemon=True).start()

    @staticmethod
    def _drain(stream: Any) -> None:
        try:
            for _line in stream:
                pass
        except (OSError, ValueError):
            pass

    def error_log(self) -> str:
        """The server's error log (empty when none)."""
        path = self.datadir / "error.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def worker_pids(self) -> dict[int, int]:
        """{worker index: pid} of the live workers (children named ``gtidkit-worker<i>``)."""
        assert self.proc is not None
        out = {}
        for pid in _children(self.proc.pid):
            name = _name(pid)
            if name.startswith("gtidkit-worker") and _alive(pid):
                out[int(name[len("gtidkit-worker") :])] = pid
        return out

    def all_pids(self) -> list[int]:
        """The supervisor and its children (fork server, workers)."""
        assert self.proc is not None
        return [self.proc.pid, *_children(self.proc.pid)]

    def kill_all(self) -> None:
        """SIGKILL the whole server at once (its process group) and wait until every process is gone."""
        if self.proc is None:
            return
        pids = self.all_pids()
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(60)
        deadline = time.monotonic() + 60
        while any(_alive(p) for p in pids):
            assert time.monotonic() < deadline, "a process of the killed server survived"
            time.sleep(0.01)
        if self.proc.stderr is not None:
            self.proc.stderr.close()
        self.proc = None

    def stop(self) -> int:
        """SIGTERM (a clean shutdown); its exit status."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        rc = self.proc.wait(120)
        self.proc = None
        return rc


@dataclass
class Ledger:
    """What the clients know: acknowledged transactions, those in doubt (an error before the OK), the ones that
    must not exist (never committed), the errors seen per worker."""

    acked: set[int] = field(default_factory=set)
    in_doubt: set[int] = field(default_factory=set)
    never: set[int] = field(default_factory=set)
    errors: list[tuple[int, int, str]] = field(default_factory=list)  # (worker, code, text)
    lock: threading.Lock = field(default_factory=threading.Lock)
    keys: Any = field(default_factory=lambda: itertools.count(1))

    def next_key(self) -> int:
        """A transaction key never used before."""
        with self.lock:
            return next(self.keys)


def _code(err: BaseException) -> int:
    args = getattr(err, "args", ())
    return int(args[0]) if args and isinstance(args[0], int) else 0


class Load:
    """``clients`` threads committing two-row transactions (BEGIN; INSERT k,1; INSERT k,2; COMMIT) until stopped.

    A client that loses its connection records the transaction in doubt and the error with its worker, and
    reconnects (to whichever worker the supervisor places it in) until :meth:`stop`.
    """

    def __init__(self, port: int, ledger: Ledger, clients: int, ddl_keys: Any = None) -> None:
        self.port = port
        self.ledger = ledger
        self._stop = threading.Event()
        self.commits = 0
        self.placed: list[int] = []
        self._threads = [threading.Thread(target=self._run, daemon=True) for _ in range(clients)]
        self._connected = threading.Semaphore(0)
        #: with :data:`DDL`: the DDL cycle's numbers (an iterator shared by the trials)
        self._ddl_keys = ddl_keys
        self.ddls = 0

    def start(self) -> None:
        """Start the clients one after the other (round-robin placement: one per worker in turn)."""
        if self._ddl_keys is not None:  # first: it runs through the whole load
            ddl = threading.Thread(target=self._run_ddl, daemon=True)
            ddl.start()
        for t in self._threads:
            t.start()
            self._connected.acquire(timeout=60)
        if self._ddl_keys is not None:
            self._threads.append(ddl)

    def _run_ddl(self) -> None:
        """The DDL client: crash_driver's cycle, one statement after the other; a failed one (its table left out
        by a kill, a lost connection) is skipped."""
        ddl_of = _crash_driver().ddl_of
        conn = None
        while not self._stop.is_set():
            try:
                if conn is None:
                    conn = connect(self.port, timeout=10)
                k = next(self._ddl_keys)
                query(conn, ddl_of(k))
                if k % 8 == 6:
                    query(conn, "CREATE TABLE IF NOT EXISTS crash3.t (a INT PRIMARY KEY)")
                    query(conn, f"INSERT INTO crash3.t VALUES ({k})")
                self.ddls += 1
            except pymysql.err.MySQLError as err:
                if _code(err) in LOST:
                    with contextlib.suppress(Exception):
                        conn.close()  # type: ignore[union-attr]
                    conn = None
                    time.sleep(0.05)
        if conn is not None:
            conn.close()

    def stop(self, timeout: float = 180.0) -> None:
        """Stop the clients after their current transaction.

        Raises:
            AssertionError: a client did not stop in ``timeout`` seconds.
        """
        self._stop.set()
        for t in self._threads:
            t.join(timeout)
            assert not t.is_alive(), "a client did not stop"

    def _run(self) -> None:
        led = self.ledger
        conn = None
        worker = -1
        first = True
        while not self._stop.is_set():
            if conn is None:
                try:
                    conn = connect(self.port, timeout=10)
                    worker = int(query(conn, "SELECT @@gtidkit_worker_id")[0][0])
                    self.placed.append(worker)
                except pymysql.err.MySQLError:
                    conn = None
                    time.sleep(0.05)
                    continue
                finally:
                    if first:
                        first = False
                        self._connected.release()
            k = led.next_key()
            stage = "begin"
            try:
                query(conn, "BEGIN")
                stage = "insert"
                query(conn, insert_row("crash.t", k, 1))
                query(conn, insert_row(SECOND, k, 2))
                stage = "commit"
                query(conn, "COMMIT")
            except pymysql.err.MySQLError as err:
                with led.lock:
                    # an error before COMMIT was sent leaves nothing; after, the commit may have happened
                    (led.in_doubt if stage == "commit" else led.never).add(k)
                    led.errors.append((worker, _code(err), str(err)))
                with contextlib.suppress(Exception):  # the connection is gone anyway
                    conn.close()
                conn = None
                continue
            with led.lock:
                led.acked.add(k)
                self.commits += 1
        if conn is not None:
            conn.close()


def binlog_files(datadir: Path) -> list[Path]:
    """The binary log files the index lists, in order."""
    index = datadir / "binlog.index"
    if not index.exists():
        return []
    return [datadir / Path(line.strip()).name for line in index.read_text().splitlines() if line.strip()]


def check(port: int, workers: int, datadir: Path, ledger: Ledger, n_setup: int) -> list[str]:
    """The invariant on a running, idle server (one connection per worker); returns the violations found."""
    problems: list[str] = []
    conns = []
    try:
        seen_workers = set()
        for _ in range(workers * 3):
            c = connect(port)
            w = int(query(c, "SELECT @@gtidkit_worker_id")[0][0])
            if w in seen_workers:
                c.close()
            else:
                seen_workers.add(w)
                conns.append(c)
            if len(conns) == workers:
                break
        if len(conns) != workers:
            problems.append(f"connections reached workers {sorted(seen_workers)}, not all {workers}")
        c = conns[0]
        counts = {int(k): int(n) for k, n in query(c, f"SELECT k, COUNT(*) FROM {ALL_ROWS} AS r GROUP BY k")}
        present = set(counts)
        lost = ledger.acked - present
        if lost:
            problems.append(f"acknowledged transactions lost: {sorted(lost)[:5]} ({len(lost)})")
        torn = {k: n for k, n in counts.items() if n != 2}
        if torn:
            problems.append(f"transactions not whole or duplicated (k: rows): {dict(list(torn.items())[:5])}")
        ghosts = present - ledger.acked - ledger.in_doubt
        if ghosts:
            problems.append(f"rows of transactions never committed: {sorted(ghosts)[:5]}")
        texts = {query(x, "SELECT @@GLOBAL.gtid_executed")[0][0].replace("\n", "") for x in conns}
        if len(texts) != 1:
            problems.append(f"workers disagree on gtid_executed: {sorted(texts)}")
        executed = GtidSet.parse(next(iter(texts)))
        if DDL:  # the DDLs take GTIDs and CREATE ... SELECT logs rows: the files against the catalog instead
            problems += _crash_driver().files_agree_with_the_catalog(
                lambda sql: query(c, sql), datadir, ctas_rows=False
            )
        elif len(executed) != len(present) + n_setup:
            problems.append(
                f"gtid_executed has {len(executed)} GTIDs for {len(present)} transactions (+{n_setup})"
            )
        table = GtidSet.parse(
            ",".join(
                f"{u}:{a}-{b}"
                for u, a, b in query(
                    c, "SELECT source_uuid, interval_start, interval_end FROM mysql.gtid_executed"
                )
            )
        )
        if table != executed:
            problems.append(f"mysql.gtid_executed {table} != @@GLOBAL.gtid_executed {executed}")
        files = binlog_files(datadir)
        seen: list[Any] = []
        dml = 0
        for path in files:
            summ = read_transactions(path, keep_events_from=0)
            for tx in summ.transactions:
                if tx.gtid is not None:
                    seen.append(tx.gtid)
                if any(type(e.event).__name__ == "XidEvent" for e in summ.events[tx.begin_pos]):
                    dml += 1
        if len(seen) != len(set(seen)):
            problems.append("a GTID appears twice in the binary log")
        if dml != len(present) and not DDL:
            problems.append(f"the binary log has {dml} row transactions, the data {len(present)}")
        in_binlogs = (
            (read_previous_gtids(files[0]) or GtidSet()) | GtidSet.from_gtids(seen) if files else GtidSet()
        )
        if in_binlogs != executed:
            problems.append(f"binary log GTIDs {in_binlogs} != gtid_executed {executed}")
    finally:
        for x in conns:
            x.close()
    return problems


def _commit_through_every_worker(port: int, workers: int, ledger: Ledger) -> list[str]:
    """One acknowledged transaction through each worker (the replacement serves writes; the binary log's tail is
    continued by a live process); returns the workers it could not reach."""
    reached: set[int] = set()
    problems: list[str] = []
    deadline = time.monotonic() + 120
    while len(reached) < workers and time.monotonic() < deadline:
        try:
            with connect(port) as c:
                w = int(query(c, "SELECT @@gtidkit_worker_id")[0][0])
                if w in reached:
                    continue
                k = ledger.next_key()
                query(c, "BEGIN")
                query(c, insert_row("crash.t", k, 1))
                query(c, insert_row(SECOND, k, 2))
                with ledger.lock:
                    ledger.in_doubt.add(k)
                query(c, "COMMIT")
                with ledger.lock:
                    ledger.in_doubt.discard(k)  # acknowledged: not in doubt any more
                    ledger.acked.add(k)
                reached.add(w)
        except pymysql.err.MySQLError as err:
            problems.append(f"commit after the replacement failed: {err}")
            time.sleep(0.2)
    if len(reached) < workers:
        problems.append(f"only workers {sorted(reached)} served a commit after the replacement")
    return problems


class Trials:
    """Run crash trials of one mode on one datadir.

    Args:
        datadir: where the server's datadir goes (initialized here).
        mode: one of :data:`MODES`.
        workers: the server's ``--workers``.
        clients: committing client connections (spread over the workers by placement).
        rng: the random source (kill moment, victim, open transaction).
        max_delay: seconds of load before the kill, at most.
    """

    def __init__(
        self,
        datadir: Path,
        mode: str,
        workers: int,
        clients: int,
        rng: random.Random,
        max_delay: float = 0.5,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}")
        self.datadir = datadir
        self.mode = mode
        self.workers = workers
        self.clients = clients
        self.rng = rng
        self.max_delay = max_delay
        self.ledger = Ledger()
        self.server = ServerRun(datadir, workers)
        self.n_setup = 0
        self.held_open = 0
        self.replacements: list[float] = []
        #: the DDL client's numbers across the trials (:data:`DDL`)
        self.ddl_keys = itertools.count(1) if DDL else None
        #: DDL statements the DDL client completed (:data:`DDL`)
        self.ddls = 0

    def setup(self) -> None:
        """Initialize the datadir (unless it exists: a test copies an initialized one), start the server, create
        the table, count the set-up GTIDs."""
        if not self.datadir.exists():
            run_gtidkit(
                [
                    "server",
                    "--initialize-insecure",
                    "--datadir",
                    str(self.datadir),
                    "--skip-log-bin",
                ],
                capture_output=True,
                check=True,
                timeout=300,
            )
        self.server.start()
        with connect(self.server.port) as c:
            for stmt in SETUP:
                query(c, stmt)
            self.n_setup = len(
                GtidSet.parse(query(c, "SELECT @@GLOBAL.gtid_executed")[0][0].replace("\n", ""))
            )

    def trial(self) -> list[str]:
        """One kill and its check; returns the violations found."""
        led = self.ledger
        load = Load(self.server.port, led, self.clients, self.ddl_keys)
        load.start()
        problems: list[str] = []
        time.sleep(self.rng.uniform(0.0, self.max_delay))
        if self.mode == "whole_server":
            self.server.kill_all()
            load.stop()
            self.ddls += load.ddls
            self.server.start()
        else:
            pids = self.server.worker_pids()
            victim = self.rng.randrange(self.workers)
            holder = None
            if self.rng.random() < 0.25:  # a client of the victim holds an open write transaction at the kill
                holder = self._open_transaction_in(victim)
            pid = pids[victim]
            t0 = time.monotonic()
            os.kill(pid, signal.SIGKILL)
            deadline = time.monotonic() + 120
            while True:
                now = self.server.worker_pids()
                if victim in now and now[victim] != pid and len(now) == self.workers:
                    break
                if time.monotonic() > deadline:
                    problems.append(f"worker {victim} was not replaced: {self.server.error_log()[-2000:]}")
                    break
                time.sleep(0.02)
            load.stop()
            self.ddls += load.ddls
            self.replacements.append(time.monotonic() - t0)
            if holder is not None:
                holder.close()
            unexpected = [e for e in led.errors if e[0] != victim and e[0] != -1 or e[1] not in LOST]
            if unexpected:
                problems.append(f"errors outside the killed worker {victim}: {unexpected[:3]}")
            led.errors.clear()
            problems += _commit_through_every_worker(self.server.port, self.workers, led)
        led.errors.clear()
        problems += check(self.server.port, self.workers, self.datadir, led, self.n_setup)
        return problems

    def _open_transaction_in(self, victim: int) -> Any:
        """A connection placed in worker ``victim`` with an uncommitted two-row transaction (its key in ``never``)."""
        for _ in range(self.workers * 4):
            c = connect(self.server.port)
            if int(query(c, "SELECT @@gtidkit_worker_id")[0][0]) != victim:
                c.close()
                continue
            k = self.ledger.next_key()
            with self.ledger.lock:
                self.ledger.never.add(k)
            query(c, "BEGIN")
            query(c, insert_row("crash.t", k, 1))  # takes the write lock (row locks: its rows): others wait
            query(c, insert_row(SECOND, k, 2))
            self.held_open += 1
            return c
        return None

    def finish(self) -> list[str]:
        """SIGKILL the whole server, restart it (recovery), check, stop it cleanly; returns the violations."""
        self.server.kill_all()
        self.server.start()
        try:
            problems = check(self.server.port, self.workers, self.datadir, self.ledger, self.n_setup)
        finally:
            rc = self.server.stop()
        if rc != 0:
            problems.append(f"clean stop exited {rc}")
        return problems

    def abandon(self) -> None:
        """Kill the server if it still runs (after a failure)."""
        if self.server.proc is not None:
            self.server.kill_all()
