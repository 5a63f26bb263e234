"""SHOW ENGINE INNODB STATUS: the InnoDB Monitor's text, with what the engine knows in the places tools read.

MySQL answers one row, ``Type`` ``InnoDB``, ``Name`` empty, ``Status`` the Standard Monitor's output (RM8 17.17.3
"InnoDB Standard Monitor and Lock Monitor Output"; ``srv_printf_innodb_monitor`` in ``storage/innobase/srv``): a
banner, then sections, each a title between two lines of dashes as long as the title, in this order: BACKGROUND
THREAD, SEMAPHORES, LATEST DETECTED DEADLOCK (only after a deadlock), TRANSACTIONS, FILE I/O, INSERT BUFFER AND
ADAPTIVE HASH INDEX, LOG, BUFFER POOL AND MEMORY, ROW OPERATIONS, and ``END OF INNODB MONITOR OUTPUT``. It needs
the PROCESS privilege (1227).

Tools split the text on those titles and match single lines: pt-stalk / pt-mysql-summary and innotop read
``History list length N``, ``Trx id counter N``, the ``---TRANSACTION id, ACTIVE n sec`` blocks with their
``MySQL thread id N, OS thread handle H, query id Q host user state`` lines and ``LOCK WAIT`` /
``TRX HAS BEEN WAITING n SEC``; monitoring plugins (Percona's ``ss_get_mysql_stats``, Zabbix and Datadog
templates) read ``Log sequence number N``, ``Log flushed up to N``, ``Last checkpoint at N``, ``Buffer pool size
N``, ``Free buffers N``, ``Database pages N``, ``Modified db pages N``, ``N queries inside InnoDB, N queries in
queue``, ``N read views open inside InnoDB`` and ``Number of rows inserted N, updated N, deleted N, read N``.
Those lines are here with MySQL's spelling and spacing.

What the values are here (SQLite underneath, one write lock for the server, engine/lock_waits.py): the
transactions are the sessions (a session in a transaction is ``ACTIVE``, the write lock's holder for as long as it
holds it, a session waiting for it ``LOCK WAIT`` with how long it has waited); ``Trx id counter`` counts the write
transactions since start-up; the history list is 0 (SQLite keeps no undo history to purge); no deadlock can happen
with one lock, so LATEST DETECTED DEADLOCK never appears (a wait ends in 1205 instead); the log sequence number
is the bytes of the database file and its WAL; database pages are SQLite's pages, counted against MySQL's default
128 MiB pool of 16 KiB pages; read views are the sessions in a transaction. Counters the engine does not keep
(semaphores, I/O operations, rows read, adaptive hash index) are 0; rows inserted / updated / deleted are counted
as statements write them.

In a multi-worker server the TRANSACTIONS list, the read views and the row counts are the whole server's: the
asking worker adds what every other worker answers to the control op ``OP_INNODB_STATUS`` (:func:`serve`: its
sessions and its row counts), as InnoDB's one process walks every ``trx_t``.
"""

from __future__ import annotations

import datetime as _dt
import json
import logging
import os
import threading
import time
import weakref
from typing import TYPE_CHECKING, Any

from gtidkit.engine import lock_waits
from gtidkit.engine.results import StatementResult
from gtidkit.engine.shared.control import OP_INNODB_STATUS
from gtidkit.engine.shared.service import PEER_TIMEOUT

if TYPE_CHECKING:
    from gtidkit.engine.server import Server
    from gtidkit.engine.session import Session

__all__ = ["count_rows", "innodb_status_text", "row_status", "serve", "show_engine_innodb_status"]

log = logging.getLogger("gtidkit.server")

#: MySQL's default innodb_buffer_pool_size (128 MiB) in 16 KiB pages: the pool the page counts are reported in
_POOL_PAGES = 8192
#: when each server's status was last printed (the "Per second averages" interval starts there)
_LAST_PRINTED: weakref.WeakKeyDictionary[Any, float] = weakref.WeakKeyDictionary()
#: rows each server's statements inserted / updated / deleted since start-up (ROW OPERATIONS)
_ROWS: weakref.WeakKeyDictionary[Any, dict[str, int]] = weakref.WeakKeyDictionary()


def count_rows(server: Server, changes: list[Any]) -> None:
    """Count a statement's row changes (``RowChange.kind``: insert / update / delete) for ROW OPERATIONS' "Number of
    rows inserted N, updated N, deleted N": InnoDB counts a row when it is written (``srv_stats.n_rows_*``), so
    rows of a transaction rolled back later stay counted."""
    counts = _ROWS.get(server)
    if counts is None:
        counts = _ROWS[server] = {"insert": 0, "update": 0, "delete": 0}
    for ch in changes:
        counts[ch.kind] += 1


