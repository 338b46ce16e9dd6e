"""The relay (`_cwnd.live_relay`) on a thread of this process, with the GIL
released, and the pipe that stops it: the main thread stays free to wait for
endpoints (`cwnd live`) or a user's command (`cwnd shell`) and to see Ctrl-C and
SIGTERM.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from cwnd import _cwnd


class RelayThread:
    """Starts the relay on construction; `stop` asks it to end (a byte on the pipe
    it polls) and waits; `result` is its results, or raises what it raised. As a
    context manager it stops the relay and closes the pipe on the way out."""

    def __init__(self, spec_json: str, seed: int, **relay: Any) -> None:
        self._stop_read, self._stop_write = os.pipe()
        self._results: list[_cwnd.LiveResults] = []
        self._errors: list[Exception] = []
        self._stopped = False
        self._thread = threading.Thread(
            target=self._run, args=(spec_json, seed, relay), name="cwnd-relay"
        )
        self._thread.start()

    def _run(self, spec_json: str, seed: int, relay: dict[str, Any]) -> None:
        try:
            self._results.append(
                _cwnd.live_relay(
                    spec_json,
                    seed,
                    stop_fd=self._stop_read,
                    pin_cpu=(os.cpu_count() or 1) - 1,
                    **relay,
                )
            )
        except Exception as e:  # re-raised in the main thread by `result`
            self._errors.append(e)

    def alive(self) -> bool:
        return self._thread.is_alive()

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)

    def stop(self) -> None:
        if not self._stopped:
            self._stopped = True
            os.write(self._stop_write, b"x")
        self._thread.join()

    def result(self) -> _cwnd.LiveResults:
        self._thread.join()
        if self._errors:
            raise self._errors[0]
        return self._results[0]

    def __enter__(self) -> RelayThread:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
        os.close(self._stop_write)
        os.close(self._stop_read)
