"""The session's typed transaction operations behave as the BEGIN / COMMIT / ROLLBACK statements do, minus the text.

``begin_transaction()`` / ``commit_transaction()`` / ``rollback_transaction()`` / ``end_gtid_transaction()`` are what
the replica applier replays Query BEGIN / COMMIT / ROLLBACK and Xid events with (MySQL's ``trans_begin``,
``trans_commit``, ``trans_rollback`` and ``gtid_end_transaction``, called by ``Query_log_event::do_apply_event`` and
``Xid_log_event::do_commit`` without parsing a statement). Each scenario runs once with statement texts and once
with the operations, on two servers set up alike: the binary logs, gtid_executed, the rows and the session's
gtid_next must be the same. MySQL facts pinned besides: an owned GTID with nothing written commits as Gtid +
Query(BEGIN) + Query(COMMIT) (``sql/binlog.cc`` ``gtid_end_transaction``); an already executed GTID is skipped,
nothing is logged and gtid_next becomes UNDEFINED (``rpl_gtid_execution.cc``, ``update_gtids_impl_do_nothing``);
BEGIN inside a transaction whose gtid_next is UUID:NUMBER is ER 1778; ``completion_type`` applies to the COMMIT
statement only, never to ``trans_commit`` (RM8 ``completion_type``; ``Xid_log_event::do_commit``).
"""

from __future__ import annotations

from typing import Any

import pytest

from gtidkit.binlog.events.statement import QueryEvent
from gtidkit.binlog.file import read_events
from gtidkit.errors import MySQLError
from gtidkit.gtid import GtidSet

#: a source's UUID the scenarios assign GTIDs of (gtid_next = 'UUID:N')
SOURCE = "3e11fa47-71ca-11e1-9e33-c80aa9429562"

#: scenario -> (statement texts, the same with typed operations: a method name instead of the text)
SCENARIOS: dict[str, tuple[list[str], list[str]]] = {
    "multi_statement": (
        ["BEGIN", "INSERT INTO d.t VALUES (10)", "INSERT INTO d.t VALUES (11)", "COMMIT"],
        [
            "begin_transaction",
            "INSERT INTO d.t VALUES (10)",
            "INSERT INTO d.t VALUES (11)",
            "commit_transaction",
        ],
    ),
    "rollback": (
        ["BEGIN", "INSERT INTO d.t VALUES (20)", "ROLLBACK"],
        ["begin_transaction", "INSERT INTO d.t VALUES (20)", "rollback_transaction"],
    ),
    "assigned_gtid": (
        [f"SET gtid_next = '{SOURCE}:2'", "BEGIN", "INSERT INTO d.t VALUES (30)", "COMMIT"],
        [
            f"SET gtid_next = '{SOURCE}:2'",
            "begin_transaction",
            "INSERT INTO d.t VALUES (30)",
            "commit_transaction",
        ],
    ),
    "empty_owned_gtid": (
        [f"SET gtid_next = '{SOURCE}:3'", "COMMIT"],
        [f"SET gtid_next = '{SOURCE}:3'", "end_gtid_transaction"],
    ),
    "empty_owned_gtid_begin_commit": (
        [f"SET gtid_next = '{SOURCE}:4'", "BEGIN", "COMMIT"],
        [f"SET gtid_next = '{SOURCE}:4'", "begin_transaction", "commit_transaction"],
    ),
    "executed_gtid_skipped": (
        [f"SET gtid_next = '{SOURCE}:1'", "BEGIN", "INSERT INTO d.t VALUES (40)", "COMMIT"],
        [
            f"SET gtid_next = '{SOURCE}:1'",
            "begin_transaction",
            "INSERT INTO d.t VALUES (40)",
            "commit_transaction",
        ],
    ),
    "anonymous": (
        ["SET gtid_next = 'ANONYMOUS'", "BEGIN", "INSERT INTO d.t VALUES (50)", "COMMIT"],
        [
            "SET gtid_next = 'ANONYMOUS'",
            "begin_transaction",
            "INSERT INTO d.t VALUES (50)",
            "commit_transaction",
        ],
    ),
}

#: scenarios that need another gtid_mode than ON (ANONYMOUS is refused under ON: 1782)
GTID_MODE = {"anonymous": "ON_PERMISSIVE"}

OPERATIONS = {"begin_transaction", "commit_transaction", "rollback_transaction", "end_gtid_transaction"}


def _server(open_server: Any, name: str, gtid_mode: str = "ON") -> Any:
    srv = open_server(
        name,
        log_bin=True,
        server_id=1,
        gtid_mode=gtid_mode,
        enforce_gtid_consistency="ON",
        binlog_format="ROW",
    )
    with srv.session() as s:
        s.execute("CREATE DATABASE d")
        s.execute("CREATE TABLE d.t (a INT PRIMARY KEY)")
        s.execute(f"SET gtid_next = '{SOURCE}:1'")
        s.execute("INSERT INTO d.t VALUES (1)")
        s.execute("SET gtid_next = 'AUTOMATIC'")
    return srv


