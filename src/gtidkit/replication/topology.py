"""Errant transactions in a replication topology: GTIDs a replica holds that its source lacks, and the binlogs holding them.

An errant transaction is one committed on a replica (a write that bypassed ``super_read_only``, a fix made by
hand, a former source that came back after a failover) and never on its source: ``GTID_SUBTRACT(replica's
gtid_executed, source's gtid_executed)`` is not empty (MySQL manual "Replication with Global Transaction
Identifiers", the errant-transaction check DBA tools run, e.g. MySQL Shell's ``cluster.status()``). Its binary log
copies follow the replica into any failover: once that replica is promoted, its errant GTIDs are sent to every other
replica, or make them fail with error 1236 when the binlog holding them has been purged.

What is compared with what:

* a server whose ``SHOW REPLICA STATUS`` names a source (``Source_Host`` / ``Source_Port``, or 5.7's
  ``Master_Host`` / ``Master_Port``; one row per channel) is compared with the union of its sources' gtid_executed;
  a source that was not named on the command line is connected to with the same credentials;
* a server without replica status (binlog source, promoted replica, replica after ``RESET REPLICA ALL``, or a
  server that does not support the statement) is compared with the **first server named**, which is the reference
  and is itself compared with nothing unless it is a replica.

The binlogs holding errant GTIDs are found exactly: ``SHOW BINARY LOGS``, each file's Previous_gtids (``SHOW BINLOG
EVENTS IN 'f' LIMIT 2``, WL#7592) narrows the candidates to files whose GTID range (its Previous_gtids up to the next
file's, or up to gtid_executed for the last file) meets the errant set, then each candidate's Gtid events are read
(``SHOW BINLOG EVENTS IN 'f'``) — the Previous_gtids difference alone is not exact, since ``SET GTID_PURGED`` adds
GTIDs that no binlog holds. Errant GTIDs found in no binlog are reported as such (purged, or committed with the
binary log off).
"""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pymysql
import pymysql.cursors

from gtidkit.errors import GtidkitError
from gtidkit.gtid import Gtid, GtidSet
from gtidkit.replication.read_your_writes import Endpoint

__all__ = [
    "BinlogFile",
    "ErrantCheck",
    "ServerState",
    "TopologyReport",
    "check_topology",
    "compare",
    "errant_binlogs",
    "read_state",
]

_GTID_NEXT = re.compile(r"GTID_NEXT\s*=\s*'([^']+)'")
#: SHOW REPLICA STATUS is missing or refused: ER_NOT_SUPPORTED_YET, ER_SPECIFIC_ACCESS_DENIED_ERROR, ER_PARSE_ERROR
_NO_REPLICA_STATUS = {1235, 1227, 1064}
#: the binary log is off: ER_NO_BINARY_LOGGING
_NO_BINLOG = 1381


@dataclass(frozen=True, slots=True)
class BinlogFile:
    """One row of SHOW BINARY LOGS with the file's Previous_gtids (None when the file has no such event)."""

    name: str
    size: int
    previous_gtids: GtidSet | None


@dataclass(frozen=True, slots=True)
class ServerState:
    """What one server reports: identity, GTID state, its sources, its binary logs.

    ``sources``: ``(host, port)`` per replication channel from SHOW REPLICA STATUS (empty: not a replica);
    ``replica_status_error``: why SHOW REPLICA STATUS gave nothing (None when it answered); ``binlogs``: SHOW BINARY
    LOGS with Previous_gtids, None when the binary log is off.
    """

    endpoint: Endpoint
    server_uuid: str
    gtid_executed: GtidSet
    gtid_purged: GtidSet
    sources: tuple[tuple[str, int], ...] = ()
    replica_status_error: str | None = None
    binlogs: tuple[BinlogFile, ...] | None = None

    @property
    def address(self) -> str:
        """``host:port`` of the server as it was named."""
        return self.endpoint.address


@dataclass(frozen=True, slots=True)
class ErrantCheck:
    """One server compared with its source(s).

    ``compared_with``: addresses of the servers it was compared with; ``basis``: ``"replica status"`` or ``"first
    named"``; ``errant``: GTIDs it has that they lack; ``binlogs``: ``(file, GTIDs)`` for every binlog of the server
    holding errant GTIDs, in file order; ``not_in_binlogs``: errant GTIDs no binlog holds (purged or committed with
    the binary log off).
    """

    server: str
    compared_with: tuple[str, ...]
    basis: str
    errant: GtidSet
    binlogs: tuple[tuple[str, GtidSet], ...] = ()
    not_in_binlogs: GtidSet = field(default_factory=GtidSet)


