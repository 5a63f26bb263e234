"""Binlog group commit (issue 21 §8 step 2): one WAL fsync for the transactions committed while a leader syncs,
``binlog_group_commit_sync_delay`` / ``binlog_group_commit_sync_no_delay_count`` as RM8 defines them, and a server
whose concurrent committers share fsyncs while the binary log, gtid_executed and the published end stay exact."""

from __future__ import annotations

import threading
import time

import pytest

from gtidkit.binlog.file import read_transactions
from gtidkit.engine.binlog.group_sync import GroupSync
from gtidkit.errors import MySQLError
from gtidkit.gtid import GtidSet


def _waiters(group: GroupSync, seqs: list[int], sync, **kw) -> tuple[list[threading.Thread], list[object]]:
    out: list[object] = []

    def wait(seq: int) -> None:
        try:
            out.append(group.wait_durable(seq, sync, **kw))
        except OSError as err:
            out.append(err)

    threads = [threading.Thread(target=wait, args=(q,)) for q in seqs]
    for t in threads:
        t.start()
    return threads, out


def test_one_fsync_covers_every_transaction_committed_before_it():
    group = GroupSync()
    calls: list[int] = []
    seqs = [group.committed_one() for _ in range(8)]
    threads, led = _waiters(group, seqs, lambda: calls.append(group.committed))
    for t in threads:
        t.join(10)
    assert calls == [8] and sorted(led) == [False] * 7 + [True]  # one leader, seven followers
    assert group.synced == 8 and group.fsyncs == 1
    assert group.wait_durable(3, lambda: calls.append(-1)) is False  # already covered: no fsync


def test_a_committer_arriving_during_the_fsync_leads_the_next_group():
    group = GroupSync()
    started, release = threading.Event(), threading.Event()

    def slow_sync() -> None:
        started.set()
        release.wait(10)

    first = group.committed_one()
    threads, _ = _waiters(group, [first], slow_sync)
    assert started.wait(10)
    late = [
        group.committed_one() for _ in range(3)
    ]  # committed while the leader's fsync runs: not covered by it
    more, led = _waiters(group, late, lambda: None)
    time.sleep(0.05)
    assert group.synced == 0
    release.set()
    for t in threads + more:
        t.join(10)
    assert group.synced == 4 and group.fsyncs == 2 and sorted(led) == [False, False, True]


@pytest.mark.parametrize(
    ("delay_us", "no_delay_count", "committers", "least_s", "most_s"),
    [
        pytest.param(0, 5, 1, 0.0, 0.15, id="no-delay-count-alone-has-no-effect"),
        pytest.param(300_000, 0, 1, 0.29, 5.0, id="delay-waits-its-whole-time"),
        pytest.param(2_000_000, 3, 3, 0.0, 1.5, id="count-reached-ends-the-delay"),
    ],
)
def test_sync_delay_and_no_delay_count(delay_us, no_delay_count, committers, least_s, most_s):
    group = GroupSync()
    seqs = [group.committed_one() for _ in range(committers)]
    t0 = time.monotonic()
    assert group.wait_durable(seqs[-1], lambda: None, delay_us=delay_us, no_delay_count=no_delay_count)
    assert least_s <= time.monotonic() - t0 <= most_s


def test_delay_ends_when_the_count_arrives_meanwhile():
    group = GroupSync()
    first = group.committed_one()
    threads, led = _waiters(group, [first], lambda: None, delay_us=3_000_000, no_delay_count=3)
    time.sleep(0.05)
    t0 = time.monotonic()
    group.committed_one()
    group.committed_one()  # the third transaction of the group: the leader stops waiting
    threads[0].join(10)
    assert led == [True] and time.monotonic() - t0 < 1.5 and group.synced == 3


def test_a_failed_fsync_raises_in_its_leader_and_the_next_waiter_retries():
    group = GroupSync()
    seqs = [group.committed_one() for _ in range(2)]
    failures = [OSError(5, "Input/output error")]

    def flaky() -> None:
        if failures:
            raise failures.pop()

    threads, out = _waiters(group, seqs, flaky)
    for t in threads:
        t.join(10)
    assert sum(isinstance(o, OSError) for o in out) == 1 and True in out
    assert group.synced == 2 and group.fsyncs == 1


