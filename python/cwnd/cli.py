"""The `cwnd` command line.

Exit codes (docs/scenarios.md): 0 success; 1 a run that failed for a reason of its
own (a sweep point, a study's run) or an internal error; 2 every user mistake, an
unusable Dask cluster or a full disk (one line naming the problem, no traceback);
128 + N when stopped by signal N (130 for Ctrl-C, 143 for SIGTERM).
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import cwnd
from cwnd import atomic
from cwnd.beside import Beside, can_fork
from cwnd.executors import ClusterError
from cwnd.no_space import NoSpace
from cwnd.run_view import FIGURES
from cwnd.scenario import Scenario

if TYPE_CHECKING:
    from cwnd import _cwnd
    from cwnd.studies.study import StudyReport
    from cwnd.sweep_outputs import SweepOutputs

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2


class BadInput(Exception):
    """Input the user must fix; reported in one line with exit code 2."""


def _load(path: str) -> cwnd.Plan:
    """The plan of the scenario file `path` (a `Path`: a name is never TOML text),
    loaded once; what can never happen in its run is printed as a warning."""
    return cwnd.plan(Path(path))


def _format_summary(results: cwnd.Results) -> str:
    """One line per flow of any transport. A column a flow's transport does not have
    (a UDP flow retransmits nothing and completes nothing) shows "-": in a frame of
    UDP flows only, such columns are not there at all."""
    rows = [("flow", "cc", "goodput Mb/s", "retransmitted", "timeouts", "completion s")]
    for f in results.summary.to_dict("records"):
        completion = f.get("completion_time", math.nan)
        rows.append(
            (
                f["name"],
                f["cc"],
                f"{f['goodput_bps'] / 1e6:.3f}",
                _count(f.get("segments_retransmitted", math.nan)),
                _count(f.get("timeouts", math.nan)),
                "-" if math.isnan(completion) else f"{completion:.3f}",
            )
        )
    return _table(rows)


def _count(value: float) -> str:
    """A counter of the summary: a whole number, or "-" where the flow has none (a UDP
    flow has no retransmissions)."""
    return "-" if math.isnan(value) else str(int(value))


def _format_generators(results: cwnd.Results) -> str:
    """Per traffic generator: target and offered load, connections, and the mean
    goodput over its connections (`Results.connection_summary`)."""
    rows = [("generator", "cc", "load", "offered", "connections", "completed", "goodput Mb/s")]
    means = results.connection_summary.set_index("generator")
    for g in results.generators.to_dict("records"):
        goodput = means["goodput_bps"].get(g["name"], math.nan)
        rows.append(
            (
                g["name"],
                g["cc"],
                f"{g['target_load']:.3f}",
                f"{g['offered_load']:.3f}",
                str(g["connections_opened"]),
                str(g["connections_completed"]),
                "-" if math.isnan(goodput) else f"{goodput / 1e6:.3f}",
            )
        )
    return _table(rows)


def _table(rows: Sequence[tuple[str, ...]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows)


#: What a run of TCP flows writes. A run with nothing for some of them (generators'
#: connections only: no flow; UDP flows only: no window) skips those and says so.
PER_FLOW_FILES = (
    "summary.csv",
    "series.parquet",
    "throughput.parquet",
    "cwnd.png",
    "sequence.png",
    "throughput.png",
)


def _run_one(
    path: str, seed: int, out: Path, figures: Sequence[str] = FIGURES
) -> tuple[cwnd.Results, list[str], list[str]]:
    """Runs a scenario file into `out`, with the `figures` named (`cwnd.run_view.FIGURES`);
    returns its results, the `PER_FLOW_FILES` it skipped, empty (of the figures,
    those asked for only), and the TCP profiles it ran."""
    importing = threading.Thread(target=_import_writers, args=(bool(figures),), daemon=True)
    importing.start()
    plan = _load(path)
    results = cwnd.run(plan, seed=seed)
    importing.join()
    written = {p.name for p in results.write(out, figures)}
    expected = [n for n in PER_FLOW_FILES if not n.endswith(".png") or n[:-4] in figures]
    skipped = [name for name in expected if name not in written]
    return results, skipped, plan.summary()["tcp_profiles"]


def _header(results: cwnd.Results, profiles: Sequence[str]) -> str:
    """A run's first line: its name, seed and fingerprint, and the TCP profiles its
    flows ran, since a profile decides every TCP option a scenario leaves unset."""
    tcp = f", TCP profile{'s' * (len(profiles) > 1)} {', '.join(profiles)}" if profiles else ""
    return f"{results.name} (seed {results.seed}, fingerprint {results.fingerprint:016x}{tcp})"


def _skipped_text(skipped: list[str]) -> str:
    return f"skipped, nothing to show: {', '.join(skipped)}"


def _import_writers(figures: bool) -> None:
    """Imports, on a thread while the simulation runs without the GIL on another core,
    what comes next: matplotlib (0.25 s of CPU, about the simulation of a 100-flow
    dumbbell) when figures are drawn, since their child is forked as soon as the
    simulation ends and this process imports pandas while the child draws; else
    pandas and pyarrow, for the tables (issue 17; BENCHMARKS.md). Joined before
    `Results.write` forks: a fork during an import would leave the child waiting
    for a lock nobody holds any more."""
    import importlib

    modules = ["pandas", "pyarrow.parquet"]
    if figures:
        modules = ["matplotlib.figure", "matplotlib.backends.backend_agg"]
    for module in modules:
        importlib.import_module(module)


def cmd_run(args: argparse.Namespace) -> int:
    out = Path(args.out) if args.out else Path("results") / Path(args.scenario).stem
    _writable("--out", out)
    results, skipped, profiles = _run_one(args.scenario, args.seed, out, args.figures)
    print(_header(results, profiles))
    if len(results.summary):
        print(_format_summary(results))
    if len(results.generators):
        print(_format_generators(results))
    print(f"written to {out}/")
    if skipped:
        print(_skipped_text(skipped))
    return EXIT_OK


def _live(spec: dict[str, Any], seed: int) -> tuple[cwnd.Results, _cwnd.RelayReport]:
    from cwnd.live import LiveRefused, run_live

    try:
        return run_live(spec, seed=seed)
    except LiveRefused as e:
        raise BadInput(str(e)) from None


def _live_command(handler: Callable[[argparse.Namespace], int]) -> Callable[..., int]:
    """SIGTERM during a live run ends it (cleaned up) with exit code 143."""

    def run(args: argparse.Namespace) -> int:
        from cwnd.live.run import Terminated

        try:
            return handler(args)
        except Terminated:
            print("cwnd: terminated", file=sys.stderr)
            return 128 + 15

    return run


@_live_command
def cmd_live(args: argparse.Namespace) -> int:
    from cwnd.live.run import relay_report

    out = Path(args.out) if args.out else Path("results") / f"{Path(args.scenario).stem}-live"
    results, relay = _live(_load(args.scenario).spec, args.seed)
    results.write(out)
    (out / "relay.json").write_text(json.dumps(relay, indent=1))
    print(f"{results.name} (live, seed {results.seed})")
    print(_format_summary(results))
    print(relay_report(relay, color=sys.stdout.isatty()))
    print(f"written to {out}/")
    return EXIT_OK


@_live_command
def cmd_compare(args: argparse.Namespace) -> int:
    from cwnd.live import compare
    from cwnd.live.run import relay_report

    out = Path(args.out) if args.out else Path("results") / f"{Path(args.scenario).stem}-compare"
    plan = _load(args.scenario)
    live, relay = _live(plan.spec, args.seed)
    sim = cwnd.run(plan, seed=args.seed)
    sim.write(out / "simulated")
    live.write(out / "live")
    (out / "live" / "relay.json").write_text(json.dumps(relay, indent=1))
    table, _ = compare.write(sim, live, out)
    print(f"{sim.name}: simulated (seed {sim.seed}) and live")
    print(compare.format_table(table))
    print(relay_report(relay, color=sys.stdout.isatty()))
    print(f"written to {out}/")
    return EXIT_OK


@_live_command
def cmd_shell(args: argparse.Namespace) -> int:
    from cwnd.live import LiveRefused, shell

    out = Path(args.out) if args.out else Path("results") / f"{Path(args.scenario).stem}-shell"
    _writable("--out", out)
    try:
        serves = [shell.parse_serve(text) for text in args.serve]
        run = shell.ShellRun(
            shell.load(Path(args.scenario)), args.seed, out, args.host, serves, args.command
        )
        return shell.run_shell(run)
    except LiveRefused as e:
        raise BadInput(str(e)) from None


def cmd_check(args: argparse.Namespace) -> int:
    cwnd.check(Path(args.scenario))
    print(f"{args.scenario}: ok")
    return EXIT_OK


def cmd_run_all(args: argparse.Namespace) -> int:
    from cwnd.report import goodput_text, write_scenarios_index

    folder = Path(args.folder)
    files = sorted(folder.glob("*.toml"))
    if not files:
        raise BadInput(f"{folder}: no *.toml scenario files")
    out = Path(args.out)
    _writable("--out", out)
    lines = ["# cwnd: example scenarios", ""]
    lines += [
        "| scenario | flows | goodput (Mb/s) | TCP profile | fingerprint |",
        "|---|---|---|---|---|",
    ]
    failures: list[str] = []
    done: list[tuple[Path, cwnd.Results, list[str]]] = []
    for path in files:
        try:
            results, skipped, profiles = _run_one(str(path), args.seed, out / path.stem)
        except (cwnd.ScenarioError, BadInput) as e:
            failures.append(f"{path}: {e}")
            print(f"cwnd: error: {path}: {e}", file=sys.stderr)
            continue
        goodputs = goodput_text(results)
        lines.append(
            f"| [{path.stem}]({path.stem}/) | {len(results.flow_names)} | {goodputs} "
            f"| {', '.join(profiles) or '-'} | `{results.fingerprint:016x}` |"
        )
        print(f"{path.stem}: done ({out / path.stem}/)")
        if skipped:
            print(f"{path.stem}: {_skipped_text(skipped)}")
        done.append((out / path.stem, results, profiles))
    atomic.write_text(out / "index.md", "\n".join(lines) + "\n")
    print(f"report: {write_scenarios_index(done, out)}")
    if failures:
        print(f"cwnd: {len(failures)} of {len(files)} scenarios failed", file=sys.stderr)
        return EXIT_BAD_INPUT
    return EXIT_OK


SWEEP_KEYS = {"scenario", "seeds", "grid", "points", "out", "names"}


def _read_text(path: Path, what: str) -> str:
    """A UTF-8 text file (a leading byte-order mark is allowed)."""
    if not path.is_file():
        raise BadInput(f"{path}: no such {what} file")
    try:
        return path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as e:
        byte = e.object[e.start]
        raise BadInput(f"{path}: not UTF-8 text (byte {e.start} is {byte:#04x})") from None
    except OSError as e:
        raise BadInput(f"{path}: cannot read: {e.strerror}") from None


def load_sweep(path: str) -> dict[str, Any]:
    """Reads a sweep file: `scenario` (relative to the file), `seeds` (a count or a
    list), `[grid]` (field path → list of values) or `[[points]]`, and optionally
    `out` (the table, under the file's folder: `cwnd.sweep_outputs`) and `[names]`
    (short name → field path) for the summary and the figure."""
    import tomllib

    from cwnd.sweep_arguments import MAX_SEEDS

    p = Path(path)
    try:
        sweep = tomllib.loads(_read_text(p, "sweep"))
    except tomllib.TOMLDecodeError as e:
        raise BadInput(f"{path}: TOML syntax: {e}") from None
    unknown = sorted(set(sweep) - SWEEP_KEYS)
    if unknown:
        raise BadInput(f"{path}: unknown key {unknown[0]!r}; allowed: {sorted(SWEEP_KEYS)}")
    if "scenario" not in sweep:
        raise BadInput(f"{path}: scenario: missing; name the base scenario file")
    for key, kind, name in [
        ("scenario", str, "a file name"),
        ("out", str, "a file name"),
        ("grid", dict, "a table of field = [values]"),
        ("points", list, "an array of tables ([[points]])"),
        ("names", dict, 'a table of short name = "field path"'),
    ]:
        if key in sweep and not isinstance(sweep[key], kind):
            raise BadInput(f"{path}: {key}: {sweep[key]!r} is not {name}")
    seeds = sweep.get("seeds", [0])
    if isinstance(seeds, int) and not isinstance(seeds, bool):
        if not 0 < seeds <= MAX_SEEDS:
            raise BadInput(f"{path}: seeds: {seeds} is not a count from 1 to {MAX_SEEDS}")
        seeds = range(seeds)
    elif not isinstance(seeds, list):
        raise BadInput(f"{path}: seeds: {seeds!r} is not a count or a list of integers")
    sweep["seeds"] = seeds
    for name, field in sweep.get("names", {}).items():
        if not isinstance(field, str):
            raise BadInput(f"{path}: names.{name}: {field!r} is not a field path (a string)")
    sweep["base"] = _load(str(p.parent / sweep["scenario"]))
    return sweep


def _writable(option: str, folder: Path) -> None:
    """Checks, before anything is computed, that files can be written in `folder`, or
    in the folder it would be created in: a sweep must not fail after hours of
    computing. Writes and removes a probe file (permission bits do not tell: root,
    read-only mounts, network file systems)."""
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise BadInput(f"{option}: {folder}: {existing} is not a folder")
    probe = existing / f".cwnd-write-test.{os.getpid()}"
    try:
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        raise BadInput(f"{option}: {folder}: cannot write in {existing}: {e.strerror}") from None


def _tables(text: str) -> list[str]:
    from cwnd.sweep import TABLES

    names = [n for n in text.split(",") if n]
    for name in names:
        if name not in TABLES:
            raise argparse.ArgumentTypeError(f"{name!r} is not one of {', '.join(TABLES)}")
    return names


def _quiet_dask(cluster: str | None) -> None:
    """Keeps the Dask library's log lines (connection retries, a lost scheduler's
    tracebacks) off the terminal when a sweep uses a cluster; CWND_DEBUG=1 shows them.
    `distributed` sets its loggers' levels when imported, so it is imported first."""
    if (cluster or os.environ.get("CWND_DASK_SCHEDULER")) and not os.environ.get("CWND_DEBUG"):
        import distributed  # noqa: F401

        # Its loggers have levels of their own; their records all go through the
        # handlers of the "distributed" logger.
        for handler in logging.getLogger("distributed").handlers:
            handler.setLevel(logging.CRITICAL)


