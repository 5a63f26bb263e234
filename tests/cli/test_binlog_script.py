"""`gtidkit binlog show` as mysqlbinlog: the replayable script, checked against real mysqlbinlog output (the
5.6 outputs kept beside the zalora fixtures, and MySQL 8.0's mysql-test results for the 8.x parts), its filters,
and replays of STATEMENT- and ROW-format binlogs through the mariadb CLI (no --force) into a second gtidkit server."""

from __future__ import annotations

import base64
import json
import re
import shutil
import subprocess
from decimal import Decimal
from pathlib import Path

import pymysql
import pytest
from click.testing import CliRunner

from gtidkit.binlog import read_events
from gtidkit.cli.main import cli
from tests.protocol.prefork import run_gtidkit
from tests.protocol.server_proc import running_server

ROOT = Path(__file__).resolve().parents[2]
FIX = (ROOT / ".." / "shared" / "research" / "fixtures" / "binlogs").resolve()
ZALORA = FIX / "zalora__binlog-parser" / "fixtures"
GTID57 = FIX / "zalora__binlog-parser/gtid-fixtures/mysql-bin.01"
SID57 = "10440e47-3885-11eb-ac5b-0242ac110002"
PERCONA = FIX / "percona__percona-server-mysql-operator"
COMPRESSED = FIX / "osheroff__mysql-binlog-connector-java/mysql-bin.compressed"

#: The preamble and ending of mysqlbinlog 8.0/8.4 (client/mysqlbinlog.cc; mysql-test/r/mysqlbinlog.result).
PREAMBLE = (
    "# The proper term is pseudo_replica_mode, but we use this compatibility alias\n"
    "# to make the statement usable on server versions 8.0.24 and older.\n"
    "/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=1*/;\n"
    "/*!50003 SET @OLD_COMPLETION_TYPE=@@COMPLETION_TYPE,COMPLETION_TYPE=0*/;\n"
    "DELIMITER /*!*/;\n"
)
ENDING = (
    "SET @@SESSION.GTID_NEXT= 'AUTOMATIC' /* added by mysqlbinlog */ /*!*/;\n"
    "DELIMITER ;\n"
    "# End of log file\n"
    "/*!50003 SET COMPLETION_TYPE=@OLD_COMPLETION_TYPE*/;\n"
    "/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=0*/;\n"
)


def show(*args: object):
    return CliRunner().invoke(cli, ["binlog", "show", *map(str, args)])


_TIME = re.compile(r"^#\d{6} [ \d]\d:\d\d:\d\d ", re.MULTILINE)
_CREATED = re.compile(r"created \d{6} [ \d]\d:\d\d:\d\d")


def _untimed(text: str) -> str:
    """Header times blanked: the real outputs were printed in the machine's local time zone, ours in UTC."""
    return _CREATED.sub("created T", _TIME.sub("#T ", text))


#: What mysqlbinlog 5.6 printed and 8.x does not (or prints otherwise): (5.6 line, 8.x line or None).
MYSQL56_TO_8 = {
    "/*!40019 SET @@session.max_insert_delayed_threads=0*/;": None,  # gone in 8.0
    "/*!\\C utf8 *//*!*/;": "/*!\\C utf8mb3 *//*!*/;",  # collation 33's character set is utf8mb3 since 8.0.30
    "ROLLBACK /* added by mysqlbinlog */;": None,  # 8.0 ends with end_binlog() before DELIMITER ; instead
}


def _as_8x(real56: str) -> str:
    lines = []
    for line in real56.splitlines():
        if line.startswith("###"):
            continue  # -v row images: compared in test_verbose_rows_match_real_mysqlbinlog
        if line in MYSQL56_TO_8:
            if MYSQL56_TO_8[line] is not None:
                lines.append(MYSQL56_TO_8[line])
            continue
        if line == "DELIMITER ;":
            lines.append("SET @@SESSION.GTID_NEXT= 'AUTOMATIC' /* added by mysqlbinlog */ /*!*/;")
        lines.append(line)
    head = PREAMBLE.splitlines()[:2]
    return "\n".join(head + lines) + "\n"


