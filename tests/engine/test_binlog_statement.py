"""``BINLOG '<base64>'`` and the session variables of mysqlbinlog's output (engine/statements/binlog_statement.py).

Oracles: MySQL's ``mysql-test/r/mysqlbinlog_base64_flag.result`` (8.0.41 mirror: the BINLOG statements of a 5.1
binlog, their errors and the table after each), ``sql/sql_binlog.cc`` / ``sql/sys_vars.cc`` for the error codes and
warning texts, the base64 blocks ``mariadb-binlog`` (an independent mysqlbinlog) prints for binlogs gtidkit wrote,
and the raw event bytes of real MySQL binlogs (shared fixtures, INDEX.md) for what mariadb-binlog cannot read
(PARTIAL_UPDATE_ROWS). The rows a replay leaves are compared with the same transactions applied by gtidkit's replica
applier (``ApplierSession``), the other path through the same engine.
"""

from __future__ import annotations

import base64
import re
import shutil
import subprocess

import pytest

from gtidkit.binlog import read_events
from gtidkit.binlog.events.rows import RowsEvent
from gtidkit.engine import Server
from gtidkit.engine.apply import read_transactions
from gtidkit.errors import MySQLError
from gtidkit.gtid import GtidSet
from tests.engine.datadirs import open_new


def checksum(server: Server) -> str:
    """Every user table's rows (sorted) of ``server``, as text to compare."""
    out = []
    with server.session() as s:
        for (db,) in sorted(s.execute("SHOW DATABASES")[-1].rows):
            if db in ("mysql", "information_schema", "performance_schema", "sys"):
                continue
            for (t,) in sorted(s.execute(f"SHOW TABLES FROM `{db}`")[-1].rows):
                rows = s.execute(f"SELECT * FROM `{db}`.`{t}`")[-1].rows
                out.append(f"{db}.{t}:{sorted(map(repr, rows))}")
    return "\n".join(out)


MARIADB_BINLOG = shutil.which("mariadb-binlog") or shutil.which("mysqlbinlog")

# ------------------------------------------------------------------------------------ mysql-test oracle
#: mysqlbinlog_base64_flag.result: a 5.1.23 Table_map + Write_rows_v1 (t1 INT: 2, then 3), before and after a 5.1.23
#: Format_description, and a 5.1.15-ndb FD whose post-header table does not describe the rows event.
_TM_WR_2 = "SVtYRxMBAAAAKQAAADQBAAAAABAAAAAAAAAABHRlc3QAAnQxAAEDAAE=\nSVtYRxcBAAAAIgAAAFYBAAAQABAAAAAAAAEAAf/+AgAAAA=="
_FD_5123 = (
    "ODdYRw8BAAAAZgAAAGoAAAABAAQANS4xLjIzLXJjLWRlYnVnLWxvZwAAAAAAAAAAAAAAAAAAAAAA\n"
    "AAAAAAAAAAAAAAAAAAA4N1hHEzgNAAgAEgAEBAQEEgAAUwAEGggAAAAICAgC"
)
_TM_WR_3 = "TFtYRxMBAAAAKQAAAH8BAAAAABAAAAAAAAAABHRlc3QAAnQxAAEDAAE=\nTFtYRxcBAAAAIgAAAKEBAAAQABAAAAAAAAEAAf/+AwAAAA=="
_FD_NDB = (
    "4CdYRw8BAAAAYgAAAGYAAAAAAAQANS4xLjE1LW5kYi02LjEuMjQtZGVidWctbG9nAAAAAAAAAAAA\n"
    "AAAAAAAAAAAAAAAAAADgJ1hHEzgNAAgAEgAEBAQEEgAATwAEGggICAg="
)
_TM_WR_5 = "Dl1YRxMBAAAAKQAAADQBAAAAABAAAAAAAAAABHRlc3QAAnQxAAEDAAE=\nDl1YRxcBAAAAIgAAAFYBAAAQABAAAAAAAAEAAf/+BQAAAA=="

#: (statement, expected error code or None, t1 afterwards) in the order of the .result file
BASE64_FLAG_STEPS = [
    (f"BINLOG '\n{_TM_WR_2}\n'", 1609, [1, 1]),
    (f"BINLOG '\n{_FD_5123}\n'", None, [1, 1]),
    (f"BINLOG '\n{_TM_WR_3}\n'", None, [1, 1, 3]),
    (f"BINLOG '\n{_FD_NDB}\n'", None, [1, 1, 3]),
    (f"BINLOG '\n{_TM_WR_5}\n'", 1149, [1, 1, 3]),
    ("BINLOG ''", 1149, [1, 1, 3]),
    ("BINLOG '123'", 1575, [1, 1, 3]),
    ("BINLOG '-2079193929'", 1575, [1, 1, 3]),
    ("BINLOG 'xç↓%~∙D╒ƒ╡'", 1575, [1, 1, 3]),
    ("BINLOG '0'", 1575, [1, 1, 3]),
]


