"""A statement that fails under an explicit ``GTID_NEXT='uuid:n'``: who owns uuid:n afterwards, what GTID_NEXT shows.

MySQL's rules (8.0):

* an autocommitted statement that fails after it started runs ``trans_rollback_stmt`` -> ``ha_rollback_trans``
  -> ``Gtid_state::update_on_rollback``: uuid:n is released, not executed, and gtid_next becomes UNDEFINED, which
  ``SELECT @@SESSION.GTID_NEXT`` still shows as ``uuid:n`` (``Gtid_specification::to_string`` prints UNDEFINED
  like ASSIGNED; binlog_gtid_errors.result shows ``:17`` after a ROLLBACK). The next non-innocent statement fails
  with 1837, and the same GTID can be assigned again (codership-documentation#493: a failed CREATE TABLE under
  ``:2``, then ``SET GTID_NEXT=':2'`` again and a DDL that commits it);
* a statement the parser rejects (1064) never reaches ``mysql_execute_command``: nothing is rolled back and
  uuid:n stays owned;
* errors of the GTID checks themselves (1778 implicit commit inside a transaction, 1790 SET GTID_NEXT while
  owning) and any error inside a multi-statement transaction keep the ownership (binlog_gtid_errors.result);
  the transaction's COMMIT then executes uuid:n.
"""

from __future__ import annotations

import pytest

from gtidkit.errors import MySQLError
from gtidkit.gtid import GtidSet

U = "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa"
G = f"{U}:7"

CASES = [
    # (id, statements after SET GTID_NEXT (the last one fails), its error, owned afterwards, what commits uuid:n)
    ("dml-duplicate-key", ["INSERT INTO t VALUES (1)"], 1062, "", None),
    ("dml-unknown-table", ["INSERT INTO nosuch VALUES (1)"], 1146, "", None),
    ("ddl-table-exists", ["CREATE TABLE t (a INT)"], 1050, "", None),
    ("ddl-drop-unknown", ["DROP TABLE nosuch"], 1051, "", None),
    ("parse-error", ["INSERT INTO t VALUES ("], 1064, G, "INSERT INTO t VALUES (2)"),
    ("in-transaction", ["BEGIN", "INSERT INTO t VALUES (1)"], 1062, G, "COMMIT"),
    ("implicit-commit-in-transaction", ["SET autocommit = 0", "INSERT INTO t VALUES (5)", "CREATE TABLE u (a INT)"], 1778, G, "COMMIT"),
    ("set-gtid-next-while-owning", [f"SET gtid_next = '{U}:8'"], 1790, G, "INSERT INTO t VALUES (2)"),
]  # fmt: skip


def _run(s, sql: str) -> int:
    try:
        s.execute(sql)
    except MySQLError as err:
        return err.code
    return 0


def _one(s, sql: str):
    return s.execute(sql)[-1].rows[0][0]


@pytest.mark.parametrize(
    ("statements", "code", "owned", "commit"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_failed_statement_under_explicit_gtid_next(open_server, statements, code, owned, commit):
    srv = open_server(gtid_mode="ON", enforce_gtid_consistency="ON", log_bin=True)
    s = srv.session()
    s.execute("CREATE DATABASE d; USE d; CREATE TABLE t (a INT PRIMARY KEY); INSERT INTO t VALUES (1)")
    before = GtidSet.parse(_one(s, "SELECT @@GLOBAL.gtid_executed"))
    s.execute(f"SET gtid_next = '{G}'")
    *setup, failing = statements
    for sql in setup:
        s.execute(sql)
    assert _run(s, failing) == code
    assert _one(s, "SELECT @@SESSION.gtid_owned") == owned
    assert _one(s, "SELECT @@GLOBAL.gtid_owned") == (f"{G}#{s.id}" if owned else "")
    assert _one(s, "SELECT @@SESSION.gtid_next") == G  # ASSIGNED, or UNDEFINED shown as the GTID
    assert GtidSet.parse(_one(s, "SELECT @@GLOBAL.gtid_executed")) == before
    if commit is None:
        # released: the next statement is refused; the same GTID can be taken again, and commits
        assert _run(s, "INSERT INTO t VALUES (2)") == 1837
        s.execute(f"SET gtid_next = '{G}'")
        commit = "INSERT INTO t VALUES (2)"
    s.execute(commit)  # still (or again) the session's: this executes uuid:n
    assert GtidSet.parse(_one(s, "SELECT @@GLOBAL.gtid_executed")) == before.union(GtidSet.parse(G))
    assert _one(s, "SELECT @@SESSION.gtid_owned") == ""
    assert _run(s, "INSERT INTO t VALUES (3)") == 1837
