"""Where binlogs and outputs live: local paths and ``file://``, ``s3://``/``s3a://``, ``gs://`` and ``hdfs://``
URIs, all through ``pyarrow.fs`` (installed with PySpark; no Hadoop jars, no fsspec).

The driver lists an input once (:func:`list_files`, plus a 4-byte read per file to check the binlog magic);
executors open their one file as a sequential input stream (:func:`open_input_stream`), so nothing is ever
downloaded whole. Outputs are written with :func:`upload_tree` / :func:`write_bytes`.

Options: the Hadoop/Spark names where they exist, with or without the ``spark.hadoop.`` prefix, and
case-insensitive as Spark passes data-source options, or pyarrow's own keyword names:

===========================================  ==============================================================
``fs.s3a.endpoint``                          ``endpoint_override`` (``http://127.0.0.1:9000`` sets the scheme)
``fs.s3a.access.key`` / ``fs.s3a.secret.key`` ``access_key`` / ``secret_key``
``fs.s3a.session.token``                     ``session_token``
``fs.s3a.endpoint.region``, ``fs.s3a.region`` ``region``
``fs.s3a.path.style.access``                 ``force_virtual_addressing`` (its negation)
``fs.s3a.connection.ssl.enabled``            ``scheme`` (``https`` / ``http``)
``fs.s3a.aws.credentials.provider``          ``anonymous`` when it names ``AnonymousAWSCredentialsProvider``
``fs.gs.project.id``                         ``project_id`` (GCS)
``fs.defaultFS``-style ``hdfs://host:port``   host and port from the URI; ``user`` option
===========================================  ==============================================================

Without options, pyarrow's defaults apply (the AWS credential chain: ``AWS_ACCESS_KEY_ID``, profiles...).
Failures raise :class:`StorageError` (an ``OSError``) whose message names the URI: missing bucket, missing key,
refused credentials.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from typing import Self

REMOTE_SCHEMES = ("s3", "s3a", "s3n", "gs", "gcs", "hdfs", "viewfs")

_S3_NAMES = {
    "fs.s3a.endpoint": "endpoint_override",
    "fs.s3a.access.key": "access_key",
    "fs.s3a.secret.key": "secret_key",
    "fs.s3a.session.token": "session_token",
    "fs.s3a.endpoint.region": "region",
    "fs.s3a.region": "region",
}
_S3_KEYS = (
    "endpoint_override",
    "access_key",
    "secret_key",
    "session_token",
    "region",
    "scheme",
    "anonymous",
    "force_virtual_addressing",
    "request_timeout",
    "connect_timeout",
    "role_arn",
    "proxy_options",
)
_GCS_KEYS = (
    "endpoint_override",
    "scheme",
    "project_id",
    "anonymous",
    "access_token",
    "default_bucket_location",
)
_HDFS_KEYS = ("host", "port", "user", "kerb_ticket", "replication", "buffer_size", "default_block_size")
_BOOL_KEYS = ("anonymous", "force_virtual_addressing")


class StorageError(OSError):
    """A URI could not be listed, read or written; the message names the URI and the cause."""


@dataclass(frozen=True, slots=True)
class Location:
    """A resolved URI: the ``pyarrow.fs`` filesystem, the path inside it, and how to print it.

    Attributes:
        uri: the URI as given (local paths are made absolute).
        scheme: ``""`` for a local path, else the URI scheme (``s3a`` kept as written).
        path: the path inside ``fs`` (``bucket/key`` for S3 and GCS, absolute for local and HDFS).
        fs: the ``pyarrow.fs.FileSystem``.
    """

    uri: str
    scheme: str
    path: str
    fs: Any

    @property
    def local(self) -> bool:
        """True for a local path or ``file://`` URI (then :attr:`path` is an OS path)."""
        return self.scheme == ""

    def child(self, rel: str) -> str:
        """The URI of ``rel`` (a ``/``-separated relative path) below this location."""
        rel = rel.strip("/")
        if self.local:
            return os.path.join(self.path, *rel.split("/"))
        return self.uri.rstrip("/") + "/" + rel

    def uri_of(self, fs_path: str) -> str:
        """The URI of a path inside :attr:`fs` (as ``get_file_info`` returns them)."""
        if self.local:
            return fs_path
        base = self.path.rstrip("/")
        rel = fs_path[len(base) :].lstrip("/") if fs_path.startswith(base) else fs_path
        return self.uri.rstrip("/") + ("/" + rel if rel else "")


