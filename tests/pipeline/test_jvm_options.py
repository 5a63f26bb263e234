"""The test session's JVM runs with the suite's short-lived options and its class-data archive
(tests/conftest.py::_short_lived_jvms, ::class_archive): a JVM that cannot use the archive (another class path, a
stale file) would run without it silently, so the test reads what the running JVM actually mapped."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import SHORT_LIVED_JVM_OPTIONS, class_archive

pytestmark = pytest.mark.spark


def test_session_jvm_maps_the_class_archive_or_writes_it(spark) -> None:
    from pyspark import SparkContext

    pid = SparkContext._gateway.proc.pid  # spark-submit execs the JVM: the same process
    argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    assert Path(os.fsdecode(argv[0])).name == "java"
    args = [os.fsdecode(a) for a in argv]
    for option in SHORT_LIVED_JVM_OPTIONS.split():
        assert option in args
    archive = class_archive()
    assert archive is not None
    if any(a.startswith("-XX:ArchiveClassesAtExit=") for a in args):  # this machine's first run: it writes it
        assert f"-XX:ArchiveClassesAtExit={archive}" in " ".join(args)
    else:
        assert f"-XX:SharedArchiveFile={archive}" in args
        assert str(archive) in Path(f"/proc/{pid}/maps").read_text()
