"""gtidkit's command line: a thin click shell over the library.

Subcommands live one module each (``gtid_cmd``, ``binlog_cmd``, ``sql_cmd``, ``pipeline_cmd``, ...), imported only
when their command runs (or ``--help`` lists them): ``gtidkit gtid ...`` does not load the engine, and ``gtidkit
server`` does not load the binlog listing, the pipeline or the topology tools (the lazy group of click's
documentation, "Lazily Loading Subcommands"). Heavy imports (PySpark) happen inside the commands.
"""

from __future__ import annotations

import gc

import click

from gtidkit import __version__
from gtidkit.cli.interrupt import GtidkitGroup, process_runs_one_command

#: command name -> "module:attribute" of its click command (``--help`` lists them sorted)
SUBCOMMANDS = {
    "gtid": "gtidkit.cli.gtid_cmd:gtid",
    "binlog": "gtidkit.cli.binlog_cmd:binlog",
    "sql": "gtidkit.cli.sql_cmd:sql",
    "pipeline": "gtidkit.cli.pipeline_cmd:pipeline",
    "server": "gtidkit.cli.server_cmd:server",
    "topology": "gtidkit.cli.topology_cmd:topology",
    "demo": "gtidkit.cli.demo_cmd:demo",
}


@click.group(
    cls=GtidkitGroup,
    lazy_subcommands=SUBCOMMANDS,
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(__version__, prog_name="gtidkit")
def cli() -> None:
    """gtidkit: MySQL GTID sets, binary logs, a GTID engine and a Spark pipeline for binlog fleets."""


def main() -> None:
    """Console-script entry point (``gtidkit``, ``python -m gtidkit``).

    When the command is done (returned, exited or failed), the objects still alive are frozen (:func:`gc.freeze`)
    so that the interpreter's exit skips its last full garbage collection over them: with the engine and sqlglot
    loaded that collection walks every class, function and table of the process, about a tenth of a second of
    CPU for every server, ``sql`` or ``binlog`` run, spent after the command's work. ``atexit`` handlers and
    non-daemon threads run as before, and objects freed by reference counting (files, sockets, SQLite handles)
    are closed as before; only garbage in reference cycles is left to the operating system (CPython does not
    promise to finalize those at exit either).

    The process runs this one command (:func:`gtidkit.cli.interrupt.process_runs_one_command`): a Ctrl-C ends it
    with 130 and a note, or, after the command's outcome is decided, leaves it the command's status.
    """
    process_runs_one_command()
    try:
        cli()
    finally:
        gc.freeze()


if __name__ == "__main__":
    main()
