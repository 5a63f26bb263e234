"""Transaction completion: ``COMMIT|ROLLBACK [WORK] [AND [NO] CHAIN] [[NO] RELEASE]`` and ``completion_type``.

Every expected value comes from MySQL:

- RM8 (MySQL 8.4 manual) "START TRANSACTION, COMMIT, and ROLLBACK Statements": "The AND CHAIN clause causes a new
  transaction to begin as soon as the current one ends, and the new transaction has the same isolation level as the
  just-terminated transaction ... The RELEASE clause causes the server to disconnect the current client session
  after terminating the current transaction. Including the NO keyword suppresses CHAIN or RELEASE completion"; the
  ``completion_type`` entry: "It does not apply to implicit commits" nor "when autocommit=1"; READ ONLY: a write
  to a non-temporary table fails with ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION (1792).
- mysql-test ``suite/sys_vars/r/completion_type_basic.result`` (values, errors 1231 / 1232),
  ``suite/sys_vars/r/completion_type_func.result`` (CHAIN / RELEASE over two connections; after RELEASE the next
  statement fails with 2006 / 2013), ``r/commit.result`` (Bug#20837 / Bug#53343: COMMIT AND NO CHAIN with
  completion_type=1; TRUNCATE, an implicit commit, does not chain).
- ``sql_yacc.yy``: ``AND CHAIN RELEASE`` is refused by the grammar (ER_PARSE_ERROR 1064, no statement runs).
- ``sql/rpl_gtid_execution.cc`` ``gtid_pre_statement_checks``: after a commit with ``gtid_next='UUID:N'`` the
  next transaction's first statement fails with 1837 ER_GTID_NEXT_TYPE_UNDEFINED_GTID.
- ``r/session_tracker_trx_state.result`` (WL#6631): a chained transaction is reported as ``T_______``.
"""

from __future__ import annotations

import pytest

from gtidkit.engine.results import ServerStatus, SessionStateType
from gtidkit.errors import MySQLError

IN_TRANS = int(ServerStatus.SERVER_STATUS_IN_TRANS)
IN_TRANS_READONLY = int(ServerStatus.SERVER_STATUS_IN_TRANS_READONLY)


@pytest.fixture
def srv(open_server):
    s = open_server(gtid_mode="ON", log_bin=True)
    with s.session() as setup:
        setup.execute("CREATE DATABASE db")
        setup.execute("CREATE TABLE db.t (a INT PRIMARY KEY, b INT)")
    return s


def _rows(session, sql="SELECT a FROM db.t ORDER BY a"):
    return [r[0] for r in session.execute(sql)[-1].rows]


def _err(session, sql) -> int:
    with pytest.raises(MySQLError) as exc:
        session.execute(sql)
    return exc.value.code


def test_commit_and_chain_then_rollback_undoes_the_chained_insert(srv):
    """The issue's data-integrity bug: MySQL keeps 20 only (the INSERT after COMMIT AND CHAIN is in the new
    transaction, which ROLLBACK undoes; completion_type_func.result "Don't expect to see 9, Record_9")."""
    with srv.session() as s:
        s.execute("BEGIN; INSERT INTO db.t VALUES (20,1)")
        res = s.execute("COMMIT AND CHAIN")[0]
        assert res.status_flags & IN_TRANS  # the chained transaction is open at once
        s.execute("INSERT INTO db.t VALUES (21,1)")
        s.execute("ROLLBACK")
        assert _rows(s) == [20]


@pytest.mark.parametrize("work", ["", " WORK"])
def test_rollback_and_chain_opens_a_transaction(srv, work):
    """commit.result: ROLLBACK AND CHAIN starts a new transaction (1002 committed later by COMMIT)."""
    with srv.session() as s, srv.session() as other:
        s.execute("BEGIN; INSERT INTO db.t VALUES (1,1)")
        assert s.execute(f"ROLLBACK{work} AND CHAIN")[0].status_flags & IN_TRANS
        s.execute("INSERT INTO db.t VALUES (2,1)")
        assert _rows(other) == []  # not committed yet
        s.execute("COMMIT")
        assert _rows(other) == [2]


