"""`gtidkit pipeline` subcommands."""

import click


@click.group("pipeline")
def pipeline() -> None:
    """pipeline subcommands."""
