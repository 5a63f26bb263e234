"""mysqld's start-up options: the command line, option files (``my.cnf``), the option table and its defaults.

Sources: MySQL manual "Specifying Program Options", "Using Option Files" and "Command-Line Options that Affect
Option-File Handling"; ``mysys/my_getopt.cc`` (how one option is matched and its value checked) and
``mysys/my_default.cc`` (option files); the messages are mysys's ``globerrs`` (``mysys/errors.cc``), the MY-0000NN
codes of the error log, kept in :mod:`gtidkit.mysql_errors`.

Theory of operation
-------------------
1. Settings are read in order: the option files (``--defaults-file``, then ``--defaults-extra-file``; groups
   ``[mysqld]``, ``[server]`` and ``[mysqld-8.0]``, following ``!include`` / ``!includedir``), then the command line;
   a later setting of the same option wins.
2. A name matches with ``-`` and ``_`` alike. A ``loose-`` prefix makes an unknown name a warning instead of an error.
   The whole name is looked up first (``skip_name_resolve`` is an option of its own); otherwise ``skip-`` /
   ``disable-`` turn a boolean off, ``enable-`` on (``--skip-x=0`` is on again: my_getopt's double negation).
3. Each name is then one of three kinds (:func:`resolve`):

   * an option gtidkit models (:data:`OPTIONS`): its value is checked as my_getopt does: numbers take K/M/G/T/P/E
     suffixes, an out-of-range number is adjusted with MY-000081 / MY-000082, a bad enum value is MY-000077, a bad
     boolean is ignored with MY-000073;
   * a mysqld 8.0 option gtidkit does not model (:data:`~gtidkit.protocol.mysqld_option_names.MYSQLD_OPTION_NAMES`,
     e.g. ``innodb_buffer_pool_size``): accepted with a warning naming it, so a real ``my.cnf`` starts;
   * an unknown name: mysqld's ``unknown variable 'x=y'`` (MY-000067) or ``unknown option '--x'`` (MY-000068). mysqld
     stops at the first one; gtidkit reports all of them, then ``Aborting`` (MY-010119).

The table :data:`OPTIONS` is built from the system-variable table (:data:`gtidkit.engine.sysvars.SYSVARS`: name,
type, range, default) for every variable that is also a mysqld option, plus the options with no variable of the
same name (``log_bin``'s base name, ``defaults_file``, ``initialize``, ...). Defaults are mysqld 8.0's
(``gtidkit server --help --verbose`` lists them), where the variable table has them; the few places where gtidkit
differs are noted on the rows (``bind_address`` 127.0.0.1, ``binlog_row_metadata`` FULL, ...).

An option that needs a value takes the next argument when written without ``=`` (``--server-id 2``, my_getopt's
REQUIRED_ARG). One whose value is optional (``--log-bin[=name]``, ``--enforce-gtid-consistency[=value]``) takes it
only after ``=`` in mysqld; gtidkit also takes the next argument of ``--enforce-gtid-consistency`` when it is one of
its values (``--enforce-gtid-consistency ON``, a common spelling that mysqld would refuse as an extra argument).

Short options are mysqld's: ``-h`` is ``--datadir`` (not help), ``-P`` ``--port``, ``-u`` ``--user``, ``-C``
``--character-set-server``, ``-V`` ``--version``, ``-v`` ``--verbose``, ``-?`` ``--help``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gtidkit.engine import sysvar_versions, sysvars
from gtidkit.mysql_errors import message
from gtidkit.protocol.cpus import available_cpus
from gtidkit.protocol.mysqld_option_names import MYSQLD_OPTION_NAMES
from gtidkit.protocol.option_files import GROUPS, LogLine, OptionError, Setting, ee, read_option_file

PROGRAM = "mysqld"

#: Where an option's value goes: the wire server (``protocol``), the engine (``Server.open``), both (a variable
#: the wire server also uses, e.g. ``max_allowed_packet``), or the command itself (``datadir``, ``initialize``).
WIRE, ENGINE, BOTH, COMMAND = "wire", "engine", "both", "command"

#: Value types (my_getopt's GET_* families). ``flag`` = an option without value (``--initialize``);
#: ``optional_str`` = a string whose value may be omitted (``--log-bin[=name]``).
INT, BOOL, ENUM, STR, FLAG, OPTIONAL_STR = "int", "bool", "enum", "str", "flag", "optional_str"
#: ``list`` = a string option that may be given many times, each adding a value (my_getopt's repeated
#: ``--replicate-do-db``): a tuple of the values in order.
LIST = "list"


@dataclass(frozen=True, slots=True)
class Option:
    """One start-up option as gtidkit models it.

    Args:
        name: mysqld's name with underscores.
        kind: ``int``, ``bool``, ``enum``, ``str``, ``flag`` or ``optional_str``.
        default: the value when the option is not given (None: "(No default value)"); a function of no
            arguments when the value depends on the machine (``workers``: the CPUs the process may use), called
            each time the options are read (:meth:`default_value`).
        owner: ``wire``, ``engine``, ``both`` or ``command`` (module constants).
        minimum, maximum: the inclusive range of an ``int``.
        choices: the values of an ``enum`` (the index is accepted too).
        target: the key the value is stored under when it is not ``name`` (``time_zone`` for
            ``--default-time-zone``).
        help: one line for ``--help``.
        bare: the value of ``--name`` written without one, for an option whose value is optional (my_getopt's
            OPT_ARG: ``--enforce-gtid-consistency`` is ON); None: the value is required.
    """

    name: str
    kind: str
    default: Any
    owner: str = ENGINE
    minimum: int = 0
    maximum: int = sysvars.UINT64_MAX
    choices: tuple[str, ...] = ()
    target: str | None = None
    help: str = ""
    bare: Any = None

    def default_value(self) -> Any:
        """The value when the option is not given: :attr:`default`, or what it returns when it is a function."""
        return self.default() if callable(self.default) else self.default

    @property
    def key(self) -> str:
        """The name the parsed value is stored under."""
        return self.target or self.name


def _from_sysvar(name: str, owner: str = ENGINE, **overrides: Any) -> Option:
    """The option of the variable ``name``: its type, range and default from :data:`sysvars.SYSVARS`."""
    var = sysvars.SYSVARS[name]
    target = sysvars.lookup(name).name
    kind = {sysvars.INT: INT, sysvars.BOOL: BOOL, sysvars.ENUM: ENUM}.get(var.kind, STR)
    fields: dict[str, Any] = {
        "kind": kind,
        "default": sysvars.lookup(name).default,
        "owner": owner,
        "minimum": var.minimum,
        "maximum": var.maximum,
        "choices": var.choices,
        "target": None if target == name else target,
    }
    fields.update(overrides)
    return Option(name, **fields)


#: ``--workers``' maximum (``@@gtidkit_workers``' range in engine/sysvars.py)
MAX_WORKERS = 1024

#: Options whose variable the wire server uses too (listening, connection limits): ``both``. ``port`` is stored by
#: the wire server once bound.
_WIRE_VARIABLES = {"port", "wait_timeout", "interactive_timeout", "max_allowed_packet", "max_connections"}

#: Options with no engine variable of their name, or that gtidkit treats apart (mysqld's names, types, ranges and
#: defaults from RM8 "Server Command Options" / "Server System Variables").
_OWN_OPTIONS = (
    # --log-bin[=base_name]: ON with that base name (RM8 "Binary Logging Options and Variables"). A bare --log-bin
    # keeps the base name ``binlog``; mysqld 8.0 uses host_name-bin there "for compatibility", which would make the
    # files' names depend on the machine.
    Option(
        "log_bin", OPTIONAL_STR, "binlog", help="Binary log on, with this base name (--skip-log-bin: off)."
    ),
    Option("log_bin_index", STR, None, help="The binary log index file (default: <base name>.index)."),
    Option(
        "default_time_zone", STR, None, target="time_zone", help="The server's time zone (+HH:MM or SYSTEM)."
    ),
    Option("bind_address", STR, "127.0.0.1", WIRE, help="Address to listen on (mysqld's default is *)."),
    Option("connect_timeout", INT, 10, WIRE, 2, 31536000, help="Seconds to wait for the handshake."),
    Option(
        "pid_file", STR, None, WIRE, help="Process id file (relative to the datadir; default host_name.pid)."
    ),
    Option("log_error", STR, None, WIRE, help="Error log file (relative to the datadir; default stderr)."),
    Option("ssl", BOOL, True, WIRE, help="TLS for clients that ask (certificates in the datadir)."),
    Option("auto_generate_certs", BOOL, True, WIRE, help="Create the datadir's TLS certificates if missing."),
    # RM8 "Command Options for Encrypted Connections": the server's certificate, its key and the CA file that
    # checks client certificates (paths relative to the datadir; default the auto-generated files)
    Option("ssl_cert", STR, None, WIRE, help="The server's TLS certificate (PEM; default server-cert.pem)."),
    Option(
        "ssl_key", STR, None, WIRE, help="The server certificate's private key (PEM; default server-key.pem)."
    ),
    Option("ssl_ca", STR, None, WIRE, help="CA certificates for client certificates (PEM)."),
    Option(
        "skip_name_resolve", BOOL, True, WIRE, help="Accounts match client IP addresses (always: no DNS)."
    ),
    Option(
        "server_version",
        STR,
        None,
        help="The MySQL release presented: 5.7, 8.0 or 8.4 (or X.Y.Z of those); default 8.0.36.",
    ),
    # replication filters (RM8 "Replica Server Options and Variables"): repeatable, each occurrence one rule
    *(
        Option(f"replicate_{kind}", LIST, (), WIRE, help=f"Replication filter rule (repeatable): {kind}.")
        for kind in (
            "do_db",
            "ignore_db",
            "do_table",
            "ignore_table",
            "wild_do_table",
            "wild_ignore_table",
            "rewrite_db",
        )
    ),
    # issue 21 (docs/design/multi_worker.md): worker processes behind a supervisor that owns the listening
    # socket and hands each connection to a worker (cli/supervisor.py); @@gtidkit_workers. The default is the CPUs
    # the process may use (protocol/cpus.py: affinity mask, cgroup quota), computed when the options are read.
    Option(
        "workers",
        INT,
        lambda: min(available_cpus(), MAX_WORKERS),
        COMMAND,
        1,
        MAX_WORKERS,
        target="gtidkit_workers",
        help=(
            "Worker processes serving connections (default: the CPUs this process may use; 1: one process, "
            "unless --supervised)."
        ),
    ),
    Option(
        "supervised",
        BOOL,
        False,
        COMMAND,
        help="Run a supervisor process that accepts and hands connections to worker processes (also with 1).",
    ),
    # h-gil (bench/RESULTS.md gil_cost): each worker of several on one CPU of the affinity mask (protocol/cpus.py
    # worker_cpu); --skip-worker-cpu-affinity leaves the placement to the scheduler
    Option(
        "worker_cpu_affinity",
        BOOL,
        True,
        COMMAND,
        help="Run each of several worker processes on one CPU of those this process may use, in turn.",
    ),
    # issue 21 step 9 (engine/schema_files.py): @@gtidkit_file_per_schema
    _from_sysvar(
        "gtidkit_file_per_schema",
        help="CREATE DATABASE gives the schema a SQLite file of its own: writers of different schemas do not wait.",
    ),
    # docs/design/multi_worker.md §5.7 (engine/statements/deferred.py): @@gtidkit_row_locks
    _from_sysvar(
        "gtidkit_row_locks",
        help=(
            "Single-row primary-key DML in a transaction locks its row and takes the write lock only at COMMIT "
            "(ON by default; OFF: every writer takes the write lock at its first write)."
        ),
    ),
    Option("datadir", STR, None, COMMAND, help="The data directory (-h)."),
    Option("initialize", FLAG, False, COMMAND, help="Create the datadir; print root@localhost's password."),
    Option("initialize_insecure", FLAG, False, COMMAND, help="Create the datadir; root has no password."),
    Option("defaults_file", STR, None, COMMAND, help="Read options from this file only."),
    Option("defaults_extra_file", STR, None, COMMAND, help="Read this option file too."),
    Option("no_defaults", FLAG, False, COMMAND, help="Read no option file."),
    Option(
        "help", FLAG, False, COMMAND, help="This help (-?); with --verbose, every option and its default."
    ),
    Option("verbose", FLAG, False, COMMAND, help="With --help: list every option (-v)."),
    Option("version", FLAG, False, COMMAND, help="Print the version and exit (-V)."),
)

#: Variables whose option's value may be omitted, and what that means (RM8: ``--enforce-gtid-consistency[=value]``).
_BARE_VALUES = {"enforce_gtid_consistency": "ON"}


def _build_table() -> dict[str, Option]:
    table: dict[str, Option] = {}
    for name in sysvars.SYSVARS:
        if name in MYSQLD_OPTION_NAMES:
            owner = BOTH if name in _WIRE_VARIABLES else ENGINE
            table[name] = _from_sysvar(name, owner, bare=_BARE_VALUES.get(name))
    for opt in _OWN_OPTIONS:
        table[opt.name] = opt
    return table


#: Every option gtidkit models, by mysqld name (underscores).
OPTIONS: dict[str, Option] = _build_table()

#: mysqld's short options (``mysqld --help``: ``-h, --datadir=name``, ``-P, --port=#`` ...).
SHORT_OPTIONS = {
    "h": "datadir",
    "P": "port",
    "u": "user",
    "C": "character_set_server",
    "b": "basedir",
    "t": "tmpdir",
    "a": "ansi",
    "s": "symbolic_links",
    "n": "new",
    "T": "exit_info",
    "L": "language",
    "r": "chroot",
    "D": "daemonize",
    "I": "initialize",
    "V": "version",
    "v": "verbose",
    "?": "help",
}

#: Short options that take a value (``-h DIR`` / ``-hDIR``).
_SHORT_WITH_VALUE = {"h", "P", "u", "C", "b", "t", "L", "r", "T"}

_PREFIXES = (("skip_", False), ("disable_", False), ("enable_", True))
_TRUE = {"1", "on", "true"}
_FALSE = {"0", "off", "false"}
_SUFFIX = {"k": 10, "m": 20, "g": 30, "t": 40, "p": 50, "e": 60}


# ---------------------------------------------------------------------------------------------- the command line
def parse_command_line(args: list[str]) -> list[Setting]:
    """``--name=value``, ``--name value`` (options that need a value take the next argument, as my_getopt's
    REQUIRED_ARG), ``--name``, ``--skip-name``, mysqld's short options (``-h DIR``, ``-hDIR``, ``-P 3306``, ``-?``),
    and ``--`` (end of options).

    Raises:
        OptionError: an argument that is not an option (mysqld: "Too many arguments"), an unknown short option
            (MY-000069) or a short option without its value (MY-000072).
    """
    out: list[Setting] = []
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            if i < len(args):
                raise OptionError([ee("ERROR", 10147, args[i])])
            break
        if arg.startswith("--"):
            body = arg[2:]
            if "=" in body:
                name, value = body.split("=", 1)
                out.append(Setting(name, value))
                continue
            if _takes_value(body) and i < len(args) and _next_is_value(body, args[i]):
                out.append(Setting(body, args[i]))
                i += 1
            else:
                out.append(Setting(body, None))
            continue
        if arg.startswith("-") and len(arg) > 1:
            letter, rest = arg[1], arg[2:]
            if letter not in SHORT_OPTIONS:
                raise OptionError([ee("ERROR", 69, PROGRAM, letter)])
            if letter in _SHORT_WITH_VALUE:
                if not rest:
                    if i >= len(args):
                        raise OptionError([ee("ERROR", 72, PROGRAM, letter)])
                    rest = args[i]
                    i += 1
                out.append(Setting(SHORT_OPTIONS[letter], rest))
            else:
                out.append(Setting(SHORT_OPTIONS[letter], None))
            continue
        raise OptionError([ee("ERROR", 10147, arg)])
    return out


def _normal(name: str) -> str:
    return name.strip().replace("-", "_").lower()


def _takes_value(name: str) -> bool:
    """An option whose value may be the next argument: a modelled non-boolean, non-optional one, or a known
    mysqld option gtidkit does not model (its type is unknown: the next argument is taken unless it is an
    option)."""
    key = _normal(name).removeprefix("loose_")
    opt = OPTIONS.get(key)
    if opt is not None:
        return opt.kind in (INT, ENUM, STR, LIST)
    return key in MYSQLD_OPTION_NAMES


def _next_is_value(name: str, following: str) -> bool:
    """Whether ``following`` is the value of ``--name`` (a known option's; an option-like word never is for an
    option gtidkit does not model, whose type it does not know)."""
    key = _normal(name).removeprefix("loose_")
    opt = OPTIONS.get(key)
    if opt is not None and opt.bare is not None:
        # an optional value (my_getopt's OPT_ARG) is only ``--name=value`` in mysqld; gtidkit also takes the next
        # argument when it is one of the option's values (``--enforce-gtid-consistency ON``)
        return following.strip().upper() in opt.choices
    return opt is not None or not following.startswith("-")


# ---------------------------------------------------------------------------------------------- resolving
@dataclass
class ServerOptions:
    """The options in effect, split by owner, with the warnings to log at start-up.

    Attributes:
        wire: the wire server's options (``port``, ``bind_address``, ...), every one of :data:`OPTIONS` owned by
            ``wire`` or ``both``, typed, defaults filled in.
        engine: keyword arguments for ``Server.open`` (variable names, typed values): the options given, plus
            mysqld 8.0's defaults of ``log_bin`` (ON), ``gtid_mode`` (OFF), ``enforce_gtid_consistency`` (OFF),
            ``server_id`` (1) and ``binlog_format`` (ROW).
        command: ``datadir``, ``initialize``, ``help``, ... (None / False when not given).
        warnings: error-log lines (``Warning`` level) to print at start-up.
    """

    wire: dict[str, Any] = field(default_factory=dict)
    engine: dict[str, Any] = field(default_factory=dict)
    command: dict[str, Any] = field(default_factory=dict)
    warnings: list[LogLine] = field(default_factory=list)


#: Engine options always passed to ``Server.open`` with mysqld 8.0's defaults (``Server.open``'s own defaults are
#: the embedded API's: gtid_mode ON, binary log off).
MYSQLD_ENGINE_DEFAULTS = ("log_bin", "gtid_mode", "enforce_gtid_consistency", "server_id", "binlog_format")


def resolve(settings: list[Setting], *, accept: Callable[[Option], bool] | None = None) -> ServerOptions:
    """Match each setting to an option and check its value, in order (later settings win).

    Args:
        settings: option-file settings first, then the command line's.
        accept: restricts the modelled options (``gtidkit sql`` accepts only the engine's): an option for which it
            returns False is ignored with a warning.

    Returns:
        The options in effect (:class:`ServerOptions`).

    Raises:
        OptionError: every unknown option (MY-000067 / MY-000068), a value mysqld refuses (MY-000077 for an enum,
            MY-000058 + MY-000077 for a number with an unknown suffix, MY-000071 for a missing value), then
            ``Aborting`` (MY-010119).
    """
    result = ServerOptions()
    values: dict[str, Any] = {}
    errors: list[LogLine] = []
    for setting in settings:
        try:
            _apply(setting, values, result, accept)
        except _Refused as refused:
            errors.extend(refused.lines)
    if errors:
        raise OptionError([*errors, LogLine("ERROR", 10119, message(10119))])
    for opt in OPTIONS.values():
        bucket = _bucket(result, opt)
        if opt.key in values:
            bucket[opt.key] = values[opt.key]
            if opt.owner == BOTH:
                result.engine[opt.key] = values[opt.key]
        elif opt.owner in (WIRE, BOTH, COMMAND):
            bucket[opt.key] = opt.default_value()
    if "log_bin" in values:
        basename = values["log_bin"]
        result.engine["log_bin"] = basename is not False
        if isinstance(basename, str):
            result.engine["log_bin_basename"] = basename
    release = _release(values.get("server_version"))
    for name in MYSQLD_ENGINE_DEFAULTS:
        if name not in result.engine:
            result.engine[name] = bool(OPTIONS[name].default) if name == "log_bin" else OPTIONS[name].default
        if name not in values and release is not None:
            shown = sysvar_versions.default_of(name, release)
            if shown is not None and shown is not sysvar_versions.ABSENT:
                result.engine[name] = shown
    if release is not None:  # the rest of the release's defaults, under the names the release knows
        absent = sysvar_versions.absent_names(release)
        given = {sysvars.SYSVARS[k].alias_of or k for k in result.engine if k in sysvars.SYSVARS}
        for name, value in sysvar_versions.defaults(release).items():
            if name in given or name in result.engine:
                continue
            result.engine[_known_name(name, absent)] = value
    return result


def _release(text: Any) -> Any:
    """The :class:`~gtidkit.engine.server_version.Release` of ``--server-version`` (the default release when not
    given); None when the value is not one (``Server.open`` refuses it with 1231)."""
    from gtidkit.engine.server_version import resolve as resolve_release

    try:
        return resolve_release(text)
    except ValueError:
        return None


def _known_name(name: str, absent: frozenset[str]) -> str:
    """``name``, or the alias its release knows it by (5.7's ``log_slave_updates`` for ``log_replica_updates``)."""
    if name not in absent:
        return name
    return next(a.name for a in sysvars.SYSVARS.values() if a.alias_of == name and a.name not in absent)


class _Refused(Exception):
    def __init__(self, lines: list[LogLine]) -> None:
        super().__init__()
        self.lines = lines


def _bucket(result: ServerOptions, opt: Option) -> dict[str, Any]:
    if opt.owner == COMMAND:
        return result.command
    if opt.owner in (WIRE, BOTH):
        return result.wire
    return result.engine


def _lookup(name: str) -> tuple[str, bool | None]:
    """(option name, forced boolean) for a written name: the whole name first, then skip-/disable-/enable-; the
    options gtidkit models before the ones it only knows (``skip_log_bin`` is ``log_bin`` off)."""
    for table in (OPTIONS, MYSQLD_OPTION_NAMES):
        if name in table:
            return name, None
        for prefix, forced in _PREFIXES:
            if name.startswith(prefix) and name[len(prefix) :] in table:
                return name[len(prefix) :], forced
    return name, None


def _apply(
    setting: Setting, values: dict[str, Any], result: ServerOptions, accept: Callable[[Option], bool] | None
) -> None:
    written = _normal(setting.name)
    loose = written.startswith("loose_")
    name, forced = _lookup(written[len("loose_") :] if loose else written)
    opt = OPTIONS.get(name)
    if opt is not None and accept is not None and not accept(opt):
        result.warnings.append(LogLine("Warning", 0, _NOT_USED % name))
        return
    if opt is None:
        if name in MYSQLD_OPTION_NAMES:
            result.warnings.append(LogLine("Warning", 0, _NOT_MODELLED % name))
            return
        shown = setting.name[len("loose-") :] if loose else setting.name
        if setting.value is not None:
            line = ee("Warning" if loose else "ERROR", 67, f"{shown}={setting.value}")
        else:
            line = ee("Warning" if loose else "ERROR", 68, shown)
        if loose:
            result.warnings.append(line)
            return
        raise _Refused([line])
    value = setting.value
    if forced is not None:
        # --skip-x / --disable-x = off, --enable-x = on; "=0" negates again (my_getopt's double negation)
        on = forced if value is None or value.strip() != "0" else not forced
        if opt.kind in (BOOL, FLAG):
            values[opt.key] = on
        elif opt.kind == OPTIONAL_STR:
            values[opt.key] = opt.default if on else False
        else:
            raise _Refused([ee("ERROR", 68, setting.name)])
        return
    if opt.kind == LIST:
        if value is None:
            raise _Refused([ee("ERROR", 71, PROGRAM, opt.name)])
        values[opt.key] = (*values.get(opt.key, ()), value)
        return
    values[opt.key] = _convert(opt, value, result.warnings)


#: gtidkit's warning for a mysqld option it accepts and does not model (no MySQL message says this).
_NOT_MODELLED = "option '%s' is a mysqld option that gtidkit does not implement; it is ignored."
#: ... and for an option of the server that the running command (``gtidkit sql``) has no use for.
_NOT_USED = "option '%s' is not used by this command; it is ignored."


def _convert(opt: Option, value: str | None, warnings: list[LogLine]) -> Any:
    """The typed value of ``--name=value`` (my_getopt's ``setval``)."""
    if opt.kind == FLAG:
        return True
    if opt.kind == OPTIONAL_STR:
        return opt.default if value is None or value == "" else value
    if opt.kind == BOOL:
        if value is None:
            return True
        text = value.strip().lower()
        if text in _TRUE or text in _FALSE:
            return text in _TRUE
        warnings.append(ee("Warning", 73, PROGRAM, opt.name, value))
        return opt.default
    if value is None and opt.bare is not None:
        value = str(opt.bare)
    if value is None:
        raise _Refused([ee("ERROR", 71, PROGRAM, opt.name)])
    if opt.kind == ENUM:
        for choice in opt.choices:
            if choice.lower() == value.strip().lower():
                return choice
        text = value.strip()
        if text.isdigit() and int(text) < len(opt.choices):
            return opt.choices[int(text)]
        raise _Refused([ee("ERROR", 77, PROGRAM, value, opt.name)])
    if opt.kind == INT:
        return _number(opt, value, warnings)
    return value


def _number(opt: Option, value: str, warnings: list[LogLine]) -> int:
    """An unsigned number with my_getopt's suffixes and range adjustment (``getopt_ull``)."""
    text = value.strip()
    if text.startswith("-"):
        warnings.append(ee("Warning", 82, opt.name, text, opt.minimum))
        return opt.minimum
    digits = text
    shift = 0
    if text and text[-1].lower() in _SUFFIX and text[:-1].isdigit():
        digits, shift = text[:-1], _SUFFIX[text[-1].lower()]
    if not digits.isdigit():
        end = next((ch for ch in text if not ch.isdigit()), text[:1] or "?")
        raise _Refused([ee("ERROR", 58, end, opt.name, value), ee("ERROR", 77, PROGRAM, value, opt.name)])
    number = int(digits) << shift
    if number > sysvars.UINT64_MAX:
        raise _Refused([ee("ERROR", 79, value), ee("ERROR", 77, PROGRAM, value, opt.name)])
    adjusted = min(max(number, opt.minimum), opt.maximum)
    if adjusted != number:
        warnings.append(ee("Warning", 81, opt.name, number, adjusted))
    return adjusted


# ---------------------------------------------------------------------------------------------- all together
def load(args: list[str], *, accept: Callable[[Option], bool] | None = None) -> ServerOptions:
    """The options of a ``gtidkit server`` (or ``gtidkit sql``) command line and the option files it names.

    ``--no-defaults``, ``--defaults-file`` and ``--defaults-extra-file`` choose the option files (mysqld reads
    them before its other arguments; the global ``/etc/my.cnf`` & co. are not read: give ``--defaults-file``).

    Raises:
        OptionError: see :func:`read_option_file`, :func:`parse_command_line` and :func:`resolve`.
    """
    cli = parse_command_line(args)
    files: list[Setting] = []
    names = {_normal(s.name): s.value for s in cli}
    if "no_defaults" not in names:
        for key in ("defaults_file", "defaults_extra_file"):
            path = names.get(key)
            if path:
                files.extend(read_option_file(path))
    return resolve(files + cli, accept=accept)


def describe(opt: Option, value: Any) -> str:
    """A value as ``mysqld --verbose --help`` lists it (TRUE/FALSE, ``(No default value)``)."""
    if value is None or value == ():
        return "(No default value)"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    return str(value)


def help_text(*, verbose: bool, accept: Callable[[Option], bool] | None = None) -> str:
    """``--help`` (short usage) or ``--help --verbose`` (every option, then every option with its default, as
    ``mysqld --verbose --help``)."""
    opts = [o for o in sorted(OPTIONS.values(), key=lambda o: o.name) if accept is None or accept(o)]
    lines = [
        "Options are mysqld's: --name=value, --name value, --skip-name, loose-name, -h DIR (--datadir).",
        "The following options may be given as the first argument:",
        "--no-defaults, --defaults-file=#, --defaults-extra-file=#  (groups read: " + ", ".join(GROUPS) + ")",
        "",
    ]
    if not verbose:
        workers = OPTIONS["workers"]
        if accept is None or accept(workers):  # the server's process model (issue 21), not `gtidkit sql`'s
            count = workers.default_value()
            lines.append(
                f"Worker processes: --workers=N (default here: {count}, the CPUs this process may use; "
                "--workers=1: one process)."
            )
            lines.append("")
        lines.append("For every option and its default: --help --verbose")
        return "\n".join(lines) + "\n"
    for o in opts:
        arg = {INT: "=#", ENUM: "=name", STR: "=name", OPTIONAL_STR: "[=name]"}.get(o.kind, "")
        if o.bare is not None:
            arg = f"[{arg}]"
        short = next((f"-{k}, " for k, v in SHORT_OPTIONS.items() if v == o.name), "")
        text = o.help or _choices_help(o)
        lines.append(f"  {short}--{o.name.replace('_', '-')}{arg}  {text}".rstrip())
    lines += ["", "Variables (--variable-name=value)", f"{'and boolean options {FALSE|TRUE}':<48} Value"]
    lines.append("-" * 48 + " " + "-" * 30)
    release = _release(None)  # the defaults of the release a server presents as by default (8.0)
    for o in opts:
        if o.owner == COMMAND and o.kind == FLAG:
            continue
        default = o.default_value()
        var = sysvars.SYSVARS.get(o.name)
        if (
            var is not None and default == var.default
        ):  # the variable's default: the release's where it differs
            shown = sysvar_versions.default_of(o.name, release)
            if shown is not None and shown is not sysvar_versions.ABSENT:
                default = shown
        lines.append(f"{o.name.replace('_', '-'):<48} {describe(o, default)}")
    lines += [
        "",
        (
            f"mysqld options gtidkit accepts and ignores with a warning: {len(MYSQLD_OPTION_NAMES)} names "
            "(innodb_buffer_pool_size, slow_query_log, ...)."
        ),
    ]
    return "\n".join(lines) + "\n"


def _choices_help(opt: Option) -> str:
    if opt.kind == ENUM:
        return "One of " + ", ".join(opt.choices) + "."
    if opt.kind == INT:
        return f"{opt.minimum}..{opt.maximum}."
    return ""


__all__ = [
    "GROUPS",
    "MYSQLD_ENGINE_DEFAULTS",
    "OPTIONS",
    "SHORT_OPTIONS",
    "LogLine",
    "Option",
    "OptionError",
    "ServerOptions",
    "Setting",
    "describe",
    "help_text",
    "load",
    "parse_command_line",
    "read_option_file",
    "resolve",
]
