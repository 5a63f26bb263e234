"""Replication filters: --replicate-do-db / -ignore-db / -do-table / -ignore-table / -wild-do-table /
-wild-ignore-table / -rewrite-db and CHANGE REPLICATION FILTER, applied by the applier to each transaction.

MySQL sources: ``sql/rpl_filter.cc`` (``Rpl_filter::db_ok``, ``tables_ok``, ``get_rewrite_db``, the wildcard match
of ``find_wild``), ``Table_map_log_event::do_apply_event`` (a row event's table is checked with ``db_ok`` then
``tables_ok``, after the rewrite), ``Query_log_event::do_apply_event`` (a statement is checked with ``db_ok`` on its
*default* database, or on the database CREATE / ALTER / DROP DATABASE names, and its tables with ``tables_ok``), and
the manual's "How Servers Evaluate Replication Filtering Rules".

Rules, as ``Rpl_filter`` evaluates them:

* ``db_ok(db)``: no do-db nor ignore-db rule, or no database (a statement without a default one): yes; with do-db
  rules: db is one of them; else: db is none of the ignore-db ones.
* ``tables_ok(tables)``: for each updated table in turn, ``db.table`` in do-table: yes; in ignore-table: no; matches a
  wild-do-table pattern: yes; a wild-ignore-table pattern: no. When no rule decided, yes unless a do-table or
  wild-do-table rule exists.

A transaction whose every change is filtered out still commits its GTID, as an empty transaction (on a replica with
the binary log off: into mysql.gtid_executed), so auto-positioning never asks for it again (WL#6559). Names are
compared as written (``lower_case_table_names=0``).
"""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from gtidkit.binlog.events.rows import RowsEvent, TableMapEvent
from gtidkit.binlog.events.statement import QueryEvent
from gtidkit.engine.apply import BinlogTransaction
from gtidkit.mysql_errors import mysql_error

__all__ = ["FILTER_NAMES", "ReplicationFilter", "parse_filter_statement", "statement_tables"]

#: The filter kinds in performance_schema's order and spelling (FILTER_NAME), with the option behind each.
FILTER_NAMES = (
    "REPLICATE_DO_DB",
    "REPLICATE_IGNORE_DB",
    "REPLICATE_DO_TABLE",
    "REPLICATE_IGNORE_TABLE",
    "REPLICATE_WILD_DO_TABLE",
    "REPLICATE_WILD_IGNORE_TABLE",
    "REPLICATE_REWRITE_DB",
)

_DB_DDL = re.compile(
    r"\s*(?:CREATE|ALTER|DROP)\s+(?:DATABASE|SCHEMA)\s+(?:IF\s+(?:NOT\s+)?EXISTS\s+)?`?([^`\s;]+)`?",
    re.IGNORECASE,
)
_NAME = r"(?:`(?:[^`]|``)+`|[A-Za-z0-9_$]+)"
_TABLE_REF = rf"({_NAME}(?:\s*\.\s*{_NAME})?)"
#: the tables a statement updates (``updating`` tables of its table list), by statement shape
_UPDATED = (
    re.compile(
        rf"\s*(?:CREATE|ALTER|DROP|TRUNCATE)\s+(?:TEMPORARY\s+)?TABLE\s+(?:IF\s+(?:NOT\s+)?EXISTS\s+)?{_TABLE_REF}",
        re.IGNORECASE,
    ),
    re.compile(
        rf"\s*(?:INSERT|REPLACE)\s+(?:LOW_PRIORITY\s+|DELAYED\s+|HIGH_PRIORITY\s+|IGNORE\s+)*(?:INTO\s+)?{_TABLE_REF}",
        re.IGNORECASE,
    ),
    re.compile(rf"\s*UPDATE\s+(?:LOW_PRIORITY\s+|IGNORE\s+)*{_TABLE_REF}", re.IGNORECASE),
    re.compile(rf"\s*DELETE\s+(?:LOW_PRIORITY\s+|QUICK\s+|IGNORE\s+)*FROM\s+{_TABLE_REF}", re.IGNORECASE),
    re.compile(rf"\s*RENAME\s+TABLE\s+{_TABLE_REF}", re.IGNORECASE),
    re.compile(
        rf"\s*CREATE\s+(?:UNIQUE\s+|FULLTEXT\s+|SPATIAL\s+)?INDEX\s+{_NAME}\s+ON\s+{_TABLE_REF}",
        re.IGNORECASE,
    ),
)


