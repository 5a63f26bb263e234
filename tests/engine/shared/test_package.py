"""engine/shared sits below the engine's server and sessions: its modules import only the standard library,
gtidkit.errors, gtidkit.mysql_errors and each other (the multi-worker server builds on them, never the reverse)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[3] / "src" / "gtidkit" / "engine" / "shared"
ALLOWED_OURS = ("gtidkit.errors", "gtidkit.mysql_errors", "gtidkit.engine.shared")


def _imports(path: Path) -> list[str]:
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path.name}: relative import"
            names.append(node.module or "")
    return names


@pytest.mark.parametrize("path", sorted(SHARED.glob("*.py")), ids=lambda p: p.name)
def test_imports_only_the_stdlib_and_the_error_table(path: Path) -> None:
    for name in _imports(path):
        top = name.split(".")[0]
        if top == "gtidkit":
            assert name.startswith(ALLOWED_OURS), f"{path.name} imports {name}"
        else:
            assert top in sys.stdlib_module_names or top == "__future__", f"{path.name} imports {name}"
