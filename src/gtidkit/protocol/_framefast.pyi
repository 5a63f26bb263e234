"""Types of the compiled result-row framer (``_framefast.c``; optional)."""

from typing import Any

def frame_rows(
    rows: Any, seq: int, width: int, binary: bool, types: tuple[int, ...], unsigned: tuple[bool, ...]
) -> tuple[bytes, int] | None:
    """The framed row packets from sequence id ``seq`` and the next id, or None (the Python path frames them)."""
