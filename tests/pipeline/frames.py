"""PySpark's DataFrame assertions, imported when a test first compares frames.

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
