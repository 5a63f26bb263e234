"""Control sockets between real worker processes: notifications, request/response (chunked answers), fan-out with a
dead worker, and the timeout of a request nobody answers."""

from __future__ import annotations

import os
import signal
import time

import pytest

from gtidkit.engine.shared import control
from gtidkit.engine.shared.shm import SharedPage
from tests.engine.shared import procs


@pytest.fixture
def page(tmp_path):
    """A fresh shared page in ``tmp_path`` (its token names the control sockets)."""
    p = SharedPage.create(tmp_path)
    yield p
    p.close()


@pytest.fixture
def workers(tmp_path, page):
    """Three control workers (ids 1-3) in their own processes, 5 / 5 / 6000 processlist rows."""
    ready = [procs.CTX.Event() for _ in range(3)]
    ps = [
        procs.start(procs.control_worker, str(tmp_path), w, rows, ready[w - 1])
        for w, rows in ((1, 5), (2, 5), (3, 6000))
    ]
    for r in ready:
        assert r.wait(60)
    yield ps
    for p in ps:
        p.kill()
        p.join(10)


def test_notification_round_trip(page, workers) -> None:
    me = control.ControlSocket(page.token, 0)
    try:
        assert me.send(2, 7, b"wake")
        msg = me.receive(timeout=30)
        assert msg is not None and (msg.op, msg.body, msg.sender, msg.request_id, msg.reply_to) == (
            107,
            b"wake",
            2,
            0,
            None,
        )
        assert not me.send(9, 7)  # no worker 9: not listening
    finally:
        me.close()


@pytest.mark.parametrize(
    ("op", "body", "expected"),
    [
        (control.OP_PING, b"", None),
        (42, b"abc", b"cba"),
        (42, b"", b""),
        (42, b"x" * 50_000 + b"y", b"y" + b"x" * 50_000),
    ],
    ids=["ping-answers-pid", "echo", "empty", "one-datagram-near-the-limit"],
)
def test_request_response(page, workers, op: int, body: bytes, expected: bytes | None) -> None:
    answer = control.request(page.token, 1, op, body, timeout=30)
    assert answer == (str(workers[0].pid).encode() if expected is None else expected)


def test_answer_longer_than_a_datagram_is_chunked(page, workers) -> None:
    answer = control.request(page.token, 3, control.OP_PROCESSLIST, timeout=30)
    rows = answer.decode().split("\n")
    assert len(answer) > 2 * control.CHUNK
    assert rows == [f"{3000 + i}\troot\tlocalhost\tQuery" for i in range(6000)]


def test_fan_out_merges_and_marks_a_dead_worker(page, workers) -> None:
    """SHOW PROCESSLIST's shape: ask every worker, merge what comes back; a SIGKILLed worker answers None."""
    os.kill(workers[1].pid, signal.SIGKILL)
    workers[1].join(10)
    answers = control.fan_out(page.token, [1, 2, 3], control.OP_PROCESSLIST, timeout=30)
    assert answers[2] is None
    merged = [line.split("\t")[0] for w in (1, 3) for line in (answers[w] or b"").decode().split("\n")]
    assert merged[:5] == ["1000", "1001", "1002", "1003", "1004"] and len(merged) == 6005


def test_request_to_a_silent_worker_times_out(page) -> None:
    """A bound socket that never answers: ControlError after the timeout, not a hang; an absent one: at once."""
    silent = control.ControlSocket(page.token, 5)
    try:
        t0 = time.monotonic()
        with pytest.raises(control.ControlError, match="worker 5 did not answer") as err:
            control.request(page.token, 5, 42, b"?", timeout=0.2)
        assert err.value.worker_id == 5 and 0.2 <= time.monotonic() - t0 < 2
        t0 = time.monotonic()
        with pytest.raises(control.ControlError):
            control.request(page.token, 6, 42, timeout=10)
        assert time.monotonic() - t0 < 1
    finally:
        silent.close()


def test_a_second_socket_with_the_same_worker_id_is_refused(page) -> None:
    first = control.ControlSocket(page.token, 1)
    try:
        with pytest.raises(OSError):
            control.ControlSocket(page.token, 1)
    finally:
        first.close()


_ASK_AS = """
import os
import sys
from gtidkit.engine.shared import control
if sys.argv[2] != "-":
    os.setuid(int(sys.argv[2]))  # after the imports: root's interpreter is not readable by others
try:
    control.request(bytes.fromhex(sys.argv[1]), 1, control.OP_PING, timeout=2.0)
    print("answered")
except control.ControlError:
    print("dropped")
"""


@pytest.mark.skipif(os.getuid() != 0, reason="needs root to run a client as another user")
@pytest.mark.parametrize(
    ("uid", "expected"), [(None, "answered"), (65534, "dropped")], ids=["same-user", "nobody"]
)
def test_a_request_from_another_user_is_dropped(page, workers, uid: int | None, expected: str) -> None:
    """An abstract socket has no file permissions: a worker answers only processes of its own user
    (SCM_CREDENTIALS), so another local user cannot ask it to KILL a connection or run a replication statement."""
    import subprocess
    import sys

    src = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(control.__file__))))
    out = subprocess.run(
        [sys.executable, "-c", _ASK_AS, page.token.hex(), "-" if uid is None else str(uid)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": src},
        check=False,
    )
    assert out.stdout.strip() == expected, out.stderr
