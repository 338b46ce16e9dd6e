"""A structure-aware fuzzer of the `cwnd` command: well-typed scenarios with extreme
but legal values, and scenarios that name files under odd paths.

`scenarios()` is a hypothesis strategy that draws scenario dicts shaped like the schema
(docs/scenarios.md): a chain of links with random rates, delays, queues and impairment
stages, sometimes an 802.11 channel or an 802.16 cell at the end, and traffic of one
transport or a mix: TCP flows with any congestion control and TCP options, SCTP
associations, UDP flows (CBR, exponential and Pareto sources), traffic generators (FTP,
Web); and trace settings. A scenario of UDP flows only once wrote its files and ended
`cwnd run` with an internal error (issue 27). Most draws pass the loader, so the
simulator itself is exercised (a random-bytes fuzzer stops at the parser).

`file_cases()` draws a small scenario whose loss stage names a file (`p_file`) of a
drawn kind — a loss trace, a trace with a bad line, a folder, a FIFO, a device, a /proc
entry, a missing file — under a drawn name: plain, with spaces, unicode, through `..`,
absolute. Anything but a loss trace must be refused by one line that names the file
and never shows its contents (docs/scenarios.md, "Files a scenario names").

`CappedRunner.run` writes the scenario as a TOML file and runs `cwnd run` on it in a
separate process under a memory cap (RLIMIT_AS) and a time limit. A case passes when
the command exits 0, or 2 with one line (`cwnd: warning:` lines aside) and no
traceback; it fails when the command exits otherwise (1 is an internal error), its
process crashes (a signal, a panic, an allocation the cap refuses) or overruns its
time. Used by tests/test_fuzz.py; `python tests/fuzz.py N [--huge] [--files]` runs N
cases and saves the smallest failing one in tests/fuzz_regressions/.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import itertools
import json
import math
import multiprocessing
import os
import re
import resource
import signal
import sys
import tempfile
import tomllib
import warnings
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from parent_death import die_with_parent

REGRESSIONS = Path(__file__).resolve().parent / "fuzz_regressions"
MEMORY_CAP = 3 << 30  # bytes of address space for one run
#: Every drawn scenario's `memory_budget`: what the loader lets a run hold, a third of
#: the cap (the rest: the interpreter, pandas, and the estimate's own error). With the
#: default budget (4 GiB) a scenario the loader rightly accepted could meet the cap.
MEMORY_BUDGET = "1GiB"
TIME_LIMIT = 60.0  # seconds of wall time for one run


def congestion_controls() -> list[str]:
    """The controllers the simulator knows (`cwnd.controllers()`, the kernel's one list:
    a new controller is fuzzed without editing this file)."""
    import cwnd

    return cwnd.controllers()


def _duration(lo_us: int, hi_us: int) -> st.SearchStrategy[str]:
    return st.integers(lo_us, hi_us).map(lambda us: f"{us}us")


def _trace_period(huge: bool) -> st.SearchStrategy[str]:
    """A trace period: sane, or with `huge` sometimes 1 ns (a bin or sample per ns)."""
    sane = _duration(1_000, 1_000_000)
    return st.one_of(sane, st.sampled_from(["1ns", "1us"])) if huge else sane


def _probability() -> st.SearchStrategy[float]:
    return st.one_of(st.sampled_from([0.0, 1e-9, 0.5, 0.999, 1.0]), st.floats(0.0, 1.0))


def _rate() -> st.SearchStrategy[str]:
    return st.sampled_from(["56kbps", "1Mbps", "11Mbps", "100Mbps", "1Gbps", "9600bps"])


def _common() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {},
        optional={
            "direction": st.sampled_from(["both", "forward", "reverse"]),
            "applies_to": st.sampled_from(["all", "data", "acks"]),
            "start": _duration(0, 3_000_000),
            "duration": _duration(1, 3_000_000),
        },
    )


def _delay_distribution() -> st.SearchStrategy[dict[str, Any]]:
    return st.one_of(
        _duration(0, 500_000).map(lambda d: {"distribution": "constant", "value": d}),
        _duration(0, 500_000).map(lambda d: {"distribution": "exponential", "mean": d}),
        st.lists(_duration(0, 500_000), min_size=1, max_size=4).map(
            lambda v: {"distribution": "empirical", "values": v}
        ),
    )


def _stage() -> st.SearchStrategy[dict[str, Any]]:
    kinds = st.one_of(
        _probability().map(lambda p: {"kind": "bernoulli", "p": p}),
        st.tuples(_probability(), _probability(), _probability(), _probability()).map(
            lambda v: {
                "kind": "gilbert_elliott",
                "p_gb": v[0],
                "p_bg": v[1],
                "loss_good": v[2],
                "loss_bad": v[3],
            }
        ),
        st.lists(st.integers(1, 10_000), min_size=1, max_size=5).map(
            lambda ks: {"kind": "drop_list", "packets": sorted(set(ks))}
        ),
        st.just({"kind": "outage"}),
        st.tuples(_probability(), _delay_distribution()).map(
            lambda v: {"kind": "reorder", "r": v[0], "delay": v[1]}
        ),
        _duration(0, 2_000_000).map(lambda d: {"kind": "delay_step", "extra": d}),
        st.tuples(_probability(), _delay_distribution(), st.booleans()).map(
            lambda v: {"kind": "arq", "pv": v[0], "delay": v[1], "in_order": v[2]}
        ),
    )
    return st.tuples(kinds, _common()).map(lambda v: {**v[0], **v[1]})


def _tcp(huge: bool) -> st.SearchStrategy[dict[str, Any]]:
    window = st.integers(1, 1000)
    return st.fixed_dictionaries(
        {},
        optional={
            "sack": st.booleans(),
            "timestamps": st.booleans(),
            "delayed_ack": st.booleans(),
            "frto": st.booleans(),
            "initial_window": st.one_of(window, st.just(4_000_000_000)) if huge else window,
            "abc_limit": st.integers(1, 1000),
            "mss": st.sampled_from(["64B", "536B", "1460B", "9000B"]),
        },
    )


def _packet_size() -> st.SearchStrategy[str]:
    """A datagram's size: 28 B (its IP and UDP headers alone) to 65 535 B."""
    return st.sampled_from(["28B", "64B", "500B", "1500B", "9000B", "65535B"])