def is_remote(uri: str | os.PathLike[str]) -> bool:
    """True when ``uri`` names remote storage (``s3://``, ``s3a://``, ``gs://``, ``hdfs://``...)."""
    scheme = urlsplit(os.fspath(uri)).scheme.lower()
    return scheme in REMOTE_SCHEMES


def storage_options(options: dict | None) -> dict[str, str]:
    """The filesystem options among ``options`` (Spark data-source options, ``--conf``s...): keys starting with
    ``fs.`` (or ``spark.hadoop.fs.``) and pyarrow's keyword names; keys lowercased, values as strings."""
    out: dict[str, str] = {}
    for key, value in (options or {}).items():
        k = str(key).strip()
        low = k.lower()
        low = low.removeprefix("spark.hadoop.")
        if low.startswith("fs.") or low in _S3_KEYS or low in _GCS_KEYS or low in _HDFS_KEYS:
            out[low] = str(value)
    return out


def _truthy(value: str) -> bool:
    return str(value).strip().lower() in ("1", "true", "yes", "on")


def _s3_kwargs(opts: dict[str, str]) -> dict[str, Any]:
    kw: dict[str, Any] = {}
    for hadoop, name in _S3_NAMES.items():
        if hadoop in opts:
            kw[name] = opts[hadoop]
    if "fs.s3a.path.style.access" in opts:
        kw["force_virtual_addressing"] = not _truthy(opts["fs.s3a.path.style.access"])
    if "fs.s3a.connection.ssl.enabled" in opts:
        kw["scheme"] = "https" if _truthy(opts["fs.s3a.connection.ssl.enabled"]) else "http"
    if "anonymous" in opts.get("fs.s3a.aws.credentials.provider", "").lower():
        kw["anonymous"] = True
    for name in _S3_KEYS:
        if name in opts:
            kw[name] = opts[name]
    endpoint = kw.get("endpoint_override")
    if endpoint and "://" in endpoint:
        scheme, _, rest = endpoint.partition("://")
        kw["endpoint_override"] = rest.rstrip("/")
        kw.setdefault("scheme", scheme)
    if endpoint and "region" not in kw:
        kw["region"] = "us-east-1"  # an S3-compatible server: skip pyarrow's region lookup against AWS
    for name in _BOOL_KEYS:
        if isinstance(kw.get(name), str):
            kw[name] = _truthy(kw[name])
    for name in ("request_timeout", "connect_timeout"):
        if name in kw:
            kw[name] = float(kw[name])
    return kw


def resolve(uri: str | os.PathLike[str], options: dict | None = None) -> Location:
    """Resolve a local path or URI to its ``pyarrow.fs`` filesystem and inner path.

    Args:
        uri: local path, ``file://``, ``s3://``/``s3a://``/``s3n://`` (bucket/key), ``gs://``/``gcs://``,
            ``hdfs://host:port/path`` or ``viewfs://``.
        options: filesystem options (see the module docstring); other keys are ignored.

    Returns:
        A :class:`Location`.

    Raises:
        StorageError: an unknown scheme, or the filesystem cannot be set up (message names the URI).
    """
    import pyarrow.fs as pafs

    text = os.fspath(uri)
    parts = urlsplit(text)
    scheme = parts.scheme.lower()
    opts = storage_options(options)
    if scheme in ("", "file") or (len(scheme) == 1 and os.name == "nt"):
        path = parts.path if scheme == "file" else text
        path = os.path.abspath(os.path.expanduser(path))
        return Location(path, "", path, pafs.LocalFileSystem())
    if scheme not in REMOTE_SCHEMES:
        raise StorageError(
            f"{text}: unsupported storage scheme {scheme}:// (local path, file://, s3://, s3a://, "
            "gs://, hdfs://)"
        )
    inner = (parts.netloc + parts.path).rstrip("/") if scheme not in ("hdfs", "viewfs") else parts.path or "/"
    try:
        if scheme in ("s3", "s3a", "s3n"):
            fs = pafs.S3FileSystem(**_s3_kwargs(opts))
        elif scheme in ("gs", "gcs"):
            kw: dict[str, Any] = {k: opts[k] for k in _GCS_KEYS if k in opts}
            if "fs.gs.project.id" in opts:
                kw.setdefault("project_id", opts["fs.gs.project.id"])
            if "anonymous" in kw:
                kw["anonymous"] = _truthy(kw["anonymous"])
            fs = pafs.GcsFileSystem(**kw)
        else:
            kw = {k: opts[k] for k in _HDFS_KEYS if k in opts}
            kw.setdefault("host", f"{scheme}://{parts.hostname}" if parts.hostname else "default")
            if parts.port:
                kw.setdefault("port", parts.port)
            if "port" in kw:
                kw["port"] = int(kw["port"])
            fs = pafs.HadoopFileSystem(**kw)
    except Exception as err:  # pyarrow raises ArrowException/OSError subclasses, missing libhdfs included
        raise StorageError(f"{text}: cannot set up the {scheme} filesystem: {err}") from err
    return Location(text, scheme, inner, fs)


