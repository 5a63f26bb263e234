"""A TIMESTAMP round trip in two zones over the wire (PyMySQL against a real ``gtidkit server``).

Expected values: RM8 "The DATE, DATETIME, and TIMESTAMP Types" (TIMESTAMP converted from the session zone to UTC for
storage and back on retrieval; DATETIME not) and "MySQL Server Time Zone Support" (``--default-time-zone`` sets the
global value, and a new session starts with it).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pymysql

from .server_proc import running_server


def test_timestamp_round_trip_in_two_zones(tmp_path: Path) -> None:
    with running_server(tmp_path / "data", "--default-time-zone=+03:00") as srv:
        conn = pymysql.connect(host="127.0.0.1", port=srv.port, user="root", password="", autocommit=True)
        try:
            with conn.cursor() as cur:
                cur.execute("SELECT @@global.time_zone, @@session.time_zone")
                assert cur.fetchone() == ("+03:00", "+03:00")
                cur.execute("CREATE DATABASE d")
                cur.execute("CREATE TABLE d.t (id INT PRIMARY KEY, ts TIMESTAMP NULL, dt DATETIME)")
                cur.execute("SET time_zone = '+00:00'")
                cur.execute(
                    "INSERT INTO d.t VALUES (1, %s, %s)", ("2024-01-01 12:00:00", "2024-01-01 12:00:00")
                )
                cur.execute("SET time_zone = '+05:00'")
                cur.execute("SELECT ts, dt FROM d.t")
                assert cur.fetchone() == (dt.datetime(2024, 1, 1, 17, 0), dt.datetime(2024, 1, 1, 12, 0))
                cur.execute("SET time_zone = 'Europe/Paris'")  # fresh MySQL: no time zone tables loaded
        except pymysql.err.OperationalError as err:
            assert err.args == (1298, "Unknown or incorrect time zone: 'Europe/Paris'")
        else:
            raise AssertionError("a named zone must be refused")
        finally:
            conn.close()
