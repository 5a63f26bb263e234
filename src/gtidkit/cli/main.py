"""gtidkit's command line: a thin click shell over the library.

Subcommands live one module each (``gtid_cmd``, ``binlog_cmd``, ``sql_cmd``, ``pipeline_cmd``); heavy imports
(PySpark) happen inside the commands, so ``gtidkit gtid ...`` starts fast.
"""

from __future__ import annotations

import click

from gtidkit import __version__
from gtidkit.cli import binlog_cmd, demo_cmd, gtid_cmd, pipeline_cmd, server_cmd, sql_cmd, topology_cmd
from gtidkit.cli.interrupt import GtidkitGroup


@click.group(cls=GtidkitGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="gtidkit")
def cli() -> None:
    """gtidkit: MySQL GTID sets, binary logs, a GTID engine and a Spark pipeline for binlog fleets."""


cli.add_command(gtid_cmd.gtid)
cli.add_command(binlog_cmd.binlog)
cli.add_command(sql_cmd.sql)
cli.add_command(pipeline_cmd.pipeline)
cli.add_command(server_cmd.server)
cli.add_command(topology_cmd.topology)
cli.add_command(demo_cmd.demo)


def main() -> None:
    """Console-script entry point (``gtidkit``)."""
    cli()


if __name__ == "__main__":
    main()