@pytest.mark.parametrize("name", ["01", "02", "03", "05", "06", "empty"])  # 07 is a MariaDB binlog
def test_script_matches_real_mysqlbinlog_56(name: str) -> None:
    """DECODE-ROWS output (no BINLOG blocks) of the 5.6 binlogs equals what the real mysqlbinlog printed, line for
    line, once the 5.6 -> 8.x differences in MYSQL56_TO_8 are applied: positions, headers, the Query session
    context (pseudo_thread_id, flags2, sql_mode, auto_increment, charsets, lc_time_names, collation_database,
    ``use``), the statements and COMMITs."""
    real = (ZALORA / f"plaintext-mysql-bin.{name}").read_text()
    res = show("--base64-output=DECODE-ROWS", ZALORA / f"mysql-bin.{name}")
    assert res.exit_code == 0, res.output
    assert _untimed(res.output) == _untimed(_as_8x(real))


def test_script_matches_real_mysqlbinlog_55() -> None:
    """The same on a 5.5 statement-format binlog (ikarishinjieva test-mysql-bin: the real output was taken while the
    file was shorter, so it must be a prefix of ours up to its last event)."""
    d = FIX / "ikarishinjieva__mysql_binlog_utils"
    real = _untimed(_as_8x((d / "test-mysql-bin-result").read_text())).splitlines()
    ours = _untimed(show("--base64-output=DECODE-ROWS", d / "test-mysql-bin").output).splitlines()
    # the real output ends mid-file: drop its ending (DELIMITER ;, # End of log file ...) and compare the events
    cut = real.index("SET @@SESSION.GTID_NEXT= 'AUTOMATIC' /* added by mysqlbinlog */ /*!*/;")
    assert len(real[:cut]) > 700
    assert ours[:cut] == real[:cut]


@pytest.mark.parametrize("name", ["01", "02", "03", "06"])
def test_verbose_rows_match_real_mysqlbinlog(name: str) -> None:
    """-vv: the ``###`` pseudo-SQL of every rows event equals the real mysqlbinlog's (5.6, run with -vv)."""
    real = [
        line
        for line in (ZALORA / f"plaintext-mysql-bin.{name}").read_text().splitlines()
        if line[:3] == "###"
    ]
    res = show("--base64-output=DECODE-ROWS", "-vv", ZALORA / f"mysql-bin.{name}")
    assert res.exit_code == 0, res.output
    ours = [line for line in res.output.splitlines() if line[:3] == "###"]
    assert ours == real and real
    # -v: the same lines without the type comments; with BINLOG blocks, after the block
    res = show("-v", ZALORA / f"mysql-bin.{name}")
    plain = [line for line in res.output.splitlines() if line[:3] == "###"]
    assert plain == [re.sub(r" /\* .* \*/$", "", line) for line in real]
    assert "'/*!*/;\n### " in res.output


def test_fde_and_row_events_are_binlog_statements() -> None:
    """The FDE prints ROLLBACK then its own BINLOG block; a Table_map + rows statement prints its headers, then
    one block with both events (mysql-test binlog_gtid_mysqlbinlog_row / mysqlbinlog.result layout): base64 of
    the exact event bytes, 76 characters a line."""
    path = PERCONA / "binlog.000003"
    out = show(path).output
    assert out.startswith(PREAMBLE) and out.endswith(ENDING)
    raws = {e.pos: e for e in read_events(path)}
    fde_raw = Path(path).read_bytes()[4 : 4 + raws[4].header.event_size]
    fde_block = "BINLOG '\n" + base64.encodebytes(fde_raw).decode() + "'/*!*/;\n"
    assert f"at startup\nROLLBACK/*!*/;\n{fde_block}" in out or f"\n{fde_block}# at 127\n" in out
    data = Path(path).read_bytes()
    tm = data[348:392]
    wr = data[392:442]
    block = "\nBINLOG '\n" + base64.encodebytes(tm).decode() + base64.encodebytes(wr).decode() + "'/*!*/;\n"
    assert (
        "\tTable_map: `t`.`a` mapped to number 109\n# has_generated_invisible_primary_key=0\n# at 392\n"
        in out
    )
    assert "\tWrite_rows: table id 109 flags: STMT_END_F\n" + block + "# at 442\n" in out
    blocks = re.findall(r"^BINLOG '\n(.*?)^'/\*!\*/;$", out, re.MULTILINE | re.DOTALL)
    assert len(blocks) == 2 and all(len(line) <= 76 for b in blocks for line in b.splitlines())
    never = show("--base64-output=NEVER", path)
    assert never.exit_code == 1
    assert "--base64-output=never specified, but binlog contains a Write_rows event" in never.output


