"""The tests that fail against a server with several worker processes because a cross-worker behaviour that
another part of issue 21's step 6 builds is not there yet (docs/design/multi_worker_suite.md lists each with the
error seen and what it needs).

``tests/conftest.py`` marks each of them ``xfail(strict=True)`` when, and only when, it runs against a multi-worker
server (the ``workers2`` param of ``server_mode``, or ``GTIDKIT_TEST_WORKERS`` >= 2): the one-process and the
one-worker runs still check everything, and a test that starts passing with two workers fails as XPASS until its
row is removed here and in the document.
"""

from __future__ import annotations

#: the cross-worker behaviours, by the part of step 6 that owns each (docs/design/multi_worker.md §5.2)
BEHAVIOURS = {
    "dump": "h-admin: a binlog dump thread sees (and wakes on) the commits and rotations of other workers",
    "flush": "h-admin: FLUSH / RESET / PURGE BINARY LOGS take effect in every worker",
    "accounts": "h-glob: CREATE USER / GRANT / ... (and the caching_sha2 fast-auth cache) reach every worker",
    "global": "h-glob: SET GLOBAL takes effect in every worker",
    "purged": "h-glob: SET GLOBAL gtid_purged reaches every worker",
    "processlist": "h-proc: SHOW PROCESSLIST / information_schema / performance_schema list every worker's sessions",
    "kill": "h-proc: KILL [QUERY] of another worker's connection",
    "owner": "h-own: SET GTID_NEXT ownership across workers",
    "status": "not assigned: server-wide status counters (Prepared_stmt_count, ...) count every worker",
}

#: test node id (without the server-mode parameter; a bare function name covers all its other parameters) ->
#: the key of :data:`BEHAVIOURS` it needs
KNOWN: dict[str, str] = {
    "tests/cli/test_binlog_remote.py::test_raw_copy_is_byte_identical[gtids]": "dump",
    "tests/cli/test_binlog_remote.py::test_raw_copy_is_byte_identical[positions]": "dump",
    "tests/cli/test_server_signals.py::test_sighup_flushes_logs_and_grants_and_keeps_running": "flush",
    "tests/protocol/test_driver_ci.py::test_max_prepared_stmt_count": "status",
    "tests/protocol/test_innodb_status_wire.py::test_transactions_and_lock_wait": "processlist",
    "tests/replication/test_read_your_writes.py::test_the_wait_is_woken_by_the_replica_commit": "processlist",
    "tests/replication/test_replica_positions.py::test_sighup_flushes_logs_and_keeps_running": "flush",
    "tests/replication/test_source.py::test_zombie_by_server_id_without_uuid": "dump",
    "tests/replication/test_wait_for_executed.py::test_already_executed_returns_zero[big-timeout-huge]": "purged",
    "tests/replication/test_wait_for_executed.py::test_already_executed_returns_zero[big-timeout-same-uuid]": "purged",
    "tests/replication/test_wait_for_executed.py::test_already_executed_returns_zero[big-timeout-single]": "purged",
    "tests/replication/test_wait_for_executed.py::test_already_executed_returns_zero[big-timeout-two-uuids]": "purged",
    "tests/replication/test_wait_for_executed.py::test_already_executed_returns_zero[no-timeout-huge]": "purged",
    "tests/replication/test_wait_for_executed.py::test_already_executed_returns_zero[no-timeout-same-uuid]": "purged",
    "tests/replication/test_wait_for_executed.py::test_already_executed_returns_zero[no-timeout-single]": "purged",
    "tests/replication/test_wait_for_executed.py::test_already_executed_returns_zero[no-timeout-two-uuids]": "purged",
    "tests/replication/test_wait_for_executed.py::test_kill_connection_stops_the_wait_at_once": "processlist",
    "tests/replication/test_wait_for_executed.py::test_kill_query_interrupts_the_wait[big-timeout]": "processlist",
    "tests/replication/test_wait_for_executed.py::test_kill_query_interrupts_the_wait[no-timeout]": "processlist",
    "tests/replication/test_wait_for_executed.py::test_owned_gtid_cannot_be_waited_for": "purged",
    "tests/replication/test_wait_for_executed.py::test_set_gtid_purged_ends_the_wait": "processlist",
    "tests/replication/test_wait_for_executed.py::test_woken_by_commits_not_before_every_gtid": "processlist",
}


#: listed tests that never end against a multi-worker server (a wait without a timeout for what another worker did,
#: as MySQL defines the statement), spend a minute waiting for a state another worker never shows, or pass or fail
#: by timing (SIGHUP reaches both workers, which may flush once or twice): marked
#: ``xfail(run=False)`` there, so ``make test`` neither hangs nor stalls on them; their one-process runs still check
#: them. Remove a row as soon as the behaviour lands.
NOT_RUN = frozenset(
    {
        "tests/replication/test_wait_for_executed.py::test_owned_gtid_cannot_be_waited_for",
        "tests/replication/test_wait_for_executed.py::test_already_executed_returns_zero[no-timeout-single]",
        "tests/replication/test_wait_for_executed.py::test_already_executed_returns_zero[no-timeout-same-uuid]",
        "tests/replication/test_wait_for_executed.py::test_already_executed_returns_zero[no-timeout-two-uuids]",
        "tests/replication/test_wait_for_executed.py::test_already_executed_returns_zero[no-timeout-huge]",
        "tests/replication/test_wait_for_executed.py::test_already_executed_returns_zero[big-timeout-single]",
        "tests/replication/test_wait_for_executed.py::test_already_executed_returns_zero[big-timeout-same-uuid]",
        "tests/replication/test_wait_for_executed.py::test_already_executed_returns_zero[big-timeout-two-uuids]",
        "tests/replication/test_wait_for_executed.py::test_already_executed_returns_zero[big-timeout-huge]",
        "tests/replication/test_source.py::test_zombie_by_server_id_without_uuid",
        "tests/cli/test_server_signals.py::test_sighup_flushes_logs_and_grants_and_keeps_running",
        "tests/replication/test_replica_positions.py::test_sighup_flushes_logs_and_keeps_running",
        "tests/replication/test_read_your_writes.py::test_the_wait_is_woken_by_the_replica_commit",
        "tests/replication/test_wait_for_executed.py::test_kill_query_interrupts_the_wait[no-timeout]",
        "tests/replication/test_wait_for_executed.py::test_kill_query_interrupts_the_wait[big-timeout]",
        "tests/replication/test_wait_for_executed.py::test_kill_connection_stops_the_wait_at_once",
        "tests/replication/test_wait_for_executed.py::test_woken_by_commits_not_before_every_gtid",
        "tests/replication/test_wait_for_executed.py::test_set_gtid_purged_ends_the_wait",
    }
)


def base_id(nodeid: str, mode_param: str = "workers2") -> str:
    """``nodeid`` without the ``mode_param`` parameter id (``t[workers2]`` -> ``t``, ``t[ROW-workers2]`` ->
    ``t[ROW]``)."""
    if "[" not in nodeid or not nodeid.endswith("]"):
        return nodeid
    head, params = nodeid[:-1].split("[", 1)
    rest = [p for p in params.split("-") if p != mode_param]
    return f"{head}[{'-'.join(rest)}]" if rest else head


def needs(nodeid: str) -> str | None:
    """The behaviour key the test ``nodeid`` waits for, or None."""
    exact = base_id(nodeid)
    if exact in KNOWN:
        return KNOWN[exact]
    return KNOWN.get(exact.split("[", 1)[0])
