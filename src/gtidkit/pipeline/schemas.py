"""DDL strings for every table the pipeline reads or writes (the schema contract of ``gtidkit.pipeline``).

Units: offsets and sizes are **bytes** from the start of the file; ``timestamp`` is the event header's
seconds since the epoch; ``*_commit_timestamp`` are **microseconds** since the epoch (WL#7319, 8.0.1+; NULL when
the server did not write them); GNO intervals are **inclusive** at both ends, as in GTID text and in
``mysql.gtid_executed`` (formats.md §5.1). UUIDs are lowercase text with dashes; ``tag`` is ``""`` for untagged
GTIDs (8.3+ tags otherwise) and NULL for anonymous transactions.

Tables (also documented in docs/PIPELINE.md):

``transactions`` — one row per transaction found in a binlog (WL#7592 grouping, done by gtidkit.binlog):
    host, file (name), file_index (order of the file on its host), begin_pos / end_pos (byte offsets; end
    exclusive), sid, tag, gno (NULL for anonymous), anonymous, last_committed, sequence_number (logical clock,
    WL#7165), timestamp (s), immediate_commit_timestamp / original_commit_timestamp (µs), commit_time
    (TIMESTAMP, derived), bytes, events, server_id (of the Gtid event: the originating server), databases,
    complete (FALSE for a transaction cut by the end of the file).

``files`` — one row per binlog file: host, file, path, file_index, series (base name, e.g. ``binlog``), seq
    (numeric suffix), size, server_version, binlog_version, checksum_alg, server_id (of the FDE: the writing
    server), previous_gtids (text; NULL when the file has no Previous_gtids event), previous_gtids_pos (offset of that
    event), previous_gtids_intervals (the same set as rows sid/tag/interval_start/interval_end), first_gtid, last_gtid,
    transactions, gtid_transactions, anonymous_transactions, events, in_use (FDE flag), ends_with
    (ROTATE/STOP/NULL), next_file, first_timestamp / last_timestamp (s), status (``ok`` | ``truncated`` |
    ``corrupt`` | ``unsupported`` (MariaDB) | ``unreadable``), error, error_offset, good_bytes, bad_bytes (good_bytes + bad_bytes = size).

``gtid_executed`` — the WL#6559 table per host: host, source_uuid, tag, interval_start, interval_end
    (inclusive), compressed (one row per maximal interval), built from Previous_gtids ∪ GTIDs in the files.

``hosts`` — one row per host: host, server_uuid (inferred), server_id, files, transactions, gtid_transactions,
    anonymous_transactions, bytes, bad_bytes, gtid_executed_binlog, gtid_purged_binlog (WL#6559 §5,
    formats.md §5.5), gtid_count, first/last commit_time, source_host (replication source, given or inferred),
    commit_groups, avg_group_size, max_group_size.

``checks`` — one row per finding: check, severity, host, file, offset, gtid (GTID or GTID-set text), detail.

``parallelism`` — one row per commit group: host, file, last_committed, group_size, first_sequence_number.
"""

from __future__ import annotations

TRANSACTION_FIELDS = (
    "host STRING, file STRING, file_index INT, begin_pos BIGINT, end_pos BIGINT, sid STRING, tag STRING, "
    "gno BIGINT, anonymous BOOLEAN, last_committed BIGINT, sequence_number BIGINT, timestamp BIGINT, "
    "immediate_commit_timestamp BIGINT, original_commit_timestamp BIGINT, bytes BIGINT, events INT, "
    "server_id BIGINT, databases ARRAY<STRING>, complete BOOLEAN"
)

FILE_FIELDS = (
    "host STRING, file STRING, path STRING, file_index INT, series STRING, seq BIGINT, size BIGINT, "
    "server_version STRING, binlog_version INT, checksum_alg STRING, server_id BIGINT, previous_gtids STRING, "
    "previous_gtids_pos BIGINT, "
    "previous_gtids_intervals ARRAY<STRUCT<sid: STRING, tag: STRING, interval_start: BIGINT, interval_end: BIGINT>>, "
    "first_gtid STRING, last_gtid STRING, transactions BIGINT, gtid_transactions BIGINT, "
    "anonymous_transactions BIGINT, events BIGINT, in_use BOOLEAN, ends_with STRING, next_file STRING, "
    "first_timestamp BIGINT, last_timestamp BIGINT, status STRING, error STRING, error_offset BIGINT, "
    "good_bytes BIGINT, bad_bytes BIGINT"
)

