"""`gtidkit binlog` subcommands: show (reader) and generate (generator)."""

import click

from gtidkit.cli.binlog_generate import generate


@click.group("binlog")
def binlog() -> None:
    """Read and write MySQL binary logs."""


binlog.add_command(generate)
