"""The workers' saved-transaction words of the shared page (engine/shared/workers.py ``add_saved`` /
``saved_total``): the compressor's period counts every worker's commits without a page lock per commit."""

from __future__ import annotations

from gtidkit.engine.shared import workers
from gtidkit.engine.shared.shm import Layout, SharedPage
from tests.engine.shared import procs


def test_the_sum_counts_every_worker_and_outlives_a_worker(tmp_path) -> None:
    page = SharedPage.create(tmp_path, Layout(owners=16, waiters=16, workers=4, sids=8))
    try:
        assert workers.saved_total(page) == 0
        workers.register_worker(page, 1)
        workers.set_prepared(page, 1, 5)  # the slot's other words are not counted
        workers.add_saved(page, 1, 3)
        workers.add_saved(page, 3, 2)  # the last slot
        workers.add_saved(page, 0, 1)
        assert workers.saved_total(page) == 6
        workers.clear_worker(page, 1)  # a death keeps what the worker saved: the sum never goes back
        assert workers.saved_total(page) == 6
        workers.register_worker(page, 1)  # its replacement continues the word
        workers.add_saved(page, 1, 1)
        assert workers.saved_total(page) == 7
        assert page.counters()["gtid_saved_base"] == 0  # no counter of the page is a worker's word
    finally:
        page.close()


def test_processes_counting_at_once_lose_nothing(tmp_path) -> None:
    page = SharedPage.create(tmp_path)
    go = procs.CTX.Event()
    try:
        children = [procs.start(procs.saved_adder, str(tmp_path), w, 3000, go) for w in (1, 2)]
        go.set()
        for child in children:
            child.join(30)
            assert child.exitcode == 0
        assert workers.saved_total(page) == 6000
    finally:
        page.close()
