"""Parse ../shared/research/fixtures/binlogs/INDEX.md into expectations (nothing per file is hard-coded here).

INDEX.md's "Binlog files (verified)" table has one row per real binlog: file, origin, bytes, server version,
checksum, GTID events, Prev-GTIDs, event types and notes. Event-type abbreviations follow the rules stated at the
top of INDEX.md (FDE, GTID, ANONYMOUS_GTID, ..., ``100`` for a bare type code, ``MARIA_*`` for MariaDB types);
:func:`type_code_of_abbrev` maps them to codes through :class:`gtidkit.binlog.EventType` names.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from gtidkit.binlog import EventType


@dataclass(frozen=True)
class IndexRow:
    """One binlog row of INDEX.md."""

    file: str
    size: int
    server_version: str | None
    checksum: str
    gtid_events: str
    prev_gtids: str
    event_types: dict[int, int]
    notes: str

    @property
    def trailing(self) -> tuple[int, int] | None:
        """(bytes, offset) of a "PARSE: trailing N bytes at OFF" note."""
        m = re.search(r"PARSE: trailing (\d+) bytes at (\d+)", self.notes)
        return (int(m.group(1)), int(m.group(2))) if m else None

    @property
    def mariadb(self) -> bool:
        """The row describes a MariaDB binlog."""
        return bool(self.server_version and "MariaDB" in self.server_version) or any(
            code >= 160 for code in self.event_types
        )

    @property
    def in_use(self) -> bool:
        """The notes say the FDE IN_USE flag is set."""
        return "IN_USE flag set" in self.notes

    def gtid_counts(self) -> dict[int, int]:
        """Expected counts of Gtid (33), Anonymous_gtid (34) and Gtid_tagged (42) events."""
        counts = {
            EventType.GTID_LOG_EVENT: 0,
            EventType.ANONYMOUS_GTID_LOG_EVENT: 0,
            EventType.GTID_TAGGED_LOG_EVENT: 0,
        }
        m = re.search(r"\((\d+) Gtid(?:, (\d+) Gtid_tagged)?\)", self.gtid_events)
        if m:
            counts[EventType.GTID_LOG_EVENT] = int(m.group(1))
            counts[EventType.GTID_TAGGED_LOG_EVENT] = int(m.group(2) or 0)
        m = re.search(r"\((\d+) Anonymous_gtid\)", self.gtid_events)
        if m:
            counts[EventType.ANONYMOUS_GTID_LOG_EVENT] = int(m.group(1))
        return counts

    def gno_range(self) -> tuple[int, int, str] | None:
        """(first gno, last gno, sid hex) from "gno A..B sid HEX", if given."""
        m = re.search(r"gno (\d+)\.\.(\d+) sid ([0-9a-f]{32})", self.gtid_events)
        return (int(m.group(1)), int(m.group(2)), m.group(3)) if m else None


def type_code_of_abbrev(name: str) -> int:
    """INDEX.md's event abbreviation → type code (``FDE``, ``WRITE_ROWS_V2``, ``MARIA_GTID``, ``100`` …)."""
    if name.isdigit():
        return int(name)
    if name == "FDE":
        return EventType.FORMAT_DESCRIPTION_EVENT
    name = re.sub(r"^MARIA_", "MARIADB_", name)
    m = re.fullmatch(r"(.*)_V([12])", name)
    candidates = []
    if m:
        candidates.append(m.group(1) + ("_EVENT" if m.group(2) == "2" else "_EVENT_V1"))
    candidates += [name + "_EVENT", name + "_LOG_EVENT", name]
    for c in candidates:
        if c in EventType.__members__:
            return EventType[c]
    raise KeyError(f"INDEX.md event abbreviation {name!r} names no EventType")


@dataclass(frozen=True)
class GzCompanion:
    """A gzip companion row: "gzip; decompresses to a N-byte binlog, server V, ..., events {...}"."""

    file: str
    size: int
    server_version: str
    event_types: dict[int, int]


def parse_gz_companions(path: Path) -> list[GzCompanion]:
    """Rows of the companion table that describe a gzip-compressed binlog."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        m = re.search(r"decompresses to a (\d+)-byte binlog, server (\S+), .*events (\{.*\})", line)
        if not line.startswith("| `") or not m:
            continue
        types = {type_code_of_abbrev(k): v for k, v in ast.literal_eval(m.group(3)).items()}
        out.append(GzCompanion(_unquote(_cells(line)[0]), int(m.group(1)), m.group(2).rstrip(","), types))
    return out


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _unquote(cell: str) -> str:
    return cell.strip().strip("`")


def parse_index(path: Path) -> list[IndexRow]:
    """Every row of the "Binlog files (verified)" table."""
    rows: list[IndexRow] = []
    in_table = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            in_table = line.startswith("## Binlog files")
            continue
        if not in_table or not line.startswith("| `"):
            continue
        c = _cells(line)
        version = _unquote(c[3])
        types: dict[int, int] = {}
        for item in c[7].split():
            abbrev, _, n = item.partition("×")
            types[type_code_of_abbrev(abbrev)] = types.get(type_code_of_abbrev(abbrev), 0) + int(n)
        rows.append(
            IndexRow(
                file=_unquote(c[0]),
                size=int(c[2]),
                server_version=None if version == "None" else version,
                checksum=c[4],
                gtid_events=c[5],
                prev_gtids=c[6],
                event_types=types,
                notes=c[8],
            )
        )
    return rows
