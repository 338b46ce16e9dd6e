"""Sweeps: grid expansion, the cache, failures, Dask, and Ctrl-C."""

from __future__ import annotations

import copy
import faulthandler
import gc
import importlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from distributed.diagnostics.plugin import WorkerPlugin

import cwnd
from cwnd.sweep import RunCache, grid_points, run_key, run_one, set_field, sweep
from cwnd.sweep_arguments import SweepError

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
    with pytest.raises(KeyError, match="duration is a string, not a table of fields"):
        set_field(spec, "duration.x", 1)
    assert spec["duration"] == "5s"


def test_a_grid_path_into_a_value_is_one_line_and_exit_2(tmp_path: Path) -> None:
    from conftest import SMALL

    (tmp_path / "s.toml").write_text(SMALL)
    sweep_file = tmp_path / "sweep.toml"
    sweep_file.write_text('scenario = "s.toml"\nseeds = [1]\n[grid]\n"duration.x" = [1]\n')
    args = ["--cache", str(tmp_path / "c"), "--out", str(tmp_path / "t.parquet")]
    proc = subprocess.run(
        [sys.executable, "-m", "cwnd", "sweep", str(sweep_file), *args],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.splitlines() == [
        f"cwnd: error: {sweep_file}: grid: duration.x: duration is a string, not a table of fields"
    ]


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
    # One spelling of a fingerprint everywhere: 16 hex digits, as `cwnd run` prints it.
    first = copy.deepcopy(small_dict)
    set_field(first, LOSS, 0.0)
    assert t["fingerprint"].iloc[0] == f"{cwnd.run(first, seed=7).fingerprint:016x}"


def test_a_failing_point_does_not_lose_the_others(
    small_dict: dict[str, Any], tmp_path: Path
) -> None:
    r = sweep(small_dict, grid={LOSS: [0.01, 1.5, 0.02]}, seeds=[1], cache=tmp_path, progress=False)
    assert r.computed == 2
    assert len(r.failures) == 1
    assert r.failures[0].point == {LOSS: 1.5}
    assert "is not a probability" in r.failures[0].error
    assert sorted(r.table[LOSS]) == [0.01, 0.02]


def _abort_on_seed_1(spec_json: str, seed: int, *args: Any) -> dict[str, Any]:
    """A run that kills its worker (SIGABRT) for seed 1, as a crash in the engine would."""
    if seed == 1:
        faulthandler.disable()  # pytest's: it would print the worker's stack
        os.abort()
    return run_one(spec_json, seed, *args)


def test_a_run_that_kills_its_worker_is_a_failed_point(
    small_dict: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Workers are forked, so they run the patched function.
    monkeypatch.setattr(importlib.import_module("cwnd.sweep"), "run_one", _abort_on_seed_1)
    r = sweep(small_dict, seeds=range(6), workers=2, cache=tmp_path, progress=False)
    assert [(f.seed, f.error) for f in r.failures] == [(1, "worker died: signal 6 (SIGABRT)")]
    assert (r.computed, sorted(r.table["seed"])) == (5, [0, 2, 3, 4, 5])


class _AbortOnSeed1(WorkerPlugin):
    """Makes every Dask worker (restarted ones too) run `_abort_on_seed_1`."""

    def setup(self, worker: Any) -> None:
        importlib.import_module("cwnd.sweep").run_one = _abort_on_seed_1


def test_a_run_that_kills_its_dask_worker_is_a_failed_point(
    small_dict: dict[str, Any], tmp_path: Path
) -> None:
    import dask
    from distributed import Client, LocalCluster

    # Dask gives up on a task after it killed allowed-failures + 1 workers (default 4).
    # It counts every task held by a worker that dies as a suspect, so a run that was
    # waiting on the same worker may fail with the culprit: one one-thread worker (its
    # nanny restarts it) holding one task at a time makes that rare, not impossible.
    config = {
        "distributed.scheduler.allowed-failures": 0,
        "distributed.scheduler.worker-saturation": 1.0,
    }
    with (
        dask.config.set(config),
        LocalCluster(
            n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        Client(cluster) as client,
    ):
        client.register_plugin(_AbortOnSeed1())
        r = sweep(small_dict, seeds=range(6), cache=tmp_path, cluster=client, progress=False)
    failed = {f.seed: f.error for f in r.failures}
    assert failed[1] == "worker died: every Dask worker that ran it died"
    assert set(failed.values()) == {failed[1]}
    assert sorted(r.table["seed"]) == sorted(set(range(6)) - set(failed))
    assert len(failed) <= 2


def test_local_cluster_gives_the_same_results_as_local(
    small_dict: dict[str, Any], tmp_path: Path
) -> None:
    from distributed import Client, LocalCluster

    grid = {LOSS: [0.0, 0.02]}
    local = sweep(small_dict, grid=grid, seeds=[1, 2], cache=tmp_path / "a", progress=False)
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
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


def test_an_interrupt_after_two_runs_keeps_them_and_a_rerun_does_the_rest(
    small_dict: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Ctrl-C, without a signal: the third run to reach the cache raises it, as Python's
    # SIGINT handler would between two runs.
    stored = 0
    put = RunCache.put

    def put_then_interrupt(self: RunCache, key: str, value: dict[str, Any]) -> None:
        nonlocal stored
        if stored == 2:
            raise KeyboardInterrupt
        put(self, key, value)
        stored += 1

    monkeypatch.setattr(RunCache, "put", put_then_interrupt)
    seeds = range(8)
    with pytest.raises(KeyboardInterrupt):
        sweep(small_dict, seeds=seeds, workers=1, cache=tmp_path, progress=False)
    assert len(list(tmp_path.rglob("*.json"))) == 2
    monkeypatch.setattr(RunCache, "put", put)
    rerun = sweep(small_dict, seeds=seeds, workers=1, cache=tmp_path, progress=False)
    assert (rerun.computed, rerun.cached, rerun.failures) == (6, 2, [])


def _sweep_command(tmp_path: Path, seeds: int = 16) -> list[str]:
    (tmp_path / "slow.toml").write_text(SLOW)
    (tmp_path / "sweep.toml").write_text(
        f'scenario = "slow.toml"\nseeds = {seeds}\n[grid]\n"links[0].delay" = ["1ms"]\n'
    )
    return [
        sys.executable,
        "-m",
        "cwnd",
        "sweep",
        str(tmp_path / "sweep.toml"),
        "--workers",
        "1",
        "--cache",
        str(tmp_path / "cache"),
        "--out",
        str(tmp_path / "t.parquet"),
    ]


def _start_and_wait_for_runs(
    cmd: list[str], cache: Path, runs: int, sigint: Any = signal.SIG_DFL
) -> subprocess.Popen[str]:
    """Starts `cwnd sweep` with SIGINT's disposition `sigint` at start-up and waits
    until `runs` runs are in the cache."""
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, sigint),
        env={**os.environ, "CWND_DASK_SCHEDULER": ""},
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(list(cache.rglob("*.json"))) < runs:
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    return proc


# SIG_IGN: what a child of a background job of a non-interactive shell inherits; `cwnd`
# must stop on Ctrl-C all the same.
@pytest.mark.parametrize("inherited", [signal.SIG_DFL, signal.SIG_IGN], ids=["dfl", "ign"])
def test_ctrl_c_stops_cleanly_and_keeps_finished_runs(tmp_path: Path, inherited: Any) -> None:
    cmd = _sweep_command(tmp_path)
    cache = tmp_path / "cache"
    proc = _start_and_wait_for_runs(cmd, cache, 2, inherited)
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
    assert proc.returncode == 1  # a failed point: the others finished and are written
    assert "1 computed" in proc.stdout and "1 failed" in proc.stdout
    assert "p: 2 is not a probability" in proc.stderr
    assert (tmp_path / "t.parquet").exists()


def test_run_key_depends_on_scenario_and_seed(small_dict: dict[str, Any]) -> None:
    other = copy.deepcopy(small_dict)
    set_field(other, LOSS, 0.5)
    plan = cwnd.plan(small_dict)
    assert run_key(plan, 1) == run_key(cwnd.plan(copy.deepcopy(small_dict)), 1)
    assert run_key(plan, 1) != run_key(plan, 2)
    assert run_key(plan, 1) != run_key(cwnd.plan(other), 1)


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


def _sweep_on(cluster: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    from conftest import SMALL

    (tmp_path / "s.toml").write_text(SMALL)
    (tmp_path / "sweep.toml").write_text('scenario = "s.toml"\nseeds = [1]\n')
    args = ["--cluster", cluster, "--cache", str(tmp_path / "c"), "--out", str(tmp_path / "t")]
    return subprocess.run(
        [sys.executable, "-m", "cwnd", "sweep", str(tmp_path / "sweep.toml"), *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("address", "message"),
    [
        # Port 1 (tcpmux) is closed on any test machine: the connection is refused.
        ("tcp://127.0.0.1:1", "no Dask scheduler answered at 'tcp://127.0.0.1:1' within 5 s"),
        ("tcp://host:notaport", "'tcp://host:notaport' is not a Dask scheduler address"),
        ("foo://bar:1", "'foo://bar:1' is not a Dask scheduler address"),
    ],
    ids=["refused", "bad-port", "bad-scheme"],
)
def test_an_unusable_cluster_is_one_line_and_exit_2(
    tmp_path: Path, address: str, message: str
) -> None:
    start = time.monotonic()
    proc = _sweep_on(address, tmp_path)
    assert time.monotonic() - start < 20  # was 30 s, then "internal error"
    assert proc.returncode == 2, proc.stderr
    (line,) = proc.stderr.splitlines()
    assert line.startswith(f"cwnd: error: cluster: {message}"), line


@contextmanager
def _not_a_scheduler(greeting: bytes | None) -> Iterator[str]:
    """A local TCP server that is no Dask scheduler: it sends `greeting` on every
    connection it accepts, or nothing (None), and keeps the connections open. Yields
    its address."""
    server = socket.create_server(("127.0.0.1", 0))
    accepted: list[socket.socket] = []

    def serve() -> None:
        while True:
            try:
                connection, _ = server.accept()
            except OSError:  # shut down
                return
            accepted.append(connection)
            if greeting is not None:
                connection.sendall(greeting)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    finally:
        server.shutdown(socket.SHUT_RDWR)  # wakes the blocked accept
        server.close()
        thread.join()
        for connection in accepted:
            connection.close()


# Read as Dask's framing, an HTTP status line asks for a frame of 3 EiB (issue 27).
HTTP = b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"
SSH = b"SSH-2.0-OpenSSH_9.6\r\n"


@pytest.mark.parametrize("greeting", [HTTP, SSH], ids=["http", "ssh"])
def test_a_server_of_another_protocol_is_one_line_and_exit_2(
    tmp_path: Path, greeting: bytes
) -> None:
    with _not_a_scheduler(greeting) as address:
        proc = _sweep_on(address, tmp_path)
    assert proc.returncode == 2, proc.stderr  # was 1: MemoryError, an internal error
    (line,) = proc.stderr.splitlines()
    assert line.startswith(
        f"cwnd: error: cluster: '{address}' is not a Dask scheduler: it answered in "
        "another protocol ("
    ), line


def test_a_server_that_never_answers_is_given_up_within_the_timeout_named(
    tmp_path: Path,
) -> None:
    from cwnd.executors import CONNECT_TIMEOUT, ClusterError, connect

    with _not_a_scheduler(None) as address:
        start = time.monotonic()
        with pytest.raises(ClusterError) as refused:
            connect(address)
        waited = time.monotonic() - start  # was 122 s and more
        proc = _sweep_on(address, tmp_path)
    message = f"cluster: no Dask scheduler answered at '{address}' within {CONNECT_TIMEOUT} s"
    assert str(refused.value).startswith(message)
    # The deadline the message names, and the scheduling of a loaded machine.
    assert CONNECT_TIMEOUT <= waited < CONNECT_TIMEOUT + 1
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.splitlines() == [f"cwnd: error: {message} (TimeoutError)"]


def test_a_dask_worker_is_not_taken_for_its_scheduler(tmp_path: Path) -> None:
    from distributed import LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, dashboard_address=":0") as cluster:
        (worker,) = cluster.scheduler_info["workers"]
        proc = _sweep_on(worker, tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.splitlines() == [
        f"cwnd: error: cluster: '{worker}' is a Dask Worker, not a Dask scheduler"
    ]


def test_a_scheduler_without_workers_is_named(tmp_path: Path) -> None:
    from distributed import LocalCluster

    with LocalCluster(n_workers=0, dashboard_address=":0") as cluster:
        proc = _sweep_on(cluster.scheduler_address, tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.splitlines() == [
        f"cwnd: error: cluster: the scheduler at {cluster.scheduler_address} has no workers "
        "(waited 10 s); start some with `dask worker ADDRESS`"
    ]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"seeds": 3}, "seeds: 3 is a number, not a list of seeds; write range(3)"),
        ({"seeds": [1, 2, 1]}, "seeds: 1 appears twice"),
        ({"seeds": [-1]}, "seeds: -1 is not in 0 to 2^64 - 1"),
        ({"seeds": [2**64]}, "is not in 0 to 2^64 - 1"),
        ({"seeds": [1.5]}, "seeds: 1.5 is not an integer"),
        ({"seeds": [True]}, "seeds: True is not an integer"),
        ({"seeds": "12"}, "seeds: '12' is not a list of integers"),
        ({"seeds": []}, "seeds: empty"),
        ({"seeds": range(10**9)}, "seeds: 1000000000 seeds per point; at most 100000"),
        ({"grid": {"flows[0].cc": "reno"}}, "grid.flows[0].cc: 'reno' is a string"),
        ({"grid": {"flows[0].cc": 3}}, "grid.flows[0].cc: 3 is not a list of values"),
        ({"grid": {"flows[0].cc": []}}, "grid.flows[0].cc: no values"),
        ({"grid": {LOSS: [0.1]}, "points": [{LOSS: 0.1}]}, "give one of them, not both"),
        ({"points": [0.1]}, "points[0]: 0.1 is not a table"),
        ({"points": {LOSS: 0.1}}, "is not a list of points"),
        ({"tables": ["nope"]}, "tables: 'nope' is not one of"),
        # A path into a value that is not a container: was a TypeError (issue 27).
        ({"grid": {"duration.x": [1]}}, "grid: duration.x: duration is a string, not a table"),
        (
            {"grid": {"links[0][1]": [1]}},
            "grid: links[0][1]: links[0] is a table of fields, not a list",
        ),
        ({"points": [{"flows[0].cc.y": 1}]}, "points: flows[0].cc.y: flows[0].cc is a string"),
        ({"grid": {"[0]": [1]}}, "grid: [0]: the scenario is a table of fields"),
    ],
)
def test_arguments_that_cannot_mean_what_was_meant_are_refused(
    small_dict: dict[str, Any], tmp_path: Path, arguments: dict[str, Any], message: str
) -> None:
    with pytest.raises(SweepError, match=re.escape(message)):
        sweep(small_dict, cache=tmp_path, progress=False, **arguments)
    assert not tmp_path.exists() or not any(tmp_path.iterdir())


def test_a_folder_is_not_a_scenario_file(tmp_path: Path) -> None:
    with pytest.raises(SweepError, match=re.escape(f"base: {tmp_path} is not a scenario file")):
        sweep(tmp_path, cache=tmp_path, progress=False)


def test_numpy_numbers_are_plain_numbers_in_points_keys_and_seeds(
    small_dict: dict[str, Any], tmp_path: Path
) -> None:
    import numpy as np

    plain = sweep(
        small_dict, grid={LOSS: [0.0, 0.25]}, seeds=[1, 2], cache=tmp_path, progress=False
    )
    numpy = sweep(
        small_dict,
        grid={LOSS: np.linspace(0.0, 0.25, 2)},
        seeds=np.arange(1, 3),
        cache=tmp_path,
        progress=False,
    )
    assert (numpy.cached, numpy.failures) == (4, [])  # the same run keys
    assert numpy.table.equals(plain.table)
    points = sweep(
        small_dict,
        points=[{LOSS: np.float32(0.25)}],
        seeds=[np.uint64(1)],
        cache=tmp_path,
        progress=False,
    )
    assert points.cached == 1 and type(points.table[LOSS][0]) is np.float64


def test_losing_the_scheduler_is_one_line(tmp_path: Path) -> None:
    from distributed import Client, LocalCluster

    # Ten minutes sampled every second: long enough to lose the scheduler mid-run.
    slow = SLOW.replace('"8s"', '"600s"') + '[trace]\nsampling = "interval"\ninterval = "1s"\n'
    (tmp_path / "slow.toml").write_text(slow)
    (tmp_path / "sweep.toml").write_text('scenario = "slow.toml"\nseeds = 2\n')
    with LocalCluster(n_workers=1, threads_per_worker=1, dashboard_address=":0") as cluster:
        address = cluster.scheduler_address
        args = ["--cluster", address, "--cache", str(tmp_path / "c"), "--out", str(tmp_path / "t")]
        proc = subprocess.Popen(
            [sys.executable, "-m", "cwnd", "sweep", str(tmp_path / "sweep.toml"), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        with Client(address) as watcher:
            deadline = time.monotonic() + 60
            while not any(watcher.processing().values()) and time.monotonic() < deadline:
                time.sleep(0.1)
    # The scheduler is gone; the sweep's client gives up after its 5 s connect timeout.
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2, err
    (line,) = err.splitlines()
    assert line.startswith("cwnd: error: cluster: lost during the sweep ("), line
    assert "scheduler-connection-lost" in line


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


def _lossy_scenario(folder: Path, small_toml: Path) -> Path:
    """`small_toml` with its Bernoulli loss read from a trace file beside it."""
    folder.mkdir()
    (folder / "loss.csv").write_text("0, 0.05\n")
    text = small_toml.read_text().replace('p = 0.02, applies_to = "data"', 'p_file = "loss.csv"')
    (folder / "lossy.toml").write_text(text)
    return folder / "lossy.toml"


class _DeleteOnFirstTask(WorkerPlugin):
    """Deletes `folder` when the worker starts a task: after the client has loaded the
    scenario, before any run."""

    def __init__(self, folder: str) -> None:
        self.folder = folder

    def transition(self, key: Any, start: str, finish: str, **kwargs: Any) -> None:
        if finish == "executing":
            shutil.rmtree(self.folder, ignore_errors=True)


def test_a_dask_worker_needs_the_plan_not_the_scenarios_files(
    small_toml: Path, tmp_path: Path
) -> None:
    from distributed import Client, LocalCluster

    folder = tmp_path / "study"
    path = _lossy_scenario(folder, small_toml)
    # What the runs give with the trace file in place (5 % loss on data).
    expected = [f"{cwnd.run(path, seed=s).fingerprint:016x}" for s in (1, 2)]
    with (
        LocalCluster(
            n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        Client(cluster) as client,
    ):
        client.register_plugin(_DeleteOnFirstTask(str(folder)))
        r = sweep(path, seeds=[1, 2], cache=tmp_path / "cache", cluster=client, progress=False)
    assert not folder.exists()  # the worker ran without the scenario's folder
    assert (r.computed, r.failures) == (2, [])
    assert sorted(r.table["fingerprint"]) == sorted(expected)


def test_a_plan_runs_on_local_workers_after_its_files_are_gone(
    small_toml: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "study"
    path = _lossy_scenario(folder, small_toml)
    plan = cwnd.plan(path)
    expected = [f"{cwnd.run(plan, seed=s).fingerprint:016x}" for s in (1, 2)]
    key = run_key(plan, 1)
    shutil.rmtree(folder)
    r = sweep(plan, seeds=[1, 2], workers=2, cache=tmp_path / "cache", progress=False)
    assert (r.computed, r.failures) == (2, [])
    assert sorted(r.table["fingerprint"]) == sorted(expected)
    assert run_key(plan, 1) == key  # the key hashes the plan, not the file


def test_local_workers_store_their_own_runs(
    small_dict: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every store of a run leaves a marker named by the storing process; workers are
    # forked, so they run the patched method too. The parent must store none.
    markers = tmp_path / "markers"
    markers.mkdir()
    put = RunCache.put

    def marked_put(self: RunCache, key: str, value: dict[str, Any]) -> None:
        (markers / f"{os.getpid()}.{key}").touch()
        put(self, key, value)

    monkeypatch.setattr(RunCache, "put", marked_put)
    cache = tmp_path / "cache"
    r = sweep(
        small_dict, seeds=[1, 2, 3], workers=2, cache=cache, progress=False, tables=["series"]
    )
    stores = [m.name.split(".") for m in markers.iterdir()]
    assert sorted(key for _, key in stores) == sorted(run.key for run in r.runs)
    assert str(os.getpid()) not in {pid for pid, _ in stores}
    assert len(r.frame("series")) > 0


def test_a_cached_sweep_reads_no_columns_until_asked(
    small_dict: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = sweep(small_dict, seeds=[1, 2], cache=tmp_path, progress=False, tables=["series"])
    expected = first.frame("series")
    read: list[str] = []
    read_table = RunCache._read_table

    def counted(self: RunCache, key: str, name: str) -> dict[str, Any] | None:
        read.append(key)
        return read_table(self, key, name)

    monkeypatch.setattr(RunCache, "_read_table", counted)
    again = sweep(small_dict, seeds=[1, 2], cache=tmp_path, progress=False, tables=["series"])
    assert (again.computed, again.cached, read) == (0, 2, [])
    assert again.frame("series").equals(expected)
    assert sorted(read) == sorted(run.key for run in again.runs)


def test_a_dask_sweep_holds_one_runs_columns_at_a_time(
    small_dict: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The client stores each run's columns as they arrive (its workers may not share
    # its disk); by the time it stores the next, no earlier run's column is alive.
    from distributed import Client, LocalCluster

    stored: list[weakref.ref[Any]] = []
    put = RunCache.put

    def watched(self: RunCache, key: str, value: dict[str, Any]) -> None:
        gc.collect()
        assert all(column() is None for column in stored), "an earlier run is still held"
        put(self, key, value)
        stored.extend(weakref.ref(c) for table in value["tables"].values() for c in table.values())

    monkeypatch.setattr(RunCache, "put", watched)  # the client's: Dask's workers are spawned
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        Client(cluster) as client,
    ):
        r = sweep(
            small_dict, seeds=range(5), cache=tmp_path, cluster=client, progress=False,
            tables=["series"],
        )  # fmt: skip
    assert (r.computed, r.failures) == (5, [])
    assert len(stored) >= 5
    assert len(r.frame("series")) > 0


def test_frames_give_the_frame_one_run_at_a_time_and_run_frame_one_run(
    small_dict: dict[str, Any], tmp_path: Path
) -> None:
    import pandas as pd

    grid = {LOSS: [0.0, 0.02]}
    r = sweep(
        small_dict, grid=grid, seeds=[1, 2], cache=tmp_path, progress=False, tables=["series"]
    )
    parts = list(r.frames("series"))
    assert [part["run"].unique().tolist() for part in parts] == [
        [run.key] for run in sorted(r.runs, key=lambda run: (run.order, run.seed))
    ]
    whole = r.frame("series")
    assert pd.concat(parts, ignore_index=True).equals(whole)
    key = r.runs[-1].key
    one = whole[whole["run"] == key].reset_index(drop=True)
    assert r.run_frame("series", key).equals(one)
    with pytest.raises(KeyError, match="no run 'nope'"):
        r.run_frame("series", "nope")
