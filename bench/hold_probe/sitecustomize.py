"""Write-lock probe for bench/bench_rw_hold.py (bench only; imported as ``sitecustomize`` when this directory is on
PYTHONPATH, which only that script sets for the server it starts).

In every worker process of ``gtidkit server --workers=N`` (a process forked by the fork server) a thread waits for the file
``$GK_PROBE_DIR/start``, then wraps, for that process only: the shared write lock's acquire / try_acquire /
release (wall time of each hold and of each blocking acquire, the holder thread's CPU during the hold,
``time.thread_time``), the WAL fsync of the sync stage (wall time, count), and the CPU of a few commit-path
functions (``time.thread_time`` per call). When ``$GK_PROBE_DIR/dump`` appears it writes what it collected to
``$GK_PROBE_DIR/probe.<pid>.json``. Nothing is changed in the product code; the wrappers cost about 2 µs per call.
"""

from __future__ import annotations

import json
import os
import threading
import time

_DIR = os.environ.get("GK_PROBE_DIR")

#: (module, class or None, function, label): CPU per call of these, in the hold or around it
_CPU = (
    ("gtidkit.engine.follow", "Follower", "catch_up", "catch-up (commit log of other workers)"),
    ("gtidkit.engine.gtid.commit", None, "commit", "commit (whole: in the lock + sync stage)"),
    ("gtidkit.engine.gtid.commit", None, "_sync_stage", "sync stage (release, fsync wait, publish)"),
    ("gtidkit.engine.binlog.log", "BinlogLog", "write_transaction", "binlog encode + write"),
    ("gtidkit.engine.storage", "Connection", "commit", "SQLite COMMIT"),
    ("gtidkit.engine.server", "Server", "acquire_write_lock", "acquire_write_lock"),
    ("gtidkit.engine.server", "Server", "release_write_lock", "release_write_lock"),
)


def _install() -> None:
    import importlib

    from gtidkit.engine import storage
    from gtidkit.engine.shared import write_lock as wl

    rec: dict[str, object] = {"hold": [], "hold_cpu": [], "wait": [], "fsync": [], "cpu": {}}
    local = threading.local()
    acq, rel, tacq = wl.SharedWriteLock.acquire, wl.SharedWriteLock.release, wl.SharedWriteLock.try_acquire

    def _held() -> None:
        local.t, local.c = time.perf_counter(), time.thread_time()

    def acquire(self, *a, **k):  # type: ignore[no-untyped-def]
        t0 = time.perf_counter()
        acq(self, *a, **k)
        rec["wait"].append(time.perf_counter() - t0)  # type: ignore[attr-defined]
        _held()

    def try_acquire(self, *a, **k):  # type: ignore[no-untyped-def]
        got = tacq(self, *a, **k)
        if got:
            _held()
        return got

    def release(self):  # type: ignore[no-untyped-def]
        t = getattr(local, "t", None)
        rel(self)
        if t is not None:
            rec["hold"].append(time.perf_counter() - t)  # type: ignore[attr-defined]
            rec["hold_cpu"].append(time.thread_time() - local.c)  # type: ignore[attr-defined]
            local.t = None

    wl.SharedWriteLock.acquire, wl.SharedWriteLock.try_acquire = acquire, try_acquire
    wl.SharedWriteLock.release = release
    sync_wal = storage.Connection.sync_wal

    def timed_sync(self):  # type: ignore[no-untyped-def]
        t0 = time.perf_counter()
        sync_wal(self)
        rec["fsync"].append(time.perf_counter() - t0)  # type: ignore[attr-defined]

    storage.Connection.sync_wal = timed_sync
    cpu: dict[str, list[float]] = rec["cpu"]  # type: ignore[assignment]
    for mod, cls, name, label in _CPU:
        m = importlib.import_module(mod)
        owner = getattr(m, cls) if cls else m
        orig = getattr(owner, name)

        def wrapped(*a, _orig=orig, _label=label, **k):  # type: ignore[no-untyped-def]
            c0 = time.thread_time()
            try:
                return _orig(*a, **k)
            finally:
                acc = cpu.setdefault(_label, [0, 0.0])
                acc[0] += 1
                acc[1] += time.thread_time() - c0

        setattr(owner, name, wrapped)
    local.rec = rec
    _state["rec"] = rec


_state: dict[str, object] = {}


def _watch() -> None:
    assert _DIR is not None
    while not os.path.exists(os.path.join(_DIR, "start")):
        time.sleep(0.1)
    _install()
    while not os.path.exists(os.path.join(_DIR, "dump")):
        time.sleep(0.1)
    with open(os.path.join(_DIR, f"probe.{os.getpid()}.json"), "w") as fh:
        json.dump(_state["rec"], fh)


def _after_fork() -> None:
    """Start the watcher in a worker only: a process forked by the fork server or its intermediate child (it still
    bears the fork server's name, ``gtidkit-forksrv``, inherited at the fork), not in the fork server itself, which
    refuses to run with a thread of its own (cli/fork_server.py). The parent's name cannot tell: the intermediate
    child has often exited by the time the worker looks."""
    try:
        with open("/proc/self/comm") as fh:
            name = fh.read().strip()
    except OSError:
        return
    if name == "gtidkit-forksrv":
        threading.Thread(target=_watch, daemon=True).start()


if _DIR:
    os.register_at_fork(after_in_child=_after_fork)
