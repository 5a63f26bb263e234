"""LOAD DATA [LOCAL] INFILE through real clients (issue 19 §3): the protocol's LOCAL INFILE request answered by
PyMySQL (``local_infile=True``), mysql-connector-python (``allow_local_infile``) and the mariadb CLI
(``--local-infile=1``); server files under ``--secure-file-priv``; privileges; the binary log.

Expected values: RM8 15.2.9 "LOAD DATA Statement" (defaults, ``\\N``, IGNORE n LINES, user variables and SET, the
OK info string ``Records: N  Deleted: D  Skipped: S  Warnings: W``), mysql-test ``r/loaddata.result`` (warnings
1261 / 1262 / 1263 / 1366 and their rows), ``sql/sql_load.cc`` (3948 before the file request; FILE as 1045;
secure_file_priv as 1290; LOCAL implies IGNORE).
"""

from __future__ import annotations

import shutil
import ssl
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mysql.connector
import pymysql
import pytest

from tests.protocol.server_proc import ServerProcess, running_server

MARIADB = shutil.which("mariadb")


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The server's ``--secure-file-priv`` directory."""
    return tmp_path_factory.mktemp("secure-files")


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory, files: Path) -> Iterator[ServerProcess]:
    """A server with local_infile ON, secure_file_priv set, the binary log on in ROW format."""
    datadir = tmp_path_factory.mktemp("load") / "d"
    with running_server(
        datadir,
        "--local-infile=ON",
        f"--secure-file-priv={files}",
        "--log-bin",
        "--binlog-format=ROW",
        "--server-id=1",
    ) as s:
        conn = _conn(s)
        with conn.cursor() as cur:
            cur.execute("CREATE DATABASE ld")
        conn.close()
        yield s


def _conn(srv: ServerProcess, **kw: Any) -> pymysql.connections.Connection:
    kw.setdefault("user", "root")
    kw.setdefault("password", "")
    return pymysql.connect(host="127.0.0.1", port=srv.port, autocommit=True, **kw)


def _run(conn: Any, sql: str) -> tuple[int, list[tuple[int, str]], str]:
    """(affected rows, SHOW WARNINGS (code, message), the OK's info string) of one statement."""
    with conn.cursor() as cur:
        affected = cur.execute(sql)
        info = conn._result.message.decode() if conn._result.message else ""
        cur.execute("SHOW WARNINGS")
        warnings = [(int(code), msg) for _, code, msg in cur.fetchall()]
    return affected, warnings, info


def _rows(conn: Any, sql: str) -> list[tuple[Any, ...]]:
    with conn.cursor() as cur:
        cur.execute(sql)
        return list(cur.fetchall())


def _error(conn: Any, sql: str) -> tuple[int, str]:
    with pytest.raises(pymysql.err.MySQLError) as exc, conn.cursor() as cur:
        cur.execute(sql)
    return exc.value.args[0], exc.value.args[1]


def _table(conn: Any, name: str, ddl: str) -> None:
    with conn.cursor() as cur:
        cur.execute(f"DROP TABLE IF EXISTS {name}")
        cur.execute(f"CREATE TABLE {name} {ddl}")


