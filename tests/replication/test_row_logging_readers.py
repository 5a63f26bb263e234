"""Row-based logging variables seen by independent readers of a real `gtidkit server` process.

python-mysql-replication (PyPI mysql-replication) is the oracle for how a consumer of MySQL's binlogs sees them:
with binlog_row_image=MINIMAL it reads the columns whose bit is clear in the rows event's columns bitmap as None
(``RowsEvent._read_column_data``), exactly as it does against MySQL. The variables are set the ways a DBA sets
them on mysqld: the command line, my.cnf, SET GLOBAL and SET SESSION (a restricted session variable: 1227 without
SUPER, SYSTEM_VARIABLES_ADMIN or SESSION_VARIABLES_ADMIN, WL#12217).
"""

from __future__ import annotations

from pathlib import Path

import pymysql
import pytest
from protocol.server_proc import ServerProcess, running_server
from pymysqlreplication import BinLogStreamReader
from pymysqlreplication.row_event import DeleteRowsEvent, UpdateRowsEvent, WriteRowsEvent

SOURCE_ARGS = ("--log-bin", "--gtid-mode=ON", "--enforce-gtid-consistency=ON", "--server-id=1")


def execute(srv: ServerProcess, *statements: str, user: str = "root", password: str = "") -> None:
    with (
        pymysql.connect(host="127.0.0.1", port=srv.port, user=user, password=password, autocommit=True) as c,
        c.cursor() as cur,
    ):
        for s in statements:
            cur.execute(s)


def rows(srv: ServerProcess) -> list[tuple[str, dict | None, dict | None]]:
    stream = BinLogStreamReader(
        connection_settings={"host": "127.0.0.1", "port": srv.port, "user": "root", "password": ""},
        server_id=111,
        auto_position="",
        blocking=False,
        only_events=[WriteRowsEvent, UpdateRowsEvent, DeleteRowsEvent],
    )
    out: list[tuple[str, dict | None, dict | None]] = []
    try:
        for ev in stream:
            for r in ev.rows:
                if isinstance(ev, WriteRowsEvent):
                    out.append(("insert", None, r["values"]))
                elif isinstance(ev, UpdateRowsEvent):
                    out.append(("update", r["before_values"], r["after_values"]))
                else:
                    out.append(("delete", r["values"], None))
    finally:
        stream.close()
    return out


WORKLOAD = (
    "CREATE DATABASE d",
    "CREATE TABLE d.t (id INT PRIMARY KEY, a INT, b VARCHAR(10), c TEXT)",
    "INSERT INTO d.t (id, a, c) VALUES (1, 10, 'x')",
    "UPDATE d.t SET a = 11 WHERE id = 1",
    "DELETE FROM d.t WHERE id = 1",
)


def test_minimal_images_read_as_none_by_python_mysql_replication(tmp_path: Path) -> None:
    args = (*SOURCE_ARGS, "--binlog-row-image=MINIMAL", "--binlog-row-metadata=FULL")
    with running_server(tmp_path / "d", *args) as srv:
        execute(srv, *WORKLOAD)
        assert rows(srv) == [
            ("insert", None, {"id": 1, "a": 10, "b": None, "c": "x"}),
            (
                "update",
                {"id": 1, "a": None, "b": None, "c": None},
                {"id": None, "a": 11, "b": None, "c": None},
            ),
            ("delete", {"id": 1, "a": None, "b": None, "c": None}, None),
        ]


def test_noblob_from_my_cnf_leaves_the_text_column_out(tmp_path: Path) -> None:
    cnf = tmp_path / "my.cnf"
    cnf.write_text(
        "[mysqld]\nlog-bin\nserver-id = 1\ngtid-mode = ON\nenforce-gtid-consistency = ON\n"
        "binlog_row_image = NOBLOB\nbinlog-row-metadata = FULL\n"
    )
    # no test base arguments: --skip-log-bin on the command line would override the file's log-bin
    with running_server(tmp_path / "d", f"--defaults-file={cnf}", base=()) as srv:
        execute(srv, *WORKLOAD)
        got = rows(srv)
    assert got[1] == (
        "update",
        {"id": 1, "a": 10, "b": None, "c": None},
        {"id": 1, "a": 11, "b": None, "c": None},
    )


