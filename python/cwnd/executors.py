"""Where a sweep's runs are computed: a local process pool, or a Dask cluster.

Both run a function over a list of jobs and yield each job's result as it finishes, in
any order. A job whose worker dies (an abort, the out-of-memory killer) yields
`WorkerDied` and the others go on; stopping early (Ctrl-C, SIGTERM, an error in the
caller) cancels the jobs not started and, locally, kills the workers, so that nothing
goes on computing runs nobody will read.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
from collections import deque
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing.connection import Connection

Job = tuple[Any, ...]
Outcome = tuple[int, Any]


class Jobs(Protocol):
    """Jobs by index (a list will do): each is made when it is sent, so that a sweep
    need not hold every run's plan at once, and what it says may change on the way
    (a sweep stops asking workers to cache once its cache cannot be written)."""

    def __len__(self) -> int: ...

    def __getitem__(self, index: int, /) -> Job: ...


#: Seconds to wait for a Dask scheduler to answer, and then for it to have a worker.
CONNECT_TIMEOUT = 5
WORKERS_TIMEOUT = 10

# prctl(2) option: the signal the kernel sends a process when its parent dies.
_PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class WorkerDied:
    """The result of a job whose worker process died while running it."""

    reason: str


class ClusterError(Exception):
    """The Dask cluster cannot be used: a bad address, no answer, no workers, or the
    scheduler lost during the sweep. The message is one line naming the cluster."""


def death(exitcode: int | None) -> str:
    """Why a process died, from its exit code (`-N`: killed by signal N)."""
    if exitcode is None or exitcode >= 0:
        return f"worker died: exit code {exitcode}"
    signum = -exitcode
    try:
        name = signal.Signals(signum).name
    except ValueError:
        name = "unknown signal"
    hint = ", perhaps by the out-of-memory killer" if signum == signal.SIGKILL else ""
    return f"worker died: signal {signum} ({name}{hint})"


def worker_setup(parent: int) -> None:
    """Prepares a local worker process: it leaves Ctrl-C to its parent (which stops the
    sweep and kills its workers), takes SIGTERM's default action (not the `cwnd`
    command's handler, inherited through fork), and dies with its parent.

    Dying with the parent uses Linux's `prctl(PR_SET_PDEATHSIG, SIGKILL)` (prctl(2)):
    a sweep killed with SIGKILL, whose cleanup never runs, leaves no worker behind.
    Elsewhere only a clean stop (Ctrl-C, SIGTERM, an error) kills the workers.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


class LocalPool:
    """A pool of `workers` local processes, with at most `workers` jobs in flight.

    When a worker dies, Python's pool breaks and fails every job in flight without
    saying which one killed it; keeping no more jobs in flight than workers bounds
    those to `workers`. Each is then run again alone, in a process of its own: one
    that dies alone is the culprit (`WorkerDied`), the others give their results, and
    a new pool takes the remaining jobs.
    """

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None
        # This process's children before the pool existed: the pool's workers are
        # the children that are not in it (`_kill`).
        self._children_before: set[multiprocessing.process.BaseProcess] = set()

    def results(self, fn: Callable[..., Any], jobs: Jobs) -> Generator[Outcome, None, None]:
        waiting = deque(range(len(jobs)))
        while waiting:
            suspects = yield from self._until_a_worker_dies(fn, jobs, waiting)
            for index, job in suspects:
                yield index, _alone(fn, job)

    def _until_a_worker_dies(
        self, fn: Callable[..., Any], jobs: Jobs, waiting: deque[int]
    ) -> Generator[Outcome, None, list[tuple[int, Job]]]:
        """Runs waiting jobs until none is left or a worker dies; returns the jobs in
        flight when it died (the generator's return value). Raises `RuntimeError` if
        the pool breaks before any job ends: its workers cannot start."""
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
        from concurrent.futures.process import BrokenProcessPool

        self._children_before = set(multiprocessing.active_children())
        pool = ProcessPoolExecutor(self.workers, initializer=worker_setup, initargs=(os.getpid(),))
        self._pool = pool
        running: dict[Any, tuple[int, Job]] = {}
        suspects: list[tuple[int, Job]] = []
        broken = finished = False
        try:
            while running or (waiting and not broken):
                while waiting and not broken and len(running) < self.workers:
                    index = waiting.popleft()
                    job = jobs[index]
                    try:
                        running[pool.submit(fn, *job)] = (index, job)
                    except BrokenProcessPool:
                        waiting.appendleft(index)
                        broken = True
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    index, job = running.pop(future)
                    try:
                        result = future.result()
                    except BrokenProcessPool:
                        suspects.append((index, job))
                        broken = True
                    else:
                        finished = True
                        yield index, result
        finally:
            self.close()
        if broken and not (finished or suspects):
            raise RuntimeError("the local process pool's workers died before running anything")
        return suspects

    def close(self) -> None:
        """Kills the pool in use, if any (idle workers after a sweep that finished,
        busy ones after a sweep that stopped early)."""
        if self._pool is not None:
            _kill(self._pool, self._children_before)
            self._pool = None


def _kill(pool: ProcessPoolExecutor, before: set[multiprocessing.process.BaseProcess]) -> None:
    """Cancels the pool's jobs not started and kills its workers: the children this
    process has now and did not have `before` the pool (the pool's process table is
    private; Python 3.14's `kill_workers` is not in 3.11)."""
    processes = [p for p in multiprocessing.active_children() if p not in before]
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.kill()
    for process in processes:
        process.join()


