"""GTID_NEXT and GTID ownership of one session as ONE transition table (pure: no server, no locks, no I/O).

Sources: MySQL ``sql/rpl_gtid_execution.cc`` (``set_gtid_next``, ``gtid_pre_statement_checks``,
``gtid_reacquire_ownership_if_anonymous``, ``is_stmt_innocent``), ``sql/rpl_gtid_state.cc``
(``update_gtids_impl``: commit and rollback end ownership; an ASSIGNED gtid_next becomes UNDEFINED),
``sql/sys_vars.cc`` (``Sys_var_gtid_next``), mysql-test ``suite/sys_vars/r/gtid_next_basic.result``.

Theory of operation
-------------------
A session's GTID state is the pair (``gtid_next`` type, what the session owns)::

    gtid_next type   AUTOMATIC | ANONYMOUS | ASSIGNED (uuid:n) | UNDEFINED (after an ASSIGNED transaction)
    owned            NOTHING   | ANONYMOUS | GTID

Only these combinations exist (everything else is unreachable by the table):

=================  ===========  =================================================================
type               owned        meaning
=================  ===========  =================================================================
AUTOMATIC          NOTHING      the commit generates a GTID (gtid_mode >= ON_PERMISSIVE) or is anonymous
ANONYMOUS          ANONYMOUS    ``SET gtid_next='ANONYMOUS'`` (or a statement re-acquired it)
ANONYMOUS          NOTHING      an anonymous transaction ended; the next non-innocent statement re-acquires
ASSIGNED           GTID         ``SET gtid_next='uuid:n'`` took ownership of uuid:n
ASSIGNED           NOTHING      uuid:n was already executed: the transaction is *skipped*
UNDEFINED          NOTHING      uuid:n was committed or rolled back; only SET/SELECT/SHOW/DO/USE/BEGIN/
                                COMMIT/ROLLBACK run until gtid_next is set again (else ER 1837)
=================  ===========  =================================================================

Rules the table encodes (MySQL's, quoted where they surprise):

* ``SET gtid_next`` is refused while the session owns anything (GTID *or* ANONYMOUS): ER 1790 "The client
  owns %s", with ``ANONYMOUS`` as the owned text for anonymous ownership (``set_gtid_next``).
* The end of a real transaction (COMMIT, ROLLBACK, an autocommitted statement, a failing autocommitted
  statement, an implicit commit) releases what is owned. An ASSIGNED type then becomes UNDEFINED, also when
  the GTID was skipped (``update_gtids_impl_do_nothing``); ANONYMOUS stays ANONYMOUS but owns nothing.
* A non-innocent statement under ANONYMOUS/NOTHING re-acquires anonymous ownership
  (``gtid_reacquire_ownership_if_anonymous``); under UNDEFINED it fails with ER 1837.
* Innocent statements (SET, SELECT, SHOW, DO, USE, empty) never change ownership, so that
  ``SELECT @@SESSION.gtid_owned`` can observe it.

The session (``gtidkit.engine.session``) feeds events in and performs the side effects on the server's
:class:`~gtidkit.engine.gtid.state.GtidState` (acquire, release, commit) that the returned state implies.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass

from gtidkit.errors import MySQLError
from gtidkit.gtid import Gtid
from gtidkit.mysql_errors import mysql_error


class _SentinelType(type):
    """Metaclass of the state / event sentinels: the class itself is the value (as h11's ``_util.Sentinel``), so
    table lookups hash them at C speed; ``repr`` is the name."""

    def __repr__(cls) -> str:
        return cls.__name__


class Sentinel(metaclass=_SentinelType):
    """Base of the sentinels below; never instantiated. ``text`` is what MySQL calls the value."""

    text = ""

    def __init__(self) -> None:
        raise TypeError(f"{type(self).__name__} is a sentinel and cannot be instantiated")


class NextType(Sentinel):
    """``@@SESSION.gtid_next`` type (MySQL ``enum_gtid_type``; NOT_YET_DETERMINED is applier-internal)."""


class AUTOMATIC(NextType):
    """``AUTOMATIC`` (or ``AUTOMATIC:tag``): the commit generates the GTID, or the transaction is anonymous."""

    text = "AUTOMATIC"


class ANONYMOUS(NextType):
    """``ANONYMOUS``: the transaction has no GTID."""

    text = "ANONYMOUS"


class ASSIGNED(NextType):
    """``uuid:n`` (MySQL ``ASSIGNED_GTID``)."""

    text = "ASSIGNED_GTID"


class UNDEFINED(NextType):
    """After the ``uuid:n`` transaction ended (MySQL ``UNDEFINED_GTID``)."""

    text = "UNDEFINED"


class Owned(Sentinel):
    """What the session owns (MySQL ``THD::owned_gtid``: sidno 0, OWNED_SIDNO_ANONYMOUS, or > 0)."""


class NOTHING(Owned):
    """Nothing owned (``owned_gtid.sidno == 0``)."""


class OWN_ANONYMOUS(Owned):
    """ANONYMOUS ownership (``OWNED_SIDNO_ANONYMOUS``)."""


class OWN_GTID(Owned):
    """A GTID owned (``owned_gtid.sidno > 0``)."""


class Event(Sentinel):
    """Inputs of the table."""


class SET_AUTOMATIC(Event):
    """``SET gtid_next=AUTOMATIC[:tag]``."""


class SET_ANONYMOUS(Event):
    """``SET gtid_next=ANONYMOUS`` (anonymous ownership taken)."""


class SET_ASSIGNED(Event):
    """``SET gtid_next=uuid:n`` with the GTID's ownership taken."""


class SET_ASSIGNED_EXECUTED(Event):
    """``SET gtid_next=uuid:n`` for an already executed GTID: the transaction is skipped."""


class STATEMENT(Event):
    """A non-innocent statement starts."""


class TRX_END(Event):
    """A real transaction ends (commit or rollback)."""


State = tuple[type[NextType], type[Owned]]
EventType = type[Event]

_SETTABLE: tuple[State, ...] = (
    (AUTOMATIC, NOTHING),
    (ANONYMOUS, NOTHING),
    (ASSIGNED, NOTHING),
    (UNDEFINED, NOTHING),
)

#: (type, owned) x event -> new (type, owned). A missing key is an error (see :func:`transition`).
TRANSITIONS: dict[tuple[State, EventType], State] = {
    # SET gtid_next: only when nothing is owned
    **{(s, SET_AUTOMATIC): (AUTOMATIC, NOTHING) for s in _SETTABLE},
    **{(s, SET_ANONYMOUS): (ANONYMOUS, OWN_ANONYMOUS) for s in _SETTABLE},
    **{(s, SET_ASSIGNED): (ASSIGNED, OWN_GTID) for s in _SETTABLE},
    **{(s, SET_ASSIGNED_EXECUTED): (ASSIGNED, NOTHING) for s in _SETTABLE},
    # a non-innocent statement starts
    ((AUTOMATIC, NOTHING), STATEMENT): (AUTOMATIC, NOTHING),
    ((ANONYMOUS, NOTHING), STATEMENT): (ANONYMOUS, OWN_ANONYMOUS),
    ((ANONYMOUS, OWN_ANONYMOUS), STATEMENT): (ANONYMOUS, OWN_ANONYMOUS),
    ((ASSIGNED, OWN_GTID), STATEMENT): (ASSIGNED, OWN_GTID),
    ((ASSIGNED, NOTHING), STATEMENT): (ASSIGNED, NOTHING),
    # (UNDEFINED, NOTHING) + STATEMENT: missing on purpose -> ER 1837
    # the end of a real transaction
    ((AUTOMATIC, NOTHING), TRX_END): (AUTOMATIC, NOTHING),
    ((ANONYMOUS, NOTHING), TRX_END): (ANONYMOUS, NOTHING),
    ((ANONYMOUS, OWN_ANONYMOUS), TRX_END): (ANONYMOUS, NOTHING),
    ((ASSIGNED, OWN_GTID), TRX_END): (UNDEFINED, NOTHING),
    ((ASSIGNED, NOTHING), TRX_END): (UNDEFINED, NOTHING),
    ((UNDEFINED, NOTHING), TRX_END): (UNDEFINED, NOTHING),
}


def owning_gtid_error(owned_text: str) -> MySQLError:
    """ER_CANT_SET_GTID_NEXT_WHEN_OWNING_GTID 1790 (``owned_text``: ``uuid:n`` or ``ANONYMOUS``)."""
    return mysql_error(1790, owned_text)


def undefined_error(shown: str) -> MySQLError:
    """ER_GTID_NEXT_TYPE_UNDEFINED_GTID 1837 (``shown``: the GTID last assigned)."""
    return mysql_error(1837, shown)


def implicit_commit_error() -> MySQLError:
    """ER_CANT_DO_IMPLICIT_COMMIT_IN_TRX_WHEN_GTID_NEXT_IS_SET 1778 (8.x wording, messages_to_clients.txt)."""
    return mysql_error(1778)


@dataclass(slots=True)
class GtidNext:
    """One session's ``gtid_next`` and ownership, advanced only through :meth:`handle`.

    Attributes:
        type: the :class:`NextType` sentinel (AUTOMATIC, ANONYMOUS, ASSIGNED, UNDEFINED).
        owned: the :class:`Owned` sentinel (NOTHING, OWN_ANONYMOUS, OWN_GTID).
        gtid: the assigned GTID (ASSIGNED and UNDEFINED), else None.
        tag: the tag of ``AUTOMATIC:tag`` ('' when untagged).
    """

    type: builtins.type[NextType] = AUTOMATIC
    owned: builtins.type[Owned] = NOTHING
    gtid: Gtid | None = None
    tag: str = ""

    def check(self, event: EventType) -> None:
        """Raise what :meth:`handle` would raise for ``event``, changing nothing (checks before side effects).

        Raises:
            MySQLError: 1790 or 1837, as :meth:`handle`.
        """
        if ((self.type, self.owned), event) not in TRANSITIONS:
            self._refuse(event)

    def _refuse(self, event: EventType) -> None:
        if event is STATEMENT:
            raise undefined_error(str(self.gtid))
        raise owning_gtid_error(self.owned_text() or "")

    def handle(self, event: EventType, gtid: Gtid | None = None, tag: str = "") -> None:
        """Apply ``event`` (``gtid`` for the SET_ASSIGNED* events, ``tag`` for SET_AUTOMATIC).

        Raises:
            MySQLError: 1790 for a SET while owning a GTID or ANONYMOUS; 1837 for a statement while UNDEFINED.
        """
        new = TRANSITIONS.get(((self.type, self.owned), event))
        if new is None:
            self._refuse(event)
            return
        self.type, self.owned = new
        if event is SET_ASSIGNED or event is SET_ASSIGNED_EXECUTED:
            self.gtid = gtid
        elif event is SET_AUTOMATIC:
            self.gtid, self.tag = None, tag
        elif event is SET_ANONYMOUS:
            self.gtid = None

    @property
    def skipping(self) -> bool:
        """True when the assigned GTID was already executed: the transaction's statements are skipped."""
        return self.type is ASSIGNED and self.owned is NOTHING

    @property
    def owned_gtid(self) -> Gtid | None:
        """The GTID owned (``THD::owned_gtid`` with sidno > 0), else None."""
        return self.gtid if self.owned is OWN_GTID else None

    def owned_text(self) -> str | None:
        """What the session owns as MySQL's errors and ``@@SESSION.gtid_owned`` show it, None for nothing."""
        if self.owned is OWN_GTID:
            return str(self.gtid)
        if self.owned is OWN_ANONYMOUS:
            return "ANONYMOUS"
        return None

    def text(self) -> str:
        """``@@SESSION.gtid_next`` as MySQL shows it (the GTID text also while UNDEFINED)."""
        if self.type is AUTOMATIC:
            return f"AUTOMATIC:{self.tag}" if self.tag else "AUTOMATIC"
        if self.type is ANONYMOUS:
            return "ANONYMOUS"
        return str(self.gtid)


__all__ = [
    "ANONYMOUS",
    "ASSIGNED",
    "AUTOMATIC",
    "NOTHING",
    "OWN_ANONYMOUS",
    "OWN_GTID",
    "SET_ANONYMOUS",
    "SET_ASSIGNED",
    "SET_ASSIGNED_EXECUTED",
    "SET_AUTOMATIC",
    "STATEMENT",
    "TRANSITIONS",
    "TRX_END",
    "UNDEFINED",
    "Event",
    "GtidNext",
    "NextType",
    "Owned",
    "implicit_commit_error",
    "owning_gtid_error",
    "undefined_error",
]
