"""The compiled result-row framer (protocol/_framefast.c via row_frames.py) against the Python path it shortcuts:
``encode_binary_rows`` / ``encode_text_rows`` then ``frame`` of each payload (protocol/messages.py, itself held to
MySQL's bytes by test_messages.py and the real clients). Whatever the framer answers must be those bytes and that
next sequence id; what it declines (None) the Python path frames or refuses; the values sysbench's reads return
(strings, integers, NULLs) it must answer."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gtidkit.errors import LocalProtocolError
from gtidkit.protocol import row_frames
from gtidkit.protocol.constants import FieldType
from gtidkit.protocol.messages import encode_binary_rows, encode_text_rows
from gtidkit.protocol.packets import frame

if row_frames._framefast is None:  # pragma: no cover - built by setup.py wherever a C compiler is
    if os.environ.get(
        "CI"
    ):  # CI builds it (setup.py through `pip install -e .`): there its absence is a failure
        pytest.fail("gtidkit.protocol._framefast is not built", pytrace=False)
    pytest.skip("gtidkit.protocol._framefast is not built", allow_module_level=True)

compiled = row_frames._framefast.frame_rows

INT_TYPES = (
    FieldType.MYSQL_TYPE_TINY,
    FieldType.MYSQL_TYPE_SHORT,
    FieldType.MYSQL_TYPE_YEAR,
    FieldType.MYSQL_TYPE_LONG,
    FieldType.MYSQL_TYPE_INT24,
    FieldType.MYSQL_TYPE_LONGLONG,
)
TEXT_TYPES = (
    FieldType.MYSQL_TYPE_STRING,
    FieldType.MYSQL_TYPE_VAR_STRING,
    FieldType.MYSQL_TYPE_BLOB,
    FieldType.MYSQL_TYPE_NEWDECIMAL,
    FieldType.MYSQL_TYPE_JSON,
)
OTHER_TYPES = (
    FieldType.MYSQL_TYPE_DOUBLE,
    FieldType.MYSQL_TYPE_FLOAT,
    FieldType.MYSQL_TYPE_DATE,
    FieldType.MYSQL_TYPE_DATETIME,
    FieldType.MYSQL_TYPE_TIMESTAMP,
    FieldType.MYSQL_TYPE_TIME,
)
ALL_TYPES = INT_TYPES + TEXT_TYPES + OTHER_TYPES


def reference(
    rows: Any, seq: int, binary: bool, types: tuple[int, ...], unsigned: tuple[bool, ...]
) -> tuple[bytes, int]:
    """The Python path: encode every row, frame every payload (split at 16 MiB) with consecutive ids."""
    payloads = encode_binary_rows(rows, types, unsigned) if binary else encode_text_rows(rows)
    out = []
    for payload in payloads:
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


@st.composite
def results(draw: Any) -> tuple[list[tuple[Any, ...]], tuple[int, ...], tuple[bool, ...]]:
    width = draw(st.integers(min_value=1, max_value=10))
    types = tuple(int(t) for t in draw(st.lists(st.sampled_from(ALL_TYPES), min_size=width, max_size=width)))
    unsigned = tuple(draw(st.lists(st.booleans(), min_size=0, max_size=width)))
    rows = draw(st.lists(st.tuples(*[values] * width), max_size=6))
    return rows, types, unsigned


@settings(max_examples=150, deadline=None)
@given(results(), st.integers(min_value=0, max_value=255), st.booleans())
def test_compiled_gives_the_python_bytes_or_declines(result: Any, seq: int, binary: bool) -> None:
    rows, types, unsigned = result
    got = compiled(rows, seq, len(types), binary, types, unsigned)
    try:
        want = reference(rows, seq, binary, types, unsigned)
    except (LocalProtocolError, UnicodeEncodeError, OverflowError):
        # a value its type cannot carry, a lone surrogate outside surrogateescape's range, an infinite float as
        # text: the Python path's error, never other bytes
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
    st.booleans(),
)
def test_compiled_answers_strings_integers_and_nulls(rows: Any, seq: int, binary: bool) -> None:
    # what sysbench's reads return (CHAR columns, INT columns, NULLs): the compiled framer answers, sequence ids
    # wrapping past 255 included
    types = (int(FieldType.MYSQL_TYPE_STRING), int(FieldType.MYSQL_TYPE_LONG))
    got = compiled(rows, seq, 2, binary, types, (False, False))
    assert got is not None
    assert got == reference(rows, seq, binary, types, (False, False))


@pytest.mark.parametrize(
    ("ftype", "unsigned", "value", "answered"),
    [
        (FieldType.MYSQL_TYPE_TINY, False, 255, True),  # to_bytes(1, signed=False)
        (FieldType.MYSQL_TYPE_TINY, False, 256, False),
        (FieldType.MYSQL_TYPE_TINY, False, -128, True),
        (FieldType.MYSQL_TYPE_TINY, False, -129, False),
        (FieldType.MYSQL_TYPE_TINY, True, -1, False),
        (FieldType.MYSQL_TYPE_LONGLONG, True, 2**64 - 1, True),
        (FieldType.MYSQL_TYPE_LONGLONG, False, 2**64 - 1, True),
        (FieldType.MYSQL_TYPE_LONGLONG, False, 2**64, False),
        (FieldType.MYSQL_TYPE_LONGLONG, False, -(2**63), True),
        (FieldType.MYSQL_TYPE_LONGLONG, False, -(2**63) - 1, False),
        (FieldType.MYSQL_TYPE_FLOAT, False, 3.5e38, False),  # struct.pack('<f') overflows
        (FieldType.MYSQL_TYPE_FLOAT, False, 1.5, True),
        (FieldType.MYSQL_TYPE_DOUBLE, False, float("inf"), True),
        (FieldType.MYSQL_TYPE_STRING, False, 2**70, False),  # beyond 64 bits: str() in Python
        (FieldType.MYSQL_TYPE_STRING, False, -(2**63), True),
        (FieldType.MYSQL_TYPE_STRING, False, True, False),  # bool: text_value's 1 / 0
        (FieldType.MYSQL_TYPE_STRING, False, 1.5, False),  # float text: MySQL's shortest form, in Python
        (FieldType.MYSQL_TYPE_STRING, False, "\udc80", False),  # surrogateescape, in Python
        (FieldType.MYSQL_TYPE_DATE, False, "2024-01-01", False),  # a temporal type's binary form
        (FieldType.MYSQL_TYPE_NEWDECIMAL, False, Decimal("1.5"), False),
    ],
    ids=lambda v: repr(v)[:20],
)
def test_binary_edges(ftype: int, unsigned: bool, value: Any, answered: bool) -> None:
    types, uns = (int(ftype),), (unsigned,)
    got = compiled([(value,)], 3, 1, True, types, uns)
    assert (got is not None) is answered
    if got is not None:
        assert got == reference([(value,)], 3, True, types, uns)


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
    types = (int(FieldType.MYSQL_TYPE_BLOB),) * width
    got = compiled(rows, 0, width, True, types, (False,) * width)
    if isinstance(rows, list) and rows and type(rows[0]) is list:
        assert got == reference(rows, 0, True, types, (False,))  # a list row is a row
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
