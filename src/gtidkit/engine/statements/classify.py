"""Statement classification, done once: text -> one typed :class:`Statement` (kind, text, info, sqlglot tree).

Kinds come from sqlglot's trees: :data:`TREE_KINDS` maps each sqlglot expression class to a kind (``exp.Select``
-> select, ``exp.Insert`` -> dml, ``exp.Create`` -> ddl, ``exp.Set`` -> set, ``exp.Show`` -> show ...). For the
statement families whose tree class follows from their first keyword (SELECT, INSERT, UPDATE, DELETE, REPLACE,
CREATE, DROP, ALTER, TRUNCATE, RENAME, SET, SHOW, DESCRIBE) the kind is read off that keyword and the tree is parsed
lazily (``Statement.tree``): the executor's plan cache usually needs no tree at all (sysbench sends the same shapes).
A statement with any other first word is parsed by sqlglot at classification and classified by its tree class.

The hand-written recogniser (:data:`_RECOGNISER`) covers only what sqlglot gets wrong (``../shared/research/
tooling.md`` section 5): ``FLUSH LOGS`` parses as an alias, ``START REPLICA`` as BEGIN, ``RESET BINARY LOGS AND
GTIDS`` / ``SAVEPOINT`` / ``RELEASE SAVEPOINT`` / ``PURGE BINARY LOGS`` / ``LOCK TABLES`` / ``XA`` / ``KILL`` fail
or become an opaque ``exp.Command``; transaction control carries options (``AND CHAIN``, ``READ ONLY``) the trees
drop. It runs on the comment-stripped, whitespace-collapsed text and returns the parsed ``info`` the handlers need,
its arguments named (``{"command": "kill", "id": 12, "query_only": False}``): no handler matches the text again. It
also gives the statements the wire server answers itself (KILL, SHUTDOWN).

Every SHOW (and DESCRIBE / DESC / EXPLAIN <table>) is parsed by the SHOW parser table (:data:`SHOW_PARSERS`): its
command (``variables``, ``binlog_events``, ``tables``, ``processlist`` ...) and named arguments (``like``, ``where``,
``db``, ``table``, ``pos`` ...), which :mod:`gtidkit.engine.statements.show` maps to the one function providing its
rows. A SHOW's deciding word picks the rows tried (SHOW VARIABLES LIKE matches one pattern, not the table).

This is the only module that recognises statements by their keywords (``tests/test_statement_regexes.py`` keeps it
so); what a statement does is its row of :mod:`gtidkit.engine.statements.specs`. Why a table of anchored patterns and
not a sqlglot dialect subclass: sqlglot's statement parsers are keyed by token type, and the admin statements start
with words its MySQL tokenizer reads as plain identifiers or as an opaque ``Command``, so each would need an override
of ``_parse_statement`` (``PURGE BINARY LOGS TO`` does not parse at all); a sqlglot parse of the SHOWs it knows also
costs several times this module's whole classification (SHOW BINLOG EVENTS ... LIMIT 2: about 1.3 ms against 0.23
ms, measured with timeit on the shared machine), and these statements' 1064 / 1235 messages must stay MySQL's. Adding a statement is one row here (and one in specs.py).

Sources: MySQL ``sql/sql_yacc.yy`` (grammar), ``sql/sql_parse.cc`` (``sql_command_flags``), tooling.md section 5.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from sqlglot import exp

from gtidkit.engine.accounts.statements import is_account_statement
from gtidkit.engine.sql.explain import explain_target
from gtidkit.engine.sql.parse import normalize, parse_tree, strip_comments, templatize, unquote_string
from gtidkit.engine.statements.specs import StatementSpec, spec_of
from gtidkit.errors import MySQLError

__all__ = ["KINDS", "TREE_KINDS", "Statement", "StatementKind", "classify", "dml_form", "is_load_data_local"]


class StatementKind(StrEnum):
    """What a statement is: the key of its row of the statement specs when it has no command of its own
    (:mod:`gtidkit.engine.statements.specs`, whose handlers :mod:`gtidkit.engine.statements.dispatch` registers)."""

    SELECT = "select"
    DML = "dml"
    DDL = "ddl"
    BEGIN = "begin"
    COMMIT = "commit"
    ROLLBACK = "rollback"
    SAVEPOINT = "savepoint"
    RELEASE_SAVEPOINT = "release_savepoint"
    ROLLBACK_TO_SAVEPOINT = "rollback_to_savepoint"
    SET = "set"
    SHOW = "show"
    USE = "use"
    ADMIN = "admin"
    PREPARED = "prepared"  # SQL PREPARE / EXECUTE / DEALLOCATE PREPARE (engine/statements/prepared.py)
    ACCOUNT = (
        "account"  # CREATE / ALTER / DROP / RENAME USER, GRANT, REVOKE, SET PASSWORD, roles (engine/accounts)
    )
    OTHER = "other"


KINDS = frozenset(k.value for k in StatementKind)

#: sqlglot expression class -> kind (the first matching class in order wins; subclasses included).
TREE_KINDS: tuple[tuple[type[exp.Expression], StatementKind], ...] = (
    (exp.Select, StatementKind.SELECT),
    (exp.SetOperation, StatementKind.SELECT),
    (exp.Subquery, StatementKind.SELECT),
    (exp.Values, StatementKind.SELECT),
    (exp.Insert, StatementKind.DML),
    (exp.Update, StatementKind.DML),
    (exp.Delete, StatementKind.DML),
    (exp.Create, StatementKind.DDL),
    (exp.Drop, StatementKind.DDL),
    (exp.Alter, StatementKind.DDL),
    (exp.TruncateTable, StatementKind.DDL),
    (exp.RenameColumn, StatementKind.DDL),
    (exp.Set, StatementKind.SET),
    (exp.Show, StatementKind.SHOW),
    (exp.Describe, StatementKind.SHOW),
    (exp.Use, StatementKind.USE),
    (exp.Transaction, StatementKind.BEGIN),
    (exp.Commit, StatementKind.COMMIT),
    (exp.Rollback, StatementKind.ROLLBACK),
)

#: Kinds whose statements are fully described by the recogniser's ``info`` (no sqlglot tree is built).
_NO_TREE = frozenset(
    {
        StatementKind.BEGIN,
        StatementKind.COMMIT,
        StatementKind.ROLLBACK,
        StatementKind.SAVEPOINT,
        StatementKind.RELEASE_SAVEPOINT,
        StatementKind.ROLLBACK_TO_SAVEPOINT,
        StatementKind.USE,
        StatementKind.ADMIN,
        StatementKind.PREPARED,
        StatementKind.ACCOUNT,
    }
)


#: "not computed yet" for :attr:`Statement.template` (None is a value: no literals)
_UNSET: Any = object()


@dataclass(slots=True)
class Statement:
    """One classified statement.

    Attributes:
        kind: its :class:`StatementKind` (a ``str``: ``stmt.kind == "select"`` holds).
        text: the statement text as given (comments stripped).
        params: bound parameter values of a prepared statement (``{"gp0": 1, ...}``), else None.
        info: parsed structure for recogniser statements, e.g. ``{"command": "purge_binary_logs_to", "to":
            "binlog.000003"}``; ``{"name": "sp1"}`` for savepoints; ``{"db": "x"}`` for USE; ``{"replace":
            True}`` for REPLACE; a SHOW's command and arguments (:data:`SHOW_PARSERS`, e.g. ``{"command":
            "variables", "scope": "GLOBAL", "like": "'gtid%'"}``), none for a SHOW no row parses.
    """

    kind: StatementKind
    text: str
    info: dict[str, Any] = field(default_factory=dict)
    _tree: exp.Expression | None = None
    #: values of the ``:gp<i>`` parameters of a prepared statement's template (engine/statements/prepared.py)
    params: dict[str, Any] | None = None
    _template: Any = _UNSET
    _assignments: tuple[Any, ...] | None = None

    @property
    def template(self) -> tuple[str, list[Any]] | None:
        """The text with its literals as ``:gk<i>`` placeholders and their values (``templatize(text)``, made
        once): the executor's plan-cache key and the key of the tables the statement names (None without
        literals)."""
        tpl = self._template
        if tpl is _UNSET:
            tpl = self._template = templatize(self.text)
        return tpl  # type: ignore[no-any-return]

    @property
    def spec(self) -> StatementSpec:
        """Its row of the statement specs (:func:`gtidkit.engine.statements.specs.spec_of`: implicit commit,
        diagnostic, privileges)."""
        return spec_of(self)

    @property
    def ddl_object(self) -> DdlObject:
        """What a DDL statement creates, drops or alters, read off its leading words (:func:`ddl_object`)."""
        return ddl_object(self.text)

    @property
    def assignments(self) -> tuple[Any, ...]:
        """A SET statement's assignments (:func:`gtidkit.engine.statements.set_parser.parse_set`, parsed once).

        Raises:
            MySQLError: 1064 / 1235 as ``parse_set`` (not remembered: asked again, it raises again).
        """
        found = self._assignments
        if found is None:
            from gtidkit.engine.statements.set_parser import parse_set

            found = self._assignments = tuple(parse_set(self.text))
        return found

    @property
    def tree(self) -> exp.Expression | None:
        """The sqlglot tree (parsed on first access; ``None`` for recogniser-only statements).

        Raises:
            MySQLError: 1064 when sqlglot cannot parse the text, 1235 for valid MySQL it only knows as a command.
        """
        if self._tree is None and self.kind not in _NO_TREE and "command" not in self.info:
            self._tree = parse_tree(self.text, replace=bool(self.info.get("replace")))
        return self._tree

    @property
    def parsed(self) -> bool:
        """True when the sqlglot tree is already built (a statement classified by its tree, not its first word)."""
        return self._tree is not None

    @property
    def command(self) -> str | None:
        """The recogniser's command name (``flush_logs``, ``warnings`` ...), or ``None``."""
        return self.info.get("command")


