"""Node's ``mysql2`` driver (npm) as a test client: it decodes text rows (``query``) and binary-protocol rows
(``execute``: COM_STMT_PREPARE + COM_STMT_EXECUTE) with its own parsers, independently of the Python drivers.

:func:`install` puts ``mysql2`` into a cache directory once per test session (``npm install --prefix DIR mysql2``);
:func:`run` runs statements through it and returns what the driver decoded: each row's values (Buffers as
``{"hex": ...}``, temporal values as strings: ``dateStrings``, big integers and DECIMALs as strings) and each
column's metadata as the driver read it from the column-definition packets.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

_SCRIPT = r"""
const mysql = require('mysql2/promise');
const fs = require('fs');
(async () => {
  const [port, file] = [Number(process.argv[2]), process.argv[3]];
  const plan = JSON.parse(fs.readFileSync(file, 'utf8'));
  const conn = await mysql.createConnection({
    host: '127.0.0.1', port, user: 'root', password: '', dateStrings: true, supportBigNumbers: true,
    bigNumberStrings: true, jsonStrings: true, multipleStatements: false,
  });
  const enc = (v) => (Buffer.isBuffer(v) ? { hex: v.toString('hex') } : v);
  const out = [];
  for (const step of plan) {
    try {
      const [rows, fields] = await conn[step.how]({ sql: step.sql, rowsAsArray: true }, step.params || []);
      out.push(Array.isArray(rows) ? {
        rows: rows.map((r) => r.map(enc)),
        fields: (fields || []).map((f) => ({
          name: f.name, type: f.columnType, flags: f.flags, charset: f.characterSet, length: f.columnLength,
          decimals: f.decimals })),
      } : { ok: true, affected: rows.affectedRows });
    } catch (e) {
      out.push({ error: e.errno || null, message: e.message });
    }
  }
  await conn.end();
  process.stdout.write(JSON.stringify(out));
})().catch((e) => { process.stderr.write(String(e && e.stack || e)); process.exit(1); });
"""


def session_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The one directory of this test session where ``mysql2`` is installed (shared by every test module)."""
    where = tmp_path_factory.getbasetemp() / "node-mysql2"
    where.mkdir(exist_ok=True)
    return where


def install(cache: Path) -> Path:
    """``mysql2`` installed under ``cache`` (``npm install --prefix``); the directory to run :func:`run` in.

    Skips the calling test, with the reason, when node or npm is missing or the install fails (no registry).
    """
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node / npm are not installed: the mysql2 driver cannot run")
    if not (cache / "node_modules" / "mysql2").is_dir():
        r = subprocess.run(
            ["npm", "install", "--prefix", str(cache), "--no-audit", "--no-fund", "mysql2"],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        if r.returncode != 0:
            pytest.skip(f"npm install mysql2 failed: {r.stderr.strip()[-300:]}")
    (cache / "run.js").write_text(_SCRIPT)
    return cache


def run(where: Path, port: int, steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Run ``steps`` (each ``{"how": "query" | "execute", "sql": ..., "params": [...]}``) on one connection
    as root; one answer per step: ``{"rows", "fields"}``, ``{"ok", "affected"}`` or ``{"error", "message"}``."""
    plan = where / "plan.json"
    plan.write_text(json.dumps(steps))
    r = subprocess.run(
        ["node", str(where / "run.js"), str(port), str(plan)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=where,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)
