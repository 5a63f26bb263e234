"""LOAD DATA's statement parser and line reader (engine/statements/load_data.py), and the statement in an engine
session: server files under secure_file_priv, STATEMENT-format logging, prepared statements.

Expected values: RM8 15.2.9 "LOAD DATA Statement" (defaults FIELDS TERMINATED BY '\\t' ENCLOSED BY '' ESCAPED BY
'\\\\', LINES TERMINATED BY '\\n' STARTING BY ''; ``\\N`` is NULL, and ``NULL`` unenclosed when an enclosure is
given; doubled enclosure characters; IGNORE n LINES; LINES STARTING BY skips lines without the prefix), MySQL
``sql/sql_load.cc`` (``READ_INFO::unescape``: \\0 \\b \\n \\r \\t \\Z).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from gtidkit.engine.statements.load_data import parse_load_data, split_lines
from gtidkit.errors import MySQLError
from tests.engine.datadirs import open_new

BASE = "LOAD DATA INFILE 'f' INTO TABLE t"

PARSE_CASES = [
    pytest.param(
        BASE, {"local": False, "duplicates": "error", "table": "t", "field_term": "\t"}, id="defaults"
    ),
    pytest.param(
        "LOAD DATA LOW_PRIORITY LOCAL INFILE '/x' REPLACE INTO TABLE d.t PARTITION (p0, p1) CHARACTER SET latin1 "
        "COLUMNS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' ESCAPED BY '' LINES STARTING BY 'x' "
        "TERMINATED BY '\\r\\n' IGNORE 2 ROWS (a, @b, `c`) SET d = @b + 1, e = CONCAT('a', 'b,c')",
        {
            "local": True,
            "duplicates": "replace",
            "schema": "d",
            "charset": "latin1",
            "field_term": ",",
            "enclosed": '"',
            "optionally": True,
            "escaped": "",
            "escaped_given": True,
            "line_start": "x",
            "line_term": "\r\n",
            "skip_lines": 2,
            "targets": (("col", "a"), ("var", "b"), ("col", "c")),
            "assignments": (("d", "@b + 1"), ("e", "CONCAT('a', 'b,c')")),
        },
        id="every-clause",
    ),
    pytest.param(
        "LOAD DATA CONCURRENT INFILE 'f' IGNORE INTO TABLE t FIELDS ESCAPED BY '!' TERMINATED BY ';'",
        {"duplicates": "ignore", "escaped": "!", "field_term": ";"},
        id="field-options-any-order",
    ),
]


@pytest.mark.parametrize(("sql", "expected"), PARSE_CASES)
def test_parse(sql: str, expected: dict[str, object]) -> None:
    ld = dataclasses.asdict(parse_load_data(sql))
    assert {k: ld[k] for k in expected} == expected


@pytest.mark.parametrize(
    ("sql", "code"),
    [
        pytest.param("LOAD DATA INFILE f INTO TABLE t", 1064, id="unquoted-file"),
        pytest.param("LOAD DATA INFILE 'f' INTO t", 1064, id="no-table-keyword"),
        pytest.param(BASE + " FIELDS", 1064, id="fields-without-option"),
        pytest.param(BASE + " FIELDS ENCLOSED BY 'ab'", 1083, id="enclosed-two-characters"),
        pytest.param(BASE + " FIELDS ESCAPED BY 'ab'", 1083, id="escaped-two-characters"),
        pytest.param("LOAD XML INFILE 'f' INTO TABLE t", 1235, id="xml"),
    ],
)
def test_parse_errors(sql: str, code: int) -> None:
    with pytest.raises(MySQLError) as exc:
        parse_load_data(sql)
    assert exc.value.code == code


READ_CASES = [
    pytest.param("a\tb\nc\td\n", "", [["a", "b"], ["c", "d"]], id="defaults"),
    pytest.param("a\tb\nc", "", [["a", "b"], ["c"]], id="last-line-without-terminator"),
    pytest.param("\\N\tN\t\\\\N\n", "", [[None, "N", "\\N"]], id="backslash-N-is-null"),
    pytest.param("\\0\\b\\n\\r\\t\\Z\\x\n", "", [["\0\b\n\r\t\x1a" + "x"]], id="escapes"),
    pytest.param("a\t\n", "", [["a", ""]], id="empty-field"),
    pytest.param("\n", "", [[""]], id="empty-line"),
    pytest.param(
        '"a,b",NULL,"NULL","x""y"\n',
        "FIELDS TERMINATED BY ',' ENCLOSED BY '\"'",
        [["a,b", None, "NULL", 'x"y']],
        id="enclosed",
    ),
    pytest.param(
        '"a\nb",c\n', "FIELDS TERMINATED BY ',' ENCLOSED BY '\"'", [["a\nb", "c"]], id="newline-enclosed"
    ),
    pytest.param("h\n1\n2\n", "IGNORE 1 LINES", [["1"], ["2"]], id="ignore-lines"),
    pytest.param("junk>a\nno prefix\n>b\n", "LINES STARTING BY '>'", [["a"], ["b"]], id="starting-by"),
    pytest.param("a\\tb\n", "FIELDS ESCAPED BY ''", [["a\\tb"]], id="no-escape"),
    pytest.param(
        "a;b|c;d|", "FIELDS TERMINATED BY ';' LINES TERMINATED BY '|'", [["a", "b"], ["c", "d"]], id="custom"
    ),
]


@pytest.mark.parametrize(("data", "clauses", "lines"), READ_CASES)
def test_split_lines(data: str, clauses: str, lines: list[list[str | None]]) -> None:
    ld = parse_load_data(f"{BASE} {clauses}")
    assert split_lines(data, ld, ld.escaped) == lines


@pytest.fixture
def session(tmp_path: Path):
    files = tmp_path / "files"
    files.mkdir()
    srv = open_new(tmp_path / "d", secure_file_priv=str(files), log_bin=True, binlog_format="STATEMENT")
    s = srv.session()
    for q in ("CREATE DATABASE d", "USE d", "CREATE TABLE t (a INT, b TEXT)"):
        s.execute(q)
    yield s, files
    srv.shutdown()


def test_statement_format_logs_the_rows_as_an_insert(session) -> None:
    """STATEMENT format: the load is logged as the INSERT of its rows (MySQL: Begin_load_query + Execute_load_query,
    README known differences), written so that it reads back the same under any sql_mode."""
    s, files = session
    (files / "x.txt").write_text("1\ta\\\\b\n2\tit's\n")
    res = s.execute(f"LOAD DATA INFILE '{files / 'x.txt'}' INTO TABLE t")[0]
    assert (res.affected_rows, res.info) == (2, "Records: 2  Deleted: 0  Skipped: 0  Warnings: 0")
    events = [(r[2], r[5]) for r in s.execute("SHOW BINLOG EVENTS")[0].rows]
    assert (
        "Query",
        "use `d`; INSERT INTO `d`.`t` (`a`, `b`) VALUES ('1', _utf8mb4 X'615c62'), ('2', 'it''s')",
    ) in events
    assert s.execute("SELECT b FROM t ORDER BY a")[0].rows == [("a\\b",), ("it's",)]


def test_secure_file_priv_and_prepare(session) -> None:
    """A relative name is under the datadir's database directory, outside secure_file_priv: 1290; LOAD DATA cannot
    be prepared (1295, RM8 "Prepared Statements"); LOCAL without a client that can send files: 3948."""
    s, files = session
    with pytest.raises(MySQLError) as exc:
        s.execute("LOAD DATA INFILE 'x.txt' INTO TABLE t")
    assert exc.value.code == 1290
    with pytest.raises(MySQLError) as exc:
        s.prepare(f"LOAD DATA INFILE '{files / 'x.txt'}' INTO TABLE t")
    assert exc.value.code == 1295
    s.execute("SET GLOBAL local_infile = ON")
    with pytest.raises(MySQLError) as exc:
        s.execute("LOAD DATA LOCAL INFILE 'x.txt' INTO TABLE t")
    assert exc.value.code == 3948


#: mysql-test r/loaddata.result over std_data/rpl_loaddata.dat ("\N<TAB>10\n\N<TAB>15\n") into
#: t1 (a INT DEFAULT 100, b INT, c VARCHAR(60)): (clauses, rows after the load, warnings)
RPL_LOADDATA = [
    pytest.param(
        '(a, @b) SET b=@b+10, c=concat("b=",@b)',
        [(None, 20, "b=10"), (None, 25, "b=15")],
        [],
        id="set-from-var",
    ),
    pytest.param(
        '(a, @b) SET c= if(a is null,"oops",a)',
        [(None, None, "oops"), (None, None, "oops")],
        [],
        id="set-reads-column",
    ),
    pytest.param(
        "(@a, b) SET c= if(@a is null,@c,b)",
        [(100, 10, "123"), (100, 15, "123")],
        [],
        id="set-reads-user-var",
    ),
    pytest.param("(@a, @b)", [(100, None, None), (100, None, None)], [], id="only-variables"),
    pytest.param(
        "SET c=b",
        [(None, 10, "10"), (None, 15, "15")],
        [
            (1261, "Row 1 doesn't contain data for all columns"),
            (1261, "Row 2 doesn't contain data for all columns"),
        ],
        id="set-overrides-listed-column",
    ),
    pytest.param(
        "(@dummy,@n) SET a= @n, c= (select str from t2 where num=@n)",
        [(10, None, "Ten"), (15, None, "Fifteen")],
        [],
        id="set-subquery",
    ),
]


@pytest.mark.parametrize(("clauses", "rows", "warnings"), RPL_LOADDATA)
def test_loaddata_result_user_variables_and_set(session, clauses, rows, warnings) -> None:
    s, files = session
    (files / "rpl_loaddata.dat").write_text("\\N\t10\n\\N\t15\n")
    s.execute("CREATE TABLE t1 (a INT DEFAULT 100, b INT, c VARCHAR(60))")
    s.execute("CREATE TABLE t2 (num INT PRIMARY KEY, str VARCHAR(10))")
    s.execute("INSERT INTO t2 VALUES (10,'Ten'), (15,'Fifteen')")
    s.execute("SET @c := 123")
    s.execute(
        "SET sql_mode = ''"
    )  # the result file's mode: 1261 is a warning (strict mode makes it an error)
    res = s.execute(f"LOAD DATA INFILE '{files / 'rpl_loaddata.dat'}' INTO TABLE t1 {clauses}")[0]
    assert [(w.code, w.message) for w in res.warnings] == warnings
    assert s.execute("SELECT a, b, c FROM t1")[0].rows == rows
    if clauses == "(@a, @b)":  # the variables keep the last line's values
        assert s.execute("SELECT @a, @b")[0].rows == [(None, "15")]


def test_secure_file_priv_is_read_only(session) -> None:
    """loaddata.result: ``set @@secure_file_priv= 0`` is 1238 (a read-only variable)."""
    s, files = session
    assert s.execute("SELECT @@secure_file_priv")[0].rows == [(str(files),)]
    with pytest.raises(MySQLError) as exc:
        s.execute("SET @@secure_file_priv = 0")
    assert exc.value.code == 1238


@pytest.mark.parametrize("sql_mode", ["", "NO_BACKSLASH_ESCAPES"], ids=["default", "no-backslash-escapes"])
def test_statement_format_text_replays_the_same_rows(session, tmp_path: Path, sql_mode: str) -> None:
    """The logged INSERT reads back the loaded values (backslashes, quotes, tabs, NULL, non-ASCII) under either
    lexing, as a replica or mysqlbinlog replay runs it."""
    s, files = session
    (files / "r.txt").write_text("1\ta\\\\b\n2\tit's\n3\t\\N\n4\ttab\\there\n5\tcafé 😀\n")
    s.execute(f"LOAD DATA INFILE '{files / 'r.txt'}' INTO TABLE t")
    logged = [r[5] for r in s.execute("SHOW BINLOG EVENTS")[0].rows if "INSERT INTO" in r[5]][-1]
    replica = open_new(tmp_path / "replica")
    try:
        r = replica.session()
        for q in (
            "CREATE DATABASE d",
            "USE d",
            "CREATE TABLE t (a INT, b TEXT)",
            f"SET sql_mode = '{sql_mode}'",
        ):
            r.execute(q)
        r.execute(logged.split("; ", 1)[1])
        assert (
            r.execute("SELECT a, b FROM t ORDER BY a")[0].rows
            == s.execute("SELECT a, b FROM t ORDER BY a")[0].rows
        )
    finally:
        replica.shutdown()


@pytest.mark.parametrize(
    ("clause", "data", "expected"),
    [
        pytest.param("CHARACTER SET latin1", b"1\tcaf\xe9\n", "café", id="latin1"),
        pytest.param("CHARACTER SET utf8mb4", "1\tcafé\n".encode(), "café", id="utf8mb4"),
        pytest.param("CHARACTER SET binary", "1\tcafé\n".encode(), "café", id="binary-no-conversion"),
        pytest.param("", "1\tcafé\n".encode(), "café", id="database-default"),
    ],
)
def test_character_set(session, clause: str, data: bytes, expected: str) -> None:
    """CHARACTER SET names the file's set (RM8: "the character set indicated by character_set_database" when not
    given; ``binary``: no conversion)."""
    s, files = session
    (files / "cs.txt").write_bytes(data)
    s.execute(f"LOAD DATA INFILE '{files / 'cs.txt'}' INTO TABLE t {clause}")
    assert s.execute("SELECT b FROM t")[0].rows == [(expected,)]


def test_local_reader_and_gtid_skip(tmp_path: Path) -> None:
    """LOCAL asks the session's reader (the wire server's LOCAL INFILE request) for the file after the table
    checks; a statement whose GTID is already executed is skipped without asking (gtid_pre_statement_checks)."""
    srv = open_new(tmp_path / "d", gtid_mode="ON", local_infile=True)
    try:
        s = srv.session()
        asked: list[str] = []

        def reader(name: str) -> bytes:
            asked.append(name)
            return b"1\n2\n"

        s.local_infile_reader = reader
        for q in ("CREATE DATABASE d", "USE d", "CREATE TABLE t (a INT)"):
            s.execute(q)
        with pytest.raises(MySQLError) as exc:
            s.execute("LOAD DATA LOCAL INFILE 'f.txt' INTO TABLE missing")
        assert (exc.value.code, asked) == (1146, [])  # no request before the table is known
        gtid = "3e11fa47-71ca-11e1-9e33-c80aa9429562:100"
        s.execute(f"SET gtid_next = '{gtid}'")
        s.execute("LOAD DATA LOCAL INFILE 'f.txt' INTO TABLE t")
        assert asked == ["f.txt"]
        s.execute(f"SET gtid_next = '{gtid}'")  # executed already: the statement is skipped
        s.execute("LOAD DATA LOCAL INFILE 'g.txt' INTO TABLE t")
        s.execute("SET gtid_next = 'AUTOMATIC'")
        assert asked == ["f.txt"]
        assert s.execute("SELECT COUNT(*) FROM t")[0].rows == [(2,)]
    finally:
        srv.shutdown()


def test_view_and_temporary_table(session) -> None:
    """A view is refused as INSERT through one is (1235); a temporary table loads (not logged in ROW format)."""
    s, files = session
    (files / "v.txt").write_text("1\tx\n")
    s.execute("CREATE VIEW v AS SELECT * FROM t")
    with pytest.raises(MySQLError) as exc:
        s.execute(f"LOAD DATA INFILE '{files / 'v.txt'}' INTO TABLE v")
    assert exc.value.code == 1235
    s.execute("CREATE TEMPORARY TABLE tt (a INT, b TEXT)")
    res = s.execute(f"LOAD DATA INFILE '{files / 'v.txt'}' INTO TABLE tt")[0]
    assert res.info == "Records: 1  Deleted: 0  Skipped: 0  Warnings: 0"
    assert s.execute("SELECT a, b FROM tt")[0].rows == [(1, "x")]
