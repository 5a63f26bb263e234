"""Fuzz over the statement path: SQL strings of this test suite and of MySQL's mysql-test ``.test`` files, mutated
with a fixed seed, sent through PyMySQL to one real server process. Whatever the statement, the answer is a
result or one of MySQL's own errors: never 1815 / 1105 carrying Python or SQLite text, never a dropped connection,
and the server keeps serving (issue 19 section 3).

Deterministic: the corpus is sorted, the generator seeded, the statement count fixed. A failing statement is
printed whole, so it can be replayed by hand and then kept as a regression row in :data:`REGRESSIONS`.
"""

from __future__ import annotations

import ast
import random
import re
from collections.abc import Iterator
from pathlib import Path

import mysql.connector
import pymysql
import pytest

from gtidkit.mysql_errors import ER

from .server_proc import ServerProcess, running_server

ROOT = Path(__file__).resolve().parents[2]
MYSQL_TEST = (ROOT / ".." / "shared" / "research" / "fixtures" / "mysql-test").resolve()
SEED = 19
#: mutated statements sent after the originals (the budget: ~20 s on the 2-core CI machine)
MUTANTS = 1500
#: original corpus statements replayed first, so that the mutants meet existing tables and variables
ORIGINALS = 600

_SQL_START = re.compile(
    r"^\s*(SELECT|INSERT|UPDATE|DELETE|CREATE|ALTER|DROP|REPLACE|SHOW|SET|WITH|EXPLAIN|DESCRIBE|DESC|TRUNCATE"
    r"|RENAME|GRANT|REVOKE|DO|VALUES|TABLE|ANALYZE|CHECK|CHECKSUM|OPTIMIZE|PREPARE|EXECUTE|DEALLOCATE|USE)\s",
    re.IGNORECASE,
)
#: statements that would stop, block, or reconfigure the shared server rather than exercise the statement path
_UNSAFE = re.compile(
    r"SLEEP|SHUTDOWN|\bKILL\b|WAIT_|GET_LOCK|\bLOCK\b|FLUSH|\bRESET\b|CHANGE\s+(MASTER|REPLICATION)|\bSTART\b|"
    r"\bSTOP\b|REPLICA|SLAVE|GTID_NEXT|GTID_PURGED|READ_ONLY|OFFLINE_MODE|\bGLOBAL\b|PERSIST|BENCHMARK|@@GLOBAL|"
    r"\bUSER\b|PASSWORD|\bROLE\b|GRANT|REVOKE|MAX_CONNECTIONS|LOCK_WAIT|\bmysql\b|BINLOG|PURGE|INFILE|OUTFILE|"
    r"DUMPFILE|\bXA\b|SQL_LOG_BIN|AUTOCOMMIT|TRANSACTION|\bBEGIN\b|DATABASE|SCHEMA|WAIT_TIMEOUT|REPEAT|LPAD|RPAD|"
    r"SPACE\(|RECURSIVE|PERFORMANCE_SCHEMA|INFORMATION_SCHEMA|\bUSE\b",
    re.IGNORECASE,
)
#: tokens spliced into statements: parameter markers, quotes, brackets, extreme numbers, odd literals
_SPLICE = (
    "?",
    ":name",
    ":1",
    "$1",
    "'",
    '"',
    "`",
    "(",
    ")",
    ",",
    ";",
    "NULL",
    "-1",
    "-9223372036854775809",
    "18446744073709551616",
    "1e309",
    "-0.0",
    "99999999999999999999999999999999999999.5",
    "X'zz'",
    "X'00ff'",
    "b'102'",
    "0x",
    "_binary'\\xff'",
    "'\\'",
    "'\\0'",
    "@@",
    "@",
    "@x",
    "DEFAULT",
    "*",
    "/",
    "%",
    "DIV",
    "||",
    "&&",
    "<=>",
    "->",
    "->>",
    "'$[",
    "'{\"a\":}'",
    "CAST(",
    "AS",
    "SIGNED",
    "UNSIGNED",
    "DECIMAL(70,40)",
    "CHAR(-1)",
    "INTERVAL",
    "DAY",
    "'2024-02-30'",
    "'25:61:61'",
    "'0000-00-00'",
    "COLLATE",
    "utf8mb4_bin",
    "_utf8mb4",
    "N'x'",
    "ORDER BY",
    "GROUP BY",
    "LIMIT",
    "-5",
    "OFFSET",
    "WHERE",
    "JOIN",
    "UNION",
    "SELECT",
    "FROM",
    "t1",
    "dual",
    "ON DUPLICATE KEY UPDATE",
    "IGNORE",
    "/*",
    "*/",
    "/*!80000",
    "#",
    "-- ",
)
_EXTREME = (
    "0",
    "-1",
    "-128",
    "255",
    "2147483648",
    "-9223372036854775808",
    "18446744073709551615",
    "1e308",
    "0.5",
)
_TOKEN = re.compile(r"'(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`|\d+(?:\.\d+)?|\w+|\S")
#: codes that mean "not MySQL's error": the internal-error wrapper and ER_UNKNOWN_ERROR with foreign text
_FOREIGN = {1105, 1815}

