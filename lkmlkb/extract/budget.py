"""The CPU budget of one message's extraction, and the hard stop of an extractor past it.

The budget is CPU seconds of the extracting thread, so that a loaded machine
gives the same findings as an idle one.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Iterator

#: per-message time budget (CPU seconds of this thread, so that a loaded machine
#: gives the same findings as an idle one); a message past it is recorded and skipped
BUDGET_SECONDS = 2.0


#: an extractor still running this long past its message's budget is stopped (the budget is
#: checked between extractors; this bounds the one running when it runs out)
HARD_STOP_AFTER = 1.0


class Stopped(BaseException):
    """Raised in the extracting thread at the hard stop.  Not an Exception: extractors that
    turn their own failures into "no findings" must not swallow it."""


#: [whether a SIGVTALRM now stops the message being extracted], once the handler is installed
_ARMED: list[bool] = []


def _on_signal(signum, frame) -> None:
    if _ARMED and _ARMED[0]:
        _ARMED[0] = False  # once: the unwinding and the caller's handling are not interrupted again
        raise Stopped()


class _Watchdog:
    """Signals the main thread once its own CPU time (user and system: the clock the budget
    reads, ``time.thread_time``) passes a deadline.  A daemon thread polls that clock, one per
    process (a forked worker starts its own); other threads' CPU does not count."""

    #: seconds between two readings of the clock: the hard stop comes at most this late
    POLL = 0.05

    def __init__(self) -> None:
        self.pid: int | None = None
        self.deadline: float | None = None

    def arm(self, seconds: float) -> None:
        if self.pid != os.getpid():
            self.pid = os.getpid()
            self.main = threading.main_thread().ident
            self.clock = time.pthread_getcpuclockid(self.main)
            threading.Thread(target=self._run, name="lkmlkb-budget", daemon=True).start()
        self.deadline = time.clock_gettime(self.clock) + seconds

    def disarm(self) -> None:
        self.deadline = None

    def _run(self) -> None:
        while True:
            time.sleep(self.POLL)
            deadline = self.deadline
            if deadline is not None and time.clock_gettime(self.clock) >= deadline:
                self.deadline = None
                signal.pthread_kill(self.main, signal.SIGVTALRM)


_WATCHDOG = _Watchdog()


@contextlib.contextmanager
def hard_stop(seconds: float) -> Iterator[None]:
    """Raise :class:`Stopped` in this code once the main thread has spent ``seconds`` more of
    CPU.  Only the main thread receives signals: elsewhere (or without per-thread CPU clocks)
    the budget is only checked between extractors."""
    if (
        not hasattr(time, "pthread_getcpuclockid")
        or threading.current_thread() is not threading.main_thread()
    ):
        yield
        return
    if not _ARMED:
        signal.signal(signal.SIGVTALRM, _on_signal)
        _ARMED.append(False)
    _ARMED[0] = True
    _WATCHDOG.arm(seconds)
    try:
        yield
    finally:
        _ARMED[0] = False  # first: a signal sent from now on is ignored
        _WATCHDOG.disarm()
