"""mysqld-style options: command-line ``--name[=value]`` / ``--skip-name`` and ``[mysqld]`` of ``--defaults-file``.

Source: MySQL manual "Specifying Program Options" / "Using Option Files": option names use ``-`` and ``_``
interchangeably; ``--skip-X`` / ``--disable-X`` mean X=0 and ``--enable-X`` X=1; a bare name in an option file
means 1; later settings win, and the command line wins over the file; ``#`` and ``;`` start comments; values may
be quoted.

Options are split into the ones the wire server itself uses (:data:`SERVER_OPTIONS`) and the rest, which are
handed to the engine's ``Server.open`` (it rejects unknown names with 1193, as mysqld refuses to start).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from gtidkit.mysql_errors import mysql_error, unknown_error

#: option -> (type, default) of what the wire server owns (mysqld's names and defaults; bind_address is
#: 127.0.0.1 here, where mysqld's is ``*``).
SERVER_OPTIONS: dict[str, tuple[type, object]] = {
    "port": (int, 3306),
    "bind_address": (str, "127.0.0.1"),
    "max_connections": (int, 151),
    "wait_timeout": (int, 28800),
    "interactive_timeout": (int, 28800),
    "connect_timeout": (int, 10),
    "max_allowed_packet": (int, 64 * 1024 * 1024),
    "pid_file": (str, ""),
    "log_error": (str, ""),
    "datadir": (str, ""),
    "socket": (str, ""),
    "user": (str, ""),
    "ssl": (int, 1),
    "mysqlx": (int, 0),
    "skip_name_resolve": (int, 1),
    "auto_generate_certs": (int, 1),
}

#: Options MySQL accepts and gtidkit's server ignores (logged once at start-up).
IGNORED = {"socket", "user", "mysqlx", "skip_name_resolve"}

_SIZE_SUFFIX = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


#: Options whose own name starts with ``skip_`` (my_getopt matches the whole name before the prefix rule).
_SKIP_NAMED = ("skip_name_resolve", "skip_replica_start", "skip_slave_start")


def canonical(name: str) -> tuple[str, str | None]:
    """``--skip-log-bin`` → (``log_bin``, ``"0"``); ``--enable-x`` → (``x``, ``"1"``); else (name, None)."""
    name = name.strip().lstrip("-").replace("-", "_").lower()
    for prefix, value in (("skip_", "0"), ("disable_", "0"), ("enable_", "1")):
        if name.startswith(prefix) and name not in _SKIP_NAMED:
            return name[len(prefix) :], value
    return name, None


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def read_defaults_file(path: str | Path, groups: tuple[str, ...] = ("mysqld", "server")) -> dict[str, str]:
    """The options of the ``[mysqld]`` (and ``[server]``) groups of an option file.

    Raises:
        MySQLError: 1105 when the file cannot be read or a line is not an option.
    """
    try:
        text = Path(path).read_text()
    except OSError as err:
        raise unknown_error(f"Could not open required defaults file: {path}") from err
    out: dict[str, str] = {}
    active = False
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            active = line[1:-1].strip().lower() in groups
            continue
        if line.startswith("!"):
            continue  # !include / !includedir are not followed
        if not active:
            continue
        if "=" in line:
            key, value = line.split("=", 1)
            value = value.split(" #", 1)[0]
        else:
            key, value = line, ""
        name, forced = canonical(key)
        if not name:
            raise unknown_error(
                f"Found option without preceding group in config file {path} at line {lineno}"
            )
        out[name] = forced if forced is not None else (_unquote(value) if "=" in line else "1")
    return out


def parse_args(args: list[str]) -> dict[str, str]:
    """``--name=value``, ``--name value`` and ``--skip-name`` arguments as a dict (later ones win).

    Raises:
        MySQLError: 1105 for an argument that is not an option.
    """
    out: dict[str, str] = {}
    i = 0
    while i < len(args):
        arg = args[i]
        if not arg.startswith("--"):
            raise unknown_error(f"Too many arguments (first extra is '{arg}').")
        if "=" in arg:
            key, value = arg.split("=", 1)
            name, forced = canonical(key)
            out[name] = forced if forced is not None else value
        else:
            name, forced = canonical(arg)
            if forced is not None:
                out[name] = forced
            elif i + 1 < len(args) and not args[i + 1].startswith("--"):
                out[name] = args[i + 1]
                i += 1
            else:
                out[name] = "1"
        i += 1
    return out


def parse_size(value: str) -> int:
    """``64M`` → 67108864 (mysqld's K/M/G suffixes).

    Raises:
        MySQLError: 1232 for a value that is not a size.
    """
    text = str(value).strip().lower()
    mult = _SIZE_SUFFIX.get(text[-1:], 1)
    if mult != 1:
        text = text[:-1]
    try:
        return int(text) * mult
    except ValueError as err:
        raise mysql_error(1232, value) from err


@dataclass
class ServerOptions:
    """All start-up options, split between the wire server and the engine.

    Attributes:
        server: the wire server's own options (:data:`SERVER_OPTIONS` names, typed).
        engine: everything else, for ``Server.open(datadir, **engine)`` (strings as given).
    """

    server: dict[str, object] = field(default_factory=dict)
    engine: dict[str, str] = field(default_factory=dict)

    @classmethod
    def build(cls, file_options: dict[str, str], cli_options: dict[str, str]) -> ServerOptions:
        """Merge option-file and command-line options (command line wins) and type the server's own.

        Raises:
            MySQLError: 1232 for a non-numeric value of a numeric option.
        """
        merged = {**file_options, **cli_options}
        merged.pop("defaults_file", None)
        server: dict[str, object] = {k: d for k, (_, d) in SERVER_OPTIONS.items()}
        engine: dict[str, str] = {}
        for name, value in merged.items():
            if name in SERVER_OPTIONS:
                kind = SERVER_OPTIONS[name][0]
                server[name] = parse_size(value) if kind is int else value
            else:
                engine[name] = value
        return cls(server, engine)
