"""``gtidkit binlog show --result-file`` to an object store (issue 22): a real S3-protocol server on 127.0.0.1
(moto's ``ThreadedMotoServer``, the pipeline's object-store tests use the same) and a real ``gtidkit server``
source. The text listing streamed to ``s3://`` equals the local one; ``--raw`` copies land as objects byte-identical
to the source's files, grow while ``--stop-never`` follows the source, and a later run resumes from what the store
holds; ``gtidkit``'s own stream reader reads the copies back from the store.
"""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest

from tests.cli.test_binlog_remote import (
    SOURCE_ARGS,
    _assert_identical,
    _binlogs,
    _free_port,
    _gtids,
    _show,
    _sql,
    _wait_for,
)
from tests.protocol.prefork import popen_gtidkit
from tests.protocol.server_proc import running_server

pytest.importorskip("pyarrow.fs")
BUCKET = "binlog-backups"


@pytest.fixture(scope="module")
def s3() -> dict[str, str]:
    """moto's S3 server on 127.0.0.1 with a bucket; the ``--fs-option`` values that reach it."""
    pytest.importorskip("moto.server")
    import logging

    import boto3
    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        endpoint = f"http://{host}:{port}"
        boto3.client(
            "s3",
            endpoint_url=endpoint,
            region_name="us-east-1",
            aws_access_key_id="AK",
            aws_secret_access_key="SK",
        ).create_bucket(Bucket=BUCKET)
        yield {
            "fs.s3a.endpoint": endpoint,
            "fs.s3a.access.key": "AK",
            "fs.s3a.secret.key": "SK",
            "fs.s3a.path.style.access": "true",
            "fs.s3a.region": "us-east-1",
        }
    finally:
        server.stop()


def _fs_args(opts: dict[str, str]) -> list[str]:
    return [f"--fs-option={k}={v}" for k, v in opts.items()]


def _objects(opts: dict[str, str], prefix: str) -> dict[str, bytes]:
    """Every object under s3://BUCKET/prefix, read back through gtidkit's storage layer."""
    from gtidkit.pipeline.storage import StorageError, list_files, read_bytes, resolve

    try:
        entries = list_files(resolve(f"s3://{BUCKET}/{prefix}", opts))
    except StorageError:  # nothing there yet
        return {}
    return {e.rel: read_bytes(e.uri, opts) for e in entries}


def test_text_listing_to_s3_equals_the_local_one(tmp_path: Path, s3: dict[str, str]) -> None:
    """A local file's listing and a remote read's listing, each with -r s3://...: the objects hold exactly what
    the same command prints on stdout."""
    with running_server(tmp_path / "src", *SOURCE_ARGS) as src:
        _sql(
            src.port,
            "CREATE DATABASE d",
            "CREATE TABLE d.t (id INT PRIMARY KEY)",
            "INSERT INTO d.t VALUES (7)",
        )
        first = _sql(src.port, "SHOW BINARY LOGS")[0][0]
        remote = ("--read-from-remote-source=BINLOG-DUMP-GTIDS", "-h127.0.0.1", f"-P{src.port}", "-uroot")
        r = _show(*remote, "-r", f"s3://{BUCKET}/listings/remote.sql", *_fs_args(s3), first)
        assert r.returncode == 0, r.stderr
        assert r.stdout == ""
        want_remote = _show(*remote, first)
        assert want_remote.returncode == 0, want_remote.stderr
    local = str(_binlogs(tmp_path / "src")[0])
    r = _show("-r", f"s3a://{BUCKET}/listings/local.sql", *_fs_args(s3), local)
    assert r.returncode == 0, r.stderr
    want_local = _show(local)
    got = _objects(s3, "listings")
    assert got["remote.sql"].decode() == want_remote.stdout
    assert got["local.sql"].decode() == want_local.stdout
    assert "INSERT" not in want_local.stdout and "Write_rows" in want_local.stdout


