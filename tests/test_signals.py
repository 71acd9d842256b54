"""SIGTERM and Ctrl-C always end ``run``, even when they come as its loop falls asleep with no deadline.

The bug: Python's C-level handler only notes a signal; the main thread acts on it between bytecodes. One
noted just before the loop sleeps in ``SimpleQueue.get`` (headless, switched off: no timeout) was acted on
never, and ``kill`` hung the unit (systemd killed it at TimeoutStopSec, without STOPPING=1).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from unit.app.signals import StopSignals

ROOT = Path(__file__).resolve().parent.parent

#: ``run`` whose main thread blocks the signals, with another thread to take them first. The kernel then hands
#: the signal to that thread: Python's C-level handler runs there and the main thread's wait is not interrupted,
#: the very state of the race (the signal noted, the loop asleep without a deadline), made certain rather than
#: hit one time in many. A signal given to the gpio backend's or the link's threads does the same for real.
#: Ctrl-C's handler is put first: a suite started in the background (``make test &``) has SIGINT ignored, and
#: Python, as any program, keeps a signal ignored that it was started with (``nohup``'s contract).
RUN_DEAF_MAIN_THREAD = """
import signal, sys, threading
signal.signal(signal.SIGINT, signal.default_int_handler)  # as from a terminal, even if the test's own is ignored
threading.Thread(target=threading.Event().wait, name="takes-the-signals", daemon=True).start()
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})
from unit.cli import main
sys.exit(main(sys.argv[1:]))
"""


def asleep_in_a_wait(pid: int) -> bool:
    """Whether the process's main thread sleeps in a futex: after ``run``'s first line, only the loop's wait."""
    task = Path(f"/proc/{pid}/task/{pid}")
    try:
        state = (task / "stat").read_text().rpartition(")")[2].split()[0]
        wchan = (task / "wchan").read_text()
    except OSError:
        return False
    return state == "S" and (wchan.startswith("futex") or wchan in ("", "0"))  # "0": hidden (kptr_restrict)


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads the main thread's state in /proc")
@pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 0), (signal.SIGINT, 130)])
def test_a_signal_that_does_not_interrupt_the_loops_wait_still_ends_the_run(signum, status, tmp_path):
    """SIGTERM stops the loop (exit 0, after STOPPING=1 and the settings), Ctrl-C as before (exit 130).

    Sent once the unit said READY=1 (on a notify socket of the test's own, as systemd's): before it, the
    main thread may sleep in another futex (a busy machine's GIL) while the wake-up pipe is not yet made."""
    argv = ["run", "--backend", "headless", "--lang", "en"]
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(tmp_path / "notify"))
    notify.settimeout(30)
    with (
        notify,
        subprocess.Popen(
            [sys.executable, "-c", RUN_DEAF_MAIN_THREAD, *argv],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "NOTIFY_SOCKET": str(tmp_path / "notify")},
        ) as unit,
    ):
        try:
            assert "no buttons and no script" in unit.stderr.readline()  # then the loop opens and sleeps
            while b"READY=1" not in notify.recv(4096).split(b"\n"):  # a timeout here: no READY in 30 s
                pass
            deadline = time.monotonic() + 30
            while not (asleep_in_a_wait(unit.pid) and time.sleep(0.1) is None and asleep_in_a_wait(unit.pid)):
                assert time.monotonic() < deadline, "the loop never went to sleep"
                time.sleep(0.01)
            unit.send_signal(signum)
            try:
                returned = unit.wait(10)
            except subprocess.TimeoutExpired:
                pytest.fail(f"{signal.Signals(signum).name} was lost: the unit still waits")
        finally:
            unit.kill()
    assert returned == status


def test_the_pipe_stops_on_sigterm_and_sigint_only_and_passes_every_signal_on():
    """The thread calls ``stop`` for SIGTERM and SIGINT, not for the terminal's SIGWINCH; a wake-up fd set
    before hears of every signal meanwhile, and is put back on close."""
    theirs_read, theirs_write = os.pipe()
    os.set_blocking(theirs_write, False)
    stops = threading.Semaphore(0)
    heard: list[int] = []
    term, intr, winch = signal.SIGTERM, signal.SIGINT, signal.SIGWINCH
    # Python handlers, as in run: the wake-up fd is written for those only.
    previous = {signum: signal.signal(signum, lambda n, _: heard.append(n)) for signum in (term, intr, winch)}
    before = signal.set_wakeup_fd(theirs_write)
    try:
        pipe = StopSignals(stops.release)
        pipe.start()
        for signum in (winch, term, winch, intr):  # a stop for each of the two, none for the others
            signal.raise_signal(signum)
            if signum != winch:
                assert stops.acquire(timeout=10)
        pipe.close()
        assert not stops.acquire(timeout=0.1)  # the two SIGWINCHs stopped nothing
        assert signal.set_wakeup_fd(theirs_write) == theirs_write  # put back
        assert os.read(theirs_read, 64) == bytes([winch, term, winch, intr])
        assert heard == [winch, term, winch, intr]  # the Python handlers ran as ever
    finally:
        signal.set_wakeup_fd(before)
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        os.close(theirs_read)
        os.close(theirs_write)
