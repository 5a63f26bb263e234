"""Progress while the job runs: the current stage and Spark's task counts, drawn by rich.

Spark's own console progress bar is switched off (session.py); instead a thread polls the driver's
``StatusTracker`` (active stages → completed/total tasks; in the scan stage one task is one binlog file).
"""

from __future__ import annotations

import threading
from types import TracebackType

from pyspark.sql import SparkSession
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
)


class SparkProgress:
    """Context manager: ``with SparkProgress(spark) as p: run_pipeline(..., on_stage=p.stage)``."""

    def __init__(
        self,
        spark: SparkSession,
        console: Console | None = None,
        *,
        interval_s: float = 0.25,
        enabled: bool = True,
    ) -> None:
        self._tracker = spark.sparkContext.statusTracker()
        self._console = console or Console(stderr=True)
        self._interval = interval_s
        self._enabled = enabled
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._progress = Progress(
            SpinnerColumn(),
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("tasks"),
            TimeElapsedColumn(),
            console=self._console,
            transient=True,
        )
        self._task = self._progress.add_task("starting", total=None)
        self._name = "starting"

    def stage(self, name: str) -> None:
        """Show ``name`` as the current pipeline stage."""
        self._name = name
        self._progress.update(self._task, description=name)

    def _poll(self) -> None:
        while not self._stop.wait(self._interval):
            try:
                infos = [self._tracker.getStageInfo(s) for s in self._tracker.getActiveStageIds()]
            except Exception:  # noqa: BLE001, S112 - the JVM may be shutting down; progress is best effort
                continue
            infos = [i for i in infos if i is not None]
            if infos:
                total = sum(i.numTasks for i in infos)
                done = sum(i.numCompletedTasks for i in infos)
                self._progress.update(
                    self._task,
                    total=total,
                    completed=done,
                    description=f"{self._name} ({len(infos)} Spark stage(s))",
                )

    def __enter__(self) -> SparkProgress:  # noqa: PYI034 - final class
        if self._enabled:
            self._progress.start()
            self._thread = threading.Thread(target=self._poll, name="gtidkit-progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        if self._enabled:
            self._progress.stop()
