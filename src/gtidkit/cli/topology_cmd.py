"""`gtidkit topology check HOST[:PORT]...`: errant GTIDs across a replication topology, and the binlogs holding them.

Each server's gtid_executed is compared with its source's (from SHOW REPLICA STATUS), or, for a server without
replica status, with the first server named (see :mod:`gtidkit.replication.topology`). Exit status: 0 when no server
holds errant GTIDs, 1 when one does, 2 when none does but a server could not be read.
"""

from __future__ import annotations

import sys

import click

EXIT_ERRANT = 1
EXIT_UNREACHABLE = 2


@click.group("topology")
def topology() -> None:
    """Replication topology checks (errant GTIDs)."""


@topology.command("check")
@click.argument("servers", nargs=-1, required=True, metavar="HOST[:PORT]...")
@click.option("--user", "-u", default="root", show_default=True, help="Account used on every server.")
@click.option("--password", "-p", default="", help="Password of that account.")
@click.option(
    "--connect-timeout", default=10.0, show_default=True, help="Seconds to wait for each connection."
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def check(servers: tuple[str, ...], user: str, password: str, connect_timeout: float, as_json: bool) -> None:
    """Report GTIDs a replica holds that its source lacks, and the binlogs holding them.

    A server with no replica status is compared with the first server named; sources named by SHOW REPLICA STATUS
    but not given are read with the same account.
    """
    from gtidkit.replication.topology import addresses_to_endpoints, check_topology

    try:
        endpoints = addresses_to_endpoints(servers, user, password)
    except ValueError as err:
        raise click.BadParameter(str(err)) from err
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
    from rich.table import Table

    from gtidkit.replication.topology import TopologyReport

    assert isinstance(report, TopologyReport)
    console = Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 160)
    servers = Table(title="Servers")
    for col in ("server", "server_uuid", "role", "binary logs"):
        servers.add_column(col, no_wrap=True)
    for s in report.servers:
        role = (
            "replica of " + ", ".join(f"{h}:{p}" for h, p in s.sources) if s.sources else "no replica status"
        )
        logs = "OFF" if s.binlogs is None else f"{len(s.binlogs)} file(s)"
        servers.add_row(s.address, s.server_uuid, role, logs)
    console.print(servers)
    for s in report.servers:
        console.print(f"{s.address} gtid_executed: {s.gtid_executed or '(empty)'}")
        console.print(f"{s.address} gtid_purged:   {s.gtid_purged or '(empty)'}")
    for address, error in report.unreachable:
        console.print(f"[red]unreachable[/red] {address}: {error}")
    for w in report.warnings:
        console.print(f"[yellow]warning[/yellow] {w}")
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
