"""The GTID_NEXT / ownership transition table (engine/gtid/gtid_next.py) and the write-matrix decision
(engine/gtid/commit.py), as pure tables.

Expected values: ``sql/rpl_gtid_execution.cc`` (``set_gtid_next``: 1790 while owning a GTID or ANONYMOUS;
``gtid_pre_statement_checks``: 1837 while UNDEFINED; ``gtid_reacquire_ownership_if_anonymous``),
``sql/rpl_gtid_state.cc`` (``update_gtids_impl``: the end of a transaction releases ownership, ASSIGNED becomes
UNDEFINED also for a skipped GTID), mysql-test ``suite/sys_vars/r/gtid_next_basic.result`` (the 1790 text with
"The client owns ANONYMOUS."), ``sql/handler.cc`` ``commit_owned_gtids`` and ``sql/binlog.cc``
``gtid_end_transaction`` for the matrix (``!opt_bin_log || (thd->slave_thread && !opt_log_replica_updates)``).
"""

from __future__ import annotations

import pytest

from gtidkit.engine.gtid import gtid_next as g
from gtidkit.engine.gtid.commit import CommitContext, CommitPlan, decide
from gtidkit.errors import MySQLError
from gtidkit.gtid import Gtid

GTID = Gtid.parse("3e11fa47-71ca-11e1-9e33-c80aa9429562:7")


def _state(type_, owned, gtid=None):
    return g.GtidNext(type=type_, owned=owned, gtid=gtid)


@pytest.mark.parametrize(
    "start, event, end",
    [
        ((g.AUTOMATIC, g.NOTHING), g.SET_ASSIGNED, (g.ASSIGNED, g.OWN_GTID)),
        ((g.AUTOMATIC, g.NOTHING), g.SET_ASSIGNED_EXECUTED, (g.ASSIGNED, g.NOTHING)),
        ((g.AUTOMATIC, g.NOTHING), g.SET_ANONYMOUS, (g.ANONYMOUS, g.OWN_ANONYMOUS)),
        ((g.UNDEFINED, g.NOTHING), g.SET_AUTOMATIC, (g.AUTOMATIC, g.NOTHING)),
        ((g.ASSIGNED, g.OWN_GTID), g.TRX_END, (g.UNDEFINED, g.NOTHING)),
        ((g.ASSIGNED, g.NOTHING), g.TRX_END, (g.UNDEFINED, g.NOTHING)),  # skipped: still UNDEFINED afterwards
        ((g.ANONYMOUS, g.OWN_ANONYMOUS), g.TRX_END, (g.ANONYMOUS, g.NOTHING)),
        ((g.ANONYMOUS, g.NOTHING), g.STATEMENT, (g.ANONYMOUS, g.OWN_ANONYMOUS)),  # re-acquired
        ((g.ASSIGNED, g.OWN_GTID), g.STATEMENT, (g.ASSIGNED, g.OWN_GTID)),
        ((g.AUTOMATIC, g.NOTHING), g.TRX_END, (g.AUTOMATIC, g.NOTHING)),
    ],
    ids=repr,
)
def test_transitions(start, event, end):
    st = _state(*start, gtid=GTID if start[0] in (g.ASSIGNED, g.UNDEFINED) else None)
    st.handle(event, gtid=GTID)
    assert (st.type, st.owned) == end


@pytest.mark.parametrize("owned, shown", [(g.OWN_GTID, str(GTID)), (g.OWN_ANONYMOUS, "ANONYMOUS")])
@pytest.mark.parametrize("event", [g.SET_AUTOMATIC, g.SET_ANONYMOUS, g.SET_ASSIGNED, g.SET_ASSIGNED_EXECUTED])
def test_set_while_owning_is_1790(owned, shown, event):
    st = _state(
        g.ASSIGNED if owned is g.OWN_GTID else g.ANONYMOUS, owned, gtid=GTID if owned is g.OWN_GTID else None
    )
    with pytest.raises(MySQLError) as exc:
        st.check(event)
    assert exc.value.code == 1790
    assert exc.value.message == (
        f"@@SESSION.GTID_NEXT cannot be changed by a client that owns a GTID. The client owns {shown}. "
        "Ownership is released on COMMIT or ROLLBACK."
    )
    before = (st.type, st.owned)
    with pytest.raises(MySQLError):
        st.handle(event, gtid=GTID)
    assert (st.type, st.owned) == before  # a refused event changes nothing


