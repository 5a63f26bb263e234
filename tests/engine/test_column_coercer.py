"""``values.column_coercer`` (what an INSERT plan stores its values through, dml.py ``_Facts``) against
``values.coerce``, which stays the reference: the same stored value, the same warnings and notes, the same error,
in strict and non-strict mode, for the column types whose common values it decides without ``coerce``'s tests and
for some it hands straight to ``coerce``."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gtidkit.engine.sql.catalog import ColumnDef
from gtidkit.engine.sql.values import FieldStore, coerce, column_coercer
from gtidkit.errors import MySQLError

COLUMNS = {
    "tinyint": ColumnDef("a", "tinyint"),
    "tinyint unsigned": ColumnDef("a", "tinyint", unsigned=True),
    "int": ColumnDef("a", "int"),
    "bigint": ColumnDef("a", "bigint"),
    "bigint unsigned": ColumnDef("a", "bigint", unsigned=True),
    "year": ColumnDef("a", "year"),
    "char(5)": ColumnDef("a", "char", length=5),
    "char(5) utf8mb4": ColumnDef("a", "char", length=5, charset="utf8mb4"),
    "varchar(10)": ColumnDef("a", "varchar", length=10),
    "varchar(10) utf8mb3": ColumnDef("a", "varchar", length=10, charset="utf8mb3"),
    "varchar(10) latin1": ColumnDef("a", "varchar", length=10, charset="latin1"),
    "text": ColumnDef("a", "text"),
    "enum": ColumnDef("a", "enum", members=("x", "y")),
    "decimal(5,2)": ColumnDef("a", "decimal", precision=5, scale=2),
    "varbinary(4)": ColumnDef("a", "varbinary", length=4),
}

_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**64), max_value=2**64),
    st.sampled_from([0, -1, 127, 128, -128, -129, 255, 256, 2**31 - 1, 2**31, 2**63 - 1, 2**63, 2**64 - 1]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=14),
    st.text(alphabet="ab ", max_size=12),
    st.sampled_from(["x", "y ", "hello", "hello ", "hello  ", "héllo", "12", " 7", "3a", "", "\udcff"]),
    st.binary(max_size=12),
)


def _outcome(fn: Any, strict: bool) -> tuple[Any, ...]:
    """(stored value and its type, warnings) or (the error's code and message, warnings); any other exception as
    its type and text (the coercer must fail exactly as ``coerce`` does)."""
    store = FieldStore(strict=strict)
    try:
        v = fn(store)
    except MySQLError as err:
        return ("error", err.code, err.message, store.warnings)
    except Exception as err:  # noqa: BLE001 - compared, not swallowed: both sides must raise the same
        return ("exception", type(err), str(err), store.warnings)
    return ("value", type(v), v, store.warnings)


@pytest.mark.parametrize("strict", [True, False], ids=["strict", "non-strict"])
@pytest.mark.parametrize("name", list(COLUMNS))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=_VALUES, row=st.integers(min_value=1, max_value=3))
def test_column_coercer_is_coerce(name: str, strict: bool, value: Any, row: int) -> None:
    col = COLUMNS[name]
    fast = column_coercer(col, "t")
    expected = _outcome(lambda store: coerce(col, value, row, store, "t"), strict)
    assert _outcome(lambda store: fast(value, row, store), strict) == expected


@pytest.mark.parametrize(
    ("name", "value", "stored"),
    [
        ("int", 7, 7),
        ("tinyint unsigned", 255, 255),
        ("char(5)", "ab  ", "ab"),
        ("varchar(10)", "ab  ", "ab  "),
        ("text", "x" * 70000, None),  # TEXT holds 65535 characters: coerce's 1406 in strict mode
    ],
    ids=["int", "tinyint-unsigned-max", "char-strips", "varchar-keeps", "text-too-long"],
)
def test_column_coercer_examples(name: str, value: Any, stored: Any) -> None:
    col = COLUMNS[name]
    fast = column_coercer(col, "t")
    if stored is None:
        with pytest.raises(MySQLError) as err:
            fast(value, 1, FieldStore(strict=True))
        assert err.value.code == 1406
    else:
        assert fast(value, 1, FieldStore(strict=True)) == stored


@pytest.mark.parametrize("column", ["DECIMAL(5,2)", "DOUBLE", "FLOAT", "INT"])
def test_prepared_insert_of_bytes_that_are_no_utf8_into_a_number_column(column: str, tmp_path: Any) -> None:
    """A binary parameter that is no UTF-8 (``b'\\x80'``) into a numeric column fails as the same value's text with
    U+FFFD does (1366 / 1265 with MySQL's message), not with a Python UnicodeDecodeError (DECIMAL and FLOAT / DOUBLE
    decoded the bytes strictly)."""
    from gtidkit.engine.server import Server

    server = Server.open(tmp_path)
    try:
        s = server.session()
        s.execute(f"CREATE DATABASE d; USE d; CREATE TABLE t (a {column})")
        insert = s.prepare("INSERT INTO t VALUES (?)")
        outcomes = []
        for value in (b"1\x80", "1\ufffd"):
            try:
                s.execute_prepared(insert, [value])
                outcomes.append(("ok", s.execute("SELECT a FROM t")[0].rows))
                s.execute("DELETE FROM t")
            except MySQLError as err:
                outcomes.append(("error", err.code, err.message))
        assert outcomes[0] == outcomes[1]
    finally:
        server.shutdown()
