"""A SELECT's rows read by the compiled reader (``_rowsfast.c``) when it is built, else by the sqlite3 module.

:func:`reader_for` gives the reader of one sqlite3 connection, or None; :func:`fetch_rows` is what
``conn.execute(sql, binds).fetchall()`` gives, read through the reader when there is one and it can answer
(see ``_rowsfast.c``: the same rows and errors, the GIL released around the first step and then every 256 rows
instead of around every row, statements prepared once per SQL text). The sqlite3 module's path stays the
reference: tests/engine/test_fast_rows.py checks that both give the same rows and errors.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from typing import Any

try:  # the compiled reader (setup.py builds it; optional)
    import gtidkit.engine.sql._rowsfast as _rowsfast  # noqa: PLR0402 - mypy finds the .pyi stub this way
except ImportError:  # pragma: no cover - no C compiler (or no sqlite3.h) at install time
    _rowsfast = None  # type: ignore[assignment]

#: True when the compiled reader is installed and not turned off by ``GTIDKIT_PURE_PYTHON=1`` in the environment.
COMPILED = _rowsfast is not None and os.environ.get("GTIDKIT_PURE_PYTHON", "") in ("", "0")

#: ``uniform_width(rows, n)``: True when ``rows`` is a list of tuples each ``n`` values wide, checked in C (the
#: width check of a result set, ``StatementResult.result_set``); None when the compiled module is not in use
uniform_width = _rowsfast.uniform_width if COMPILED else None


def _set_slots(obj: Any, names: tuple[str, ...], values: tuple[Any, ...]) -> None:
    """The reference of ``_rowsfast.set_slots``: ``object.__setattr__`` of each name and value, in order (a frozen
    dataclass's own way of setting its fields).

    Raises:
        TypeError: ``names`` and ``values`` are not tuples of the same length, or a name is not a str.
    """
    if type(names) is not tuple or type(values) is not tuple or len(names) != len(values):
        raise TypeError("set_slots: names and values must be tuples of the same length")
    for name, value in zip(names, values):
        object.__setattr__(obj, name, value)


#: ``set_slots(obj, names, values)``: ``object.__setattr__(obj, name, value)`` for each pair, in C when compiled
#: (one call for a whole result object: ``StatementResult``'s construction, every statement's)
set_slots: Callable[[Any, tuple[str, ...], tuple[Any, ...]], None] = (
    _rowsfast.set_slots if COMPILED else _set_slots
)

__all__ = ["COMPILED", "fetch_rows", "reader_for", "set_slots", "uniform_width"]


def reader_for(raw: sqlite3.Connection) -> Any:
    """The compiled reader of the open connection ``raw``, or None (not built, turned off, or the sqlite3 module
    calls another SQLite library than the reader: then the sqlite3 module reads every row).

    The reader holds prepared statements of ``raw``: close it (``reader.close()``) with the connection.
    """
    if not COMPILED:
        return None
    try:
        reader = _rowsfast.Reader(raw)
    except RuntimeError:
        return None
    # the database handle the reader found is this connection's: the same main file
    main = raw.execute("PRAGMA database_list").fetchone()
    if main is None or (main[2] or "") != reader.main_file():
        reader.close()
        return None
    return reader


def fetch_rows(
    raw: sqlite3.Connection, reader: Any, sql: str, binds: dict[str, Any]
) -> list[tuple[Any, ...]]:
    """The rows of the SELECT ``sql`` with its named parameters bound from ``binds`` (name -> int, float, str,
    bytes or None), as ``raw.execute(sql, binds).fetchall()`` returns them; through ``reader``
    (:func:`reader_for` of ``raw``) when it is not None and can answer.

    Raises:
        sqlite3.Error: what ``raw.execute(sql, binds).fetchall()`` raises (the same class and message).
    """
    if reader is not None:
        rows = reader.run(sql, binds)
        if rows is not None:
            return rows
    return raw.execute(sql, binds).fetchall()
