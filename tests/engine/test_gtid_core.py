"""Issue 7 section 1, GTID core: GTID_NEXT ownership, implicit commit under an explicit GTID, guards on gtid_mode /
enforce_gtid_consistency / gtid_purged / gtid_next, GNO exhaustion.

Expected values come from MySQL 8.4:
- mysql-test ``suite/sys_vars/r/gtid_next_basic.result`` (mysql/mysql-server 35d4a04a297f) and
  ``suite/sys_vars/r/gtid_purged_basic.result`` (1dfc8f0641ed), quoted where used;
- message texts from ``share/messages_to_clients.txt`` (8.4): 1598, 1766, 1775, 1778, 1779, 1788, 1790, 3111, 3138;
- rules from ``sql/rpl_gtid_execution.cc`` (``set_gtid_next``, ``gtid_pre_statement_checks``), ``sql/binlog.cc``
  (``gtid_end_transaction``, ``handle_binlog_flush_or_sync_error``, ``exec_binlog_error_action_abort``),
  ``sql/handler.cc`` (``ha_rollback_trans``), ``sql/sys_vars.cc`` (``check_outside_trx``, ``Sys_var_gtid_*``),
  ``sql/set_var.cc`` (1229 / 1230), and the manual, RM84 19.1.7.3 "Skipping Transactions" (inject an empty
  transaction with ``SET GTID_NEXT=...; BEGIN; COMMIT; SET GTID_NEXT='AUTOMATIC'``).
"""

from __future__ import annotations

import time

import pytest

from gtidkit.errors import MySQLError

SRC = "3e11fa47-71ca-11e1-9e33-c80aa9429562"


def _err(s, sql):
    with pytest.raises(MySQLError) as exc:
        s.execute(sql)
    return exc.value


def _one(s, sql):
    return s.execute(sql)[-1].rows[0][0]


def _events(s):
    return [(r[2], r[5]) for r in s.execute("SHOW BINLOG EVENTS")[-1].rows[2:]]


def _table(s):
    return s.execute(
        "SELECT source_uuid, interval_start, interval_end FROM mysql.gtid_executed ORDER BY 1, 2"
    )[-1].rows


# ------------------------------------------------------------------------------------------ empty transactions
@pytest.mark.parametrize("body", ["COMMIT", "BEGIN; COMMIT"], ids=["commit-only", "begin-commit"])
def test_empty_transaction_binlog_on(open_server, body):
    # binlog.cc gtid_end_transaction: an owned GTID at COMMIT is logged as Gtid + Query(BEGIN) + Query(COMMIT)
    srv = open_server(gtid_mode="ON", log_bin=True)
    s = srv.session()
    s.execute(f"SET GTID_NEXT='{SRC}:5'")
    s.execute(body)
    assert _one(s, "SELECT @@GLOBAL.gtid_executed") == f"{SRC}:5"
    assert _one(s, "SELECT @@SESSION.gtid_owned") == ""
    assert _one(s, "SELECT @@SESSION.gtid_next") == f"{SRC}:5"  # UNDEFINED shows the GTID text
    assert _events(s) == [
        ("Gtid", f"SET @@SESSION.GTID_NEXT= '{SRC}:5'"),
        ("Query", "BEGIN"),
        ("Query", "COMMIT"),
    ]
    assert _err(s, "CREATE DATABASE d").code == 1837
    s.execute("SET GTID_NEXT='AUTOMATIC'")
    s.execute("CREATE DATABASE d")


@pytest.mark.parametrize("body", ["COMMIT", "BEGIN; COMMIT"], ids=["commit-only", "begin-commit"])
def test_empty_transaction_binlog_off(open_server, body):
    # binlog off: the GTID goes to mysql.gtid_executed (gtid_end_transaction -> gtid_state->save) and
    # gtid_purged == gtid_executed
    srv = open_server(gtid_mode="ON", log_bin=False, gtid_executed_compression_period=0)
    s = srv.session()
    s.execute(f"SET GTID_NEXT='{SRC}:9'")
    s.execute(body)
    assert _table(s) == [(SRC, 9, 9)]
    assert s.execute("SELECT @@GLOBAL.gtid_executed, @@GLOBAL.gtid_purged")[-1].rows == [
        (f"{SRC}:9", f"{SRC}:9")
    ]


