"""Every module, public class, public function and public method in src/gtidkit carries a docstring
(developers' guide: shapes, units, errors and the MySQL source of the behaviour belong there)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.source_tree import SRC, python_files
from tests.source_tree import tree as parsed


def _missing(path: Path) -> list[str]:
    tree = parsed(path)
    out = [] if ast.get_docstring(tree) else ["module"]
    for node in tree.body:
        if not isinstance(
            node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        ) or node.name.startswith("_"):
            continue
        if not ast.get_docstring(node):
            out.append(f"{node.name} (line {node.lineno})")
        if isinstance(node, ast.ClassDef):
            for sub in node.body:
                if (
                    isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef))
                    and not sub.name.startswith("_")
                    and not ast.get_docstring(sub)
                ):
                    out.append(f"{node.name}.{sub.name} (line {sub.lineno})")
    return out


@pytest.mark.parametrize("path", python_files(), ids=lambda p: str(p.relative_to(SRC)))
def test_public_api_has_docstrings(path: Path) -> None:
    assert _missing(path) == []
