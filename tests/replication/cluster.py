"""Helpers for replication tests and benchmarks: real `gtidkit server` nodes wired by CHANGE REPLICATION SOURCE TO.

A :class:`Node` is one server process on a datadir that can be SIGKILLed and started again on the same datadir
(``kill()`` / ``start()``); :class:`Cluster` owns several and stops every process at exit. Replication is set up the
way a DBA does it (MySQL manual "Setting Up Replication Using GTIDs"): ``CHANGE REPLICATION SOURCE TO SOURCE_HOST,
SOURCE_PORT, SOURCE_USER, SOURCE_AUTO_POSITION = 1`` then ``START REPLICA``. Data equality is checked with a
digest of every row of every table of the named databases, ordered by all columns (the same rows in any physical
order give the same digest).
"""

from __future__ import annotations

import contextlib
import hashlib
import random
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pymysql
from protocol.server_proc import ServerProcess, initialize, running_server
from pymysql.constants import CLIENT

from gtidkit.gtid import GtidSet
from gtidkit.protocol.client import last_gtids

GTID_OPTIONS = ("--gtid-mode=ON", "--enforce-gtid-consistency=ON")


class Node:
    """One server: its datadir, options and (while running) process; ``start()`` / ``kill()`` / ``stop()``."""

    def __init__(
        self,
        datadir: Path,
        server_id: int,
        *,
        log_bin: bool,
        log_replica_updates: bool = False,
        extra: tuple[str, ...] = (),
    ) -> None:
        self.datadir = datadir
        self.server_id = server_id
        self.args = [*GTID_OPTIONS, f"--server-id={server_id}"]
        self.args.append("--log-bin" if log_bin else "--skip-log-bin")
        if log_replica_updates:
            self.args.append("--log-replica-updates")
        self.args.extend(extra)
        self._stack: contextlib.ExitStack | None = None
        self.proc: ServerProcess | None = None
        if not datadir.exists():
            initialize(datadir)

    @property
    def port(self) -> int:
        """The port of the running process."""
        assert self.proc is not None, "node not running"
        return self.proc.port

    def start(self) -> Node:
        """Start the server on its datadir (after a kill: crash recovery runs)."""
        assert self.proc is None, "already running"
        self._stack = contextlib.ExitStack()
        self.proc = self._stack.enter_context(running_server(self.datadir, *self.args, init=False))
        return self

    def kill(self) -> None:
        """SIGKILL the process and wait for it (no shutdown code runs)."""
        assert self.proc is not None and self._stack is not None
        self.proc.stop(signal.SIGKILL)
        self._stack.close()
        self.proc, self._stack = None, None

    def stop(self) -> None:
        """Clean shutdown (SIGTERM); no-op when not running."""
        if self.proc is not None and self._stack is not None:
            self._stack.close()
        self.proc, self._stack = None, None

    def connect(self, *, track: bool = False, database: str | None = None) -> Any:
        """A new autocommit PyMySQL connection as root (``track``: CLIENT.SESSION_TRACK)."""
        return pymysql.connect(
            host="127.0.0.1",
            port=self.port,
            user="root",
            autocommit=True,
            database=database,
            client_flag=CLIENT.SESSION_TRACK if track else 0,
            connect_timeout=30,
        )

    def query(self, sql: str, args: Any = None) -> tuple[tuple[Any, ...], ...]:
        """Run one statement on a fresh connection; its rows (empty for statements without a result)."""
        conn = self.connect()
        try:
            cur = conn.cursor()
            cur.execute(sql, args)
            return tuple(cur.fetchall()) if cur.description else ()
        finally:
            conn.close()

    def executed(self) -> GtidSet:
        """@@GLOBAL.gtid_executed."""
        return GtidSet.parse(self.query("SELECT @@GLOBAL.gtid_executed")[0][0] or "")

    def server_uuid(self) -> str:
        """@@GLOBAL.server_uuid."""
        return str(self.query("SELECT @@GLOBAL.server_uuid")[0][0])

    def replica_status(self) -> dict[str, Any]:
        """SHOW REPLICA STATUS as a dict (empty when not a replica)."""
        conn = self.connect()
        try:
            cur = conn.cursor()
            cur.execute("SHOW REPLICA STATUS")
            row = cur.fetchone()
            return {} if row is None else dict(zip([d[0] for d in cur.description], row))
        finally:
            conn.close()

    def replicate_from(self, source: Node, *, connect_retry: int = 1, start: bool = True) -> None:
        """CHANGE REPLICATION SOURCE TO ``source`` with auto-position, then START REPLICA."""
        self.query(
            "CHANGE REPLICATION SOURCE TO SOURCE_HOST = '127.0.0.1', SOURCE_PORT = %s, SOURCE_USER = 'root', "
            "SOURCE_PASSWORD = '', SOURCE_AUTO_POSITION = 1, SOURCE_CONNECT_RETRY = %s",
            (source.port, connect_retry),
        )
        if start:
            self.query("START REPLICA")

    def wait_for(self, gtids: GtidSet, timeout: float = 120) -> bool:
        """WAIT_FOR_EXECUTED_GTID_SET(gtids, timeout) on this node: True when reached."""
        if not gtids:
            return True
        return self.query("SELECT WAIT_FOR_EXECUTED_GTID_SET(%s, %s)", (str(gtids), timeout))[0][0] == 0

    def checksum(self, *databases: str) -> str:
        """A digest of every row of every table of ``databases`` (tables by name, rows sorted)."""
        h = hashlib.sha256()
        conn = self.connect()
        try:
            cur = conn.cursor()
            for db in databases:
                cur.execute(
                    "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = %s ORDER BY TABLE_NAME",
                    (db,),
                )
                for (table,) in cur.fetchall():
                    cur.execute(f"SELECT * FROM `{db}`.`{table}`")
                    rows = sorted(repr(r) for r in cur.fetchall())
                    h.update(f"{db}.{table}:{len(rows)}\n".encode())
                    for r in rows:
                        h.update(r.encode() + b"\n")
        finally:
            conn.close()
        return h.hexdigest()


