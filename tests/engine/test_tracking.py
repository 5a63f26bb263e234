"""Session-state tracking (StatementResult.state_changes) against MySQL's own mysql-test expectations.

- GTIDs: the shared fixtures ``suite/binlog_gtid/r/binlog_gtid_mix_response_packet.result`` and
  ``binlog_gtid_ok_packet_all_gtids.result`` are replayed statement by statement; every ``-- Tracker :
  SESSION_TRACK_GTIDS`` block must be reported by that statement, and no GTIDs by the others. (Their
  SESSION_TRACK_TRANSACTION_STATE lines come from the harness's own tracker setting and are checked by the next
  test instead.)
- Transaction state / characteristics, state change and system variables: transcribed from mysql/mysql-server
  ``mysql-test/r/session_tracker_trx_state.result`` (commit 0c16cdc34f67), the WL#6631 test; only the statements
  on InnoDB tables and without INTO OUTFILE are kept.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests_paths import MYSQL_TEST

from gtidkit.engine.results import ServerStatus, SessionStateType
from gtidkit.errors import MySQLError

DETERMINISTIC_UUID = "00000000-1111-0000-1111-000000000000"  # what --debug=+d,server_uuid_deterministic sets


def _replay(path: Path) -> list[tuple[str, list[str], bool]]:
    """(statement, [GTID texts its OK packet carried], checked) for each statement of a .result file.

    ``checked`` is False where the .test ran the statement under ``--disable_session_track_info`` (nothing
    printed): the statement right after an ``## ... ##`` echo in ok_packet_all_gtids (its ``--eval SET ...
    '$from'``), and the ``SET SESSION SESSION_TRACK_GTIDS= OFF`` + ``RESET MASTER`` pair that restores the
    saved value in mix_response_packet.
    """
    lines = path.read_text().splitlines()
    steps: list[tuple[str, list[str], bool]] = []
    quiet = 0
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("-- Tracker : "):
            kind = line[len("-- Tracker : ") :]
            value = [lines[i + 1][3:]]
            i += 2
            while i < len(lines) and lines[i] != "":
                value.append(lines[i])
                i += 1
            if kind == "SESSION_TRACK_GTIDS":
                steps[-1][1].append("\n".join(value))
            continue
        if line.startswith("## "):
            quiet = 1
        elif line == "SET SESSION SESSION_TRACK_GTIDS= OFF;":
            quiet = 2
        if line.endswith(";") and not line.startswith(("#", "-- ")):
            steps.append((line[:-1], [], quiet == 0))
            quiet = max(quiet - 1, 0)
        i += 1
    return steps


def _open(open_server, tmp_path, **options):
    datadir = tmp_path / "data"
    datadir.mkdir()
    (datadir / "auto.cnf").write_text(f"[auto]\nserver-uuid={DETERMINISTIC_UUID}\n")
    return open_server(datadir, gtid_mode="ON", enforce_gtid_consistency="ON", log_bin=True, **options)


def _gtids(res) -> list[str]:
    return [c.value for c in res.state_changes if c.type == SessionStateType.SESSION_TRACK_GTIDS]


@pytest.mark.parametrize(
    "name,options",
    [
        ("binlog_gtid_mix_response_packet.result", {}),
        ("binlog_gtid_ok_packet_all_gtids.result", {"session_track_gtids": "ALL_GTIDS"}),
    ],
)
def test_session_track_gtids_fixture(open_server, tmp_path, name, options):
    path = MYSQL_TEST / "suite" / "binlog_gtid" / "r" / name
    srv = _open(open_server, tmp_path, **options)
    with srv.session() as s:
        s.execute("SET sql_log_bin = 0; CREATE DATABASE test; SET sql_log_bin = 1; USE test")
        checked = 0
        for stmt, expected, check in _replay(path):
            (res,) = s.execute(stmt)
            if check:
                assert _gtids(res) == expected, stmt
            assert bool(res.status_flags & ServerStatus.SERVER_SESSION_STATE_CHANGED) == bool(
                res.state_changes
            )
            checked += len(expected)
        assert checked >= 5  # every tracker block of the file was matched


def test_own_gtid_is_bounded_and_reported_once(open_server, tmp_path):
    """OWN_GTID: GTIDs are collected at commit and reported once, by the statement that committed them."""
    srv = _open(open_server, tmp_path)
    with srv.session() as s:
        s.execute("CREATE DATABASE test; USE test; CREATE TABLE t (a INT)")
        s.execute("SET SESSION session_track_gtids = OWN_GTID")
        results = s.execute(
            "INSERT INTO t VALUES (1); INSERT INTO t VALUES (2); BEGIN; INSERT INTO t VALUES (3); COMMIT; "
            "SELECT a FROM t"
        )
        assert [_gtids(r) for r in results] == [
            [f"{DETERMINISTIC_UUID}:3"],
            [f"{DETERMINISTIC_UUID}:4"],
            [],
            [],
            [f"{DETERMINISTIC_UUID}:5"],
            [],
        ]
        assert len(s.tracker._own) == 0  # nothing left behind after the report


# mysql-test/r/session_tracker_trx_state.result, in order. Each entry: statement, then the tracker items its OK
# packet carried as (type, value) or (SESSION_TRACK_SYSTEM_VARIABLES, (name, value)); None = not checked (the
# harness only started printing later, or the line is a setting of ours).
V, SC, CH, ST = (
    "SESSION_TRACK_SYSTEM_VARIABLES",
    "SESSION_TRACK_STATE_CHANGE",
    "SESSION_TRACK_TRANSACTION_CHARACTERISTICS",
    "SESSION_TRACK_TRANSACTION_STATE",
)
TRX_STATE = [
    ("SET autocommit=1", None),
    ("SET SESSION session_track_state_change=TRUE", None),
    ('SET SESSION session_track_transaction_info="STATE"', None),
    ("START TRANSACTION", [(ST, "T_______")]),
    ("COMMIT", [(ST, "________")]),
    ('CREATE TABLE t1 (f1 INT) ENGINE="InnoDB"', []),
    ("START TRANSACTION", [(ST, "T_______")]),
    ("DROP TABLE t1", [(ST, "________")]),
    ("START TRANSACTION", [(ST, "T_______")]),
    ("SET @dummy=0", [(SC, "1")]),
    ("ROLLBACK", [(ST, "________")]),
    ("SET autocommit=0", [(V, ("autocommit", "OFF")), (SC, "1")]),
    ('CREATE TABLE t1 (f1 INT) ENGINE="InnoDB"', []),
    ("INSERT INTO t1 VALUES (1)", [(ST, "I___W___")]),
    ("BEGIN WORK", [(ST, "T_______")]),
    ("DROP TABLE t1", [(ST, "________")]),
    ("SET autocommit=1", [(V, ("autocommit", "ON")), (SC, "1")]),
    # transaction state reporting
    ('CREATE TABLE t1 (f1 INT) ENGINE="InnoDB"', []),
    ("INSERT INTO t1 VALUES(1)", []),  # "We don't report when in autocommit mode and outside a transaction"
    ("SELECT 1 FROM DUAL", []),
    ("DELETE FROM t1", []),
    ("START TRANSACTION", [(ST, "T_______")]),
    ("SET @x=UUID()", [(SC, "1"), (ST, "T____s__")]),
    ("SET @x=1", [(SC, "1")]),
    ("COMMIT AND CHAIN", [(ST, "T_______")]),
    ("SELECT 1 FROM DUAL", [(ST, "T_____S_")]),
    ("COMMIT AND CHAIN", [(ST, "T_______")]),
    ("COMMIT", [(ST, "________")]),
    ("DROP TABLE t1", []),
    ('CREATE TABLE t1 (f1 INT) ENGINE="InnoDB"', []),
    ('CREATE TABLE t2 (f1 INT) ENGINE="InnoDB"', []),
    ("INSERT INTO  t1 VALUES (123)", []),
    ("BEGIN", [(ST, "T_______")]),
    ("SELECT f1 FROM t1", [(ST, "T_R___S_")]),
    ("COMMIT AND CHAIN", [(ST, "T_______")]),
    ("INSERT INTO t2 SELECT f1 FROM t1", [(ST, "T_R_W___")]),
    ("COMMIT", [(ST, "________")]),
    ("DROP TABLE t1", []),
    ("DROP TABLE t2", []),
    ('CREATE TABLE t1 (f1 INT) ENGINE="InnoDB"', []),
    ("START TRANSACTION", [(ST, "T_______")]),
    ("INSERT INTO t1 VALUES (1)", [(ST, "T___W___")]),
    ("ROLLBACK", [(ST, "________")]),
    ("DROP TABLE t1", []),
    # autocommit (0)
    ('CREATE TABLE t1 (f1 INT) ENGINE="InnoDB"', []),
    ("SET autocommit=0", [(V, ("autocommit", "OFF")), (SC, "1")]),
    ("SET @x=UUID()", [(SC, "1")]),
    ("SET @x=1", [(SC, "1")]),
    ("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE", []),
    ("INSERT INTO t1 VALUES(1)", [(ST, "I___W___")]),
    ("BEGIN", [(ST, "T_______")]),
    ("INSERT INTO t1 VALUES(3)", [(ST, "T___W___")]),
    ("DROP TABLE t1", [(ST, "________")]),
    ("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE", []),
    ("BEGIN", [(ST, "T_______")]),
    ("SELECT 1 FROM DUAL", [(ST, "T_____S_")]),
    ("COMMIT", [(ST, "________")]),
    ("SET autocommit=1", [(V, ("autocommit", "ON")), (SC, "1")]),
    # CHARACTERISTICS
    ('SET SESSION session_track_transaction_info="CHARACTERISTICS"', [(SC, "1"), (CH, "")]),
    ("START TRANSACTION", [(CH, "START TRANSACTION;"), (ST, "T_______")]),
    (
        "START TRANSACTION WITH CONSISTENT SNAPSHOT",
        [(CH, "START TRANSACTION WITH CONSISTENT SNAPSHOT;"), (ST, "T_R_____")],
    ),
    ("START TRANSACTION READ WRITE", [(CH, "START TRANSACTION READ WRITE;"), (ST, "T_______")]),
    ("START TRANSACTION READ ONLY", [(CH, "START TRANSACTION READ ONLY;")]),
    (
        "START TRANSACTION READ WRITE, WITH CONSISTENT SNAPSHOT",
        [(CH, "START TRANSACTION WITH CONSISTENT SNAPSHOT, READ WRITE;"), (ST, "T_R_____")],
    ),
    (
        "START TRANSACTION READ ONLY,  WITH CONSISTENT SNAPSHOT",
        [(CH, "START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY;")],
    ),
    ("COMMIT AND CHAIN", [(CH, "START TRANSACTION READ ONLY;"), (ST, "T_______")]),
    ("ROLLBACK", [(CH, ""), (ST, "________")]),
    ("SET TRANSACTION   READ ONLY", [(CH, "SET TRANSACTION READ ONLY;")]),
    (
        "SET TRANSACTION              ISOLATION LEVEL REPEATABLE READ",
        [(CH, "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ; SET TRANSACTION READ ONLY;")],
    ),
    ("SET TRANSACTION   READ ONLY", []),
    (
        "SET TRANSACTION   READ WRITE",
        [(CH, "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ; SET TRANSACTION READ WRITE;")],
    ),
    ("SET TRANSACTION              ISOLATION LEVEL REPEATABLE READ", []),
    (
        "SET TRANSACTION   READ ONLY, ISOLATION LEVEL SERIALIZABLE",
        [(CH, "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE; SET TRANSACTION READ ONLY;")],
    ),
    (
        "BEGIN WORK",
        [
            (CH, "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE; START TRANSACTION READ ONLY;"),
            (ST, "T_______"),
        ],
    ),
    ("COMMIT", [(CH, ""), (ST, "________")]),
]


def _items(res) -> list:
    out = []
    for c in res.state_changes:
        t = c.type.name
        out.append(
            (t, (c.name, c.value))
            if c.type == SessionStateType.SESSION_TRACK_SYSTEM_VARIABLES
            else (t, c.value)
        )
    return out


def test_transaction_info_tracker(open_server):
    srv = open_server(gtid_mode="ON", enforce_gtid_consistency="ON", log_bin=True)
    with srv.session() as s:
        s.execute("CREATE DATABASE test; USE test")
        for stmt, expected in TRX_STATE:
            (res,) = s.execute(stmt)
            if expected is not None:
                assert _items(res) == expected, stmt


def test_schema_and_system_variables(open_server):
    """USE reports the schema (session_track_schema is ON by default); '*' tracks every session variable; the
    manual's mysqltest example (Server Tracking of Client Session State) shows SET NAMES reporting three."""
    srv = open_server()
    with srv.session() as s:
        s.execute("CREATE DATABASE d1")
        assert _items(s.execute("USE d1")[0]) == [("SESSION_TRACK_SCHEMA", "d1")]
        assert _items(s.execute("SET @@SESSION.session_track_system_variables='*'")[0]) == [
            (V, ("session_track_system_variables", "*"))
        ]
        assert _items(s.execute("SET @@SESSION.session_track_state_change=ON")[0]) == [
            (V, ("session_track_state_change", "ON"))
        ]
        assert _items(s.execute("USE d1")[0]) == [("SESSION_TRACK_SCHEMA", "d1"), (SC, "1")]
        assert _items(s.execute("SET NAMES 'utf8mb4'")[0]) == [
            (V, ("character_set_connection", "utf8mb4")),
            (V, ("character_set_client", "utf8mb4")),
            (V, ("character_set_results", "utf8mb4")),
            (SC, "1"),
        ]
        assert _items(s.execute("SET GLOBAL max_error_count = 10")[0]) == []  # global: no session state
        assert _items(s.execute("SELECT 1")[0]) == []


