"""Executor: DDL, DML, SELECT on the real SQLite storage, MySQL's results, row images and error codes."""

from __future__ import annotations

import random
from decimal import Decimal

import pytest

from gtidkit.engine.accounts.tables import GRANT_TABLE_DDL
from gtidkit.engine.sql.ddl import parse_create_table_text
from gtidkit.engine.sql.executor import Executor, RowChange
from gtidkit.engine.sql.log_tables import LOG_TABLE_DDL
from gtidkit.engine.sql.show import show_create, show_index, show_tables
from gtidkit.engine.statements.classify import classify
from gtidkit.engine.storage import Storage
from gtidkit.errors import MySQLError

SBTEST_DDL = (
    "CREATE TABLE sbtest1(id INTEGER NOT NULL AUTO_INCREMENT, k INTEGER DEFAULT '0' NOT NULL, "
    "c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id)) ENGINE=InnoDB"
)


@pytest.fixture
def ex(tmp_path):
    storage = Storage.open(tmp_path)
    e = Executor(storage, storage.connect())
    e.execute(classify("CREATE DATABASE d"))
    yield e
    storage.close()


def run(ex: Executor, sql: str, db: str | None = "d"):
    return ex.execute(classify(sql), db)


def show(ex: Executor, sql: str, db: str | None = "d"):
    """A catalog SHOW's rows from its provider in the SQL layer (engine/statements/show.py maps the command)."""
    stmt = classify(sql)
    provider = {"tables": show_tables, "create_table": show_create, "index": show_index}[stmt.command]
    return provider(ex, stmt.info, db)


def err(ex: Executor, sql: str, db: str | None = "d") -> MySQLError:
    with pytest.raises(MySQLError) as e:
        ex.execute(classify(sql), db)
    return e.value


def test_sysbench_oltp_schema_and_statements_unmodified(ex):
    run(ex, SBTEST_DDL)
    run(ex, "CREATE INDEX k_1 ON sbtest1(k)")
    rng = random.Random(7)
    c = lambda: "-".join(f"{rng.randrange(10**11):011d}" for _ in range(10))
    pad = lambda: "-".join(f"{rng.randrange(10**11):011d}" for _ in range(5))
    rows = [(i, rng.randrange(1, 100), c(), pad()) for i in range(1, 101)]
    for r in rows:
        res = run(ex, f"INSERT INTO sbtest1 (id, k, c, pad) VALUES ({r[0]}, {r[1]}, '{r[2]}', '{r[3]}')")
        assert res.affected_rows == 1 and res.row_changes == [RowChange("d", "sbtest1", "insert", None, r)]
    assert run(ex, "SELECT c FROM sbtest1 WHERE id=17").rows == [(rows[16][2],)]
    assert run(ex, "SELECT c FROM sbtest1 WHERE id BETWEEN 10 AND 19").rows == [(r[2],) for r in rows[9:19]]
    assert run(ex, "SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN 10 AND 19").rows == [
        (sum(r[1] for r in rows[9:19]),)
    ]
    assert run(ex, "SELECT c FROM sbtest1 WHERE id BETWEEN 10 AND 19 ORDER BY c").rows == sorted(
        (r[2],) for r in rows[9:19]
    )
    assert run(ex, "SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN 10 AND 19 ORDER BY c").rows == sorted(
        {(r[2],) for r in rows[9:19]}
    )
    res = run(ex, "UPDATE sbtest1 SET k=k+1 WHERE id=5")
    assert res.affected_rows == 1
    assert res.row_changes == [
        RowChange("d", "sbtest1", "update", rows[4], (5, rows[4][1] + 1, rows[4][2], rows[4][3]))
    ]
    new_c = c()
    res = run(ex, f"UPDATE sbtest1 SET c='{new_c}' WHERE id=6")
    assert res.row_changes[0].after == (6, rows[5][1], new_c, rows[5][3])
    res = run(ex, "DELETE FROM sbtest1 WHERE id=7")
    assert res.affected_rows == 1 and res.row_changes == [RowChange("d", "sbtest1", "delete", rows[6], None)]
    res = run(ex, f"INSERT INTO sbtest1 (id, k, c, pad) VALUES (7, 3, '{new_c}', 'p')")
    assert res.affected_rows == 1 and res.last_insert_id == 7
    assert run(ex, "SELECT COUNT(*) FROM sbtest1").rows == [(100,)]
    # sysbench --auto-inc: id 0 generates the next value
    assert run(ex, "INSERT INTO sbtest1 (id, k, c, pad) VALUES (0, 1, 'a', 'b')").last_insert_id == 101


def test_plan_cache_rebinds_literals_and_keeps_unsafe_shapes_literal(ex):
    run(ex, "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))")
    run(ex, "INSERT INTO t VALUES (1, 'b'), (2, 'a')")
    assert run(ex, "SELECT v FROM t WHERE id=1").rows == [("b",)]
    assert run(ex, "SELECT v FROM t WHERE id=2").rows == [("a",)]  # same shape, new literal
    assert run(ex, "SELECT id, v FROM t ORDER BY 2").rows == [(2, "a"), (1, "b")]  # positional ORDER BY
    assert run(ex, "SELECT id, v FROM t ORDER BY 1").rows == [(1, "b"), (2, "a")]
    assert run(ex, "SELECT 'x', id FROM t WHERE id = 1").columns == ["x", "id"]
    assert run(ex, "SELECT v FROM t WHERE id = 1 LIMIT 1").rows == [("b",)]


