"""The statement counters of SHOW STATUS: ``Com_xxx`` (one per statement kind), ``Questions`` and ``Queries``.

MySQL keeps them per thread (``System_status_var``: ``com_stat[SQLCOM_...]``, ``com_other``, ``com_stmt_*``,
``questions``) and answers SHOW GLOBAL STATUS with the sum of every live thread's and of what ended threads and
FLUSH STATUS added to the global ones (``calc_sum_of_all_status``). Here a session keeps one list of ints
(:func:`new_counters`, indexed by the slots of this module); the engine server adds a closed session's list to its
own (``Server.ended_status``), and a multi-worker server sums the workers (protocol/admin.py ``OP_STATUS``).

Which statement bumps which counter (``mysql_execute_command``: ``com_stat[lex->sql_command]++`` before the
statement's privilege checks, so a statement that fails still counts; one that does not parse counts nothing):
:func:`slot_of` reads it off the classified statement, once per statement, from its parser command or kind. The
client commands that are no statement (``dispatch_command``) count as :data:`COMMAND_COUNTERS` says (COM_PING and
COM_DEBUG, COM_CHANGE_USER, COM_BINLOG_DUMP ... are ``Com_admin_commands``; COM_STATISTICS is
``Com_show_status``; COM_FIELD_LIST ``Com_show_fields``; the COM_STMT_* commands their ``Com_stmt_*``).
``PREPARE`` / ``EXECUTE`` / ``DEALLOCATE PREPARE`` count ``Com_prepare_sql`` / ``Com_execute_sql`` /
``Com_dealloc_sql`` and ``Com_stmt_prepare`` / ``Com_stmt_execute`` / ``Com_stmt_close``; an executed prepared
statement also counts as the statement it is (``Com_select`` ...), as MySQL's ``Prepared_statement::execute``
runs ``mysql_execute_command``.

``Questions`` counts the statements clients sent (every command but COM_STATISTICS, COM_PING, COM_STMT_PREPARE,
COM_STMT_CLOSE and COM_STMT_RESET: ``CF_SKIP_QUESTIONS``; each statement of a multi-statement COM_QUERY), per
session. ``Queries`` is the server's query id (``show_queries`` returns ``thd->query_id``, which every statement
takes from the global counter, statements of stored programs included, and since 8.0 every other client command
too: ``dispatch_command`` calls ``next_query_id()`` for each, COM_PING and COM_STATISTICS included, which the
manual's "does not count COM_PING or COM_STATISTICS" still says of 5.7's ``CF_SKIP_QUERY_ID``): the number of
statements and commands the whole server has run, the same value in SESSION and GLOBAL scope. Here it is the sum
of every session's count.

The Performance Schema's ``global_status`` / ``session_status`` tables have no ``Com_`` rows (RM8 "Performance
Schema Status Variable Tables": "The Performance Schema does not collect statistics for Com_xxx status
variables"); SHOW STATUS lists them.

Sources: ``com_status_vars`` (``sql/mysqld.cc``, MySQL 8.0: the names and their order), RM8 "Server Status
Variables" (Com_xxx, Com_stmt_xxx, Questions, Queries; the 8.0.22 / 8.0.23 names: ``Com_replica_start`` and
``Com_slave_start`` count the same statements ...), ``sql/sql_parse.cc`` (``dispatch_command``,
``server_command_flags``), mysql-test ``main/r/status.result`` (Com_show_status counts the SHOW that reads it).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from gtidkit.engine.statements.classify import dml_form

if TYPE_CHECKING:
    from gtidkit.engine.statements.classify import Statement

__all__ = [
    "COMMAND_COUNTERS",
    "COMMAND_SLOTS",
    "COM_NAMES",
    "QUERIES",
    "QUESTIONS",
    "RUN_STATEMENTS",
    "SIZE",
    "add_into",
    "com_rows",
    "describe",
    "new_counters",
    "slot",
    "slot_of",
    "statement_status",
]

#: every ``Com_`` counter of MySQL 8.0, in ``com_status_vars`` order (the order SHOW STATUS lists them in); a
#: name and its 8.0.22 / 8.0.23 replacement are two rows of one counter (:data:`_ALIASES`)
COM_NAMES: tuple[str, ...] = (
    "admin_commands",
    "assign_to_keycache",
    "alter_db",
    "alter_event",
    "alter_function",
    "alter_instance",
    "alter_procedure",
    "alter_resource_group",
    "alter_server",
    "alter_table",
    "alter_tablespace",
    "alter_user",
    "alter_user_default_role",
    "analyze",
    "begin",
    "binlog",
    "call_procedure",
    "change_db",
    "change_master",
    "change_repl_filter",
    "change_replication_source",
    "check",
    "checksum",
    "clone",
    "commit",
    "create_db",
    "create_event",
    "create_function",
    "create_index",
    "create_procedure",
    "create_role",
    "create_server",
    "create_table",
    "create_resource_group",
    "create_trigger",
    "create_udf",
    "create_user",
    "create_view",
    "create_spatial_reference_system",
    "dealloc_sql",
    "delete",
    "delete_multi",
    "do",
    "drop_db",
    "drop_event",
    "drop_function",
    "drop_index",
    "drop_procedure",
    "drop_resource_group",
    "drop_role",
    "drop_server",
    "drop_spatial_reference_system",
    "drop_table",
    "drop_trigger",
    "drop_user",
    "drop_view",
    "empty_query",
    "execute_sql",
    "explain_other",
    "flush",
    "get_diagnostics",
    "grant",
    "grant_roles",
    "ha_close",
    "ha_open",
    "ha_read",
    "help",
    "import",
    "insert",
    "insert_select",
    "install_component",
    "install_plugin",
    "kill",
    "load",
    "lock_instance",
    "lock_tables",
    "optimize",
    "preload_keys",
    "prepare_sql",
    "purge",
    "purge_before_date",
    "release_savepoint",
    "rename_table",
    "rename_user",
    "repair",
    "replace",
    "replace_select",
    "reset",
    "resignal",
    "restart",
    "revoke",
    "revoke_all",
    "revoke_roles",
    "rollback",
    "rollback_to_savepoint",
    "savepoint",
    "select",
    "set_option",
    "set_password",
    "set_resource_group",
    "set_role",
    "signal",
    "show_binlog_events",
    "show_binlogs",
    "show_charsets",
    "show_collations",
    "show_create_db",
    "show_create_event",
    "show_create_func",
    "show_create_proc",
    "show_create_table",
    "show_create_trigger",
    "show_databases",
    "show_engine_logs",
    "show_engine_mutex",
    "show_engine_status",
    "show_events",
    "show_errors",
    "show_fields",
    "show_function_code",
    "show_function_status",
    "show_grants",
    "show_keys",
    "show_master_status",
    "show_open_tables",
    "show_plugins",
    "show_privileges",
    "show_procedure_code",
    "show_procedure_status",
    "show_processlist",
    "show_profile",
    "show_profiles",
    "show_relaylog_events",
    "show_replicas",
    "show_slave_hosts",
    "show_replica_status",
    "show_slave_status",
    "show_status",
    "show_storage_engines",
    "show_table_status",
    "show_tables",
    "show_triggers",
    "show_variables",
    "show_warnings",
    "show_create_user",
    "shutdown",
    "replica_start",
    "slave_start",
    "replica_stop",
    "slave_stop",
    "group_replication_start",
    "group_replication_stop",
    "stmt_execute",
    "stmt_close",
    "stmt_fetch",
    "stmt_prepare",
    "stmt_reset",
    "stmt_send_long_data",
    "truncate",
    "uninstall_component",
    "uninstall_plugin",
    "unlock_instance",
    "unlock_tables",
    "update",
    "update_multi",
    "xa_commit",
    "xa_end",
    "xa_prepare",
    "xa_recover",
    "xa_rollback",
    "xa_start",
    "stmt_reprepare",
)
#: a deprecated name -> the counter it shows (RM8: "Both versions of the statement update the same status variables")
_ALIASES = {
    "change_master": "change_replication_source",
    "show_slave_hosts": "show_replicas",
    "show_slave_status": "show_replica_status",
    "slave_start": "replica_start",
    "slave_stop": "replica_stop",
}
_COUNTERS = tuple(n for n in COM_NAMES if n not in _ALIASES)
_SLOTS: dict[str, int] = {name: i for i, name in enumerate(_COUNTERS)}
_SLOTS.update((old, _SLOTS[new]) for old, new in _ALIASES.items())
#: the slot of ``Questions`` and of this session's statement count (its share of ``Queries``)
QUESTIONS = len(_COUNTERS)
QUERIES = QUESTIONS + 1
#: the length of a counter list
SIZE = QUERIES + 1


def new_counters() -> list[int]:
    """A zeroed counter list (a session's, or a server's sum)."""
    return [0] * SIZE


def slot(name: str) -> int:
    """The slot of ``Com_<name>`` (``name`` without the prefix: ``"select"``, ``"stmt_execute"`` ...).

    Raises:
        KeyError: no such counter.
    """
    return _SLOTS[name]


def com_rows(counts: list[int]) -> list[tuple[str, int]]:
    """``(Com_name, value)`` of every Com_ counter of ``counts``, in MySQL's order (aliases included)."""
    return [(f"Com_{name}", counts[_SLOTS[name]]) for name in COM_NAMES]