def test_autocommit_off_commit_consumes_gtid(open_server):
    srv = open_server(gtid_mode="ON", log_bin=True)
    s = srv.session()
    s.execute("CREATE DATABASE db")
    s.execute("CREATE TABLE db.t (a INT PRIMARY KEY)")
    s.execute("SET autocommit=0")
    s.execute(f"SET GTID_NEXT='{SRC}:1'")
    s.execute("INSERT INTO db.t VALUES (1)")
    assert _one(s, "SELECT @@SESSION.gtid_owned") == f"{SRC}:1"
    s.execute("COMMIT")
    s.execute(f"SET GTID_NEXT='{SRC}:2'")
    s.execute("COMMIT")  # nothing in between: an empty transaction, also with autocommit=0
    executed = _one(s, "SELECT @@GLOBAL.gtid_executed")
    assert f"{SRC}:1-2" in executed
    assert _one(s, "SELECT @@SESSION.gtid_owned") == ""


# ------------------------------------------------------------------------------------------ releasing ownership
def test_rollback_releases_gtid(open_server):
    # ha_rollback_trans -> Gtid_state::update_on_rollback: ownership released, gtid_next UNDEFINED
    srv = open_server(gtid_mode="ON", log_bin=True)
    s = srv.session()
    s.execute(f"SET GTID_NEXT='{SRC}:3'")
    s.execute("ROLLBACK")
    assert _one(s, "SELECT @@GLOBAL.gtid_owned") == ""
    assert _one(s, "SELECT @@GLOBAL.gtid_executed") == ""
    assert _err(s, "CREATE DATABASE d").code == 1837
    s.execute(f"SET GTID_NEXT='{SRC}:3'")  # not stuck with 1790
    s.execute("CREATE DATABASE d")
    assert _one(s, "SELECT @@GLOBAL.gtid_executed") == f"{SRC}:3"


def test_failing_autocommit_statement_releases_gtid(open_server):
    # "When a statement errors out on auto-commit mode it is rollback implicitly, so the same should happen to
    # its GTID" (binlog.cc MYSQL_BIN_LOG::rollback; handler.cc ha_rollback_trans is_real_trans)
    srv = open_server(gtid_mode="ON", log_bin=True)
    s = srv.session()
    s.execute("CREATE DATABASE db")
    s.execute(f"SET GTID_NEXT='{SRC}:1'")
    assert _err(s, "INSERT INTO db.missing VALUES (1)").code == 1146
    assert _one(s, "SELECT @@SESSION.gtid_owned") == ""
    assert _one(s, "SELECT @@GLOBAL.gtid_owned") == ""
    assert SRC not in _one(s, "SELECT @@GLOBAL.gtid_executed")
    assert _err(s, "CREATE DATABASE d2").code == 1837
    s.execute(f"SET GTID_NEXT='{SRC}:1'")
    s.execute("CREATE DATABASE d2")
    assert f"{SRC}:1" in _one(s, "SELECT @@GLOBAL.gtid_executed")


def test_failing_ddl_releases_gtid(open_server):
    srv = open_server(gtid_mode="ON", log_bin=False)
    s = srv.session()
    s.execute("CREATE DATABASE db")
    s.execute(f"SET GTID_NEXT='{SRC}:1'")
    assert _err(s, "CREATE DATABASE db").code == 1007
    assert _one(s, "SELECT @@SESSION.gtid_owned") == ""
    assert _one(s, "SELECT @@GLOBAL.gtid_executed") == ""


