"""Sweeps: many scenarios × seeds, in parallel, cached, resumable.

A sweep is a base scenario and a set of points; each point sets some fields of the
scenario (addressed like error messages address them: `links[1].impairments[0].p`,
`flows[0].cc`) and runs once per seed. Points come from a grid (cartesian product) or
an explicit list, or from a function that builds the whole scenario from a point.

Runs go to a local process pool (all cores by default) or to a Dask distributed
cluster. Each finished run is written to the cache at once, keyed by (a hash of
the scenario's plan, which holds the contents of the files it names, seed, cwnd version
and a hash of its compiled engine), so an interrupted or partly failed sweep loses
nothing and a rerun computes only what is missing. A failing
point is recorded with its error and the others go on.

On request (`tables=("series", "throughput", "segments")`) each run's time series are
kept too, in the cache beside its summary, and `SweepResults.frame(name)` gives them as
one tidy table with the point's fields as columns.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import itertools
import json
import os
import re
import signal
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cwnd
from cwnd import _cwnd

if TYPE_CHECKING:
    import pandas as pd

Point = dict[str, Any]
SpecBuilder = Callable[[Point], dict[str, Any]]

#: The per-run tables a sweep can keep (see `Results` for their columns), each with the
#: column that names its flow: a flow of any transport, or an SCTP association.
TABLE_KEYS = {
    "series": "flow",
    "throughput": "flow",
    "segments": "flow",
    "association_series": "association",
    "path_series": "association",
    "chunks": "association",
    "sctp_events": "association",
}
TABLES = tuple(TABLE_KEYS)

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


@functools.cache
def engine_id() -> str:
    """The version and a hash of the simulator's compiled extension: a rebuilt engine
    (a changed model, between two releases with one version number) gets new cache
    keys, so a sweep never mixes results of two different simulators."""
    digest = hashlib.sha256(Path(_cwnd.__file__).read_bytes()).hexdigest()[:16]
    return f"{cwnd.__version__}+{digest}"


def run_key(scenario: dict[str, Any] | str, seed: int) -> str:
    """Cache key of one run: hash of the scenario's plan in canonical form (a loss
    trace's contents, not its file name: editing the file changes the key, moving it
    does not), the seed and the engine (version and build). `scenario` is a scenario
    dict, or a plan as `_cwnd.load` gives it.

    Raises `ScenarioError` for a dict that does not load."""
    plan = scenario if isinstance(scenario, str) else _cwnd.load(json.dumps(scenario))
    h = hashlib.sha256(f"{engine_id()}\n{seed}\n{plan}".encode())
    return h.hexdigest()[:32]


def run_one(plan_json: str, seed: int, tables: Sequence[str] = ()) -> dict[str, Any]:
    """Runs one (plan, seed) in a worker; returns plain data (picklable): the
    summaries, and the columns of the named `tables` under "tables". The plan carries
    the contents of every file the scenario named, so a worker needs no files.

    Errors are returned, not raised, so that one bad point never stops a sweep.
    """
    try:
        raw = _cwnd.run(plan_json, seed)
    except Exception as e:
        return {"ok": False, "error": f"{type(e).__name__}: {e}"}
    return {
        "ok": True,
        "fingerprint": raw["fingerprint"],
        "events": raw["events"],
        "flows": raw["flows"],
        "tables": {name: raw[name] for name in tables},
    }


@dataclass
class Failure:
    point: Point
    seed: int
    error: str


@dataclass
class Run:
    """One finished run of a sweep: its point (and the point's index), seed and key."""

    order: int
    point: Point
    seed: int
    key: str
    flows: list[str]
    associations: list[str]


@dataclass
class SweepResults:
    """One tidy table: a row per (point, seed, flow), the point's fields as columns;
    and, when the sweep kept them, the runs' time series (`frame`)."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    computed: int = 0
    cached: int = 0
    runs: list[Run] = field(default_factory=list)
    store: RunCache | None = None

    @property
    def table(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame(self.rows)

    def frame(self, name: str) -> pd.DataFrame:
        """The per-run table `name` (one of `TABLES`, kept by `sweep(tables=...)`) of
        every run, with columns point, <point fields>, seed, run, flow or association
        (by name), then the table's own columns."""
        import pandas as pd

        if self.store is None:
            raise ValueError("this sweep kept no per-run tables")
        frames = []
        for run in sorted(self.runs, key=lambda r: (r.order, r.seed)):
            columns = self.store.get_table(run.key, name)
            if columns is None:
                raise ValueError(f"{name}: not kept for run {run.key}; sweep with tables=")
            frame = pd.DataFrame(columns)
            key = TABLE_KEYS[name]
            names = run.flows if key == "flow" else run.associations
            ids = frame.pop(key).to_numpy().astype("int64")
            frame.insert(0, key, [names[i] for i in ids])
            frame.insert(0, "run", run.key)
            frame.insert(0, "seed", run.seed)
            for i, (path, value) in enumerate(run.point.items()):
                frame.insert(i, path, [value] * len(frame))
            frame.insert(0, "point", run.order)
            frames.append(frame)
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

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
        """Stores a run: its tables first, so that a summary in the cache always
        has the tables it was computed with."""
        import numpy as np

        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        for name, columns in value.get("tables", {}).items():
            target = self._table_path(key, name)
            tmp = target.with_name(f"{target.stem}.tmp{os.getpid()}.npz")
            np.savez_compressed(tmp, **columns)
            tmp.replace(target)
        summary = {k: v for k, v in value.items() if k != "tables"}
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps(summary, allow_nan=True))
        tmp.replace(path)

    def _table_path(self, key: str, name: str) -> Path:
        return self.folder / key[:2] / f"{key}.{name}.npz"

    def has_tables(self, key: str, names: Sequence[str]) -> bool:
        return all(self._table_path(key, name).is_file() for name in names)

    def get_table(self, key: str, name: str) -> dict[str, Any] | None:
        """The columns of one kept table of a run, or None."""
        import numpy as np

        path = self._table_path(key, name)
        if not path.is_file():
            return None
        with np.load(path) as data:
            return {column: data[column] for column in data.files}