def _explain(uri: str, err: BaseException) -> StorageError:
    """A StorageError naming ``uri``, with a plain reading of the S3 error codes pyarrow passes through."""
    text = str(err)
    hint = ""
    if "NoSuchBucket" in text or "bucket does not exist" in text.lower():
        hint = "no such bucket: "
    elif (
        "InvalidAccessKeyId" in text
        or "SignatureDoesNotMatch" in text
        or "ACCESS_DENIED" in text.upper()
        or "AccessDenied" in text
        or "403" in text
    ):
        hint = "access denied (check fs.s3a.access.key / fs.s3a.secret.key): "
    elif (
        isinstance(err, FileNotFoundError)
        or "NoSuchKey" in text
        or "not found" in text.lower()
        or "does not exist" in text.lower()
    ):
        hint = "no such file: "
    return StorageError(f"{uri}: {hint}{text}")


@dataclass(frozen=True, slots=True)
class Entry:
    """One listed file: its URI (or local path), path relative to the listed root (``/``-separated), size."""

    uri: str
    rel: str
    size: int


def info(loc: Location) -> Any:
    """``pyarrow.fs.FileInfo`` of ``loc`` (type ``NotFound`` when absent).

    Raises:
        StorageError: the storage refused (bad credentials, missing bucket...).
    """
    try:
        return loc.fs.get_file_info(loc.path)
    except Exception as err:
        raise _explain(loc.uri, err) from err


def check_bucket(loc: Location) -> None:
    """For S3/GCS: raise unless the bucket of ``loc`` exists (pyarrow reports a path in a missing bucket as
    merely absent).

    Raises:
        StorageError: ``<uri>: no such bucket: <bucket>``, or the storage refused.
    """
    import pyarrow.fs as pafs

    if loc.local or loc.scheme in ("hdfs", "viewfs"):
        return
    bucket = loc.path.split("/", 1)[0]
    try:
        missing = loc.fs.get_file_info(bucket).type == pafs.FileType.NotFound
    except Exception as err:
        raise _explain(loc.uri, err) from err
    if missing:
        raise StorageError(f"{loc.uri}: no such bucket: {bucket}")


def list_files(loc: Location) -> list[Entry]:
    """Every regular file below the directory ``loc`` (recursive), sorted by relative path.

    Raises:
        StorageError: missing bucket, refused credentials, or another storage failure (names the URI).
    """
    import pyarrow.fs as pafs

    try:
        infos = loc.fs.get_file_info(pafs.FileSelector(loc.path, recursive=True))
    except Exception as err:
        raise _explain(loc.uri, err) from err
    base = loc.path.rstrip("/")
    out = []
    for fi in infos:
        if fi.type != pafs.FileType.File:
            continue
        rel = fi.path[len(base) :].lstrip("/") if fi.path.startswith(base) else fi.base_name
        out.append(Entry(loc.uri_of(fi.path), rel, int(fi.size or 0)))
    out.sort(key=lambda e: e.rel)
    return out


