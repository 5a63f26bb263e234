"""Types of the compiled text result-row framer (``_framefast.c``; optional)."""

from typing import Any

def frame_rows(rows: Any, seq: int, width: int) -> tuple[bytes, int] | None:
    """The framed text row packets from sequence id ``seq`` and the next id, or None (the Python path frames them)."""
