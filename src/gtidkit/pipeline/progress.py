"""Progress while the job runs: stage, files done / total and MB/s, on stderr.

On a terminal a rich progress bar is redrawn in place; otherwise (``make demo | tee``, a CI log, cron) a plain
line is printed when a stage starts and at most every :attr:`PipelineProgress.line_interval_s` seconds while
it runs, so a log shows the job moving. The local engine reports each scanned file (:meth:`file_done`); under
Spark a thread polls the driver's ``StatusTracker`` (active stages → completed/total tasks) and the scan's
files and bytes are estimated from the share of its tasks done (a task reads a packed group of files of about
equal size, ``datasource.pack_files``). Spark's own console progress bar is switched off (session.py).
"""

from __future__ import annotations

import signal
import threading
import time
from types import TracebackType
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from gtidkit.pipeline.layout import FileSpec, Layout


def _mb(n: float) -> str:
    return f"{n / 1e6:,.1f} MB"


class PipelineProgress:
    """Context manager: ``with PipelineProgress(layout, spark) as p: run_pipeline(..., on_stage=p.stage,
    on_file=p.file_done)``.

    Args:
        layout: the input (files and bytes to scan; for an incremental run, pass ``scan_files``/``scan_bytes``
            through :meth:`set_scan` once known).
        spark: the session to poll, or None (local engine).
        console: where to draw (default: stderr).
        enabled: False draws nothing.
        line_interval_s: seconds between two plain progress lines of one stage.
    """

    line_interval_s = 3.0

    def __init__(
        self,
        layout: Layout,
        spark: Any = None,
        console: Console | None = None,
        *,
        enabled: bool = True,
        poll_s: float = 0.25,
    ) -> None:
        self._console = console or Console(stderr=True)
        self._live = self._console.is_terminal
        self._enabled = enabled
        self._tracker = spark.sparkContext.statusTracker() if spark is not None else None
        self._poll_s = poll_s
        self.total_files = len(layout.files)
        self.total_bytes = layout.total_bytes
        self.files_done = 0
        self.bytes_done = 0
        self.tasks: tuple[int, int] | None = None
        self.name = "starting"
        self.done_stages: list[str] = []
        self._stage_t0 = time.monotonic()
        self._last_line = 0.0
        self._last_text = ""
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._bar = Progress(
            SpinnerColumn(),
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            TextColumn("{task.fields[detail]}"),
            TimeElapsedColumn(),
            console=self._console,
            transient=True,
        )
        self._task = self._bar.add_task("starting", total=None, detail="")

    def text(self) -> str:
        """The current progress as one line: ``scan: 5/12 files, 1.2/3.0 MB, 4.1 MB/s``."""
        with self._lock:
            name, files, nbytes, tasks = self.name, self.files_done, self.bytes_done, self.tasks
        elapsed = max(time.monotonic() - self._stage_t0, 1e-6)
        if name != "scan":
            extra = f", Spark tasks {tasks[0]}/{tasks[1]}" if tasks else ""
            return f"{name}{extra} ({elapsed:.0f} s)"
        approx = "≈" if self._tracker is not None else ""
        return (
            f"scan: {approx}{files}/{self.total_files} files, {approx}{_mb(nbytes)} of {_mb(self.total_bytes)}, "
            f"{approx}{nbytes / 1e6 / elapsed:,.1f} MB/s ({elapsed:.0f} s)"
        )

    def set_scan(self, files: list[FileSpec]) -> None:
        """The files the scan will actually read (an incremental run reads fewer than the layout)."""
        with self._lock:
            self.total_files = len(files)
            self.total_bytes = sum(f.size for f in files)

    def stage(self, name: str) -> None:
        """``name`` starts (the previous stage is over)."""
        if self.name == "scan":  # the scan's totals, once: what a log keeps of the throughput
            with self._lock:
                self.files_done, self.bytes_done = self.total_files, self.total_bytes
            self._show(force=True)
        with self._lock:
            if self.name != "starting":
                self.done_stages.append(self.name)
            self.name = name
            self.tasks = None
            self._stage_t0 = time.monotonic()
        self._show(force=True)

    def file_done(self, spec: FileSpec) -> None:
        """One file was scanned (local engine)."""
        with self._lock:
            self.files_done += 1
            self.bytes_done += spec.size
        self._show()

    def _show(self, force: bool = False) -> None:
        if not self._enabled:
            return
        if self._live:
            done = self.bytes_done if self.name == "scan" else None
            self._bar.update(
                self._task,
                description=self.name,
                total=self.total_bytes if self.name == "scan" else None,
                completed=done or 0,
                detail=self.text().partition(": ")[2] if self.name == "scan" else "",
            )
            return
        now = time.monotonic()
        line = f"gtidkit pipeline: {self.text()}"
        key = line.rsplit(" (", 1)[0]  # without the elapsed seconds
        # a forced line (a stage starts, the scan ends) unless it would repeat the last one; otherwise a
        # heartbeat every line_interval_s, moving or not
        if (force and key != self._last_text) or (
            not force and now - self._last_line >= self.line_interval_s
        ):
            self._last_line, self._last_text = now, key
            self._console.print(line, highlight=False, markup=False)

    def _poll(self) -> None:
        """Heartbeat (a line every :attr:`line_interval_s` even while nothing moves: planning, a large file)
        and, under Spark, the task counts of the active stages. SIGINT is blocked in this thread, so that the
        kernel hands Ctrl-C to the main thread (see :class:`gtidkit.pipeline.interrupt.SparkInterrupt`)."""
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        while not self._stop.wait(self._poll_s):
            if self._tracker is not None:
                self._poll_spark()
            self._show()

    def _poll_spark(self) -> None:
        try:
            infos = [self._tracker.getStageInfo(s) for s in self._tracker.getActiveStageIds()]
        except Exception:  # noqa: BLE001 - the JVM may be shutting down; progress is best effort
            return
        infos = [i for i in infos if i is not None]
        if not infos:
            return
        total = sum(i.numTasks for i in infos)
        done = sum(i.numCompletedTasks for i in infos)
        with self._lock:
            self.tasks = (done, total)
            if self.name == "scan" and total:
                self.files_done = max(self.files_done, round(self.total_files * done / total))
                self.bytes_done = max(self.bytes_done, round(self.total_bytes * done / total))

    def __enter__(self) -> PipelineProgress:  # noqa: PYI034 - final class
        if self._enabled and self._live:
            self._bar.start()
        if self._enabled:
            self._thread = threading.Thread(target=self._poll, name="gtidkit-progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        if self._enabled and self._live:
            self._bar.stop()
