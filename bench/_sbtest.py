"""sysbench's table ``sbtest1`` for the in-process instruction benchmarks (bench_dml_instructions.py,
bench_dml_statements.py, bench_row_locks_instructions.py, bench_commit_instructions.py): the definition sysbench
1.0.20's oltp_common.lua creates (``id`` AUTO_INCREMENT primary key, ``k`` with its secondary index ``k_1``,
``c`` CHAR(120), ``pad`` CHAR(60)) in a schema ``sbtest``, loaded with ``rows`` rows in one INSERT."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

__all__ = ["load_sbtest1"]


def load_sbtest1(
    execute: Callable[[str], Any], rng: random.Random, rows: int, c_text: Callable[[random.Random], str]
) -> None:
    """Create schema ``sbtest`` (and USE it) and table ``sbtest1`` with rows ``id`` 1..``rows`` (inclusive), ``k``
    drawn from ``rng`` in 0..``rows``-1, ``c`` = ``c_text(rng)`` (ASCII without quotes), ``pad`` empty.

    Args:
        execute: runs one SQL text (an engine ``Session.execute``).
        rng: the random source, so that both trees of an A/B load the same rows.
        rows: how many rows.
        c_text: the ``c`` value of one row.
    """
    execute("CREATE DATABASE sbtest; USE sbtest")
    execute(
        "CREATE TABLE sbtest1 (id INTEGER NOT NULL AUTO_INCREMENT, k INTEGER DEFAULT '0' NOT NULL, "
        "c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id))"
    )
    execute("CREATE INDEX k_1 ON sbtest1(k)")
    values = ",".join(f"({i}, {rng.randrange(rows)}, '{c_text(rng)}', '')" for i in range(1, rows + 1))
    execute(f"INSERT INTO sbtest1 (id, k, c, pad) VALUES {values}")