def test_query_context_and_gtid_next() -> None:
    out = show(PERCONA / "binlog.000002").output
    assert "SET @@SESSION.GTID_NEXT= 'ca3ce93b-9bea-11f1-b808-e608fdb6e3c5:1'/*!*/;\n# at 235\n" in out
    assert (
        "\terror_code=0\tXid = 8\nSET TIMESTAMP=1787156823/*!*/;\nSET @@session.pseudo_thread_id=10/*!*/;\n"
        in out
    )
    assert "SET @@session.sql_mode=1168113696/*!*/;\n" in out
    assert (
        "/*!80011 SET @@session.default_collation_for_utf8mb4=255*//*!*/;\n"
        "/*!80016 SET @@session.default_table_encryption=0*//*!*/;\nCREATE DATABASE t\n/*!*/;\n"
    ) in out
    # the second statement only repeats what changed (sql_require_primary_key is printed whenever present)
    assert "SET TIMESTAMP=1787156823/*!*/;\n/*!80013 SET @@session.sql_require_primary_key=0*//*!*/;\n" in out
    skip = show("--skip-gtids", PERCONA / "binlog.000002").output
    assert "GTID_NEXT= '" not in skip and "Previous-GTIDs" not in skip
    assert "/*!50616 SET @@SESSION.GTID_NEXT='AUTOMATIC'*//*!*/;\n" in skip
    assert skip.endswith("DELIMITER ;\n# End of log file\n" + ENDING.split("# End of log file\n")[1])


def _gtid_nexts(text: str) -> list[str]:
    return re.findall(r"^SET @@SESSION.GTID_NEXT= '([^']+)'/\*!\*/;$", text, re.MULTILINE)


#: Offsets of the Gtid events of GTID57 by GNO (6..22).
GTID_AT = {e.event.gtid.gno: e.pos for e in read_events(GTID57) if getattr(e.event, "gtid", None) is not None}


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("--exclude-gtids", f"{SID57}:1-20"), [21, 22]),
        (("--include-gtids", f"{SID57}:7-8"), [7, 8]),
        (("--include-gtids", f"{SID57}:7-30", "--exclude-gtids", f"{SID57}:8-21"), [7, 22]),
        (("--stop-position", GTID_AT[8]), [6, 7]),
        (("--start-position", GTID_AT[8], "--stop-position", GTID_AT[10]), [8, 9]),
        (("--start-position", GTID_AT[21]), [21, 22]),
    ],
    ids=["exclude", "include", "both", "stop-position", "start-stop-position", "start-position"],
)
def test_filters(args: tuple[object, ...], expected: list[int]) -> None:
    res = show(*args, GTID57)
    assert res.exit_code == 0, res.output
    assert _gtid_nexts(res.output) == [f"{SID57}:{n}" for n in expected]
    assert res.output.endswith(ENDING)


def test_datetime_filters_and_database() -> None:
    times = [e.header.timestamp for e in read_events(GTID57) if e.event.__class__.__name__ == "GtidEvent"]
    import time as _time

    local = _time.strftime("%Y-%m-%d %H:%M:%S", _time.localtime(times[3]))
    res = show("--stop-datetime", local, GTID57)
    assert res.exit_code == 0, res.output
    cut = [t for t in times if t < times[3]]
    assert len(_gtid_nexts(res.output)) == len(cut)
    res = show("--start-datetime", local, GTID57)
    assert len(_gtid_nexts(res.output)) == len([t for t in times if t >= times[3]])
    assert show("--stop-datetime", "yesterday", GTID57).exit_code == 2
    other = show("--database", "no_such_db", GTID57).output
    assert "INSERT" not in other.upper().replace("INSERT_ID", "")  # every statement filtered out
    assert "COMMIT /* added by mysqlbinlog */" in other or "COMMIT/*!*/;" in other


