"""`gtidkit topology check HOST[:PORT]...`: errant GTIDs across a replication topology, and the binlogs holding them.

Each server's gtid_executed is compared with its source's (from SHOW REPLICA STATUS), or, for a server without
replica status, with the first server named (see :mod:`gtidkit.replication.topology`). Exit status: 0 when no server
holds errant GTIDs, 1 when one does, 2 when none does but a server could not be read.
"""

from __future__ import annotations

import getpass
import os
import sys
from dataclasses import dataclass

import click

from gtidkit.cli.interrupt import set_incomplete

EXIT_ERRANT = 1
EXIT_UNREACHABLE = 2


@click.group("topology")
def topology() -> None:
    """Replication topology checks (errant GTIDs)."""


def client_args(args: list[str]) -> list[str]:
    """Rewrite the mysql client's password spellings into this command's options.

    ``-pSECRET`` and ``--password=SECRET`` give the password; ``-p`` and ``--password`` alone ask for it (``-p
    SECRET`` with a space asks too, and SECRET is then an argument, as with mysql). Everything after ``--`` is kept.

    Args:
        args: the command's arguments as typed.

    Returns:
        The arguments click parses (``--password=SECRET`` / ``--password-prompt``).
    """
    out: list[str] = []
    for i, arg in enumerate(args):
        if arg == "--":
            return out + args[i:]
        if arg in ("-p", "--password"):
            out.append("--password-prompt")
        elif arg.startswith("-p"):
            out.append("--password=" + arg[2:])
        else:
            out.append(arg)
    return out


