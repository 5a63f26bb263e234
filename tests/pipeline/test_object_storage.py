"""Binlogs and outputs on object storage (issue 10): a real S3-protocol server on 127.0.0.1 (moto's
``ThreadedMotoServer``, IAM authentication on), the fleet uploaded to a bucket, the job reading it through
``pyarrow.fs`` and writing its Parquet tables and report back; results equal the local run's. Plus the stream
reader (used for every remote file) against the memory-mapped fast path on every real fixture binlog.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from gtidkit.pipeline import scan, schemas
from gtidkit.pipeline.layout import FileSpec, discover
from gtidkit.pipeline.storage import StorageError, resolve, storage_options
from tests.conftest import BINLOG_FIXTURES

if TYPE_CHECKING:
    from typing import Self

FIXTURE_FILES = (
    sorted(p for p in BINLOG_FIXTURES.rglob("*") if p.is_file() and p.read_bytes()[:4] == b"\xfebin")
    if BINLOG_FIXTURES.exists()
    else []
)
BUCKET = "fleet-bucket"


class _LocalStream:
    """The stream reader over a local file (what pyarrow hands it for s3://), read in small chunks."""

    def __init__(self, path: Path) -> None:
        self.fh = open(path, "rb")  # noqa: SIM115 - closed by __exit__

    def read(self, n: int = -1) -> bytes:
        return self.fh.read(min(n, 7919) if n > 0 else n)  # an odd chunk size: events straddle every read

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.fh.close()


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_stream_reader_equals_fast_path(path: Path, monkeypatch) -> None:
    """Every real binlog (corrupt ones included): the same transaction rows and the same files row."""
    local = FileSpec(
        host="h", path=str(path), file=path.name, series="s", seq=None, file_index=0, size=path.stat().st_size
    )
    remote = FileSpec(
        host="h",
        path=str(path),
        file=path.name,
        series="s",
        seq=None,
        file_index=0,
        size=local.size,
        uri=str(path),
    )
    monkeypatch.setattr(
        "gtidkit.pipeline.storage.open_input_stream", lambda uri, options=None: _LocalStream(path)
    )
    want = list(scan.scan_records(local))
    got = list(scan.scan_records(remote))
    assert [r for r in got if r[0] == "txn"] == [r for r in want if r[0] == "txn"]
    (wf,), (gf,) = [r[2] for r in want if r[0] == "file"], [r[2] for r in got if r[0] == "file"]
    names = schemas.field_names(schemas.FILE_FIELDS)
    diff = {n: (a, b) for n, a, b in zip(names, wf, gf) if a != b and n != "path"}
    assert diff == {}  # the error message and offset included: one scanner over a map or a stream


def test_storage_options_take_hadoop_names() -> None:
    opts = storage_options(
        {
            "fs.s3a.endpoint": "http://127.0.0.1:9",
            "spark.hadoop.fs.s3a.access.key": "AK",
            "FS.S3A.SECRET.KEY": "SK",
            "fs.s3a.path.style.access": "true",
            "level": "scan",
        }
    )
    assert opts == {
        "fs.s3a.endpoint": "http://127.0.0.1:9",
        "fs.s3a.access.key": "AK",
        "fs.s3a.secret.key": "SK",
        "fs.s3a.path.style.access": "true",
    }
    loc = resolve("s3a://bucket/dir/", opts)
    assert (loc.scheme, loc.path, loc.local) == ("s3a", "bucket/dir", False)
    assert resolve("file:///tmp/x").path == "/tmp/x" and resolve("file:///tmp/x").local
    with pytest.raises(StorageError, match="ftp://h/x: unsupported storage scheme"):
        resolve("ftp://h/x")


# -- against a real S3-protocol server ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def s3():
    """moto's standalone server on 127.0.0.1 with authentication on: an IAM user whose keys may use S3."""
    os.environ["INITIAL_NO_AUTH_ACTION_COUNT"] = "inf"
    import logging

    import boto3
    from moto import settings
    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        endpoint = f"http://{host}:{port}"
        admin = {
            "endpoint_url": endpoint,
            "region_name": "us-east-1",
            "aws_access_key_id": "admin",
            "aws_secret_access_key": "admin",
        }
        iam = boto3.client("iam", **admin)
        iam.create_user(UserName="pipeline")
        iam.put_user_policy(
            UserName="pipeline",
            PolicyName="s3",
            PolicyDocument=json.dumps(
                {
                    "Version": "2012-10-17",
                    "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}],
                }
            ),
        )
        key = iam.create_access_key(UserName="pipeline")["AccessKey"]
        boto3.client("s3", **admin).create_bucket(Bucket=BUCKET)
        old = settings.INITIAL_NO_AUTH_ACTION_COUNT
        settings.INITIAL_NO_AUTH_ACTION_COUNT = 0  # from now on every request is checked against IAM
        opts = {
            "fs.s3a.endpoint": endpoint,
            "fs.s3a.access.key": key["AccessKeyId"],
            "fs.s3a.secret.key": key["SecretAccessKey"],
            "fs.s3a.path.style.access": "true",
        }
        yield opts
        settings.INITIAL_NO_AUTH_ACTION_COUNT = old
    finally:
        server.stop()


@pytest.fixture(scope="module")
def s3_fleet(s3, fleet_dir):
    """The generated fleet uploaded to s3://fleet-bucket/fleet/ through pyarrow.fs."""
    from gtidkit.pipeline.storage import upload_tree

    n = upload_tree(str(fleet_dir), f"s3a://{BUCKET}/fleet", s3)
    assert n == sum(1 for p in fleet_dir.rglob("*") if p.is_file())
    return f"s3a://{BUCKET}/fleet"


@pytest.fixture(scope="module")
def s3_result(spark, s3, s3_fleet):
    from gtidkit.pipeline.job import run_pipeline

    return run_pipeline(spark, s3_fleet, f"s3://{BUCKET}/out", storage_options=s3)


def test_discover_on_s3_equals_local(s3, s3_fleet, fleet_dir) -> None:
    remote, local = discover(s3_fleet, s3), discover(fleet_dir)
    strip = [(f.host, f.file, f.series, f.seq, f.file_index, f.size) for f in remote.files]
    assert strip == [(f.host, f.file, f.series, f.seq, f.file_index, f.size) for f in local.files]
    assert all(f.uri and f.uri.startswith(f"s3a://{BUCKET}/fleet/") for f in remote.files)
    assert sorted(p.rsplit("/", 1)[-1] for p, _ in remote.skipped) == sorted(
        Path(p).name for p, _ in local.skipped
    )


def _table(uri: str, opts: dict | None):
    import pyarrow.dataset as ds

    loc = resolve(uri, opts)
    return ds.dataset(loc.path, filesystem=loc.fs, format="parquet").to_table()


def _rows(table, drop: tuple[str, ...] = ()) -> list:
    """Sorted rows as text; timestamps as µs since the epoch (Spark writes INT96 without a zone, the remote
    writer Arrow's ``timestamp[us, tz=UTC]``: the same instants)."""
    import pyarrow as pa

    for i, field in enumerate(table.schema):
        if pa.types.is_timestamp(field.type):
            col = table.column(i).cast(pa.timestamp("us")).cast(pa.int64())
            table = table.set_column(i, field.name, col)
    cols = [c for c in table.column_names if c not in drop]
    return sorted(
        tuple(json.dumps(r[c], sort_keys=True, default=str) for c in cols)
        for r in table.select(cols).to_pylist()
    )


def test_s3_run_equals_local_run(s3, s3_result, fleet_result) -> None:
    """Every table, the hosts and the checks of the S3 run equal those of the local run on the same fleet."""
    from gtidkit.pipeline.job import TABLES

    for name in TABLES:
        got = _table(s3_result.output_child(name), s3)
        want = _table(fleet_result.output_child(name), None)
        drop = ("path",) if name == "files" else ()
        assert _rows(got, drop) == _rows(want, drop), name
    assert s3_result.hosts == fleet_result.hosts
    assert s3_result.checks == fleet_result.checks
    assert s3_result.counts == fleet_result.counts


def test_report_and_summary_written_to_bucket(s3, s3_result) -> None:
    from gtidkit.pipeline.storage import read_bytes

    summary = json.loads(read_bytes(f"s3://{BUCKET}/out/summary.json", s3))
    assert summary["counts"] == s3_result.counts
    assert read_bytes(f"s3://{BUCKET}/out/report.html", s3).startswith(b"<!doctype html>")


def test_spark_read_binlog_from_s3(spark, s3, s3_fleet, fleet_manifest) -> None:
    df = spark.read.format("binlog").options(**s3).load(s3_fleet)
    counts = {r["host"]: r["count"] for r in df.groupBy("host").count().collect()}
    assert counts == {h.name: h.transactions for h in fleet_manifest.hosts}


def test_missing_bucket_key_and_bad_credentials_name_the_uri(s3, s3_fleet) -> None:
    from gtidkit.pipeline.storage import open_input_stream

    with pytest.raises(StorageError, match="s3://no-such-bucket/fleet: no such bucket"):
        discover("s3://no-such-bucket/fleet", s3)
    missing = f"s3a://{BUCKET}/fleet/source/binlog.999999"
    with pytest.raises(StorageError, match=f"{missing}: no such file"), open_input_stream(missing, s3) as fh:
        fh.read(4)
    bad = dict(s3, **{"fs.s3a.secret.key": "wrong"})
    with pytest.raises(StorageError, match=f"{s3_fleet}: access denied"):
        discover(s3_fleet, bad)
