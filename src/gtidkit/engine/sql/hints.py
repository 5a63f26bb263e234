"""Optimizer hints read from a statement's text as the client sent it (classification strips comments).

Source: RM8 "Optimizer Hints" (``/*+ MAX_EXECUTION_TIME(N) */``: N milliseconds, read-only SELECT statements only,
it overrides the session's ``max_execution_time``).
"""

from __future__ import annotations

import re

__all__ = ["max_execution_time_hint"]

#: the MAX_EXECUTION_TIME(ms) optimizer hint of a SELECT's ``/*+ ... */`` comment
_MAX_EXECUTION_TIME_HINT = re.compile(r"/\*\+[^*]*?\bMAX_EXECUTION_TIME\s*\(\s*(\d+)\s*\)", re.IGNORECASE)


def max_execution_time_hint(text: str) -> int | None:
    """The ``/*+ MAX_EXECUTION_TIME(ms) */`` hint of ``text`` (a statement as sent, comments kept), in
    milliseconds; None without one (then the session's ``max_execution_time`` applies). A hint of 0 is returned as
    0: no limit for this statement, whatever the variable says (RM8 "Optimizer Hints").

    Args:
        text: the statement's text, its comments kept.
    """
    if "/*+" not in text:  # the common case: no regex run
        return None
    m = _MAX_EXECUTION_TIME_HINT.search(text)
    return int(m.group(1)) if m is not None else None
