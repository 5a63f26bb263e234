"""Find the binlog files of a fleet and group them into hosts and series (driver side, no Spark).

Input forms accepted by ``gtidkit pipeline run --input``:

* a directory with one sub-directory per host: every binlog below ``DIR/<host>/`` (recursively) belongs to
  ``<host>``; binlogs directly in ``DIR`` form a host named after ``DIR`` itself;
* a JSON mapping file ``{"host": ["path", ...], ...}`` (paths relative to the mapping file);
* a single binlog file: one host named after the file's directory.

A file is a binlog when it starts with MySQL's magic ``fe 62 69 6e`` (``BINLOG_MAGIC`` in
``libbinlogevents/include/binlog_event.h``); anything else (index files, text dumps, manifests) is skipped and
listed in :attr:`Layout.skipped`.

Files are ordered per host the way the server's index would list them: within a *series* (same directory and
base name, e.g. ``binlog.000001``, ``binlog.000002``) by the numeric suffix; a ``<base>.index`` file in the same
directory, when present, gives the order instead (MySQL's ``binlog.index``). Series are ordered by name. The
Previous_gtids chain (WL#7592) is only checked between consecutive files of one series.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

#: The four bytes every binlog starts with (``BINLOG_MAGIC``).
BINLOG_MAGIC = b"\xfebin"
_SEQ = re.compile(r"^(?P<base>.+)\.(?P<seq>\d+)$")


@dataclass(frozen=True, slots=True)
class FileSpec:
    """One binlog to scan: what a Spark partition carries (must pickle; holds no open file).

    Attributes:
        host: host name (sub-directory or mapping key).
        path: absolute path, readable where the executors run.
        file: the file's name relative to its host directory (unique per host).
        series: ``<relative dir>/<base name>``; consecutive files of a series form a Previous_gtids chain.
        seq: numeric suffix of the name (``binlog.000042`` → 42), or None.
        file_index: 0-based position of the file among its host's files (series order, then seq).
        size: file size in bytes at discovery time.
        uri: the file's URI on remote storage (``s3://bucket/key``...; see :mod:`gtidkit.pipeline.storage`),
            None for a local file (then ``path`` is opened directly).
    """

    host: str
    path: str
    file: str
    series: str
    seq: int | None
    file_index: int
    size: int
    uri: str | None = None


@dataclass(slots=True)
class Layout:
    """The result of :func:`discover`: binlogs to scan plus what was skipped and why."""

    files: list[FileSpec]
    skipped: list[tuple[str, str]] = field(default_factory=list)

    @property
    def hosts(self) -> list[str]:
        """Host names in first-seen order."""
        return list(dict.fromkeys(f.host for f in self.files))

    @property
    def total_bytes(self) -> int:
        """Sum of the binlog sizes in bytes."""
        return sum(f.size for f in self.files)


class LayoutError(ValueError):
    """The input is neither a directory nor a valid mapping file (message names the path)."""


def is_binlog(path: Path) -> bool:
    """True when ``path`` is a regular file that starts with the binlog magic bytes."""
    try:
        with open(path, "rb") as fh:
            return fh.read(4) == BINLOG_MAGIC
    except OSError:
        return False


def _split_name(name: str) -> tuple[str, int | None]:
    m = _SEQ.match(name)
    if m:
        return m.group("base"), int(m.group("seq"))
    return name, None


def _index_order(directory: Path) -> dict[str, int]:
    """Positions of file names listed in any ``*.index`` file of ``directory`` (MySQL's binlog index)."""
    order: dict[str, int] = {}
    for index in sorted(directory.glob("*.index")):
        try:
            lines = index.read_text(errors="replace").splitlines()
        except OSError:
            continue
        for line in lines:
            name = os.path.basename(line.strip())
            if name and name not in order:
                order[name] = len(order)
    return order


def _order_host(host: str, root: Path, paths: list[Path]) -> list[FileSpec]:
    keyed = []
    index_cache: dict[Path, dict[str, int]] = {}
    for path in paths:
        rel = os.path.relpath(path, root) if root in path.parents else path.name
        reldir = os.path.dirname(rel)
        base, seq = _split_name(path.name)
        series = f"{reldir}/{base}" if reldir else base
        if path.parent not in index_cache:
            index_cache[path.parent] = _index_order(path.parent)
        idx = index_cache[path.parent].get(path.name)
        keyed.append(
            (
                (series, idx if idx is not None else -1, seq if seq is not None else -1, rel),
                path,
                rel,
                series,
                seq,
            )
        )
    keyed.sort(key=lambda k: k[0])
    return [
        FileSpec(
            host=host,
            path=str(path.resolve()),
            file=rel,
            series=series,
            seq=seq,
            file_index=i,
            size=path.stat().st_size,
        )
        for i, (_, path, rel, series, seq) in enumerate(keyed)
    ]


def discover(input_path: str | os.PathLike[str], options: dict | None = None) -> Layout:
    """List the binlogs under ``input_path`` grouped by host (see the module docstring for the forms).

    Args:
        input_path: a fleet directory or a JSON mapping file: a local path, a ``file://`` URI, or a URI on
            remote storage (``s3://``, ``s3a://``, ``gs://``, ``hdfs://``; listed once through ``pyarrow.fs``).
        options: filesystem options for a remote URI (see :mod:`gtidkit.pipeline.storage`).

    Returns:
        A :class:`Layout` whose ``files`` are ordered by host (sorted) and then by file order on the host.

    Raises:
        LayoutError: the path does not exist, the mapping file is malformed, or no binlog was found.
        gtidkit.pipeline.storage.StorageError: remote storage refused (missing bucket, bad credentials).
    """
    from gtidkit.pipeline import storage

    if storage.is_remote(input_path):
        return _discover_remote(storage.resolve(input_path, options), options)
    input_path = storage.resolve(input_path).path
    root = Path(input_path)
    if not root.exists():
        raise LayoutError(f"input {root} does not exist")
    groups: dict[str, tuple[Path, list[Path]]] = {}
    skipped: list[tuple[str, str]] = []

    def consider(host: str, host_root: Path, path: Path) -> None:
        """Add ``path`` to ``host`` when it is a binlog, else record why it is skipped."""
        if not path.is_file():
            skipped.append((str(path), "not a regular file"))
        elif is_binlog(path):
            groups.setdefault(host, (host_root, []))[1].append(path)
        else:
            skipped.append((str(path), "no binlog magic (fe 62 69 6e)"))

    if root.is_file() and is_binlog(root):
        # A single binlog: one host, named after its directory.
        groups[root.resolve().parent.name] = (root.parent, [root])
    elif root.is_file():
        try:
            mapping = json.loads(root.read_text())
        except (OSError, ValueError) as err:
            raise LayoutError(f"mapping file {root}: {err}") from err
        if not isinstance(mapping, dict) or not all(isinstance(v, list) for v in mapping.values()):
            raise LayoutError(f'mapping file {root}: expected {{"host": ["path", ...]}}')
        for host, paths in mapping.items():
            for p in paths:
                path = (root.parent / p) if not os.path.isabs(p) else Path(p)
                consider(str(host), path.parent, path)
    else:
        for entry in sorted(root.iterdir()):
            if entry.is_dir():
                for dirpath, dirnames, filenames in os.walk(entry):
                    dirnames.sort()
                    for name in sorted(filenames):
                        consider(entry.name, entry, Path(dirpath) / name)
            elif entry.is_file() and is_binlog(entry):
                consider(root.resolve().name, root, entry)
            else:
                skipped.append((str(entry), "no binlog magic (fe 62 69 6e)"))
    files: list[FileSpec] = []
    for host in sorted(groups):
        host_root, paths = groups[host]
        files.extend(_order_host(host, host_root, paths))
    if not files:
        raise LayoutError(f"no binlog files (magic fe 62 69 6e) found under {root}")
    return Layout(files=files, skipped=skipped)


def _discover_remote(loc, options: dict | None) -> Layout:
    """:func:`discover` on object storage or HDFS: one listing, then the 4 magic bytes of each candidate file
    (read in parallel: one small ranged GET each)."""
    from concurrent.futures import ThreadPoolExecutor

    import pyarrow.fs as pafs

    from gtidkit.pipeline import storage

    fi = storage.info(loc)
    if fi.type == pafs.FileType.NotFound:
        storage.check_bucket(loc)
        raise LayoutError(f"input {loc.uri} does not exist")
    skipped: list[tuple[str, str]] = []
    candidates: list[tuple[str, str, str, int]] = []  # (host, uri, rel to the host root, size)
    index_texts: dict[str, str] = {}
    if fi.type == pafs.FileType.File:
        head = storage.read_head(loc.uri, options, 4)
        if head == BINLOG_MAGIC:
            parent = loc.uri.rstrip("/").rsplit("/", 1)[0]
            host = parent.rsplit("/", 1)[-1] or parent
            candidates.append((host, loc.uri, loc.uri.rsplit("/", 1)[-1], int(fi.size or 0)))
        else:
            try:
                mapping = json.loads(storage.read_bytes(loc.uri, options))
            except ValueError as err:
                raise LayoutError(f"mapping file {loc.uri}: {err}") from err
            if not isinstance(mapping, dict) or not all(isinstance(v, list) for v in mapping.values()):
                raise LayoutError(f'mapping file {loc.uri}: expected {{"host": ["path", ...]}}')
            base = loc.uri.rsplit("/", 1)[0]
            for host, paths in mapping.items():
                for p in paths:
                    uri = p if storage.is_remote(p) else f"{base}/{p.lstrip('/')}"
                    sub = storage.resolve(uri, options)
                    sfi = storage.info(sub)
                    if sfi.type != pafs.FileType.File:
                        skipped.append((uri, "not a regular file"))
                        continue
                    candidates.append((str(host), uri, uri.rsplit("/", 1)[-1], int(sfi.size or 0)))
    else:
        for entry in storage.list_files(loc):
            head, _, rest = entry.rel.partition("/")
            if rest:
                host, rel = head, rest
            else:
                host, rel = loc.uri.rstrip("/").rsplit("/", 1)[-1], head
            candidates.append((host, entry.uri, rel, entry.size))

    def head_of(c: tuple[str, str, str, int]) -> bytes:
        try:
            return storage.read_head(c[1], options, 4) if c[3] >= 4 else b""
        except storage.StorageError:
            return b""

    with ThreadPoolExecutor(max_workers=16) as pool:
        heads = list(pool.map(head_of, candidates))
    groups: dict[str, list[tuple[str, str, int]]] = {}
    for (host, uri, rel, size), head in zip(candidates, heads):
        if head == BINLOG_MAGIC:
            groups.setdefault(host, []).append((uri, rel, size))
        elif rel.endswith(".index"):
            try:
                index_texts[uri.rsplit("/", 1)[0] + "\0" + uri] = storage.read_bytes(uri, options).decode(
                    "utf-8", "replace"
                )
            except storage.StorageError:
                pass
            skipped.append((uri, "no binlog magic (fe 62 69 6e)"))
        else:
            skipped.append((uri, "no binlog magic (fe 62 69 6e)"))
    files: list[FileSpec] = []
    for host in sorted(groups):
        keyed = []
        for uri, rel, size in groups[host]:
            directory = uri.rsplit("/", 1)[0]
            order: dict[str, int] = {}
            for key in sorted(k for k in index_texts if k.startswith(directory + "\0")):
                for line in index_texts[key].splitlines():
                    name = line.strip().replace("\\", "/").rsplit("/", 1)[-1]
                    if name and name not in order:
                        order[name] = len(order)
            name = rel.rsplit("/", 1)[-1]
            reldir = rel.rsplit("/", 1)[0] if "/" in rel else ""
            base, seq = _split_name(name)
            series = f"{reldir}/{base}" if reldir else base
            idx = order.get(name)
            keyed.append(
                (
                    (series, idx if idx is not None else -1, seq if seq is not None else -1, rel),
                    uri,
                    rel,
                    series,
                    seq,
                    size,
                )
            )
        keyed.sort(key=lambda k: k[0])
        files.extend(
            FileSpec(host=host, path=uri, file=rel, series=series, seq=seq, file_index=i, size=size, uri=uri)
            for i, (_, uri, rel, series, seq, size) in enumerate(keyed)
        )
    if not files:
        raise LayoutError(f"no binlog files (magic fe 62 69 6e) found under {loc.uri}")
    return Layout(files=files, skipped=skipped)
