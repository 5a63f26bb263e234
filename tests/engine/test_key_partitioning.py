"""KEY partitioning over every column type KEY accepts, and subpartitions, against MySQL's own row placement.

Oracle: mysql-test ``suite/parts`` (8.0.41) ``partition_{char,decimal,datetime,float}_innodb.result``. Those tests
``SELECT * FROM t`` a KEY-partitioned InnoDB table without ``--sorted_result``, so MySQL returns the rows partition by
partition, each partition in primary key order: the printed order is the rows sorted by (partition id, key). Each
case below lists the rows in the order MySQL printed them; the test inserts them into a gtidkit table of the same
definition and asserts that sorting them by (the partition id gtidkit writes into the rows event, key) gives back
MySQL's order. (``partition_int_innodb`` sorts its results, so integers are checked through
``partition_alter3_innodb.result``'s EXPLAIN in test_partition_ids.py.)

The hash facts (MySQL 8.0 ``Partition_helper::ph_calculate_key_hash_value`` / ``Field::hash``): numeric fields,
DATE and YEAR hash with ``my_charset_numeric`` (latin1_swedish_ci's ``my_hash_sort_simple``), DATETIME /
TIMESTAMP / TIME / ENUM / SET as binary, strings with their collation (CHAR over its full padded length,
VARCHAR over its data). utf8mb4_0900_ai_ci's weights are checked against ``r/ctype_unicode900.result``'s
WEIGHT_STRING values.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest

from gtidkit.binlog import read_events
from gtidkit.binlog.events.rows import RowsEvent, TableMapEvent
from gtidkit.engine import Server
from gtidkit.engine.sql import uca900

FOUR = (
    " PARTITION BY KEY (a) (PARTITION pa1 MAX_ROWS=20 MIN_ROWS=2, PARTITION pa2 MAX_ROWS=30 MIN_ROWS=3,"
    " PARTITION pa3 MAX_ROWS=30 MIN_ROWS=4, PARTITION pa4 MAX_ROWS=40 MIN_ROWS=2)"
)


def _letters(order: str, length: Callable[[int], int]) -> list[tuple[str, Any]]:
    """``repeat(char(ascii('a') + k), length(26 - k))`` for the letters in ``order``."""
    out = []
    for ch in order:
        n = length(26 - (ord(ch) - 97))
        out.append((f"REPEAT('{ch}', {n})", ch * n))
    return out


def _quoted(values: list[str], key: Callable[[str], Any] = str) -> list[tuple[str, Any]]:
    return [(f"'{v}'", key(v)) for v in values]


def _decimals(values: list[str]) -> list[tuple[str, Any]]:
    return [(v, Decimal(v)) for v in values]


def _words(text: str) -> list[str]:
    return text.split()


CHAR_T2 = "kvtdhjblwapxnfmgzeoqucsriy"
BINARY_T2 = "cfzwbkvesqaptouxgdihrnjlmy"
VARCHAR_T2 = "fizbtpnqcedjurmkvhlgsxyaow"
VARBINARY_T2 = "mxklbefpruviyaojscdnqtwzgh"
ENUM_MEMBERS = "1234567890ABCDEFGHIJKLMNOPQRSTUVWXYZ"
ENUM_DDL = "ENUM(" + ",".join(f"'{m}'" for m in ENUM_MEMBERS) + ")"
ENUM_T2 = ["3", "8", "O", "T", "9", "D", "U", "Z", "E", "J", "4", "K", "P", "5", "0", "Q", "V", "F", "", "W"]
ENUM_T2 += ["G", "L", "1", "6", "M", "R", "7", "B", "S", "X", "C", "H", "2", "Y", "I", "N"]
DATE_T2 = _words(
    "01-04 01-12 01-14 01-16 01-20 01-28 02-02 02-08 02-26 03-02 03-08 03-26 01-05 01-21 01-25 02-01 02-15 02-17"
    " 02-19 02-27 03-01 03-15 03-17 03-19 03-27 01-08 01-18 01-24 02-10 02-14 02-16 02-20 02-22 03-10 03-14 03-16"
    " 03-20 03-22 03-28 01-01 01-09 01-13 01-19 01-27 02-09 02-21 02-25 03-09 03-21 03-25 01-02 01-06 01-10 01-22"
    " 01-26 02-04 02-06 02-12 02-18 02-24 02-28 03-04 03-06 03-12 03-18 03-24 01-03 01-07 01-11 01-15 01-17 01-23"
    " 02-03 02-05 02-07 02-11 02-13 02-23 03-03 03-05 03-07 03-11 03-13 03-23"
)
TIME_T2 = _words(
    "15 23 39 47 59 16 24 40 48 05 13 21 37 45 57 14 22 38 46 58 03 11 19 35 43 55 04 12 20 36 44 56 01 09 29 33 41"
    " 53 02 10 18 34 42 54 07 27 31 51 08 28 32 52 17 25 49 06 26 30 50"
)
DATETIME_T2 = _words(
    "09 13 19 23 33 37 51 59 04 10 14 24 28 34 38 48 52 56 03 07 17 21 27 31 35 39 41 45 08 12 18 22 32 36 42 46 01"
    " 05 11 15 25 29 43 47 49 53 55 57 02 06 16 20 26 30 40 44 50 54 58"
)
TIMESTAMP_T2 = _words(
    "14 34 42 58 21 29 37 53 57 04 08 20 36 44 11 23 27 31 02 06 10 22 38 50 17 33 45 12 52 56 07 19 35 39 47 51 18"
    " 26 30 46 54 01 05 09 13 25 41 49 16 24 28 32 40 48 03 15 43 55 59"
)
TIME_T3 = _words(
    "01 06 07 14 15 02 03 08 09 04 05 10 11 12 13 20 21 26 27 16 17 22 23 28 29 18 19 24 25 30 32 33 35 40 41 34 36"
    " 37 42 43 31 38 39 44 45 46 48 49 54 55 50 51 56 57 59 47 52 53 58"
)
QUARTERS_RANGE = (
    " PARTITION BY RANGE (MONTH(a)) SUBPARTITION BY KEY (a) SUBPARTITIONS 3 (PARTITION quarter1 VALUES LESS THAN (4),"
    " PARTITION quarter2 VALUES LESS THAN (7), PARTITION quarter3 VALUES LESS THAN (10),"
    " PARTITION quarter4 VALUES LESS THAN (13))"
)
QUARTERS_LIST = (
    " PARTITION BY LIST (MONTH(a)) SUBPARTITION BY KEY (a) SUBPARTITIONS 3 (PARTITION quarter1 VALUES IN (1,2,3),"
    " PARTITION quarter2 VALUES IN (4,5,6), PARTITION quarter3 VALUES IN (7,8,9),"
    " PARTITION quarter4 VALUES IN (10,11,12))"
)
SECONDS_RANGE = (
    " PARTITION BY RANGE (SECOND(a)) SUBPARTITION BY KEY (a) SUBPARTITIONS 3 (PARTITION quarter1 VALUES LESS THAN"
    " (16), PARTITION quarter2 VALUES LESS THAN (31), PARTITION quarter3 VALUES LESS THAN (46),"
    " PARTITION quarter4 VALUES LESS THAN (61))"
)
SECONDS_LIST = (
    " PARTITION BY LIST (SECOND(a)) SUBPARTITION BY KEY (a) SUBPARTITIONS 3 ("
    + ", ".join(
        f"PARTITION quarter{q + 1} VALUES IN ({','.join(str(s) for s in range(15 * q + 1, 15 * q + 16))})"
        for q in range(4)
    )
    + ")"
)
MONTHS = [f"1970-{m:02d}-01" for m in range(1, 13)]

# (id, column definition and table options, partitioning, rows in MySQL's printed order as (SQL literal, sort key))
CASES = [
    (
        "char-latin1-4",
        "CHAR(255) NOT NULL PRIMARY KEY) CHARSET latin1",
        FOUR,
        [
            ("REPEAT('a',128)", "a" * 128),
            ("REPEAT('b',64)", "b" * 64),
            ("REPEAT('a',255)", "a" * 255),
            ("'b'", "b"),
        ],
    ),
    (
        "char-latin1-27",
        "CHAR(255) NOT NULL PRIMARY KEY) CHARSET latin1",
        " PARTITION BY KEY (a) PARTITIONS 27",
        _letters(CHAR_T2, lambda c: c + 54),
    ),
    (
        "binary-4",
        "BINARY(255) NOT NULL PRIMARY KEY)",
        FOUR,
        [
            ("REPEAT('a',128)", "a" * 128),
            ("REPEAT('b',64)", "b" * 64),
            ("REPEAT('a',255)", "a" * 255),
            ("'b'", "b"),
        ],
    ),
    (
        "binary-27",
        "BINARY(255) NOT NULL PRIMARY KEY)",
        " PARTITION BY KEY (a) PARTITIONS 27",
        _letters(BINARY_T2, lambda c: c + 54),
    ),
    (
        "varchar-latin1-4",
        "VARCHAR(767) NOT NULL PRIMARY KEY) CHARSET latin1",
        FOUR,
        [
            ("REPEAT('a',500)", "a" * 500),
            ("REPEAT('b',64)", "b" * 64),
            ("REPEAT('a',767)", "a" * 767),
            ("'b'", "b"),
        ],
    ),
    (
        "varchar-latin1-27",
        "VARCHAR(767) NOT NULL PRIMARY KEY) CHARSET latin1",
        " PARTITION BY KEY (a) PARTITIONS 27",
        _letters(VARCHAR_T2, lambda c: c * c),
    ),
    (
        "varbinary-4",
        "VARBINARY(767) NOT NULL PRIMARY KEY)",
        FOUR,
        [
            ("REPEAT('a',500)", "a" * 500),
            ("REPEAT('b',64)", "b" * 64),
            ("REPEAT('a',767)", "a" * 767),
            ("'b'", "b"),
        ],
    ),
    (
        "varbinary-30",
        "VARBINARY(767) NOT NULL PRIMARY KEY)",
        " PARTITION BY KEY (a) PARTITIONS 30",
        _letters(VARBINARY_T2, lambda c: c * c),
    ),
    (
        "enum-4",
        "ENUM('A','B','C','D','E','F','G','H','I','J','K','L') NOT NULL PRIMARY KEY)",
        FOUR,
        _quoted(["A", "D", "L", "G"]),
    ),
    (
        "enum-27",
        ENUM_DDL + " NOT NULL PRIMARY KEY)",
        " PARTITION BY KEY (a) PARTITIONS 27",
        [(f"'{m or '['}'", ENUM_MEMBERS.index(m) if m else -1) for m in ENUM_T2],
    ),
    (
        "decimal-10-4",
        "DECIMAL(10,4) NOT NULL PRIMARY KEY)",
        FOUR,
        _decimals(
            ["-1234.567", "123456.7899", "-123456.7899", "0", "-999999.9999", "-1.5", "-1", "1", "1234.567"]
            + ["999999.9999", "1.5"]
        ),
    ),
    (
        "decimal-18-9",
        "DECIMAL(18,9) NOT NULL PRIMARY KEY)",
        " PARTITION BY KEY (a) PARTITIONS 10",
        _decimals(
            ["-1", "1.5", "-999999999.999999999", "-1.5", "1234.567", "999999999.999999999", "-1234.567", "0"]
        ),
    ),
    (
        "float-4",
        "FLOAT NOT NULL PRIMARY KEY)",
        FOUR,
        [(v, float(v)) for v in ["0", "-3.402823466E+38", "-1.5", "-1", "1", "1.5", "3.402823466E+38"]],
    ),
    (
        "float-10",
        "FLOAT NOT NULL PRIMARY KEY)",
        " PARTITION BY KEY (a) PARTITIONS 10",
        [(v, float(v)) for v in ["0", "-3.402823466E+38", "-3.402823466E+37", "-123.456", "1.5", "123.456"]]
        + [("1234546.789", 1234546.789)],
    ),
    (
        "date-4",
        "DATE NOT NULL PRIMARY KEY)",
        FOUR,
        _quoted(["1980-10-14", "2020-12-31", "1975-01-01", "2000-06-15"]),
    ),
    (
        "date-12",
        "DATE NOT NULL PRIMARY KEY)",
        " PARTITION BY KEY (a) PARTITIONS 12",
        _quoted(["1980-10-14", "1975-01-01", "2020-12-31", "2000-06-15"]),
    ),
    (
        "date-12-84",
        "DATE NOT NULL PRIMARY KEY)",
        " PARTITION BY KEY (a) PARTITIONS 12",
        _quoted([f"1970-{d}" for d in DATE_T2]),
    ),
    (
        "time-4",
        "TIME NOT NULL PRIMARY KEY)",
        FOUR,
        _quoted(["03:03:03", "21:21:21", "23:59:00", "12:10:30"]),
    ),
    (
        "time-12-59",
        "TIME NOT NULL PRIMARY KEY)",
        " PARTITION BY KEY (a) PARTITIONS 12",
        _quoted([f"00:01:{s}" for s in TIME_T2]),
    ),
    (
        "datetime-4",
        "DATETIME NOT NULL PRIMARY KEY)",
        FOUR,
        _quoted(["1975-01-01 21:21:21", "2000-06-15 23:59:00", "2020-12-31 12:10:30", "1980-10-14 03:03:00"]),
    ),
    (
        "datetime-12",
        "DATETIME NOT NULL PRIMARY KEY)",
        " PARTITION BY KEY (a) PARTITIONS 12",
        _quoted(["2020-12-31 10:11:12", "2000-06-15 14:15:16", "1980-10-14 13:14:15", "1975-01-01 00:01:01"]),
    ),
    (
        "datetime-12-59",
        "DATETIME NOT NULL PRIMARY KEY)",
        " PARTITION BY KEY (a) PARTITIONS 12",
        _quoted([f"1970-01-01 00:00:{s}" for s in DATETIME_T2]),
    ),
    (
        "timestamp-12-59",
        "TIMESTAMP NOT NULL PRIMARY KEY)",
        " PARTITION BY KEY (a) PARTITIONS 12",
        _quoted([f"1971-01-01 00:00:{s}" for s in TIMESTAMP_T2]),
    ),
    # subpartitions: the id is partition * SUBPARTITIONS + subpartition (sql_partition.cc get_part_id_for_sub)
    ("sub-date-range", "DATE NOT NULL PRIMARY KEY)", QUARTERS_RANGE, _quoted(MONTHS)),
    ("sub-date-list", "DATE NOT NULL PRIMARY KEY)", QUARTERS_LIST, _quoted(MONTHS)),
    (
        "sub-datetime-range",
        "DATETIME NOT NULL PRIMARY KEY)",
        QUARTERS_RANGE,
        _quoted([f"1970-{m}-01 00:00:00" for m in _words("02 01 03 04 05 06 08 09 07 10 11 12")]),
    ),
    ("sub-time-range", "TIME NOT NULL PRIMARY KEY)", SECONDS_RANGE, _quoted([f"10:00:{s}" for s in TIME_T3])),
    ("sub-time-list", "TIME NOT NULL PRIMARY KEY)", SECONDS_LIST, _quoted([f"10:00:{s}" for s in TIME_T3])),
]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    path = tmp_path_factory.mktemp("keypart") / "d"
    with Server.open(path, log_bin=True) as srv:
        with srv.session() as s:
            s.execute("CREATE DATABASE d")
        yield srv, path


def _partition_ids(server, name: str, ddl: str, literals: list[str]) -> list[int | None]:
    """Insert each row into a new table ``d.<name>`` and read back the partition id of each Write_rows event."""
    srv, path = server
    table = name.replace("-", "_")
    with srv.session() as s:
        s.execute("SET time_zone = '+03:00'")  # mysql-test-run's TZ=GMT-3
        s.execute("SET sql_mode = 'NO_ENGINE_SUBSTITUTION'")  # as the enum test, for its '' error value
        s.execute(f"CREATE TABLE d.{table} (a {ddl}")
        for lit in literals:
            s.execute(f"INSERT INTO d.{table} VALUES ({lit})")
        s.execute("FLUSH BINARY LOGS")
    closed = sorted(path.glob("binlog.0*"))[-2]
    ids: list[int | None] = []
    table_ids: set[int] = set()
    for pe in read_events(closed):
        ev = pe.event
        if isinstance(ev, TableMapEvent) and ev.table == table:
            table_ids.add(ev.table_id)
        elif isinstance(ev, RowsEvent) and ev.table_id in table_ids:
            ids.append(int.from_bytes(ev.extra[1:3], "little") if ev.extra else None)
    return ids


@pytest.mark.parametrize(("name", "ddl", "partitioning", "rows"), CASES, ids=[c[0] for c in CASES])
def test_rows_sit_where_mysql_put_them(server, name: str, ddl: str, partitioning: str, rows: list) -> None:
    ids = _partition_ids(server, name, ddl + partitioning, [lit for lit, _ in rows])
    assert None not in ids and len(ids) == len(rows)
    order = sorted(range(len(rows)), key=lambda i: (ids[i], rows[i][1]))
    assert order == list(range(len(rows))), list(zip(ids, [lit for lit, _ in rows]))


# mysql-test r/ctype_unicode900.result: HEX(WEIGHT_STRING(x)) under utf8mb4_0900_ai_ci (WEIGHT_STRING of one
# character shows at most 8 weights: U+FDFA's first 8 of its 18)
WEIGHTS = [
    ("abc", "1C471C601C7A"),
    ("aA", "1C471C47"),
    ("\u337f", "FB40E82AFB40DF0FFB40CF1AFB40F93E"),
    ("\ufdfa", "2364239C23C50209230B239C239C23B1"),
]


@pytest.mark.skipif(not uca900.available(), reason="needs pyuca's allkeys-9.0.0.txt")
@pytest.mark.parametrize(("text", "hexed"), WEIGHTS, ids=["abc", "aA", "U+337F", "U+FDFA"])
def test_uca900_weights_are_mysqls(text: str, hexed: str) -> None:
    got = "".join(f"{w:04X}" for w in uca900.primary_weights(text))
    assert got[: len(hexed)] == hexed


def _fnv(weights: list[int]) -> int:
    """my_hash_sort_uca_900 seeded with nr1 = 1 (ctype-uca.cc), folded to 32 bits by ph_calculate_key_hash_value."""
    h = 1 ^ 14695981039346656037
    for w in weights:
        h = ((h ^ w) * 1099511628211) % 2**64
    return h & 0xFFFFFFFF


def _bin(data: bytes) -> int:
    """my_hash_sort_mb_bin seeded with nr1 = 1, nr2 = 4: trailing spaces dropped, then each byte."""
    nr1, nr2 = 1, 4
    for b in data.rstrip(b" "):
        nr1 ^= ((((nr1 & 63) + nr2) * b) + (nr1 << 8)) % 2**64
        nr2 += 3
    return nr1 & 0xFFFFFFFF


A, B, C, SPACE = 0x1C47, 0x1C60, 0x1C7A, 0x0209  # WEIGHT_STRING('a'), ('b'), ('c'), (' ')
# (column, value, expected partition id of 7): VARCHAR hashes its data; CHAR(5) utf8mb4 its 20 record bytes, so
# the 17 padding spaces' weights are in the hash (utf8mb4_0900_ai_ci is NO PAD)
UTF8MB4 = [
    ("VARCHAR(20)", "'abc'", _fnv([A, B, C]) % 7),
    ("VARCHAR(20)", "'ÁBC'", _fnv([A, B, C]) % 7),
    ("VARCHAR(20)", "'ab'", _fnv([A, B]) % 7),
    ("VARCHAR(20)", "'ab '", _fnv([A, B, SPACE]) % 7),
    ("CHAR(5)", "'abc'", _fnv([A, B, C] + [SPACE] * 17) % 7),
    ("VARCHAR(20) COLLATE utf8mb4_bin", "'abc  '", _bin(b"abc") % 7),
    ("VARCHAR(20) COLLATE utf8mb4_bin", "'é'", _bin("é".encode()) % 7),
]


@pytest.mark.skipif(not uca900.available(), reason="needs pyuca's allkeys-9.0.0.txt")
@pytest.mark.parametrize(("column", "literal", "pid"), UTF8MB4, ids=[f"{c[:11]}-{v}" for c, v, _ in UTF8MB4])
def test_utf8mb4_key_partitions(server, column: str, literal: str, pid: int) -> None:
    name = f"u{zlib.crc32((column + literal).encode())}"
    ids = _partition_ids(server, name, f"{column}) PARTITION BY KEY (a) PARTITIONS 7", [literal])
    assert ids == [pid]