def test_create_table_catalog_and_information_schema(ex):
    run(
        ex,
        "CREATE TABLE t (id INT UNSIGNED NOT NULL AUTO_INCREMENT, name VARCHAR(20) CHARACTER SET utf8mb4 "
        "COLLATE utf8mb4_bin, price DECIMAL(10,2) DEFAULT '1.5', ts DATETIME(3) DEFAULT CURRENT_TIMESTAMP, "
        "PRIMARY KEY (id), UNIQUE KEY uk_name (name), KEY (price)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4",
    )
    cols = run(
        ex,
        "SELECT COLUMN_NAME, ORDINAL_POSITION, COLUMN_DEFAULT, IS_NULLABLE, DATA_TYPE, COLUMN_TYPE, "
        "COLUMN_KEY, EXTRA FROM information_schema.COLUMNS WHERE TABLE_SCHEMA='d' AND TABLE_NAME='t' "
        "ORDER BY ORDINAL_POSITION",
    ).rows
    assert cols == [
        ("id", 1, None, "NO", "int", "int unsigned", "PRI", "auto_increment"),
        ("name", 2, None, "YES", "varchar", "varchar(20)", "UNI", ""),
        ("price", 3, "1.50", "YES", "decimal", "decimal(10,2)", "MUL", ""),
        ("ts", 4, "CURRENT_TIMESTAMP", "YES", "datetime", "datetime(3)", "", "DEFAULT_GENERATED"),
    ]
    assert run(
        ex, "SELECT TABLE_NAME, TABLE_TYPE, ENGINE FROM information_schema.tables WHERE table_schema = 'd'"
    ).rows == [("t", "BASE TABLE", "InnoDB")]
    assert ("d",) in run(ex, "SELECT SCHEMA_NAME FROM INFORMATION_SCHEMA.SCHEMATA").rows
    assert run(
        ex,
        "SELECT INDEX_NAME, NON_UNIQUE, SEQ_IN_INDEX, COLUMN_NAME FROM information_schema.STATISTICS "
        "WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME = 't' ORDER BY INDEX_NAME",
    ).rows == [("PRIMARY", 0, 1, "id"), ("price", 1, 1, "price"), ("uk_name", 0, 1, "name")]
    assert show(ex, "SHOW TABLES").rows == [("t",)]
    assert (
        show(ex, "SHOW CREATE TABLE t")
        .rows[0][1]
        .startswith("CREATE TABLE `t` (\n  `id` int unsigned NOT NULL")
    )
    e = err(ex, "CREATE TABLE t (a INT)")
    assert (e.code, e.sqlstate, e.message) == (1050, "42S01", "Table 't' already exists")
    assert run(ex, "CREATE TABLE IF NOT EXISTS t (a INT)").warnings == [
        ("Note", 1050, "Table 't' already exists")
    ]


@pytest.mark.parametrize("name", [*LOG_TABLE_DDL, *GRANT_TABLE_DDL])
def test_system_table_ddl_is_keyed_by_the_table_it_creates(name):
    """The bootstrap skips the DDL of a table the datadir has, by its key: the key is the table the text creates."""
    table = parse_create_table_text({**LOG_TABLE_DDL, **GRANT_TABLE_DDL}[name], None)
    assert (table.schema, table.name) == ("mysql", name)


def test_reopening_a_datadir_parses_no_system_table_ddl(tmp_path, monkeypatch):
    """A new datadir parses each system table's DDL once; opening it again parses none (each open of a server)."""
    import gtidkit.engine.storage as storage_module

    parsed: list[str] = []

    def counting(text: str, db: str | None):
        parsed.append(text)
        return parse_create_table_text(text, db)

    monkeypatch.setattr(storage_module, "parse_create_table_text", counting)
    Storage.open(tmp_path).close()
    assert len(parsed) == len(LOG_TABLE_DDL) + len(GRANT_TABLE_DDL) + 1  # + mysql.gtid_executed
    parsed.clear()
    storage = Storage.open(tmp_path)
    try:
        assert parsed == []
        assert all(storage.catalog.get_table("mysql", n) for n in [*LOG_TABLE_DDL, *GRANT_TABLE_DDL])
    finally:
        storage.close()


def test_gtid_executed_system_table_is_bootstrapped_with_mysql_ddl(ex):
    cols = run(
        ex,
        "SELECT COLUMN_NAME, COLUMN_TYPE, COLUMN_KEY FROM information_schema.COLUMNS "
        "WHERE TABLE_SCHEMA='mysql' AND TABLE_NAME='gtid_executed' ORDER BY ORDINAL_POSITION",
    ).rows
    assert cols == [
        ("source_uuid", "char(36)", "PRI"),
        ("interval_start", "bigint", "PRI"),
        ("interval_end", "bigint", ""),
        ("gtid_tag", "char(32)", "PRI"),
    ]
    assert ex.storage.catalog.get_table("mysql", "gtid_executed").primary_key == (
        "source_uuid",
        "gtid_tag",
        "interval_start",
    )
    run(ex, "INSERT INTO mysql.gtid_executed VALUES ('3e11fa47-71ca-11e1-9e33-c80aa9429562', 1, 5, '')")
    assert run(ex, "SELECT * FROM mysql.gtid_executed", None).rows == [
        ("3e11fa47-71ca-11e1-9e33-c80aa9429562", 1, 5, "")
    ]


def test_performance_schema_threads_come_from_the_callback(ex):
    ex.storage.threads_provider = lambda: [
        {
            "THREAD_ID": 42,
            "NAME": "thread/sql/compress_gtid_table",
            "TYPE": "FOREGROUND",
            "PROCESSLIST_COMMAND": "Daemon",
            "PROCESSLIST_STATE": "Suspending",
        }
    ]
    assert run(
        ex, "SELECT NAME, PROCESSLIST_STATE FROM performance_schema.threads WHERE NAME LIKE '%compress%'"
    ).rows == [("thread/sql/compress_gtid_table", "Suspending")]


