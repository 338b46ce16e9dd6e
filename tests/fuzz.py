"""A structure-aware fuzzer: well-typed scenarios with extreme but legal values.

`scenarios()` is a hypothesis strategy that draws scenario dicts shaped like the schema
(docs/scenarios.md): a chain of links with random rates, delays, queues and impairment
stages, sometimes an 802.11 channel or an 802.16 cell at the end, one to three flows
with any congestion control and TCP options, sometimes SCTP, and trace settings. Most
draws pass `check`, so the simulator itself is exercised (a random-bytes fuzzer stops at
the parser).

`run_capped` runs what `check` accepted in a separate process under a memory cap
(RLIMIT_AS) and a time limit. A case fails when the run crashes (a signal, a panic, an
allocation the cap refuses), overruns its time, or raises anything but a clean result
after `check` accepted it. Used by tests/test_fuzz.py; `python tests/fuzz.py N [--huge]`
runs N cases and saves the smallest failing one in tests/fuzz_regressions/.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import multiprocessing
import resource
import sys
import warnings
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

REGRESSIONS = Path(__file__).resolve().parent / "fuzz_regressions"
MEMORY_CAP = 3 << 30  # bytes of address space for one run
TIME_LIMIT = 60.0  # seconds of wall time for one run


@functools.cache
def congestion_controls() -> list[str]:
    """The controllers the simulator knows, from its own error message (one list, in
    the kernel: a new controller is fuzzed without editing this file)."""
    import cwnd

    probe = cwnd.Scenario(duration="1s").link("a", "b", bandwidth="1Mbps", delay="1ms")
    try:
        cwnd.check(probe.flow("a", "b", cc="?").to_dict())
    except cwnd.ScenarioError as e:
        return [name.strip() for name in str(e).split("use one of")[1].split(",")]
    raise AssertionError("an unknown congestion control was accepted")


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


@st.composite
def scenarios(draw: st.DrawFn, huge: bool = False) -> dict[str, Any]:
    """A scenario dict: extreme but legal values, shaped like the schema. With `huge`,
    also values whose runs would hold more than any machine has (a 600 s run traced
    every microsecond, an initial window of 4·10⁹ segments), which `check` must refuse
    against its memory budget."""
    hops = draw(st.integers(1, 3))
    nodes = [f"n{i}" for i in range(hops + 1)]
    links = []
    for a, b in itertools.pairwise(nodes):
        link: dict[str, Any] = {
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
    for i in range(draw(st.integers(1, 3))):
        if draw(st.integers(0, 9)) == 0:
            spec["flows"].append(
                {"name": f"s{i}", "from": nodes[0], "to": last, "transport": "sctp"}
            )
            continue
        flow: dict[str, Any] = {
            "name": f"f{i}",
            "from": nodes[0],
            "to": last,
            "cc": draw(st.sampled_from(congestion_controls())),
        }
        tcp = draw(_tcp(huge))
        if tcp:
            flow["tcp"] = tcp
        if draw(st.booleans()):
            flow["app"] = {"kind": "transfer", "bytes": f"{draw(st.integers(1, 10_000_000))}B"}
        spec["flows"].append(flow)
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


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def _run(spec_json: str) -> str:
    import cwnd

    warnings.simplefilter("ignore", cwnd.ScenarioWarning)
    results = cwnd.run(json.loads(spec_json), seed=1)
    return f"{results.fingerprint:016x}"


class CappedRunner:
    """Runs scenarios one at a time in a child process with a memory cap; a child that
    dies or overruns is replaced."""

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None
        self._children_before: set[multiprocessing.process.BaseProcess] = set()

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            context = multiprocessing.get_context("spawn")
            self._children_before = set(multiprocessing.active_children())
            self._pool = ProcessPoolExecutor(1, mp_context=context, initializer=_limit_memory)
        return self._pool

    def _discard(self) -> None:
        """Kills the pool's worker: the child that was not there before the pool."""
        if self._pool is not None:
            for process in multiprocessing.active_children():
                if process not in self._children_before:
                    process.kill()
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def run(self, spec: dict[str, Any]) -> str | None:
        """None if the run ended cleanly, else what went wrong."""
        future = self._executor().submit(_run, json.dumps(spec))
        try:
            future.result(timeout=TIME_LIMIT)
            return None
        except FutureTimeout:
            self._discard()
            return f"still running after {TIME_LIMIT:.0f} s"
        except BrokenProcessPool:
            self._discard()
            return "the run's process died (crash, abort or memory cap)"
        except Exception as e:  # anything raised after check accepted the scenario
            return f"{type(e).__name__}: {e}"

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None


def save_regression(spec: dict[str, Any], problem: str) -> Path:
    """Keeps a failing case for tests/test_fuzz.py to replay forever."""
    REGRESSIONS.mkdir(exist_ok=True)
    text = json.dumps({"problem": problem, "scenario": spec}, indent=1, sort_keys=True)
    path = REGRESSIONS / f"{hashlib.sha256(text.encode()).hexdigest()[:16]}.json"
    path.write_text(text + "\n")
    return path


def main(cases: int, huge: bool) -> int:
    """Draws `cases` scenarios, runs those `check` accepts, saves the smallest failure."""
    from hypothesis import HealthCheck, given, settings

    import cwnd

    runner = CappedRunner()
    counts = {"refused": 0, "ran": 0}
    failing: dict[str, Any] = {}

    @settings(
        max_examples=cases,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(scenarios(huge=huge))
    def one(spec: dict[str, Any]) -> None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", cwnd.ScenarioWarning)
                cwnd.check(spec)
        except cwnd.ScenarioError:
            counts["refused"] += 1
            return
        counts["ran"] += 1
        problem = runner.run(spec)
        if problem is not None:
            # Hypothesis shrinks the case and runs the smallest one last.
            failing.update(spec=spec, problem=problem)
            raise AssertionError(problem)

    try:
        one()
    except AssertionError:
        path = save_regression(failing["spec"], failing["problem"])
        print(f"failed: {failing['problem']}; smallest case saved in {path}")
        return 1
    finally:
        runner.close()
    print(counts)
    return 0


if __name__ == "__main__":
    cases = next((int(a) for a in sys.argv[1:] if a.isdigit()), 1000)
    sys.exit(main(cases, huge="--huge" in sys.argv))