@dataclass(frozen=True, slots=True)
class DdlObject:
    """The object of a DDL statement by its leading words (what its privilege check and diagnostics need before
    any tree is built).

    Attributes:
        verb: the first keyword, upper case (``CREATE``, ``DROP``, ``ALTER``, ``TRUNCATE``, ``RENAME`` ...).
        kind: ``DATABASE`` (SCHEMA too), ``INDEX`` (``CREATE [UNIQUE|FULLTEXT|SPATIAL] INDEX``, ``DROP INDEX``),
            ``VIEW`` (``CREATE | ALTER [OR REPLACE] [ALGORITHM = ...] [DEFINER = ...] [SQL SECURITY ...] VIEW``;
            not DROP VIEW), else "".
        name: the database of a CREATE / DROP DATABASE (backquotes removed), else None.
    """

    verb: str
    kind: str
    name: str | None = None


_DDL_DATABASE = re.compile(r"\s*(CREATE|DROP|ALTER)\s+(?:DATABASE|SCHEMA)\b", re.IGNORECASE)
_DDL_DATABASE_NAME = re.compile(
    r"\s*(?:CREATE|DROP)\s+(?:DATABASE|SCHEMA)\s+(?:IF\s+(?:NOT\s+)?EXISTS\s+)?`?([^`\s;]+)`?", re.IGNORECASE
)
_DDL_INDEX = re.compile(
    r"\s*(?:CREATE\s+(?:UNIQUE\s+|FULLTEXT\s+|SPATIAL\s+)?|DROP\s+)INDEX\b", re.IGNORECASE
)
_DDL_VIEW = re.compile(
    r"\s*(?:CREATE|ALTER)\s+(?:OR\s+REPLACE\s+)?(?:ALGORITHM\s*=\s*\w+\s+)?(?:DEFINER\s*=\s*\S+\s+)?"
    r"(?:SQL\s+SECURITY\s+\w+\s+)?VIEW\b",
    re.IGNORECASE,
)