# RM8 "LOAD DATA Statement" defaults: tab-separated fields, newline-terminated lines, backslash escapes, \N is NULL
LOCAL_CASES = [
    pytest.param(
        "1\tone\n2\ttwo\n",
        "",
        [(1, "one"), (2, "two")],
        "Records: 2  Deleted: 0  Skipped: 0  Warnings: 0",
        [],
        id="defaults",
    ),
    pytest.param(
        "1\t\\N\n2\ta\\tb\\\\c\n3\t\n",
        "",
        [(1, None), (2, "a\tb\\c"), (3, "")],
        "Records: 3  Deleted: 0  Skipped: 0  Warnings: 0",
        [],
        id="null-and-escapes",
    ),
    pytest.param(
        'h1,h2\n1,"x, ""y"""\n2,NULL\n',
        "FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' IGNORE 1 LINES",
        [(1, 'x, "y"'), (2, None)],
        "Records: 2  Deleted: 0  Skipped: 0  Warnings: 0",
        [],
        id="csv-enclosed-ignore-1-lines",
    ),
    pytest.param(
        "1;a|2;b|",
        "FIELDS TERMINATED BY ';' LINES TERMINATED BY '|'",
        [(1, "a"), (2, "b")],
        "Records: 2  Deleted: 0  Skipped: 0  Warnings: 0",
        [],
        id="custom-terminators",
    ),
    pytest.param(
        "xxx>1\ta\nskipped\nyyy>2\tb\n",
        "LINES STARTING BY '>'",
        [(1, "a"), (2, "b")],
        "Records: 2  Deleted: 0  Skipped: 0  Warnings: 0",
        [],
        id="lines-starting-by",
    ),
    pytest.param(
        # loaddata.result: a short line is 1261, a long one 1262, 'abc' into INT 1366, each at its row
        "1\n2\tb\textra\nabc\tc\n",
        "",
        [(0, "c"), (1, None), (2, "b")],
        "Records: 3  Deleted: 0  Skipped: 0  Warnings: 3",
        [
            (1261, "Row 1 doesn't contain data for all columns"),
            (1262, "Row 2 was truncated; it contained more data than there were input columns"),
            (1366, "Incorrect integer value: 'abc' for column 'a' at row 3"),
        ],
        id="warnings-1261-1262-1366",
    ),
    pytest.param(
        "5\tx\n5\ty\n",
        "",
        [(5, "x")],
        "Records: 2  Deleted: 0  Skipped: 1  Warnings: 1",
        [(1062, "Duplicate entry '5' for key 't.PRIMARY'")],
        id="local-implies-ignore",
    ),
    pytest.param(
        # in row order, as read_sep_field raises them: row 1's 1261, then row 2's duplicate, then its 1262
        "1\n1\tb\tc\n",
        "",
        [(1, None)],
        "Records: 2  Deleted: 0  Skipped: 1  Warnings: 3",
        [
            (1261, "Row 1 doesn't contain data for all columns"),
            (1062, "Duplicate entry '1' for key 't.PRIMARY'"),
            (1262, "Row 2 was truncated; it contained more data than there were input columns"),
        ],
        id="warnings-in-row-order",
    ),
    pytest.param(
        "7\tnew\n",
        "REPLACE",
        [(7, "new")],
        "Records: 1  Deleted: 1  Skipped: 0  Warnings: 0",
        [],
        id="replace",
    ),
    pytest.param(
        "1\t01/02/2020\n",
        "(a, @d) SET b = DATE_FORMAT(STR_TO_DATE(@d, '%m/%d/%Y'), '%Y-%m-%d')",
        [(1, "2020-01-02")],
        "Records: 1  Deleted: 0  Skipped: 0  Warnings: 0",
        [],
        id="user-variable-and-set",
    ),
]


@pytest.mark.parametrize(("content", "clauses", "rows", "info", "warnings"), LOCAL_CASES)
def test_local_infile_pymysql(
    srv: ServerProcess,
    tmp_path: Path,
    content: str,
    clauses: str,
    rows: list[tuple[Any, ...]],
    info: str,
    warnings: list[tuple[int, str]],
) -> None:
    """PyMySQL answers the LOCAL INFILE request with the file; the rows, the OK info and the warnings are MySQL's."""
    path = tmp_path / "data.txt"
    path.write_text(content)
    conn = _conn(srv, database="ld", local_infile=True)
    _table(conn, "t", "(a INT PRIMARY KEY, b VARCHAR(20))")
    if "REPLACE" in clauses:
        _run(conn, "INSERT INTO t VALUES (7, 'old')")
    _, got_warnings, got_info = _run(conn, f"LOAD DATA LOCAL INFILE '{path}' {_split(clauses, path)}")
    assert got_info == info
    assert got_warnings == warnings
    assert _rows(conn, "SELECT a, b FROM t ORDER BY a") == rows
    conn.close()


def _split(clauses: str, path: Path) -> str:
    """The clauses around ``INTO TABLE t`` (REPLACE / IGNORE come before it)."""
    if clauses.startswith("REPLACE"):
        return "REPLACE INTO TABLE t" + clauses[len("REPLACE") :]
    return "INTO TABLE t " + clauses