def test_session_value_needs_session_variables_admin(tmp_path: Path) -> None:
    with running_server(tmp_path / "d", *SOURCE_ARGS) as srv:
        execute(
            srv,
            "CREATE USER app IDENTIFIED BY 'pw'",
            "GRANT ALL ON d.* TO app",
            "CREATE USER admin IDENTIFIED BY 'pw'",
            "GRANT SESSION_VARIABLES_ADMIN ON *.* TO admin",
        )
        for sql in (
            "SET SESSION binlog_row_image = MINIMAL",
            "SET binlog_rows_query_log_events = ON",
            "SET @@session.binlog_row_value_options = PARTIAL_JSON",
            "SET binlog_transaction_compression = ON",
            "SET sql_mode = '', binlog_transaction_compression_level_zstd = 5",
        ):
            with pytest.raises(pymysql.err.OperationalError) as err:
                execute(srv, sql, user="app", password="pw")
            assert err.value.args == (
                1227,
                (
                    "Access denied; you need (at least one of) the SUPER, SYSTEM_VARIABLES_ADMIN or "
                    "SESSION_VARIABLES_ADMIN privilege(s) for this operation"
                ),
            )
        execute(srv, "SET sql_mode = ''", user="app", password="pw")  # not restricted
        execute(srv, "SET @@binlog_row_image = MINIMAL", user="admin", password="pw")
        execute(srv, "SET GLOBAL binlog_row_image = NOBLOB")
        with (
            pymysql.connect(host="127.0.0.1", port=srv.port, user="app", password="pw") as c,
            c.cursor() as cur,
        ):
            cur.execute("SELECT @@SESSION.binlog_row_image, @@GLOBAL.binlog_row_image")
            assert cur.fetchone() == ("NOBLOB", "NOBLOB")


def test_rows_query_events_reach_python_mysql_replication(tmp_path: Path) -> None:
    from pymysqlreplication.event import RowsQueryLogEvent

    with running_server(tmp_path / "d", *SOURCE_ARGS, "--binlog-rows-query-log-events=ON") as srv:
        execute(srv, *WORKLOAD)
        stream = BinLogStreamReader(
            connection_settings={"host": "127.0.0.1", "port": srv.port, "user": "root", "password": ""},
            server_id=112,
            auto_position="",
            blocking=False,
            only_events=[RowsQueryLogEvent, WriteRowsEvent, UpdateRowsEvent, DeleteRowsEvent],
        )
        try:
            seen = [ev.query if isinstance(ev, RowsQueryLogEvent) else type(ev).__name__ for ev in stream]
        finally:
            stream.close()
    assert seen == [
        WORKLOAD[2],
        "WriteRowsEvent",
        WORKLOAD[3],
        "UpdateRowsEvent",
        WORKLOAD[4],
        "DeleteRowsEvent",
    ]


def test_gtidkit_replica_applies_minimal_compressed_rows_query_binlogs(tmp_path: Path) -> None:
    from replication.cluster import cluster

    extra = (
        "--binlog-row-image=MINIMAL",
        "--binlog-rows-query-log-events=ON",
        "--binlog-transaction-compression=ON",
    )
    with cluster(tmp_path) as c:
        src = c.node("source", 1, log_bin=True, extra=extra)
        rep = c.node("replica", 2, log_bin=True, log_replica_updates=True, extra=extra)
        for sql in (
            "CREATE DATABASE d",
            "CREATE TABLE d.t (id INT PRIMARY KEY, a INT, b VARCHAR(10), c TEXT)",
            "CREATE TABLE d.n (a INT, b TEXT)",
            "INSERT INTO d.t VALUES (1, 10, 'one', 'x'), (2, 20, 'two', 'y'), (3, 30, NULL, NULL)",
            "INSERT INTO d.n VALUES (1, 'p'), (2, 'q')",
            "UPDATE d.t SET a = a + 1, c = 'z' WHERE id < 3",
            "UPDATE d.n SET b = 'r' WHERE a = 2",
            "DELETE FROM d.t WHERE id = 2",
            "INSERT INTO d.t (id, b) VALUES (4, 'four')",
        ):
            src.query(sql)
        rep.replicate_from(src)
        assert rep.wait_for(src.executed())
        assert rep.checksum("d") == src.checksum("d")
        status = rep.replica_status()
        assert (status["Last_SQL_Errno"], status["Replica_SQL_Running"]) == (0, "Yes")


