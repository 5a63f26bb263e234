"""The GTID core is readable without the session and the server (issue 20, "narrow seams").

The commit sequence, the transaction's event builder, binlog_error_action, the binary log and the GTID state take
small Protocols (``engine/gtid/seams.py``, ``LoggingServer`` / ``LoggingSession`` in ``transaction_events.py``,
``BinlogErrorServer`` in ``error_action.py``) instead of ``Server`` / ``Session``. Checked on the engine's import
graph with every import counted, ``if TYPE_CHECKING:`` ones and function-level ones included (the type-level graph):
from none of these modules can ``engine.session`` or ``engine.server`` be reached, so none of them is in the
strongly connected component that runs through the two context objects.
"""

from __future__ import annotations

import ast
import functools
from collections import deque
from pathlib import Path

import pytest

from tests.source_tree import SRC, nodes, python_files

#: modules that must stay out of the Session / Server loop
GTID_CORE = (
    "gtidkit.engine.gtid.commit",
    "gtidkit.engine.gtid.seams",
    "gtidkit.engine.gtid.state",
    "gtidkit.engine.gtid.gtid_next",
    "gtidkit.engine.gtid.table",
    "gtidkit.engine.gtid.compressor",
    "gtidkit.engine.gtid.variables",
    "gtidkit.engine.binlog.transaction_events",
    "gtidkit.engine.binlog.error_action",
    "gtidkit.engine.binlog.log",
    "gtidkit.engine.sql.rowimage",
)
CONTEXT = ("gtidkit.engine.session", "gtidkit.engine.server")


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _all_imports(path: Path) -> set[str]:
    """Every module name an import statement of ``path`` mentions (TYPE_CHECKING and function level included)."""
    out: set[str] = set()
    for node in nodes(path):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
    return out


@functools.cache
def engine_graph() -> dict[str, set[str]]:
    """Module -> engine modules it imports, type-level edges included (read once per process, when a test first
    asks: not at collection, which every pytest-xdist worker runs)."""
    modules = {_module_name(p): p for p in python_files() if _module_name(p).startswith("gtidkit.engine")}
    return {
        name: {d for d in _all_imports(path) if d in modules and d != name and not name.startswith(d + ".")}
        for name, path in modules.items()
    }


def path_between(graph: dict[str, set[str]], start: str, goal: str) -> list[str] | None:
    """A shortest import chain from ``start`` to ``goal``, or None."""
    prev: dict[str, str | None] = {start: None}
    todo = deque([start])
    while todo:
        node = todo.popleft()
        if node == goal:
            chain = []
            at: str | None = node
            while at is not None:
                chain.append(at)
                at = prev[at]
            return chain[::-1]
        for dep in sorted(graph[node]):
            if dep not in prev:
                prev[dep] = node
                todo.append(dep)
    return None


def loop_through(graph: dict[str, set[str]], module: str) -> set[str]:
    """The strongly connected component of ``module``: the modules it reaches that reach it back."""
    reach = {m for m in graph if path_between(graph, module, m) is not None}
    return {m for m in reach if path_between(graph, m, module) is not None}


@pytest.mark.parametrize("module", GTID_CORE)
@pytest.mark.parametrize("context", CONTEXT)
def test_gtid_core_never_reaches_the_context_objects(module: str, context: str) -> None:
    graph = engine_graph()
    assert module in graph, f"{module} moved: update GTID_CORE"
    chain = path_between(graph, module, context)
    assert chain is None, " -> ".join(chain or ())


def test_loop_through_session_leaves_the_gtid_core_out() -> None:
    loop = loop_through(engine_graph(), "gtidkit.engine.session")
    assert "gtidkit.engine.server" in loop  # the loop this guards against still exists: the check is live
    assert not loop & set(GTID_CORE)


@pytest.mark.parametrize(
    ("edges", "start", "goal", "found"),
    [
        ({"a": {"b"}, "b": {"c"}, "c": set()}, "a", "c", ["a", "b", "c"]),
        ({"a": {"b"}, "b": set(), "c": {"a"}}, "a", "c", None),
    ],
    ids=["reachable", "unreachable"],
)
def test_path_between(edges: dict[str, set[str]], start: str, goal: str, found: list[str] | None) -> None:
    assert path_between(edges, start, goal) == found
