"""STATEMENT / MIXED format: the context events before a statement's Query, and MIXED's switch to rows.

Oracles: the order of ``MYSQL_BIN_LOG::write_event`` (Intvar LAST_INSERT_ID, Intvar INSERT_ID, Rand, User_var...,
then the Query), as the real 5.6 capture ``ver_trunk_row_v2.001`` shows (``User_var`` then
``INSERT INTO t1 VALUES (@x, 'four')``; ``Rand`` then ``INSERT ... RAND() * 1000000``); MySQL's RAND(N) values from
the manual ("Mathematical Functions": ``RAND(3)`` = 0.9057697559760601); RM8 "Mixed Binary Logging Format" and
"Determination of Safe and Unsafe Statements in Binary Logging" for what MIXED logs as rows.
"""

from __future__ import annotations

import struct
import subprocess
from decimal import Decimal

import pytest

from gtidkit.binlog.events.statement import RandEvent, UserVarEvent
from gtidkit.binlog.file import read_events
from gtidkit.engine.apply import user_var_value
from gtidkit.engine.binlog.statement_context import statement_traits, unsafe_reason, user_var_event
from gtidkit.engine.results import Condition
from gtidkit.engine.sql.mysql_random import MySQLRandom


def binlog_events(session) -> list[tuple[str, str]]:
    return [(r[2], r[5]) for r in session.execute("SHOW BINLOG EVENTS")[-1].rows]


def test_user_var_event_matches_mysql_capture(binlog_fixtures):
    """``SET @x := 4`` then ``INSERT ... (@x, 'four')`` on 5.6.4 with utf8 (collation 33): our event equals it."""
    events = [
        getattr(e, "event", e)
        for e in read_events(binlog_fixtures / "blackbeam__rust_mysql_common/ver_trunk_row_v2.001")
    ]
    captured = next(e for e in events if isinstance(e, UserVarEvent))
    assert user_var_event("x", 4, 33) == captured


@pytest.mark.parametrize(
    ("seed", "first", "second"),
    [(3, 0.9057697559760601, 0.37307905813034536), (0, 0.15522042769493574, None)],
    ids=["rand3", "rand0"],
)
def test_rand_with_seed_gives_mysqls_sequence(open_server, seed, first, second):
    s = open_server().session()
    rows = s.execute(f"SELECT RAND({seed}) FROM (SELECT 1 AS a UNION ALL SELECT 2) x")[-1].rows
    assert rows[0][0] == first
    if second is not None:
        assert rows[1][0] == second
    # each RAND(N) of a statement has its own sequence
    assert s.execute(f"SELECT RAND({seed}), RAND({seed})")[-1].rows == [(first, first)]


def test_context_events_in_mysql_order(open_server):
    srv = open_server(gtid_mode="ON", log_bin=True, binlog_format="STATEMENT")
    s = srv.session()
    s.execute(
        "CREATE DATABASE d; USE d; CREATE TABLE t (id INT PRIMARY KEY AUTO_INCREMENT, f DOUBLE, v TEXT)"
    )
    s.execute("INSERT INTO t (f) VALUES (1)")
    s.execute("SET @b = 'bee', @a = 7")
    s.execute("INSERT INTO t (f, v) VALUES (RAND() + LAST_INSERT_ID(), CONCAT(@b, @a, @never, @b, '@c'))")
    ev = binlog_events(s)
    q = next(i for i, e in enumerate(ev) if e[0] == "Query" and "RAND()" in e[1])
    assert [k for k, _ in ev[q - 6 : q + 1]] == [
        "Intvar", "Intvar", "RAND", "User var", "User var", "User var", "Query",
    ]  # fmt: skip
    assert ev[q - 6 : q - 4] == [("Intvar", "LAST_INSERT_ID=1"), ("Intvar", "INSERT_ID=2")]
    s.execute("FLUSH BINARY LOGS")
    decoded = [getattr(e, "event", e) for e in read_events(srv.datadir / "binlog.000001")]
    uv = [
        e for e in decoded if isinstance(e, UserVarEvent)
    ]  # @b, @a, @never (NULL): once each, in read order
    assert [(e.name, e.is_null, e.value) for e in uv] == [
        ("b", False, b"bee"),
        ("a", False, (7).to_bytes(8, "little")),
        ("never", True, b""),
    ]
    assert [e.charset for e in uv[:2]] == [255, 255] and uv[1].flags == 0 and uv[0].flags is None
    assert sum(isinstance(e, RandEvent) for e in decoded) == 1


