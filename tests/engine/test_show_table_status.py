"""SHOW TABLE STATUS [FROM db] [LIKE 'pat' | WHERE expr].

Expected from MySQL: RM8 "SHOW TABLE STATUS Statement" (the 18 columns in order; "For InnoDB tables, SHOW TABLE
STATUS does not give accurate statistics"; Version "The version number of the table's .frm file" is 10 in 8.0
dictionaries; "For views, all the fields displayed by SHOW TABLE STATUS are NULL except that Name indicates the
view name and Comment says VIEW"), RM8 "Extensions to SHOW Statements" (LIKE matches the first column, WHERE
filters on the displayed column names); MySQL 8.0 builds it as a SELECT over information_schema.TABLES
(``sql/dd/info_schema/show.cc``), so its values are that view's (Engine InnoDB, Row_format Dynamic, the table
collation utf8mb4_0900_ai_ci by default, Checksum NULL for InnoDB).
"""

from __future__ import annotations

import pytest

from gtidkit.errors import MySQLError

NAMES = [
    "Name", "Engine", "Version", "Row_format", "Rows", "Avg_row_length", "Data_length", "Max_data_length",
    "Index_length", "Data_free", "Auto_increment", "Create_time", "Update_time", "Check_time", "Collation",
    "Checksum", "Create_options", "Comment",
]  # fmt: skip


@pytest.fixture
def s(open_server):
    session = open_server().session()
    session.execute(
        "CREATE DATABASE d; USE d; CREATE TABLE t1 (a INT) COMMENT 'first'; CREATE TABLE t2 (b INT);"
        "CREATE TABLE x (c INT); CREATE VIEW v AS SELECT 1 AS one"
    )
    yield session
    session.close()


def _names(res) -> list[str]:
    return [r[0] for r in res.rows]


def test_columns_and_table_row(s) -> None:
    res = s.execute("SHOW TABLE STATUS")[0]
    assert [c.name for c in res.columns] == NAMES
    assert _names(res) == ["t1", "t2", "v", "x"]
    t1 = dict(zip(NAMES, res.rows[0]))
    assert (t1["Engine"], t1["Version"], t1["Row_format"]) == ("InnoDB", 10, "Dynamic")
    assert (t1["Collation"], t1["Checksum"], t1["Comment"]) == ("utf8mb4_0900_ai_ci", None, "first")
    view = dict(zip(NAMES, res.rows[2]))
    assert (view["Name"], view["Engine"], view["Comment"], view["Collation"]) == ("v", None, "VIEW", None)


@pytest.mark.parametrize(
    ("sql", "names"),
    [
        ("SHOW TABLE STATUS LIKE 't%'", ["t1", "t2"]),
        ("SHOW TABLE STATUS FROM d LIKE 'x'", ["x"]),
        ("show table status in `d` like 'T_'", ["t1", "t2"]),  # LIKE is case-insensitive on names
        ("SHOW TABLE STATUS WHERE Name = 't2' OR Comment = 'VIEW'", ["t2", "v"]),
        ("SHOW TABLE STATUS WHERE engine IS NULL", ["v"]),
        ("SHOW TABLE STATUS WHERE Comment LIKE 'fir%'", ["t1"]),
    ],
)
def test_filters(s, sql, names) -> None:
    assert _names(s.execute(sql)[0]) == names


def test_other_schema_and_errors(s, open_server) -> None:
    s.execute("CREATE DATABASE e; CREATE TABLE e.only (a INT)")
    assert _names(s.execute("SHOW TABLE STATUS FROM e")[0]) == ["only"]
    for sql, code in (("SHOW TABLE STATUS FROM nodb", 1049), ("SHOW TABLE STATUS WHERE nope = 1", 1054)):
        with pytest.raises(MySQLError) as exc:
            s.execute(sql)
        assert exc.value.code == code
    s.execute("CREATE DATABASE empty")
    s.execute("DROP DATABASE empty")  # leaves no default database
    with pytest.raises(MySQLError) as exc:
        s.execute("USE e; DROP DATABASE e; SHOW TABLE STATUS")
    assert exc.value.code == 1046
