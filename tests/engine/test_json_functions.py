"""JSON functions: every expected value from mysql-test ``suite/json/r/json_no_table.result`` (MySQL 8) unless
noted; JSON_OBJECT's output format and key order from RM8 "The JSON Data Type" (``SELECT JSON_OBJECT('key1', 1,
'key2', 'abc')`` -> ``{"key1": 1, "key2": "abc"}``; "keys are sorted ... shorter keys first": JSON_OBJECT('b', 1,
'aa', 2, 'a', 3) is stored ``{"a": 3, "b": 1, "aa": 2}``; "last duplicate key wins").
"""

from __future__ import annotations

import pytest

from gtidkit.engine.results import FieldType
from gtidkit.errors import MySQLError

DOC = '{ "a": [ [ 3, 2 ], [ { "c" : "d" }, 1 ] ], "b": { "c" : 6 }, "one potato": 7, "b.c" : 8 }'
FOO = '{ "a" : "foo", "b" : [ true, { "c" : 123, "c" : 456 } ] }'
NEST = "[[0,1],[2,3],[4,[5,6]]]"


@pytest.fixture
def s(open_server):
    session = open_server().session()
    yield session
    session.close()


def _one(s, expr: str):
    return s.execute(f"SELECT {expr}")[0].rows[0][0]