def test_failing_statement_inside_begin_keeps_gtid(open_server):
    # inside a multi-statement transaction only the statement is rolled back (is_real_trans is false)
    srv = open_server(gtid_mode="ON", log_bin=True)
    s = srv.session()
    s.execute("CREATE DATABASE db")
    s.execute("CREATE TABLE db.t (a INT PRIMARY KEY)")
    s.execute(f"SET GTID_NEXT='{SRC}:1'")
    s.execute("BEGIN")
    s.execute("INSERT INTO db.t VALUES (1)")
    assert _err(s, "INSERT INTO db.missing VALUES (1)").code == 1146
    assert _one(s, "SELECT @@SESSION.gtid_owned") == f"{SRC}:1"
    s.execute("COMMIT")
    assert f"{SRC}:1" in _one(s, "SELECT @@GLOBAL.gtid_executed")


def test_anonymous_ownership(open_server):
    # gtid_next_basic.result:
    #   SET @@SESSION.GTID_NEXT = 'ANONYMOUS';
    #   SET @@SESSION.GTID_NEXT = default;
    #   ERROR HY000: @@SESSION.GTID_NEXT cannot be changed by a client that owns a GTID. The client owns ANONYMOUS.
    #   Ownership is released on COMMIT or ROLLBACK.
    #   SELECT @@SESSION.GTID_NEXT;  -> ANONYMOUS
    srv = open_server(gtid_mode="ON_PERMISSIVE", enforce_gtid_consistency="ON", log_bin=True)
    s = srv.session()
    s.execute("SET @@SESSION.GTID_NEXT = 'ANONYMOUS'")
    assert _one(s, "SELECT @@SESSION.gtid_owned") == "ANONYMOUS"
    assert _one(s, "SELECT @@GLOBAL.gtid_owned") == ""  # only GTIDs are listed globally
    err = _err(s, "SET @@SESSION.GTID_NEXT = default")
    assert err.code == 1790
    assert err.message == (
        "@@SESSION.GTID_NEXT cannot be changed by a client that owns a GTID. The client owns ANONYMOUS. "
        "Ownership is released on COMMIT or ROLLBACK."
    )
    assert _one(s, "SELECT @@SESSION.GTID_NEXT") == "ANONYMOUS"
    s.execute("ROLLBACK")
    assert _one(s, "SELECT @@SESSION.gtid_owned") == ""
    s.execute("SET GTID_NEXT='ANONYMOUS'")
    s.execute("CREATE DATABASE anon")  # committed as an anonymous transaction; ownership released at commit
    assert _one(s, "SELECT @@SESSION.gtid_owned") == ""
    assert ("Anonymous_Gtid", "SET @@SESSION.GTID_NEXT= 'ANONYMOUS'") in _events(s)
    s.execute("SET GTID_NEXT='AUTOMATIC'")
    assert _one(s, "SELECT @@SESSION.gtid_next") == "AUTOMATIC"


# ------------------------------------------------------------------------------------------ implicit commit
IMPLICIT_COMMIT_MESSAGE = "Cannot execute statements with implicit commit inside a transaction when @@SESSION.GTID_NEXT == 'UUID:NUMBER'."


@pytest.mark.parametrize(
    "stmt", ["BEGIN", "CREATE TABLE db.t2 (a INT)", "CREATE DATABASE other", "FLUSH LOGS"]
)
def test_implicit_commit_under_explicit_gtid(open_server, stmt):
    # gtid_pre_statement_checks: ER_CANT_DO_IMPLICIT_COMMIT_IN_TRX_WHEN_GTID_NEXT_IS_SET, and nothing commits
    srv = open_server(gtid_mode="ON", log_bin=True)
    s = srv.session()
    s.execute("CREATE DATABASE db")
    s.execute("CREATE TABLE db.t (a INT PRIMARY KEY)")
    before = _one(s, "SELECT @@GLOBAL.gtid_executed")
    n_events = len(_events(s))
    s.execute(f"SET GTID_NEXT='{SRC}:1'")
    s.execute("BEGIN")
    s.execute("INSERT INTO db.t VALUES (1)")
    err = _err(s, stmt)
    assert (err.code, err.message) == (1778, IMPLICIT_COMMIT_MESSAGE)
    assert _one(s, "SELECT @@GLOBAL.gtid_executed") == before
    assert len(_events(s)) == n_events
    assert _one(s, "SELECT @@SESSION.gtid_owned") == f"{SRC}:1"  # the transaction is still open
    s.execute("ROLLBACK")
    assert _one(s, "SELECT COUNT(*) FROM db.t") == 0
    assert _one(s, "SELECT @@GLOBAL.gtid_executed") == before


