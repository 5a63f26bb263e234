"""Run ``gtidkit ARGS...`` (the real entry point, :func:`gtidkit.cli.main.main`) once per point of its teardown with
a real SIGINT delivered at that point, and print one JSON line per run: the point, the exit status, stdout, stderr.

``python tests/pipeline/sigint_sweep.py ARGS...``. The points are the distinct places Python's tracing reports (a code
object and a line; a loop's later rounds and a second call add none) after the command's own callback has
returned or raised (the command's outcome is decided there): the rest of the
group's ``invoke``, click's context teardown, ``main``'s clean-up, ``SystemExit``'s way out, the ``atexit``
handlers. A first run counts them; then each run is a fork of this process (everything imported once) that raises
SIGINT (``signal.raise_signal``: the kernel delivers it, Python's handler runs at its next check, as for a
terminal's Ctrl-C) at the n-th event and exits through the interpreter's own exit. Its stdout and stderr go to
temporary files read back by this process.
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

COUNT_FD_ENV = "SIGINT_SWEEP_COUNT_FD"


def _leaf_callback(args: list[str]) -> Any:
    """The code object of the callback of the command ``args`` names (the last of its subcommands; a group's
    callback runs before its subcommand's)."""
    import click

    from gtidkit.cli.main import cli

    ctx = click.Context(cli)
    command: Any = cli
    for word in args:
        if not isinstance(command, click.Group):
            break
        command = command.get_command(ctx, word)
    callback = command.callback
    return getattr(callback, "__wrapped__", callback).__code__


def _run(args: list[str], at: int, count_fd: int | None) -> None:
    """In the forked child: trace ``main()``; once a command callback returned, raise SIGINT at event ``at``
    (0: never; count the events and write the count to ``count_fd`` at the very end; -1: before ``main()``
    starts, held back as ``python -m gtidkit`` holds it while it loads)."""
    from gtidkit.cli.main import main

    sys.argv = ["gtidkit", *args]
    if at < 0:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        signal.raise_signal(signal.SIGINT)
        main()

    leaf = _leaf_callback(args)
    state = {"armed": False, "n": 0}
    seen: set[tuple[Any, int]] = set()

    def tracer(frame: FrameType, event: str, _arg: object) -> Any:
        if not state["armed"]:
            if frame.f_code is not leaf:
                return None  # no line events before the command's end: only calls are seen
            if event != "return":
                return tracer
            state["armed"] = True
            outer = frame.f_back
            while outer is not None:  # the frames the command returns into (click's, main()) are swept too
                outer.f_trace = tracer
                outer = outer.f_back
            return tracer
        point = (frame.f_code, frame.f_lineno)
        if point in seen:  # a point already swept (a loop's next round, a second call)
            return tracer
        seen.add(point)
        state["n"] += 1
        if state["n"] == at:
            sys.settrace(None)
            signal.raise_signal(signal.SIGINT)
            return None
        return tracer

    if count_fd is not None:
        # registered before main() runs: atexit calls it after every handler registered later
        atexit.register(lambda: os.write(count_fd, str(state["n"]).encode()))
    sys.settrace(tracer)
    main()


def _fork_run(args: list[str], at: int) -> dict[str, Any]:
    """One run in a fork of this process; returns its point, exit status, stdout and stderr (and the event
    count when ``at`` is 0)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        rfd, wfd = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            os.close(rfd)
            os.dup2(out.fileno(), 1)
            os.dup2(err.fileno(), 2)
            _run(args, at, wfd if at == 0 else None)
            os._exit(99)  # main() always ends by SystemExit: not reached
        os.close(wfd)
        count = b""
        while chunk := os.read(rfd, 64):
            count += chunk
        os.close(rfd)
        _, status = os.waitpid(pid, 0)
        out.seek(0)
        err.seek(0)
        run = {
            "at": at,
            "status": os.waitstatus_to_exitcode(status),
            "stdout": out.read().decode(errors="replace"),
            "stderr": err.read().decode(errors="replace"),
        }
    if at == 0:
        run["events"] = int(count or b"0")
    return run


def main(args: list[str]) -> None:
    """Print the uninterrupted run, the run interrupted before it started, then one run per teardown event, as
    JSON lines."""
    import gtidkit.cli.main  # noqa: F401 - imported once, before the forks

    _leaf_callback(args)  # the lazy subcommands' modules too
    first = _fork_run(args, 0)
    print(json.dumps(first), flush=True)
    print(json.dumps(_fork_run(args, -1)), flush=True)
    for at in range(1, first["events"] + 1):
        print(json.dumps(_fork_run(args, at)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
