"""The pipeline's transforms and checks in plain Python, for inputs too small to be worth a JVM.

``gtidkit pipeline run --engine local`` (and ``--engine auto`` under ``--local-max-bytes``) runs the same job as
Spark without starting one: the files are streamed by the very reader the Data Source uses
(:func:`gtidkit.pipeline.scan.arrow_batches`, ``level=scan``) and every step of :mod:`gtidkit.pipeline.transforms`
and :mod:`gtidkit.pipeline.checks` is re-stated here over lists of dicts, with Spark SQL's semantics where they
matter: ``NULL`` never equals anything in a join condition, ``GROUP BY`` and window partitions put ``NULL`` keys
together, ``format_string`` prints a ``NULL`` argument as ``null``, aggregates skip ``NULL`` s (``SUM`` of only
``NULL`` s is ``NULL``), ascending sorts put ``NULL`` first. Each function names the Spark function it mirrors;
tests/pipeline/test_local_engine.py checks that both engines write equal tables on the same fleet.

Rows are dicts keyed by the column names of :mod:`gtidkit.pipeline.schemas`; a transaction also carries
``commit_time`` as microseconds since the epoch (UTC), turned into a timestamp only when a table is written.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

from gtidkit.pipeline import schemas
from gtidkit.pipeline.layout import FileSpec

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


def _eq(a: Any, b: Any) -> bool:
    """SQL ``a = b`` in a join condition: ``NULL`` matches nothing."""
    return a is not None and b is not None and a == b


def _null_first(v: Any) -> tuple:
    """Sort key of one value, ascending with ``NULL`` first (Spark's default order)."""
    return (0, 0) if v is None else (1, v)


def _fmt_null(v: Any) -> Any:
    """An argument of Spark's ``format_string``: ``NULL`` prints as ``null``."""
    return "null" if v is None else v


def commit_time_us(t: dict) -> int | None:
    """:func:`gtidkit.pipeline.transforms.commit_time` in µs: immediate_commit_timestamp, else the header's
    seconds."""
    if t["immediate_commit_timestamp"] is not None:
        return int(t["immediate_commit_timestamp"])
    if t["timestamp"] is not None:
        return int(t["timestamp"]) * 1_000_000
    return None


def spark_datetime(us: int | None) -> dt.datetime | None:
    """A TIMESTAMP (µs since the epoch) as PySpark's ``collect()`` returns it: a naive local datetime."""
    if us is None:
        return None
    return dt.datetime.fromtimestamp(us // 1_000_000).replace(microsecond=us % 1_000_000)


def scan_files(
    specs: Iterable[FileSpec],
    *,
    verify_checksum: bool = True,
    storage_options: dict | None = None,
    on_file: Callable[[FileSpec], None] | None = None,
) -> tuple[list[dict], list[dict]]:
    """Read ``specs`` with the Data Source's reader: (transactions, files) rows, as the ``scan`` level gives them.

    Args:
        specs: the files, in layout order.
        verify_checksum: verify CRC32 footers.
        storage_options: filesystem options for remote files.
        on_file: called after each file (progress).

    Returns:
        transactions (schemas.TRANSACTIONS + ``commit_time`` in µs) and files (schemas.FILES) as dicts.
    """
    from gtidkit.pipeline.scan import arrow_batches

    arrow = schemas.arrow_schema(schemas.SCAN)
    txns: list[dict] = []
    files: list[dict] = []
    for spec in specs:
        for batch in arrow_batches(
            spec, "scan", arrow, verify_checksum=verify_checksum, storage_options=storage_options
        ):
            for rec in batch.to_pylist():
                if rec["kind"] == "txn":
                    t = rec["txn"]
                    t["commit_time"] = commit_time_us(t)
                    txns.append(t)
                elif rec["kind"] == "file":
                    files.append(rec["file"])
        if on_file is not None:
            on_file(spec)
    return txns, files


def merge_intervals(rows: Iterable[tuple], nkeys: int) -> list[tuple]:
    """:func:`gtidkit.pipeline.transforms.merge_intervals`: ``(*keys, start, end)`` tuples with inclusive ends →
    one tuple per maximal run of consecutive GNOs per key, sorted by key then start."""
    by_key: dict[tuple, list[tuple[int, int]]] = defaultdict(list)
    for r in rows:
        by_key[tuple(r[:nkeys])].append((r[nkeys], r[nkeys + 1]))
    out = []
    for key in sorted(by_key, key=lambda k: tuple(_null_first(x) for x in k)):
        cur_s = cur_e = None
        for s, e in sorted(by_key[key]):
            if cur_e is None or s > cur_e + 1:
                if cur_e is not None:
                    out.append((*key, cur_s, cur_e))
                cur_s, cur_e = s, e
            else:
                cur_e = max(cur_e, e)
        if cur_e is not None:
            out.append((*key, cur_s, cur_e))
    return out


def _txn_gtids(transactions: list[dict], with_file: bool) -> list[tuple]:
    return [
        ((t["host"], t["file"]) if with_file else (t["host"],)) + (t["sid"], t["tag"], t["gno"], t["gno"])
        for t in transactions
        if t["gno"] is not None
    ]


def _prev_intervals(files: list[dict]) -> Iterable[tuple[dict, dict]]:
    for f in files:
        for i in f["previous_gtids_intervals"] or ():
            yield f, i


def gtid_executed(transactions: list[dict], files: list[dict]) -> list[tuple]:
    """:func:`gtidkit.pipeline.transforms.gtid_executed`: (host, source_uuid, tag, start, end) rows."""
    rows = _txn_gtids(transactions, False) + [
        (f["host"], i["sid"], i["tag"], i["interval_start"], i["interval_end"])
        for f, i in _prev_intervals(files)
    ]
    return merge_intervals(rows, 3)


def file_gtid_intervals(transactions: list[dict]) -> list[dict]:
    """:func:`gtidkit.pipeline.transforms.file_gtid_intervals` as dicts (host, file, source_uuid, tag, ...)."""
    cols = ("host", "file", "source_uuid", "tag", "interval_start", "interval_end")
    return [dict(zip(cols, r)) for r in merge_intervals(_txn_gtids(transactions, True), 4)]


def parallelism(transactions: list[dict]) -> list[tuple]:
    """:func:`gtidkit.pipeline.transforms.parallelism`: (host, file, last_committed, group_size,
    first_sequence_number)."""
    groups: dict[tuple, list[int]] = {}
    for t in transactions:
        if t["last_committed"] is None or t["sequence_number"] is None:
            continue
        g = groups.setdefault((t["host"], t["file"], t["last_committed"]), [0, t["sequence_number"]])
        g[0] += 1
        g[1] = min(g[1], t["sequence_number"])
    return [(*k, n, first) for k, (n, first) in groups.items()]


def sid_stats(transactions: list[dict], files: list[dict]) -> list[dict]:
    """The job's per-(host, sid) aggregate: n, local_n (Gtid event server_id = the file's FDE server_id),
    anon_n, first_commit_time and last_commit_time (µs)."""
    fde = {(f["host"], f["file"]): f["server_id"] for f in files}
    acc: dict[tuple, dict] = {}
    for t in transactions:
        a = acc.setdefault(
            (t["host"], t["sid"]),
            {"host": t["host"], "sid": t["sid"], "n": 0, "local_n": None, "anon_n": None, "_times": []},
        )
        a["n"] += 1
        f_id = fde.get((t["host"], t["file"]))
        if t["server_id"] is not None and f_id is not None:
            a["local_n"] = (a["local_n"] or 0) + int(t["server_id"] == f_id)
        if t["anonymous"] is not None:
            a["anon_n"] = (a["anon_n"] or 0) + int(t["anonymous"])
        if t["commit_time"] is not None:
            a["_times"].append(t["commit_time"])
    out = []
    for a in acc.values():
        times = a.pop("_times")
        a["first_commit_time"] = spark_datetime(min(times)) if times else None
        a["last_commit_time"] = spark_datetime(max(times)) if times else None
        out.append(a)
    return out


def activity(transactions: list[dict], bucket_s: int) -> list[tuple]:
    """(host, bucket start, transactions) ordered by host, bucket: ``floor(unix_micros(commit_time) / bucket)``
    as :meth:`gtidkit.pipeline.job.SparkEngine.activity` computes it."""
    bucket_us = bucket_s * 1_000_000
    counts: dict[tuple, int] = defaultdict(int)
    for t in transactions:
        us = t["commit_time"]
        counts[(t["host"], None if us is None else us // bucket_us * bucket_us)] += 1
    keys = sorted(counts, key=lambda k: (_null_first(k[0]), _null_first(k[1])))
    return [(h, spark_datetime(m), counts[(h, m)]) for h, m in keys]


def _gtid_text(t: dict) -> str | None:
    """``checks._gtid_text``: ``sid:gno`` or ``sid:tag:gno`` (Spark's concat_ws skips a NULL part)."""
    parts = (
        [t["sid"]] + ([] if t["tag"] == "" else [t["tag"]]) + [None if t["gno"] is None else str(t["gno"])]
    )
    return ":".join(p for p in parts if p is not None)


def _check(check: str, severity: str, host: Any, file: Any, offset: Any, gtid: Any, detail: Any) -> dict:
    return dict(zip(schemas.field_names(schemas.CHECKS), (check, severity, host, file, offset, gtid, detail)))


def file_errors(files: list[dict]) -> list[dict]:
    """:func:`gtidkit.pipeline.checks.file_errors`."""
    return [
        _check(
            "file_error",
            "error",
            f["host"],
            f["file"],
            f["error_offset"],
            None,
            "{}: {} (good_bytes={}, bad_bytes={} of {})".format(
                *(_fmt_null(f[k]) for k in ("status", "error", "good_bytes", "bad_bytes", "size"))
            ),
        )
        for f in files
        if f["status"] is not None and f["status"] != "ok"
    ]


def duplicate_gtids(transactions: list[dict], files: list[dict]) -> list[dict]:
    """:func:`gtidkit.pipeline.checks.duplicate_gtids`."""
    out = []
    seen: dict[tuple, list[dict]] = defaultdict(list)
    for t in transactions:
        if t["gno"] is not None:
            seen[(t["host"], t["sid"], t["tag"], t["gno"])].append(t)
    for occ in seen.values():
        occ.sort(key=lambda t: (_null_first(t["file_index"]), _null_first(t["begin_pos"])))
        first = occ[0]
        for t in occ[1:]:
            out.append(
                _check(
                    "duplicate_gtid",
                    "error",
                    t["host"],
                    t["file"],
                    t["begin_pos"],
                    _gtid_text(t),
                    "GTID committed again; first at {}:{}".format(
                        _fmt_null(first["file"]), _fmt_null(first["begin_pos"])
                    ),
                )
            )
    prev: dict[tuple, list[dict]] = defaultdict(list)
    for f, i in _prev_intervals(files):
        prev[(f["host"], f["file"])].append(i)
    for t in transactions:
        if t["gno"] is None:
            continue
        for i in prev.get((t["host"], t["file"]), ()):
            if (
                _eq(t["sid"], i["sid"])
                and _eq(t["tag"], i["tag"])
                and i["interval_start"] is not None
                and i["interval_end"] is not None
                and i["interval_start"] <= t["gno"] <= i["interval_end"]
            ):
                out.append(
                    _check(
                        "duplicate_gtid",
                        "error",
                        t["host"],
                        t["file"],
                        t["begin_pos"],
                        _gtid_text(t),
                        "GTID already in this file's Previous_gtids",
                    )
                )
    return out


def anonymous_in_gtid_mode(transactions: list[dict], files: list[dict]) -> list[dict]:
    """:func:`gtidkit.pipeline.checks.anonymous_in_gtid_mode`."""
    series = {(f["host"], f["file"]): f["series"] for f in files}
    parts: dict[tuple, list[dict]] = defaultdict(list)
    for t in transactions:
        parts[(t["host"], series.get((t["host"], t["file"])))].append(t)
    out = []
    for rows in parts.values():
        rows.sort(key=lambda t: (_null_first(t["file_index"]), _null_first(t["begin_pos"])))
        after = [False] * len(rows)
        seen = False
        for k in range(len(rows) - 1, -1, -1):
            after[k] = seen
            seen = seen or rows[k]["gno"] is not None
        seen = False
        for k, t in enumerate(rows):
            if t["gno"] is None and seen and after[k]:
                detail = (
                    "Anonymous_gtid transaction between GTID transactions (gtid_mode=ON stretch)"
                    if t["anonymous"]
                    else "transaction without a Gtid event between GTID transactions (gtid_mode=ON stretch)"
                )
                out.append(
                    _check(
                        "anonymous_in_gtid_mode",
                        "error",
                        t["host"],
                        t["file"],
                        t["begin_pos"],
                        "ANONYMOUS",
                        detail,
                    )
                )
            seen = seen or t["gno"] is not None
    return out


def gaps(ge: list[tuple], transactions: list[dict], files: list[dict]) -> list[dict]:
    """:func:`gtidkit.pipeline.checks.gaps` over :func:`gtid_executed`'s rows."""
    first_txn: dict[tuple, dict] = {}
    for t in transactions:
        if t["gno"] is None:
            continue
        key = (t["host"], t["sid"], t["tag"], t["gno"])
        old = first_txn.get(key)
        order = (_null_first(t["file_index"]), _null_first(t["begin_pos"]))
        if old is None or order < (_null_first(old["file_index"]), _null_first(old["begin_pos"])):
            first_txn[key] = t
    prev = sorted(_prev_intervals(files), key=lambda fi: _null_first(fi[0]["file_index"]))
    out = []
    last: dict[tuple, int] = {}
    for host, uuid, tag, start, end in ge:
        key = (host, uuid, tag)
        prev_end = last.get(key)
        last[key] = end
        if prev_end is None:
            continue
        gap_start, gap_end, after = prev_end + 1, start - 1, start
        t = first_txn.get((host, uuid, tag, after)) if None not in (host, uuid, tag) else None
        holder = next(
            (
                f
                for f, i in prev
                if _eq(f["host"], host)
                and _eq(i["sid"], uuid)
                and _eq(i["tag"], tag)
                and i["interval_start"] is not None
                and i["interval_end"] is not None
                and i["interval_start"] <= after <= i["interval_end"]
            ),
            None,
        )
        file = t["file"] if t is not None and t["file"] is not None else (holder or {}).get("file")
        offset = (
            t["begin_pos"]
            if t is not None and t["begin_pos"] is not None
            else (holder or {}).get("previous_gtids_pos")
        )
        rng = f"{gap_start}" if gap_start == gap_end else f"{gap_start}-{gap_end}"
        gtid = f"{uuid}:{rng}" if tag == "" else f"{uuid}:{tag}:{rng}"
        out.append(
            _check(
                "gap",
                "warning",
                host,
                file,
                offset,
                gtid,
                f"{gap_end - gap_start + 1} missing GNO(s) before {after}",
            )
        )
    return out


def locate_gtids(intervals: list[tuple], transactions: list[dict], check: str, detail: str) -> list[dict]:
    """:func:`gtidkit.pipeline.checks.locate_gtids`: intervals are (host, source_uuid, tag, start, end)."""
    by_key: dict[tuple, list[tuple[int, int]]] = defaultdict(list)
    for host, uuid, tag, s, e in intervals:
        if None not in (host, uuid, tag):
            by_key[(host, uuid, tag)].append((s, e))
    out = []
    for t in transactions:
        if t["gno"] is None:
            continue
        for s, e in by_key.get((t["host"], t["sid"], t["tag"]), ()):
            if s <= t["gno"] <= e:
                out.append(
                    _check(check, "error", t["host"], t["file"], t["begin_pos"], _gtid_text(t), detail)
                )
    return out


def arrow_table(rows: list[dict] | list[tuple], ddl: str) -> Any:
    """Rows (dicts by column name, or tuples in DDL order) as a ``pyarrow.Table`` of the DDL's Arrow schema;
    µs ``commit_time`` values and datetimes become timestamps."""
    import pyarrow as pa

    schema = schemas.arrow_schema(ddl)
    names = schema.names
    cols: dict[str, list] = {n: [] for n in names}
    for r in rows:
        for k, n in enumerate(names):
            cols[n].append(r[n] if isinstance(r, dict) else r[k])
    arrays = []
    for field in schema:
        values = cols[field.name]
        if pa.types.is_timestamp(field.type):
            values = [
                _EPOCH + dt.timedelta(microseconds=v)
                if isinstance(v, int)
                else (v.replace(tzinfo=dt.timezone.utc) if v is not None and v.tzinfo is None else v)
                for v in values
            ]
        arrays.append(pa.array(values, type=field.type))
    return pa.Table.from_arrays(arrays, schema=schema)


def write_table(
    rows: list[dict] | list[tuple], ddl: str, uri: str, storage_options: dict | None = None
) -> None:
    """Replace the Parquet directory ``uri`` with one ``part-00000.parquet`` holding ``rows`` (local or remote).

    Raises:
        gtidkit.pipeline.storage.StorageError: the storage refused (names the URI).
    """
    import pyarrow.parquet as pq

    from gtidkit.pipeline import storage

    storage.delete_tree(uri, storage_options)
    loc = storage.resolve(f"{uri.rstrip('/')}/part-00000.parquet", storage_options)
    if loc.local:
        import os

        os.makedirs(os.path.dirname(loc.path), exist_ok=True)
    try:
        pq.write_table(arrow_table(rows, ddl), loc.path, filesystem=loc.fs)
    except OSError as err:
        raise storage.StorageError(f"{loc.uri}: {err}") from err


def read_rows(uri: str, ddl: str, storage_options: dict | None = None) -> list[dict]:
    """A Parquet table the job wrote (either engine) as dicts of the DDL's columns; timestamps become µs.

    Raises:
        gtidkit.pipeline.storage.StorageError: unreadable.
    """
    import pyarrow as pa
    import pyarrow.dataset as ds

    from gtidkit.pipeline import storage

    loc = storage.resolve(uri, storage_options)
    schema = schemas.arrow_schema(ddl)
    try:
        table = ds.dataset(
            loc.path, filesystem=loc.fs, format="parquet", exclude_invalid_files=True
        ).to_table(columns=schema.names)
    except Exception as err:  # pyarrow's ArrowInvalid & co.
        raise storage.StorageError(f"{loc.uri}: previous table unreadable: {err}") from err
    for k, field in enumerate(schema):
        if pa.types.is_timestamp(field.type):
            col = table.column(k).cast(pa.timestamp("us", tz="UTC")).cast(pa.int64())
            table = table.set_column(k, field.name, col)
    return table.to_pylist()
