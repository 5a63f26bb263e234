"""Logical clock of the engine's binlogs: WRITESET / WRITESET_SESSION / COMMIT_ORDER dependency tracking.

MySQL's rules (``sql/rpl_trx_tracking.cc``): last_committed = the newest earlier writer of one of the rows the
transaction changed, floored by the history start; DDL and STATEMENT format fall back to commit order and clear the
history; the history holds ``binlog_transaction_dependency_history_size`` hashes; counters restart in each file.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from gtidkit.binlog.file import iter_transactions
from gtidkit.cli.main import cli
from gtidkit.engine.binlog.dependency import (
    COMMIT_ORDER,
    NO_WRITESET,
    WRITESET,
    WRITESET_SESSION,
    DependencyTracker,
    Writeset,
    extract_writeset,
)
from gtidkit.engine.sql.catalog import ColumnDef, IndexDef, TableDef
from gtidkit.engine.sql.executor import RowChange
from gtidkit.errors import MySQLError


def clock(srv, name: str | None = None) -> list[tuple[int, int]]:
    """(last_committed, sequence_number) of every transaction of ``name`` (default: the active file)."""
    path = srv.binlog.path(name or srv.binlog.active)
    return [(t.last_committed, t.sequence_number) for t in iter_transactions(path)]


def server_with_table(open_server, **options):
    options.setdefault("binlog_transaction_dependency_tracking", "WRITESET")
    srv = open_server(gtid_mode="ON", log_bin=True, **options)
    s = srv.session()
    s.execute("CREATE DATABASE d; USE d; CREATE TABLE t (id INT PRIMARY KEY, u INT UNIQUE, v INT)")
    return srv, s  # seq 1 = CREATE DATABASE, seq 2 = CREATE TABLE


# ---------------------------------------------------------------------------------------------- through the engine
# the default per release: 5.7 and 8.0 COMMIT_ORDER (8.0.41 sys_vars.cc: DEFAULT(DEPENDENCY_TRACKING_COMMIT_ORDER));
# 8.4 has no variable (1193) and always tracks WRITESET (RM 8.4 "Replication and Binary Logging Options and
# Variables"); COMMIT_ORDER gives each serial commit last_committed = sequence_number - 1, WRITESET puts
# independent inserts in one group above the DDL
@pytest.mark.parametrize(
    ("version", "shown", "expected"),
    [
        ("5.7", "COMMIT_ORDER", [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]),
        ("8.0", "COMMIT_ORDER", [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]),
        ("8.4", None, [(0, 1), (1, 2), (2, 3), (2, 4), (2, 5)]),
    ],
    ids=["5.7", "8.0", "8.4"],
)
def test_default_tracking_follows_the_release(open_server, version, shown, expected):
    srv = open_server(gtid_mode="ON", log_bin=True, server_version=version)
    s = srv.session()
    s.execute("CREATE DATABASE d; USE d; CREATE TABLE t (id INT PRIMARY KEY, u INT UNIQUE, v INT)")
    for i in range(1, 4):
        s.execute(f"INSERT INTO t VALUES ({i}, {i}, 0)")
    if shown is None:
        with pytest.raises(MySQLError) as exc:
            s.execute("SELECT @@GLOBAL.binlog_transaction_dependency_tracking")
        assert exc.value.code == 1193
    else:
        assert s.execute("SELECT @@GLOBAL.binlog_transaction_dependency_tracking")[-1].rows == [(shown,)]
    assert s.execute("SELECT @@GLOBAL.binlog_transaction_dependency_history_size")[-1].rows == [(25000,)]
    assert clock(srv) == expected


def test_independent_inserts_form_one_commit_group(open_server):
    srv, s = server_with_table(open_server)
    for i in range(1, 6):
        s.execute(f"INSERT INTO t VALUES ({i}, {i}, 0)")
    # the DDL at seq 2 is the floor; five inserts of different rows all depend on it only
    assert clock(srv) == [(0, 1), (1, 2)] + [(2, n) for n in range(3, 8)]


def test_conflicting_updates_chain(open_server):
    srv, s = server_with_table(open_server)
    s.execute("INSERT INTO t VALUES (1, 1, 0)")  # seq 3
    s.execute("INSERT INTO t VALUES (2, 2, 0)")  # seq 4
    s.execute("UPDATE t SET v = v + 1 WHERE id = 1")  # seq 5: row 1 last written by 3
    s.execute("UPDATE t SET v = v + 1 WHERE id = 1")  # seq 6: by 5
    s.execute("UPDATE t SET v = v + 1 WHERE id = 2")  # seq 7: by 4
    s.execute(
        "BEGIN; UPDATE t SET v = 9 WHERE id = 1; UPDATE t SET v = 9 WHERE id = 2; COMMIT"
    )  # seq 8: max(6, 7)
    assert clock(srv)[2:] == [(2, 3), (2, 4), (3, 5), (5, 6), (4, 7), (7, 8)]


def test_unique_secondary_key_is_in_the_write_set(open_server):
    srv, s = server_with_table(open_server)
    s.execute("INSERT INTO t VALUES (1, 50, 0)")  # seq 3
    s.execute("INSERT INTO t VALUES (7, 70, 0)")  # seq 4
    s.execute("DELETE FROM t WHERE id = 1")  # seq 5: frees u=50
    s.execute("INSERT INTO t VALUES (2, 50, 0)")  # seq 6: other PK, same unique value → after 5
    s.execute("UPDATE t SET v = 1 WHERE id = 7")  # seq 7: only row 7 (seq 4)
    assert clock(srv)[2:] == [(2, 3), (2, 4), (3, 5), (5, 6), (4, 7)]


def test_ddl_breaks_the_group(open_server):
    srv, s = server_with_table(open_server)
    s.execute("INSERT INTO t VALUES (1, 1, 0)")  # seq 3
    s.execute("INSERT INTO t VALUES (2, 2, 0)")  # seq 4
    s.execute("CREATE TABLE t2 (id INT PRIMARY KEY)")  # seq 5: commit order, clears the history
    s.execute("INSERT INTO t VALUES (3, 3, 0)")  # seq 6
    s.execute("INSERT INTO t2 VALUES (1)")  # seq 7
    s.execute("UPDATE t SET v = 1 WHERE id = 1")  # seq 8: its writer (3) is older than the floor 5
    assert clock(srv)[2:] == [(2, 3), (2, 4), (4, 5), (5, 6), (5, 7), (5, 8)]


def test_history_size_cap_clears_after_use(open_server):
    srv, s = server_with_table(open_server)
    s.execute("SET GLOBAL binlog_transaction_dependency_history_size = 4")
    # each insert adds two hashes (PRIMARY and u)
    s.execute("INSERT INTO t VALUES (1, 1, 0)")  # seq 3: 0 + 2 <= 4, kept
    s.execute("INSERT INTO t VALUES (2, 2, 0)")  # seq 4: 2 + 2 <= 4, kept
    s.execute("INSERT INTO t VALUES (3, 3, 0)")  # seq 5: 4 + 2 > 4 → computed (2), then cleared, floor 5
    s.execute("INSERT INTO t VALUES (4, 4, 0)")  # seq 6: floor 5
    s.execute("UPDATE t SET v = 1 WHERE id = 1")  # seq 7: row 1's writer forgotten → floor 5 (safe)
    s.execute("UPDATE t SET v = 1 WHERE id = 4")  # seq 8: row 4 written by 6
    assert clock(srv)[2:] == [(2, 3), (2, 4), (2, 5), (5, 6), (5, 7), (6, 8)]


def test_commit_order_is_sequence_minus_one(open_server):
    srv, s = server_with_table(open_server, binlog_transaction_dependency_tracking="COMMIT_ORDER")
    for i in range(1, 5):
        s.execute(f"INSERT INTO t VALUES ({i}, {i}, 0)")
    assert clock(srv) == [(n - 1, n) for n in range(1, 7)]
    # switching at run time takes effect with the next transaction
    s.execute("SET GLOBAL binlog_transaction_dependency_tracking = 'WRITESET'")
    s.execute("INSERT INTO t VALUES (9, 9, 0)")
    s.execute("INSERT INTO t VALUES (10, 10, 0)")
    assert clock(srv)[-2:] == [(6, 7), (6, 8)]


def test_writeset_session_keeps_each_sessions_order(open_server):
    srv, a = server_with_table(open_server, binlog_transaction_dependency_tracking="WRITESET_SESSION")
    b = srv.session()
    b.execute("USE d")
    a.execute("INSERT INTO t VALUES (1, 1, 0)")  # seq 3
    b.execute("INSERT INTO t VALUES (2, 2, 0)")  # seq 4
    a.execute("INSERT INTO t VALUES (3, 3, 0)")  # seq 5: after a's seq 3
    b.execute("INSERT INTO t VALUES (4, 4, 0)")  # seq 6: after b's seq 4
    # seq 3 depends on the CREATE TABLE the same session (a) committed at seq 2
    assert clock(srv)[2:] == [(2, 3), (2, 4), (3, 5), (4, 6)]


def test_table_without_key_falls_back_but_keeps_history(open_server):
    srv, s = server_with_table(open_server)
    s.execute("CREATE TABLE nokey (a INT)")  # seq 3 (DDL: floor 3)
    s.execute("INSERT INTO t VALUES (1, 1, 0)")  # seq 4
    s.execute("INSERT INTO nokey VALUES (1)")  # seq 5: has_missing_keys → commit order, history kept
    s.execute("INSERT INTO t VALUES (2, 2, 0)")  # seq 6: still floor 3
    s.execute("UPDATE t SET v = 1 WHERE id = 1")  # seq 7: writer 4
    assert clock(srv)[2:] == [(2, 3), (3, 4), (4, 5), (3, 6), (4, 7)]


def test_statement_format_falls_back_to_commit_order(open_server):
    srv, s = server_with_table(open_server, binlog_format="STATEMENT")
    s.execute("INSERT INTO t VALUES (1, 1, 0)")
    s.execute("INSERT INTO t VALUES (2, 2, 0)")
    assert clock(srv) == [(0, 1), (1, 2), (2, 3), (3, 4)]


def test_empty_transaction_with_explicit_gtid_runs_in_parallel(open_server):
    srv, s = server_with_table(open_server)
    s.execute("INSERT INTO t VALUES (1, 1, 0)")  # seq 3
    s.execute("INSERT INTO t VALUES (2, 2, 0)")  # seq 4
    s.execute(
        "SET gtid_next = 'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:1'; BEGIN; COMMIT; SET gtid_next = AUTOMATIC"
    )
    assert clock(srv)[-1] == (2, 5)


def test_counters_restart_in_each_file(open_server):
    srv, s = server_with_table(open_server)
    s.execute("INSERT INTO t VALUES (1, 1, 0)")
    first = srv.binlog.active
    s.execute("FLUSH LOGS")
    s.execute("INSERT INTO t VALUES (2, 2, 0)")
    s.execute("INSERT INTO t VALUES (3, 3, 0)")
    s.execute("UPDATE t SET v = 1 WHERE id = 2")
    assert clock(srv, first) == [(0, 1), (1, 2), (2, 3)]
    assert clock(srv) == [(0, 1), (0, 2), (1, 3)]


def test_bad_values_are_rejected(open_server):
    _srv, s = server_with_table(open_server)
    with pytest.raises(MySQLError) as exc:
        s.execute("SET GLOBAL binlog_transaction_dependency_tracking = 'BOGUS'")
    assert exc.value.code == 1231
    with pytest.raises(MySQLError) as exc:
        s.execute("SET SESSION binlog_transaction_dependency_tracking = 'WRITESET'")
    assert exc.value.code == 1229


def test_binlog_show_json_reports_the_clock(open_server):
    srv, s = server_with_table(open_server)
    s.execute("INSERT INTO t VALUES (1, 1, 0)")
    s.execute("INSERT INTO t VALUES (2, 2, 0)")
    path = srv.binlog.path(srv.binlog.active)
    srv.shutdown()
    out = CliRunner().invoke(cli, ["binlog", "show", "--json", "--per-transaction", str(path)])
    assert out.exit_code == 0, out.output
    rows = [json.loads(line) for line in out.output.splitlines() if line.strip()]
    assert [(r["last_committed"], r["sequence_number"]) for r in rows] == [(0, 1), (1, 2), (2, 3), (2, 4)]


# ---------------------------------------------------------------------------------------------- the tracker alone
def _key(n: int) -> tuple:
    return ("d", "t", "PRIMARY", (("n", n),))


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        (COMMIT_ORDER, [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]),
        (WRITESET, [(0, 1), (0, 2), (1, 3), (3, 4), (4, 5)]),
        (WRITESET_SESSION, [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]),
    ],
)
def test_tracker_modes(mode, expected):
    tr = DependencyTracker()
    got = [
        tr.assign(Writeset(keys=(_key(1),)), mode=mode, session_id=1),
        tr.assign(Writeset(keys=(_key(2),)), mode=mode, session_id=1),
        tr.assign(Writeset(keys=(_key(1), _key(3))), mode=mode, session_id=1),
        tr.assign(NO_WRITESET, mode=mode, session_id=1),  # DDL: seq-1, history cleared, floor 4
        tr.assign(Writeset(keys=(_key(2),)), mode=mode, session_id=1),  # writer 2 is below the floor
    ]
    assert got == expected


def test_tracker_rotate_and_unknown_mode():
    tr = DependencyTracker()
    tr.assign(Writeset(keys=(_key(1),)))
    tr.rotate()
    assert tr.assign(Writeset(keys=(_key(1),))) == (0, 1)
    with pytest.raises(ValueError):
        tr.assign(NO_WRITESET, mode="SOMETHING")


def test_extract_writeset_keys_nulls_and_missing_keys():
    cols = (
        ColumnDef("id", "int", nullable=False),
        ColumnDef("u", "varchar", length=10),
        ColumnDef("v", "int"),
    )
    keyed = TableDef("d", "t", cols, (IndexDef("PRIMARY", ("id",), True, True), IndexDef("u", ("u",), True)))
    bare = TableDef("d", "n", cols, (IndexDef("u", ("u",), True),))  # nullable unique key only: not keyed

    class Cat:
        def get_table(self, db, name):
            return {"t": keyed, "n": bare}.get(name)

    ws = extract_writeset(
        [
            RowChange("d", "t", "update", (1, "Abc", 0), (1, "abc", 1)),  # _ci: 'Abc' = 'abc' → one u key
            RowChange("d", "t", "insert", None, (2, None, 0)),  # NULL unique value: no u key
        ],
        Cat(),
    )
    assert not ws.has_missing_keys and ws.can_use
    assert sorted(k[2] for k in ws.keys) == ["PRIMARY", "PRIMARY", "u"]
    assert extract_writeset([RowChange("d", "n", "insert", None, (1, "x", 0))], Cat()).has_missing_keys
