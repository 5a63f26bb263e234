"""Types of the compiled SELECT row reader (``_rowsfast.c``; optional)."""

import sqlite3
from typing import Any

def uniform_width(rows: Any, n: int) -> bool:
    """True when ``rows`` is a list of tuples each ``n`` values wide."""

class Reader:
    """SELECT rows of one sqlite3 connection, read by prepared statements of its own (see ``_rowsfast.c``)."""

    #: FLOAT values (Python floats) in the rows the last :meth:`run` returned
    floats: int

    def __init__(self, conn: sqlite3.Connection) -> None: ...
    def run(self, sql: str, binds: dict[str, Any]) -> list[tuple[Any, ...]] | None:
        """The rows ``conn.execute(sql, binds).fetchall()`` gives, or None when that call must answer."""
    def close(self) -> None:
        """Finalize the cached statements."""
    def main_file(self) -> str:
        """``sqlite3_db_filename(db, 'main')`` of the connection."""
    def run_sorted(
        self, sql: str, binds: dict[str, Any], keys: tuple[tuple[int, bool], ...], distinct: bool
    ) -> list[tuple[Any, ...]] | None:
        """The rows of ``sql`` as SQLite's ORDER BY of the result columns ``keys`` (and DISTINCT) gives them, or
        None when SQLite must sort (see ``_rowsfast.c``)."""

def set_slots(obj: Any, names: tuple[str, ...], values: tuple[Any, ...]) -> None:
    """``object.__setattr__(obj, name, value)`` for each pair, in order."""
