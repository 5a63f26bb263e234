"""``Reader.run_sorted`` (engine/sql/_rowsfast.c): a SELECT's ORDER BY (and DISTINCT ... ORDER BY) of its result
columns done on the rows read, held to SQLite's own ORDER BY / DISTINCT of the same SELECT, which stays the
reference (what the executor runs without the compiled reader, ``GTIDKIT_PURE_PYTHON=1``): the same rows in the
same order, ties and the row kept of equal ones included, for every storage class, the three built-in collations,
ASC and DESC; None (SQLite answers) for other collations and result columns that are no table column."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gtidkit.engine.sql import fast_rows

pytestmark = pytest.mark.skipif(not fast_rows.COMPILED, reason="the compiled reader is not built")

#: values that collide under the collations: case variants, trailing spaces, NUL bytes, non-ASCII, numbers of
#: both kinds that compare equal
_TEXT = st.text(alphabet="aAbB \x00é-1", max_size=6)
_VALUES = st.one_of(
    st.none(),
    st.integers(min_value=-3, max_value=3),
    st.sampled_from([1.0, -0.5, 2.5, 2**63 * 1.0, -(2**53) - 1.0]),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    _TEXT,
    st.binary(max_size=3),
)
COLUMNS = ("a", "b", "c", "d")
COLLATIONS = ("BINARY", "NOCASE", "RTRIM", "BINARY")


def _connect(path: Path) -> tuple[sqlite3.Connection, Any]:
    raw = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
    reader = fast_rows.reader_for(raw)
    assert reader is not None
    raw.execute("DROP TABLE IF EXISTS t")
    cols = ", ".join(f"{c} COLLATE {k}" if c != "d" else c for c, k in zip(COLUMNS, COLLATIONS, strict=True))
    raw.execute(f"CREATE TABLE t (id INTEGER PRIMARY KEY, {cols})")
    return raw, reader


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    rows=st.lists(st.tuples(_VALUES, _VALUES, _VALUES, _VALUES), max_size=60),
    keys=st.lists(st.tuples(st.integers(0, 3), st.booleans()), min_size=1, max_size=4),
    distinct=st.booleans(),
    lo=st.integers(0, 70),
)
def test_run_sorted_equals_sqlites_order_by(
    tmp_path: Path, rows: list[tuple[Any, ...]], keys: list[tuple[int, bool]], distinct: bool, lo: int
) -> None:
    raw, reader = _connect(tmp_path / "s.sqlite")
    try:
        raw.executemany("INSERT INTO t (a, b, c, d) VALUES (?, ?, ?, ?)", rows)
        if distinct:  # DISTINCT ... ORDER BY every result column, each once
            seen = []
            for i, desc in keys:
                if i not in [s[0] for s in seen]:
                    seen.append((i, desc))
            keys = seen
            select = "SELECT DISTINCT " + ", ".join(COLUMNS[i] for i, _ in keys)
            keys = [(n, desc) for n, (_, desc) in enumerate(keys)]
        else:
            select = "SELECT " + ", ".join(COLUMNS)
        where = " FROM t WHERE id >= :lo"
        order = " ORDER BY " + ", ".join(
            f"{n + 1}{' DESC' if desc else ''}" if distinct else f"{COLUMNS[i]}{' DESC' if desc else ''}"
            for n, (i, desc) in enumerate(keys)
        )
        want = raw.execute(select + where + order, {"lo": lo}).fetchall()
        unsorted = select.replace("SELECT DISTINCT", "SELECT") + where
        got = reader.run_sorted(unsorted, {"lo": lo}, tuple(keys), distinct)
        assert got == want
        assert [tuple(map(type, r)) for r in got] == [tuple(map(type, r)) for r in want]
    finally:
        reader.close()
        raw.close()


@pytest.mark.parametrize(
    ("sql", "keys", "distinct"),
    [
        ("SELECT a || 'x' FROM t", ((0, False),), False),  # an expression: no table column
        ("SELECT e FROM t2", ((0, False),), False),  # a collation of the application's
        ("SELECT a, b FROM t", ((0, False),), True),  # DISTINCT must name every result column
        ("SELECT a FROM t", ((1, False),), False),  # no such result column
        ("SELECT a FROM t", (), False),
    ],
    ids=["expression", "custom-collation", "distinct-partial", "bad-index", "no-keys"],
)
def test_run_sorted_declines(tmp_path: Path, sql: str, keys: tuple, distinct: bool) -> None:
    raw, reader = _connect(tmp_path / "d.sqlite")
    try:
        raw.create_collation("MINE", lambda x, y: (x > y) - (x < y))
        raw.execute("CREATE TABLE t2 (e TEXT COLLATE MINE)")
        raw.execute("INSERT INTO t (a, b) VALUES ('x', 'y')")
        assert reader.run_sorted(sql, {}, keys, distinct) is None
    finally:
        reader.close()
        raw.close()
