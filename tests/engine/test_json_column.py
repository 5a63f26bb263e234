"""The JSON column type (MySQL 8.4): DDL, stored and printed values, errors, functions on columns, binlog and applier.

Expected values, each cited where used:

- [INS] mysql-test ``suite/json/r/json_insert_innodb.result`` (mysql/mysql-server): SHOW CREATE TABLE of a JSON
  column, the printed form of each inserted document, and the ER_INVALID_JSON_TEXT / ER_INVALID_JSON_CHARSET
  messages for bad values;
- [RM] RM8.4 "The JSON Data Type" (https://dev.mysql.com/doc/refman/8.4/en/json.html): ``INSERT INTO t1
  VALUES('[1, 2,')`` -> ERROR 3140 "Invalid value." at position 6 in value for column 't1.jdoc'; "last duplicate key
  wins" (``{"x": 17, "x": "red"}`` is stored ``{"x": "red"}``); keys sorted, one space after ``,`` and ``:``;
- [FUN] RM8.4 "Functions That Modify JSON Values" (JSON_SET / JSON_INSERT / JSON_REPLACE / JSON_REMOVE examples)
  and "Aggregate Function Descriptions" (JSON_ARRAYAGG / JSON_OBJECTAGG over ``t3``);
- [SRCH] RM8.4 "JSON Function Reference": ``->`` and ``->>`` on the ``jemp`` table;
- column metadata: ``Field_json`` is a ``Field_blob`` over ``my_charset_bin`` (``sql/field.h``): MYSQL_TYPE_JSON 245,
  charset binary 63, BLOB | BINARY flags, the 4 GiB BLOB length.
"""

from __future__ import annotations

from typing import Any

import pytest

from gtidkit.binlog import read_events
from gtidkit.binlog.events.rows import RowsEvent, TableMapEvent
from gtidkit.binlog.json_binary import decode
from gtidkit.binlog.row_image import decode_rows
from gtidkit.engine import Server
from gtidkit.engine.apply import read_transactions
from gtidkit.engine.results import ColumnFlag, FieldType
from gtidkit.errors import MySQLError


@pytest.fixture
def s(open_server):
    session = open_server().session()
    session.execute("CREATE DATABASE test")
    session.execute("USE test")
    yield session
    session.close()


def _rows(s, sql: str) -> list[tuple]:
    return s.execute(sql)[-1].rows


# -- DDL ------------------------------------------------------------------------------------------------------------
def test_show_create_describe_and_information_schema(s) -> None:
    s.execute("CREATE TABLE t1 (i INT, j JSON)")
    create = _rows(s, "SHOW CREATE TABLE t1")[0][1]
    assert "  `j` json DEFAULT NULL" in create.splitlines()  # [INS]
    assert _rows(s, "DESCRIBE t1")[1] == ("j", "json", "YES", "", None, "")
    assert _rows(
        s,
        "SELECT DATA_TYPE, COLUMN_TYPE, CHARACTER_MAXIMUM_LENGTH, CHARACTER_SET_NAME, COLLATION_NAME "
        "FROM information_schema.COLUMNS WHERE TABLE_NAME = 't1' AND COLUMN_NAME = 'j'",
    ) == [("json", "json", None, None, None)]
    s.execute("ALTER TABLE t1 ADD COLUMN k JSON NOT NULL")
    assert "  `k` json NOT NULL" in _rows(s, "SHOW CREATE TABLE t1")[0][1].splitlines()


def test_a_json_column_has_no_literal_default(s) -> None:
    with pytest.raises(MySQLError) as e:
        s.execute("CREATE TABLE t (j JSON DEFAULT '{}')")
    assert (e.value.code, e.value.message) == (
        1101,
        "BLOB, TEXT, GEOMETRY or JSON column 'j' can't have a default value",
    )


def test_result_metadata_is_json_with_the_binary_charset(s) -> None:
    s.execute("CREATE TABLE t (id INT PRIMARY KEY, doc JSON)")
    col = s.execute("SELECT doc FROM t")[0].columns[0]
    assert col.type == FieldType.MYSQL_TYPE_JSON
    assert col.charset == 63
    assert col.flags & ColumnFlag.BLOB and col.flags & ColumnFlag.BINARY
    assert col.length == 4294967295


