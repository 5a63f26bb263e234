"""Typed JSON scalars (DATE / TIME / DATETIME / DECIMAL inside documents) seen by real clients of real servers.

- PyMySQL reads the JSON column (type 245) as MySQL's printed text: dates ``"2015-01-15"``, times
  ``"12:00:00.000000"``, datetimes ``"2015-01-15 23:24:25.000000"``, DECIMAL ``1.50`` (mysql-test
  ``suite/json/r/json_no_table.result`` and ``json_functions_innodb.result``, "Test of CAST(... AS JSON)");
- python-mysql-replication's ``read_binary_json`` reads the row image's opaque values as MySQL's: a DATE / DATETIME
  as ``datetime``, a TIME as ``datetime.time``, a DECIMAL as ``Decimal`` (``parse_opaque`` in its json_binary.py);
- a replica (CHANGE REPLICATION SOURCE TO ... START REPLICA) answers JSON_TYPE as the source does.
"""

from __future__ import annotations

import datetime
from decimal import Decimal
from pathlib import Path

import pymysql
from protocol.server_proc import running_server
from pymysqlreplication import BinLogStreamReader
from pymysqlreplication.row_event import WriteRowsEvent

from replication.cluster import cluster

SOURCE_ARGS = (
    "--log-bin",
    "--gtid-mode=ON",
    "--enforce-gtid-consistency=ON",
    "--server-id=1",
    "--binlog-row-metadata=FULL",  # python-mysql-replication names columns from the Table_map
)
WORKLOAD = (
    "CREATE DATABASE app",
    "CREATE TABLE app.docs (id INT PRIMARY KEY, j JSON)",
    (
        "INSERT INTO app.docs VALUES (1, JSON_OBJECT('d', DATE'2015-01-15', "
        "'t', CAST('12:00:00' AS TIME), 'dt', CAST('2015-01-15 23:24:25' AS DATETIME), "
        "'n', CAST(1.5 AS DECIMAL(5,2)), 's', '2015-01-15'))"
    ),
)
PRINTED = '{"d": "2015-01-15", "n": 1.50, "s": "2015-01-15", "t": "12:00:00.000000", "dt": "2015-01-15 23:24:25.000000"}'
TYPES_SQL = (
    "SELECT JSON_TYPE(j->'$.d'), JSON_TYPE(j->'$.t'), JSON_TYPE(j->'$.dt'), JSON_TYPE(j->'$.n'), "
    "JSON_TYPE(j->'$.s') FROM app.docs"
)
TYPES = ("DATE", "TIME", "DATETIME", "DECIMAL", "STRING")


def _execute(port: int, *statements: str) -> None:
    with pymysql.connect(host="127.0.0.1", port=port, user="root", autocommit=True) as c, c.cursor() as cur:
        for s in statements:
            cur.execute(s)


def _text(v: object) -> object:
    """python-mysql-replication 1.0 hands JSON keys and strings back as UTF-8 bytes: compare them as text."""
    if isinstance(v, bytes):
        return v.decode("utf-8")
    if isinstance(v, dict):
        return {_text(k): _text(x) for k, x in v.items()}
    return v


def test_pymysql_and_python_mysql_replication_see_mysql_values(tmp_path: Path) -> None:
    with running_server(tmp_path / "d", *SOURCE_ARGS) as srv:
        _execute(srv.port, *WORKLOAD)
        with pymysql.connect(host="127.0.0.1", port=srv.port, user="root") as c, c.cursor() as cur:
            cur.execute("SELECT j, j->>'$.t', j->'$.n' FROM app.docs")
            assert cur.description[0][1] == 245
            assert cur.fetchone() == (PRINTED, "12:00:00.000000", "1.50")
            cur.execute(TYPES_SQL)
            assert cur.fetchone() == TYPES
        stream = BinLogStreamReader(
            connection_settings={"host": "127.0.0.1", "port": srv.port, "user": "root", "password": ""},
            server_id=112,
            auto_position="",
            blocking=False,
            only_events=[WriteRowsEvent],
        )
        try:
            docs = [_text(r["values"]["j"]) for ev in stream for r in ev.rows]
        finally:
            stream.close()
    assert docs == [
        {
            "d": datetime.datetime(2015, 1, 15),
            "t": datetime.time(12, 0),
            "dt": datetime.datetime(2015, 1, 15, 23, 24, 25),
            "n": Decimal("1.50"),
            "s": "2015-01-15",
        }
    ]


def test_a_replica_keeps_the_types(tmp_path: Path) -> None:
    with cluster(tmp_path) as c:
        source = c.node("source", 1, log_bin=True)
        replica = c.node("replica", 2, log_bin=True, log_replica_updates=True)
        replica.replicate_from(source)
        _execute(source.port, *WORKLOAD)
        assert replica.wait_for(source.executed())
        assert replica.query("SELECT j FROM app.docs") == ((PRINTED,),)
        assert replica.query(TYPES_SQL) == (TYPES,)
        assert replica.query(TYPES_SQL) == source.query(TYPES_SQL)