def test_databases_use_and_qualified_names(ex):
    assert err(ex, "SELECT * FROM t", None).code == 1046
    assert err(ex, "CREATE TABLE t (a INT)", None).code == 1046
    assert err(ex, "USE nosuch").code == 1049
    assert run(ex, "USE d", None).new_db == "d"
    run(ex, "CREATE DATABASE IF NOT EXISTS e")
    assert run(ex, "CREATE DATABASE IF NOT EXISTS e").warnings[0][1] == 1007
    assert err(ex, "CREATE DATABASE e").code == 1007
    run(ex, "CREATE TABLE e.t (a INT)")
    run(ex, "INSERT INTO e.t VALUES (1)")
    assert run(ex, "SELECT e.t.a, t.a FROM e.t").rows == [(1, 1)]
    e = err(ex, "SELECT * FROM e.nosuch")
    assert (e.code, e.sqlstate, e.message) == (1146, "42S02", "Table 'e.nosuch' doesn't exist")
    assert run(ex, "DROP DATABASE e", "e").new_db == ""
    assert err(ex, "DROP DATABASE e").code == 1008
    assert err(ex, "DROP DATABASE mysql").code == 3552
    e = err(ex, "DROP TABLE nosuch")
    assert (e.code, e.message) == (1051, "Unknown table 'd.nosuch'")
    assert run(ex, "DROP TABLE IF EXISTS nosuch").warnings == [("Note", 1051, "Unknown table 'd.nosuch'")]


def test_insert_forms_affected_rows_and_last_insert_id(ex):
    run(
        ex,
        "CREATE TABLE t (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, u INT, v VARCHAR(5) DEFAULT 'dv', "
        "UNIQUE KEY uu (u))",
    )
    res = run(ex, "INSERT INTO t (u) VALUES (10), (20), (30)")
    assert (res.affected_rows, res.last_insert_id, res.info) == (
        3,
        1,
        "Records: 3  Duplicates: 0  Warnings: 0",
    )
    assert [c.after for c in res.row_changes] == [(1, 10, "dv"), (2, 20, "dv"), (3, 30, "dv")]
    res = run(ex, "INSERT INTO t SET u = 40, v = 'x'")
    assert res.row_changes[0].after == (4, 40, "x")
    e = err(ex, "INSERT INTO t (u) VALUES (50), (10)")
    assert (e.code, e.sqlstate, e.message) == (1062, "23000", "Duplicate entry '10' for key 't.uu'")
    assert run(ex, "SELECT COUNT(*) FROM t").rows == [(4,)]  # the statement is atomic: 50 was undone
    res = run(ex, "INSERT IGNORE INTO t (u) VALUES (10), (60)")
    assert res.affected_rows == 1 and res.warnings == [
        ("Warning", 1062, "Duplicate entry '10' for key 't.uu'")
    ]
    # ON DUPLICATE KEY UPDATE: 2 per updated row, 0 when unchanged, VALUES() reads the proposed row
    res = run(ex, "INSERT INTO t (u, v) VALUES (20, 'new') ON DUPLICATE KEY UPDATE v = VALUES(v)")
    assert res.affected_rows == 2
    assert res.row_changes == [RowChange("d", "t", "update", (2, 20, "dv"), (2, 20, "new"))]
    assert (
        run(ex, "INSERT INTO t (u, v) VALUES (20, 'new') ON DUPLICATE KEY UPDATE v = VALUES(v)").affected_rows
        == 0
    )
    res = run(
        ex, "INSERT INTO t (u, v) VALUES (20, 'al') AS nw ON DUPLICATE KEY UPDATE v = CONCAT(nw.v, t.v)"
    )
    assert res.row_changes[0].after == (2, 20, "alnew")  # MySQL 8.0.19+ row alias
    res = run(ex, "INSERT INTO t (u, v) VALUES (20, 'x') AS nw(p, q) ON DUPLICATE KEY UPDATE v = nw.q")
    assert res.row_changes[0].after == (2, 20, "x")
    res = run(ex, "REPLACE INTO t (id, u, v) VALUES (3, 30, 'rep')")
    assert res.affected_rows == 2
    assert [c.kind for c in res.row_changes] == ["delete", "insert"]
    assert run(ex, "SELECT v FROM t WHERE id = 3").rows == [("rep",)]
    res = run(ex, "INSERT INTO t (u) SELECT u + 1000 FROM t WHERE u < 25")
    assert res.affected_rows == 2 and res.info.startswith("Records: 2")
    assert run(ex, "INSERT INTO t (id, u) VALUES (100, 1)").last_insert_id == 100
    assert run(ex, "INSERT INTO t (u) VALUES (2)").last_insert_id == 101
    assert run(ex, "SELECT LAST_INSERT_ID()").rows == [(101,)]


