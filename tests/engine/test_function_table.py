"""The one SQL function table (engine/sql/function_table.py): every row complete, the only place UDFs are
registered from, and MySQL's errors for calls it rejects.

Expected errors come from MySQL 8.0's mysql-test results: ``r/parser.result`` (1582 ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT
"Incorrect parameter count in the call to native function '<name as written>'" for each native function called
with a wrong count), ``r/func_uuid.result`` (BIN_TO_UUID / UUID_TO_BIN), ``r/sp-error.result`` (``SELECT
inexistent();`` without a database is 1046 "No database selected"), ``r/errors.result`` / ``r/gr_member_actions.result``
(1305 "FUNCTION test.<name as written> does not exist").
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from gtidkit.engine.results import FieldType
from gtidkit.engine.sql import function_families
from gtidkit.engine.sql.executor import Executor
from gtidkit.engine.sql.function_arities import NATIVE_ARITIES
from gtidkit.engine.sql.function_table import Kind, ResultType, SqlFunction
from gtidkit.engine.statements.classify import classify
from gtidkit.engine.storage import Storage
from gtidkit.errors import MySQLError
from tests.source_tree import SRC, nodes, python_files, source

TABLE = function_families.load_families()

#: mysql-test r/parser.result and r/func_uuid.result: each call fails with 1582 naming the function as written
WRONG_COUNTS = [
    "pi(3.14)", "tan()", "tan(1, 2)", "makedate(1)", "makedate(1, 2, 3)", "maketime()", "maketime(1)",
    "maketime(1, 2)", "maketime(1, 2, 3, 4)", "atan()", "atan2(1, 2, 3)", "concat()", "concat_ws()",
    "concat_ws(\"foo\")", "elt()", "elt(1)", "export_set()", "export_set(\"p1\")", "export_set(\"p1\", \"p2\")",
    "export_set(\"p1\", \"p2\", \"p3\", \"p4\", \"p5\", \"p6\")", "field()", "field(\"p1\")", "from_unixtime()",
    "from_unixtime(1, 2, 3)", "unix_timestamp(1, 2)", "greatest()", "greatest(12)", "last_insert_id(1, 2)",
    "least()", "least(12)", "locate()", "locate(1)", "locate(1, 2, 3, 4)", "log()", "log(1, 2, 3)", "make_set()",
    "make_set(1)", "source_pos_wait()", "source_pos_wait(1)", "rand(1, 2, 3)", "round(1, 2, 3)", "yearweek()",
    "yearweek(1, 2, 3)", "bin_to_uuid()", "uuid_to_bin()",
    "bin_to_uuid(x'12345678123456781234567812345678', true, false)",
    "uuid_to_bin('12345678-1234-5678-1234-567812345678', true, false)",
    # the GTID functions (RM 8.4 "Functions Used with Global Transaction Identifiers": two sets; a set and a timeout)
    "GTID_SUBSET('x')", "gtid_subtract('a', 'b', 'c')", "WAIT_FOR_EXECUTED_GTID_SET()",
    "wait_for_executed_gtid_set('', 1, 2)",
]  # fmt: skip


@pytest.fixture(scope="module")
def ex(tmp_path_factory):
    storage = Storage.open(tmp_path_factory.mktemp("function_table"))
    e = Executor(storage, storage.connect())
    e.execute(classify("CREATE DATABASE test"))
    e.execute(classify("CREATE TABLE test.t (a INT)"), "test")
    yield e
    storage.close()


def _error(ex: Executor, sql: str, db: str | None = "test") -> MySQLError:
    with pytest.raises(MySQLError) as info:
        ex.execute(classify(sql), db)
    return info.value


# ---------------------------------------------------------------- the table itself
@pytest.mark.parametrize("name", sorted(TABLE), ids=str)
def test_every_row_is_complete(name):
    """Each row has its argument counts, an implementation fitting its kind, a result type and determinism."""
    row = TABLE[name]
    assert isinstance(row, SqlFunction) and row.name == name == name.upper()
    assert 0 <= row.min_args <= row.max_args
    assert isinstance(row.result, ResultType)
    assert row.result.field_type is None or isinstance(row.result.field_type, FieldType)
    assert isinstance(row.deterministic, bool)
    if row.kind in (Kind.UDF,):
        assert callable(row.impl)
    elif row.kind is Kind.AGGREGATE:
        assert inspect.isclass(row.impl) and hasattr(row.impl, "step") and hasattr(row.impl, "finalize")
    else:
        assert callable(row.impl)  # a factory (SESSION_*, BOUND, ROLE) or the rewrite / sqlglot builder
    if row.sqlite_args >= 0 and row.kind in (Kind.UDF, Kind.SESSION_UDF):
        assert row.min_args <= row.sqlite_args <= row.max_args or name in NATIVE_ARITIES


@pytest.mark.parametrize("name", sorted(n for n in NATIVE_ARITIES if n in TABLE), ids=str)
def test_native_functions_take_mysqls_counts(name):
    """A row of a MySQL native function accepts exactly MySQL's argument counts (sql/item_create.cc)."""
    assert (TABLE[name].min_args, TABLE[name].max_args) == NATIVE_ARITIES[name]


