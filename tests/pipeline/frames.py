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
