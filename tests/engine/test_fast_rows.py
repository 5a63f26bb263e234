"""The compiled SELECT row reader (engine/sql/_rowsfast.c via fast_rows.py) against the sqlite3 module's
``execute(...).fetchall()``, which stays the reference: the same rows, the same errors, and None (the module's way)
wherever the module would answer differently. Then the executor's SELECTs with and without it."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gtidkit.engine.sql import fast_rows

needs_reader = pytest.mark.skipif(not fast_rows.COMPILED, reason="the compiled reader is not built")

_VALUES = st.one_of(
    st.none(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=300),
    st.binary(max_size=300),
)


def _connect(path: Path) -> tuple[sqlite3.Connection, Any]:
    raw = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
    reader = fast_rows.reader_for(raw)
    assert reader is not None
    return raw, reader


def _both(raw: sqlite3.Connection, reader: Any, sql: str, binds: dict[str, Any]) -> tuple[Any, Any]:
    """(what the module gives, what the reader gives): rows, or (exception class, message, sqlite_errorcode)."""
    out = []
    for run in (lambda: raw.execute(sql, binds).fetchall(), lambda: reader.run(sql, binds)):
        try:
            out.append(run())
        except sqlite3.Error as err:
            out.append((type(err), str(err), getattr(err, "sqlite_errorcode", None)))
    return out[0], out[1]


@needs_reader
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    rows=st.lists(st.tuples(_VALUES, _VALUES), max_size=300),
    lo=st.integers(-5, 320),
    span=st.integers(0, 320),
)
def test_rows_equal_the_modules(tmp_path: Path, rows: list[tuple[Any, Any]], lo: int, span: int) -> None:
    raw, reader = _connect(tmp_path / "h.sqlite")
    try:
        raw.execute("DROP TABLE IF EXISTS t")
        raw.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, a, b TEXT COLLATE NOCASE)")
        raw.execute("BEGIN")
        raw.executemany("INSERT INTO t VALUES (?, ?, ?)", [(i, a, b) for i, (a, b) in enumerate(rows)])
        raw.execute("COMMIT")
        binds = {"gp0": lo, "gp1": lo + span}
        for sql in (
            "SELECT a, b FROM t WHERE id BETWEEN :gp0 AND :gp1",
            "SELECT b FROM t WHERE id BETWEEN :gp0 AND :gp1 ORDER BY b",
            "SELECT DISTINCT a FROM t WHERE id BETWEEN :gp1 - :gp0 AND :gp1 ORDER BY a",
            "SELECT COUNT(*), SUM(id), typeof(a) FROM t WHERE id >= :gp0 GROUP BY typeof(a)",
            "SELECT a, id FROM t WHERE id = :gp0",
        ):
            module, compiled = _both(raw, reader, sql, binds)
            assert compiled == module, sql
    finally:
        reader.close()
        raw.close()


@needs_reader
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=_VALUES)
def test_bound_values_come_back_as_the_modules(tmp_path: Path, value: Any) -> None:
    raw, reader = _connect(tmp_path / "b.sqlite")
    try:
        module, compiled = _both(raw, reader, "SELECT :v, typeof(:v), length(:v)", {"v": value})
        assert compiled == module
    finally:
        reader.close()
        raw.close()


@needs_reader
@pytest.mark.parametrize(
    ("sql", "binds"),
    [
        ("SELECT nope FROM t", {}),
        ("SELECT * FROM missing", {}),
        ("SELECT abs(-9223372036854775807 - 1)", {}),
        ("SELEC 1", {}),
        ("SELECT json('{')", {}),
        ("SELECT raise_it()", {}),
    ],
    ids=["no-such-column", "no-such-table", "integer-overflow", "syntax", "malformed-json", "udf-raises"],
)
def test_errors_equal_the_modules(tmp_path: Path, sql: str, binds: dict[str, Any]) -> None:
    raw, reader = _connect(tmp_path / "e.sqlite")
    try:
        raw.execute("CREATE TABLE t (a)")
        raw.create_function("raise_it", 0, lambda: 1 / 0)
        module, compiled = _both(raw, reader, sql, binds)
        assert isinstance(module, tuple) and compiled == module
    finally:
        reader.close()
        raw.close()


@needs_reader
@pytest.mark.parametrize(
    ("sql", "binds"),
    [
        ("SELECT 1; SELECT 2", {}),
        ("INSERT INTO t VALUES (1)", {}),
        ("CREATE TABLE u (a)", {}),
        ("", {}),
        ("SELECT :x", {}),
        ("SELECT ?", {}),
        ("SELECT :x", {"x": 2**64}),
        ("SELECT :x", {"x": True}),
        ("SELECT :x", {"x": bytearray(b"ab")}),
        ("SELECT :x", {"x": "\ud800"}),
        ("SELECT CAST(x'ff' AS TEXT)", {}),
    ],
    ids=[
        "two-statements",
        "insert",
        "ddl",
        "empty",
        "missing-parameter",
        "positional",
        "int-overflow",
        "bool",
        "bytearray",
        "lone-surrogate",
        "not-utf8",
    ],
)
def test_the_modules_way_answers(tmp_path: Path, sql: str, binds: dict[str, Any]) -> None:
    """None, nothing run: what the module answers differently (an error, an adapter, a write) is its to answer."""
    raw, reader = _connect(tmp_path / "n.sqlite")
    try:
        raw.execute("CREATE TABLE t (a)")
        assert reader.run(sql, binds) is None
        assert raw.execute("SELECT COUNT(*) FROM t").fetchone() == (0,)
        assert raw.execute("SELECT COUNT(*) FROM sqlite_master WHERE name = 'u'").fetchone() == (0,)
    finally:
        reader.close()
        raw.close()


@needs_reader
def test_text_and_row_factories_leave_it_to_the_module(tmp_path: Path) -> None:
    raw, reader = _connect(tmp_path / "f.sqlite")
    try:
        assert reader.run("SELECT 'a'", {}) == [("a",)]
        raw.text_factory = bytes
        assert reader.run("SELECT 'a'", {}) is None
        raw.text_factory = str
        raw.row_factory = sqlite3.Row
        assert reader.run("SELECT 'a'", {}) is None
    finally:
        reader.close()
        raw.close()


@needs_reader
def test_interrupt_by_the_progress_handler(tmp_path: Path) -> None:
    """KILL QUERY's way: the progress handler stops the statement, 'interrupted' as from the module."""
    raw, reader = _connect(tmp_path / "i.sqlite")
    try:
        raw.set_progress_handler(lambda: 1, 100)
        sql = (
            "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 100000) SELECT n FROM c"
        )
        module, compiled = _both(raw, reader, sql, {})
        assert module[:2] == (sqlite3.OperationalError, "interrupted") and compiled == module
        raw.set_progress_handler(None, 0)
        assert len(reader.run(sql, {})) == 100000  # reset after the error: the statement runs again
    finally:
        reader.close()
        raw.close()