def test_gtid_functions_live_in_engine_gtid():
    for name in ("GTID_SUBSET", "GTID_SUBTRACT", "WAIT_FOR_EXECUTED_GTID_SET"):
        row = TABLE[name]
        assert row.kind is Kind.BOUND and row.python_eval
        assert row.impl.__module__ == "gtidkit.engine.gtid.functions"


def _calls(path: Path, attrs: set[str]) -> list[int]:
    return [
        n.lineno
        for n in nodes(path)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in attrs
    ]


def test_udfs_are_registered_only_from_the_table():
    """No module but function_table.py calls sqlite3's create_function / create_aggregate (a family registers
    rows; the table registers them on each connection)."""
    found = {
        str(p.relative_to(SRC)): lines
        for p in python_files()
        if (lines := _calls(p, {"create_function", "create_aggregate", "create_window_function"}))
    }
    assert set(found) == {"engine/sql/function_table.py"}, found


def test_every_registering_module_is_a_family():
    """Each engine module that calls ``register(...)`` of the table is imported by function_families, so the
    table is complete whatever was imported first (the executor registers its own session functions)."""
    families = {m.__name__ for m in function_families.FAMILIES} | {"gtidkit.engine.sql.executor"}
    for path in python_files():
        if "function_table import" not in source(path) or path.name == "function_families.py":
            continue
        registers = any(
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Name)
            and n.func.id in ("register", "register_nodes")
            for n in nodes(path)
        )
        module = ".".join(path.relative_to(SRC.parent).with_suffix("").parts)
        if registers:
            assert module in families, module


# ---------------------------------------------------------------- MySQL's errors
@pytest.mark.parametrize("call", WRONG_COUNTS, ids=str)
def test_wrong_argument_count_is_1582(ex, call):
    err = _error(ex, f"select {call}")
    written = call.split("(")[0]
    assert (err.code, err.sqlstate) == (1582, "42000")
    assert err.message == f"Incorrect parameter count in the call to native function '{written}'"


@pytest.mark.parametrize("call", WRONG_COUNTS[:6], ids=str)
def test_wrong_argument_count_without_rows(ex, call):
    """The count is checked as the call is resolved: a table with no matching row still fails."""
    assert _error(ex, f"select {call} from t where a = 99").code == 1582