#: client commands -> (the Com_ counter they bump or None, whether they count in Questions) (``dispatch_command``;
#: ``server_command_flags``' CF_SKIP_QUESTIONS). Each also takes a query id (Queries), except those that run
#: statements in the engine (:data:`RUN_STATEMENTS`), whose statements take theirs as they run: COM_QUERY and
#: COM_STMT_EXECUTE count their statement's own Com_ counter there, COM_INIT_DB and COM_PROCESS_KILL run USE / KILL.
COMMAND_COUNTERS: dict[str, tuple[int | None, bool]] = {
    "query": (None, True),
    "init_db": (None, True),
    "process_kill": (None, True),
    "quit": (None, True),
    "register_replica": (None, True),
    "ping": (_SLOTS["admin_commands"], False),
    "statistics": (_SLOTS["show_status"], False),
    "debug": (_SLOTS["admin_commands"], True),
    "change_user": (_SLOTS["admin_commands"], True),
    "reset_connection": (_SLOTS["admin_commands"], True),
    "binlog_dump": (_SLOTS["admin_commands"], True),
    "field_list": (_SLOTS["show_fields"], True),
    "set_option": (_SLOTS["set_option"], True),
    "stmt_prepare": (_SLOTS["stmt_prepare"], False),
    "stmt_execute": (_SLOTS["stmt_execute"], True),
    "stmt_send_long_data": (_SLOTS["stmt_send_long_data"], True),
    "stmt_close": (_SLOTS["stmt_close"], False),
    "stmt_reset": (_SLOTS["stmt_reset"], False),
    "stmt_fetch": (_SLOTS["stmt_fetch"], True),
}
#: the commands whose statements count their own query ids in the engine
RUN_STATEMENTS = frozenset({"query", "init_db", "process_kill", "stmt_execute"})
#: command -> the counter slots one such command bumps: its Com_ counter, Questions, Queries (as
#: :data:`COMMAND_COUNTERS` and :data:`RUN_STATEMENTS` say; worked out once for ``Session.count_command``)
COMMAND_SLOTS: dict[str, tuple[int, ...]] = {
    command: (
        *(() if com is None else (com,)),
        *((QUESTIONS,) if question else ()),
        *(() if command in RUN_STATEMENTS else (QUERIES,)),
    )
    for command, (com, question) in COMMAND_COUNTERS.items()
}