@needs_reader
def test_sees_the_connections_own_transaction(tmp_path: Path) -> None:
    raw, reader = _connect(tmp_path / "t.sqlite")
    try:
        raw.execute("CREATE TABLE t (a)")
        raw.execute("BEGIN")
        raw.execute("INSERT INTO t VALUES (1)")
        assert reader.run("SELECT a FROM t", {}) == [(1,)]
        raw.execute("ROLLBACK")
        assert reader.run("SELECT a FROM t", {}) == []
        assert not raw.in_transaction
    finally:
        reader.close()
        raw.close()


@needs_reader
def test_other_threads_run_while_it_reads(tmp_path: Path) -> None:
    """The GIL is released around the first step: a thread blocked on it runs while SQLite sorts."""
    raw, reader = _connect(tmp_path / "g.sqlite")
    try:
        raw.execute("CREATE TABLE t (a)")
        raw.execute("BEGIN")
        raw.executemany("INSERT INTO t VALUES (?)", [(i * 7919 % 100003,) for i in range(200000)])
        raw.execute("COMMIT")
        ticks = [0]
        stop = threading.Event()

        def tick() -> None:
            while not stop.is_set():
                ticks[0] += 1

        t = threading.Thread(target=tick)
        t.start()
        try:
            while not ticks[0]:  # the thread is spinning
                pass
            before = ticks[0]
            rows = reader.run("SELECT a FROM t ORDER BY a DESC LIMIT 1", {})
            during = ticks[0] - before
        finally:
            stop.set()
            t.join()
        assert rows == [(100002,)] and during > 0
    finally:
        reader.close()
        raw.close()


