"""A text result set's rows framed as packets by the compiled framer (``_framefast.c``) when it is built.

:data:`frame_rows` is ``_framefast.frame_rows`` (the framed text-protocol packets of a list of rows and the next
sequence id, or None for rows it does not encode exactly as the Python path does), or None when the framer is not
built or ``GTIDKIT_PURE_PYTHON=1`` turns it off; ``ServerConnection.send_result_set`` tries it before its own loops
(:func:`gtidkit.protocol.messages.encode_text_rows` and framing), which stay the reference:
tests/protocol/test_framefast.py compares both. Binary-protocol rows are :func:`gtidkit.protocol.wire_fast.binary_rows`
(the one compiled copy of that framing).
"""

from __future__ import annotations

import os
from collections.abc import Callable

try:  # the compiled framer (setup.py builds it; optional)
    import gtidkit.protocol._framefast as _framefast  # noqa: PLR0402 - mypy finds the .pyi stub this way
except ImportError:  # pragma: no cover - no C compiler at install time
    _framefast = None  # type: ignore[assignment]

#: True when the compiled framer is installed and not turned off by ``GTIDKIT_PURE_PYTHON=1`` in the environment.
COMPILED = _framefast is not None and os.environ.get("GTIDKIT_PURE_PYTHON", "") in ("", "0")

#: ``frame_rows(rows, seq, width) -> (bytes, next_seq) | None`` (text rows; see ``_framefast.c``),
#: or None when the compiled framer is not in use
frame_rows: Callable[..., tuple[bytes, int] | None] | None = _framefast.frame_rows if COMPILED else None

__all__ = ["COMPILED", "frame_rows"]
