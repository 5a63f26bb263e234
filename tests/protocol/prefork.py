"""Start ``python -m gtidkit ARGS`` processes as forks of one interpreter that has imported gtidkit already.

A `gtidkit server` spends most of its start-up importing the engine, sqlglot, the wire server and replication
(~0.6 of its ~0.9 s of CPU), and the suite starts several hundred of them. :func:`popen_gtidkit` hands such a
start to a *prefork* process (this file run as a script, one per test process and interpreter environment): it
imported what a server imports (``gtidkit.cli.fork_server.PRELOAD``, as the supervised server's own fork server
does) and then only forks. The forked child becomes what ``python -m gtidkit ARGS`` would have been:

- its stdin, stdout and stderr are the descriptors the caller chose (``PIPE``, ``DEVNULL``, inherited, a file),
  passed over a Unix socket (``SCM_RIGHTS``); every other descriptor of the prefork process is closed;
- its environment, working directory, ``sys.argv`` and ``sys.path[0]`` are those of ``-m gtidkit`` (or of
  ``python SCRIPT``, :func:`popen_python`: the crash drivers, which import the engine) started from
  the caller's ``cwd`` with the caller's ``env``; the signal dispositions are those of a new interpreter started
  by the caller (SIGINT ignored only when the caller ignores it);
- it runs ``gtidkit.__main__`` (``runpy``, as ``-m`` does) and exits through the interpreter's normal exit
  (non-daemon threads joined, ``atexit`` handlers run), so exit statuses, signals and output are the real ones.

The caller gets a :class:`PreforkedProcess`, a :class:`subprocess.Popen` whose ``pid`` is the server's: signals go
straight to it, and its exit status (as ``waitpid`` reports it to the prefork process, its parent) comes back over
the request's socket, so ``poll``/``wait``/``returncode`` say what a child's would. The server is real in every
way the tests look at (a process, its sockets, its files, its exit); only the imports were done before the fork.

A start is handed over to a prefork process started with the same executable and the same environment variables
of start-up and import (``PYTHON*``, the locale, ``TZ``, ``GTIDKIT_*``: one prefork process per combination), when
the call uses nothing else of ``Popen`` but ``start_new_session`` (``pass_fds``, ...); otherwise, and with
``GTIDKIT_TEST_NO_PREFORK=1``, :func:`popen_gtidkit` is plain ``subprocess.Popen``. The prefork process exits when the test process closes its stdin (its exit or death).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import secrets
import selectors
import signal
import socket
import struct
import subprocess
import sys
import threading
import types
from collections.abc import Mapping, Sequence
from typing import IO, Any

#: set to 1 to start every process with plain ``subprocess.Popen`` (the preforked path off)
NO_PREFORK_ENV = "GTIDKIT_TEST_NO_PREFORK"
#: how many descriptors a request carries: the child's stdin, stdout and stderr
_STDIO = 3
_LENGTH = struct.Struct("!I")


class PreforkedProcess(subprocess.Popen):
    """A ``python -m gtidkit`` child forked by a prefork process: ``Popen``'s interface (``pid``, ``poll``,
    ``wait``, ``send_signal``, ``communicate``, the ``stdin``/``stdout``/``stderr`` pipes, ``returncode``).

    The exit status arrives on ``channel`` (the request's socket: ``<pid>\\n`` first, ``<wait status>\\n`` when
    the prefork process reaped the child). Built only by :func:`popen_gtidkit`.
    """

    def __init__(
        self,
        args: list[str],
        pid: int,
        channel: socket.socket,
        stdio: tuple[IO[Any] | None, IO[Any] | None, IO[Any] | None],
        text_mode: bool,
        encoding: str | None,
        errors: str | None,
    ) -> None:
        # the attributes Popen's own methods (wait, communicate, send_signal, __exit__) read; no super().__init__,
        # which would start a process
        self.args = args
        self.pid = pid
        self.returncode: int | None = None
        self.stdin, self.stdout, self.stderr = stdio
        self.text_mode = self.universal_newlines = text_mode
        self.encoding, self.errors = encoding, errors
        self.pipesize = -1
        self._channel = channel
        self._pending = b""
        self._waitpid_lock = threading.Lock()
        self._sigint_wait_secs = 0.25
        self._communication_started = False
        self._closed_child_pipe_fds = True
        self._child_created = True
        self._input = None

    def _status_line(self, timeout: float | None) -> int | None:
        """The wait status from the channel (None: not within ``timeout`` seconds; 0 = do not block)."""
        self._channel.settimeout(timeout)
        while b"\n" not in self._pending:
            try:
                chunk = self._channel.recv(64)
            except (BlockingIOError, TimeoutError):
                return None
            if not chunk:  # the prefork process died before the child: its status is lost
                raise ChildProcessError(f"prefork process lost child {self.pid}")
            self._pending += chunk
        line, _, self._pending = self._pending.partition(b"\n")
        return int(line)

    def _settle(self, status: int) -> int:
        self.returncode = os.waitstatus_to_exitcode(status)
        self._channel.close()
        return self.returncode

    def _internal_poll(self, _deadstate: Any = None, **_ignored: Any) -> int | None:
        if self.returncode is not None or not self._waitpid_lock.acquire(False):
            return self.returncode
        try:
            if self.returncode is None:
                status = self._status_line(0)
                if status is not None:
                    self._settle(status)
        finally:
            self._waitpid_lock.release()
        return self.returncode

    def _wait(self, timeout: float | None) -> int:
        with self._waitpid_lock:
            if self.returncode is not None:
                return self.returncode
            status = self._status_line(timeout)
            if status is None:
                raise subprocess.TimeoutExpired(self.args, timeout or 0)
            return self._settle(status)

    def __del__(self) -> None:
        channel = getattr(self, "_channel", None)
        if channel is not None:
            channel.close()


class _Prefork:
    """One running prefork process (this file as a script) and the address it accepts requests on."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self.address = f"\0gtidkit-prefork-{os.getpid()}-{secrets.token_hex(6)}"
        self.proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), self.address[1:]],  # argv holds no NUL
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=dict(env),
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if line != b"ready\n":
            self.proc.kill()
            self.proc.wait()
            raise RuntimeError(f"prefork process did not start: {line!r}")

    def close(self) -> None:
        """Close its stdin (it exits) and reap it."""
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