def test_multi_statement_around_local_infile(srv: ServerProcess, tmp_path: Path) -> None:
    """The results before the LOAD go out before the file request, those after it follow its OK (PyMySQL reads
    a multi-result answer with one LOCAL INFILE exchange in the middle)."""
    path = tmp_path / "m.txt"
    path.write_text("1\ta\n2\tb\n")
    conn = _conn(srv, database="ld", local_infile=True, client_flag=pymysql.constants.CLIENT.MULTI_STATEMENTS)
    _table(conn, "m", "(a INT, b TEXT)")
    with conn.cursor() as cur:
        cur.execute(f"SELECT 1; LOAD DATA LOCAL INFILE '{path}' INTO TABLE m; SELECT COUNT(*) FROM m")
        assert cur.fetchall() == ((1,),)
        assert cur.nextset()
        assert cur.rowcount == 2
        assert cur.nextset()
        assert cur.fetchall() == ((2,),)
    assert _rows(conn, "SELECT 7") == [(7,)]  # the connection is in step afterwards
    conn.close()


def test_local_infile_over_tls(srv: ServerProcess, tmp_path: Path) -> None:
    """The file's packets come through the TLS stream as well (a 3 MB file: many packets, several TLS records)."""
    path = tmp_path / "big.txt"
    path.write_text("".join(f"{i}\t{'x' * 290}\n" for i in range(10000)))
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    conn = _conn(srv, database="ld", local_infile=True, ssl=ctx)
    assert conn._sock.version() is not None  # TLS is in use
    _table(conn, "tls", "(a INT, b VARCHAR(300))")
    _, _, info = _run(conn, f"LOAD DATA LOCAL INFILE '{path}' INTO TABLE tls")
    assert info == "Records: 10000  Deleted: 0  Skipped: 0  Warnings: 0"
    assert _rows(conn, "SELECT COUNT(*), SUM(a), SUM(LENGTH(b)) FROM tls") == [(10000, 49995000, 2900000)]
    conn.close()


def test_local_infile_missing_client_file(srv: ServerProcess, tmp_path: Path) -> None:
    """A client that cannot open the file answers the request with an empty packet: nothing is loaded and the
    connection goes on (PyMySQL then raises its own error)."""
    conn = _conn(srv, database="ld", local_infile=True)
    _table(conn, "e", "(a INT)")
    with pytest.raises(pymysql.err.MySQLError), conn.cursor() as cur:
        cur.execute(f"LOAD DATA LOCAL INFILE '{tmp_path / 'absent.txt'}' INTO TABLE e")
    assert _rows(conn, "SELECT COUNT(*) FROM e") == [(0,)]
    conn.close()


def test_local_infile_without_client_capability(srv: ServerProcess, tmp_path: Path) -> None:
    """A client that did not offer CLIENT_LOCAL_FILES: 3948 before any file request (sql_load.cc)."""
    conn = _conn(srv, database="ld")  # PyMySQL offers the capability only with local_infile=True
    _table(conn, "c", "(a INT)")
    code, _ = _error(conn, f"LOAD DATA LOCAL INFILE '{tmp_path}/x' INTO TABLE c")
    assert code == 3948
    conn.close()


def test_local_infile_mysql_connector(srv: ServerProcess, tmp_path: Path) -> None:
    """mysql-connector-python (pure Python) with allow_local_infile sends the file the same way."""
    path = tmp_path / "c.txt"
    path.write_text("1\tα\n2\t\\N\n")
    conn = mysql.connector.connect(
        host="127.0.0.1", port=srv.port, user="root", password="", database="ld", allow_local_infile=True
    )
    cur = conn.cursor()
    cur.execute("DROP TABLE IF EXISTS mc")
    cur.execute("CREATE TABLE mc (a INT, b VARCHAR(5))")
    cur.execute(f"LOAD DATA LOCAL INFILE '{path}' INTO TABLE mc")
    assert cur.rowcount == 2
    conn.commit()
    cur.execute("SELECT a, b FROM mc ORDER BY a")
    assert cur.fetchall() == [(1, "α"), (2, None)]
    conn.close()


def test_local_infile_refused_by_the_client(srv: ServerProcess, tmp_path: Path) -> None:
    """mysql-connector offers CLIENT_LOCAL_FILES but, without allow_local_infile, answers the file request with
    the empty packet and reports CR_LOAD_DATA_LOCAL_INFILE_REJECTED's text (2068) itself: nothing is loaded and
    the connection stays in step."""
    path = tmp_path / "r.txt"
    path.write_text("1\n")
    conn = mysql.connector.connect(host="127.0.0.1", port=srv.port, user="root", password="", database="ld")
    cur = conn.cursor()
    cur.execute("DROP TABLE IF EXISTS refused")
    cur.execute("CREATE TABLE refused (a INT)")
    with pytest.raises(mysql.connector.Error) as exc:
        cur.execute(f"LOAD DATA LOCAL INFILE '{path}' INTO TABLE refused")
    assert exc.value.msg == "LOAD DATA LOCAL INFILE file request rejected due to restrictions on access."
    cur.execute("SELECT COUNT(*) FROM refused")
    assert cur.fetchall() == [(0,)]
    conn.close()