_SELECT = _SLOTS["select"]
#: a parser command (classify.py's recogniser and SHOW rows) -> its counter
_COMMANDS: dict[str, int] = {
    command: _SLOTS[name]
    for command, name in {
        "begin": "begin",
        "commit": "commit",
        "rollback": "rollback",
        "savepoint": "savepoint",
        "release_savepoint": "release_savepoint",
        "rollback_to_savepoint": "rollback_to_savepoint",
        "use": "change_db",
        "flush_logs": "flush",
        "flush": "flush",
        "flush_tables_with_read_lock": "flush",
        "reset_binary_logs": "reset",
        "reset_replica": "reset",
        "purge_binary_logs_to": "purge",
        "purge_binary_logs_before": "purge_before_date",
        "change_replication_filter": "change_repl_filter",
        "change_replication_source": "change_replication_source",
        "checksum_table": "checksum",
        "lock_tables": "lock_tables",
        "unlock_tables": "unlock_tables",
        "kill": "kill",
        "shutdown": "shutdown",
        "binlog": "binlog",
        "load_data": "load",
        "prepare": "prepare_sql",
        "execute": "execute_sql",
        "deallocate": "dealloc_sql",
        # SHOWs (SHOW COUNT(*) WARNINGS is a SELECT of @@warning_count in MySQL's grammar)
        "binary_log_status": "show_master_status",
        "binary_logs": "show_binlogs",
        "binlog_events": "show_binlog_events",
        "relaylog_events": "show_relaylog_events",
        "replica_status": "show_replica_status",
        "replicas": "show_replicas",
        "warnings": "show_warnings",
        "errors": "show_errors",
        "count_warnings": "select",
        "count_errors": "select",
        "variables": "show_variables",
        "status": "show_status",
        "processlist": "show_processlist",
        "databases": "show_databases",
        "tables": "show_tables",
        "columns": "show_fields",
        "create_table": "show_create_table",
        "index": "show_keys",
        "table_status": "show_table_status",
        "engines": "show_storage_engines",
        "engine_innodb_status": "show_engine_status",
        "plugins": "show_plugins",
        "create_database": "show_create_db",
        "triggers": "show_triggers",
        "events": "show_events",
        "grants": "show_grants",
        "create_user": "show_create_user",
    }.items()
}
#: commands whose counter depends on a word of the statement
_REPLICA_THREAD = (_SLOTS["replica_stop"], _SLOTS["replica_start"])
_MAINTENANCE = {op: _SLOTS[op] for op in ("analyze", "optimize", "check", "repair")}
_XA_SLOTS = {
    "START": _SLOTS["xa_start"],
    "BEGIN": _SLOTS["xa_start"],
    "END": _SLOTS["xa_end"],
    "PREPARE": _SLOTS["xa_prepare"],
    "COMMIT": _SLOTS["xa_commit"],
    "ROLLBACK": _SLOTS["xa_rollback"],
    "RECOVER": _SLOTS["xa_recover"],
}
#: the object word of a CREATE / ALTER with clauses before it (OR REPLACE, DEFINER = ..., ALGORITHM = ...)
_OBJECT_WORD = re.compile(r"\b(VIEW|TRIGGER|EVENT|PROCEDURE|FUNCTION|TABLE)\b", re.IGNORECASE)
#: GRANT / REVOKE of privileges name their object (ON ...); of roles they do not
_ON = re.compile(r"\bON\b", re.IGNORECASE)

