"""Sweeps: grid expansion, the cache, failures, Dask, and Ctrl-C."""

from __future__ import annotations

import copy
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from cwnd.sweep import grid_points, run_key, set_field, sweep

LOSS = "links[1].impairments[0].p"


def test_grid_is_the_cartesian_product_in_stable_order() -> None:
    points = grid_points({"a": [1, 2], "b": ["x", "y", "z"]})
    assert len(points) == 6
    assert points[0] == {"a": 1, "b": "x"}
    assert points[1] == {"a": 1, "b": "y"}
    assert points[-1] == {"a": 2, "b": "z"}


def test_field_paths_address_nested_lists_and_tables(small_dict: dict[str, Any]) -> None:
    spec = copy.deepcopy(small_dict)
    set_field(spec, LOSS, 0.5)
    set_field(spec, "flows[0].cc", "newreno")
    assert spec["links"][1]["impairments"][0]["p"] == 0.5
    assert spec["flows"][0]["cc"] == "newreno"
    with pytest.raises(KeyError, match="no such field"):
        set_field(spec, "nope[0].x", 1)
    with pytest.raises(IndexError, match="beyond"):
        set_field(spec, "flows[3]", {})


def test_cache_computes_only_missing_runs(small_dict: dict[str, Any], tmp_path: Path) -> None:
    grid = {LOSS: [0.0, 0.02]}
    first = sweep(small_dict, grid=grid, seeds=[1, 2], cache=tmp_path, progress=False)
    assert (first.computed, first.cached, first.failures) == (4, 0, [])
    again = sweep(small_dict, grid=grid, seeds=[1, 2], cache=tmp_path, progress=False)
    assert (again.computed, again.cached) == (0, 4)
    assert again.table.equals(first.table)
    more = sweep(
        small_dict, grid={LOSS: [0.0, 0.02, 0.05]}, seeds=[1, 2], cache=tmp_path, progress=False
    )
    assert (more.computed, more.cached) == (2, 4)
    fresh = sweep(small_dict, grid=grid, seeds=[1, 2], cache=tmp_path, fresh=True, progress=False)
    assert (fresh.computed, fresh.cached) == (4, 0)


def test_table_has_point_columns_and_one_row_per_flow(
    small_dict: dict[str, Any], tmp_path: Path
) -> None:
    r = sweep(small_dict, grid={LOSS: [0.0, 0.02]}, seeds=[7], cache=tmp_path, progress=False)
    t = r.table
    assert list(t[LOSS]) == [0.0, 0.02]
    assert {"seed", "run", "fingerprint", "name", "goodput_bps", "timeouts"} <= set(t.columns)
    assert t["goodput_bps"].iloc[0] > t["goodput_bps"].iloc[1]


def test_a_failing_point_does_not_lose_the_others(
    small_dict: dict[str, Any], tmp_path: Path
) -> None:
    r = sweep(small_dict, grid={LOSS: [0.01, 1.5, 0.02]}, seeds=[1], cache=tmp_path, progress=False)
    assert r.computed == 2
    assert len(r.failures) == 1
    assert r.failures[0].point == {LOSS: 1.5}
    assert "is not a probability" in r.failures[0].error
    assert sorted(r.table[LOSS]) == [0.01, 0.02]


def test_local_cluster_gives_the_same_results_as_local(
    small_dict: dict[str, Any], tmp_path: Path
) -> None:
    from distributed import Client, LocalCluster

    grid = {LOSS: [0.0, 0.02]}
    local = sweep(small_dict, grid=grid, seeds=[1, 2], cache=tmp_path / "a", progress=False)
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        remote = sweep(
            small_dict,
            grid=grid,
            seeds=[1, 2],
            cache=tmp_path / "b",
            cluster=client,
            progress=False,
        )
    assert remote.computed == 4
    assert list(remote.table["fingerprint"]) == list(local.table["fingerprint"])
    assert remote.table.equals(local.table)


SLOW = """
name = "slow"
duration = "8s"
[[links]]
between = ["a", "b"]
bandwidth = "1Gbps"
delay = "1ms"
queue = { packets = 1000 }
[[flows]]
from = "a"
to = "b"
tcp = { rwnd = "1MiB" }
"""


def test_ctrl_c_stops_cleanly_and_keeps_finished_runs(tmp_path: Path) -> None:
    (tmp_path / "slow.toml").write_text(SLOW)
    (tmp_path / "sweep.toml").write_text(
        'scenario = "slow.toml"\nseeds = 16\n[grid]\n"links[0].delay" = ["1ms"]\n'
    )
    cache = tmp_path / "cache"
    cmd = [
        sys.executable,
        "-m",
        "cwnd",
        "sweep",
        str(tmp_path / "sweep.toml"),
        "--workers",
        "1",
        "--cache",
        str(cache),
        "--out",
        str(tmp_path / "t.parquet"),
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(list(cache.rglob("*.json"))) < 2:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    done = len(list(cache.rglob("*.json")))
    assert 2 <= done < 16
    rerun = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert rerun.returncode == 0, rerun.stderr
    assert f"{16 - done} computed, {done} from the cache" in rerun.stdout


def test_cli_sweep_lists_failures_and_exits_nonzero(tmp_path: Path) -> None:
    from conftest import SMALL

    (tmp_path / "s.toml").write_text(SMALL)
    (tmp_path / "sweep.toml").write_text(
        f'scenario = "s.toml"\nseeds = [1]\n[grid]\n"{LOSS}" = [0.01, 2.0]\n'
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "cwnd",
            "sweep",
            str(tmp_path / "sweep.toml"),
            "--cache",
            str(tmp_path / "c"),
            "--out",
            str(tmp_path / "t.parquet"),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "CWND_DASK_SCHEDULER": ""},
    )
    assert proc.returncode == 2
    assert "1 computed" in proc.stdout and "1 failed" in proc.stdout
    assert "p: 2 is not a probability" in proc.stderr
    assert (tmp_path / "t.parquet").exists()


