"""gtidkit.generate: synthetic MySQL binary logs and fleets for demos, tests and benchmarks.

Not a codec (STYLE.md section 3): it chooses contents and writes files, and every byte it writes is encoded by
:mod:`gtidkit.binlog` (the writer and the event codecs). It may import ``gtid`` and ``binlog``; only ``cli``, the
pipeline demo, bench scripts and tests import it.

* :func:`generate_fleet`: a source and its replicas with known anomalies, plus ``manifest.json``/``topology.json``.
* :func:`generate_corpus`: a large realistic corpus, fast (each transaction shape encoded once, then patched).
"""

from gtidkit.generate.binlogs import (
    DEFAULT_SERVER_VERSION,
    FleetManifest,
    OutputNotEmptyError,
    generate_corpus,
    generate_fleet,
    load_manifest,
)

__all__ = [
    "DEFAULT_SERVER_VERSION",
    "FleetManifest",
    "OutputNotEmptyError",
    "generate_corpus",
    "generate_fleet",
    "load_manifest",
]
