"""A deterministic (seeded) generator of realistic MySQL 8.0-layout binary logs: small fleets and big corpora.

What a generated file looks like (MySQL :data:`~gtidkit.version.MYSQL_VERSION`, ``binlog_format=ROW``, ``binlog_checksum=CRC32``,
``binlog_row_metadata=MINIMAL``): magic, Format_description (41 post-header lengths), Previous_gtids, then
transactions ``Gtid · Query(BEGIN) · [Table_map · Write/Update/Delete_rows_v2]+ · Xid`` and now and then a DDL
written as ``Gtid · Query(DDL)``; Rotate at ``max_binlog_size``, Stop on a clean shutdown. The logical clock
(``last_committed``/``sequence_number``) is relative to each file and forms commit groups, as the binlog group
commit does (``sql/binlog.cc`` ``MYSQL_BIN_LOG::ordered_commit``, WL#7165). Row images are well-formed for the
table map (INT, BIGINT and VARCHAR columns, ``sql/rpl_record.cc`` layout) with values drawn from the seed; rows
events are split at ``binlog_row_event_max_size`` (8 KiB) like MySQL does.

Two entry points:

* :func:`generate_fleet` writes a source and its replicas (``log_replica_updates=ON``: the replicas' binlogs carry
  the source's GTIDs, with ``original_commit_timestamp`` != ``immediate_commit_timestamp``) with *known anomalies*
  (an errant GTID on a replica, a GNO gap, rotations, optionally a Previous_gtids chain break and an anonymous
  transaction in a GTID_MODE=ON stretch), plus ``manifest.json`` (hosts, files, expected anomalies) and
  ``topology.json`` (replica → source).
* :func:`generate_corpus` writes a large corpus fast: each transaction shape is encoded once with the real codecs
  and then copied, with GNO, logical clock, timestamps, ``log_pos``, Xid and CRC32 patched in place.

Every event is encoded by :mod:`gtidkit.binlog.codec`; this module only chooses contents.
"""

from __future__ import annotations

import json
import random
import shutil
import struct
import uuid
import zlib
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from gtidkit.binlog import row_image
from gtidkit.binlog.constants import CHECKSUM_LEN, EVENT_HEADER_LEN, EventType
from gtidkit.binlog.cursor import Writer
from gtidkit.binlog.events.control import FormatDescriptionEvent, XidEvent
from gtidkit.binlog.events.rows import RowsEvent, TableMapEvent
from gtidkit.binlog.events.statement import QueryEvent
from gtidkit.binlog.row_image import ColumnSpec, encode_row, rows_events
from gtidkit.binlog.writer import BinlogWriter, EventSpec, encode_transaction
from gtidkit.gtid import Gtid, GtidSet
from gtidkit.version import MYSQL_VERSION

__all__ = [
    "DEFAULT_SERVER_VERSION",
    "FleetManifest",
    "OutputNotEmptyError",
    "generate_corpus",
    "generate_fleet",
    "load_manifest",
]

#: The server version of generated files: the release gtidkit follows (:data:`gtidkit.version.MYSQL_VERSION`).
DEFAULT_SERVER_VERSION = MYSQL_VERSION
#: MySQL 8.0's default binlog base name (``log_bin`` without a value → ``binlog``).
BINLOG_BASENAME = "binlog"
#: ``binlog_row_event_max_size`` default: rows are split into several rows events past this size.
ROW_EVENT_MAX_SIZE = row_image.ROW_EVENT_MAX_SIZE
#: A fixed epoch so that generated files are byte-identical across runs: 2026-01-15 10:00:00 UTC, in µs.
DEFAULT_START_US = 1_768_471_200_000_000
MANIFEST_NAME = "manifest.json"
TOPOLOGY_NAME = "topology.json"
MANIFEST_FORMAT = 1

# ---------------------------------------------------------------------------------------------------------
# Tables and row images
# ---------------------------------------------------------------------------------------------------------

# MySQL column type codes (``enum_field_types``, include/field_types.h).
MYSQL_TYPE_LONG = 3
MYSQL_TYPE_LONGLONG = 8
MYSQL_TYPE_VARCHAR = 15
#: utf8mb4_0900_ai_ci, the 8.0 default collation (``Q_CHARSET_CODE`` / Table_map DEFAULT_CHARSET).
UTF8MB4_0900_AI_CI = 255
# Table_map optional metadata field types (``Table_map_event::Optional_metadata_field_type``).
OPT_SIGNEDNESS = 1
OPT_DEFAULT_CHARSET = 2
#: Table_map flag ``TM_BIT_LEN_EXACT_F``, set by every 5.1+ server.
TM_BIT_LEN_EXACT_F = 0x0001


@dataclass(frozen=True, slots=True)
class Column:
    """One column of a generated table.

    Attributes:
        name: column name (documentation only: MINIMAL row metadata does not carry names).
        type_code: ``enum_field_types`` code (LONG, LONGLONG or VARCHAR here).
        max_bytes: VARCHAR capacity in bytes (chars × 4 for utf8mb4); 0 for integers.
        nullable: whether the column accepts NULL (its bit in the Table_map null bitmap).
        min_len: shortest generated VARCHAR value in bytes; ``max_len`` the longest.
    """

    name: str
    type_code: int
    max_bytes: int = 0
    nullable: bool = False
    min_len: int = 0
    max_len: int = 0

    @property
    def metadata(self) -> bytes:
        """Table_map per-column metadata: VARCHAR → u16 max length in bytes; integers → none."""
        return struct.pack("<H", self.max_bytes) if self.type_code == MYSQL_TYPE_VARCHAR else b""


@dataclass(frozen=True, slots=True)
class TableDef:
    """A generated table: ``database.table`` and its columns (the first column is the primary key)."""

    database: str
    table: str
    columns: tuple[Column, ...]


def _sbtest(n: int) -> TableDef:
    # sysbench's oltp table (CHAR(120)/CHAR(60) written as VARCHAR to keep the row format simple).
    return TableDef(
        "sbtest",
        f"sbtest{n}",
        (
            Column("id", MYSQL_TYPE_LONG),
            Column("k", MYSQL_TYPE_LONG),
            Column("c", MYSQL_TYPE_VARCHAR, 480, min_len=119, max_len=119),
            Column("pad", MYSQL_TYPE_VARCHAR, 240, min_len=59, max_len=59),
        ),
    )


#: The tables every generated host writes to.
TABLES: tuple[TableDef, ...] = (
    _sbtest(1),
    _sbtest(2),
    _sbtest(3),
    _sbtest(4),
    TableDef(
        "app",
        "events",
        (
            Column("id", MYSQL_TYPE_LONGLONG),
            Column("user_id", MYSQL_TYPE_LONG),
            Column("kind", MYSQL_TYPE_VARCHAR, 128, min_len=4, max_len=24),
            Column("payload", MYSQL_TYPE_VARCHAR, 8000, nullable=True, min_len=40, max_len=1400),
        ),
    ),
)

_ALPHABET = b"abcdefghijklmnopqrstuvwxyz0123456789-"


def _value(col: Column, rng: random.Random) -> int | bytes | None:
    """One column value drawn from ``rng`` (an int, or VARCHAR bytes), or ``None`` for NULL."""
    if col.nullable and rng.random() < 0.05:
        return None
    if col.type_code == MYSQL_TYPE_LONG:
        return rng.randrange(1, 10_000_000)
    if col.type_code == MYSQL_TYPE_LONGLONG:
        return rng.randrange(1, 1 << 62)
    n = rng.randint(col.min_len, col.max_len)
    text = bytes(rng.choice(_ALPHABET) for _ in range(min(n, 64)))
    return (text * (n // max(len(text), 1) + 1))[:n]


def _specs(table: TableDef) -> list[ColumnSpec]:
    """The row-image codec's view of ``table``'s columns (every integer signed)."""
    return [ColumnSpec(c.type_code, c.metadata) for c in table.columns]


def _row_image(table: TableDef, rng: random.Random) -> bytes:
    """A full row image (:func:`gtidkit.binlog.row_image.encode_row`) with values drawn from ``rng``."""
    return encode_row(_specs(table), [_value(c, rng) for c in table.columns])


def _update_image(table: TableDef, rng: random.Random) -> bytes:
    """Before and after images of one updated row: same primary key, one non-key column changed (sysbench's
    ``UPDATE ... SET k=k+1`` / ``SET c=?``)."""
    before = [_value(c, rng) for c in table.columns]
    after = list(before)
    i = rng.randrange(1, len(table.columns))
    after[i] = _value(table.columns[i], rng)
    specs = _specs(table)
    return encode_row(specs, before) + encode_row(specs, after)


def _tlv(kind: int, value: bytes) -> bytes:
    """One Table_map optional-metadata field: type, packed length, value."""
    w = Writer()
    w.u8(kind)
    w.packed_int(len(value))
    w.bytes(value)
    return w.getvalue()


def _table_map(table: TableDef, table_id: int) -> TableMapEvent:
    """The Table_map_event for ``table`` under ``table_id`` (MINIMAL optional metadata: signedness, charset)."""
    cols = table.columns
    null_bits = sum(1 << i for i, c in enumerate(cols) if c.nullable)
    numeric = [c for c in cols if c.type_code in (MYSQL_TYPE_LONG, MYSQL_TYPE_LONGLONG)]
    sign_bytes = bytes((len(numeric) + 7) // 8)  # every integer column is signed: all bits clear
    optional = _tlv(OPT_SIGNEDNESS, sign_bytes) + _tlv(OPT_DEFAULT_CHARSET, bytes([UTF8MB4_0900_AI_CI]))
    return TableMapEvent(
        table_id=table_id,
        flags=TM_BIT_LEN_EXACT_F,
        database=table.database,
        table=table.table,
        column_types=bytes(c.type_code for c in cols),
        metadata=b"".join(c.metadata for c in cols),
        null_bitmap=null_bits.to_bytes((len(cols) + 7) // 8, "little"),
        optional_metadata=optional,
    )


def _rows_events(
    type_code: EventType, table: TableDef, table_id: int, images: list[bytes], update: bool
) -> list[RowsEvent]:
    """Rows events for ``images`` (one image per row; before+after concatenated for updates), split like MySQL
    at :data:`ROW_EVENT_MAX_SIZE` by :func:`gtidkit.binlog.row_image.rows_events`; only the last carries
    ``STMT_END_F``."""
    return rows_events(type_code, table_id, len(table.columns), images, max_size=ROW_EVENT_MAX_SIZE)


# ---------------------------------------------------------------------------------------------------------
# Query events (status variables copied in shape from real 8.0 binlogs)
# ---------------------------------------------------------------------------------------------------------

# Q_FLAGS2_CODE(0) u32 · Q_SQL_MODE_CODE(1) u64 · Q_CATALOG_NZ_CODE(6) "std" · Q_CHARSET_CODE(4) 3×u16 ·
# Q_DEFAULT_COLLATION_FOR_UTF8MB4(18) u16: the status block of a BEGIN written by 8.0.28 (fixture bytes).
_SQL_MODE_80 = 0x45A00020  # ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,... (8.0 default)
_STATUS_COMMON = (
    b"\x00"
    + struct.pack("<I", 0)
    + b"\x01"
    + struct.pack("<Q", _SQL_MODE_80)
    + b"\x06\x03std"
    + b"\x04"
    + struct.pack("<HHH", UTF8MB4_0900_AI_CI, UTF8MB4_0900_AI_CI, UTF8MB4_0900_AI_CI)
)
_STATUS_BEGIN = _STATUS_COMMON + b"\x12" + struct.pack("<H", UTF8MB4_0900_AI_CI)


def _status_ddl(database: str, xid: int) -> bytes:
    # + Q_UPDATED_DB_NAMES(12) · Q_DDL_LOGGED_WITH_XID(17) u64 · collation(18) · Q_SQL_REQUIRE_PRIMARY_KEY(19) u8.
    return (
        _STATUS_COMMON
        + b"\x0c\x01"
        + database.encode()
        + b"\x00"
        + b"\x11"
        + struct.pack("<Q", xid)
        + b"\x12"
        + struct.pack("<H", UTF8MB4_0900_AI_CI)
        + b"\x13\x00"
    )


def _begin(thread_id: int, database: str) -> QueryEvent:
    return QueryEvent(
        thread_id=thread_id,
        exec_time=0,
        error_code=0,
        status_vars=_STATUS_BEGIN,
        database=database,
        query="BEGIN",
    )


def _ddl(thread_id: int, database: str, statement: str, xid: int) -> QueryEvent:
    return QueryEvent(
        thread_id=thread_id,
        exec_time=0,
        error_code=0,
        status_vars=_status_ddl(database, xid),
        database=database,
        query=statement,
    )


# ---------------------------------------------------------------------------------------------------------
# Transaction shapes
# ---------------------------------------------------------------------------------------------------------

#: Transaction kinds and their weights in the mix (sysbench write-only dominates, like a typical OLTP fleet).
KIND_WEIGHTS: dict[str, int] = {
    "oltp": 55,
    "update": 20,
    "insert_batch": 10,
    "delete": 8,
    "single_insert": 6,
    "ddl": 1,
}
KINDS = tuple(KIND_WEIGHTS)
_KIND_CUM = [sum(list(KIND_WEIGHTS.values())[: i + 1]) for i in range(len(KIND_WEIGHTS))]


def _pick_kind(rng: random.Random) -> str:
    return rng.choices(KINDS, cum_weights=_KIND_CUM)[0]


@dataclass(slots=True)
class HostTables:
    """Per-host table ids (``table_id`` is a per-server counter, so a replica uses its own ids)."""

    base: int

    def table_id(self, index: int) -> int:
        """The ``table_id`` of ``TABLES[index]`` on this host."""
        return self.base + index


def _body_events(
    kind: str, rng: random.Random, tables: HostTables, thread_id: int, xid: int
) -> list[EventSpec]:
    """The events after the Gtid event for one transaction of ``kind`` (content drawn from ``rng``)."""
    if kind == "ddl":
        n = rng.randrange(1, 5)
        statement = rng.choice(
            [
                f"ALTER TABLE `sbtest{n}` ADD INDEX `k_{rng.randrange(1000)}` (`k`)",
                f"CREATE TABLE IF NOT EXISTS `audit_{rng.randrange(10000)}` (`id` int NOT NULL, PRIMARY KEY (`id`))",
                f"ANALYZE TABLE `sbtest{n}`",
                f"OPTIMIZE TABLE `sbtest{n}`",
            ]
        )
        return [_ddl(thread_id, "sbtest", statement, xid)]
    events: list[EventSpec] = []
    if kind == "insert_batch":
        table_index = 4
        table = TABLES[table_index]
        events.append(_begin(thread_id, table.database))
        images = [_row_image(table, rng) for _ in range(rng.randint(5, 40))]
        events.append(_table_map(table, tables.table_id(table_index)))
        events += _rows_events(EventType.WRITE_ROWS_EVENT, table, tables.table_id(table_index), images, False)
    else:
        table_index = rng.randrange(4)
        table = TABLES[table_index]
        tid = tables.table_id(table_index)
        events.append(_begin(thread_id, table.database))
        steps = {
            "oltp": ("u", "u", "d", "w"),
            "update": ("u",),
            "delete": ("d",),
            "single_insert": ("w",),
        }[kind]
        for step in steps:
            events.append(_table_map(table, tid))
            if step == "u":
                img = _update_image(table, rng)
                events += _rows_events(EventType.UPDATE_ROWS_EVENT, table, tid, [img], True)
            elif step == "d":
                events += _rows_events(
                    EventType.DELETE_ROWS_EVENT, table, tid, [_row_image(table, rng)], False
                )
            else:
                events += _rows_events(
                    EventType.WRITE_ROWS_EVENT, table, tid, [_row_image(table, rng)], False
                )
    events.append(XidEvent(xid=xid))
    return events


def _server_uuid(rng: random.Random) -> uuid.UUID:
    """A version-1 UUID drawn from ``rng`` (servers generate time-based UUIDs for ``auto.cnf``)."""
    return uuid.UUID(int=rng.getrandbits(128), version=1)


def file_name(index: int, basename: str = BINLOG_BASENAME) -> str:
    """``binlog.000001`` for index 1 (MySQL's six-digit extension)."""
    return f"{basename}.{index:06d}"


class _LogicalClock:
    """Commit groups relative to a file: ``sequence_number`` counts transactions in the file from 1; every
    transaction of a group shares ``last_committed`` = the last sequence_number committed before the group.
    DDL is isolated (its own group, and the next group depends on it), as MySQL serialises DDL."""

    def __init__(self, rng: random.Random, mean_group: float) -> None:
        self.rng = rng
        self.mean_group = mean_group
        self.reset()

    def reset(self) -> None:
        self.seq = 0
        self.group_lc = 0
        self.left_in_group = 0

    def next(self, isolated: bool = False) -> tuple[int, int]:
        if self.left_in_group <= 0 or isolated:
            self.group_lc = self.seq
            size = 1 if isolated else max(1, int(self.rng.expovariate(1 / self.mean_group)) + 1)
            self.left_in_group = size
        self.seq += 1
        self.left_in_group -= 1
        lc = self.group_lc
        if isolated:
            self.left_in_group = 0
        return lc, self.seq


# ---------------------------------------------------------------------------------------------------------
# Manifests
# ---------------------------------------------------------------------------------------------------------


@dataclass(slots=True)
class FileInfo:
    """What the generator wrote into one binlog file (bookkeeping; tests check it against the reader)."""

    name: str
    path: str
    size: int = 0
    previous_gtids: str = ""
    gtids: str = ""
    transactions: int = 0
    anonymous_transactions: int = 0
    events: int = 0
    first_gtid: str | None = None
    last_gtid: str | None = None
    ends_with: str | None = None
    in_use: bool = True


@dataclass(slots=True)
class HostInfo:
    """One generated host: identity, role, its files, and its expected GTID state (WL#6559 §5 from binlogs)."""

    name: str
    server_uuid: str
    server_id: int
    role: str
    source: str | None
    directory: str
    files: list[FileInfo] = field(default_factory=list)
    gtid_executed: str = ""
    gtid_purged: str = ""
    transactions: int = 0


@dataclass(slots=True)
class FleetManifest:
    """``manifest.json`` of a generated fleet or corpus.

    Attributes:
        kind: ``"fleet"`` or ``"corpus"``.
        seed: the seed; the same seed and options give byte-identical files.
        server_version: the FDE server version of every file.
        hosts: one :class:`HostInfo` per host (sub-directory).
        anomalies: the anomalies written on purpose, each a dict with ``type`` (``errant_gtid``, ``gno_gap``,
            ``previous_gtids_chain_break``, ``anonymous_in_gtid_mode_on``), ``host``, ``file``, ``pos`` (offset
            of the transaction or event that shows it) and type-specific keys (see :func:`generate_fleet`).
        topology: replica host name → source host name.
        total_bytes: bytes of all binlog files.
    """

    kind: str
    seed: int
    server_version: str
    hosts: list[HostInfo]
    anomalies: list[dict]
    topology: dict[str, str]
    total_bytes: int = 0
    format: int = MANIFEST_FORMAT
    generator: str = "gtidkit.generate"

    def to_json(self) -> str:
        """The manifest as indented JSON text."""
        return json.dumps(asdict(self), indent=2, sort_keys=False) + "\n"

    def host(self, name: str) -> HostInfo:
        """The host called ``name``. Raises ``KeyError`` if absent."""
        for h in self.hosts:
            if h.name == name:
                return h
        raise KeyError(name)

    def anomalies_of(self, type_: str) -> list[dict]:
        """The expected anomalies of one ``type``."""
        return [a for a in self.anomalies if a["type"] == type_]

    def write(self, out_dir: Path) -> None:
        """Write ``manifest.json`` and ``topology.json`` into ``out_dir``."""
        (out_dir / MANIFEST_NAME).write_text(self.to_json())
        (out_dir / TOPOLOGY_NAME).write_text(json.dumps(self.topology, indent=2, sort_keys=True) + "\n")


#: ``generator`` values a manifest may carry: this package's name, and its name before it left ``gtidkit.binlog``
#: (manifests of corpora generated earlier stay readable).
_GENERATOR_NAMES = ("gtidkit.generate", "gtidkit.binlog.generate")


def load_manifest(path: str | Path) -> FleetManifest:
    """Read a ``manifest.json`` (or the directory holding it) back into a :class:`FleetManifest`.

    Raises:
        OSError: the file cannot be read.
        ValueError: it is not a gtidkit generator manifest of a known format.
    """
    p = Path(path)
    if p.is_dir():
        p = p / MANIFEST_NAME
    data = json.loads(p.read_text())
    if data.get("generator") not in _GENERATOR_NAMES or data.get("format") != MANIFEST_FORMAT:
        raise ValueError(f"{p}: not a gtidkit generator manifest (format {MANIFEST_FORMAT})")
    hosts = [HostInfo(**{**h, "files": [FileInfo(**f) for f in h["files"]]}) for h in data.pop("hosts")]
    return FleetManifest(hosts=hosts, **data)


class OutputNotEmptyError(FileExistsError):
    """The output directory already holds files.

    Args:
        path: the directory.
        replaceable: it holds a generator manifest, so ``overwrite`` would replace it (without one it is never
            deleted).
    """

    def __init__(self, path: Path, *, replaceable: bool) -> None:
        why = (
            "is not empty"
            if replaceable
            else f"is not empty and holds no {MANIFEST_NAME}: refusing to delete it"
        )
        super().__init__(f"{path} {why}")
        self.path = path
        self.replaceable = replaceable


def _prepare_out_dir(out_dir: Path, overwrite: bool) -> None:
    if out_dir.exists() and any(out_dir.iterdir()):
        replaceable = (out_dir / MANIFEST_NAME).exists()
        if not overwrite or not replaceable:
            raise OutputNotEmptyError(out_dir, replaceable=replaceable)
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)


# ---------------------------------------------------------------------------------------------------------
# One host's binlog series (rotation, Previous_gtids chain, logical clock, bookkeeping)
# ---------------------------------------------------------------------------------------------------------


class _HostLog:
    """Writes one host's binlog files through :class:`BinlogWriter`, rotating at ``max_binlog_size`` like
    ``MYSQL_BIN_LOG::rotate`` (after the transaction that crossed the limit; the next file opens at once, and its
    Previous_gtids is the host's ``gtid_executed`` at that moment)."""

    def __init__(
        self,
        out_dir: Path,
        info: HostInfo,
        *,
        server_version: str,
        max_binlog_size: int,
        rng: random.Random,
        previous_gtids: GtidSet,
        start_ts: int,
        mean_group: float,
    ) -> None:
        self.out_dir = out_dir
        self.info = info
        self.server_version = server_version
        self.max_binlog_size = max_binlog_size
        self.rng = rng
        self.executed = previous_gtids
        self.clock = _LogicalClock(rng, mean_group)
        self.xid = rng.randrange(10, 5000)
        self.tables = HostTables(base=rng.randrange(80, 400))
        self.thread_id = rng.randrange(8, 60)
        self.file_gtids = GtidSet()
        self.writer: BinlogWriter | None = None
        self.file: FileInfo | None = None
        self.break_at_file: int | None = None
        self.anomalies: list[dict] = []
        (out_dir / info.directory).mkdir(parents=True, exist_ok=True)
        self._open(start_ts, first=True)

    def _open(self, ts: int, first: bool = False) -> None:
        index = len(self.info.files) + 1
        name = file_name(index)
        previous = self.executed
        if self.break_at_file == index and self.file is not None and self.file.last_gtid is not None:
            # The chain break: this file's Previous_gtids forgets the last GTID of the previous file (as after a
            # lost or hand-edited binlog); the host carries on from the damaged set, so the chain breaks once.
            lost = GtidSet.from_gtids([Gtid.parse(self.file.last_gtid)])
            previous = self.executed - lost
            self.anomalies.append(
                {
                    "type": "previous_gtids_chain_break",
                    "host": self.info.name,
                    "file": name,
                    "pos": None,  # set below: the offset of the Previous_gtids event
                    "previous_file": self.file.name,
                    "expected": str(self.executed),
                    "found": str(previous),
                    "missing": str(lost),
                }
            )
            self.executed = previous
        rel = f"{self.info.directory}/{name}"
        self.writer = BinlogWriter.create(
            self.out_dir / rel,
            server_id=self.info.server_id,
            server_version=self.server_version,
            previous_gtids=previous,
            create_timestamp=ts if first else 0,
            timestamp=ts,
        )
        if self.anomalies and self.anomalies[-1]["pos"] is None:
            self.anomalies[-1]["pos"] = self.writer.previous_gtids_pos
        self.file = FileInfo(name=name, path=rel, previous_gtids=str(previous), events=2)
        self.info.files.append(self.file)
        self.file_gtids = GtidSet()
        self.clock.reset()

    def next_xid(self) -> int:
        self.xid += 1
        return self.xid

    def write(
        self,
        gtid: Gtid | None,
        events: list[EventSpec],
        *,
        commit_us: int,
        original_us: int | None,
        server_id: int,
        isolated: bool,
    ) -> tuple[str, int, int]:
        """Write one transaction; returns ``(file name, begin, end)`` and rotates when the file is full."""
        assert self.writer is not None and self.file is not None
        lc, seq = self.clock.next(isolated)
        begin, end = self.writer.write_transaction(
            gtid,
            events,
            last_committed=lc,
            sequence_number=seq,
            immediate_commit_timestamp=commit_us,
            original_commit_timestamp=original_us,
            server_id=server_id,
            timestamp=(original_us if original_us is not None else commit_us) // 1_000_000,
        )
        f = self.file
        f.transactions += 1
        f.events += 1 + len(events)
        self.info.transactions += 1
        if gtid is None:
            f.anonymous_transactions += 1
        else:
            self.executed = self.executed.add(gtid)
            self.file_gtids = self.file_gtids.add(gtid)
            f.gtids = str(self.file_gtids)
            f.first_gtid = f.first_gtid or str(gtid)
            f.last_gtid = str(gtid)
        name = f.name
        if end >= self.max_binlog_size:
            self.rotate(commit_us // 1_000_000)
        return name, begin, end

    def rotate(self, ts: int) -> None:
        assert self.writer is not None and self.file is not None
        self.file.size = self.writer.rotate(file_name(len(self.info.files) + 1), timestamp=ts)
        self.file.events += 1
        self.file.ends_with = "ROTATE"
        self.file.in_use = False
        self._open(ts)

    def finish(self, ts: int, *, stop: bool) -> None:
        """Close the last file: ``stop=True`` = clean shutdown (Stop event, in-use flag cleared); else the server is
        still running (no Stop, in-use flag left set)."""
        assert self.writer is not None and self.file is not None
        self.file.size = self.writer.close(stop=stop, in_use=not stop, timestamp=ts)
        if stop:
            self.file.events += 1
            self.file.ends_with = "STOP"
            self.file.in_use = False
        self.writer = None
        self.info.gtid_executed = str(self.executed)
        self.info.gtid_purged = self.info.files[0].previous_gtids


# ---------------------------------------------------------------------------------------------------------
# The fleet
# ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Planned:
    """One transaction of the source's history: what it does (``kind`` and the seed of its contents)."""

    index: int
    kind: str
    content_seed: int
    gno: int | None  # None = anonymous
    commit_us: int
    thread_id: int


def generate_fleet(
    out_dir: str | Path,
    *,
    seed: int = 1,
    replicas: int = 2,
    transactions: int = 400,
    max_binlog_size: int = 256 * 1024,
    server_version: str = DEFAULT_SERVER_VERSION,
    purged_gnos: int = 1000,
    chain_break: bool = True,
    anonymous: bool = True,
    duplicate: bool = False,
    start_us: int = DEFAULT_START_US,
    overwrite: bool = False,
) -> FleetManifest:
    """Write a small fleet: one source and ``replicas`` replicas, each a sub-directory of binlogs, with known
    anomalies, plus ``manifest.json`` and ``topology.json``.

    The story (all of it follows from ``seed``): the source (``source``, server_id 1) commits ``transactions``
    transactions of a sysbench-like OLTP mix with occasional DDL; its history before the first file is
    ``source_uuid:1-purged_gnos`` (the first file's Previous_gtids, i.e. purged binlogs). Replicas
    (``replica1``..., server_id 2...) apply every source transaction with ``log_replica_updates=ON``: same GTID and
    header ``server_id`` and ``original_commit_timestamp``, a later ``immediate_commit_timestamp``, their own Xid,
    table ids and logical clock; replica *k* lags ``2*(k-1)`` transactions behind. Files rotate at
    ``max_binlog_size`` bytes; ``source`` and ``replica1`` are still running (last file in use, no Stop), the other
    replicas were shut down cleanly (Stop).

    Anomalies written (each listed in ``manifest.anomalies`` with ``host``, ``file`` = the binlog's base name in
    the host's directory, and ``pos`` = byte offset of the transaction's Gtid/Anonymous_gtid event, or of the
    Previous_gtids event for a chain break):

    * ``gno_gap`` (every host): the source's GNO sequence skips one number at 40 % of the history
      (``missing`` = that GTID; ``pos`` = the transaction after the hole; ``after``/``before`` = the GTIDs around it).
    * ``errant_gtid`` (``replica1``, if ``replicas >= 1``): after 60 % of the history a local write on the replica commits with the
      replica's own server_uuid (``gtid`` = ``replica_uuid:1``, ``source`` = the replica's source host).
    * ``anonymous_in_gtid_mode_on`` (``source``, if ``anonymous``): an Anonymous_gtid transaction at 75 % of the
      history, between GTID transactions; replicas do not have it.
    * ``previous_gtids_chain_break`` (last replica, if ``chain_break`` and ``replicas >= 1``): its second file's
      Previous_gtids lacks the last GTID of its first file (``expected``/``found``/``missing``); the host then
      carries the damaged set forward, so its ``gtid_executed`` lacks that GTID too.
    * ``duplicate_gtid`` (``replica1``, only if ``duplicate``): at 50 % of the history the replica applies the
      transaction it applied three transactions earlier once more, same GTID (``gtid``; ``pos`` = the second
      copy, ``first_file``/``first_pos`` = the first).

    Args:
        out_dir: directory to create (must be empty or absent unless ``overwrite``).
        seed: the seed.
        replicas: number of replicas (0..9).
        transactions: source transactions to write (>= 20).
        max_binlog_size: rotation threshold in bytes (MySQL rotates after the transaction that reaches it).
        server_version: FDE server version of every file (8.0 layout expected).
        purged_gnos: GNOs ``1..purged_gnos`` of the source are in the first Previous_gtids (0 = empty).
        chain_break: write the Previous_gtids chain break.
        anonymous: write the anonymous transaction.
        duplicate: write the duplicate GTID (off by default).
        start_us: commit time of the history's start, µs since the epoch.
        overwrite: replace an existing generated directory (one holding a ``manifest.json``).

    Returns:
        The manifest (also written to ``out_dir/manifest.json``).

    Raises:
        OutputNotEmptyError: ``out_dir`` is not empty and ``overwrite`` is false (or it holds no manifest).
        ValueError: an argument out of range.

    Examples:
        >>> m = generate_fleet("fleet", seed=7)  # doctest: +SKIP
        >>> [a["type"] for a in m.anomalies_of("errant_gtid")], m.topology  # doctest: +SKIP
        (['errant_gtid'], {'replica1': 'source', 'replica2': 'source'})
    """
    if transactions < 20:
        raise ValueError(f"transactions must be >= 20, got {transactions}")
    if not 0 <= replicas <= 9:
        raise ValueError(f"replicas must be 0..9, got {replicas}")
    out = Path(out_dir)
    _prepare_out_dir(out, overwrite)
    rng = random.Random(seed)

    source = HostInfo("source", str(_server_uuid(rng)), 1, "source", None, "source")
    hosts = [source] + [
        HostInfo(f"replica{k}", str(_server_uuid(rng)), 1 + k, "replica", "source", f"replica{k}")
        for k in range(1, replicas + 1)
    ]
    source_sid = uuid.UUID(source.server_uuid)
    purged = GtidSet.from_intervals([(source_sid, "", 1, purged_gnos)]) if purged_gnos > 0 else GtidSet()

    # --- the source's history --------------------------------------------------------------------------
    gap_index = int(transactions * 0.4)
    errant_after = int(transactions * 0.6)
    duplicate_after = int(transactions * 0.5) if duplicate else -1
    anon_index = int(transactions * 0.75) if anonymous else -1
    plan: list[_Planned] = []
    gno = purged_gnos
    t = start_us
    missing_gno = 0
    for i in range(transactions):
        t += int(rng.expovariate(1 / 450_000)) + 40  # ~2 commits/s: a few minutes of history
        if i == gap_index:
            gno += 1
            missing_gno = gno
        kind = _pick_kind(rng)
        if i == anon_index:
            plan.append(_Planned(i, "update", rng.getrandbits(64), None, t, rng.randrange(8, 200)))
            t += int(rng.expovariate(1 / 450_000)) + 40
        gno += 1
        plan.append(_Planned(i, kind, rng.getrandbits(64), gno, t, rng.randrange(8, 200)))

    anomalies: list[dict] = []
    start_ts = start_us // 1_000_000
    logs: list[_HostLog] = []
    for k, host in enumerate(hosts):
        log = _HostLog(
            out,
            host,
            server_version=server_version,
            max_binlog_size=max_binlog_size,
            rng=random.Random(f"{seed}/{host.name}"),
            previous_gtids=purged,
            start_ts=start_ts,
            mean_group=2.0 if k == 0 else 1.5,
        )
        if chain_break and replicas >= 1 and k == len(hosts) - 1:
            log.break_at_file = 2
        logs.append(log)

    def body(log: _HostLog, p: _Planned) -> list[EventSpec]:
        return _body_events(p.kind, random.Random(p.content_seed), log.tables, p.thread_id, log.next_xid())

    # Source.
    src = logs[0]
    prev_gtid = None
    for p in plan:
        gtid = None if p.gno is None else Gtid(source_sid, p.gno)
        name, begin, _end = src.write(
            gtid,
            body(src, p),
            commit_us=p.commit_us,
            original_us=None,
            server_id=source.server_id,
            isolated=p.kind == "ddl",
        )
        if gtid is None:
            anomalies.append(
                {"type": "anonymous_in_gtid_mode_on", "host": source.name, "file": name, "pos": begin}
            )
        elif p.gno == missing_gno + 1:
            anomalies.append(_gap(source.name, source_sid, missing_gno, name, begin, prev_gtid, gtid))
        if gtid is not None:
            prev_gtid = gtid
    src.finish(plan[-1].commit_us // 1_000_000 + 1, stop=False)

    # Replicas: every GTID transaction of the source (not the anonymous one), replica k lagging 2*(k-1) behind.
    replicated = [p for p in plan if p.gno is not None]
    for k in range(1, len(hosts)):
        host, log = hosts[k], logs[k]
        applied = replicated[: len(replicated) - 2 * (k - 1)]
        imm = 0
        prev_gtid = None
        positions: dict[int, tuple[str, int]] = {}
        for p in applied:
            imm = max(imm + 1, p.commit_us + int(log.rng.expovariate(1 / 1500)) + 200)
            gtid = Gtid(source_sid, p.gno)  # type: ignore[arg-type]
            name, begin, _end = log.write(
                gtid,
                body(log, p),
                commit_us=imm,
                original_us=p.commit_us,
                server_id=source.server_id,
                isolated=p.kind == "ddl",
            )
            if p.gno == missing_gno + 1:
                anomalies.append(_gap(host.name, source_sid, missing_gno, name, begin, prev_gtid, gtid))
            prev_gtid = gtid
            positions[p.index] = (name, begin)
            if k == 1 and p.index == duplicate_after:
                # The relay log re-applied after a crash without GTID skipping: a GTID committed twice.
                again = next(q for q in reversed(applied) if q.index <= p.index - 3)
                imm += 500
                name, begin, _end = log.write(
                    Gtid(source_sid, again.gno),  # type: ignore[arg-type]
                    body(log, again),
                    commit_us=imm,
                    original_us=again.commit_us,
                    server_id=source.server_id,
                    isolated=again.kind == "ddl",
                )
                first_file, first_pos = positions[again.index]
                anomalies.append(
                    {
                        "type": "duplicate_gtid",
                        "host": host.name,
                        "file": name,
                        "pos": begin,
                        "gtid": f"{source_sid}:{again.gno}",
                        "first_file": first_file,
                        "first_pos": first_pos,
                    }
                )
            if k == 1 and p.index == errant_after:
                # A DBA's hot fix on the replica: committed locally with the replica's own server_uuid.
                imm += 1000
                errant = Gtid(uuid.UUID(host.server_uuid), 1)
                local = _Planned(p.index, "update", log.rng.getrandbits(64), 1, imm, 9999)
                name, begin, _end = log.write(
                    errant,
                    body(log, local),
                    commit_us=imm,
                    original_us=None,
                    server_id=host.server_id,
                    isolated=False,
                )
                anomalies.append(
                    {
                        "type": "errant_gtid",
                        "host": host.name,
                        "file": name,
                        "pos": begin,
                        "gtid": str(errant),
                        "source": "source",
                    }
                )
        log.finish(imm // 1_000_000 + 1, stop=k >= 2)
        anomalies.extend(log.anomalies)

    manifest = FleetManifest(
        kind="fleet",
        seed=seed,
        server_version=server_version,
        hosts=hosts,
        anomalies=anomalies,
        topology={h.name: h.source for h in hosts if h.source},  # type: ignore[misc]
        total_bytes=sum(f.size for h in hosts for f in h.files),
    )
    manifest.write(out)
    return manifest


def _gap(
    host: str, sid: uuid.UUID, missing: int, file: str, pos: int, before: Gtid | None, after: Gtid
) -> dict:
    return {
        "type": "gno_gap",
        "host": host,
        "file": file,
        "pos": pos,
        "sid": str(sid),
        "missing": f"{sid}:{missing}",
        "before": str(before) if before else None,
        "after": str(after),
    }


# ---------------------------------------------------------------------------------------------------------
# The corpus: templates encoded once, then patched
# ---------------------------------------------------------------------------------------------------------

_I64 = struct.Struct("<q")
_2I64 = struct.Struct("<qq")
_U32 = struct.Struct("<I")
_U64 = struct.Struct("<Q")
# Body offsets inside an untagged 8.0 Gtid event (formats.md §2.1), counted from the event start.
_GNO_AT = EVENT_HEADER_LEN + 17
_CLOCK_AT = EVENT_HEADER_LEN + 26
_IMM_TS_AT = EVENT_HEADER_LEN + 42
_ORIG_TS_AT = _IMM_TS_AT + 7
_TS_FLAG = 1 << 55


@dataclass(slots=True)
class _Template:
    """One encoded transaction (encoded at offset 0) and where to patch it."""

    buf: bytearray
    events: list[tuple[int, int]]  # (offset in buf, size)
    xid_at: int | None  # offset of the Xid value, None for DDL
    isolated: bool

    @property
    def size(self) -> int:
        return len(self.buf)


def _make_templates(
    count: int,
    rng: random.Random,
    fde: FormatDescriptionEvent,
    *,
    sid: uuid.UUID,
    server_id: int,
    replica: bool,
    tables: HostTables,
) -> list[_Template]:
    out = []
    for i in range(count):
        kind = "ddl" if i == 0 else _pick_kind(rng)  # one DDL shape per host, the rest from the mix
        events = _body_events(kind, rng, tables, rng.randrange(8, 200), 1)
        imm = DEFAULT_START_US
        data, positions = encode_transaction(
            Gtid(sid, 1),
            events,
            fde,
            start_pos=0,
            server_id=server_id,
            timestamp=imm // 1_000_000,
            last_committed=0,
            sequence_number=1,
            immediate_commit_timestamp=imm,
            original_commit_timestamp=imm - 1000 if replica else None,
        )
        spans = [(b, e - b) for b, e in positions]
        xid_at = spans[-1][0] + EVENT_HEADER_LEN if isinstance(events[-1], XidEvent) else None
        out.append(_Template(bytearray(data), spans, xid_at, kind == "ddl"))
    return out


def _patch_and_emit(
    tpl: _Template,
    pos: int,
    *,
    gno: int,
    lc: int,
    seq: int,
    imm_us: int,
    orig_us: int | None,
    xid: int,
    crc: bool,
) -> bytearray:
    """Patch ``tpl`` in place for a transaction starting at file offset ``pos`` and return its buffer."""
    buf = tpl.buf
    _I64.pack_into(buf, _GNO_AT, gno)
    _2I64.pack_into(buf, _CLOCK_AT, lc, seq)
    if orig_us is None:
        buf[_IMM_TS_AT : _IMM_TS_AT + 7] = imm_us.to_bytes(7, "little")
    else:
        buf[_IMM_TS_AT : _IMM_TS_AT + 7] = (imm_us | _TS_FLAG).to_bytes(7, "little")
        buf[_ORIG_TS_AT : _ORIG_TS_AT + 7] = orig_us.to_bytes(7, "little")
    if tpl.xid_at is not None:
        _U64.pack_into(buf, tpl.xid_at, xid)
    ts = (orig_us if orig_us is not None else imm_us) // 1_000_000
    view = memoryview(buf)
    pack = _U32.pack_into
    for off, size in tpl.events:
        pack(buf, off, ts)
        end = off + size
        pack(buf, off + 13, pos + end)
        if crc:
            pack(buf, end - CHECKSUM_LEN, zlib.crc32(view[off : end - CHECKSUM_LEN]))
    view.release()
    return buf


def _corpus_hosts(n: int, rng: random.Random) -> list[HostInfo]:
    """Clusters of three (a source and two replicas) while at least three hosts remain, then lone sources."""
    hosts: list[HostInfo] = []
    i = 0
    while i < n:
        if n - i >= 3:
            src = f"db{i + 1:02d}"
            hosts.append(HostInfo(src, str(_server_uuid(rng)), i + 1, "source", None, src))
            for j in (1, 2):
                name = f"db{i + 1 + j:02d}"
                hosts.append(HostInfo(name, str(_server_uuid(rng)), i + 1 + j, "replica", src, name))
            i += 3
        else:
            name = f"db{i + 1:02d}"
            hosts.append(HostInfo(name, str(_server_uuid(rng)), i + 1, "source", None, name))
            i += 1
    return hosts


def _open_corpus_file(
    out: Path, host: HostInfo, sid: uuid.UUID, gno: int, ts: int, *, server_version: str, first: bool
) -> tuple[BinlogWriter, FileInfo]:
    """Create the host's next binlog; its Previous_gtids is ``sid:1-gno`` (the host's history so far)."""
    name = file_name(len(host.files) + 1)
    prev = GtidSet.from_intervals([(sid, "", 1, gno)]) if gno > 0 else GtidSet()
    writer = BinlogWriter.create(
        out / host.directory / name,
        server_id=host.server_id,
        server_version=server_version,
        previous_gtids=prev,
        create_timestamp=ts if first else 0,
        timestamp=ts,
        buffer_size=4 << 20,
    )
    info = FileInfo(name=name, path=f"{host.directory}/{name}", previous_gtids=str(prev), events=2)
    host.files.append(info)
    return writer, info


def _close_corpus_file(info: FileInfo, sid: uuid.UUID, first_gno: int, gno: int) -> None:
    if gno >= first_gno:
        info.gtids = str(GtidSet.from_intervals([(sid, "", first_gno, gno)]))
        info.first_gtid, info.last_gtid = f"{sid}:{first_gno}", f"{sid}:{gno}"


def _write_corpus_host(
    out: Path,
    host: HostInfo,
    source: HostInfo,
    budget: int,
    *,
    seed: int,
    max_binlog_size: int,
    server_version: str,
    templates_per_host: int,
    purged_gnos: int,
    start_us: int,
    progress: Callable[[int], None] | None,
) -> None:
    """Write one corpus host's files until they hold ``budget`` bytes (``source`` is the host itself for a
    source). The cluster's history (commit times, shapes) comes from one seeded stream, so a replica replays
    exactly its source's transactions, with its own commit times, Xids, table ids and logical clock."""
    sid = uuid.UUID(source.server_uuid)
    replica = host is not source
    hrng = random.Random(f"{seed}/{host.name}")
    srng = random.Random(f"{seed}/{source.name}/history")
    (out / host.directory).mkdir(parents=True, exist_ok=True)
    tables = HostTables(base=hrng.randrange(80, 400))
    gno = purged_gnos
    t = start_us
    imm = 0
    xid = hrng.randrange(10, 5000)
    clock = _LogicalClock(hrng, 1.5 if replica else 2.0)
    closed = 0  # bytes of this host's finished files
    pending = 0
    writer, finfo = _open_corpus_file(
        out, host, sid, gno, start_us // 1_000_000, server_version=server_version, first=True
    )
    templates = _make_templates(
        templates_per_host,
        random.Random(f"{seed}/{source.name}/shapes"),
        writer.fde,
        sid=sid,
        server_id=source.server_id,
        replica=replica,
        tables=tables,
    )
    crc = writer.fde.crc32
    first_gno = gno + 1
    pos = writer.position
    while closed + pos < budget:
        t += int(srng.expovariate(1 / 2500)) + 40
        tpl = templates[srng.randrange(len(templates))]
        gno += 1
        xid += 1
        if replica:
            imm = max(imm + 1, t + int(hrng.expovariate(1 / 1500)) + 200)
            orig: int | None = t
        else:
            imm, orig = t, None
        lc, seq = clock.next(tpl.isolated)
        buf = _patch_and_emit(tpl, pos, gno=gno, lc=lc, seq=seq, imm_us=imm, orig_us=orig, xid=xid, crc=crc)
        writer.write_raw(buf)
        pos += len(buf)
        finfo.transactions += 1
        finfo.events += len(tpl.events)
        host.transactions += 1
        if progress is not None:
            pending += len(buf)
            if pending >= 1 << 20:
                progress(pending)
                pending = 0
        if pos >= max_binlog_size:
            _close_corpus_file(finfo, sid, first_gno, gno)
            finfo.size = writer.rotate(file_name(len(host.files) + 1), timestamp=imm // 1_000_000)
            finfo.events += 1
            finfo.ends_with, finfo.in_use = "ROTATE", False
            closed += finfo.size
            writer, finfo = _open_corpus_file(
                out, host, sid, gno, imm // 1_000_000, server_version=server_version, first=False
            )
            clock.reset()
            first_gno = gno + 1
            pos = writer.position
    _close_corpus_file(finfo, sid, first_gno, gno)
    finfo.size = writer.close(stop=False, in_use=True)
    if progress is not None and pending:
        progress(pending)
    host.gtid_executed = str(GtidSet.from_intervals([(sid, "", 1, gno)])) if gno else ""
    host.gtid_purged = host.files[0].previous_gtids


def generate_corpus(
    out_dir: str | Path,
    total_bytes: int,
    hosts: int = 20,
    *,
    seed: int = 1,
    max_binlog_size: int = 64 * 1024 * 1024,
    server_version: str = DEFAULT_SERVER_VERSION,
    templates_per_host: int = 48,
    purged_gnos: int = 1000,
    start_us: int = DEFAULT_START_US,
    progress: Callable[[int], None] | None = None,
    overwrite: bool = False,
) -> FleetManifest:
    """Write a large realistic corpus of ``hosts`` hosts totalling about ``total_bytes`` bytes of binlogs.

    Hosts come in clusters (``db01`` source with replicas ``db02``/``db03``, and so on; leftovers are lone
    sources) sharing GTIDs as in :func:`generate_fleet`, without deliberate anomalies. Each host gets
    ``templates_per_host`` transaction shapes drawn from the OLTP mix and encoded once by the codecs; every
    transaction is a copy of one shape with GNO, logical clock, commit timestamps, header timestamps and
    ``log_pos``, Xid and the CRC32 of each event patched in place — the bytes are what MySQL would write for that
    transaction, and this runs at well over 50 MB/s. Files rotate at ``max_binlog_size``; the last file of each
    host is left in use (running servers).

    Args:
        out_dir: directory to create (must be empty or absent unless ``overwrite``).
        total_bytes: target size of all binlogs together, bytes (each host gets an equal share, +- one
            transaction and the rotation overheads).
        hosts: number of hosts (>= 1).
        seed: the seed (same seed and options → same bytes).
        max_binlog_size: rotation threshold in bytes.
        server_version: FDE server version.
        templates_per_host: distinct transaction shapes per host.
        purged_gnos: GNOs ``1..purged_gnos`` of each source are in its first Previous_gtids.
        start_us: commit time of the first transaction, µs since the epoch.
        progress: called with the number of bytes written since the previous call (about every MiB).
        overwrite: replace an existing generated directory.

    Returns:
        The manifest (``kind="corpus"``), also written to ``out_dir/manifest.json`` with ``topology.json``.

    Raises:
        OutputNotEmptyError: ``out_dir`` is not empty and ``overwrite`` is false.
        ValueError: an argument out of range.

    Examples:
        >>> generate_corpus("corpus", 10**9, 20, progress=print)  # doctest: +SKIP
    """
    if hosts < 1:
        raise ValueError(f"hosts must be >= 1, got {hosts}")
    if total_bytes < hosts * 4096:
        raise ValueError(f"total_bytes {total_bytes} is too small for {hosts} hosts (>= 4 KiB each)")
    out = Path(out_dir)
    _prepare_out_dir(out, overwrite)
    rng = random.Random(seed)
    infos = _corpus_hosts(hosts, rng)
    by_name = {h.name: h for h in infos}
    per_host = total_bytes // hosts

    for host in infos:
        source = by_name[host.source] if host.source else host
        _write_corpus_host(
            out,
            host,
            source,
            per_host,
            seed=seed,
            max_binlog_size=max_binlog_size,
            server_version=server_version,
            templates_per_host=templates_per_host,
            purged_gnos=purged_gnos,
            start_us=start_us,
            progress=progress,
        )

    manifest = FleetManifest(
        kind="corpus",
        seed=seed,
        server_version=server_version,
        hosts=infos,
        anomalies=[],
        topology={h.name: h.source for h in infos if h.source},  # type: ignore[misc]
        total_bytes=sum(f.size for h in infos for f in h.files),
    )
    manifest.write(out)
    return manifest