def test_rand_event_seeds_reproduce_the_value(open_server):
    srv = open_server(gtid_mode="ON", log_bin=True, binlog_format="STATEMENT")
    s = srv.session()
    s.execute("CREATE DATABASE d; USE d; CREATE TABLE t (id INT PRIMARY KEY, f DOUBLE)")
    s.execute("SELECT RAND(), RAND()")  # the session's sequence moves on; the event logs where it stands
    s.execute("INSERT INTO t VALUES (1, RAND()), (2, RAND())")
    got = [r[0] for r in s.execute("SELECT f FROM t ORDER BY id")[-1].rows]
    info = next(i for k, i in binlog_events(s) if k == "RAND")
    seed1, seed2 = (int(part.split("=")[1]) for part in info.split(","))
    rng = MySQLRandom(seed1, seed2)
    assert [rng(), rng()] == got


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, UserVarEvent("v", True)),
        (-5, UserVarEvent("v", False, 2, 255, struct.pack("<q", -5), 0)),
        (2**64 - 1, UserVarEvent("v", False, 2, 255, b"\xff" * 8, 1)),
        (1.5, UserVarEvent("v", False, 1, 255, struct.pack("<d", 1.5))),
        ("héllo", UserVarEvent("v", False, 0, 255, "héllo".encode())),
        (b"\x00\xff", UserVarEvent("v", False, 0, 63, b"\x00\xff")),
    ],
    ids=["null", "int", "unsigned", "real", "string", "binary"],
)
def test_user_var_event_encoding(value, expected):
    ev = user_var_event("v", value, 255)
    assert ev == expected
    assert user_var_value(ev) == value


@pytest.mark.parametrize("value", ["12.345", "-0.5", "100", "0.000"], ids=["frac", "neg", "int", "zero"])
def test_user_var_decimal_round_trips(value):
    ev = user_var_event("d", Decimal(value), 255)
    assert ev.value_type == 4 and ev.flags is None
    assert user_var_value(ev) == Decimal(value)


@pytest.mark.parametrize(
    ("text", "reads"),
    [
        ("INSERT INTO t VALUES (@a, @`B`, @'c d', @a)", ("a", "b", "c d")),
        ("UPDATE t SET v = (@n := @n + 1)", ("n",)),
        ("INSERT INTO t VALUES ('@a', @@session.time_zone)", ()),
        ("INSERT INTO t VALUES (@x := 5)", ()),
    ],
    ids=["plain-quoted", "assign-reads", "in-string-and-sysvar", "assign-only"],
)
def test_user_variables_read(text, reads):
    assert statement_traits(text).user_vars == reads


#: (statement, MySQL's reason as its ER_BINLOG_UNSAFE_* code: 1674 SYSTEM_FUNCTION, 1673 SYSTEM_VARIABLE, 1668 LIMIT,
#: 1719 UPDATE_IGNORE, 1714 INSERT_IGNORE_SELECT, 1716 REPLACE_SELECT, 1715 INSERT_SELECT_UPDATE,
#: 1722 WRITE_AUTOINC_SELECT, 1724 INSERT_TWO_KEYS, 3570 SKIP_LOCKED)
MIXED_CASES = [
    ("INSERT INTO t (v) VALUES (1)", None),
    ("INSERT INTO t (v) VALUES (@x)", None),
    ("INSERT INTO t (v) VALUES (LAST_INSERT_ID())", None),
    ("INSERT INTO t (v) VALUES (UNIX_TIMESTAMP(NOW()))", None),
    ("INSERT INTO t (v) VALUES (RAND())", 1674),
    ("INSERT INTO t (s) VALUES (UUID())", 1674),
    ("INSERT INTO t (s) VALUES (USER())", 1674),
    ("INSERT INTO t (s) VALUES (CURRENT_USER)", 1674),
    ("INSERT INTO t (v) VALUES (FOUND_ROWS())", 1674),
    ("INSERT INTO t (s) VALUES (SYSDATE())", 1674),
    ("INSERT INTO t (s) VALUES ('UUID()')", None),
    ("INSERT INTO t (v) VALUES (@@session.auto_increment_increment)", None),
    ("INSERT INTO t (v) VALUES (@@global.auto_increment_increment)", 1673),
    ("INSERT INTO t (v) VALUES (@@max_allowed_packet)", 1673),
    ("UPDATE t SET v = 1 LIMIT 1", 1668),
    ("DELETE FROM t LIMIT 1", 1668),
    ("UPDATE IGNORE t SET v = 1", 1719),
    ("INSERT IGNORE INTO u SELECT * FROM w", 1714),
    ("REPLACE INTO u SELECT * FROM w", 1716),
    (
        "INSERT INTO u SELECT * FROM w ON DUPLICATE KEY UPDATE b = 1",
        1715,
    ),
    ("INSERT INTO t (v) SELECT a FROM w", 1722),
    ("INSERT INTO u SELECT * FROM w", None),
    ("INSERT INTO u VALUES (1, 2) ON DUPLICATE KEY UPDATE b = 3", None),
    ("INSERT INTO k VALUES (1, 2) ON DUPLICATE KEY UPDATE b = 3", 1724),
    ("SELECT * FROM t FOR UPDATE SKIP LOCKED", 3570),
    ("SELECT * FROM t FOR UPDATE NOWAIT", 3571),
    ("SELECT * FROM t FOR UPDATE NOWAIT", 3571),
]


