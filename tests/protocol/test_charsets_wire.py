"""Connection character sets over the wire (RM 8.4 "Connection Character Sets and Collations"): a client's
statements are read in character_set_client, results are sent in character_set_results (NULL: unconverted), the
HandshakeResponse's collation sets all three, and text is stored the same whatever the client's set.

Oracles: the bytes each client sends and receives are fixed by the character sets themselves (MySQL's latin1 is
cp1252, RM 8.4 "West European Character Sets"); the column-definition rule (a non-binary column announced with
character_set_results' default collation, length / mbmaxlen(column) * mbmaxlen(results)) is
Protocol_classic::send_field_metadata's; errors 1115 / 1231 for SET NAMES are mysql-test r/ctype_ucs.result's
(``SET NAMES ucs2`` -> ``Variable 'character_set_client' can't be set to the value of 'ucs2'``)."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator

import mysql.connector
import pymysql
import pytest

from .server_proc import ServerProcess, running_server


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    datadir = tmp_path_factory.mktemp("charsets") / "data"
    with running_server(datadir, "--log-bin", "--server-id=7") as s:
        conn = pymysql.connect(host="127.0.0.1", port=s.port, user="root", password="", autocommit=True)
        with conn.cursor() as cur:
            cur.execute("CREATE DATABASE cs")
            cur.execute("CREATE TABLE cs.t (id INT PRIMARY KEY, v VARCHAR(10))")
            cur.execute("INSERT INTO cs.t VALUES (1, 'été€')")
        conn.close()
        yield s


def _conn(srv: ServerProcess, charset: str) -> pymysql.connections.Connection:
    return pymysql.connect(
        host="127.0.0.1", port=srv.port, user="root", password="", autocommit=True, charset=charset
    )


def _stored_hex(srv: ServerProcess, row_id: int) -> str:
    conn = _conn(srv, "utf8mb4")
    with conn.cursor() as cur:
        cur.execute("SELECT HEX(v) FROM cs.t WHERE id = %s", (row_id,))
        (value,) = cur.fetchone()
    conn.close()
    return str(value)


def test_latin1_client_reads_and_writes_text(srv: ServerProcess) -> None:
    conn = _conn(srv, "latin1")
    with conn.cursor() as cur:
        cur.execute("SELECT @@character_set_client, @@character_set_connection, @@character_set_results")
        assert cur.fetchone() == ("latin1", "latin1", "latin1")
        cur.execute("SELECT v FROM cs.t WHERE id = 1")
        assert cur.fetchone() == ("été€",)
        # announced in latin1 (collation 8), VARCHAR(10) is 10 latin1 bytes (40 / 4 * 1)
        col = cur.description[0]
        assert col[3] == 10
        cur.execute("INSERT INTO cs.t VALUES (2, 'ñü€')")  # PyMySQL sends cp1252 bytes F1 FC 80
        cur.execute("INSERT INTO cs.t VALUES (%s, %s)", (3, "Zoë"))
    conn.close()
    # stored as the same characters a utf8mb4 client would have written
    assert _stored_hex(srv, 2) == "C3B1C3BCE282AC"
    assert _stored_hex(srv, 3) == "5A6FC3AB"


def test_results_null_sends_stored_bytes(srv: ServerProcess) -> None:
    conn = _conn(srv, "latin1")
    with conn.cursor() as cur:
        cur.execute("SET character_set_results = NULL")
        cur.execute("SELECT @@character_set_results")
        assert cur.fetchone() == (None,)
        cur.execute("SELECT v FROM cs.t WHERE id = 1")
        (value,) = cur.fetchone()
    conn.close()
    # no conversion: the column's utf8mb4 bytes, which PyMySQL decodes as latin1
    assert value.encode("cp1252") == "été€".encode()


def test_characters_latin1_cannot_hold_become_question_marks(srv: ServerProcess) -> None:
    conn = _conn(srv, "utf8mb4")
    with conn.cursor() as cur:
        cur.execute("INSERT INTO cs.t VALUES (4, 'a→b')")
    conn.close()
    conn = _conn(srv, "latin1")
    with conn.cursor() as cur:
        cur.execute("SELECT v FROM cs.t WHERE id = 4")
        assert cur.fetchone() == ("a?b",)
    conn.close()


def test_cp1251_prepared_statement_parameters(srv: ServerProcess) -> None:
    conn = mysql.connector.connect(
        host="127.0.0.1", port=srv.port, user="root", password="", charset="cp1251", use_pure=True
    )
    cur = conn.cursor(prepared=True)
    cur.execute("INSERT INTO cs.t VALUES (?, ?)", (5, "Привет"))
    conn.commit()
    cur.execute("SELECT v FROM cs.t WHERE id = ?", (5,))
    assert cur.fetchone() == ("Привет",)
    conn.close()
    assert _stored_hex(srv, 5) == "Привет".encode().hex().upper()


@pytest.mark.parametrize(
    ("statement", "code", "message"),
    [
        ("SET NAMES foo", 1115, "Unknown character set: 'foo'"),
        ("SET NAMES ucs2", 1231, "Variable 'character_set_client' can't be set to the value of 'ucs2'"),
        (
            "SET character_set_client = NULL",
            1231,
            "Variable 'character_set_client' can't be set to the value of 'NULL'",
        ),
    ],
)
def test_set_names_errors(srv: ServerProcess, statement: str, code: int, message: str) -> None:
    conn = _conn(srv, "utf8mb4")
    with conn.cursor() as cur, pytest.raises(pymysql.err.MySQLError) as err:
        cur.execute(statement)
    conn.close()
    assert err.value.args == (code, message)


def test_set_names_utf8_is_utf8mb3(srv: ServerProcess) -> None:
    conn = _conn(srv, "utf8mb4")
    with conn.cursor() as cur:
        cur.execute("SET NAMES utf8")
        cur.execute("SELECT @@character_set_client, @@collation_connection")
        assert cur.fetchone() == ("utf8mb3", "utf8mb3_general_ci")
    conn.close()


def test_mariadb_cli_handshake_charset(srv: ServerProcess) -> None:
    """libmariadb sends only the handshake collation (no SET NAMES): the server must take it from there."""
    exe = shutil.which("mariadb")
    if exe is None:
        pytest.skip("mariadb client not installed (.ci/run installs mariadb-client)")
    r = subprocess.run(
        [
            exe,
            "-h127.0.0.1",
            f"-P{srv.port}",
            "-uroot",
            "--default-character-set=latin1",
            "-N",
            "-B",
            "-e",
            "SELECT @@character_set_client, v FROM cs.t WHERE id = 1",
        ],
        capture_output=True,
        check=True,
        timeout=30,
    )
    assert r.stdout == b"latin1\t" + "été€".encode("cp1252") + b"\n"
