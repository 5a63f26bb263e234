"""The compiled text result-row framer (protocol/_framefast.c via row_frames.py) against the Python path it
shortcuts: ``encode_text_rows`` then ``frame`` of each payload (protocol/messages.py, itself held to MySQL's bytes by
test_messages.py and the real clients). Whatever the framer answers must be those bytes and that next sequence id;
what it declines (None) the Python path frames or refuses; the values a text SELECT returns most (strings,
integers, NULLs) it must answer. (Binary rows are _wirefast.c's: test_wire_fast.py.)"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gtidkit.errors import LocalProtocolError
from gtidkit.protocol import row_frames
from gtidkit.protocol.messages import encode_text_rows
from gtidkit.protocol.packets import frame

if row_frames._framefast is None:  # pragma: no cover - built by setup.py wherever a C compiler is
    if os.environ.get(
        "CI"
    ):  # CI builds it (setup.py through `pip install -e .`): there its absence is a failure
        pytest.fail("gtidkit.protocol._framefast is not built", pytrace=False)
    pytest.skip("gtidkit.protocol._framefast is not built", allow_module_level=True)

compiled = row_frames._framefast.frame_rows


def reference(rows: Any, seq: int) -> tuple[bytes, int]:
    """The Python path: encode every row, frame every payload (split at 16 MiB) with consecutive ids."""
    out = []
    for payload in encode_text_rows(rows):
        data, seq = frame(payload, seq)
        out.append(data)
    return b"".join(out), seq


values = st.one_of(
    st.none(),
    st.text(max_size=300),
    st.binary(max_size=300),
    st.integers(min_value=-(2**65), max_value=2**65),
    st.integers(min_value=-300, max_value=300),
    st.floats(allow_nan=False) | st.floats(width=32),
    st.booleans(),
    st.decimals(allow_nan=False, allow_infinity=False, places=3),
    st.sampled_from(["\udc80\udcff", "a\ud800", dt.date(2024, 2, 29), dt.timedelta(seconds=-5)]),
)


@settings(max_examples=150, deadline=None)
@given(
    st.integers(min_value=1, max_value=10).flatmap(
        lambda width: st.tuples(st.just(width), st.lists(st.tuples(*[values] * width), max_size=6))
    ),
    st.integers(min_value=0, max_value=255),
)
def test_compiled_gives_the_python_bytes_or_declines(result: Any, seq: int) -> None:
    width, rows = result
    got = compiled(rows, seq, width)
    try:
        want = reference(rows, seq)
    except (LocalProtocolError, UnicodeEncodeError, OverflowError, ValueError):
        # a lone surrogate outside surrogateescape's range, an infinite or NaN float as text: the Python path's
        # error, never other bytes
        assert got is None
        return
    if got is not None:
        assert got == want


sysbench_values = st.one_of(
    st.none(),
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=300),
    st.binary(max_size=300),
)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(sysbench_values, st.integers(-(2**31), 2**31 - 1) | st.none()), max_size=300),
    st.integers(min_value=0, max_value=255),
)
def test_compiled_answers_strings_integers_and_nulls(rows: Any, seq: int) -> None:
    # what a text SELECT returns most (CHAR columns, INT columns, NULLs): the compiled framer answers, sequence
    # ids wrapping past 255 included
    got = compiled(rows, seq, 2)
    assert got is not None
    assert got == reference(rows, seq)


@pytest.mark.parametrize(
    ("value", "answered"),
    [
        (2**63 - 1, True),
        (-(2**63), True),
        (2**70, False),  # beyond 64 bits: str() in Python
        (True, False),  # bool: text_value's 1 / 0
        (1.5, False),  # float text: MySQL's shortest form, in Python
        ("\udc80", False),  # surrogateescape, in Python
        ("é", True),
        (b"\xff", True),
        (None, True),
        (dt.date(2024, 1, 1), False),
    ],
    ids=lambda v: repr(v)[:20],
)
def test_text_edges(value: Any, answered: bool) -> None:
    got = compiled([(value,)], 3, 1)
    assert (got is not None) is answered
    if got is not None:
        assert got == reference([(value,)], 3)


@pytest.mark.parametrize(
    ("rows", "width"),
    [
        ([(1, 2)], 1),  # a row wider than the columns: the Python path raises LocalProtocolError
        ([(1,), (1, 2)], 1),
        (iter([(1,)]), 1),  # an iterator: read once, by the Python path
        ([[1]], 1),
        ([("x" * (2**24),)], 1),  # a payload of 16 MiB or more: split over packets by the Python path
    ],
    ids=["too-wide", "ragged", "iterator", "list-row", "16MiB"],
)
def test_declines(rows: Any, width: int) -> None:
    got = compiled(rows, 0, width)
    if isinstance(rows, list) and rows and type(rows[0]) is list:
        assert got == reference(rows, 0)  # a list row is a row
    else:
        assert got is None


def test_pure_python_switch() -> None:
    # GTIDKIT_PURE_PYTHON=1 turns the framer off (the Python path alone), as for the other compiled paths
    code = (
        "from gtidkit.protocol import row_frames; print(row_frames.COMPILED, row_frames.frame_rows is None)"
    )
    for env, want in (("1", "False True"), ("0", "True False")):
        out = subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "GTIDKIT_PURE_PYTHON": env},
            capture_output=True,
            text=True,
            check=True,
        )
        assert out.stdout.split() == want.split()