@pytest.mark.parametrize(("text", "reason"), MIXED_CASES, ids=[c[0][:48] for c in MIXED_CASES])
def test_unsafe_reason(open_server, text, reason):
    srv = open_server()
    s = srv.session()
    s.execute(
        "CREATE DATABASE d; USE d; CREATE TABLE t (id INT PRIMARY KEY AUTO_INCREMENT, v BIGINT, s TEXT)"
    )
    s.execute("CREATE TABLE u (a INT PRIMARY KEY, b INT); CREATE TABLE w (a INT PRIMARY KEY, b INT)")
    s.execute("CREATE TABLE k (a INT PRIMARY KEY, b INT UNIQUE)")
    assert unsafe_reason(text, srv.storage.catalog, "d") == reason


def test_mixed_logs_unsafe_statements_as_rows_and_the_rest_as_statements(open_server):
    srv = open_server(gtid_mode="ON", log_bin=True, binlog_format="MIXED")
    s = srv.session()
    s.execute(
        "CREATE DATABASE d; USE d; CREATE TABLE t (id INT PRIMARY KEY AUTO_INCREMENT, v DOUBLE, s TEXT)"
    )
    s.execute("SET @x = 5")
    s.execute("BEGIN")
    s.execute("INSERT INTO t (v) VALUES (@x)")  # safe: User_var + Intvar + Query
    s.execute("INSERT INTO t (v, s) VALUES (RAND(), UUID())")  # unsafe: rows
    s.execute("UPDATE t SET v = v + 1 WHERE id = 1")  # safe
    s.execute("DELETE FROM t ORDER BY id LIMIT 1")  # unsafe: rows
    s.execute("COMMIT")
    ev = binlog_events(s)
    begin = max(i for i, e in enumerate(ev) if e == ("Query", "BEGIN"))
    assert [k for k, _ in ev[begin:]] == [
        "Query", "Intvar", "User var", "Query", "Table_map", "Write_rows", "Query", "Table_map", "Delete_rows",
        "Xid",
    ]  # fmt: skip
    assert ev[begin + 3][1] == "use `d`; INSERT INTO t (v) VALUES (@x)"
    assert ev[begin + 6][1] == "use `d`; UPDATE t SET v = v + 1 WHERE id = 1"
    assert [r[0] for r in s.execute("SELECT id FROM t")[-1].rows] == [2]


def test_session_options_travel_in_the_query_status_block(open_server):
    """flags2 and Q_AUTO_INCREMENT as mariadb-binlog (a real reader of MySQL's layout) prints them."""
    srv = open_server(gtid_mode="ON", log_bin=True, binlog_format="STATEMENT")
    s = srv.session()
    s.execute("CREATE DATABASE d; USE d; CREATE TABLE t (id INT PRIMARY KEY AUTO_INCREMENT, v INT)")
    s.execute("SET foreign_key_checks = 0, unique_checks = 0")
    # what an applier session takes from a source's Q_AUTO_INCREMENT (apply.session_settings)
    s.session_vars.update(auto_increment_increment=5, auto_increment_offset=2)
    s.execute("INSERT INTO t (v) VALUES (1), (2)")
    s.execute("SET foreign_key_checks = 1, unique_checks = 1")
    s.session_vars.update(auto_increment_increment=1, auto_increment_offset=1)
    s.execute("INSERT INTO t (v) VALUES (3)")
    path = srv.datadir / "binlog.000001"
    srv.shutdown()
    out = subprocess.run(["mariadb-binlog", str(path)], capture_output=True, text=True, check=True).stdout
    first = out.index("INSERT INTO t (v) VALUES (1), (2)")
    second = out.index("INSERT INTO t (v) VALUES (3)")
    before_first = out[:first]
    # mariadb-binlog prints the flags that changed since the previous Query event
    assert before_first.rindex(
        "SET @@session.foreign_key_checks=0, @@session.unique_checks=0"
    ) > before_first.rindex("CREATE TABLE")
    assert "SET @@session.auto_increment_increment=5, @@session.auto_increment_offset=2" in before_first
    between = out[first:second]
    assert "SET @@session.foreign_key_checks=1, @@session.unique_checks=1" in between
    assert "SET @@session.auto_increment_increment=1, @@session.auto_increment_offset=1" in between
    assert out.count("auto_increment_increment=5") == 1


NOTE_1592 = (
    "Unsafe statement written to the binary log using statement format since BINLOG_FORMAT = STATEMENT. "
)


