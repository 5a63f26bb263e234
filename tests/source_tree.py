"""src/gtidkit read and parsed once per test process, for the static checks that walk its syntax trees.

test_layers, test_docstrings, test_version, test_private_names, test_statement_regexes, test_mysql_errors,
engine/test_show_routing, engine/test_function_table and engine/test_gtid_seams each parsed the whole tree on their
own (253 files, ~2.5 s of CPU a parse; ~13 parses a run). They read it through here instead, and
tests/conftest.py runs them as one unit of work on one pytest-xdist worker (``xdist_scope``: a module that imports
this one) and drops the cache after the unit's last test (:func:`forget`), so the ~760k objects of the trees do not
stay under the garbage collector for the rest of the run. The trees are shared: a check must not change them.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

__all__ = ["SRC", "forget", "nodes", "python_files", "source", "tree"]

#: the package's source directory
SRC = Path(__file__).resolve().parents[1] / "src" / "gtidkit"


@functools.cache
def python_files() -> tuple[Path, ...]:
    """Every ``*.py`` under :data:`SRC`, sorted."""
    return tuple(sorted(SRC.rglob("*.py")))


@functools.cache
def source(path: Path) -> str:
    """The text of ``path``."""
    return path.read_text()


@functools.cache
def tree(path: Path) -> ast.Module:
    """The syntax tree of ``path`` (shared: not to be changed)."""
    return ast.parse(source(path), filename=str(path))


@functools.cache
def nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of :func:`tree` in ``ast.walk`` order."""
    return tuple(ast.walk(tree(path)))


def forget() -> None:
    """Drop everything read and parsed (the next call reads and parses again)."""
    for cached in (python_files, source, tree, nodes):
        cached.cache_clear()