def _log(srv: Any) -> list[tuple[str, str]]:
    """(event class, Query text) of every event after the setup's, with this server's own UUID hidden."""
    out = []
    for name in srv.binlog.existing_files():
        for pe in read_events(srv.binlog.path(name)):
            ev = pe.event
            text = ev.query if isinstance(ev, QueryEvent) else ""
            gtid = getattr(ev, "gtid", None)
            if gtid is not None:
                text = str(gtid).replace(str(srv.server_uuid), "<own>")
            out.append((type(ev).__name__, text))
    return out


def _run(session: Any, steps: list[str]) -> None:
    for step in steps:
        if step in OPERATIONS:
            getattr(session, step)()
        else:
            session.execute(step)


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_typed_operations_match_the_statements(open_server, tmp_path, scenario):
    texts, typed = SCENARIOS[scenario]
    results = []
    for label, steps in (("text", texts), ("typed", typed)):
        srv = _server(open_server, tmp_path / label, GTID_MODE.get(scenario, "ON"))
        with srv.session() as s:
            _run(s, steps)
            state = (s.gtid_next_text(), s.in_transaction(), s.gtid.owned_text())
        with srv.session() as s:
            rows = s.execute("SELECT a FROM d.t ORDER BY a")[-1].rows
        executed = str(srv.gtid_state.executed()).replace(str(srv.server_uuid), "<own>")
        results.append((_log(srv), executed, rows, state))
    assert results[0] == results[1]


def test_empty_owned_gtid_is_gtid_begin_commit(open_server, tmp_path):
    srv = _server(open_server, tmp_path / "d")
    before = len(_log(srv))
    with srv.session() as s:
        s.set_gtid_next(f"{SOURCE}:9")
        assert s.end_gtid_transaction() is True
        assert s.gtid_next_text() == f"{SOURCE}:9"  # UNDEFINED shows the GTID last assigned
        with pytest.raises(MySQLError) as err:
            s.execute("INSERT INTO d.t VALUES (2)")
        assert err.value.code == 1837
    assert [(cls, text) for cls, text in _log(srv)[before:]] == [
        ("GtidEvent", f"{SOURCE}:9"),
        ("QueryEvent", "BEGIN"),
        ("QueryEvent", "COMMIT"),
    ]


@pytest.mark.parametrize(
    ("gtid_next", "ended", "after"),
    [
        ("AUTOMATIC", False, "AUTOMATIC"),
        (f"{SOURCE}:1", True, f"{SOURCE}:1"),  # executed: skipped, the GTID ends (UNDEFINED)
    ],
    ids=["nothing-owned", "skipped-gtid"],
)
def test_end_gtid_transaction_logs_nothing_without_an_owned_gtid(
    open_server, tmp_path, gtid_next, ended, after
):
    srv = _server(open_server, tmp_path / "d")
    before = _log(srv)
    executed = srv.gtid_state.executed()
    with srv.session() as s:
        s.set_gtid_next(gtid_next)
        assert s.end_gtid_transaction() is ended
        assert s.gtid_next_text() == after
        assert s.gtid.owned_text() is None
    assert _log(srv) == before
    assert srv.gtid_state.executed() == executed


def test_begin_inside_an_assigned_gtid_transaction_is_1778(open_server, tmp_path):
    srv = _server(open_server, tmp_path / "d")
    with srv.session() as s:
        s.set_gtid_next(f"{SOURCE}:7")
        s.begin_transaction()
        s.execute("INSERT INTO d.t VALUES (70)")
        with pytest.raises(MySQLError) as typed:
            s.begin_transaction()
        with pytest.raises(MySQLError) as text:
            s.execute("BEGIN")
        assert typed.value.code == text.value.code == 1778
        assert str(typed.value) == str(text.value)
        s.commit_transaction()
        assert s.gtid_next_text() == f"{SOURCE}:7" and not s.in_transaction()
    assert GtidSet.parse(f"{SOURCE}:7") <= srv.gtid_state.executed()


@pytest.mark.parametrize("completion_type", ["CHAIN", "RELEASE"])
def test_commit_transaction_ignores_completion_type(open_server, tmp_path, completion_type):
    srv = _server(open_server, tmp_path / "d")
    with srv.session() as s:
        s.execute(f"SET SESSION completion_type = {completion_type}")
        s.begin_transaction()
        s.execute("INSERT INTO d.t VALUES (80)")
        s.commit_transaction()
        assert not s.in_transaction() and not s.killed and not s.closed
        assert s.execute("SELECT COUNT(*) FROM d.t")[-1].rows == [(2,)]


@pytest.mark.parametrize(
    "operation", sorted(OPERATIONS), ids=lambda name: name.removesuffix("_transaction").removesuffix("_gtid")
)
def test_operations_on_a_closed_session_are_2006(open_server, tmp_path, operation):
    srv = _server(open_server, tmp_path / "d")
    s = srv.session()
    s.close()
    with pytest.raises(MySQLError) as err:
        getattr(s, operation)()
    assert err.value.code == 2006
