"""INTVAR_EVENT in STATEMENT format: INSERT_ID / LAST_INSERT_ID before the Query, honoured on re-apply.

MySQL (``MYSQL_BIN_LOG::write_event``) logs ``LAST_INSERT_ID`` when the statement calls LAST_INSERT_ID(), then
``INSERT_ID`` = the first AUTO_INCREMENT value it generated; ``Intvar_log_event::do_apply_event`` forces them on
the applier, so the same ids come out even when the applier's counter differs.
"""

from __future__ import annotations

import pytest

from gtidkit.binlog.constants import IntvarType
from gtidkit.binlog.events.statement import IntvarEvent
from gtidkit.binlog.file import read_transactions
from gtidkit.engine.binlog.transaction_events import statement_intvars


def crash(srv) -> None:
    """Drop a server the way kill -9 would: no saves, no Stop event."""
    srv.compressor.stop()
    if srv.binlog is not None:
        srv.binlog.abandon()
    srv.storage.close()
    srv.closed = True


def fail_engine_commit(session) -> None:
    """The next storage COMMIT fails after the binlog write: the transaction is in the binlog only."""

    def failing_commit(**_kw: object) -> None:
        raise OSError("simulated crash before the engine commit")

    session.conn.commit = failing_commit


def binlog_events(session) -> list[tuple[str, str]]:
    return [(r[2], r[5]) for r in session.execute("SHOW BINLOG EVENTS")[-1].rows]


def test_show_binlog_events_prints_intvar(open_server):
    srv = open_server(gtid_mode="ON", log_bin=True, binlog_format="STATEMENT")
    s = srv.session()
    s.execute("CREATE DATABASE d; USE d; CREATE TABLE t (id INT PRIMARY KEY AUTO_INCREMENT, v INT)")
    s.execute("INSERT INTO t (v) VALUES (1), (2)")
    s.execute("INSERT INTO t (v) VALUES (LAST_INSERT_ID())")
    s.execute("INSERT INTO t VALUES (50, 5)")  # explicit id: nothing generated, no Intvar
    ev = binlog_events(s)
    q1 = ev.index(("Query", "use `d`; INSERT INTO t (v) VALUES (1), (2)"))
    assert ev[q1 - 1] == ("Intvar", "INSERT_ID=1")
    q2 = ev.index(("Query", "use `d`; INSERT INTO t (v) VALUES (LAST_INSERT_ID())"))
    assert ev[q2 - 2 : q2] == [("Intvar", "LAST_INSERT_ID=1"), ("Intvar", "INSERT_ID=3")]
    q3 = ev.index(("Query", "use `d`; INSERT INTO t VALUES (50, 5)"))
    assert ev[q3 - 1] == ("Query", "BEGIN")
    assert sum(1 for kind, _ in ev if kind == "Intvar") == 3


def test_row_format_has_no_intvar(open_server):
    srv = open_server(gtid_mode="ON", log_bin=True, binlog_format="ROW")
    s = srv.session()
    s.execute("CREATE DATABASE d; USE d; CREATE TABLE t (id INT PRIMARY KEY AUTO_INCREMENT, v INT)")
    s.execute("INSERT INTO t (v) VALUES (1)")
    assert all(kind != "Intvar" for kind, _ in binlog_events(s))


def test_set_insert_id_forces_the_next_statement_only(open_server):
    srv = open_server(gtid_mode="ON", log_bin=True, binlog_format="STATEMENT")
    s = srv.session()
    s.execute("CREATE DATABASE d; USE d; CREATE TABLE t (id INT PRIMARY KEY AUTO_INCREMENT, v INT)")
    s.execute("SET insert_id = 100")  # what mysqlbinlog prints for an INSERT_ID event
    s.execute("INSERT INTO t (v) VALUES (1), (2)")
    s.execute("INSERT INTO t (v) VALUES (3)")  # counter moved past the forced values
    assert s.execute("SELECT id, v FROM t ORDER BY id")[-1].rows == [(100, 1), (101, 2), (102, 3)]
    assert ("Intvar", "INSERT_ID=100") in binlog_events(s)


def test_reapplied_statement_binlog_reproduces_ids_when_the_counter_differs(open_server):
    from test_recovery import as_binlog_first_datadir

    srv = open_server(gtid_mode="ON", log_bin=True, binlog_format="STATEMENT")
    s = srv.session()
    s.execute("CREATE DATABASE d; USE d; CREATE TABLE t (id INT PRIMARY KEY AUTO_INCREMENT, v INT)")
    s.execute("INSERT INTO t (v) VALUES (1), (2), (3), (4)")  # ids 1-4, LAST_INSERT_ID() = 1
    s.execute("DELETE FROM t WHERE id >= 3")  # the in-memory counter stays at 5; a restart derives MAX+1 = 3
    fail_engine_commit(s)
    applied = srv.binlog.position
    with pytest.raises(OSError):
        s.execute(
            "BEGIN; INSERT INTO t (v) VALUES (LAST_INSERT_ID()); INSERT INTO t (v) VALUES (20), (21); COMMIT"
        )
    path = srv.binlog.path(srv.binlog.active)
    crash(srv)
    # a datadir written binlog-first (before the commit log): recovery re-applies the binlog past the engine
    as_binlog_first_datadir(srv.datadir, applied)
    read = read_transactions(path, keep_events_from=0)
    intvars = [
        (e.event.type, e.event.value)
        for e in read.events[read.transactions[-1].begin_pos]
        if isinstance(e.event, IntvarEvent)
    ]
    assert intvars == [
        (IntvarType.LAST_INSERT_ID_EVENT, 1),
        (IntvarType.INSERT_ID_EVENT, 5),
        (IntvarType.INSERT_ID_EVENT, 6),
    ]
    # recovery re-applies the transaction from the binlog: same ids (5, 6, 7) and the same LAST_INSERT_ID() (1),
    # although this process would have generated 3 and LAST_INSERT_ID() would have been 0
    s2 = open_server(gtid_mode="ON", log_bin=True, binlog_format="STATEMENT").session()
    assert s2.execute("SELECT id, v FROM d.t ORDER BY id")[-1].rows == [
        (1, 1),
        (2, 2),
        (5, 1),
        (6, 20),
        (7, 21),
    ]
    # the forced values do not leak: the counter continues after them
    s2.execute("INSERT INTO d.t (v) VALUES (99)")
    assert s2.execute("SELECT MAX(id) FROM d.t")[-1].rows == [(8,)]


@pytest.mark.parametrize(
    ("text", "before", "insert_id", "expected"),
    [
        ("INSERT INTO t (v) VALUES (1)", 0, 7, [(2, 7)]),
        ("INSERT INTO t VALUES (5, 1)", 3, 0, []),
        ("INSERT INTO t (v) VALUES (last_insert_id ( ))", 4, 9, [(1, 4), (2, 9)]),
        ("UPDATE t SET v = LAST_INSERT_ID() WHERE id = 1", 4, 0, [(1, 4)]),
        ("UPDATE t SET v = LAST_INSERT_ID(v + 1)", 4, 0, []),  # the setter form needs no event
    ],
)
def test_statement_intvars(text, before, insert_id, expected):
    assert [(e.type, e.value) for e in statement_intvars(text, before, insert_id)] == expected
