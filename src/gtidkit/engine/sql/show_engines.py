"""SHOW [STORAGE] ENGINES: the storage engines the server offers, as MySQL lists them.

Every table is an InnoDB table to clients (``ENGINE=InnoDB`` in SHOW CREATE TABLE, information_schema.TABLES), so
InnoDB is the one engine listed, as the DEFAULT, with MySQL 8.4's comment and capabilities (transactions, XA,
savepoints). Tools ask for it before trusting a server: Percona Toolkit's VersionParser reads InnoDB's ``Support``
and then ``@@innodb_version``.

Source: MySQL 8.4 Reference Manual "SHOW ENGINES Statement" (columns Engine, Support, Comment, Transactions, XA,
Savepoints and the InnoDB row).
"""

from __future__ import annotations

from gtidkit.engine.sql.exec_result import ExecResult

__all__ = ["COLUMNS", "ENGINES", "show_engines"]

COLUMNS = ("Engine", "Support", "Comment", "Transactions", "XA", "Savepoints")
ENGINES = (
    ("InnoDB", "DEFAULT", "Supports transactions, row-level locking, and foreign keys", "YES", "YES", "YES"),
)


def show_engines() -> ExecResult:
    """The SHOW ENGINES result set (one row per engine, :data:`COLUMNS`)."""
    return ExecResult(columns=list(COLUMNS), rows=list(ENGINES))
