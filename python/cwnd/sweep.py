"""Sweeps: many scenarios × seeds, in parallel, cached, resumable.

A sweep is a base scenario and a set of points; each point sets some fields of the
scenario (addressed like error messages address them: `links[1].impairments[0].p`,
`flows[0].cc`) and runs once per seed. Points come from a grid (cartesian product) or
an explicit list, or from a function that builds the whole scenario from a point.

Runs go to a local process pool (all cores by default) or to a Dask distributed
cluster. Each finished run is written to the cache at once, keyed by (scenario
hash, seed, cwnd version), so an interrupted or partly failed sweep loses nothing and
a rerun computes only what is missing. A failing point is recorded with its error and
the others go on.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import os
import re
import signal
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures import as_completed as pool_as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cwnd
from cwnd import _cwnd

if TYPE_CHECKING:
    import pandas as pd

Point = dict[str, Any]
SpecBuilder = Callable[[Point], dict[str, Any]]

_PATH_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def default_cache_dir() -> Path:
    """`$CWND_CACHE`, else `~/.cache/cwnd`."""
    env = os.environ.get("CWND_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "cwnd"


def set_field(spec: dict[str, Any], path: str, value: Any) -> None:
    """Sets `spec[path] = value` for a path such as `links[1].impairments[0].p`.

    Raises `KeyError`/`IndexError` naming the path when a container on the way is
    missing (the last key may be new).
    """
    parts = [name if name else int(index) for name, index in _PATH_PART.findall(path)]
    if not parts:
        raise KeyError(f"{path!r} is not a field path")
    node: Any = spec
    for i, part in enumerate(parts[:-1]):
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            where = path if i == 0 else f"{path} (at {parts[i]!r})"
            raise KeyError(f"{where}: no such field in the base scenario") from None
    last = parts[-1]
    if isinstance(node, list) and isinstance(last, int) and last >= len(node):
        raise IndexError(f"{path}: index {last} is beyond the list's {len(node)} entries")
    node[last] = value


def grid_points(grid: Mapping[str, Sequence[Any]]) -> list[Point]:
    """The cartesian product of the grid, in a stable order (first key slowest)."""
    keys = list(grid)
    return [dict(zip(keys, values, strict=True)) for values in itertools.product(*grid.values())]


def spec_for(base: dict[str, Any] | SpecBuilder, point: Point) -> dict[str, Any]:
    """The scenario of one point: the builder's, or the base with the point's fields set."""
    if callable(base):
        return base(point)
    spec = copy.deepcopy(base)
    for path, value in point.items():
        set_field(spec, path, value)
    return spec


def run_key(spec: dict[str, Any], seed: int) -> str:
    """Cache key of one run: hash of the canonical scenario, the seed and the version."""
    canonical = json.dumps(spec, sort_keys=True, separators=(",", ":"))
    h = hashlib.sha256(f"{cwnd.__version__}\n{seed}\n{canonical}".encode())
    return h.hexdigest()[:32]


def run_one(spec_json: str, seed: int) -> dict[str, Any]:
    """Runs one (scenario, seed) in a worker; returns plain data (picklable, JSON-able).

    Errors are returned, not raised, so that one bad point never stops a sweep.
    """
    try:
        raw = _cwnd.run(spec_json, seed)
    except Exception as e:
        return {"ok": False, "error": f"{type(e).__name__}: {e}"}
    return {
        "ok": True,
        "fingerprint": raw["fingerprint"],
        "events": raw["events"],
        "flows": raw["flows"],
    }


@dataclass
class Failure:
    point: Point
    seed: int
    error: str


@dataclass
class SweepResults:
    """One tidy table: a row per (point, seed, flow), the point's fields as columns."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    computed: int = 0
    cached: int = 0

    @property
    def table(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame(self.rows)

    def write(self, path: str | Path) -> Path:
        """Writes the table as Parquet."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        self.table.to_parquet(path, index=False)
        return path


class RunCache:
    """Finished runs on disk, one small JSON file each, written atomically."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        path = self._path(key)
        if not path.is_file():
            return None
        return json.loads(path.read_text())

    def put(self, key: str, value: dict[str, Any]) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps(value, allow_nan=True))
        tmp.replace(path)


def _rows(
    order: int, point: Point, seed: int, key: str, result: dict[str, Any]
) -> list[dict[str, Any]]:
    """Table rows of one run; `order` (the point's index) keeps the table's order
    independent of which run finished first."""
    rows = []
    for flow in result["flows"]:
        row: dict[str, Any] = {"point": order, **point}
        row.update(seed=seed, run=key, fingerprint=result["fingerprint"])
        row.update({f"flow.{k}" if k in point else k: v for k, v in flow.items()})
        rows.append(row)
    return rows