def ddl_object(text: str) -> DdlObject:
    """The :class:`DdlObject` of the DDL statement ``text``."""
    first = _FIRST_WORD.match(text)
    verb = first.group(1).upper() if first else ""
    if _DDL_DATABASE.match(text):
        m = _DDL_DATABASE_NAME.match(text)
        return DdlObject(verb, "DATABASE", m.group(1) if m else None)
    if _DDL_INDEX.match(text):
        return DdlObject(verb, "INDEX")
    if _DDL_VIEW.match(text):
        return DdlObject(verb, "VIEW")
    return DdlObject(verb, "")


def kind_of_tree(tree: exp.Expression) -> StatementKind:
    """The kind :data:`TREE_KINDS` gives a sqlglot tree (OTHER when no class matches)."""
    for cls, kind in TREE_KINDS:
        if isinstance(tree, cls):
            return kind
    return StatementKind.OTHER


_STR = r"('(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.|\"\")*\")"
_ID = r"(`(?:[^`]|``)+`|[A-Za-z0-9_$]+)"


def _unid(s: str) -> str:
    return s[1:-1].replace("``", "`") if s.startswith("`") else s


#: ``[AND [NO] CHAIN] [[NO] RELEASE]`` of COMMIT / ROLLBACK (sql_yacc.yy ``opt_chain`` / ``opt_release``): the
#: groups become ``info["chain"]`` / ``info["release"]`` = ``"AND CHAIN"``, ``"AND NO CHAIN"``, ``"RELEASE"``,
#: ``"NO RELEASE"`` (absent when not written); :func:`gtidkit.engine.statements.transaction.completion` reads them.
_COMPLETION = r"(?: (?P<chain>AND (?:NO )?CHAIN))?(?: (?P<release>(?:NO )?RELEASE))?"
#: one FLUSH option other than TABLES (engine/statements/flush.py FLUSH_OPTIONS; RELAY LOGS may name a channel)
_FLUSH_OPTION = (
    rf"(?:(?:BINARY|ENGINE|ERROR|GENERAL|SLOW) LOGS|RELAY LOGS(?: FOR CHANNEL {_STR})?|LOGS|HOSTS|PRIVILEGES"
    r"|OPTIMIZER_COSTS|STATUS|USER_RESOURCES)"
)

#: ``FOR CHANNEL 'name'`` of the replication statements (sql_yacc.yy ``opt_channel``: ``FOR CHANNEL
#: TEXT_STRING_sys_nonewline``, a quoted string, never an identifier): ``info["channel"]``, unquoted and lowercased
#: as the parser does (``my_casedn_str``: channel names are case-insensitive); absent without the clause.
_FOR_CHANNEL = rf"(?: FOR CHANNEL (?P<channel>{_STR}))?"
#: FLUSH RELAY LOGS FOR CHANNEL 'name' inside a FLUSH's options: ``info["channel"]`` as above
_FLUSH_CHANNEL = re.compile(rf"RELAY LOGS FOR CHANNEL ({_STR})", re.IGNORECASE)

