"""Replication statements from any worker of a multi-worker server, run by the one process with the replication threads.

Issue 21: "the replication threads exist once and the server stays one MySQL server". The receiver and applier
threads of every channel, their relay logs and the metadata rows those rewrite live in the process that runs the
server's singletons (``Server.singletons``: worker 0, or its replacement, which takes them over:
``Server.take_over_singletons``). Every other worker installs :class:`RemoteReplica` instead of channels: the rows
of the statement table that replication owns (CHANGE REPLICATION SOURCE / CHANGE MASTER, START / STOP REPLICA,
RESET REPLICA, CHANGE REPLICATION FILTER, FLUSH RELAY LOGS), its SHOW providers (SHOW REPLICA / SLAVE STATUS, SHOW
RELAYLOG EVENTS), the performance_schema replication tables, SOURCE_POS_WAIT and SET GLOBAL gtid_mode's channel
checks send a typed request to that process over the control service (:data:`OP_REPLICA`, engine/shared/service.py)
and return its result set, OK, warnings or error as they are. The statement's lifecycle (privileges, implicit
commit, GTID checks: engine/statements/dispatch.py) runs in the client's worker as for every statement; only the
handler's work crosses. :class:`ReplicaService` answers the requests in the singletons process, each in a thread of
its own (a START / STOP REPLICA waits for the threads, a metadata write for the write lock), after catching up with
what the other workers committed and set (a SET GLOBAL replica_parallel_workers just made elsewhere counts, as in
one process).

The model is MySQL's one process: ``start_slave_cmd`` & co. (``sql/rpl_replica.cc``) act on the one
``channel_map`` whatever connection runs them. When the singletons process dies during a request the statement
fails with 1105 naming it (the work may have been done, as for a client whose server crashed mid-statement);
a request that finds no such process waits up to :data:`REPLACEMENT_WAIT` seconds for the replacement. KILL
[QUERY] of the asking connection ends its wait for that process (checked every :data:`KILL_POLL` seconds) with 1317
ER_QUERY_INTERRUPTED, a SOURCE_POS_WAIT with NULL as its own kill check answers, as MySQL's waits check
``thd->killed`` (``start_slave_thread``, ``Relay_log_info::wait_for_pos``); the request itself goes on there.

Requests and answers are JSON (never pickle: the control sockets are abstract Unix sockets other local users can
reach); values keep their Python types through :func:`encode_value` / :func:`decode_value`.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime
import decimal
import json
import logging
import os
import time
import types
from collections.abc import Callable
from typing import Any

from gtidkit.engine.results import Column, Condition, StatementResult
from gtidkit.engine.shared.control import OP_REPLICA, ControlError, ControlMessage
from gtidkit.engine.shared.workers import worker_slot
from gtidkit.errors import MySQLError
from gtidkit.mysql_errors import mysql_error, unknown_error
from gtidkit.replication.pos_wait import wait_for_position

__all__ = [
    "KILL_POLL",
    "REPLACEMENT_WAIT",
    "SINGLETONS_WORKER",
    "STATEMENT_ROWS",
    "RemoteReplica",
    "ReplicaService",
    "decode_value",
    "encode_value",
]

log = logging.getLogger(__name__)

#: the worker id of the process with the singletons: worker 0 opens as the primary, and the supervisor replaces
#: it with the role ``takeover`` (cli/supervisor.py)
SINGLETONS_WORKER = 0
#: seconds a request waits for a singletons process that is not listening (being replaced: 0.2-1 s here)
REPLACEMENT_WAIT = 30.0
#: seconds between two reads of the applier's position by a SOURCE_POS_WAIT in another worker
POS_POLL = 0.02
#: seconds between two checks of the asking session's kill flag while worker 0's answer is awaited
KILL_POLL = 0.1
#: the rows of the statement table whose handler replication registers (replication/statements.py)
STATEMENT_ROWS = (
    "change_replication_filter",
    "change_replication_source",
    "replica_thread",
    "reset_replica",
    "flush_relay_logs",
)
#: the SHOWs replication provides for its channels
SHOW_ROWS = ("relaylog_events", "replica_status")


# ---------------------------------------------------------------------------------------------------- values
def encode_value(v: Any) -> Any:
    """``v`` as JSON-ready data that :func:`decode_value` turns back into an equal value of the same type
    (None, bool, int, float, str as JSON; bytes, tuples, dicts, Decimal, datetime, date tagged).

    Raises:
        TypeError: a value of another type.
    """
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (bytes, bytearray, memoryview)):
        return {"b": base64.b64encode(bytes(v)).decode("ascii")}
    if isinstance(v, tuple):
        return {"t": [encode_value(x) for x in v]}
    if isinstance(v, list):
        return [encode_value(x) for x in v]
    if isinstance(v, dict):
        return {"d": [[encode_value(k), encode_value(x)] for k, x in v.items()]}
    if isinstance(v, decimal.Decimal):
        return {"n": str(v)}
    if isinstance(v, datetime.datetime):
        return {"dt": v.isoformat()}
    if isinstance(v, datetime.date):
        return {"da": v.isoformat()}
    raise TypeError(f"cannot send a {type(v).__name__} to another worker")


def decode_value(v: Any) -> Any:
    """The value :func:`encode_value` encoded."""
    if isinstance(v, list):
        return [decode_value(x) for x in v]
    if not isinstance(v, dict):
        return v
    ((tag, x),) = v.items()
    if tag == "b":
        return base64.b64decode(x)
    if tag == "t":
        return tuple(decode_value(y) for y in x)
    if tag == "d":
        return {decode_value(k): decode_value(y) for k, y in x}
    if tag == "n":
        return decimal.Decimal(x)
    if tag == "dt":
        return datetime.datetime.fromisoformat(x)
    if tag == "da":
        return datetime.date.fromisoformat(x)
    raise ValueError(f"unknown value tag {tag!r}")


#: a result column's fields, in :class:`Column`'s order (``dataclasses.astuple`` deep-copies: 1.5 ms for 60)
_COLUMN_FIELDS = tuple(f.name for f in dataclasses.fields(Column))


def _encode_result(res: StatementResult) -> dict[str, Any]:
    # the columns travel whole: inferring them again from the rows costs as much as the handler (~6 ms for the
    # 60 columns of SHOW REPLICA STATUS here)
    return {
        "columns": None
        if res.columns is None
        else [[getattr(c, f) for f in _COLUMN_FIELDS] for c in res.columns],
        "rows": encode_value(list(res.rows)),
        "affected": res.affected_rows,
        "info": res.info,
        "warnings": [w.as_tuple() for w in res.warnings],
    }


def _decode_result(data: dict[str, Any]) -> StatementResult:
    warnings = tuple(Condition(str(w[0]), int(w[1]), str(w[2])) for w in data["warnings"])
    if data["columns"] is None:
        return StatementResult(
            affected_rows=int(data["affected"]),
            matched_rows=int(data["affected"]),
            info=str(data["info"]),
            warnings=warnings,
        )
    columns = tuple(Column(*fields) for fields in data["columns"])
    return StatementResult(columns=columns, rows=decode_value(data["rows"]), warnings=warnings)


# ---------------------------------------------------------------------------------------------------- serving
class ReplicaService:
    """The singletons process's side: answers :data:`OP_REPLICA` requests of the other workers with its channels.

    Args:
        server: the engine ``Server`` (its statement table and SHOW providers hold replication's handlers once
            replication/statements.py registered them).
        channels: the :class:`~gtidkit.replication.channel_map.ChannelMap`.
        tables: performance_schema table name -> the provider of its rows (replica.py ``install``).
    """

    def __init__(self, server: Any, channels: Any, tables: dict[str, Callable[[], list[Any]]]) -> None:
        self.server = server
        self.channels = channels
        self.tables = tables

    def register(self) -> None:
        """Answer :data:`OP_REPLICA` on the server's control service (each request in a thread of its own)."""
        self.server.control.register(OP_REPLICA, self.answer, threaded=True)

    def answer(self, message: ControlMessage) -> bytes:
        """One request's JSON answer: ``{"ok": value}`` or ``{"error": [code, sqlstate, message]}``."""
        try:
            request = json.loads(message.body)
            self.server.catch_up()  # what the asking worker committed (its CREATE USER for SOURCE_USER ...)
            self.server.refresh_shared()  # what it set (SET GLOBAL replica_parallel_workers ...)
            out: Any = self.run(request)
        except MySQLError as err:
            return json.dumps({"error": [err.code, err.sqlstate, err.message]}).encode()
        except Exception as err:  # the asking client gets an error, the log the traceback
            log.exception("replication request from worker %d failed", message.sender)
            return json.dumps({"error": [1105, "HY000", f"{type(err).__name__}: {err}"]}).encode()
        return json.dumps({"ok": out}).encode()

    def run(self, request: dict[str, Any]) -> Any:
        """Carry out one decoded request (what :meth:`answer` encodes).

        Raises:
            MySQLError: what the statement or the check raises.
            ValueError: an unknown request.
        """
        do = request["do"]
        if do in ("statement", "show"):
            name = request["row"]
            if do == "statement":
                if name not in STATEMENT_ROWS:
                    raise ValueError(f"not a replication statement: {name!r}")
                fn = self.server.statements.spec(name).handler
            else:
                if name not in SHOW_ROWS:
                    raise ValueError(f"not a replication SHOW: {name!r}")
                fn = self.server.show_providers[name]
            session = types.SimpleNamespace(secure_transport=bool(request.get("secure")))
            stmt = types.SimpleNamespace(text=request["text"], info=decode_value(request["info"]))
            return _encode_result(fn(session, stmt))
        if do == "rows":
            return encode_value(list(self.tables[request["table"]]()))
        if do == "position":
            return encode_value(self._position(request["channel"]))
        if do == "gtid_mode":
            self.channels.check_gtid_mode_change(request["old"], request["new"])
            return None
        raise ValueError(f"unknown replication request {do!r}")

    def _position(self, channel: str | None) -> tuple[bool, bool, tuple[str, int] | None]:
        """(the channel exists, its applier runs, its executed source position) for SOURCE_POS_WAIT."""
        if channel is None:
            replica = self.channels.one(None)  # 3079 with several channels
        else:
            replica = self.channels.channels.get(channel.lower())
            if replica is None:
                return (False, False, None)
        return (True, bool(replica.applier.running), replica.executed_source_position())


