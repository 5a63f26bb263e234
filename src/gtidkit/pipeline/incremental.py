"""Incremental runs: re-scan only the binlogs that are new or grew since the previous run into the same output.

The usual daily job sees yesterday's binlogs again, unchanged, plus a few new ones and the grown tail of the
file each server was still writing. A file of the previous run (its ``files`` table in the output) is matched
to the current listing by (host, file name) and compared by **size** and **Previous_gtids** (WL#7592: the set
a binlog starts with, written once at its head, so it identifies the file's place in the host's history):

* same size and same Previous_gtids → **unchanged**: its ``transactions`` and ``files`` rows are taken from the
  previous output (``file_index`` renumbered from the current listing);
* larger, same Previous_gtids → **grown** (the server appended to it): scanned again;
* smaller, or another Previous_gtids → **rewritten** (a new binlog under an old name, e.g. after
  ``RESET BINARY LOGS AND GTIDS``): scanned again and reported (check ``file_rewritten``, warning);
* in the previous output but no longer listed → **gone** (``PURGE BINARY LOGS``, rotation): dropped and
  reported (check ``file_gone``, info);
* not in the previous output → **new**: scanned.

Everything after the scan (gtid_executed, GTID_EXECUTED/GTID_PURGED, checks, report) is recomputed over the
merged rows, so the result equals a full run's on the current files (tests/pipeline/test_incremental.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gtidkit.pipeline.layout import FileSpec, Layout


@dataclass(slots=True)
class Plan:
    """What an incremental run does with each file.

    Attributes:
        scan: files to scan (new, grown, rewritten), in layout order.
        reuse: unchanged files whose rows come from the previous output.
        new, grown: (host, file) of files scanned for those reasons.
        rewritten: (host, file, reason) of files whose content is not the previous run's.
        gone: (host, file) of files of the previous run no longer present.
    """

    scan: list[FileSpec] = field(default_factory=list)
    reuse: list[FileSpec] = field(default_factory=list)
    new: list[tuple[str, str]] = field(default_factory=list)
    grown: list[tuple[str, str]] = field(default_factory=list)
    rewritten: list[tuple[str, str, str]] = field(default_factory=list)
    gone: list[tuple[str, str]] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        """Counts and names, for ``summary.json``."""
        return {
            "scanned": len(self.scan),
            "reused": len(self.reuse),
            "new": [list(k) for k in self.new],
            "grown": [list(k) for k in self.grown],
            "rewritten": [list(k) for k in self.rewritten],
            "gone": [list(k) for k in self.gone],
        }


def head_previous_gtids(spec: FileSpec, options: dict | None = None) -> str | None:
    """The Previous_gtids set (text) at the head of a binlog, or None when it has none or cannot be read.

    Reads only the first events (the FDE, then Previous_gtids in 5.6+ files) through ``BinlogStream``.
    """
    from gtidkit.binlog import NEED_DATA, BinlogStream, PreviousGtidsEvent
    from gtidkit.errors import BinlogDecodeError
    from gtidkit.pipeline import storage

    stream = BinlogStream(magic=True, verify_checksum=False, file=spec.uri or spec.path)
    try:
        with storage.open_input_stream(spec.uri or spec.path, options) as fh:
            for _ in range(64):  # an FDE and a Previous_gtids event: a few KB, rarely more than 256 KB
                ev = stream.next_event()
                if ev is NEED_DATA:
                    chunk = fh.read(64 << 10)
                    if not chunk:
                        return None
                    stream.feed(chunk)
                    continue
                if isinstance(ev.event, PreviousGtidsEvent):
                    return str(ev.event.gtids)
                if stream.fde_count and ev.header.type_code != 15:  # past the FDE, not Previous_gtids
                    return None
    except (BinlogDecodeError, OSError):
        return None
    return None


def make_plan(layout: Layout, previous: list[dict], options: dict | None = None) -> Plan:
    """Compare the current listing with the previous run's ``files`` rows.

    Args:
        layout: the current files.
        previous: rows of the previous ``files`` table (dicts with host, file, size, previous_gtids).
        options: storage options (to read the heads of same-size files).

    Returns:
        The :class:`Plan`.
    """
    before = {(r["host"], r["file"]): r for r in previous}
    plan = Plan()
    for spec in layout.files:
        key = (spec.host, spec.file)
        old = before.get(key)
        if old is None:
            plan.new.append(key)
            plan.scan.append(spec)
            continue
        head = head_previous_gtids(spec, options)
        same_head = (head or None) == (old["previous_gtids"] or None)
        if spec.size == old["size"] and same_head:
            plan.reuse.append(
                spec
            )  # a damaged file too: the same bytes give the same fault at the same offset
        elif spec.size > old["size"] and same_head:
            plan.grown.append(key)
            plan.scan.append(spec)
        else:
            why = (
                f"Previous_gtids changed ({old['previous_gtids'] or 'none'} -> {head or 'none'})"
                if not same_head
                else f"shrank from {old['size']} to {spec.size} bytes"
            )
            plan.rewritten.append((*key, why))
            plan.scan.append(spec)
    current = {(f.host, f.file) for f in layout.files}
    plan.gone = sorted(k for k in before if k not in current)
    return plan
