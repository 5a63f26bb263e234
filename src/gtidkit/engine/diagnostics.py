"""A session's diagnostics area: the condition list behind SHOW WARNINGS / SHOW ERRORS / @@warning_count.

MySQL's rules (``sql/sql_error.h`` ``Diagnostics_area``, ``sql/sql_parse.cc`` ``mysql_execute_command``, manual
"SHOW WARNINGS Statement"):

- The list holds the conditions (notes, warnings, errors) of the *last statement that raised any*: a statement
  replaces the list the first time it raises a condition (``opt_reset_condition_info`` keyed by query id).
- A statement that uses tables clears the list when it starts, even when it raises nothing ("Reset warning
  count for each query that uses tables"); a statement without tables that raises nothing (``SELECT 1``,
  ``SET @a=1``, ``SELECT @@warning_count``) leaves the previous list in place.
- Diagnostic statements (SHOW WARNINGS, SHOW ERRORS, SHOW COUNT(*) WARNINGS / ERRORS) never clear it.
- A failing statement's error is a condition of level ``Error`` (SHOW ERRORS lists it, @@error_count counts it).
- At most ``max_error_count`` conditions are kept; ``@@warning_count`` / ``@@error_count`` count them all.
- The OK / EOF packet's warning count is the number of conditions the *current* statement raised.
"""

from __future__ import annotations

from gtidkit.engine.results import Condition

__all__ = ["DiagnosticsArea"]


class DiagnosticsArea:
    """The condition list of one session (MySQL's ``Diagnostics_area`` condition part)."""

    def __init__(self) -> None:
        self.conditions: list[Condition] = []
        self.warning_count = (
            0  # all conditions of the owning statement, including those beyond max_error_count
        )
        self.error_count = 0
        self._owner = 0  # statement number that raised the listed conditions
        self._statement = 0
        self._read_only = False
        self.statement_count = 0  # conditions raised by the current statement

    def begin_statement(self, *, diagnostic: bool, uses_tables: bool) -> None:
        """Start a statement: diagnostic statements keep the list read-only; a statement using tables clears it."""
        self._statement += 1
        self.statement_count = 0
        self._read_only = diagnostic
        if not diagnostic and uses_tables:
            self._clear()

    def begin_plain_statement(self, uses_tables: bool) -> None:
        """:meth:`begin_statement` of a statement that is not diagnostic (``diagnostic=False``), in one call: the
        per-statement path of a prepared SELECT."""
        self._statement += 1
        self.statement_count = 0
        self._read_only = False
        if uses_tables:  # _clear()
            self.conditions = []
            self.warning_count = 0
            self.error_count = 0
            self._owner = self._statement

    def push(self, condition: Condition, max_error_count: int = 1024) -> None:
        """Record ``condition`` raised by the current statement (replacing an older statement's list first)."""
        if self._read_only:
            return
        if self._owner != self._statement:
            self._clear()
            self._owner = self._statement
        self.statement_count += 1
        self.warning_count += 1
        if condition.level == "Error":
            self.error_count += 1
        if len(self.conditions) < max_error_count:
            self.conditions.append(condition)

    def _clear(self) -> None:
        self.conditions = []
        self.warning_count = 0
        self.error_count = 0
        self._owner = self._statement

    def show(
        self, *, errors_only: bool = False, offset: int = 0, limit: int | None = None
    ) -> list[Condition]:
        """Conditions as SHOW WARNINGS (``errors_only=False``) or SHOW ERRORS lists them, with LIMIT applied."""
        rows = [c for c in self.conditions if c.level == "Error"] if errors_only else list(self.conditions)
        rows = rows[offset:]
        return rows if limit is None else rows[:limit]
