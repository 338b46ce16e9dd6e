"""The arguments of a sweep, checked before anything runs: a mistake is one
`SweepError` naming the argument, the value and what is allowed, never a sweep that
does something else than what was meant (a string swept letter by letter, a grid
silently dropped, a seed run twice).
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

#: Seeds per point at most: more is a typo (`seeds = 1000000000`), not a study.
MAX_SEEDS = 100_000

#: Seeds are unsigned 64-bit integers in the simulator.
SEED_LIMIT = 2**64


class SweepError(ValueError):
    """A sweep's arguments that cannot run; the message names the argument, the value
    and what is allowed."""


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."


def checked_seeds(seeds: Iterable[int]) -> list[int]:
    """The seeds as a list of distinct Python ints in [0, 2^64), at most `MAX_SEEDS`
    (numpy integers accepted). A bare number is refused: `seeds=3` could mean three
    seeds or seed 3."""
    if isinstance(seeds, numbers.Integral):
        raise SweepError(
            f"seeds: {seeds} is a number, not a list of seeds; "
            f"write range({seeds}) for {seeds} seeds, or [{seeds}] for seed {seeds} alone"
        )
    if isinstance(seeds, str | bytes) or not isinstance(seeds, Iterable):
        raise SweepError(f"seeds: {_short(seeds)} is not a list of integers")
    if isinstance(seeds, Sequence) and len(seeds) > MAX_SEEDS:
        raise SweepError(f"seeds: {len(seeds)} seeds per point; at most {MAX_SEEDS}")
    checked: list[int] = []
    seen: set[int] = set()
    for seed in seeds:
        if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
            raise SweepError(f"seeds: {_short(seed)} is not an integer")
        value = int(seed)
        if not 0 <= value < SEED_LIMIT:
            raise SweepError(f"seeds: {value} is not in 0 to 2^64 - 1")
        if value in seen:
            raise SweepError(f"seeds: {value} appears twice (each would give the same run)")
        if len(checked) == MAX_SEEDS:
            raise SweepError(f"seeds: more than {MAX_SEEDS} seeds per point")
        seen.add(value)
        checked.append(value)
    if not checked:
        raise SweepError("seeds: empty; give at least one seed")
    return checked


def checked_grid(grid: Mapping[str, Sequence[Any]]) -> dict[str, list[Any]]:
    """The grid with each field's values as a list of plain values. A string is
    refused as a list of values (it would be swept letter by letter)."""
    if not isinstance(grid, Mapping):
        raise SweepError(f"grid: {_short(grid)} is not a table of field → list of values")
    checked = {}
    for path, values in grid.items():
        if not isinstance(path, str):
            raise SweepError(f"grid: {_short(path)} is not a field path such as 'flows[0].cc'")
        if isinstance(values, str | bytes):
            raise SweepError(
                f"grid.{path}: {_short(values)} is a string, not a list of values; "
                f"write [{_short(values)}]"
            )
        if isinstance(values, Mapping) or not isinstance(values, Iterable):
            raise SweepError(f"grid.{path}: {_short(values)} is not a list of values")
        checked[path] = [plain(v) for v in values]
        if not checked[path]:
            raise SweepError(f"grid.{path}: no values; give at least one")
    return checked


def checked_points(points: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The points as dicts of field path → plain value."""
    if isinstance(points, str | bytes | Mapping) or not isinstance(points, Iterable):
        raise SweepError(f"points: {_short(points)} is not a list of points (field → value)")
    checked = []
    for i, point in enumerate(points):
        if not isinstance(point, Mapping) or not all(isinstance(k, str) for k in point):
            raise SweepError(f"points[{i}]: {_short(point)} is not a table of field → value")
        checked.append({path: plain(value) for path, value in point.items()})
    return checked


def plain(value: Any) -> Any:
    """A numpy scalar or array (from `np.linspace`, a DataFrame column) as the Python
    numbers it holds, inside lists and dicts too: scenarios and run keys are JSON."""
    if type(value) in (list, tuple):
        return type(value)(plain(v) for v in value)
    if type(value) is dict:
        return {k: plain(v) for k, v in value.items()}
    if type(value).__module__ == "numpy" and hasattr(value, "tolist"):
        return value.tolist()
    return value
