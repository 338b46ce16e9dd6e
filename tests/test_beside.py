"""Work beside this process (`cwnd.beside`), and a run's figures drawn half there."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import pytest

import cwnd
from cwnd import plot
from cwnd.beside import Beside, BesideError, can_fork


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


def test_a_runs_figures_are_drawn_half_in_a_child_and_listed_in_order(
    small_toml: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each figure records the process that drew it (forked children run the patch).
    for name in ("cwnd", "sequence", "throughput"):
        original = getattr(plot, name)

        def marked(results: cwnd.Results, path: Path, original: Any = original) -> Path:
            (tmp_path / f"{path.stem}.{os.getpid()}").touch()
            drawn: Path = original(results, path)
            return drawn

        monkeypatch.setattr(plot, name, marked)
    out = tmp_path / "out"
    written = cwnd.run(small_toml, seed=1).write(out)
    figures = [p.name for p in written if p.suffix == ".png"]
    assert figures == ["cwnd.png", "sequence.png", "throughput.png", "queue.png"]
    drawn_by = {m.stem: int(m.suffix[1:]) for m in tmp_path.glob("*.*[0-9]")}
    if (os.cpu_count() or 1) > 1:
        assert drawn_by["sequence"] == os.getpid()
        assert drawn_by["cwnd"] == drawn_by["throughput"] != os.getpid()
    assert all((out / name).stat().st_size > 10_000 for name in figures)


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