def _alone(fn: Callable[..., Any], job: Job) -> Any:
    """Runs one job in a process of its own: its result, or `WorkerDied` saying why
    the process died."""
    receive, send = multiprocessing.Pipe(duplex=False)
    process = multiprocessing.Process(target=_send_result, args=(send, os.getpid(), fn, job))
    process.start()
    send.close()
    try:
        return receive.recv()
    except EOFError:
        process.join()
        return WorkerDied(death(process.exitcode))
    finally:
        process.kill()
        process.join()
        receive.close()


def _send_result(send: Connection, parent: int, fn: Callable[..., Any], job: Job) -> None:
    worker_setup(parent)
    send.send(fn(*job))


class DaskCluster:
    """Jobs sent to a Dask distributed cluster through `client`; `owned` clients
    (made from an address or a cluster object) are closed with the sweep."""

    def __init__(self, client: Any, owned: bool) -> None:
        self.client = client
        self.owned = owned

    def results(self, fn: Callable[..., Any], jobs: Jobs) -> Generator[Outcome, None, None]:
        from distributed import as_completed
        from distributed.scheduler import KilledWorker

        # pure=False: Dask must run every submission, never dedupe them by value.
        futures = {self.client.submit(fn, *jobs[i], pure=False): i for i in range(len(jobs))}
        try:
            for future in as_completed(list(futures)):
                index = futures.pop(future)
                try:
                    result = future.result()
                except KilledWorker:
                    # Dask retried it on other workers (`allowed-failures`); all died.
                    result = WorkerDied("worker died: every Dask worker that ran it died")
                except Exception as e:
                    problem = " ".join(str(e).split())  # Dask's messages span lines
                    raise ClusterError(
                        f"cluster: lost during the sweep ({type(e).__name__}: {problem})"
                    ) from None
                yield index, result
        finally:
            self.client.cancel(list(futures))

    def close(self) -> None:
        if self.owned:
            self.client.close()


def connect(target: Any) -> DaskCluster:
    """A Dask cluster from an address (`tcp://host:8786`), a `distributed.Client` or
    a cluster object, checked to answer within `CONNECT_TIMEOUT` seconds and to have
    a worker within `WORKERS_TIMEOUT`; raises `ClusterError` otherwise. An address is
    asked who it is first (`identify`)."""
    from distributed import Client

    if isinstance(target, Client):
        cluster = DaskCluster(target, owned=False)
    else:
        if isinstance(target, str):
            identify(target)
        try:
            cluster = DaskCluster(Client(target, timeout=CONNECT_TIMEOUT), owned=True)
        except (ValueError, TypeError) as e:
            raise ClusterError(
                f"cluster: {target!r} is not a Dask scheduler address (use tcp://HOST:8786): {e}"
            ) from None
        except OSError as e:
            raise _no_answer(target, e) from None
    address = cluster.client.scheduler.address
    try:
        cluster.client.wait_for_workers(1, timeout=WORKERS_TIMEOUT)
    except TimeoutError:
        cluster.close()
        raise ClusterError(
            f"cluster: the scheduler at {address} has no workers "
            f"(waited {WORKERS_TIMEOUT} s); start some with `dask worker ADDRESS`"
        ) from None
    return cluster


def identify(address: str) -> None:
    """Asks the process at `address` who it is (Dask's `identity` message), all within
    `CONNECT_TIMEOUT` seconds, and raises `ClusterError` unless a Dask scheduler says
    so.

    `Client` alone reads whatever a port sends as Dask's framing: a server of another
    protocol had it allocate a frame of the length its first bytes spelt (`MemoryError:
    Unable to allocate 3.01 EiB`), and one that accepts and never answers held it for
    minutes, since Dask's handshake reads without a deadline (issue 27). The question
    is asked on a thread of its own, with its own event loop, so that a caller inside
    a running loop (a notebook) can ask too."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from distributed.comm.core import connect as open_comm
    from distributed.security import Security

    async def ask() -> Any:
        options = Security().get_connection_args("client")
        comm = await open_comm(address, timeout=CONNECT_TIMEOUT, **options)
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    def ask_in_time() -> Any:
        return asyncio.run(asyncio.wait_for(ask(), CONNECT_TIMEOUT))

    with ThreadPoolExecutor(1) as thread:
        try:
            answer = thread.submit(ask_in_time).result()
        except (ValueError, TypeError) as e:
            raise ClusterError(
                f"cluster: {address!r} is not a Dask scheduler address (use tcp://HOST:8786): {e}"
            ) from None
        except OSError as e:  # refused, unreachable, no answer in time (TimeoutError)
            raise _no_answer(address, e) from None
        except Exception as e:  # bytes that are not Dask's framing: MemoryError and others
            raise ClusterError(
                f"cluster: {address!r} is not a Dask scheduler: it answered in another "
                f"protocol ({type(e).__name__})"
            ) from None
    kind = answer.get("type") if isinstance(answer, dict) else None
    if kind != "Scheduler":
        what = f"a Dask {kind}" if isinstance(kind, str) else "something that speaks Dask"
        raise ClusterError(f"cluster: {address!r} is {what}, not a Dask scheduler")


def _no_answer(address: str, error: OSError) -> ClusterError:
    """No Dask scheduler answered in time: why, by the error's type (or its cause's:
    Dask's "Timed out trying to connect" wraps the refusal)."""
    cause = error.__cause__ if isinstance(error.__cause__, OSError) else error
    return ClusterError(
        f"cluster: no Dask scheduler answered at {address!r} within "
        f"{CONNECT_TIMEOUT} s ({type(cause).__name__})"
    )
