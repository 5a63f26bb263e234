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


def test_applier_parse_error_then_gtid_auto_skip(open_server) -> None:
    """mysql-test ``rpl_gtid/r/rpl_gtid_skip_with_parser_error.result`` (BUG#27638268): a binlog whose second
    transaction names a table with a word the replica's release reserves (``CREATE TABLE GENERATED LIKE test.t1``
    from 5.6 there; LATERAL, reserved since 8.0.14, here) stops the applier with 1064 and only ``:1`` is executed
    (the failed GTID is released, not owned). After the DBA commits empty transactions for ``:2``, ``:3``,
    ``:4``, ``:6`` under ``SET GTID_NEXT``, the applier skips them without parsing them and applies ``:5``; all
    of ``:1-6`` is executed."""
    from gtidkit.binlog import (
        FormatDescriptionEvent,
        GtidEvent,
        QueryEvent,
        XidEvent,
        decode_event,
        encode_event,
    )
    from gtidkit.engine.apply import BinlogTransaction
    from gtidkit.gtid import Gtid

    sid = "11111111-1111-1111-1111-111111111111"
    fde = FormatDescriptionEvent.for_server("5.7.44")

    def trx(gno: int, *texts: str) -> BinlogTransaction:
        events: list = [GtidEvent(1, Gtid.parse(f"{sid}:{gno}"), 0, 0, 0, 0)]
        if len(texts) > 1:
            events += [QueryEvent(1, 0, 0, b"", "test", t) for t in ("BEGIN", *texts)] + [XidEvent(gno)]
        else:
            events.append(QueryEvent(1, 0, 0, b"", "test", texts[0]))
        return BinlogTransaction(
            tuple(decode_event(encode_event(e, fde, server_id=1, timestamp=1700000000), fde) for e in events)
        )

    binlog = [
        trx(1, "CREATE TABLE t1 (a int PRIMARY KEY)"),
        trx(2, "CREATE TABLE LATERAL LIKE test.t1"),
        trx(3, "INSERT INTO LATERAL VALUES (1), (2), (3)", "COMMIT"),
        trx(4, "INSERT INTO LATERAL VALUES (4)", "COMMIT"),
        trx(5, "DROP TABLE `t1` /* generated by server */"),
        trx(6, "DROP TABLE `LATERAL` /* generated by server */"),
    ]
    srv = open_server(gtid_mode="ON", log_bin=False)
    s = srv.session()
    s.execute("CREATE DATABASE test")
    with srv.applier_session() as ap:
        assert ap.apply(binlog[0])
        with pytest.raises(MySQLError) as err:
            ap.apply(binlog[1])
        assert err.value.code == 1064
    assert s.execute("SELECT @@GLOBAL.gtid_executed, @@GLOBAL.gtid_owned")[-1].rows == [(f"{sid}:1", "")]
    for gno in (2, 3, 4, 6):
        for sql in (f"SET GTID_NEXT = '{sid}:{gno}'", "BEGIN", "COMMIT"):
            s.execute(sql)
    s.execute("SET GTID_NEXT = AUTOMATIC")
    with srv.applier_session() as ap:
        assert [ap.apply(t) for t in binlog[1:]] == [False, False, False, True, False]  # only :5 runs
    assert GtidSet.parse(s.execute("SELECT @@GLOBAL.gtid_executed")[-1].rows[0][0]) == GtidSet.parse(
        f"{sid}:1-6"
    )
    assert s.execute("SHOW TABLES FROM test")[-1].rows == []
