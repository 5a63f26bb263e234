"""Exact DECIMAL arithmetic and the result types MySQL announces for derived numeric columns.

Every expected value is MySQL's, from its manual (8.4 and earlier, unchanged since 5.0's precision math):

* "Precision Math Examples": ``SELECT (.1 + .2) = .3`` -> 1, ``SELECT (.1E0 + .2E0) = .3E0`` -> 0,
  ``SELECT .01 * .01`` -> 0.0001, and adding ``.0001`` 10,000 times to a DECIMAL(10,4) gives exactly 1.0000;
* "Rounding Behavior": ``SELECT ROUND(2.5), ROUND(25E-1)`` -> 3, 2; inserts into DECIMAL round half away from
  zero, exact or approximate;
* "Arithmetic Operators": ``SELECT 3/5`` -> 0.6000, ``SELECT 102/(1-1)`` -> NULL, "the result of the expression
  5.05 / 0.014 has a scale of six decimal places (360.714286)", ``(14620 / 9432456) / (24250 / 9432456)`` ->
  0.60288653, ``MOD(N, 0)`` -> NULL;
* ``div_precision_increment`` (Server System Variables): ``SELECT 1/7`` -> 0.1429 with the default 4;
* "Aggregate Function Descriptions": SUM() and AVG() return DECIMAL for exact-value arguments, DOUBLE for
  approximate ones; MIN/MAX keep the argument's type;
* result precision and scale (``Item_func_plus/mul/div::result_precision``, ``Item_sum_sum`` /
  ``Item_sum_avg::resolve_type``): ``+``/``-`` scale max(s1,s2), ``*`` s1+s2, ``/`` s1+4; SUM(DECIMAL(p,s)) is
  DECIMAL(p+22,s), AVG DECIMAL(p+4,s+4); a NEWDECIMAL column's length is precision + 1 (point, when scale > 0)
  + 1 (sign) (``my_decimal_precision_to_length_no_truncation``). The DBA report this module answers: MySQL
  sends ``salary * 2`` of a DECIMAL(10,2) as NEWDECIMAL (246) with decimals 2 ('400.00', '600.50'), SUM(salary)
  as '300.50' and AVG(salary) as '150.250000'.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from gtidkit.engine.results import ColumnFlag, FieldType

NEWDECIMAL = int(FieldType.MYSQL_TYPE_NEWDECIMAL)
DOUBLE = int(FieldType.MYSQL_TYPE_DOUBLE)
LONGLONG = int(FieldType.MYSQL_TYPE_LONGLONG)


@pytest.fixture
def s(open_server):
    srv = open_server()
    with srv.session() as sess:
        sess.execute("CREATE DATABASE test; USE test")
        sess.execute(
            "CREATE TABLE emp (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(50), dept VARCHAR(20), "
            "salary DECIMAL(10,2), bonus DOUBLE)"
        )
        sess.execute(
            "INSERT INTO emp (name, dept, salary, bonus) VALUES "
            "('ann', 'ops', 100.50, 1.5), ('bob', 'ops', 200.00, 2.5), ('cy', 'dev', 300.25, 0.5)"
        )
        yield sess


def one(sess, sql):
    (res,) = sess.execute(sql)
    return res


def text(v):
    """The text protocol's form of a value (``protocol.messages.text_value``): what the client reads."""
    from gtidkit.protocol.messages import text_value

    out = text_value(v)
    return None if out is None else out.decode()


# (expression, MySQL's text of the value, type code, decimals) -- sources in the module docstring
LITERAL_CASES = [
    ("(.1 + .2) = .3", "1", LONGLONG, 0),
    ("(.1E0 + .2E0) = .3E0", "0", LONGLONG, 0),
    (".01 * .01", "0.0001", NEWDECIMAL, 4),
    ("ROUND(2.5)", "3", NEWDECIMAL, 0),
    ("ROUND(-2.5)", "-3", NEWDECIMAL, 0),
    ("ROUND(25E-1)", "2", DOUBLE, 31),
    ("3/5", "0.6000", NEWDECIMAL, 4),
    ("1/3", "0.3333", NEWDECIMAL, 4),
    ("1/7", "0.1429", NEWDECIMAL, 4),
    ("102/(1-1)", None, NEWDECIMAL, 4),
    ("5.05 / 0.014", "360.714286", NEWDECIMAL, 6),
    ("(14620 / 9432456) / (24250 / 9432456)", "0.60288653", NEWDECIMAL, 8),
    ("1e0/3", "0.3333333333333333", DOUBLE, 31),
    ("MOD(5.5, 0)", None, NEWDECIMAL, 1),
    ("7/2", "3.5000", NEWDECIMAL, 4),
    # manual "Cast Functions and Operators": DECIMAL(M,D), M defaults to 10 and D to 0; exact values round half
    # away from zero ("Rounding Behavior")
    ("CAST(2.675 AS DECIMAL(5,2))", "2.68", NEWDECIMAL, 2),
    ("CAST('1.005' AS DECIMAL(6,2))", "1.01", NEWDECIMAL, 2),
    ("CAST(-7.5 AS DECIMAL)", "-8", NEWDECIMAL, 0),
]


