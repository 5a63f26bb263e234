"""Types of the compiled hot loop of the mysqlbinlog script printer (``_scriptfast.c``; optional)."""

def run(
    buf: bytes,
    at: int,
    base: int,
    footer: int,
    verify: bool,
    isv: int,
    names: tuple[bytes | None, ...],
    rows_inline: bytes,
    fast: bytes,
    qkey: bytes,
    qtail: bytes,
    qts: bytes,
    qxid: bytes,
    gtids: list[tuple[bytes, int]] | None,
    gtid_py: bool,
    stop_ts: int,
    skipping: bool,
    head: bytes,
) -> tuple[int, bytes, int, int, int, bytes, int]:
    """Print the common events from ``buf[at:]``; see ``_scriptfast.c``."""