#: first word of a statement of another kind -> its counter (what the classifier leaves as ``ddl`` / ``other``)
_FIRST_WORD = re.compile(r"\s*([A-Za-z]+)(?:\s+([A-Za-z]+))?(?:\s+([A-Za-z]+))?")
_DDL_OBJECTS = {
    "DATABASE": "db",
    "SCHEMA": "db",
    "TABLE": "table",
    "VIEW": "view",
    "INDEX": "index",
    "TRIGGER": "trigger",
    "EVENT": "event",
    "PROCEDURE": "procedure",
    "FUNCTION": "function",
    "SERVER": "server",
    "TABLESPACE": "tablespace",
    "ROLE": "role",
    "USER": "user",
}
_OTHER_WORDS = {
    "DO": "do",
    "CALL": "call_procedure",
    "HELP": "help",
    "SIGNAL": "signal",
    "RESIGNAL": "resignal",
    "GET": "get_diagnostics",
    "TRUNCATE": "truncate",
    "CLONE": "clone",
    "RESTART": "restart",
    "IMPORT": "import",
    "HANDLER": "ha_read",
}


def slot_of(stmt: Statement) -> int | None:
    """The counter slot ``stmt`` bumps (None: none, a statement that does not parse or a SHOW this server does not
    know). Cheap for the hot kinds: a SELECT is one comparison, a DML statement one anchored regex.

    Args:
        stmt: a classified statement (:func:`gtidkit.engine.statements.classify.classify`).
    """
    kind = stmt.kind
    if kind == "select":
        return _SELECT
    if kind == "dml":
        return _dml_slot(stmt.text)
    if kind == "set":
        return _SET_SLOT
    info = stmt.info
    command = info.get("command")
    if command is not None:
        found = _COMMANDS.get(command)
        if found is not None:
            return found
        if command == "replica_thread":
            return _REPLICA_THREAD[bool(info.get("start"))]
        if command == "table_maintenance":
            return _MAINTENANCE.get(str(info.get("op")))
        if command == "xa":
            return _XA_SLOTS.get(str(info.get("xa", "")).upper())
        if command == "routine_status":
            routine = str(info.get("routine", "")).upper()
            return _SLOTS["show_function_status" if routine == "FUNCTION" else "show_procedure_status"]
        return None
    if kind == "show":
        if info.get(
            "explain"
        ):  # EXPLAIN <statement>: counted as the statement (sql_command is the statement's)
            return _explained_slot(stmt.text)
        return None
    if kind == "account":
        return _account_slot(stmt.text)
    if kind == "ddl" or kind == "other":
        return _word_slot(stmt.text)
    return None


