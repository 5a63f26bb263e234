"""`gtidkit pipeline` subcommands: ``run`` (the PySpark job on a fleet of binlogs) and ``demo`` (``make demo``).

PySpark is imported inside the commands so that the rest of the CLI starts fast.
"""

from __future__ import annotations

import sys

import click


@click.group("pipeline")
def pipeline() -> None:
    """The PySpark pipeline: binlogs of a fleet → GTID state, checks and a report."""


@pipeline.command("run")
@click.option(
    "--input",
    "input_path",
    required=True,
    help="Fleet directory (one sub-directory per host) or JSON mapping file host -> [binlog paths]: a "
    "local path or a file://, s3://, s3a://, gs://, hdfs:// URI.",
)
@click.option("--output", required=True, help="Output directory (Parquet + report): a local path or a URI.")
@click.option(
    "--fs-option",
    "fs_options",
    multiple=True,
    metavar="KEY=VALUE",
    help="Storage option, Hadoop names (fs.s3a.endpoint=http://127.0.0.1:9000, fs.s3a.access.key=..., "
    "fs.s3a.secret.key=..., fs.s3a.path.style.access=true) or pyarrow's; repeatable.",
)
@click.option(
    "--master", default="local[*]", show_default=True, help="Spark master URL (local[N], spark://host:port)."
)
@click.option(
    "--topology",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help='JSON {"replica": "source"}; default: inferred from server UUIDs.',
)
@click.option("--no-verify-checksum", is_flag=True, help="Do not verify CRC32 footers.")
@click.option(
    "--incremental",
    is_flag=True,
    help="Scan only binlogs new or grown since the previous run into OUTPUT; reuse the rest.",
)
@click.option("--json", "as_json", is_flag=True, help="Print summary.json instead of tables.")
@click.option("--quiet", is_flag=True, help="No progress display.")
def run_cmd(
    input_path: str,
    output: str,
    fs_options: tuple[str, ...],
    master: str,
    topology: str | None,
    no_verify_checksum: bool,
    incremental: bool,
    as_json: bool,
    quiet: bool,
) -> None:
    """Run the pipeline on INPUT and write tables, checks and report.html to OUTPUT.

    Exits 1 when the input holds no binlog or the topology file is malformed, 0 otherwise (findings are data,
    not failures).
    """
    from rich.console import Console

    from gtidkit.pipeline.job import dumps_summary, run_pipeline
    from gtidkit.pipeline.layout import LayoutError
    from gtidkit.pipeline.progress import SparkProgress
    from gtidkit.pipeline.report import print_summary
    from gtidkit.pipeline.session import build_session
    from gtidkit.pipeline.storage import StorageError

    options = {}
    for item in fs_options:
        key, sep, value = item.partition("=")
        if not sep:
            raise click.BadParameter(f"expected KEY=VALUE, got {item!r}", param_hint="--fs-option")
        options[key.strip()] = value
    spark = build_session(master=master, app_name="gtidkit-pipeline")
    try:
        with SparkProgress(spark, enabled=not quiet and not as_json) as progress:
            result = run_pipeline(
                spark,
                input_path,
                output,
                topology=topology,
                verify_checksum=not no_verify_checksum,
                on_stage=progress.stage,
                storage_options=options,
                incremental=incremental,
            )
    except (LayoutError, ValueError, StorageError) as err:
        click.echo(f"error: {err}", err=True)
        sys.exit(1)
    finally:
        spark.stop()
    if as_json:
        click.echo(dumps_summary(result), nl=False)
    else:
        print_summary(result, Console())
        click.echo(f"report: {result.output_child('report.html')}")


@pipeline.command("package")
@click.argument("dest", type=click.Path(dir_okay=False), default="gtidkit.zip")
def package_cmd(dest: str) -> None:
    """Zip the gtidkit package for executors without it: spark-submit --py-files DEST (default gtidkit.zip)."""
    from gtidkit.pipeline.session import package_zip

    click.echo(package_zip(dest))


@pipeline.command("demo")
@click.option("--output", default="demo-out", show_default=True, type=click.Path(file_okay=False))
@click.option("--master", default="local[*]", show_default=True)
@click.option(
    "--fixtures",
    type=click.Path(file_okay=False),
    default=None,
    help="Real binlogs grouped by host (default: ../shared/research/fixtures/binlogs when present).",
)
def demo_cmd(output: str, master: str, fixtures: str | None) -> None:
    """Generate a small fleet (source + replicas, an errant GTID, a gap, rotations), run the pipeline on it and
    print the GTID state per host; then do the same on the real fixture binlogs when they are present."""
    from gtidkit.pipeline.demo import run_demo

    sys.exit(run_demo(output, master=master, fixtures=fixtures))