EVENT_FIELDS = (
    "host STRING, file STRING, pos BIGINT, end_pos BIGINT, type STRING, type_code INT, timestamp BIGINT, "
    "server_id BIGINT, event_size BIGINT, flags INT, in_payload BOOLEAN, gtid STRING, last_committed BIGINT, "
    "sequence_number BIGINT, info STRING"
)

#: What the data source yields at ``level=transactions`` and the job writes (plus ``commit_time``).
TRANSACTIONS = TRANSACTION_FIELDS
#: ``level=files``.
FILES = FILE_FIELDS
#: ``level=events``; a file that cannot be read to its end ends with a row of type ``ERROR`` at the fault.
EVENTS = EVENT_FIELDS

GTID_EXECUTED = "host STRING, source_uuid STRING, tag STRING, interval_start BIGINT, interval_end BIGINT"

HOSTS = (
    "host STRING, server_uuid STRING, server_id BIGINT, source_host STRING, files BIGINT, transactions BIGINT, "
    "gtid_transactions BIGINT, anonymous_transactions BIGINT, bytes BIGINT, bad_bytes BIGINT, "
    "gtid_executed_binlog STRING, gtid_purged_binlog STRING, gtid_count BIGINT, first_commit_time TIMESTAMP, "
    "last_commit_time TIMESTAMP, commit_groups BIGINT, avg_group_size DOUBLE, max_group_size BIGINT"
)

CHECKS = "check STRING, severity STRING, host STRING, file STRING, offset BIGINT, gtid STRING, detail STRING"

PARALLELISM = (
    "host STRING, file STRING, last_committed BIGINT, group_size BIGINT, first_sequence_number BIGINT"
)

LEVELS = ("events", "transactions", "files", "scan")


def _struct_body(fields: str) -> str:
    """Turn ``a STRING, b INT`` into the ``a: STRING, b: INT`` form used inside ``STRUCT<...>``."""
    out = []
    for name, dtype in _split_fields(fields):
        out.append(f"{name}: {dtype}")
    return ", ".join(out)


def _split_fields(ddl: str) -> list[tuple[str, str]]:
    """Split a flat DDL string at top-level commas (commas inside ``<...>`` belong to nested types)."""
    parts, depth, cur = [], 0, []
    for ch in ddl:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if cur:
        parts.append("".join(cur).strip())
    return [tuple(p.split(" ", 1)) for p in parts]  # type: ignore[misc]


#: ``level=scan``: the job's single pass: one ``txn`` record per transaction, then one ``file`` record per file.
SCAN = (
    f"kind STRING, txn STRUCT<{_struct_body(TRANSACTION_FIELDS)}>, file STRUCT<{_struct_body(FILE_FIELDS)}>"
)


def field_names(ddl: str) -> list[str]:
    """Column names of a flat DDL string (``"a STRING, b INT"`` → ``["a", "b"]``)."""
    return [name for name, _ in _split_fields(ddl)]


_ARROW_SCALARS = {
    "STRING": "string",
    "INT": "int32",
    "BIGINT": "int64",
    "BOOLEAN": "bool_",
    "DOUBLE": "float64",
}


def _arrow_type(dtype: str) -> object:
    """Arrow type of one DDL type, as Spark's ``to_arrow_type`` maps it (nullable fields, list item
    ``element``, ``timestamp[us, tz=UTC]`` with the session time zone UTC)."""
    import pyarrow as pa

    dtype = dtype.strip()
    upper = dtype.upper()
    if upper.startswith("ARRAY<"):
        return pa.list_(pa.field("element", _arrow_type(dtype[6:-1]), nullable=True))
    if upper.startswith("STRUCT<"):
        return pa.struct(
            [
                pa.field(name.rstrip(":"), _arrow_type(t), nullable=True)
                for name, t in _split_fields(dtype[7:-1])
            ]
        )
    if upper == "TIMESTAMP":
        return pa.timestamp("us", tz="UTC")
    return getattr(pa, _ARROW_SCALARS[upper])()


def arrow_schema(ddl: str) -> object:
    """The ``pyarrow.Schema`` Spark derives from a DDL string of this module (what a Python Data Source must
    yield, field for field: Spark rejects any other with ``DATA_SOURCE_RETURN_SCHEMA_MISMATCH``).

    Raises:
        KeyError: a type this module does not use.
    """
    import pyarrow as pa

    return pa.schema(
        [pa.field(name, _arrow_type(dtype), nullable=True) for name, dtype in _split_fields(ddl)]
    )
