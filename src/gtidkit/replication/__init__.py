"""Source and replica roles over the wire server: binlog dump, receiver (I/O thread), relay logs, applier (SQL thread).

Layer: above :mod:`gtidkit.protocol`, below :mod:`gtidkit.cli`. :func:`install` plugs both roles into a running
server (``gtidkit server`` calls it): the source side registers the protocol's command hooks (COM_REGISTER_SLAVE,
COM_BINLOG_DUMP, COM_BINLOG_DUMP_GTID), the replica side its statements in the engine's statement specs (CHANGE REPLICATION SOURCE,
START / STOP REPLICA, SHOW REPLICA STATUS ...). MySQL source: ``sql/rpl_source.cc``, ``sql/rpl_replica.cc``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

__all__ = ["Replication", "install"]


class Replication:
    """What :func:`install` plugged in: stop callbacks run in reverse order by :meth:`shutdown`."""

    def __init__(self) -> None:
        self._stops: list[Callable[[], None]] = []
        #: role objects by name ("source", "replica"), for tests and the CLI
        self.roles: dict[str, Any] = {}

    def on_shutdown(self, fn: Callable[[], None]) -> None:
        """Run ``fn()`` at :meth:`shutdown` (before the engine shuts down)."""
        self._stops.append(fn)

    def shutdown(self) -> None:
        """Stop every role (replica threads first: reverse order of registration); errors are not raised."""
        while self._stops:
            fn = self._stops.pop()
            try:
                fn()
            except Exception:  # shutdown must reach the engine's own save
                log.exception("replication shutdown step failed")


def install(engine_server: Any, wire_server: Any, *, options: dict[str, Any] | None = None) -> Replication:
    """Plug the source and replica roles into ``wire_server`` (a ``protocol.server.WireServer``) over ``engine_server``.

    Called once, before ``wire_server.start()``. ``options``: ``{"filters": {replicate_* option: values}}`` (the
    start-up replication filters; ValueError for one mysqld refuses). Returns the :class:`Replication` whose ``shutdown()`` the caller runs
    before ``engine_server.shutdown()`` (MySQL stops replica threads before the final gtid_executed save).
    """
    # the roles import this package (and the engine and protocol): loaded here, so that importing a light module
    # of the package (topology, read_your_writes) does not load the whole server side
    from gtidkit.replication import replica, source

    repl = Replication()
    # Each role adds its line here: source.install(engine_server, wire_server, repl) / replica.install(...)
    source.install(engine_server, wire_server, repl)
    replica.install(engine_server, wire_server, repl, filters=(options or {}).get("filters"))
    return repl
