"""One table of statement specs, one lifecycle (issue 20).

Every statement kind, form and parser command has a spec with a handler; the lifecycle steps (GTID pre-checks,
implicit commit, rollback on failure ...) are written once, in ``engine/statements/dispatch.py``, and no handler
module runs one itself (an AST walk keeps it so); a handler registered by a higher layer runs inside the same
lifecycle, in MySQL's order (``sql/sql_parse.cc`` ``mysql_execute_command``: ``gtid_pre_statement_checks`` before the
implicit commit, both before the statement's own work; RM8 "Statements That Cause an Implicit Commit").
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

import gtidkit.engine.statements.dispatch  # noqa: F401 - registers the engine's handlers
from gtidkit.engine.results import StatementResult
from gtidkit.engine.statements import classify as classify_mod
from gtidkit.engine.statements.classify import StatementKind, classify
from gtidkit.engine.statements.specs import DEFAULT, SPECS
from gtidkit.errors import MySQLError

SRC = Path(__file__).resolve().parents[2] / "src" / "gtidkit"

#: the transaction operations only the lifecycle calls (engine/statements/transaction.py)
LIFECYCLE_STEPS = frozenset(
    {"pre_statement", "implicit_commit", "statement_failed", "reacquire_anonymous", "check_writable"}
)
#: modules that hold statement handlers: the engine's statements, and the registration points above the engine
HANDLER_MODULES = sorted(
    [
        *(p for p in (SRC / "engine" / "statements").glob("*.py") if p.name != "transaction.py"),
        SRC / "protocol" / "admin.py",
        SRC / "replication" / "statements.py",
        SRC / "replication" / "source.py",
    ]
)
#: the functions of dispatch.py that are the lifecycle
LIFECYCLE_FUNCTIONS = frozenset({"dispatch", "_run", "_failed"})

COMMANDS = sorted({command for _, _, command in classify_mod._RECOGNISER_SRC})


@pytest.mark.parametrize(
    "key", [*(k.value for k in StatementKind), "empty", "temporary_ddl", "create_start_transaction"]
)
def test_every_kind_and_form_has_a_handler(key: str) -> None:
    spec = SPECS.spec(key)
    assert spec is not DEFAULT and spec.handler is not None


@pytest.mark.parametrize("command", COMMANDS)
def test_every_parser_command_has_a_handler(command: str) -> None:
    assert SPECS.spec(command).handler is not None or SPECS.spec(command) is DEFAULT
    # a command without a row of its own runs its kind's row
    kind = next(k for _, k, c in classify_mod._RECOGNISER_SRC if c == command)
    assert (
        SPECS.spec(command) if SPECS.spec(command) is not DEFAULT else SPECS.spec(kind)
    ).handler is not None


def test_every_row_has_a_handler() -> None:
    assert [key for key in SPECS.key_list() if SPECS.spec(key).handler is None] == []


def _calls(tree: ast.AST) -> list[tuple[str, int]]:
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if name in LIFECYCLE_STEPS:
                out.append((name, node.lineno))
    return out


@pytest.mark.parametrize("path", HANDLER_MODULES, ids=lambda p: str(p.relative_to(SRC)))
def test_no_handler_module_runs_a_lifecycle_step(path: Path) -> None:
    tree = ast.parse(path.read_text(), str(path))
    if path.name == "dispatch.py" and path.parent.name == "statements":
        outside = [
            node
            for node in tree.body
            if not (isinstance(node, ast.FunctionDef) and node.name in LIFECYCLE_FUNCTIONS)
        ]
        found = [c for node in outside for c in _calls(node)]
    else:
        found = _calls(tree)
    assert found == [], f"{path.name} runs lifecycle steps itself: {found}"


def test_registered_handlers_are_in_handler_modules() -> None:
    """Every handler of the engine's table lives in a module the AST walk above covers."""
    covered = {str(p) for p in HANDLER_MODULES}
    for key in SPECS.key_list():
        handler = SPECS.spec(key).handler
        assert inspect.getsourcefile(handler) in covered, (key, handler)