#: the prefork processes of this test process by :func:`_signature`, kept in one place however many names this
#: module is imported by (``tests.protocol.prefork`` and ``protocol.prefork``, as the suite imports server_proc)
_registry = sys.modules.setdefault("_gtidkit_test_preforks", types.ModuleType("_gtidkit_test_preforks"))
if not hasattr(_registry, "preforks"):
    _registry.preforks = {}
    _registry.lock = threading.Lock()
    _registry.owner = [os.getpid()]
_preforks: dict[tuple[str, ...], _Prefork] = _registry.preforks
_preforks_lock: threading.Lock = _registry.lock
_preforks_owner: list[int] = _registry.owner


def _close_preforks() -> None:
    if _preforks_owner[0] != os.getpid():
        return
    for prefork in _preforks.values():
        prefork.close()
    _preforks.clear()


if _preforks_owner[0] == os.getpid() and not getattr(_registry, "closing", False):
    _registry.closing = True
    atexit.register(_close_preforks)


#: environment variables read while the prefork process starts and imports: the interpreter's (``PYTHON*``), the
#: locale (stdio encodings), ``TZ`` (``time`` reads it on import) and gtidkit's own (``GTIDKIT_PURE_PYTHON`` picks
#: the binlog listing's loop on import), but not the tests' switches (``GTIDKIT_TEST_*``)
_STARTUP_VARIABLES = ("PYTHON", "LC_", "LANG", "TZ", "GTIDKIT_")


def _signature(env: Mapping[str, str]) -> tuple[str, ...]:
    """What of ``env`` a new interpreter reads while it starts and imports gtidkit (:data:`_STARTUP_VARIABLES`):
    equal signatures, equal preloaded interpreters."""
    return tuple(
        sorted(
            f"{k}={v}"
            for k, v in env.items()
            if k.startswith(_STARTUP_VARIABLES) and not k.startswith("GTIDKIT_TEST_")
        )
    )