def test_store_errors_are_reported(tmp_path: Path, s3: dict[str, str]) -> None:
    """A missing bucket or refused credentials: one line on stderr naming the URI, exit status 1, no traceback."""
    with running_server(tmp_path / "src", *SOURCE_ARGS) as server:
        local = str(_binlogs(tmp_path / "src")[0])
        first = Path(local).name
        r = _show("-r", "s3://no-such-bucket/x.sql", *_fs_args(s3), local)
        assert r.returncode == 1, r.stderr
        assert "s3://no-such-bucket/x.sql" in r.stderr and "Traceback" not in r.stderr
        r = _show(
            "--read-from-remote-source=BINLOG-DUMP-GTIDS", "-h127.0.0.1", f"-P{server.port}", "-uroot",
            "--raw", "--to-last-log", "-r", "s3://no-such-bucket/copy/", *_fs_args(s3), first,
        )  # fmt: skip
        assert r.returncode == 1, r.stderr
        assert "s3://no-such-bucket/copy" in r.stderr and "Traceback" not in r.stderr
        r = _show("-r", "s3://b/x", "--fs-option", "novalue", local)
        assert r.returncode == 2 and "expected KEY=VALUE" in r.stderr


def test_raw_stop_never_to_s3_then_resume(tmp_path: Path, s3: dict[str, str]) -> None:
    """--raw --stop-never -r s3://bucket/dir/: the objects grow while the copier follows the source (uploaded
    every UPLOAD_INTERVAL seconds and when a file ends), across a rotation. The source then purges the first file;
    a second run (after more writes and another rotation, without --stop-never) downloads what the store holds
    and resumes from it (a fresh copy would be refused the purged file): every object then equals the source's
    file byte for byte, and the pipeline's stream reader finds every GTID once."""
    port = _free_port()
    args = (*SOURCE_ARGS, f"--port={port}")
    prefix = f"s3://{BUCKET}/fleet/db1/"
    common = ("--read-from-remote-source=BINLOG-DUMP-GTIDS", "-h127.0.0.1", f"-P{port}", "-uroot", "--raw")
    with running_server(tmp_path / "src", *args) as src:
        _sql(port, "CREATE DATABASE d", "CREATE TABLE d.t (id INT PRIMARY KEY)")
        first = _sql(port, "SHOW BINARY LOGS")[0][0]
        uuid = _sql(port, "SELECT @@server_uuid")[0][0]
        copier = popen_gtidkit(
            ["binlog", "show", *common, "--stop-never", "-r", prefix,
             *_fs_args(s3), first],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        try:

            def stored() -> list[str]:
                out = []
                stage = tmp_path / "stage"
                stage.mkdir(exist_ok=True)
                for name, data in sorted(_objects(s3, "fleet/db1").items()):
                    (stage / name).write_bytes(data)
                    try:
                        out += _gtids(stage / name)
                    except Exception:  # noqa: BLE001 - cut inside a transaction
                        return []
                return out

            _wait_for(lambda: len(stored()) == 2)
            _sql(port, "INSERT INTO d.t VALUES (1)", "FLUSH BINARY LOGS", "INSERT INTO d.t VALUES (2)")
            _wait_for(lambda: len(stored()) == 4)
            assert copier.poll() is None
        finally:
            copier.send_signal(signal.SIGTERM)
            try:
                _, err = copier.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                copier.kill()
                _, err = copier.communicate()
        assert "Traceback" not in err, err
        # the first file leaves the source: only a run that resumes from the store can go on
        purged = (tmp_path / "src" / first).read_bytes()
        second = _sql(port, "SHOW BINARY LOGS")[1][0]
        _sql(port, f"PURGE BINARY LOGS TO '{second}'")
        _sql(port, "INSERT INTO d.t VALUES (3)", "FLUSH BINARY LOGS", "INSERT INTO d.t VALUES (4)")
        src.stop()
        with running_server(tmp_path / "src", *args, init=False):
            r = _show(*common, "--to-last-log", "-r", prefix, *_fs_args(s3), first)
            assert r.returncode == 0, r.stderr
    names = [p.name for p in _binlogs(tmp_path / "src")]
    objects = _objects(s3, "fleet/db1")
    assert sorted(objects) == [first, *names]
    assert objects[first] == purged
    copy = tmp_path / "copy"
    copy.mkdir()
    for name, data in objects.items():
        (copy / name).write_bytes(data)
    _assert_identical(copy, tmp_path / "src", names)
    names = [first, *names]
    assert sorted(stored()) == sorted(f"{uuid}:{n}" for n in range(1, 7))
    from gtidkit.binlog.file import scan_stream
    from gtidkit.pipeline.storage import open_input_stream

    seen = []
    for name in names:
        with open_input_stream(prefix + name, s3) as stream:
            seen += [str(t.gtid) for t in scan_stream(stream, name).transactions if t.gtid is not None]
    assert sorted(seen) == sorted(f"{uuid}:{n}" for n in range(1, 7))