def test_partial_json_update_read_by_python_mysql_replication(tmp_path: Path) -> None:
    from pymysqlreplication.json_binary import JsonDiff, JsonDiffOperation
    from pymysqlreplication.row_event import PartialUpdateRowsEvent

    doc = '{"a": 1, "big": "' + "x" * 200 + '"}'
    args = (*SOURCE_ARGS, "--binlog-row-metadata=FULL", "--binlog-row-image=MINIMAL")
    with running_server(tmp_path / "d", *args, "--binlog-row-value-options=PARTIAL_JSON") as srv:
        execute(
            srv,
            "CREATE DATABASE d",
            "CREATE TABLE d.t (id INT PRIMARY KEY, j JSON)",
            f"INSERT INTO d.t VALUES (1, '{doc}')",
            "UPDATE d.t SET j = JSON_REPLACE(j, '$.big', 'y')",
        )
        stream = BinLogStreamReader(
            connection_settings={"host": "127.0.0.1", "port": srv.port, "user": "root", "password": ""},
            server_id=113,
            auto_position="",
            blocking=False,
            only_events=[PartialUpdateRowsEvent],
        )
        try:
            rows = [r for ev in stream for r in ev.rows]
        finally:
            stream.close()
    assert len(rows) == 1
    assert rows[0]["before_values"] == {"id": 1, "j": None}
    diff = rows[0]["after_values"]["j"]
    assert isinstance(diff, JsonDiff)
    assert (diff.op, diff.path, diff.value) == (JsonDiffOperation.Replace, b"$.big", b"y")


def test_replica_stops_on_rows_it_cannot_apply_with_mysqls_errors(tmp_path: Path) -> None:
    # MySQL's multi-threaded applier (replica_parallel_workers=4, 8.0.27+): Last_SQL_Errno is the worker's error
    # (1032 HA_ERR_KEY_NOT_FOUND, 1062 duplicate key) and Last_SQL_Error names the transaction's GTID; the
    # usual repair is an empty transaction with that GTID, then START REPLICA.
    from replication.cluster import cluster, wait_until

    extra = ("--binlog-row-image=MINIMAL", "--binlog-transaction-compression=ON")
    with cluster(tmp_path) as c:
        src = c.node("source", 1, log_bin=True, extra=extra)
        rep = c.node("replica", 2, log_bin=True)
        for sql in (
            "CREATE DATABASE d",
            "CREATE TABLE d.t (id INT PRIMARY KEY, a INT)",
            "INSERT INTO d.t VALUES (1, 1), (2, 2)",
        ):
            src.query(sql)
        rep.replicate_from(src)
        assert rep.wait_for(src.executed())
        conn = rep.connect()
        cur = conn.cursor()
        cur.execute("SET sql_log_bin = 0")
        cur.execute("DELETE FROM d.t WHERE id = 1")
        cur.execute("INSERT INTO d.t VALUES (3, 3)")
        conn.close()
        uuid = src.server_uuid()
        src.query("UPDATE d.t SET a = 10 WHERE id = 1")  # gno 4: the row is gone on the replica
        src.query("INSERT INTO d.t VALUES (3, 30)")  # gno 5: the key is taken on the replica
        for gno, errno in ((4, 1032), (5, 1062)):
            wait_until(
                lambda errno=errno: rep.replica_status().get("Last_SQL_Errno") == errno,
                what=f"the applier to stop with {errno}",
            )
            status = rep.replica_status()
            assert status["Replica_SQL_Running"] == "No"
            assert f"failed executing transaction '{uuid}:{gno}'" in status["Last_SQL_Error"]
            conn = rep.connect()
            cur = conn.cursor()
            for sql in (f"SET GTID_NEXT = '{uuid}:{gno}'", "BEGIN", "COMMIT", "SET GTID_NEXT = 'AUTOMATIC'"):
                cur.execute(sql)
            cur.execute("START REPLICA")
            conn.close()
        assert rep.wait_for(src.executed())
        assert rep.replica_status()["Last_SQL_Errno"] == 0