def _prefork_for(env: Mapping[str, str]) -> _Prefork:
    key = _signature(env)
    with _preforks_lock:
        if (
            _preforks_owner[0] != os.getpid()
        ):  # a fork of the test process: its parent's preforks are not ours
            _preforks.clear()
            _preforks_owner[0] = os.getpid()
        prefork = _preforks.get(key)
        if prefork is None or prefork.proc.poll() is not None:
            prefork = _preforks[key] = _Prefork(env)
        return prefork


#: ``Popen`` keyword arguments :func:`popen_gtidkit` hands over (any other one means plain ``Popen``)
_HANDLED = frozenset(
    {
        "stdin",
        "stdout",
        "stderr",
        "env",
        "cwd",
        "text",
        "universal_newlines",
        "encoding",
        "errors",
        "bufsize",
        "start_new_session",
    }
)


def popen_gtidkit(args: Sequence[str], **kwargs: Any) -> subprocess.Popen:
    """``subprocess.Popen([sys.executable, "-m", "gtidkit", *args], **kwargs)``, forked from a prefork process
    when it can be (module docstring); see :func:`popen_python`."""
    return popen_python(["-m", "gtidkit", *args], **kwargs)


def popen_python(pyargs: Sequence[str], **kwargs: Any) -> subprocess.Popen:
    """``subprocess.Popen([sys.executable, *pyargs], **kwargs)``, forked from a prefork process when it can be
    (module docstring).

    Args:
        pyargs: the command line after ``python``: ``-m MODULE ARGS...`` or ``SCRIPT ARGS...`` (no other
            interpreter option).
        kwargs: ``Popen``'s; ``stdin``/``stdout``/``stderr`` (``PIPE``, ``DEVNULL``, ``STDOUT`` for stderr, a
            file object or descriptor, None = this process's), ``env``, ``cwd``, ``text``/``universal_newlines``,
            ``encoding``, ``errors``, ``bufsize``, ``start_new_session`` (the child is a session and process group
            leader, ``setsid``, before its pid is returned, as ``Popen`` does before its exec); any other one gives
            plain ``Popen``.

    Raises:
        OSError, RuntimeError: the prefork process could not be started or reached.
    """
    argv = [sys.executable, *map(os.fspath, pyargs)]
    env = dict(os.environ if kwargs.get("env") is None else kwargs["env"])
    interpreter_option = argv[1].startswith("-") and (argv[1] != "-m" or len(argv) < 3)
    if (
        os.environ.get(NO_PREFORK_ENV, "") not in ("", "0")
        or not set(kwargs) <= _HANDLED
        or interpreter_option
    ):
        return subprocess.Popen(argv, **kwargs)
    text_mode = bool(
        kwargs.get("text")
        or kwargs.get("universal_newlines")
        or kwargs.get("encoding")
        or kwargs.get("errors")
    )
    cwd = os.fspath(kwargs.get("cwd") or os.getcwd())
    ours: list[IO[Any]] = []  # the parent's ends of pipes
    theirs: list[int] = []  # descriptors to send (closed here after sending when opened here)
    opened: list[int] = []
    try:
        for index, choice in enumerate((kwargs.get("stdin"), kwargs.get("stdout"), kwargs.get("stderr"))):
            if choice is None:
                fd = index
            elif choice == subprocess.PIPE:
                r, w = os.pipe()
                mine, fd = (w, r) if index == 0 else (r, w)
                opened.append(fd)
                ours.append(_wrap(mine, "wb" if index == 0 else "rb", text_mode, kwargs))
                theirs.append(fd)
                continue
            elif choice == subprocess.DEVNULL:
                fd = os.open(os.devnull, os.O_RDWR)
                opened.append(fd)
            elif choice == subprocess.STDOUT and index == 2:
                fd = theirs[1]
            elif isinstance(choice, int):
                fd = choice
            else:
                fd = choice.fileno()
            theirs.append(fd)
        stdio = _arrange(kwargs, ours)
        channel = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            channel.connect(_prefork_for(env).address)
            # a new interpreter keeps SIGINT ignored when its parent ignored it (exec keeps ignored signals)
            sigint_ignored = signal.getsignal(signal.SIGINT) == signal.SIG_IGN
            request = json.dumps(
                {
                    "argv": argv,
                    "env": env,
                    "cwd": cwd,
                    "sigint_ignored": sigint_ignored,
                    "new_session": bool(kwargs.get("start_new_session")),
                }
            ).encode()
            socket.send_fds(channel, [_LENGTH.pack(len(request)) + request], theirs)
            pid_line = b""
            while not pid_line.endswith(b"\n"):
                chunk = channel.recv(1)
                if not chunk:
                    raise RuntimeError(f"the prefork process could not start {argv}")
                pid_line += chunk
        except BaseException:
            channel.close()
            for f in ours:
                f.close()
            raise
    finally:
        for fd in opened:
            os.close(fd)
    return PreforkedProcess(
        argv, int(pid_line), channel, stdio, text_mode, kwargs.get("encoding"), kwargs.get("errors")
    )


