"""Python trees measured in alternating order, round by round (BENCHMARKS.md): the loop
of `bench_sweep_prep.py` and `bench_run_load.py`."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

#: A tree to measure: its name, and the PYTHONPATH that imports it (None: this tree).
Tree = tuple[str, str | None]


def alternated(
    label: str,
    trees: list[Tree],
    rounds: int,
    measure: Callable[[str | None], T],
    shown: Callable[[T], str],
) -> dict[str, list[T]]:
    """Measures every tree once a round, in the order given in even rounds and the
    reverse in odd ones, so that whatever favours the later measurement of a round
    falls on each tree alike; prints each round as `label round N: tree: shown, ...`.
    Returns each tree's measurements, by name."""
    measured: dict[str, list[T]] = {name: [] for name, _ in trees}
    for r in range(rounds):
        order = trees if r % 2 == 0 else trees[::-1]
        for name, pythonpath in order:
            measured[name].append(measure(pythonpath))
        row = ", ".join(f"{n}: {shown(v[-1])}" for n, v in measured.items())
        print(f"{label} round {r + 1}: {row}", flush=True)
    return measured