@dataclass(frozen=True, slots=True)
class TopologyReport:
    """The result of :func:`check_topology`: servers reached, checks, unreachable servers, warnings."""

    servers: tuple[ServerState, ...]
    checks: tuple[ErrantCheck, ...]
    unreachable: tuple[tuple[str, str], ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def has_errant(self) -> bool:
        """True when some server holds errant GTIDs."""
        return any(c.errant for c in self.checks)

    def to_json(self) -> str:
        """The report as JSON (GTID sets in MySQL's single-line text form)."""
        return json.dumps(
            {
                "servers": [
                    {
                        "address": s.address,
                        "server_uuid": s.server_uuid,
                        "gtid_executed": str(s.gtid_executed),
                        "gtid_purged": str(s.gtid_purged),
                        "sources": [f"{h}:{p}" for h, p in s.sources],
                        "binlogs": None if s.binlogs is None else [b.name for b in s.binlogs],
                    }
                    for s in self.servers
                ],
                "checks": [
                    {
                        "server": c.server,
                        "compared_with": list(c.compared_with),
                        "basis": c.basis,
                        "errant": str(c.errant),
                        "binlogs": [{"file": f, "gtids": str(g)} for f, g in c.binlogs],
                        "not_in_binlogs": str(c.not_in_binlogs),
                    }
                    for c in self.checks
                ],
                "unreachable": [{"address": a, "error": e} for a, e in self.unreachable],
                "warnings": list(self.warnings),
                "errant": self.has_errant,
            },
            indent=2,
        )


# ---------------------------------------------------------------------------------------------- reading a server
def _scalar(cur: Any, sql: str) -> Any:
    cur.execute(sql)
    return cur.fetchone()[0]


def _sources(cur: Any) -> tuple[tuple[tuple[str, int], ...], str | None]:
    try:
        cur.execute("SHOW REPLICA STATUS")
    except pymysql.err.MySQLError as err:
        if err.args and err.args[0] in _NO_REPLICA_STATUS:
            return (), f"{err.args[0]}: {err.args[1]}"
        raise
    names = [d[0] for d in cur.description or ()]
    out = []
    for row in cur.fetchall():
        values = dict(zip(names, row))
        host = values.get("Source_Host", values.get("Master_Host"))
        port = values.get("Source_Port", values.get("Master_Port"))
        if host:
            out.append((str(host), int(port or 3306)))
    return tuple(out), None


def _binlogs(cur: Any) -> tuple[BinlogFile, ...] | None:
    try:
        cur.execute("SHOW BINARY LOGS")
    except pymysql.err.MySQLError as err:
        if err.args and err.args[0] == _NO_BINLOG:
            return None
        raise
    files = [(str(r[0]), int(r[1])) for r in cur.fetchall()]
    out = []
    for name, size in files:
        cur.execute(f"SHOW BINLOG EVENTS IN '{_quote(name)}' LIMIT 2")
        previous = None
        for row in cur.fetchall():
            if row[2] == "Previous_gtids":
                previous = GtidSet.parse(row[5])
        out.append(BinlogFile(name, size, previous))
    return tuple(out)


def _quote(name: str) -> str:
    return name.replace("\\", "\\\\").replace("'", "\\'")


def read_state(endpoint: Endpoint, *, connect_timeout: float = 10) -> ServerState:
    """Connect to ``endpoint`` and read @@GLOBAL.server_uuid / gtid_executed / gtid_purged, SHOW REPLICA STATUS's
    sources and SHOW BINARY LOGS with each file's Previous_gtids.

    Raises:
        pymysql.err.MySQLError: the server could not be reached or refused a statement other than SHOW REPLICA
            STATUS (1235 / 1227 / 1064 there mean "no replica status").
        gtidkit.errors.GtidParseError: a GTID set the server printed does not parse.
    """
    conn = endpoint.connect(connect_timeout=connect_timeout)
    try:
        cur = conn.cursor()
        server_uuid = str(_scalar(cur, "SELECT @@GLOBAL.server_uuid"))
        executed = GtidSet.parse(_scalar(cur, "SELECT @@GLOBAL.gtid_executed") or "")
        purged = GtidSet.parse(_scalar(cur, "SELECT @@GLOBAL.gtid_purged") or "")
        sources, why = _sources(cur)
        binlogs = _binlogs(cur)
    finally:
        conn.close()
    return ServerState(endpoint, server_uuid, executed, purged, sources, why, binlogs)


def errant_binlogs(
    state: ServerState, errant: GtidSet, *, connect_timeout: float = 10
) -> tuple[tuple[tuple[str, GtidSet], ...], GtidSet]:
    """The binlogs of ``state``'s server holding GTIDs of ``errant``, exactly, and the errant GTIDs none holds.

    Returns ``(((file, gtids), ...), not_in_binlogs)``. Only files whose Previous_gtids range meets ``errant`` are
    read (see the module docstring).

    Raises:
        pymysql.err.MySQLError: the server could not be reached or refused SHOW BINLOG EVENTS.
        gtidkit.errors.GtidParseError: a Gtid event's text does not parse.
    """
    files = state.binlogs or ()
    candidates = []
    for i, f in enumerate(files):
        upper = files[i + 1].previous_gtids if i + 1 < len(files) else state.gtid_executed
        lower = f.previous_gtids or GtidSet()
        if upper is None or (upper - lower) & errant:
            candidates.append(f.name)
    held: list[tuple[str, GtidSet]] = []
    if candidates:
        conn = state.endpoint.connect(connect_timeout=connect_timeout)
        try:
            for name in candidates:
                found = _gtids_in_file(conn, name) & errant
                if found:
                    held.append((name, found))
        finally:
            conn.close()
    in_files = GtidSet().union(*(g for _, g in held)) if held else GtidSet()
    return tuple(held), errant - in_files


def _gtids_in_file(conn: Any, name: str) -> GtidSet:
    """The GTIDs of the Gtid events of one binlog (SHOW BINLOG EVENTS, streamed)."""
    out = GtidSet()
    with conn.cursor(pymysql.cursors.SSCursor) as cur:
        cur.execute(f"SHOW BINLOG EVENTS IN '{_quote(name)}'")
        for row in cur:
            if str(row[2]).startswith("Gtid"):
                m = _GTID_NEXT.search(str(row[5]))
                if m and m.group(1).upper() != "ANONYMOUS":
                    g = Gtid.parse(m.group(1))
                    out.add_in_place(g.sid.bytes, g.tag, g.gno)
    return out


# ---------------------------------------------------------------------------------------------- comparing
def _host_key(host: str) -> str:
    h = host.strip().lower()
    if h in ("localhost", "::1", "127.0.0.1"):
        return "127.0.0.1"
    try:
        return socket.gethostbyname(h)
    except OSError:
        return h


def _key(host: str, port: int) -> tuple[str, int]:
    return (_host_key(host), int(port))


def compare(states: Sequence[ServerState]) -> list[tuple[ServerState, list[ServerState], str, list[str]]]:
    """Decide what each server is compared with (pure: no I/O).

    Returns ``(server, [its sources' states], basis, [source addresses not among states])`` for every server that is
    compared with something: replicas with their sources (basis ``"replica status"``), servers without replica status
    other than the first with the first (basis ``"first named"``).
    """
    by_key = {_key(s.endpoint.host, s.endpoint.port): s for s in states}
    out = []
    for i, s in enumerate(states):
        if s.sources:
            found = [by_key[_key(h, p)] for h, p in s.sources if _key(h, p) in by_key]
            missing = [f"{h}:{p}" for h, p in s.sources if _key(h, p) not in by_key]
            out.append((s, found, "replica status", missing))
        elif i > 0:
            out.append((s, [states[0]], "first named", []))
    return out


def check_topology(endpoints: Sequence[Endpoint], *, connect_timeout: float = 10) -> TopologyReport:
    """Read every server, add sources named by SHOW REPLICA STATUS but not given, report errant GTIDs per server.

    Never raises for a server that cannot be read: it goes to ``unreachable`` with the error text.
    """
    states: list[ServerState] = []
    unreachable: list[tuple[str, str]] = []
    warnings: list[str] = []
    seen: set[tuple[str, int]] = set()
    queue = list(endpoints)
    while queue:
        ep = queue.pop(0)
        if _key(ep.host, ep.port) in seen:
            continue
        seen.add(_key(ep.host, ep.port))
        try:
            state = read_state(ep, connect_timeout=connect_timeout)
        except (pymysql.err.MySQLError, GtidkitError, OSError) as err:
            unreachable.append((ep.address, _error_text(err)))
            continue
        states.append(state)
        for host, port in state.sources:  # discover sources that were not named
            if _key(host, port) not in seen and all(_key(e.host, e.port) != _key(host, port) for e in queue):
                queue.append(Endpoint(host, port, ep.user, ep.password, None))
    uuids: dict[str, str] = {}
    for s in states:
        if s.server_uuid in uuids:
            warnings.append(
                f"{s.address} and {uuids[s.server_uuid]} have the same server_uuid {s.server_uuid}"
            )
        uuids.setdefault(s.server_uuid, s.address)
    checks = []
    for server, sources, basis, missing in compare(states):
        for m in missing:
            warnings.append(f"{server.address}: its source {m} could not be read")
        if not sources:
            continue
        reference = GtidSet().union(*(src.gtid_executed for src in sources))
        errant = server.gtid_executed - reference
        held: tuple[tuple[str, GtidSet], ...] = ()
        not_in = errant
        if errant and server.binlogs:
            try:
                held, not_in = errant_binlogs(server, errant, connect_timeout=connect_timeout)
            except (pymysql.err.MySQLError, GtidkitError, OSError) as err:
                warnings.append(f"{server.address}: binlogs not read: {_error_text(err)}")
        checks.append(
            ErrantCheck(server.address, tuple(src.address for src in sources), basis, errant, held, not_in)
        )
    return TopologyReport(tuple(states), tuple(checks), tuple(unreachable), tuple(warnings))


def _error_text(err: BaseException) -> str:
    if isinstance(err, pymysql.err.MySQLError) and len(err.args) >= 2:
        return f"ERROR {err.args[0]}: {err.args[1]}"
    return str(err) or type(err).__name__


def addresses_to_endpoints(addresses: Iterable[str], user: str, password: str) -> list[Endpoint]:
    """``HOST[:PORT]`` texts as endpoints with the given credentials.

    Raises:
        ValueError: a bad port.
    """
    return [Endpoint.parse(a, user=user, password=password) for a in addresses]