def test_run_key_depends_on_scenario_and_seed(small_dict: dict[str, Any]) -> None:
    other = copy.deepcopy(small_dict)
    set_field(other, LOSS, 0.5)
    assert run_key(small_dict, 1) == run_key(copy.deepcopy(small_dict), 1)
    assert run_key(small_dict, 1) != run_key(small_dict, 2)
    assert run_key(small_dict, 1) != run_key(other, 1)


def test_per_run_tables_are_kept_on_request_and_read_back_tidy(
    small_dict: dict[str, Any], tmp_path: Path
) -> None:
    grid = {LOSS: [0.0, 0.02]}
    r = sweep(
        small_dict, grid=grid, seeds=[1, 2], cache=tmp_path, progress=False, tables=["throughput"]
    )
    tp = r.frame("throughput")
    assert set(tp[LOSS]) == {0.0, 0.02} and set(tp["seed"]) == {1, 2}
    assert set(tp["flow"]) == {"f1"}
    # 5 s in 100 ms bins, per run; the bins add up to the run's delivered bytes.
    assert len(tp) == 4 * 50
    for key, run in tp.groupby("run"):
        delivered = r.table.set_index("run").loc[key, "bytes_delivered"]
        assert run["goodput_bps"].sum() * 0.1 / 8 == pytest.approx(delivered, rel=1e-9)
    # A sweep that did not keep the table computes the runs again to get it.
    again = sweep(small_dict, grid=grid, seeds=[1], cache=tmp_path, progress=False)
    assert again.cached == 2
    with pytest.raises(ValueError, match="not kept"):
        again.frame("series")
    more = sweep(
        small_dict, grid=grid, seeds=[1], cache=tmp_path, progress=False, tables=["series"]
    )
    assert (more.computed, more.cached) == (2, 0)
    assert list(more.frame("series").columns[:5]) == ["point", LOSS, "seed", "run", "flow"]
    with pytest.raises(ValueError, match="is not one of"):
        sweep(small_dict, grid=grid, cache=tmp_path, progress=False, tables=["nope"])


def test_cli_sweep_writes_the_per_run_tables_asked_for(tmp_path: Path) -> None:
    from conftest import SMALL

    (tmp_path / "s.toml").write_text(SMALL)
    (tmp_path / "sweep.toml").write_text(
        f'scenario = "s.toml"\nseeds = 2\n[grid]\n"{LOSS}" = [0.01]\n'
    )
    out = tmp_path / "t.parquet"
    args = ["--tables", "throughput,segments", "--cache", str(tmp_path / "c"), "--out", str(out)]
    proc = subprocess.run(
        [sys.executable, "-m", "cwnd", "sweep", str(tmp_path / "sweep.toml"), *args],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    import pandas as pd

    tp = pd.read_parquet(tmp_path / "t.throughput.parquet")
    segs = pd.read_parquet(tmp_path / "t.segments.parquet")
    assert sorted(set(tp["seed"])) == [0, 1] and len(tp) == 2 * 50
    assert set(segs[LOSS]) == {0.01} and len(segs) == pd.read_parquet(out)["segments_sent"].sum()


def test_editing_a_loss_trace_recomputes_and_moving_it_does_not(
    small_toml: Path, tmp_path: Path
) -> None:
    # The cache key hashes the plan, which holds the trace's contents, not its name.
    def scenario(folder: Path, trace: str) -> Path:
        folder.mkdir(exist_ok=True)
        (folder / "loss.csv").write_text(trace)
        text = small_toml.read_text().replace(
            'p = 0.02, applies_to = "data"', 'p_file = "loss.csv"'
        )
        (folder / "lossy.toml").write_text(text)
        return folder / "lossy.toml"

    cache = tmp_path / "cache"
    first = scenario(tmp_path / "a", "0, 0.01\n")
    one = sweep(first, seeds=[1], cache=cache, progress=False)
    assert (one.computed, one.cached, one.failures) == (1, 0, [])
    scenario(tmp_path / "a", "0, 0.05\n")  # the same file, new contents
    edited = sweep(first, seeds=[1], cache=cache, progress=False)
    assert (edited.computed, edited.cached) == (1, 0)
    moved = scenario(tmp_path / "b", "0, 0.05\n")  # the same contents elsewhere
    again = sweep(moved, seeds=[1], cache=cache, progress=False)
    assert (again.computed, again.cached) == (0, 1)
