"""Child-process bodies for the engine/shared tests: each runs in a real process of its own.

The tests start them with multiprocessing's ``forkserver`` context (:data:`CTX`): a fresh interpreter that imported
this module (and through it gtidkit.engine) once, holds no thread and no SQLite connection, and forks a child per
``Process``; no child is ever forked from the pytest process itself. Results come back on a queue as plain tuples.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import threading
import time
from pathlib import Path
from uuid import UUID

from gtidkit.engine.shared import control, waiters
from gtidkit.engine.shared.owners import GtidOwners
from gtidkit.engine.shared.service import ControlService
from gtidkit.engine.shared.shm import SharedPage
from gtidkit.engine.shared.workers import register_worker
from gtidkit.engine.shared.write_lock import SharedWriteLock
from gtidkit.errors import MySQLError

CTX = mp.get_context("forkserver")
CTX.set_forkserver_preload([__name__])

#: the repeating byte pattern of :func:`pattern_writer`: a torn read mixes two patterns' bytes
PATTERN = 0x0101010101010101


def start(target, *args) -> mp.process.BaseProcess:
    """Start ``target(*args)`` in a child of the fork server (daemon: it dies with the test process)."""
    p = CTX.Process(target=target, args=args, daemon=True)
    p.start()
    return p


def counter_writer(datadir: str, name: str, values: list[int], ready, go) -> None:
    """Publish ``values`` one after the other in counter ``name``, starting when ``go`` is set."""
    page = SharedPage.attach(datadir)
    ready.set()
    go.wait(30)
    c = page.counter(name)
    for v in values:
        c.set(v)


def pattern_writer(datadir: str, name: str, seconds: float, ready) -> None:
    """Store ``i * PATTERN`` (i = 1..255, cycling: never 0) in counter ``name`` as fast as possible for
    ``seconds``."""
    page = SharedPage.attach(datadir)
    c = page.counter(name)
    c.set(PATTERN)
    ready.set()
    end = time.monotonic() + seconds
    i = 1
    while time.monotonic() < end:
        for _ in range(1000):
            i = i % 255 + 1
            c.set(i * PATTERN)
    c.set(0xFF * PATTERN)


def sid_registrar(datadir: str, sid: str, tag: str, out) -> None:
    """Register ``sid:tag`` in the sid map and report its index."""
    page = SharedPage.attach(datadir)
    out.put(page.sid_index(UUID(sid), tag))


def lock_contender(
    datadir: str, worker_id: int, conn_id: int, rounds: int, shared_file: str, go, out, threads: int = 1
) -> None:
    """``rounds`` times per thread (``threads`` sessions of this worker, each with its own handle and connection
    id ``conn_id + i``): take the write lock, read-increment-write ``shared_file`` slowly (a lost update shows a
    missing mutual exclusion), and create/remove an ``inside`` marker with O_EXCL (two holders collide)."""
    page = SharedPage.attach(datadir)
    register_worker(page, worker_id)
    marker = Path(shared_file).with_suffix(".inside")
    collisions = [0]

    def session(conn: int) -> None:
        lock = SharedWriteLock(page, datadir, worker_id)
        for _ in range(rounds):
            lock.acquire(conn, timeout=60)
            try:
                fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
                os.close(fd)
            except FileExistsError:
                collisions[0] += 1
            value = int(Path(shared_file).read_text() or 0)
            time.sleep(0)  # give the others a chance to run inside, if they could
            Path(shared_file).write_text(str(value + 1))
            marker.unlink(missing_ok=True)
            lock.release()
        lock.close()

    go.wait(30)
    ts = [threading.Thread(target=session, args=(conn_id + i,)) for i in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    out.put(("done", worker_id, collisions[0]))


def lock_holder(datadir: str, worker_id: int, conn_id: int, acquired, release) -> None:
    """Take the write lock, set ``acquired``, hold it until ``release`` is set (or forever), release it."""
    page = SharedPage.attach(datadir)
    register_worker(page, worker_id)
    lock = SharedWriteLock(page, datadir, worker_id)
    lock.acquire(conn_id, timeout=30)
    acquired.set()
    release.wait(600)
    lock.release()


def lock_waiter(datadir: str, worker_id: int, conn_id: int, timeout: float, ready, out) -> None:
    """Serve this worker's control socket (KILL of ``conn_id`` sets its kill flag and wakes its wait), then wait
    for the write lock; report ``("ok", seconds, CPU seconds of this process meanwhile)`` or ``("error", code,
    seconds)``."""
    page = SharedPage.attach(datadir)
    register_worker(page, worker_id)
    lock = SharedWriteLock(page, datadir, worker_id)
    killed = threading.Event()
    sock = control.ControlSocket(page.token, worker_id)

    def handle(msg: control.ControlMessage) -> bytes | None:
        if msg.op == control.OP_KILL_QUERY and int(msg.body) == conn_id:
            killed.set()  # Session.interrupt's flag ...
            waiters.wake_connection(page, conn_id)  # ... and the wake-up of its wait, wherever it sleeps
        return None

    threading.Thread(target=sock.serve, args=(handle,), daemon=True).start()
    ready.set()
    t0, c0 = time.monotonic(), time.process_time()
    try:
        lock.acquire(conn_id, timeout=timeout, killed=killed.is_set)
    except MySQLError as err:
        out.put(("error", err.code, time.monotonic() - t0))
        return
    out.put(("ok", time.monotonic() - t0, time.process_time() - c0))
    lock.release()
    sock.close()


def gtid_owner(
    datadir: str, worker_id: int, conn_id: int, sid: str, gno: int, owned, release, commit: bool
) -> None:
    """Own ``sid:gno``, set ``owned``, wait for ``release``; with ``commit`` publish ``committed = gno`` first (the
    GTID is then executed), then release it."""
    page = SharedPage.attach(datadir)
    register_worker(page, worker_id)
    owners = GtidOwners(page, worker_id)
    assert owners.claim(UUID(sid), gno, conn_id, timeout=5) == "owned"
    owned.set()
    release.wait(600)
    if commit:
        page.counter("committed").set(gno)
    owners.release(UUID(sid), gno, conn_id)


def gtid_claimant(
    datadir: str, worker_id: int, conn_id: int, sid: str, gno: int, timeout: float, ready, out
) -> None:
    """Claim ``sid:gno`` (an ``executed`` check reads the ``committed`` counter); report the outcome, the seconds
    it took and the CPU seconds this process used meanwhile."""
    page = SharedPage.attach(datadir)
    register_worker(page, worker_id)
    owners = GtidOwners(page, worker_id)
    committed = page.counter("committed")
    ready.set()
    t0, c0 = time.monotonic(), time.process_time()
    try:
        state = owners.claim(
            UUID(sid), gno, conn_id, timeout=timeout, executed=lambda: committed.get() >= gno
        )
    except MySQLError as err:
        out.put(("error", err.code, time.monotonic() - t0))
        return
    out.put((state, time.monotonic() - t0, time.process_time() - c0))


def control_worker(datadir: str, worker_id: int, rows: int, ready) -> None:
    """A worker answering requests: OP_PROCESSLIST -> ``rows`` rows of its own (one line each), any other op ->
    the body reversed; a notification is echoed back to its sender as a notification with op + 100."""
    page = SharedPage.attach(datadir)
    sock = control.ControlSocket(page.token, worker_id)

    def handle(msg: control.ControlMessage) -> bytes | None:
        if msg.reply_to is None:
            sock.send(msg.sender, msg.op + 100, msg.body)
            return None
        if msg.op == control.OP_PROCESSLIST:
            return "\n".join(f"{worker_id * 1000 + i}\troot\tlocalhost\tQuery" for i in range(rows)).encode()
        return msg.body[::-1]

    ready.set()
    sock.serve(handle)


def page_lock_holder(datadir: str, acquired, release) -> None:
    """Hold the page lock until ``release`` is set (the test SIGKILLs this process instead)."""
    page = SharedPage.attach(datadir)
    with page.locked():
        acquired.set()
        release.wait(600)


def gtid_racer(datadir: str, worker_id: int, conn_id: int, sid: str, gnos: int, go, out) -> None:
    """Try to own every GNO 1..``gnos`` of ``sid`` at once with the others (non-blocking); report the ones won."""
    page = SharedPage.attach(datadir)
    owners = GtidOwners(page, worker_id)
    go.wait(30)
    won = [g for g in range(1, gnos + 1) if owners.try_claim(UUID(sid), g, conn_id) is None]
    out.put((worker_id, won))


def service_worker(datadir: str, worker_id: int, workers: int, ready) -> None:
    """A worker running a :class:`ControlService` (ids 0 .. ``workers`` - 1): op 40 answers ``<its id><-<asker>:
    <body>``, op 41's handler raises (answered empty), op 42 has no handler (answered empty)."""
    page = SharedPage.attach(datadir)
    svc = ControlService()
    svc.register(40, lambda m: b"%d<-%d:%s" % (worker_id, m.sender, m.body))

    def fail(_m: control.ControlMessage) -> bytes:
        raise RuntimeError("a handler that fails")

    svc.register(41, fail)
    svc.start(page.token, worker_id, workers)
    ready.set()
    time.sleep(600)


def saved_adder(datadir: str, worker_id: int, n: int, go) -> None:
    """Count ``n`` saved transactions one at a time in worker ``worker_id``'s word, starting when ``go`` is set."""
    from gtidkit.engine.shared.workers import add_saved

    page = SharedPage.attach(datadir)
    go.wait(10)
    for _ in range(n):
        add_saved(page, worker_id, 1)
    page.close()
