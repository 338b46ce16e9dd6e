"""What a reproduced study is made of, and how one is run.

A study declares its scenario (a function from a sweep point to a scenario dict, with
every parameter chosen and the reason written beside it), its sweeps, its figures and
its claims. A claim is a sentence quoted from the paper with its source, a rule that
says when a measurement agrees with it, and a function that measures it from the runs.
`reproduce` runs the sweeps (cached, in parallel, locally or on Dask), writes the tidy
data as Parquet, draws the figures (PNG and SVG) and writes `claims.md`.

Nothing here knows a paper's numbers: the claims' functions compute values from the
runs, and the verdict follows the rule stated next to the quote.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cwnd.atomic import replacing, write_text
from cwnd.beside import Beside, can_fork, stop_on_sigterm
from cwnd.scenario import plan as load_plan
from cwnd.sweep import Failure, Point, SweepResults, sweep

if TYPE_CHECKING:
    import pandas as pd


class Verdict(StrEnum):
    AGREE = "agree"
    DISAGREE = "disagree"
    NOT_MEASURABLE = "not measurable"


@dataclass(frozen=True)
class Measured:
    """A claim's measured value, as text with its numbers, the verdict, and why:
    the mechanism behind the number, also written from measured numbers."""

    value: str
    verdict: Verdict
    why: str = ""


@dataclass(frozen=True)
class Claim:
    """A published claim: `quote` verbatim from `source`, `english` when the paper is
    not in English, `rule` the criterion for agreement, `measure` its measurement."""

    id: str
    quote: str
    source: str
    rule: str
    measure: Callable[[StudyData], Measured]
    english: str | None = None


@dataclass(frozen=True)
class SweepPlan:
    """One sweep of a study: scenario builder, points, seeds and the per-run tables
    to keep (see `cwnd.sweep.TABLES`)."""

    name: str
    build: Callable[[Point], dict[str, Any]]
    points: list[Point]
    seeds: list[int]
    tables: tuple[str, ...] = ()


@dataclass(frozen=True)
class FigureSpec:
    """A figure: file stem, caption, and the function that draws it into a path
    (without suffix; it writes `<path>.png` and `<path>.svg`)."""

    stem: str
    caption: str
    draw: Callable[[StudyData, Path], None]


@dataclass(frozen=True)
class TableSpec:
    """A tidy table derived from the runs (e.g. one row per figure point), written as
    `<stem>.parquet` beside the sweeps' own tables."""

    stem: str
    compute: Callable[[StudyData], pd.DataFrame]


@dataclass(frozen=True)
class Sensitivity:
    """A parameter the paper left open, and the verdict of `claims` along it: each
    value names the sweeps that replace the study's own (`{"steady": "steady_rtt128"}`:
    the claims read the second where they read the first), so the same measurement
    runs on runs made with the other value. An empty mapping is the study's choice."""

    parameter: str
    claims: tuple[str, ...]
    values: list[tuple[str, dict[str, str]]]


@dataclass(frozen=True)
class Study:
    name: str
    title: str
    citation: str
    seed_file: str
    summary: str
    #: Every parameter, its value and why (where the paper is silent, the choice).
    parameters: list[tuple[str, str, str]]
    sweeps: Callable[[bool], list[SweepPlan]]
    figures: list[FigureSpec]
    claims: list[Claim]
    tables: list[TableSpec] = field(default_factory=list)
    sensitivity: list[Sensitivity] = field(default_factory=list)
    #: Runs outside the sweeps (the kernel's TCP in live mode), written into the study's
    #: folder after the claims: (folder, quick) → the report's section.
    live: Callable[[Path, bool], ReportSection] | None = None


@dataclass
class ReportSection:
    """Markdown lines appended to claims.md, and the figures they drew."""

    lines: list[str]
    figures: list[tuple[FigureSpec, Path]] = field(default_factory=list)