#: statements the fuzz found (kept after their fix): each must answer a result or its MySQL error
REGRESSIONS = [
    pytest.param("INSERT INTO fz.t1 (id, v) VALUES (-5, 'neg')", None, id="negative-auto-increment"),
    pytest.param("SELECT ?", 1064, id="question-mark"),
    pytest.param("SELECT CAST(x'ff' AS TEXT)", 1064, id="cast-as-text-is-not-mysql"),
    pytest.param("DELETE FROM fz.t1 '\\0' WHERE id > 1", 1064, id="nul-in-a-string-alias"),
    pytest.param("SELECT id FROM fz.t1 WHERE id > (SELECT AVG(id) a)", 1111, id="outer-aggregate-in-where"),
    pytest.param("SELECT * FROM fz.t1 WHERE id = :name", 1064, id="named-placeholder"),
    pytest.param("SELECT * FROM fz.t1 WHERE id = : name", 1064, id="colon-alone"),
    pytest.param("SELECT @v := 1", None, id="assignment-colon-is-fine"),
    pytest.param("SELECT '?', ':x', `a?` FROM fz.t1 /* ? :x */", 1054, id="markers-in-quotes-and-comments"),
    pytest.param("CREATE TABLE fz.bad (v VARCHAR(_utf8mb4 20))", 1064, id="type-length-introducer"),
    pytest.param("CREATE TABLE fz.bad (v BIT(1e308))", 1064, id="type-length-approximate"),
    pytest.param(
        "CREATE TABLE fz.bad (d DECIMAL(30, 18446744073709551615))", 1425, id="decimal-scale-too-big"
    ),
    pytest.param("CREATE TABLE fz.bad (d DECIMAL(10, 11))", 1427, id="decimal-scale-above-precision"),
    pytest.param("CREATE TABLE fz.bad (v VARCHAR(4294967296))", 1074, id="varchar-too-long"),
    pytest.param("CREATE TABLE fz.bad (v INT(4294967296))", 1439, id="display-width"),
    pytest.param("INSERT INTO fz.t (a) VALUES (1e308)", 1264, id="int-from-huge-double"),
    pytest.param("SELECT 1e309", 1367, id="double-literal-overflow"),
    pytest.param("SELECT 9223372036854775807 * -1e308", 1690, id="double-result-overflow"),
    pytest.param("SELECT (NULL, '')", 1241, id="row-as-scalar"),
    pytest.param("SELECT *", 1096, id="star-without-tables"),
    pytest.param("SELECT JSON_EXTRACT('[1]', CHAR(255))", 3143, id="json-path-not-utf8"),
    pytest.param("SELECT '\\0' AS z FROM fz.t", None, id="nul-in-literal"),
    pytest.param("SELECT '\\0' FROM fz.t", None, id="nul-in-item-name"),
    pytest.param("INSERT INTO fz.t SELECT", 1064, id="cut-short"),
    pytest.param("SELECT * FROM fz.t LIMIT 0.5", 1064, id="limit-decimal"),
    pytest.param("SELECT * FROM fz.t LIMIT '1'", 1064, id="limit-string"),
    pytest.param("SELECT * FROM fz.t LIMIT 1, 18446744073709551615", None, id="limit-ulonglong-max"),
    pytest.param("SELECT a INTO a FROM fz.t", 1327, id="select-into-name"),
    pytest.param("SELECT a FROM fz.t ORDER BY 255", 1054, id="order-by-position"),
    pytest.param("SELECT GTID_SUBSET('')", 1582, id="native-function-arity"),
    pytest.param("SELECT DAY()", 1582, id="sqlglot-required-argument"),
    pytest.param("SELECT COUNT(DISTINCT) FROM fz.t", 1064, id="empty-distinct"),
    pytest.param(
        "INSERT INTO fz.t VALUES (1, 2, 'x') ON DUPLICATE KEY UPDATE b", 1064, id="odku-without-value"
    ),
    pytest.param("CREATE TABLE fz.bad (a INT, KEY ())", 1064, id="key-without-columns"),
    pytest.param("SELECT NOW('x')", 1064, id="fsp-not-integer"),
    pytest.param("SELECT NOW(7)", 1426, id="fsp-too-big"),
    pytest.param("SELECT JSON_OBJECT('n', 18446744073709551615)", None, id="json-of-bigint-unsigned"),
    pytest.param(
        "WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT * FROM c", 3636, id="cte"
    ),
]