def test_mysqlbinlog_base64_flag_result(tmp_path):
    """Each step of mysqlbinlog_base64_flag.result: same error code (and 1609's text), same t1 after it."""
    with open_new(tmp_path / "d", log_bin=False) as srv, srv.session() as s:
        s.execute(
            "CREATE DATABASE test; USE test; CREATE TABLE t1 (a INT) ENGINE=InnoDB; INSERT INTO t1 VALUES (1),(1)"
        )
        for sql, code, rows in BASE64_FLAG_STEPS:
            if code is None:
                s.execute(sql)
            else:
                with pytest.raises(MySQLError) as ei:
                    s.execute(sql)
                assert ei.value.code == code, sql
                if code == 1609:
                    assert ei.value.message == (
                        "The BINLOG statement of type `Table_map` was not preceded by a format description BINLOG "
                        "statement."
                    )
            assert [r[0] for r in s.execute("SELECT a FROM t1 ORDER BY a")[-1].rows] == rows, sql


# ------------------------------------------------------------------------------------ a gtidkit source
SOURCE_DDL = [
    "CREATE DATABASE db1",
    "CREATE TABLE db1.t (id INT PRIMARY KEY, v VARCHAR(20), j JSON, d DECIMAL(10,2))",
    "CREATE TABLE db1.nokey (a INT, b TEXT)",
]
SOURCE_DML = [
    "INSERT INTO db1.t VALUES (1,'a','{\"a\":1}',1.50),(2,'b',NULL,-3.25),(3,'c','[1,2]',0)",
    "INSERT INTO db1.nokey VALUES (1,'x'),(1,'x'),(2,'y')",
    "UPDATE db1.t SET v='bb', d=d+1 WHERE id=2",
    "DELETE FROM db1.t WHERE id=1",
    "UPDATE db1.nokey SET b='z' WHERE a=1",
    "DELETE FROM db1.nokey WHERE a=2",
]


def _source(tmp_path):
    """A gtidkit server with log_bin: the DDL, then one transaction per DML; returns (server_uuid, binlog path,
    checksum of its tables, gtid_executed)."""
    srv = open_new(tmp_path / "src", log_bin=True, server_id=11)
    with srv.session() as s:
        for sql in SOURCE_DDL + SOURCE_DML:
            s.execute(sql)
        uuid = s.execute("SELECT @@server_uuid")[-1].rows[0][0]
    executed = srv.gtid_state.executed()
    sum_ = checksum(srv)
    srv.shutdown()
    return uuid, tmp_path / "src" / "binlog.000001", sum_, executed


def _mariadb_blocks(path) -> list[str]:
    """The base64 of each ``BINLOG '...'`` block mariadb-binlog prints for ``path``, in order."""
    out = subprocess.run([MARIADB_BINLOG, str(path)], capture_output=True, text=True, check=True).stdout
    return re.findall(r"^BINLOG '\n(.*?)\n'", out, re.MULTILINE | re.DOTALL)


#: original_commit_timestamp (µs) the replay script gives transaction gno: ORIGINAL_TS + gno
ORIGINAL_TS = 1_700_000_000_000_000


def _replay_script(uuid: str, blocks: list[str]) -> list[str]:
    """What mysqlbinlog prints for the source's DML transactions (GTID_NEXT, BEGIN, the rows block, COMMIT) after
    its preamble and Format_description block."""
    stmts = ["/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=1*/", "ROLLBACK", f"BINLOG '\n{blocks[0]}\n'"]
    for i, block in enumerate(blocks[1:]):
        gno = len(SOURCE_DDL) + 1 + i
        stmts += [
            f"SET @@SESSION.GTID_NEXT= '{uuid}:{gno}'",
            f"/*!80001 SET @@session.original_commit_timestamp={ORIGINAL_TS + gno}*/",
            "/*!80014 SET @@session.original_server_version=80035*/",
            "BEGIN",
            f"BINLOG '\n{block}\n'",
            "COMMIT",
        ]
    stmts += ["SET @@SESSION.GTID_NEXT= 'AUTOMATIC'", "/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=0*/"]
    return stmts