#: (regex over normalized text, kind, command name, group-name -> info key). First match wins.
_RECOGNISER_SRC: list[tuple[str, str, str]] = [
    (
        re.compile(
            r"^(?:BEGIN(?: WORK)?|START TRANSACTION(?: (?:READ WRITE|READ ONLY|WITH CONSISTENT SNAPSHOT)"
            r"(?: ?, ?(?:READ WRITE|READ ONLY|WITH CONSISTENT SNAPSHOT))*)?)$"
        ),
        "begin",
        "begin",
    ),
    (re.compile(rf"^COMMIT(?: WORK)?{_COMPLETION}$"), "commit", "commit"),
    (
        re.compile(rf"^ROLLBACK(?: WORK)? TO(?: SAVEPOINT)? (?P<name>{_ID})$"),
        "rollback_to_savepoint",
        "rollback_to_savepoint",
    ),
    (re.compile(rf"^ROLLBACK(?: WORK)?{_COMPLETION}$"), "rollback", "rollback"),
    (re.compile(rf"^SAVEPOINT (?P<name>{_ID})$"), "savepoint", "savepoint"),
    (re.compile(rf"^RELEASE SAVEPOINT (?P<name>{_ID})$"), "release_savepoint", "release_savepoint"),
    (re.compile(rf"^USE (?P<db>{_ID})$"), "use", "use"),
    (re.compile(r"^FLUSH(?: NO_WRITE_TO_BINLOG| LOCAL)? (?:BINARY )?LOGS$"), "admin", "flush_logs"),
    (
        re.compile(r"^FLUSH(?: NO_WRITE_TO_BINLOG| LOCAL)? TABLES?(?: (?P<tables>.+?))? WITH READ LOCK$"),
        "admin",
        "flush_tables_with_read_lock",
    ),
    (  # every other FLUSH (engine/statements/flush.py): logged unless LOCAL or LOGS / BINARY LOGS
        re.compile(
            rf"^FLUSH(?P<local> NO_WRITE_TO_BINLOG| LOCAL)? (?P<options>{_FLUSH_OPTION}(?: ?, ?{_FLUSH_OPTION})*"
            r"|TABLES?(?: .+)?)$"
        ),
        "admin",
        "flush",
    ),
    (
        re.compile(r"^RESET (?:MASTER|BINARY LOGS AND GTIDS)(?: TO (?P<to>\d+))?$"),
        "admin",
        "reset_binary_logs",
    ),
    (re.compile(rf"^RESET (?:REPLICA|SLAVE)(?P<all> ALL)?{_FOR_CHANNEL}$"), "admin", "reset_replica"),
    (re.compile(rf"^PURGE (?:BINARY|MASTER) LOGS TO {_STR}$"), "admin", "purge_binary_logs_to"),
    (re.compile(r"^PURGE (?:BINARY|MASTER) LOGS BEFORE (?P<expr>.+)$"), "admin", "purge_binary_logs_before"),
    (
        re.compile(
            r"^(?P<verb>START|STOP) (?:REPLICA|SLAVE)(?: (?P<threads>IO_THREAD|SQL_THREAD|RELAY_THREAD)"
            rf"(?: ?, ?(?:IO_THREAD|SQL_THREAD|RELAY_THREAD))*)?(?: (?P<rest>UNTIL .+?))?{_FOR_CHANNEL}$"
        ),
        "admin",
        "replica_thread",
    ),
    (re.compile(rf"^CHANGE REPLICATION FILTER .+?{_FOR_CHANNEL}$"), "admin", "change_replication_filter"),
    (
        re.compile(rf"^CHANGE (?:REPLICATION SOURCE|MASTER) TO (?P<opts>.+?){_FOR_CHANNEL}$"),
        "admin",
        "change_replication_source",
    ),
    (
        re.compile(
            r"^(?P<op>ANALYZE|OPTIMIZE|CHECK|REPAIR)(?P<local> NO_WRITE_TO_BINLOG| LOCAL)? TABLES? (?P<tables>.+)$"
        ),
        "admin",
        "table_maintenance",
    ),
    (re.compile(r"^CHECKSUM TABLES? (?P<tables>.+)$"), "admin", "checksum_table"),
    (
        re.compile(r"^XA (?=.)(?P<xa>[A-Z]*).*$"),
        "admin",
        "xa",
    ),  # info["xa"]: START, END, COMMIT ... (as written)
    (re.compile(r"^LOCK TABLES? .+$"), "admin", "lock_tables"),
    (re.compile(r"^UNLOCK TABLES?$"), "admin", "unlock_tables"),
    (re.compile(r"^KILL(?: (?P<what>CONNECTION|QUERY))? (?P<id>\d+)$"), "admin", "kill"),
    (re.compile(r"^SHUTDOWN$"), "other", "shutdown"),
    (re.compile(rf"^BINLOG {_STR}$"), "admin", "binlog"),  # engine/statements/binlog_statement.py
    (  # engine/statements/load_data.py parses the rest of the statement
        re.compile(r"^LOAD DATA(?: (?:LOW_PRIORITY|CONCURRENT))?(?P<local> LOCAL)? INFILE .+$"),
        "admin",
        "load_data",
    ),
    (
        re.compile(rf"^PREPARE (?P<name>{_ID}) FROM (?:{_STR}|@(?P<var>[A-Za-z0-9_$.]+))$"),
        "prepared",
        "prepare",
    ),
    (
        re.compile(
            rf"^EXECUTE (?P<name>{_ID})(?: USING (?P<using>@[A-Za-z0-9_$.]+(?: ?, ?@[A-Za-z0-9_$.]+)*))?$"
        ),
        "prepared",
        "execute",
    ),
    (re.compile(rf"^(?:DEALLOCATE|DROP) PREPARE (?P<name>{_ID})$"), "prepared", "deallocate"),
]


_RECOGNISER = [
    (re.compile(rx.pattern if isinstance(rx, re.Pattern) else rx, re.IGNORECASE), kind, cmd)
    for rx, kind, cmd in _RECOGNISER_SRC
]