# -- stored values ------------------------------------------------------------------------------------------------------
PRINTED = [  # [INS] SELECT i, LENGTH(j), j FROM t1 ORDER BY i
    ('{"a": 2}', '{"a": 2}'),
    ("[1,2]", "[1, 2]"),
    (
        '{"a":"b", "c":"d","ab":"abc", "bc": ["x", "y"]}',
        '{"a": "b", "c": "d", "ab": "abc", "bc": ["x", "y"]}',
    ),
    ('["here", ["I", "am"], "!!!"]', '["here", ["I", "am"], "!!!"]'),
    ('"scalar string"', '"scalar string"'),
    ("true", "true"),
    ("false", "false"),
    ("null", "null"),
    ("-1", "-1"),
    ("32767", "32767"),
    ("-2147483649", "-2147483649"),
    ("18446744073709551615", "18446744073709551615"),
    ("18446744073709551616", "1.8446744073709552e19"),
    ("3.14", "3.14"),
    ("{}", "{}"),
    ("[]", "[]"),
    # [RM] "last duplicate key wins"
    ('{"x": 17, "x": "red"}', '{"x": "red"}'),
    ('{"x": 17, "x": "red", "x": [3, 5, 7]}', '{"x": [3, 5, 7]}'),
]


@pytest.mark.parametrize(("text", "printed"), PRINTED, ids=[p[0][:30] for p in PRINTED])
def test_documents_are_stored_normalized(s, text: str, printed: str) -> None:
    s.execute("CREATE TABLE t1 (i INT, j JSON)")
    s.execute(f"INSERT INTO t1 VALUES (1, '{text}')")
    assert _rows(s, "SELECT j FROM t1") == [(printed,)]


def test_update_stores_normalized_and_null_stays_sql_null(s) -> None:
    s.execute("CREATE TABLE t (id INT PRIMARY KEY, doc JSON)")
    s.execute("INSERT INTO t VALUES (1, NULL), (2, JSON_OBJECT('b', 1, 'aa', 2, 'a', 3))")
    s.execute("""UPDATE t SET doc = '{ "z" :1,"y":  [ ] }' WHERE id = 1""")
    assert _rows(s, "SELECT id, doc, doc IS NULL FROM t ORDER BY id") == [
        (1, '{"y": [], "z": 1}', 0),
        (2, '{"a": 3, "b": 1, "aa": 2}', 0),  # RM: shorter keys first
    ]


def test_every_write_path_validates_and_normalizes(s) -> None:
    s.execute("CREATE TABLE t (id INT PRIMARY KEY, doc JSON)")
    s.execute("CREATE TABLE src (id INT, txt TEXT)")
    s.execute("""INSERT INTO src VALUES (1, '{"b":1, "a":2}'), (2, 'bad')""")
    s.execute("INSERT INTO t SELECT * FROM src WHERE id = 1")
    s.execute("INSERT INTO t VALUES (1, '[1,2]') ON DUPLICATE KEY UPDATE doc = '[3,  4]'")
    s.execute("""REPLACE INTO t VALUES (5, '{"z":1,"a":0}')""")
    s.execute("INSERT INTO t VALUES (2, NULL)")
    s.execute("UPDATE t JOIN src ON t.id = src.id SET t.doc = src.txt WHERE src.id = 1")
    for bad in (
        "INSERT INTO t SELECT * FROM src WHERE id = 2",
        "INSERT INTO t VALUES (1, '[1,2]') ON DUPLICATE KEY UPDATE doc = 'x'",
        "UPDATE t JOIN src ON t.id = src.id SET t.doc = src.txt",
        "INSERT IGNORE INTO t VALUES (7, 'x')",  # an error even with IGNORE (dolthub/go-mysql-server notes MySQL does so)
    ):
        with pytest.raises(MySQLError) as e:
            s.execute(bad)
        assert e.value.code == 3140, bad
    assert _rows(s, "SELECT * FROM t ORDER BY id") == [
        (1, '{"a": 2, "b": 1}'),
        (2, None),
        (5, '{"a": 0, "z": 1}'),
    ]


