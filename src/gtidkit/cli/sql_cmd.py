"""`gtidkit sql`: open a datadir like starting mysqld, run statements in one session, print like `mysql --batch`.

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


@click.command("sql")
@click.option(
    "--datadir", required=True, type=click.Path(file_okay=False), help="Data directory (created if new)."
)
@click.option(
    "--gtid-mode",
    default="ON",
    show_default=True,
    type=click.Choice(["OFF", "OFF_PERMISSIVE", "ON_PERMISSIVE", "ON"], case_sensitive=False),
)
@click.option(
    "--enforce-gtid-consistency", default=None, type=click.Choice(["OFF", "ON", "WARN"], case_sensitive=False)
)
@click.option("--log-bin/--skip-log-bin", default=False, show_default=True, help="Binary logging on or off.")
@click.option(
    "--log-replica-updates/--skip-log-replica-updates",
    "--log-slave-updates/--skip-log-slave-updates",
    default=True,
    show_default=True,
)
@click.option("--gtid-executed-compression-period", type=int, default=None)
@click.option("--server-id", type=int, default=None)
@click.option(
    "--binlog-format", default=None, type=click.Choice(["ROW", "STATEMENT", "MIXED"], case_sensitive=False)
)
@click.option("--max-binlog-size", type=int, default=None)
@click.option("--sync-binlog", type=int, default=None)
@click.option("--binlog-checksum", default=None, type=click.Choice(["NONE", "CRC32"], case_sensitive=False))
@click.option("-e", "--execute", "statements", required=True, help="Statements to run, separated by ';'.")
def sql(
    datadir: str,
    gtid_mode: str,
    enforce_gtid_consistency: str | None,
    log_bin: bool,
    log_replica_updates: bool,
    gtid_executed_compression_period: int | None,
    server_id: int | None,
    binlog_format: str | None,
    max_binlog_size: int | None,
    sync_binlog: int | None,
    binlog_checksum: str | None,
    statements: str,
) -> None:
    """Run SQL statements against a gtidkit datadir (the server starts, runs them, shuts down)."""
    from gtidkit.engine import Server
    from gtidkit.engine.sql.parse import split_statements
    from gtidkit.errors import MySQLError

    options: dict[str, Any] = {
        "gtid_mode": gtid_mode.upper(),
        "log_bin": log_bin,
        "log_replica_updates": log_replica_updates,
    }
    for name, value in (
        ("enforce_gtid_consistency", enforce_gtid_consistency),
        ("gtid_executed_compression_period", gtid_executed_compression_period),
        ("server_id", server_id),
        ("binlog_format", binlog_format),
        ("max_binlog_size", max_binlog_size),
        ("sync_binlog", sync_binlog),
        ("binlog_checksum", binlog_checksum),
    ):
        if value is not None:
            options[name] = value.upper() if isinstance(value, str) else value
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
