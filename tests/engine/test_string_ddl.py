"""String-family DDL and values in the engine: ENUM / SET storage rules and errors, column and table character
sets, INVISIBLE columns and prefix keys, and what the Table_map says about them.

Expected values: RM 8.0 "The ENUM Type" / "The SET Type" (index values, '' error value, numbers as indexes, SET
order and duplicates), "Invisible Columns" (SHOW CREATE TABLE's ``/*!80023 INVISIBLE */``, SELECT * and INSERT
without a column list, EXTRA = INVISIBLE, error 4028), "Column Character Set and Collation" / "Table Character
Set and Collation" (a table takes its database's default), MySQL 8.0 ``SHOW CREATE TABLE`` layout, and
``Table_map_log_event::init_primary_key_field`` (PRIMARY_KEY_WITH_PREFIX: index, prefix in characters).
"""

from __future__ import annotations

import pytest

from gtidkit.engine.sql.rowimage import table_map_event
from gtidkit.errors import MySQLError


@pytest.fixture
def s(open_server):
    srv = open_server(log_bin=False, server_id=1)
    with srv.session() as session:
        session.execute("CREATE DATABASE d")
        session.execute("USE d")
        session.srv = srv
        yield session


def q(s, sql):
    return s.execute(sql)[-1].rows


# (id, column type, literal, stored value) — strict mode
VALUES = [
    ("enum_member_case", "ENUM('Small','Large')", "'small'", "Small"),
    ("enum_trailing_space", "ENUM('a','b')", "'b  '", "b"),
    ("enum_index", "ENUM('a','b')", "2", "b"),
    ("enum_digit_string", "ENUM('a','b')", "'1'", "a"),
    ("enum_digit_member", "ENUM('2','1')", "'1'", "1"),
    ("enum_zero_string", "ENUM('a','b')", "'0'", ""),
    ("enum_member_trailing_space_removed", "ENUM('a  ','b')", "'a'", "a"),
    ("set_order_dups", "SET('a','b','c')", "'c,a,c'", "a,c"),
    ("set_empty", "SET('a','b')", "''", ""),
    ("set_number", "SET('a','b','c')", "7", "a,b,c"),
    ("set_digit_string", "SET('a','b')", "'2'", "b"),
    ("set_digit_member", "SET('1','2')", "'2'", "2"),
]


@pytest.mark.parametrize(("cid", "ctype", "literal", "stored"), VALUES, ids=[v[0] for v in VALUES])
def test_value(s, cid, ctype, literal, stored):
    s.execute(f"CREATE TABLE t (v {ctype})")
    s.execute(f"INSERT INTO t VALUES ({literal})")
    assert q(s, "SELECT v FROM t") == [(stored,)]


# (id, column type, literal) refused in strict mode with 1265 and stored as '' / the known members otherwise
BAD = [
    ("enum_unknown", "ENUM('a','b')", "'c'", ""),
    ("enum_zero", "ENUM('a','b')", "0", ""),
    ("enum_index_too_big", "ENUM('a','b')", "3", ""),
    ("enum_empty_string", "ENUM('a','b')", "''", ""),
    ("set_unknown_member", "SET('a','b')", "'a,x'", "a"),
    ("set_bits_too_big", "SET('a','b')", "5", "a"),
]


@pytest.mark.parametrize(("cid", "ctype", "literal", "stored"), BAD, ids=[b[0] for b in BAD])
def test_bad_value_strict_and_not(s, cid, ctype, literal, stored):
    s.execute(f"CREATE TABLE t (v {ctype})")
    with pytest.raises(MySQLError) as err:
        s.execute(f"INSERT INTO t VALUES ({literal})")
    assert (err.value.code, err.value.message) == (1265, "Data truncated for column 'v' at row 1")
    s.execute(f"INSERT IGNORE INTO t VALUES ({literal})")
    assert q(s, "SHOW WARNINGS") == [("Warning", 1265, "Data truncated for column 'v' at row 1")]
    assert q(s, "SELECT v FROM t") == [(stored,)]


