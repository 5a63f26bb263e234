"""Non-strict ``sql_mode`` over the wire: the OK packet's warning count and info string, and SHOW WARNINGS, read by
PyMySQL from a real ``gtidkit server`` process.

Expected values: MySQL's ER_INSERT_INFO ``Records: %ld  Duplicates: %ld  Warnings: %ld`` and ER_UPDATE_INFO
``Rows matched: %ld  Changed: %ld  Warnings: %ld`` (``share/messages_to_clients.txt``), the warnings of
mysql/mysql-server ``mysql-test/r/strict.result`` (8.0: INSERT IGNORE of 'a59b' / '2a' / out-of-range values gives
1366 / 1265 / 1264 warnings, converted as without strict mode), and the manual "Server SQL Modes" (non-strict
mode stores adjusted values with warnings).
"""

from __future__ import annotations

from collections.abc import Iterator

import pymysql
import pytest

from .server_proc import ServerProcess, running_server


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    datadir = tmp_path_factory.mktemp("sqlmode") / "data"
    with running_server(datadir, "--server-id=5") as s:
        yield s


def test_ok_packet_info_and_warning_count_non_strict(srv: ServerProcess) -> None:
    conn = pymysql.connect(host="127.0.0.1", port=srv.port, user="root", password="", autocommit=True)
    with conn.cursor() as cur:
        cur.execute("CREATE DATABASE m")
        cur.execute("CREATE TABLE m.t (id INT PRIMARY KEY, v TINYINT)")
        with pytest.raises(pymysql.err.MySQLError) as ei:  # strict (the default): error 1366
            cur.execute("INSERT INTO m.t VALUES (10, 'abc')")
        assert ei.value.args[0] == 1366
        cur.execute("SET sql_mode=''")
        assert cur.execute("INSERT INTO m.t VALUES (1, 'abc'), (2, '2a'), (3, 5)") == 3
        assert conn._result.warning_count == 2
        assert conn._result.message == b"Records: 3  Duplicates: 0  Warnings: 2"
        cur.execute("SHOW WARNINGS")
        assert cur.fetchall() == (
            ("Warning", 1366, "Incorrect integer value: 'abc' for column 'v' at row 1"),
            ("Warning", 1265, "Data truncated for column 'v' at row 2"),
        )
        assert cur.execute("UPDATE m.t SET v = 1000 WHERE id = 3") == 1
        assert conn._result.warning_count == 1
        assert conn._result.message == b"Rows matched: 1  Changed: 1  Warnings: 1"
        cur.execute("SELECT id, v FROM m.t ORDER BY id")
        assert cur.fetchall() == ((1, 0), (2, 2), (3, 127))
    conn.close()
