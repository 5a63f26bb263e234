"""A throw-away Spark standalone cluster on 127.0.0.1 (one master, one worker), for the bench and a test.

Started with pyspark's own launcher, as a real deployment would start it::

    $SPARK_HOME/bin/spark-class org.apache.spark.deploy.master.Master --host 127.0.0.1 --port P
    $SPARK_HOME/bin/spark-class org.apache.spark.deploy.worker.Worker spark://127.0.0.1:P --host 127.0.0.1

``SPARK_HOME`` is the installed pyspark package. Both JVMs run in their own process group and are always killed
(SIGTERM, then SIGKILL) when the context manager exits, whatever happened inside.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


class ClusterError(RuntimeError):
    """The master or the worker did not come up in time (the message quotes the log tail)."""


def spark_home() -> Path:
    """The pyspark installation directory (it holds ``bin/spark-class`` and ``jars/``)."""
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass(slots=True)
class Cluster:
    """A running standalone cluster: ``url`` is ``spark://127.0.0.1:PORT``; ``pids`` of master and worker."""

    url: str
    master: subprocess.Popen
    worker: subprocess.Popen
    workdir: Path

    @property
    def pids(self) -> tuple[int, int]:
        """(master pid, worker pid)."""
        return self.master.pid, self.worker.pid


def _env(workdir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            "SPARK_HOME": str(spark_home()),
            "SPARK_LOCAL_IP": "127.0.0.1",
            "SPARK_LOG_DIR": str(workdir / "logs"),
            "SPARK_WORKER_DIR": str(workdir / "work"),
            "PYSPARK_PYTHON": env.get("PYSPARK_PYTHON", sys.executable),
            "SPARK_NO_DAEMONIZE": "1",
        }
    )
    return env


def _wait_for(proc: subprocess.Popen, log: Path, needle: str, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        text = log.read_text(errors="replace") if log.exists() else ""
        if needle in text:
            return
        if proc.poll() is not None:
            raise ClusterError(f"process exited with {proc.returncode}: {text[-2000:]}")
        time.sleep(0.2)
    text = log.read_text(errors="replace") if log.exists() else ""
    raise ClusterError(f"timed out after {timeout_s:.0f} s waiting for {needle!r}: {text[-2000:]}")


def _kill(proc: subprocess.Popen) -> None:
    if proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


@contextlib.contextmanager
def standalone_cluster(
    workdir: str | Path, *, cores: int = 2, memory: str = "1g", timeout_s: float = 90.0
) -> Iterator[Cluster]:
    """Start a master and one worker on 127.0.0.1, yield the :class:`Cluster`, always kill both.

    Args:
        workdir: scratch directory for logs and the worker's work dir.
        cores: cores the worker offers.
        memory: memory the worker offers (Spark size string).
        timeout_s: how long to wait for each JVM to be ready.

    Raises:
        ClusterError: a JVM exited early or did not get ready in time.
    """
    work = Path(workdir)
    (work / "logs").mkdir(parents=True, exist_ok=True)
    (work / "work").mkdir(parents=True, exist_ok=True)
    spark_class = str(spark_home() / "bin" / "spark-class")
    port = free_port()
    url = f"spark://127.0.0.1:{port}"
    env = _env(work)
    master_log, worker_log = work / "logs" / "master.log", work / "logs" / "worker.log"
    master = worker = None
    try:
        with open(master_log, "wb") as mlog:
            master = subprocess.Popen(
                [
                    spark_class,
                    "org.apache.spark.deploy.master.Master",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(port),
                    "--webui-port",
                    str(free_port()),
                ],
                stdout=mlog,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,
            )
        _wait_for(master, master_log, "I have been elected leader", timeout_s)
        with open(worker_log, "wb") as wlog:
            worker = subprocess.Popen(
                [
                    spark_class,
                    "org.apache.spark.deploy.worker.Worker",
                    url,
                    "--host",
                    "127.0.0.1",
                    "--cores",
                    str(cores),
                    "--memory",
                    memory,
                    "--webui-port",
                    str(free_port()),
                    "--work-dir",
                    str(work / "work"),
                ],
                stdout=wlog,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,
            )
        _wait_for(worker, worker_log, "Successfully registered with master", timeout_s)
        yield Cluster(url=url, master=master, worker=worker, workdir=work)
    finally:
        for proc in (worker, master):
            if proc is not None:
                _kill(proc)