# (id, DDL, error code, message)
DDL_ERRORS = [
    ("enum_dup", "CREATE TABLE t (e ENUM('a','A'))", 1291, "Column 'e' has duplicated value 'A' in ENUM"),
    ("set_dup", "CREATE TABLE t (e SET('x','x'))", 1291, "Column 'e' has duplicated value 'x' in SET"),
    ("set_65", "CREATE TABLE t (e SET(" + ",".join(f"'m{i}'" for i in range(65)) + "))", 1097,
     "Too many strings for column e and SET"),
    ("enum_bad_default", "CREATE TABLE t (e ENUM('a') DEFAULT 'b')", 1067, "Invalid default value for 'e'"),
    ("all_invisible", "CREATE TABLE t (a INT INVISIBLE)", 4028, "A table must have at least one visible column."),
]  # fmt: skip


@pytest.mark.parametrize(("cid", "ddl", "code", "message"), DDL_ERRORS, ids=[e[0] for e in DDL_ERRORS])
def test_ddl_error(s, cid, ddl, code, message):
    with pytest.raises(MySQLError) as err:
        s.execute(ddl)
    assert (err.value.code, err.value.message) == (code, message)


# (id, DDL, SHOW CREATE TABLE text between the parentheses, table options)
SHOW_CREATE = [
    ("enum_set", "CREATE TABLE t (e ENUM('a','it''s') NOT NULL, s SET('x','y') DEFAULT 'y')",
     "  `e` enum('a','it''s') NOT NULL,\n  `s` set('x','y') DEFAULT 'y'", "utf8mb4 COLLATE=utf8mb4_0900_ai_ci"),
    ("column_latin1", "CREATE TABLE t (c VARCHAR(5) CHARACTER SET latin1)",
     "  `c` varchar(5) CHARACTER SET latin1 DEFAULT NULL", "utf8mb4 COLLATE=utf8mb4_0900_ai_ci"),
    ("column_collation", "CREATE TABLE t (c CHAR(2) COLLATE utf8mb4_bin)",
     "  `c` char(2) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin DEFAULT NULL", "utf8mb4 COLLATE=utf8mb4_0900_ai_ci"),
    ("table_latin1", "CREATE TABLE t (c CHAR(2)) CHARACTER SET latin1",
     "  `c` char(2) DEFAULT NULL", "latin1 COLLATE=latin1_swedish_ci"),
    ("utf8_alias", "CREATE TABLE t (c CHAR(2)) CHARSET utf8",
     "  `c` char(2) DEFAULT NULL", "utf8mb3 COLLATE=utf8mb3_general_ci"),
    ("invisible", "CREATE TABLE t (i INT, j DATE INVISIBLE)",
     "  `i` int DEFAULT NULL,\n  `j` date DEFAULT NULL /*!80023 INVISIBLE */", "utf8mb4 COLLATE=utf8mb4_0900_ai_ci"),
    ("prefix_pk", "CREATE TABLE t (f VARCHAR(20), a INT, PRIMARY KEY (f(10), a))",
     "  `f` varchar(20) NOT NULL,\n  `a` int NOT NULL,\n  PRIMARY KEY (`f`(10),`a`)", "utf8mb4 COLLATE=utf8mb4_0900_ai_ci"),
]  # fmt: skip


@pytest.mark.parametrize(("cid", "ddl", "body", "options"), SHOW_CREATE, ids=[c[0] for c in SHOW_CREATE])
def test_show_create_table(s, cid, ddl, body, options):
    s.execute(ddl)
    assert q(s, "SHOW CREATE TABLE t")[0][1] == (
        f"CREATE TABLE `t` (\n{body}\n) ENGINE=InnoDB DEFAULT CHARSET={options}"
    )


def test_table_takes_the_database_charset(s):
    s.execute("CREATE DATABASE l CHARACTER SET latin1")
    s.execute("CREATE TABLE l.t (c VARCHAR(242), u VARCHAR(5) CHARACTER SET utf8mb4)")
    assert q(s, "SELECT CHARACTER_SET_NAME, CHARACTER_OCTET_LENGTH FROM information_schema.COLUMNS "
                "WHERE TABLE_SCHEMA = 'l' ORDER BY ORDINAL_POSITION") == [("latin1", 242), ("utf8mb4", 20)]  # fmt: skip
    tm = table_map_event(s.srv.storage.catalog.get_table("l", "t"), 1)
    assert [m.hex() for m in tm.column_metadata()] == ["f200", "1400"]  # VARCHAR(242) latin1 = 242 bytes
    assert dict(tm.optional_metadata_fields())[3] == bytes([8, 0xFC, 0xFF, 0x00])  # COLUMN_CHARSET 8, 255