def _local_entries(server: Server, asking: Session | None) -> list[dict[str, Any]]:
    """This process's sessions as the TRANSACTIONS list needs them: id, whether in a transaction, the ``MySQL
    thread id`` line, whether it is the asking session."""
    return [
        {"id": s.id, "trx": s.in_transaction(), "line": _thread_line(s, asking), "asking": s is asking}
        for s in server.sessions()
    ]


def _rows(server: Server) -> dict[str, int]:
    return dict(_ROWS.get(server) or {"insert": 0, "update": 0, "delete": 0})


def row_status(server: Server) -> dict[str, int]:
    """This process's Innodb_rows_inserted / Innodb_rows_updated / Innodb_rows_deleted (SHOW GLOBAL STATUS: the
    rows :func:`count_rows` counted; a multi-worker server sums every worker's, protocol/admin.py)."""
    rows = _rows(server)
    return {name: rows.get(kind, 0) for kind, name in _ROW_STATUS.items()}


#: RowChange.kind -> its SHOW GLOBAL STATUS counter
_ROW_STATUS = {
    "insert": "Innodb_rows_inserted",
    "update": "Innodb_rows_updated",
    "delete": "Innodb_rows_deleted",
}


def serve(server: Server) -> None:
    """Answer ``OP_INNODB_STATUS`` for the other workers of a multi-worker server: this process's sessions and row
    counts (JSON). Harmless in one process: the control service never starts there."""
    server.control.register(
        OP_INNODB_STATUS,
        lambda _m: json.dumps({"sessions": _local_entries(server, None), "rows": _rows(server)}).encode(),
    )