def _source() -> st.SearchStrategy[dict[str, Any]]:
    """A UDP flow's source: CBR, or exponential or Pareto on/off (cwnd.sources)."""
    on_off = {
        "burst_time": _duration(1, 2_000_000),
        "idle_time": _duration(1, 2_000_000),
        "rate": _rate(),
        "packet_size": _packet_size(),
    }
    return st.one_of(
        st.fixed_dictionaries(
            {"kind": st.just("cbr"), "rate": _rate(), "packet_size": _packet_size()},
            optional={"jitter": st.booleans()},
        ),
        st.fixed_dictionaries({"kind": st.just("exponential"), **on_off}),
        st.fixed_dictionaries({"kind": st.just("pareto"), **on_off, "shape": st.floats(1.01, 5.0)}),
    )


def _generator(i: int, src: str, dst: str) -> st.SearchStrategy[dict[str, Any]]:
    """A traffic generator on the first link (`l0`): FTP or Web, a light load (the
    generators of a link together at most 1)."""
    common = {
        "name": st.just(f"g{i}"),
        "from": st.just(src),
        "to": st.just(dst),
        "link": st.just("l0"),
        "load": st.floats(0.001, 0.3),
        "cc": st.sampled_from(congestion_controls()),
    }
    return st.one_of(
        st.fixed_dictionaries(
            {
                **common,
                "kind": st.just("ftp"),
                "mean_size": st.sampled_from(["100B", "20KB", "1MB"]),
            }
        ),
        st.fixed_dictionaries({**common, "kind": st.just("web")}),
    )


def _flow(
    draw: st.DrawFn, i: int, transport: str, src: str, dst: str, huge: bool
) -> dict[str, Any]:
    if transport == "sctp":
        return {"name": f"s{i}", "from": src, "to": dst, "transport": "sctp"}
    if transport == "udp":
        return {
            "name": f"u{i}",
            "from": src,
            "to": dst,
            "transport": "udp",
            "source": draw(_source()),
        }
    flow: dict[str, Any] = {
        "name": f"f{i}",
        "from": src,
        "to": dst,
        "cc": draw(st.sampled_from(congestion_controls())),
    }
    tcp = draw(_tcp(huge))
    if tcp:
        flow["tcp"] = tcp
    if draw(st.booleans()):
        flow["app"] = {"kind": "transfer", "bytes": f"{draw(st.integers(1, 10_000_000))}B"}
    return flow


#: What carries a scenario's traffic: one transport alone, generators alone, or a mix.
TRAFFIC = ("tcp", "tcp", "sctp", "udp", "generators", "mixed")


