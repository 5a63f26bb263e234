"""Opcode probe for bench/bench_mw_cost.py ``--opcodes`` (bench only; imported as ``sitecustomize`` when this
directory is on PYTHONPATH, which only that script sets for the servers it starts).

Every thread started after import (``threading.settrace``; forked workers inherit the hook) counts the Python
bytecodes it executes per code object while the file ``$GK_OPC_DIR/start`` exists and ``$GK_OPC_DIR/dump`` does
not; the first traced call after ``dump`` appears writes ``$GK_OPC_DIR/opc.<pid>.json`` ({"file:line:function":
count}). No thread is started (the fork server refuses to fork a process that runs one) and no product code changes;
the files are checked every 500 calls. Bytecode counts do not move with the machine's load (CPU time per transaction
does by ±30% on a shared machine), but they are blind to C code (SQLite, the kernel): callgrind and strace cover that.
"""

from __future__ import annotations

import collections
import json
import os
import threading
from typing import Any

_DIR = os.environ.get("GK_OPC_DIR")
_counts: collections.Counter[Any] = collections.Counter()
_state = {"calls": 0, "active": False, "done": False}


def _local(frame: Any, event: str, arg: Any) -> Any:
    if event == "opcode":
        _counts[frame.f_code] += 1
    return _local


def _check() -> None:
    assert _DIR is not None
    if not _state["active"] and not _state["done"] and os.path.exists(os.path.join(_DIR, "start")):
        _state["active"] = True
    if _state["active"] and os.path.exists(os.path.join(_DIR, "dump")):
        _state["active"], _state["done"] = False, True
        out = {
            f"{c.co_filename.split('/src/')[-1]}:{c.co_firstlineno}:{c.co_name}": n
            for c, n in list(_counts.items())
        }
        if out:
            with open(os.path.join(_DIR, f"opc.{os.getpid()}.json"), "w") as fh:
                json.dump(out, fh)


def _trace(frame: Any, event: str, arg: Any) -> Any:
    _state["calls"] += 1
    if _state["calls"] % 500 == 0:
        _check()
    if _state["active"]:
        frame.f_trace_opcodes = True
        return _local
    return None


if _DIR:
    threading.settrace(_trace)
    os.register_at_fork(after_in_child=_counts.clear)