def test_invisible_columns(s):
    s.execute("CREATE TABLE t (i INT, j INT DEFAULT 7 INVISIBLE, k INT)")
    s.execute("INSERT INTO t VALUES (1, 2)")
    s.execute("INSERT INTO t (i, j, k) VALUES (3, 4, 5)")
    res = s.execute("SELECT * FROM t ORDER BY i")[-1]
    assert ([c.name for c in res.columns], res.rows) == (["i", "k"], [(1, 2), (3, 5)])
    assert q(s, "SELECT x.*, x.j FROM t AS x ORDER BY i") == [(1, 2, 7), (3, 5, 4)]
    assert q(s, "SELECT EXTRA FROM information_schema.COLUMNS WHERE TABLE_NAME = 't' ORDER BY ORDINAL_POSITION") == [
        ("",), ("INVISIBLE",), ("",)]  # fmt: skip
    tm = table_map_event(s.srv.storage.catalog.get_table("d", "t"), 1)
    assert dict(tm.optional_metadata_fields())[12] == bytes([0b10100000])  # COLUMN_VISIBILITY


def test_prefix_primary_key_metadata(s):
    s.execute("CREATE TABLE t (a INT, f VARCHAR(20), b TEXT, PRIMARY KEY (f(10), a, b(5)))")
    fields = dict(table_map_event(s.srv.storage.catalog.get_table("d", "t"), 1).optional_metadata_fields())
    assert 8 not in fields and fields[9] == bytes([1, 10, 0, 0, 2, 5])  # PRIMARY_KEY_WITH_PREFIX pairs
    s.execute("CREATE TABLE u (a INT, b INT, PRIMARY KEY (b, a))")
    fields = dict(table_map_event(s.srv.storage.catalog.get_table("d", "u"), 1).optional_metadata_fields())
    assert 9 not in fields and fields[8] == bytes([1, 0])  # SIMPLE_PRIMARY_KEY


def test_enum_set_result_metadata_and_not_null_default(s):
    s.execute("CREATE TABLE t (id INT, e ENUM('ab','c') NOT NULL, st SET('ab','c'))")
    s.execute("SET sql_mode = ''")
    s.execute("INSERT INTO t (id) VALUES (1)")  # non-strict: a NOT NULL ENUM's default is its first member
    assert q(s, "SELECT e, st FROM t") == [("ab", None)]
    cols = s.execute("SELECT e, st FROM t")[-1].columns
    assert [(c.type, c.flags & (256 | 2048), c.length) for c in cols] == [(254, 256, 8), (254, 2048, 16)]


# (WKT in, ST_AsText out): RM8 13.4.3 "Well-Known Text (WKT) Format" examples, MySQL 8.0's output spelling
WKT = [
    ("POINT(15 20)", "POINT(15 20)"),
    ("point( -1.5 2e3 )", "POINT(-1.5 2000)"),
    ("LINESTRING(0 0, 10 10, 20 25, 50 60)", "LINESTRING(0 0,10 10,20 25,50 60)"),
    ("POLYGON((0 0,10 0,10 10,0 10,0 0),(5 5,7 5,7 7,5 7, 5 5))", "POLYGON((0 0,10 0,10 10,0 10,0 0),(5 5,7 5,7 7,5 7,5 5))"),
    ("MULTIPOINT(0 0, 20 20, 60 60)", "MULTIPOINT((0 0),(20 20),(60 60))"),
    ("MULTILINESTRING((10 10, 20 20), (15 15, 30 15))", "MULTILINESTRING((10 10,20 20),(15 15,30 15))"),
    ("MULTIPOLYGON(((0 0,10 0,10 10,0 10,0 0)),((5 5,7 5,7 7,5 7, 5 5)))", "MULTIPOLYGON(((0 0,10 0,10 10,0 10,0 0)),((5 5,7 5,7 7,5 7,5 5)))"),
    ("GEOMETRYCOLLECTION(POINT(10 10), POINT(30 30), LINESTRING(15 15, 20 20))", "GEOMETRYCOLLECTION(POINT(10 10),POINT(30 30),LINESTRING(15 15,20 20))"),
]  # fmt: skip


@pytest.mark.parametrize(("wkt", "text"), WKT, ids=[w[0].split("(")[0] for w in WKT])
def test_geometry_wkt_round_trip(s, wkt, text):
    s.execute("CREATE TABLE g (v GEOMETRY)")
    s.execute(f"INSERT INTO g VALUES (ST_GeomFromText('{wkt}'))")
    assert q(s, "SELECT ST_AsText(v) FROM g") == [(text,)]


