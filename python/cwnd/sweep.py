"""Sweeps: many scenarios × seeds, in parallel, cached, resumable.

A sweep is a base scenario and a set of points; each point sets some fields of the
scenario (addressed like error messages address them: `links[1].impairments[0].p`,
`flows[0].cc`) and runs once per seed. Points come from a grid (cartesian product) or
an explicit list, or from a function that builds the whole scenario from a point.

Runs go to a local process pool (all cores by default) or to a Dask distributed
cluster (`cwnd.executors`). Each finished run is written to the cache at once, keyed
by (a hash of the scenario's plan, which holds the contents of the files it names, or
for a point of a grid of its base plan and values: `cwnd.sweep_plans`; seed, cwnd
version and a hash of its compiled engine), so an interrupted or partly failed sweep
loses nothing and a rerun computes only what is missing. A failing point
(a scenario error, or a worker that died running it) is recorded with its error and
the others go on.

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
import warnings
import zipfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cwnd import _cwnd
from cwnd.atomic import replacing, write_text
from cwnd.executors import LocalPool, WorkerDied, connect
from cwnd.scenario import Scenario, ScenarioLike, warned
from cwnd.sweep_arguments import SweepError, checked_grid, checked_points, checked_seeds
from cwnd.sweep_plans import PointPlans, set_field
from cwnd.sweep_summary import DEFAULT_METRIC, axis_names, draw, resolve, summarize

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

#: The quotes `str(KeyError(...))` puts around its message.
QUOTES = "'\""


def default_cache_dir() -> Path:
    """`$CWND_CACHE`, else `~/.cache/cwnd`."""
    env = os.environ.get("CWND_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "cwnd"


def check_fields(plan: dict[str, Any], points: Sequence[Point], argument: str) -> None:
    """Refuses, before anything runs, a point's field that the scenario does not have.

    `plan` is the base scenario's plan, which writes out every field with its default:
    a field the scenario file left out can be swept. A path that reaches no table or
    list of the plan, or whose last name the simulator calls an unknown field (stages
    of impairments, for one, write out only the fields they were given), is refused
    with a `SweepError` naming it and the sweep's `argument` (`grid` or `points`).
    Each path is tried once, with its first value.
    """
    tried: set[str] = set()
    for point in points:
        for path, value in point.items():
            if path in tried:
                continue
            tried.add(path)
            spec = copy.deepcopy(plan)
            try:
                set_field(spec, path, value)
            except (KeyError, IndexError) as e:
                raise SweepError(f"{argument}: {str(e).strip(QUOTES)}") from None
            try:
                _cwnd.load(json.dumps(spec))
            except _cwnd.ScenarioError as e:
                if str(e).startswith(f"{path}: unknown field"):
                    raise SweepError(f"{argument}: {e}") from None


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
    return f"{_cwnd.__version__}+{digest}"


def run_key(plan: _cwnd.Plan, seed: int) -> str:
    """Cache key of one run: hash of the plan's `fingerprint_key` (its canonical form,
    with a loss trace's contents, not its file name: editing the file changes the
    key, moving it does not), the seed and the engine (version and build). The runs
    of a point of a grid or a list are keyed by `PointPlans.keys` instead (their
    plans are not loaded to be keyed)."""
    h = hashlib.sha256(f"{engine_id()}\n{seed}\n{plan.fingerprint_key}".encode())
    return h.hexdigest()[:32]


def run_one(
    plan_json: str,
    seed: int,
    tables: Sequence[str] = (),
    cache: str | None = None,
    key: str = "",
) -> dict[str, Any]:
    """Runs one (plan, seed) in a worker; returns plain data (picklable): the
    summaries, and the columns of the named `tables` under "tables". The plan's
    JSON text carries the contents of every file the scenario named, so a worker
    needs no files; it is loaded here, the run's one load.

    With `cache` (a folder this worker can write), the worker stores the run itself
    under `key` (summary and compressed tables) and returns the summary without the
    tables: compressing and sending every run's columns through the parent made the
    parent the bottleneck of a parallel sweep (issue 17: 16 s of serial compression
    in `cwnd reproduce all`). A cache it cannot write (a full disk, a read-only
    folder) loses no run: the run comes back whole, with the reason under "unstored".

    Errors are returned, not raised, so that one bad point never stops a sweep.
    """
    try:
        raw = _cwnd.run(_cwnd.load(plan_json), seed)
    except Exception as e:
        return {"ok": False, "error": f"{type(e).__name__}: {e}"}
    columns: Mapping[str, object] = raw
    result = {
        "ok": True,
        "fingerprint": raw["fingerprint"],
        "events": raw["events"],
        "flows": raw["flows"],
        "generators": _generator_rows(raw),
        "tables": {name: columns[name] for name in tables},
    }
    if cache is None:
        return result
    try:
        RunCache(Path(cache)).put(key, result)
    except OSError as e:
        return {**result, "unstored": str(e)}
    del result["tables"]
    return {**result, "stored": True}


def _generator_rows(raw: _cwnd.RunResults) -> list[dict[str, Any]]:
    """Per (generator, cc): the generator's record (target and offered load) and its
    connections aggregated (`cwnd.connections.per_generator`), as plain rows: what a
    sweep keeps of the connections (their own rows would outgrow the cache)."""
    if not raw["generators"]:
        return []
    import pandas as pd

    from cwnd.connections import per_generator

    records = {g["name"]: g for g in raw["generators"]}
    rows: list[dict[str, Any]] = per_generator(pd.DataFrame(raw["connections"])).to_dict("records")
    for row in rows:
        g = records[row["generator"]]
        row.update(target_load=g["target_load"], offered_load=g["offered_load"])
    return rows


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
    and, when the sweep kept them, the runs' time series (`frame`).

    `cache_error` says why the cache could not be written, if it could not: the runs
    computed after that are not in the cache, and `held` keeps their tables."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    generator_rows: list[dict[str, Any]] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    computed: int = 0
    cached: int = 0
    runs: list[Run] = field(default_factory=list)
    store: RunCache | None = None
    cache_error: str | None = None
    held: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def table(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame(self.rows)

    @property
    def generators(self) -> pd.DataFrame:
        """A row per (point, seed, generator, cc): the point's fields, the target and
        offered load, and the connections aggregated (`cwnd.connections`); means over
        seeds with confidence intervals: `cwnd.connections.over_seeds(table, by)`."""
        import pandas as pd

        return pd.DataFrame(self.generator_rows)

    def frame(self, name: str) -> pd.DataFrame:
        """The per-run table `name` (one of `TABLES`, kept by `sweep(tables=...)`) of
        every run, with columns point, <point fields>, seed, run, flow or association
        (by name), then the table's own columns."""
        import pandas as pd

        frames = list(self.frames(name))
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

    def frames(self, name: str) -> Iterator[pd.DataFrame]:
        """`frame(name)` one run at a time, in the same order and with the same
        columns: a computation done per run holds one run's rows, not the sweep's
        (issue 17: a study's post-processing held 1.08 GB of concatenated series)."""
        for run in sorted(self.runs, key=lambda r: (r.order, r.seed)):
            yield self._run_frame(run, name)

    def run_frame(self, name: str, key: str) -> pd.DataFrame:
        """`frame(name)`'s rows of the run `key` alone (indexed from 0), read from
        that run's table only."""
        for run in self.runs:
            if run.key == key:
                return self._run_frame(run, name)
        raise KeyError(f"no run {key!r} in this sweep")

    def _run_frame(self, run: Run, name: str) -> pd.DataFrame:
        import pandas as pd

        if run.key in self.held:
            columns = self.held[run.key].get(name)
        elif self.store is None:
            raise ValueError("this sweep kept no per-run tables")
        else:
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
        return frame

    @property
    def fields(self) -> list[str]:
        """The swept fields (the points' keys), in the order of the points."""
        ordered = sorted(self.runs, key=lambda r: r.order)
        return list(dict.fromkeys(path for run in ordered for path in run.point))

    def summary(
        self, metric: str = DEFAULT_METRIC, *, names: Mapping[str, str] | None = None
    ) -> pd.DataFrame:
        """The mean of `metric` (a summary column) over seeds at every point, with its
        95 % confidence interval (`cwnd.sweep_summary.summarize`); swept fields under
        short names, or the `names` given (short name → field path)."""
        return summarize(self.table, self.fields, metric, names=names)

    def plot(
        self,
        path: str | Path,
        metric: str = DEFAULT_METRIC,
        *,
        x: str | None = None,
        hue: str | None = None,
        names: Mapping[str, str] | None = None,
        title: str | None = None,
    ) -> Path:
        """Draws `summary(metric)` against swept field `x` (a short name or a path),
        one line per value of the others, `hue` first, with 95 % error bars
        (`cwnd.sweep_summary.draw`); writes a PNG to `path`."""
        axes = axis_names(self.fields, names)
        x = None if x is None else resolve("x", x, axes)
        hue = None if hue is None else resolve("hue", hue, {**axes, "flow": "flow"})
        summary = self.summary(metric, names=names)
        return draw(summary, Path(path), x=x, hue=hue, title=title)

    def write(self, path: str | Path) -> Path:
        """Writes the table as Parquet (atomically: `cwnd.atomic`)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        with replacing(path) as tmp:
            self.table.to_parquet(tmp, index=False)
        return path


class CacheWarning(UserWarning):
    """A cache entry that cannot be used (unreadable, truncated, wrong-shaped, or not
    the run its name says): reported with its path, and the run computed again."""


class CacheWriteWarning(UserWarning):
    """The cache cannot be written (a full disk, a read-only folder): reported once,
    with the reason, and the sweep goes on without caching."""


class RunCache:
    """Finished runs on disk: a JSON file per run (its summary), and a compressed NumPy
    file per kept table, each written atomically (`cwnd.atomic`).

    An entry carries its key and the SHA-256 of its summary, a table file its key (the
    zip format checks each column's CRC-32 as it is read): a truncated, damaged or
    edited entry, or one copied under another run's name, is never used. It is
    reported (`CacheWarning`, naming the file) and the run is computed again, which
    overwrites it.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The summary of a cached run, or None when there is none or it is unusable."""
        # A miss is the common case of a new sweep: one stat of a string, no Path.
        if not os.path.isfile(os.path.join(self.folder, key[:2], f"{key}.json")):
            return None
        path = self._path(key)
        try:
            entry = json.loads(path.read_bytes())
            if not isinstance(entry, dict) or entry.keys() != {"key", "sha256", "run"}:
                raise ValueError("not a cache entry (wrong shape)")
            if entry["key"] != key:
                raise ValueError(f"it holds run {entry['key']!r}")
            if entry["sha256"] != _digest(entry["run"]):
                raise ValueError("its checksum does not match (damaged or edited)")
            run = entry["run"]
            if not isinstance(run, dict) or not isinstance(run.get("flows"), list):
                raise ValueError("not a run summary (wrong shape)")
        except (OSError, ValueError) as e:
            _warn_unusable(path, e)
            return None
        return run

    def put(self, key: str, value: dict[str, Any]) -> None:
        """Stores a run: its tables first, so that a summary in the cache always
        has the tables it was computed with."""
        import numpy as np

        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        for name, columns in value.get("tables", {}).items():
            with replacing(self._table_path(key, name)) as tmp, tmp.open("wb") as file:
                # numpy's stub cannot tell the column names from its `allow_pickle`.
                np.savez_compressed(file, **{_KEY_COLUMN: np.array(key)}, **columns)  # type: ignore[arg-type]
        summary = {k: v for k, v in value.items() if k != "tables"}
        entry = {"key": key, "sha256": _digest(summary), "run": summary}
        write_text(path, json.dumps(entry, allow_nan=True))

    def _table_path(self, key: str, name: str) -> Path:
        return self.folder / key[:2] / f"{key}.{name}.npz"

    def has_tables(self, key: str, names: Sequence[str]) -> bool:
        """Whether every named table of the run is cached: its file opens as a zip and
        names the run. The columns are not decompressed here (a cached study would
        otherwise inflate every column twice, here and when read): a column damaged
        inside an intact file is found by its CRC-32 when it is read
        (`get_table`, a `CacheWarning`)."""
        import numpy as np

        for name in names:
            path = self._table_path(key, name)
            try:
                with path.open("rb") as file, np.load(file) as data:
                    if str(data[_KEY_COLUMN]) != key:
                        raise ValueError(f"it does not hold run {key!r}")
            except FileNotFoundError:
                return False
            except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as e:
                _warn_unusable(path, e)
                return False
        return True

    def get_table(self, key: str, name: str) -> dict[str, Any] | None:
        """The columns of one kept table of a run, or None."""
        return self._read_table(key, name)

    def _read_table(self, key: str, name: str) -> dict[str, Any] | None:
        import numpy as np

        path = self._table_path(key, name)
        if not path.is_file():
            return None
        try:
            with path.open("rb") as file, np.load(file) as data:
                columns = {column: data[column] for column in data.files}
            if str(columns.pop(_KEY_COLUMN, None)) != key:
                raise ValueError(f"it does not hold run {key!r}")
        except (OSError, ValueError, EOFError, zipfile.BadZipFile) as e:
            _warn_unusable(path, e)
            # Gone, the run is computed again by the next sweep that keeps the table
            # (`has_tables` reads only a file's key, not its columns).
            path.unlink(missing_ok=True)
            return None
        return columns


#: The column of a cached table file that holds its run's key.
_KEY_COLUMN = "__key__"


def _digest(summary: dict[str, Any]) -> str:
    """SHA-256 of a run summary in canonical JSON (float text round-trips exactly)."""
    canonical = json.dumps(summary, sort_keys=True, separators=(",", ":"), allow_nan=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _warn_unusable(path: Path, problem: Exception) -> None:
    reason = str(problem) or type(problem).__name__
    message = f"{path}: unusable cache entry ({reason}); computing it again"
    warnings.warn(CacheWarning(message), stacklevel=3)


def _add_run(
    results: SweepResults, order: int, point: Point, seed: int, key: str, result: dict[str, Any]
) -> None:
    """Adds one run's rows to the table; `order` (the point's index) keeps the table's
    order independent of which run finished first."""
    for flow in result["flows"]:
        row: dict[str, Any] = {"point": order, **point}
        # In hex, as `cwnd run` prints it and the reports show it.
        row.update(seed=seed, run=key, fingerprint=f"{result['fingerprint']:016x}")
        row.update({f"flow.{k}" if k in point else k: v for k, v in flow.items()})
        results.rows.append(row)
    for generator in result.get("generators", []):
        row = {"point": order, **point, "seed": seed, "run": key}
        row.update({f"generator.{k}" if k in point else k: v for k, v in generator.items()})
        results.generator_rows.append(row)
    names = [flow["name"] for flow in result["flows"]]
    associations = [f["name"] for f in result["flows"] if f.get("transport") == "sctp"]
    results.runs.append(Run(order, point, seed, key, names, associations))


def sweep(
    base: ScenarioLike | SpecBuilder,
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
    a scenario dict; a scenario is swept from its plan, so a field it leaves at its
    default can be set. `cluster` is a Dask scheduler address (`tcp://host:8786`), a
    `distributed.Client` or a cluster object; without it `CWND_DASK_SCHEDULER` is
    used, else a local process pool with `workers` processes (default: all cores).
    Finished runs are cached in `cache` (default `default_cache_dir()`); `fresh`
    ignores (and overwrites) cached runs. `tables` names the per-run tables to keep
    (from `TABLES`); read them back with `SweepResults.frame`. `seeds` is a list (or
    range) of distinct integers in [0, 2^64); numpy numbers are accepted anywhere.

    Raises, before running anything: `SweepError` (a `ValueError`) for arguments that
    cannot run, naming the argument (a bare number as `seeds`, a string as a grid's
    values, `grid` and `points` together, a repeated seed, a path that is not a file,
    a field path the base scenario does not have: `check_fields`);
    `ScenarioError` for a base scenario that cannot be read; `ClusterError` for a Dask
    cluster that cannot be reached or has no workers (or is lost during the sweep).
    `KeyboardInterrupt` (Ctrl-C) stops the sweep and its runs; finished runs stay in
    the cache. A point whose scenario fails, or whose run kills its worker, is not
    raised: it is in `SweepResults.failures`. A damaged cache entry is reported with
    a `CacheWarning` and computed again; a cache that cannot be written, once with a
    `CacheWriteWarning`, and the sweep goes on without it. With `progress`, the sweep
    first says how many points and runs it makes.
    """
    unknown = sorted(set(tables) - set(TABLES))
    if unknown:
        raise SweepError(f"tables: {unknown[0]!r} is not one of {list(TABLES)}")
    if grid is not None and points is not None:
        raise SweepError("grid and points: give one of them, not both")
    seeds = checked_seeds(seeds)
    if isinstance(base, Path) and not base.is_file():
        raise SweepError(f"base: {base} is not a scenario file")
    if points is not None:
        all_points = checked_points(points)
    else:
        all_points = grid_points(checked_grid(grid or {}))
    if not all_points:
        all_points = [{}]
    source: dict[str, Any] | SpecBuilder
    if isinstance(base, dict | str | Path | Scenario | _cwnd.Plan):
        base_plan: dict[str, Any] = warned(base, stacklevel=3).spec
        check_fields(base_plan, all_points, "grid" if points is None else "points")
        source = base_plan
    else:
        source = base
    store = RunCache(Path(cache) if cache else default_cache_dir())
    results = SweepResults(store=store)
    plans = PointPlans(source, engine_id()) if isinstance(source, dict) else None
    todo = _prepare(all_points, seeds, source, plans, store, fresh, tables, results, progress)
    _execute(todo, plans, results, store, workers, cluster, progress, tuple(tables))
    results.rows.sort(key=lambda row: (row["point"], row["seed"]))
    results.generator_rows.sort(key=lambda row: (row["point"], row["seed"]))
    return results