def test_implicit_commit_with_autocommit_off(open_server):
    srv = open_server(gtid_mode="ON", log_bin=False)
    s = srv.session()
    s.execute("CREATE DATABASE db")
    s.execute("CREATE TABLE db.t (a INT PRIMARY KEY)")
    s.execute("SET autocommit=0")
    s.execute(f"SET GTID_NEXT='{SRC}:1'")
    s.execute("INSERT INTO db.t VALUES (1)")
    assert _err(s, "CREATE TABLE db.u (a INT)").code == 1778
    s.execute("COMMIT")
    assert _one(s, "SELECT @@GLOBAL.gtid_executed") == f"{SRC}:1"


def test_implicit_commit_automatic_still_commits(open_server):
    srv = open_server(gtid_mode="ON", log_bin=True)
    s = srv.session()
    s.execute("CREATE DATABASE db")
    s.execute("CREATE TABLE db.t (a INT PRIMARY KEY)")
    s.execute("BEGIN")
    s.execute("INSERT INTO db.t VALUES (1)")
    s.execute("CREATE TABLE db.u (a INT)")  # AUTOMATIC: the open transaction commits first, then the DDL
    assert _one(s, "SELECT @@GLOBAL.gtid_executed") == f"{srv.server_uuid}:1-4"


# ------------------------------------------------------------------------------------------ guards
NOT_IN_TRX = "The system variable {} cannot be set when there is an ongoing transaction."


@pytest.mark.parametrize(
    "sql, name",
    [
        ("SET GLOBAL gtid_mode = ON_PERMISSIVE", "gtid_mode"),
        ("SET GLOBAL enforce_gtid_consistency = ON", "enforce_gtid_consistency"),
        ("SET session_track_gtids = OWN_GTID", "session_track_gtids"),
        (f"SET GTID_NEXT = '{SRC}:1'", "gtid_next"),
    ],
)
def test_variables_not_settable_in_transaction(open_server, sql, name):
    # check_outside_trx / check_gtid_next: 1766 at once (no self-deadlock on the write lock, no 1205)
    srv = open_server(gtid_mode="ON", log_bin=True)
    s = srv.session()
    s.execute("CREATE DATABASE db")
    s.execute("CREATE TABLE db.t (a INT PRIMARY KEY)")
    s.execute("BEGIN")
    s.execute("INSERT INTO db.t VALUES (1)")  # holds the engine's write lock
    s.execute("SET SESSION innodb_lock_wait_timeout = 1")
    t0 = time.monotonic()
    err = _err(s, sql)
    assert (err.code, err.message) == (1766, NOT_IN_TRX.format(name))
    assert time.monotonic() - t0 < 0.9
    s.execute("COMMIT")


@pytest.mark.parametrize(
    "sql, name",
    [
        ("SET GLOBAL gtid_mode = OFF_PERMISSIVE", "gtid_mode"),
        ("SET GLOBAL enforce_gtid_consistency = ON", "enforce_gtid_consistency"),
        ("SET session_track_gtids = OWN_GTID", "session_track_gtids"),
    ],
)
@pytest.mark.parametrize("owned", [f"{SRC}:4", "ANONYMOUS"])
def test_variables_not_settable_while_owning(open_server, sql, name, owned):
    # check_outside_trx: ER_CANT_SET_VARIABLE_WHEN_OWNING_GTID, the owned text is the GTID or ANONYMOUS
    srv = open_server(gtid_mode="ON_PERMISSIVE", enforce_gtid_consistency="ON", log_bin=True)
    s = srv.session()
    s.execute(f"SET GTID_NEXT='{owned}'")
    err = _err(s, sql)
    assert err.code == 3138
    assert err.message == (
        f"Variable {name} cannot be changed by a client that owns a GTID. The client owns {owned}. "
        "Ownership is released on COMMIT or ROLLBACK."
    )
    s.execute("ROLLBACK")
    s.execute(sql)


