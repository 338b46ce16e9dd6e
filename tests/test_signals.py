"""Signals: Ctrl-C and SIGTERM stop a run and a sweep promptly; no worker outlives
its sweep."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

# An hour of a 1 Gb/s flow, sampled every second: minutes of computing (about 3·10⁸
# packets), far more than the tests wait, and within the default memory budget.
LONG = """
name = "long"
duration = "3600s"
[[links]]
between = ["a", "b"]
bandwidth = "1Gbps"
delay = "1ms"
queue = { packets = 1000 }
[[flows]]
from = "a"
to = "b"
tcp = { rwnd = "1MiB" }
[trace]
sampling = "interval"
interval = "1s"
"""


def _start(args: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "cwnd", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        env={**os.environ, "CWND_DASK_SCHEDULER": ""},
    )


def test_ctrl_c_stops_a_running_simulation_within_two_seconds(tmp_path: Path) -> None:
    (tmp_path / "long.toml").write_text(LONG)
    proc = _start(["run", str(tmp_path / "long.toml"), "--out", str(tmp_path / "out")])
    time.sleep(1.5)  # import, parse, and well into the run
    assert proc.poll() is None, proc.communicate()
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    waited = time.monotonic() - sent
    assert proc.returncode == 130, err
    assert err.strip() == "cwnd: interrupted (SIGINT)"
    assert waited < 2.0, f"stopped {waited:.2f} s after the signal"
    assert not (tmp_path / "out").exists()


def _children(pid: int) -> set[int]:
    """The processes whose parent is `pid`."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.add(int(stat.parent.name))
    return found


def _alive(pid: int) -> bool:
    """Running, not a zombie (a container's init may not reap orphans)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.parametrize(
    ("signum", "exit_code"),
    [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGKILL, -signal.SIGKILL)],
    ids=["int", "term", "kill"],
)
def test_stopping_a_sweep_leaves_no_worker(tmp_path: Path, signum: int, exit_code: int) -> None:
    (tmp_path / "long.toml").write_text(LONG)
    (tmp_path / "sweep.toml").write_text('scenario = "long.toml"\nseeds = 4\n')
    args = ["--workers", "2", "--cache", str(tmp_path / "c"), "--out", str(tmp_path / "t.pq")]
    proc = _start(["sweep", str(tmp_path / "sweep.toml"), *args])
    deadline = time.monotonic() + 30
    while len(workers := _children(proc.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(workers) >= 2, proc.communicate()
    time.sleep(0.5)  # both are running a (minute-long) run
    proc.send_signal(signum)
    # The workers' stdout is the sweep's: were one left, this would wait for it.
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == exit_code, err
    assert "Traceback" not in err
    deadline = time.monotonic() + 5
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [pid for pid in workers if _alive(pid)]


def test_short_runs_do_not_wait_for_the_signal_check() -> None:
    # The binding looks at signals every 50 ms while a run goes on; a run that ends
    # must wake it at once. 100 runs of 10 ms of simulated time take about 0.3 ms
    # each; waking on the 50 ms timer instead would wait 0–50 ms per run, 2.5 s in
    # all on average (standard deviation 0.14 s): 1.5 s is 7 deviations below that,
    # and 50 times what the runs take on a quiet machine, so a loaded one passes.
    import tomllib

    import cwnd
    from conftest import SMALL

    spec = tomllib.loads(SMALL.replace('"5s"', '"10ms"'))
    cwnd.run(spec)
    start = time.perf_counter()
    for seed in range(100):
        cwnd.run(spec, seed=seed)
    assert time.perf_counter() - start < 1.5