def test_statement_while_undefined_is_1837():
    st = _state(g.UNDEFINED, g.NOTHING, gtid=GTID)
    with pytest.raises(MySQLError) as exc:
        st.handle(g.STATEMENT)
    assert exc.value.code == 1837
    assert exc.value.message.endswith(f"Current @@SESSION.GTID_NEXT is '{GTID}'.")
    assert st.text() == str(GTID)


def test_every_reachable_state_has_trx_end():
    states = {end for end in g.TRANSITIONS.values()}
    for s in states:
        assert (s, g.TRX_END) in g.TRANSITIONS, s


def _ctx(**kw):
    base = {
        "log_bin": True,
        "sql_log_bin": True,
        "log_replica_updates": True,
        "applier": False,
        "gtid_mode": "ON",
        "next_type": g.AUTOMATIC,
        "table_on_commit": False,  # the rows below are WL#6559 as 5.7 ships it; 8.0.17+ rows at the end
    }
    base.update(kw)
    return CommitContext(**base)


@pytest.mark.parametrize(
    "ctx, plan",
    [
        # binlog off: explicit GTID -> row per transaction, also gtid_purged; AUTOMATIC -> anonymous, nothing
        (_ctx(log_bin=False, next_type=g.ASSIGNED), CommitPlan("assigned", False, True, True)),
        (_ctx(log_bin=False), CommitPlan(None, False, False, False)),
        # binlog on: everything logged, the table is written at rotation
        (_ctx(), CommitPlan("automatic", True, False, False)),
        (_ctx(next_type=g.ASSIGNED), CommitPlan("assigned", True, False, False)),
        # log_replica_updates=OFF concerns the applier only
        (_ctx(log_replica_updates=False, next_type=g.ASSIGNED), CommitPlan("assigned", True, False, False)),
        (
            _ctx(log_replica_updates=False, applier=True, next_type=g.ASSIGNED),
            CommitPlan("assigned", False, True, True),
        ),
        (
            _ctx(log_replica_updates=True, applier=True, next_type=g.ASSIGNED),
            CommitPlan("assigned", True, False, False),
        ),
        # gtid_mode and ANONYMOUS
        (_ctx(gtid_mode="OFF_PERMISSIVE"), CommitPlan(None, True, False, False)),
        (_ctx(gtid_mode="ON_PERMISSIVE"), CommitPlan("automatic", True, False, False)),
        (_ctx(gtid_mode="ON_PERMISSIVE", next_type=g.ANONYMOUS), CommitPlan(None, True, False, False)),
        # sql_log_bin=0: AUTOMATIC gets no GTID; an explicit one is saved to the table
        (_ctx(sql_log_bin=False), CommitPlan(None, False, False, False)),
        (_ctx(sql_log_bin=False, next_type=g.ASSIGNED), CommitPlan("assigned", False, True, True)),
        # 8.0.17+: a GTID the binary log gets also goes to the table at commit (not lost: not in gtid_purged)
        (_ctx(table_on_commit=True), CommitPlan("automatic", True, True, False)),
        (_ctx(table_on_commit=True, next_type=g.ASSIGNED), CommitPlan("assigned", True, True, False)),
        (_ctx(table_on_commit=True, gtid_mode="OFF_PERMISSIVE"), CommitPlan(None, True, False, False)),
        (
            _ctx(table_on_commit=True, log_bin=False, next_type=g.ASSIGNED),
            CommitPlan("assigned", False, True, True),
        ),
    ],
)
def test_write_matrix_decision(ctx, plan):
    assert decide(ctx) == plan
