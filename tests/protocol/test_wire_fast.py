"""The compiled COM_STMT_EXECUTE loops (``_wirefast.c`` through :mod:`gtidkit.protocol.wire_fast`) give what their
Python reference gives: the bound values of any COM_STMT_EXECUTE payload (``messages.execute_parameters``) and the
framed binary rows of any result (``messages.encode_binary_rows`` then one packet per row), compared with
hypothesis over every parameter and column type, NULLs, values that do not fit, truncated payloads and odd inputs;
where the compiled loop declines (None / NotImplemented) the Python one answers, so the wire bytes are equal.

Sources: DEVDOC ``page_protocol_com_stmt_execute`` and ``page_protocol_binary_resultset`` (via the reference).
"""

from __future__ import annotations

import datetime as dt
import math
import os
import struct
import subprocess
import sys
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gtidkit.errors import LocalProtocolError
from gtidkit.protocol import messages, wire_fast
from gtidkit.protocol.constants import Capability, FieldType, ServerStatus
from gtidkit.protocol.packets import frame

if wire_fast._wirefast is None and os.environ.get(
    "CI"
):  # CI builds it (setup.py): there its absence is a failure
    pytest.fail("gtidkit.protocol._wirefast is not built", pytrace=False)
pytestmark = pytest.mark.skipif(
    not wire_fast.COMPILED, reason="_wirefast not built, or GTIDKIT_PURE_PYTHON=1"
)

_wirefast = wire_fast._wirefast

#: every type code a client or a column can carry, plus a few it should not
TYPES = sorted({int(t) for t in FieldType} | {17, 18, 19, 100, 241, 243})
INT_TYPES = sorted(messages.INT_WIDTHS)


def _python_rows(
    rows: Any, seq: int, types: tuple[int, ...], unsigned: tuple[bool, ...]
) -> tuple[bytes, int]:
    """The reference: encode_binary_rows, each payload framed with the next sequence id."""
    out = b""
    for payload in messages.encode_binary_rows(rows, types, unsigned):
        data, seq = frame(payload, seq)
        out += data
    return out, seq


def _int_for(t: int) -> st.SearchStrategy[int]:
    w = messages.INT_WIDTHS.get(t, 8)
    edge = 2 ** (8 * w)
    return st.integers(-edge, edge * 2)  # in range, negative, and just past either end