@pytest.mark.parametrize(
    ("expr", "value", "type_", "decimals"), LITERAL_CASES, ids=[c[0] for c in LITERAL_CASES]
)
def test_literal_arithmetic(s, expr, value, type_, decimals):
    res = one(s, f"SELECT {expr}")
    col = res.columns[0]
    assert (text(res.rows[0][0]), int(col.type), col.decimals) == (value, type_, decimals)


def test_where_compares_exact_sums(s):
    # manual "Precision Math Examples" 1: exact-value numbers are used with their exact value, so .1 + .2 = .3
    s.execute("CREATE TABLE p (a DECIMAL(3,1), b DECIMAL(3,1))")
    s.execute("INSERT INTO p VALUES (0.1, 0.2)")
    assert one(s, "SELECT COUNT(*) FROM p WHERE a + b = 0.3").rows == [(1,)]
    assert one(s, "SELECT a + b FROM p WHERE a + b = .3").rows == [(Decimal("0.3"),)]


def test_the_dba_report_over_emp(s):
    res = one(s, "SELECT name, salary * 2 AS dbl FROM emp WHERE salary > 150")
    assert [(r[0], text(r[1])) for r in res.rows] == [("bob", "400.00"), ("cy", "600.50")]
    dbl = res.columns[1]
    # DECIMAL(10,2) * 2 (precision 1) -> DECIMAL(11,2): length 11 + 1 + 1
    assert (int(dbl.type), dbl.length, dbl.decimals) == (NEWDECIMAL, 13, 2)
    assert dbl.flags & ColumnFlag.NUM and not dbl.flags & ColumnFlag.NOT_NULL
    res = one(s, "SELECT dept, SUM(salary), AVG(salary) FROM emp GROUP BY dept ORDER BY dept DESC")
    assert [(r[0], text(r[1]), text(r[2])) for r in res.rows] == [
        ("ops", "300.50", "150.250000"),
        ("dev", "300.25", "300.250000"),
    ]
    total, avg = res.columns[1], res.columns[2]
    assert (int(total.type), total.length, total.decimals) == (NEWDECIMAL, 34, 2)  # DECIMAL(32,2)
    assert (int(avg.type), avg.length, avg.decimals) == (NEWDECIMAL, 16, 6)  # DECIMAL(14,6)


@pytest.mark.parametrize(
    ("expr", "value", "type_", "decimals"),
    [
        ("salary + 1", "101.50", NEWDECIMAL, 2),
        ("salary - 0.125", "100.375", NEWDECIMAL, 3),
        ("salary * 1.5", "150.750", NEWDECIMAL, 3),
        ("salary / 4", "25.125000", NEWDECIMAL, 6),
        ("salary % 7", "2.50", NEWDECIMAL, 2),
        ("-salary", "-100.50", NEWDECIMAL, 2),
        ("ABS(-salary)", "100.50", NEWDECIMAL, 2),
        ("ROUND(salary, 0)", "101", NEWDECIMAL, 0),
        ("ROUND(salary, 1)", "100.5", NEWDECIMAL, 1),
        ("salary * bonus", "150.75", DOUBLE, 31),
        ("salary + '1'", "101.5", DOUBLE, 31),
        ("id + 1", "2", LONGLONG, 0),
        ("id / 2", "0.5000", NEWDECIMAL, 4),
    ],
)
def test_column_arithmetic_types(s, expr, value, type_, decimals):
    res = one(s, f"SELECT {expr} FROM emp WHERE id = 1")
    col = res.columns[0]
    assert (text(res.rows[0][0]), int(col.type), col.decimals) == (value, type_, decimals)


def test_count_is_an_exact_integer_operand(s):
    res = one(s, "SELECT COUNT(*) * 1.5, COUNT(*) / 2 FROM emp")
    assert [text(v) for v in res.rows[0]] == ["4.5", "1.5000"]
    assert [(int(c.type), c.decimals) for c in res.columns] == [(NEWDECIMAL, 1), (NEWDECIMAL, 4)]