def cmd_sweep(args: argparse.Namespace) -> int:
    from cwnd.sweep import default_cache_dir, sweep
    from cwnd.sweep_arguments import SweepError
    from cwnd.sweep_outputs import OutputTaken, SweepOutputs, table_path

    spec = load_sweep(args.sweep)
    try:
        out = table_path(Path(args.sweep), args.out, spec.get("out"))
    except OutputTaken as e:
        raise BadInput(str(e)) from None
    if out.is_dir():
        raise BadInput(f"--out: {out} is a folder; name the table's file (e.g. {out}/t.parquet)")
    outputs = SweepOutputs(out, Path(args.sweep), args.tables, figure=bool(_swept(spec)))
    try:
        outputs.check(force=args.force)
    except OutputTaken as e:
        raise BadInput(str(e)) from None
    _writable("--out", out.parent)
    _writable("--cache", Path(args.cache) if args.cache else default_cache_dir())
    _check_figure_options(args, spec)
    _quiet_dask(args.cluster)
    try:
        results = sweep(
            spec["base"],
            grid=spec.get("grid"),
            points=spec.get("points"),
            seeds=spec["seeds"],
            cache=args.cache,
            fresh=args.fresh,
            workers=args.workers,
            cluster=args.cluster,
            tables=args.tables,
        )
    except SweepError as e:
        raise BadInput(f"{args.sweep}: {e}") from None
    if results.rows:
        try:
            # The table first: the summary and the figure belong to it (sweep_outputs).
            outputs.write(results.table, out)
            print(f"{len(results.rows)} rows written to {out}")
            for name in args.tables:
                outputs.write(results.frame(name), outputs.per_run(name))
                print(f"{name} of every run written to {outputs.per_run(name)}")
            _summarize_sweep(results, args, spec.get("names"), outputs)
        except NoSpace as e:
            raise BadInput(f"{e}{_where_the_runs_are(results)}") from None
    print(
        f"runs: {results.computed} computed, {results.cached} from the cache, "
        f"{len(results.failures)} failed"
    )
    for f in results.failures:
        print(f"cwnd: failed: point {f.point} seed {f.seed}: {f.error}", file=sys.stderr)
    return EXIT_FAILED if results.failures else EXIT_OK


