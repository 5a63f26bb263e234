"""MySQL's ``RAND()`` generator: the session's sequence, its seeds for the Rand event, and ``RAND(N)``.

Source: ``mysys/my_rnd.cc`` (``randominit``, ``my_rnd``), ``sql/item_func.cc`` (``Item_func_rand::seed_random``),
``sql/sql_class.cc`` (``THD::init`` seeds each connection's ``thd->rand`` from the server's generator),
``sql/binlog.cc`` (``MYSQL_BIN_LOG::write_event`` logs ``thd->rand_saved_seed1/2`` in a Rand event when the
statement called ``RAND()`` without a seed), manual "Mathematical Functions" (RAND).
"""

from __future__ import annotations

import random

__all__ = ["MAX_VALUE", "MySQLRandom", "connection_random"]

#: ``my_rnd``'s modulus: both seeds stay below it and a value is ``seed1 / MAX_VALUE``.
MAX_VALUE = 0x3FFFFFFF


class MySQLRandom:
    """MySQL's ``RAND()`` generator (``my_rnd``), seeded as ``randominit`` / ``Rand_log_event`` do.

    ``seed1 = (seed1 * 3 + seed2) mod 0x3FFFFFFF``; ``seed2 = (seed1 + seed2 + 33) mod 0x3FFFFFFF``; the value is
    ``seed1 / 0x3FFFFFFF``. The Rand event stores the session's seeds *before* the statement, so a replica seeded
    with them draws the source's exact sequence.

    Args:
        seed1, seed2: the two seeds (C ``unsigned long``: taken modulo 2**64).
    """

    MAX_VALUE = MAX_VALUE
    _MASK = (1 << 64) - 1  # the seeds are C ``unsigned long`` (64-bit on the platforms MySQL ships)

    def __init__(self, seed1: int, seed2: int) -> None:
        self.seed1 = seed1 & self._MASK
        self.seed2 = seed2 & self._MASK

    @classmethod
    def from_seed(cls, n: int) -> MySQLRandom:
        """The generator of ``RAND(n)`` (``Item_func_rand::seed_random``: ``randominit(n * 0x10001 + 55555555,
        n * 0x10000001)`` in 32-bit unsigned arithmetic, each seed then taken modulo ``0x3FFFFFFF``)."""
        tmp = n & 0xFFFFFFFF
        s1 = (tmp * 0x10001 + 55555555) & 0xFFFFFFFF
        s2 = (tmp * 0x10000001) & 0xFFFFFFFF
        return cls(s1 % MAX_VALUE, s2 % MAX_VALUE)

    @property
    def seeds(self) -> tuple[int, int]:
        """``(seed1, seed2)`` now: what a Rand event logs when taken before a statement."""
        return self.seed1, self.seed2

    def __call__(self) -> float:
        """The next value in [0, 1)."""
        m = self.MAX_VALUE
        self.seed1 = ((self.seed1 * 3 + self.seed2) & self._MASK) % m
        self.seed2 = ((self.seed1 + self.seed2 + 33) & self._MASK) % m
        return self.seed1 / float(m)


#: the server-wide generator new connections draw their seeds from (MySQL's ``sql_rand``)
_SERVER_RANDOM = random.SystemRandom()


def connection_random() -> MySQLRandom:
    """A new connection's generator: seeds drawn from the server's (``THD::init``: ``randominit(&rand, tmp +
    (ulong)&rand, tmp + global_query_id)``, which only needs them to differ between connections)."""
    return MySQLRandom(_SERVER_RANDOM.randrange(MAX_VALUE), _SERVER_RANDOM.randrange(MAX_VALUE))