@st.composite
def scenarios(draw: st.DrawFn, huge: bool = False) -> dict[str, Any]:
    """A scenario dict: extreme but legal values, shaped like the schema. With `huge`,
    also values whose runs would hold more than any machine has (a 600 s run traced
    every microsecond, an initial window of 4·10⁹ segments), which the loader must
    refuse against its memory budget."""
    hops = draw(st.integers(1, 3))
    nodes = [f"n{i}" for i in range(hops + 1)]
    links = []
    for i, (a, b) in enumerate(itertools.pairwise(nodes)):
        link: dict[str, Any] = {
            "name": f"l{i}",
            "between": [a, b],
            "bandwidth": draw(_rate()),
            "delay": draw(_duration(0, 2_000_000)),
        }
        queue = draw(st.one_of(st.none(), st.integers(1, 100_000)))
        if queue is not None:
            link["queue"] = {"packets": queue}
        stages = draw(st.lists(_stage(), max_size=3))
        if stages:
            link["impairments"] = stages
        links.append(link)
    spec: dict[str, Any] = {
        "name": "fuzz",
        "memory_budget": MEMORY_BUDGET,
        "duration": draw(
            st.one_of(_duration(1_000, 5_000_000), st.just("600s"))
            if huge
            else _duration(1_000, 5_000_000)
        ),
        "links": links,
        "flows": [],
    }
    last = nodes[-1]
    edge = draw(st.sampled_from(["none", "wireless", "wimax"]))
    if edge == "wireless":
        spec["wireless"] = [
            {
                "stations": [last, "mobile"],
                "rate": draw(st.sampled_from(["1Mbps", "2Mbps", "5.5Mbps", "11Mbps"])),
                "per": draw(st.floats(0.0, 0.99)),
            }
        ]
        last = "mobile"
    elif edge == "wimax":
        spec["wimax"] = [
            {
                "base_station": last,
                "subscribers": ["ss"],
                "preset": draw(st.sampled_from(["los_snr30", "nlos_snr10"])),
            }
        ]
        last = "ss"
    # A huge run is about memory; 600 s of UDP at 1 Gb/s in 28 B datagrams is only
    # slow (10⁹ datagrams: longer than the time limit), so huge draws leave UDP out.
    traffic = draw(st.sampled_from([t for t in TRAFFIC if t != "udp"] if huge else TRAFFIC))
    if traffic != "generators":
        for i in range(draw(st.integers(1, 3))):
            transport = traffic
            if traffic == "mixed":
                kinds = ["tcp", "sctp"] if huge else ["tcp", "sctp", "udp"]
                transport = draw(st.sampled_from(kinds))
            spec["flows"].append(_flow(draw, i, transport, nodes[0], last, huge))
    if traffic in ("generators", "mixed"):
        count = draw(st.integers(1 if traffic == "generators" else 0, 2))
        spec["generators"] = [draw(_generator(i, nodes[0], last)) for i in range(count)]
    spec["trace"] = draw(
        st.fixed_dictionaries(
            {},
            optional={
                "sampling": st.sampled_from(["change", "interval"]),
                "interval": _trace_period(huge),
                "throughput_bin": _trace_period(huge),
                "segments": st.booleans(),
                "queues": st.booleans(),
            },
        )
    )
    return spec


# --- files a scenario names -------------------------------------------------------

#: A loss trace's line that must never appear in a message: a file's contents are not
#: echoed (a loss trace that is really /etc/shadow must not print root's line).
SECRET = "cwnd-fuzz-secret-7f3a"

#: /proc entries a scenario may name, and a text each holds that must not be echoed.
PROC_ENTRIES = {"/proc/self/environ": "PATH=", "/proc/self/status": "Name:"}


@dataclass(frozen=True)
class FileCase:
    """A file a scenario names (`p_file`): what it is (`kind`) and how the scenario
    writes its name (`style`)."""

    kind: str  # trace, bad trace, folder, fifo, device, proc, missing
    style: str  # plain, spaces, unicode, parent, absolute
    proc_entry: str = "/proc/self/status"

    def make(self, folder: Path) -> str:
        """Makes the file in `folder`, where the scenario is written in
        `folder / SCENARIO_FOLDER`; returns the name the scenario gives it."""
        if self.kind == "device":
            return "/dev/null"
        if self.kind == "proc":
            return self.proc_entry
        scenario_folder = folder / SCENARIO_FOLDER
        relative = {
            "plain": "loss.csv",
            "spaces": "loss trace 5 %.csv",
            "unicode": "perte à 5 % トレース.csv",
            "parent": "../traces/loss.csv",
        }
        if self.style == "absolute":
            path = folder / "traces" / "loss.csv"
            name = str(path)
        else:
            name = relative[self.style]
            path = scenario_folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if self.kind == "trace":
            path.write_text("# time, p\n0, 0.01\n0.05, 0.02\n")
        elif self.kind == "bad trace":
            path.write_text(f"# time, p\n0, 0.01\n{SECRET}\n")
        elif self.kind == "folder":
            path.mkdir()
        elif self.kind == "fifo":
            os.mkfifo(path)
        return name

    def never_shown(self) -> list[str]:
        """Texts of the file that a message must not contain."""
        if self.kind == "proc":
            return [PROC_ENTRIES[self.proc_entry]]
        return [SECRET] if self.kind == "bad trace" else []


