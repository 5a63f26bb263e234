"""``prepared.bound_text``: a prepared statement's text with its values written in (the binary log's text of a
prepared DML statement). Its ``%``-format path (positions given as a tuple, the template kept per text) against
the literal-by-literal path (positions given as a list), which stays the reference; and ``literal``'s by-type
lookup against MySQL's literal forms."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gtidkit.engine.statements.prepared import bound_text, literal, placeholder_positions

_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**64), max_value=2**64),
    st.floats(allow_nan=False),
    st.text(max_size=20),
    st.binary(max_size=10),
    st.decimals(allow_nan=False, allow_infinity=False, places=3),
    st.dates(),
)

_TEXTS = [
    "UPDATE t SET c=? WHERE id=?",
    "INSERT INTO t (a, b) VALUES (?, ?)",
    "SELECT '%s ?' , ? , 100% FROM t WHERE a LIKE '%?%' AND b = ?",
    "DELETE FROM t WHERE id=? -- ? in a comment\n AND k=?",
]


@settings(max_examples=200, deadline=None)
@given(text=st.sampled_from(_TEXTS), data=st.data())
def test_bound_text_template_is_the_literal_path(text: str, data: Any) -> None:
    positions = tuple(placeholder_positions(text))
    values = data.draw(st.lists(_VALUES, min_size=len(positions), max_size=len(positions)))
    assert bound_text(text, positions, values) == bound_text(text, list(positions), values)
    assert bound_text(text, positions, values) == bound_text(text, positions, values)  # the kept template


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, "NULL"),
        (True, "1"),
        (7, "7"),
        (-2.5, "-2.5"),
        ("it's", "'it\\'s'"),
        (b"ab", "'ab'"),
        (b"\xff", "X'ff'"),
        (b"", "''"),
        (Decimal("1.50"), "1.50"),
        (dt.date(2024, 2, 29), "'2024-02-29'"),
    ],
    ids=[
        "null",
        "bool",
        "int",
        "float",
        "quote",
        "utf8-bytes",
        "binary-bytes",
        "empty-bytes",
        "decimal",
        "date",
    ],
)
def test_literal_forms(value: Any, text: str) -> None:
    assert literal(value) == text


def test_bound_text_percent_in_text() -> None:
    text = "SELECT '100%' , ?"
    assert bound_text(text, tuple(placeholder_positions(text)), ["5%"]) == "SELECT '100%' , '5%'"


def test_bound_text_of_a_long_text_is_not_kept() -> None:
    """A text past the kept length takes the literal-by-literal path (a dump's statements are never kept)."""
    from gtidkit.engine.statements import prepared

    text = "INSERT INTO t VALUES " + ", ".join(["(?, 'x%')"] * 600)
    positions = tuple(placeholder_positions(text))
    values = list(range(600))
    assert len(text) > prepared._KEPT_TEXT
    assert bound_text(text, positions, values) == bound_text(text, list(positions), values)
    assert text not in prepared._TEMPLATES
