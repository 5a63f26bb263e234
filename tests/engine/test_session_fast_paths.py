"""The session's per-statement shortcuts give what the general path gives.

The shortcuts (engine/session.py, statements/prepared.py, statements/classify.py, sql/parse.py, results.py): a
prepared statement's template is classified once and re-used; BEGIN / COMMIT / ROLLBACK texts are classified once;
templates without literals skip ``templatize``; a SELECT's "uses tables" answer and the transaction-state tracker's
marks of a text are remembered per text; a Query event's status variables per inputs; results are
completed without ``dataclasses.replace``. The general path is the same statement sent as text with its values
written in (``session.execute``), which classifies and plans from scratch.

Each scenario runs sysbench's oltp_read_write statements (and errors, warnings, explicit GTIDs) twice, on two
servers with the same server_uuid: once as text with every shortcut switched off, once prepared with them on. Everything a client or replica sees must be
identical: each statement's result (rows, columns, counts, info, warnings, status flags, session-state changes) or
error, SHOW WARNINGS after it, gtid_executed, and the binary log's events (SHOW BINLOG EVENTS).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from gtidkit.engine.results import (
    Column,
    Condition,
    FieldType,
    SessionStateType,
    StateChange,
    StatementResult,
)
from gtidkit.engine.statements.classify import classify
from gtidkit.engine.statements.prepared import bound_text, placeholder_positions
from gtidkit.errors import MySQLError
from tests.engine.datadirs import open_new

UUID = "3e11fa47-71ca-11e1-9e33-c80aa9429562"

SETUP = [
    "CREATE DATABASE sbtest",
    "USE sbtest",
    (
        "CREATE TABLE sbtest1 (id INTEGER NOT NULL AUTO_INCREMENT, k INTEGER DEFAULT '0' NOT NULL, "
        "c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id))"
    ),
    "INSERT INTO sbtest1 (id, k, c, pad) VALUES "
    + ",".join(f"({i}, {i % 7}, 'c-{i:05d}', 'p-{i}')" for i in range(1, 301)),
]

#: sysbench oltp_read_write's statements, one transaction's worth (with values), then statements that fail or warn
OLTP: list[tuple[str, list[Any]]] = [
    ("SELECT c FROM sbtest1 WHERE id=?", [7]),
    ("SELECT c FROM sbtest1 WHERE id=?", [999]),  # no row
    ("SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?", [10, 109]),
    ("SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN ? AND ?", [10, 109]),
    ("SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c", [50, 149]),
    ("SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c", [50, 149]),
    ("UPDATE sbtest1 SET k=k+1 WHERE id=?", [20]),
    ("UPDATE sbtest1 SET c=? WHERE id=?", [b"new-c", 21]),
    ("DELETE FROM sbtest1 WHERE id=?", [22]),
    ("INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)", [22, 5, b"c-again", b"p-again"]),
]
FAILING: list[tuple[str, list[Any]]] = [
    ("INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)", [5, 1, b"dup", b"dup"]),  # 1062
    ("INSERT IGNORE INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)", [6, 1, b"dup", b"dup"]),  # a warning
    ("SELECT c FROM sbtest1 WHERE id=?", [8]),
]


class _Forgetful(dict):
    """A cache that never keeps anything: the general path, every time."""

    def __setitem__(self, key: Any, value: Any) -> None:
        pass


class _ForgetfulSet(set):
    def add(self, item: Any) -> None:
        pass


def _general_path(mp: pytest.MonkeyPatch) -> None:
    """Switch every shortcut off: nothing remembered, results completed by ``dataclasses.replace``."""
    from gtidkit.engine import session, tracking
    from gtidkit.engine.binlog import transaction_events
    from gtidkit.engine.sql import parse
    from gtidkit.engine.statements import classify as classify_mod
    from gtidkit.engine.statements import prepared

    mp.setattr(classify_mod, "_TRANSACTION_CONTROL", _Forgetful())
    mp.setattr(prepared, "_CLASSIFIED", _Forgetful())
    mp.setattr(parse, "_NO_LITERALS", _ForgetfulSet())
    mp.setattr(session, "_SELECT_USES_TABLES", _Forgetful())
    mp.setattr(tracking, "_text_marks", tracking._text_marks.__wrapped__)
    mp.setattr(transaction_events, "_STATUS_VARS", _Forgetful())
    mp.setattr(
        StatementResult,
        "completed",
        lambda self, wc, flags, ch: dataclasses.replace(
            self, warning_count=wc, status_flags=flags, state_changes=ch
        ),
    )


def _outcome(run) -> Any:
    try:
        (res,) = run()
    except MySQLError as err:
        return ("error", err.code, err.sqlstate, err.message)
    return tuple(getattr(res, f.name) for f in dataclasses.fields(res))


def _script(mode: str) -> list[tuple[str, list[Any]]]:
    """The statements of one scenario, with their values ([] for statements sent without parameters)."""
    if mode == "autocommit":
        return OLTP + FAILING
    if mode == "begin_commit":
        return [("BEGIN", []), *OLTP, ("COMMIT", []), ("BEGIN", []), *FAILING, ("ROLLBACK", [])]
    if mode == "autocommit_0":
        return [
            ("SET autocommit = 0", []),
            *OLTP,
            ("COMMIT", []),
            *FAILING,
            ("COMMIT", []),
            ("SET autocommit = 1", []),
        ]
    if mode == "gtid_next":
        return [
            (f"SET gtid_next = '{UUID}:100'", []),
            ("BEGIN", []),
            *OLTP[6:8],
            ("COMMIT", []),
            (f"SET gtid_next = '{UUID}:101'", []),
            OLTP[8],
            ("SET gtid_next = 'AUTOMATIC'", []),
            *OLTP,
            *FAILING,
        ]
    raise AssertionError(mode)


def _run(
    tmp_path, name: str, *, prepared: bool, mode: str, track: str, log_bin: bool, fmt: str = "ROW"
) -> dict[str, Any]:
    datadir = tmp_path / name
    datadir.mkdir()
    (datadir / "auto.cnf").write_text(f"[auto]\nserver-uuid={UUID}\n")
    srv = open_new(datadir, log_bin=log_bin, binlog_format=fmt)
    try:
        s = srv.session()
        for sql in SETUP:
            s.execute(sql)
        s.execute(f"SET SESSION session_track_gtids = {track}")
        s.execute("SET SESSION session_track_transaction_info = STATE")
        s.execute("SET SESSION session_track_state_change = ON")
        seen = []
        for round_ in range(2):  # the second round meets every cache warm
            for text, values in _script(mode):
                if prepared:
                    p = s.prepare(text)
                    seen.append(_outcome(lambda p=p, v=values: s.execute_prepared(p, v)))
                else:
                    sql = bound_text(text, placeholder_positions(text), values) if values else text
                    seen.append(_outcome(lambda sql=sql: s.execute(sql)))
                seen.append(s.execute("SHOW WARNINGS")[0].rows)
            seen.append(round_)
        s.close()
        events = [r[1:] for r in srv.session().execute("SHOW BINLOG EVENTS")[0].rows] if log_bin else []
        return {"statements": seen, "executed": str(srv.gtid_state.executed()), "events": events}
    finally:
        srv.shutdown()


@pytest.mark.parametrize("mode", ["autocommit", "begin_commit", "autocommit_0", "gtid_next"])
@pytest.mark.parametrize(
    ("track", "log_bin", "fmt"),
    [
        ("OFF", True, "ROW"),
        ("OWN_GTID", True, "ROW"),
        ("ALL_GTIDS", True, "ROW"),
        ("OWN_GTID", False, "ROW"),
        ("OWN_GTID", True, "STATEMENT"),
    ],
)
def test_prepared_equals_text(tmp_path, mode, track, log_bin, fmt):
    with pytest.MonkeyPatch.context() as mp:
        _general_path(mp)
        text = _run(tmp_path, "text", prepared=False, mode=mode, track=track, log_bin=log_bin, fmt=fmt)
    prep = _run(tmp_path, "prepared", prepared=True, mode=mode, track=track, log_bin=log_bin, fmt=fmt)
    assert prep["statements"] == text["statements"]
    assert prep["executed"] == text["executed"]
    assert prep["events"] == text["events"]
    # the scenario did what it says: GTIDs were reported and the failing statements failed
    flat = [x for x in text["statements"] if isinstance(x, tuple)]
    assert any(x[0] == "error" and x[1] == 1062 for x in flat)
    gtid_changes = [
        c for x in flat if x[0] != "error" for c in x[8] if c.type == SessionStateType.SESSION_TRACK_GTIDS
    ]
    # binlog off: automatic transactions get no GTID (WL#6559), explicit ones do
    assert bool(gtid_changes) == (track != "OFF" and (log_bin or mode == "gtid_next")), gtid_changes
    if log_bin:
        assert any(e[1] == "Gtid" for e in text["events"])


def test_completed_is_replace():
    """``StatementResult.completed`` is ``dataclasses.replace`` of the three completion fields, every field kept."""
    res = StatementResult(
        columns=None,
        affected_rows=3,
        matched_rows=4,
        last_insert_id=9,
        info="Rows matched: 4  Changed: 3  Warnings: 1",
        warnings=(Condition("Warning", 1265, "Data truncated"),),
    )
    changes = (StateChange(SessionStateType.SESSION_TRACK_GTIDS, f"{UUID}:1"),)
    for wc, flags, ch in [(1, 2, ()), (0, 0x4002, changes), (0xFFFF, 0x4000 | 1, changes)]:
        done = res.completed(wc, flags, ch)
        assert done == dataclasses.replace(res, warning_count=wc, status_flags=flags, state_changes=ch)
        assert {f.name: getattr(done, f.name) for f in dataclasses.fields(done)} == {
            **{f.name: getattr(res, f.name) for f in dataclasses.fields(res)},
            "warning_count": wc,
            "status_flags": flags,
            "state_changes": ch,
        }
    with pytest.raises(ValueError):
        res.completed(0, 2, changes)  # state changes without SERVER_SESSION_STATE_CHANGED
    with pytest.raises(ValueError):
        res.completed(0x10000, 2, ())
    with pytest.raises(ValueError):
        StatementResult(columns=(), rows=[(1,)])  # row widths are still checked at construction


_COLS = (Column("c", type=FieldType.MYSQL_TYPE_VAR_STRING), Column("n", type=FieldType.MYSQL_TYPE_LONGLONG))
_GTID_CHANGE = (StateChange(SessionStateType.SESSION_TRACK_GTIDS, f"{UUID}:1"),)


@pytest.mark.parametrize(
    ("rows", "warning_count", "flags", "changes", "warnings"),
    [
        pytest.param([("a", 1)], 0, 2, (), (), id="one-row"),
        pytest.param([], 0, 2, (), (), id="no-row"),
        pytest.param(
            [("a", 1), ("b", 2)], 1, 0x4003, _GTID_CHANGE, (Condition("Note", 1003, "x"),), id="full"
        ),
        pytest.param([("a", 1)], 0xFFFF, 0xFFFF, _GTID_CHANGE, (), id="largest"),
    ],
)
def test_result_set_is_the_constructor(rows, warning_count, flags, changes, warnings):
    """``StatementResult.result_set`` (the prepared SELECT's short path) builds what the constructor builds."""
    made = StatementResult.result_set(_COLS, rows, warning_count, flags, changes, warnings)
    assert made == StatementResult(
        _COLS, rows, warning_count=warning_count, status_flags=flags, state_changes=changes, warnings=warnings
    )


@pytest.mark.parametrize(
    ("rows", "warning_count", "flags", "changes"),
    [
        pytest.param([("a",)], 0, 2, (), id="row-too-narrow"),
        pytest.param([("a", 1), ("a", 1, 2)], 0, 2, (), id="second-row-too-wide"),
        pytest.param([], 0x10000, 2, (), id="warning-count-past-16-bits"),
        pytest.param([], -1, 2, (), id="negative-warning-count"),
        pytest.param([], 0, 0x10000, (), id="flags-past-16-bits"),
        pytest.param([], 0, 2, _GTID_CHANGE, id="changes-without-flag"),
        pytest.param([], 0, 0x4002, (), id="flag-without-changes"),
    ],
)
def test_result_set_checks_like_the_constructor(rows, warning_count, flags, changes):
    """What the constructor refuses, ``result_set`` refuses too (ValueError)."""
    with pytest.raises(ValueError):
        StatementResult(_COLS, rows, warning_count=warning_count, status_flags=flags, state_changes=changes)
    with pytest.raises(ValueError):
        StatementResult.result_set(_COLS, rows, warning_count, flags, changes, ())


def test_remembered_classification_is_a_fresh_statement():
    """BEGIN / COMMIT classified from the cache are new objects: changing one never reaches the next."""
    first = classify("START TRANSACTION READ ONLY")
    first.info["scribbled"] = True
    again = classify("START TRANSACTION READ ONLY")
    assert again is not first and "scribbled" not in again.info
    assert (again.kind, again.text) == (first.kind, first.text)


def _both(s, short: Any, general: Any, values: list[Any]) -> tuple[Any, Any]:
    """The outcome (and SHOW WARNINGS after it) of the prepared ``short`` and ``general`` (the same text, kept off
    the short path) with ``values``."""
    out = []
    for p in (short, general):
        out.append((_outcome(lambda p=p: s.execute_prepared(p, values)), s.execute("SHOW WARNINGS")[0].rows))
    return out[0], out[1]


def _prepare_both(s, text: str) -> tuple[Any, Any]:
    try:
        short, general = s.prepare(text), s.prepare(text)
    except MySQLError as err:
        return err.code, err.code
    general.shape.fast_select = False  # decided once, before the first execution: never the short path
    return short, general


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("SELECT ?", [5]),  # planned as a constant: the general path
        ("SELECT ? + 1, ?", [1.5, b"x"]),
        ("SELECT c, ? FROM sbtest1 WHERE id = ?", ["v", 3]),
        ("SELECT SUM(k), COUNT(*) FROM sbtest1 WHERE id BETWEEN ? AND ?", [1, 50]),
        ("SELECT c FROM sbtest1 WHERE id = ? LIMIT 1", [4]),
        ("SELECT 1 / ? FROM sbtest1 WHERE id = 1", [0]),  # a warning (division by 0)
        ("SELECT nosuch FROM sbtest1 WHERE id = ?", [1]),  # 1054 at PREPARE
    ],
)
def test_short_select_path_equals_text(tmp_path, text, values):
    """A prepared SELECT on the session's short path answers as on the general path (session._execute_statement)."""
    srv = open_new(tmp_path, log_bin=True)
    try:
        s = srv.session()
        for sql in SETUP:
            s.execute(sql)
        short, general = _prepare_both(s, text)
        if isinstance(short, int):
            assert short == 1054  # checked at PREPARE
            return
        for _ in range(3):
            prep, plain = _both(s, short, general, values)
            assert prep == plain
        if text == "SELECT ?":
            assert short.shape.fast_select is False  # its constant plan sent it to the general path
    finally:
        srv.shutdown()