def _recognise(norm: str) -> Statement | None:
    for rx, kind, command in _RECOGNISER:
        m = rx.match(norm)
        if not m:
            continue
        info: dict[str, Any] = {"command": command}
        for k, v in m.groupdict().items():
            if v is None:
                continue
            if k in ("name", "db"):
                v = _unid(v)
            info[k] = v
        if command == "prepare" and "var" not in info:
            info["text"] = unquote_string(next(g for g in m.groups() if g and g[0] in "'\""))
        if command == "execute":
            info["using"] = tuple(
                v.strip().lstrip("@") for v in info.get("using", "").split(",") if v.strip()
            )
        if command == "purge_binary_logs_to":
            info["to"] = unquote_string(next(g for g in m.groups() if g and g[0] in "'\""))
        if command == "purge_binary_logs_before":
            e = info.pop("expr").strip()
            info["before"] = unquote_string(e) if e[:1] in "'\"" else e
        if "channel" in info:
            info["channel"] = unquote_string(info["channel"]).lower()
        if command == "replica_thread":
            info["start"] = info.pop("verb").upper() == "START"
        if command == "reset_binary_logs" and "to" in info:
            info["to"] = int(info["to"])
        if command == "change_replication_source":
            info["options"] = _parse_change_source(info.pop("opts"))
        if command in ("flush", "load_data"):
            info["local"] = "local" in info
        if command == "flush":
            fc = _FLUSH_CHANNEL.search(info["options"])
            if fc:
                info["channel"] = unquote_string(fc.group(1)).lower()
        if command == "table_maintenance":
            info["op"] = info["op"].lower()
            info["local"] = "local" in info
        if command == "reset_replica":
            info["all"] = "all" in info
        if command == "kill":
            info["id"] = int(info["id"])
            info["query_only"] = info.pop("what", "").upper() == "QUERY"
        for k in ("threads", "what"):
            if k in info:
                info[k] = info[k].upper()
        return Statement(StatementKind(kind), "", info)
    return None


