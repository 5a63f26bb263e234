"""DATE / TIME / DATETIME / TIMESTAMP / DECIMAL scalars inside JSON documents keep their type.

MySQL keeps such a value as a binary JSON opaque value of its field type (``Json_datetime`` / ``Json_decimal``,
json_dom.h), names it in JSON_TYPE (``json_type_string_map``, item_json_func.cc) and prints it with its own text.
Expected values, each from mysql-test (MySQL 8.0.41 tree):

- [NT] ``suite/json/r/json_no_table.result``, "Test of CAST(literal AS JSON)": JSON_TYPE and the printed form of
  ``CAST(CAST('2014-11-25 18:00' AS DATETIME) AS JSON)`` ("2014-11-25 18:00:00.000000", DATETIME), of a DATE
  ("2014-11-25", DATE), a TIME ("18:00:59.000000", TIME), ``CAST(CAST(3.14 AS DECIMAL(5,2)) AS JSON)`` (3.14,
  DECIMAL) and ``CAST(3.14 AS JSON)`` (DECIMAL: an exact literal is a DECIMAL);
- [FI] ``suite/json/r/json_functions_innodb.result``, "Test of CAST(<column> AS JSON)": the table ``t1(dati
  datetime, da date, tim time, ts timestamp, dc decimal(5,2))`` holding '2014-11-25 18:00', '2014-11-25',
  '18:00:59', '2014-11-25 18:00', 3.14: JSON_TYPE DATETIME / DATE / TIME / TIMESTAMP / DECIMAL, printed
  "2014-11-25 18:00:00.000000", "2014-11-25", "18:00:59.000000", "2014-11-25 18:00:00.000000", 3.14.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from gtidkit.binlog import read_events
from gtidkit.binlog.events.rows import RowsEvent, TableMapEvent
from gtidkit.binlog.json_binary import JsonOpaque, decode, temporal_opaque, temporal_text
from gtidkit.binlog.row_image import decode_rows
from gtidkit.engine import Server
from gtidkit.engine.apply import read_transactions


@pytest.fixture
def s(open_server):
    session = open_server().session()
    session.execute("SET time_zone = '+00:00'")
    session.execute("CREATE DATABASE test")
    session.execute("USE test")
    yield session
    session.close()


def _one(s, sql: str):
    return s.execute(sql)[-1].rows[0][0]


@pytest.mark.parametrize(
    ("expr", "json_type", "printed"),
    [
        ("CAST(CAST('2014-11-25 18:00' AS DATETIME) AS JSON)", "DATETIME", '"2014-11-25 18:00:00.000000"'),
        ("CAST(CAST('2014-11-25' AS DATE) AS JSON)", "DATE", '"2014-11-25"'),
        ("CAST(CAST('18:00:59' AS TIME) AS JSON)", "TIME", '"18:00:59.000000"'),
        ("CAST(CAST(3.14 AS DECIMAL(5,2)) AS JSON)", "DECIMAL", "3.14"),
        ("CAST(3.14 AS JSON)", "DECIMAL", "3.14"),
        ("CAST(DATE'2015-01-15' AS JSON)", "DATE", '"2015-01-15"'),
        ("CAST(-1.50 AS JSON)", "DECIMAL", "-1.50"),  # Json_decimal prints the DECIMAL's own digits
        ("CAST(3.14E30 AS JSON)", "DOUBLE", "3.14e30"),  # [NT]: an approximate literal is a DOUBLE
    ],
    ids=["datetime", "date", "time", "decimal-cast", "decimal-literal", "date-literal", "negative", "double"],
)
def test_cast_literal_as_json(s, expr: str, json_type: str, printed: str) -> None:
    """[NT]"""
    assert _one(s, f"SELECT JSON_TYPE({expr})") == json_type
    assert _one(s, f"SELECT {expr}") == printed


@pytest.fixture
def t1(s):
    s.execute(
        "CREATE TABLE t1 (id INT PRIMARY KEY, dati DATETIME, da DATE, tim TIME, ts TIMESTAMP, dc DECIMAL(5,2))"
    )
    # [FI] inserts '2014-11-25 18:00' (no seconds): the same instant with its seconds written out
    s.execute(
        "INSERT INTO t1 VALUES (1, '2014-11-25 18:00:00', '2014-11-25', '18:00:59', '2014-11-25 18:00:00', 3.14)"
    )
    return s


@pytest.mark.parametrize(
    ("column", "json_type", "printed"),
    [
        ("dati", "DATETIME", '"2014-11-25 18:00:00.000000"'),
        ("da", "DATE", '"2014-11-25"'),
        ("tim", "TIME", '"18:00:59.000000"'),
        ("ts", "TIMESTAMP", '"2014-11-25 18:00:00.000000"'),
        ("dc", "DECIMAL", "3.14"),
    ],
    ids=["datetime", "date", "time", "timestamp", "decimal"],
)
def test_cast_column_as_json(t1, column: str, json_type: str, printed: str) -> None:
    """[FI]; the same value put in a document by JSON_OBJECT / JSON_ARRAY keeps the type (Item_func_json_array
    and Item_func_json_row_object take their arguments' JSON values, get_json_atom_wrapper)."""
    assert _one(t1, f"SELECT JSON_TYPE(CAST({column} AS JSON)) FROM t1") == json_type
    assert _one(t1, f"SELECT CAST({column} AS JSON) FROM t1") == printed
    assert _one(t1, f"SELECT JSON_TYPE(JSON_OBJECT('v', {column})->'$.v') FROM t1") == json_type
    assert _one(t1, f"SELECT JSON_TYPE(JSON_EXTRACT(JSON_ARRAY({column}), '$[0]')) FROM t1") == json_type
    assert _one(t1, f"SELECT JSON_ARRAY({column}) FROM t1") == f"[{printed}]"


def test_a_json_column_keeps_the_types(t1) -> None:
    """A document stored in a JSON column (from JSON_OBJECT of typed columns, and changed by JSON_SET) keeps each
    scalar's type; the column prints MySQL's text; ``->>`` gives the value's text unquoted."""
    t1.execute("CREATE TABLE docs (id INT PRIMARY KEY, j JSON)")
    t1.execute("INSERT INTO docs SELECT id, JSON_OBJECT('t', dati, 'd', da, 'c', dc) FROM t1")
    t1.execute("UPDATE docs SET j = JSON_SET(j, '$.tm', CAST('18:00:59' AS TIME), '$.n', 2.50)")
    row = t1.execute(
        "SELECT j, JSON_TYPE(j->'$.t'), JSON_TYPE(j->'$.d'), JSON_TYPE(j->'$.c'), JSON_TYPE(j->'$.tm'), "
        "JSON_TYPE(j->'$.n'), j->>'$.t', j->>'$.tm', j->'$.n' FROM docs"
    )[-1].rows[0]
    assert row == (
        '{"c": 3.14, "d": "2014-11-25", "n": 2.50, "t": "2014-11-25 18:00:00.000000", "tm": "18:00:59.000000"}',
        "DATETIME",
        "DATE",
        "DECIMAL",
        "TIME",
        "DECIMAL",
        "2014-11-25 18:00:00.000000",
        "18:00:59.000000",
        "2.50",
    )


def test_strings_that_look_like_dates_stay_strings(s) -> None:
    """A date written inside a JSON text is a JSON string (RM8 "The JSON Data Type": a JSON text has no date type)."""
    assert _one(s, """SELECT JSON_TYPE(JSON_EXTRACT('{"d": "2015-01-15"}', '$.d'))""") == "STRING"
    assert _one(s, "SELECT JSON_TYPE(JSON_ARRAY('2015-01-15'))") == "ARRAY"
    assert _one(s, "SELECT JSON_TYPE(JSON_EXTRACT(JSON_ARRAY('2015-01-15'), '$[0]'))") == "STRING"


def test_order_by_and_compare_follow_the_type(s) -> None:
    """DECIMALs sort as numbers (10.5 after 9.25), dates in time order; a JSON DECIMAL / DATE / DATETIME compares
    equal to the same SQL value (RM8 "Comparison and Ordering of JSON Values")."""
    s.execute("CREATE TABLE o (id INT PRIMARY KEY, j JSON)")
    s.execute(
        "INSERT INTO o VALUES (1, JSON_OBJECT('n', 10.5, 'd', DATE'2016-01-01')), "
        "(2, JSON_OBJECT('n', 9.25, 'd', DATE'2015-12-31')), (3, JSON_OBJECT('n', 100.0, 'd', DATE'2015-01-01'))"
    )
    assert [r[0] for r in s.execute("SELECT id FROM o ORDER BY j->'$.n'")[-1].rows] == [2, 1, 3]
    assert [r[0] for r in s.execute("SELECT id FROM o ORDER BY j->'$.d'")[-1].rows] == [3, 2, 1]
    assert [r[0] for r in s.execute("SELECT id FROM o WHERE j->'$.n' = 9.25")[-1].rows] == [2]
    assert [r[0] for r in s.execute("SELECT id FROM o WHERE j->'$.d' = DATE'2015-12-31'")[-1].rows] == [2]
    s.execute("CREATE TABLE dt (id INT PRIMARY KEY, t DATETIME, j JSON)")
    s.execute("INSERT INTO dt VALUES (1, '2015-01-15 23:24:25', NULL)")
    s.execute("UPDATE dt SET j = JSON_OBJECT('t', t)")
    assert _one(s, "SELECT COUNT(*) FROM dt WHERE j->'$.t' = t") == 1


@pytest.mark.parametrize(
    ("field_type", "text", "printed"),
    [
        (10, "2015-01-15", "2015-01-15"),
        (11, "18:00:59", "18:00:59.000000"),
        (11, "-838:59:59.5", "-838:59:59.500000"),
        (12, "2015-01-15 23:24:25.000001", "2015-01-15 23:24:25.000001"),
        (7, "2014-11-25 18:00", None),
    ],
    ids=["date", "time", "negative-time", "datetime-usec", "timestamp-no-seconds"],
)
def test_temporal_opaque_packs_what_temporal_text_reads(
    field_type: int, text: str, printed: str | None
) -> None:
    """The packed form (my_time.cc ``TIME_to_longlong_*_packed``) round trips through :func:`temporal_text`; text
    that is no such value is refused."""
    if printed is None:
        with pytest.raises(ValueError):
            temporal_opaque(field_type, text)
        return
    assert temporal_text(temporal_opaque(field_type, text)) == printed


def test_row_images_carry_opaque_values_and_the_applier_keeps_them(tmp_path) -> None:
    """The binary log's row image holds each typed scalar as MySQL's opaque value (DATE 10 / DATETIME 12 / TIME 11
    packed in 8 bytes, DECIMAL 246 as precision, scale, decimal2bin: json_binary.cc) and a replica applying it keeps
    the types (JSON_TYPE on the replica as on the source)."""
    src = tmp_path / "a"
    with Server.open(src, log_bin=True) as srv, srv.session() as s:
        s.execute("CREATE DATABASE app")
        s.execute("CREATE TABLE app.docs (id INT PRIMARY KEY, j JSON)")
        s.execute(
            "INSERT INTO app.docs VALUES (1, JSON_ARRAY(DATE'2015-01-15', CAST('2015-01-15 23:24:25' AS DATETIME), "
            "CAST('12:00:00' AS TIME), CAST(1.5 AS DECIMAL(5,2)), 'x'))"
        )
        expected = s.execute(f"SELECT j, {TYPES} FROM app.docs")[-1].rows
    assert expected == [
        (
            '["2015-01-15", "2015-01-15 23:24:25.000000", "12:00:00.000000", 1.50, "x"]',
            "DATE",
            "DATETIME",
            "TIME",
            "DECIMAL",
            "STRING",
        )
    ]
    docs = []
    maps: dict[int, TableMapEvent] = {}
    for pe in read_events(src / "binlog.000001"):
        ev = pe.event
        if isinstance(ev, TableMapEvent):
            maps[ev.table_id] = ev
        elif isinstance(ev, RowsEvent):
            for _before, after in decode_rows(maps[ev.table_id], ev):
                docs.append(decode(after[1]))
    assert docs == [
        [
            temporal_opaque(10, "2015-01-15"),
            temporal_opaque(12, "2015-01-15 23:24:25"),
            temporal_opaque(11, "12:00:00"),
            Decimal("1.50"),
            "x",
        ]
    ]
    assert all(isinstance(v, JsonOpaque) for v in docs[0][:3])
    with Server.open(tmp_path / "b", log_bin=False) as replica, replica.applier_session() as ap:
        for trx in read_transactions(src / "binlog.000001"):
            assert ap.apply(trx)
        with replica.session() as r:
            assert r.execute(f"SELECT j, {TYPES} FROM app.docs")[-1].rows == expected


TYPES = ", ".join(f"JSON_TYPE(j->'$[{i}]')" for i in range(5))


def test_string_functions_and_copies_of_a_json_column(s) -> None:
    """A JSON column read by a string function or CAST(... AS CHAR) is its printed text (``Field_json::val_str``);
    INSERT ... SELECT copies the document with its types; JSON_CONTAINS finds a DECIMAL by value."""
    s.execute("CREATE TABLE c (id INT PRIMARY KEY, j JSON)")
    s.execute("INSERT INTO c VALUES (1, JSON_ARRAY(DATE'2015-01-15', 1.50))")
    printed = '["2015-01-15", 1.50]'
    assert s.execute("SELECT CONCAT(j), LENGTH(j), CAST(j AS CHAR), UPPER(j) FROM c")[-1].rows == [
        (printed, len(printed), printed, printed)
    ]
    s.execute("INSERT INTO c SELECT 2, j FROM c")
    assert s.execute("SELECT j, JSON_TYPE(j->'$[0]'), JSON_TYPE(j->'$[1]') FROM c WHERE id = 2")[-1].rows == [
        (printed, "DATE", "DECIMAL")
    ]
    assert _one(s, "SELECT COUNT(*) FROM c WHERE JSON_CONTAINS(j, CAST(1.50 AS JSON))") == 2
    # through UNION and a scalar subquery the document still prints as MySQL's text
    assert s.execute("SELECT j FROM c WHERE id = 1 UNION ALL SELECT 'x'")[-1].rows == [(printed,), ("x",)]
    assert _one(s, "SELECT (SELECT j FROM c WHERE id = 1) AS x") == printed
    assert s.execute("SELECT JSON_ARRAY(1.50) UNION SELECT 'x'")[-1].rows == [("[1.50]",), ("x",)]


def test_partial_json_diffs_carry_opaque_values(tmp_path) -> None:
    """With binlog_row_value_options=PARTIAL_JSON, JSON_SET of a DATE / DECIMAL logs a diff whose value is the
    opaque value (``Json_diff``: the new value as binary JSON), and the applier's document keeps the types."""
    from gtidkit.binlog.json_diff import JsonDiffs

    src = tmp_path / "a"
    with Server.open(src, log_bin=True, gtid_mode="OFF") as srv, srv.session() as s:
        s.execute("CREATE DATABASE app")
        s.execute("CREATE TABLE app.docs (id INT PRIMARY KEY, j JSON)")
        s.execute("""INSERT INTO app.docs VALUES (1, '{"a": "%s", "b": 1}')""" % ("x" * 200))
        s.execute("SET binlog_row_value_options = PARTIAL_JSON, binlog_row_image = MINIMAL")
        s.execute("UPDATE app.docs SET j = JSON_SET(j, '$.d', DATE'2015-01-15', '$.b', 2.50)")
        expected = s.execute("SELECT j, JSON_TYPE(j->'$.d'), JSON_TYPE(j->'$.b') FROM app.docs")[-1].rows
    assert expected[0][1:] == ("DATE", "DECIMAL")
    maps: dict[int, TableMapEvent] = {}
    diffs = []
    for pe in read_events(src / "binlog.000001"):
        ev = pe.event
        if isinstance(ev, TableMapEvent):
            maps[ev.table_id] = ev
        elif isinstance(ev, RowsEvent) and ev.type_code == 39:  # PARTIAL_UPDATE_ROWS_EVENT
            for _before, after in decode_rows(maps[ev.table_id], ev):
                assert isinstance(after[1], JsonDiffs)
                diffs.extend((d.operation, d.path, decode(d.value)) for d in after[1].diffs)
    assert diffs == [(1, "$.d", temporal_opaque(10, "2015-01-15")), (0, "$.b", Decimal("2.50"))]
    with (
        Server.open(tmp_path / "b", log_bin=False, gtid_mode="OFF") as replica,
        replica.applier_session() as ap,
    ):
        for trx in read_transactions(src / "binlog.000001"):
            assert ap.apply(trx)
        with replica.session() as r:
            assert (
                r.execute("SELECT j, JSON_TYPE(j->'$.d'), JSON_TYPE(j->'$.b') FROM app.docs")[-1].rows
                == expected
            )
