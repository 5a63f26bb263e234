"""MySQL table names as the engine's SQLite database spells them (pure: no sqlite3, no I/O)."""

from __future__ import annotations

__all__ = ["physical_name", "quote_ident"]


def physical_name(schema: str, table: str) -> str:
    """Return the SQLite table name of MySQL table ``schema.table`` (unquoted; quote with :func:`quote_ident`)."""
    return f"{schema}.{table}"


def quote_ident(name: str) -> str:
    """Quote ``name`` as a SQLite identifier (double quotes, embedded quotes doubled)."""
    return '"' + name.replace('"', '""') + '"'