ERRORS = [
    # [INS]
    ("''", 3140, "Invalid JSON text: \"The document is empty.\" at position 0 in value for column 't1.j'."),
    ("'['", 3140, "Invalid JSON text: \"Invalid value.\" at position 1 in value for column 't1.j'."),
    ("x'cafebabe'", 3144, "Cannot create a JSON value from a string with CHARACTER SET 'binary'."),
    (
        "-1",
        3140,
        "Invalid JSON text: \"not a JSON text, may need CAST\" at position 0 in value for column 't1.j'.",
    ),
    (
        "3.14",
        3140,
        "Invalid JSON text: \"not a JSON text, may need CAST\" at position 0 in value for column 't1.j'.",
    ),
    (
        "PI()",
        3140,
        "Invalid JSON text: \"not a JSON text, may need CAST\" at position 0 in value for column 't1.j'.",
    ),
    # [RM]
    ("'[1, 2,'", 3140, "Invalid JSON text: \"Invalid value.\" at position 6 in value for column 't1.j'."),
]


@pytest.mark.parametrize(("value", "code", "message"), ERRORS, ids=[e[0] for e in ERRORS])
def test_invalid_values_are_rejected(s, value: str, code: int, message: str) -> None:
    s.execute("CREATE TABLE t1 (i INT, j JSON)")
    with pytest.raises(MySQLError) as e:
        s.execute(f"INSERT INTO t1 VALUES (1, {value})")
    assert (e.value.code, e.value.sqlstate, e.value.message) == (code, "22032", message)
    s.execute("INSERT INTO t1 VALUES (2, '[]')")
    with pytest.raises(MySQLError) as e:
        s.execute(f"UPDATE t1 SET j = {value}")
    assert e.value.code == code
    assert _rows(s, "SELECT j FROM t1") == [("[]",)]


# -- functions on columns -------------------------------------------------------------------------------------------------
def test_extract_and_arrows_on_a_column(s) -> None:
    # [SRCH] the jemp table (without its generated column)
    s.execute("CREATE TABLE jemp (n INT, c JSON)")
    s.execute(
        """INSERT INTO jemp VALUES (1, '{"id": "1", "name": "Fred"}'), (2, '{"id": "2", "name": "Wilma"}'), """
        """(3, '{"id": "3", "name": "Barney"}'), (4, '{"id": "4", "name": "Betty"}')"""
    )
    assert _rows(s, "SELECT c->'$.name' AS name FROM jemp WHERE n > 2 ORDER BY n") == [
        ('"Barney"',),
        ('"Betty"',),
    ]
    assert _rows(s, "SELECT c->>'$.name' AS name FROM jemp WHERE n > 2 ORDER BY n") == [
        ("Barney",),
        ("Betty",),
    ]
    assert _rows(s, "SELECT JSON_EXTRACT(c, '$.id') FROM jemp WHERE c->>'$.name' = 'Wilma'") == [('"2"',)]
    res = s.execute("SELECT c->'$.name' FROM jemp LIMIT 1")[0]
    assert res.columns[0].type == FieldType.MYSQL_TYPE_JSON


def test_modifying_functions_on_a_column(s) -> None:
    # [FUN]: SET @j = '{ "a": 1, "b": [2, 3]}'
    s.execute("CREATE TABLE t (id INT PRIMARY KEY, j JSON)")
    s.execute("""INSERT INTO t VALUES (1, '{ "a": 1, "b": [2, 3]}'), (2, '["a", ["b", "c"], "d"]')""")
    assert _rows(
        s,
        "SELECT JSON_SET(j, '$.a', 10, '$.c', '[true, false]'), JSON_INSERT(j, '$.a', 10, '$.c', '[true, false]'), "
        "JSON_REPLACE(j, '$.a', 10, '$.c', '[true, false]') FROM t WHERE id = 1",
    ) == [
        (
            '{"a": 10, "b": [2, 3], "c": "[true, false]"}',
            '{"a": 1, "b": [2, 3], "c": "[true, false]"}',
            '{"a": 10, "b": [2, 3]}',
        )
    ]
    assert _rows(s, "SELECT JSON_REMOVE(j, '$[1]') FROM t WHERE id = 2") == [('["a", "d"]',)]
    s.execute("UPDATE t SET j = JSON_SET(j, '$.b[5]', 4, '$.n', JSON_OBJECT('k', j->'$.a')) WHERE id = 1")
    assert _rows(s, "SELECT j FROM t WHERE id = 1") == [('{"a": 1, "b": [2, 3, 4], "n": {"k": 1}}',)]


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        ("""JSON_SET('{"a": 1}', '$[1]', 2)""", '[{"a": 1}, 2]'),  # autowrapping
        ("JSON_SET('[1, 2]', '$[0]', 9)", "[9, 2]"),
        ("JSON_INSERT('[1, 2]', '$[9]', 3)", "[1, 2, 3]"),
        ("JSON_REPLACE('[1, 2]', '$[9]', 3)", "[1, 2]"),
        ("""JSON_SET('{"a": 1}', '$', '[]')""", '"[]"'),
        ("""JSON_SET('{"a": 1}', '$.a', NULL)""", '{"a": null}'),
        ("""JSON_SET('{"a": 1}', '$.a', TRUE)""", '{"a": true}'),
        ("""JSON_SET(NULL, '$.a', 1)""", None),
        ("""JSON_REMOVE('{"a": {"b": 1, "c": 2}}', '$.a.b', '$.x')""", '{"a": {"c": 2}}'),
    ],
)
def test_modifying_functions(s, expr: str, expected: Any) -> None:
    assert _rows(s, f"SELECT {expr}") == [(expected,)]


