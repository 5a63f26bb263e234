"""Types of the compiled hot loop of ``gtidkit binlog show --json`` (``_jsonfast.c``; optional)."""

from typing import Any

def run(
    buf: bytes,
    at: int,
    base: int,
    footer: bool,
    verify: bool,
    ok: bytes,
    names: tuple[bytes, ...],
    prefix: bytes,
    maps: dict[int, Any],
    skipping: bool,
    gtid_py: bool,
) -> tuple[int, bytes]:
    """The JSON lines of the common events from ``buf[at:]``; see ``_jsonfast.c``."""
