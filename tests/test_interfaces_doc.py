"""docs/INTERFACES.md names files that exist: every ``path.py`` it spells in backticks is
a module of the package (``engine/sql/rowimage.py``, ``protocol/engine_seam.py``) or a file of the repository
(``tests/test_layers.py``), so the contract cannot drift from the code when modules move."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "gtidkit"
DOC = ROOT / "docs" / "INTERFACES.md"
#: a backticked code span, and the ``.py`` paths inside it (``engine/sql/catalog.py``, ``catalog.py``)
SPAN = re.compile(r"`([^`]+)`")
PY_PATH = re.compile(r"(?<![\w./])((?:\w+/)*\w+\.py)\b")
#: modules of the package, as paths relative to it (``engine/sql/catalog.py``)
MODULES = sorted(p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py"))


def named_paths(text: str) -> list[str]:
    """The ``.py`` paths in the code spans of ``text``, in order, without repeats."""
    out: list[str] = []
    for span in SPAN.findall(text):
        for path in PY_PATH.findall(span):
            if path not in out:
                out.append(path)
    return out


def exists(path: str) -> bool:
    """True when ``path`` is a repository file or a package module (a bare name may sit in any package)."""
    if (ROOT / path).is_file() or (PACKAGE / path).is_file():
        return True
    return any(m == path or m.endswith("/" + path) for m in MODULES)


@pytest.mark.parametrize(
    ("text", "paths"),
    [
        (
            "`engine/sql/catalog.py` and `Storage.open` (`storage.py`)",
            ["engine/sql/catalog.py", "storage.py"],
        ),
        ("`protocol/engine_seam.session_ended` is a function, not a file", []),
        ("a sentence about sql.py outside backticks", []),
    ],
    ids=["two-paths", "dotted-name", "outside-code"],
)
def test_named_paths_reads_code_spans(text: str, paths: list[str]) -> None:
    assert named_paths(text) == paths


@pytest.mark.parametrize(
    ("path", "ok"),
    [
        ("engine/sql/catalog.py", True),
        ("catalog.py", True),
        ("sql_show.py", False),
        ("engine/catalog.py", False),
    ],
)
def test_exists_resolves_package_paths(path: str, ok: bool) -> None:
    assert exists(path) is ok


def test_every_file_interfaces_md_names_exists() -> None:
    missing = [p for p in named_paths(DOC.read_text(encoding="utf-8")) if not exists(p)]
    assert not missing, f"docs/INTERFACES.md names files that do not exist: {missing}"