def _where_the_runs_are(results: Any) -> str:
    """What a sweep whose outputs could not be written still has: its finished runs, in
    the cache unless that could not be written either."""
    if results.cache_error is not None:
        return ""
    return (
        f"; every finished run is in the cache ({results.store.folder}): run the sweep "
        "again, with room or another --out, to write it without computing"
    )


def _check_figure_options(args: argparse.Namespace, spec: dict[str, Any]) -> None:
    """Refuses `[names]`, `--x` and `--hue` that name no swept field before anything
    runs."""
    from cwnd.sweep_summary import SummaryError, axis_names, resolve

    try:
        axes = axis_names(_swept(spec), spec.get("names"))
        for option, value in (("--x", args.x), ("--hue", args.hue)):
            if value is not None:
                resolve(option, value, {**axes, "flow": "flow"} if option == "--hue" else axes)
    except SummaryError as e:
        raise BadInput(f"{args.sweep}: {e}") from None


def _swept(spec: dict[str, Any]) -> list[str]:
    """The field paths a sweep file sweeps, in order."""
    points = spec.get("points") or [spec.get("grid") or {}]
    return list(dict.fromkeys(p for point in points if isinstance(point, dict) for p in point))


def _summarize_sweep(
    results: Any, args: argparse.Namespace, names: dict[str, str] | None, outputs: SweepOutputs
) -> None:
    """Prints the mean and 95 % interval of the metric at every point, writes them as
    CSV beside the table, and draws the metric against the swept field."""
    from cwnd.sweep_summary import SummaryError, format_summary

    try:
        summary = results.summary(args.metric, names=names)
        figure = None
        if results.fields:
            figure = results.plot(
                outputs.picture,
                args.metric,
                x=args.x,
                hue=args.hue,
                names=names,
                title=Path(args.sweep).stem,
            )
    except SummaryError as e:
        raise BadInput(f"{args.sweep}: {e}") from None
    print(format_summary(summary))
    atomic.write_text(outputs.summary, summary.to_csv(index=False))
    print(f"summary written to {outputs.summary}")
    if figure is not None:
        print(f"figure written to {figure}")


