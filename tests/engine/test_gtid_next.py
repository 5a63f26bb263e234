"""GTID_NEXT: AUTOMATIC, ANONYMOUS, explicit GTIDs, skipping, ownership waits and errors (formats.md §8.2)."""

from __future__ import annotations

import threading
import time

import pytest

from gtidkit.errors import MySQLError


def _code(fn, *args):
    with pytest.raises(MySQLError) as exc:
        fn(*args)
    return exc.value.code


def test_explicit_gtid_then_undefined(open_server):
    srv = open_server(gtid_mode="ON", log_bin=False)
    s = srv.session()
    u = srv.server_uuid
    s.execute(f"SET gtid_next='{u}:7'")
    assert s.execute("SELECT @@SESSION.gtid_owned")[-1].rows == [(f"{u}:7",)]
    s.execute("CREATE DATABASE d1")
    assert s.execute("SELECT @@GLOBAL.gtid_executed")[-1].rows == [(f"{u}:7",)]
    assert s.execute("SELECT @@SESSION.gtid_owned")[-1].rows == [("",)]
    with pytest.raises(MySQLError) as exc:
        s.execute("CREATE DATABASE d2")
    assert exc.value.code == 1837
    assert exc.value.message.endswith(f"Current @@SESSION.GTID_NEXT is '{u}:7'.")
    # SELECT and SET are still allowed while UNDEFINED
    s.execute("SELECT 1")
    s.execute("SET gtid_next='AUTOMATIC'")
    s.execute("CREATE DATABASE d2")


def test_already_executed_gtid_skips_transaction(open_server):
    srv = open_server(gtid_mode="ON", log_bin=False)
    s = srv.session()
    u = srv.server_uuid
    s.execute(f"SET gtid_next='{u}:1'")
    s.execute("CREATE DATABASE d1")
    s.execute(f"SET gtid_next='{u}:1'")
    s.execute("CREATE DATABASE skipped")  # silently skipped
    names = [r[0] for r in s.execute("SELECT SCHEMA_NAME FROM information_schema.SCHEMATA")[-1].rows]
    assert "d1" in names and "skipped" not in names
    assert s.execute("SELECT @@GLOBAL.gtid_executed")[-1].rows == [(f"{u}:1",)]
    assert _code(s.execute, "CREATE DATABASE d3") == 1837


@pytest.mark.parametrize(
    "mode, value, code",
    [
        ("ON", "ANONYMOUS", 1782),
        ("OFF", "3E11FA47-71CA-11E1-9E33-C80AA9429562:1", 1781),
        ("ON", "not-a-gtid:1", 1774),
        ("ON", "3E11FA47-71CA-11E1-9E33-C80AA9429562:0", 1774),
    ],
)
def test_gtid_next_errors(open_server, mode, value, code):
    srv = open_server(gtid_mode=mode, log_bin=False)
    s = srv.session()
    assert _code(s.execute, f"SET gtid_next='{value}'") == code


def test_gtid_next_in_transaction_and_while_owning(open_server):
    srv = open_server(gtid_mode="ON", log_bin=False)
    s = srv.session()
    u = srv.server_uuid
    s.execute("BEGIN")
    assert _code(s.execute, f"SET gtid_next='{u}:1'") == 1766
    s.execute("ROLLBACK")
    s.execute(f"SET gtid_next='{u}:1'")
    with pytest.raises(MySQLError) as exc:
        s.execute(f"SET gtid_next='{u}:2'")
    assert exc.value.code == 1790
    assert f"The client owns {u}:1." in exc.value.message


def test_rollback_releases_ownership(open_server):
    srv = open_server(gtid_mode="ON", log_bin=False)
    s = srv.session()
    u = srv.server_uuid
    s.execute(f"SET gtid_next='{u}:5'")
    s.execute("BEGIN")
    s.execute("ROLLBACK")
    assert s.execute("SELECT @@GLOBAL.gtid_owned")[-1].rows == [("",)]
    assert s.execute("SELECT @@GLOBAL.gtid_executed")[-1].rows == [("",)]
    assert _code(s.execute, "CREATE DATABASE x") == 1837