# (id, statement, error code, message)
GEO_ERRORS = [
    ("bad_wkt", "SELECT ST_GeomFromText('POINT(1)')", 3037, "Invalid GIS data provided to function st_geomfromtext."),
    ("wrong_kind", "INSERT INTO p VALUES (ST_GeomFromText('LINESTRING(0 0,1 1)'))", 1416,
     "Cannot get geometry object from data you send to the GEOMETRY field"),
    ("not_geometry", "INSERT INTO p VALUES ('abc')", 1416,
     "Cannot get geometry object from data you send to the GEOMETRY field"),
    ("default", "CREATE TABLE x (g POINT DEFAULT 'a')", 1101, "BLOB, TEXT, GEOMETRY or JSON column 'g' can't have a default value"),
]  # fmt: skip


@pytest.mark.parametrize(("cid", "sql", "code", "message"), GEO_ERRORS, ids=[e[0] for e in GEO_ERRORS])
def test_geometry_errors(s, cid, sql, code, message):
    s.execute("CREATE TABLE p (v POINT)")
    with pytest.raises(MySQLError) as err:
        s.execute(sql)
    assert (err.value.code, err.value.message) == (code, message)


def test_spatial_columns_show_create_and_table_map(s):
    s.execute("CREATE TABLE t (a POINT NOT NULL SRID 0, b GEOMETRYCOLLECTION, c MULTIPOLYGON, d GEOMETRY)")
    assert q(s, "SHOW CREATE TABLE t")[0][1].split("\n")[1:5] == [
        "  `a` point NOT NULL /*!80003 SRID 0 */,", "  `b` geomcollection DEFAULT NULL,", "  `c` multipolygon DEFAULT NULL,",
        "  `d` geometry DEFAULT NULL"]  # fmt: skip
    tm = table_map_event(s.srv.storage.catalog.get_table("d", "t"), 1)
    assert (tm.column_types.hex(), tm.metadata.hex()) == ("ffffffff", "04040404")
    assert dict(tm.optional_metadata_fields())[7] == bytes([1, 7, 6, 0])  # GEOMETRY_TYPE per column


# (id, CREATE TABLE, the partitioning clause SHOW CREATE TABLE keeps)
PARTITIONED = [
    ("hash", "CREATE TABLE t (e INT, s VARCHAR(20) DEFAULT 'PARTITION BY') PARTITION BY HASH(e) PARTITIONS 4",
     "PARTITION BY HASH(e) PARTITIONS 4"),
    ("range", ("CREATE TABLE t (e INT) ENGINE=InnoDB PARTITION BY RANGE (e) (PARTITION p0 VALUES LESS THAN (10), "
     "PARTITION p1 VALUES LESS THAN MAXVALUE)"),
     "PARTITION BY RANGE (e) (PARTITION p0 VALUES LESS THAN (10), PARTITION p1 VALUES LESS THAN MAXVALUE)"),
    ("key", "CREATE TABLE t (e INT PRIMARY KEY) PARTITION BY KEY() PARTITIONS 2", "PARTITION BY KEY() PARTITIONS 2"),
]  # fmt: skip


@pytest.mark.parametrize(("cid", "ddl", "clause"), PARTITIONED, ids=[p[0] for p in PARTITIONED])
def test_partition_by_is_accepted(s, cid, ddl, clause):
    s.execute(ddl)
    s.execute("INSERT INTO t (e) VALUES (1), (20)")
    assert q(s, "SELECT e FROM t ORDER BY e") == [(1,), (20,)]
    assert q(s, "SHOW CREATE TABLE t")[0][1].endswith(f"\n/*!50100 {clause} */")