def test_short_select_path_follows_schema_and_catalog(tmp_path):
    """A prepared SELECT's kept plan is made again after USE of another schema, a DDL, a temporary table of the
    same name; a dropped table fails with 1146, recorded once in the diagnostics area."""
    srv = open_new(tmp_path, log_bin=True)
    try:
        s = srv.session()
        for sql in SETUP:
            s.execute(sql)
        s.execute("CREATE DATABASE other")
        s.execute("CREATE TABLE other.sbtest1 (id INT PRIMARY KEY, c VARCHAR(10))")
        s.execute("INSERT INTO other.sbtest1 VALUES (7, 'other')")
        p = s.prepare("SELECT c FROM sbtest1 WHERE id = ?")
        assert s.execute_prepared(p, [7])[0].rows == [("c-00007",)]
        s.execute("USE other")
        (res,) = s.execute_prepared(p, [7])
        assert res.rows == [("other",)] and res.columns[0].schema == "other"
        s.execute("ALTER TABLE sbtest1 MODIFY c VARCHAR(20)")
        assert s.execute_prepared(p, [7])[0].columns[0].length == 80
        s.execute("CREATE TEMPORARY TABLE sbtest1 (id INT, c VARCHAR(5))")
        s.execute("INSERT INTO sbtest1 VALUES (7, 'temp')")
        assert s.execute_prepared(p, [7])[0].rows == [("temp",)]
        s.execute("DROP TEMPORARY TABLE sbtest1")
        assert s.execute_prepared(p, [7])[0].rows == [("other",)]
        s.execute("DROP TABLE sbtest1")
        with pytest.raises(MySQLError) as err:
            s.execute_prepared(p, [7])
        assert err.value.code == 1146 and err.value.results == ()
        assert [r[1] for r in s.execute("SHOW WARNINGS")[0].rows] == [1146]
        s.execute("USE sbtest")
        s.execute("LOCK TABLES sbtest1 READ")
        # the general path while LOCK TABLES holds
        assert s.execute_prepared(p, [7])[0].rows == [("c-00007",)]
        s.execute("UNLOCK TABLES")
    finally:
        srv.shutdown()