def test_set_transaction_inside_a_transaction_is_1568(open_server):
    """session_tracker_trx_state.result: "SET TRANSACTION READ WRITE; ERROR 25001: Transaction characteristics can't
    be changed while a transaction is in progress" (an implicit transaction counts once a table was touched)."""
    srv = open_server()
    with srv.session() as s:
        s.execute("CREATE DATABASE test; USE test; CREATE TABLE t1 (f1 INT)")
        s.execute("SET autocommit=0; SET TRANSACTION ISOLATION LEVEL SERIALIZABLE; INSERT INTO t1 VALUES(1)")
        with pytest.raises(MySQLError) as exc:
            s.execute("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE")
        assert (exc.value.code, exc.value.sqlstate, exc.value.message) == (
            1568,
            "25001",
            "Transaction characteristics can't be changed while a transaction is in progress",
        )
        s.execute("COMMIT; SET autocommit=1; BEGIN")
        with pytest.raises(MySQLError):
            s.execute("SET TRANSACTION READ ONLY")
        s.execute("ROLLBACK; SET TRANSACTION READ ONLY")


def test_in_trans_flags(open_server):
    """SERVER_STATUS_IN_TRANS also for an implicit read-only transaction (autocommit=0 after a SELECT from a
    table); IN_TRANS_READONLY after START TRANSACTION READ ONLY; DB_DROPPED when the current database goes."""
    srv = open_server()
    with srv.session() as s:
        s.execute("CREATE DATABASE test; USE test; CREATE TABLE t1 (f1 INT)")
        sel, commit = s.execute("SET autocommit=0; SELECT f1 FROM t1; COMMIT")[1:]
        assert sel.status_flags & ServerStatus.SERVER_STATUS_IN_TRANS
        assert not sel.status_flags & ServerStatus.SERVER_STATUS_AUTOCOMMIT
        assert not commit.status_flags & ServerStatus.SERVER_STATUS_IN_TRANS
        (ro,) = s.execute("START TRANSACTION READ ONLY")
        assert ro.status_flags & ServerStatus.SERVER_STATUS_IN_TRANS_READONLY
        s.execute("COMMIT; SET autocommit=1")
        (drop,) = s.execute("DROP DATABASE test")
        assert drop.status_flags & ServerStatus.SERVER_STATUS_DB_DROPPED