def test_completion_type_chain_as_completion_type_func(srv):
    """completion_type_func.result, "Setting initial value of completion_type to one", con1 / con2."""
    with srv.session() as con1, srv.session() as con2:
        con1.execute("INSERT INTO db.t VALUES (1,1),(2,1),(3,1)")
        con1.execute("SET @@session.completion_type = 1")
        con1.execute("START TRANSACTION")
        con1.execute("INSERT INTO db.t VALUES (6,1)")
        con1.execute("INSERT INTO db.t VALUES (7,1)")
        con1.execute("COMMIT")
        con1.execute("INSERT INTO db.t VALUES (8,1)")  # "Expect to immediately have a new transaction"
        assert _rows(con1) == [1, 2, 3, 6, 7, 8]
        assert _rows(con2) == [1, 2, 3, 6, 7]  # "Do not expect to see 8"
        con1.execute("START TRANSACTION")  # commits 8
        con1.execute("INSERT INTO db.t VALUES (9,1)")
        con1.execute("INSERT INTO db.t VALUES (10,1)")
        con1.execute("ROLLBACK")
        assert _rows(con1) == [1, 2, 3, 6, 7, 8]
        con1.execute("INSERT INTO db.t VALUES (9,1)")  # "Expect a new transaction"
        assert _rows(con2) == [1, 2, 3, 6, 7, 8]
        con1.execute("ROLLBACK")
        assert _rows(con1) == [1, 2, 3, 6, 7, 8]


@pytest.mark.parametrize("end", ["COMMIT", "ROLLBACK"])
def test_completion_type_release_ends_the_session(srv, end):
    """completion_type_func.result: with completion_type=2 COMMIT / ROLLBACK release; the next statement fails
    with one of 2006, 2013. COMMIT kept 9 and 10, ROLLBACK dropped them."""
    with srv.session() as s, srv.session() as other:
        s.execute("SET @@session.completion_type = 2")
        s.execute("START TRANSACTION")
        s.execute("INSERT INTO db.t VALUES (9,1)")
        s.execute("INSERT INTO db.t VALUES (10,1)")
        res = s.execute(end)[0]
        assert not res.status_flags & IN_TRANS
        assert _err(s, "INSERT INTO db.t VALUES (4,1)") in (2006, 2013)
        assert _rows(other) == ([9, 10] if end == "COMMIT" else [])


@pytest.mark.parametrize("sql", ["COMMIT RELEASE", "ROLLBACK WORK RELEASE", "COMMIT AND NO CHAIN RELEASE"])
def test_release_clause(srv, sql):
    """RM8: RELEASE disconnects after the transaction ends."""
    with srv.session() as s:
        s.execute("BEGIN; INSERT INTO db.t VALUES (1,1)")
        s.execute(sql)
        assert _err(s, "SELECT 1") in (2006, 2013)


def test_no_keywords_override_completion_type(srv):
    """RM8 "Including the NO keyword suppresses CHAIN or RELEASE completion"; commit.result runs COMMIT AND NO
    CHAIN with completion_type=1 and the next statements are outside any transaction."""
    with srv.session() as s, srv.session() as other:
        s.execute("SET @@completion_type=1")
        s.execute("BEGIN")
        assert not s.execute("COMMIT AND NO CHAIN")[0].status_flags & IN_TRANS
        s.execute("INSERT INTO db.t VALUES (1,1)")  # autocommitted
        assert _rows(other) == [1]
        s.execute("SET @@completion_type=2")
        s.execute("BEGIN")
        s.execute("COMMIT NO RELEASE")
        assert s.execute("SELECT 1")[0].rows == [(1,)]  # still connected


@pytest.mark.parametrize(
    "sql", ["COMMIT AND CHAIN RELEASE", "ROLLBACK AND CHAIN RELEASE", "COMMIT WORK AND CHAIN RELEASE"]
)
def test_and_chain_release_is_a_syntax_error(srv, sql):
    """sql_yacc.yy refuses AND CHAIN RELEASE: ER_PARSE_ERROR 1064 (42000) and nothing is committed or ended."""
    with srv.session() as s:
        s.execute("BEGIN; INSERT INTO db.t VALUES (1,1)")
        with pytest.raises(MySQLError) as exc:
            s.execute(sql)
        assert (exc.value.code, exc.value.sqlstate) == (1064, "42000")
        s.execute("ROLLBACK")  # the transaction was still open
        assert _rows(s) == []
        assert s.execute("SELECT 1")[0].rows == [(1,)]