def cmd_reproduce(args: argparse.Namespace) -> int:
    from cwnd.report import write_index
    from cwnd.studies import STUDIES
    from cwnd.studies.study import Swept, finish, post_process, run_sweeps
    from cwnd.sweep import default_cache_dir

    if args.study == "all":
        names = list(STUDIES)
    elif args.study in STUDIES:
        names = [args.study]
    else:
        allowed = ", ".join([*STUDIES, "all"])
        raise BadInput(f"study: {args.study!r} is not a study; known: {allowed}")
    # A quick reproduction never replaces a full one: it has a folder of its own.
    out = Path(args.out) / "quick" if args.quick else Path(args.out)
    _writable("--out", out)
    _writable("--cache", Path(args.cache) if args.cache else default_cache_dir())
    _quiet_dask(args.cluster)
    reports: list[StudyReport] = []

    def report(swept: Swept, done: Any) -> None:
        reports.append(_print_report(finish(swept, done)))

    # Each study's post-processing runs in a child beside the next study's sweeps
    # (issue 17: alone, it left the workers idle); the last one's here.
    pending: tuple[Swept, Beside] | None = None
    try:
        for i, name in enumerate(names):
            print(f"{name}: running ({'quick' if args.quick else 'full'} grid)")
            swept = run_sweeps(STUDIES[name], out, quick=args.quick, cache=args.cache,
                               fresh=args.fresh, workers=args.workers,
                               cluster=args.cluster)  # fmt: skip
            if pending is not None:
                report(pending[0], pending[1].result())
                pending = None
            if i + 1 < len(names) and can_fork():
                pending = (swept, Beside(partial(post_process, swept)))
            else:
                report(swept, post_process(swept))
    finally:
        if pending is not None:
            pending[1].close()
    index = write_index(reports, out)
    print(f"report: {index}")
    return EXIT_FAILED if any(r.failures for r in reports) else EXIT_OK