@dataclass
class StudyData:
    """The finished sweeps of a study, by plan name, with their tables at hand.

    A sensitivity measures the claims again on a `view` where some plans name other
    sweeps. Views share what was loaded and computed: a table or frame is kept per
    sweep, and a `derived` value is reused by every view whose plans read by its
    computation name the same sweeps (issue 17: arq's sensitivities recomputed its
    cells from every run eleven times, most of the study's post-processing)."""

    results: dict[str, SweepResults]
    quick: bool
    _tables: dict[int, pd.DataFrame] = field(default_factory=dict)
    _frames: dict[tuple[int, str], pd.DataFrame] = field(default_factory=dict)
    #: By name: (the sweeps its computation read, by plan; the value).
    _derived: dict[str, list[tuple[dict[str, SweepResults], Any]]] = field(default_factory=dict)
    #: The plans read by each `derived` computation in progress (innermost last).
    _reading: list[dict[str, SweepResults]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.results = _Recorded(self.results, self._reading)

    def view(self, swap: dict[str, str]) -> StudyData:
        """These runs with plan `k` reading the sweep of plan `v`, for `k: v` in `swap`."""
        results = {**self.results, **{k: self.results[v] for k, v in swap.items()}}
        return StudyData(results, self.quick, self._tables, self._frames, self._derived)

    def _sweep(self, plan: str) -> SweepResults:
        return self.results[plan]

    def table(self, plan: str) -> pd.DataFrame:
        """One row per (point, seed, flow): the sweep's summary table (built once;
        callers copy it before changing it)."""
        sweep = self._sweep(plan)
        if id(sweep) not in self._tables:
            self._tables[id(sweep)] = sweep.table
        return self._tables[id(sweep)]

    def frame(self, plan: str, name: str) -> pd.DataFrame:
        """A per-run table of every run of a sweep (loaded once)."""
        sweep = self._sweep(plan)
        key = (id(sweep), name)
        if key not in self._frames:
            self._frames[key] = sweep.frame(name)
        return self._frames[key]

    def frames(self, plan: str, name: str) -> Iterator[pd.DataFrame]:
        """`frame(plan, name)` one run at a time (not kept): for measurements made run
        by run, whose memory then holds one run's rows, not the sweep's."""
        return self._sweep(plan).frames(name)

    def run_frame(self, plan: str, name: str, key: str) -> pd.DataFrame:
        """`frame(plan, name)`'s rows of one run (indexed from 0), without loading
        the others' (not kept)."""
        return self._sweep(plan).run_frame(name, key)

    def derived(self, name: str, compute: Callable[[], Any]) -> Any:
        """A value computed once from the runs and shared by claims and figures, and
        by the views whose plans it read name the same sweeps."""
        for reads, value in self._derived.get(name, []):
            if all(dict.get(self.results, plan) is sweep for plan, sweep in reads.items()):
                for outer in self._reading:
                    outer.update(reads)
                return value
        self._reading.append({})
        try:
            value = compute()
        finally:
            reads = self._reading.pop()
        for outer in self._reading:
            outer.update(reads)
        self._derived.setdefault(name, []).append((reads, value))
        return value


class _Recorded(dict[str, "SweepResults"]):
    """A study's sweeps by plan, noting each plan read (and the sweep it named) in
    every set of `reading`: the reads of the `derived` computations in progress, made
    through `StudyData`'s methods or `results[plan]` directly."""

    def __init__(self, sweeps: dict[str, SweepResults], reading: list[dict[str, SweepResults]]):
        super().__init__(sweeps)
        self._reading = reading

    def _note(self, plans: Iterable[str]) -> None:
        for reads in self._reading:
            for plan in plans:
                reads[plan] = dict.__getitem__(self, plan)

    def __getitem__(self, plan: str) -> SweepResults:
        self._note([plan])
        return dict.__getitem__(self, plan)

    def get(self, plan: str, default: Any = None) -> Any:
        if plan in self:
            self._note([plan])
        return dict.get(self, plan, default)

    def values(self) -> Any:
        self._note(list(self))
        return dict.values(self)

    def items(self) -> Any:
        self._note(list(self))
        return dict.items(self)


@dataclass
class ClaimResult:
    claim: Claim
    measured: Measured


@dataclass
class SensitivityResult:
    """A sensitivity's measurements: (claim id, value label, measured) rows."""

    spec: Sensitivity
    rows: list[tuple[str, str, Measured]]


@dataclass
class StudyReport:
    """What `reproduce` produced: where, the figures, the claims, what failed."""

    study: Study
    folder: Path
    quick: bool
    figures: list[tuple[FigureSpec, Path]]
    claims: list[ClaimResult]
    failures: list[Failure]
    runs: int
    computed: int
    seconds: float
    sensitivity: list[SensitivityResult] = field(default_factory=list)
    live: ReportSection | None = None
    #: The TCP profiles its runs used (`tcp_profiles`).
    tcp_profiles: list[str] = field(default_factory=list)


def not_measurable(reason: str, why: str = "") -> Measured:
    return Measured(reason, Verdict.NOT_MEASURABLE, why)


def because(explain: Callable[[], str]) -> str:
    """A claim's why, computed from runs that may be missing (a failed point, a table
    not kept): then it says what it could not read rather than failing the claim."""
    try:
        return explain()
    except (KeyError, ValueError, IndexError, ZeroDivisionError) as e:
        return f"(not computed: {type(e).__name__}: {e})"


def interval_verdict(low: float, high: float, rule_low: float, rule_high: float) -> Verdict:
    """Agree when the whole 95 % interval [low, high] lies in the rule's band, disagree
    when it lies wholly outside; in between the runs cannot decide."""
    if rule_low <= low and high <= rule_high:
        return Verdict.AGREE
    if high < rule_low or low > rule_high:
        return Verdict.DISAGREE
    return Verdict.NOT_MEASURABLE


def verdict(agrees: bool) -> Verdict:
    return Verdict.AGREE if agrees else Verdict.DISAGREE


def reproduce(
    study: Study,
    out: Path,
    *,
    quick: bool = False,
    cache: str | Path | None = None,
    fresh: bool = False,
    workers: int | None = None,
    cluster: Any = None,
    progress: bool = True,
) -> StudyReport:
    """Runs a study into `out/<study.name>/`: one Parquet table per sweep, the
    figures, and claims.md. A claim whose measurement fails (e.g. because a point
    failed) is reported as not measurable, with the reason; finished points are kept.
    The three steps (`run_sweeps`, `post_process`, `finish`) one after the other."""
    swept = run_sweeps(study, out, quick=quick, cache=cache, fresh=fresh, workers=workers,
                       cluster=cluster, progress=progress)  # fmt: skip
    return finish(swept, post_process(swept))


@dataclass
class Swept:
    """A study whose sweeps have run: what its post-processing starts from."""

    study: Study
    folder: Path
    quick: bool
    results: dict[str, SweepResults]
    failures: list[Failure]
    seconds: float
    #: The TCP profiles its runs use (`tcp_profiles`).
    tcp_profiles: list[str] = field(default_factory=list)


@dataclass
class PostProcessed:
    """What a study's post-processing (`post_process`) measured and drew, in a form
    that crosses a pipe (no study functions): the claims' measurements in the order
    of `study.claims`, the figures' problems in the order of `study.figures`."""

    measured: list[Measured]
    sensitivity: list[SensitivityResult]
    problems: list[str | None]
    failures: list[Failure]
    seconds: float


def run_sweeps(
    study: Study,
    out: Path,
    *,
    quick: bool = False,
    cache: str | Path | None = None,
    fresh: bool = False,
    workers: int | None = None,
    cluster: Any = None,
    progress: bool = True,
) -> Swept:
    """Runs a study's sweeps and writes one Parquet table per sweep."""
    started = time.perf_counter()
    folder = out / study.name
    folder.mkdir(parents=True, exist_ok=True)
    results: dict[str, SweepResults] = {}
    failures: list[Failure] = []
    plans = study.sweeps(quick)
    for plan in plans:
        r = sweep(
            plan.build,
            points=plan.points,
            seeds=plan.seeds,
            cache=cache,
            fresh=fresh,
            workers=workers,
            cluster=cluster,
            progress=progress,
            tables=plan.tables,
        )
        results[plan.name] = r
        failures += r.failures
        if r.rows:
            r.write(folder / f"{plan.name}.parquet")
    seconds = time.perf_counter() - started
    return Swept(study, folder, quick, results, failures, seconds, tcp_profiles(plans))


def tcp_profiles(plans: Sequence[SweepPlan]) -> list[str]:
    """The TCP profiles a study's runs use, in order of first use, read from the first
    point of each sweep as loaded: a profile decides every TCP option the study leaves
    unset, so its report names them even where its parameters are silent."""
    profiles: list[str] = []
    for plan in plans:
        if plan.points:
            for name in load_plan(plan.build(plan.points[0])).summary()["tcp_profiles"]:
                profiles += [name] if name not in profiles else []
    return profiles


def post_process(swept: Swept) -> PostProcessed:
    """A study's tables, claims, sensitivity and figures, from its runs: all but the
    live half (`finish`). Needs nothing from the next study, so `cwnd reproduce all`
    runs it in a child beside the next study's sweeps (issue 17)."""
    started = time.perf_counter()
    study, folder = swept.study, swept.folder
    data = StudyData(swept.results, swept.quick)
    failures: list[Failure] = []
    for table in study.tables:
        try:
            with replacing(folder / f"{table.stem}.parquet") as tmp:
                table.compute(data).to_parquet(tmp, index=False)
        except (KeyError, ValueError, IndexError) as e:
            failures.append(Failure({"table": table.stem}, -1, f"{type(e).__name__}: {e}"))
    # The figures are drawn in a child forked here, beside the claims (issue 17: with
    # both on one core, the study's post-processing left the second core idle).
    beside = can_fork() and len(study.figures) > 0
    drawing = Beside(partial(_draw, study.figures, data, folder)) if beside else None
    try:
        measured = [_measure(c, data) for c in study.claims]
        sensitivity = [along(spec, study, data) for spec in study.sensitivity]
        problems = _draw(study.figures, data, folder) if drawing is None else drawing.result()
    finally:
        if drawing is not None:
            drawing.close()
    seconds = time.perf_counter() - started
    return PostProcessed(measured, sensitivity, problems, failures, seconds)


def finish(swept: Swept, done: PostProcessed) -> StudyReport:
    """The study's live half, if it has one (real TCP: run when nothing else runs,
    in a child: `live_half`), its report and claims.md. The report's seconds are the sweeps', the
    post-processing's and the live half's, whatever ran beside them."""
    started = time.perf_counter()
    study, folder = swept.study, swept.folder
    failures = [*swept.failures, *done.failures]
    figures = []
    for spec, problem in zip(study.figures, done.problems, strict=True):
        if problem is None:
            figures.append((spec, (folder / spec.stem).with_suffix(".png")))
        else:
            failures.append(Failure({"figure": spec.stem}, -1, problem))
    live = live_half(study.live, folder, swept.quick) if study.live is not None else None
    if live is not None:
        figures += live.figures
    report = StudyReport(
        study=study,
        folder=folder,
        quick=swept.quick,
        figures=figures,
        claims=[ClaimResult(c, m) for c, m in zip(study.claims, done.measured, strict=True)],
        failures=failures,
        runs=sum(len(r.runs) for r in swept.results.values()),
        computed=sum(r.computed for r in swept.results.values()),
        seconds=swept.seconds + done.seconds + time.perf_counter() - started,
        sensitivity=done.sensitivity,
        live=live,
        tcp_profiles=swept.tcp_profiles,
    )
    write_text(folder / "claims.md", claims_markdown(report))
    return report


def live_half(
    live: Callable[[Path, bool], ReportSection], folder: Path, quick: bool
) -> ReportSection:
    """Runs a study's live half in a forked child and waits for it (nothing runs
    beside it: BENCHMARKS.md, "why the live half stays alone"). A child, so that what
    its runs allocate (the relay's buffers, the simulated twins: 130 MB over a full
    wimax grid) leaves with it instead of raising the parent's peak; stopped, it still
    removes its namespaces (`stop_on_sigterm`)."""
    if not can_fork():
        return live(folder, quick)
    section: ReportSection = Beside(partial(_live_in_child, live, folder, quick)).result()
    return section


def _live_in_child(
    live: Callable[[Path, bool], ReportSection], folder: Path, quick: bool
) -> ReportSection:
    stop_on_sigterm()
    return live(folder, quick)


def _draw(figures: list[FigureSpec], data: StudyData, folder: Path) -> list[str | None]:
    """Draws each figure into `folder`; for each, None or why it could not be drawn
    (a point that failed, a table not kept)."""
    problems: list[str | None] = []
    for spec in figures:
        try:
            spec.draw(data, folder / spec.stem)
        except (KeyError, ValueError, IndexError) as e:
            problems.append(f"{type(e).__name__}: {e}")
        else:
            problems.append(None)
    return problems


def along(spec: Sensitivity, study: Study, data: StudyData) -> SensitivityResult:
    """Measures `spec.claims` once per value of the parameter, each time on a view of
    the runs where the value's sweeps stand in for the study's own."""
    by_id = {c.id: c for c in study.claims}
    rows = []
    for label, swap in spec.values:
        missing = [alt for alt in swap.values() if alt not in data.results]
        if missing:
            for cid in spec.claims:
                rows.append((cid, label, not_measurable(f"sweep {missing[0]} did not run")))
            continue
        view = data.view(swap)
        rows += [(cid, label, _measure(by_id[cid], view)) for cid in spec.claims]
    return SensitivityResult(spec, rows)


def _measure(claim: Claim, data: StudyData) -> Measured:
    try:
        return claim.measure(data)
    except (KeyError, ValueError, IndexError, ZeroDivisionError) as e:
        return not_measurable(f"could not be measured: {type(e).__name__}: {e}")


def claims_markdown(report: StudyReport) -> str:
    """The claims table: quote, source, rule, measured value, verdict, why."""
    study = report.study
    mode = "quick (reduced grid)" if report.quick else "full grid"
    lines = [
        f"# {study.title}",
        "",
        f"{study.citation}",
        "",
        f"Run: {mode}, {report.runs} runs ({report.computed} computed, the rest cached), "
        f"{report.seconds:.0f} s.",
        "",
        "| # | claim (source) | rule | measured | verdict | why |",
        "|---|---|---|---|---|---|",
    ]
    for r in report.claims:
        c = r.claim
        quote = f"“{c.quote}”" + (f" ({c.english})" if c.english else "")
        m = r.measured
        cells = [c.id, f"{quote} — {c.source}", c.rule, m.value, m.verdict.value, m.why]
        lines.append("| " + " | ".join(_cell(x) for x in cells) + " |")
    counts = {v: sum(r.measured.verdict is v for r in report.claims) for v in Verdict}
    lines += [
        "",
        ", ".join(f"{n} {v.value}" for v, n in counts.items()) + ".",
    ]
    for result in report.sensitivity:
        lines += [
            "",
            f"## Sensitivity: {result.spec.parameter}",
            "",
            "| # | value | measured | verdict |",
            "|---|---|---|---|",
        ]
        lines += [
            "| " + " | ".join(_cell(x) for x in (cid, label, m.value, m.verdict.value)) + " |"
            for cid, label, m in result.rows
        ]
    if report.live is not None:
        lines += report.live.lines
    if report.failures:
        lines += ["", "## Failures", ""]
        lines += [f"- {f.point} seed {f.seed}: {f.error}" for f in report.failures]
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def mean_by(table: pd.DataFrame, keys: Sequence[str], column: str) -> pd.Series:
    """The mean of `column` over seeds (and anything else not in `keys`)."""
    return table.groupby(list(keys), observed=True)[column].mean()