def _parse_change_source(opts: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for m in re.finditer(rf"([A-Z_]+) ?= ?({_STR}|[0-9.]+|[A-Z_]+|\([0-9 ,]*\))", opts):
        v = m.group(2)
        if v[:1] in "'\"":
            val: Any = unquote_string(v)
        elif re.fullmatch(r"\d+", v):
            val = int(v)
        elif re.fullmatch(r"[0-9.]+", v):
            val = float(v)
        else:
            val = v
        out[m.group(1).lower()] = val
    return out


#: a LIKE pattern as written (the quoted literal; the provider reads it with the statement's rules)
_LIKE = r"'(?:[^'\\]|\\.|'')*'"
#: ``LIMIT [offset,] count`` of SHOW WARNINGS / ERRORS / BINLOG EVENTS / RELAYLOG EVENTS
_LIMIT = r"(?: LIMIT (?:(?P<off>\d+) ?, ?)?(?P<cnt>\d+))?"
#: ``[LIKE 'pattern' | WHERE expr]`` (RM8 "Extensions to SHOW Statements")
_FILTER = rf"(?: LIKE (?P<like>{_LIKE})| WHERE (?P<where>.+))?"

#: The SHOW parser table: (command, the words that select the row, pattern over the normalized text). Every SHOW
#: form the server answers has its rows here (DESCRIBE / DESC / EXPLAIN <table> are SHOW COLUMNS, as in MySQL's
#: grammar); the named groups become the statement's ``info`` (:func:`_parse_show`), and
#: :data:`gtidkit.engine.statements.show.SHOWS` maps each command to the one function that provides its rows. A
#: row is tried only for the statements whose deciding word (the first after ``SHOW`` and its GLOBAL / SESSION /
#: LOCAL / FULL / STORAGE modifiers, :func:`_show_word`) is one of its words: a SHOW matches one or two patterns,
#: never the table. Grammar: MySQL ``sql/sql_yacc.yy`` ``show_param`` / ``describe_command``, RM8 "SHOW Statements".
SHOW_PARSERS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("binary_log_status", ("BINARY", "MASTER"), r"^SHOW (?:BINARY LOG|(?P<master>MASTER)) STATUS$"),
    ("binary_logs", ("BINARY", "MASTER"), r"^SHOW (?:BINARY|MASTER) LOGS$"),
    (
        "binlog_events",
        ("BINLOG",),
        rf"^SHOW BINLOG EVENTS(?: IN (?P<file>{_STR}))?(?: FROM (?P<pos>\d+))?{_LIMIT}$",
    ),
    (
        "relaylog_events",
        ("RELAYLOG",),
        rf"^SHOW RELAYLOG EVENTS(?: IN (?P<file>{_STR}))?(?: FROM (?P<pos>\d+))?{_LIMIT}{_FOR_CHANNEL}$",
    ),
    (
        "replica_status",
        ("REPLICA", "SLAVE"),
        rf"^SHOW (?:REPLICA|(?P<slave>SLAVE)) STATUS{_FOR_CHANNEL}$",
    ),
    ("replicas", ("REPLICAS", "SLAVE"), r"^SHOW (?:REPLICAS|(?P<slave>SLAVE) HOSTS)$"),
    ("warnings", ("WARNINGS",), rf"^SHOW WARNINGS{_LIMIT}$"),
    ("errors", ("ERRORS",), rf"^SHOW ERRORS{_LIMIT}$"),
    ("count_warnings", ("COUNT",), r"^SHOW COUNT ?\( ?\* ?\) WARNINGS$"),
    ("count_errors", ("COUNT",), r"^SHOW COUNT ?\( ?\* ?\) ERRORS$"),
    (
        "variables",
        ("VARIABLES",),
        rf"^SHOW(?: (?P<scope>GLOBAL|SESSION|LOCAL))? VARIABLES(?: LIKE (?P<like>{_STR})| WHERE (?P<where>.+))?$",
    ),
    (
        "status",
        ("STATUS",),
        rf"^SHOW(?: (?P<scope>GLOBAL|SESSION|LOCAL))? STATUS(?: LIKE (?P<like>{_STR})| WHERE (?P<where>.+))?$",
    ),
    ("processlist", ("PROCESSLIST",), r"^SHOW (?P<full>FULL )?PROCESSLIST$"),
    ("databases", ("DATABASES", "SCHEMAS"), rf"^SHOW (?:DATABASES|SCHEMAS)(?: LIKE (?P<like>{_LIKE}))?$"),
    (
        "tables",
        ("TABLES",),
        rf"^SHOW (?P<full>FULL )?TABLES(?: (?:FROM|IN) (?P<db>{_ID}))?(?: LIKE (?P<like>{_LIKE}))?$",
    ),
    (
        "columns",
        ("COLUMNS", "FIELDS"),
        (
            rf"^SHOW (?P<full>FULL )?(?:COLUMNS|FIELDS) (?:FROM|IN) (?P<table>\S+)(?: (?:FROM|IN) (?P<db>{_ID}))?"
            rf"(?: LIKE (?P<like>{_LIKE}))?$"
        ),
    ),
    (
        "columns",
        ("DESCRIBE", "DESC", "EXPLAIN"),
        rf"^(?:DESCRIBE|DESC|EXPLAIN) (?P<table>\S+)(?: LIKE (?P<like>{_LIKE}))?$",
    ),
    ("create_table", ("CREATE",), r"^SHOW CREATE (?P<object>TABLE|VIEW) (?P<table>\S+)$"),
    (
        "index",
        ("INDEX", "INDEXES", "KEYS"),
        rf"^SHOW (?:INDEX|INDEXES|KEYS) (?:FROM|IN) (?P<table>\S+)(?: (?:FROM|IN) (?P<db>{_ID}))?$",
    ),
    # the WHERE condition may hold a quoted newline: (?s)
    (
        "table_status",
        ("TABLE",),
        rf"(?s)^SHOW TABLE STATUS(?: (?:FROM|IN) (?P<db>{_ID}))?{_FILTER} ?;?$",
    ),
    ("engines", ("ENGINES",), r"^SHOW (?:STORAGE )?ENGINES$"),
    ("engine_innodb_status", ("ENGINE",), r"^SHOW ENGINE `?INNODB`? STATUS$"),
    ("plugins", ("PLUGINS",), r"^SHOW PLUGINS$"),
    (
        "create_database",
        ("CREATE",),
        rf"^SHOW CREATE (?:DATABASE|SCHEMA) (?P<if_not_exists>IF NOT EXISTS )?(?P<db>{_ID})$",
    ),
    (
        "triggers",
        ("TRIGGERS",),
        rf"^SHOW (?:FULL )?TRIGGERS(?: (?:FROM|IN) (?P<db>{_ID}))?(?: (?:LIKE {_LIKE}|WHERE .*))?$",
    ),
    ("events", ("EVENTS",), rf"^SHOW EVENTS(?: (?:FROM|IN) (?P<db>{_ID}))?(?: (?:LIKE {_LIKE}|WHERE .*))?$"),
    (
        "routine_status",
        ("PROCEDURE", "FUNCTION"),
        rf"^SHOW (?P<routine>PROCEDURE|FUNCTION) STATUS(?: (?:LIKE {_LIKE}|WHERE .*))?$",
    ),
    # the account name and the rest: the account statements' grammar (engine/accounts/statements.py)
    ("grants", ("GRANTS",), r"(?s)^SHOW GRANTS(?![A-Za-z0-9_$]).*$"),
    ("create_user", ("CREATE",), r"(?s)^SHOW CREATE USER(?![A-Za-z0-9_$]).*$"),
)

#: SHOW modifiers skipped to find a SHOW's deciding word
_SHOW_MODIFIERS = frozenset({"GLOBAL", "SESSION", "LOCAL", "FULL", "STORAGE"})
#: deciding word -> the rows tried for it, in table order
_SHOW_ROWS: dict[str, list[tuple[str, re.Pattern[str]]]] = {}
for _command, _words, _pattern in SHOW_PARSERS:
    for _word in _words:
        _SHOW_ROWS.setdefault(_word, []).append((_command, re.compile(_pattern, re.IGNORECASE)))
#: the arguments that are integers, and the flags (present or not)
_SHOW_INTS = ("pos", "off", "cnt")
_SHOW_FLAGS = {
    "binary_log_status": ("master",),
    "replica_status": ("slave",),
    "replicas": ("slave",),
    "processlist": ("full",),
    "tables": ("full",),
    "columns": ("full",),
    "create_database": ("if_not_exists",),
}


def _show_word(norm: str) -> str:
    """The word that decides which :data:`SHOW_PARSERS` rows a normalized SHOW / DESCRIBE text may match."""
    words = norm.split(" ", 4)
    if words[0].upper() != "SHOW":
        return words[0].upper()
    for w in words[1:]:
        word = w.upper()
        if word not in _SHOW_MODIFIERS:
            return word.split("(", 1)[0]  # COUNT(*)
    return ""