#: The scenario's own folder, in the case's folder: a name with a space.
SCENARIO_FOLDER = "scenario folder"

FILE_KINDS = ("trace", "bad trace", "folder", "fifo", "device", "proc", "missing")
NAME_STYLES = ("plain", "spaces", "unicode", "parent", "absolute")


def file_cases() -> st.SearchStrategy[FileCase]:
    return st.builds(
        FileCase,
        kind=st.sampled_from(FILE_KINDS),
        style=st.sampled_from(NAME_STYLES),
        proc_entry=st.sampled_from(sorted(PROC_ENTRIES)),
    )


def naming(name: str) -> dict[str, Any]:
    """A scenario that runs in milliseconds, whose loss stage reads the file `name`."""
    link = {"between": ["a", "b"], "bandwidth": "10Mbps", "delay": "1ms"}
    link["impairments"] = [{"kind": "bernoulli", "p_file": name}]
    flow = {"name": "f", "from": "a", "to": "b"}
    return {"name": "files", "duration": "100ms", "links": [link], "flows": [flow]}


# --- TOML -------------------------------------------------------------------------


def toml_text(spec: dict[str, Any]) -> str:
    """A scenario dict as a TOML file: one `key = value` line per top-level key, tables
    and arrays inline. `cwnd run` takes files; a user writes TOML."""
    text = "".join(f"{_key(k)} = {_value(v)}\n" for k, v in spec.items())
    if not _has_nan(spec):  # NaN is never equal to itself
        assert tomllib.loads(text) == spec, "the TOML holds the dict"
    return text


def _key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else _string(key)


def _string(text: str) -> str:
    # JSON's escapes are TOML's; DEL, which JSON leaves as it is, TOML refuses raw.
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)  # 1e-09, inf and nan are TOML too
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"{value!r} has no TOML form")


def _has_nan(value: Any) -> bool:
    if isinstance(value, float):
        return math.isnan(value)
    if isinstance(value, dict):
        return any(_has_nan(v) for v in value.values())
    return isinstance(value, list) and any(_has_nan(v) for v in value)


# --- running ----------------------------------------------------------------------