def _unquote(name: str) -> str:
    name = name.strip()
    return name[1:-1].replace("``", "`") if name.startswith("`") and name.endswith("`") else name


def statement_tables(query: str, default_db: str) -> list[tuple[str, str]]:
    """The ``(db, table)`` a statement updates, as far as its shape tells (CREATE / ALTER / DROP / TRUNCATE /
    RENAME TABLE, CREATE INDEX, INSERT / REPLACE / UPDATE / DELETE); empty for others."""
    for rx in _UPDATED:
        m = rx.match(query)
        if m:
            parts = re.split(r"\s*\.\s*(?=[`A-Za-z0-9_$])", m.group(1), maxsplit=1)
            if len(parts) == 2:
                return [(_unquote(parts[0]), _unquote(parts[1]))]
            return [(default_db, _unquote(parts[0]))]
    return []


def _wild_match(pattern: str, text: str) -> bool:
    """LIKE-style match (``%`` any run, ``_`` one character, ``\\`` escapes), as ``find_wild`` uses."""
    out = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        out.append(".*" if c == "%" else "." if c == "_" else re.escape(c))
        i += 1
    return re.fullmatch("".join(out), text, re.DOTALL) is not None


def _split_table(rule: str, option: str) -> str:
    if "." not in rule.strip(".") or rule.startswith(".") or rule.endswith("."):
        raise ValueError(f"Could not add {option} rule '{rule}'!")
    return rule


