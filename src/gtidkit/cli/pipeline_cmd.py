"""`gtidkit pipeline` subcommands: ``run`` (the PySpark job on a fleet of binlogs) and ``demo`` (``make demo``).

PySpark is imported inside the commands so that the rest of the CLI starts fast.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

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
@click.option(
    "--engine",
    type=click.Choice(["auto", "spark", "local"]),
    default="auto",
    show_default=True,
    help="spark: a Spark job; local: the same transforms in plain Python, no JVM (same tables); auto: local "
    "when the input is at most --local-max-bytes.",
)
@click.option(
    "--local-max-bytes",
    type=click.IntRange(min=0),
    default=64 << 20,
    show_default=True,
    help="Largest input (bytes of binlog) that --engine auto runs without Spark.",
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
    engine: str,
    local_max_bytes: int,
    as_json: bool,
    quiet: bool,
) -> None:
    """Run the pipeline on INPUT and write tables, checks and report.html to OUTPUT.

    Results go to stdout, progress, warnings and errors to stderr. Exits 1 when the input holds no binlog, an
    option is wrong or the storage refuses (checked before Spark starts), 130 on Ctrl-C, 0 otherwise (findings,
    damaged files included, are data, not failures: each is listed on stderr and in the checks).
    """
    from gtidkit.pipeline.storage import StorageError

    options = {}
    for item in fs_options:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"expected KEY=VALUE, got {item}", param_hint="--fs-option")
        options[key.strip()] = value
    state: dict[str, Any] = {}
    try:
        plan = _validate(input_path, output, topology, options, engine, local_max_bytes, master)
        result = _run(plan, master, incremental, not no_verify_checksum, quiet or as_json, options, state)
    except KeyboardInterrupt:
        from gtidkit.cli.interrupt import interrupted

        interrupted(_incomplete(state.get("progress"), output))
    except (ValueError, StorageError) as err:
        click.echo(f"error: {err}", err=True)
        sys.exit(1)
    except Exception as err:
        if type(err).__module__.startswith(("pyspark", "py4j")):  # Spark failed to start or to run
            first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
            click.echo(
                f"error: Spark failed: {first} (Spark needs Java 17 on the PATH; --engine local runs without it)",
                err=True,
            )
            sys.exit(1)
        raise
    _warn_bad_files(result)
    if as_json:
        from gtidkit.pipeline.job import dumps_summary

        click.echo(dumps_summary(result), nl=False)
    else:
        from rich.console import Console

        from gtidkit.pipeline.report import print_summary

        print_summary(result, Console())
        click.echo(f"report: {result.output_child('report.html')}")


def _validate(
    input_path: str,
    output: str,
    topology: str | None,
    options: dict,
    engine: str,
    local_max_bytes: int,
    master: str,
) -> dict:
    """Everything that can be checked without Spark: the input's listing, the topology file and its hosts,
    the output location, the master URL; returns what :func:`_run` needs.

    Raises:
        ValueError: the message for the user (LayoutError included).
        gtidkit.pipeline.storage.StorageError: the storage refused.
    """
    import re

    from gtidkit.pipeline import storage
    from gtidkit.pipeline.job import choose_engine, resolve_topology
    from gtidkit.pipeline.layout import discover

    layout = discover(input_path, options)
    given = resolve_topology(topology)
    if given is not None:
        unknown = sorted({h for r, srcs in given.items() for h in (r, *srcs)} - set(layout.hosts))
        if unknown:
            raise ValueError(
                f"topology file {topology} names host(s) not in the input: {', '.join(unknown)} "
                f"(hosts: {', '.join(layout.hosts)})"
            )
    out = storage.resolve(output, options)
    if out.local and Path(out.path).exists() and not Path(out.path).is_dir():
        raise ValueError(f"--output {output}: a file, not a directory")
    chosen = choose_engine(engine, layout, local_max_bytes)
    if chosen == "spark" and not re.fullmatch(
        r"(local(\[(\*|\d+)(,\s*\d+)?\])?|(spark|yarn|k8s|mesos)\S*)", master
    ):
        raise ValueError(f"--master {master}: not a Spark master URL (local[N], local[*], spark://host:port)")
    return {"input": input_path, "output": output, "layout": layout, "topology": given, "engine": chosen}


def _run(
    plan: dict, master: str, incremental: bool, verify: bool, quiet: bool, options: dict, state: dict
) -> Any:
    """Start Spark when the engine needs it, run the job under a progress display (kept in
    ``state["progress"]`` for the Ctrl-C message); Spark is always stopped.

    Raises:
        KeyboardInterrupt: Ctrl-C (Spark's jobs cancelled, the session stopped).
    """
    from gtidkit.pipeline.interrupt import SparkInterrupt, stop_quietly
    from gtidkit.pipeline.job import run_pipeline
    from gtidkit.pipeline.progress import PipelineProgress

    spark = None
    progress = state["progress"] = PipelineProgress(plan["layout"], None, enabled=not quiet)
    try:
        with SparkInterrupt() as ctl:
            if plan["engine"] == "spark":
                from gtidkit.pipeline.session import build_session

                with progress:  # a heartbeat line while the JVM starts
                    progress.stage("starting Spark")
                    try:
                        spark = ctl.start(build_session, master=master, app_name="gtidkit-pipeline")
                    finally:
                        spark = ctl.spark
                progress = state["progress"] = PipelineProgress(plan["layout"], spark, enabled=not quiet)
            with progress:
                result = run_pipeline(
                    spark,
                    plan["input"],
                    plan["output"],
                    topology=plan["topology"],
                    verify_checksum=verify,
                    on_stage=ctl.wrap(progress.stage),
                    on_file=ctl.wrap(progress.file_done),
                    on_scan=progress.set_scan,
                    storage_options=options,
                    incremental=incremental,
                    layout=plan["layout"],
                )
    finally:
        stop_quietly(spark)
    return result


def _incomplete(progress: Any, output: str) -> str:
    """What Ctrl-C left undone, from the progress object's stages."""
    if progress is None:
        return f"before the pipeline started; {output} unchanged"
    name = progress.name
    if name == "starting":
        return f"before the pipeline started; {output} unchanged"
    if name == "starting Spark":
        return f"while Spark was starting; {output} unchanged"
    if name in ("discover", "scan"):
        return f"during stage {name} ({progress.text()}); no table of {output} rewritten, report not written"
    if name == "report":
        return f"during stage report; the tables in {output} are complete, report.html and summary.json may be stale"
    return (
        f"during stage {name}; the tables in {output} may be partly rewritten (run again), report not written"
    )


def _warn_bad_files(result: Any) -> None:
    """Every damaged file and every skipped input on stderr (they are also in the checks and summary.json)."""
    for f in result.files:
        if f["status"] != "ok":
            click.echo(
                f"warning: {f['host']}/{f['file']}: {f['status']} at offset {f['error_offset']}: {f['error']} "
                f"({f['good_bytes']:,} of {f['size']:,} bytes decoded)",
                err=True,
            )
    skipped = result.layout.skipped
    if skipped:
        shown = "; ".join(f"{p} ({why})" for p, why in skipped[:5])
        more = f"; and {len(skipped) - 5} more (summary.json)" if len(skipped) > 5 else ""
        click.echo(
            f"note: {len(skipped)} input file(s) are not binlogs and were skipped: {shown}{more}", err=True
        )


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
    "--engine",
    type=click.Choice(["auto", "spark", "local"]),
    default="auto",
    show_default=True,
    help="As for pipeline run (auto: no JVM for these small inputs).",
)
@click.option(
    "--fixtures",
    type=click.Path(file_okay=False),
    default=None,
    help="Real binlogs grouped by host (default: ../shared/research/fixtures/binlogs when present).",
)
def demo_cmd(output: str, master: str, engine: str, fixtures: str | None) -> None:
    """Generate a small fleet (source + replicas, an errant GTID, a gap, rotations), run the pipeline on it and
    print the GTID state per host; then do the same on the real fixture binlogs when they are present.

    Exits 1 when an anomaly the generator wrote was not found, 130 on Ctrl-C."""
    from gtidkit.pipeline.demo import run_demo

    try:
        status = run_demo(output, master=master, fixtures=fixtures, engine=engine)
    except KeyboardInterrupt:
        from gtidkit.cli.interrupt import interrupted

        interrupted(f"the fleet demo did not finish; {output} holds what was written so far")
    sys.exit(status)