@pytest.mark.parametrize(
    "sql, code, sqlstate, message",
    [
        ("INSERT INTO s (a) VALUES (NULL)", 1048, "23000", "Column 'a' cannot be null"),
        ("INSERT INTO s (b) VALUES (1)", 1364, "HY000", "Field 'a' doesn't have a default value"),
        ("INSERT INTO s (a, t) VALUES (300, 1)", 1264, "22003", "Out of range value for column 'a' at row 1"),
        ("INSERT INTO s (a, b) VALUES (1, 'abcdef')", 1406, "22001", "Data too long for column 'b' at row 1"),
        (
            "INSERT INTO s (a) VALUES ('abc')",
            1366,
            "HY000",
            "Incorrect integer value: 'abc' for column 'a' at row 1",
        ),
        (
            "INSERT INTO s (a, d) VALUES (1, '2024-02-30')",
            1292,
            "22007",
            "Incorrect date value: '2024-02-30' for column 'd' at row 1",
        ),
        ("INSERT INTO s (a, nosuch) VALUES (1, 2)", 1054, "42S22", "Unknown column 'nosuch' in 'field list'"),
        ("INSERT INTO s VALUES (1)", 1136, "21S01", "Column count doesn't match value count at row 1"),
        ("UPDATE s SET b = 'abcdefgh'", 1406, "22001", "Data too long for column 'b' at row 1"),
        ("UPDATE s SET a = 1000", 1264, "22003", "Out of range value for column 'a' at row 1"),
        ("UPDATE s SET a = NULL", 1048, "23000", "Column 'a' cannot be null"),
        ("SELECT nosuch FROM s", 1054, "42S22", "Unknown column 'nosuch' in 'field list'"),
        ("SELECT a FROM s WHERE nosuch = 1", 1054, "42S22", "Unknown column 'nosuch' in 'where clause'"),
        ("SELCT 1", 1064, "42000", None),
        ("SELECT * FROM s WHERE", 1064, "42000", None),
        ("CREATE TABLE f (a INT, FOREIGN KEY (a) REFERENCES s (a))", 1235, "42000", None),
        ("ALTER VIEW v AS SELECT 1", 1235, "42000", None),
        ("CREATE USER u1", 1235, "42000", "This version of MySQL doesn't yet support 'CREATE USER'"),
        ("CREATE TABLE g (a INT, a INT)", 1060, "42S21", "Duplicate column name 'a'"),
        ("CREATE TABLE g (a INT AUTO_INCREMENT)", 1075, "42000", None),
        (
            "CREATE TABLE g (a INT PRIMARY KEY, b INT, PRIMARY KEY (b))",
            1068,
            "42000",
            "Multiple primary key defined",
        ),
        ("CREATE TABLE g (a INT, KEY (nosuch))", 1072, "42000", "Key column 'nosuch' doesn't exist in table"),
    ],
    ids=lambda v: v if isinstance(v, str) and len(v) < 50 else None,
)
def test_mysql_errors(ex, sql, code, sqlstate, message):
    run(ex, "CREATE TABLE s (a TINYINT UNSIGNED NOT NULL, b VARCHAR(5), t TINYINT, d DATE)")
    run(ex, "INSERT INTO s (a, b) VALUES (1, 'x')")
    e = err(ex, sql)
    assert (e.code, e.sqlstate) == (code, sqlstate)
    if message is not None:
        assert e.message == message
    assert run(ex, "SELECT a, b FROM s").rows == [(1, "x")]  # nothing half-done


def test_update_semantics(ex):
    run(ex, "CREATE TABLE t (id INT PRIMARY KEY, a INT, b INT)")
    run(ex, "INSERT INTO t VALUES (1, 1, 0), (2, 2, 0), (3, 3, 0)")
    # MySQL evaluates single-table assignments left to right: b sees the new a
    res = run(ex, "UPDATE t SET a = a + 10, b = a WHERE id = 1")
    assert res.row_changes[0].after == (1, 11, 11)
    # unchanged rows are matched but neither counted nor logged
    res = run(ex, "UPDATE t SET b = 0 WHERE id IN (2, 3)")
    assert (res.affected_rows, res.row_changes, res.info) == (
        0,
        [],
        "Rows matched: 2  Changed: 0  Warnings: 0",
    )
    # ORDER BY + LIMIT pick the rows; a primary-key change is followed by RETURNING
    res = run(ex, "UPDATE t SET id = id + 100 ORDER BY id DESC LIMIT 2")
    assert [(c.before[0], c.after[0]) for c in res.row_changes] == [(3, 103), (2, 102)]
    e = err(ex, "UPDATE t SET id = 1 WHERE id = 102")
    assert (e.code, e.message) == (1062, "Duplicate entry '1' for key 't.PRIMARY'")
    # non-integers assigned to INT columns round half away from zero, as MySQL
    assert run(ex, "UPDATE t SET a = 2.5 WHERE id = 1").row_changes[0].after == (1, 3, 11)
    res = run(ex, "DELETE FROM t ORDER BY id LIMIT 1")
    assert res.row_changes == [RowChange("d", "t", "delete", (1, 3, 11), None)]


