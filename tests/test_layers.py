"""The import direction of STYLE.md §3, checked by walking every import statement in src/gtidkit.

gtid <- binlog <- engine <- protocol <- replication <- cli; pipeline rests on gtid and binlog only, and only cli
imports pipeline. generate (synthetic binlogs) rests on gtid and binlog; only cli and the pipeline's demo import
it. Codecs (pure modules) never import the edge modules of their package.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.source_tree import SRC, nodes, python_files

#: package -> packages of ours it may import (besides itself and gtidkit.errors / gtidkit top level).
ALLOWED = {
    "gtid": set(),
    "binlog": {"gtid"},
    "engine": {"gtid", "binlog"},
    "protocol": {"gtid", "binlog", "engine"},
    "replication": {"gtid", "binlog", "engine", "protocol"},
    "pipeline": {"gtid", "binlog"},
    "generate": {"gtid", "binlog"},
    "cli": {"gtid", "binlog", "engine", "protocol", "replication", "pipeline", "generate"},
}
#: module (path under src/gtidkit) -> extra packages it alone may import: the pipeline demo generates its fleet.
EXCEPTIONS = {"pipeline/demo.py": {"generate"}}

#: modules that do I/O (the edges) -- pure modules of the same package must not import them.
EDGES = {"binlog": {"file", "writer"}, "engine": {"storage"}, "protocol": {"server"}}
#: pure codec modules (no I/O at all).
PURE = {
    "binlog": {"constants", "versions", "cursor", "header", "codec", "stream", "transactions", "events"},
}


def _imports(path: Path) -> list[str]:
    pkg_parts = path.relative_to(SRC.parent).with_suffix("").parts[:-1]
    names: list[str] = []
    for node in nodes(path):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(pkg_parts[: len(pkg_parts) - node.level + 1])
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            names.append(mod)
            names.extend(f"{mod}.{alias.name}" for alias in node.names)
    return names


def _modules() -> list[Path]:
    return list(python_files())


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(SRC)))
def test_import_direction(path: Path) -> None:
    rel = path.relative_to(SRC)
    if len(rel.parts) == 1:
        return  # gtidkit/__init__.py, errors.py, __main__.py
    package = rel.parts[0]
    allowed = ALLOWED[package] | {package} | EXCEPTIONS.get(rel.as_posix(), set())
    for name in _imports(path):
        if not name.startswith("gtidkit."):
            continue
        target = name.split(".")[1]
        if target in {
            "errors",
            "mysql_errors",
            "version",
            "__version__",
        }:  # top-level modules every layer may use
            continue
        assert target in allowed, f"{rel} imports gtidkit.{target}, which {package} may not import"


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(SRC)))
def test_pure_modules_do_no_io(path: Path) -> None:
    rel = path.relative_to(SRC)
    if len(rel.parts) < 2 or rel.parts[0] not in PURE:
        return
    package, module = rel.parts[0], rel.parts[1].removesuffix(".py")
    if module not in PURE[package]:
        return
    for name in _imports(path):
        parts = name.split(".")
        assert not (len(parts) >= 3 and parts[:2] == ["gtidkit", package] and parts[2] in EDGES[package]), (
            f"pure module {rel} imports the edge {name}"
        )
        assert parts[0] not in {"socket", "threading", "sqlite3", "subprocess"}, (
            f"pure module {rel} imports {name}"
        )


def test_generate_is_imported_only_where_allowed() -> None:
    """The generator is no codec: no package but cli (and the pipeline's demo) may reach it."""
    for pkg, allowed in ALLOWED.items():
        assert ("generate" in allowed) == (pkg == "cli"), pkg
    assert set(EXCEPTIONS) == {"pipeline/demo.py"}


def _runtime_imports(path: Path) -> set[str]:
    """Modules of ours that ``path`` imports when run: module level and inside functions, but not the
    ``if TYPE_CHECKING:`` blocks (annotations only)."""
    skip: set[int] = set()
    for node in nodes(path):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.dump(node.test):
            skip.update(id(n) for n in ast.walk(node))
    out: set[str] = set()
    for node in nodes(path):
        if id(node) in skip:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("gtidkit"):
            out.add(node.module)
            out.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names if alias.name.startswith("gtidkit"))
    return out


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_no_import_cycles_inside_the_engine() -> None:
    """Issue 7 ("no import cycles inside the engine"): the engine's modules form a DAG, counting function-level
    (lazy) imports too — a lazy import is how a cycle hides. Annotation-only imports do not count."""
    modules = {_module_name(p): p for p in _modules() if _module_name(p).startswith("gtidkit.engine")}
    graph = {
        name: {
            d for d in _runtime_imports(path) if d in modules and d != name and not name.startswith(d + ".")
        }
        for name, path in modules.items()
    }
    # package __init__ modules re-export their children; edges into a package are edges into its __init__ only
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for dep in sorted(graph[node]):
            if state.get(dep) == 1:
                cycle = stack[stack.index(dep) :] + [dep]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if dep not in state:
                visit(dep)
        stack.pop()
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name)


#: engine packages the layers above may not import: protocol and replication reach the SQL layer and the statement
#: code only through the Session / Server API and ``engine/api.py`` (issue 20, "narrow seams")
ENGINE_INTERNALS = ("gtidkit.engine.sql", "gtidkit.engine.statements")
#: the packages that rule covers (cli, the top of the stack, may still reach in)
ABOVE_THE_ENGINE = ("protocol", "replication")


@pytest.mark.parametrize(
    "path",
    [p for p in _modules() if p.relative_to(SRC).parts[0] in ABOVE_THE_ENGINE],
    ids=lambda p: str(p.relative_to(SRC)),
)
def test_protocol_and_replication_use_the_engine_api(path: Path) -> None:
    """Every import (annotation-only ones too) of a protocol / replication module stays out of engine.sql and
    engine.statements."""
    for name in _imports(path):
        inside = [p for p in ENGINE_INTERNALS if name == p or name.startswith(p + ".")]
        assert not inside, (
            f"{path.relative_to(SRC)} imports {name}: use gtidkit.engine.api or the Session API"
        )


@pytest.mark.parametrize(
    ("module", "flagged"),
    [
        ("gtidkit.engine.sql.parse", True),
        ("gtidkit.engine.statements", True),
        ("gtidkit.engine.api", False),
        ("gtidkit.engine.sqlite_helpers", False),
    ],
    ids=["sql-module", "statements-package", "api", "similar-prefix"],
)
def test_engine_internals_prefix_match(module: str, flagged: bool) -> None:
    assert any(module == p or module.startswith(p + ".") for p in ENGINE_INTERNALS) is flagged