@pytest.mark.parametrize(
    ("expr", "value"),
    [
        # JSON_EXTRACT
        ("""json_extract( '{ "one potato" : 1 }', '$."one potato"' )""", "1"),
        ("""json_extract( '{ "a.b" : 1 }', '$."a.b"' )""", "1"),
        (f"json_extract( '{DOC}', '$.a[0]' )", "[3, 2]"),
        (f"json_extract( '{DOC}', '$.a[0][1]' )", "2"),
        (f"json_extract( '{DOC}', '$.a[1]' )", '[{"c": "d"}, 1]'),
        (f"json_extract( '{DOC}', '$.a[1][0].c' )", '"d"'),
        (f"json_extract( '{DOC}', '$.b.c' )", "6"),
        (f"json_extract( '{DOC}', '$.\"b.c\"' )", "8"),
        ("""json_extract('{"a": 1, "b": {"e": "foo", "b": 3}}', '$.*')""", '[1, {"b": 3, "e": "foo"}]'),
        ("""json_extract('{"a": 1, "b": {"e": "foo", "b": 3}}', '$.a', '$.b.e')""", '[1, "foo"]'),
        ("""json_extract('{"a": 1, "b": {"e": "foo", "b": 3}}', '$.a', NULL)""", None),
        ("json_extract(NULL, '$.b')", None),
        (f"JSON_EXTRACT('{FOO}', '$.b[ 1 ].c')", "456"),  # last duplicate key wins
        (f"JSON_EXTRACT('{FOO}', '$.a', '$.b[0]')", '["foo", true]'),
        (f"JSON_EXTRACT('{FOO}', '$.d', '$.b[0]')", "[true]"),
        ("""JSON_EXTRACT('{ "a" : "foo", "b" : [ true, { "c" : 123 } ] }', '$.b[ 1 ].c[ 0 ]')""", "123"),
        ("""JSON_EXTRACT('{ "a" : "foo", "b" : [ true, { "c" : 123 } ] }', '$.b[ 1 ].c[ 1 ]')""", None),
        ("json_extract( '[1]', '$[last][last]' )", "1"),
        ("""json_extract( '{ "a": 1 }', '$[0]', '$.a[0]' )""", '[{"a": 1}, 1]'),
        ("""json_extract( '{ "a": 1 }', '$**.a' )""", "[1]"),
        ("""json_extract( '{ "a": 1 }', '$[last][last][last].a' )""", "1"),
        (f"JSON_EXTRACT('{NEST}', '$**[0]')", "[[0, 1], 0, 1, 2, 3, 4, 5, 6]"),
        (f"JSON_EXTRACT('{NEST}', '$**[1]')", "[[2, 3], 1, 3, [5, 6], 6]"),
        (f"JSON_EXTRACT('{NEST}', '$**[3]')", None),
        ("""JSON_EXTRACT('[1, [[{"x": [{"a":{"b":{"c":42}}}]}]]]', '$**.a.*')""", '[{"c": 42}]'),
        ("""json_extract( '[ { "a": 1 }, { "a": 2 } ]', '$[*].b' )""", None),
        ("""json_extract( '[ { "a": 1 }, { "a": 2 } ]', '$[*].a' )""", "[1, 2]"),
        ("""json_extract( '[ { "a": [3,4] }, { "b": 2 } ]', '$[*].a' )""", "[[3, 4]]"),
        # JSON_TYPE
        ("""json_type('{"a": 2}')""", "OBJECT"),
        ("json_type('[1,2]')", "ARRAY"),
        ("""json_type('"scalar string"')""", "STRING"),
        ("json_type('true')", "BOOLEAN"),
        ("json_type('null')", "NULL"),
        ("json_type('-0')", "INTEGER"),
        ("json_type('-0.0')", "DOUBLE"),
        ("json_type('3.14')", "DOUBLE"),
        ("json_type(cast(127 as json))", "INTEGER"),
        ("json_type(cast(true as json))", "BOOLEAN"),
        ("json_type(null) is null", 1),
        # CAST(... AS JSON)
        ("""cast('"abc"' as json)""", '"abc"'),
        ("cast(127 as json)", "127"),
        ("cast(true as json)", "true"),
        ("cast(3.14 as json)", "3.14"),
        ("cast(null as json)", None),
        # JSON_KEYS
        ("""json_keys('{"a": 1, "b": {"e": "foo", "b": 3}}')""", '["a", "b"]'),
        ("""json_keys('{"a": 1, "b": {"e": "foo", "b": 3}}', '$.b')""", '["b", "e"]'),
        ("""json_keys('{"a": 1, "b": {"e": "foo", "b": 3}}', '$.a')""", None),
        ("""JSON_KEYS('{ "a" : "foo", "b" : [ true, { "c" : {} } ] }', '$.b[1].c')""", "[]"),
        ("json_keys(NULL, '$.b')", None),
        ("""cast(json_keys('{"a": 1}') as char)""", '["a"]'),
        # JSON_LENGTH
        ("json_length( '1' )", 1),
        ("json_length( '{}' )", 0),
        ("""json_length( '{ "a" : 100, "b" : [ 300, 400, 500 ] }' )""", 2),
        ("""json_length( '[ null, "foo", true, { "a" : "b", "c" : "d" } ]' )""", 4),
        ("json_length( '[ 1, [ 2, 3, 4 ], 5 ]', '$[1]' )", 3),
        ("json_length( '[ 1, [ 2, 3, 4 ], 5 ]', '$[2][0]' )", 1),
        ("json_length( '[ 1, [ 2, 3, 4 ], 5 ]', '$[2][1]' )", None),
        ("json_length( null )", None),
        # JSON_CONTAINS_PATH
        ("""json_contains_path('{ "a": true }', 'all', '$' )""", 1),
        ("""json_contains_path('{ "a": true }', 'one', '$.a' )""", 1),
        ("""json_contains_path('{ "a": true }', 'all', '$.b' )""", 0),
        ("""json_contains_path('{ "a": true }', 'all', '$.a', '$.b' )""", 0),
        ("""json_contains_path('{ "a": true }', 'aLl', '$.a', '$.b' )""", 0),
        ("""json_contains_path('{ "a": true }', 'oNe', '$.b', '$.a' )""", 1),
        ("""json_contains_path(null, 'all', '$.a' )""", None),
        ("""json_contains_path('{ "a": true }', 'all', null )""", None),
        (
            'json_contains_path(\'{ "a": true, "b": [ 1, 2, { "c": [ 4, 5, { "d": [ 6, 7, 8, 9, 10 ]} ] } ] }\', \'all\', \'$**[4]\' )',
            1,
        ),
        ("""json_contains_path('{"a":1, "b":2}', 'one', '$.*')""", 1),
        ("json_contains_path('[1,2,3]', 'one', '$.*')", 0),
        ("json_contains_path('{}', 'one', '$[*]')", 0),
        ("""JSON_CONTAINS_PATH('[1, [[{"x": [{"a":{"b":{"c":42}}}]}]]]', 'one', '$**.a.*')""", 1),
        ("""json_contains_path('{ "a": true, "b": [ 1, 2 ] }', 'all', '$**[1]', '$.b[0]', '$.c' )""", 0),
        (
            """JSON_CONTAINS_PATH('{ "a" : 123, "b" : [ 123, { "c" : { "d" : true } } ] }', 'all', '$.b[1].c.d')""",
            1,
        ),
        # JSON_DEPTH
        ("json_depth(null)", None),
        ("json_depth(cast('[[2], 3, [[[4]]]]' as json))", 5),
        ("""json_depth(cast('{"a": {"a1": [3]}, "b": {"b1": {"c": {"d": [5]}}}}' as json))""", 6),
        ("json_depth(json_quote('foo'))", 1),
        ("JSON_DEPTH( '[]' )", 1),
        ("""JSON_DEPTH( '{ "a" : true, "b" : {}, "c" : null }' )""", 2),
        ("""JSON_DEPTH( '[ "a", true, "b" , { "e" : false }, "c" , null ]' )""", 3),
        # JSON_VALID
        ("JSON_VALID('-5000000000')", 1),
        ("JSON_VALID('1.23')", 1),
        ("""JSON_VALID('{"address": "Trondheim"}')""", 1),
        ("JSON_VALID('12 3')", 0),
        ("JSON_VALID(cast('[123]' as JSON ))", 1),
        ("JSON_VALID( NULL )", None),
        ("""JSON_VALID( UPPER('"abc"') )""", 1),
    ],
)
def test_json_no_table_result(s, expr, value) -> None:
    assert _one(s, expr) == value