def test_executor_selects_equal_without_the_reader(tmp_path: Path) -> None:
    """The same SELECTs through the engine in a process with ``GTIDKIT_PURE_PYTHON=1`` (no reader) and in one
    with it (when built): the same result rows, metadata and errors."""
    script = (
        "import json, sys, tempfile\n"
        "from pathlib import Path\n"
        "from gtidkit.engine import Server\n"
        "from gtidkit.engine.sql import fast_rows\n"
        "from gtidkit.mysql_errors import MySQLError\n"
        "out = {'compiled': fast_rows.COMPILED}\n"
        "with tempfile.TemporaryDirectory() as d:\n"
        "    srv = Server.open(Path(d))\n"
        "    s = srv.session()\n"
        "    s.execute('CREATE DATABASE d; USE d')\n"
        "    s.execute('CREATE TABLE t (id INT PRIMARY KEY, c CHAR(20), f DOUBLE, n DECIMAL(6,2), j JSON)')\n"
        "    s.execute(\"INSERT INTO t VALUES (1,'b',1.5,2.25,'[1]'),(2,'A',NULL,NULL,NULL),(3,'é',-2e300,0,'{}')\")\n"
        "    for q in ('SELECT c FROM t WHERE id BETWEEN ? AND ?', 'SELECT DISTINCT c FROM t WHERE id BETWEEN ? AND ? ORDER BY c',\n"
        "              'SELECT SUM(id), AVG(n), MAX(f) FROM t WHERE id BETWEEN ? AND ?', 'SELECT j, n, f FROM t WHERE id = ?',\n"
        "              'SELECT f * 1e300 FROM t WHERE id = ?', 'SELECT nope FROM t WHERE id = ?'):\n"
        "        try:\n"
        "            p = s.prepare(q)\n"
        "        except MySQLError as e:\n"
        "            out[q] = [e.code, e.message]\n"
        "            continue\n"
        "        for args in ([1, 3], [2, 2], [3, 1], [1, 3]):  # the last runs on the prepared short path\n"
        "            try:\n"
        "                r = s.execute_prepared(p, args[: q.count('?')])[0]\n"
        "                out[q + repr(args)] = [repr(r.rows), [repr(c) for c in r.columns or ()], r.warning_count]\n"
        "            except MySQLError as e:\n"
        "                out[q + repr(args)] = [e.code, e.message]\n"
        "    s.close(); srv.shutdown()\n"
        "print(json.dumps(out))\n"
    )
    runs = {}
    for pure in ("1", "0"):
        env = {**__import__("os").environ, "GTIDKIT_PURE_PYTHON": pure}
        done = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
        )
        runs[pure] = __import__("json").loads(done.stdout)
    assert runs["1"].pop("compiled") is False
    assert runs["0"].pop("compiled") is fast_rows.COMPILED
    assert runs["0"] == runs["1"]
    assert any(isinstance(v[0], int) and v[0] == 1690 for v in runs["1"].values())  # the DOUBLE overflow
    assert any(isinstance(v[0], int) and v[0] == 1054 for v in runs["1"].values())  # no such column