class _MysqlClientCommand(click.Command):
    """A click command whose ``-p[password]`` / ``--password[=password]`` parse as the mysql client's do."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """Parse ``args`` after :func:`client_args`."""
        return super().parse_args(ctx, client_args(list(args)))


@dataclass(frozen=True)
class Credentials:
    """Where and as whom to connect when a server is named without a port or not named at all."""

    host: str
    port: int
    user: str
    password: str


def resolve_credentials(
    *,
    host: str | None,
    port: int | None,
    user: str | None,
    password: str | None,
    prompt: bool,
    defaults_file: str | None,
) -> Credentials:
    """The connection options as the mysql client resolves them: command line, then ``[client]`` (and
    ``[gtidkit]``) of ``--defaults-file``, then ``MYSQL_PWD`` for the password, then the defaults (127.0.0.1, 3306,
    root, no password).

    Raises:
        click.BadParameter: the option file cannot be read, or its port is not a number.
    """
    from gtidkit.protocol.option_files import OptionError, read_option_file

    file_opts: dict[str, str] = {}
    if defaults_file is not None:
        try:
            settings = read_option_file(defaults_file, groups=("client", "gtidkit"))
        except OptionError as err:
            raise click.BadParameter(
                "; ".join(line.text for line in err.lines), param_hint="--defaults-file"
            ) from err
        for setting in settings:  # the last setting of a name wins, as in the mysql client
            file_opts[setting.name.replace("_", "-")] = setting.value or ""
    if port is None and "port" in file_opts:
        try:
            port = int(file_opts["port"])
        except ValueError:
            raise click.BadParameter(
                f"port={file_opts['port']} is not a number", param_hint="--defaults-file"
            )
    if prompt:
        password = getpass.getpass("Enter password: ")
    elif password is None:
        password = file_opts.get("password", os.environ.get("MYSQL_PWD", ""))
    return Credentials(
        host=host or file_opts.get("host", "127.0.0.1"),
        port=port or 3306,
        user=user or file_opts.get("user", "root"),
        password=password,
    )


@topology.command("check", cls=_MysqlClientCommand, context_settings={"help_option_names": ["--help"]})
@click.argument("servers", nargs=-1, metavar="[HOST[:PORT]]...")
@click.option("--host", "-h", default=None, help="Server to read when none is named (mysql's -h; 127.0.0.1).")
@click.option(
    "--port", "-P", type=int, default=None, help="Port of servers named without one (mysql's -P; 3306)."
)
@click.option("--user", "-u", default=None, help="Account used on every server (mysql's -u; root).")
@click.option(
    "--password",
    default=None,
    metavar="[PASSWORD]",
    help="Its password, as mysql takes it: -pSECRET or --password=SECRET; -p or --password alone asks for it; "
    "else MYSQL_PWD.",
)
@click.option("--password-prompt", is_flag=True, hidden=True)
@click.option(
    "--defaults-file",
    type=click.Path(dir_okay=False),
    default=None,
    help="Option file whose [client] (and [gtidkit]) group gives host, port, user, password.",
)
@click.option(
    "--connect-timeout", default=10.0, show_default=True, help="Seconds to wait for each connection."
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def check(
    servers: tuple[str, ...],
    host: str | None,
    port: int | None,
    user: str | None,
    password: str | None,
    password_prompt: bool,
    defaults_file: str | None,
    connect_timeout: float,
    as_json: bool,
) -> None:
    """Report GTIDs a replica holds that its source lacks, and the binlogs holding them.

    Connection options are the mysql client's (-h, -P, -u, -pPASSWORD, --password, --defaults-file, MYSQL_PWD).
    A server with no replica status is compared with the first server named; sources named by SHOW REPLICA STATUS
    but not given are read with the same account.
    """
    from gtidkit.replication.read_your_writes import Endpoint
    from gtidkit.replication.topology import check_topology

    cred = resolve_credentials(
        host=host,
        port=port,
        user=user,
        password=password,
        prompt=password_prompt,
        defaults_file=defaults_file,
    )
    addresses = servers or (cred.host,)
    try:
        endpoints = [
            Endpoint.parse(a, user=cred.user, password=cred.password, port=cred.port) for a in addresses
        ]
    except ValueError as err:
        raise click.BadParameter(str(err)) from err
    set_incomplete(f"reading {', '.join(e.address for e in endpoints)} did not finish; no report was printed")
    report = check_topology(endpoints, connect_timeout=connect_timeout)
    if as_json:
        click.echo(report.to_json())
    else:
        _print(report)
    if report.has_errant:
        sys.exit(EXIT_ERRANT)
    if report.unreachable:
        sys.exit(EXIT_UNREACHABLE)


def _print(report: object) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from gtidkit.replication.topology import TopologyReport

    assert isinstance(report, TopologyReport)
    console = Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 160)
    errors = Console(stderr=True, highlight=False, soft_wrap=True)  # what could not be read is not a result
    servers = Table(title="Servers")
    for col in ("server", "server_uuid", "role", "binary logs"):
        servers.add_column(col, overflow="fold")  # a UUID is wrapped, never cut to "…"
    for s in report.servers:
        role = (
            "replica of " + ", ".join(f"{h}:{p}" for h, p in s.sources) if s.sources else "no replica status"
        )
        logs = "OFF" if s.binlogs is None else f"{len(s.binlogs)} file(s)"
        servers.add_row(s.address, s.server_uuid, role, logs)
    if report.servers:
        console.print(servers)
    for s in report.servers:
        console.print(f"{s.address} gtid_executed: {s.gtid_executed or '(empty)'}")
        console.print(f"{s.address} gtid_purged:   {s.gtid_purged or '(empty)'}")
    for address, error in report.unreachable:
        errors.print(f"[red]unreachable[/red] {escape(address)}: {escape(error)}")
    for w in report.warnings:
        errors.print(f"[yellow]warning[/yellow] {escape(w)}")
    for c in report.checks:
        against = ", ".join(c.compared_with)
        if not c.errant:
            console.print(
                f"[green]OK[/green] {c.server}: no errant GTIDs (compared with {against}, {c.basis})"
            )
            continue
        console.print(f"[red]ERRANT[/red] {c.server}: {c.errant} (compared with {against}, {c.basis})")
        for name, gtids in c.binlogs:
            console.print(f"    in {name}: {gtids}")
        if c.not_in_binlogs:
            console.print(f"    in no binary log (purged or binary log off): {c.not_in_binlogs}")
