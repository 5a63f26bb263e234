"""A second Ctrl-C while a command reports its interruption (``gtidkit demo`` caught the first one itself): the
process still ends with 130 and one ``gtidkit: interrupted:`` note, never by the signal (-2) or with a traceback.

interrupted_sweep.py raises the second SIGINT at every distinct point from the call of ``interrupted()`` to the
interpreter's exit, one fork each (the real group class and entry-point signal set-up)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import click
import pytest

from gtidkit.cli import demo_cmd
from gtidkit.cli.interrupt import interrupted

SWEEP = Path(__file__).with_name("interrupted_sweep.py")
OWN = "gtidkit: interrupted: the command's own note\n"
DEFAULT = "gtidkit: interrupted: the command stopped before it finished; its output, if any, is partial\n"


@pytest.mark.parametrize(
    ("args", "notes"),
    [(["--contract"], {OWN}), ([], {OWN, DEFAULT})],
    ids=["note-recorded-as-it-goes", "note-passed-only"],
)
def test_second_ctrl_c_at_every_point_of_interrupted(args, notes):
    """``note-recorded-as-it-goes``: the command said what a Ctrl-C leaves undone with ``set_incomplete`` (as
    ``gtidkit demo`` now does at each step): its note whatever point the second Ctrl-C hits. ``note-passed-only``:
    a second Ctrl-C before ``interrupted()`` ignores SIGINT reaches the group's handler, which only knows the
    default note."""
    p = subprocess.run(
        [sys.executable, str(SWEEP), *args], capture_output=True, text=True, timeout=600, check=False
    )
    assert p.returncode == 0, p.stderr
    first, *points = [json.loads(line) for line in p.stdout.splitlines()]
    assert (first["status"], first["stderr"]) == (130, OWN)
    assert len(points) == first["points"] > 100
    for run in points:
        assert run["status"] == 130 and run["stderr"] in notes, run


@pytest.mark.parametrize(
    ("step", "note"),
    [
        ("start-up", "during step start-up; the servers are stopped, the later steps were not run"),
        (
            "5. the pipeline over the source's binlogs",
            (
                "during step 5. the pipeline over the source's binlogs; the servers are stopped, the later steps "
                "were not run"
            ),
        ),
    ],
    ids=["start-up", "step-5"],
)
def test_demo_records_each_steps_note(step, note, capsys):
    """Each demo step records its note as it starts, so a Ctrl-C that escapes the demo's own handler (a second
    one) still names the step: the group's handler calls ``interrupted()`` without a note."""
    with click.Context(demo_cmd.demo):
        demo_cmd._step(step)
        with pytest.raises(SystemExit) as exited:
            interrupted()
    assert exited.value.code == 130
    assert capsys.readouterr().err == f"gtidkit: interrupted: {note}\n"