@pytest.mark.skipif(MARIADB is None, reason="mariadb CLI not installed")
def test_local_infile_mariadb_cli_disabled(srv: ServerProcess, tmp_path: Path) -> None:
    """``mariadb --local-infile=0`` does not offer CLIENT_LOCAL_FILES: the server's 3948."""
    path = tmp_path / "d.txt"
    path.write_text("1\n")
    out = subprocess.run(
        [str(MARIADB), "-h127.0.0.1", f"-P{srv.port}", "-uroot", "--skip-ssl", "--local-infile=0", "ld", "-e"]
        + [f"LOAD DATA LOCAL INFILE '{path}' INTO TABLE cli_off"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 1
    assert (
        "ERROR 3948 (42000) at line 1: Loading local data is disabled; this must be enabled on both the client and "
        "server sides" in out.stderr
    )


@pytest.mark.skipif(MARIADB is None, reason="mariadb CLI not installed")
def test_local_infile_mariadb_cli(srv: ServerProcess, tmp_path: Path) -> None:
    """The mariadb command-line client (libmariadb) with --local-infile=1."""
    path = tmp_path / "cli.txt"
    path.write_text("".join(f"{i}\tv{i}\n" for i in range(1, 1001)))
    conn = _conn(srv, database="ld")
    _table(conn, "cli", "(a INT PRIMARY KEY, b VARCHAR(10))")
    out = subprocess.run(
        [
            str(MARIADB),
            "-h127.0.0.1",
            f"-P{srv.port}",
            "-uroot",
            "--skip-ssl",
            "--local-infile=1",
            "ld",
            "-e",
            f"LOAD DATA LOCAL INFILE '{path}' INTO TABLE cli; SELECT ROW_COUNT()",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[-1] == "1000"
    assert _rows(conn, "SELECT COUNT(*), SUM(a), MAX(b) FROM cli") == [(1000, 500500, "v999")]
    conn.close()


def test_server_file_under_secure_file_priv(srv: ServerProcess, files: Path) -> None:
    """A server file under --secure-file-priv loads; one outside is 1290; a missing one 29 (EE_FILENOTFOUND)."""
    (files / "s.txt").write_text("1\tx\n2\ty\n")
    conn = _conn(srv, database="ld")
    _table(conn, "s", "(a INT, b CHAR(3))")
    assert _run(conn, f"LOAD DATA INFILE '{files / 's.txt'}' INTO TABLE s")[0] == 2
    assert _rows(conn, "SELECT a, b FROM s ORDER BY a") == [(1, "x"), (2, "y")]
    code, message = _error(conn, "LOAD DATA INFILE '/etc/hostname' INTO TABLE s")
    assert (code, message) == (
        1290,
        "The MySQL server is running with the --secure-file-priv option so it cannot execute this statement",
    )
    code, message = _error(conn, f"LOAD DATA INFILE '{files / 'none.txt'}' INTO TABLE s")
    assert (code, message) == (
        29,
        f"File '{files / 'none.txt'}' not found (OS errno 2 - No such file or directory)",
    )
    conn.close()


def test_strict_mode_errors_without_local(srv: ServerProcess, files: Path) -> None:
    """A server file in strict mode (no IGNORE, no LOCAL): the first bad row fails the statement, nothing is kept
    (loaddata.result: 1263 / 1261 as errors)."""
    (files / "strict.txt").write_text("1\ta\n2\t\\N\n")
    conn = _conn(srv, database="ld")
    _table(conn, "st", "(a INT, b VARCHAR(3) NOT NULL)")
    code, message = _error(conn, f"LOAD DATA INFILE '{files / 'strict.txt'}' INTO TABLE st")
    assert (code, message) == (
        1263,
        "Column set to default value; NULL supplied to NOT NULL column 'b' at row 2",
    )
    assert _rows(conn, "SELECT COUNT(*) FROM st") == [(0,)]
    _, warnings, info = _run(conn, f"LOAD DATA INFILE '{files / 'strict.txt'}' IGNORE INTO TABLE st")
    assert info == "Records: 2  Deleted: 0  Skipped: 0  Warnings: 1"
    assert warnings == [(1263, "Column set to default value; NULL supplied to NOT NULL column 'b' at row 2")]
    assert _rows(conn, "SELECT a, b FROM st ORDER BY a") == [(1, "a"), (2, "")]
    conn.close()


def test_privileges(srv: ServerProcess, files: Path, tmp_path: Path) -> None:
    """Without FILE a server file is 1045; without INSERT on the table 1142 (LOCAL needs no FILE)."""
    (files / "p.txt").write_text("1\n")
    local = tmp_path / "p.txt"
    local.write_text("1\n")
    root = _conn(srv, database="ld")
    _table(root, "p", "(a INT)")
    with root.cursor() as cur:
        cur.execute("CREATE USER IF NOT EXISTS 'lw'@'%' IDENTIFIED BY 'pw'")
        cur.execute("GRANT SELECT, INSERT ON ld.* TO 'lw'@'%'")
        cur.execute("CREATE USER IF NOT EXISTS 'lr'@'%' IDENTIFIED BY 'pw'")
        cur.execute("GRANT SELECT ON ld.* TO 'lr'@'%'")
    writer = _conn(srv, user="lw", password="pw", database="ld", local_infile=True)
    code, message = _error(writer, f"LOAD DATA INFILE '{files / 'p.txt'}' INTO TABLE p")
    assert (code, message) == (1045, "Access denied for user 'lw'@'%' (using password: YES)")
    assert _run(writer, f"LOAD DATA LOCAL INFILE '{local}' INTO TABLE p")[0] == 1
    reader = _conn(srv, user="lr", password="pw", database="ld", local_infile=True)
    code, message = _error(reader, f"LOAD DATA LOCAL INFILE '{local}' INTO TABLE p")
    assert (code, message) == (1142, "INSERT command denied to user 'lr'@'localhost' for table 'p'")
    for c in (writer, reader, root):
        c.close()


def test_rows_are_binlogged_with_a_gtid(srv: ServerProcess, tmp_path: Path) -> None:
    """The load is one transaction: one GTID, its rows as a Write_rows event (ROW format)."""
    path = tmp_path / "b.txt"
    path.write_text("1\n2\n3\n")
    conn = _conn(srv, database="ld", local_infile=True)
    _table(conn, "b", "(a INT)")
    before = _rows(conn, "SELECT @@GLOBAL.gtid_executed")[0][0]
    _run(conn, f"LOAD DATA LOCAL INFILE '{path}' INTO TABLE b")
    after = _rows(conn, "SELECT @@GLOBAL.gtid_executed")[0][0]
    assert before != after
    status = _rows(conn, "SHOW MASTER STATUS")[0]
    events = _rows(conn, f"SHOW BINLOG EVENTS IN '{status[0]}'")
    types = [e[2] for e in events]
    last_gtid = max(i for i, t in enumerate(types) if t == "Gtid")
    assert types[last_gtid:] == ["Gtid", "Query", "Table_map", "Write_rows", "Xid"]
    conn.close()


#: mysql-test r/loaddata.result: SELECT * INTO OUTFILE ... FIELDS ENCLOSED BY 'r' of ('r'), ('rr') ... ('.rrrr.'):
#: 'r' is one of READ_INFO's escape letters, so inside a field it is doubled, not escaped
LOADDATA_R_VALUES = ["r", "rr", "rrr", "rrrr", ".r", ".rr", ".rrr", ".rrrr", "r.", "rr.", "rrr.", "rrrr."]
LOADDATA_R_VALUES += [".r.", ".rr.", ".rrr.", ".rrrr."]
LOADDATA_R_FILE = (
    "r1r\trrrr\nr2r\trrrrrr\nr3r\trrrrrrrr\nr4r\trrrrrrrrrr\nr5r\tr.rrr\nr6r\tr.rrrrr\nr7r\tr.rrrrrrr\n"
    "r8r\tr.rrrrrrrrr\nr9r\trrr.r\nr10r\trrrrr.r\nr11r\trrrrrrr.r\nr12r\trrrrrrrrr.r\nr13r\tr.rr.r\n"
    "r14r\tr.rrrr.r\nr15r\tr.rrrrrr.r\nr16r\tr.rrrrrrrr.r\n"
)


def test_select_into_outfile_round_trip(srv: ServerProcess, files: Path) -> None:
    """loaddata.result: the OUTFILE's bytes, then LOAD DATA of that file gives the table back."""
    conn = _conn(srv, database="ld")
    _table(conn, "o1", "(id INT AUTO_INCREMENT PRIMARY KEY, c1 VARCHAR(255))")
    _table(conn, "o2", "(id INT, c2 VARCHAR(255))")
    with conn.cursor() as cur:
        cur.executemany("INSERT INTO o1 (c1) VALUES (%s)", [(v,) for v in LOADDATA_R_VALUES])
    out = files / "o1.txt"
    assert _run(conn, f"SELECT * INTO OUTFILE '{out}' FIELDS ENCLOSED BY 'r' FROM o1")[0] == 16
    assert out.read_text() == LOADDATA_R_FILE
    _run(conn, f"LOAD DATA INFILE '{out}' INTO TABLE o2 FIELDS ENCLOSED BY 'r'")
    assert _rows(conn, "SELECT o1.id, c1, c2 FROM o1 LEFT JOIN o2 ON o1.id = o2.id WHERE NOT c1 <=> c2") == []
    # loaddata.result: ENCLOSED BY '-' escapes the '-' inside a value with the escape character
    _table(conn, "o3", "(c1 INT, c2 TIMESTAMP, c4 DOUBLE)")
    _run(conn, "INSERT INTO o3 VALUES (10, '1970-02-01 01:02:03', 1.1E+100)")
    _run(conn, f"SELECT * INTO OUTFILE '{files / 'o3.txt'}' FIELDS ENCLOSED BY '-' FROM o3")
    assert (files / "o3.txt").read_text() == "-10-\t-1970\\-02\\-01 01:02:03-\t-1.1e+100-\n"
    code, message = _error(conn, f"SELECT * INTO OUTFILE '{files / 'o3.txt'}' FROM o3")
    assert (code, message) == (1086, f"File '{files / 'o3.txt'}' already exists")
    code, _ = _error(conn, "SELECT 1 INTO OUTFILE '/tmp/gtidkit-outside.txt'")
    assert code == 1290
    conn.close()


def test_select_into_outfile_formats_and_dumpfile(srv: ServerProcess, files: Path) -> None:
    """CSV options (OPTIONALLY ENCLOSED: strings only, NULL as \\N), DUMPFILE's raw bytes, 1172 for two rows."""
    conn = _conn(srv, database="ld")
    csv = files / "o.csv"
    _run(
        conn,
        f"SELECT 1, NULL, 'a,\"b', 2.5 INTO OUTFILE '{csv}' FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' "
        "LINES TERMINATED BY '\\r\\n'",
    )
    assert csv.read_bytes() == b'1,\\N,"a,\\"b",2.5\r\n'
    dump = files / "o.bin"
    _run(conn, f"SELECT _binary X'00FF41', 'z' INTO DUMPFILE '{dump}'")
    assert dump.read_bytes() == b"\x00\xffAz"
    code, message = _error(conn, f"SELECT 1 UNION SELECT 2 INTO DUMPFILE '{files / 'two.bin'}'")
    assert (code, message) == (1172, "Result consisted of more than one row")
    assert not (files / "two.bin").exists()
    conn.close()


def test_select_into_outfile_needs_file(srv: ServerProcess, files: Path) -> None:
    root = _conn(srv)
    with root.cursor() as cur:
        cur.execute("CREATE USER IF NOT EXISTS 'of'@'%' IDENTIFIED BY 'pw'")
        cur.execute("GRANT SELECT ON ld.* TO 'of'@'%'")
    user = _conn(srv, user="of", password="pw", database="ld")
    code, message = _error(user, f"SELECT 1 INTO OUTFILE '{files / 'denied.txt'}'")
    assert (code, message) == (1045, "Access denied for user 'of'@'%' (using password: YES)")
    with root.cursor() as cur:
        cur.execute("GRANT FILE ON *.* TO 'of'@'%'")
    user.close()
    user = _conn(srv, user="of", password="pw", database="ld")
    assert _run(user, f"SELECT 1 INTO OUTFILE '{files / 'granted.txt'}'")[0] == 1
    for c in (user, root):
        c.close()