@pytest.mark.skipif(MARIADB_BINLOG is None, reason="mariadb-binlog not installed")
def test_replay_keeps_original_gtids_and_is_idempotent(tmp_path):
    """mariadb-binlog's BINLOG blocks of a gtidkit binlog, each under its original GTID_NEXT: the target's tables
    equal the source's, GTID_EXECUTED is the source's, the target's own binlog re-logs the rows under those GTIDs;
    a second replay of the same script is skipped by GTID and changes nothing."""
    uuid, binlog, source_sum, _source_executed = _source(tmp_path)
    blocks = _mariadb_blocks(binlog)
    assert len(blocks) == 1 + len(SOURCE_DML)  # the Format_description, then one block per DML transaction
    script = _replay_script(uuid, blocks)
    with open_new(tmp_path / "dst", log_bin=True, server_id=22) as dst:
        with dst.session() as s:
            s.execute("SET @@SESSION.GTID_NEXT='AUTOMATIC'")
            for sql in SOURCE_DDL:  # the DDL, as a backup would restore it; its GTIDs come from the source
                s.execute(sql)
        with dst.session() as s:
            for sql in script:
                s.execute(sql)
        expected = GtidSet.parse(f"{uuid}:{len(SOURCE_DDL) + 1}-{len(SOURCE_DDL) + len(SOURCE_DML)}")
        assert checksum(dst) == source_sum
        executed = dst.gtid_state.executed()
        assert expected.issubset(executed)
        with dst.session() as s:  # the second replay: every transaction skipped
            for sql in script:
                s.execute(sql)
        assert checksum(dst) == source_sum
        assert dst.gtid_state.executed() == executed
    gtid_events = [
        pe.event for pe in read_events(tmp_path / "dst" / "binlog.000001") if hasattr(pe.event, "gtid")
    ]
    replayed = [ev for ev in gtid_events if ev.gtid is not None and str(ev.gtid).startswith(uuid)]
    relogged = {str(ev.gtid) for ev in replayed}
    for (
        ev
    ) in replayed:  # the session's original_* values went into the Gtid event (binlog.cc write_transaction)
        assert ev.original_commit_timestamp == ORIGINAL_TS + ev.gtid.gno
        assert ev.original_server_version == 80035
        assert ev.immediate_commit_timestamp != ev.original_commit_timestamp
    assert relogged == {
        f"{uuid}:{n}" for n in range(len(SOURCE_DDL) + 1, len(SOURCE_DDL) + len(SOURCE_DML) + 1)
    }


# ------------------------------------------------------------------------------------ real MySQL binlogs
REAL = [
    pytest.param("blackbeam__rust_mysql_common/mysql-enum-string-set.000001", id="8.0.28-enum-set"),
    pytest.param("blackbeam__rust_mysql_common/binlog-invisible-columns.000001", id="8.0.26-invisible"),
    pytest.param("gtidkit:partial-json", id="gtidkit-partial-json"),
]


def _partial_json_binlog(tmp_path):
    """A gtidkit binlog with PARTIAL_UPDATE_ROWS (binlog_row_value_options=PARTIAL_JSON, MINIMAL images): the
    table and rows are written by gtidkit, the JSON diffs follow RM8 "Partial Updates of JSON Values"."""
    with open_new(tmp_path / "pj", log_bin=True, server_id=5) as srv, srv.session() as s:
        s.execute("CREATE DATABASE j")
        s.execute("CREATE TABLE j.t (id INT PRIMARY KEY, doc JSON)")
        s.execute("""INSERT INTO j.t VALUES (1, '{"a": 1, "b": [1, 2]}'), (2, '{"name": "xxxxxxxxxx"}')""")
        s.execute("SET binlog_row_value_options = PARTIAL_JSON, binlog_row_image = MINIMAL")
        s.execute("UPDATE j.t SET doc = JSON_SET(doc, '$.a', 42) WHERE id = 1")
        s.execute("UPDATE j.t SET doc = JSON_REPLACE(doc, '$.name', 'yyyyyyyyyy') WHERE id = 2")
        s.execute("UPDATE j.t SET doc = JSON_REMOVE(doc, '$.b[0]') WHERE id = 1")
    return tmp_path / "pj" / "binlog.000001"


def _has_rows(trx) -> bool:
    return any(isinstance(item.event, RowsEvent) for item in trx.events)


