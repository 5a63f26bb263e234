"""``optimizer_switch``: MySQL's flag-set variable, kept and shown as MySQL 8.4 does.

gtidkit has no cost-based optimizer, so the flags change nothing; they are kept because clients set them on
connect (mariadb-dump sends ``SET optimizer_switch='semijoin=off'``) and read them back.

Rules (RM8.4 "Switchable Optimizations", 10.9.2; ``Sys_var_flagset`` in ``sql/sys_vars.h``):

- the value is a comma-separated list of commands: ``default`` (every flag to its default, applied first),
  ``name=on``, ``name=off``, ``name=default``; flags not named keep their current value;
- an unknown flag, a value other than on/off/default, or a flag named twice fails with
  ER_WRONG_VALUE_FOR_VAR 1231 and leaves the variable unchanged;
- the value reads back as every flag in declaration order, ``name=on|off`` joined by commas.
"""

from __future__ import annotations

from gtidkit.mysql_errors import mysql_error

__all__ = ["DEFAULT", "FLAGS", "merge"]

#: The flags in MySQL 8.4's declaration order with their defaults (RM8.4 10.9.2, ``SELECT @@optimizer_switch``).
FLAGS: tuple[tuple[str, bool], ...] = (
    ("index_merge", True),
    ("index_merge_union", True),
    ("index_merge_sort_union", True),
    ("index_merge_intersection", True),
    ("engine_condition_pushdown", True),
    ("index_condition_pushdown", True),
    ("mrr", True),
    ("mrr_cost_based", True),
    ("block_nested_loop", True),
    ("batched_key_access", False),
    ("materialization", True),
    ("semijoin", True),
    ("loosescan", True),
    ("firstmatch", True),
    ("duplicateweedout", True),
    ("subquery_materialization_cost_based", True),
    ("use_index_extensions", True),
    ("condition_fanout_filter", True),
    ("derived_merge", True),
    ("use_invisible_indexes", False),
    ("skip_scan", True),
    ("hash_join", True),
    ("subquery_to_derived", False),
    ("prefer_ordering_index", True),
    ("hypergraph_optimizer", False),
    ("derived_condition_pushdown", True),
    ("hash_set_operations", True),
)
_DEFAULTS = dict(FLAGS)


def _text(flags: dict[str, bool]) -> str:
    return ",".join(f"{name}={'on' if flags[name] else 'off'}" for name, _ in FLAGS)


#: ``@@optimizer_switch`` of a fresh server.
DEFAULT = _text(_DEFAULTS)


def merge(current: str, commands: str) -> str:
    """Apply the SET right-hand side ``commands`` to the ``current`` value; return the new value.

    Args:
        current: the variable's value before the SET (``name=on|off,...`` as :data:`DEFAULT`).
        commands: what the SET assigns, e.g. ``'semijoin=off'`` or ``'default,mrr=off'``.

    Raises:
        MySQLError: 1231 ER_WRONG_VALUE_FOR_VAR for an unknown flag, a bad value or a repeated flag.
    """
    flags = dict(_DEFAULTS)
    for part in current.split(","):
        name, _, value = part.partition("=")
        if name in flags:
            flags[name] = value == "on"
    items = [c.strip().lower() for c in commands.split(",")] if commands.strip() else []
    if "default" in items:
        flags = dict(_DEFAULTS)
    seen: set[str] = set()
    for item in items:
        if item == "default":
            continue
        name, eq, value = item.partition("=")
        if not eq or name not in flags or name in seen or value not in ("on", "off", "default"):
            raise mysql_error(1231, "optimizer_switch", commands)
        seen.add(name)
        flags[name] = _DEFAULTS[name] if value == "default" else value == "on"
    return _text(flags)