@needs_reader
def test_close_while_another_thread_reads(tmp_path: Path) -> None:
    """close() (the session's connection closing) while a statement runs in another thread: the statement in use is
    finalized only when that run ends, which returns every row."""
    raw, reader = _connect(tmp_path / "c.sqlite")
    try:
        raw.execute("CREATE TABLE t (a)")
        raw.execute("BEGIN")
        raw.executemany("INSERT INTO t VALUES (?)", [(i * 7919 % 100003,) for i in range(100000)])
        raw.execute("COMMIT")
        got: list[Any] = []
        t = threading.Thread(target=lambda: got.append(reader.run("SELECT a FROM t ORDER BY a", {})))
        t.start()
        reader.close()  # while the thread sorts (the GIL is released around the first step), or before it runs
        t.join()
        assert len(got[0]) == 100000 and got[0][0] == (0,)
        assert reader.run("SELECT COUNT(*) FROM t", {}) == [(100000,)]  # prepared again after close()
    finally:
        reader.close()
        raw.close()


@needs_reader
@pytest.mark.parametrize(
    ("sql", "floats"),
    [
        ("SELECT 1, 'a', x'00', NULL", 0),
        ("SELECT 1.5, 2.5 UNION ALL SELECT 3, 1e999", 3),
        ("SELECT 1 WHERE 0", 0),
    ],
    ids=["no-float", "three-floats", "no-rows"],
)
def test_counts_the_floats_it_returned(tmp_path: Path, sql: str, floats: int) -> None:
    """``floats``: what lets the executor skip its overflow scan (only a float can be infinite)."""
    raw, reader = _connect(tmp_path / "x.sqlite")
    try:
        rows = reader.run(sql, {})
        assert rows == raw.execute(sql).fetchall() and reader.floats == floats
    finally:
        reader.close()
        raw.close()


@needs_reader
@pytest.mark.parametrize(
    ("rows", "n"),
    [
        ([(1, 2), (3, 4)], 2),
        ([(1, 2), (3,)], 2),
        ([(1, 2), [3, 4]], 2),  # a list row: the Python check decides
        (((1, 2),), 2),  # a tuple of rows: the Python check decides
        ([()], 0),
        ([(1,)], 2),
    ],
    ids=["uniform", "ragged", "list-row", "tuple-of-rows", "empty-rows", "narrow"],
)
def test_uniform_width_agrees_with_the_width_set(rows: Any, n: int) -> None:
    # True only where StatementResult.result_set's own check (one width, n) would pass; False leaves it to that check
    assert fast_rows.uniform_width is not None
    got = fast_rows.uniform_width(rows, n)
    assert got is (type(rows) is list and all(type(r) is tuple for r in rows) and set(map(len, rows)) == {n})


@needs_reader
@pytest.mark.parametrize(
    ("names", "values", "error"),
    [
        (("columns", "rows"), ((), [(1,)]), None),
        (("columns",), ((), [(1,)]), TypeError),  # fewer names than values
        (["columns"], ((),), TypeError),  # not a tuple
        ((1,), ((),), TypeError),  # a name that is not a str
        (("nosuchfield",), (1,), AttributeError),  # a slotted object has no such attribute
    ],
    ids=["fields", "lengths", "list", "int-name", "unknown"],
)
def test_set_slots_is_object_setattr_of_each(names: Any, values: Any, error: type[Exception] | None) -> None:
    # _rowsfast.set_slots against its Python reference (fast_rows._set_slots, object.__setattr__ of each pair):
    # the same attributes on a frozen slotted dataclass (whose own __setattr__ refuses), the same error type
    from gtidkit.engine.results import StatementResult

    made = []
    for fn in (fast_rows.set_slots, fast_rows._set_slots):
        obj = StatementResult()
        if error is not None:
            with pytest.raises(error):
                fn(obj, names, values)
            continue
        fn(obj, names, values)
        made.append(obj)
    if error is None:
        assert made[0] == made[1]
        assert (made[0].columns, made[0].rows, made[0].info) == ((), [(1,)], "")
    assert fast_rows.set_slots is not fast_rows._set_slots  # the compiled one is in use (needs_reader)