def test_drain_waits_for_transactions_in_their_sync_stage():
    group = GroupSync()
    group.committed_one()
    assert not group.drain(timeout=0.05)
    group.done()
    assert group.drain(timeout=0)


def test_variables(open_server):
    s = open_server(log_bin=True).session()
    assert s.execute(
        "SELECT @@GLOBAL.binlog_group_commit_sync_delay, @@GLOBAL.binlog_group_commit_sync_no_delay_count"
    )[-1].rows == [(0, 0)]
    s.execute(
        "SET GLOBAL binlog_group_commit_sync_delay = 1000000, binlog_group_commit_sync_no_delay_count = 100000"
    )
    assert s.execute(
        "SELECT @@GLOBAL.binlog_group_commit_sync_delay, @@GLOBAL.binlog_group_commit_sync_no_delay_count"
    )[-1].rows == [(1000000, 100000)]
    with pytest.raises(MySQLError) as exc:
        s.execute("SET SESSION binlog_group_commit_sync_delay = 10")
    assert exc.value.code == 1229  # ER_GLOBAL_VARIABLE


@pytest.mark.parametrize("with_applier", [False, True], ids=["clients", "clients-and-applier"])
def test_concurrent_committers_share_fsyncs_and_the_binlog_stays_exact(open_server, with_applier):
    from gtidkit.engine.storage import Connection

    srv = open_server(log_bin=True, gtid_mode="ON", max_binlog_size=8192)
    s = srv.session()
    s.execute("CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(1000))")
    # a delay makes groups form whatever the machine's load: the leader waits for 4 transactions (or 50 ms)
    s.execute(
        "SET GLOBAL binlog_group_commit_sync_delay = 50000, binlog_group_commit_sync_no_delay_count = 4"
    )
    fsyncs = [0]
    real = Connection.sync_wal

    def counted(self) -> None:
        fsyncs[0] += 1
        real(self)

    Connection.sync_wal = counted  # type: ignore[method-assign]
    threads_n, per_thread = 4, 40
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            sess = srv.session()
            if with_applier and n == 0:
                # a replica applier's commits keep the fsync inside COMMIT and the lock through their rotation,
                # which must wait for the client commits still in their sync stage (Previous_gtids below)
                from types import SimpleNamespace

                sess.applier = SimpleNamespace(original_commit_timestamp=None, server_id=None)
            value = "y" * 1000 if sess.applier is not None else "x" * 30  # the applier's commits rotate
            for i in range(per_thread):
                sess.execute(f"INSERT INTO d.t VALUES ({n * 1000 + i}, '{value}')")
            sess.close()
        except BaseException as err:  # noqa: BLE001 - reported below
            errors.append(err)

    try:
        threads = [threading.Thread(target=work, args=(n,)) for n in range(threads_n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
    finally:
        Connection.sync_wal = real  # type: ignore[method-assign]
    assert errors == []
    n = threads_n * per_thread
    clients = n - (per_thread if with_applier else 0)
    assert fsyncs[0] < 0.75 * clients, f"{fsyncs[0]} fsyncs for {clients} client commits"
    assert s.execute("SELECT COUNT(*) FROM d.t")[-1].rows == [(n,)]
    # the binary log: every transaction once, in files that rotated at max_binlog_size; the published end is the
    # active file's end; gtid_executed = the binlogs' GTIDs
    files = srv.binlog.existing_files()
    assert len(files) > 2
    seen = GtidSet()
    count = 0
    s.execute("SET GLOBAL binlog_group_commit_sync_delay = 0")
    for name in files:
        summary = read_transactions(srv.binlog.path(name))
        assert summary.complete_end == summary.size
        # rotation waited for the transactions still in their sync stage: Previous_gtids holds every earlier one
        assert summary.previous_gtids == seen
        for tx in summary.transactions:
            assert tx.gtid not in seen
            seen.add_in_place(tx.gtid.sid, tx.gtid.tag, tx.gtid.gno)
            count += 1
    assert count == n + 2 and seen == srv.gtid_state.executed()
    end = srv.binlog.end_position()
    assert end.file == files[-1] and end.pos == srv.binlog.path(files[-1]).stat().st_size