# (clause, column value, partition id): RM8 24.2.4.1 "LINEAR HASH Partitioning" (2003 -> 3, 1998 -> 2 of 6),
# 24.2.4 HASH (MOD(expr, num)), 24.2.1 RANGE (NULL is lowest), 24.2.2 LIST
PARTITION_IDS = [
    ("PARTITION BY LINEAR HASH(y) PARTITIONS 6", 2003, 3),
    ("PARTITION BY LINEAR HASH(y) PARTITIONS 6", 1998, 2),
    ("PARTITION BY HASH(y) PARTITIONS 4", 7, 3),
    ("PARTITION BY HASH(`y`) PARTITIONS 4", -7, 3),
    ("PARTITION BY RANGE (y) (PARTITION p0 VALUES LESS THAN (10), PARTITION p1 VALUES LESS THAN MAXVALUE)", 10, 1),
    ("PARTITION BY RANGE (y) (PARTITION p0 VALUES LESS THAN (10), PARTITION p1 VALUES LESS THAN MAXVALUE)", None, 0),
    ("PARTITION BY LIST (y) (PARTITION a VALUES IN (1, 3), PARTITION b VALUES IN (2, NULL))", 3, 0),
    ("PARTITION BY LIST (y) (PARTITION a VALUES IN (1, 3), PARTITION b VALUES IN (2, NULL))", None, 1),
]  # fmt: skip


@pytest.mark.parametrize(("clause", "value", "pid"), PARTITION_IDS, ids=lambda v: str(v)[:24])
def test_partition_id(clause, value, pid):
    from gtidkit.engine.sql.partitions import scheme_of

    scheme = scheme_of(clause, ("x", "y"))
    assert scheme is not None and scheme.partition((0, value)) == pid


def test_key_partitioning_is_not_computed():
    from gtidkit.engine.sql.partitions import scheme_of

    assert scheme_of("PARTITION BY KEY() PARTITIONS 2", ("y",)) is None


# (query, rows): RM8 "The ENUM Type" (numeric context gives the index, sorting is by index, a number compares
# with the index), "The SET Type" (numeric context gives the bit set)
NUMERIC_CONTEXT = [
    ("SELECT e, e + 0, st + 0 FROM n ORDER BY id", [("zebra", 1, 5), ("apple", 2, 2), ("mango", 3, 0), (None, None, None)]),
    ("SELECT id FROM n ORDER BY e", [(4,), (1,), (2,), (3,)]),
    ("SELECT id FROM n ORDER BY e DESC", [(3,), (2,), (1,), (4,)]),
    ("SELECT id FROM n WHERE e = 2", [(2,)]),
    ("SELECT id FROM n WHERE e = 'apple'", [(2,)]),
    ("SELECT id FROM n WHERE e > 1 ORDER BY id", [(2,), (3,)]),
    ("SELECT id FROM n WHERE st = 5", [(1,)]),
    ("SELECT id FROM n WHERE st = 'a,c'", [(1,)]),
]  # fmt: skip


def test_enum_set_numeric_context(s):
    s.execute("CREATE TABLE n (id INT, e ENUM('zebra','apple','mango'), st SET('a','b','c'))")
    s.execute("INSERT INTO n VALUES (1,'zebra','a,c'), (2,'apple','b'), (3,'mango',''), (4,NULL,NULL)")
    for sql, rows in NUMERIC_CONTEXT:
        assert q(s, sql) == rows, sql


def test_character_set_binary_makes_binary_types(s):
    s.execute(
        "CREATE TABLE b (c CHAR(3) CHARACTER SET binary, v VARCHAR(5) CHARACTER SET binary, t TEXT) CHARSET binary"
    )
    assert q(s, "SELECT COLUMN_TYPE FROM information_schema.COLUMNS WHERE TABLE_NAME = 'b' ORDER BY ORDINAL_POSITION") == [
        ("binary(3)",), ("varbinary(5)",), ("blob",)]  # fmt: skip
    tm = table_map_event(s.srv.storage.catalog.get_table("d", "b"), 1)
    assert dict(tm.optional_metadata_fields())[2] == bytes([63])  # DEFAULT_CHARSET binary


# (DDL text, what sqlglot is given): spatial types spelled GEOMETRY(n), SRID dropped, identifiers and strings kept
SPELLING = [
    ("CREATE TABLE t (`p` point NOT NULL SRID 0, `point` INT)", "CREATE TABLE t (`p` GEOMETRY(1, 0) NOT NULL, `point` INT)"),
    ("CREATE TABLE t (s VARCHAR(9) DEFAULT 'a POINT', KEY point (s))", "CREATE TABLE t (s VARCHAR(9) DEFAULT 'a POINT', KEY point (s))"),
    ("ALTER TABLE t ADD COLUMN g GEOMCOLLECTION", "ALTER TABLE t ADD COLUMN g GEOMETRY(7)"),
    ("SELECT a point FROM t", "SELECT a point FROM t"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "spelled"), SPELLING, ids=[str(i) for i in range(len(SPELLING))])
