"""Driver-side GTID state of a fleet: per-host sets, WL#6559 §5 formulas, chain checks, topology, errant sets.

Works on small collected rows (the compressed ``gtid_executed`` table, one row per file, per-file GTID
intervals), never on transactions, and does the set algebra with :class:`gtidkit.gtid.GtidSet`.

WL#6559 §5 / formats.md §5.5 (binlog_gtid_simple_recovery=ON): ``GTID_EXECUTED_BINLOG`` = Previous_gtids of
the newest binlog ∪ GTIDs in it; ``GTID_PURGED_BINLOG`` = Previous_gtids of the oldest binlog (the GTIDs no
longer in any binlog). A host whose files form several series (unrelated servers grouped together) gets the
union over its series.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

from gtidkit.gtid import GtidSet


def set_from_rows(rows: Iterable[Any]) -> GtidSet:
    """A GtidSet from rows with ``source_uuid``/``sid``, ``tag``, ``interval_start``, ``interval_end`` (inclusive)."""
    out = []
    for r in rows:
        d = r.asDict() if hasattr(r, "asDict") else dict(r)
        sid = d.get("source_uuid", d.get("sid"))
        out.append((sid, d.get("tag") or "", int(d["interval_start"]), int(d["interval_end"])))
    return GtidSet.from_intervals(out)


def sets_by(rows: Iterable[Any], *keys: str) -> dict[Any, GtidSet]:
    """Group interval rows by ``keys`` (one key → scalar dict key, several → tuple) into GtidSets."""
    groups: dict[Any, list] = defaultdict(list)
    for r in rows:
        d = r.asDict() if hasattr(r, "asDict") else dict(r)
        k = d[keys[0]] if len(keys) == 1 else tuple(d[x] for x in keys)
        groups[k].append(d)
    return {k: set_from_rows(v) for k, v in groups.items()}


@dataclass(frozen=True, slots=True)
class FileFacts:
    """The few ``files`` columns the driver-side checks need."""

    host: str
    file: str
    file_index: int
    series: str
    previous_gtids: GtidSet | None
    previous_gtids_pos: int | None
    status: str

    @classmethod
    def from_row(cls, row: Any) -> FileFacts:
        """From a ``files`` row (pyspark Row or dict)."""
        d = row.asDict(recursive=True) if hasattr(row, "asDict") else dict(row)
        prev = None
        if d.get("previous_gtids_intervals") is not None:
            prev = set_from_rows(d["previous_gtids_intervals"])
        return cls(
            d["host"],
            d["file"],
            int(d["file_index"]),
            d["series"],
            prev,
            d.get("previous_gtids_pos"),
            d.get("status") or "ok",
        )


def series_of(files: list[FileFacts]) -> dict[tuple[str, str], list[FileFacts]]:
    """Files grouped by (host, series), each list in file order."""
    out: dict[tuple[str, str], list[FileFacts]] = defaultdict(list)
    for f in sorted(files, key=lambda f: (f.host, f.file_index)):
        out[(f.host, f.series)].append(f)
    return out


def check_row(
    check: str, severity: str, host: str, file: str | None, offset: int | None, gtid: str | None, detail: str
) -> tuple:
    """A ``checks`` row (schemas.CHECKS order)."""
    return (check, severity, host, file, None if offset is None else int(offset), gtid, detail)


def chain_breaks(files: list[FileFacts], file_gtids: dict[tuple[str, str], GtidSet]) -> list[tuple]:
    """``chain_break`` rows: within a series, Previous_gtids(N+1) must equal Previous_gtids(N) ∪ GTIDs(N).

    Args:
        files: one :class:`FileFacts` per file.
        file_gtids: GTIDs contained in each file, keyed by (host, file).

    Returns:
        checks rows; offset = the Previous_gtids event of file N+1, gtid = the GTIDs that differ (missing ones,
        then unexpected ones), detail names both files. Files without a Previous_gtids event are skipped.
    """
    out = []
    for chain in series_of(files).values():
        for older, newer in pairwise(chain):
            if older.previous_gtids is None or newer.previous_gtids is None:
                continue
            expected = older.previous_gtids | file_gtids.get((older.host, older.file), GtidSet())
            actual = newer.previous_gtids
            if expected == actual:
                continue
            missing, extra = expected - actual, actual - expected
            parts = []
            if missing:
                parts.append(f"missing {missing}")
            if extra:
                parts.append(f"unexpected {extra}")
            detail = (
                f"Previous_gtids of {newer.file} is {actual or '(empty)'}; {older.file} ends at "
                f"{expected or '(empty)'} ({'; '.join(parts)})"
            )
            out.append(
                check_row(
                    "chain_break",
                    "error",
                    newer.host,
                    newer.file,
                    newer.previous_gtids_pos,
                    str(missing | extra),
                    detail,
                )
            )
    return out


def executed_and_purged(
    files: list[FileFacts], file_gtids: dict[tuple[str, str], GtidSet]
) -> dict[str, tuple[GtidSet, GtidSet]]:
    """GTID_EXECUTED_BINLOG and GTID_PURGED_BINLOG per host (WL#6559 §5 with binlog_gtid_simple_recovery=ON).

    Per series: executed = Previous_gtids(newest file) ∪ GTIDs in the newest file (what ``mysqld`` computes at
    start-up, reading only the newest binlog — so a broken chain propagates, as it does on a real server);
    purged = Previous_gtids(oldest file). A series whose newest file has no Previous_gtids event (pre-5.6) uses
    the union of its files' GTIDs. A host gets the union over its series.
    """
    out: dict[str, tuple[GtidSet, GtidSet]] = {}
    for (host, _series), chain in series_of(files).items():
        executed, purged = out.get(host, (GtidSet(), GtidSet()))
        newest = chain[-1]
        if newest.previous_gtids is not None:
            executed = executed | newest.previous_gtids | file_gtids.get((host, newest.file), GtidSet())
        else:
            for f in chain:
                executed = (
                    executed | (f.previous_gtids or GtidSet()) | file_gtids.get((host, f.file), GtidSet())
                )
        oldest_with_prev = next((f for f in chain if f.previous_gtids is not None), None)
        if oldest_with_prev is not None:
            purged = purged | oldest_with_prev.previous_gtids
        out[host] = (executed, purged)
    return out


def load_topology(path: str | Path) -> dict[str, list[str]]:
    """Read a topology file: JSON ``{"replica": "source"}`` or ``{"replica": ["source", ...]}``.

    Raises:
        ValueError: not JSON, or not one of those shapes (the message names the file).
    """
    p = Path(path)
    try:
        data = json.loads(p.read_text())
    except (OSError, ValueError) as err:
        raise ValueError(f"topology file {p}: {err}") from err
    if not isinstance(data, dict):
        raise ValueError(f'topology file {p}: expected {{"replica": "source"}}')  # noqa: TRY004 - documented
    out: dict[str, list[str]] = {}
    for replica, sources in data.items():
        if isinstance(sources, str):
            out[str(replica)] = [sources]
        elif isinstance(sources, list) and all(isinstance(s, str) for s in sources):
            out[str(replica)] = list(sources)
        elif sources is None:
            continue
        else:
            raise ValueError(
                f"topology file {p}: the source of {replica} must be a host name or a list of host names"
            )
    return out


def infer_server_uuids(local_counts: Iterable[Any]) -> dict[str, str]:
    """A host's server_uuid: the SID of most of its *locally originated* transactions.

    Args:
        local_counts: rows (host, sid, n) counting GTID transactions whose Gtid event's server_id equals the
            server_id in the FDE of the file holding them (MySQL keeps the originating server_id on replicated
            events, so only the host's own transactions match).
    """
    best: dict[str, tuple[int, str]] = {}
    for r in local_counts:
        d = r.asDict() if hasattr(r, "asDict") else dict(r)
        if d["sid"] is None or not d["n"]:
            continue
        cur = best.get(d["host"])
        if cur is None or (int(d["n"]), d["sid"]) > cur:
            best[d["host"]] = (int(d["n"]), d["sid"])
    return {h: sid for h, (_, sid) in best.items()}


def infer_topology(server_uuids: dict[str, str], sid_counts: Iterable[Any]) -> dict[str, list[str]]:
    """Replica → source(s), inferred from server UUIDs: H is a source of R when R holds more transactions
    originated by H's server_uuid than by its own (a replica's binlog is mostly its source's transactions).

    Args:
        server_uuids: host → inferred server_uuid (see :func:`infer_server_uuids`).
        sid_counts: rows (host, sid, n): GTID transactions per host and SID.
    """
    owner = {sid: host for host, sid in server_uuids.items()}
    per_host: dict[str, dict[str, int]] = defaultdict(dict)
    for r in sid_counts:
        d = r.asDict() if hasattr(r, "asDict") else dict(r)
        if d["sid"] is not None:
            per_host[d["host"]][d["sid"]] = int(d["n"])
    out: dict[str, list[str]] = {}
    for host, counts in per_host.items():
        own = counts.get(server_uuids.get(host, ""), 0)
        sources = sorted(
            owner[sid] for sid, n in counts.items() if sid in owner and owner[sid] != host and n > own
        )
        if sources:
            out[host] = sources
    return out


def errant_sets(executed: dict[str, GtidSet], topology: dict[str, list[str]]) -> dict[str, GtidSet]:
    """Errant GTIDs per replica: executed(replica) − ∪ executed(source) (GTID_SUBTRACT). Sources absent from
    the input are ignored; a replica with no known source is not checked."""
    out = {}
    for replica, sources in topology.items():
        known = [executed[s] for s in sources if s in executed]
        if replica not in executed or not known:
            continue
        errant = executed[replica] - GtidSet().union(*known)
        if errant:
            out[replica] = errant
    return out