def _test_strings() -> list[str]:
    """SQL string constants of tests/ (sorted, so the corpus does not depend on file-system order)."""
    out: set[str] = set()
    for path in sorted((ROOT / "tests").rglob("*.py")):
        if path.name == Path(__file__).name:
            continue
        try:
            tree = ast.parse(path.read_text())
        except (SyntaxError, UnicodeDecodeError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) < 300:
                text = node.value.strip().rstrip(";")
                if _SQL_START.match(text + " ") and "\n\n" not in text and text.isprintable():
                    out.add(text)
    return sorted(out)


def _mysql_test_statements() -> list[str]:
    """Statements of the mysql-test ``.test`` files (mysqltest commands and ``--`` lines dropped)."""
    out: set[str] = set()
    for path in sorted(MYSQL_TEST.rglob("*.test")) + sorted(MYSQL_TEST.rglob("*.inc")):
        buf: list[str] = []
        for line in path.read_text(errors="replace").splitlines():
            s = line.strip()
            if not s or s.startswith(("--", "#")):
                continue
            buf.append(s)
            if s.endswith(";"):
                text = " ".join(buf).rstrip(";").strip()
                buf = []
                if _SQL_START.match(text + " ") and "$" not in text:
                    out.add(text)
    return sorted(out)


def corpus() -> list[str]:
    """The fuzz corpus: statements that do not stop, block or reconfigure the server."""
    return [s for s in _test_strings() + _mysql_test_statements() if not _UNSAFE.search(s)]


def mutate(rng: random.Random, text: str) -> str:
    """One seeded mutation of ``text``: a token dropped, doubled, swapped, replaced by a spliced token or an
    extreme number, or the text cut short."""
    toks = _TOKEN.findall(text)
    if not toks:
        return text
    i = rng.randrange(len(toks))
    op = rng.randrange(7)
    if op == 0:
        del toks[i]
    elif op == 1:
        toks.insert(i, toks[i])
    elif op == 2:
        j = rng.randrange(len(toks))
        toks[i], toks[j] = toks[j], toks[i]
    elif op == 3:
        toks.insert(i, rng.choice(_SPLICE))
    elif op == 4:
        toks[i] = rng.choice(_SPLICE)
    elif op == 5:
        nums = [k for k, t in enumerate(toks) if t[0].isdigit()]
        toks[rng.choice(nums) if nums else i] = rng.choice(_EXTREME)
    else:
        toks = toks[: max(1, i)]
    return " ".join(toks)


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    datadir = tmp_path_factory.mktemp("fuzz") / "data"
    with running_server(datadir, "--skip-log-bin", "--gtid-mode=OFF", "--server-id=19") as s:
        yield s


def _connect(srv: ServerProcess) -> pymysql.connections.Connection:
    conn = pymysql.connect(
        host="127.0.0.1", port=srv.port, user="root", password="", autocommit=True, read_timeout=10
    )
    with conn.cursor() as cur:
        cur.execute("CREATE DATABASE IF NOT EXISTS fz")
        cur.execute("USE fz")
        cur.execute("CREATE TABLE IF NOT EXISTS t1 (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(20), n INT)")
        cur.execute("CREATE TABLE IF NOT EXISTS t (a INT, b INT, c VARCHAR(10))")
    return conn