def test_chain_keeps_read_only(srv):
    """A chained transaction keeps READ ONLY (session_tracker_trx_state.result reports "START TRANSACTION READ
    ONLY;" after COMMIT AND CHAIN); a write in it fails with 1792 (25006), and the status keeps IN_TRANS_READONLY."""
    with srv.session() as s:
        s.execute("START TRANSACTION READ ONLY")
        res = s.execute("COMMIT AND CHAIN")[0]
        assert res.status_flags & IN_TRANS and res.status_flags & IN_TRANS_READONLY
        with pytest.raises(MySQLError) as exc:
            s.execute("INSERT INTO db.t VALUES (1,1)")
        assert (exc.value.code, exc.value.sqlstate) == (1792, "25006")
        assert exc.value.message == "Cannot execute statement in a READ ONLY transaction."
        s.execute("ROLLBACK")
        s.execute("INSERT INTO db.t VALUES (1,1)")  # READ WRITE again once the chain ended
        assert _rows(s) == [1]


def test_chain_keeps_read_write_over_a_read_only_session_default(srv):
    """trans_begin keeps thd->tx_read_only for a chain: START TRANSACTION READ WRITE chained stays READ WRITE
    although the session default is READ ONLY; a plain BEGIN takes the session default (1792)."""
    with srv.session() as s:
        s.execute("SET SESSION TRANSACTION READ ONLY")
        s.execute("START TRANSACTION READ WRITE")
        s.execute("COMMIT AND CHAIN")
        s.execute("INSERT INTO db.t VALUES (1,1)")
        s.execute("COMMIT")
        assert _rows(s) == [1]
        s.execute("BEGIN")
        assert _err(s, "INSERT INTO db.t VALUES (2,1)") == 1792
        s.execute("ROLLBACK")


def test_read_only_allows_temporary_tables(srv):
    """RM8 START TRANSACTION: in READ ONLY mode changes to TEMPORARY tables are still permitted."""
    with srv.session() as s:
        s.execute("CREATE TEMPORARY TABLE db.tmp (a INT)")
        s.execute("START TRANSACTION READ ONLY")
        s.execute("INSERT INTO db.tmp VALUES (1)")
        assert _err(s, "INSERT INTO db.t VALUES (1,1)") == 1792
        s.execute("COMMIT")
        assert _rows(s, "SELECT a FROM db.tmp") == [1]


def test_implicit_commit_and_autocommit_do_not_chain(srv):
    """completion_type "does not apply to implicit commits" nor autocommitted statements (RM8; commit.result's
    TRUNCATE inside the transaction ends it unchained)."""
    with srv.session() as s, srv.session() as other:
        s.execute("SET completion_type = CHAIN")
        s.execute("BEGIN; INSERT INTO db.t VALUES (1,1)")
        res = s.execute("CREATE TABLE db.u (a INT)")[0]
        assert not res.status_flags & IN_TRANS
        res = s.execute("INSERT INTO db.t VALUES (2,1)")[0]  # autocommit=1: committed alone
        assert not res.status_flags & IN_TRANS
        assert _rows(other) == [1, 2]


def test_each_transaction_of_a_chain_gets_its_own_gtid(srv):
    """Each committed transaction is logged with a GTID of its own (gtid_next=AUTOMATIC): three chained commits
    take three GNOs; the binlog holds one Gtid event per transaction."""
    with srv.session() as s:
        uuid = s.execute("SELECT @@server_uuid")[0].rows[0][0]
        before = s.execute("SELECT @@gtid_executed")[0].rows[0][0]
        assert before == f"{uuid}:1-2"  # CREATE DATABASE, CREATE TABLE
        s.execute("BEGIN; INSERT INTO db.t VALUES (1,1)")
        s.execute("COMMIT AND CHAIN; INSERT INTO db.t VALUES (2,1)")
        s.execute("COMMIT AND CHAIN; INSERT INTO db.t VALUES (3,1)")
        s.execute("COMMIT")
        assert s.execute("SELECT @@gtid_executed")[0].rows[0][0] == f"{uuid}:1-5"
        events = s.execute("SHOW BINLOG EVENTS")[0].rows
        gtids = [r[5] for r in events if r[2] == "Gtid"]
        assert gtids[-3:] == [f"SET @@SESSION.GTID_NEXT= '{uuid}:{n}'" for n in (3, 4, 5)]


def test_chain_after_explicit_gtid_next_needs_a_new_gtid_next(srv):
    """gtid_pre_statement_checks: after COMMIT with gtid_next='UUID:N' the chained transaction's first statement
    fails with 1837 ER_GTID_NEXT_TYPE_UNDEFINED_GTID; the transaction stays open until ROLLBACK."""
    uuid = "11111111-1111-1111-1111-111111111111"
    with srv.session() as s:
        s.execute(f"SET gtid_next='{uuid}:7'")
        s.execute("BEGIN; INSERT INTO db.t VALUES (1,1)")
        assert s.execute("COMMIT AND CHAIN")[0].status_flags & IN_TRANS
        assert _err(s, "INSERT INTO db.t VALUES (2,1)") == 1837
        s.execute("ROLLBACK")
        s.execute("SET gtid_next='AUTOMATIC'")
        assert _rows(s) == [1]
        assert f"{uuid}:7" in s.execute("SELECT @@gtid_executed")[0].rows[0][0]


