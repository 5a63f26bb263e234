"""Every module that registers rows into the SQL function table (:mod:`gtidkit.engine.sql.function_table`).

Importing this module fills :data:`~gtidkit.engine.sql.function_table.FUNCTIONS` with every built-in the engine
serves; the executor imports it before it registers the table on a session's connection. A family added to the
engine is added here (a test checks each module that calls ``register`` is listed).
"""

from __future__ import annotations

from gtidkit.engine.gtid import functions as _gtid_functions
from gtidkit.engine.sql import (
    charset_literals,
    comparison,
    decimal_math,
    dml,
    encoding_functions,
    enum_set,
    functions,
    functions_datetime,
    functions_numeric,
    functions_string,
    int_math,
    json_functions,
    spatial,
    temporal,
)
from gtidkit.engine.sql.function_table import FUNCTIONS, SqlFunction

__all__ = ["FAMILIES", "load_families"]

#: the modules whose import registers their rows (the executor registers its own session functions itself)
FAMILIES = (
    functions,
    functions_string,
    functions_numeric,
    functions_datetime,
    temporal,
    json_functions,
    encoding_functions,
    spatial,
    enum_set,
    charset_literals,
    comparison,
    decimal_math,
    int_math,
    dml,
    _gtid_functions,
)


def load_families() -> dict[str, SqlFunction]:
    """The function table with every family's rows registered (they register when imported, above), and the rows
    of the built-ins served through sqlglot's expressions (:func:`functions.register_rewritten_rows`)."""
    functions.register_rewritten_rows()
    return FUNCTIONS