def test_gtid_mode_rules(open_server):
    srv = open_server(gtid_mode="ON", log_bin=True)
    s = srv.session()
    err = _err(s, "SET gtid_mode = OFF")  # no GLOBAL: session scope (set_var.cc), ER_GLOBAL_VARIABLE
    assert (err.code, err.message) == (
        1229,
        "Variable 'gtid_mode' is a GLOBAL variable and should be set with SET GLOBAL",
    )
    err = _err(s, "SET GLOBAL enforce_gtid_consistency = WARN")
    assert (err.code, err.message) == (1779, "GTID_MODE = ON requires ENFORCE_GTID_CONSISTENCY = ON.")
    err = _err(s, "SET GLOBAL gtid_mode = OFF")
    assert err.code == 1788 and err.message.startswith(
        "The value of @@GLOBAL.GTID_MODE can only be changed one step at a time: OFF <-> OFF_PERMISSIVE <-> "
        "ON_PERMISSIVE <-> ON."
    )
    s.execute("SET GLOBAL gtid_mode = ON_PERMISSIVE")
    s.execute("SET GLOBAL enforce_gtid_consistency = OFF")
    err = _err(s, "SET GLOBAL gtid_mode = ON")
    assert (err.code, err.message) == (
        3111,
        "SET @@GLOBAL.GTID_MODE = ON is not allowed because ENFORCE_GTID_CONSISTENCY is not ON.",
    )


def test_gtid_next_value_errors(open_server):
    # gtid_next_basic.result: "set global gtid_next = 1; ERROR HY000: Variable 'gtid_next' is a SESSION variable
    # and can't be used with SET GLOBAL"; "set session gtid_next=NULL; ERROR 42000: Variable 'gtid_next' can't be
    # set to the value of 'NULL'"; Sys_var_gtid_next::check_update_type: a number is ER_WRONG_TYPE_FOR_VAR
    srv = open_server(gtid_mode="ON", log_bin=False)
    s = srv.session()
    err = _err(s, "SET GTID_NEXT = 10")
    assert (err.code, err.sqlstate, err.message) == (
        1232,
        "42000",
        "Incorrect argument type to variable 'gtid_next'",
    )
    err = _err(s, "set global gtid_next = 1")
    assert (err.code, err.message) == (
        1228,
        "Variable 'gtid_next' is a SESSION variable and can't be used with SET GLOBAL",
    )
    err = _err(s, "set session gtid_next=NULL")
    assert (err.code, err.sqlstate, err.message) == (
        1231,
        "42000",
        "Variable 'gtid_next' can't be set to the value of 'NULL'",
    )
    assert _one(s, "select @@session.gtid_next") == "AUTOMATIC"
    s.execute("set session gtid_next=default")
    assert _one(s, "select @@session.gtid_next") == "AUTOMATIC"


