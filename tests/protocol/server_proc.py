"""Helpers: a real `gtidkit server` process on a free 127.0.0.1 port, always torn down; libmariadb via ctypes."""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import ctypes.util
import os
import random
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .client_tls import share_preferred_contexts
from .prefork import popen_gtidkit, run_gtidkit

#: every server test imports this module: its client connections share one TLS context per driver (client_tls.py:
#: a connection otherwise re-reads the system CA bundle, ~40-80 ms of CPU, and still verifies nothing)
share_preferred_contexts()


@dataclass
class ServerProcess:
    """A running server: its process, port and datadir (``supervised``: a supervisor and worker processes)."""

    proc: subprocess.Popen
    port: int
    datadir: Path
    supervised: bool = False
    #: the worker processes a supervised server runs (``--workers``; 1 for a one-process server)
    workers: int = 1

    def worker_pids(self) -> list[int]:
        """The pids of a supervised server's worker processes (its children named ``gtidkit-worker<i>``)."""
        return [pid for pid in children(self.proc.pid) if process_name(pid).startswith("gtidkit-worker")]

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 60) -> int:
        """Signal the server and wait; returns its exit status. A supervised server's worker and fork-server
        processes are waited for too (after a SIGKILL of the supervisor they die by their parent-death signal a
        moment later, holding the datadir lock until then: a restart at once could find it taken)."""
        helpers = children(self.proc.pid) if self.supervised else []
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        status = self.proc.wait(timeout)
        deadline = time.monotonic() + timeout
        while any(_running(pid) for pid in helpers) and time.monotonic() < deadline:
            time.sleep(0.01)
        return status


#: The options every test server starts with, before the test's own (a later option wins, as in mysqld): the suite
#: was written for GTIDs on and no binary log, while `gtidkit server`'s defaults are mysqld 8.0's (log_bin ON,
#: gtid_mode OFF, enforce_gtid_consistency OFF). A test that needs the binary log passes ``--log-bin``, one that
#: needs GTIDs off ``--gtid-mode=OFF``; ``running_server(..., base=())`` starts with mysqld's defaults.
BASE_ARGS = ("--gtid-mode=ON", "--enforce-gtid-consistency=ON", "--skip-log-bin")


def _ephemeral_low() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


#: where :func:`free_port` looks: below the kernel's ephemeral range, from a random point (per process)
_PORT_LOW = 10000
_PORT_HIGH = max(_PORT_LOW + 1000, _ephemeral_low())
_next_port = [random.randrange(_PORT_LOW, _PORT_HIGH)]


def free_port() -> int:
    """A free 127.0.0.1 TCP port for a test that must know a port before its server starts (or must find the
    same port again after a restart), or needs a port where nothing listens.

    The port comes from below the kernel's ephemeral range, so no ``--port 0`` server and no outgoing connection of
    any process is ever given it; each process walks the range from its own random point, checking each port by
    binding it. Lock-free: concurrent test processes (pytest-xdist workers, other checkouts) collide only if they
    reach the same port at the same instant. Servers that need no fixed port use ``--port 0``.
    """
    for _ in range(_PORT_HIGH - _PORT_LOW):
        port = _next_port[0]
        _next_port[0] = _PORT_LOW + (port + 1 - _PORT_LOW) % (_PORT_HIGH - _PORT_LOW)
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
        return port
    raise AssertionError(f"no free port in {_PORT_LOW}..{_PORT_HIGH}")


#: Set to 1 to run every `running_server` supervised (``--supervised``: a supervisor that hands each connection to
#: a worker process): the suite's results must be the same through the hand-off (issue 21).
SUPERVISED_ENV = "GTIDKIT_TEST_SUPERVISED"
#: Set to N to run every server the suite starts through its helpers with ``--workers=N`` (N >= 2: a supervisor
#: and N worker processes sharing the datadir, issue 21; 1: supervised with one worker, as :data:`SUPERVISED_ENV`;
#: 0 or unset: as :data:`SUPERVISED_ENV` says). ``make test-workers`` runs the server tests with N = 2.
WORKERS_ENV = "GTIDKIT_TEST_WORKERS"
#: Set to 1 to run every server the suite starts through its helpers (and every engine of tests/engine's
#: ``open_server``) with ``gtidkit_file_per_schema`` ON unless the test sets it (issue 21 step 9: a SQLite file
#: per schema; the lead's check of the option as a default)
FILE_PER_SCHEMA_ENV = "GTIDKIT_TEST_FILE_PER_SCHEMA"


def workers_by_default() -> int:
    """The worker processes the environment asks test servers to run: :data:`WORKERS_ENV` when set to N >= 1,
    else 1 when :data:`SUPERVISED_ENV` asks for supervised servers, else 0 (one process, no supervisor).

    Raises:
        ValueError: :data:`WORKERS_ENV` is not a whole number >= 0.
    """
    raw = os.environ.get(WORKERS_ENV, "").strip()
    if raw:
        n = int(raw)
        if n < 0:
            raise ValueError(f"{WORKERS_ENV}={raw}: a worker count >= 0 is needed")
        if n:
            return n
    return 1 if os.environ.get(SUPERVISED_ENV, "") not in ("", "0") else 0


