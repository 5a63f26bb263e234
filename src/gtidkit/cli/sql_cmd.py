"""`gtidkit sql`: open a datadir like starting mysqld, run statements in one session, print like `mysql --batch`.

Options are ``gtidkit server``'s (:mod:`gtidkit.protocol.options`: mysqld's spellings and defaults), limited to the
engine's; a wire-server option (``--port``, ``--bind-address`` ...) is accepted with a warning.

Output follows the mysql client's batch mode: per result set a header line of column names, then one line per
row, fields separated by tabs, NULL printed as ``NULL``; special characters escaped as ``mysql --batch`` does
(``\\t``, ``\\n``, ``\\\\``, ``\\0``). Statements without a result set print nothing. On the first error the
message ``ERROR <code> (<sqlstate>): <message>`` goes to stderr, the server shuts down cleanly and the exit
status is 1. Ctrl-C kills the running statement (as the mysql client's KILL QUERY), runs no further one, shuts the
server down cleanly, says which statements were left undone and exits with status 130.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Iterator
from typing import Any

import click

from gtidkit.cli.interrupt import interrupted, set_incomplete


def _field(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, (bytes, bytearray)):
        value = bytes(value).decode("utf-8", "replace")
    text = str(value)
    return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\0", "\\0")


def format_batch(columns: list[str], rows: list[tuple]) -> str:
    """One result set as ``mysql --batch`` prints it (header line, tab-separated rows, trailing newline)."""
    lines = ["\t".join(_field(c) for c in columns)]
    lines.extend("\t".join(_field(v) for v in row) for row in rows)
    return "\n".join(lines) + "\n"


def _split_execute(args: list[str]) -> tuple[str | None, list[str]]:
    """``-e STMTS`` / ``-eSTMTS`` / ``--execute STMTS`` / ``--execute=STMTS`` (the mysql client's spelling) apart
    from the server options."""
    statements: str | None = None
    rest: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-e", "--execute") and i + 1 < len(args):
            statements, i = args[i + 1], i + 2
            continue
        if arg.startswith("--execute="):
            statements = arg.split("=", 1)[1]
        elif arg.startswith("-e") and not arg.startswith("--") and len(arg) > 2:
            statements = arg[2:]
        else:
            rest.append(arg)
        i += 1
    return statements, rest


def _engine_option(opt: Any) -> bool:
    from gtidkit.protocol.options import BOTH, COMMAND, ENGINE

    return opt.owner in (ENGINE, BOTH) or (opt.owner == COMMAND and opt.name in _SQL_COMMAND_OPTIONS)


#: The command-level options `gtidkit sql` takes (the rest are the server's: --initialize, --help ...).
_SQL_COMMAND_OPTIONS = {"datadir", "defaults_file", "defaults_extra_file", "no_defaults", "help", "verbose"}

_USAGE = "Usage: gtidkit sql --datadir DIR [mysqld options] -e 'STATEMENTS'"


@click.command(
    "sql",
    add_help_option=False,
    context_settings={
        "ignore_unknown_options": True,
        "allow_extra_args": True,
        "allow_interspersed_args": False,
    },
)
@click.pass_context
def sql(ctx: click.Context) -> None:
    """Run SQL statements against a gtidkit datadir: gtidkit sql --datadir D [mysqld options] -e 'STMTS'.

    Takes mysqld's spellings of the engine's options (``--log-bin[=name]``, ``--skip-log-bin``, ``--gtid-mode=ON``,
    ``--server-id 7``, ``--defaults-file``, ``loose-`` ...), with the same defaults as ``gtidkit server``
    (mysqld 8.0's: binary log ON, gtid_mode OFF), so one datadir reads the same under both commands.
    """
    from gtidkit.engine import Server
    from gtidkit.engine.sql.parse import split_statements
    from gtidkit.errors import MySQLError
    from gtidkit.protocol.options import OptionError, help_text, load

    statements, rest = _split_execute(list(ctx.args))
    try:
        opts = load(rest, accept=_engine_option)
    except OptionError as err:
        for line in err.lines:
            click.echo(str(line), err=True)
        sys.exit(1)
    if opts.command["help"]:
        click.echo(_USAGE)
        click.echo(help_text(verbose=bool(opts.command["verbose"]), accept=_engine_option), nl=False)
        return
    for line in opts.warnings:
        click.echo(str(line), err=True)
    datadir = opts.command.get("datadir")
    if not datadir or statements is None:
        click.echo(_USAGE, err=True)
        sys.exit(2)
    options = dict(opts.engine)
    options.pop("port", None)  # no listener here
    set_incomplete(f"the server on {datadir} was starting; no statement was run")
    try:
        server = Server.open(datadir, **options)
    except MySQLError as err:
        click.echo(f"ERROR {err.code} ({err.sqlstate}): {err.message}", err=True)
        sys.exit(1)
    except OSError as err:  # e.g. a datadir that cannot be created
        click.echo(f"ERROR: cannot open data directory {datadir}: {err.strerror or err}", err=True)
        sys.exit(1)
    failed = False
    texts = split_statements(statements)
    stopped: str | None = None
    try:
        session = server.session()
        with _ctrl_c_kills_query(session) as ctrl_c:
            for number, text in enumerate(texts, 1):
                set_incomplete(_incomplete(number, len(texts)))
                try:
                    (result,) = session.execute(text)
                except MySQLError as err:
                    if ctrl_c.is_set():
                        stopped = _incomplete(number, len(texts))
                        break
                    click.echo(f"ERROR {err.code} ({err.sqlstate}): {err.message}", err=True)
                    failed = True
                    break
                if ctrl_c.is_set():  # the statement finished (SLEEP() returns 1 when killed): not printed
                    stopped = _incomplete(number, len(texts))
                    break
                if result.has_result_set:
                    sys.stdout.write(format_batch(result.column_names, result.rows))
        session.close()
    finally:
        server.shutdown()
    sys.stdout.flush()
    if stopped is not None:
        interrupted(stopped + "; the server shut down cleanly")
    if failed:
        sys.exit(1)


def _incomplete(number: int, total: int) -> str:
    left = total - number
    if left == 0:
        rest = ""
    elif left == 1:
        rest = f"; statement {total} was not run"
    else:
        rest = f"; statements {number + 1} to {total} were not run"
    return (
        f"statement {number} of {total} was interrupted (its result is not printed; a transaction left open is "
        f"rolled back){rest}"
    )


@contextlib.contextmanager
def _ctrl_c_kills_query(session: Any) -> Iterator[threading.Event]:
    """While the statements run, the first Ctrl-C acts as the mysql client's: KILL QUERY on the running statement
    (it ends with 1317, or a SLEEP() returns 1), after which no further statement runs; a second Ctrl-C raises
    KeyboardInterrupt at once. Yields the event set by the first Ctrl-C."""
    pressed = threading.Event()

    def on_sigint(signum: int, frame: Any) -> None:
        if pressed.is_set():
            raise KeyboardInterrupt
        pressed.set()
        session.interrupt()

    try:
        previous = signal.signal(signal.SIGINT, on_sigint)
    except ValueError:  # not the main thread (an embedding caller): Ctrl-C stays a KeyboardInterrupt
        yield pressed
        return
    try:
        yield pressed
    finally:
        signal.signal(signal.SIGINT, previous)