_SET_SLOT = _SLOTS["set_option"]


#: DML text -> its counter slot: a prepared statement's template (and an application's statement texts) come
#: back with every execution, and the form is a few regular expressions over the text. Only texts up to
#: :data:`_KEPT_TEXT` characters are kept (a dump's multi-row INSERTs are megabytes each and never come back).
_DML_SLOTS: dict[str, int] = {}
_KEPT_TEXT = 1024


def _dml_slot(text: str) -> int:
    slot = _DML_SLOTS.get(text)
    if slot is None:
        slot = _SLOTS[dml_form(text)]  # insert, insert_select, update_multi ... (classify.py reads the form)
        if len(text) <= _KEPT_TEXT:
            if len(_DML_SLOTS) >= 4096:
                _DML_SLOTS.clear()
            _DML_SLOTS[text] = slot
    return slot


def _explained_slot(text: str) -> int | None:
    from gtidkit.engine.sql.explain import explain_target

    target = explain_target(text)
    if not isinstance(target, str):
        return _SELECT
    word = target.lstrip()[:7].upper()
    if word.startswith(("INSERT", "REPLACE", "UPDATE", "DELETE")):
        return _dml_slot(target)
    return _SELECT


def _account_slot(text: str) -> int | None:
    m = _FIRST_WORD.match(text)
    if m is None:
        return None
    verb, second, third = (w.upper() if w else "" for w in m.groups())
    upper = text.upper()
    if verb == "GRANT":  # GRANT role TO user names no object: SQLCOM_GRANT_ROLE
        return _SLOTS["grant" if _ON.search(upper.split(" TO ", 1)[0]) else "grant_roles"]
    if verb == "REVOKE":  # REVOKE ALL PRIVILEGES, GRANT OPTION FROM user: SQLCOM_REVOKE_ALL
        if second == "ALL" and "GRANT OPTION" in upper and not _ON.search(upper.split(" FROM ", 1)[0]):
            return _SLOTS["revoke_all"]
        return _SLOTS["revoke" if _ON.search(upper.split(" FROM ", 1)[0]) else "revoke_roles"]
    if verb == "SET":
        if second == "DEFAULT":
            return _SLOTS["alter_user_default_role"]
        return _SLOTS[
            "set_password" if second == "PASSWORD" else "set_role" if second == "ROLE" else "set_option"
        ]
    if verb == "ALTER" and second == "USER" and "DEFAULT ROLE" in upper:
        return _SLOTS["alter_user_default_role"]
    obj = _DDL_OBJECTS.get(second if second not in ("IF",) else third)
    if obj in ("user", "role"):
        return _SLOTS.get(f"{verb.lower()}_{obj}")
    return None


