"""`gtidkit gtid` subcommands."""

import click


@click.group("gtid")
def gtid() -> None:
    """gtid subcommands."""