def test_minimal_metadata_names_come_from_information_schema(tmp_path: Path) -> None:
    # binlog_row_metadata=MINIMAL (mysqld's default) has no column names: python-mysql-replication's
    # use_column_name_cache asks INFORMATION_SCHEMA.COLUMNS on its control connection, as it does against MySQL
    with running_server(tmp_path / "d", *SOURCE_ARGS, "--binlog-row-metadata=MINIMAL") as srv:
        execute(srv, *WORKLOAD[:3])
        stream = BinLogStreamReader(
            connection_settings={"host": "127.0.0.1", "port": srv.port, "user": "root", "password": ""},
            server_id=114,
            auto_position="",
            blocking=False,
            only_events=[WriteRowsEvent],
            use_column_name_cache=True,
        )
        try:
            values = [r["values"] for ev in stream for r in ev.rows]
        finally:
            stream.close()
    assert values == [{"id": 1, "a": 10, "b": None, "c": "x"}]


def test_compressed_transactions_and_independent_readers(tmp_path: Path) -> None:
    """Neither independent reader here decodes Transaction_payload (type 40) from MySQL either: mysql-replication
    1.0.17 has no class for it (``BinLogPacketWrapper`` maps it to NotImplementedEvent) and mariadb-binlog refuses
    it. Both meet ours as they meet MySQL 8.0.32's own (the shared fixture ``transaction_compression.000001``):
    python-mysql-replication skips each payload by its event length and stays in step (the next transaction's
    GTID and rows decode), and mariadb-binlog stops with the same message."""
    import shutil
    import subprocess

    from pymysqlreplication.event import GtidEvent, NotImplementedEvent

    with running_server(tmp_path / "d", *SOURCE_ARGS, "--binlog-transaction-compression=ON") as srv:
        execute(
            srv,
            "CREATE DATABASE d",
            "CREATE TABLE d.t (id INT PRIMARY KEY, e ENUM('a','b'), j JSON)",
            "INSERT INTO d.t VALUES (1, 'a', '[1]')",
            "SET SESSION binlog_transaction_compression = OFF",
            "INSERT INTO d.t VALUES (2, 'b', '{}')",
        )
        stream = BinLogStreamReader(
            connection_settings={"host": "127.0.0.1", "port": srv.port, "user": "root", "password": ""},
            server_id=113,
            auto_position="",
            blocking=False,
            only_events=[GtidEvent, NotImplementedEvent, WriteRowsEvent],
            filter_non_implemented_events=False,
        )
        try:
            seen = [
                (type(ev).__name__, ev.event_type if isinstance(ev, NotImplementedEvent) else None)
                for ev in stream
                if not isinstance(ev, NotImplementedEvent) or ev.event_type == 40
            ]
        finally:
            stream.close()
    assert seen == [("GtidEvent", None)] * 3 + [("NotImplementedEvent", 40), ("GtidEvent", None)] + [
        ("WriteRowsEvent", None)
    ]
    if shutil.which("mariadb-binlog") is None:
        return
    # the server has stopped: the file is closed, as the fixture is (an in-use file ends at a read error)
    ours = subprocess.run(
        ["mariadb-binlog", str(tmp_path / "d" / "binlog.000001")], capture_output=True, text=True, check=False
    )
    fixture = Path(__file__).resolve().parents[3] / "shared/research/fixtures/binlogs"
    theirs_path = fixture / "blackbeam__rust_mysql_common/transaction_compression.000001"
    if theirs_path.exists():
        theirs = subprocess.run(
            ["mariadb-binlog", str(theirs_path)], capture_output=True, text=True, check=False
        )
        refusal = "Found incompatible MySQL 8.0 TRANSACTION_PAYLOAD_EVENT event"
        assert refusal in theirs.stderr and refusal in ours.stderr
        assert ours.returncode == theirs.returncode != 0
