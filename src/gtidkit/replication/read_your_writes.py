"""Read your own writes on replicas: MySQL Router's ``wait_for_my_writes`` as a client-side helper (WL#6972's purpose).

The flow, as MySQL Router's read/write splitting does it (Router manual, "Read/Write Splitting Configuration":
``wait_for_my_writes`` = 1, ``wait_for_my_writes_timeout`` = "maximum time in seconds to wait for a read_only
destination to apply the written transaction, before falling back to a read_write destination. Default is 1"):

1. writes go to the source, on a connection opened with ``CLIENT.SESSION_TRACK`` and
   ``SET session_track_gtids = OWN_GTID``: the OK packet of every statement that commits carries the GTIDs this
   session committed (WL#6972), decoded by :func:`gtidkit.protocol.client.last_gtids`; the session keeps their union;
2. a read goes to a replica after ``SELECT WAIT_FOR_EXECUTED_GTID_SET(<session GTIDs>, <timeout>)``: 0 means the
   replica has applied every write of the session, so the read runs there; 1 means the timeout passed, and the read
   runs on the source instead (always fresh). The wait is woken by the replica's commits
   (``engine/gtid/state.py`` ``wait_for_executed``), not by polling.

A session with no write yet reads on the replica without waiting; a read while the session has a transaction open
on the source (``SERVER_STATUS_IN_TRANS``) stays on the source, as Router keeps transactions on the read_write
destination. Each session uses one replica at a time (Router: "one read_write and one read_only destination"); a
replica that cannot be reached (CR 2003 / 2013) is skipped for the next one, then the source.

Example::

    with ReadYourWrites(Endpoint("127.0.0.1", 3306, "app", "pw", "app"),
                        [Endpoint("127.0.0.1", 3307, "app", "pw", "app")], timeout=1.0) as rw:
        rw.write("INSERT INTO t VALUES (1)")          # WriteResult(gtids=<source_uuid>:N, ...)
        rw.read("SELECT * FROM t WHERE id = 1")       # ReadResult(rows=((1,),), served_by='replica', wait_result=0)
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pymysql
from pymysql.constants import CLIENT

from gtidkit.gtid import GtidSet
from gtidkit.protocol.client import last_gtids

__all__ = ["Endpoint", "ReadResult", "ReadYourWrites", "WriteResult"]

#: SERVER_STATUS_IN_TRANS (mysql_com.h): a transaction is open on the connection
_SERVER_STATUS_IN_TRANS = 0x0001
#: client errors that mean "this server is not reachable now": CR_CONN_HOST_ERROR, CR_SERVER_GONE_ERROR, CR_SERVER_LOST
_UNREACHABLE = {2003, 2006, 2013}


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where and as whom to connect: ``host``, ``port`` (TCP), ``user``, ``password``, default ``database``."""

    host: str = "127.0.0.1"
    port: int = 3306
    user: str = "root"
    password: str = ""
    database: str | None = None

    @classmethod
    def parse(cls, address: str, **defaults: Any) -> Endpoint:
        """``HOST[:PORT]`` (``[v6addr]:PORT`` for IPv6) with the other fields from ``defaults``.

        Raises:
            ValueError: the port is not a number in 1..65535.
        """
        host, port = address, defaults.pop("port", 3306)
        if address.startswith("["):
            host, _, rest = address[1:].partition("]")
            if rest.startswith(":"):
                port = rest[1:]
        elif address.count(":") == 1:
            host, port = address.split(":")
        try:
            number = int(port)
        except ValueError:
            raise ValueError(f"bad port in {address!r}") from None
        if not 1 <= number <= 65535:
            raise ValueError(f"bad port in {address!r}")
        return cls(host=host or "127.0.0.1", port=number, **defaults)

    @property
    def address(self) -> str:
        """``host:port`` as given (``[v6]:port`` for IPv6 hosts)."""
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"

    def connect(self, *, session_track: bool = False, connect_timeout: float = 10) -> Any:
        """A PyMySQL connection (autocommit on; ``session_track``: with ``CLIENT.SESSION_TRACK``).

        Raises:
            pymysql.err.OperationalError: the server refused or could not be reached (2003).
        """
        return pymysql.connect(
            host=self.host,
            port=self.port,
            user=self.user,
            password=self.password,
            database=self.database,
            autocommit=True,
            connect_timeout=connect_timeout,
            client_flag=CLIENT.SESSION_TRACK if session_track else 0,
        )


