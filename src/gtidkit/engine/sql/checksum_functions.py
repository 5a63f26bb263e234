"""What a replica-consistency checksum query needs beyond the built-in functions: CONVERT(expr USING charset).

Percona Toolkit's pt-table-checksum (and pt-table-sync) checksum a chunk of rows with::

    SELECT COUNT(*), COALESCE(LOWER(CONV(BIT_XOR(CAST(CRC32(CONCAT_WS('#', c1, CONVERT(c2 USING utf8mb4), ...,
           CONCAT(ISNULL(c2), ...))) AS UNSIGNED)), 10, 16)), 0) FROM t WHERE <chunk>

CONV, BIT_XOR (0 for no rows), CRC32, CONCAT_WS, ISNULL and CAST ... AS UNSIGNED are the built-in functions of
``functions_string`` / ``functions_numeric`` / ``encoding_functions``. ``CONVERT(expr USING charset)`` (sqlglot: a
CAST to ``CHARACTER SET``): the engine keeps every string as Unicode text, so the conversion is the string value
itself; :func:`rewrite_checksum` runs in ``Executor.fix_functions``.

Source: MySQL 8.4 Reference Manual "Cast Functions and Operators" (CONVERT ... USING); Percona Toolkit 3.2.1 man
page pt-table-checksum (the checksum query).
"""

from __future__ import annotations

from sqlglot import exp

__all__ = ["rewrite_checksum"]


def rewrite_checksum(tree: exp.Expression) -> exp.Expression:
    """Rewrite ``tree`` in place for SQLite: CONVERT(x USING cs) -> x."""
    for node in list(tree.find_all(exp.Cast)):
        if node.to.this == exp.DataType.Type.CHARACTER_SET:
            node.replace(node.this)
    return tree
