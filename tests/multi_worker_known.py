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
    "replica": "h-repl: replication statements from any worker reach the replication threads of worker 0",
    "replicas": "h-repl: SHOW REPLICAS lists the replicas registered in any worker",
    "status": "h-rest: server-wide status counters (Prepared_stmt_count, ...) count every worker",
}

#: test node id (without the server-mode parameter; a bare function name covers all its other parameters) ->
#: the key of :data:`BEHAVIOURS` it needs
KNOWN: dict[str, str] = {}


#: listed tests that would never end against a multi-worker server (a wait without a timeout for what another worker
#: did) or stall on a state another worker never shows: marked ``xfail(run=False)`` there, so ``make test`` neither
#: hangs nor stalls on them; their one-process runs still check them. Remove a row as soon as the behaviour lands
#: (empty since h-rest's pass: every such test runs).
NOT_RUN: frozenset[str] = frozenset()


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