@pytest.mark.parametrize(
    ("expr", "code", "message"),
    [
        ("json_type('abc')", 3141, 'Invalid JSON text in argument 1 to function json_type: "Invalid value." at position 0.'),
        ("json_length( 'abc' )", 3141, 'Invalid JSON text in argument 1 to function json_length: "Invalid value." at position 0.'),
        ("json_type(-1)", 3146, "Invalid data type for JSON data in argument 1 to function json_type; a JSON string or JSON type is required."),
        ("json_length( 'true', 'c$' )", 3143, "Invalid JSON path expression. The error is around character position 1."),
        ("""json_length( '{ "foo" : [ true, false ] }', '$.foo[bar]' )""", 3143, "Invalid JSON path expression. The error is around character position 6."),
        ("""JSON_EXTRACT('{ "a" : "foo" }', '$.b[ 1 ].')""", 3143, "Invalid JSON path expression. The error is around character position 9."),
        ("json_length( 'true', '$.*' )", 3149, "In this situation, path expressions may not contain the * and ** tokens or an array range."),
        ("""json_keys('{"a": 1}', '$.*.b')""", 3149, "In this situation, path expressions may not contain the * and ** tokens or an array range."),
        ("""json_contains_path('{ "a": true }', 'foo', '$.a' )""", 3150, "The oneOrAll argument to json_contains_path may take these values: 'one' or 'all'."),
        ("""json_contains_path('{ "a": true }', 'all' )""", 1582, "Incorrect parameter count in the call to native function 'json_contains_path'"),
        ("""json_contains_path('{ "a": true }', 'all', '$[' )""", 3143, "Invalid JSON path expression. The error is around character position 2."),
        ("JSON_DEPTH( 1 )", 3146, "Invalid data type for JSON data in argument 1 to function json_depth; a JSON string or JSON type is required."),
        ("cast('abc' as json)", 3141, 'Invalid JSON text in argument 1 to function cast_as_json: "Invalid value." at position 0.'),
        ("JSON_EXTRACT('[1, 2', '$')", 3141, "Invalid JSON text in argument 1 to function json_extract: \"Missing a comma or ']' after an array element.\" at position 5."),
    ],
)  # fmt: skip
def test_errors(s, expr, code, message) -> None:
    with pytest.raises(MySQLError) as exc:
        s.execute(f"SELECT {expr}")
    assert (exc.value.code, exc.value.message) == (code, message)