def test_disable_log_bin() -> None:
    out = show("--disable-log-bin", PERCONA / "binlog.000002").output
    assert out.startswith(
        PREAMBLE.replace(
            "/*!50003", "/*!32316 SET @OLD_SQL_LOG_BIN=@@SQL_LOG_BIN, SQL_LOG_BIN=0*/;\n/*!50003"
        )
    )
    assert out.endswith(
        "/*!50003 SET COMPLETION_TYPE=@OLD_COMPLETION_TYPE*/;\n/*!32316 SET SQL_LOG_BIN=@OLD_SQL_LOG_BIN*/;\n"
        "/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=0*/;\n"
    )


def test_result_file_and_to_last_log(tmp_path: Path) -> None:
    for n in ("000001", "000002", "000003"):
        shutil.copy(PERCONA / f"binlog.{n}", tmp_path / f"binlog.{n}")
    out = tmp_path / "out.sql"
    res = show("--to-last-log", "--result-file", out, tmp_path / "binlog.000002")
    assert res.exit_code == 0 and res.output == ""
    text = out.read_text()
    assert _gtid_nexts(text) == [f"ca3ce93b-9bea-11f1-b808-e608fdb6e3c5:{n}" for n in (1, 2, 3)]
    assert text.count("Start: binlog v 4") == 2