def read_head(uri: str, options: dict | None, n: int) -> bytes:
    """The first ``n`` bytes of a file (one ranged read on object storage).

    Raises:
        StorageError: the file cannot be read (names the URI).
    """
    loc = resolve(uri, options)
    try:
        with loc.fs.open_input_file(loc.path) as fh:
            return fh.read(n)
    except Exception as err:
        raise _explain(uri, err) from err


def read_bytes(uri: str, options: dict | None = None) -> bytes:
    """A whole small file (a mapping JSON, a ``.index``, a previous run's manifest).

    Raises:
        StorageError: the file cannot be read (names the URI).
    """
    loc = resolve(uri, options)
    try:
        with loc.fs.open_input_stream(loc.path) as fh:
            return fh.read()
    except Exception as err:
        raise _explain(uri, err) from err


class _Stream:
    """A pyarrow input stream whose read errors are StorageErrors naming the URI."""

    def __init__(self, uri: str, raw: Any) -> None:
        self.uri = uri
        self.raw = raw

    def read(self, n: int = -1) -> bytes:
        """Up to ``n`` bytes (all remaining when ``n < 0``)."""
        try:
            return self.raw.read(n) if n >= 0 else self.raw.read()
        except Exception as err:
            raise _explain(self.uri, err) from err

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.raw.close()


def open_input_stream(uri: str, options: dict | None = None) -> _Stream:
    """Open a file for sequential reading (executor side; S3 and GCS read it with streaming GETs, buffered
    by pyarrow, never whole).

    Raises:
        StorageError: missing bucket or key, refused credentials (names the URI).
    """
    loc = resolve(uri, options)
    try:
        raw = loc.fs.open_input_stream(loc.path)
    except Exception as err:
        raise _explain(uri, err) from err
    return _Stream(uri, raw)


def write_bytes(uri: str, data: bytes, options: dict | None = None) -> None:
    """Write a whole (small) file: ``summary.json``, ``report.html``, a run manifest.

    Raises:
        StorageError: the storage refused the write (names the URI).
    """
    loc = resolve(uri, options)
    try:
        if loc.local:
            os.makedirs(os.path.dirname(loc.path), exist_ok=True)
        with loc.fs.open_output_stream(loc.path) as fh:
            fh.write(data)
    except Exception as err:
        raise _explain(uri, err) from err


def walk_local(directory: str) -> Iterator[tuple[str, str]]:
    """(absolute path, ``/``-separated relative path) of every file below a local directory."""
    for dirpath, dirnames, filenames in os.walk(directory):
        dirnames.sort()
        for name in sorted(filenames):
            full = os.path.join(dirpath, name)
            yield full, os.path.relpath(full, directory).replace(os.sep, "/")


def delete_tree(uri: str, options: dict | None = None) -> None:
    """Remove a directory and everything below it; absent is fine.

    Raises:
        StorageError: the storage refused (names the URI).
    """
    import pyarrow.fs as pafs

    loc = resolve(uri, options)
    try:
        if loc.fs.get_file_info(loc.path).type != pafs.FileType.NotFound:
            loc.fs.delete_dir(loc.path)
    except Exception as err:
        raise _explain(uri, err) from err


def upload_tree(local_dir: str, uri: str, options: dict | None = None, *, skip_crc: bool = True) -> int:
    """Copy a local directory tree to ``uri`` (the job's Parquet tables), replacing what was there.

    Args:
        local_dir: the source directory.
        uri: destination directory URI.
        options: filesystem options.
        skip_crc: leave out Hadoop's ``.*.crc`` side files.

    Returns:
        Files copied.

    Raises:
        StorageError: the storage refused (names the URI).
    """
    dest = resolve(uri, options)
    delete_tree(uri, options)
    n = 0
    for full, rel in walk_local(local_dir):
        name = rel.rsplit("/", 1)[-1]
        if skip_crc and name.startswith(".") and name.endswith(".crc"):
            continue
        target = dest.child(rel)
        inner = resolve(target, options).path
        try:
            if dest.local:
                os.makedirs(os.path.dirname(inner), exist_ok=True)
            with open(full, "rb") as src, dest.fs.open_output_stream(inner) as out:
                while chunk := src.read(8 << 20):
                    out.write(chunk)
        except Exception as err:
            raise _explain(target, err) from err
        n += 1
    return n
