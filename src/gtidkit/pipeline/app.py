"""spark-submit entry point of the pipeline::

    spark-submit --master spark://127.0.0.1:7077 src/gtidkit/pipeline/app.py --input FLEET --output OUT
    python -m gtidkit.pipeline.app --master local[2] --input FLEET --output OUT

Without ``--master`` the master comes from spark-submit (or defaults to ``local[*]`` when run directly). The
executors must be able to import gtidkit (installed in the interpreter named by ``PYSPARK_PYTHON``) and read the
input paths (a shared filesystem; on one machine, the local disk). Prints ``summary.json`` to stdout.
"""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, run :func:`gtidkit.pipeline.job.run_pipeline`, print the JSON summary.

    Returns:
        0 on success, 1 when the input holds no binlog or the topology file is malformed.
    """
    parser = argparse.ArgumentParser(prog="gtidkit-pipeline", description=__doc__.split("::")[0].strip())
    parser.add_argument(
        "--input",
        required=True,
        help="fleet directory or JSON mapping host -> files (local path or s3://, s3a://, gs://, "
        "hdfs:// URI)",
    )
    parser.add_argument("--output", required=True, help="output directory (local path or URI)")
    parser.add_argument(
        "--fs-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="storage option (fs.s3a.endpoint=..., fs.s3a.access.key=...); --conf "
        "spark.hadoop.fs.* settings count too (repeatable)",
    )
    parser.add_argument(
        "--ship-package",
        action="store_true",
        help="zip the gtidkit package and add it to the executors' Python path (addPyFile), for "
        "workers whose Python has PySpark but not gtidkit",
    )
    parser.add_argument(
        "--master", default=None, help="Spark master (default: spark-submit's, else local[*])"
    )
    parser.add_argument("--topology", default=None, help='JSON {"replica": "source"}')
    parser.add_argument("--no-verify-checksum", action="store_true")
    parser.add_argument(
        "--incremental",
        action="store_true",
        help="scan only binlogs new or grown since the previous run into --output",
    )
    parser.add_argument(
        "--conf",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="extra Spark setting, e.g. spark.sql.shuffle.partitions=8 (repeatable)",
    )
    args = parser.parse_args(argv)

    from pyspark import SparkContext

    from gtidkit.pipeline.job import dumps_summary, run_pipeline
    from gtidkit.pipeline.layout import LayoutError
    from gtidkit.pipeline.session import build_session, ship_package
    from gtidkit.pipeline.storage import StorageError, storage_options

    master = args.master
    if master is None and SparkContext._active_spark_context is None and "spark.master" not in _submit_conf():
        master = "local[*]"
    conf = {}
    for item in args.conf:
        key, sep, value = item.partition("=")
        if not sep:
            parser.error(f"--conf expects KEY=VALUE, got {item}")
        conf[key] = value
    options = storage_options(conf)
    for item in args.fs_option:
        key, sep, value = item.partition("=")
        if not sep:
            parser.error(f"--fs-option expects KEY=VALUE, got {item}")
        options[key.strip()] = value
    spark = build_session(master=master or "", app_name="gtidkit-pipeline", conf=conf)
    # spark-submit --conf spark.hadoop.fs.s3a.endpoint=... reaches us through the SparkConf
    options = {**storage_options(dict(spark.sparkContext.getConf().getAll())), **options}
    try:
        if args.ship_package:
            ship_package(spark)
        result = run_pipeline(
            spark,
            args.input,
            args.output,
            topology=args.topology,
            verify_checksum=not args.no_verify_checksum,
            storage_options=options,
            incremental=args.incremental,
        )
    except (LayoutError, ValueError, StorageError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    finally:
        spark.stop()
    sys.stdout.write(dumps_summary(result))
    return 0


def _submit_conf() -> dict[str, str]:
    """spark-submit passes its settings to the driver as ``spark.*`` Java system properties via this env."""
    import os

    return (
        {"spark.master": os.environ["MASTER"]}
        if "MASTER" in os.environ
        else ({"spark.master": "submitted"} if "PYSPARK_GATEWAY_PORT" in os.environ else {})
    )


if __name__ == "__main__":
    sys.exit(main())