def test_select_features(ex):
    run(ex, "CREATE TABLE a (id INT PRIMARY KEY, g VARCHAR(5), n INT)")
    run(ex, "CREATE TABLE b (id INT PRIMARY KEY, a_id INT, w DOUBLE)")
    run(ex, "INSERT INTO a VALUES (1, 'x', 10), (2, 'x', 20), (3, 'y', 30)")
    run(ex, "INSERT INTO b VALUES (1, 1, 0.5), (2, 1, 1.5), (3, 3, 2.0)")
    assert run(
        ex, "SELECT a.g, COUNT(*) AS n, SUM(b.w) FROM a JOIN b ON b.a_id = a.id GROUP BY a.g ORDER BY a.g"
    ).rows == [("x", 2, 2.0), ("y", 1, 2.0)]
    assert run(ex, "SELECT id FROM a WHERE n > (SELECT AVG(n) FROM a)").rows == [(3,)]
    assert run(ex, "SELECT id FROM a WHERE id IN (SELECT a_id FROM b) ORDER BY id DESC LIMIT 1").rows == [
        (3,)
    ]
    assert run(ex, "SELECT a.id, b.id FROM a LEFT JOIN b ON b.a_id = a.id WHERE b.id IS NULL").rows == [
        (2, None)
    ]
    assert run(ex, "SELECT id FROM a LIMIT 1, 1").rows == [(2,)]
    assert run(ex, "SELECT g FROM a WHERE g = 'X' LIMIT 1").rows == [("x",)]  # case-insensitive collation
    res = run(ex, "SELECT COUNT(*), CONCAT(g, '-', n) FROM a WHERE id = 1")
    assert res.columns == ["COUNT(*)", "CONCAT(g, '-', n)"] and res.rows == [(1, "x-10")]
    assert run(ex, "SELECT 1/2").rows == [(0.5,)]
    # MySQL names a computed column after the expression exactly as written
    res = run(ex, "SELECT sum(n),  count( * ), n+1, ( n*2 ), -n, 'lit' FROM a WHERE id = 1")
    assert res.columns == ["sum(n)", "count( * )", "n+1", "( n*2 )", "-n", "lit"]
    assert run(ex, "SELECT DATABASE(), VERSION()").rows == [("d", "8.0.36")]
    assert run(ex, "SELECT * FROM a WHERE id = 1 FOR UPDATE").rows == [(1, "x", 10)]
    assert run(ex, "WITH c AS (SELECT id FROM a WHERE n >= 20) SELECT COUNT(*) FROM c").rows == [(2,)]


def test_select_variables_and_registered_functions(ex):
    seen = []

    def resolver(name, scope):
        seen.append((name, scope))
        if name == "server_id":
            return 7
        raise MySQLError(1193, f"Unknown system variable '{name}'")

    ex.sysvar_resolver = resolver
    ex.functions["GTID_SUBSET"] = lambda a, b: int(set(a.split(",")) <= set(b.split(",")))
    ex.user_variables["x"] = 5
    res = run(ex, "SELECT @@GLOBAL.server_id, @@server_id, @x, GTID_SUBSET('a', 'a,b')")
    assert res.rows == [(7, 7, 5, 1)]
    assert res.columns == ["@@GLOBAL.server_id", "@@server_id", "@x", "GTID_SUBSET('a', 'a,b')"]
    # the executor also reads div_precision_increment once, for the result types of "/" and AVG, and sql_mode
    # before planning (NO_UNSIGNED_SUBTRACTION types subtractions)
    assert [v for v in seen if v[0] not in ("div_precision_increment", "sql_mode")] == [
        ("server_id", "GLOBAL"),
        ("server_id", None),
    ]
    run(ex, "CREATE TABLE t (id INT PRIMARY KEY)")
    run(ex, "INSERT INTO t VALUES (7), (8)")
    assert run(ex, "SELECT id FROM t WHERE id = @@server_id").rows == [(7,)]
    assert run(ex, "SELECT GTID_SUBSET('a', 'b') FROM t WHERE id = 8").rows == [(0,)]
    assert err(ex, "SELECT @@nosuch").code == 1193

    def boom(*a):
        raise MySQLError(1772, "Malformed GTID set specification 'x'.")

    ex.functions["GTID_SUBTRACT"] = boom
    assert err(ex, "SELECT GTID_SUBTRACT(id, 'x') FROM t").code == 1772
    assert err(ex, "SELECT NO_SUCH_FN(1) FROM t").code == 1305
    # a function replaced after statements ran (the executor compares its table's version, not the dictionaries)
    ex.functions["GTID_SUBSET"] = lambda a, b: 42
    assert run(ex, "SELECT GTID_SUBSET('a', 'b') FROM t WHERE id = 8").rows == [(42,)]
    ex.functions.update({"GTID_SUBSET": lambda a, b: 43})
    assert run(ex, "SELECT GTID_SUBSET('a', 'b') FROM t WHERE id = 8").rows == [(43,)]


def test_function_table_versions_every_change() -> None:
    from gtidkit.engine.sql.executor import FunctionTable

    table = FunctionTable()
    seen = {table.version}
    steps = [
        lambda: table.__setitem__("A", len),
        lambda: table.update(B=len),
        lambda: table.__ior__({"C": len}),
        lambda: table.setdefault("D", len),
        lambda: table.pop("D"),
        lambda: table.__delitem__("C"),
        lambda: table.popitem(),
        lambda: table.clear(),
    ]
    for step in steps:
        step()
        assert table.version not in seen
        seen.add(table.version)
    assert table == {}


def test_statement_atomicity_and_savepoints_inside_a_transaction(ex):
    run(ex, "CREATE TABLE t (id INT PRIMARY KEY)")
    conn = ex.conn
    conn.begin()
    run(ex, "INSERT INTO t VALUES (1)")
    run(ex, "SAVEPOINT sp")
    run(ex, "INSERT INTO t VALUES (2)")
    assert err(ex, "INSERT INTO t VALUES (3), (1)").code == 1062  # only this statement is undone
    assert run(ex, "SELECT id FROM t ORDER BY id").rows == [(1,), (2,)]
    run(ex, "ROLLBACK TO SAVEPOINT sp")
    assert run(ex, "SELECT id FROM t").rows == [(1,)]
    assert err(ex, "RELEASE SAVEPOINT nosuch").code == 1305
    conn.rollback()
    assert run(ex, "SELECT COUNT(*) FROM t").rows == [(0,)]


