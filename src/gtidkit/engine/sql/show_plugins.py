"""SHOW PLUGINS: the server plugins, as MySQL 8.0 lists its built-in ones.

Only the plugins whose function this server has are listed: the binary log (a storage engine to MySQL's plugin
registry), the three authentication plugins accounts can name (mysql_native_password, sha256_password,
caching_sha2_password) and InnoDB, the one storage engine SHOW ENGINES offers. Drivers' CI scripts read this list
to decide which authentication tests to run.

Source: MySQL 8.0 Reference Manual "SHOW PLUGINS Statement" (columns Name, Status, Type, Library, License; built-in
plugins have a NULL Library; the community server's license is GPL) and "Obtaining Server Plugin Information".
"""

from __future__ import annotations

from gtidkit.engine.sql.exec_result import ExecResult

__all__ = ["COLUMNS", "PLUGINS", "show_plugins"]

COLUMNS = ("Name", "Status", "Type", "Library", "License")
PLUGINS = (
    ("binlog", "ACTIVE", "STORAGE ENGINE", None, "GPL"),
    ("mysql_native_password", "ACTIVE", "AUTHENTICATION", None, "GPL"),
    ("sha256_password", "ACTIVE", "AUTHENTICATION", None, "GPL"),
    ("caching_sha2_password", "ACTIVE", "AUTHENTICATION", None, "GPL"),
    ("InnoDB", "ACTIVE", "STORAGE ENGINE", None, "GPL"),
)


def show_plugins() -> ExecResult:
    """The SHOW PLUGINS result set (one row per plugin, :data:`COLUMNS`)."""
    return ExecResult(columns=list(COLUMNS), rows=list(PLUGINS))
