"""The ``sql_mode`` flags the SQL layer acts on, read from a session's ``@@sql_mode`` text.

MySQL source: manual "Server SQL Modes" (8.4): strict mode is "STRICT_ALL_TABLES or STRICT_TRANS_TABLES, or both";
the combination modes expand as ``ANSI`` = REAL_AS_FLOAT, PIPES_AS_CONCAT, ANSI_QUOTES, IGNORE_SPACE,
ONLY_FULL_GROUP_BY and ``TRADITIONAL`` = STRICT_TRANS_TABLES, STRICT_ALL_TABLES, NO_ZERO_IN_DATE, NO_ZERO_DATE,
ERROR_FOR_DIVISION_BY_ZERO, NO_ENGINE_SUBSTITUTION (``sql/sys_vars.cc`` ``expand_sql_mode``). Every gtidkit table
is transactional (InnoDB's role), so STRICT_TRANS_TABLES and STRICT_ALL_TABLES act alike here.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

__all__ = ["DEFAULT_SQL_MODE", "SqlMode", "parse_sql_mode"]

#: MySQL 8.0 / 8.4's default ``sql_mode`` (manual "Server SQL Modes", "Setting the SQL Mode").
DEFAULT_SQL_MODE = (
    "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,"
    "NO_ENGINE_SUBSTITUTION"
)

#: combination modes -> the modes they stand for (manual "Combination SQL Modes")
_COMBINATIONS: dict[str, tuple[str, ...]] = {
    "ANSI": ("REAL_AS_FLOAT", "PIPES_AS_CONCAT", "ANSI_QUOTES", "IGNORE_SPACE", "ONLY_FULL_GROUP_BY"),
    "TRADITIONAL": (
        "STRICT_TRANS_TABLES",
        "STRICT_ALL_TABLES",
        "NO_ZERO_IN_DATE",
        "NO_ZERO_DATE",
        "ERROR_FOR_DIVISION_BY_ZERO",
        "NO_ENGINE_SUBSTITUTION",
    ),
}


@dataclass(frozen=True, slots=True)
class SqlMode:
    """The parsed mode names of one ``sql_mode`` value (upper case, combination modes expanded)."""

    names: frozenset[str]

    @property
    def strict(self) -> bool:
        """MySQL's ``THD::is_strict_mode()``: STRICT_TRANS_TABLES or STRICT_ALL_TABLES is set."""
        return "STRICT_TRANS_TABLES" in self.names or "STRICT_ALL_TABLES" in self.names

    @property
    def error_for_division_by_zero(self) -> bool:
        """ERROR_FOR_DIVISION_BY_ZERO: with strict mode, division by zero in INSERT/UPDATE is error 1365."""
        return "ERROR_FOR_DIVISION_BY_ZERO" in self.names


@lru_cache(maxsize=64)
def parse_sql_mode(text: object) -> SqlMode:
    """Parse an ``@@sql_mode`` value (comma-separated names, any case; ``None`` or ``''`` is the empty mode).

    Args:
        text: the variable's value as the session holds it.

    Returns:
        The :class:`SqlMode` with combination modes (ANSI, TRADITIONAL) expanded.
    """
    names: set[str] = set()
    for part in str(text or "").upper().split(","):
        name = part.strip()
        if not name:
            continue
        names.add(name)
        names.update(_COMBINATIONS.get(name, ()))
    return SqlMode(frozenset(names))