@pytest.mark.parametrize(
    ("sql", "db", "code", "message"),
    [
        ("SELECT NO_SUCH_FUNCTION(1)", "test", 1305, "FUNCTION test.NO_SUCH_FUNCTION does not exist"),
        ("SELECT no_such_function(1)", "test", 1305, "FUNCTION test.no_such_function does not exist"),
        ("SELECT get_last_gtid_from_binlog('x')", "test", 1305,
         "FUNCTION test.get_last_gtid_from_binlog does not exist"),
        ("SELECT $1(1)", "test", 1305, "FUNCTION test.$1 does not exist"),
        ("SELECT a, f1(a) FROM t", "test", 1305, "FUNCTION test.f1 does not exist"),
        ("SELECT `my func`(1)", "test", 1305, "FUNCTION test.my func does not exist"),
        ("UPDATE t SET a = f2(a)", "test", 1305, "FUNCTION test.f2 does not exist"),
        ("SELECT randomblob(2) FROM t", "test", 1305, "FUNCTION test.randomblob does not exist"),
        ("SELECT inexistent()", None, 1046, "No database selected"),
        ("SELECT NO_SUCH_FUNCTION(1)", None, 1046, "No database selected"),
    ],
    ids=["upper", "lower", "udf-not-loaded", "dollar", "in-select-list", "quoted", "update", "sqlite-only",
         "no-db", "no-db-upper"],
)  # fmt: skip
def test_unknown_function(ex, sql, db, code, message):
    err = _error(ex, sql, db)
    assert (err.code, err.message) == (code, message)


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        ("CONCAT_WS(',', 'a', 'b')", "a,b"),
        ("FIELD('b', 'a', 'b')", 2),
        ("LOCATE('b', 'abc')", 2),
        ("ROUND(2.5)", 3),
        ("GREATEST(1, 3, 2)", 3),
    ],
    ids=str,
)
def test_calls_with_right_counts_still_run(ex, expr, expected):
    """The table's counts let every MySQL-valid call through (values: RM 8.4's examples of each function)."""
    assert ex.execute(classify(f"SELECT {expr}"), "test").rows[0][0] == expected


def test_session_bound_functions(open_server):
    """GTID functions (BOUND rows, engine/gtid/functions.py) and SOURCE_POS_WAIT (a ROLE row) bound per session;
    without the replica role SOURCE_POS_WAIT is NULL (RM 8.4 "Miscellaneous Functions")."""
    srv = open_server(gtid_mode="ON", enforce_gtid_consistency="ON")
    s = srv.session()
    sid = "3E11FA47-71CA-11E1-9E33-C80AA9429562"
    assert s.execute(f"SELECT GTID_SUBSET('{sid}:2', '{sid}:1-5')")[0].rows == [(1,)]
    assert s.execute(f"SELECT GTID_SUBTRACT('{sid}:1-5', '{sid}:2')")[0].rows == [
        (f"{sid.lower()}:1:3-5",)
    ]  # MySQL prints UUIDs in lower case
    assert s.execute(f"SELECT WAIT_FOR_EXECUTED_GTID_SET('{sid}:1', 0.01)")[0].rows == [(1,)]
    assert s.execute("SELECT SOURCE_POS_WAIT('binlog.000001', 4)")[0].rows == [(None,)]
    with pytest.raises(MySQLError) as info:
        s.execute("SELECT gtid_subset('x')")
    assert info.value.message == "Incorrect parameter count in the call to native function 'gtid_subset'"


@pytest.mark.parametrize(
    ("expr", "n"),
    [("CAST(1 AS TIME(7))", 7), ("CAST(1 AS TIME(31))", 31), ("CAST('2024-01-02' AS DATETIME(7))", 7)],
    ids=str,
)
def test_cast_precision_above_6_is_1426(ex, expr, n):
    """mysql-test type_temporal_fractional.result: a CAST's fsp above 6 is ER_TOO_BIG_PRECISION (found by the
    statement fuzz: a huge fsp was a Python ValueError)."""
    err = _error(ex, f"SELECT {expr}")
    assert (err.code, err.message) == (1426, f"Too-big precision {n} specified for 'CAST'. Maximum is 6.")
