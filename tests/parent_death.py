"""Processes of the tests that end with their parent (Linux's PR_SET_PDEATHSIG): a
killed `make test` leaves neither pytest, nor its workers, nor the fuzzer's children
behind (issue 27)."""

from __future__ import annotations

import ctypes
import signal
import sys

PR_SET_PDEATHSIG = 1  # include/uapi/linux/prctl.h


def die_with_parent(signum: int = signal.SIGTERM) -> None:
    """Asks the kernel for signal `signum` when this process's parent ends (nothing
    outside Linux)."""
    if sys.platform != "linux":
        return
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, signum, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG)")
