"""SOURCE_POS_WAIT / MASTER_POS_WAIT: wait until the replica's applier has executed up to a source position.

``SOURCE_POS_WAIT(log_name, log_pos [, timeout [, channel]])`` blocks until the applier's executed source
position (SHOW REPLICA STATUS ``Relay_Source_Log_File`` / ``Exec_Source_Log_Pos``) reaches ``(log_name,
log_pos)``. It returns 0 once reached (MySQL returns the number of events waited for; any value >= 0 means
reached, which is all callers test), -1 when ``timeout`` seconds (> 0; 0 or less waits without limit) pass first,
and NULL when an argument is NULL, when the server is not a replica or its SQL thread is not running, or when the
wait is interrupted (KILL QUERY). Positions compare by file name (same base, zero-padded sequence) then offset.
Percona Toolkit's pt-table-checksum calls ``MASTER_POS_WAIT`` on each replica with the source's ``SHOW MASTER
STATUS`` position before reading the replica's checksums.

Source: MySQL 8.4 Reference Manual "Functions Used with Global Transaction Identifiers" / "Miscellaneous
Functions" (SOURCE_POS_WAIT; MASTER_POS_WAIT is its deprecated alias).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gtidkit.replication.channel_map import ChannelMap
    from gtidkit.replication.replica import Replica

__all__ = ["POLL_SECONDS", "pos_wait_functions", "source_pos_wait", "wait_for_position"]

#: how often the applier's position is read while waiting
POLL_SECONDS = 0.01


def source_pos_wait(
    replica: Replica, session: Any, log_name: Any, log_pos: Any, timeout: Any = None
) -> int | None:
    """Wait for the applier to reach ``(log_name, log_pos)``; 0 reached, -1 timed out, None not waitable.

    Args:
        replica: the replica role (its applier's executed source position).
        session: the calling session (its executor's ``interrupt`` event ends the wait: KILL QUERY).
        log_name, log_pos: the source binary log position.
        timeout: seconds; None, 0 or less waits without limit.
    """
    return wait_for_position(
        lambda: (replica.applier.running, replica.executed_source_position()),
        session,
        log_name,
        log_pos,
        timeout,
    )


def wait_for_position(
    probe: Callable[[], tuple[bool, tuple[str, int] | None]],
    session: Any,
    log_name: Any,
    log_pos: Any,
    timeout: Any = None,
    poll: float = POLL_SECONDS,
) -> int | None:
    """:func:`source_pos_wait` over ``probe``, which reads the channel's applier where it runs (this process, or
    the process with the replication threads: replication/forward.py).

    Args:
        probe: ``fn() -> (applier running, executed source position or None)``.
        session: the calling session (its executor's ``interrupt`` event ends the wait: KILL QUERY).
        log_name, log_pos: the source binary log position.
        timeout: seconds; None, 0 or less waits without limit.
        poll: seconds between two probes.

    Returns:
        0 reached, -1 timed out, None not waitable (an argument NULL, the applier stopped, KILL QUERY).
    """
    if log_name is None or log_pos is None:
        return None
    target = (str(log_name), int(log_pos))
    limit = float(timeout) if timeout is not None and float(timeout) > 0 else None
    deadline = None if limit is None else time.monotonic() + limit
    interrupt = session.executor.interrupt
    while True:
        running, pos = probe()
        if not running:
            return None
        if pos is not None and tuple(pos) >= target:
            return 0
        if deadline is not None and time.monotonic() >= deadline:
            return -1
        if interrupt.wait(poll):
            interrupt.clear()
            return None


def pos_wait_functions(channels: ChannelMap) -> Callable[[Any], dict[str, Callable[..., Any]]]:
    """The engine's function provider: SOURCE_POS_WAIT and MASTER_POS_WAIT bound to a session. The fourth
    argument names the channel (NULL for a channel that does not exist, mysql-test
    ``rpl_multi_source_cmd_errors``); without it the default channel is waited on, and with several channels the
    call fails with 3079 ER_REPLICA_MULTIPLE_CHANNELS_CMD (``Item_source_pos_wait::val_int``). The ROLE rows of
    the SQL function table (:mod:`gtidkit.engine.gtid.functions`)."""

    def provide(session: Any) -> dict[str, Callable[..., Any]]:
        def wait(log_name: Any, log_pos: Any, timeout: Any = None, channel: Any = None) -> int | None:
            if channel is None:
                replica = channels.one(None)
            else:
                found = channels.channels.get(str(channel).lower())
                if found is None:
                    return None
                replica = found
            return source_pos_wait(replica, session, log_name, log_pos, timeout)

        return {"SOURCE_POS_WAIT": wait, "MASTER_POS_WAIT": wait}

    return provide