@pytest.mark.parametrize(
    ("expr", "code"),
    [
        ("""JSON_SET('{"a": 1}', '$.*', 2)""", 3149),
        ("JSON_REMOVE('[1]', '$')", 3153),
        ("JSON_SET('[1]', '$[0]')", 1582),
        ("JSON_SET('[1', '$[0]', 1)", 3141),
    ],
)
def test_modifying_function_errors(s, expr: str, code: int) -> None:
    with pytest.raises(MySQLError) as e:
        s.execute(f"SELECT {expr}")
    assert e.value.code == code


def test_aggregates(s) -> None:
    # [FUN] Aggregate Function Descriptions: t3 (o_id, attribute, value); the column is called val here because
    # sqlglot reads JSON_OBJECTAGG(attribute, value) as its KEY ... VALUE form
    s.execute("CREATE TABLE t3 (o_id INT, attribute VARCHAR(10), val VARCHAR(10))")
    s.execute(
        "INSERT INTO t3 VALUES (2, 'color', 'red'), (2, 'fabric', 'silk'), (3, 'color', 'green'), (3, 'shape', 'square')"
    )
    assert _rows(s, "SELECT o_id, JSON_ARRAYAGG(attribute) AS attributes FROM t3 GROUP BY o_id") == [
        (2, '["color", "fabric"]'),
        (3, '["color", "shape"]'),
    ]
    res = s.execute("SELECT o_id, JSON_OBJECTAGG(attribute, val) FROM t3 GROUP BY o_id")[0]
    assert res.rows == [
        (2, '{"color": "red", "fabric": "silk"}'),
        (3, '{"color": "green", "shape": "square"}'),
    ]
    assert res.columns[1].name == "JSON_OBJECTAGG(attribute, val)"
    assert res.columns[1].type == FieldType.MYSQL_TYPE_JSON
    assert _rows(s, "SELECT JSON_ARRAYAGG(o_id) FROM t3 WHERE o_id > 9") == [(None,)]
    s.execute("INSERT INTO t3 VALUES (4, NULL, 'x')")
    with pytest.raises(MySQLError) as e:
        s.execute("SELECT JSON_OBJECTAGG(attribute, val) FROM t3")
    assert (e.value.code, e.value.message) == (3158, "JSON documents may not contain NULL member names.")


def test_a_json_column_given_as_a_value_stays_json(s) -> None:
    s.execute("CREATE TABLE t (id INT PRIMARY KEY, doc JSON)")
    s.execute("""INSERT INTO t VALUES (1, '{"a": [1]}'), (2, NULL)""")
    assert _rows(s, "SELECT JSON_ARRAYAGG(doc), JSON_OBJECTAGG(id, doc) FROM t") == [
        ('[{"a": [1]}, null]', '{"1": {"a": [1]}, "2": null}')
    ]
    assert _rows(s, "SELECT JSON_OBJECT('d', doc), JSON_ARRAY(doc) FROM t WHERE id = 1") == [
        ('{"d": {"a": [1]}}', '[{"a": [1]}]')
    ]


# -- binlog and applier --------------------------------------------------------------------------------------------------
DOCS = [
    '{"b": [1, -2, 70000, -70000, 5000000000, 18446744073709551615], "a": {"t": true, "n": null}, "pi": 3.25}',
    '["héllo", "' + "y" * 300 + '", [], {}]',
    '"just a string"',
]


