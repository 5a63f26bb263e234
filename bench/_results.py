"""Write one benchmark's figures into bench/RESULTS.md as a named section (safe for several scripts).

Each bench script calls :func:`update_section` with its own name; other sections are left untouched.
"""

from __future__ import annotations

import fcntl
import importlib.util
import re
import sys
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
HEADER = "# Benchmark results\n\nEach section is rewritten by the script named in it; figures are ratios measured in one run.\n"


def update_section(name: str, markdown: str) -> None:
    """Replace (or append) the section ``name`` of bench/RESULTS.md with ``markdown``.

    Args:
        name: section id, e.g. ``"gtid_set"``; rendered between HTML comment markers.
        markdown: the section body, which should include the command that produced it.
    """
    begin, end = f"<!-- begin {name} -->", f"<!-- end {name} -->"
    block = f"{begin}\n{markdown.rstrip()}\n{end}\n"
    lock = RESULTS.with_suffix(".lock")
    with open(lock, "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        text = RESULTS.read_text() if RESULTS.exists() else HEADER
        pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end) + r"\n?", re.DOTALL)
        if pattern.search(text):
            text = pattern.sub(lambda _m: block, text)
        else:
            text = text.rstrip("\n") + "\n\n" + block
        RESULTS.write_text(text)
    lock.unlink(missing_ok=True)


def load_module(name: str, path: Path):
    """Import the file ``path`` as module ``name`` (test drivers and harnesses the stress scripts reuse)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod
