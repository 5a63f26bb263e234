"""Ctrl-C while Spark runs: cancel the jobs, stop at the next stage boundary, never inside a py4j call.

PySpark's own SIGINT handler calls ``cancelAllJobs`` through py4j from the signal handler, i.e. in the middle of
whatever py4j call the main thread was making: py4j then logs two tracebacks (a re-entrant read on its socket)
before the ``KeyboardInterrupt`` surfaces. :class:`SparkInterrupt` replaces it: the handler only sets a flag
and cancels the jobs from another thread (py4j gives each thread its own connection), so the main thread's
pending call returns with Spark's "job cancelled" error; :meth:`SparkInterrupt.check` (called at every stage
boundary) and the context manager's exit turn the flag, and any error raised while it is set, into
``KeyboardInterrupt``. The JVM itself ignores SIGINT (PySpark starts it so) and is stopped by the caller.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from types import FrameType, TracebackType
from typing import Any


class SparkInterrupt:
    """``with SparkInterrupt() as ctl: spark = ctl.start(build_session, ...); run(..., on_stage=ctl.wrap(f))``."""

    def __init__(self) -> None:
        self.flag = threading.Event()
        self.spark: Any = None
        self._previous: Any = None
        self._done = threading.Event()

    def _handler(self, _signum: int, _frame: FrameType | None) -> None:
        if self.flag.is_set():
            return  # a second Ctrl-C while stopping
        self.flag.set()
        spark = self.spark
        if spark is not None:
            threading.Thread(target=self._cancel, args=(spark,), name="gtidkit-cancel", daemon=True).start()

    def _cancel(self, spark: Any) -> None:
        # the user stopped the run: what the JVM logs from here on is the cancellation's own noise (killed
        # tasks, a task result arriving after the scheduler's pool ended: "Exception in statusUpdate ...
        # RejectedExecutionException"), not news; the CLI says "interrupted" itself
        try:
            spark.sparkContext.setLogLevel("OFF")
        except Exception:  # noqa: BLE001 - the JVM may already be going away
            return
        # again and again until the main thread is out: a job submitted after the first cancel (the scan's is
        # planned before it starts) is cancelled too
        while not self._done.is_set():
            try:
                spark.sparkContext.cancelAllJobs()
            except Exception:  # noqa: BLE001 - the JVM may already be going away
                return
            self._done.wait(0.5)

    def start(self, build: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Build the session with SIGINT held back (SparkContext installs its handler while it starts), then
        install ours; a Ctrl-C during the start is delivered then and raises ``KeyboardInterrupt`` here.

        Raises:
            KeyboardInterrupt: Ctrl-C before or while Spark started (the session stays in :attr:`spark` for
                the caller to stop).
        """
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            self.spark = build(*args, **kwargs)
        finally:
            signal.signal(signal.SIGINT, self._handler)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        if self.flag.is_set():
            raise KeyboardInterrupt
        return self.spark

    def check(self) -> None:
        """Raise ``KeyboardInterrupt`` if Ctrl-C was pressed."""
        if self.flag.is_set():
            raise KeyboardInterrupt

    def wrap(self, callback: Callable[..., None] | None) -> Callable[..., None]:
        """``callback`` preceded by :meth:`check` (for ``on_stage``/``on_file``)."""

        def checked(*args: Any) -> None:
            self.check()
            if callback is not None:
                callback(*args)

        return checked

    def __enter__(self) -> SparkInterrupt:  # noqa: PYI034 - final class
        self._previous = signal.getsignal(signal.SIGINT)
        signal.signal(signal.SIGINT, self._handler)
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool:
        signal.signal(
            signal.SIGINT, self._previous if self._previous is not None else signal.default_int_handler
        )
        if self.flag.is_set() and exc_type is not KeyboardInterrupt:
            raise KeyboardInterrupt from None  # Spark's "job cancelled", or a clean finish after Ctrl-C
        return False


def stop_quietly(spark: Any) -> None:
    """Stop the session and its JVM, ignoring Ctrl-C meanwhile and py4j errors after an interrupted call (the
    JVM also exits with this process: its gateway watches our stdin)."""
    if spark is None:
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        spark.stop()
    except Exception:  # noqa: BLE001, S110
        pass
    finally:
        signal.signal(signal.SIGINT, previous)
