"""`cwnd.Plan`: a scenario loaded once, run without loading it again, pickled for
process pools and Dask as its canonical JSON (issue 28)."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import pickle
import re
import warnings
from pathlib import Path
from typing import Any

import pytest

import cwnd
from cwnd import _cwnd

ROOT = Path(__file__).resolve().parent.parent


def test_a_plan_is_loaded_once_and_run_and_checked_without_loading(
    small_toml: Path, load_calls: list[str]
) -> None:
    plan = cwnd.plan(small_toml)
    assert load_calls == [small_toml.read_text()]
    first = cwnd.run(plan, seed=1)
    cwnd.check(plan)
    again = cwnd.run(plan, seed=1)
    assert len(load_calls) == 1
    assert first.fingerprint == again.fingerprint == cwnd.run(small_toml, seed=1).fingerprint


def test_the_kernel_takes_a_plan_never_its_text(small_toml: Path) -> None:
    # `run` builds the world from the loaded plan: there is no text to parse again.
    plan = _cwnd.load(small_toml.read_text())
    with pytest.raises(TypeError):
        _cwnd.run(plan.to_json(), 1)  # type: ignore[arg-type]


def test_a_plan_pickles_as_its_canonical_json(small_dict: dict[str, Any]) -> None:
    plan = cwnd.plan(small_dict)
    load, args = plan.__reduce__()
    assert load is _cwnd.load and args == (plan.to_json(),)
    copied = pickle.loads(pickle.dumps(plan))
    assert isinstance(copied, cwnd.Plan)
    assert copied.to_json() == plan.to_json()


def _fingerprint(plan: cwnd.Plan) -> int:
    return cwnd.run(plan, seed=2).fingerprint


def test_a_pickled_plan_runs_the_same_in_another_process(small_dict: dict[str, Any]) -> None:
    plan = cwnd.plan(small_dict)
    # spawn: a fresh interpreter, which has only the pickled plan.
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        there = pool.apply(_fingerprint, (plan,))
    assert there == _fingerprint(plan)


def test_the_fingerprint_key_is_the_sha256_of_the_canonical_json(
    small_toml: Path, small_dict: dict[str, Any]
) -> None:
    plan = cwnd.plan(small_toml)
    assert plan.fingerprint_key == hashlib.sha256(plan.to_json().encode()).hexdigest()
    # The same plan from another form of the same scenario; another plan for a change.
    assert cwnd.plan(small_dict).fingerprint_key == plan.fingerprint_key
    small_dict["flows"][0]["cc"] = "cubic"
    assert cwnd.plan(small_dict).fingerprint_key != plan.fingerprint_key


def test_the_spec_is_a_new_dict_of_the_canonical_json(small_toml: Path) -> None:
    plan = cwnd.plan(small_toml)
    spec = plan.spec
    assert spec == json.loads(plan.to_json()) == cwnd.load_scenario(small_toml)
    assert spec["links"][1]["bandwidth"] == "10000000bps"  # written in base units
    spec["links"][1]["bandwidth"] = "1bps"
    assert plan.spec["links"][1]["bandwidth"] == "10000000bps"


def test_the_summary_counts_what_the_plan_holds(small_toml: Path) -> None:
    summary = cwnd.plan(small_toml).summary()
    # conftest.SMALL: "small", 5 s, two links, one TCP flow, no shared medium.
    assert {k: v for k, v in summary.items() if k != "memory_estimate"} == {
        "name": "small",
        "duration": 5.0,
        "links": 2,
        "wireless": 0,
        "wimax": 0,
        "flows": {"tcp": 1},
        "generators": 0,
        "tcp_profiles": ["linux"],
    }
    assert summary["memory_estimate"] == cwnd.plan(small_toml).memory_estimate > 0


def test_the_summary_counts_flows_per_transport() -> None:
    plan = cwnd.plan(
        cwnd.Scenario(duration="1s")
        .link("a", "b", bandwidth="10Mbps", delay="5ms")
        .flow("a", "b")
        .flow("a", "b")
        .sctp("a", "b")
        .udp("a", "b", source=cwnd.sources.cbr(rate="1Mbps", packet_size="1000B"))
    )
    summary = plan.summary()
    assert summary["flows"] == {"tcp": 2, "sctp": 1, "udp": 1}
    assert summary["name"] is None  # the scenario names none


def test_the_summary_names_the_tcp_profiles_in_order_of_first_use() -> None:
    # The scenario's profile for flows that name none; a flow's own wins; SCTP and UDP
    # flows have none; each profile once.
    spec = (
        cwnd.Scenario(duration="1s")
        .link("a", "b", bandwidth="10Mbps", delay="5ms")
        .flow("a", "b", profile="ns2")
        .flow("a", "b")
        .flow("a", "b", profile="ns2")
        .sctp("a", "b")
        .to_dict()
    )
    assert cwnd.plan(spec).summary()["tcp_profiles"] == ["ns2", "linux"]
    spec["tcp"] = {"profile": "rfc"}
    assert cwnd.plan(spec).summary()["tcp_profiles"] == ["ns2", "rfc"]
    udp_only = cwnd.Scenario(duration="1s").link("a", "b", bandwidth="10Mbps", delay="5ms")
    udp_only.udp("a", "b", source=cwnd.sources.cbr(rate="1Mbps", packet_size="1000B"))
    assert cwnd.plan(udp_only).summary()["tcp_profiles"] == []


def test_what_can_never_happen_is_warned_once_when_the_plan_is_made() -> None:
    late = cwnd.Scenario(duration="10s").link(
        "h1", "h2", bandwidth="10Mbps", delay="10ms",
        impairments=[cwnd.impairments.outage(start="12s", duration="1s")],
    ).flow("h1", "h2")  # fmt: skip
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        plan = cwnd.plan(late)
        cwnd.check(plan)
        cwnd.run(plan)
    assert len(caught) == 1 and caught[0].category is cwnd.ScenarioWarning
    assert caught[0].filename == __file__  # reported at the caller's line
    assert plan.warnings == [str(caught[0].message)]


def test_controllers_are_the_kernels_table_in_its_order() -> None:
    # The rows of `controllers!` in transport/tcp/cc/mod.rs: `Variant("name", ...`.
    source = (ROOT / "crates/cwnd-sim/src/transport/tcp/cc/mod.rs").read_text()
    table = source[source.index("controllers! {") :]
    rows = re.findall(r'^\s+\w+\("([a-z0-9_]+)",', table[: table.index("\n}")], re.M)
    assert len(rows) >= 14
    assert cwnd.controllers() == rows


def test_every_controller_listed_runs_and_no_other_name_does() -> None:
    base = cwnd.Scenario(duration="1s").link("a", "b", bandwidth="10Mbps", delay="5ms")
    for name in cwnd.controllers():
        # `_cwnd.load`: checked, and "tahoe"'s warning (no SACK recovery) not raised.
        _cwnd.load(json.dumps(base.to_dict() | {"flows": [{"from": "a", "to": "b", "cc": name}]}))
    with pytest.raises(cwnd.ScenarioError) as e:
        cwnd.check(base.flow("a", "b", cc="not-a-controller"))
    assert str(e.value).endswith(f"use one of {', '.join(cwnd.controllers())}")