class Cluster:
    """Nodes under one base directory (use :func:`cluster`, which stops every process at exit)."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.nodes: dict[str, Node] = {}

    def node(self, name: str, server_id: int, **kwargs: Any) -> Node:
        """Create (initialise) and start the node ``name``."""
        n = Node(self.base / name, server_id, **kwargs)
        self.nodes[name] = n
        return n.start()

    def close(self) -> None:
        """Stop every running node (replicas first: reverse order of creation)."""
        for n in reversed(list(self.nodes.values())):
            n.stop()


@contextlib.contextmanager
def cluster(base: Path) -> Iterator[Cluster]:
    """A :class:`Cluster` whose processes are stopped at exit."""
    c = Cluster(base)
    try:
        yield c
    finally:
        c.close()


def wait_until(predicate: Any, timeout: float = 60, interval: float = 0.05, what: str = "condition") -> None:
    """Poll ``predicate()`` until it is true (test-side waiting only; the servers themselves never poll)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(interval)


LOAD_SCHEMA = (
    "CREATE DATABASE IF NOT EXISTS app",
    "CREATE TABLE IF NOT EXISTS app.log (id INT PRIMARY KEY, v VARCHAR(40), n INT)",
    "CREATE TABLE IF NOT EXISTS app.counter (id INT PRIMARY KEY, n INT)",
    "INSERT INTO app.counter VALUES (1, 0)",
)


