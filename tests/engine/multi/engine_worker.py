"""A worker-role engine in a process of its own, driven over stdin/stdout (one JSON object per line).

Started by tests/engine/multi/test_worker_open.py as ``python engine_worker.py DATADIR [OPTION=JSON ...]``;
it opens ``Server.open(DATADIR, role="worker", ...)`` and answers, one line each:

* ``{"sql": TEXT}`` -> ``{"rows": [[...], ...]}`` (the last statement's rows, values as text) or
  ``{"error": CODE, "message": TEXT}``;
* ``{"inserts": N, "table": NAME, "first": K}`` -> runs ``INSERT INTO NAME (id) VALUES (K)`` ... ``(K+N-1)`` as N
  autocommit statements at once, then answers ``{"done": N}``;
* ``{"fsyncs": true}`` -> ``{"fsyncs": N, "covered": M}``: WAL fsyncs its sync stage ran, and its leaders whose
  transaction another process's fsync had covered (engine/shared/wal_sync.py);
* ``{"quit": true}`` -> shuts the engine down and exits.
"""

from __future__ import annotations

import json
import sys

from gtidkit.engine.server import Server
from gtidkit.errors import MySQLError


def _text(v: object) -> object:
    return v if v is None or isinstance(v, int | str) else str(v)


def main() -> None:
    datadir = sys.argv[1]
    opts = {k: json.loads(v) for k, v in (a.split("=", 1) for a in sys.argv[2:])}
    server = Server.open(datadir, role="worker", **opts)
    session = server.session()
    out = sys.stdout
    out.write(json.dumps({"ready": True}) + "\n")
    out.flush()
    for line in sys.stdin:
        cmd = json.loads(line)
        if cmd.get("quit"):
            break
        reply: dict[str, object]
        try:
            if cmd.get("fsyncs"):
                wal = server.group_sync.shared
                reply = {"fsyncs": server.group_sync.fsyncs, "covered": getattr(wal, "covered", 0)}
            elif "sql" in cmd:
                res = session.execute(cmd["sql"])
                rows = [[_text(v) for v in r] for r in (res[-1].rows or [])] if res else []
                reply = {"rows": rows}
            else:
                first, n = int(cmd["first"]), int(cmd["inserts"])
                for i in range(first, first + n):
                    session.execute(f"INSERT INTO {cmd['table']} (id) VALUES ({i})")
                reply = {"done": n}
        except MySQLError as err:
            reply = {"error": err.code, "message": err.message}
        out.write(json.dumps(reply) + "\n")
        out.flush()
    session.close()
    server.shutdown()


if __name__ == "__main__":
    main()
