"""DECIMAL expressions over the wire: what PyMySQL (text protocol) and mysql-connector's server-side prepared
statements (binary protocol) read from a real `gtidkit server`.

MySQL's answers (manual "Precision Math", "Aggregate Function Descriptions"; the DBA report against MySQL 8.4):
``salary * 2`` of a DECIMAL(10,2) is NEWDECIMAL (246) with 2 decimals, sent as '400.00' / '600.50'; SUM of it is
DECIMAL(32,2) '300.50'; AVG is DECIMAL(14,6) '150.250000'; ``SELECT 0.1 + 0.2 = 0.3`` is 1; ``1/3`` is the
DECIMAL 0.3333 and ``1e0/3`` a DOUBLE (5).
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal

import mysql.connector
import pymysql
import pytest

from .server_proc import ServerProcess, running_server

pytestmark = pytest.mark.timeout(300)

NEWDECIMAL, DOUBLE, LONGLONG = 246, 5, 8


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    datadir = tmp_path_factory.mktemp("decimal") / "data"
    with running_server(datadir) as s:
        conn = pymysql.connect(host="127.0.0.1", port=s.port, user="root", password="", autocommit=True)
        with conn.cursor() as cur:
            cur.execute("CREATE DATABASE app")
            cur.execute(
                "CREATE TABLE app.emp (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(50), dept VARCHAR(20), "
                "salary DECIMAL(10,2))"
            )
            cur.execute(
                "INSERT INTO app.emp (name, dept, salary) VALUES "
                "('ann', 'ops', 100.50), ('bob', 'ops', 200.00), ('cy', 'dev', 300.25)"
            )
        conn.close()
        yield s


def test_pymysql_reads_decimal_expressions(srv: ServerProcess) -> None:
    conn = pymysql.connect(host="127.0.0.1", port=srv.port, user="root", password="", database="app")
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT name, salary * 2 AS dbl FROM emp WHERE salary > 150")
            assert cur.fetchall() == (("bob", Decimal("400.00")), ("cy", Decimal("600.50")))
            name, type_code, _, _, _, scale, _ = cur.description[1]
            assert (name, type_code, scale) == ("dbl", NEWDECIMAL, 2)
            cur.execute("SELECT dept, SUM(salary), AVG(salary) FROM emp GROUP BY dept ORDER BY dept DESC")
            rows = cur.fetchall()
            assert rows == (
                ("ops", Decimal("300.50"), Decimal("150.250000")),
                ("dev", Decimal("300.25"), Decimal("300.250000")),
            )
            assert [str(v) for v in rows[0][1:]] == ["300.50", "150.250000"]  # trailing zeros to the scale
            assert [(d[1], d[5]) for d in cur.description[1:]] == [(NEWDECIMAL, 2), (NEWDECIMAL, 6)]
            cur.execute("SELECT 0.1 + 0.2 = 0.3, 1/3, 1e0/3")
            assert cur.fetchall() == ((1, Decimal("0.3333"), 1 / 3),)
            assert [d[1] for d in cur.description] == [LONGLONG, NEWDECIMAL, DOUBLE]
            cur.execute("CREATE TABLE pay (v DECIMAL(10,2))")
            cur.execute("INSERT INTO pay VALUES (0.10)")
            cur.execute("UPDATE pay SET v = v * 1.15")  # 0.115 exactly, stored half away from zero
            cur.execute("SELECT v FROM pay")
            assert cur.fetchall() == ((Decimal("0.12"),),)
            cur.execute("DROP TABLE pay")
    finally:
        conn.close()


def test_prepared_statement_binary_rows(srv: ServerProcess) -> None:
    conn = mysql.connector.connect(
        host="127.0.0.1", port=srv.port, user="root", password="", database="app", use_pure=True
    )
    try:
        cur = conn.cursor(prepared=True)
        cur.execute(
            "SELECT dept, SUM(salary), AVG(salary), SUM(salary) * 2 FROM emp WHERE id > %s GROUP BY dept "
            "ORDER BY dept DESC",
            (0,),
        )
        assert cur.fetchall() == [
            ("ops", Decimal("300.50"), Decimal("150.250000"), Decimal("601.00")),
            ("dev", Decimal("300.25"), Decimal("300.250000"), Decimal("600.50")),
        ]
        assert [(d[0], d[1]) for d in cur.description[1:]] == [
            ("SUM(salary)", NEWDECIMAL),
            ("AVG(salary)", NEWDECIMAL),
            ("SUM(salary) * 2", NEWDECIMAL),
        ]
        cur.close()
    finally:
        conn.close()