@dataclass(frozen=True, slots=True)
class ReplicationFilter:
    """One set of filter rules (the global ones from the start-up options, or a channel's).

    Attributes:
        do_db, ignore_db: database names.
        do_table, ignore_table: ``db.table`` names.
        wild_do_table, wild_ignore_table: ``db.table`` LIKE patterns.
        rewrite_db: ``(from, to)`` pairs.
        configured_by: ``{FILTER_NAME: (CONFIGURED_BY, ACTIVE_SINCE seconds)}`` for performance_schema.
        counters: ``{FILTER_NAME: times the rule decided}`` (performance_schema's COUNTER), mutable.
    """

    do_db: tuple[str, ...] = ()
    ignore_db: tuple[str, ...] = ()
    do_table: tuple[str, ...] = ()
    ignore_table: tuple[str, ...] = ()
    wild_do_table: tuple[str, ...] = ()
    wild_ignore_table: tuple[str, ...] = ()
    rewrite_db: tuple[tuple[str, str], ...] = ()
    configured_by: dict[str, tuple[str, float]] = field(default_factory=dict, compare=False)
    counters: dict[str, int] = field(default_factory=dict, compare=False)

    @classmethod
    def from_options(
        cls, options: dict[str, Iterable[str]], configured_by: str = "STARTUP_OPTIONS"
    ) -> ReplicationFilter:
        """The rules of the ``replicate_*`` start-up options (each a list of values, in the order given).

        Raises:
            ValueError: mysqld's start-up refusal, e.g. ``Could not add do table rule 'x'!`` for a table rule
                without a database, ``Bad syntax in replicate-rewrite-db - missing '->'!``.
        """
        rewrite = []
        for rule in options.get("replicate_rewrite_db", ()):
            if "->" not in rule:
                raise ValueError("Bad syntax in replicate-rewrite-db - missing '->'!")
            a, b = (p.strip() for p in rule.split("->", 1))
            if not a or not b:
                raise ValueError(
                    "Bad syntax in replicate-rewrite-db - empty FROM db!"
                    if not a
                    else "Bad syntax in replicate-rewrite-db - empty TO db!"
                )
            rewrite.append((a, b))
        f = cls(
            do_db=tuple(options.get("replicate_do_db", ())),
            ignore_db=tuple(options.get("replicate_ignore_db", ())),
            do_table=tuple(_split_table(r, "do table") for r in options.get("replicate_do_table", ())),
            ignore_table=tuple(
                _split_table(r, "ignore table") for r in options.get("replicate_ignore_table", ())
            ),
            wild_do_table=tuple(
                _split_table(r, "wild do table") for r in options.get("replicate_wild_do_table", ())
            ),
            wild_ignore_table=tuple(
                _split_table(r, "wild ignore table") for r in options.get("replicate_wild_ignore_table", ())
            ),
            rewrite_db=tuple(rewrite),
        )
        now = time.time()
        for name in FILTER_NAMES:
            if f.rules(name):
                f.configured_by[name] = (configured_by, now)
        return f

    def changed(self, name: str, rules: tuple[Any, ...], configured_by: str) -> ReplicationFilter:
        """A copy with the rules of ``name`` (a FILTER_NAME) replaced (CHANGE REPLICATION FILTER)."""
        attr = name[len("REPLICATE_") :].lower()
        new = dataclasses.replace(self, **{attr: tuple(rules)})
        new.configured_by.update(self.configured_by)
        new.counters.update(self.counters)
        if rules:
            new.configured_by[name] = (configured_by, time.time())
        else:
            new.configured_by.pop(name, None)
            new.counters.pop(name, None)
        return new

    def rules(self, name: str) -> tuple[Any, ...]:
        """The rules of ``name`` (a FILTER_NAME)."""
        return tuple(getattr(self, name[len("REPLICATE_") :].lower()))

    def rule_text(self, name: str) -> str:
        """FILTER_RULE / SHOW REPLICA STATUS's text: the rules comma-separated, rewrites as ``(from,to)``."""
        rules = self.rules(name)
        if name == "REPLICATE_REWRITE_DB":
            return ",".join(f"({a},{b})" for a, b in rules)
        return ",".join(rules)

    @property
    def active(self) -> bool:
        """True when any rule is set (``Rpl_filter::is_on`` or a rewrite)."""
        return any(self.rules(n) for n in FILTER_NAMES)

    def _count(self, name: str) -> None:
        self.counters[name] = self.counters.get(name, 0) + 1

    # -- the checks ----------------------------------------------------------------------------------------
    def rewrite(self, db: str) -> str:
        """``get_rewrite_db``: the database a rewrite rule maps ``db`` to (the first matching rule)."""
        for a, b in self.rewrite_db:
            if a == db:
                self._count("REPLICATE_REWRITE_DB")
                return b
        return db

    def db_ok(self, db: str | None) -> bool:
        """``Rpl_filter::db_ok``."""
        if not self.do_db and not self.ignore_db:
            return True
        if not db:
            return True  # 8.0: a statement without a default database is replicated ("do replicate")
        if self.do_db:
            if db in self.do_db:
                self._count("REPLICATE_DO_DB")
                return True
            return False
        if db in self.ignore_db:
            self._count("REPLICATE_IGNORE_DB")
            return False
        return True

    def tables_ok(self, tables: list[tuple[str, str]]) -> bool:
        """``Rpl_filter::tables_ok`` over the updated ``(db, table)`` list."""
        updating = False
        for db, table in tables:
            updating = True
            key = f"{db}.{table}"
            if key in self.do_table:
                self._count("REPLICATE_DO_TABLE")
                return True
            if key in self.ignore_table:
                self._count("REPLICATE_IGNORE_TABLE")
                return False
            if any(_wild_match(p, key) for p in self.wild_do_table):
                self._count("REPLICATE_WILD_DO_TABLE")
                return True
            if any(_wild_match(p, key) for p in self.wild_ignore_table):
                self._count("REPLICATE_WILD_IGNORE_TABLE")
                return False
        return updating and not self.do_table and not self.wild_do_table

    @property
    def _table_rules(self) -> bool:
        return bool(self.do_table or self.ignore_table or self.wild_do_table or self.wild_ignore_table)

    def query_ok(self, ev: QueryEvent) -> bool:
        """``Query_log_event::do_apply_event`` + ``all_tables_not_ok``: BEGIN / COMMIT / ROLLBACK / XA always run;
        CREATE / ALTER / DROP DATABASE are checked on the database they name, other statements on their default
        database, then on the tables they update."""
        text = ev.query.strip().upper()
        if text in ("BEGIN", "COMMIT", "ROLLBACK") or text.startswith(("XA ", "SAVEPOINT", "ROLLBACK TO")):
            return True
        m = _DB_DDL.match(ev.query)
        if m:
            return self.db_ok(self.rewrite(m.group(1)))
        if not self.db_ok(ev.database or None):
            return False
        if self._table_rules:
            tables = statement_tables(ev.query, ev.database)
            if tables and not self.tables_ok(tables):
                return False
        return True

    def filter_transaction(self, trx: BinlogTransaction) -> tuple[BinlogTransaction, bool]:
        """The transaction with what the rules filter out removed (rewrites applied), and whether anything was
        removed. Its Gtid event and its BEGIN / COMMIT / Xid stay: a wholly filtered transaction commits as an
        empty one with its GTID."""
        if not self.active:
            return trx, False
        kept: list[Any] = []
        dropped_maps: set[int] = set()
        removed = False
        for item in trx.events:
            ev = item.event
            if isinstance(ev, TableMapEvent):
                db = self.rewrite(ev.database)
                if db != ev.database:
                    ev = dataclasses.replace(ev, database=db)
                    item = dataclasses.replace(item, event=ev)
                if not (self.db_ok(db) and (not self._table_rules or self.tables_ok([(db, ev.table)]))):
                    dropped_maps.add(ev.table_id)
                    removed = True
                    continue
                dropped_maps.discard(ev.table_id)
            elif isinstance(ev, RowsEvent):
                if ev.table_id in dropped_maps:
                    continue
            elif isinstance(ev, QueryEvent):
                db = self.rewrite(ev.database) if ev.database else ev.database
                if db != ev.database:
                    ev = dataclasses.replace(ev, database=db)
                    item = dataclasses.replace(item, event=ev)
                if not self.query_ok(ev):
                    removed = True
                    continue
            kept.append(item)
        if not removed and all(a is b for a, b in zip(kept, trx.events)):
            return trx, False
        return dataclasses.replace(trx, events=tuple(kept)), removed


