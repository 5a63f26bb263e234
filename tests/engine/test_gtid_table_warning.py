"""Explicit writes to mysql.gtid_executed warn 3129 (ER_WARN_ON_MODIFYING_GTID_EXECUTED_TABLE) and still run.

Expected values: MySQL ``sql/rpl_gtid_persist.h`` (``warn_or_err_on_explicit_modification``: a statement that opens
mysql.gtid_executed for writing, outside the server's own bookkeeping and outside XA, gets the warning once, naming
the table) with the 8.4 text of ``share/messages_to_clients.txt`` ("Please do not modify the %s table. This is a
mysql internal system table to store GTIDs for committed transactions. Modifying it can lead to an inconsistent
GTID state."); reads do not warn, and @@GLOBAL.gtid_executed does not follow the change.
"""

from __future__ import annotations

from gtidkit.engine.results import Condition

WARNING = (
    "Warning",
    3129,
    (
        "Please do not modify the gtid_executed table. This is a mysql internal system table to store GTIDs for "
        "committed transactions. Modifying it can lead to an inconsistent GTID state."
    ),
)
SRC = "3e11fa47-71ca-11e1-9e33-c80aa9429562"


def test_writes_warn_reads_do_not(open_server):
    srv = open_server(log_bin=False)
    s = srv.session()
    executed = s.execute("SELECT @@GLOBAL.gtid_executed")[-1].rows
    res = s.execute(f"INSERT INTO mysql.gtid_executed VALUES ('{SRC}', 1, 1)")[-1]
    assert res.warnings == (Condition(*WARNING),)
    res = s.execute(f"UPDATE mysql.gtid_executed SET interval_end = 5 WHERE source_uuid = '{SRC}'")[-1]
    assert res.warnings == (Condition(*WARNING),)
    # the variable does not follow the table (that inconsistency is what the warning is about)
    assert s.execute("SELECT @@GLOBAL.gtid_executed")[-1].rows == executed
    res = s.execute(f"SELECT count(*) FROM mysql.gtid_executed WHERE source_uuid = {SRC!r}")[-1]
    assert (res.rows, res.warnings) == ([(1,)], ())
    res = s.execute(f"DELETE FROM mysql.gtid_executed WHERE source_uuid = '{SRC}'")[-1]
    assert res.warnings == (Condition(*WARNING),)
    # a statement that only reads the table while writing another does not warn
    s.execute("CREATE DATABASE d")
    s.execute("CREATE TABLE d.t (n BIGINT)")
    res = s.execute("INSERT INTO d.t SELECT interval_end FROM mysql.gtid_executed")[-1]
    assert res.warnings == ()
    # LOCK TABLES ... WRITE opens it for writing too
    assert s.execute("LOCK TABLES mysql.gtid_executed WRITE")[-1].warnings == (Condition(*WARNING),)
    s.execute("UNLOCK TABLES")
    assert s.execute("LOCK TABLES mysql.gtid_executed READ")[-1].warnings == ()
    s.execute("UNLOCK TABLES")