def test_types_are_coerced_to_the_column(ex):
    run(
        ex,
        "CREATE TABLE t (i INT, u BIGINT UNSIGNED, f FLOAT, dc DECIMAL(6,2), c CHAR(4), bn BINARY(3), "
        "dt DATETIME, d DATE, y YEAR, tx TEXT, bl BLOB)",
    )
    res = run(
        ex,
        "INSERT INTO t VALUES ('12', 5, '1.5', 3.14159, 'ab  ', 'a', '2024-1-2 3:04:05', '2024-03-01', "
        "24, 'text', x'00ff')",
    )
    assert res.row_changes[0].after == (
        12,
        5,
        1.5,
        Decimal("3.14"),
        "ab",
        b"a\0\0",
        "2024-01-02 03:04:05",
        "2024-03-01",
        2024,
        "text",
        b"\x00\xff",
    )
    assert run(ex, "SELECT i, dc FROM t").rows == [(12, Decimal("3.14"))]  # DECIMAL comes back exact
    assert run(ex, "SELECT * FROM t").rows[0][:4] == (12, 5, 1.5, Decimal("3.14"))
    (row,) = run(ex, "SELECT x.dc, dc + 1 FROM t AS x").rows
    # DECIMAL(6,2) + 1 is DECIMAL with scale 2, computed exactly (manual "Precision Math")
    assert row == (Decimal("3.14"), Decimal("4.14")) and str(row[1]) == "4.14"


def test_truncate_and_drop_index(ex):
    run(ex, "CREATE TABLE t (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, k INT, KEY kk (k))")
    run(ex, "INSERT INTO t (k) VALUES (1), (2)")
    run(ex, "TRUNCATE TABLE t")
    assert run(ex, "SELECT COUNT(*) FROM t").rows == [(0,)]
    run(ex, "DROP INDEX kk ON t")
    assert [ix.name for ix in ex.storage.catalog.get_table("d", "t").indexes] == ["PRIMARY"]
    assert err(ex, "DROP INDEX kk ON t").code == 1091
    run(ex, "CREATE UNIQUE INDEX uk ON t (k)")
    assert err(ex, "CREATE INDEX uk ON t (k)").code == 1061
    run(ex, "INSERT INTO t (k) VALUES (5)")
    assert err(ex, "INSERT INTO t (k) VALUES (5)").message == "Duplicate entry '5' for key 't.uk'"


def test_writes_to_system_views_are_refused(ex):
    assert err(ex, "DELETE FROM information_schema.TABLES").code == 1044
    assert err(ex, "DROP TABLE information_schema.COLUMNS").code == 3552


def test_alter_table_rebuilds_with_data_and_catalog(ex):
    run(ex, "CREATE TABLE t (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, a VARCHAR(10))")
    run(ex, "INSERT INTO t (a) VALUES ('x'), ('yy')")
    run(
        ex,
        "ALTER TABLE t ADD COLUMN n INT NOT NULL AFTER id, ADD COLUMN z CHAR(2) DEFAULT 'zz', ADD INDEX ia (a)",
    )
    assert run(ex, "SELECT * FROM t ORDER BY id").rows == [(1, 0, "x", "zz"), (2, 0, "yy", "zz")]
    assert show(ex, "SHOW INDEX FROM t").rows[1][2] == "ia"
    assert err(ex, "ALTER TABLE t ADD COLUMN a INT").code == 1060
    assert err(ex, "ALTER TABLE t DROP COLUMN nosuch").code == 1091
    e = err(ex, "ALTER TABLE t MODIFY a VARCHAR(1)")
    assert (e.code, e.message) == (1406, "Data too long for column 'a' at row 2")
    assert run(ex, "SELECT a FROM t ORDER BY id").rows == [("x",), ("yy",)]  # the failed ALTER left no trace
    run(ex, "ALTER TABLE t DROP COLUMN z, DROP INDEX ia")
    stats = (
        "SELECT INDEX_NAME FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME = '{}'"
    )
    assert run(ex, stats.format("t")).rows == [("PRIMARY",)]
    assert ex.storage.catalog.get_table("d", "t").column_names == ("id", "n", "a")
    run(ex, "RENAME TABLE t TO t2")
    assert err(ex, "SELECT * FROM t").code == 1146
    assert run(ex, stats.format("t")).rows == [] and run(ex, stats.format("t2")).rows == [("PRIMARY",)]
    assert err(ex, "INSERT INTO t2 (a) VALUES ('w')").code == 1364  # n NOT NULL, no default
    assert run(ex, "INSERT INTO t2 (n, a) VALUES (5, 'w')").last_insert_id == 3
    run(ex, "ALTER TABLE t2 RENAME TO t3")
    assert run(ex, "SELECT COUNT(*) FROM t3").rows == [(3,)]
    assert run(
        ex,
        "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_NAME = 't3' "
        "ORDER BY ORDINAL_POSITION",
    ).rows == [("id",), ("n",), ("a",)]
    run(ex, "CREATE TABLE t4 LIKE t3")
    assert ex.storage.catalog.get_table("d", "t4").indexes == ex.storage.catalog.get_table("d", "t3").indexes
    assert run(ex, "SELECT COUNT(*) FROM t4").rows == [(0,)]
    assert run(ex, "CREATE TABLE IF NOT EXISTS t4 (LIKE t3)").warnings[0][1] == 1050
    run(ex, "ALTER DATABASE d CHARACTER SET latin1")
    assert run(
        ex, "SELECT DEFAULT_CHARACTER_SET_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'd'"
    ).rows == [("latin1",)]


