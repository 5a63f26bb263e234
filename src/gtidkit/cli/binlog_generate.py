"""`gtidkit binlog generate`: write generated MySQL 8.0-layout binlogs (a click group with two subcommands).

* ``gtidkit binlog generate fleet --output DIR [--seed N]``: a source and its replicas with known anomalies,
  ``manifest.json`` and ``topology.json`` (see :func:`gtidkit.generate.generate_fleet`).
* ``gtidkit binlog generate corpus --output DIR --size 1GB --hosts 20``: a large realistic corpus for benchmarks,
  with a progress bar (see :func:`gtidkit.generate.generate_corpus`).
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import click

_UNITS = {
    "": 1,
    "B": 1,
    "K": 1000,
    "KB": 1000,
    "KIB": 1 << 10,
    "M": 1000**2,
    "MB": 1000**2,
    "MIB": 1 << 20,
    "G": 1000**3,
    "GB": 1000**3,
    "GIB": 1 << 30,
    "T": 1000**4,
    "TB": 1000**4,
    "TIB": 1 << 40,
}


def parse_size(text: str) -> int:
    """``"1GB"`` → 10**9, ``"64MiB"`` → 64·2**20, ``"1500"`` → 1500 (decimal SI units, binary with ``i``).

    Raises:
        click.BadParameter: not a size.
    """
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)\s*", text)
    if not m or m.group(2).upper() not in _UNITS:
        raise click.BadParameter(f"not a size: {text!r} (examples: 50MB, 1GB, 64MiB, 1500)")
    return int(float(m.group(1)) * _UNITS[m.group(2).upper()])


class _Size(click.ParamType):
    name = "SIZE"

    def convert(self, value, param, ctx):  # click's ParamType API
        if isinstance(value, int):
            return value
        try:
            return parse_size(value)
        except click.BadParameter as err:
            self.fail(str(err), param, ctx)


SIZE = _Size()


@click.group("generate")
def generate() -> None:
    """Generate realistic MySQL 8.0 binlogs: a small fleet with known anomalies, or a big corpus."""


@generate.command("fleet")
@click.option(
    "--output",
    "-o",
    "output",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Directory to create (one sub-directory per host).",
)
@click.option("--seed", default=1, show_default=True, type=int, help="Seed: same seed, same bytes.")
@click.option(
    "--replicas", default=2, show_default=True, type=click.IntRange(0, 9), help="Replicas of the source."
)
@click.option(
    "--transactions",
    default=400,
    show_default=True,
    type=click.IntRange(20, None),
    help="Transactions committed on the source.",
)
@click.option("--max-binlog-size", default="256KiB", show_default=True, type=SIZE, help="Rotation threshold.")
@click.option(
    "--chain-break/--no-chain-break",
    default=True,
    show_default=True,
    help="Break the Previous_gtids chain on the last replica.",
)
@click.option(
    "--anonymous/--no-anonymous",
    default=True,
    show_default=True,
    help="Write an anonymous transaction among the source's GTID transactions.",
)
@click.option(
    "--duplicate/--no-duplicate",
    default=False,
    show_default=True,
    help="Commit one GTID twice on replica1 (a relay log re-applied after a crash).",
)
@click.option("--overwrite", is_flag=True, help="Replace a previously generated directory.")
@click.option("--json", "as_json", is_flag=True, help="Print the manifest as JSON instead of tables.")
def fleet(
    output: Path,
    seed: int,
    replicas: int,
    transactions: int,
    max_binlog_size: int,
    chain_break: bool,
    anonymous: bool,
    duplicate: bool,
    overwrite: bool,
    as_json: bool,
) -> None:
    """Write a source and its replicas with an errant GTID, a GNO gap, rotations (and more), plus manifest.json."""
    from gtidkit.generate import generate_fleet

    try:
        manifest = generate_fleet(
            output,
            seed=seed,
            replicas=replicas,
            transactions=transactions,
            max_binlog_size=max_binlog_size,
            chain_break=chain_break,
            anonymous=anonymous,
            duplicate=duplicate,
            overwrite=overwrite,
        )
    except (FileExistsError, ValueError) as err:
        raise click.ClickException(_output_error(err)) from err
    if as_json:
        click.echo(manifest.to_json(), nl=False)
        return
    from rich.console import Console
    from rich.table import Table

    console = Console()
    hosts = Table(title=f"Fleet written to {output} (seed {seed}, {manifest.total_bytes:,} bytes)")
    for col in ("host", "role", "server_uuid", "server_id", "files", "transactions", "gtid_executed"):
        hosts.add_column(col, overflow="fold")  # UUIDs and GTID sets wrap, never cut to "…"
    for h in manifest.hosts:
        hosts.add_row(
            h.name,
            h.role + (f" of {h.source}" if h.source else ""),
            h.server_uuid,
            str(h.server_id),
            str(len(h.files)),
            str(h.transactions),
            h.gtid_executed,
        )
    console.print(hosts)
    anomalies = Table(title="Anomalies written on purpose (manifest.json)")
    for col in ("type", "host", "file", "pos", "detail"):
        anomalies.add_column(col, overflow="fold")
    for a in manifest.anomalies:
        detail = a.get("gtid") or a.get("missing") or ""
        anomalies.add_row(a["type"], a["host"], a["file"], str(a["pos"]), detail)
    console.print(anomalies)


@generate.command("corpus")
@click.option(
    "--output",
    "-o",
    "output",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Directory to create (one sub-directory per host).",
)
@click.option("--size", "size", default="1GB", show_default=True, type=SIZE, help="Total bytes of binlogs.")
@click.option("--hosts", default=20, show_default=True, type=click.IntRange(1, None), help="Number of hosts.")
@click.option("--seed", default=1, show_default=True, type=int, help="Seed: same seed, same bytes.")
@click.option("--max-binlog-size", default="64MiB", show_default=True, type=SIZE, help="Rotation threshold.")
@click.option("--overwrite", is_flag=True, help="Replace a previously generated directory.")
def corpus(output: Path, size: int, hosts: int, seed: int, max_binlog_size: int, overwrite: bool) -> None:
    """Write a large corpus (clusters of a source and two replicas) for benchmarks, with a progress bar."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )

    from gtidkit.generate import generate_corpus

    console = Console(stderr=True)
    start = time.perf_counter()
    with Progress(
        TextColumn("generating"),
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        TimeRemainingColumn(),
        console=console,
    ) as bar:
        task = bar.add_task("corpus", total=size)
        try:
            manifest = generate_corpus(
                output,
                size,
                hosts,
                seed=seed,
                max_binlog_size=max_binlog_size,
                overwrite=overwrite,
                progress=lambda n: bar.advance(task, n),
            )
        except (FileExistsError, ValueError) as err:
            raise click.ClickException(_output_error(err)) from err
        bar.update(task, completed=manifest.total_bytes)
    elapsed = time.perf_counter() - start
    files = sum(len(h.files) for h in manifest.hosts)
    click.echo(
        f"wrote {manifest.total_bytes:,} bytes in {files} files for {len(manifest.hosts)} hosts to {output} "
        f"in {elapsed:.1f} s ({manifest.total_bytes / elapsed / 1e6:.0f} MB/s)"
    )


def _output_error(err: Exception) -> str:
    """The message for a generator error, in the command line's terms (``--overwrite``, not the API's keyword)."""
    from gtidkit.generate import OutputNotEmptyError

    if isinstance(err, OutputNotEmptyError) and err.replaceable:
        return f"{err.path} is not empty: pass --overwrite to replace it"
    return str(err)