@dataclass(frozen=True, slots=True)
class WriteResult:
    """One statement run on the source: the GTIDs it committed (empty when it committed nothing), its counts."""

    gtids: GtidSet
    affected_rows: int
    last_insert_id: int
    rows: tuple[tuple[Any, ...], ...] = ()


@dataclass(frozen=True, slots=True)
class ReadResult:
    """One read: its rows and column names, where it ran and how long the wait took.

    ``served_by`` is ``"replica"`` or ``"source"``; ``endpoint`` the server that answered; ``wait_result`` what
    WAIT_FOR_EXECUTED_GTID_SET returned on the replica (0 reached, 1 timed out; None when no wait ran: no write yet,
    an open transaction, or no replica reachable); ``wait_seconds`` the wait's duration (0.0 when none ran).
    """

    rows: tuple[tuple[Any, ...], ...]
    columns: tuple[str, ...]
    served_by: str
    endpoint: Endpoint
    wait_result: int | None
    wait_seconds: float


@dataclass
class _Counters:
    replica_reads: int = 0
    source_reads: int = 0
    timeouts: int = 0
    writes: int = 0
    wait_seconds: list[float] = field(default_factory=list)


class ReadYourWrites:
    """A client session that writes on a source and reads its own writes on replicas (see the module docstring).

    Args:
        source: the read_write destination.
        replicas: the read_only destinations, in order of preference (may be empty: every read on the source).
        timeout: seconds a read waits for a replica to apply the session's GTIDs (Router's
            ``wait_for_my_writes_timeout``, default 1); must be > 0 (WAIT_FOR_EXECUTED_GTID_SET reads 0 as "no limit").
        wait: False reads on the replica without waiting (Router's ``wait_for_my_writes = 0``: may be stale).

    Raises:
        ValueError: ``timeout`` <= 0.
        pymysql.err.MySQLError: the source refused the connection or ``SET session_track_gtids``.

    Not thread-safe: one session per thread, as one MySQL connection.
    """

    def __init__(
        self, source: Endpoint, replicas: Sequence[Endpoint] = (), *, timeout: float = 1.0, wait: bool = True
    ) -> None:
        if not timeout > 0:
            raise ValueError("timeout must be > 0 seconds")
        self.source = source
        self.replicas = tuple(replicas)
        self.timeout = float(timeout)
        self.wait = wait
        self.counters = _Counters()
        self._gtids = GtidSet()
        self._source_conn = source.connect(session_track=True)
        self._source_conn.cursor().execute("SET SESSION session_track_gtids = OWN_GTID")
        self._replica_index = 0
        self._replica_conn: Any = None

    # -- state ---------------------------------------------------------------------------------------------
    @property
    def gtids(self) -> GtidSet:
        """The GTIDs this session committed on the source so far (what a read waits for)."""
        return self._gtids

    def in_transaction(self) -> bool:
        """True while the session has a transaction open on the source (SERVER_STATUS_IN_TRANS)."""
        return bool(self._source_conn.server_status & _SERVER_STATUS_IN_TRANS)

    # -- writes --------------------------------------------------------------------------------------------
    def write(self, sql: str, args: Any = None) -> WriteResult:
        """Run ``sql`` on the source and add the GTIDs its OK packet reported to the session's set.

        Commit explicit transactions with ``write("COMMIT")`` (PyMySQL's ``commit()`` drops the OK packet, and
        with it the GTID).

        Raises:
            pymysql.err.MySQLError: the statement failed on the source (nothing is added).
            gtidkit.errors.RemoteProtocolError: a malformed session-state block.
        """
        cur = self._source_conn.cursor()
        cur.execute(sql, args)
        rows = tuple(cur.fetchall()) if cur.description else ()
        gtids = last_gtids(self._source_conn) or GtidSet()
        if gtids:
            self._gtids = self._gtids | gtids
        self.counters.writes += 1
        return WriteResult(gtids, max(cur.rowcount, 0), int(cur.lastrowid or 0), rows)

    # -- reads ---------------------------------------------------------------------------------------------
    def read(self, sql: str, args: Any = None) -> ReadResult:
        """Run the read ``sql`` where the session's writes are visible: a replica that applied them, else the source.

        Raises:
            pymysql.err.MySQLError: the read failed where it ran, or the replica refused the wait (e.g. 3062 when its
                GTID_MODE is OFF).
        """
        if self.in_transaction() or not self.replicas:
            return self._read_on_source(sql, args, None, 0.0)
        while True:
            conn = self._replica()
            if conn is None:
                return self._read_on_source(sql, args, None, 0.0)
            try:
                return self._read_on_replica(conn, sql, args)
            except pymysql.err.OperationalError as err:
                if err.args[0] not in _UNREACHABLE:
                    raise
                self._drop_replica()

    def _read_on_replica(self, conn: Any, sql: str, args: Any) -> ReadResult:
        waited, result = 0.0, None
        if self.wait and self._gtids:
            cur = conn.cursor()
            start = time.monotonic()
            cur.execute("SELECT WAIT_FOR_EXECUTED_GTID_SET(%s, %s)", (str(self._gtids), self.timeout))
            value = cur.fetchone()[0]
            waited = time.monotonic() - start
            self.counters.wait_seconds.append(waited)
            result = None if value is None else int(value)
            if result != 0:  # 1: timed out (NULL would mean a replication thread: not here)
                self.counters.timeouts += 1
                return self._read_on_source(sql, args, result, waited)
        cur = conn.cursor()
        cur.execute(sql, args)
        self.counters.replica_reads += 1
        return ReadResult(
            rows=tuple(cur.fetchall()),
            columns=tuple(d[0] for d in cur.description or ()),
            served_by="replica",
            endpoint=self.replicas[self._replica_index],
            wait_result=result,
            wait_seconds=waited,
        )

    def _read_on_source(self, sql: str, args: Any, wait_result: int | None, waited: float) -> ReadResult:
        cur = self._source_conn.cursor()
        cur.execute(sql, args)
        rows = tuple(cur.fetchall())
        self.counters.source_reads += 1
        return ReadResult(
            rows=rows,
            columns=tuple(d[0] for d in cur.description or ()),
            served_by="source",
            endpoint=self.source,
            wait_result=wait_result,
            wait_seconds=waited,
        )

    def _replica(self) -> Any:
        """The connection to the session's replica, opening the next reachable one; None when none is left."""
        while self._replica_conn is None and self._replica_index < len(self.replicas):
            try:
                self._replica_conn = self.replicas[self._replica_index].connect()
            except pymysql.err.OperationalError as err:
                if err.args[0] not in _UNREACHABLE:
                    raise
                self._replica_index += 1
        return self._replica_conn

    def _drop_replica(self) -> None:
        try:
            self._replica_conn.close()
        except pymysql.MySQLError:
            pass  # already gone: that is why it is dropped
        self._replica_conn = None
        self._replica_index += 1

    # -- lifetime ------------------------------------------------------------------------------------------
    def close(self) -> None:
        """Close both connections (idempotent)."""
        for conn in (self._replica_conn, self._source_conn):
            if conn is not None and conn.open:
                conn.close()
        self._replica_conn = None

    def __enter__(self) -> ReadYourWrites:  # noqa: PYI034 - Self needs Python 3.11
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def with_replicas(self, replicas: Sequence[Endpoint]) -> ReadYourWrites:
        """Point later reads at ``replicas`` (after a failover), keeping the session's GTIDs and source connection."""
        if self._replica_conn is not None:
            self._replica_conn.close()
        self._replica_conn = None
        self._replica_index = 0
        self.replicas = tuple(replicas)
        return self
