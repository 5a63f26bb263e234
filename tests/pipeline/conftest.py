"""Fixtures of the pipeline tests: one generated fleet and one pipeline run per input, shared by the module tests.

Every run uses the session-wide ``spark`` fixture (tests/conftest.py); a run is a few Spark jobs, so each input
is processed once and the tests read its result and its Parquet tables.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gtidkit.generate import generate_fleet, load_manifest


@pytest.fixture(scope="session")
def fleet_dir(tmp_path_factory) -> Path:
    """A generated fleet (source + 2 replicas with known anomalies); its manifest is read back from disk."""
    path = tmp_path_factory.mktemp("fleet") / "fleet"
    generate_fleet(path, seed=7)
    return path


@pytest.fixture(scope="session")
def fleet_manifest(fleet_dir):
    return load_manifest(fleet_dir / "manifest.json")


@pytest.fixture(scope="session")
def fleet_result(spark, fleet_dir, tmp_path_factory):
    """The pipeline on the generated fleet, topology NOT given (inferred from server UUIDs)."""
    from gtidkit.pipeline.job import run_pipeline

    return run_pipeline(spark, fleet_dir, tmp_path_factory.mktemp("fleet-out"))


@pytest.fixture(scope="session")
def fixtures_result(spark, binlog_fixtures, tmp_path_factory):
    """The pipeline on the real binlogs of ../shared/research/fixtures/binlogs, hosts = origin directories."""
    from gtidkit.pipeline.job import run_pipeline

    return run_pipeline(spark, binlog_fixtures, tmp_path_factory.mktemp("fixtures-out"), write_report=False)