def _word_slot(text: str) -> int | None:
    m = _FIRST_WORD.match(text)
    if m is None:
        return _SLOTS["empty_query"] if not text.strip() else None
    verb, second, third = (w.upper() if w else "" for w in m.groups())
    if verb in ("CREATE", "DROP", "ALTER"):
        if second in ("UNIQUE", "FULLTEXT", "SPATIAL"):
            return _SLOTS[f"{verb.lower()}_index"]
        if second == "TEMPORARY":
            obj = "table"
        elif second in ("OR", "ALGORITHM", "SQL", "DEFINER"):  # CREATE OR REPLACE / DEFINER = ... VIEW ...
            found = _OBJECT_WORD.search(text)
            obj = found.group(1).lower() if found else ""
        else:
            obj = _DDL_OBJECTS.get(second, "")
        if obj == "function" and verb == "CREATE" and "SONAME" in text.upper():
            return _SLOTS["create_udf"]
        return _SLOTS.get(f"{verb.lower()}_{obj}")
    if verb == "RENAME":
        return _SLOTS["rename_user" if second == "USER" else "rename_table"]
    if verb == "HANDLER":
        return _SLOTS["ha_open" if third == "OPEN" else "ha_close" if third == "CLOSE" else "ha_read"]
    if verb == "INSTALL" or verb == "UNINSTALL":
        return _SLOTS.get(f"{verb.lower()}_{'component' if second == 'COMPONENT' else 'plugin'}")
    if verb == "LOCK" and second == "INSTANCE":
        return _SLOTS["lock_instance"]
    if verb == "UNLOCK" and second == "INSTANCE":
        return _SLOTS["unlock_instance"]
    name = _OTHER_WORDS.get(verb)
    return None if name is None else _SLOTS[name]


def add_into(total: list[int], counts: list[int]) -> None:
    """Add ``counts`` into ``total`` slot by slot (a closed session's counters into its server's)."""
    for i, n in enumerate(counts):
        if n:
            total[i] += n


def describe(counts: list[int], *, queries: int | None = None) -> dict[str, Any]:
    """``Questions``, ``Queries`` (``queries``, else this list's own count) and every Com_ row of ``counts``
    (name -> int), as OP_STATUS answers them and SHOW STATUS prints them."""
    out: dict[str, Any] = dict(com_rows(counts))
    out["Questions"] = counts[QUESTIONS]
    out["Queries"] = counts[QUERIES] if queries is None else queries
    return out


def statement_status(server: Any) -> dict[str, int]:
    """This process's statement counters by status name (``Com_xxx``, ``Questions``, ``Queries``): its sessions'
    sums (``Server.statement_counts``); a multi-worker server adds the other workers' (protocol/admin.py)."""
    return describe(server.statement_counts())
