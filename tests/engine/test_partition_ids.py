"""Partition ids of rows under partitioning expressions and RANGE / LIST COLUMNS, from MySQL's own examples.

Sources (MySQL 8.0 Reference Manual, chapter 24 "Partitioning", and mysql-test):

* 24.2.4 "HASH Partitioning": ``PARTITION BY HASH( YEAR(col3) ) PARTITIONS 4`` stores '2005-09-15' in
  ``MOD(YEAR('2005-09-01'),4) = MOD(2005,4) = 1``;
* 24.2.4.1 "LINEAR HASH Partitioning": ``LINEAR HASH( YEAR(col3) ) PARTITIONS 6``: '2003-04-14' -> 3,
  '1998-10-19' -> 2;
* 24.2.1 "RANGE Partitioning": ``RANGE ( YEAR(separated) )`` with bounds 1991, 1996, 2001, MAXVALUE: left in
  1990 or earlier -> p0, 1991..1995 -> p1, 1996..2000 -> p2, later -> p3;
* 24.2.3.1 "RANGE COLUMNS partitioning": ``rc1 (a INT, b INT) PARTITION BY RANGE COLUMNS(a, b) (PARTITION p0
  VALUES LESS THAN (5, 12), PARTITION p3 VALUES LESS THAN (MAXVALUE, MAXVALUE))``: (5,10) and (5,11) in p0,
  (5,12) in p3 (where ``RANGE (a)`` with bound 5 puts all three in p1);
* mysql-test ``r/partition_column.result`` (Bug#52815): LIST COLUMNS (department, country) puts ('dep1',
  'Russia') and ('dep1', 'Croatia') in first_office, ('dep2', 'Russia') in second_office, and has no partition
  for ('dep2', 'Croatia');
* "Date and Time Functions": ``TO_DAYS(950501)`` -> 728779, ``TO_DAYS('2007-10-07')`` -> 733321.
"""

from __future__ import annotations

import pytest

from gtidkit.engine.sql.partitions import int_key_column, key_hash, partition_function, scheme_of

COLS = ("col1", "col2", "col3")
RANGE_YEAR = (
    "PARTITION BY RANGE ( YEAR(col3) ) (PARTITION p0 VALUES LESS THAN (1991), PARTITION p1 VALUES LESS THAN "
    "(1996), PARTITION p2 VALUES LESS THAN (2001), PARTITION p3 VALUES LESS THAN MAXVALUE)"
)
RANGE_TO_DAYS = (
    "PARTITION BY RANGE (TO_DAYS(col3)) (PARTITION p0 VALUES LESS THAN (TO_DAYS('2007-10-07')), "
    "PARTITION p1 VALUES LESS THAN MAXVALUE)"
)

# (clause, row, partition id)
CASES = [
    ("PARTITION BY HASH( YEAR(col3) ) PARTITIONS 4", (1, "a", "2005-09-15"), 1),
    ("PARTITION BY LINEAR HASH( YEAR(col3) ) PARTITIONS 6", (1, "a", "2003-04-14"), 3),
    ("PARTITION BY LINEAR HASH( YEAR(col3) ) PARTITIONS 6", (1, "a", "1998-10-19"), 2),
    (RANGE_YEAR, (1, "a", "1990-12-31"), 0),
    (RANGE_YEAR, (1, "a", "1991-01-01"), 1),
    (RANGE_YEAR, (1, "a", "2000-06-30"), 2),
    (RANGE_YEAR, (1, "a", "2013-01-01 10:00:00"), 3),
    (RANGE_YEAR, (1, "a", None), 0),  # NULL is below every bound
    (RANGE_TO_DAYS, (1, "a", "2007-10-06"), 0),
    (RANGE_TO_DAYS, (1, "a", "2007-10-07"), 1),
]

RC1 = (
    "PARTITION BY RANGE COLUMNS(a, b) (PARTITION p0 VALUES LESS THAN (5, 12), "
    "PARTITION p3 VALUES LESS THAN (MAXVALUE, MAXVALUE))"
)
R1 = "PARTITION BY RANGE (a) (PARTITION p0 VALUES LESS THAN (5), PARTITION p1 VALUES LESS THAN (MAXVALUE))"
OFFICES = (
    "PARTITION BY LIST COLUMNS (department, country) ("
    "PARTITION first_office VALUES IN (('dep1', 'Russia'), ('dep1', 'Croatia')),"
    "PARTITION second_office VALUES IN (('dep2', 'Russia')))"
)
COLUMNS_CASES = [
    (RC1, ("a", "b"), (5, 10), 0),
    (RC1, ("a", "b"), (5, 11), 0),
    (RC1, ("a", "b"), (5, 12), 1),
    (R1, ("a", "b"), (5, 10), 1),
    (OFFICES, ("id", "name", "department", "country"), (1, "Ann", "dep1", "Russia"), 0),
    (OFFICES, ("id", "name", "department", "country"), (2, "Bob", "dep1", "Croatia"), 0),
    (OFFICES, ("id", "name", "department", "country"), (3, "Cecil", "dep2", "Russia"), 1),
    (OFFICES, ("id", "name", "department", "country"), (3, "Dan", "dep2", "Croatia"), None),
]


