"""`gtidkit sql`: run statements against an engine datadir. (Owner: engine work, issue 3.)"""

import click


@click.command("sql")
def sql() -> None:
    """Run SQL statements against a gtidkit datadir (not built yet)."""
    raise click.ClickException("gtidkit sql is not built yet")
