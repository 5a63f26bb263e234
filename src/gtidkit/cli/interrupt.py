"""Ctrl-C and closed pipes for every command: a one-line note on stderr, exit status 130 / 141, no traceback.

A command says what an interruption would leave incomplete with :func:`set_incomplete` as it goes (``binlog show``:
the file being listed and those not reached; ``sql``: the statement running); :class:`GtidkitGroup` turns a
``KeyboardInterrupt`` anywhere below it into ``gtidkit: interrupted: <that note>`` and exit status 130 (128 +
SIGINT, what shells report for a process killed by Ctrl-C; click alone would print "Aborted!" and exit 1). A
command that handles SIGINT itself (``server`` shuts down cleanly) calls :func:`interrupted` when it is done.

A reader that goes away (``gtidkit binlog show f | head``) ends the command quietly with 141 (128 + SIGPIPE, what a
C program killed by SIGPIPE reports) instead of a ``BrokenPipeError`` traceback.

When the command is what the process runs (the console entry point, :func:`gtidkit.cli.main.main`, calls
:func:`process_runs_one_command`), a Ctrl-C gives one of two outcomes whenever it lands: the interruption above,
or, once the command's outcome is decided (it returned, exited or failed), nothing: the process ends with the
command's own status and output. SIGINT is held back (blocked) from the start until the command runs, and ignored
from the moment its outcome is decided: a Ctrl-C landing in click's set-up is delivered when the command starts
(130), one landing in click's clean-up, ``SystemExit``'s way out or the interpreter's exit can neither turn a
finished command into click's ``Aborted!`` (status 1) nor kill the process by the signal in its last
milliseconds (a status of -2 seen by the caller, as ``gtidkit demo`` under load once did: the Ctrl-C of its test
came after the demo's last step).
"""

from __future__ import annotations

import importlib
import os
import signal
import sys
from typing import Any, NoReturn

import click

__all__ = [
    "EXIT_BROKEN_PIPE",
    "EXIT_INTERRUPTED",
    "GtidkitGroup",
    "interrupted",
    "process_runs_one_command",
    "set_incomplete",
]

#: Exit status after Ctrl-C: 128 + SIGINT (2).
EXIT_INTERRUPTED = 130
#: Exit status when stdout's reader went away: 128 + SIGPIPE (13).
EXIT_BROKEN_PIPE = 141

_META_KEY = "gtidkit.incomplete"
_DEFAULT_NOTE = "the command stopped before it finished; its output, if any, is partial"

#: whether this process ends with the command it runs (:func:`process_runs_one_command`); False when the CLI is
#: called in a process that goes on (click's test runner, a caller's own code): its signal handling is left alone
_ONE_COMMAND = {"process": False}


def process_runs_one_command() -> None:
    """Say that this process runs one command and then exits (the console entry point): hold SIGINT back until
    the command starts and ignore it once the command's outcome is decided (see the module docstring). Called
    before click parses the command line; the signal mask is the main thread's, and no other thread runs yet."""
    _ONE_COMMAND["process"] = True
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})


def _command_starts() -> None:
    """Deliver a Ctrl-C held back since the start (it raises ``KeyboardInterrupt`` here, inside the command)."""
    if _ONE_COMMAND["process"]:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _outcome_decided() -> None:
    """Ignore SIGINT from now on: the command returned, exited or failed, and the process is ending.

    Never raises: ``signal.signal`` first runs the Python handlers of signals that arrived but were not handled yet
    (CPython's ``signal_signal_impl``: "Check for pending signals before changing signal handler"), so a Ctrl-C
    landing just before this call raises ``KeyboardInterrupt`` from it; that Ctrl-C is dropped (the outcome is
    decided) and the handler is set again. Without this, :func:`interrupted` called from a command's own
    ``except KeyboardInterrupt`` (``gtidkit demo``) let a second Ctrl-C escape before its note was printed."""
    if not _ONE_COMMAND["process"]:
        return
    while True:
        try:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            return
        except KeyboardInterrupt:
            continue


def set_incomplete(note: str) -> None:
    """Record what a Ctrl-C at this point would leave incomplete (shown after ``gtidkit: interrupted:``).

    Args:
        note: a short clause, e.g. ``"listing of binlog.000003 stopped part-way; not listed: binlog.000004"``.
    """
    ctx = click.get_current_context(silent=True)
    if ctx is not None:
        ctx.meta[_META_KEY] = note


def interrupted(note: str | None = None) -> NoReturn:
    """Print ``gtidkit: interrupted: NOTE`` on stderr and exit with status 130.

    Args:
        note: what was left incomplete; default: the last :func:`set_incomplete` note of the running command.
    """
    if note is None:
        ctx = click.get_current_context(silent=True)
        note = ctx.meta.get(_META_KEY) if ctx is not None else None
    _outcome_decided()
    click.echo(f"gtidkit: interrupted: {note or _DEFAULT_NOTE}", err=True)
    sys.exit(EXIT_INTERRUPTED)


def _stdout_gone() -> NoReturn:
    # Python flushes stdout again at exit, which would raise once more: point it at /dev/null first
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    sys.exit(EXIT_BROKEN_PIPE)


class GtidkitGroup(click.Group):
    """The top-level group: Ctrl-C in any subcommand ends it with a note and status 130, a closed stdout with 141.

    Its subcommands load lazily (click's documentation, "Lazily Loading Subcommands"): ``lazy_subcommands`` maps
    a command name to ``"module:attribute"``, imported when that command runs or ``--help`` lists it, so a command
    starts without importing the others' modules.

    Args:
        lazy_subcommands: command name -> ``"package.module:attribute"`` of its :class:`click.Command`.
    """

    def __init__(self, *args: Any, lazy_subcommands: dict[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy_subcommands = dict(lazy_subcommands or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command's name, sorted (as click lists a group's commands)."""
        return sorted({*super().list_commands(ctx), *self.lazy_subcommands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command ``cmd_name``, importing its module first when it is a lazy one (None when unknown)."""
        where = self.lazy_subcommands.get(cmd_name)
        if where is None:
            return super().get_command(ctx, cmd_name)
        module, _, attribute = where.partition(":")
        command = getattr(importlib.import_module(module), attribute)
        if not isinstance(command, click.Command):
            raise TypeError(f"{where} is not a click command")
        return command

    def invoke(self, ctx: click.Context) -> Any:
        """Run the subcommand; see the module docstring for what happens on Ctrl-C and on a closed pipe."""
        try:
            try:
                _command_starts()
                return super().invoke(ctx)
            finally:
                _outcome_decided()
        except KeyboardInterrupt:
            interrupted()
        except BrokenPipeError:
            _stdout_gone()
