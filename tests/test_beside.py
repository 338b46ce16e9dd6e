"""Work beside this process (`cwnd.beside`), and a run's figures drawn half there."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import cwnd
from cwnd import plot
from cwnd.beside import Beside, BesideError, can_fork, stop_on_sigterm


def test_the_childs_result_comes_back() -> None:
    parent = os.getpid()
    child = Beside(lambda: (os.getpid(), [1, 2, 3]))
    pid, value = child.result()
    assert value == [1, 2, 3]
    assert pid != parent


def test_an_error_in_the_child_is_raised_with_its_traceback() -> None:
    def fails() -> None:
        raise KeyError("no such flow")

    with pytest.raises(BesideError, match=r"(?s)Traceback.*KeyError: 'no such flow'"):
        Beside(fails).result()


def test_a_child_that_dies_is_named_by_its_signal() -> None:
    with pytest.raises(BesideError, match=r"signal 9 \(SIGKILL"):
        Beside(lambda: os.kill(os.getpid(), signal.SIGKILL)).result()


def test_a_runs_figures_are_shared_with_a_child_each_drawn_once_and_listed_in_order(
    small_toml: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each figure records the process that drew it (forked children run the patch)
    # and takes 0.2 s more, so that the child, started first, takes some whatever
    # the host's load.
    for name in ("cwnd", "sequence", "throughput", "queues"):
        original = getattr(plot, name)

        def marked(results: cwnd.Results, path: Path, original: Any = original) -> Path:
            (tmp_path / f"{path.stem}.{os.getpid()}").touch()
            time.sleep(0.2)
            drawn: Path = original(results, path)
            return drawn

        monkeypatch.setattr(plot, name, marked)
    out = tmp_path / "out"
    written = cwnd.run(small_toml, seed=1).write(out)
    figures = [p.name for p in written if p.suffix == ".png"]
    assert figures == ["cwnd.png", "sequence.png", "throughput.png", "queue.png"]
    marks = [(m.stem, int(m.suffix[1:])) for m in tmp_path.glob("*.*[0-9]")]
    assert sorted(stem for stem, _ in marks) == ["cwnd", "queue", "sequence", "throughput"]
    if (os.cpu_count() or 1) > 1:
        assert {pid for _, pid in marks} - {os.getpid()}, "the child drew nothing"
    assert all((out / name).stat().st_size > 10_000 for name in figures)


def test_the_child_draws_without_pandas(small_toml: Path, tmp_path: Path) -> None:
    # In a fresh interpreter (pandas not yet imported), the child's figures import
    # no pandas: the child starts at once, beside the parent's pandas import.
    script = f"""
import os, sys, cwnd
from cwnd import plot
original = plot.cwnd
def marked(results, path):
    drawn = original(results, path)
    (path.parent / f"pandas.{{os.getpid()}}.{{'pandas' in sys.modules}}").touch()
    return drawn
plot.cwnd = marked
results = cwnd.run({str(small_toml)!r}, seed=1)
assert "pandas" not in sys.modules
results.write({str(tmp_path)!r}, figures=["cwnd", "sequence", "throughput", "queue"])
print(os.getpid())
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    parent = int(done.stdout)
    (mark,) = tmp_path.glob("pandas.*")
    _, pid, imported = mark.name.split(".")
    if (os.cpu_count() or 1) > 1:
        # The child takes the first figure: the parent is importing pandas meanwhile.
        assert int(pid) != parent
        assert imported == "False"


def _can_fork_in_a_daemon(send: Any) -> None:
    send.send(can_fork())


def test_a_daemonic_process_draws_in_itself() -> None:
    import multiprocessing

    receive, send = multiprocessing.Pipe(duplex=False)
    daemon = multiprocessing.get_context("fork").Process(
        target=_can_fork_in_a_daemon, args=(send,), daemon=True
    )
    daemon.start()
    assert receive.recv() is False
    daemon.join()


def _stop_while_working(tmp_path: Path, ask: bool) -> bool:
    """Starts a child whose work writes "started", sleeps, and writes "cleaned" in its
    `finally` (after calling `stop_on_sigterm` if `ask`); closes it while it sleeps.
    Whether its `finally` ran."""
    started, cleaned = tmp_path / "started", tmp_path / "cleaned"

    def work() -> None:
        if ask:
            stop_on_sigterm()
        try:
            started.write_text("yes")
            time.sleep(60)
        finally:
            cleaned.write_text("yes")

    child = Beside(work)
    deadline = time.monotonic() + 30
    while not started.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    child.close()
    return cleaned.exists()


def test_a_child_that_asked_cleans_up_when_stopped(tmp_path: Path) -> None:
    """`close` before the result (the parent stopped): a child whose work called
    `stop_on_sigterm` runs its `finally` (live mode removes its namespaces there); it
    must not be killed outright."""
    assert _stop_while_working(tmp_path, ask=True)


def test_a_child_that_did_not_ask_is_stopped_at_once(tmp_path: Path) -> None:
    """Without `stop_on_sigterm`, SIGTERM ends the child where it stands (the default
    `worker_setup` sets): its `finally` never runs."""
    assert not _stop_while_working(tmp_path, ask=False)
