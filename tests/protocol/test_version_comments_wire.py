"""Version comments ``/*!NNNNN ... */`` follow the presented release (``--server-version``), through PyMySQL.

Manual "Comments" (RM 8.0 11.7): "If you add a version number after the ! character, the syntax within the comment
is executed only if the MySQL version is greater than or equal to the specified version number"; the number is
``Mmmrr`` (80036 for 8.0.36, 50744 for 5.7.44, 80403 for 8.4.3). MySQL's lexer (``sql_lex.cc``) reads the digits
after the first five into the number too, so MariaDB's six-digit ``/*!100001 ... */`` is above every 8.0 / 8.4
release and skipped; fewer than five digits are no version (the comment's body, always run).
"""

from __future__ import annotations

from pathlib import Path

import pymysql
import pytest

from .server_proc import initialize, running_server

pytestmark = pytest.mark.timeout(300)

CASES = [
    # (query, {release: expected single value})
    ("SELECT 1 /*!99999 + 1 */", {"5.7": 1, "8.0": 1, "8.4": 1}),
    ("SELECT 1 /*!80000 + 1 */", {"5.7": 1, "8.0": 2, "8.4": 2}),
    ("SELECT 1 /*!80036 + 1 */", {"5.7": 1, "8.0": 2, "8.4": 2}),
    ("SELECT 1 /*!80037 + 1 */", {"5.7": 1, "8.0": 1, "8.4": 2}),
    ("SELECT 1 /*!50744 + 1 */", {"5.7": 2, "8.0": 2, "8.4": 2}),
    ("SELECT 1 /*!50745 + 1 */", {"5.7": 1, "8.0": 2, "8.4": 2}),
    ("SELECT 1 /*!100001 + 1 */", {"5.7": 1, "8.0": 1, "8.4": 1}),
    ("SELECT 1 /*! + 1 */", {"5.7": 2, "8.0": 2, "8.4": 2}),
    ("SELECT 1 /*!99999 + 1 */ /*!40101 + 10 */", {"5.7": 11, "8.0": 11, "8.4": 11}),
    ("SELECT 1 /*!99999 + ';' */ + 1", {"5.7": 2, "8.0": 2, "8.4": 2}),
    ("SELECT 1 + /*!123 + 1 */", {"5.7": 125, "8.0": 125, "8.4": 125}),
]
IDS = ["99999", "80000", "80036", "80037", "50744", "50745", "mariadb-6-digit", "no-version", "two-comments",
       "quote-inside-skipped", "4-digit-is-body"]  # fmt: skip


@pytest.mark.parametrize("release", ["8.0", "5.7", "8.4"])
def test_version_comment_runs_only_up_to_the_release(tmp_path: Path, release: str) -> None:
    initialize(tmp_path / "d", True, "--server-version", release)
    with running_server(tmp_path / "d", "--server-version", release) as srv:
        conn = pymysql.connect(host="127.0.0.1", port=srv.port, user="root", password="", autocommit=True)
        try:
            with conn.cursor() as cur:
                for (sql, expected), name in zip(CASES, IDS):
                    cur.execute(sql)
                    assert cur.fetchall() == ((expected[release],),), (name, sql)
                cur.execute("/*!99999 DROP DATABASE mysql */ SELECT 7")
                assert cur.fetchall() == ((7,),)
        finally:
            conn.close()
