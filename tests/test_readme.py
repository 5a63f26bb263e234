"""The README's `gtidkit gtid` and `gtidkit sql` examples, and its ## Python example, print what the README says.

Each ```sh block of README.md is read line by line: a line starting with ``gtidkit gtid `` or ``gtidkit sql ``
followed by ``#→`` lines is an example and its output. The command runs through bash exactly as written (pipes
included), with ``gtidkit`` as the real CLI (``sys.executable -m gtidkit``), in a fresh directory, so each datadir is
new as the README asks. Outputs are compared line by line with runs of blanks collapsed (the README aligns the
mysql client's tab-separated columns with spaces) and without the README's trailing ``(annotation)``. A datadir's
server_uuid is random, so a UUID the command does not spell is compared by its place (first, second, ... UUID).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"

#: The commands whose examples are run (the others need servers, Spark or a generated fleet).
RUN_PREFIXES = ("gtidkit gtid ", "gtidkit sql ")
#: A README annotation after an expected line: two or more blanks, then "(...)" to the end.
ANNOTATION = re.compile(r"\s{2,}\([^()]*(\([^()]*\)[^()]*)*\)\s*$")
UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


@dataclass(frozen=True)
class Example:
    """One README command and the output lines the README shows for it."""

    line: int
    command: str
    expected: tuple[str, ...]


def readme_examples(text: str) -> list[Example]:
    """Return the runnable examples of README text: commands of RUN_PREFIXES inside ```sh blocks with #→ lines."""
    examples: list[Example] = []
    in_sh = False
    command: tuple[int, str] | None = None
    expected: list[str] = []

    def flush() -> None:
        if command is not None and expected:
            examples.append(Example(command[0], command[1], tuple(expected)))

    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("```"):
            flush()
            command, expected = None, []
            in_sh = line.strip() == "```sh"
            continue
        if not in_sh:
            continue
        if line.startswith("#→"):
            if command is not None:
                expected.append(line[2:].strip())
            continue
        flush()
        command, expected = None, []
        if line.startswith(RUN_PREFIXES):
            command = (number, line)
    return examples


def normalize(lines: list[str], command: str) -> list[str]:
    """Collapse blanks, drop annotations, and number the UUIDs that `command` does not contain."""
    fixed = {u.lower() for u in UUID.findall(command)}
    places: dict[str, str] = {}

    def place(match: re.Match[str]) -> str:
        uuid = match.group(0).lower()
        if uuid in fixed:
            return uuid
        return places.setdefault(uuid, f"<uuid{len(places) + 1}>")

    out = []
    for line in lines:
        line = ANNOTATION.sub("", line)
        out.append(UUID.sub(place, " ".join(line.split())))
    return out


EXAMPLES = readme_examples(README.read_text(encoding="utf-8"))


def test_readme_has_the_examples() -> None:
    """The parser finds the calculator and the engine examples (a renamed block must not silence this file)."""
    kinds = [" ".join(e.command.split()[:2]) for e in EXAMPLES]
    assert kinds.count("gtidkit gtid") >= 4
    assert kinds.count("gtidkit sql") >= 2


def example_id(example: Example) -> str:
    """A test id: the README line, the command and its subcommand or datadir (``line47-gtid-normalize``)."""
    words = example.command.split()
    what = words[3] if words[2] == "--datadir" else words[2]
    return f"line{example.line}-{words[1]}-{what}"


@pytest.mark.parametrize("example", EXAMPLES, ids=[example_id(e) for e in EXAMPLES])
def test_readme_example_output(example: Example, tmp_path: Path) -> None:
    """Run one README example in a fresh directory and compare its stdout with the README's #→ lines."""
    script = 'gtidkit() { "$GTIDKIT_PYTHON" -m gtidkit "$@"; }\nset -o pipefail\n' + example.command + "\n"
    env = dict(os.environ, GTIDKIT_PYTHON=sys.executable)
    proc = subprocess.run(
        ["bash", "-c", script],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, f"README line {example.line}: exit {proc.returncode}\n{proc.stderr}"
    actual = normalize(proc.stdout.splitlines(), example.command)
    assert actual == normalize(list(example.expected), example.command), f"README line {example.line}"


def python_section_block(text: str) -> str:
    """Return the first ```python block after the README's ``## Python`` heading."""
    section = text[text.index("\n## Python\n") :]
    match = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert match is not None, "README: no python block under ## Python"
    return match.group(1)


def test_readme_python_example(tmp_path: Path) -> None:
    """The ## Python example runs on the CLI tour's fleet and prints what its ``print(...)  # ...`` comments say."""
    code = python_section_block(README.read_text(encoding="utf-8"))
    prints = [line for line in code.splitlines() if line.lstrip().startswith("print(") and "  # " in line]
    expected = [line.split("  # ", 1)[1] for line in prints]
    statements = "\n".join(line.split("  # ", 1)[0] for line in code.splitlines())
    assert len(expected) == 3
    fleet = subprocess.run(
        [sys.executable, "-m", "gtidkit", "binlog", "generate", "fleet", "--output", "fleet", "--seed", "7"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert fleet.returncode == 0, fleet.stderr
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert normalize(proc.stdout.splitlines(), statements) == normalize(expected, statements)
