"""One server-version constant (gtidkit.version): every place that says which MySQL we are reads it, and no module
but the tables of real MySQL versions spells a version of its own."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from gtidkit.binlog import read_events
from gtidkit.binlog.events.control import FormatDescriptionEvent
from gtidkit.engine import Server
from gtidkit.generate import generate_fleet
from gtidkit.version import MYSQL_VERSION, SERVER_VERSION
from tests.source_tree import SRC, nodes, python_files

#: Modules allowed to spell versions: the constant itself and the tables of what real MySQL releases wrote.
ALLOWED = {"version.py", "binlog/versions.py"}
VERSION_RE = re.compile(r"^[5-9]\.\d+\.\d+")


def _version_literals(path: Path) -> list[str]:
    docstrings = {
        id(node.body[0].value)
        for node in nodes(path)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node.value
        for node in nodes(path)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and VERSION_RE.match(node.value)
    ]


@pytest.mark.parametrize("path", python_files(), ids=lambda p: str(p.relative_to(SRC)))
def test_no_version_literal_outside_the_constant(path: Path) -> None:
    if path.relative_to(SRC).as_posix() in ALLOWED:
        return
    assert _version_literals(path) == []


def test_everything_we_write_says_the_one_version(tmp_path: Path) -> None:
    assert SERVER_VERSION.startswith(MYSQL_VERSION)
    assert FormatDescriptionEvent.for_server().server_version == MYSQL_VERSION
    srv = Server.open(tmp_path / "d", gtid_mode="ON", log_bin=True)
    try:
        s = srv.session()
        assert s.execute("SELECT VERSION(), @@version")[-1].rows == [(SERVER_VERSION, SERVER_VERSION)]
        path = srv.binlog.path(srv.binlog.active)
        srv.binlog.writer.flush(fsync=False)
        first = next(iter(read_events(path)))
        assert first.event.server_version == MYSQL_VERSION
    finally:
        srv.shutdown()
    generate_fleet(tmp_path / "f", seed=2, replicas=0, transactions=20)
    gen = next(iter(read_events(min((tmp_path / "f").rglob("binlog.0*")))))
    assert gen.event.server_version == MYSQL_VERSION