_VALUE = st.one_of(
    st.none(),
    st.integers(-(2**70), 2**70),
    st.sampled_from([0, -1, 127, 128, 255, 256, -128, -129, 2**31, 2**63 - 1, 2**63, 2**64 - 1, 2**64]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(width=32),
    st.sampled_from(
        [3.5e38, -3.5e38, 3.4028235e38, 1e-46]
    ),  # past FLOAT's range, its edge, below its smallest
    st.text(max_size=300),
    st.text(alphabet=st.characters(codec="ascii"), max_size=260),
    st.sampled_from(["\udc80", "a\udcff", "é" * 130]),  # surrogate escapes; 260 UTF-8 bytes
    st.binary(max_size=300),
    st.booleans(),
    st.sampled_from(
        [Decimal("1.5"), dt.date(2024, 2, 29), dt.datetime(2024, 1, 2, 3, 4, 5, 6), dt.timedelta(1)]
    ),
    st.sampled_from([bytearray(b"ab"), "12"]),
)


@st.composite
def _results(draw: Any) -> tuple[list[Any], int, tuple[int, ...], tuple[bool, ...]]:
    ncols = draw(st.integers(1, 12))
    types = tuple(draw(st.sampled_from(TYPES)) for _ in range(ncols))
    unsigned = tuple(draw(st.booleans()) for _ in range(draw(st.integers(0, ncols))))
    column = [
        st.one_of(_VALUE, _int_for(t)) if t in messages.INT_WIDTHS else _VALUE for t in types
    ]  # integer columns get integers near their edges more often
    rows = draw(st.lists(st.tuples(*column), max_size=6))
    return rows, draw(st.integers(0, 255)), types, unsigned


@settings(max_examples=300, deadline=None)
@given(_results())
def test_binary_rows_equal_the_python_encoder(
    case: tuple[list[Any], int, tuple[int, ...], tuple[bool, ...]],
) -> None:
    rows, seq, types, unsigned = case
    try:
        expected: tuple[bytes, int] | None = _python_rows(rows, seq, types, unsigned)
    except (
        LocalProtocolError,
        OverflowError,
        ValueError,
    ):  # inf / nan in a text column: never from the engine
        expected = None
    got = wire_fast.binary_rows(rows, seq, types, unsigned)
    if got is not None:  # the compiled loop answered: exactly the reference, never where it raises
        assert expected is not None
        assert got == expected
    # declining is always allowed: the caller then runs the reference itself


@pytest.mark.parametrize(
    ("rows", "types", "unsigned", "handled"),
    [
        ([("abc",), ("x" * 300,), (None,)], (int(FieldType.MYSQL_TYPE_STRING),), (False,), True),
        ([(1, -2, 3.5, 2.5, b"\x00\xff", "é")], (8, 3, 5, 4, 252, 253), (), True),
        ([(2**64 - 1, -1)], (8, 1), (True, False), True),
        ([(2**63,)], (3,), (), False),  # does not fit a LONG: the reference raises
        ([(-1,)], (8,), (True,), False),  # negative into an unsigned column: the reference raises
        ([(True,)], (1,), (), False),  # a bool: the reference's business
        ([(dt.date(2024, 1, 1),)], (10,), (), False),  # a temporal value
        ([(Decimal("1.5"),)], (246,), (), False),
        ([("\udc80",)], (253,), (), False),  # not UTF-8 as it is: the reference's surrogateescape
        ([["a"]], (253,), (), False),  # a row that is a list
        ([("a", "b")], (253,), (), False),  # a row wider than the columns: the reference raises
        ([], (253,), (), True),
    ],
    ids=[
        "strings",
        "mixed",
        "unsigned-edges",
        "too-big",
        "negative-unsigned",
        "bool",
        "date",
        "decimal",
        "surrogate",
        "list-row",
        "wide-row",
        "no-rows",
    ],
)
def test_binary_rows_answers_or_declines(
    rows: list[Any], types: tuple[int, ...], unsigned: tuple[bool, ...], handled: bool
) -> None:
    got = wire_fast.binary_rows(rows, 7, types, unsigned)
    assert (got is not None) is handled
    if handled:
        assert got == _python_rows(rows, 7, types, unsigned)


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
        (FieldType.MYSQL_TYPE_STRING, False, 2**70, True),  # its decimal digits, as str() gives them
        (FieldType.MYSQL_TYPE_STRING, False, -(2**63), True),
        (FieldType.MYSQL_TYPE_STRING, False, True, False),  # bool: text_value's 1 / 0
        (FieldType.MYSQL_TYPE_STRING, False, 1.5, False),  # float text: MySQL's shortest form, in Python
        (FieldType.MYSQL_TYPE_STRING, False, "\udc80", False),  # surrogateescape, in Python
        (FieldType.MYSQL_TYPE_DATE, False, "2024-01-01", False),  # a temporal type's binary form
        (FieldType.MYSQL_TYPE_NEWDECIMAL, False, Decimal("1.5"), False),
    ],
    ids=lambda v: repr(v)[:20],
)
def test_binary_rows_edges(ftype: int, unsigned: bool, value: Any, answered: bool) -> None:
    # the integer / float range edges of the one compiled binary framer (moved here from test_framefast.py when
    # _framefast.c's copy of binary framing went)
    types, uns = (int(ftype),), (unsigned,)
    got = wire_fast.binary_rows([(value,)], 3, types, uns)
    assert (got is not None) is answered
    if got is not None:
        assert got == _python_rows([(value,)], 3, types, uns)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(st.none() | st.text(max_size=20), st.integers(-(2**31), 2**31 - 1)), max_size=5),
    st.integers(0, 255),
    st.binary(max_size=40),
    st.integers(-2, 0x10001),
    st.integers(-2, 0x10001),
)
def test_binary_rows_with_head_and_eof(rows: Any, seq: int, head: bytes, warnings: int, status: int) -> None:
    # the 7-argument form: head + the rows + the classic EOF packet, or None (nothing else) when a count does not
    # fit its 2 bytes
    types, uns = (int(FieldType.MYSQL_TYPE_STRING), int(FieldType.MYSQL_TYPE_LONG)), (False, False)
    got = wire_fast.binary_rows(rows, seq, types, uns, head, warnings, status)
    if not (0 <= warnings <= 0xFFFF and 0 <= status <= 0xFFFF):
        assert got is None
        return
    body, after = _python_rows(rows, seq, types, uns)
    # the status as given (the caller clears SERVER_SESSION_STATE_CHANGED, as Eof.encode does)
    plain = status & ~int(ServerStatus.SERVER_SESSION_STATE_CHANGED)
    assert wire_fast.binary_rows(rows, seq, types, uns, head, warnings, plain) == (
        head + body + frame(messages.Eof(warnings, plain).encode(int(Capability.PROTOCOL_41)), after)[0],
        (after + 1) & 0xFF,
    )
    eof = frame(bytes((0xFE,)) + warnings.to_bytes(2, "little") + status.to_bytes(2, "little"), after)
    assert got == (head + body + eof[0], eof[1])