def _print_report(report: StudyReport) -> StudyReport:
    """Prints a reproduced study's tally, folder and failures; returns it."""
    name = report.study.name
    tally = ", ".join(
        f"{sum(c.measured.verdict.value == v for c in report.claims)} {v}"
        for v in ("agree", "disagree", "not measurable")
    )
    cached = report.runs - report.computed
    print(
        f"{name}: {report.runs} runs ({report.computed} computed, {cached} from cache) "
        f"in {report.seconds:.0f} s; claims: {tally}"
    )
    print(f"{name}: written to {report.folder}/ (claims.md, figures, Parquet)")
    for f in report.failures:
        print(f"cwnd: failed: {name}: {f.point} seed {f.seed}: {f.error}", file=sys.stderr)
    return report


def bench_dumbbell(flows: int = 10, seconds: int = 60) -> dict[str, Any]:
    """The end-to-end benchmark of BENCHMARKS.md: `flows` NewReno flows through a
    100 Mb/s, 10 ms bottleneck with a 1-BDP (200-packet) DropTail queue."""
    s = Scenario(
        duration=f"{seconds}s", name="bench_dumbbell", sampling="interval", interval="100ms"
    )
    s.link("r0", "r1", bandwidth="100Mbps", delay="10ms", queue_packets=200)
    for i in range(flows):
        s.link(f"h{i}", "r0", bandwidth="1Gbps", delay="1ms")
        s.link("r1", f"d{i}", bandwidth="1Gbps", delay="1ms")
        s.flow(f"h{i}", f"d{i}", cc="newreno", name=f"f{i}", start=f"{10 * i}ms")
    # The RFCs' TCP, as BENCHMARKS.md's figures: not the default "linux" profile.
    return {**s.to_dict(), "tcp": {"profile": "rfc"}}


