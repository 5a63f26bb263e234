"""Types of the compiled binlog event framer and row-image encoder (``_eventfast.c``; optional)."""

from typing import Any

def frame(
    items: list[tuple[int, int, bytes | bytearray]],
    start_pos: int,
    timestamp: int,
    server_id: int,
    checksum: bool,
) -> tuple[bytes, list[tuple[int, int]]] | None:
    """The framed events and their (begin, end) offsets, or None (the Python path frames them)."""

def encode_row(kinds: tuple[int, ...], pres: tuple[Any, ...], row: Any) -> bytes | None:
    """One full row image of integer / string columns, or None (the Python path encodes it)."""
