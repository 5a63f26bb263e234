"""CONV, BIT_XOR (engine/sql/functions_string.py, functions_numeric.py) and CONVERT(... USING) (checksum_functions.py), SHOW STATUS and SHOW ENGINES.

Expected values: RM 8.4 "Mathematical Functions" CONV examples (CONV('a',16,2) = '1010', CONV('6E',18,8) = '172',
CONV(-17,10,-18) = '-H', CONV(10+'10'+'10'+X'0a',10,10) = '40'); "Aggregate Function Descriptions" (BIT_XOR over no
rows is 0); "SHOW STATUS Statement" (Variable_name, Value; LIKE filters the names); "SHOW ENGINES Statement"
(the six columns; InnoDB DEFAULT). The pt-table-checksum expression is its man page's.
"""

from __future__ import annotations

import zlib

import pytest

from gtidkit.engine.sql.functions_string import conv
from gtidkit.version import MYSQL_VERSION


@pytest.mark.parametrize(
    "args, want",
    [
        (("a", 16, 2), "1010"),
        (("6E", 18, 8), "172"),
        ((-17, 10, -18), "-H"),
        ((40, 10, 10), "40"),
        ((-1, 10, 16), "FFFFFFFFFFFFFFFF"),
        (("12abc", 10, 10), "12"),
        ((None, 10, 2), None),
        ((5, 1, 10), None),
        (("FFFFFFFFFFFFFFFFFFFF", 16, 10), "18446744073709551615"),
    ],
)
def test_conv(args, want) -> None:
    assert conv(*args) == want


@pytest.fixture
def s(open_server):
    session = open_server().session()
    session.execute("CREATE DATABASE d; USE d; CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10), n INT)")
    yield session
    session.close()


def _q(s, sql):
    res = s.execute(sql)
    return (res[-1] if isinstance(res, list) else res).rows


def test_pt_table_checksum_expression(s) -> None:
    s.execute("INSERT INTO t VALUES (1, 'a', NULL), (2, NULL, 7), (3, 'ß', 9)")
    rows = _q(
        s,
        "SELECT COUNT(*) AS cnt, COALESCE(LOWER(CONV(BIT_XOR(CAST(CRC32(CONCAT_WS('#', `id`, convert(`v` using "
        "utf8mb4), `n`, CONCAT(ISNULL(`v`), ISNULL(`n`)))) AS UNSIGNED)), 10, 16)), 0) AS crc FROM t",
    )
    crcs = [zlib.crc32(x.encode()) for x in ("1#a#01", "2#7#10", "3#ß#9#00")]
    assert rows == [(3, format(crcs[0] ^ crcs[1] ^ crcs[2], "x"))]
    assert _q(s, "SELECT BIT_XOR(n), COUNT(*) FROM t WHERE id > 100") == [(0, 0)]


def test_show_status_and_engines(s) -> None:
    rows = dict(_q(s, "SHOW GLOBAL STATUS"))
    assert {"Threads_connected", "Threads_running", "Uptime"} <= set(rows)
    assert int(rows["Threads_connected"]) >= 1
    assert _q(s, "SHOW GLOBAL STATUS LIKE 'Threads_running'") == [("Threads_running", "1")]
    assert _q(s, "SHOW STATUS WHERE Variable_name = 'nope'") == []
    res = s.execute("SHOW ENGINES")
    res = res[-1] if isinstance(res, list) else res
    assert [c.name for c in res.columns] == [
        "Engine",
        "Support",
        "Comment",
        "Transactions",
        "XA",
        "Savepoints",
    ]
    assert res.rows[0][:2] == ("InnoDB", "DEFAULT")


def test_tool_variables(s) -> None:
    (row,) = _q(s, "SELECT @@hostname, @@port, @@innodb_version")
    assert row[0] and isinstance(row[1], int) and row[2] == MYSQL_VERSION
