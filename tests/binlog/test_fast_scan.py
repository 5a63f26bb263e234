"""The scanner's whole-transaction fast path (``gtidkit.binlog.file._fast_trx``) against the slow paths.

The fast path reads a common 8.0 row-based transaction (Gtid, Query BEGIN, Table_map/rows..., Xid) in one call
and hands anything else back to the event-by-event scanner. Two oracles:

* the state machine (:class:`TransactionParser`) fed from fully decoded events, on generated MySQL 8.0 files;
* the same scanner with the fast path switched off, on the same bytes after damage inside a fast-path
  transaction (every byte of its Gtid event, the header fields and CRC footers of the others, truncations at and
  around every event boundary), with CRC checking on and off: the whole :class:`FileScan` must be equal.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import gtidkit.binlog.file as binlog_file
from gtidkit.binlog.constants import EventType
from gtidkit.binlog.file import iter_transactions, read_events, scan_file
from gtidkit.generate import generate_fleet
from tests.binlog.test_binlog_transactions import _reference_transactions


@pytest.fixture(scope="module")
def fleet_files(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    out = tmp_path_factory.mktemp("fastscan") / "fleet"
    generate_fleet(out, seed=23, replicas=1, transactions=250, max_binlog_size=128 * 1024)
    return sorted(p for p in out.rglob("binlog.*") if p.name != "binlog.index")


class _Counting:
    """Wraps ``_fast_trx`` and counts the transactions it took (non-None answers)."""

    def __init__(self) -> None:
        self.taken = 0
        self.inner = binlog_file._fast_trx

    def __call__(self, *args: Any) -> Any:
        done = self.inner(*args)
        if done is not None:
            self.taken += 1
        return done


def _scan_without_fast_path(
    path: Path, monkeypatch: pytest.MonkeyPatch, verify: bool
) -> binlog_file.FileScan:
    with monkeypatch.context() as m:
        m.setattr(binlog_file, "_fast_trx", lambda *args: None)
        return scan_file(path, verify_checksum=verify)


def test_fast_path_agrees_with_the_state_machine(
    fleet_files: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    counting = _Counting()
    monkeypatch.setattr(binlog_file, "_fast_trx", counting)
    total = 0
    for path in fleet_files:
        expected, faulted = _reference_transactions(path)
        assert not faulted
        got = list(iter_transactions(path))
        assert got == expected, path
        total += sum(1 for t in got if t.gtid is not None)
    # the generated mix is mostly row-based DML: the fast path must be what actually ran
    assert total > 200 and counting.taken > 0.8 * total


def test_fast_path_on_and_off_give_the_same_file_scan(
    fleet_files: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    for path in fleet_files:
        for verify in (True, False):
            assert scan_file(path, verify_checksum=verify) == _scan_without_fast_path(
                path, monkeypatch, verify
            )


def _dml_transaction(path: Path) -> tuple[bytes, list[tuple[int, int, int]]]:
    """The file's bytes cut after its first transaction with a Table_map, and that transaction's events as
    (pos, end_pos, type_code), Gtid event first."""
    events = list(read_events(path, expand_payloads=False))
    data = path.read_bytes()
    for i, pe in enumerate(events):
        if pe.type_code != EventType.GTID_LOG_EVENT:
            continue
        trx = [pe]
        for nxt in events[i + 1 :]:
            trx.append(nxt)
            if nxt.type_code == EventType.XID_EVENT:
                break
        codes = [e.type_code for e in trx]
        if EventType.TABLE_MAP_EVENT in codes and codes[-1] == EventType.XID_EVENT:
            after = events[i + len(trx) + 1].end_pos if i + len(trx) + 1 < len(events) else len(data)
            return data[:after], [(e.pos, e.end_pos, e.type_code) for e in trx]
    raise AssertionError(f"no row-based transaction in {path}")


def _damages(data: bytes, trx: list[tuple[int, int, int]]) -> Iterator[bytes]:
    gtid_pos, gtid_end, _ = trx[0]
    for at in range(gtid_pos, gtid_end):  # every byte of the Gtid event, two ways
        for value in (data[at] ^ 0x80, 0xFC if data[at] != 0xFC else 0xFE):
            yield data[:at] + bytes([value]) + data[at + 1 :]
    for pos, end, _ in trx[1:]:
        # type code, event_size, flags (relay-log bit), first body bytes (Query lengths, Table_map db), footer
        for at in (pos + 4, pos + 9, pos + 10, pos + 17, pos + 19, pos + 27, pos + 29, pos + 30, end - 1):
            if at < end:
                yield data[:at] + bytes([data[at] ^ 0x41]) + data[at + 1 :]
    for pos, end, _ in trx:
        for cut in (pos, pos + 1, pos + 18, end - 1):
            yield data[:cut]


def test_damage_inside_a_fast_path_transaction(
    fleet_files: list[Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    data, trx = _dml_transaction(fleet_files[0])
    path = tmp_path / "damaged"
    cases = 0
    for damaged in _damages(data, trx):
        path.write_bytes(damaged)
        for verify in (True, False):
            fast = scan_file(path, verify_checksum=verify)
            slow = _scan_without_fast_path(path, monkeypatch, verify)
            assert fast == slow, (cases, verify)
            cases += 1
    assert cases > 200