@pytest.mark.parametrize("name", REAL)
def test_real_binlog_rows_through_binlog_statements_equal_replica_apply(tmp_path, binlog_fixtures, name):
    """A real MySQL binlog applied twice: (A) every transaction by the replica applier; (B) DDL by the applier and
    each rows transaction as mysqlbinlog replays it (GTID_NEXT, BEGIN, BINLOG of its FD and of the raw Table_map /
    rows bytes, COMMIT) in a client session. Same tables, same GTID_EXECUTED; rows events of every type in the file
    (PARTIAL_UPDATE_ROWS in the gtidkit-written one) went through BINLOG."""
    path = _partial_json_binlog(tmp_path) if name.startswith("gtidkit:") else binlog_fixtures / name
    data = path.read_bytes()
    events = list(read_events(path))
    fde_pos = next(pe for pe in events if pe.header.type_code == 15)
    fde_b64 = base64.b64encode(data[fde_pos.pos : fde_pos.end_pos]).decode()
    base = {"log_bin": False}
    failed: set[int] = (
        set()
    )  # transactions this engine cannot run (ALTER USER of a root it lacks ...): both ways
    with open_new(tmp_path / "a", **base) as a, a.applier_session() as ap:
        for i, trx in enumerate(read_transactions(path)):
            try:
                ap.apply(trx)
            except MySQLError:
                failed.add(i)
        sum_a, gtids_a = checksum(a), a.gtid_state.executed()
    row_types: set[int] = set()
    with open_new(tmp_path / "b", **base) as b, b.applier_session() as ap, b.session() as s:
        s.execute(f"BINLOG '\n{fde_b64}\n'")
        for i, trx in enumerate(read_transactions(path)):
            if i in failed:
                continue
            if not _has_rows(trx):
                ap.apply(trx)
                continue
            gtid = trx.gtid
            s.execute(f"SET @@SESSION.GTID_NEXT='{gtid if gtid is not None else 'ANONYMOUS'}'")
            s.execute("BEGIN")
            for item in trx.events:
                tc = item.header.type_code
                if tc in (19, 23, 24, 25, 30, 31, 32, 39):
                    pe = next(e for e in events if e.pos == item.pos)
                    row_types.add(tc)
                    s.execute(f"BINLOG '{base64.b64encode(data[pe.pos : pe.end_pos]).decode()}'")
            s.execute("COMMIT")
            s.execute("SET @@SESSION.GTID_NEXT='AUTOMATIC'")
        assert checksum(b) == sum_a
        assert b.gtid_state.executed() == gtids_a
    assert row_types & {23, 24, 25, 30, 31, 32, 39}
    if "partial" in name:
        assert 39 in row_types


# ------------------------------------------------------------------------------------ errors
def _fde_and_query_b64(tmp_path) -> tuple[str, str, str]:
    """(FD, Query event, Gtid event) of a gtidkit binlog, base64."""
    _uuid, binlog, _sum, _ex = _source(tmp_path)
    data = binlog.read_bytes()
    evs = list(read_events(binlog))
    pick = {}
    for pe in evs:
        pick.setdefault(pe.header.type_code, base64.b64encode(data[pe.pos : pe.end_pos]).decode())
    return pick[15], pick[2], pick[33]


@pytest.mark.parametrize(
    ("which", "code", "text"),
    [
        pytest.param("query", 1730, "(but Query was provided)", id="query-1730"),
        pytest.param("gtid", 1730, "(but Gtid was provided)", id="gtid-1730"),
        pytest.param("cut", 1149, "", id="cut-short-1149"),
    ],
)
def test_event_type_errors(tmp_path, which, code, text):
    """check_event_type: only FD and row events (1730 naming the type); an event cut short is 1149."""
    fde, query, gtid = _fde_and_query_b64(tmp_path)
    arg = {"query": query, "gtid": gtid, "cut": fde[:40]}[which]
    with open_new(tmp_path / "d", log_bin=False) as srv, srv.session() as s:
        s.execute(f"BINLOG '{fde}'")
        with pytest.raises(MySQLError) as ei:
            s.execute(f"BINLOG '{arg}'")
        assert ei.value.code == code
        assert text in ei.value.message


