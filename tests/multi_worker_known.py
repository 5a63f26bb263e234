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
    "replica": "not assigned: replication statements from any worker reach the replication threads of worker 0",
    "replicas": "not assigned: SHOW REPLICAS lists the replicas registered in any worker",
    "status": "not assigned: server-wide status counters (Prepared_stmt_count, ...) count every worker",
}

#: test node id (without the server-mode parameter; a bare function name covers all its other parameters) ->
#: the key of :data:`BEHAVIOURS` it needs
KNOWN: dict[str, str] = {
    "tests/cli/test_binlog_remote.py::test_raw_copy_is_byte_identical[gtids]": "dump",
    "tests/cli/test_binlog_remote.py::test_raw_copy_is_byte_identical[positions]": "dump",
    "tests/protocol/test_driver_ci.py::test_max_prepared_stmt_count": "status",
    "tests/protocol/test_innodb_status_wire.py::test_transactions_and_lock_wait": "processlist",
    "tests/replication/test_accounts_replicate.py::test_created_account_logs_in_on_the_replica": "replica",
    "tests/replication/test_accounts_replicate.py::test_grant_revoke_alter_drop_apply_on_the_replica": "replica",
    "tests/replication/test_accounts_replicate.py::test_readme_read_your_writes_example": "replica",
    "tests/replication/test_bench_replica_read_load.py::test_replica_read_load_quick_catches_up_with_equal_data": "replica",
    "tests/replication/test_failover.py::test_failover_promote_b_c_follows_a_errant": "replica",
    "tests/replication/test_gtid_only_replication.py::test_change_source_writes_the_current_positions": "replica",
    "tests/replication/test_gtid_only_replication.py::test_positions_not_persisted_and_restart_resumes": "replica",
    "tests/replication/test_gtid_only_replication.py::test_require_row_format_stops_on_statement_dml": "replica",
    "tests/replication/test_json_typed_scalars_wire.py::test_a_replica_keeps_the_types": "replica",
    "tests/replication/test_monitoring_queries.py::test_tool_query_answers": "replica",
    "tests/replication/test_monitoring_queries.py::test_what_the_tools_read": "replica",
    "tests/replication/test_multi_source.py::test_stop_one_channel_keeps_the_other_and_restart_resumes_both": "replica",
    "tests/replication/test_multi_source.py::test_two_sources_merge_into_one_gtid_executed": "replica",
    "tests/replication/test_pt_table_checksum.py::test_equal_then_one_changed_row[chunks-of-30]": "replica",
    "tests/replication/test_pt_table_checksum.py::test_equal_then_one_changed_row[one-chunk]": "replica",
    "tests/replication/test_pt_table_checksum.py::test_new_types_through_compressed_transactions": "replica",
    "tests/replication/test_read_your_writes.py::test_the_wait_is_woken_by_the_replica_commit": "processlist",
    "tests/replication/test_relay_log_position.py::test_applier_starts_at_the_relay_position": "replica",
    "tests/replication/test_relay_log_position.py::test_errors[auto-position-5.7-spelling]": "replica",
    "tests/replication/test_relay_log_position.py::test_errors[auto-position]": "replica",
    "tests/replication/test_relay_log_position.py::test_errors[missing-file]": "replica",
    "tests/replication/test_relay_log_position.py::test_heartbeats_reach_replication_connection_status": "replica",
    "tests/replication/test_relay_log_position.py::test_until_sql_after_mts_gaps": "replica",
    "tests/replication/test_replica_crash.py::test_replica_killed_while_applying_resumes_exactly[binlog-off]": "replica",
    "tests/replication/test_replica_crash.py::test_replica_killed_while_applying_resumes_exactly[log-replica-updates]": "replica",
    "tests/replication/test_replica_e2e.py::test_errant_gtids_are_warned_by_show_replica_status": "replica",
    "tests/replication/test_replica_e2e.py::test_fatal_receiver_errors": "replica",
    "tests/replication/test_replica_e2e.py::test_replicate_restart_stop_start_reset": "replica",
    "tests/replication/test_replica_e2e.py::test_source_restart_reconnects": "replica",
    "tests/replication/test_replica_e2e.py::test_source_ssl_connects_over_tls_and_verifies_the_source_certificate": "replica",
    "tests/replication/test_replica_operations.py::test_read_only_and_super_read_only": "replica",
    "tests/replication/test_replica_operations.py::test_relay_log_purge_off_keeps_files_then_recovery_discards_them": "replica",
    "tests/replication/test_replica_operations.py::test_relay_log_space_limit_waits_for_the_applier": "replica",
    "tests/replication/test_replica_operations.py::test_replica_options_are_variables": "replica",
    "tests/replication/test_replica_operations.py::test_seconds_behind_source_counts_from_the_transaction_being_applied": "replica",
    "tests/replication/test_replica_operations.py::test_show_replicas_reports_host_and_port": "replica",
    "tests/replication/test_replica_operations.py::test_skip_errors_goes_on_with_the_gtid": "replica",
    "tests/replication/test_replica_operations.py::test_worker_and_coordinator_tables": "replica",
    "tests/replication/test_replica_operations.py::test_worker_error_with_its_gtid_then_stop": "replica",
    "tests/replication/test_replica_positions.py::test_anonymous_transaction_refused_under_auto_position": "global",
    "tests/replication/test_replica_positions.py::test_assign_gtids_to_anonymous_transactions": "replica",
    "tests/replication/test_replica_positions.py::test_explicit_dml_on_gtid_executed_is_not_binlogged": "replica",
    "tests/replication/test_replica_positions.py::test_filtered_replica": "replica",
    "tests/replication/test_replica_positions.py::test_five_seven_spellings_warn_as_mysql_8_0": "replica",
    "tests/replication/test_replica_positions.py::test_gtid_mode_off_replica": "global",
    "tests/replication/test_replica_positions.py::test_gtid_transaction_refused_by_the_receiver_once_gtid_mode_is_off": "replica",
    "tests/replication/test_replica_positions.py::test_ignore_server_ids_and_source_delay": "replica",
    "tests/replication/test_replica_positions.py::test_position_based_replication_starts_at_the_given_position": "replica",
    "tests/replication/test_replica_positions.py::test_relay_log_recovery": "replica",
    "tests/replication/test_replica_positions.py::test_source_with_gtid_mode_off_refused_by_an_on_replica": "replica",
    "tests/replication/test_replica_positions.py::test_start_replica_until": "replica",
    "tests/replication/test_replica_positions.py::test_threads_and_relaylog_events": "replica",
    "tests/replication/test_row_logging_readers.py::test_gtidkit_replica_applies_minimal_compressed_rows_query_binlogs": "replica",
    "tests/replication/test_row_logging_readers.py::test_replica_stops_on_rows_it_cannot_apply_with_mysqls_errors": "replica",
    "tests/replication/test_ryw_replication.py::test_stale_without_the_wait_fresh_with_it": "replica",
    "tests/replication/test_ryw_replication.py::test_the_applier_gets_null": "replica",
    "tests/replication/test_source.py::test_register_slave_and_show_replicas": "replicas",
    "tests/replication/test_source.py::test_zombie_by_server_id_without_uuid": "dump",
    "tests/replication/test_statement_replay.py::test_replica_replays_the_source_statement_context[mixed]": "replica",
    "tests/replication/test_statement_replay.py::test_replica_replays_the_source_statement_context[statement]": "replica",
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
#: as MySQL defines the statement) or spend a minute waiting for a state another worker never shows: marked
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