def test_chain_tracking(srv):
    """session_tracker_trx_state.result: a chained COMMIT reports state T_______; completion_type=CHAIN makes a
    plain COMMIT the same statement (sql_parse.cc computes one tx_chain from both); OWN_GTID reports the GTID the
    COMMIT AND CHAIN committed (binlog_gtid_mix_response_packet: GTIDs committed by the statement)."""
    state = SessionStateType.SESSION_TRACK_TRANSACTION_STATE
    gtids = SessionStateType.SESSION_TRACK_GTIDS
    with srv.session() as s:
        uuid = s.execute("SELECT @@server_uuid")[0].rows[0][0]
        s.execute("SET SESSION session_track_transaction_info='STATE'")
        s.execute("SET SESSION session_track_gtids='OWN_GTID'")
        s.execute("SET completion_type=1")
        s.execute("BEGIN; INSERT INTO db.t VALUES (1,1)")
        changes = {(c.type, c.value) for c in s.execute("COMMIT")[0].state_changes}
        assert (state, "T_______") in changes
        assert (gtids, f"{uuid}:3") in changes
        changes = {(c.type, c.value) for c in s.execute("COMMIT AND NO CHAIN")[0].state_changes}
        assert (state, "________") in changes


def test_completion_type_values_as_completion_type_basic(srv):
    """suite/sys_vars/r/completion_type_basic.result: names and numbers, TRUE / FALSE, DEFAULT, both scopes."""
    with srv.session() as s:
        assert s.execute("SELECT @@global.completion_type, @@session.completion_type")[0].rows == [
            ("NO_CHAIN", "NO_CHAIN")
        ]
        for scope in ("global", "session"):
            for value, shown in [
                ("0", "NO_CHAIN"),
                ("1", "CHAIN"),
                ("2", "RELEASE"),
                ("NO_CHAIN", "NO_CHAIN"),
                ("'CHAIN'", "CHAIN"),
                ("'RELEASE'", "RELEASE"),
                ("TRUE", "CHAIN"),
                ("FALSE", "NO_CHAIN"),
                ("DEFAULT", "NO_CHAIN"),
            ]:
                s.execute(f"SET @@{scope}.completion_type = {value}")
                assert s.execute(f"SELECT @@{scope}.completion_type")[0].rows == [(shown,)], (scope, value)


@pytest.mark.parametrize(
    ("value", "code", "message"),
    [
        ("10", 1231, "Variable 'completion_type' can't be set to the value of '10'"),
        ("-1024", 1231, "Variable 'completion_type' can't be set to the value of '-1024'"),
        ("OFF", 1231, "Variable 'completion_type' can't be set to the value of 'OFF'"),
        ("ON", 1231, "Variable 'completion_type' can't be set to the value of 'ON'"),
        ("2.4", 1232, "Incorrect argument type to variable 'completion_type'"),
    ],
)
def test_completion_type_bad_values(srv, value, code, message):
    """completion_type_basic.result FN_DYNVARS_017_05 (ERROR 42000)."""
    with srv.session() as s:
        for scope in ("global", "session"):
            with pytest.raises(MySQLError) as exc:
                s.execute(f"SET @@{scope}.completion_type = {value}")
            assert (exc.value.code, exc.value.sqlstate, exc.value.message) == (code, "42000", message)


def test_prepared_commit_and_chain(srv):
    """COM_STMT_PREPARE / SQL PREPARE of COMMIT AND CHAIN runs the same completion as the text statement."""
    with srv.session() as s:
        stmt = s.prepare("COMMIT AND CHAIN")
        s.execute("BEGIN; INSERT INTO db.t VALUES (1,1)")
        assert s.execute_prepared(stmt, [])[0].status_flags & IN_TRANS
        s.execute("INSERT INTO db.t VALUES (2,1)")
        s.execute("PREPARE r FROM 'ROLLBACK AND CHAIN'")
        assert s.execute("EXECUTE r")[0].status_flags & IN_TRANS
        s.execute("INSERT INTO db.t VALUES (3,1)")
        s.execute("ROLLBACK")
        assert _rows(s) == [1]