def run_gtidkit(
    args: Sequence[str],
    *,
    input: str | bytes | None = None,
    capture_output: bool = False,
    timeout: float | None = None,
    check: bool = False,
    **kwargs: Any,
) -> subprocess.CompletedProcess:
    """``subprocess.run([sys.executable, "-m", "gtidkit", *args], ...)`` through :func:`popen_gtidkit`.

    Args:
        args: the command line after ``python -m gtidkit``.
        input: written to its stdin (a pipe), which is then closed.
        capture_output: stdout and stderr as pipes, returned in the result.
        timeout: seconds; the process is killed and :class:`subprocess.TimeoutExpired` raised after them.
        check: raise :class:`subprocess.CalledProcessError` on a non-zero exit status.
        kwargs: :func:`popen_gtidkit`'s.
    """
    if input is not None:
        kwargs["stdin"] = subprocess.PIPE
    if capture_output:
        kwargs["stdout"] = kwargs["stderr"] = subprocess.PIPE
    with popen_gtidkit(args, **kwargs) as proc:
        try:
            out, err = proc.communicate(input, timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise
    done = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    if check:
        done.check_returncode()
    return done


def _wrap(fd: int, mode: str, text_mode: bool, kwargs: Mapping[str, Any]) -> IO[Any]:
    """The parent's end of a pipe as ``Popen`` makes it (buffered binary, or text with its encoding)."""
    f = open(fd, mode, kwargs.get("bufsize", -1))  # noqa: SIM115 - the PreforkedProcess's, as Popen's pipes are
    if not text_mode:
        return f
    import io

    return io.TextIOWrapper(
        f,
        encoding=kwargs.get("encoding"),
        errors=kwargs.get("errors"),
        write_through=mode == "wb",
    )


def _arrange(kwargs: Mapping[str, Any], ours: list[IO[Any]]) -> tuple[IO[Any] | None, ...]:
    """(stdin, stdout, stderr) pipe ends of the parent, None where the caller asked no ``PIPE``."""
    it = iter(ours)
    return tuple(
        next(it) if kwargs.get(name) == subprocess.PIPE else None for name in ("stdin", "stdout", "stderr")
    )


# --- the prefork process (this file run as a script) -------------------------------------------------------------


def _receive(conn: socket.socket) -> tuple[dict[str, Any], list[int]]:
    """One request: its JSON (``argv``, ``env``, ``cwd``) and the child's three stdio descriptors."""
    data, fds, _flags, _addr = socket.recv_fds(conn, 1 << 16, _STDIO)
    while len(data) < _LENGTH.size or len(data) < _LENGTH.size + _LENGTH.unpack_from(data)[0]:
        chunk = conn.recv(1 << 16)
        if not chunk:
            raise EOFError("short request")
        data += chunk
    return json.loads(data[_LENGTH.size :]), fds


def _serve(address: str) -> tuple[dict[str, Any], list[int]] | None:
    """Fork a child per request, report its pid and later its wait status; returns in a child (its request and
    descriptors) and None when the test process closed stdin."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind("\0" + address)  # Linux's abstract namespace: no file to remove
    listener.listen(64)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a terminal's Ctrl-C is for the test run and the servers
    signal.set_wakeup_fd(wake_w)
    sel = selectors.DefaultSelector()
    sel.register(listener, selectors.EVENT_READ, "accept")
    sel.register(wake_r, selectors.EVENT_READ, "child")
    sel.register(sys.stdin.fileno(), selectors.EVENT_READ, "stdin")
    children: dict[int, socket.socket] = {}
    sys.stdout.buffer.write(b"ready\n")
    sys.stdout.flush()
    while True:
        for key, _events in sel.select():
            if key.data == "stdin":
                if not os.read(sys.stdin.fileno(), 4096):
                    return None
            elif key.data == "child":
                try:
                    while os.read(wake_r, 4096):
                        pass
                except BlockingIOError:
                    pass
                while children:
                    pid, status = os.waitpid(-1, os.WNOHANG)
                    if pid == 0:
                        break
                    conn = children.pop(pid, None)
                    if conn is not None:
                        with contextlib.suppress(OSError):  # the test process went away
                            conn.sendall(b"%d\n" % status)
                        conn.close()
            else:
                conn, _ = listener.accept()
                try:
                    request, fds = _receive(conn)
                except (OSError, EOFError, ValueError):
                    conn.close()
                    continue
                # a new session's child reports its setsid() before its pid goes out (a killpg of the pid
                # must find the group, as after Popen(start_new_session=True), whose exec follows the setsid)
                session_r, session_w = os.pipe() if request.get("new_session") else (-1, -1)
                pid = os.fork()
                if pid == 0:
                    # the child: drop everything of the prefork process but the request's descriptors
                    if session_w >= 0:
                        os.setsid()
                        os.close(session_r)
                        os.write(session_w, b"s")
                        os.close(session_w)
                    signal.set_wakeup_fd(-1)
                    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                    ignored = request.get("sigint_ignored")
                    signal.signal(signal.SIGINT, signal.SIG_IGN if ignored else signal.default_int_handler)
                    sel.close()
                    listener.close()
                    conn.close()
                    for other in children.values():
                        other.close()
                    os.close(wake_r)
                    os.close(wake_w)
                    return request, fds
                for fd in fds:
                    os.close(fd)
                if session_w >= 0:
                    os.close(session_w)
                    os.read(session_r, 1)  # one byte once the child leads its session (EOF: it died first)
                    os.close(session_r)
                with contextlib.suppress(OSError):  # the test process went away
                    conn.sendall(b"%d\n" % pid)
                children[pid] = conn


def _become(request: dict[str, Any], fds: list[int]) -> None:
    """In the forked child: take the request's stdio, environment, directory and command line."""
    for target, fd in enumerate(fds):
        os.dup2(fd, target)  # dup2 clears close-on-exec: inheritable as a new process's stdio is
    for fd in set(fds):
        if fd > 2:
            os.close(fd)
    os.closerange(3, 1 << 16)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    argv = request["argv"][1:]
    if argv[0] == "-m":
        sys.argv = ["-m", *argv[2:]]
        sys.path[0] = request["cwd"]  # ``-m`` puts the working directory first
    else:
        sys.argv = list(argv)
        sys.path[0] = os.path.dirname(os.path.realpath(argv[0]))  # a script's directory comes first


def _run(argv: list[str]) -> None:
    """Run the request's module or script as ``python`` would (``runpy``, as ``__main__``)."""
    import runpy

    if argv[0] == "-m":
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    else:
        runpy.run_path(argv[0], run_name="__main__")


def _preload() -> None:
    """Import what ``gtidkit server`` imports (the CLI, and what the supervised server's fork server preloads)."""
    import importlib

    from gtidkit.cli import fork_server

    for name in ("gtidkit.cli.main", "gtidkit.cli.server_cmd", *fork_server.PRELOAD):
        importlib.import_module(name)


if __name__ == "__main__":
    _preload()
    _job = _serve(sys.argv[1])
    if _job is None:
        sys.exit(0)
    _become(*_job)
    _argv = _job[0]["argv"][1:]
    del _job
    _run(_argv)