def _parse_show(norm: str) -> dict[str, Any] | None:
    """The ``info`` of the normalized SHOW / DESCRIBE text ``norm`` by its :data:`SHOW_PARSERS` row (``command``
    and the named arguments), or None when no row matches (the statement then answers 1064 or 1235)."""
    for command, rx in _SHOW_ROWS.get(_show_word(norm), ()):
        m = rx.match(norm)
        if m is None:
            continue
        info: dict[str, Any] = {"command": command}
        for k, v in m.groupdict().items():
            if v is not None:
                info[k] = v
        for k in _SHOW_INTS:
            if k in info:
                info[k] = int(info[k])
        for k in _SHOW_FLAGS.get(command, ()):
            info[k] = k in info
        if "file" in info:
            info["file"] = unquote_string(info["file"])
        if "channel" in info:
            info["channel"] = unquote_string(info["channel"]).lower()
        if "db" in info:
            info["db"] = _unid(info["db"])
        if "object" in info:
            info["object"] = info["object"].upper()
        return info
    return None


_FIRST_WORD = re.compile(r"\s*([A-Za-z]+)")
#: ``SELECT SQL_NO_CACHE ...`` (mysqldump / mariadb-dump: ``SELECT /*!40001 SQL_NO_CACHE */ * FROM t``). MySQL 8
#: parses the modifier, ignores it (no query cache since 8.0) and warns 1681 (``sql/sql_yacc.yy``
#: ``select_option``: SQL_NO_CACHE_SYM pushes ER_WARN_DEPRECATED_SYNTAX_NO_REPLACEMENT).
_SQL_NO_CACHE = re.compile(r"(\s*SELECT\s+)SQL_NO_CACHE(?![A-Za-z0-9_$])\s*", re.IGNORECASE)
#: First words of the statements the recogniser knows; other statements skip it (hot path).
_RECOGNISER_WORDS = frozenset(
    [
        "BEGIN",
        "START",
        "COMMIT",
        "ROLLBACK",
        "SAVEPOINT",
        "RELEASE",
        "USE",
        "FLUSH",
        "CHECKSUM",
        "RESET",
        "PURGE",
        "STOP",
        "CHANGE",
        "XA",
        "LOCK",
        "UNLOCK",
        "KILL",
        "SHUTDOWN",
        "PREPARE",
        "EXECUTE",
        "DEALLOCATE",
        "DROP",
        "ANALYZE",
        "OPTIMIZE",
        "CHECK",
        "REPAIR",
        "BINLOG",
        "LOAD",
    ]
)
#: First words of the account statements (engine/accounts/statements.py decides on the words after them).
_ACCOUNT_WORDS = frozenset(["CREATE", "ALTER", "DROP", "RENAME", "GRANT", "REVOKE", "SET"])
#: First keyword -> kind, for the families whose sqlglot tree class that keyword decides (tree parsed lazily).
_FIRST_WORD_KIND = {
    "SELECT": StatementKind.SELECT,
    "WITH": StatementKind.SELECT,
    "(": StatementKind.SELECT,
    "VALUES": StatementKind.SELECT,
    "TABLE": StatementKind.SELECT,
    "INSERT": StatementKind.DML,
    "UPDATE": StatementKind.DML,
    "DELETE": StatementKind.DML,
    "REPLACE": StatementKind.DML,
    "CREATE": StatementKind.DDL,
    "DROP": StatementKind.DDL,
    "ALTER": StatementKind.DDL,
    "TRUNCATE": StatementKind.DDL,
    "RENAME": StatementKind.DDL,
    "SET": StatementKind.SET,
    "SHOW": StatementKind.SHOW,
    "DESCRIBE": StatementKind.SHOW,
    "DESC": StatementKind.SHOW,
    "EXPLAIN": StatementKind.SHOW,  # EXPLAIN t = SHOW COLUMNS; EXPLAIN <statement> is caught before
}


#: kinds whose classification is remembered by text (their ``info`` holds only plain values)
_CACHED_KINDS = frozenset({StatementKind.BEGIN, StatementKind.COMMIT, StatementKind.ROLLBACK})
#: statement text -> (kind, text, info) of a transaction-control statement classified before
_TRANSACTION_CONTROL: dict[str, tuple[StatementKind, str, dict[str, Any]]] = {}


_LOAD_LOCAL = re.compile(
    r"^\s*LOAD\s+(?:DATA|XML)\s+(?:(?:LOW_PRIORITY|CONCURRENT)\s+)?LOCAL\s+INFILE\b", re.IGNORECASE
)


