"""tests/multi_worker_known.py, the tests that wait for a cross-worker behaviour of issue 21, stays honest: each row
names a test that exists and a known behaviour, docs/design/multi_worker_suite.md lists the same rows, and the
server-mode parameter is stripped exactly."""

from __future__ import annotations

import re
from pathlib import Path

import multi_worker_known as known
import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "design" / "multi_worker_suite.md"


@pytest.mark.parametrize(
    ("nodeid", "expected"),
    [
        ("tests/a.py::t[workers2]", "tests/a.py::t"),
        ("tests/a.py::t[workers2-ROW]", "tests/a.py::t[ROW]"),
        ("tests/a.py::t[ROW-workers2]", "tests/a.py::t[ROW]"),
        ("tests/a.py::t[engine-refuses-two-workers]", "tests/a.py::t[engine-refuses-two-workers]"),
        ("tests/a.py::t", "tests/a.py::t"),
    ],
    ids=["only-mode", "mode-first", "mode-last", "other-params", "no-params"],
)
def test_base_id(nodeid: str, expected: str) -> None:
    assert known.base_id(nodeid) == expected


def test_every_row_names_a_real_test_and_a_known_behaviour() -> None:
    for nodeid, key in known.KNOWN.items():
        assert key in known.BEHAVIOURS, nodeid
        path, name = nodeid.split("::", 1)
        func = name.split("[", 1)[0]
        text = (ROOT / path).read_text(encoding="utf-8")
        assert re.search(rf"^def {re.escape(func)}\(", text, re.MULTILINE), nodeid


def test_every_test_not_run_is_listed() -> None:
    assert known.NOT_RUN <= set(known.KNOWN)


def test_the_document_lists_the_same_rows() -> None:
    rows = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        m = re.match(r"\| `(tests/[^`]+)` \| `(\w+)` \|", line)
        if m:
            rows[m.group(1)] = m.group(2)
    assert rows == known.KNOWN
    for key in known.BEHAVIOURS:
        assert f"| `{key}` |" in DOC.read_text(encoding="utf-8"), key
