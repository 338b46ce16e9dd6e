"""The `cwnd` command line.

Exit codes: 0 success, 2 bad input (one line naming the problem, no traceback),
1 internal error.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

import cwnd
from cwnd.scenario import Scenario

EXIT_OK, EXIT_INTERNAL, EXIT_BAD_INPUT = 0, 1, 2


class BadInput(Exception):
    """Input the user must fix; reported in one line with exit code 2."""


def _load(path: str) -> dict[str, Any]:
    p = Path(path)
    if not p.is_file():
        raise BadInput(f"{path}: no such scenario file")
    return cwnd.load_scenario(p)


def _format_summary(results: cwnd.Results) -> str:
    rows = [("flow", "cc", "goodput Mb/s", "retransmitted", "timeouts", "completion s")]
    for f in results.summary.to_dict("records"):
        completion = f["completion_time"]
        rows.append(
            (
                f["name"],
                f["cc"],
                f"{f['goodput_bps'] / 1e6:.3f}",
                str(f["segments_retransmitted"]),
                str(f["timeouts"]),
                "-" if math.isnan(completion) else f"{completion:.3f}",
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows)


def _run_one(path: str, seed: int, out: Path) -> cwnd.Results:
    spec = _load(path)
    results = cwnd.run(spec, seed=seed)
    results.write(out)
    return results


def cmd_run(args: argparse.Namespace) -> int:
    out = Path(args.out) if args.out else Path("results") / Path(args.scenario).stem
    results = _run_one(args.scenario, args.seed, out)
    print(f"{results.name} (seed {results.seed}, fingerprint {results.fingerprint:016x})")
    print(_format_summary(results))
    print(f"written to {out}/")
    return EXIT_OK


def _live(spec: dict[str, Any], seed: int) -> tuple[cwnd.Results, dict[str, Any]]:
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
    results, relay = _live(_load(args.scenario), args.seed)
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
    spec = _load(args.scenario)
    live, relay = _live(spec, args.seed)
    sim = cwnd.run(spec, seed=args.seed)
    sim.write(out / "simulated")
    live.write(out / "live")
    (out / "live" / "relay.json").write_text(json.dumps(relay, indent=1))
    table, _ = compare.write(sim, live, out)
    print(f"{sim.name}: simulated (seed {sim.seed}) and live")
    print(compare.format_table(table))
    print(relay_report(relay, color=sys.stdout.isatty()))
    print(f"written to {out}/")
    return EXIT_OK


def cmd_check(args: argparse.Namespace) -> int:
    cwnd.check(_load(args.scenario))
    print(f"{args.scenario}: ok")
    return EXIT_OK


def cmd_run_all(args: argparse.Namespace) -> int:
    folder = Path(args.folder)
    files = sorted(folder.glob("*.toml"))
    if not files:
        raise BadInput(f"{folder}: no *.toml scenario files")
    out = Path(args.out)
    lines = ["# cwnd: example scenarios", "", "| scenario | flows | goodput (Mb/s) | fingerprint |"]
    lines.append("|---|---|---|---|")
    failures: list[str] = []
    for path in files:
        try:
            results = _run_one(str(path), args.seed, out / path.stem)
        except (cwnd.ScenarioError, BadInput) as e:
            failures.append(f"{path}: {e}")
            print(f"cwnd: error: {path}: {e}", file=sys.stderr)
            continue
        goodputs = ", ".join(f"{g / 1e6:.2f}" for g in results.summary["goodput_bps"])
        lines.append(
            f"| [{path.stem}]({path.stem}/) | {len(results.flow_names)} | {goodputs} "
            f"| `{results.fingerprint:016x}` |"
        )
        print(f"{path.stem}: done ({out / path.stem}/)")
    (out / "index.md").write_text("\n".join(lines) + "\n")
    if failures:
        print(f"cwnd: {len(failures)} of {len(files)} scenarios failed", file=sys.stderr)
        return EXIT_BAD_INPUT
    return EXIT_OK


SWEEP_KEYS = {"scenario", "seeds", "grid", "points", "out"}


def load_sweep(path: str) -> dict[str, Any]:
    """Reads a sweep file: `scenario` (relative to the file), `seeds` (a list or a
    count), and `[grid]` (field path → list of values) or `[[points]]`."""
    import tomllib

    p = Path(path)
    if not p.is_file():
        raise BadInput(f"{path}: no such sweep file")
    try:
        sweep = tomllib.loads(p.read_text())
    except tomllib.TOMLDecodeError as e:
        raise BadInput(f"{path}: TOML syntax: {e}") from None
    unknown = sorted(set(sweep) - SWEEP_KEYS)
    if unknown:
        raise BadInput(f"{path}: unknown key {unknown[0]!r}; allowed: {sorted(SWEEP_KEYS)}")
    if "scenario" not in sweep:
        raise BadInput(f"{path}: scenario: missing; name the base scenario file")
    seeds = sweep.get("seeds", [0])
    if isinstance(seeds, int) and seeds > 0:
        seeds = list(range(seeds))
    if not (isinstance(seeds, list) and seeds and all(isinstance(s, int) for s in seeds)):
        raise BadInput(f"{path}: seeds: {seeds!r} is not a positive count or a list of integers")
    grid = sweep.get("grid", {})
    for key, values in grid.items():
        if not isinstance(values, list) or not values:
            raise BadInput(f"{path}: grid.{key}: {values!r} is not a non-empty list of values")
    sweep["seeds"] = seeds
    sweep["base"] = _load(str(p.parent / sweep["scenario"]))
    return sweep


def _tables(text: str) -> list[str]:
    from cwnd.sweep import TABLES

    names = [n for n in text.split(",") if n]
    for name in names:
        if name not in TABLES:
            raise argparse.ArgumentTypeError(f"{name!r} is not one of {', '.join(TABLES)}")
    return names


def cmd_sweep(args: argparse.Namespace) -> int:
    from cwnd.sweep import sweep

    spec = load_sweep(args.sweep)
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
    out = Path(args.out or spec.get("out") or Path("results") / f"{Path(args.sweep).stem}.parquet")
    if results.rows:
        results.write(out)
        print(f"{len(results.rows)} rows written to {out}")
        for name in args.tables:
            path = out.with_name(f"{out.stem}.{name}.parquet")
            results.frame(name).to_parquet(path, index=False)
            print(f"{name} of every run written to {path}")
    print(
        f"runs: {results.computed} computed, {results.cached} from the cache, "
        f"{len(results.failures)} failed"
    )
    for f in results.failures:
        print(f"cwnd: failed: point {f.point} seed {f.seed}: {f.error}", file=sys.stderr)
    return EXIT_BAD_INPUT if results.failures else EXIT_OK


def cmd_reproduce(args: argparse.Namespace) -> int:
    from cwnd.report import write_index
    from cwnd.studies import STUDIES, reproduce

    if args.study == "all":
        names = list(STUDIES)
    elif args.study in STUDIES:
        names = [args.study]
    else:
        allowed = ", ".join([*STUDIES, "all"])
        raise BadInput(f"study: {args.study!r} is not a study; known: {allowed}")
    out = Path(args.out)
    reports = []
    for name in names:
        print(f"{name}: running ({'quick' if args.quick else 'full'} grid)")
        report = reproduce(
            STUDIES[name],
            out,
            quick=args.quick,
            cache=args.cache,
            fresh=args.fresh,
            workers=args.workers,
            cluster=args.cluster,
        )
        reports.append(report)
        tally = ", ".join(
            f"{sum(c.measured.verdict.value == v for c in report.claims)} {v}"
            for v in ("agree", "disagree", "not measurable")
        )
        print(f"{name}: {report.runs} runs in {report.seconds:.0f} s; claims: {tally}")
        print(f"{name}: written to {report.folder}/ (claims.md, figures, Parquet)")
        for f in report.failures:
            print(f"cwnd: failed: {name}: {f.point} seed {f.seed}: {f.error}", file=sys.stderr)
    index = write_index(reports, out)
    print(f"report: {index}")
    return EXIT_INTERNAL if any(r.failures for r in reports) else EXIT_OK


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
    return s.to_dict()


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


def parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="cwnd",
        description="cwnd: a laboratory for transport protocols over hard networks.",
    )
    p.add_argument("--version", action="version", version=f"cwnd {cwnd.__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = sub.add_parser("run", help="run one scenario; write tables and figures")
    run.add_argument("scenario", metavar="SCENARIO.toml")
    run.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    run.add_argument("--out", metavar="DIR", help="output folder (default results/<name>)")
    run.set_defaults(handler=cmd_run)

    live = sub.add_parser(
        "live", help="run one scenario with real Linux TCP over its network (root)"
    )
    live.add_argument("scenario", metavar="SCENARIO.toml")
    live.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    live.add_argument("--out", metavar="DIR", help="output folder (default results/<name>-live)")
    live.set_defaults(handler=cmd_live)

    compare = sub.add_parser(
        "compare", help="run one scenario simulated and live; overlay and ratio table (root)"
    )
    compare.add_argument("scenario", metavar="SCENARIO.toml")
    compare.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    compare.add_argument(
        "--out", metavar="DIR", help="output folder (default results/<name>-compare)"
    )
    compare.set_defaults(handler=cmd_compare)

    check = sub.add_parser("check", help="validate a scenario without running it")
    check.add_argument("scenario", metavar="SCENARIO.toml")
    check.set_defaults(handler=cmd_check)

    run_all = sub.add_parser("run-all", help="run every scenario of a folder")
    run_all.add_argument("folder", metavar="DIR")
    run_all.add_argument("--out", metavar="DIR", default="results")
    run_all.add_argument("--seed", type=int, default=0)
    run_all.set_defaults(handler=cmd_run_all)

    sw = sub.add_parser("sweep", help="run a sweep of scenarios × seeds in parallel")
    sw.add_argument("sweep", metavar="SWEEP.toml")
    sw.add_argument("--out", metavar="FILE.parquet", help="table of results")
    sw.add_argument("--fresh", action="store_true", help="ignore cached runs")
    sw.add_argument(
        "--tables",
        type=_tables,
        default=[],
        metavar="NAME[,NAME]",
        help="per-run tables to keep and write beside the table: series, throughput, "
        "segments, association_series, path_series, chunks, sctp_events",
    )
    sw.add_argument("--workers", type=int, help="local processes (default: all cores)")
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
    rep.add_argument("study", metavar="STUDY", help="outage, arq, reorder, or all")
    rep.add_argument("--quick", action="store_true", help="reduced grid (fewer seeds/points)")
    rep.add_argument("--out", metavar="DIR", default="results")
    rep.add_argument("--fresh", action="store_true", help="ignore cached runs")
    rep.add_argument("--workers", type=int, help="local processes (default: all cores)")
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


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    handler: Callable[[argparse.Namespace], int] = args.handler
    try:
        return handler(args)
    except (cwnd.ScenarioError, BadInput) as e:
        print(f"cwnd: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("cwnd: interrupted", file=sys.stderr)
        return 130
    except Exception as e:
        if os.environ.get("CWND_DEBUG"):
            raise
        print(
            f"cwnd: internal error: {type(e).__name__}: {e} (set CWND_DEBUG=1 for a traceback)",
            file=sys.stderr,
        )
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
