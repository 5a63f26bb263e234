"""Built-in function results over the wire: PyMySQL against a real ``gtidkit server`` must get the values of the
MySQL 8.4 manual's examples with the Python types it gets from MySQL (a LONGLONG column becomes ``int``, a
VAR_STRING ``str``, DATE ``datetime.date``, TIME ``datetime.timedelta``, DOUBLE ``float``), and MySQL's error for
a wrong argument count.

Sources: RM 8.4 "String Functions and Operators" (LENGTH, FIELD, LOCATE, CONCAT_WS), "String Comparison
Functions" (STRCMP), "Date and Time Functions" (LAST_DAY, MAKEDATE, SEC_TO_TIME, DATEDIFF, DATE_FORMAT),
"Mathematical Functions" (LOG, CEILING), "Aggregate Function Descriptions" (BIT_OR, VAR_POP); the 1582 text is
ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pymysql
import pytest

from .server_proc import running_server


def test_builtin_function_types_over_the_wire(tmp_path: Path) -> None:
    with running_server(tmp_path / "data") as srv:
        conn = pymysql.connect(host="127.0.0.1", port=srv.port, user="root", password="", autocommit=True)
        try:
            with conn.cursor() as cur:
                cur.execute(
                    "SELECT LENGTH('é'), CHAR_LENGTH('é'), STRCMP('a','B'), FIELD('Bb', 'Aa', 'Bb', 'Cc'), "
                    "LOCATE('bar', 'foobarbar', 5), CONCAT_WS(',', 'First name', NULL, 'Last Name')"
                )
                row = cur.fetchone()
                assert row == (2, 1, -1, 2, 7, "First name,Last Name")
                assert [type(v) for v in row] == [int, int, int, int, int, str]
                cur.execute(
                    "SELECT LAST_DAY('2004-02-05'), MAKEDATE(2011,32), SEC_TO_TIME(2378), "
                    "DATEDIFF('2010-11-30 23:59:59','2010-12-31'), DATE_FORMAT('2009-10-04 22:23:00', '%W %M %Y'), "
                    "LOG(10,100), CEILING(1.23)"
                )
                assert cur.fetchone() == (
                    dt.date(2004, 2, 29),
                    dt.date(2011, 2, 1),
                    dt.timedelta(minutes=39, seconds=38),
                    -31,
                    "Sunday October 2009",
                    2.0,
                    2,
                )
                cur.execute("CREATE DATABASE d")
                cur.execute("CREATE TABLE d.t (g INT, v INT)")
                cur.execute("INSERT INTO d.t VALUES (1, 1), (1, 2), (1, 3), (1, 4)")
                cur.execute("SELECT BIT_OR(v), VAR_POP(v), LAST_DAY(MAKEDATE(2004, 40)) FROM d.t")
                assert cur.fetchone() == (7, 1.25, dt.date(2004, 2, 29))
                # "BIT_AND() returns 18446744073709551615 if there were no matching rows" (BIGINT UNSIGNED)
                cur.execute("SELECT BIT_AND(v), BIT_OR(v) FROM d.t WHERE g = 99")
                assert cur.fetchone() == (18446744073709551615, 0)
                with pytest.raises(pymysql.err.OperationalError) as err:
                    cur.execute("SELECT FIELD('a')")
                assert err.value.args == (
                    1582,
                    "Incorrect parameter count in the call to native function 'FIELD'",
                )
        finally:
            conn.close()


def test_temporal_function_types_over_the_wire(tmp_path: Path) -> None:
    """DATE(), TIME(), TIMESTAMP() and STR_TO_DATE (typed by its format) reach PyMySQL as date / timedelta /
    datetime, as MySQL's DATE / TIME / DATETIME results do (RM 8.4 "Date and Time Functions" examples)."""
    with running_server(tmp_path / "data") as srv:
        conn = pymysql.connect(host="127.0.0.1", port=srv.port, user="root", password="", autocommit=True)
        try:
            with conn.cursor() as cur:
                cur.execute(
                    "SELECT DATE('2003-12-31 01:02:03'), TIME('2003-12-31 01:02:03'), TIMESTAMP('2003-12-31'), "
                    "STR_TO_DATE('01,5,2013','%d,%m,%Y'), STR_TO_DATE('a09:30:17','a%h:%i:%s'), "
                    "STR_TO_DATE('2013-05-01 10:11','%Y-%m-%d %H:%i'), DATE_ADD('2018-05-01', INTERVAL 1 DAY)"
                )
                assert cur.fetchone() == (
                    dt.date(2003, 12, 31),
                    dt.timedelta(hours=1, minutes=2, seconds=3),
                    dt.datetime(2003, 12, 31),
                    dt.date(2013, 5, 1),
                    dt.timedelta(hours=9, minutes=30, seconds=17),
                    dt.datetime(2013, 5, 1, 10, 11),
                    "2018-05-02",  # a string argument gives a string (manual: DATE_ADD "returns a string")
                )
        finally:
            conn.close()