def _add_run(
    results: SweepResults, order: int, point: Point, seed: int, key: str, result: dict[str, Any]
) -> None:
    """Adds one run's rows to the table; `order` (the point's index) keeps the table's
    order independent of which run finished first."""
    for flow in result["flows"]:
        row: dict[str, Any] = {"point": order, **point}
        row.update(seed=seed, run=key, fingerprint=result["fingerprint"])
        row.update({f"flow.{k}" if k in point else k: v for k, v in flow.items()})
        results.rows.append(row)
    names = [flow["name"] for flow in result["flows"]]
    associations = [f["name"] for f in result["flows"] if f.get("transport") == "sctp"]
    results.runs.append(Run(order, point, seed, key, names, associations))


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
    # Imported here: the process-pool machinery is slow to import, and `import cwnd`
    # should stay fast for those who never sweep.
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures import as_completed as pool_as_completed

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
    tables: Sequence[str] = (),
) -> SweepResults:
    """Runs every point of `grid` (or `points`) with every seed.

    `base` is a scenario (anything `cwnd.run` accepts) or a function from a point to
    a scenario dict. `cluster` is a Dask scheduler address (`tcp://host:8786`), a
    `distributed.Client` or a cluster object; without it `CWND_DASK_SCHEDULER` is
    used, else a local process pool with `workers` processes (default: all cores).
    Finished runs are cached in `cache` (default `default_cache_dir()`); `fresh`
    ignores (and overwrites) cached runs. `tables` names the per-run tables to keep
    (from `TABLES`); read them back with `SweepResults.frame`.
    """
    from cwnd.run import to_spec

    unknown = sorted(set(tables) - set(TABLES))
    if unknown:
        raise ValueError(f"tables: {unknown[0]!r} is not one of {list(TABLES)}")

    if not callable(base):
        base = to_spec(base)
    all_points = list(points) if points is not None else grid_points(grid or {})
    if not all_points:
        all_points = [{}]
    store = RunCache(Path(cache) if cache else default_cache_dir())
    results = SweepResults(store=store)
    todo: list[tuple[int, Point, int, str, str]] = []
    for order, point in enumerate(all_points):
        try:
            spec = spec_for(base, point)
        except (KeyError, IndexError) as e:
            for seed in seeds:
                results.failures.append(Failure(point, seed, str(e).strip("'\"")))
            continue
        try:
            plan = _cwnd.load(json.dumps(spec))
        except _cwnd.ScenarioError as e:
            for seed in seeds:
                results.failures.append(Failure(point, seed, f"ScenarioError: {e}"))
            continue
        for seed in seeds:
            key = run_key(plan, seed)
            hit = None if fresh else store.get(key)
            if hit is not None and hit.get("ok") and store.has_tables(key, tables):
                _add_run(results, order, point, seed, key, hit)
                results.cached += 1
            else:
                todo.append((order, point, seed, key, plan))
    _execute(todo, results, store, workers, cluster, progress, tuple(tables))
    results.rows.sort(key=lambda row: (row["point"], row["seed"]))
    return results


def _execute(
    todo: list[tuple[int, Point, int, str, str]],
    results: SweepResults,
    store: RunCache,
    workers: int | None,
    cluster: Any,
    progress: bool,
    tables: tuple[str, ...],
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
            for order, point, seed, key, plan in todo:
                future = executor.submit(run_one, plan, seed, tables, **executor.submit_options)
                pending[future] = (order, point, seed, key)
            for future in executor.as_completed(list(pending)):
                order, point, seed, key = pending.pop(future)
                result = future.result()
                if result["ok"]:
                    store.put(key, result)
                    _add_run(results, order, point, seed, key, result)
                    results.computed += 1
                else:
                    results.failures.append(Failure(point, seed, result["error"]))
                bar.update(task, advance=1, failed=len(results.failures))
    finally:
        for future in pending:
            future.cancel()
        executor.close()