def _server_wide(server: Server, asking: Session | None) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Every worker's sessions (sorted by id) and the summed row counts: this process's, plus the other workers'
    answers (a worker that does not answer within PEER_TIMEOUT is left out, with a warning)."""
    entries, rows = _local_entries(server, asking), _rows(server)
    for worker, answer in sorted(server.control.ask_peers(OP_INNODB_STATUS, timeout=PEER_TIMEOUT).items()):
        if answer is None:
            log.warning("worker %d did not answer for SHOW ENGINE INNODB STATUS", worker)
            continue
        theirs = json.loads(answer)
        entries.extend(theirs["sessions"])
        for kind, n in theirs["rows"].items():
            rows[kind] = rows.get(kind, 0) + int(n)
    entries.sort(key=lambda e: int(e["id"]))
    return entries, rows


def _section(title: str) -> str:
    rule = "-" * len(title)
    return f"{rule}\n{title}\n{rule}\n"


def show_engine_innodb_status(session: Session, query: str) -> StatementResult:
    """The result of SHOW ENGINE INNODB STATUS (``query``: the statement as the client sent it, printed on the
    asking thread's line as InnoDB prints a thread's query): columns Type, Name, Status and its one row."""
    from gtidkit.engine.sql.metadata import result_set

    return result_set(
        ["Type", "Name", "Status"], [("InnoDB", "", innodb_status_text(session.server, session, query))]
    )


def innodb_status_text(server: Server, asking: Session | None = None, query: str = "") -> str:
    """The Status column's text for ``server`` (``asking``: the session running the SHOW, whose own line shows its
    statement ``query``)."""
    now = time.time()
    last = _LAST_PRINTED.get(server, server.started_at)
    _LAST_PRINTED[server] = now
    interval = max(1, int(now - last))
    stamp = _dt.datetime.fromtimestamp(now).strftime("%Y-%m-%d %H:%M:%S")
    uptime = max(0, int(now - server.started_at))
    entries, rows = _server_wide(server, asking)
    out = [
        "\n=====================================\n",
        f"{stamp} 0x{threading.get_ident():x} INNODB MONITOR OUTPUT\n",
        "=====================================\n",
        f"Per second averages calculated from the last {interval} seconds\n",
        _section("BACKGROUND THREAD"),
        f"srv_master_thread loops: 0 srv_active, 0 srv_shutdown, {uptime} srv_idle\n",
        "srv_master_thread log flush and writes: 0\n",
        _section("SEMAPHORES"),
        "OS WAIT ARRAY INFO: reservation count 0\n",
        "OS WAIT ARRAY INFO: signal count 0\n",
        "RW-shared spins 0, rounds 0, OS waits 0\n",
        "RW-excl spins 0, rounds 0, OS waits 0\n",
        "RW-sx spins 0, rounds 0, OS waits 0\n",
        "Spin rounds per wait: 0.00 RW-shared, 0.00 RW-excl, 0.00 RW-sx\n",
        _transactions(server, entries, now, query),
        _section("FILE I/O"),
        *(
            f"I/O thread {i} state: waiting for completed aio requests ({kind} thread)\n"
            for i, kind in _IO_THREADS
        ),
        "Pending normal aio reads: [0, 0, 0, 0] , aio writes: [0, 0, 0, 0] ,\n",
        " ibuf aio reads:, log i/o's:, sync i/o's:\n",
        "Pending flushes (fsync) log: 0; buffer pool: 0\n",
        "0 OS file reads, 0 OS file writes, 0 OS fsyncs\n",
        "0.00 reads/s, 0 avg bytes/read, 0.00 writes/s, 0.00 fsyncs/s\n",
        _section("INSERT BUFFER AND ADAPTIVE HASH INDEX"),
        "Ibuf: size 1, free list len 0, seg size 2, 0 merges\n",
        "merged operations:\n insert 0, delete mark 0, delete 0\n",
        "discarded operations:\n insert 0, delete mark 0, delete 0\n",
        *("Hash table size 34679, node heap has 0 buffer(s)\n" for _ in range(8)),
        "0.00 hash searches/s, 0.00 non-hash searches/s\n",
        _log(server),
        _buffer_pool(server),
        _row_operations(entries, rows),
        "----------------------------\n",
        "END OF INNODB MONITOR OUTPUT\n",
        "============================\n",
    ]
    return "".join(out)


#: InnoDB's I/O threads as 8.0 lists them with the default 4 read and 4 write threads
_IO_THREADS = [
    (0, "insert buffer"),
    (1, "log"),
    *((i, "read") for i in range(2, 6)),
    *((i, "write") for i in range(6, 10)),
]


def _transactions(server: Server, entries: list[dict[str, Any]], now: float, query: str) -> str:
    """TRANSACTIONS: the counters, then one block per session of every worker (``LIST OF TRANSACTIONS FOR EACH
    SESSION``; ``entries`` as :func:`_server_wide` returns them)."""
    # every worker's transactions holding or waiting for the write lock or a schema file's (engine/lock_waits.py)
    # and, with gtidkit_row_locks, the row and table locks (engine/shared/row_locks.py)
    trxs = lock_waits.transactions(server.lock_view(), server.other_locks())
    counter = server.lock_waits.acquisitions + 1
    lines = [
        _section("TRANSACTIONS"),
        f"Trx id counter {counter}\n",
        f"Purge done for trx's n:o < {counter} undo n:o < 0 state: running but idle\n",
        "History list length 0\n",
        "LIST OF TRANSACTIONS FOR EACH SESSION:\n",
    ]
    for e in entries:
        sid = int(e["id"])
        trx = trxs.get(sid)
        requested, waiting_since = (trx.requested, trx.wait_started) if trx is not None else (None, None)
        active = e["trx"] or trx is not None
        if not active:
            lines.append(f"---TRANSACTION {_NOT_STARTED_BASE + sid}, not started\n")
            lines.append("0 lock struct(s), heap size 1128, 0 row lock(s)\n")
        else:
            started = trx.started if trx is not None else now
            lines.append(f"---TRANSACTION {sid}, ACTIVE {max(0, int(now - started))} sec\n")
            locks = 1 if trx is not None else 0
            wait = "LOCK WAIT " if requested is not None else ""
            lines.append(f"{wait}{locks} lock struct(s), heap size 1128, 0 row lock(s)\n")
        lines.append(e["line"])
        if e["asking"]:
            lines.append(f"{query.strip()}\n")
        if trx is not None and waiting_since is not None:
            lines.append(
                f"------- TRX HAS BEEN WAITING {max(0, int(now - waiting_since))} SEC FOR THIS LOCK TO BE GRANTED:\n"
            )
            lines.append(_waited_lock_line(sid, trx))
            lines.append("------------------\n")
    return "".join(lines)


def _waited_lock_line(sid: int, trx: lock_waits.Trx) -> str:
    """The line after ``TRX HAS BEEN WAITING``: the lock transaction ``sid`` waits for, as InnoDB's lock printer
    writes a table lock (``TABLE LOCK table `db`.`t` trx id N lock mode X waiting``) or a record lock (``RECORD LOCKS
    ... index PRIMARY of table ... trx id N lock_mode X locks rec but not gap waiting``, lock0lock.cc
    ``lock_rec_print``). gtidkit's locks: the engine write lock (table `gtidkit`.`write`), a schema file's (every
    table of the schema, engine/schema_files.py), and with ``gtidkit_row_locks`` a row or table lock, named by its
    keys in hex as INNODB_TRX's lock ids name it (the lock table keeps hashes, not names: engine/shared/row_locks.py).
    """
    held = f" held by trx id {trx.holder}" if trx.holder else ""
    kind, _, key = (trx.requested or "").partition(":gtidkit:")[2].partition(":")
    if kind == "row":
        return f"RECORD LOCKS gtidkit key {key} index PRIMARY trx id {sid} lock_mode X locks rec but not gap waiting{held}\n"
    if kind == "table":
        return f"TABLE LOCK table gtidkit key {key} trx id {sid} lock mode X waiting{held}\n"
    table = "`gtidkit`.`write`" if trx.schema is None else f"`{trx.schema}`.`*`"
    return f"TABLE LOCK table {table} trx id {sid} lock mode X waiting{held}\n"


#: InnoDB prints a transaction that has not started with an id above every real one (its trx_t address based)
_NOT_STARTED_BASE = 421_000_000_000_000


def _thread_line(s: Session, asking: Session | None) -> str:
    """``MySQL thread id N, OS thread handle H, query id Q host user state`` of one session."""
    who = str(getattr(s.executor, "user", "") or "")
    user, _, host = who.partition("@")
    state = s.stage or ("starting" if s is asking else "")
    text = f"MySQL thread id {s.id}, OS thread handle 0, query id 0 {host or 'localhost'} {user or 'system user'}"
    return (text + (f" {state}" if state else "")) + "\n"


def _log(server: Server) -> str:
    """LOG: the log sequence number is the bytes written to the database file and its WAL."""
    lsn = server.storage.disk_bytes()
    rows = [
        ("Log sequence number", lsn),
        ("Log buffer assigned up to", lsn),
        ("Log buffer completed up to", lsn),
        ("Log written up to", lsn),
        ("Log flushed up to", lsn),
        ("Added dirty pages up to", lsn),
        ("Pages flushed up to", lsn),
        ("Last checkpoint at", lsn),
        ("Log minimum file id is", 0),
        ("Log maximum file id is", 0),
    ]
    body = "".join(f"{name:<29}{value}\n" for name, value in rows)
    return _section("LOG") + body + "0 log i/o's done, 0.00 log i/o's/second\n"


def _buffer_pool(server: Server) -> str:
    """BUFFER POOL AND MEMORY: SQLite's pages counted against MySQL's default pool."""
    page_size = 16384
    try:
        path = str(server.storage.path)
        pages = (os.path.getsize(path) + page_size - 1) // page_size
    except (OSError, AttributeError):
        pages = 0
    database = min(pages, _POOL_PAGES)
    free = _POOL_PAGES - database
    old = database * 3 // 8  # innodb_old_blocks_pct 37
    return _section("BUFFER POOL AND MEMORY") + "".join(
        [
            "Total large memory allocated 0\n",
            "Dictionary memory allocated 0\n",
            f"Buffer pool size   {_POOL_PAGES}\n",
            f"Free buffers       {free}\n",
            f"Database pages     {database}\n",
            f"Old database pages {old}\n",
            "Modified db pages  0\n",
            "Pending reads      0\n",
            "Pending writes: LRU 0, flush list 0, single page 0\n",
            "Pages made young 0, not young 0\n",
            "0.00 youngs/s, 0.00 non-youngs/s\n",
            f"Pages read {database}, created 0, written 0\n",
            "0.00 reads/s, 0.00 creates/s, 0.00 writes/s\n",
            "No buffer pool page gets since the last printout\n",
            "Pages read ahead 0.00/s, evicted without access 0.00/s, Random read ahead 0.00/s\n",
            f"LRU len: {database}, unzip_LRU len: 0\n",
            "I/O sum[0]:cur[0], unzip sum[0]:cur[0]\n",
        ]
    )


def _row_operations(entries: list[dict[str, Any]], rows: dict[str, int]) -> str:
    """ROW OPERATIONS: read views are the sessions in a transaction; rows written as :func:`count_rows` counted
    them (rows read are not counted: 0); both over every worker (:func:`_server_wide`)."""
    views = sum(1 for e in entries if e["trx"])
    return _section("ROW OPERATIONS") + "".join(
        [
            "0 queries inside InnoDB, 0 queries in queue\n",
            f"{views} read views open inside InnoDB\n",
            f"Process ID={os.getpid()}, Main thread ID=0 , state=sleeping\n",
            f"Number of rows inserted {rows['insert']}, updated {rows['update']}, deleted {rows['delete']}, read 0\n",
            "0.00 inserts/s, 0.00 updates/s, 0.00 deletes/s, 0.00 reads/s\n",
            "Number of system rows inserted 0, updated 0, deleted 0, read 0\n",
            "0.00 inserts/s, 0.00 updates/s, 0.00 deletes/s, 0.00 reads/s\n",
        ]
    )