def supervised_by_default() -> bool:
    """Whether the environment (:data:`WORKERS_ENV` or :data:`SUPERVISED_ENV`) asks for supervised servers."""
    return workers_by_default() > 0


def mode_args(workers: int | None = None) -> tuple[str, ...]:
    """The `gtidkit server` options of a test server's process model: ``("--workers=1",)`` for one process
    (``workers`` 0), ``("--supervised", "--workers=N")`` for a supervisor and N >= 1 workers. ``workers`` None: as
    the environment says (:func:`workers_by_default`). Always explicit: the server's own default is the CPUs the
    process may use (issue 21 step 8), which would make the suite's process model depend on the machine. Tests
    that start `gtidkit server` without :func:`running_server` put these first in their command line, so that
    their own options win."""
    n = workers_by_default() if workers is None else workers
    layout = ("--gtidkit-file-per-schema=ON",) if os.environ.get(FILE_PER_SCHEMA_ENV) == "1" else ()
    if n <= 0:
        return ("--workers=1", *layout)
    return ("--supervised", f"--workers={n}", *layout)


def children(pid: int) -> list[int]:
    """The child processes of ``pid`` (``/proc/PID/task/*/children``)."""
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out += [int(x) for x in (task / "children").read_text().split()]
        except OSError:
            continue
    return out