def cmd_bench(args: argparse.Namespace) -> int:
    import resource

    from cwnd import _cwnd

    engine = _cwnd.bench_engine(args.events)
    print(
        f"engine: {engine['events'] / engine['seconds'] / 1e6:.2f} M events/s "
        f"(hold model, 1024 pending, {engine['events']} events)"
    )
    spec = bench_dumbbell(seconds=args.seconds)
    start = time.perf_counter()
    results = cwnd.run(spec, seed=1)
    wall = time.perf_counter() - start
    sent = int(results.summary["segments_sent"].sum())
    print(
        f"dumbbell: {args.seconds} s simulated in {wall:.3f} s wall; "
        f"{results.events / wall / 1e6:.2f} M events/s; "
        f"{sent / wall / 1e6:.2f} M data packets/s"
    )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS: {peak:.1f} MB")
    return EXIT_OK


class _Parser(argparse.ArgumentParser):
    """Command-line mistakes are bad input too: one line, exit code 2 (argparse would
    print the usage first)."""

    def error(self, message: str) -> NoReturn:
        print(f"cwnd: error: {self.prog}: {message}", file=sys.stderr)
        sys.exit(EXIT_BAD_INPUT)


def _seed(text: str) -> int:
    """A seed: an integer in [0, 2^64) (the simulator's seeds are unsigned 64-bit)."""
    try:
        seed = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if not 0 <= seed < 2**64:
        raise argparse.ArgumentTypeError(f"{seed} is not in 0 to 2^64 - 1")
    return seed


def _positive(text: str) -> int:
    try:
        count = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if count < 1:
        raise argparse.ArgumentTypeError(f"{count} is not a count of at least 1")
    return count


def _figures(text: str) -> tuple[str, ...]:
    """The figures `cwnd run --figures` names: "all", "none" or a comma-separated list
    of `FIGURES`."""
    if text in ("all", "none"):
        return FIGURES if text == "all" else ()
    names = tuple(dict.fromkeys(n.strip() for n in text.split(",")))
    unknown = [n for n in names if n not in FIGURES]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"{unknown[0]!r} is not a figure; use all, none, or a comma-separated list "
            f"of {', '.join(FIGURES)}"
        )
    return names


def parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="cwnd",
        description="cwnd: a laboratory for transport protocols over hard networks.",
    )
    p.add_argument("--version", action="version", version=f"cwnd {cwnd.__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = sub.add_parser("run", help="run one scenario; write tables and figures")
    run.add_argument("scenario", metavar="SCENARIO.toml")
    run.add_argument("--seed", type=_seed, default=0, help="random seed (default 0)")
    run.add_argument(
        "--out",
        metavar="DIR",
        help="output folder (default results/SCENARIO: the file name less .toml)",
    )
    run.add_argument(
        "--figures",
        type=_figures,
        default=FIGURES,
        metavar="WHICH",
        help=f"figures to draw: all (default), none, or some of {','.join(FIGURES)}",
    )
    run.set_defaults(handler=cmd_run, skip_teardown=True)

    live = sub.add_parser(
        "live", help="run one scenario with real Linux TCP over its network (root)"
    )
    live.add_argument("scenario", metavar="SCENARIO.toml")
    live.add_argument("--seed", type=_seed, default=0, help="random seed (default 0)")
    live.add_argument("--out", metavar="DIR", help="output folder (default results/<name>-live)")
    live.set_defaults(handler=cmd_live)

    compare = sub.add_parser(
        "compare", help="run one scenario simulated and live; overlay and ratio table (root)"
    )
    compare.add_argument("scenario", metavar="SCENARIO.toml")
    compare.add_argument("--seed", type=_seed, default=0, help="random seed (default 0)")
    compare.add_argument(
        "--out", metavar="DIR", help="output folder (default results/<name>-compare)"
    )
    compare.set_defaults(handler=cmd_compare)

    sh = sub.add_parser(
        "shell",
        help="run any command across a scenario's network (root; mahimahi-style)",
        usage="cwnd shell SCENARIO.toml [--seed N] [--out DIR] [--host NAME] "
        "[--serve NAME:COMMAND]... [-- COMMAND...]",
    )
    sh.add_argument("scenario", metavar="SCENARIO.toml")
    sh.add_argument("--seed", type=_seed, default=0, help="random seed (default 0)")
    sh.add_argument("--out", metavar="DIR", help="output folder (default results/<name>-shell)")
    sh.add_argument("--host", help="node the command runs on (default: first flow's sender)")
    sh.add_argument(
        "--serve",
        action="append",
        default=[],
        metavar="NAME:COMMAND",
        help="start a server on node NAME first, stopped after the command (repeatable)",
    )
    # The command after `--` is taken off before parsing (`_shell_command`).
    sh.set_defaults(handler=cmd_shell, command=[])

    check = sub.add_parser("check", help="validate a scenario without running it")
    check.add_argument("scenario", metavar="SCENARIO.toml")
    check.set_defaults(handler=cmd_check)

    run_all = sub.add_parser("run-all", help="run every scenario of a folder")
    run_all.add_argument("folder", metavar="DIR")
    run_all.add_argument("--out", metavar="DIR", default="results")
    run_all.add_argument("--seed", type=_seed, default=0)
    run_all.set_defaults(handler=cmd_run_all)

    sw = sub.add_parser("sweep", help="run a sweep of scenarios × seeds in parallel")
    sw.add_argument("sweep", metavar="SWEEP.toml")
    sw.add_argument("--out", metavar="FILE.parquet", help="table of results")
    sw.add_argument("--fresh", action="store_true", help="ignore cached runs")
    sw.add_argument(
        "--force",
        action="store_true",
        help="overwrite files at the outputs' names that are not this sweep's",
    )
    sw.add_argument(
        "--tables",
        type=_tables,
        default=[],
        metavar="NAME[,NAME]",
        help="per-run tables to keep and write beside the table: series, throughput, "
        "segments, association_series, path_series, chunks, sctp_events",
    )
    sw.add_argument(
        "--metric",
        default="goodput_bps",
        help="summary column to summarize and draw (default goodput_bps)",
    )
    sw.add_argument(
        "--x", metavar="FIELD", help="swept field on the x axis (default: the numeric one)"
    )
    sw.add_argument(
        "--hue", metavar="FIELD", help="swept field that names the lines (default: the others)"
    )
    sw.add_argument("--workers", type=_positive, help="local processes (default: all cores)")
    sw.add_argument(
        "--cluster",
        metavar="tcp://HOST:8786",
        help="Dask scheduler (default: $CWND_DASK_SCHEDULER, else local)",
    )
    sw.add_argument(
        "--cache", metavar="DIR", help="run cache (default: $CWND_CACHE or ~/.cache/cwnd)"
    )
    sw.set_defaults(handler=cmd_sweep)

    rep = sub.add_parser(
        "reproduce", help="reproduce a published study: figures, data and claims table"
    )
    rep.add_argument("study", metavar="STUDY", help="outage, coexist, arq, reorder, wimax, or all")
    rep.add_argument(
        "--quick",
        action="store_true",
        help="reduced grid (fewer seeds/points), written under OUT/quick/",
    )
    rep.add_argument("--out", metavar="DIR", default="results")
    rep.add_argument("--fresh", action="store_true", help="ignore cached runs")
    rep.add_argument("--workers", type=_positive, help="local processes (default: all cores)")
    rep.add_argument("--cluster", metavar="tcp://HOST:8786", help="Dask scheduler")
    rep.add_argument(
        "--cache", metavar="DIR", help="run cache (default: $CWND_CACHE or ~/.cache/cwnd)"
    )
    rep.set_defaults(handler=cmd_reproduce)

    bench = sub.add_parser("bench", help="engine and end-to-end benchmarks")
    bench.add_argument("--events", type=int, default=20_000_000)
    bench.add_argument("--seconds", type=int, default=60)
    bench.set_defaults(handler=cmd_bench)
    return p


def _stop_on_signals() -> None:
    """Ctrl-C (SIGINT) and SIGTERM stop `cwnd` cleanly, whatever its parent did.

    Python installs its SIGINT handler only when SIGINT is not ignored at start-up, and
    a process started from a background job of a non-interactive shell (`make test &`,
    some CI runners) inherits SIGINT ignored; SIGTERM (sent by `timeout`, SLURM time
    limits, CI cancellation) would kill `cwnd` without a word and orphan a sweep's
    workers. Both raise `KeyboardInterrupt` naming the signal, which stops a run and a
    sweep cleanly; `main` then exits with 128 + the signal's number, as a shell would.
    """
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, _interrupt)


