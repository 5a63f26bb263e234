"""A command that calls :func:`gtidkit.cli.interrupt.interrupted` from its own ``except KeyboardInterrupt`` (as
``gtidkit demo`` does), run once per point of what follows with a second real SIGINT delivered at that point (a
Ctrl-C pressed twice, or two reaching the process); prints one JSON line per run: the point, exit status, stderr.

``python tests/cli/interrupted_sweep.py [--contract]``. The command runs under the real top-level group class
(:class:`~gtidkit.cli.interrupt.GtidkitGroup`) in a process set up as the console entry point sets it up
(:func:`~gtidkit.cli.interrupt.process_runs_one_command`). Its callback raises ``KeyboardInterrupt`` (the first
Ctrl-C) and calls ``interrupted(NOTE)``; from the call of ``interrupted`` on, every distinct point Python's tracing
reports (a code object and a line: ``interrupted``, the group's ``invoke``, click's teardown, ``SystemExit``'s way
out, ``atexit``) is swept: a fork of this process raises SIGINT there (``signal.raise_signal``) and exits through
the interpreter's own exit. A first run, without the second SIGINT, counts the points.
"""

from __future__ import annotations

import atexit
import json
import os
import signal
import sys
import tempfile
from types import FrameType
from typing import Any

NOTE = "the command's own note"


def _run(at: int, count_fd: int | None, contract: bool) -> None:
    """In the forked child: run the command; raise SIGINT at the ``at``-th point after ``interrupted`` is called
    (0: never; write the count of points to ``count_fd`` at the very end). ``contract``: the command records its
    note with ``set_incomplete`` before the first Ctrl-C (as the module asks), else only passes it to
    ``interrupted``."""
    import click

    from gtidkit.cli import interrupt

    @click.command("stops")
    def stops() -> None:
        if contract:
            interrupt.set_incomplete(
                NOTE
            )  # what a Ctrl-C from here on leaves undone, said as the command goes
        try:
            raise KeyboardInterrupt  # the first Ctrl-C, caught by the command itself
        except KeyboardInterrupt:
            interrupt.interrupted(NOTE)

    group = interrupt.GtidkitGroup("gtidkit", commands={"stops": stops})
    start = interrupt.interrupted.__code__
    state = {"armed": False, "n": 0}
    seen: set[tuple[Any, int]] = set()

    def tracer(frame: FrameType, event: str, _arg: object) -> Any:
        if not state["armed"]:
            if frame.f_code is not start:
                return tracer if event == "call" else None
            state["armed"] = True
            outer = frame.f_back
            while outer is not None:  # the frames interrupted() unwinds through are swept too
                outer.f_trace = tracer
                outer = outer.f_back
        point = (frame.f_code, frame.f_lineno)
        if point in seen:
            return tracer
        seen.add(point)
        state["n"] += 1
        if state["n"] == at:
            sys.settrace(None)
            signal.raise_signal(signal.SIGINT)
            return None
        return tracer

    if count_fd is not None:
        atexit.register(lambda: os.write(count_fd, str(state["n"]).encode()))
    interrupt.process_runs_one_command()
    sys.argv = ["gtidkit", "stops"]
    sys.settrace(tracer)
    group.main(prog_name="gtidkit")


def _fork_run(at: int, contract: bool) -> dict[str, Any]:
    """One run in a fork of this process: its point, exit status and stderr (and the point count when ``at`` is 0)."""
    with tempfile.TemporaryFile() as err:
        rfd, wfd = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            os.close(rfd)
            os.dup2(err.fileno(), 2)
            _run(at, wfd if at == 0 else None, contract)
            os._exit(99)  # the command always ends by SystemExit: not reached
        os.close(wfd)
        count = b""
        while chunk := os.read(rfd, 64):
            count += chunk
        os.close(rfd)
        _, status = os.waitpid(pid, 0)
        err.seek(0)
        run: dict[str, Any] = {
            "at": at,
            "status": os.waitstatus_to_exitcode(status),
            "stderr": err.read().decode(errors="replace"),
        }
    if at == 0:
        run["points"] = int(count or b"0")
    return run


def main() -> None:
    """Print the run without a second SIGINT, then one run per point."""
    import click  # noqa: F401 - imported once, before the forks

    import gtidkit.cli.interrupt  # noqa: F401

    contract = sys.argv[1:] == ["--contract"]
    first = _fork_run(0, contract)
    print(json.dumps(first), flush=True)
    for at in range(1, first["points"] + 1):
        print(json.dumps(_fork_run(at, contract)), flush=True)


if __name__ == "__main__":
    main()