def test_aggregates_keep_or_widen_types(s):
    res = one(s, "SELECT MIN(salary), MAX(salary), SUM(id), AVG(id), SUM(bonus), COUNT(*) FROM emp")
    assert [text(v) for v in res.rows[0]] == ["100.50", "300.25", "6", "2.0000", "4.5", "3"]
    assert [(int(c.type), c.decimals) for c in res.columns] == [
        (NEWDECIMAL, 2),
        (NEWDECIMAL, 2),
        (NEWDECIMAL, 0),  # SUM of an INT is DECIMAL
        (NEWDECIMAL, 4),
        (DOUBLE, 31),  # SUM of a DOUBLE stays DOUBLE
        (LONGLONG, 0),
    ]


def test_sum_of_many_small_decimals_is_exact(s):
    # manual "Precision Math Examples" 1: .0001 added 10,000 times is exactly 1.0000 in a DECIMAL(10,4)
    s.execute("CREATE TABLE d4 (d DECIMAL(10,4))")
    s.execute("INSERT INTO d4 VALUES " + ", ".join(["(.0001)"] * 10000))
    res = one(s, "SELECT SUM(d), SUM(d) = 1, AVG(d) FROM d4")
    assert [text(v) for v in res.rows[0]] == ["1.0000", "1", "0.00010000"]
    assert one(s, "SELECT COUNT(*) FROM d4 HAVING SUM(d) = 1.0").rows == [(10000,)]


@pytest.mark.parametrize(
    ("start", "factor", "stored"),
    [
        ("0.10", "1.15", "0.12"),  # 0.115 exactly: half away from zero (a double product is 0.11499999...)
        ("1.90", "1.05", "2.00"),  # 1.995 exactly
        ("0.05", "0.7", "0.04"),  # 0.035 exactly
    ],
)
def test_update_stores_mysqls_rounded_exact_product(s, start, factor, stored):
    # manual "Rounding Behavior": a value stored into a DECIMAL column is rounded half away from zero
    s.execute("CREATE TABLE u (v DECIMAL(10,2))")
    s.execute(f"INSERT INTO u VALUES ({start})")
    s.execute(f"UPDATE u SET v = v * {factor}")
    assert [text(r[0]) for r in one(s, "SELECT v FROM u").rows] == [stored]


def test_insert_select_stores_exact_quotients(s):
    s.execute("CREATE TABLE q (v DECIMAL(10,2))")
    s.execute("INSERT INTO q SELECT salary * 1.15 FROM emp ORDER BY id")
    # 115.575, 230.000, 345.2875 rounded half away from zero to 2 digits
    assert [text(r[0]) for r in one(s, "SELECT v FROM q").rows] == ["115.58", "230.00", "345.29"]


def test_literals_of_another_kind_get_their_own_plan(s):
    # the statement cache replaces literals by placeholders; the result type follows the literal as written
    first = one(s, "SELECT salary * 2 FROM emp WHERE id = 1")
    second = one(s, "SELECT salary * 2.5 FROM emp WHERE id = 1")
    third = one(s, "SELECT salary * 2e0 FROM emp WHERE id = 1")
    assert (text(first.rows[0][0]), first.columns[0].decimals) == ("201.00", 2)
    assert (text(second.rows[0][0]), second.columns[0].decimals) == ("251.250", 3)
    assert (text(third.rows[0][0]), int(third.columns[0].type)) == ("201", DOUBLE)


def test_prepared_metadata_equals_execute(s):
    stmt = s.prepare("SELECT salary * 2 FROM emp WHERE id > ?")
    (res,) = s.execute_prepared(stmt, [1])
    assert stmt.columns == res.columns and [(int(c.type), c.decimals) for c in res.columns] == [
        (NEWDECIMAL, 2)
    ]
    stmt = s.prepare("SELECT dept, SUM(salary), AVG(salary) FROM emp WHERE id > ? GROUP BY dept")
    (res,) = s.execute_prepared(stmt, [0])
    assert stmt.columns == res.columns
    assert [(int(c.type), c.decimals) for c in res.columns[1:]] == [(NEWDECIMAL, 2), (NEWDECIMAL, 6)]


