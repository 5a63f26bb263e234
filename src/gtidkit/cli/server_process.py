"""A `gtidkit server` child process on a free 127.0.0.1 port: start, stop (SIGTERM), crash (SIGKILL), restart.

Used by ``gtidkit demo`` and the replication stress scripts in ``bench/``; the test suite has its own fixture
(``tests/protocol/server_proc.py``). The port is read from mysqld's start line on stderr (``ready for connections.
... port: N``), so ``--port 0`` lets the OS pick a free one.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

from typing_extensions import Self

__all__ = ["ServerProcess", "initialize"]


def initialize(datadir: Path, *extra: str) -> None:
    """``gtidkit server --initialize-insecure --datadir DATADIR EXTRA...`` (root@localhost with an empty password).

    Raises:
        RuntimeError: the command failed (its stderr is in the message).
    """
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "gtidkit",
            "server",
            "--initialize-insecure",
            "--datadir",
            str(datadir),
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if r.returncode != 0:
        raise RuntimeError(f"initialize {datadir} failed: {r.stderr.strip()}")


class ServerProcess:
    """One `gtidkit server` process over ``datadir`` started with mysqld-style ``args`` (e.g. ``--skip-log-bin``).

    The server's defaults are mysqld 8.0's (binary log ON, gtid_mode OFF): pass what the process needs.

    ``port`` keeps the first run's port across :meth:`restart`, so replicas pointed at it reconnect.
    """

    def __init__(self, datadir: Path, *args: str, port: int = 0) -> None:
        self.datadir = Path(datadir)
        self.args = list(args)
        self.port = port
        self.proc: subprocess.Popen[str] | None = None

    def start(self, timeout: float = 120) -> ServerProcess:
        """Start the server and wait for its start line (a datadir without accounts is initialised first).

        Raises:
            RuntimeError: the server exited before it was ready (the error log's tail is in the message).
        """
        if not (self.datadir / "gtidkit.sqlite").exists():
            initialize(self.datadir, *self.args)  # mysqld --initialize reads the same options as the server
        cmd = [
            sys.executable,
            "-m",
            "gtidkit",
            "server",
            "--datadir",
            str(self.datadir),
            "--port",
            str(self.port),
        ]
        cmd += ["--log-error", "error.log", *self.args]
        self.proc = subprocess.Popen(
            cmd,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        ready = threading.Event()
        found: list[int] = []
        stderr = self.proc.stderr
        assert stderr is not None

        def read() -> None:
            for line in stderr:
                if not found and "ready for connections" in line:
                    found.append(int(line.rsplit("port:", 1)[1]))
                    ready.set()
            ready.set()

        threading.Thread(target=read, daemon=True).start()
        ready.wait(timeout)
        if not found:
            self.stop(signal.SIGKILL)
            log = self.datadir / "error.log"
            tail = log.read_text()[-2000:] if log.exists() else ""
            raise RuntimeError(f"server on {self.datadir} did not start: {tail}")
        self.port = found[0]
        return self

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 120) -> int | None:
        """Send ``sig`` (SIGTERM = clean shutdown, SIGKILL = crash) and wait; returns the exit status."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()

    def kill(self) -> None:
        """SIGKILL: the server dies at once, as in a power cut of the process (the engine's recovery runs at start)."""
        self.stop(signal.SIGKILL)

    def restart(self) -> ServerProcess:
        """Start again on the same datadir and port after :meth:`stop` or :meth:`kill`."""
        return self.start()

    def __enter__(self) -> Self:
        if self.proc is None:
            self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