# ---------------------------------------------------------------------------------------------------- asking
class RemoteReplica:
    """Another worker's side: replication's statements, SHOWs, tables and functions asked of the singletons process.

    Args:
        server: the engine ``Server`` of this worker (its control service reaches worker
            :data:`SINGLETONS_WORKER`; its shared page says whether that process still lives).
    """

    def __init__(self, server: Any) -> None:
        self.server = server

    def install(self, tables: tuple[str, ...]) -> None:
        """Register the forwarding handlers, SHOW providers, table providers, functions and gtid_mode guard on this
        worker's server, in the places replica.py ``install`` puts the channels' own.

        Args:
            tables: the performance_schema replication tables whose rows the singletons process provides.
        """
        server = self.server
        for row in STATEMENT_ROWS:
            server.statements.register(row, self._statement("statement", row))
        for row in SHOW_ROWS:
            server.provide_show(row, self._statement("show", row))
        server.storage.table_providers.update({("performance_schema", t): self._rows(t) for t in tables})
        server.function_providers.append(self._functions)
        server.gtid_mode_guards.append(self.check_gtid_mode_change)

    # ---------------------------------------------------------------------------------------------- requests
    def _alive(
        self, pid: int, incarnation: int, killed: Callable[[], bool] | None = None
    ) -> Callable[[], bool]:
        """Whether the wait for singletons process ``pid`` (of ``incarnation``) goes on: it still runs, and
        ``killed()`` (the asking session's kill check) is not true."""
        page = self.server.shared_page

        def alive() -> bool:
            if killed is not None and killed():
                return False
            slot = worker_slot(page, SINGLETONS_WORKER)
            if slot.pid != pid or slot.incarnation != incarnation:
                return False
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return False
            except PermissionError:
                return True
            return True

        return alive

    def ask(self, request: dict[str, Any], killed: Callable[[], bool] | None = None) -> Any:
        """Send ``request`` to the singletons process and return its decoded ``ok`` value.

        Args:
            request: the JSON-able request.
            killed: the asking session's kill check (``Session.interrupted``), polled while the answer is awaited
                (every :data:`KILL_POLL` seconds) and while no singletons process listens: KILL [QUERY] of the
                asking connection ends its wait, as MySQL's waits check ``thd->killed`` (the request itself goes on
                in the singletons process, as a START REPLICA killed while its threads start still starts them).

        Raises:
            MySQLError: the error the request raised there; 1317 when ``killed()`` turned true first; 1105 when
                that process ended before it answered or none answered within :data:`REPLACEMENT_WAIT` seconds.
        """
        body = json.dumps(request).encode()
        control = self.server.control
        page = self.server.shared_page
        if page is None or not control.active:  # a worker-role engine outside a multi-worker server
            raise unknown_error(
                "The process running the replication threads (worker 0) is not reachable: this process has no "
                "control service"
            )
        deadline = time.monotonic() + REPLACEMENT_WAIT
        while True:
            slot = worker_slot(page, SINGLETONS_WORKER)
            answer: bytes | None = None
            if slot.pid:
                waiting = self._alive(slot.pid, slot.incarnation, killed)
                try:
                    answer = control.ask_while(SINGLETONS_WORKER, OP_REPLICA, body, waiting, poll=KILL_POLL)
                except ControlError as err:
                    if killed is not None and killed():
                        raise mysql_error(1317) from err
                    raise unknown_error(
                        "The process running the replication threads (worker 0) ended during the statement; "
                        "its replacement runs them"
                    ) from err
            if answer:  # empty: not listening yet, or its handler is not registered yet
                data = json.loads(answer)
                if "error" in data:
                    code, sqlstate, text = int(data["error"][0]), str(data["error"][1]), str(data["error"][2])
                    raise MySQLError(code, text, sqlstate)  # made from the table in the singletons process
                return data["ok"]
            if killed is not None and killed():
                raise mysql_error(1317)
            if time.monotonic() > deadline:
                raise unknown_error(
                    "The process running the replication threads (worker 0) did not answer: it is not running"
                )
            time.sleep(0.05)

    def _statement(self, do: str, row: str) -> Callable[[Any, Any], StatementResult]:
        def forward(session: Any, stmt: Any) -> StatementResult:
            request = {
                "do": do,
                "row": row,
                "text": stmt.text,
                "info": encode_value(dict(stmt.info)),
                "secure": bool(getattr(session, "secure_transport", False)),
            }
            return _decode_result(self.ask(request, getattr(session, "interrupted", None)))

        return forward

    def _rows(self, table: str) -> Callable[[], list[Any]]:
        def provide() -> list[Any]:
            return [tuple(r) for r in decode_value(self.ask({"do": "rows", "table": table}))]

        return provide

    def check_gtid_mode_change(self, old: str, new: str) -> None:
        """SET GLOBAL gtid_mode's checks on the channels (``Replica.check_gtid_mode_change``), where they run.

        Raises:
            MySQLError: what the check raises (3111 ...).
        """
        self.ask({"do": "gtid_mode", "old": old, "new": new})

    def _functions(self, session: Any) -> dict[str, Callable[..., Any]]:
        def wait(log_name: Any, log_pos: Any, timeout: Any = None, channel: Any = None) -> int | None:
            name = None if channel is None else str(channel)

            def position() -> Any:
                """(exists, running, position) of the channel, None when KILL QUERY ended the wait for worker
                0's answer (the wait's own kill check answers NULL: the flag is cleared as it clears it)."""
                try:
                    return decode_value(self.ask({"do": "position", "channel": name}, session.interrupted))
                except MySQLError as err:
                    if err.code != 1317:
                        raise
                    session.executor.interrupt.clear()
                    return None

            def probe() -> tuple[bool, tuple[str, int] | None]:
                found = position()
                if found is None:
                    return (False, None)
                exists, running, pos = found
                return (bool(exists and running), None if pos is None else (str(pos[0]), int(pos[1])))

            first = position()
            if first is None or not first[0]:
                return None
            return wait_for_position(probe, session, log_name, log_pos, timeout, poll=POS_POLL)

        return {"SOURCE_POS_WAIT": wait, "MASTER_POS_WAIT": wait}
