"""`gtidkit binlog generate`: write generated MySQL 8.0-layout binlogs (owner: the writer/generator work)."""

import click


@click.command("generate")
def generate() -> None:
    """Generate binlogs (not built yet)."""
    raise click.ClickException("gtidkit binlog generate is not built yet")