def _interrupt(signum: int, frame: object) -> NoReturn:
    raise KeyboardInterrupt(signal.Signals(signum).name)


def _show_warning(message: Warning | str, *_: object, **__: object) -> None:
    """Warnings (a damaged cache entry, say) are one line each, without source lines."""
    print(f"cwnd: warning: {message}", file=sys.stderr)


def entry() -> NoReturn:
    """The `cwnd` command (the console script and `python -m cwnd`)."""
    sys.exit(main(exit_now=True))


def main(argv: Sequence[str] | None = None, exit_now: bool = False) -> int:
    """Runs one command; `exit_now` (the command, not a caller in-process) lets a
    finished `cwnd run` leave without the interpreter's teardown. By then its files are
    written and closed and its figure child waited for, and the teardown of pandas,
    pyarrow and matplotlib took 0.11–0.19 s: half the 100-flow dumbbell's simulation,
    a third of what the command adds to it (issue 17; BENCHMARKS.md)."""
    _stop_on_signals()
    warnings.showwarning = _show_warning
    words, command = _shell_command(list(sys.argv[1:] if argv is None else argv))
    args = parser().parse_args(words)
    if command:
        args.command = command
    handler: Callable[[argparse.Namespace], int] = args.handler
    code = _handle(handler, args)
    if exit_now and getattr(args, "skip_teardown", False):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code


def _shell_command(argv: list[str]) -> tuple[list[str], list[str]]:
    """`cwnd shell … -- COMMAND…`: the words before `--`, and the command after it
    (argparse takes no command line after options that follow a positional)."""
    if argv[:1] != ["shell"] or "--" not in argv:
        return argv, []
    i = argv.index("--")
    return argv[:i], argv[i + 1 :]


def _handle(handler: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    """The handler's exit code; a mistake in the input is one line and code 2."""
    try:
        code = handler(args)
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        return _reader_gone()
    except (cwnd.ScenarioError, BadInput, ClusterError, NoSpace) as e:
        print(f"cwnd: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt as e:
        name = e.args[0] if e.args and e.args[0] in signal.Signals.__members__ else "SIGINT"
        print(f"cwnd: interrupted ({name})", file=sys.stderr)
        return 128 + signal.Signals[name]
    except Exception as e:
        if os.environ.get("CWND_DEBUG"):
            raise
        print(
            f"cwnd: internal error: {type(e).__name__}: {e} (set CWND_DEBUG=1 for a traceback)",
            file=sys.stderr,
        )
        return EXIT_FAILED


def _reader_gone() -> int:
    """The exit code when what reads stdout has gone (`cwnd run … | head`): silent, as
    a command that SIGPIPE ends, with that signal's code. Python ignores SIGPIPE and
    raises BrokenPipeError instead; stdout then goes to /dev/null so that the
    interpreter's last flush at exit cannot raise it again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 128 + signal.SIGPIPE


if __name__ == "__main__":
    entry()