def test_derived_table_columns_keep_their_decimal_type(s):
    # a derived table's columns have its select list's types, so an outer reference stays DECIMAL(11,2)
    res = one(s, "SELECT x, x + 0.5 FROM (SELECT salary * 2 AS x FROM emp) AS d ORDER BY x")
    assert [tuple(text(v) for v in r) for r in res.rows] == [
        ("201.00", "201.50"),
        ("400.00", "400.50"),
        ("600.50", "601.00"),
    ]
    assert [(int(c.type), c.decimals) for c in res.columns] == [(NEWDECIMAL, 2), (NEWDECIMAL, 2)]


def test_create_table_select_takes_the_result_types(s):
    # CREATE TABLE ... SELECT makes each column of its item's type: DECIMAL(10,2) * 2 -> decimal(11,2),
    # SUM -> decimal(32,2), AVG -> decimal(14,6) (the DBA report's MySQL 8.4 types)
    s.execute(
        "CREATE TABLE c AS SELECT salary * 2 AS x, SUM(salary) AS t, AVG(salary) AS a FROM emp GROUP BY x"
    )
    ddl = one(s, "SHOW CREATE TABLE c").rows[0][1]
    assert "`x` decimal(11,2)" in ddl and "`t` decimal(32,2)" in ddl and "`a` decimal(14,6)" in ddl


def test_fallback_metadata_never_announces_an_integer_for_fractions():
    from gtidkit.engine.sql.metadata import value_column

    assert int(value_column("v", [400, 600.5]).type) == DOUBLE
    assert int(value_column("v", [400, 600]).type) == LONGLONG


@pytest.mark.parametrize(
    "expr",
    ["(14620 / 9432456) / (24250 / 9432456)", "CAST(2.675 AS DECIMAL(5,2))", "CONVERT(7.5, DECIMAL(4,1))"],
)
def test_items_are_named_as_written(s, expr):
    # MySQL names an unaliased item after its text as written (metadata.result: "select 1, 1.0, -1" -> 1, 1.0, -1)
    assert one(s, f"SELECT {expr}").columns[0].name == expr


def test_div_precision_increment(s):
    # manual, div_precision_increment: "SELECT 1/7" -> 0.1429; after "SET div_precision_increment = 12" ->
    # 0.142857142857. AVG's scale follows the variable as well (Item_sum_avg adds it to the argument's scale).
    assert text(one(s, "SELECT 1/7").rows[0][0]) == "0.1429"
    s.execute("SET div_precision_increment = 12")
    res = one(s, "SELECT 1/7")
    assert (text(res.rows[0][0]), res.columns[0].decimals) == ("0.142857142857", 12)
    res = one(s, "SELECT AVG(salary) FROM emp WHERE dept = 'ops'")
    assert (text(res.rows[0][0]), res.columns[0].decimals) == ("150.25000000000000", 14)
    s.execute("SET div_precision_increment = 0")
    assert text(one(s, "SELECT 1/7").rows[0][0]) == "0"
    s.execute("SET div_precision_increment = DEFAULT")
    assert text(one(s, "SELECT 1/7").rows[0][0]) == "0.1429"


def test_union_of_decimal_items(s):
    # a UNION column's type joins its SELECTs' types: DECIMAL(11,2) and DECIMAL(2,1) -> DECIMAL(11,2), named after
    # the first SELECT's item as written; a string column stays a string
    res = one(s, "SELECT salary*2 FROM emp WHERE id = 1 UNION ALL SELECT 1.5")
    assert [text(r[0]) for r in res.rows] == ["201.00", "1.50"]
    col = res.columns[0]
    assert (col.name, int(col.type), col.length, col.decimals) == ("salary*2", NEWDECIMAL, 13, 2)
    res = one(s, "SELECT name FROM emp WHERE id = 1 UNION ALL SELECT 1.5")
    assert int(res.columns[0].type) != NEWDECIMAL and [str(r[0]) for r in res.rows] == ["ann", "1.5"]


@pytest.mark.parametrize(
    ("expr", "value"),
    [
        # manual "Mathematical Functions", ROUND(X,D): "D can be negative to cause D digits left of the decimal
        # point of the value X to become zero"; "The return value has the same type as the first argument"
        ("ROUND(23.298, -1)", "20"),
        ("ROUND(1.298, 1)", "1.3"),
        ("ROUND(1.298, 0)", "1"),
        ("ROUND(-1.58)", "-2"),
        ("ROUND(150.000,2)", "150.00"),
        ("ROUND(150,2)", "150"),
    ],
)
def test_round_digits(s, expr, value):
    res = one(s, f"SELECT {expr}")
    assert text(res.rows[0][0]) == value
    assert int(res.columns[0].type) == (LONGLONG if expr == "ROUND(150,2)" else NEWDECIMAL)