def test_gtid_purged_basic_result(open_server):
    # suite/sys_vars/r/gtid_purged_basic.result, the statements after RESET MASTER with the binlog on
    u = "11111111-1111-1111-1111-111111111111"
    srv = open_server(gtid_mode="ON", log_bin=True)
    s = srv.session()
    err = _err(s, "set @@global.gtid_purged = NULL")
    assert (err.code, err.sqlstate, err.message) == (
        1231,
        "42000",
        "Variable 'gtid_purged' can't be set to the value of 'NULL'",
    )
    err = _err(s, "set @@global.gtid_purged = default")
    assert (err.code, err.sqlstate, err.message) == (
        1230,
        "42000",
        "Variable 'gtid_purged' doesn't have a default value",
    )
    s.execute("SET AUTOCOMMIT= OFF")
    s.execute(f"SET @@global.gtid_purged= '{u}:4-5'")
    s.execute("SET AUTOCOMMIT= ON")
    s.execute(f"SET @@global.gtid_purged= '+{u}:6-6'")
    assert _one(s, "SELECT @@global.gtid_purged") == f"{u}:4-6"
    s.execute(f"SET @@global.gtid_purged= '+         {u}:7'")
    s.execute(f"SET @@global.gtid_purged= '         +{u}:8'")
    for bad in (f"         -+{u}:9", f"         +-{u}:9"):
        err = _err(s, f"SET @@global.gtid_purged= '{bad}'")
        assert (err.code, err.sqlstate, err.message) == (
            1231,
            "42000",
            f"Variable 'gtid_purged' can't be set to the value of '{bad}'",
        )
    s.execute(f"SET @@global.gtid_purged= '         +,{u}:9'")
    assert _one(s, "SELECT @@global.gtid_purged") == f"{u}:4-9"
    err = _err(s, "SET @@global.gtid_purged = 10")
    assert err.code == 1232
    assert _one(s, "select @@session.gtid_next") == "AUTOMATIC"


def test_gtid_purged_inside_transaction(open_server):
    # 8.0+: gtid_purged may be set inside a transaction; the added set must not overlap gtid_owned (3546)
    srv = open_server(gtid_mode="ON", log_bin=True, gtid_executed_compression_period=0)
    s = srv.session()
    s.execute("CREATE DATABASE db")
    s.execute("CREATE TABLE db.t (a INT PRIMARY KEY)")
    s.execute(f"SET GTID_NEXT='{SRC}:50'")
    s.execute("BEGIN")
    s.execute("INSERT INTO db.t VALUES (1)")
    err = _err(s, f"SET GLOBAL gtid_purged = '+{SRC}:50'")
    assert (err.code, err.message) == (
        3546,
        "@@GLOBAL.GTID_PURGED cannot be changed: the added gtid set must not overlap with @@GLOBAL.GTID_OWNED",
    )
    s.execute(f"SET GLOBAL gtid_purged = '+{SRC}:1-10'")
    s.execute("ROLLBACK")  # the purged set survives the rollback, in memory and in the table
    assert _one(s, "SELECT @@GLOBAL.gtid_purged") == f"{SRC}:1-10"
    assert (SRC, 1, 10) in _table(s)


# ------------------------------------------------------------------------------------------ GNO exhaustion
MAX_GNO = 2**63 - 1  # rpl_gtid.h: GNO_END; the largest GNO is MAX_GNO - 1


def test_gno_exhausted_binlog_error_action_abort(open_server):
    # get_automatic_gno -> ER_GNO_EXHAUSTED; ordered_commit -> handle_binlog_flush_or_sync_error(ER_GNO_EXHAUSTED text)
    # -> binlog_error_action=ABORT_SERVER: exec_binlog_error_action_abort("%s Server is being stopped."), sent as
    # ER_BINLOG_LOGGING_IMPOSSIBLE; the server stops (we refuse writes from then on)
    srv = open_server(gtid_mode="ON", log_bin=True)
    s = srv.session()
    u = srv.server_uuid
    s.execute(f"SET GLOBAL gtid_purged = '{u}:1-{MAX_GNO - 1}'")
    err = _err(s, "CREATE DATABASE d")
    assert (err.code, err.message) == (
        1598,
        (
            "Binary logging not possible. Message: Impossible to generate GTID: the integer component reached the "
            "maximum value. Restart the server with a new server_uuid. Server is being stopped."
        ),
    )
    assert _one(s, "SELECT @@GLOBAL.gtid_owned") == ""
    assert _err(s, "CREATE DATABASE e").code == 1598


def test_gno_exhausted_leaves_other_uuids(open_server):
    srv = open_server(gtid_mode="ON", log_bin=True)
    s = srv.session()
    u = srv.server_uuid
    s.execute(f"SET GLOBAL gtid_purged = '{u}:1-{MAX_GNO - 2}'")
    s.execute("CREATE DATABASE last_one")
    assert _one(s, "SELECT @@GLOBAL.gtid_executed") == f"{u}:1-{MAX_GNO - 1}"