def _verdict(conn: pymysql.connections.Connection, sql: str) -> str | None:
    """Run ``sql``; None when the answer is a result or one of MySQL's errors, else what went wrong."""
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            cur.fetchall()
            while cur.nextset():
                cur.fetchall()
    except pymysql.err.OperationalError as err:
        code = err.args[0]
        if 2000 <= code < 3000:  # client-side (CR_*): the server dropped the connection or sent garbage
            return f"connection lost: {err}"
        if code in _FOREIGN or code not in ER:
            return f"{code}: {err.args[1]}"
    except pymysql.err.MySQLError as err:
        code = err.args[0] if err.args and isinstance(err.args[0], int) else -1
        if code in _FOREIGN or code not in ER:
            return f"{code}: {err.args[1] if len(err.args) > 1 else err}"
    except (
        UnicodeDecodeError
    ) as err:  # a text column's bytes are not in its character set (MySQL converts them)
        return f"undecodable text in a result: {err}"
    return None


@pytest.mark.parametrize(("sql", "code"), REGRESSIONS)
def test_fuzz_regressions(srv: ServerProcess, sql: str, code: int | None) -> None:
    conn = _connect(srv)
    try:
        if code is None:
            assert _verdict(conn, sql) is None
        else:
            with pytest.raises(pymysql.err.MySQLError) as exc, conn.cursor() as cur:
                cur.execute(sql)
            assert exc.value.args[0] == code
    finally:
        conn.close()


def test_prepared_named_marker_is_1064(srv: ServerProcess) -> None:
    """COM_STMT_PREPARE of a text with ``:name``: MySQL's lexer has no such token (1064 at PREPARE)."""
    conn = mysql.connector.connect(host="127.0.0.1", port=srv.port, user="root", password="")
    with pytest.raises(mysql.connector.Error) as exc:
        conn.cursor(prepared=True).execute("SELECT FROM_UNIXTIME(:name)")
    assert exc.value.errno == 1064
    conn.close()


def test_rename_of_a_temporary_table(srv: ServerProcess) -> None:
    """RENAME TABLE names the session's temporary table when one shadows the base table (8.0.13+); the base table
    keeps its name (the fuzz found the two renamed apart)."""
    conn = _connect(srv)
    with conn.cursor() as cur:
        cur.execute("CREATE TABLE shadow (a INT)")
        cur.execute("INSERT INTO shadow VALUES (1)")
        cur.execute("CREATE TEMPORARY TABLE shadow (b INT)")
        cur.execute("INSERT INTO shadow VALUES (2)")
        cur.execute("RENAME TABLE shadow TO shadow2")
        cur.execute("SELECT * FROM shadow2")
        assert cur.fetchall() == ((2,),)
        cur.execute("SELECT * FROM shadow")
        assert cur.fetchall() == ((1,),)
        cur.execute("DROP TABLE shadow")
        cur.execute("CREATE TABLE shadow (c INT)")
    conn.close()


def test_mutated_statements_get_mysql_errors_only(srv: ServerProcess) -> None:
    statements = corpus()
    assert len(statements) > 500, "the corpus should be the suite's SQL"
    rng = random.Random(SEED)
    originals = rng.sample(statements, min(ORIGINALS, len(statements)))
    plan = originals + [mutate(rng, rng.choice(statements)) for _ in range(MUTANTS)]
    conn = _connect(srv)
    failures: list[str] = []
    for sql in plan:
        problem = _verdict(conn, sql)
        if problem is not None:
            failures.append(f"{sql!r} -> {problem}")
            if problem.startswith("connection lost"):
                conn.close()
                conn = _connect(srv)
    conn.close()
    assert srv.proc.poll() is None, "the server died"
    assert not failures, "\n".join(failures[:40]) + f"\n({len(failures)} statements)"
    with _connect(srv) as again, again.cursor() as cur:  # still serving
        cur.execute("SELECT 1")
        assert cur.fetchone() == (1,)