def test_pseudo_replica_mode_forgets_the_format_description(tmp_path):
    """SET pseudo_replica_mode=0 deletes the session's BINLOG state (rli_fake): the next rows block is 1609; the
    warnings are check_pseudo_replica_mode's."""
    with open_new(tmp_path / "d", log_bin=False) as srv, srv.session() as s:
        s.execute("CREATE DATABASE test; USE test; CREATE TABLE t1 (a INT)")
        steps = [
            (  # mysql-test variables.result: the alias warns
                "SET @@SESSION.PSEUDO_SLAVE_MODE=1",
                [
                    (
                        "'@@pseudo_slave_mode' is deprecated and will be removed in a future release. Please use "
                        "pseudo_replica_mode instead."
                    )
                ],
            ),
            (f"BINLOG '\n{_FD_5123}\n'", []),
            ("SET @@SESSION.pseudo_replica_mode=1", ["'pseudo_replica_mode' change was ineffective."]),
            ("SET @@SESSION.pseudo_replica_mode=0", []),
            ("SET @@SESSION.pseudo_replica_mode=0", ["'pseudo_replica_mode' change was ineffective."]),
        ]
        for sql, warnings in steps:
            res = s.execute(sql)[-1]
            assert [w.message for w in res.warnings] == warnings, sql
        with pytest.raises(MySQLError) as ei:
            s.execute(f"BINLOG '\n{_TM_WR_3}\n'")
        assert ei.value.code == 1609


#: the session context mysqlbinlog 8.0 prints before a Query event (Query_log_event::print_query_header) and
#: around a transaction; each must be accepted, and the value read back as MySQL shows it
SESSION_CONTEXT = [
    ("SET @@session.pseudo_thread_id=10", "@@pseudo_thread_id", 10),
    (
        "SET @@session.sql_mode=1168113696",  # 8.0's default
        "@@sql_mode",
        (
            "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,"
            "NO_ENGINE_SUBSTITUTION"
        ),
    ),
    (  # 5.7's default: NO_AUTO_CREATE_USER (1<<28) is ignored by 8.0
        "SET @@session.sql_mode=1436549152",
        "@@sql_mode",
        (
            "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,"
            "NO_ENGINE_SUBSTITUTION"
        ),
    ),
    (
        "SET @@session.foreign_key_checks=1, @@session.sql_auto_is_null=0, @@session.unique_checks=1",
        "@@sql_auto_is_null",
        0,
    ),
    (
        "SET @@session.auto_increment_increment=1, @@session.auto_increment_offset=1",
        "@@auto_increment_offset",
        1,
    ),
    (
        "SET @@session.character_set_client=255,@@session.collation_connection=255,@@session.collation_server=255",
        "@@collation_connection",
        "utf8mb4_0900_ai_ci",
    ),
    ("SET @@session.collation_connection=45", "@@collation_connection", "utf8mb4_general_ci"),
    ("SET @@session.lc_time_names=0", "@@lc_time_names", "en_US"),
    ("SET @@session.collation_database=DEFAULT", "@@collation_database", "utf8mb4_0900_ai_ci"),
    (
        "/*!80011 SET @@session.default_collation_for_utf8mb4=255*/",
        "@@default_collation_for_utf8mb4",
        "utf8mb4_0900_ai_ci",
    ),
    ("/*!80013 SET @@session.sql_require_primary_key=0*/", "@@sql_require_primary_key", 0),
    ("/*!80016 SET @@session.default_table_encryption=0*/", "@@default_table_encryption", 0),
    (
        "/*!80001 SET @@session.original_commit_timestamp=1573000000000000*/",
        "@@original_commit_timestamp",
        1573000000000000,
    ),
    ("/*!80014 SET @@session.original_server_version=80036*/", "@@original_server_version", 80036),
    ("/*!80014 SET @@session.immediate_server_version=80036*/", "@@immediate_server_version", 80036),
]


@pytest.mark.parametrize(
    ("sql", "var", "value"), SESSION_CONTEXT, ids=[s[1] + str(i) for i, s in enumerate(SESSION_CONTEXT)]
)
def test_mysqlbinlog_session_context_is_accepted(tmp_path, sql, var, value):
    with open_new(tmp_path / "d", log_bin=False) as srv, srv.session() as s:
        s.execute(sql)
        got = s.execute(f"SELECT {var}")[-1].rows[0][0]
        if value is not None:
            assert got == value


@pytest.mark.parametrize(
    ("sql", "code"),
    [
        pytest.param("SET @@session.collation_connection=9999", 1273, id="collation-id"),
        pytest.param("SET @@session.lc_time_names=12345", 1649, id="locale"),
        pytest.param("SET @@session.auto_increment_increment=0", None, id="clamped"),
        pytest.param("SET @@RAND_SEED1=DEFAULT", 1230, id="rand-seed-default"),
        pytest.param("SET GLOBAL rand_seed2=1", 1228, id="rand-seed-global"),
    ],
)
def test_session_context_errors(tmp_path, sql, code):
    with open_new(tmp_path / "d", log_bin=False) as srv, srv.session() as s:
        if code is None:
            s.execute(sql)
            return
        with pytest.raises(MySQLError) as ei:
            s.execute(sql)
        assert ei.value.code == code