def test_previous_gtids_are_checked_across_files() -> None:
    ok = run_gtidkit(
        [
            "binlog",
            "show",
            PERCONA / "binlog.000002",
            PERCONA / "binlog.000003",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert ok.returncode == 0 and ok.stderr == ""
    swapped = run_gtidkit(
        [
            "binlog",
            "show",
            PERCONA / "binlog.000003",
            PERCONA / "binlog.000002",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert swapped.returncode == 0
    assert "WARNING: The Previous_gtids of" in swapped.stderr and "out of order" in swapped.stderr


def test_compressed_transaction_events_print_inside_the_payload() -> None:
    out = show(COMPRESSED).output
    assert "\tTransaction_Payload\t\tpayload_size=" in out and "# Start of compressed events.\n" in out
    assert "# End of compressed events.\n" in out
    assert "\tUpdate_rows: table id" in out and "\nBINLOG '\n" in out


# ------------------------------------------------------------------------------------------------- replay


def _mariadb() -> str:
    exe = shutil.which("mariadb")
    if exe is None:
        pytest.skip("mariadb client not installed (.ci/run installs mariadb-client)")
    return exe


def _rows(port: int, sql: str) -> list[tuple]:
    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", autocommit=True)
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            return list(cur.fetchall())
    finally:
        conn.close()


#: The source's workload: every column type the row decoder knows, AUTO_INCREMENT (Intvar events), user
#: variables (User_var events), RAND() without a seed (a Rand event), LAST_INSERT_ID(), a rotation, a transaction
#: of several statements, multi-row UPDATE / DELETE.
REPLAY_WORKLOAD = [
    "CREATE DATABASE app",
    "CREATE TABLE app.t (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(20), ts DATETIME)",
    "USE app",
    "INSERT INTO t (v, ts) VALUES ('a', NOW())",
    "INSERT INTO t (v) VALUES ('b''q')",
    (
        "CREATE TABLE k (id INT PRIMARY KEY, d DECIMAL(12,3), f DOUBLE, u BIGINT UNSIGNED, b BLOB, j JSON,"
        " e ENUM('x','y'), s SET('p','q'), dt DATETIME(6), tm TIME, da DATE, ts TIMESTAMP NULL, y YEAR, c CHAR(5),"
        " vb VARBINARY(10), bt BIT(5), ti TINYINT, sm SMALLINT, mi MEDIUMINT, fl FLOAT)"
    ),
    (
        "INSERT INTO k VALUES (1, -12.5, 1.5e300, 18446744073709551615, x'00ff41', '{\"a\": [1, 2, null]}', 'y',"
        " 'p,q', '2024-02-29 23:59:59.123456', '-12:34:56', '1000-01-01', '2038-01-19 03:14:07', 2155, 'héllo',"
        " x'0102', b'10101', -128, -32768, -8388608, 0.25)"
    ),
    "INSERT INTO k (id) VALUES (2), (3), (4)",
    "FLUSH BINARY LOGS",
    "BEGIN",
    "INSERT INTO t (v) VALUES ('in trx')",
    "UPDATE t SET v = 'upd' WHERE id = 1",
    "UPDATE k SET c = 'zz', d = 3.14 WHERE id >= 2",
    "COMMIT",
    "DELETE FROM k WHERE id = 3",
    "SET @uv = 'user''s value', @num = 42",
    "CREATE TABLE r (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(40), n INT, x DOUBLE)",
    "INSERT INTO r (v, n) VALUES (@uv, @num)",
    "INSERT INTO r (v, x) VALUES ('rand', RAND())",
    "INSERT INTO r (v, n) VALUES ('lid', LAST_INSERT_ID())",
    # the session context each Query carries: time zone, sql_mode, character sets, auto_increment_increment /
    # _offset, another default database
    "SET time_zone = '+05:30'",
    "SET sql_mode = 'ANSI_QUOTES,NO_BACKSLASH_ESCAPES'",
    "SET NAMES latin1",
    "SET auto_increment_increment = 3, auto_increment_offset = 2",
    "CREATE DATABASE l1 CHARACTER SET latin1",
    "USE l1",
    "CREATE TABLE z (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(50), ts TIMESTAMP NULL)",
    "INSERT INTO z (v, ts) VALUES (DATE_FORMAT('2024-03-01', '%W %M'), '2024-01-01 00:00:00')",
    "INSERT INTO z (v) VALUES ('a\\b'), ('x')",
    "SET NAMES utf8mb4, auto_increment_increment = 1, auto_increment_offset = 1",
    "USE app",
    "DELETE FROM t WHERE id = 2",
]
REPLAY_TABLES = ("app.t", "app.k", "app.r", "l1.z")
#: what each format's script must contain for the replay to exercise it
REPLAY_MARKERS = {
    "STATEMENT": (
        rb"\tIntvar\nSET INSERT_ID=1/\*!\*/;\n#[^\n]*\tQuery\t",
        rb"\nSET @@RAND_SEED1=\d+, @@RAND_SEED2=\d+/",
        rb"\nSET @`uv`:=_utf8mb4 0x",
        rb"\nSET @@session.time_zone='\+05:30'/",
        rb"\n/\*!\\C latin1 \*/",
    ),
    "ROW": (rb"\tTable_map: `app`.`k`", rb"\tUpdate_rows: table id \d+ flags: STMT_END_F\n\nBINLOG '\n"),
}


def _tables(port: int) -> dict[str, list[tuple]]:
    return {t: _rows(port, f"SELECT * FROM {t} ORDER BY id") for t in REPLAY_TABLES}


@pytest.mark.parametrize("fmt", ["STATEMENT", "ROW"])
def test_binlog_replays_through_mariadb_cli(tmp_path: Path, fmt: str) -> None:
    """A STATEMENT- or ROW-format source's binlogs, printed and piped into the mariadb CLI (without --force: every
    statement of the script must succeed, as on MySQL) against a fresh server, give equal tables and the same
    GTID_EXECUTED; the same script replayed a second time is skipped by GTID; --exclude-gtids of the last
    transaction leaves it out."""
    with running_server(tmp_path / "src", "--log-bin", f"--binlog-format={fmt}", "--server-id=1") as src:
        conn = pymysql.connect(host="127.0.0.1", port=src.port, user="root", autocommit=True)
        with conn.cursor() as cur:
            for q in REPLAY_WORKLOAD:
                cur.execute(q)
        conn.close()
        expected = _tables(src.port)
        gtids = _rows(src.port, "SELECT @@GLOBAL.gtid_executed")[0][0]
    assert expected["app.k"][0][1:4] == (Decimal("-12.500"), 1.5e300, 18446744073709551615)
    # NO_BACKSLASH_ESCAPES: one backslash; ids of the series auto_increment_offset + k * auto_increment_increment
    assert [r[:2] for r in expected["l1.z"]] == [(2, "Friday March"), (5, "a\\b"), (8, "x")]
    files = sorted(str(p) for p in (tmp_path / "src").glob("binlog.0*"))
    assert len(files) == 2
    sid = gtids.split(":")[0]
    last = int(gtids.rsplit("-", 1)[1])
    before_delete = dict(
        expected, **{"app.t": [expected["app.t"][0], (2, "b'q", None), *expected["app.t"][1:]]}
    )
    for name, extra, tables, executed, times in [
        ("all", (), expected, gtids, 2),
        ("exclude-last", ("--exclude-gtids", f"{sid}:{last}"), before_delete, f"{sid}:1-{last - 1}", 1),
    ]:
        script = run_gtidkit(
            ["binlog", "show", *extra, *files],
            capture_output=True,
            check=True,
        ).stdout
        for marker in REPLAY_MARKERS[fmt]:
            assert re.search(marker, script), (name, marker)
        with running_server(tmp_path / f"dst-{name}", "--log-bin", "--server-id=2") as dst:
            for n in range(times):
                r = subprocess.run(
                    [_mariadb(), "-h127.0.0.1", f"-P{dst.port}", "-uroot"],
                    input=script,
                    capture_output=True,
                    timeout=120,
                    check=False,
                )
                assert (r.returncode, r.stderr.decode()) == (0, ""), (name, n)
                assert _tables(dst.port) == tables, (name, n)
                assert _rows(dst.port, "SELECT @@GLOBAL.gtid_executed")[0][0] == executed, (name, n)


def test_json_carries_row_values() -> None:
    """--json rows events carry their decoded values: the same rows the real mysqlbinlog -vv printed for the
    zalora binlog (### @1=1 @2='ACME Headquaters' ...), and JSON columns as documents."""
    res = show("--json", ZALORA / "mysql-bin.01")
    rows = [o for o in map(json.loads, res.output.splitlines()) if "rows" in o]
    assert rows[0]["database"] == "test_db" and rows[0]["table"] == "buildings"
    assert rows[0]["rows"] == [
        {"after": [1, "ACME Headquaters", "3950 North 1st Street CA 95134"]},
        {"after": [2, "ACME Sales", "5000 North 1st Street CA 95134"]},
    ]
    real = (ZALORA / "plaintext-mysql-bin.01").read_text()
    assert "###   @2='ACME Headquaters'" in real and "###   @3='3950 North 1st Street CA 95134'" in real
    doc = show("--json", FIX / "blackbeam__rust_mysql_common/json.binlog.000001").output
    first = next(o for o in map(json.loads, doc.splitlines()) if "rows" in o)
    assert first["rows"] == [{"after": [1, {"age": 24, "data": "xxxxxxxxxx", "name": "Joe"}, "Joe", 24]}]


#: CREATE TABLE statements of mysql-test binlog_table_map_optional_metadata.test and the lines MySQL's mysqlbinlog
#: --print-table-metadata printed for their Table_map with binlog_row_metadata=FULL (its .result file).
TABLE_METADATA = [
    (
        "CREATE TABLE t1 (c_json JSON, c_char CHAR(100))",
        "INSERT INTO t1(c_char) VALUES('abc')",
        "# Columns(`c_json` JSON,\n#         `c_char` CHAR(100) CHARSET utf8mb4 COLLATE utf8mb4_0900_ai_ci)\n",
    ),
    (
        "CREATE TABLE t1 (c_char CHAR(10), c_varchar VARCHAR(500), c_tinytext TINYTEXT, c_text TEXT)",
        "INSERT INTO t1(c_char) VALUES('1')",
        (
            "# Columns(`c_char` CHAR(10) CHARSET utf8mb4 COLLATE utf8mb4_0900_ai_ci,\n"
            "#         `c_varchar` VARCHAR(500) CHARSET utf8mb4 COLLATE utf8mb4_0900_ai_ci,\n"
            "#         `c_tinytext` TINYTEXT CHARSET utf8mb4 COLLATE utf8mb4_0900_ai_ci,\n"
            "#         `c_text` TEXT CHARSET utf8mb4 COLLATE utf8mb4_0900_ai_ci)\n"
        ),
    ),
]


def test_print_table_metadata_against_mysql_test(tmp_path: Path) -> None:
    with running_server(
        tmp_path / "d", "--log-bin", "--binlog-format=ROW", "--binlog-row-metadata=FULL", "--server-id=1"
    ) as srv:
        conn = pymysql.connect(host="127.0.0.1", port=srv.port, user="root", autocommit=True)
        with conn.cursor() as cur:
            cur.execute("CREATE DATABASE test")
            cur.execute("USE test")
            for create, insert, _ in TABLE_METADATA:
                cur.execute(create)
                cur.execute(insert)
                cur.execute("DROP TABLE t1")
        conn.close()
    files = sorted((tmp_path / "d").glob("binlog.0*"))
    out = show("--print-table-metadata", *files).output
    for _, _, expected in TABLE_METADATA:
        assert expected in out, out[-3000:]
