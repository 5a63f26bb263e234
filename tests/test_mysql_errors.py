"""The one error-message table (gtidkit.mysql_errors): well-formed rows and MySQL's texts for known codes."""

from __future__ import annotations

import re

import pytest

from gtidkit.errors import MySQLError
from gtidkit.mysql_errors import ER, message, mysql_error
from tests.source_tree import SRC, nodes, python_files


def test_names_unique_and_sqlstates_well_formed() -> None:
    names = [spec.name for spec in ER.values()]
    assert len(names) == len(set(names))
    for spec in ER.values():
        assert re.fullmatch(r"[0-9A-Z]{5}", spec.sqlstate), spec


@pytest.mark.parametrize("code", sorted(ER))
def test_templates_take_their_slots(code: int) -> None:
    slots = ER[code].template.replace("%%", "").count("%")
    assert "%" not in message(code, *(["x"] * slots)).replace("%%", "")
    if slots:
        with pytest.raises(TypeError):
            message(code)


@pytest.mark.parametrize(
    ("code", "args", "text", "sqlstate"),
    [
        # MySQL 8.4 mysql-test r/*.result texts (e.g. suite/binlog_gtid gtid_next checks, sys_vars gtid_purged)
        (
            1790,
            ("3e11fa47-71ca-11e1-9e33-c80aa9429562:1",),
            (
                "@@SESSION.GTID_NEXT cannot be changed by a client that owns a GTID. The client owns "
                "3e11fa47-71ca-11e1-9e33-c80aa9429562:1. Ownership is released on COMMIT or ROLLBACK."
            ),
            "HY000",
        ),
        (1231, ("gtid_next", "NULL"), "Variable 'gtid_next' can't be set to the value of 'NULL'", "42000"),
        (
            1229,
            ("gtid_mode",),
            "Variable 'gtid_mode' is a GLOBAL variable and should be set with SET GLOBAL",
            "HY000",
        ),
        (1235, ("LOAD DATA",), "This version of MySQL doesn't yet support 'LOAD DATA'", "42000"),
    ],
)
def test_known_texts(code: int, args: tuple, text: str, sqlstate: str) -> None:
    err = mysql_error(code, *args)
    assert isinstance(err, MySQLError)
    assert (err.code, err.message, err.sqlstate) == (code, text, sqlstate)


def test_text_of_another_code() -> None:
    # sql/sql_time.cc make_truncated_value_warning: code 1292 with 1366's text
    err = mysql_error(1292, "datetime", "2024-13-01", "d", 1, text_of=1366)
    assert (err.code, err.sqlstate) == (1292, "22007")
    assert err.message == "Incorrect datetime value: '2024-13-01' for column 'd' at row 1"


#: MySQLError built from a literal outside the table: (file, code) -> why it is not the table's text.
NOT_FROM_TABLE = {
    (
        "engine/sql/executor.py",
        1146,
    ): "SQLite's 'no such table' names one object, not MySQL's schema.table pair",
    ("engine/sql/rowimage.py", 1264): "a DECIMAL row-image value out of range has no column name to report",
    ("engine/sql/rowimage.py", 1677): "table-map column count mismatch: our wording, MySQL stops with 1677",
    (
        "engine/binlog/error_action.py",
        "EE_WRITE",
    ): "mysys EE_WRITE (3) is a client-library code, not a server one",
    (
        "replication/forward.py",
        "code",
    ): "an error the process with the replication threads made from the table, carried to the asking worker as is",
}


def test_every_mysql_error_comes_from_the_table() -> None:
    """Issue 7, 'one error-message table': no module builds a MySQL error text of its own."""
    import ast

    found = []
    for path in python_files():
        rel = path.relative_to(SRC).as_posix()
        if rel in {"errors.py", "mysql_errors.py"}:
            continue
        for node in nodes(path):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "MySQLError" and node.args:
                first = node.args[0]
                key = first.value if isinstance(first, ast.Constant) else getattr(first, "id", "*")
                if (rel, key) not in NOT_FROM_TABLE:
                    found.append(f"{rel}:{node.lineno} MySQLError({key}, ...)")
    assert not found, "use gtidkit.mysql_errors.mysql_error():\n" + "\n".join(found)