#: A run to compute: its point's index, the point, the seed, the run's key, and the
#: point's plan when it was loaded here (else `PointPlans.text` makes it when sent).
Todo = tuple[int, Point, int, str, str | None]

#: Points prepared between two updates of the preparation's progress bar (an update
#: costs more than a point).
PROGRESS_STEP = 1024


def _prepare(
    points: list[Point],
    seeds: list[int],
    source: dict[str, Any] | SpecBuilder,
    plans: PointPlans | None,
    store: RunCache,
    fresh: bool,
    tables: Sequence[str],
    results: SweepResults,
    progress: bool,
) -> list[Todo]:
    """Each point's run keys (`PointPlans`, or the point's plan loaded here: a builder's
    point, a point that names a file), and the runs the cache does not hold; cached
    runs go to `results`, and so do points whose loaded plan the simulator refuses.
    With `progress`, says how many points and runs the sweep makes before anything
    else, shows the preparation's progress, then how many runs the cache held."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    runs = len(points) * len(seeds)
    if progress:
        counted = f"{_count(len(points), 'point')} × {_count(len(seeds), 'seed')}"
        print(f"sweep: {counted} = {_count(runs, 'run')}", flush=True)
    console = Console()
    bar = Progress(
        TextColumn("[bold]preparing"),
        BarColumn(),
        MofNCompleteColumn(),
        console=console,
        # Gone when done; on a terminal only (elsewhere it would leave an empty line).
        disable=not (progress and console.is_terminal),
        transient=True,
    )
    todo: list[Todo] = []
    with bar:
        task = bar.add_task("points", total=len(points))
        for order, point in enumerate(points):
            if order % PROGRESS_STEP == 0:
                bar.update(task, completed=order)
            keys = None if plans is None else plans.keys(point, seeds)
            plan = None
            if keys is None:
                try:
                    point_plan = _cwnd.load(json.dumps(spec_for(source, point)))
                except _cwnd.ScenarioError as e:
                    results.failures += [Failure(point, s, f"ScenarioError: {e}") for s in seeds]
                    continue
                keys = [run_key(point_plan, seed) for seed in seeds]
                # Its text, not the plan: the text is what is sent, and it is smaller.
                plan = point_plan.to_json()
            for seed, key in zip(seeds, keys, strict=True):
                hit = None if fresh else store.get(key)
                if hit is not None and hit.get("ok") and store.has_tables(key, tables):
                    _add_run(results, order, point, seed, key, hit)
                    results.cached += 1
                else:
                    todo.append((order, point, seed, key, plan))
        bar.update(task, completed=len(points))
    if progress:
        print(f"sweep: {results.cached} in the cache, {len(todo)} to run", flush=True)
    return todo


def _count(n: int, what: str) -> str:
    return f"{n} {what}" if n == 1 else f"{n} {what}s"


def _execute(
    todo: list[Todo],
    plans: PointPlans | None,
    results: SweepResults,
    store: RunCache,
    workers: int | None,
    cluster: Any,
    progress: bool,
    tables: tuple[str, ...],
) -> None:
    """Computes the runs of `todo`, caching each as it finishes; a run whose worker
    died is a failed run like any other."""
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

    target = cluster or os.environ.get("CWND_DASK_SCHEDULER")
    executor = connect(target) if target else LocalPool(workers or os.cpu_count() or 1)
    # Local workers share this machine's disk and store their own runs; a Dask
    # cluster's workers may not see it, so their results stream back here and this
    # process stores each as it arrives.
    folder = None if target else str(store.folder)
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

    def job(index: int) -> tuple[Any, ...]:
        _, point, seed, key, plan = todo[index]
        if plan is None and plans is not None:
            plan = plans.text(point)
        return (plan, seed, tables, folder if results.cache_error is None else None, key)

    outcomes = executor.results(run_one, _Jobs(len(todo), job))
    try:
        with bar:
            task = bar.add_task("runs", total=len(todo), failed=0)
            for index, result in outcomes:
                order, point, seed, key, _ = todo[index]
                if isinstance(result, WorkerDied):
                    results.failures.append(Failure(point, seed, result.reason))
                elif result["ok"]:
                    _keep(results, store, key, result)
                    _add_run(results, order, point, seed, key, result)
                    results.computed += 1
                else:
                    results.failures.append(Failure(point, seed, result["error"]))
                bar.update(task, advance=1, failed=len(results.failures))
    finally:
        outcomes.close()
        executor.close()


@dataclass
class _Jobs:
    """`count` jobs, each made by `make(index)` when the executor sends it."""

    count: int
    make: Callable[[int], tuple[Any, ...]]

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, index: int) -> tuple[Any, ...]:
        return self.make(index)


def _keep(results: SweepResults, store: RunCache, key: str, result: dict[str, Any]) -> None:
    """Caches a finished run that its worker did not store (a Dask worker's, or one
    whose worker could not write the cache). The first failure to write is reported
    once (`CacheWriteWarning`) and ends caching for the sweep; a run not cached keeps
    its tables in `results.held`."""
    unstored = result.pop("unstored", None)
    if result.pop("stored", False):
        return
    if unstored is None and results.cache_error is None:
        try:
            store.put(key, result)
        except OSError as e:
            unstored = str(e)
        else:
            return
    if results.cache_error is None:
        results.cache_error = unstored
        message = f"{store.folder}: cannot write the run cache ({unstored}); going on without it"
        warnings.warn(CacheWriteWarning(message), stacklevel=2)
    if result["tables"]:
        results.held[key] = result["tables"]
    del result["tables"]