def _ignore_interrupts() -> None:
    """Pool workers leave Ctrl-C to the parent, which stops the sweep cleanly."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@dataclass
class _Executor:
    submit: Callable[..., Any]
    as_completed: Callable[[Iterable[Any]], Iterable[Any]]
    close: Callable[[], None]
    submit_options: dict[str, Any] = field(default_factory=dict)


def _executor(cluster: Any, workers: int | None) -> _Executor:
    """Dask when a cluster is given (an address, a `distributed.Client`, or a
    cluster object such as `LocalCluster`), else a local process pool."""
    target = cluster or os.environ.get("CWND_DASK_SCHEDULER")
    if target:
        from distributed import Client, as_completed

        # pure=False: Dask must run every submission, never dedupe them by value.
        options = {"pure": False}
        if isinstance(target, Client):
            return _Executor(target.submit, as_completed, lambda: None, options)
        client = Client(target)
        return _Executor(client.submit, as_completed, client.close, options)
    pool = ProcessPoolExecutor(
        max_workers=workers or os.cpu_count() or 1, initializer=_ignore_interrupts
    )
    return _Executor(
        pool.submit,
        pool_as_completed,
        lambda: pool.shutdown(wait=False, cancel_futures=True),
    )


def sweep(
    base: dict[str, Any] | SpecBuilder | cwnd.Scenario | str | Path,
    grid: Mapping[str, Sequence[Any]] | None = None,
    points: Iterable[Point] | None = None,
    seeds: Iterable[int] = (0,),
    *,
    cache: str | Path | None = None,
    fresh: bool = False,
    workers: int | None = None,
    cluster: Any = None,
    progress: bool = True,
) -> SweepResults:
    """Runs every point of `grid` (or `points`) with every seed.

    `base` is a scenario (anything `cwnd.run` accepts) or a function from a point to
    a scenario dict. `cluster` is a Dask scheduler address (`tcp://host:8786`), a
    `distributed.Client` or a cluster object; without it `CWND_DASK_SCHEDULER` is
    used, else a local process pool with `workers` processes (default: all cores).
    Finished runs are cached in `cache` (default `default_cache_dir()`); `fresh`
    ignores (and overwrites) cached runs.
    """
    from cwnd.run import to_spec

    if not callable(base):
        base = to_spec(base)
    all_points = list(points) if points is not None else grid_points(grid or {})
    if not all_points:
        all_points = [{}]
    store = RunCache(Path(cache) if cache else default_cache_dir())
    results = SweepResults()
    todo: list[tuple[int, Point, int, str, str]] = []
    for order, point in enumerate(all_points):
        try:
            spec = spec_for(base, point)
        except (KeyError, IndexError) as e:
            for seed in seeds:
                results.failures.append(Failure(point, seed, str(e).strip("'\"")))
            continue
        for seed in seeds:
            key = run_key(spec, seed)
            hit = None if fresh else store.get(key)
            if hit is not None and hit.get("ok"):
                results.rows += _rows(order, point, seed, key, hit)
                results.cached += 1
            else:
                todo.append((order, point, seed, key, json.dumps(spec)))
    _execute(todo, results, store, workers, cluster, progress)
    results.rows.sort(key=lambda row: (row["point"], row["seed"]))
    return results


def _execute(
    todo: list[tuple[int, Point, int, str, str]],
    results: SweepResults,
    store: RunCache,
    workers: int | None,
    cluster: Any,
    progress: bool,
) -> None:
    if not todo:
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    executor = _executor(cluster, workers)
    bar = Progress(
        TextColumn("[bold]sweep"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("failed {task.fields[failed]}"),
        TimeElapsedColumn(),
        TextColumn("left"),
        TimeRemainingColumn(),
        disable=not progress,
        transient=False,
    )
    pending: dict[Any, tuple[int, Point, int, str]] = {}
    try:
        with bar:
            task = bar.add_task("runs", total=len(todo), failed=0)
            for order, point, seed, key, spec_json in todo:
                future = executor.submit(run_one, spec_json, seed, **executor.submit_options)
                pending[future] = (order, point, seed, key)
            for future in executor.as_completed(list(pending)):
                order, point, seed, key = pending.pop(future)
                result = future.result()
                if result["ok"]:
                    store.put(key, result)
                    results.rows += _rows(order, point, seed, key, result)
                    results.computed += 1
                else:
                    results.failures.append(Failure(point, seed, result["error"]))
                bar.update(task, advance=1, failed=len(results.failures))
    finally:
        for future in pending:
            future.cancel()
        executor.close()