def test_on_update_current_timestamp_and_dual(ex):
    run(
        ex,
        "CREATE TABLE t (id INT PRIMARY KEY, v INT, ts DATETIME DEFAULT CURRENT_TIMESTAMP "
        "ON UPDATE CURRENT_TIMESTAMP)",
    )
    run(ex, "INSERT INTO t (id, v, ts) VALUES (1, 1, '2000-01-01 00:00:00')")
    assert run(ex, "UPDATE t SET v = 1").row_changes == []  # unchanged row: the timestamp stays
    after = run(ex, "UPDATE t SET v = 2").row_changes[0].after
    assert after[1] == 2 and after[2] > "2000-01-01 00:00:00"
    assert run(ex, "SELECT ts FROM t").rows == [(after[2],)]
    assert run(ex, "SELECT 1 + 1 FROM DUAL").rows == [(2,)]
    assert err(ex, "CREATE TABLE u (a INT ON UPDATE CURRENT_TIMESTAMP)").code == 1294


def test_eight_sessions_insert_concurrently_with_auto_increment(ex):
    import threading

    run(ex, "CREATE TABLE t (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, th INT, n INT)")
    storage = ex.storage
    errors: list[BaseException] = []
    ids: list[int] = []
    lock = threading.Lock()

    def worker(th: int) -> None:
        mine = Executor(storage, storage.connect())
        try:
            for n in range(40):
                if n % 2:
                    res = mine.execute(classify(f"INSERT INTO t (th, n) VALUES ({th}, {n})"), "d")
                else:  # an explicit multi-statement transaction: read, then write
                    mine.conn.begin()
                    mine.execute(classify(f"SELECT COUNT(*) FROM t WHERE th = {th}"), "d")
                    res = mine.execute(classify(f"INSERT INTO t (th, n) VALUES ({th}, {n})"), "d")
                    mine.execute(classify(f"UPDATE t SET n = n + 1000 WHERE id = {res.last_insert_id}"), "d")
                    mine.conn.commit()
                with lock:
                    ids.append(res.last_insert_id)
        except BaseException as e:  # noqa: BLE001 - asserted below
            errors.append(e)
        finally:
            mine.conn.close()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    assert sorted(ids) == list(range(1, 321))
    assert run(ex, "SELECT COUNT(*), COUNT(DISTINCT id), SUM(n >= 1000) FROM t").rows == [(320, 320, 160)]


def test_cached_shapes_give_the_same_results_as_literal_text(ex):
    """Property: executing through the shape cache (literals rebound) equals executing the literal text."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from gtidkit.engine.sql import executor as sql_mod

    run(ex, "CREATE TABLE p (id INT PRIMARY KEY, k INT, c VARCHAR(20))")
    run(ex, "INSERT INTO p VALUES " + ", ".join(f"({i}, {i % 7}, 'c{i % 5}')" for i in range(1, 60)))
    shapes = [
        "SELECT c FROM p WHERE id = {a}",
        "SELECT COUNT(*) FROM p WHERE id BETWEEN {a} AND {b}",
        "SELECT id FROM p WHERE k = {a} AND c <> '{s}' ORDER BY id LIMIT {b}",
        "SELECT id, k + {a} FROM p WHERE c = '{s}' ORDER BY 1 LIMIT 3",
        "SELECT SUM(k) FROM p WHERE id IN ({a}, {b}) OR c LIKE '{s}%'",
    ]

    @settings(max_examples=60, deadline=None)
    @given(
        st.sampled_from(shapes),
        st.integers(-3, 70),
        st.integers(0, 70),
        st.text(alphabet="c0123'%", max_size=4),
    )
    def check(shape, a, b, s):
        text = shape.format(a=a, b=b, s=s.replace("'", "''"))
        cached = run(ex, text)
        real = sql_mod.templatize
        sql_mod.templatize = lambda t: None
        try:
            literal = run(ex, text)
        finally:
            sql_mod.templatize = real
        assert (cached.columns, cached.rows) == (literal.columns, literal.rows)

    check()


def test_fuzzed_text_raises_only_mysql_errors(ex):
    from hypothesis import given, settings
    from hypothesis import strategies as st

    run(ex, "CREATE TABLE f (id INT PRIMARY KEY, v VARCHAR(5))")
    words = st.sampled_from(
        [
            "SELECT",
            "INSERT",
            "INTO",
            "f",
            "VALUES",
            "(",
            ")",
            "1",
            "'x'",
            ",",
            "WHERE",
            "=",
            "UPDATE",
            "SET",
            "v",
            "id",
            "DELETE",
            "FROM",
            "*",
            "ORDER",
            "BY",
            "LIMIT",
            "@@x",
            "CREATE",
            "TABLE",
            "DROP",
            "INT",
            ";",
            "`",
            "'",
            "--",
            "NULL",
            "AND",
            "JOIN",
        ]
    )

    @settings(max_examples=int(__import__("os").environ.get("GK_FUZZ", "150")), deadline=None)
    @given(st.lists(words, min_size=1, max_size=10))
    def check(tokens):
        text = " ".join(tokens)
        try:
            for stmt in __import__("gtidkit.engine.sql.parse", fromlist=["x"]).split_statements(text):
                ex.execute(classify(stmt), "d")
        except MySQLError:
            pass

    check()


def test_cached_dml_matches_literal_dml(ex):
    """Property: DML through the shape cache changes the same rows, with the same images, as the literal text."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from gtidkit.engine.sql import executor as sql_mod

    for db in ("c1", "c2"):
        run(ex, f"CREATE DATABASE {db}")
        run(
            ex,
            "CREATE TABLE t (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, k INT, c VARCHAR(8), UNIQUE KEY (c))",
            db,
        )
    shapes = [
        "INSERT INTO t (k, c) VALUES ({a}, '{s}')",
        "INSERT IGNORE INTO t (id, k, c) VALUES ({b}, {a}, '{s}')",
        "INSERT INTO t (id, k, c) VALUES ({b}, {a}, '{s}') ON DUPLICATE KEY UPDATE k = k + {a}, c = VALUES(c)",
        "REPLACE INTO t (id, k, c) VALUES ({b}, {a}, '{s}')",
        "UPDATE t SET k = k * 2 + {a} WHERE id BETWEEN {a} AND {b} ORDER BY id DESC LIMIT 2",
        "UPDATE t SET c = '{s}', k = {a} WHERE k = {b}",
        "DELETE FROM t WHERE k > {a} ORDER BY id LIMIT 1",
    ]

    def both(text):
        out = []
        for db, cached in (("c1", True), ("c2", False)):
            real = sql_mod.templatize
            if not cached:
                sql_mod.templatize = lambda t: None
            try:
                res = ex.execute(classify(text), db)
                out.append(
                    (
                        "ok",
                        res.affected_rows,
                        res.last_insert_id,
                        res.warnings,
                        [(c.kind, c.before, c.after) for c in res.row_changes],
                    )
                )
            except MySQLError as e:
                out.append(("error", e.code, e.message))
            finally:
                sql_mod.templatize = real
        return out

    @settings(max_examples=80, deadline=None)
    @given(
        st.sampled_from(shapes), st.integers(0, 9), st.integers(1, 12), st.text(alphabet="ab'", max_size=3)
    )
    def check(shape, a, b, s):
        r1, r2 = both(shape.format(a=a, b=b, s=s.replace("'", "''")))
        assert r1 == r2
        assert (
            run(ex, "SELECT * FROM t ORDER BY id", "c1").rows
            == run(ex, "SELECT * FROM t ORDER BY id", "c2").rows
        )

    check()