def test_rand_seeds_set_the_next_rand(tmp_path):
    """mysqlbinlog prints a Rand event as ``SET @@RAND_SEED1=A, @@RAND_SEED2=B``: the next RAND() continues from
    those seeds. The seeds RAND(3) starts from (``Item_func_rand::seed_random``: 3*0x10001+55555555 and 3*0x10000001)
    give the value the MySQL manual shows for ``SELECT RAND(3)``; the variables read as 0 (``read_rand_seed``)."""
    with open_new(tmp_path / "d", log_bin=False) as srv, srv.session() as s:
        s.execute("SET @@RAND_SEED1=55752166, @@RAND_SEED2=805306371")
        assert round(s.execute("SELECT RAND()")[-1].rows[0][0], 14) == 0.90576975597606
        assert s.execute("SELECT @@rand_seed1, @@session.rand_seed2")[-1].rows[0] == (0, 0)


#: RM8 "Replication Source Options and Variables", auto_increment_increment / auto_increment_offset: the example
#: session (each step: the statements, then SELECT col of the table).
AUTO_INCREMENT_SERIES = [
    (
        [
            "CREATE TABLE autoinc1 (col INT NOT NULL AUTO_INCREMENT PRIMARY KEY)",
            "SET @@SESSION.auto_increment_increment=10",
            "INSERT INTO autoinc1 VALUES (NULL), (NULL), (NULL), (NULL)",
        ],
        "autoinc1",
        [1, 11, 21, 31],
    ),
    (
        [
            "SET @@SESSION.auto_increment_offset=5",
            "CREATE TABLE autoinc2 (col INT NOT NULL AUTO_INCREMENT PRIMARY KEY)",
            "INSERT INTO autoinc2 VALUES (NULL), (NULL), (NULL), (NULL)",
        ],
        "autoinc2",
        [5, 15, 25, 35],
    ),
    (
        ["INSERT INTO autoinc1 VALUES (NULL), (NULL), (NULL), (NULL)"],
        "autoinc1",
        [1, 11, 21, 31, 35, 45, 55, 65],
    ),
]


def test_auto_increment_increment_and_offset_series(tmp_path):
    """Generated AUTO_INCREMENT values follow the session's increment and offset, as the manual's example shows
    (a replay under mysqlbinlog's ``SET @@session.auto_increment_increment=..., auto_increment_offset=...`` then
    matches the source), in base and temporary tables alike."""
    with open_new(tmp_path / "d", log_bin=False) as srv, srv.session() as s:
        s.execute("CREATE DATABASE test")
        s.execute("USE test")
        for statements, table, values in AUTO_INCREMENT_SERIES:
            for sql in statements:
                s.execute(sql)
            assert [r[0] for r in s.execute(f"SELECT col FROM {table} ORDER BY col")[-1].rows] == values
        s.execute("CREATE TEMPORARY TABLE tmp (col INT NOT NULL AUTO_INCREMENT PRIMARY KEY)")
        s.execute("INSERT INTO tmp VALUES (NULL), (NULL)")
        assert [r[0] for r in s.execute("SELECT col FROM tmp ORDER BY col")[-1].rows] == [5, 15]


def test_new_session_takes_the_global_auto_increment_series(tmp_path):
    """A session starts with the GLOBAL auto_increment_increment / _offset (the manual: each is a global and
    session variable; a client's session value starts as the global one): 3, 8 with 5 and 3."""
    with open_new(tmp_path / "d", log_bin=False) as srv:
        with srv.session() as s:
            s.execute("CREATE DATABASE t")
            s.execute("CREATE TABLE t.a (id INT AUTO_INCREMENT PRIMARY KEY)")
            s.execute("SET GLOBAL auto_increment_increment = 5, GLOBAL auto_increment_offset = 3")
            s.execute("INSERT INTO t.a VALUES (NULL)")  # this session's own values are still 1 and 1
        with srv.session() as s:
            s.execute("INSERT INTO t.a VALUES (NULL), (NULL)")
            assert [r[0] for r in s.execute("SELECT id FROM t.a ORDER BY id")[-1].rows] == [1, 3, 8]
