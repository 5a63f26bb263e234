"""`gtidkit binlog` subcommands."""

import click


@click.group("binlog")
def binlog() -> None:
    """binlog subcommands."""