# DML forms MySQL's parser gives a command of their own (SQLCOM_INSERT_SELECT, SQLCOM_UPDATE_MULTI ...): the
# statement counters tell them apart (engine/statements/com_counters.py)
_DML_NAME = r"(?:`(?:[^`]|``)*`|[\w$]+)"
_DML_TABLE = rf"{_DML_NAME}(?:\s*\.\s*{_DML_NAME})?"
_INSERT_SELECT = re.compile(
    r"\s*(?:INSERT|REPLACE)(?:\s+(?:LOW_PRIORITY|DELAYED|HIGH_PRIORITY|IGNORE))*(?:\s+INTO)?\s+"
    rf"{_DML_TABLE}(?:\s+PARTITION\s*\([^)]*\))?\s*(?:\([^()]*\)\s*)?(?:\(\s*)*(?:SELECT|WITH|TABLE)\b",
    re.IGNORECASE,
)
_UPDATE_TABLES = re.compile(r"\s*UPDATE\b(.*?)\bSET\b", re.IGNORECASE | re.DOTALL)
_SINGLE_DELETE = re.compile(
    rf"\s*DELETE(?:\s+(?:LOW_PRIORITY|QUICK|IGNORE))*\s+FROM\s+{_DML_TABLE}(?:\s+(?:AS\s+)?"
    rf"(?!WHERE\b|ORDER\b|LIMIT\b|PARTITION\b){_DML_NAME})?(?:\s+PARTITION\s*\([^)]*\))?\s*(?:$|WHERE\b|ORDER\b|LIMIT\b)",
    re.IGNORECASE,
)
_TABLE_LIST = re.compile(r",|\bJOIN\b", re.IGNORECASE)


def dml_form(text: str) -> str:
    """The MySQL command of a DML statement's text (a statement classified ``dml``): ``insert`` /
    ``insert_select``, ``replace`` / ``replace_select`` (``INSERT ... SELECT | TABLE | WITH``), ``update`` /
    ``update_multi`` (a table list or a join before SET), ``delete`` / ``delete_multi`` (``DELETE t1 FROM ...``,
    ``DELETE FROM t1 USING ...``, a join): ``sql/sql_yacc.yy`` ``insert_stmt`` / ``update_stmt`` /
    ``delete_stmt``, which set SQLCOM_INSERT_SELECT, SQLCOM_UPDATE_MULTI, SQLCOM_DELETE_MULTI."""
    first = text.lstrip()[:7].upper()
    if first.startswith("INSERT"):
        return "insert_select" if _INSERT_SELECT.match(text) else "insert"
    if first.startswith("REPLACE"):
        return "replace_select" if _INSERT_SELECT.match(text) else "replace"
    if first.startswith("UPDATE"):
        m = _UPDATE_TABLES.match(text)
        return "update_multi" if m and _TABLE_LIST.search(m.group(1)) else "update"
    return "delete" if _SINGLE_DELETE.match(text) else "delete_multi"


def is_load_data_local(text: str) -> bool:
    """``text`` is a LOAD DATA / LOAD XML ... LOCAL INFILE statement (its client-side file form, which
    ``local_infile`` governs: engine/statements/load_data.py)."""
    return _LOAD_LOCAL.match(text) is not None


def classify(stmt_text: str) -> Statement:
    """Classify one statement (no trailing ``;``): recogniser for what sqlglot gets wrong, else sqlglot's tree.

    Never raises for bad SQL: a statement sqlglot cannot parse is kind OTHER, and its handler reports 1064 (or
    1235 for valid MySQL the engine does not run).
    """
    known = _TRANSACTION_CONTROL.get(stmt_text)
    if known is not None:  # BEGIN / COMMIT / ROLLBACK as sent before: a fresh Statement, same content
        return Statement(known[0], known[1], dict(known[2]))
    text = strip_comments(stmt_text)
    m = _FIRST_WORD.match(text)
    first = m.group(1).upper() if m else text[:1]
    if first in _RECOGNISER_WORDS:
        st = _recognise(normalize(text))
        if st is not None:
            st.text = text
            if st.kind in _CACHED_KINDS and all(type(v) in (str, bool, type(None)) for v in st.info.values()):
                if len(_TRANSACTION_CONTROL) >= 256:
                    _TRANSACTION_CONTROL.clear()
                _TRANSACTION_CONTROL[stmt_text] = (st.kind, st.text, dict(st.info))
            return st
    if first in _ACCOUNT_WORDS and is_account_statement(text):
        return Statement(StatementKind.ACCOUNT, text, info={"keyword": first})
    if first.startswith("("):
        first = "("
    if first in ("EXPLAIN", "DESCRIBE", "DESC") and explain_target(text) is not None:
        # EXPLAIN <statement>: a read-only SHOW-like statement answered by engine/sql/explain.py
        return Statement(StatementKind.SHOW, text, {"explain": True})
    info: dict[str, Any] = {}
    kind = _FIRST_WORD_KIND.get(first)
    if kind is None:
        try:
            tree = parse_tree(text)
        except MySQLError:
            return Statement(StatementKind.OTHER, text, info)
        kind = kind_of_tree(tree)
        if kind in _NO_TREE:
            kind = StatementKind.OTHER  # e.g. a form the recogniser rejected: let its handler report it
        return Statement(kind, text, info, tree)
    if kind == StatementKind.SELECT and "FILE" in text.upper():
        # SELECT ... INTO OUTFILE / DUMPFILE (engine/statements/into_file.py): the SELECT runs without the clause
        from gtidkit.engine.statements.export_options import split_into_file

        split = split_into_file(text)
        if split is not None:
            text, info["into_file"] = split
    if first == "REPLACE":
        info["replace"] = True
    elif first == "SELECT" and "NO_CACHE" in text.upper():
        m = _SQL_NO_CACHE.match(text)
        if m:
            text = m.group(1) + text[m.end() :]
            info["sql_no_cache"] = True
    if kind == StatementKind.SHOW:  # SHOW / DESCRIBE: its SHOW_PARSERS row (none: the handler reports it)
        info = _parse_show(normalize(text)) or info
    return Statement(kind, text, info)