def test_ddl_spelling(text, spelled):
    from gtidkit.engine.sql.parse import ddl_spelling

    assert ddl_spelling(text) == spelled


# (column type, literal, strict error message, non-strict stored value): characters the column's set cannot hold
# (RM8 10.9.1 "The utf8mb4 Character Set": utf8mb3 has no supplementary characters; latin1 is cp1252, so € fits)
NOT_IN_CHARSET = [
    ("VARCHAR(20) CHARACTER SET latin1", "'aあいうえおか'", "'\\xE3\\x81\\x82\\xE3\\x81\\x84...'", "a??????"),
    ("VARCHAR(20) CHARACTER SET utf8mb3", "'x😀y'", "'\\xF0\\x9F\\x98\\x80y'", "x?y"),
    ("CHAR(3) CHARACTER SET ascii", "'é'", "'\\xC3\\xA9'", "?"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("ctype", "literal", "shown", "stored"), NOT_IN_CHARSET, ids=["latin1", "utf8mb3", "ascii"]
)
def test_character_not_in_column_charset(s, ctype, literal, shown, stored):
    s.execute(f"CREATE TABLE c (v {ctype})")
    with pytest.raises(MySQLError) as err:
        s.execute(f"INSERT INTO c VALUES ({literal})")
    assert (err.value.code, err.value.message) == (
        1366,
        f"Incorrect string value: {shown} for column 'v' at row 1",
    )
    s.execute(f"INSERT IGNORE INTO c VALUES ({literal})")
    assert q(s, "SELECT v FROM c") == [(stored,)]


def test_latin1_holds_cp1252(s):
    s.execute("CREATE TABLE c (v VARCHAR(5) CHARACTER SET latin1)")
    s.execute("INSERT INTO c VALUES ('é€')")
    assert q(s, "SELECT v FROM c") == [("é€",)]


def test_update_and_delete_convert_enum_set_geometry_and_charsets(s):
    s.execute(
        "CREATE TABLE u (id INT PRIMARY KEY, e ENUM('zebra','apple','mango'), l VARCHAR(5) CHARACTER SET latin1, p POINT)"
    )
    s.execute(
        "INSERT INTO u VALUES (1, 'zebra', 'a', NULL), (2, 'apple', 'b', NULL), (3, 'mango', 'c', NULL)"
    )
    s.execute("UPDATE u SET e = e + 1 WHERE e = 1")  # numeric context: index 1 + 1 = 'apple'
    s.execute("DELETE FROM u WHERE e = 3")
    s.execute("UPDATE u SET l = 'é', e = 'MANGO' WHERE id = 2")
    assert q(s, "SELECT id, e, l FROM u ORDER BY id") == [(1, "apple", "a"), (2, "mango", "é")]
    for sql, code in [
        ("UPDATE u SET e = 'nope' WHERE id = 1", 1265),
        ("UPDATE u SET l = 'あ' WHERE id = 1", 1366),
        ("UPDATE u SET p = 'x' WHERE id = 1", 1416),
    ]:
        with pytest.raises(MySQLError) as err:
            s.execute(sql)
        assert err.value.code == code, sql


def test_srid_attribute(s):
    """RM8 13.4.1 "Spatial Data Types": a column with an SRID attribute takes only values of that SRID (3643)."""
    s.execute("CREATE TABLE r (g GEOMETRY SRID 4326, p POINT NOT NULL)")
    assert q(s, "SHOW CREATE TABLE r")[0][1].split("\n")[1:3] == [
        "  `g` geometry /*!80003 SRID 4326 */ DEFAULT NULL,", "  `p` point NOT NULL"]  # fmt: skip
    s.execute("INSERT INTO r VALUES (ST_GeomFromText('POINT(1 1)', 4326), ST_GeomFromText('POINT(1 1)', 7))")
    with pytest.raises(MySQLError) as err:
        s.execute("INSERT INTO r VALUES (ST_GeomFromText('POINT(1 1)'), ST_GeomFromText('POINT(1 1)'))")
    assert (err.value.code, err.value.message) == (3643, (
        "The SRID of the geometry does not match the SRID of the column 'g'. The SRID of the geometry is 0, but the "
        "SRID of the column is 4326. Consider changing the SRID of the geometry or the SRID property of the column."
    ))  # fmt: skip
