"""The per-statement loops of COM_STMT_EXECUTE through the compiled module (``_wirefast.c``) when it is built,
else through their Python reference in :mod:`gtidkit.protocol.messages`.

:func:`execute_parameters` is :func:`messages.execute_parameters` (the bound values of a COM_STMT_EXECUTE payload)
and :func:`binary_rows` is :func:`messages.encode_binary_rows` framed from a sequence id (the rows of a binary
result set): the compiled loops answer the common values (integers, floats, strings of fewer than 251 bytes
as parameters; None, integers, floats, str and bytes in rows), the Python ones everything else, so the bytes and
values are the same either way (tests/protocol/test_wire_fast.py compares them with hypothesis).
``GTIDKIT_PURE_PYTHON=1`` in the environment turns the compiled module off.

Sources: DEVDOC ``page_protocol_com_stmt_execute``, ``page_protocol_binary_resultset``.
"""

from __future__ import annotations

import os
from typing import Any

from gtidkit.protocol import messages
from gtidkit.protocol.constants import FieldType

try:  # the compiled loops (setup.py builds them; optional)
    import gtidkit.protocol._wirefast as _wirefast  # noqa: PLR0402 - mypy finds the .pyi stub this way
except ImportError:  # pragma: no cover - no C compiler at install time
    _wirefast = None  # type: ignore[assignment]

#: True when the compiled loops are installed and not turned off by ``GTIDKIT_PURE_PYTHON=1``.
COMPILED = _wirefast is not None and os.environ.get("GTIDKIT_PURE_PYTHON", "") in ("", "0")

__all__ = ["COMPILED", "binary_rows", "execute_parameters"]

# the kinds of _wirefast.c, by type code
_OTHER, _INT, _DOUBLE, _FLOAT, _STRING = range(5)


def _tables() -> tuple[bytes, bytes, bytes]:
    """The three 256-byte tables ``_wirefast.configure`` takes, from messages.py's own type sets: the kind of each
    type as a result column and as a parameter, and each integer type's width in bytes."""
    columns, params, widths = bytearray(256), bytearray(256), bytearray(256)
    for code in range(256):
        if code in messages.INT_WIDTHS:
            columns[code] = params[code] = _INT
            widths[code] = messages.INT_WIDTHS[code]
        elif code == FieldType.MYSQL_TYPE_DOUBLE:
            columns[code] = params[code] = _DOUBLE
        elif code == FieldType.MYSQL_TYPE_FLOAT:
            columns[code] = params[code] = _FLOAT
        else:
            columns[code] = _OTHER if code in messages.NON_TEXT_TYPES else _STRING
            params[code] = _STRING if code in messages.STRING_PARAM_TYPES else _OTHER
    return bytes(columns), bytes(params), bytes(widths)


if COMPILED:
    _wirefast.configure(*_tables())


def execute_parameters(
    payload: bytes,
    num_params: int,
    query_attributes: bool,
    previous_types: tuple[tuple[int, bool], ...] | None,
) -> tuple[list[Any], tuple[tuple[int, bool], ...]] | None:
    """What :func:`messages.execute_parameters` returns for the same arguments (the bound values and the types in
    force, or None for a layout the general path must answer); nothing is raised."""
    if COMPILED:
        got = _wirefast.execute_params(
            payload, num_params, query_attributes, previous_types, messages.PARAM_TYPE_CACHE
        )
        if got is not NotImplemented:
            return got
    return messages.execute_parameters(payload, num_params, query_attributes, previous_types)


def _no_rows(
    rows: Any, seq: int, types: tuple[int, ...], unsigned: tuple[bool, ...], *head_and_eof: Any
) -> tuple[bytes, int] | None:
    """:func:`binary_rows` without the compiled module: always None (the caller's Python loops answer)."""
    return None


#: ``binary_rows(rows, seq, types, unsigned)``: the binary-protocol rows of columns ``types`` framed with sequence ids
#: from ``seq``: (bytes, next sequence id), byte for byte :func:`messages.encode_binary_rows` then one packet each;
#: None when the compiled loop is off or leaves the rows to that function (a value it does not encode, one that does
#: not fit its column, a row of 16 MiB or more, an iterator), which the caller then runs. The compiled function
#: itself when it is on (no Python frame per result set). ``binary_rows(rows, seq, types, unsigned, head,
#: eof_warnings, eof_status)``: ``head`` (bytes) + the rows + a classic EOF packet (0xFE, the warnings, the status
#: flags as given) with the next sequence id, and the id after it; None as above or when a count does not fit 2 bytes.
binary_rows = _wirefast.binary_rows if COMPILED else _no_rows
