"""SHOW BINLOG EVENTS FROM a position inside an event lists from the next event on.

Expected behaviour: MySQL 8.0's test for Bug#29039732 "SHOW BINLOG EVENTS FROM <BAD OFFSET> IS NOT DIAGNOSED"
(mysql-test, "Verify that SHOW BINLOG EVENTS FROM <invalid starting offset> shows correct starting offset of an
event after the invalid starting offset"; a valid offset starts at that event), RM8 15.7.7.2 (LIMIT as in SELECT;
End_log_pos = Pos + event size). Positions 0..4 start at the first event, as MySQL clamps FROM to the 4-byte magic.
"""

from __future__ import annotations

import itertools
import threading


def test_from_inside_an_event_starts_at_the_next(open_server):
    srv = open_server(log_bin=True)
    s = srv.session()
    s.execute("CREATE DATABASE d")
    s.execute("CREATE TABLE d.t (id INT PRIMARY KEY)")
    full = s.execute("SHOW BINLOG EVENTS")[-1].rows
    assert [r[2] for r in full[:4]] == ["Format_desc", "Previous_gtids", "Gtid", "Query"]
    for i, row in enumerate(full):
        start, end = row[1], row[4]
        # at the event itself: it comes first
        assert s.execute(f"SHOW BINLOG EVENTS FROM {start}")[-1].rows == full[i:]
        # one byte in, or one byte before its end: the listing starts at the next event, with its real Pos
        assert s.execute(f"SHOW BINLOG EVENTS FROM {start + 1}")[-1].rows == full[i + 1 :]
        assert s.execute(f"SHOW BINLOG EVENTS FROM {end - 1} LIMIT 1")[-1].rows == full[i + 1 : i + 2]
    for pos in (0, 1, 4):
        assert s.execute(f"SHOW BINLOG EVENTS FROM {pos}")[-1].rows == full
    last_end = full[-1][4]
    assert s.execute(f"SHOW BINLOG EVENTS FROM {last_end}")[-1].rows == []
    assert s.execute(f"SHOW BINLOG EVENTS FROM {last_end + 100}")[-1].rows == []
    # LIMIT offset, count counts from the first event listed
    assert s.execute(f"SHOW BINLOG EVENTS FROM {full[1][1] + 1} LIMIT 1, 2")[-1].rows == full[3:5]


def test_listing_while_writing_stops_at_the_end_position(open_server):
    srv = open_server(log_bin=True)
    s = srv.session()
    s.execute("CREATE DATABASE d")
    s.execute("CREATE TABLE d.t (id INT PRIMARY KEY)")
    stop = threading.Event()
    errors: list = []

    def writer():
        w = srv.session()
        i = 0
        while not stop.is_set():
            w.execute(f"INSERT INTO d.t VALUES ({i})")
            i += 1
        w.close()

    t = threading.Thread(target=writer)
    t.start()
    try:
        for _ in range(20):
            rows = s.execute("SHOW BINLOG EVENTS")[-1].rows
            # every listed event is whole and the listing ends on a transaction boundary
            assert all(a[4] == b[1] for a, b in itertools.pairwise(rows))
            assert rows[-1][2] in ("Xid", "Query", "Previous_gtids")
    except AssertionError as err:
        errors.append(err)
    finally:
        stop.set()
        t.join(30)
    assert not errors and not t.is_alive()
