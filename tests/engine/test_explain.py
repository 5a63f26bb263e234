"""EXPLAIN / DESCRIBE / DESC <statement> in MySQL's traditional format (engine/sql/explain.py).

Expected shapes from the MySQL 8.4 Reference Manual, "EXPLAIN Output Format": the 12 columns in order; join types
const ("a PRIMARY KEY or UNIQUE index compared to constant values"), eq_ref (one row per combination of rows from
the previous tables, all parts of a PRIMARY KEY or UNIQUE NOT NULL index), ref (a non-unique index prefix), range
(=, <>, >, >=, <, <=, BETWEEN, IN() on a key column), index (a full index scan: "Using index" when it covers the
query), ALL; Extra "Using where", "Using index", "Using filesort", "Using temporary", "No tables used", "Select
tables optimized away"; key_len ("INT 4, +1 for a nullable column, VARCHAR(n) utf8mb4 4n+2"); ref "const" or the
joined column as db.table.column; a note 1003 with the query after EXPLAIN ("EXPLAIN Statement", "Extended
EXPLAIN Output Format"). Rows are estimates in MySQL; here exact counts on these small tables (module docstring).
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from gtidkit.engine.sql.explain import COLUMNS
from gtidkit.errors import MySQLError


@pytest.fixture
def s(open_server):
    session = open_server().session()
    session.execute(
        "CREATE DATABASE d; USE d;"
        "CREATE TABLE t (id INT PRIMARY KEY, k INT NOT NULL, c VARCHAR(20), n INT, KEY k_1 (k), KEY kc (k, c));"
        "CREATE TABLE u (a BIGINT NOT NULL PRIMARY KEY, v VARCHAR(10) NOT NULL, UNIQUE KEY uv (v));"
        "INSERT INTO t VALUES (1, 1, 'a', NULL), (2, 2, 'b', 5), (3, 2, 'c', 6), (4, 3, 'd', 7);"
        "INSERT INTO u VALUES (1, 'x'), (2, 'y')"
    )
    yield session
    session.close()


def _explain(s, sql):
    res = s.execute(sql)
    res = res[-1] if isinstance(res, list) else res
    return res


def _rows(s, sql):
    res = _explain(s, sql)
    assert [c.name for c in res.columns] == list(COLUMNS)
    return [dict(zip(COLUMNS, r)) for r in res.rows]


def _short(row):
    return (row["id"], row["select_type"], row["table"], row["type"], row["key"], row["key_len"], row["ref"],
            row["rows"], row["Extra"])  # fmt: skip


def test_const_lookup_by_primary_key(s) -> None:
    (row,) = _rows(s, "EXPLAIN SELECT * FROM t WHERE id = 2")
    assert _short(row) == (1, "SIMPLE", "t", "const", "PRIMARY", "4", "const", 1, None)
    assert (
        row["partitions"] is None
        and row["possible_keys"] == "PRIMARY"
        and row["filtered"] == Decimal("100.00")
    )


def test_ref_on_secondary_index(s) -> None:
    (row,) = _rows(s, "EXPLAIN SELECT * FROM t WHERE k = 2")
    assert _short(row) == (1, "SIMPLE", "t", "ref", "k_1", "4", "const", 2, None)
    assert row["possible_keys"] == "k_1,kc"


def test_range_covering_index(s) -> None:
    (row,) = _rows(s, "DESC SELECT k FROM t WHERE k > 1")
    assert _short(row) == (1, "SIMPLE", "t", "range", "k_1", "4", None, 3, "Using where; Using index")


def test_range_on_primary_key_counts_the_chunk(s) -> None:
    # pt-table-checksum's chunk check: EXPLAIN SELECT COUNT(*) ... FORCE INDEX(PRIMARY) WHERE lower AND upper bound
    (row,) = _rows(s, "EXPLAIN SELECT COUNT(*) FROM t FORCE INDEX(PRIMARY) WHERE ((id >= 2)) AND ((id <= 3))")
    assert _short(row) == (1, "SIMPLE", "t", "range", "PRIMARY", "4", None, 2, "Using where")


def test_full_scan_with_filesort(s) -> None:
    (row,) = _rows(s, "EXPLAIN SELECT * FROM t WHERE n > 5 ORDER BY c")
    assert _short(row) == (1, "SIMPLE", "t", "ALL", None, None, None, 4, "Using where; Using filesort")


def test_varchar_key_len_and_nullable(s) -> None:
    (row,) = _rows(s, "EXPLAIN SELECT * FROM u WHERE v = 'x'")
    assert _short(row) == (1, "SIMPLE", "u", "const", "uv", "42", "const", 1, None)  # 10*4+2, NOT NULL
    (row,) = _rows(s, "EXPLAIN SELECT k, c FROM t WHERE k = 1 AND c = 'a'")
    assert row["key"] == "kc" and row["key_len"] == "87" and row["ref"] == "const,const"  # 4 + (20*4+2+1)


def test_join_eq_ref(s) -> None:
    rows = _rows(s, "EXPLAIN SELECT * FROM t JOIN u ON u.a = t.k")
    assert [_short(r) for r in rows] == [
        (1, "SIMPLE", "t", "ALL", None, None, None, 4, None),
        (1, "SIMPLE", "u", "eq_ref", "PRIMARY", "8", "d.t.k", 1, None),
    ]


def test_no_tables_used(s) -> None:
    (row,) = _rows(s, "EXPLAIN SELECT 1 + 1")
    assert _short(row) == (1, "SIMPLE", None, None, None, None, None, None, "No tables used")


def test_union_and_subquery_select_types(s) -> None:
    rows = _rows(s, "EXPLAIN SELECT 1 UNION SELECT k FROM t")
    assert [(r["id"], r["select_type"], r["table"]) for r in rows] == [
        (1, "PRIMARY", None),
        (2, "UNION", "t"),
        (None, "UNION RESULT", "<union1,2>"),
    ]
    rows = _rows(s, "EXPLAIN SELECT (SELECT MAX(id) FROM t) FROM u")
    assert [(r["id"], r["select_type"], r["Extra"]) for r in rows][1] == (
        2,
        "SUBQUERY",
        "Select tables optimized away",
    )
    rows = _rows(s, "EXPLAIN SELECT * FROM (SELECT k, COUNT(*) FROM t GROUP BY k) x")
    assert [(r["id"], r["select_type"], r["table"]) for r in rows] == [
        (2, "DERIVED", "t"),
        (1, "PRIMARY", "<derived2>"),
    ]


def test_update_delete_insert(s) -> None:
    (row,) = _rows(s, "EXPLAIN UPDATE t SET c = 'z' WHERE id = 1")
    assert _short(row) == (1, "UPDATE", "t", "range", "PRIMARY", "4", "const", 1, "Using where")
    (row,) = _rows(s, "EXPLAIN DELETE FROM t WHERE n = 5")
    assert _short(row) == (1, "DELETE", "t", "ALL", None, None, None, 4, "Using where")
    (row,) = _rows(s, "EXPLAIN INSERT INTO t VALUES (9, 9, 'z', 9)")
    assert _short(row) == (1, "INSERT", "t", "ALL", None, None, None, None, None)
    rows = _rows(s, "EXPLAIN REPLACE INTO u SELECT id, c FROM t")
    assert [r["select_type"] for r in rows] == ["REPLACE", "SIMPLE"]
    assert _explain(s, "SELECT COUNT(*) FROM t").rows == [(4,)]  # nothing ran


def test_note_1003_and_show_warnings(s) -> None:
    res = _explain(s, "EXPLAIN SELECT * FROM t WHERE id = 1")
    (w,) = res.warnings
    assert (w.level, w.code) == ("Note", 1003)
    assert w.message.startswith("/* select#1 */ ") and "`d`.`t`" in w.message
    shown = _explain(s, "SHOW WARNINGS").rows
    assert [(r[0], r[1]) for r in shown] == [("Note", 1003)]


def test_describe_table_still_shows_columns(s) -> None:
    for sql in ("EXPLAIN t", "DESCRIBE t", "DESC t"):
        assert [r[0] for r in _explain(s, sql).rows] == ["id", "k", "c", "n"]


@pytest.mark.parametrize(
    "sql, what",
    [
        ("EXPLAIN FORMAT=JSON SELECT 1", "EXPLAIN FORMAT=JSON"),
        ("EXPLAIN FORMAT=TREE SELECT * FROM t", "EXPLAIN FORMAT=TREE"),
        ("EXPLAIN ANALYZE SELECT * FROM t", "EXPLAIN ANALYZE"),
    ],
)
def test_formats_not_supported(s, sql, what) -> None:
    with pytest.raises(MySQLError) as err:
        s.execute(sql)
    assert err.value.code == 1235 and what in str(err.value)


def test_traditional_format_and_unknown_table(s) -> None:
    assert _rows(s, "EXPLAIN FORMAT=TRADITIONAL SELECT * FROM t WHERE id = 1")[0]["type"] == "const"
    with pytest.raises(MySQLError) as err:
        s.execute("EXPLAIN SELECT * FROM nope")
    assert err.value.code == 1146
