"""Cross-process building blocks of the multi-worker server (issue 21, docs/design/multi_worker.md §5.2, §5.6).

Lower than engine/server.py and engine/session.py, which will build on them: only the standard library and
:mod:`gtidkit.errors` / :mod:`gtidkit.mysql_errors` are imported. Linux only (abstract Unix sockets, pidfds).

* :mod:`.shm` -- the shared page ``gtidkit.shm``: named lock-free counters, the page lock, the sid map;
* :mod:`.wakeup` -- a datagram socket per waiting thread: blocking across processes without polling;
* :mod:`.waiters` -- the waiter table (who blocks on what; wake-ups by release or by KILL);
* :mod:`.owners` -- GTID ownership across workers (``SET gtid_next`` blocks and releases);
* :mod:`.workers` -- per-worker liveness slots and :func:`~.workers.clear_worker` for a dead worker;
* :mod:`.write_lock` -- the engine write lock (``flock``; 1205 on timeout, 1317 on KILL);
* :mod:`.wal_sync` -- the WAL's group sync across processes (one fsync covers every process's commits before it);
* :mod:`.control` -- per-worker control sockets: notifications and request/response;
* :mod:`.service` -- a worker's control service: the thread serving its socket, handlers registered by op code.
"""
