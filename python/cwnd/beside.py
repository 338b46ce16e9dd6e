"""Work done in a forked process beside this one, its result read back later.

`cwnd run` draws half of its figures in a child while the parent writes the tables
and draws the other half (issue 17: figures were most of the command's time, and the
machine has a second core). The child is forked, so it starts with the parent's
imports and result frames and nothing is pickled on the way in; only the (small)
result comes back through a pipe.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import traceback
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from cwnd.executors import death, worker_setup
from cwnd.no_space import NoSpace

if TYPE_CHECKING:
    from multiprocessing.connection import Connection


class BesideError(RuntimeError):
    """The work in the child raised (the message holds its traceback) or the child died."""


def can_fork() -> bool:
    """Whether work beside this process can gain anything and is allowed: a second
    core, `fork`, and a process that may have children (a daemonic one, such as a
    Dask worker's, may not: multiprocessing refuses)."""
    return (
        (os.cpu_count() or 1) > 1
        and "fork" in multiprocessing.get_all_start_methods()
        and not multiprocessing.current_process().daemon
    )


class Beside:
    """`work()` running in a forked child from construction on; `result()` waits for
    it. The child ignores Ctrl-C and dies with its parent (`worker_setup`)."""

    def __init__(self, work: Callable[[], Any]) -> None:
        context = multiprocessing.get_context("fork")
        self._receive, send = context.Pipe(duplex=False)
        self._process = context.Process(target=_run, args=(send, os.getpid(), work))
        self._process.start()
        send.close()

    def result(self) -> Any:
        """The child's return value; raises `BesideError` if it raised or died, and
        the child's `NoSpace` (a full disk) as itself."""
        try:
            ok, value = self._receive.recv()
        except EOFError:
            self._process.join()
            raise BesideError(death(self._process.exitcode)) from None
        finally:
            self.close()
        if isinstance(value, NoSpace):
            raise value  # the user's to fix, as it would be in this process
        if not ok:
            raise BesideError(f"work in a child process failed:\n{value}")
        return value

    def close(self) -> None:
        """Stops the child if it is still working (the parent failed or was stopped
        before it read the result) and waits for it: SIGTERM first, which ends a child
        at once unless its work chose to clean up on it (`stop_on_sigterm`: live mode
        removes its namespaces), then SIGKILL after `STOP_GRACE_S`."""
        self._process.terminate()
        self._process.join(STOP_GRACE_S)
        if self._process.is_alive():
            self._process.kill()
            self._process.join()
        self._receive.close()


#: How long `Beside.close` waits for a child to stop on SIGTERM before killing it.
STOP_GRACE_S = 10.0


def stop_on_sigterm() -> None:
    """In a child's work: SIGTERM raises `KeyboardInterrupt`, so that its `finally`
    blocks and context managers run when `Beside.close` stops it (the child's default,
    set by `worker_setup`, is to die at once)."""

    def interrupt(signum: int, _frame: object) -> None:
        raise KeyboardInterrupt(signal.Signals(signum).name)

    signal.signal(signal.SIGTERM, interrupt)


def _run(send: Connection, parent: int, work: Callable[[], Any]) -> None:
    worker_setup(parent)
    try:
        outcome = (True, work())
    except NoSpace as e:
        outcome = (False, e)
    except Exception:
        outcome = (False, traceback.format_exc())
    send.send(outcome)
    send.close()