def test_applier_ignores_completion_type(srv):
    """The replica applier commits through trans_commit (Xid_log_event::do_commit), never SQLCOM_COMMIT's chain or
    release: with the global completion_type=RELEASE an applier's COMMIT leaves it running."""
    with srv.session() as s:
        s.execute("SET GLOBAL completion_type = RELEASE")
    applier = srv.applier_session()
    try:
        applier.execute("BEGIN")
        applier.execute("INSERT INTO db.t VALUES (1,1)")
        res = applier.execute("COMMIT")[0]
        assert not res.status_flags & IN_TRANS
        assert applier.execute("SELECT a FROM db.t")[0].rows == [(1,)]
    finally:
        applier.close()


def test_chained_characteristics_keep_the_isolation_level(srv):
    """CHARACTERISTICS after a chain: READ ONLY kept and WITH CONSISTENT SNAPSHOT dropped as in
    session_tracker_trx_state.result ("COMMIT AND CHAIN" -> "START TRANSACTION READ ONLY;"), and the one-shot
    isolation level kept as r/commit.result (Bug#53343) requires of a chained transaction."""
    chistics = SessionStateType.SESSION_TRACK_TRANSACTION_CHARACTERISTICS
    with srv.session() as s:
        s.execute("SET SESSION session_track_transaction_info='CHARACTERISTICS'")
        s.execute("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE")
        res = s.execute("START TRANSACTION READ ONLY, WITH CONSISTENT SNAPSHOT")[0]
        assert (
            chistics,
            "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE; START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY;",
        ) in {(c.type, c.value) for c in res.state_changes}
        res = s.execute("COMMIT AND CHAIN")[0]
        assert (chistics, "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE; START TRANSACTION READ ONLY;") in {
            (c.type, c.value) for c in res.state_changes
        }
        res = s.execute("COMMIT")[0]
        assert (chistics, "") in {(c.type, c.value) for c in res.state_changes}


def test_one_shot_read_only_applies_to_the_next_transaction_only(srv):
    """RM8 SET TRANSACTION: "Without any SESSION or GLOBAL keyword: The statement applies only to the next single
    transaction performed within the session"; a chain of it stays READ ONLY (1792), the one after does not."""
    with srv.session() as s:
        s.execute("SET TRANSACTION READ ONLY")
        s.execute("BEGIN")
        assert _err(s, "INSERT INTO db.t VALUES (1,1)") == 1792
        s.execute("COMMIT AND CHAIN")
        assert _err(s, "INSERT INTO db.t VALUES (1,1)") == 1792
        s.execute("COMMIT")
        s.execute("BEGIN")
        s.execute("INSERT INTO db.t VALUES (1,1)")
        s.execute("COMMIT")
        assert _rows(s) == [1]


def test_trans_read_only_implicit_commit(srv):
    """mysql-test r/trans_read_only.result (WL#5968) Test 10: a DDL statement's implicit commit ends the "next"
    transaction a one-shot SET TRANSACTION READ ONLY was for, and the one START TRANSACTION READ ONLY opened, so
    the DDL runs (and what follows is READ WRITE); Test 9: SET SESSION TRANSACTION sets @@transaction_read_only."""
    with srv.session() as s:
        s.execute("SET SESSION TRANSACTION READ WRITE")
        assert s.execute("SELECT @@transaction_read_only")[0].rows == [(0,)]
        s.execute("SET TRANSACTION READ ONLY")
        s.execute("CREATE TABLE db.t1 (a INT)")
        s.execute("INSERT INTO db.t1 VALUES (1)")  # the one-shot READ ONLY is gone
        s.execute("START TRANSACTION READ ONLY")
        s.execute("DROP TABLE db.t1")
        s.execute("SET SESSION TRANSACTION READ ONLY")
        assert s.execute("SELECT @@transaction_read_only")[0].rows == [(1,)]
        assert _err(s, "INSERT INTO db.t VALUES (1,1)") == 1792  # autocommitted, READ ONLY session default


def test_release_leaves_the_process_list(srv):
    """RELEASE ends the session after its statement (mysqld closes the connection after the OK): it is no longer
    among the server's sessions, and a prepared COMMIT RELEASE does the same."""
    for run in ("text", "prepared"):
        s = srv.session()
        s.execute("BEGIN")
        if run == "text":
            s.execute("COMMIT RELEASE")
        else:
            s.execute_prepared(s.prepare("COMMIT RELEASE"), [])
        assert s.id not in [x.id for x in srv.sessions()], run
        assert _err(s, "SELECT 1") in (2006, 2013)