# Sys_var_gtid_mode::global_update (8.x sql/sys_vars.cc): ER_CANT_SET_GTID_MODE reasons for other sessions' work
def test_gtid_mode_on_with_ongoing_anonymous_transaction(open_server):
    srv = open_server(gtid_mode="ON_PERMISSIVE", enforce_gtid_consistency="ON", log_bin=True)
    other, s = srv.session(), srv.session()
    other.execute("SET GTID_NEXT='ANONYMOUS'")
    err = _err(s, "SET GLOBAL gtid_mode = ON")
    assert err.code == 3111
    assert err.message == (
        "SET @@GLOBAL.GTID_MODE = ON is not allowed because there are ongoing, anonymous transactions. Before "
        "setting @@GLOBAL.GTID_MODE = ON, wait until SHOW STATUS LIKE 'ANONYMOUS_TRANSACTION_COUNT' shows zero on "
        "all servers. Then wait for all existing, anonymous transactions to replicate to all replicas, and then "
        "execute SET @@GLOBAL.GTID_MODE = ON on all servers. See the Manual for details."
    )
    other.execute("ROLLBACK")
    s.execute("SET GLOBAL gtid_mode = ON")
    assert _one(s, "SELECT @@GLOBAL.gtid_mode") == "ON"


def test_gtid_mode_off_with_ongoing_gtid_transaction(open_server):
    srv = open_server(gtid_mode="OFF_PERMISSIVE", log_bin=True)
    other, s = srv.session(), srv.session()
    other.execute(f"SET GTID_NEXT='{SRC}:1'")
    err = _err(s, "SET GLOBAL gtid_mode = OFF")
    assert err.code == 3111
    assert err.message.startswith(
        "SET @@GLOBAL.GTID_MODE = OFF is not allowed because there are ongoing transactions that have a GTID. "
        "Before you set @@GLOBAL.GTID_MODE = OFF, wait until SELECT @@GLOBAL.GTID_OWNED is empty on all servers."
    )
    other.execute("COMMIT")  # commits the empty transaction SRC:1
    s.execute("SET GLOBAL gtid_mode = OFF")
    s.execute("SET GLOBAL gtid_mode = OFF")  # unchanged: a no-op, not an error


def test_enforce_gtid_consistency_unchanged_is_noop(open_server):
    # Sys_var_enforce_gtid_consistency::global_update: "if (new_mode == old_mode) goto end;" before the 1779 check
    srv = open_server(gtid_mode="ON", log_bin=False)
    s = srv.session()
    s.execute("SET GLOBAL enforce_gtid_consistency = ON")
    assert _one(s, "SELECT @@GLOBAL.enforce_gtid_consistency") == "ON"


def test_implicitly_committing_admin_statement_consumes_owned_gtid(open_server):
    # sql_parse.cc: at the end of a statement with CF_IMPLICIT_COMMIT_END (FLUSH LOGS) an owned GTID is logged as
    # an empty transaction (gtid_end_transaction); FLUSH LOGS itself is not logged
    srv = open_server(gtid_mode="ON", log_bin=True)
    s = srv.session()
    s.execute(f"SET GTID_NEXT='{SRC}:3'")
    s.execute("FLUSH LOGS")
    assert _one(s, "SELECT @@SESSION.gtid_owned") == ""
    assert _one(s, "SELECT @@GLOBAL.gtid_executed") == f"{SRC}:3"
    ev = [(r[2], r[5]) for r in s.execute("SHOW BINLOG EVENTS IN 'binlog.000002'")[-1].rows[2:]]
    assert ev == [("Gtid", f"SET @@SESSION.GTID_NEXT= '{SRC}:3'"), ("Query", "BEGIN"), ("Query", "COMMIT")]
    assert _err(s, "FLUSH LOGS").code == 1837