def test_object_array_and_arrows(s) -> None:
    # RM8 "The JSON Data Type" and "JSON Function Reference" examples
    assert _one(s, "JSON_OBJECT('key1', 1, 'key2', 'abc')") == '{"key1": 1, "key2": "abc"}'
    assert _one(s, "JSON_OBJECT('b', 1, 'aa', 2, 'a', 3)") == '{"a": 3, "b": 1, "aa": 2}'
    assert _one(s, "JSON_OBJECT('key1', 1, 'key2', 'abc', 'key1', 'def')") == '{"key1": "def", "key2": "abc"}'
    assert (
        _one(s, "JSON_ARRAY(1, 'abc', NULL, TRUE, CURTIME() IS NOT NULL)") == '[1, "abc", null, true, true]'
    )
    assert _one(s, "JSON_OBJECT('id', 87, 'name', 'carrot')") == '{"id": 87, "name": "carrot"}'
    assert _one(s, "JSON_ARRAY(JSON_ARRAY(1, 2), JSON_OBJECT('a', JSON_ARRAY()))") == '[[1, 2], {"a": []}]'
    assert _one(s, "JSON_OBJECT('a', '[1]')") == '{"a": "[1]"}'  # a string argument is a JSON string
    s.execute("CREATE DATABASE d; USE d; CREATE TABLE emp (id INT PRIMARY KEY, name VARCHAR(20), c TEXT)")
    s.execute(
        """INSERT INTO emp VALUES (1, 'bob', '{"id": "3", "name": "Barney"}'), (2, 'al', '[3, 10, 5]')"""
    )
    res = s.execute("SELECT JSON_OBJECT('a', 1, 'b', name) FROM emp ORDER BY id")[0]
    assert res.rows == [('{"a": 1, "b": "bob"}',), ('{"a": 1, "b": "al"}',)]
    assert (res.columns[0].name, res.columns[0].type) == (
        "JSON_OBJECT('a', 1, 'b', name)",
        FieldType.MYSQL_TYPE_JSON,
    )
    # RM8 "->": c->"$.id" is JSON_EXTRACT(c, "$.id"); "->>" unquotes: c->>'$.name' = Barney
    res = s.execute("SELECT c->'$.id', c->>'$.name', JSON_UNQUOTE(c->'$.name') FROM emp WHERE id = 1")[0]
    assert res.rows == [('"3"', "Barney", "Barney")]
    assert [c.type for c in res.columns] == [
        FieldType.MYSQL_TYPE_JSON, FieldType.MYSQL_TYPE_VAR_STRING, FieldType.MYSQL_TYPE_VAR_STRING
    ]  # fmt: skip
    assert res.columns[0].name == "c->'$.id'"
    assert s.execute("SELECT c->'$[1]' FROM emp WHERE c->'$[2]' = 5")[0].rows == [("10",)]
    # RM8 "->": SELECT c, c->"$.id" FROM jemp WHERE c->"$.id" > 1 / ->> in WHERE compares the unquoted string
    assert s.execute("SELECT id FROM emp WHERE c->'$.name' = 'Barney'")[0].rows == [(1,)]
    assert s.execute("SELECT id FROM emp WHERE c->'$[1]' > 2")[0].rows == [(2,)]  # row 1: no [1], NULL


@pytest.mark.parametrize(
    ("expr", "value"),
    [
        # RM8 JSON_CONTAINS examples: SET @j = '{"a": 1, "b": 2, "c": {"d": 4}}'
        ("""JSON_CONTAINS('{"a": 1, "b": 2, "c": {"d": 4}}', '1', '$.a')""", 1),
        ("""JSON_CONTAINS('{"a": 1, "b": 2, "c": {"d": 4}}', '1', '$.b')""", 0),
        ("""JSON_CONTAINS('{"a": 1, "b": 2, "c": {"d": 4}}', '{"d": 4}', '$.a')""", 0),
        ("""JSON_CONTAINS('{"a": 1, "b": 2, "c": {"d": 4}}', '{"d": 4}', '$.c')""", 1),
        ("JSON_CONTAINS('[1, 2, [3]]', '[1, 3]')", 1),
        ("JSON_CONTAINS('[1, 2]', 'true')", 0),
        # RM8 JSON_UNQUOTE / JSON_QUOTE examples
        ("""JSON_UNQUOTE('"abc"')""", "abc"),
        ("JSON_UNQUOTE('[1, 2, 3]')", "[1, 2, 3]"),
        ("""JSON_UNQUOTE('"\\\\t\\\\u0032"')""", "\t2"),
        ("JSON_QUOTE('null')", '"null"'),
        ("""JSON_QUOTE('"null"')""", '"\\"null\\""'),
        ("JSON_QUOTE('[1, 2, 3]')", '"[1, 2, 3]"'),
    ],
)
def test_manual_examples(s, expr, value) -> None:
    assert _one(s, expr) == value