def test_empty_transaction_with_explicit_gtid(open_server):
    srv = open_server(gtid_mode="ON", log_bin=True)
    s = srv.session()
    u = srv.server_uuid
    s.execute(f"SET gtid_next='{u}:3'")
    s.execute("BEGIN")
    s.execute("COMMIT")
    assert s.execute("SELECT @@GLOBAL.gtid_executed")[-1].rows == [(f"{u}:3",)]
    ev = s.execute("SHOW BINLOG EVENTS")[-1].rows
    assert [r[2] for r in ev[2:]] == ["Gtid", "Query", "Query"]
    assert [r[5] for r in ev[3:]] == ["BEGIN", "COMMIT"]


def test_owned_by_other_session_waits(open_server):
    srv = open_server(gtid_mode="ON", log_bin=False)
    a, b = srv.session(), srv.session()
    u = srv.server_uuid
    a.execute(f"SET gtid_next='{u}:1'")
    assert a.execute("SELECT @@GLOBAL.gtid_owned")[-1].rows == [(f"{u}:1#{a.id}",)]
    done = threading.Event()
    seen: list[str] = []

    def other():
        b.execute(f"SET gtid_next='{u}:1'")  # blocks until a commits, then the GTID is executed → skip
        b.execute("CREATE DATABASE from_b")
        seen.append(b.execute("SELECT @@SESSION.gtid_next")[-1].rows[0][0])
        done.set()

    t = threading.Thread(target=other)
    t.start()
    time.sleep(0.3)
    assert not done.is_set()
    a.execute("CREATE DATABASE from_a")
    t.join(10)
    assert done.is_set()
    names = [r[0] for r in a.execute("SELECT SCHEMA_NAME FROM information_schema.SCHEMATA")[-1].rows]
    assert "from_a" in names and "from_b" not in names


def test_automatic_fills_gaps(open_server):
    srv = open_server(gtid_mode="ON", log_bin=True)
    s = srv.session()
    u = srv.server_uuid
    s.execute(f"SET gtid_next='{u}:2'")
    s.execute("CREATE DATABASE two")
    s.execute("SET gtid_next='AUTOMATIC'")
    s.execute("CREATE DATABASE one")
    s.execute("CREATE DATABASE three")
    assert s.execute("SELECT @@GLOBAL.gtid_executed")[-1].rows == [(f"{u}:1-3",)]


def test_automatic_with_tag(open_server):
    srv = open_server(gtid_mode="ON", log_bin=True, server_version="8.4")  # tags: 8.3.0+
    s = srv.session()
    u = srv.server_uuid
    s.execute("SET gtid_next='AUTOMATIC:Blue'")
    s.execute("CREATE DATABASE tagged")
    assert s.execute("SELECT @@SESSION.gtid_next")[-1].rows == [("AUTOMATIC:blue",)]
    assert s.execute("SELECT @@GLOBAL.gtid_executed")[-1].rows == [(f"{u}:blue:1",)]


def test_gtid_mode_steps(open_server):
    srv = open_server(gtid_mode="OFF", log_bin=True)
    s = srv.session()
    assert _code(s.execute, "SET GLOBAL gtid_mode=ON") == 1788
    s.execute("SET GLOBAL gtid_mode=OFF_PERMISSIVE")
    s.execute("SET GLOBAL gtid_mode=ON_PERMISSIVE")
    assert _code(s.execute, "SET GLOBAL gtid_mode=ON") == 3111
    s.execute("SET GLOBAL enforce_gtid_consistency=ON")
    s.execute("SET GLOBAL gtid_mode=ON")
    assert s.execute("SELECT @@GLOBAL.gtid_mode")[-1].rows == [("ON",)]
    # Sys_var_enforce_gtid_consistency::global_update: ER_GTID_MODE_ON_REQUIRES_ENFORCE_GTID_CONSISTENCY_ON
    # (this test expected 1231 before; MySQL 8.x gives 1779)
    assert _code(s.execute, "SET GLOBAL enforce_gtid_consistency=OFF") == 1779
    # each change rotated the binary log
    assert len(s.execute("SHOW BINARY LOGS")[-1].rows) == 4
