"""read_only / super_read_only on the engine: who may write, which statements are refused, the coupling of the two.

Oracle: RM8 "read_only" ("the server permits no client updates except from users who have the CONNECTION_ADMIN
privilege (or the deprecated SUPER privilege)"; temporary tables stay writable), "super_read_only" ("prohibits
client updates, even from users who have CONNECTION_ADMIN or SUPER"; enabling it implicitly enables read_only,
disabling read_only disables it), ``err_readonly`` in ``sql/sql_parse.cc`` (1290 names --super-read-only for an
account read_only lets through, --read-only otherwise).
"""

from __future__ import annotations

import pytest

from gtidkit.errors import MySQLError

READ_ONLY = "The MySQL server is running with the --read-only option so it cannot execute this statement"
SUPER_READ_ONLY = (
    "The MySQL server is running with the --super-read-only option so it cannot execute this statement"
)

STATEMENTS = [
    "INSERT INTO d.t VALUES (5)",
    "UPDATE d.t SET a = 6",
    "DELETE FROM d.t",
    "CREATE TABLE d.u (a INT)",
    "DROP TABLE d.t",
    "CREATE DATABASE e",
    "CREATE USER nobody",
]


@pytest.mark.parametrize("statement", STATEMENTS)
@pytest.mark.parametrize(
    ("read_only", "super_read_only", "exempt", "refused"),
    [
        (True, False, False, READ_ONLY),
        (True, False, True, None),
        (True, True, True, SUPER_READ_ONLY),
        (True, True, False, READ_ONLY),
        (False, False, False, None),
    ],
    ids=["read_only-plain-user", "read_only-super", "super_read_only-super", "super_read_only-plain", "off"],
)
def test_who_may_write(open_server, statement, read_only, super_read_only, exempt, refused):
    srv = open_server(gtid_mode="ON", enforce_gtid_consistency="ON", log_bin=False)
    s = srv.session()
    s.execute("CREATE DATABASE d")
    s.execute("CREATE TABLE d.t (a INT PRIMARY KEY)")
    s.execute(f"SET GLOBAL read_only = {int(read_only)}")
    s.execute(f"SET GLOBAL super_read_only = {int(super_read_only)}")
    s.read_only_exempt = exempt
    before = srv.gtid_state.executed()
    if refused is None:
        s.execute(statement)
        return
    with pytest.raises(MySQLError) as err:
        s.execute(statement)
    assert (err.value.code, err.value.message) == (1290, refused)
    assert srv.gtid_state.executed() == before  # nothing committed, no GTID used
    s.execute("CREATE TEMPORARY TABLE d.tmp (a INT)")  # temporary tables stay writable
    s.execute("INSERT INTO d.tmp VALUES (1)")


def test_super_read_only_implies_read_only(open_server):
    srv = open_server(log_bin=False, super_read_only=True)
    s = srv.session()
    assert s.execute("SELECT @@read_only, @@super_read_only")[0].rows == [(1, 1)]
    s.execute("SET GLOBAL read_only = OFF")  # turns super_read_only off too
    assert s.execute("SELECT @@read_only, @@super_read_only")[0].rows == [(0, 0)]
    s.execute("SET GLOBAL super_read_only = ON")  # turns read_only on
    assert s.execute("SELECT @@read_only, @@super_read_only")[0].rows == [(1, 1)]
