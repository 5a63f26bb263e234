"""The compiled binlog event framer and row-image encoder (``_eventfast.c``) when it is built.

:data:`frame` frames a transaction's event bodies (headers with their final ``log_pos``, CRC32 footers) in one C
pass, for :func:`gtidkit.binlog.writer.encode_transaction`; :data:`encode_row` packs a full row image of integer
and string columns, for :func:`gtidkit.binlog.row_image.row_encoder`. Each is None when the module is not built
or ``GTIDKIT_PURE_PYTHON=1`` turns it off; each answers None for what it does not encode exactly as the Python
code does, which then encodes it (and raises where it raises). The Python loops stay the reference:
tests/binlog/test_eventfast.py compares both.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

try:  # the compiled loops (setup.py builds them; optional)
    import gtidkit.binlog._eventfast as _eventfast  # noqa: PLR0402 - mypy finds the .pyi stub this way
except ImportError:  # pragma: no cover - no C compiler at install time
    _eventfast = None  # type: ignore[assignment]

#: True when the compiled module is installed and not turned off by ``GTIDKIT_PURE_PYTHON=1`` in the environment.
COMPILED = _eventfast is not None and os.environ.get("GTIDKIT_PURE_PYTHON", "") in ("", "0")

#: ``frame(items, start_pos, timestamp, server_id, checksum) -> (bytes, [(begin, end)]) | None``: ``items`` a list
#: of ``(type_code, header flags, body)``; see ``_eventfast.c``. None when the compiled module is not in use.
frame: Callable[..., tuple[bytes, list[tuple[int, int]]] | None] | None = (
    _eventfast.frame if COMPILED else None
)

#: ``encode_row(kinds, pres, row) -> bytes | None``: ``kinds`` per column 1..8 / -1..-8 (an unsigned / signed
#: integer of that many bytes) or 101 / 102 (a string with a 1- / 2-byte length prefix), ``pres`` per column None
#: or a function applied to a non-NULL string value first; see ``_eventfast.c``. None when not in use.
encode_row: Callable[[tuple[int, ...], tuple[Any, ...], Any], bytes | None] | None = (
    _eventfast.encode_row if COMPILED else None
)

__all__ = ["COMPILED", "encode_row", "frame"]
