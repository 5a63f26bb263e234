"""PySpark's DataFrame assertions, imported when a test first compares frames; the job's tables read back as rows.

``pyspark.testing`` loads pandas (about a second of CPU); every pytest-xdist worker collects every test module, and
only the worker that runs the Spark unit compares frames, so the import waits for the first comparison.
"""

from __future__ import annotations

from typing import Any


def assert_frames_equal(actual: Any, expected: Any, **options: Any) -> None:
    """``pyspark.testing.assertDataFrameEqual(actual, expected, **options)``."""
    from pyspark.testing import assertDataFrameEqual

    assertDataFrameEqual(actual, expected, **options)


def assert_schemas_equal(actual: Any, expected: Any) -> None:
    """``pyspark.testing.assertSchemaEqual(actual, expected)``."""
    from pyspark.testing import assertSchemaEqual

    assertSchemaEqual(actual, expected)


#: the DDL of every table the job writes (:data:`gtidkit.pipeline.job.TABLES`), ``commit_time`` included
TABLE_DDL = {
    "transactions": "TRANSACTIONS",
    "files": "FILES",
    "gtid_executed": "GTID_EXECUTED",
    "hosts": "HOSTS",
    "checks": "CHECKS",
    "parallelism": "PARALLELISM",
}


def table_rows(output: Any, name: str, drop: tuple[str, ...] = ()) -> list[dict]:
    """The rows of the job's table ``name`` under the local directory ``output`` as dicts without the ``drop``
    columns, sorted (the engines write rows in different orders), read with pyarrow whichever engine wrote them
    (``gtidkit.pipeline.local.read_rows``: timestamps as µs)."""
    from gtidkit.pipeline import local, schemas

    ddl = getattr(schemas, TABLE_DDL[name]) + (", commit_time TIMESTAMP" if name == "transactions" else "")
    rows = [{k: v for k, v in r.items() if k not in drop} for r in local.read_rows(str(output / name), ddl)]
    return sorted(rows, key=lambda d: repr(sorted(d.items())))


def assert_same_result(spark_result: Any, local_result: Any) -> None:
    """The two engines' results of one input are the same: every table read back from its Parquet files (row for
    row, sorted) and what the report is drawn from (hosts, checks, files, per-minute counts, commit-group sizes)."""
    from gtidkit.pipeline.job import TABLES

    assert local_result.engine == "local" and spark_result.engine == "spark"
    for name in TABLES:
        a, b = table_rows(spark_result.output, name), table_rows(local_result.output, name)
        assert len(a) == len(b), name
        assert a == b, name
    assert local_result.hosts == spark_result.hosts
    assert local_result.checks == spark_result.checks
    assert local_result.files == spark_result.files
    assert local_result.activity == spark_result.activity
    assert local_result.activity_bucket == spark_result.activity_bucket
    assert local_result.group_sizes == spark_result.group_sizes
    assert local_result.counts == spark_result.counts