def test_a_registered_handler_runs_inside_the_lifecycle(open_server) -> None:
    """A higher layer's handler for an implicitly committing statement (CHANGE REPLICATION SOURCE) runs after the
    GTID pre-checks and the implicit commit: 1837 while gtid_next is UNDEFINED before it is called; the open
    transaction committed when it is; and its failure rolls an autocommitted statement back."""
    server = open_server(gtid_mode="ON", enforce_gtid_consistency="ON", log_bin=True)
    s = server.session()
    s.execute("CREATE DATABASE test")
    s.execute("USE test")
    s.execute("CREATE TABLE t (a INT PRIMARY KEY)")
    seen: list[tuple[bool, int]] = []

    def change_source(session, stmt) -> StatementResult:
        seen.append((session.in_transaction(), len(session.execute("SELECT * FROM t")[0].rows)))
        if "fail" in stmt.text:
            raise MySQLError(1210, "HY000", "Incorrect arguments to CHANGE REPLICATION SOURCE")
        return StatementResult()

    server.statements.register("change_replication_source", change_source)
    s.execute("BEGIN")
    s.execute("INSERT INTO t VALUES (1)")
    s.execute("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h'")
    assert seen == [(False, 1)]  # the INSERT was committed before the handler ran
    uuid = server.server_uuid
    s.execute(f"SET GTID_NEXT = '{uuid}:50'")
    s.execute("BEGIN")
    with pytest.raises(MySQLError) as err:  # 1778 before the handler: implicit commit with an assigned GTID
        s.execute("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h'")
    assert err.value.code == 1778 and len(seen) == 1
    s.execute("COMMIT")  # gtid_next is UNDEFINED now
    with pytest.raises(MySQLError) as err:
        s.execute("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h'")
    assert err.value.code == 1837 and len(seen) == 1
    s.execute(f"SET GTID_NEXT = '{uuid}:51'")
    with pytest.raises(MySQLError) as err:
        s.execute("CHANGE REPLICATION SOURCE TO SOURCE_HOST='fail'")
    assert err.value.code == 1210 and len(seen) == 2
    # the failed autocommitted statement released its GTID (ha_rollback_trans): nobody owns it, it is not executed
    assert s.execute("SELECT @@GLOBAL.gtid_owned")[0].rows == [("",)]
    assert f"{uuid}:51" not in str(s.execute("SELECT @@GLOBAL.gtid_executed")[0].rows[0][0])


def test_innocent_statements_take_no_gtid(open_server) -> None:
    """SELECT / SHOW / SET run while gtid_next is UNDEFINED (``is_stmt_innocent``); CHECKSUM TABLE does not."""
    server = open_server(gtid_mode="ON", enforce_gtid_consistency="ON", log_bin=True)
    s = server.session()
    s.execute("CREATE DATABASE test")
    s.execute("USE test")
    s.execute("CREATE TABLE t (a INT PRIMARY KEY)")
    s.execute(f"SET GTID_NEXT = '{server.server_uuid}:7'")
    s.execute("INSERT INTO t VALUES (1)")  # gtid_next is UNDEFINED after the commit
    for text in ("SELECT 1", "SHOW VARIABLES LIKE 'gtid_next'", "SET @a = 1", "USE test"):
        s.execute(text)
    with pytest.raises(MySQLError) as err:
        s.execute("CHECKSUM TABLE t")
    assert err.value.code == 1837
    assert classify("SELECT 1").spec.innocent and not classify("CHECKSUM TABLE t").spec.innocent


@pytest.mark.parametrize(
    "text", ["CREATE TEMPORARY TABLE tt (a INT)", "CHECKSUM TABLE t"], ids=["create_temporary", "checksum"]
)
def test_no_1778_for_a_statement_that_does_not_commit(open_server, text: str) -> None:
    """1778 is for statements that commit the open transaction (``gtid_pre_statement_checks`` asks
    ``stmt_causes_implicit_commit``, false for CREATE / DROP TEMPORARY TABLE and for CHECKSUM TABLE): inside BEGIN
    with gtid_next=UUID:N they run, and the transaction commits under that GTID."""
    server = open_server(gtid_mode="ON", enforce_gtid_consistency="ON", log_bin=True)
    s = server.session()
    s.execute("CREATE DATABASE test")
    s.execute("USE test")
    s.execute("CREATE TABLE t (a INT PRIMARY KEY)")
    s.execute(f"SET GTID_NEXT = '{server.server_uuid}:9'")
    s.execute("BEGIN")
    s.execute("INSERT INTO t VALUES (1)")
    s.execute(text)
    s.execute("COMMIT")
    assert f"{server.server_uuid}:1-" in str(s.execute("SELECT @@GLOBAL.gtid_executed")[0].rows[0][0])
    assert ":9" in str(s.execute("SELECT @@GLOBAL.gtid_executed")[0].rows[0][0])
