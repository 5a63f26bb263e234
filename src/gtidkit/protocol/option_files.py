"""mysqld's option files (``my.cnf``) and the start-up log lines of option handling.

Sources: MySQL manual "Using Option Files" (groups, ``name=value`` lines, comments, quotes, ``!include`` and
``!includedir``) and ``mysys/my_default.cc``; the messages are mysys's ``globerrs`` (``mysys/errors.cc``), the
MY-0000NN codes of the error log, kept in :mod:`gtidkit.mysql_errors`. What the settings mean is
:mod:`gtidkit.protocol.options`'s job.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from gtidkit.mysql_errors import message
from gtidkit.version import MYSQL_VERSION

#: The option groups mysqld reads (RM8 "Using Option Files": [mysqld], [server] and [mysqld-8.0] for 8.0).
GROUPS = ("mysqld", "server", "mysqld-" + ".".join(MYSQL_VERSION.split(".")[:2]))


@dataclass(frozen=True, slots=True)
class Setting:
    """One ``name[=value]`` as written, with where it was written.

    Args:
        name: the name as written, without leading dashes (``skip-log-bin``, ``loose_innodb_x``).
        value: the text after ``=`` (or the next argument), None when there is none.
        origin: ``command line`` or ``<file>:<line>`` (for messages).
    """

    name: str
    value: str | None
    origin: str = "command line"

    @property
    def from_file(self) -> bool:
        """The setting comes from an option file (mysqld then says "unknown variable", not "unknown option")."""
        return self.origin != "command line"


@dataclass(frozen=True, slots=True)
class LogLine:
    """One error-log line: level (``ERROR``, ``Warning``, ``Note``), MySQL's MY- code (0: none) and text."""

    level: str
    code: int
    text: str

    def __str__(self) -> str:
        code = f" [MY-{self.code:06d}]" if self.code else ""
        return f"[{self.level}]{code} [Server] {self.text}"


class OptionError(Exception):
    """Start-up options mysqld would refuse; ``lines`` are the error-log lines to print before aborting."""

    def __init__(self, lines: list[LogLine]) -> None:
        super().__init__("\n".join(str(line) for line in lines))
        self.lines = lines


def ee(level: str, code: int, *args: object) -> LogLine:
    """The log line of MySQL message ``code`` (:mod:`gtidkit.mysql_errors`) at ``level``."""
    return LogLine(level, code, message(code, *args))


def read_option_file(path: str | Path, groups: tuple[str, ...] = GROUPS, *, _depth: int = 0) -> list[Setting]:
    """The settings of ``groups`` in an option file, in order, following ``!include`` and ``!includedir``.

    Format (RM8 "Using Option Files"): ``[group]`` lines; ``name``, ``name=value``, ``name = value`` lines; ``#``
    and ``;`` comment lines; a ``#`` after the value starts a comment; quotes around a value are removed.
    ``!include FILE`` reads FILE (a missing one is skipped, as mysqld does), ``!includedir DIR`` reads every
    ``*.cnf`` of DIR in name order. Relative include paths are taken from the including file's directory.

    Raises:
        OptionError: the file cannot be read (MY-000047 for the file given on the command line), a group line is
            malformed (MY-000051), an option comes before any group (MY-000052), an unknown ``!`` directive
            (MY-000049), or an ``!includedir`` that cannot be read (MY-000012, then MY-000048).
    """
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as err:
        raise OptionError([ee("ERROR", 47, path)]) from err
    out: list[Setting] = []
    in_group = False
    seen_group = False
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("!"):
            out.extend(_directive(path, line, lineno, groups, _depth))
            continue
        if line.startswith("["):
            end = line.find("]")
            if end < 0:
                raise OptionError([ee("ERROR", 51, path, lineno)])
            in_group = line[1:end].strip().lower() in groups
            seen_group = True
            continue
        if not seen_group:
            raise OptionError([ee("ERROR", 52, path, lineno)])
        if not in_group:
            continue
        if "=" in line:
            key, value = line.split("=", 1)
            out.append(Setting(key.strip(), _value(value), f"{path}:{lineno}"))
        else:
            out.append(Setting(_strip_comment(line), None, f"{path}:{lineno}"))
    return out


def _directive(path: Path, line: str, lineno: int, groups: tuple[str, ...], depth: int) -> list[Setting]:
    word, _, arg = line[1:].partition(" ")
    arg = arg.strip()
    if word not in ("include", "includedir") or not arg:
        raise OptionError([ee("ERROR", 49, word, path, lineno)])
    if depth >= 10:  # mysqld's MAX_INCLUDE_RECURSION_LEVEL: the directive is skipped with EE 50
        return []
    target = Path(arg) if Path(arg).is_absolute() else path.parent / arg
    if word == "include":
        return read_option_file(target, groups, _depth=depth + 1) if target.is_file() else []
    try:
        names = sorted(n for n in os.listdir(target) if n.endswith(".cnf"))
    except OSError as err:
        raise OptionError(
            [LogLine("ERROR", 12, message(12, target, err.errno, err.strerror)), ee("ERROR", 48)]
        ) from err
    out: list[Setting] = []
    for name in names:
        out.extend(read_option_file(target / name, groups, _depth=depth + 1))
    return out


def _strip_comment(text: str) -> str:
    quote = None
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or text[i - 1].isspace()):
            return text[:i].strip()
    return text.strip()


def _value(text: str) -> str:
    value = _strip_comment(text)
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


__all__ = ["GROUPS", "LogLine", "OptionError", "Setting", "ee", "read_option_file"]
