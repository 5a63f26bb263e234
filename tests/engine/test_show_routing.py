"""Every SHOW answered in one place (issue 20): the SHOW parser table (``classify.SHOW_PARSERS``) names each SHOW the
server answers, ``engine/statements/show.py``'s ``SHOWS`` gives each command exactly one provider (the engine's, or
one a higher layer registers at start), and no other module matches statement text against ``SHOW ...``.

The forms and their arguments are MySQL's grammar (``sql/sql_yacc.yy`` ``show_param``, ``describe_command``; RM8
"SHOW Statements").
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

from gtidkit.engine.statements.classify import SHOW_PARSERS, classify
from gtidkit.engine.statements.show import ENGINE, PROTOCOL, REPLICATION, SHOWS
from gtidkit.errors import MySQLError
from tests.source_tree import SRC, nodes, python_files

#: every command of the parser table
COMMANDS = sorted({command for command, _words, _pattern in SHOW_PARSERS})

#: text -> (command, arguments the parsed SHOW carries): one line per SHOW form
CASES: list[tuple[str, str, dict[str, Any]]] = [
    ("SHOW BINARY LOG STATUS", "binary_log_status", {"master": False}),
    ("SHOW MASTER STATUS", "binary_log_status", {"master": True}),
    ("SHOW BINARY LOGS", "binary_logs", {}),
    ("SHOW MASTER LOGS", "binary_logs", {}),
    (
        "SHOW BINLOG EVENTS IN 'binlog.000002' FROM 4 LIMIT 1, 2",
        "binlog_events",
        {"file": "binlog.000002", "pos": 4, "off": 1, "cnt": 2},
    ),
    ("SHOW RELAYLOG EVENTS LIMIT 3 FOR CHANNEL ''", "relaylog_events", {"cnt": 3}),
    ("SHOW REPLICA STATUS", "replica_status", {"slave": False}),
    ("SHOW SLAVE STATUS FOR CHANNEL ''", "replica_status", {"slave": True}),
    ("SHOW REPLICAS", "replicas", {"slave": False}),
    ("SHOW SLAVE HOSTS", "replicas", {"slave": True}),
    ("SHOW WARNINGS LIMIT 1, 2", "warnings", {"off": 1, "cnt": 2}),
    ("SHOW ERRORS LIMIT 5", "errors", {"cnt": 5}),
    ("SHOW COUNT(*) WARNINGS", "count_warnings", {}),
    ("SHOW COUNT ( * ) ERRORS", "count_errors", {}),
    ("SHOW GLOBAL VARIABLES LIKE 'gtid%'", "variables", {"scope": "GLOBAL", "like": "'gtid%'"}),
    ("show session variables where Variable_name = 'x'", "variables", {"where": "Variable_name = 'x'"}),
    ("SHOW GLOBAL STATUS LIKE 'Threads_running'", "status", {"like": "'Threads_running'"}),
    ("SHOW FULL PROCESSLIST", "processlist", {"full": True}),
    ("SHOW SCHEMAS LIKE 'd%'", "databases", {"like": "'d%'"}),
    ("SHOW FULL TABLES FROM `my db` LIKE 't%'", "tables", {"full": True, "db": "my db", "like": "'t%'"}),
    ("SHOW COLUMNS FROM t IN d LIKE 'a%'", "columns", {"table": "t", "db": "d", "like": "'a%'"}),
    ("DESCRIBE d.t", "columns", {"table": "d.t"}),
    ("EXPLAIN t", "columns", {"table": "t"}),
    ("SHOW CREATE VIEW v1", "create_table", {"object": "VIEW", "table": "v1"}),
    ("SHOW KEYS IN t FROM d", "index", {"table": "t", "db": "d"}),
    ("SHOW TABLE STATUS IN d WHERE Rows > 1", "table_status", {"db": "d", "where": "Rows > 1"}),
    ("SHOW STORAGE ENGINES", "engines", {}),
    ("SHOW ENGINE INNODB STATUS", "engine_innodb_status", {}),
    ("SHOW ENGINE `InnoDB` STATUS", "engine_innodb_status", {}),
    ("SHOW PLUGINS", "plugins", {}),
    ("SHOW CREATE DATABASE IF NOT EXISTS `d1`", "create_database", {"db": "d1", "if_not_exists": True}),
    ("SHOW TRIGGERS FROM d LIKE 't1'", "triggers", {"db": "d"}),
    ("SHOW EVENTS", "events", {}),
    ("SHOW FUNCTION STATUS WHERE Db = 'd'", "routine_status", {}),
    ("SHOW GRANTS FOR CURRENT_USER()", "grants", {}),
    ("SHOW CREATE USER 'u'@'%'", "create_user", {}),
]


@pytest.mark.parametrize(("text", "command", "args"), CASES, ids=[c[0] for c in CASES])
def test_show_parses(text: str, command: str, args: dict[str, Any]) -> None:
    stmt = classify(text)
    assert (stmt.kind, stmt.command) == ("show", command)
    assert {k: stmt.info.get(k) for k in args} == args


def test_every_parser_command_has_a_case() -> None:
    assert {c[1] for c in CASES} == set(COMMANDS)


@pytest.mark.parametrize(
    "text", ["SHOW CHARACTER SET", "SHOW TABLES FROM", "SHOW FULL", "SHOW", "DESCRIBE"], ids=str
)
def test_other_shows_parse_to_no_command(text: str) -> None:
    """Valid MySQL the engine does not answer, and bad syntax: no command (its handler answers 1235 / 1064)."""
    stmt = classify(text)
    assert (stmt.kind, stmt.command) == ("show", None)


def _registrations() -> dict[str, list[str]]:
    """SHOW command -> the modules that call ``provide_show("<command>", ...)``."""
    found: dict[str, list[str]] = {}
    for path in python_files():
        for node in nodes(path):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, (ast.Attribute, ast.Name))
                and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id)
                == "provide_show"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                found.setdefault(node.args[0].value, []).append(path.relative_to(SRC).as_posix())
    return found


def test_every_show_command_has_exactly_one_provider() -> None:
    """Each command of the parser table has one row in SHOWS (and SHOWS nothing else); an engine row carries its
    provider, a protocol / replication row is registered by exactly one call in that package."""
    assert sorted(SHOWS) == COMMANDS
    registered = _registrations()
    for command in COMMANDS:
        row = SHOWS[command]
        if row.owner == ENGINE:
            assert callable(row.provider), command
            assert command not in registered, (command, registered.get(command))
        else:
            assert row.owner in (PROTOCOL, REPLICATION), command
            assert row.provider is None, command
            sites = registered.get(command, [])
            assert len(sites) == 1 and sites[0].startswith(row.owner + "/"), (command, sites)
    assert set(registered) <= set(COMMANDS), registered


def test_the_layers_register_their_shows(tmp_path) -> None:
    """A real engine server with the wire server and replication plugged in, as ``gtidkit server`` builds it:
    every SHOW a higher layer owns has its provider registered on the server, exactly those."""
    from gtidkit.engine import Server
    from gtidkit.protocol.server import WireServer
    from gtidkit.replication import install

    engine = Server.open(tmp_path / "data", log_bin=False, server_id=7)
    try:
        wire = WireServer(engine, str(tmp_path / "data"), port=0)
        repl = install(engine, wire)
        try:
            external = {c for c in COMMANDS if SHOWS[c].owner != ENGINE}
            assert set(engine.show_providers) == external
        finally:
            repl.shutdown()
    finally:
        engine.shutdown()


def test_engine_answers_its_shows_and_refuses_unprovided_ones(open_server) -> None:
    """Through Session.execute: the engine's SHOWs answer; a SHOW whose layer registered nothing is 1235 (as before
    the layers existed); Server.provide_show takes only the SHOWs a higher layer owns."""
    from gtidkit.engine.results import StatementResult

    server = open_server(log_bin=True, server_id=3)
    s = server.session()
    s.execute("CREATE DATABASE d")
    s.execute("CREATE TABLE d.t (a INT PRIMARY KEY)")
    assert s.execute("SHOW TABLES FROM d")[-1].rows == [("t",)]
    assert [c.name for c in s.execute("SHOW TABLES FROM d")[-1].columns] == ["Tables_in_d"]
    assert s.execute("SHOW VARIABLES LIKE 'server_id'")[-1].rows == [("server_id", "3")]
    assert s.execute("SHOW BINARY LOGS")[-1].rows[0][0] == "binlog.000001"
    for text in ("SHOW PROCESSLIST", "SHOW REPLICA STATUS", "SHOW REPLICAS", "SHOW RELAYLOG EVENTS"):
        with pytest.raises(MySQLError) as err:
            s.execute(text)
        assert err.value.code == 1235, text
    with pytest.raises(MySQLError) as err:
        s.execute("SHOW TABLES LIKE")
    assert err.value.code in (1064, 1235)
    for command in ("tables", "no_such_show"):
        with pytest.raises(ValueError):
            server.provide_show(command, lambda session, stmt: StatementResult())
    server.provide_show(
        "replicas", lambda session, stmt: StatementResult(affected_rows=stmt.info["slave"] + 1)
    )
    assert s.execute("SHOW SLAVE HOSTS")[-1].affected_rows == 2


#: a statement head: anchors and whitespace, then SHOW and a space (a pattern's ``\s`` too)
_SHOW_HEAD = re.compile(r"^(?:\^|\\A|\\s\*|\\s\+|\s|\(\?[a-zA-Z]+\)|\(\?:|\()*SHOW(?:\s|\\s)", re.IGNORECASE)
#: calls whose string arguments name a statement without matching one: MySQL's messages, statements sent to a server
_NAMING_CALLS = {
    "mysql_error",
    "message",
    "not_supported",
    "parse_error_at",
    "_deprecated",
    "Condition",
    "execute",
}
#: the parser, and the modules whose SHOW texts are not statements this server parses (each says why)
_ALLOWED = {
    "engine/statements/classify.py": "the statement parser: its SHOW parser table",
    "engine/accounts/grants.py": "privilege names (SHOW DATABASES, SHOW VIEW), not statements",
    "engine/sql/unsupported.py": "the refusal list: which valid MySQL a text no parser row took is (1235 naming it, "
    "else 1064), the lifecycle's table (issue 20: the refusal list becomes specs)",
}


def _show_texts(path: Path) -> list[tuple[int, str]]:
    skip: set[int] = set()
    for node in nodes(path):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                skip.add(id(first.value))  # a docstring
        if isinstance(node, ast.Call):
            func = node.func
            name = (
                func.attr
                if isinstance(func, ast.Attribute)
                else func.id
                if isinstance(func, ast.Name)
                else ""
            )
            if name in _NAMING_CALLS:
                for arg in node.args:
                    skip.update(id(n) for n in ast.walk(arg))
    out = []
    for node in nodes(path):
        if id(node) in skip:
            continue
        text = None
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
        elif isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
            text = str(node.values[0].value)
            skip.update(id(n) for n in node.values)
        if text is not None and _SHOW_HEAD.match(text):
            out.append((node.lineno, text))
    return out


def test_the_detector_sees_show_texts(tmp_path) -> None:
    sample = tmp_path / "m.py"
    sample.write_text(
        '"""SHOW TABLES in a docstring."""\nimport re\n'
        'A = re.compile(r"^\\s*SHOW\\s+TABLES")\nB = "x".startswith("SHOW SLAVE")\n'
        'C = mysql_error(1235, "SHOW PROCESSLIST")\nD = cur.execute("SHOW BINARY LOGS")\nE = "SHOWCASE"\n'
    )
    assert [line for line, _ in _show_texts(sample)] == [3, 4]


def test_no_module_but_the_parser_matches_show_text() -> None:
    """No module other than the parser holds a SHOW statement's text to match against (a regex, a startswith, a
    table of spellings): what a SHOW is comes from its parsed command and arguments only."""
    found = {}
    for path in python_files():
        rel = path.relative_to(SRC).as_posix()
        if rel in _ALLOWED:
            continue
        hits = _show_texts(path)
        if hits:
            found[rel] = hits
    assert not found, found
    stale = [rel for rel in _ALLOWED if not _show_texts(SRC / rel)]
    assert not stale, stale