def parse_filter_statement(text: str) -> dict[str, tuple[Any, ...]]:
    """``CHANGE REPLICATION FILTER filter[, filter] ... [FOR CHANNEL ch]``: ``{FILTER_NAME: rules}``, each rule list
    as written (``REPLICATE_DO_DB = (db1, db2)``, ``REPLICATE_DO_TABLE = (db.t)``, ``REPLICATE_WILD_DO_TABLE =
    ('db.t%')``, ``REPLICATE_REWRITE_DB = ((a, b), (c, d))``; ``()`` clears).

    Raises:
        MySQLError: 1064 for a filter name or list MySQL's grammar does not accept.
    """
    m = re.match(
        r"\s*CHANGE\s+REPLICATION\s+FILTER\s+(.*?)\s*(?:FOR\s+CHANNEL\s+.*)?;?\s*$",
        text,
        re.IGNORECASE | re.DOTALL,
    )
    if m is None:
        raise mysql_error(1064, "You have an error in your SQL syntax", text, 1)
    body = m.group(1)
    out: dict[str, tuple[Any, ...]] = {}
    at = 0
    item = re.compile(r"\s*(REPLICATE_[A-Z_]+)\s*=\s*\(", re.IGNORECASE)
    while at < len(body):
        im = item.match(body, at)
        if im is None or im.group(1).upper() not in FILTER_NAMES:
            raise mysql_error(1064, "You have an error in your SQL syntax", body[at:].strip(), 1)
        name = im.group(1).upper()
        depth, j = 1, im.end()
        while j < len(body) and depth:
            depth += {"(": 1, ")": -1}.get(body[j], 0)
            j += 1
        inner = body[im.end() : j - 1]
        if name == "REPLICATE_REWRITE_DB":
            pairs = re.findall(r"\(\s*([^,()]+?)\s*,\s*([^,()]+?)\s*\)", inner)
            out[name] = tuple((_value(a), _value(b)) for a, b in pairs)
        else:
            out[name] = tuple(_value(v) for v in inner.split(",") if v.strip())
            if "TABLE" in name:
                for rule in out[name]:
                    try:
                        _split_table(rule, name)
                    except ValueError as err:
                        raise mysql_error(1064, "You have an error in your SQL syntax", rule, 1) from err
        at = j
        rest = body[at:].lstrip()
        if rest.startswith(","):
            at = len(body) - len(rest) + 1
        elif rest:
            raise mysql_error(1064, "You have an error in your SQL syntax", rest, 1)
        else:
            break
    return out


def _value(v: str) -> str:
    v = v.strip()
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
        return v[1:-1]
    return _unquote(v)