def test_binary_rows_declines_a_packet_of_16_mib() -> None:
    rows = [("x" * (2**24),)]
    assert wire_fast.binary_rows(rows, 0, (int(FieldType.MYSQL_TYPE_LONG_BLOB),), ()) is None


def _param_bytes(t: int, value: Any, uns: bool) -> bytes:
    """The binary form a client sends for a value of type ``t`` (for the generator below)."""
    if t in messages.INT_WIDTHS:
        w = messages.INT_WIDTHS[t]
        if t == int(FieldType.MYSQL_TYPE_LONGLONG):
            w = 8
        return (int(value) % 2 ** (8 * w)).to_bytes(w, "little")
    if t == int(FieldType.MYSQL_TYPE_DOUBLE):
        return struct.pack("<d", float(value))
    if t == int(FieldType.MYSQL_TYPE_FLOAT):
        return struct.pack("<f", float(value)) if math.isfinite(value) and abs(value) < 3e38 else b"\0\0\0\0"
    b = value if isinstance(value, bytes) else str(value).encode()
    if len(b) < 0xFB:
        return bytes((len(b),)) + b
    return b"\xfc" + len(b).to_bytes(2, "little") + b


@st.composite
def _executes(draw: Any) -> tuple[bytes, int, bool, Any]:
    n = draw(st.integers(0, 10))
    qa = draw(st.booleans())
    types = [(draw(st.sampled_from(TYPES)), draw(st.booleans())) for _ in range(n)]
    nulls = [draw(st.booleans()) for _ in range(n)]
    bitmap = bytearray((n + 7) // 8)
    for i, is_null in enumerate(nulls):
        if is_null:
            bitmap[i // 8] |= 1 << (i % 8)
    send_types = draw(st.booleans())
    body = bytes((0x17,)) + struct.pack("<IBI", 1, draw(st.sampled_from([0, 8])), 1)
    if qa and n:
        body += bytes((draw(st.sampled_from([n, n, n + 1])),))
    if n:
        body += bytes(bitmap) + (b"\x01" if send_types else b"\x00")
        if send_types:
            body += b"".join(bytes((t, 0x80 if u else 0)) for t, u in types)
        for (t, u), is_null in zip(types, nulls):
            if not is_null:
                value = draw(
                    st.one_of(st.integers(-(2**63), 2**64 - 1), st.floats(), st.binary(max_size=300))
                )
                if t in messages.INT_WIDTHS and not isinstance(value, int):
                    value = 0
                if t in (4, 5) and not isinstance(value, float):
                    value = 0.0
                body += _param_bytes(t, value, u)
    cut = draw(st.integers(0, 3))
    if cut and draw(st.booleans()):
        body = body[:-cut]  # truncated
    previous = draw(
        st.sampled_from([None, tuple(types), tuple(types[:-1]), tuple((int(t), bool(u)) for t, u in types)])
    )
    return body, n, qa, previous


@settings(max_examples=300, deadline=None)
@given(_executes())
def test_execute_params_equal_the_python_decoder(case: tuple[bytes, int, bool, Any]) -> None:
    payload, n, qa, previous = case
    got = _wirefast.execute_params(payload, n, qa, previous, messages.PARAM_TYPE_CACHE)
    expected = messages.execute_parameters(payload, n, qa, previous)
    if got is not NotImplemented:
        assert got == expected
        if got is not None:
            assert [type(v) for v in got[0]] == [type(v) for v in expected[0]]  # type: ignore[index]
            assert all(type(t) is int and type(u) is bool for t, u in got[1])
    assert wire_fast.execute_parameters(payload, n, qa, previous) == expected


@pytest.mark.parametrize(
    ("payload", "n", "qa", "previous", "expected"),
    [
        (b"\x17\1\0\0\0\0\1\0\0\0\0\1\x08\0" + struct.pack("<q", -5), 1, False, None, ([-5], ((8, False),))),
        (
            b"\x17\1\0\0\0\0\1\0\0\0\0\1\x08\x80" + struct.pack("<Q", 2**64 - 1),
            1,
            False,
            None,
            ([2**64 - 1], ((8, True),)),
        ),
        (b"\x17\1\0\0\0\0\1\0\0\0\0\0\x03abc", 1, False, ((253, False),), ([b"abc"], ((253, False),))),
        (b"\x17\1\0\0\0\0\1\0\0\0\1\0", 1, False, ((3, False),), ([None], ((3, False),))),
        (b"\x17\1\0\0\0\0\1\0\0\0\0\0", 1, False, None, None),  # no types bound yet
        (b"\x17\1\0\0\0\0\1\0\0\0\0\1\x03\0\1\0", 1, False, None, None),  # a LONG cut short
        (b"\x17\1\0\0\0\0\1\0\0\0", 0, False, None, ([], ())),
        (b"\x17\1\0\0\0\x08\1\0\0\0", 0, True, None, None),  # PARAMETER_COUNT_AVAILABLE with attributes
        # a TIME of 35 days 1:02:03 is 841 hours: beyond TIME's range, 838:59:59 as mysqld's set_param_time makes it
        (
            b"\x17\1\0\0\0\0\1\0\0\0\0\1\x0b\0\x08\0\x23\0\0\0\1\2\3",
            1,
            False,
            None,
            ([dt.timedelta(hours=838, minutes=59, seconds=59)], ((11, False),)),
        ),
        # days * 24 wraps at 2**32 hours there (178956971 days = 2**32 + 8 hours): -8:00:00
        (
            b"\x17\1\0\0\0\0\1\0\0\0\0\1\x0b\0\x08\x01" + (178956971).to_bytes(4, "little") + b"\0\0\0",
            1,
            False,
            None,
            ([-dt.timedelta(hours=8)], ((11, False),)),
        ),
        # a DATETIME whose microseconds field is past 2**31 (found by the hypothesis test: OverflowError escaped the
        # decoder) is answered like any other impossible DATETIME, by its date and time text
        (
            b"\x17\1\0\0\0\0\1\0\0\0\0\1\x0c\0\x0b" + struct.pack("<HBBBBBI", 2020, 1, 2, 3, 4, 5, 2**31 + 5),
            1,
            False,
            None,
            ([b"2020-01-02 03:04:05"], ((12, False),)),
        ),
    ],
    ids=[
        "longlong",
        "unsigned-max",
        "string-types-kept",
        "null",
        "no-types",
        "truncated",
        "none",
        "attributes",
        "time-beyond-838-hours",
        "time-hours-wrap",
        "datetime-microseconds-past-2-31",
    ],
)
def test_execute_params_cases(payload: bytes, n: int, qa: bool, previous: Any, expected: Any) -> None:
    assert messages.execute_parameters(payload, n, qa, previous) == expected
    assert wire_fast.execute_parameters(payload, n, qa, previous) == expected


def test_pure_python_switch() -> None:
    # GTIDKIT_PURE_PYTHON=1 turns the compiled loops off (the reference answers everything)
    code = "from gtidkit.protocol import wire_fast; print(wire_fast.COMPILED)"
    env = {**os.environ, "GTIDKIT_PURE_PYTHON": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    assert wire_fast.COMPILED  # this process: the compiled loops (the module is skipped without them)
