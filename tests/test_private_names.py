"""No module in src/gtidkit reaches into another module's private (leading-underscore) names (issue 7, section 3).

A static AST walk over every module, flagging:

(a) ``from gtidkit.x import _name`` (or a relative import of ``_name``): a private name imported from another module;
(b) ``obj._attr`` where ``obj`` is not ``self``/``cls`` and the module itself never defines ``_attr`` (as a def or
    class name, an assignment target such as a module or class attribute, or a ``self._attr``/``cls._attr``
    assignment). Same-class access such as ``other._map`` inside gtid_set.py stays allowed.

Dunder names (``__init__``, ``__all__``) are not private. Third-party privates we cannot avoid are listed in
``ALLOWED`` with the reason.
"""

from __future__ import annotations

import ast

from tests.source_tree import SRC, nodes, python_files
from tests.source_tree import tree as parsed

#: (module path relative to src/gtidkit, private attribute) -> why the access is allowed.
ALLOWED: dict[tuple[str, str], str] = {
    ("pipeline/app.py", "_active_spark_context"): (
        "pyspark's SparkContext._active_spark_context is the only way to see whether a context is already running"
    ),
    ("engine/sql/executor.py", "_meta"): (
        "sqlglot's Expression.meta property creates the dict on first read; reading _meta avoids that per node"
    ),
    # PyMySQL has no public API for raw commands: the replica's receiver sends COM_REGISTER_SLAVE and
    # COM_BINLOG_DUMP_GTID and reads the event packets the way python-mysql-replication does
    (
        "replication/receiver.py",
        "_execute_command",
    ): "PyMySQL: send a raw command packet (COM_BINLOG_DUMP_GTID)",
    ("cli/worker.py", "_exit"): "os._exit: a worker dies at once with its supervisor (no clean shutdown)",
    ("cli/fork_server.py", "_exit"): (
        "os._exit: a forked child (the fork server's intermediate and worker) must never return into its parent's "
        "code nor run its atexit handlers"
    ),
    ("replication/receiver.py", "_read_packet"): "PyMySQL: read one (possibly multi-packet) event packet",
    (
        "replication/receiver.py",
        "_force_close",
    ): "PyMySQL: close without sending COM_QUIT on a dead connection",
}


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _own_receiver(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id in ("self", "cls")


def _defined(tree: ast.Module) -> set[str]:
    """Names this module defines: defs, classes, assignment targets, ``self._x``/``cls._x`` assignments."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
        elif (
            isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and _own_receiver(node.value)
        ):
            out.add(node.attr)
    return out


def violations(source: str | ast.Module, rel: str) -> list[str]:
    """Every cross-module private-name use in module ``source`` (its text or syntax tree; ``rel``: its path under
    src/gtidkit)."""
    tree = source if isinstance(source, ast.Module) else ast.parse(source, filename=rel)
    defined = _defined(tree)
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (
            node.level > 0 or (node.module or "").split(".")[0] == "gtidkit"
        ):
            for alias in node.names:
                if _private(alias.name):
                    out.append(
                        f"{rel}:{node.lineno}: imports {alias.name} from {'.' * node.level}{node.module or ''}"
                    )
        elif (
            isinstance(node, ast.Attribute)
            and _private(node.attr)
            and not _own_receiver(node.value)
            and node.attr not in defined
            and (rel, node.attr) not in ALLOWED
        ):
            out.append(f"{rel}:{node.lineno}: uses {ast.unparse(node.value)}.{node.attr}")
    return sorted(out)


def test_no_cross_module_private_names() -> None:
    found = [v for p in python_files() for v in violations(parsed(p), p.relative_to(SRC).as_posix())]
    assert found == []


def test_allowlist_entries_are_still_needed() -> None:
    # A stale entry would silently allow a future cross-module access of the same name.
    used: set[tuple[str, str]] = set()
    for rel, attr in ALLOWED:
        if any(isinstance(n, ast.Attribute) and n.attr == attr for n in nodes(SRC / rel)):
            used.add((rel, attr))
    assert used == set(ALLOWED)


def test_scanner_flags_both_kinds() -> None:
    # The rules themselves, on a module written here: a private import, a foreign private attribute, and the
    # accesses that stay legal (own attributes through another instance, self/cls, dunders).
    source = (
        "from gtidkit.engine.sql.dml import _key_text\n"
        "class A:\n"
        "    def __init__(self):\n"
        "        self._mine = 1\n"
        "    def f(self, other, server):\n"
        "        return other._mine, self._x, server._internal, type(self).__name__\n"
    )
    assert violations(source, "probe.py") == [
        "probe.py:1: imports _key_text from gtidkit.engine.sql.dml",
        "probe.py:6: uses server._internal",
    ]
