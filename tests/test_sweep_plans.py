"""Preparing a sweep's points without loading each (issue 27): the spliced plan texts,
their keys, the points that must still be loaded, and what the command says first."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import cwnd
import cwnd.executors
from cwnd.sweep import spec_for, sweep
from cwnd.sweep_plans import PointPlans

PLAN: dict[str, Any] = {
    "name": "p",
    "a": {"b": 1, "c": [1.5, "x"]},
    "links": [{"delay": "1ms", "q": None}, {"delay": "2ms", "q": {"packets": 3}}],
}


@pytest.mark.parametrize(
    "point",
    [
        {},
        {"a.b": 5},
        {"a.new": "appended at the end of its table"},
        {"links[1].q.packets": 30, "a.c[0]": -2.25},
        {"a.c[0]": -2.25, "links[1].q.packets": 30},  # the same fields, in another order
        {"links[0]": {"delay": "3ms", "q": [1, 2]}, "name": "caf\u00e9 \u2192 \u0000"},
        {"a.b": None, "a.c": True, "links[1].delay": 1e-300},
    ],
)
def test_a_points_text_is_the_json_of_the_base_with_its_fields_set(point: dict[str, Any]) -> None:
    plans = PointPlans(PLAN, "engine")
    assert plans.text(point) == json.dumps(spec_for(PLAN, point))
    assert PLAN["a"]["b"] == 1  # the base is left as it was


def test_keys_differ_by_values_and_seeds_and_repeat_for_the_same_point() -> None:
    plans = PointPlans(PLAN, "engine")
    one, two = plans.keys({"a.b": 1}, [0, 1]), plans.keys({"a.b": 2}, [0, 1])
    assert one is not None and two is not None
    assert len({*one, *two}) == 4
    assert plans.keys({"a.b": 1}, [0, 1]) == one
    assert PointPlans(PLAN, "another engine").keys({"a.b": 1}, [0, 1]) != one
    other = {**PLAN, "name": "q"}  # another base: another template, other keys
    assert PointPlans(other, "engine").keys({"a.b": 1}, [0, 1]) != one


@pytest.mark.parametrize(
    "point",
    [
        {"links[0]": {"delay": "3ms"}, "links[0].delay": "4ms"},  # a field inside another
        {"links[1].p_file": "loss.csv"},  # a field that names a file
        {"links[1]": {"impairments": [{"kind": "bernoulli", "p_file": "loss.csv"}]}},
    ],
)
def test_points_that_cannot_be_spliced_are_left_to_be_loaded(point: dict[str, Any]) -> None:
    assert PointPlans(PLAN, "engine").keys(point, [0]) is None


class _Prepared(Exception):
    """Raised where the first run would be sent: the sweep's preparation is over."""


def _stop(*_: Any) -> None:
    raise _Prepared


def test_preparing_a_grid_loads_no_point_here(
    small_dict: dict[str, Any],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    load_calls: list[str],
) -> None:
    monkeypatch.setattr(cwnd.executors.LocalPool, "results", _stop)
    grid = {"links[1].impairments[0].p": [i / 1000 for i in range(200)], "flows[0].cc": ["reno"]}
    with pytest.raises(_Prepared):
        sweep(small_dict, grid=grid, seeds=[1, 2], cache=tmp_path, progress=False)
    # The base, and each swept field once (`check_fields`): not 200 points' plans.
    assert len(load_calls) == 1 + 2


def test_a_point_that_names_a_file_is_loaded_here_and_keyed_by_its_contents(
    small_dict: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # a dict's files are read from the working directory
    stage = {"kind": "bernoulli", "p_file": "loss.csv", "applies_to": "data"}
    points = [{"links[1].impairments": [stage]}]
    cache = tmp_path / "cache"
    Path("loss.csv").write_text("0, 0.01\n")
    first = sweep(small_dict, points=points, seeds=[1], cache=cache, progress=False)
    assert (first.computed, first.failures) == (1, [])
    Path("loss.csv").write_text("0, 0.05\n")  # the same name, other contents
    edited = sweep(small_dict, points=points, seeds=[1], cache=cache, progress=False)
    assert (edited.computed, edited.cached) == (1, 0)
    spec = spec_for(small_dict, points[0])
    expected = cwnd.run(spec, seed=1).fingerprint
    assert edited.table["fingerprint"].tolist() == [f"{expected:016x}"]


def test_the_command_says_how_many_points_and_runs_before_anything_else(
    tmp_path: Path,
) -> None:
    from conftest import SMALL

    (tmp_path / "s.toml").write_text(SMALL)
    (tmp_path / "sweep.toml").write_text(
        'scenario = "s.toml"\nseeds = 3\n[grid]\n"flows[0].cc" = ["reno", "newreno"]\n'
    )
    cmd = [sys.executable, "-m", "cwnd", "sweep", str(tmp_path / "sweep.toml")]
    cmd += ["--cache", str(tmp_path / "c"), "--out", str(tmp_path / "t.parquet")]
    env = {**os.environ, "CWND_DASK_SCHEDULER": ""}
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[:2] == [
        "sweep: 2 points × 3 seeds = 6 runs",
        "sweep: 0 in the cache, 6 to run",
    ]
    again = subprocess.run(cmd, capture_output=True, text=True, env=env)
    assert again.stdout.splitlines()[1] == "sweep: 6 in the cache, 0 to run"