def _binlog_json_values(datadir) -> list[Any]:
    table_maps: dict[int, TableMapEvent] = {}
    out = []
    for pe in read_events(datadir / "binlog.000001"):
        ev = pe.event
        if isinstance(ev, TableMapEvent):
            table_maps[ev.table_id] = ev
        elif isinstance(ev, RowsEvent):
            tm = table_maps[ev.table_id]
            if tm.table != "docs":
                continue
            assert (
                tm.column_types[1] == 245 and tm.column_metadata()[1] == b"\x04"
            )  # Table_map: JSON, 4 length bytes
            for before, after in decode_rows(tm, ev):
                for image in (before, after):
                    if image is not None:
                        out.append(None if image[1] is None else decode(image[1]))
    return out


def test_row_events_carry_binary_json_and_the_applier_rebuilds_the_table(tmp_path) -> None:
    src = tmp_path / "a"
    with Server.open(src, log_bin=True) as srv, srv.session() as s:
        s.execute("CREATE DATABASE app")
        s.execute("CREATE TABLE app.docs (id INT PRIMARY KEY, doc JSON)")
        for i, d in enumerate(DOCS, 1):
            s.execute(f"INSERT INTO app.docs VALUES ({i}, '{d}')")
        s.execute("INSERT INTO app.docs VALUES (9, NULL)")
        s.execute("UPDATE app.docs SET doc = JSON_SET(doc, '$.pi', 1.5e300) WHERE id = 1")
        s.execute("DELETE FROM app.docs WHERE id = 3")
        expected = s.execute("SELECT * FROM app.docs ORDER BY id")[0].rows
    values = _binlog_json_values(src)
    first = {
        "b": [1, -2, 70000, -70000, 5000000000, 18446744073709551615],
        "a": {"t": True, "n": None},
        "pi": 3.25,
    }
    assert values == [
        first,
        ["héllo", "y" * 300, [], {}],
        "just a string",
        None,
        first,
        {**first, "pi": 1.5e300},
        "just a string",
    ]
    with Server.open(tmp_path / "b", log_bin=False) as replica, replica.applier_session() as ap:
        for trx in read_transactions(src / "binlog.000001"):
            assert ap.apply(trx)
        with replica.session() as r:
            assert r.execute("SELECT * FROM app.docs ORDER BY id")[0].rows == expected


def test_order_by_a_json_path_sorts_numbers_as_numbers(s) -> None:
    # RM8.4 "The JSON Data Type", Comparison and Ordering of JSON Values: INTEGER / DOUBLE sort below STRING, numbers
    # by value; a missing path is SQL NULL (first ascending)
    s.execute("CREATE TABLE t (id INT PRIMARY KEY, doc JSON)")
    s.execute("""INSERT INTO t VALUES (1, '{"a": 2}'), (2, '{"a": 10}'), (3, '[1, 2]'), (4, '{"a": "b"}')""")
    assert _rows(s, "SELECT id FROM t ORDER BY doc->'$.a'") == [(3,), (1,), (2,), (4,)]
    assert _rows(s, "SELECT id, doc->'$.a' AS a FROM t ORDER BY a DESC") == [
        (4, '"b"'),
        (2, "10"),
        (1, "2"),
        (3, None),
    ]


def test_create_table_select_and_like_keep_json(s) -> None:
    # CREATE ... SELECT makes a JSON column of a JSON column or a JSON function's result (Item_json_func's type)
    s.execute("CREATE TABLE t (id INT PRIMARY KEY, doc JSON)")
    s.execute("INSERT INTO t VALUES (1, '[1]')")
    s.execute("CREATE TABLE t2 AS SELECT id, doc, JSON_OBJECT('a', id) AS j FROM t")
    lines = _rows(s, "SHOW CREATE TABLE t2")[0][1].splitlines()
    assert "  `doc` json DEFAULT NULL," in lines and "  `j` json DEFAULT NULL" in lines
    assert _rows(s, "SELECT * FROM t2") == [(1, "[1]", '{"a": 1}')]
    s.execute("CREATE TABLE t3 LIKE t")
    assert "  `doc` json DEFAULT NULL," in _rows(s, "SHOW CREATE TABLE t3")[0][1].splitlines()
