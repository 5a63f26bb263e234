"""The gtid_executed compression thread (``thread/sql/compress_gtid_table``), driven by the compression period.

Source: MySQL ``sql/rpl_gtid_persist.cc`` (``compress_gtid_table``, ``Gtid_table_persistor::compress``) and
``sql/rpl_gtid_state.cc``; RM8 ``gtid_executed_compression_period``; MySQL Bug #86692 (after the period was set
to 0 and back, the thread was never woken again — here the period is read at every wake-up, so any change takes
effect at once); ../shared/research/formats.md §5.3 and the mysql-test
``binlog_simulate_crash_and_error_on_compress_gtid_table.result`` (thread name, TYPE FOREGROUND, PROCESSLIST_COMMAND
``Daemon``, PROCESSLIST_STATE ``Suspending`` while waiting and ``Compressing gtid_executed table`` while working).

When it wakes:

* at launch (8.0.20+: the table is compressed at server start, Bug#30541799);
* binary log off: after every ``period`` transactions saved to the table (``period`` 0 = never for this reason);
* binary log on: at every rotation (the rotation saved the closed file's GTIDs as rows).

Each pass scans the rows once and collapses every run of consecutive rows; the runs are applied in short engine
transactions of at most :data:`ROWS_PER_TRANSACTION` deleted rows, each taking the engine write lock only for its
own few statements, so committers are never blocked for long.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable
from typing import TypeVar

from gtidkit.engine.gtid import table as gtid_table

log = logging.getLogger(__name__)

T = TypeVar("T")

THREAD_NAME = "thread/sql/compress_gtid_table"
STATE_SUSPENDING = "Suspending"
STATE_COMPRESSING = "Compressing gtid_executed table"
ROWS_PER_TRANSACTION = 2000

#: fn(work) runs ``work(db)`` in one short engine write transaction (taking the engine write lock) and commits.
WriteTxn = Callable[[Callable[[sqlite3.Connection], T]], T]
#: fn(work) runs ``work(db)`` on a read connection (no write lock).
ReadTxn = Callable[[Callable[[sqlite3.Connection], T]], T]


class Compressor:
    """The background compression thread.

    Args:
        write_txn: runs a function in a short write transaction (see :data:`WriteTxn`).
        read_txn: runs a function on a read connection.
        table: ``mysql.gtid_executed`` (its physical name and layout).
        period: callable returning the current ``@@GLOBAL.gtid_executed_compression_period``.
        thread_id: the id shown in performance_schema.threads.
    """

    def __init__(
        self,
        write_txn: WriteTxn,
        read_txn: ReadTxn,
        table: gtid_table.GtidTable,
        period: Callable[[], int],
        thread_id: int = 2,
    ) -> None:
        self._write_txn = write_txn
        self._read_txn = read_txn
        self._table = table
        self._period = period
        self.thread_id = thread_id
        self.state = STATE_SUSPENDING
        self.passes = 0
        self.rows_removed = 0
        self.last_error: BaseException | None = None
        self._cond = threading.Condition()
        self._pending_transactions = 0
        self._requested = True  # compress at launch
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._idle = threading.Event()

    # -- control -------------------------------------------------------------------------------------------
    def start(self, wait_launch_pass: bool = True, *, launch_pass: bool = True) -> None:
        """Launch the thread; it compresses once at launch (8.0.20+, Bug#30541799).

        Args:
            wait_launch_pass: block until that launch pass is over (default), so the table a session sees right
                after ``Server.open`` is already compressed, and the launch pass can never race the first
                transactions (mysqld likewise finishes start-up work before it accepts clients).
            launch_pass: compress at launch at all (False for a server presenting as 5.7, whose thread only
                runs every ``gtid_executed_compression_period`` transactions).
        """
        if not launch_pass:
            with self._cond:
                self._requested = False
        self._thread = threading.Thread(target=self._run, name="compress_gtid_table", daemon=True)
        self._thread.start()
        if wait_launch_pass:
            self.wait_idle(timeout=60.0)

    def stop(self) -> None:
        """Ask the thread to finish its current transaction and exit; join it."""
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def transactions_saved(self, n: int = 1) -> None:
        """Count ``n`` transactions saved to the table (binlog off); wake the thread every ``period`` of them.

        Cheap enough for the commit path: one lock, one comparison; the period is read every time, so changing
        it at run time (even to 0 and back, Bug #86692) takes effect immediately.
        """
        with self._cond:
            self._pending_transactions += n
            period = self._period()
            if period > 0 and self._pending_transactions >= period:
                self._pending_transactions = 0
                self._requested = True
                self._cond.notify_all()

    def period_changed(self) -> None:
        """Re-check the counter against a new period (SET GLOBAL gtid_executed_compression_period)."""
        self.transactions_saved(0)

    def request(self) -> None:
        """Wake the thread now (binlog rotation, explicit request)."""
        with self._cond:
            self._requested = True
            self._cond.notify_all()

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Block until no compression is requested or running (tests and shutdown use it)."""
        with self._cond:
            return self._cond.wait_for(
                lambda: not self._requested and self.state == STATE_SUSPENDING, timeout
            )

    def thread_row(self) -> dict[str, object]:
        """The performance_schema.threads row of this thread."""
        return {
            "THREAD_ID": self.thread_id,
            "NAME": THREAD_NAME,
            "TYPE": "FOREGROUND",
            "PROCESSLIST_ID": None,
            "PROCESSLIST_USER": None,
            "PROCESSLIST_HOST": None,
            "PROCESSLIST_DB": None,
            "PROCESSLIST_COMMAND": "Daemon",
            "PROCESSLIST_TIME": None,
            "PROCESSLIST_STATE": self.state,
            "PROCESSLIST_INFO": None,
        }

    # -- the thread ----------------------------------------------------------------------------------------
    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._requested and not self._stopping:
                    self._cond.wait()
                if self._stopping:
                    self.state = STATE_SUSPENDING
                    self._cond.notify_all()
                    return
                self._requested = False
                self.state = STATE_COMPRESSING
            try:
                self.compress()
            except Exception as err:  # noqa: BLE001 - a failed pass leaves rows uncompressed; never kill the thread
                self.last_error = err
                log.warning("Failed to compress the gtid_executed table: %s", err)
            with self._cond:
                self.state = STATE_SUSPENDING
                self._cond.notify_all()

    def compress(self) -> int:
        """One compression pass: collapse every run of consecutive rows. Returns rows removed.

        Safe to call from any thread (the thread calls it; so may tests and shutdown).
        """
        rows = self._read_txn(lambda db: gtid_table.read_rows(db, self._table))
        runs = gtid_table.find_runs(rows)
        removed = 0
        batch: list[list[tuple[str, int, int, str]]] = []
        size = 0
        for run in runs:
            batch.append(run)
            size += len(run) - 1
            if size >= ROWS_PER_TRANSACTION:
                removed += self._apply(batch)
                batch, size = [], 0
                if self._stopping:
                    break
        if batch:
            removed += self._apply(batch)
        self.passes += 1
        self.rows_removed += removed
        return removed

    def _apply(self, batch: list[list[tuple[str, int, int, str]]]) -> int:
        def work(db: sqlite3.Connection) -> int:
            return sum(gtid_table.collapse_run(db, self._table, run) for run in batch)

        return self._write_txn(work)