class Load:
    """A sustained write load on a source: transactions ``INSERT log row; UPDATE counter n = n + 1`` in a thread.

    The counter makes any duplicated or lost apply visible in the data (the checksum), the primary key makes a
    duplicate fail loudly (1062). ``start()`` / ``stop()``; ``commits`` counts acknowledged transactions,
    ``commit_times`` their (monotonic) acknowledgement times and ``commit_gnos`` the GNO each took (from the OK
    packet: session_track_gtids = OWN_GTID); ``rate`` (transactions per second, None = as fast as possible);
    ``errors`` keeps what failed (the load stops at the first error). Several loads may run at once with disjoint
    ``first_id`` ranges.
    """

    def __init__(self, source: Node, *, first_id: int = 1, rate: float | None = None) -> None:
        self.source = source
        self.next_id = first_id
        self.rate = rate
        self.commits = 0
        self.commit_times: list[float] = []
        self.commit_gnos: list[int] = []
        self.errors: list[BaseException] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @staticmethod
    def create_schema(source: Node) -> None:
        """The load's tables (run once, on the source)."""
        for sql in LOAD_SCHEMA:
            source.query(sql)

    def start(self) -> Load:
        """Start the writer thread."""
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            conn = self.source.connect(track=True)
            cur = conn.cursor()
            cur.execute("SET session_track_gtids = OWN_GTID")
            t0 = time.monotonic()
            while not self._stop.is_set():
                i = self.next_id
                cur.execute("BEGIN")
                cur.execute("INSERT INTO app.log VALUES (%s, %s, %s)", (i, f"row {i}", i % 7))
                cur.execute("UPDATE app.counter SET n = n + 1 WHERE id = 1")
                cur.execute("COMMIT")
                now = time.monotonic()
                gtids = last_gtids(conn)
                self.next_id += 1
                self.commits += 1
                self.commit_times.append(now)
                self.commit_gnos.append(next(iter(gtids.intervals()))[3] if gtids else 0)
                if self.rate:
                    ahead = t0 + self.commits / self.rate - now
                    if ahead > 0:
                        self._stop.wait(ahead)
            conn.close()
        except Exception as err:  # noqa: BLE001 - reported by stop(): the test fails with it
            self.errors.append(err)

    def stop(self, *, source_died: bool = False) -> None:
        """Stop the writer and wait for it; raise what it failed with (``source_died``: its connection error is
        expected and dropped)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(120)
        if source_died:
            self.errors.clear()
        if self.errors:
            raise AssertionError(f"load failed: {self.errors[0]!r}")


@dataclass
class CrashRun:
    """What :func:`replica_crash_trials` saw: trials done, commits on the source, and every invariant violation."""

    trials: int = 0
    commits: int = 0
    seconds: float = 0.0
    catch_up_seconds: list[float] = field(default_factory=list)
    #: transactions the source had and the replica had not applied, just before each kill
    pending_at_kill: list[int] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


def replica_crash_trials(
    base: Path,
    trials: int,
    *,
    log_replica_updates: bool,
    seed: int = 1,
    max_delay: float = 0.5,
    check_every: int = 0,
) -> CrashRun:
    """SIGKILL a replica at random moments while it applies a sustained load; restart it each time.

    Each trial stops the replica's applier for a random 0.05..``max_delay`` s (the load builds a backlog), starts it
    again and kills the replica a random 0..``max_delay``/2 s later, while it drains that backlog.

    The replica has the binary log off (``log_replica_updates`` False: the passive replica of WL#6559) or on with
    ``log_replica_updates``. After each restart replication resumes by itself (START REPLICA at server start, auto
    position). Every ``check_every`` trials (and at the end) the load pauses, the replica must catch up, and then:
    gtid_executed equal to the source's, data digest equal (the counter catches lost and duplicated applies),
    Last_SQL_Errno / Last_IO_Errno 0. Never raises for a violation: each goes into ``failures``.
    """
    rng = random.Random(seed)
    run = CrashRun()
    t0 = time.monotonic()
    with cluster(base) as c:
        source = c.node("source", 1, log_bin=True)
        replica = c.node("replica", 2, log_bin=log_replica_updates, log_replica_updates=log_replica_updates)
        Load.create_schema(source)
        replica.replicate_from(source)
        load = Load(source).start()

        def check(label: str) -> None:
            load.stop()
            target = source.executed()
            start = time.monotonic()
            if not replica.wait_for(target, 300):
                run.failures.append(f"{label}: replica did not reach {target} (has {replica.executed()})")
                load.start()
                return
            run.catch_up_seconds.append(time.monotonic() - start)
            got = replica.executed()
            if got != target:
                run.failures.append(f"{label}: gtid_executed {got} != source {target}")
            if replica.checksum("app") != source.checksum("app"):
                run.failures.append(f"{label}: data differs from the source's")
            status = replica.replica_status()
            for col in ("Last_SQL_Errno", "Last_IO_Errno"):
                if status.get(col):
                    run.failures.append(
                        f"{label}: {col} {status.get(col)} {status.get(col.replace('Errno', 'Error'))}"
                    )
            load.start()

        for trial in range(1, trials + 1):
            # make sure the kill lands while the applier works: hold it back while the load builds a backlog,
            # release it, kill it a random moment later (while it drains)
            replica.query("STOP REPLICA SQL_THREAD")
            time.sleep(rng.uniform(0.05, max_delay))
            replica.query("START REPLICA SQL_THREAD")
            time.sleep(rng.uniform(0.0, max_delay / 2))
            run.pending_at_kill.append(max(0, source.executed().count() - replica.executed().count()))
            replica.kill()
            replica.start()
            run.trials = trial
            if check_every and trial % check_every == 0 and trial != trials:
                check(f"trial {trial}")
        time.sleep(rng.uniform(0.05, max_delay))
        check("end")
        load.stop()
        run.commits = load.commits
    run.seconds = time.monotonic() - t0
    return run