@pytest.mark.parametrize(
    "expr, expected",
    [
        ("LEFT(c, 1)", "A"),
        ("RIGHT(c, 1)", "b"),
        ("c = 'ab'", 1),  # utf8mb4_0900_ai_ci compares case-insensitively
        ("CONCAT(c, '-', k)", "Ab-1"),
        ("IF(k = 1, 'y', 'n')", "y"),
        ("IFNULL(NULL, 'x')", "x"),
        ("REPEAT('ab', 2)", "abab"),
        ("LPAD(k, 3, '0')", "001"),
        ("YEAR(d)", 2024),
        ("MONTH(d)", 1),
        ("DAYOFWEEK(d)", 4),
        ("LAST_DAY(dd)", "2024-01-31"),
        (
            "DATE_ADD(d, INTERVAL 1 HOUR)",
            "2024-01-31 11:20:30",
        ),  # sqlglot alone gives SQLite DATE(): truncated
        ("d - INTERVAL 1 DAY", "2024-01-30 10:20:30"),
        ("DATE_SUB(dd, INTERVAL 1 MONTH)", "2023-12-31"),
        ("dd + INTERVAL 1 MONTH", "2024-02-29"),  # clamped to the month's last day, as MySQL
        ("DATEDIFF(d, '2024-01-01')", 30),
        ("UNHEX('41')", b"A"),
        ("FROM_UNIXTIME(UNIX_TIMESTAMP(d))", "2024-01-31 10:20:30"),
        ("5 DIV 2", 2),
        ("CASE WHEN k > 1 THEN 'big' ELSE 'small' END", "small"),
    ],
)
def test_mysql_functions_on_sqlite(ex, expr, expected):
    run(ex, "CREATE TABLE f (k INT, c VARCHAR(10), d DATETIME, dd DATE)")
    run(ex, "INSERT INTO f VALUES (1, 'Ab', '2024-01-31 10:20:30', '2024-01-31')")
    assert run(ex, f"SELECT {expr} FROM f").rows == [(expected,)]


def test_unsupported_functions_fail_loudly(ex):
    run(ex, "CREATE TABLE f (k INT)")
    run(ex, "INSERT INTO f VALUES (1)")
    # STR_TO_DATE is implemented now (tests/engine/test_builtin_functions.py); with 8.4's default sql_mode
    # (NO_ZERO_IN_DATE) a date without month and day is NULL (RM 8.4 "Date and Time Functions", STR_TO_DATE)
    assert run(ex, "SELECT STR_TO_DATE('2024', '%Y') FROM f").rows == [(None,)]
    assert run(ex, "SELECT GROUP_CONCAT(k ORDER BY k SEPARATOR '|') FROM f").rows == [("1",)]  # supported now
    assert err(ex, "SELECT FROM_UNIXTIME(0, '%Y') FROM f").code == 1235


def test_uncommitted_ddl_of_another_session_reads_as_missing_table(ex):
    other = Executor(ex.storage, ex.storage.connect())
    other.conn.begin()
    other.execute(
        classify("CREATE TABLE pending (a INT)"), "d"
    )  # in other's open transaction, not yet committed
    e = err(ex, "SELECT * FROM pending")
    assert (e.code, e.message) == (1146, "Table 'd.pending' doesn't exist")
    other.conn.commit()
    assert run(ex, "SELECT * FROM pending").rows == []


def test_a_column_named_rowid_does_not_confuse_row_addressing(ex):
    run(ex, "CREATE TABLE r (rowid INT, v INT)")  # no primary key: rows are addressed by SQLite's rowid
    run(ex, "INSERT INTO r VALUES (7, 1), (7, 2)")
    res = run(ex, "UPDATE r SET v = v + 10 WHERE v = 2")
    assert res.row_changes == [RowChange("d", "r", "update", (7, 2), (7, 12))]
    assert run(ex, "DELETE FROM r WHERE v = 1").row_changes == [RowChange("d", "r", "delete", (7, 1), None)]
    assert run(ex, "SELECT * FROM r").rows == [(7, 12)]
