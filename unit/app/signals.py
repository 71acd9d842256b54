"""SIGTERM and Ctrl-C reach the loop whatever it is doing: no signal is lost in its wait.

CPython runs a Python signal handler in the main thread only, between bytecodes: its C-level handler
just notes the signal. A signal noted after the loop's last look and before it sleeps in
``SimpleQueue.get`` (or one the kernel gave another thread: the gpio backend's, the link's) does not
interrupt that wait, and is acted on only when the wait ends. With no deadline (the headless backend,
switched off) it never ends: now and then ``kill`` hung ``run`` for ever, and on a Pi systemd killed the
unit at ``TimeoutStopSec`` before the next watchdog ping woke it, without STOPPING=1 or the last setting.

:class:`StopSignals` closes that gap with :func:`signal.set_wakeup_fd`: Python's C-level handler, in
whatever thread and at whatever moment the signal comes, writes the signal's number to a pipe; a thread
asleep on that pipe (a blocking read: no periodic wake) turns SIGTERM and SIGINT into an input on the
loop's queue (:meth:`Runtime.stop` is safe from any thread). The Python handlers stay what they were
(SIGTERM: stop the loop; SIGINT: ``KeyboardInterrupt``, exit 130): the input only wakes the main thread,
which then runs them. A handler must stay a Python one: the wake-up fd is written for those alone.

Not ``pthread_sigmask`` + ``sigwait``: the mask would have to be set before every thread (the ones made
earlier keep taking the signal, and the gap with them), every child would inherit it across ``exec`` (the
gpio backend's shutdown command would start with SIGTERM blocked), and Ctrl-C's ``KeyboardInterrupt`` would
have to be made again by hand. Nothing else in ``run`` sets the wake-up fd (pygame, the terminal backend
and gpiozero do not; uvicorn and asyncio run in ``serve`` alone); one set before is put back on
:meth:`close`, and meanwhile hears of every signal too.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)

#: The signals that end the run: ``kill``/systemd's stop, and Ctrl-C where there is a terminal.
STOPPING = frozenset({signal.SIGTERM, signal.SIGINT})
#: Written by :meth:`StopSignals.close` to end the thread: no signal has the number 0.
END = b"\0"


class StopSignals:
    """The wake-up pipe of Python's signal handler, and the thread that reads it (see the module).

    Made in the main thread (``set_wakeup_fd`` may be called there only), before the loop's first wait.
    The thread may start later (:meth:`start`, just after READY=1): what came before waits in the pipe.
    """

    def __init__(self, stop: Callable[[], None]) -> None:
        self.stop = stop
        self._read, self._write = os.pipe()
        os.set_blocking(self._write, False)  # the C-level handler must never block (set_wakeup_fd checks)
        self._previous = signal.set_wakeup_fd(self._write, warn_on_full_buffer=False)
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start reading the pipe. A thread that cannot start (the service's TasksMax) is said in the log:
        the Python handlers still work, with the gap they always had."""
        thread = threading.Thread(target=self._run, name="signals", daemon=True)
        try:
            thread.start()
        except RuntimeError:
            log.exception("the signals' thread could not be started: a SIGTERM may wait for the loop's next wake")
            return
        self._thread = thread

    def close(self) -> None:
        """Put the previous wake-up fd back, end the thread, close the pipe (in the main thread)."""
        signal.set_wakeup_fd(self._previous)
        if self._thread is not None:
            try:
                os.write(self._write, END)
            except OSError:  # a pipe full of signals (64 KiB of them): the daemon thread is left behind
                pass
            else:
                self._thread.join()
        os.close(self._read)
        os.close(self._write)

    def _run(self) -> None:
        while True:
            numbers = os.read(self._read, 64)  # asleep here until a signal comes (or the end)
            if self._previous != -1 and (theirs := numbers.replace(END, b"")):  # as before, for whoever set it
                try:
                    os.write(self._previous, theirs)
                except OSError:
                    pass
            if any(number in STOPPING for number in numbers):
                self.stop()
            if END[0] in numbers or not numbers:
                return
