"""binlog/mysqlbinlog.py: the printer's inline hot loop gives exactly the text of its per-event path on every
real fixture binlog, and its base64 is MySQL's (76-character lines)."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from gtidkit.binlog.file import FrameReader
from gtidkit.binlog.mysqlbinlog import ScriptPrinter, base64_lines
from gtidkit.errors import BinlogDecodeError

ROOT = Path(__file__).resolve().parents[2]
FIX = (ROOT / ".." / "shared" / "research" / "fixtures" / "binlogs").resolve()
BINLOGS = (
    sorted(
        p
        for p in FIX.rglob("*")
        if p.is_file()
        and p.suffix not in (".md", ".txt", ".json")
        and "result" not in p.name
        and "plaintext" not in p.name
    )
    if FIX.exists()
    else []
)


def _per_event(path: Path) -> str:
    printer = ScriptPrinter()
    parts = []
    for pos, buf, at, size in FrameReader(path):
        parts.append(printer.feed(pos, buf[at : at + size]))
    return "".join(parts) + printer.finish()[0]


def _hot_loop(path: Path) -> str:
    printer = ScriptPrinter()
    return "".join(printer.feed_frames(FrameReader(path), batch=3)) + printer.finish()[0]


@pytest.mark.parametrize("path", BINLOGS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_hot_loop_equals_per_event_path(path: Path) -> None:
    try:
        expected = _per_event(path)
    except BinlogDecodeError:
        with pytest.raises(BinlogDecodeError):
            _hot_loop(path)
        return
    except Exception as err:  # noqa: BLE001 - a ScriptError must come from both paths alike
        with pytest.raises(type(err)):
            _hot_loop(path)
        return
    assert _hot_loop(path) == expected


@pytest.mark.parametrize("n", [0, 1, 56, 57, 58, 113, 114, 115, 1000, 65536], ids=lambda n: f"{n}B")
def test_base64_lines_are_mysqls(n: int) -> None:
    data = bytes(range(256)) * (n // 256 + 1)
    assert base64_lines(data[:n]) == (base64.encodebytes(data[:n]).decode() if n else "\n")


def test_hot_loop_equals_per_event_path_on_a_generated_binlog(tmp_path: Path) -> None:
    """The benchmark's kind of file (generated 8.0 layout: Gtid, BEGIN, Table_map, rows, Xid; many transactions)."""
    from gtidkit.generate import generate_corpus

    generate_corpus(tmp_path, 300_000, hosts=1, seed=3, max_binlog_size=1 << 20, overwrite=True)
    (path,) = sorted(tmp_path.rglob("binlog.0*"))
    assert _hot_loop(path) == _per_event(path)
