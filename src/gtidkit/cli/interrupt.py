"""Ctrl-C in a long command: one line on stderr saying what was left incomplete, exit status 130, no traceback.

130 is 128 + SIGINT, what a shell reports for a command killed by Ctrl-C; scripts (``make``, ``set -e``) treat it
as an interruption rather than a failure of the command's own.
"""

from __future__ import annotations

import sys
from typing import NoReturn

import click

#: Exit status after Ctrl-C (128 + SIGINT).
EXIT_INTERRUPTED = 130


def exit_interrupted(incomplete: str) -> NoReturn:
    """Print ``interrupted: <incomplete>`` to stderr and exit with :data:`EXIT_INTERRUPTED`.

    Args:
        incomplete: what the interruption left undone, in words (``stage scan of 5; report.html not written``).
    """
    click.echo(f"interrupted: {incomplete}", err=True)
    sys.stdout.flush()
    sys.exit(EXIT_INTERRUPTED)