@pytest.mark.parametrize(("clause", "row", "pid"), CASES, ids=lambda v: str(v)[:28])
def test_partition_expression(clause: str, row: tuple, pid: int) -> None:
    scheme = scheme_of(clause, COLS)
    assert scheme is not None and scheme.partition(row) == pid


@pytest.mark.parametrize(("clause", "names", "row", "pid"), COLUMNS_CASES, ids=lambda v: str(v)[:28])
def test_columns_partitioning(clause: str, names: tuple, row: tuple, pid: int | None) -> None:
    scheme = scheme_of(clause, names)
    assert scheme is not None and scheme.partition(row) == pid


@pytest.mark.parametrize(("arg", "days"), [("1995-05-01", 728779), ("2007-10-07", 733321)])
def test_to_days(arg: str, days: int) -> None:
    fn = partition_function("TO_DAYS")
    assert fn is not None and fn(arg) == days


# mysql-test suite/parts/r/partition_alter3_innodb.result: t1 (f_int1 INT ...) PARTITION BY KEY (f_int1); EXPLAIN of
# WHERE f_int1 = 3 prunes to p0 (1 partition), part7 (3rd of 3, then of 4), p6 (7th of 8), p0 (1st of 7)
@pytest.mark.parametrize(("count", "pid"), [(1, 0), (3, 2), (4, 2), (8, 6), (7, 0)])
def test_key_partitioning_of_an_int(count: int, pid: int) -> None:
    for clause in (
        f"PARTITION BY KEY (f_int1) PARTITIONS {count}",
        f"PARTITION BY KEY () PARTITIONS {count}",
    ):
        scheme = scheme_of(clause, ("f_int1", "f_char1"), ("int", "varchar"), ("f_int1",))
        assert scheme is not None and scheme.partition((3, "x")) == pid


def test_key_hash_of_null_and_integers() -> None:
    """NULL folds ``nr1 ^= (nr1 << 1) | 1`` into the hash (1 -> 2); an integer's bytes run through
    latin1_swedish_ci's sort order (``my_charset_numeric``): 0x61 hashes as 0x41, a trailing 0x20 byte is dropped."""
    tiny = int_key_column(0, "tinyint")
    int4 = int_key_column(0, "int")
    assert tiny is not None and int4 is not None
    assert key_hash((None,), (tiny,)) == 2
    assert key_hash((0x61,), (tiny,)) == key_hash((0x41,), (tiny,))
    assert key_hash((0x20000000,), (int4,)) == key_hash((0,), (int_key_column(0, "mediumint"),))
    assert key_hash((3,), (tiny,)) != key_hash((3,), (int_key_column(0, "smallint"),))


@pytest.mark.parametrize(
    "clause",
    [
        "PARTITION BY KEY(col2) PARTITIONS 2",
        "PARTITION BY HASH(col1 + col2) PARTITIONS 2",
        "PARTITION BY KEY ALGORITHM=1 (col1) PARTITIONS 2",
    ],
    ids=["key-without-its-column-type", "two-columns", "key-algorithm-1"],
)
def test_kinds_not_computed(clause: str) -> None:
    """KEY over a column given no type (only integers have a default), expressions of two columns, and KEY
    ALGORITHM=1 (MySQL 5.1's hash) write no partition ids."""
    assert scheme_of(clause, COLS, ("int", "char", "date")) is None


# end to end: the rows events of a logged INSERT / UPDATE carry the partition ids above (extra data PART (1) +
# partition id (2 LE) [+ the old row's for an update], one event per run of rows in one partition: WL#12168)
LOGGED = [
    (
        "CREATE TABLE d.t (a INT, b INT) " + RC1,
        "INSERT INTO d.t VALUES (5, 10), (5, 11), (5, 12)",
        "UPDATE d.t SET b = 13 WHERE b = 10",
        ["010000", "010100", "0101000000"],
    ),
    (
        "CREATE TABLE d.t (col1 INT, col2 CHAR(5), col3 DATE) " + RANGE_YEAR,
        "INSERT INTO d.t VALUES (1, 'a', '1990-01-01'), (2, 'b', '2005-09-15')",
        "UPDATE d.t SET col3 = '1999-01-01' WHERE col1 = 2",
        ["010000", "010300", "0102000300"],
    ),
]


LOGGED.append(
    (
        "CREATE TABLE d.t (f_int1 INT PRIMARY KEY, v INT) PARTITION BY KEY () PARTITIONS 8",
        "INSERT INTO d.t VALUES (3, 1)",
        "UPDATE d.t SET v = 2 WHERE f_int1 = 3",
        ["010600", "0106000600"],
    )
)


@pytest.mark.parametrize(
    ("ddl", "insert", "update", "extras"), LOGGED, ids=["range-columns", "range-year", "key"]
)
def test_rows_events_carry_the_ids(tmp_path, ddl: str, insert: str, update: str, extras: list[str]) -> None:
    from gtidkit.binlog import read_events
    from gtidkit.binlog.events.rows import RowsEvent
    from gtidkit.engine import Server

    with Server.open(tmp_path / "d", log_bin=True) as srv, srv.session() as s:
        s.execute("CREATE DATABASE d")
        s.execute(ddl)
        s.execute(insert)
        s.execute(update)
    events = [
        pe.event for pe in read_events(tmp_path / "d" / "binlog.000001") if isinstance(pe.event, RowsEvent)
    ]
    assert [e.extra.hex() for e in events] == extras
