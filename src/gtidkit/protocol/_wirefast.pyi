"""Types of the compiled COM_STMT_EXECUTE loops (``_wirefast.c``; optional)."""

from typing import Any

def configure(column_kinds: bytes, param_kinds: bytes, int_widths: bytes) -> None:
    """The type tables (256 bytes each, indexed by MySQL type code): see ``wire_fast.py``."""

def execute_params(
    payload: bytes,
    num_params: int,
    query_attributes: bool,
    previous_types: tuple[tuple[int, bool], ...] | None,
    type_cache: dict[bytes, tuple[tuple[int, bool], ...]],
) -> Any:
    """([values], types), None (the general path answers), or NotImplemented (the Python decoder answers)."""

def binary_rows(
    rows: Any,
    seq: int,
    types: tuple[int, ...],
    unsigned: tuple[bool, ...],
    head: bytes = ...,
    eof_warnings: int = ...,
    eof_status: int = ...,
) -> tuple[bytes, int] | None:
    """(framed binary rows, next sequence id), or None (the Python encoder answers); with ``head`` and the EOF's
    counts: head + the rows + a classic EOF packet."""