@pytest.mark.parametrize(
    ("depth", "upto", "expected"),
    [
        pytest.param(None, 50, [(50,)], id="default-depth"),
        pytest.param(10, 50, 3636, id="past-the-session-depth"),
        pytest.param(10, 5, [(5,)], id="within-the-session-depth"),
    ],
)
def test_prepared_fast_select_reads_cte_depth_per_execution(tmp_path, depth, upto, expected):
    """A prepared SELECT on the short path reads ``cte_max_recursion_depth`` at each execution, as a text SELECT
    does (3636 ER_CTE_MAX_RECURSION_DEPTH, RM8 "Limiting Common Table Expression Recursion")."""
    server = open_new(tmp_path)
    try:
        s = server.session()
        s.execute("CREATE DATABASE d; USE d; CREATE TABLE t (a INT); INSERT INTO t VALUES (1)")
        p = s.prepare(
            "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < ?) SELECT COUNT(*) FROM c, t"
        )
        assert s.execute_prepared(p, [3])[0].rows == [(3,)]  # planned, with the default depth
        assert p.shape.fast_select  # the short path this test is about
        if depth is not None:
            s.execute(f"SET SESSION cte_max_recursion_depth = {depth}")
        if isinstance(expected, int):
            with pytest.raises(MySQLError) as exc:
                s.execute_prepared(p, [upto])
            assert exc.value.code == expected
            assert exc.value.message == (
                f"Recursive query aborted after {depth + 1} iterations. Try increasing @@cte_max_recursion_depth "
                "to a larger value."
            )
        else:
            assert s.execute_prepared(p, [upto])[0].rows == expected
    finally:
        server.shutdown()