@pytest.mark.parametrize(
    ("sql", "reason"),
    [
        # binlog/r/*.result (8.0.41): the texts MySQL prints
        (
            "INSERT INTO t (s) VALUES (UUID())",
            "Statement is unsafe because it uses a system function that may return a different value on the replica.",
        ),
        (
            "DELETE FROM t LIMIT 1",
            (
                "The statement is unsafe because it uses a LIMIT clause. This is unsafe because the set of rows included "
                "cannot be predicted."
            ),
        ),
        (
            "REPLACE INTO u SELECT id, v FROM t",
            (
                "REPLACE... SELECT is unsafe because the order in which rows are retrieved by the SELECT determines which "
                "(if any) rows are replaced. This order cannot be predicted and may differ on source and the replica."
            ),
        ),
        ("INSERT INTO t (v) VALUES (@x)", None),
    ],
    ids=["uuid", "limit", "replace-select", "safe"],
)
def test_statement_format_notes_unsafe_statements(open_server, sql, reason):
    srv = open_server(gtid_mode="ON", log_bin=True, binlog_format="STATEMENT")
    s = srv.session()
    s.execute(
        "CREATE DATABASE d; USE d; CREATE TABLE t (id INT PRIMARY KEY AUTO_INCREMENT, v BIGINT, s TEXT)"
    )
    s.execute("CREATE TABLE u (a INT PRIMARY KEY, b BIGINT)")
    s.execute("INSERT INTO t (v) VALUES (1)")
    res = s.execute(sql)[-1]
    expected = () if reason is None else (Condition("Note", 1592, NOTE_1592 + reason),)
    assert res.warnings == expected
    s.execute("SET sql_log_bin = 0")  # not binlogged: nothing to warn about
    assert s.execute(sql)[-1].warnings == ()


def test_statement_format_notes_every_reason_in_mysqls_order(open_server):
    """THD::issue_unsafe_warnings: one Note 1592 per reason, in LEX::enum_binlog_stmt_unsafe order (LIMIT first)."""
    srv = open_server(gtid_mode="ON", log_bin=True, binlog_format="STATEMENT")
    s = srv.session()
    s.execute(
        "CREATE DATABASE d; USE d; CREATE TABLE t (id INT PRIMARY KEY AUTO_INCREMENT, v BIGINT, s TEXT)"
    )
    res = s.execute("UPDATE t SET s = UUID() LIMIT 1")[-1]
    assert [w.message[len(NOTE_1592) :].split(" because")[0] for w in res.warnings] == [
        "The statement is unsafe",  # ER_BINLOG_UNSAFE_LIMIT
        "Statement is unsafe",  # ER_BINLOG_UNSAFE_SYSTEM_FUNCTION
    ]
    assert [w.code for w in res.warnings] == [1592, 1592]
    assert "LIMIT clause" in res.warnings[0].message and "system function" in res.warnings[1].message


@pytest.mark.parametrize(
    ("event", "info", "line"),
    [
        # ver_trunk_row_v2.001 (5.6.4): SET @x := 4, utf8; mariadb-binlog prints "SET @`x`:=4/*!*/;"
        (UserVarEvent("x", False, 2, 33, (4).to_bytes(8, "little"), 0), "@`x`=4", "SET @`x`:=4/*!*/;"),
        (UserVarEvent("n", True), "@`n`=NULL", "SET @`n`:=NULL/*!*/;"),
        (
            user_var_event("s", "abc", 255),
            "@`s`=_utf8mb4 0x616263 COLLATE utf8mb4_0900_ai_ci",
            "SET @`s`:=_utf8mb4 0x616263 COLLATE `utf8mb4_0900_ai_ci`/*!*/;",
        ),
        (user_var_event("e", "", 8), '@`e`=_latin1 "" COLLATE latin1_swedish_ci', None),
        (user_var_event("u", 2**64 - 1, 255), "@`u`=18446744073709551615", None),
        (user_var_event("f", 1.5, 255), "@`f`=1.5", None),
        (user_var_event("d", Decimal("-12.345"), 255), "@`d`=-12.345", None),
    ],
    ids=["int-capture", "null", "string", "empty-latin1", "unsigned", "real", "decimal"],
)
def test_user_var_event_text(event, info, line):
    """User_var_log_event::pack_info (SHOW BINLOG EVENTS) and ::print (mysqlbinlog): str_to_hex's 0x + upper hex."""
    from gtidkit.binlog.text import event_info, event_lines

    assert event_info(event) == info
    if line is not None:
        lines = event_lines(4, _HEADER, event)
        assert lines[-1] == line


def _header():
    from gtidkit.binlog.header import EventHeader

    return EventHeader(timestamp=0, type_code=14, server_id=1, event_size=50, log_pos=54, flags=0)


_HEADER = _header()