def _running(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie (a zombie holds no file or lock any more)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return False
    return fields[0] != "Z"


def process_name(pid: int) -> str:
    """``/proc/PID/comm`` (a supervised server names its processes: ``gtidkit-worker0``, ``gtidkit-forksrv``)."""
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


#: ``--initialize`` without a binary log, so that a datadir's first binlog file is the first start's
#: (``binlog.000001``) when the test turns the binary log on.
INIT_ARGS = ("--skip-log-bin",)


def initialize(datadir: Path, insecure: bool = True, *extra: str) -> str:
    """`gtidkit server --initialize[-insecure] --skip-log-bin EXTRA`; returns its stderr (with the generated
    password).

    ``--initialize-insecure`` without extra options gives the same datadir every time but for its server_uuid, so it
    runs once per test process: later calls copy that datadir's files into ``datadir`` without its ``auto.cnf`` (the
    first start generates the server_uuid, as it does after a real initialize that wrote none) and return its
    stderr with the datadir's path. Saves a process start, the catalog bootstrap and four RSA keys per server.
    """
    if insecure and not extra and not (datadir.exists() and any(datadir.iterdir())):
        template, stderr = _insecure_template()
        datadir.mkdir(parents=True, exist_ok=True)
        for f in template.iterdir():
            if f.name not in _NOT_COPIED:
                shutil.copy2(f, datadir / f.name)
        return stderr.replace(str(template), str(datadir))
    return _run_initialize(datadir, insecure, *extra)


#: files of an initialized datadir that belong to one server: its server_uuid and the process lock
_NOT_COPIED = frozenset({"auto.cnf", "gtidkit.sqlite.lock"})
#: where this process's template datadir is: an environment variable, so that both names of this module
#: (``tests.protocol.server_proc`` and ``protocol.server_proc``, as the suite imports it) share one template
_TEMPLATE_ENV = f"GTIDKIT_TEST_INITIALIZED_{os.getpid()}"


def _insecure_template() -> tuple[Path, str]:
    """The datadir of one real `gtidkit server --initialize-insecure --skip-log-bin` run in this process (removed at
    exit) and its stderr."""
    where = os.environ.get(_TEMPLATE_ENV)
    if where is None:
        root = Path(tempfile.mkdtemp(prefix="gtidkit-initialized-"))
        atexit.register(shutil.rmtree, root, True)
        (root / "stderr").write_text(_run_initialize(root / "datadir", True))
        where = os.environ[_TEMPLATE_ENV] = str(root)
    return Path(where) / "datadir", (Path(where) / "stderr").read_text()


def _run_initialize(datadir: Path, insecure: bool, *extra: str) -> str:
    flag = "--initialize-insecure" if insecure else "--initialize"
    r = run_gtidkit(
        ["server", flag, "--datadir", str(datadir), *INIT_ARGS, *extra],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    return r.stderr


@contextlib.contextmanager
def running_server(
    datadir: Path,
    *args: str,
    init: bool = True,
    base: tuple[str, ...] = BASE_ARGS,
    supervised: bool | None = None,
    workers: int | None = None,
) -> Iterator[ServerProcess]:
    """Start `gtidkit server --datadir D --port 0 BASE ARGS` (initialising D first) and stop it at exit.

    ``base`` (default :data:`BASE_ARGS`: GTIDs on, no binary log) comes before ``args``, which override it.
    ``supervised``: True adds ``--supervised`` (a supervisor handing connections to worker processes), False
    starts one process; None: as the environment says (:data:`WORKERS_ENV`, :data:`SUPERVISED_ENV`; default one
    process). ``workers``: the worker processes of a supervised server (``--workers=N``, before ``args``, so a
    test's own ``--workers`` wins); None: the environment's count when ``supervised`` is None, else 1.
    """
    if supervised is None:
        n = workers_by_default() if workers is None else workers
    elif supervised:
        n = max(1, workers or 1)
    else:
        n = 0
    for a in args:  # the test's own --workers=N wins (a later option wins, as in mysqld)
        if a.startswith("--workers="):
            n = max(1, int(a.split("=", 1)[1]))
    supervised = n > 0
    args = (*mode_args(n), *args)
    if init and not datadir.exists():
        initialize(datadir)
    proc = popen_gtidkit(
        [
            "server",
            "--datadir",
            str(datadir),
            "--port",
            "0",
            "--log-error",
            "error.log",
            *base,
            *args,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert proc.stderr is not None
        port = None
        while True:
            line = proc.stderr.readline()
            if not line:
                break
            if "ready for connections" in line:
                port = int(line.rsplit("port:", 1)[1])
                break
        if port is None:
            log = (datadir / "error.log").read_text() if (datadir / "error.log").exists() else ""
            raise AssertionError(f"server did not start (rc={proc.poll()}): {log}")
        yield ServerProcess(proc, port, datadir, supervised, max(1, n))
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()


class LibMariaDB:
    """The few libmariadb calls the session-tracking oracle needs (tooling.md section 2), through ctypes."""

    SESSION_TRACK_SYSTEM_VARIABLES, SESSION_TRACK_SCHEMA, SESSION_TRACK_STATE_CHANGE, SESSION_TRACK_GTIDS = (
        0,
        1,
        2,
        3,
    )

    def __init__(self) -> None:
        name = ctypes.util.find_library("mariadb") or "libmariadb.so.3"
        lib = ctypes.CDLL(name)
        vp, cp = ctypes.c_void_p, ctypes.c_char_p
        lib.mysql_init.restype, lib.mysql_init.argtypes = vp, [vp]
        lib.mysql_real_connect.restype = vp
        lib.mysql_real_connect.argtypes = [vp, cp, cp, cp, cp, ctypes.c_uint, cp, ctypes.c_ulong]
        lib.mysql_query.argtypes = [vp, cp]
        lib.mysql_store_result.restype, lib.mysql_store_result.argtypes = vp, [vp]
        lib.mysql_free_result.argtypes = [vp]
        lib.mysql_next_result.argtypes = [vp]
        lib.mysql_error.restype, lib.mysql_error.argtypes = cp, [vp]
        lib.mysql_errno.restype, lib.mysql_errno.argtypes = ctypes.c_uint, [vp]
        lib.mysql_close.argtypes = [vp]
        for fn in (lib.mysql_session_track_get_first, lib.mysql_session_track_get_next):
            fn.argtypes = [vp, ctypes.c_int, ctypes.POINTER(vp), ctypes.POINTER(ctypes.c_size_t)]
        self.lib = lib
        self.handle: int | None = None

    def connect(self, port: int, user: str = "root", password: str = "", db: str | None = None) -> None:
        """mysql_real_connect to 127.0.0.1:port (CLIENT_MULTI_STATEMENTS)."""
        h = self.lib.mysql_init(None)
        ok = self.lib.mysql_real_connect(
            h,
            b"127.0.0.1",
            user.encode(),
            password.encode(),
            db.encode() if db else None,
            port,
            None,
            1 << 16,
        )
        if not ok:
            raise RuntimeError(self.lib.mysql_error(h))
        self.handle = h

    def query(self, sql: str) -> None:
        """mysql_query and drain every result."""
        if self.lib.mysql_query(self.handle, sql.encode()):
            raise RuntimeError(f"{self.lib.mysql_errno(self.handle)}: {self.lib.mysql_error(self.handle)}")
        while True:
            res = self.lib.mysql_store_result(self.handle)
            if res:
                self.lib.mysql_free_result(res)
            if self.lib.mysql_next_result(self.handle) != 0:
                break

    def tracked(self, kind: int) -> list[bytes]:
        """Every session-tracking value of ``kind`` in the last OK packet."""
        data, length = ctypes.c_void_p(), ctypes.c_size_t()
        out = []
        rc = self.lib.mysql_session_track_get_first(
            self.handle, kind, ctypes.byref(data), ctypes.byref(length)
        )
        while rc == 0:
            out.append(ctypes.string_at(data, length.value))
            rc = self.lib.mysql_session_track_get_next(
                self.handle, kind, ctypes.byref(data), ctypes.byref(length)
            )
        return out

    def close(self) -> None:
        """mysql_close."""
        if self.handle:
            self.lib.mysql_close(self.handle)
            self.handle = None
