"""Issue 21 design spike, point 2: the engine-first commit path under a modelled power loss.

SIGKILL (``spike_mw_commit.py --crash``) loses nothing the process handed to the kernel, so it cannot show what a
power loss does to writes that were never fsynced. This script models one on the same prototype
(``spike_mw_commit.Committer`` / ``flusher`` / ``recover`` / ``check``):

* every committer runs with ``PRAGMA wal_autocheckpoint=0``, so the only fsyncs of the WAL are the group-sync
  leader's ``fdatasync`` (and the database file never changes after set-up);
* right after its ``fdatasync`` and before it publishes ``synced``, the leader copies the ``-wal`` file and
  records the WAL's size when the fsync started (every byte below it was written before the fsync, so it is
  durable; the copy may hold frames written since);
* after the SIGKILL the "disk after the power loss" is built: the database file, the last WAL copy cut to the
  recorded size plus a random part of the rest (frames a power loss may or may not keep, a torn one included) as
  its ``-wal``, and the binlog file cut to the end of the last transaction the flusher had fsynced plus a random part
  of what it wrote after that (partial writeback);
* recovery and the checks run on that image: every acknowledged transaction is in the data; the rebuilt binlog
  holds every transaction of the data exactly once, seq and GNO without gaps, and nothing else.

Negative controls: ``ack_early`` sends the OK right after the SQLite COMMIT, before the group sync (the image then
lacks acknowledged transactions); ``bound=committed`` lets the flusher write binlog rows that are committed but
not yet fsynced in the WAL (the image's binlog then holds transactions its data lost). The checks report both.

The model does not exercise a WAL reset (no checkpoints run), which SQLite handles by syncing the WAL header when
it restarts the WAL with ``synchronous=NORMAL``.

Usage: .venv/bin/python bench/spike_mw_powerloss.py [--trials 30] [--no-write]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import spike_mw_commit as mc

OPTS = {"payload": 600, "hold_us": 0, "sync_delay_us": 0, "no_delay_count": 0}


class PowerLossCommitter(mc.Committer):
    """A committer whose WAL is fsynced only by the group-sync leader, which snapshots the WAL after each fsync."""

    def __init__(self, d: Path, ack_early: bool) -> None:
        super().__init__(d, "engine_first", **OPTS)
        self.db.execute("PRAGMA wal_autocheckpoint=0")
        self.ack_early = ack_early

    def _group_sync(self, seq: int) -> None:
        if self.ack_early:  # the control: acknowledge without waiting for the fsync (then sync anyway)
            threading.Thread(target=self._sync_snapshot, args=(seq,), daemon=True).start()
            return
        self._sync_snapshot(seq)

    def _sync_snapshot(self, seq: int) -> None:
        sh = self.shared
        if sh.get("synced") >= seq:
            return
        mc.fcntl.flock(self.slock, mc.fcntl.LOCK_EX)
        try:
            if sh.get("synced") >= seq:
                return
            target = sh.get("committed")
            covered = os.fstat(self.wal).st_size  # every byte below was written before the fsync started
            os.fdatasync(self.wal)
            tmp = self.d / "img.wal.tmp"
            shutil.copyfile(str(self.d / "db.sqlite") + "-wal", tmp)
            os.replace(tmp, self.d / "img.wal")
            (self.d / "img.size.tmp").write_text(str(covered))
            os.replace(self.d / "img.size.tmp", self.d / "img.size")
            sh.set("synced", target)
            sh.add("wal_fsyncs")
        finally:
            mc.fcntl.flock(self.slock, mc.fcntl.LOCK_UN)


def _child(d: str, n: int, ack_early: bool, bound: str) -> None:
    dd = Path(d)
    out_lock = threading.Lock()
    stop = threading.Event()
    threading.Thread(target=mc.flusher, args=(dd, stop, 10, bound), daemon=True).start()

    def loop(tag: str) -> None:
        c = PowerLossCommitter(dd, ack_early)
        i = 0
        while True:
            txid = f"{tag}-{i}"
            c.commit(txid)
            with out_lock:
                os.write(1, f"ack {txid}\n".encode())
            i += 1

    os.write(1, b"ready\n")
    ts = [threading.Thread(target=loop, args=(f"t{i}",), daemon=True) for i in range(n)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()


def _image(d: Path, img: Path, rng: random.Random) -> dict[str, int]:
    """Build the disk as a power loss could leave it (see the module docstring)."""
    if img.exists():
        shutil.rmtree(img)
    img.mkdir()
    shutil.copyfile(d / "db.sqlite", img / "db.sqlite")
    if (d / "img.wal").exists():
        # what the last fsync covered, plus a random part of the frames written after it (a torn tail included)
        wal = (d / "img.wal").read_bytes()
        covered = min(int((d / "img.size").read_text()), len(wal)) if (d / "img.size").exists() else 0
        (img / "db.sqlite-wal").write_bytes(wal[: covered + rng.randint(0, len(wal) - covered)])
    bs = mc.Shared(d).get("binlog_synced")
    db = sqlite3.connect(
        d / "db.sqlite", isolation_level=None
    )  # the live files: where the fsynced prefix ends
    row = db.execute("SELECT end_pos FROM commit_log WHERE seq = ?", (bs,)).fetchone()
    db.close()
    durable_end = row[0] if row else 0
    data = (d / "binlog").read_bytes()
    keep = durable_end + rng.randint(0, max(0, len(data) - durable_end))
    (img / "binlog").write_bytes(data[:keep])
    return {"durable_end": durable_end, "kept": keep, "size": len(data)}


def trials(n: int, ack_early: bool, seed: int, bound: str = "synced") -> dict[str, Any]:
    """``n`` power-loss trials: child run, SIGKILL, image, recovery, checks; counts and the first violation.

    Args:
        n: trials; ack_early / bound: the negative controls (module docstring); seed: the random source.
    """
    rng = random.Random(seed)
    acked_total = violations = 0
    first = ""
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp) / "live"
        d.mkdir()
        img = Path(tmp) / "image"
        for _ in range(n):
            mc.setup(d)
            (d / "img.wal").unlink(missing_ok=True)
            (d / "img.size").unlink(missing_ok=True)
            proc = subprocess.Popen(
                [
                    sys.executable,
                    str(Path(__file__).resolve()),
                    "--child",
                    str(d),
                    "4",
                    "1" if ack_early else "0",
                    bound,
                ],
                stdout=subprocess.PIPE,
                start_new_session=True,
            )
            assert proc.stdout is not None
            lines: list[bytes] = []
            while not (line := proc.stdout.readline()).startswith(b"ready"):
                lines.append(line)
            reader = threading.Thread(target=lines.extend, args=(proc.stdout,))
            reader.start()
            time.sleep(rng.uniform(0.05, 0.5))
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            reader.join()
            acked = {ln[4:-1].decode() for ln in lines if ln.startswith(b"ack ") and ln.endswith(b"\n")}
            _image(d, img, rng)
            mc.recover(img)
            err = mc.check(img, acked)
            acked_total += len(acked)
            if err:
                violations += 1
                first = first or err
    return {"trials": n, "acked": acked_total, "violations": violations, "first": first}


def main() -> None:
    """Run the trials (or, with --child, be the committing child), print and store the section."""
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        _child(sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1", sys.argv[5])
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=30)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    load0 = os.getloadavg()
    res = {
        "engine first (OK after the group fsync)": trials(args.trials, False, seed=3),
        "control: OK right after COMMIT, before the fsync": trials(max(3, args.trials // 5), True, seed=4),
        "control: the flusher writes the binlog past `synced` (up to `committed`)": trials(
            max(3, args.trials // 5), False, seed=5, bound="committed"
        ),
    }
    load1 = os.getloadavg()
    lines = [
        "## Multi-worker spike (issue 21), point 2: engine-first commit under a modelled power loss",
        "",
        (
            f"Command: `.venv/bin/python bench/spike_mw_powerloss.py --trials {args.trials}` (4 committer threads + "
            "the flusher, SIGKILL after a random 0.05-0.5 s, then the disk a power loss could leave: the WAL as far "
            "as the last group fsync covered it plus a random part of the frames written after it (a torn tail "
            "included), the binlog cut to its "
            "last fsynced transaction plus a random part of the rest; recovery and spike_mw_commit's checks on that "
            f"image; load average before / after: {load0[0]:.1f} / {load1[0]:.1f})."
        ),
        "",
        "| mode | trials | acknowledged transactions | invariant violations |",
        "|---|---|---|---|",
    ]
    for k, c in res.items():
        first = f" (first: {c['first']})" if c["first"] else ""
        lines.append(f"| {k} | {c['trials']} | {c['acked']} | {c['violations']}{first} |")
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        from _results import update_section

        update_section("mw_powerloss", text)


if __name__ == "__main__":
    main()
