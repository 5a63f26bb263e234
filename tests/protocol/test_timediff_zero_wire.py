"""TIMEDIFF / TIMESTAMPDIFF with a zero datetime through PyMySQL (issue 19: MySQL Shell's ``time_since_last_message``
is ``TIMEDIFF(NOW(6), <performance_schema TIMESTAMP>)`` over LAST_HEARTBEAT_TIMESTAMP, which is
``0000-00-00 00:00:00.000000`` before the first heartbeat, RM8 29.12.11.11 "The replication_connection_status Table").

Expected values:
- RM8 14.7 "Date and Time Functions", TIMEDIFF: "The result returned by TIMEDIFF() is limited to the range allowed
  for TIME values" (-838:59:59 to 838:59:59, RM8 13.2.3 "The TIME Type"); the manual's examples
  ``TIMEDIFF('2008-12-31 23:59:59.000001', '2008-12-30 01:01:01.000002')`` = ``'46:58:57.999999'`` and
  ``TIMEDIFF('2000-01-01 00:00:00', '2000-01-01 00:00:00.000001')`` = ``'-00:00:00.000001'``.
- A zero TIMESTAMP column is read with TIME_FUZZY_DATE (``Field_temporal_with_date::get_time``) and counted from
  day zero (``calc_daynr(0, 0, 0)`` = 0), so the difference to now is beyond TIME's range: ``838:59:59``.
- TIMESTAMPDIFF reads its arguments with TIME_NO_ZERO_DATE (``Item_func_timestamp_diff::val_int``): NULL.
"""

from __future__ import annotations

from collections.abc import Iterator

import pymysql
import pytest

from .server_proc import ServerProcess, running_server

CASES = [
    pytest.param("TIMEDIFF(NOW(6), ts)", "838:59:59", id="now-minus-zero-column"),
    pytest.param("TIMEDIFF(ts, NOW(6))", "-838:59:59", id="zero-column-minus-now"),
    pytest.param("TIMEDIFF(ts, ts)", "00:00:00", id="zero-minus-zero"),
    pytest.param("TIMEDIFF(NOW(6), IF(TIMEDIFF(ts, ts) >= 0, ts, ts))", "838:59:59", id="mysql-shell-shape"),
    pytest.param("TIMEDIFF('2020-01-01 00:00:00', '1990-01-01 00:00:00')", "838:59:59", id="clamped-high"),
    pytest.param("TIMEDIFF('1990-01-01 00:00:00', '2020-01-01 00:00:00')", "-838:59:59", id="clamped-low"),
    pytest.param(
        "TIMEDIFF('2008-12-31 23:59:59.000001', '2008-12-30 01:01:01.000002')",
        "46:58:57.999999",
        id="manual-1",
    ),
    pytest.param(
        "TIMEDIFF('2000-01-01 00:00:00', '2000-01-01 00:00:00.000001')", "-00:00:00.000001", id="manual-2"
    ),
    pytest.param("TIMESTAMPDIFF(SECOND, ts, NOW())", None, id="timestampdiff-zero-is-null"),
]


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    datadir = tmp_path_factory.mktemp("timediff") / "data"
    with running_server(datadir, "--server-id=24") as s:
        conn = pymysql.connect(host="127.0.0.1", port=s.port, user="root", password="", autocommit=True)
        with conn.cursor() as cur:
            cur.execute("CREATE DATABASE td")
            cur.execute("CREATE TABLE td.z (ts TIMESTAMP(6) NULL)")
            cur.execute("SET SESSION sql_mode = ''")  # a zero TIMESTAMP is storable without NO_ZERO_DATE
            cur.execute("INSERT INTO td.z VALUES ('0000-00-00 00:00:00.000000')")
        conn.close()
        yield s


@pytest.mark.parametrize(("expr", "expected"), CASES)
def test_timediff_zero_datetime(srv: ServerProcess, expr: str, expected: str | None) -> None:
    conn = pymysql.connect(host="127.0.0.1", port=srv.port, user="root", password="", database="td")
    with conn.cursor() as cur:
        cur.execute(f"SELECT CAST({expr} AS CHAR) FROM z")
        assert cur.fetchone()[0] == expected
    conn.close()
