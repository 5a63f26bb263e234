"""STATEMENT- and MIXED-format replication between two real `gtidkit server` processes gives the replica the source's
data, including what the statement text alone cannot reproduce: RAND(), user variables, LAST_INSERT_ID() and
AUTO_INCREMENT ids.

MySQL logs that state before each statement-format Query (``MYSQL_BIN_LOG::write_event``: Intvar, Rand, User_var;
RM8 "Replication and System Functions", "Replication and AUTO_INCREMENT", "Replication and Variables"), and the
replica sets it before running the statement (``Rand_log_event::do_apply_event`` ...). Without those events the
replica's RAND() and @variables would differ and the rows below would not match.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from replication.cluster import cluster

# Every statement reads session state the replica does not have: its own RAND() sequence (RAND() values differ per
# connection), a user variable set by an earlier SET on the source's connection only, LAST_INSERT_ID() of the
# source's connection, AUTO_INCREMENT ids with a gap the replica's counter would not make.
WORKLOAD = (
    "CREATE DATABASE r",
    "CREATE TABLE r.t (id INT PRIMARY KEY AUTO_INCREMENT, f DOUBLE, s VARCHAR(40), n BIGINT, d DECIMAL(10,3))",
    "SET @s = 'from the source', @n = 9007199254740993, @d = 12.345, @f = 0.1e0, @nothing = NULL",
    "INSERT INTO r.t (f, s) VALUES (RAND(), 'rand'), (RAND(), 'rand')",
    "INSERT INTO r.t (f, s, n, d) VALUES (@f, @s, @n, @d)",
    "INSERT INTO r.t (s, n) VALUES ('last id', LAST_INSERT_ID())",
    "INSERT INTO r.t (id, s) VALUES (100, 'gap')",
    "INSERT INTO r.t (s, f) VALUES (CONCAT('rand and var ', @s), RAND() * 1000)",
    "UPDATE r.t SET n = @n + id WHERE s = 'gap'",
    "INSERT INTO r.t (s, n) VALUES (IFNULL(@nothing, 'unset var'), RAND(7) * 1e9)",
    "SET @counter = 10",
    "UPDATE r.t SET n = (@counter := @counter + 1) WHERE id <= 3",
)


@pytest.mark.parametrize("binlog_format", ["STATEMENT", "MIXED"], ids=["statement", "mixed"])
def test_replica_replays_the_source_statement_context(tmp_path: Path, binlog_format: str) -> None:
    fmt = f"--binlog-format={binlog_format}"
    with cluster(tmp_path) as c:
        source = c.node("source", 1, log_bin=True, extra=(fmt,))
        replica = c.node("replica", 2, log_bin=True, extra=(fmt, "--log-replica-updates"))
        replica.replicate_from(source)
        conn = source.connect()
        try:
            cur = conn.cursor()
            for sql in WORKLOAD:
                cur.execute(sql)
        finally:
            conn.close()
        assert replica.wait_for(source.executed(), timeout=120), replica.replica_status()
        rows = source.query("SELECT id, f, s, n, d FROM r.t ORDER BY id")
        assert replica.query("SELECT id, f, s, n, d FROM r.t ORDER BY id") == rows
        # the rows carry what only the context events could give the replica
        by_id = {r[0]: r for r in rows}
        assert sorted(by_id) == [1, 2, 3, 4, 100, 101, 102]
        assert 0 <= by_id[1][1] < 1 and by_id[1][1] != by_id[2][1]
        assert by_id[3][1:3] == (0.1, "from the source") and str(by_id[3][4]) == "12.345"
        assert by_id[4][3] == 3  # LAST_INSERT_ID(): the id the previous INSERT generated
        assert by_id[100][3] == 9007199254740993 + 100
        assert by_id[101][2] == "rand and var from the source"
        assert by_id[102][2] == "unset var"
        assert sorted(by_id[i][3] for i in (1, 2, 3)) == [11, 12, 13]
        types = {r[2] for r in source.query("SHOW BINLOG EVENTS")}
        if binlog_format == "STATEMENT":
            assert {"Intvar", "RAND", "User var"} <= types and "Write_rows" not in types
        else:  # RAND() is unsafe: those INSERTs are rows; the user-variable ones stay statements
            assert {"Intvar", "User var", "Write_rows"} <= types and "RAND" not in types