def _start_child() -> None:
    """A run's process: a memory cap, and it ends with its parent (a run blocked on a
    FIFO would otherwise outlive a killed test)."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))
    die_with_parent(signal.SIGKILL)


def _cwnd_run(scenario: str, out: str) -> tuple[int, str]:
    """`cwnd run SCENARIO --out OUT --seed 1 --figures none` in this process: its exit
    code and what it wrote on stderr."""
    from cwnd.cli import main

    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(["run", scenario, "--out", out, "--seed", "1", "--figures", "none"])
    return code, err.getvalue()


@dataclass(frozen=True)
class Outcome:
    """What `cwnd run` did: its exit code and its error lines (`cwnd: warning:` lines
    aside)."""

    code: int
    errors: list[str]


class CappedRunner:
    """Runs `cwnd run` one case at a time in a child process with a memory cap; a
    child that dies or overruns is replaced."""

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None
        self._children_before: set[multiprocessing.process.BaseProcess] = set()

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            context = multiprocessing.get_context("spawn")
            self._children_before = set(multiprocessing.active_children())
            self._pool = ProcessPoolExecutor(1, mp_context=context, initializer=_start_child)
        return self._pool

    def _discard(self) -> None:
        """Kills the pool's worker: the child that was not there before the pool."""
        if self._pool is not None:
            for process in multiprocessing.active_children():
                if process not in self._children_before:
                    process.kill()
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def outcome(self, spec: dict[str, Any], folder: Path) -> Outcome | str:
        """Runs `spec`, written as TOML in `folder / SCENARIO_FOLDER`: its outcome, or
        what went wrong with its process."""
        scenario = folder / SCENARIO_FOLDER / "scenario.toml"
        scenario.parent.mkdir(parents=True, exist_ok=True)
        scenario.write_text(toml_text(spec))
        future = self._executor().submit(_cwnd_run, str(scenario), str(folder / "out"))
        try:
            code, stderr = future.result(timeout=TIME_LIMIT)
        except FutureTimeout:
            self._discard()
            return f"still running after {TIME_LIMIT:.0f} s"
        except BrokenProcessPool:
            self._discard()
            return "the run's process died (crash, abort or memory cap)"
        except (Exception, SystemExit) as e:  # anything main() let through
            return f"cwnd run raised {type(e).__name__}: {e}"
        lines = [line for line in stderr.splitlines() if not line.startswith("cwnd: warning: ")]
        return Outcome(code, lines)

    def run(self, spec: dict[str, Any]) -> str | None:
        """None if `cwnd run` ran `spec` or refused it in one line, else what went
        wrong."""
        with tempfile.TemporaryDirectory() as folder:
            return problem(self.outcome(spec, Path(folder)))

    def run_file_case(self, case: FileCase) -> str | None:
        """None if `cwnd run` of a scenario naming `case`'s file read it (a loss trace)
        or refused it by name in one line, never showing its contents."""
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            name = case.make(folder)
            outcome = self.outcome(naming(name), folder)
            wrong = problem(outcome)
            if wrong is not None or case.kind == "trace":
                return wrong
            assert isinstance(outcome, Outcome)
            if outcome.code != 2:
                return f"{case}: {name!r} was not refused"
            line = outcome.errors[0]
            if name[:60] not in line:
                return f"{case}: the message does not name {name!r}: {line}"
            shown = [text for text in case.never_shown() if text in line]
            return f"{case}: the message shows the file's {shown}: {line}" if shown else None

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None


def problem(outcome: Outcome | str) -> str | None:
    """None for exit code 0 without an error line, or 2 with one `cwnd: error:` line;
    else what is wrong."""
    if isinstance(outcome, str):
        return outcome
    if any("Traceback" in line for line in outcome.errors):
        return "a traceback: " + " | ".join(outcome.errors)
    if outcome.code == 0 and not outcome.errors:
        return None
    one_line = len(outcome.errors) == 1 and outcome.errors[0].startswith("cwnd: error: ")
    if outcome.code == 2 and one_line:
        return None
    return f"exit code {outcome.code}: " + " | ".join(outcome.errors)


def save_regression(spec: dict[str, Any], problem: str) -> Path:
    """Keeps a failing case for tests/test_fuzz.py to replay forever."""
    REGRESSIONS.mkdir(exist_ok=True)
    text = json.dumps({"problem": problem, "scenario": spec}, indent=1, sort_keys=True)
    path = REGRESSIONS / f"{hashlib.sha256(text.encode()).hexdigest()[:16]}.json"
    path.write_text(text + "\n")
    return path


def main(cases: int, huge: bool, files: bool) -> int:
    """Draws `cases` scenarios (with `files`, file cases), runs each through `cwnd run`,
    and saves the smallest failing scenario."""
    from hypothesis import HealthCheck, given, settings

    runner = CappedRunner()
    failing: dict[str, Any] = {}
    checked = settings(
        max_examples=cases,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )

    @checked
    @given(scenarios(huge=huge))
    def one(spec: dict[str, Any]) -> None:
        wrong = runner.run(spec)
        if wrong is not None:
            # Hypothesis shrinks the case and runs the smallest one last.
            failing.update(spec=spec, problem=wrong)
            raise AssertionError(wrong)

    @checked
    @given(file_cases())
    def one_file(case: FileCase) -> None:
        wrong = runner.run_file_case(case)
        if wrong is not None:
            failing.update(problem=wrong)
            raise AssertionError(wrong)

    try:
        (one_file if files else one)()
    except (AssertionError, ExceptionGroup):  # a group: several distinct failures
        if files:
            print(f"failed: {failing['problem']}")
            return 1
        path = save_regression(failing["spec"], failing["problem"])
        print(f"failed: {failing['problem']}; smallest case saved in {path}")
        return 1
    finally:
        runner.close()
    print(f"{cases} cases: none failed")
    return 0


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    cases = next((int(a) for a in sys.argv[1:] if a.isdigit()), 1000)
    sys.exit(main(cases, huge="--huge" in sys.argv, files="--files" in sys.argv))
