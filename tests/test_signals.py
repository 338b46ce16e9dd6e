"""Signals: Ctrl-C and SIGTERM stop a run and a sweep promptly; no worker outlives
its sweep."""

from __future__ import annotations

import math
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


def _cpu_seconds(pid: int) -> float:
    """CPU time process `pid` has used so far (utime + stime of /proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_ctrl_c_stops_a_running_simulation_at_once(tmp_path: Path) -> None:
    # Measured in the command's own CPU time, not the wall clock, so that a loaded
    # machine (which stretches every wait) passes: wait until it has computed 2 s
    # (importing takes well under 1 s), then it must stop after at most 1 s more.
    # The run polls its stop flag every 4096 events and the binding Python's signals
    # every 50 ms; a second of CPU is millions of events. Unstopped, LONG computes
    # for minutes.
    (tmp_path / "long.toml").write_text(LONG)
    err_file = tmp_path / "stderr"
    with err_file.open("w") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "cwnd", "run", str(tmp_path / "long.toml"),
             "--out", str(tmp_path / "out")],
            stdout=subprocess.DEVNULL,
            stderr=err,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 300  # a hang detector, not a measure
        while _cpu_seconds(proc.pid) < 2.0 and time.monotonic() < deadline:
            time.sleep(0.1)
        before = _cpu_seconds(proc.pid)
        assert before >= 2.0, "the run computes"
        proc.send_signal(signal.SIGINT)
        while True:  # reaped here, not by Popen: its CPU time is read until its end
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                proc.returncode = os.waitstatus_to_exitcode(status)
                break
            after = _cpu_seconds(proc.pid) - before
            assert after < 1.0, f"still computing, {after:.2f} s of CPU after the signal"
            time.sleep(0.05)
    finally:
        if proc.returncode is None:  # not reaped: still ours to stop
            proc.kill()
            proc.wait()
    after = usage.ru_utime + usage.ru_stime - before
    assert after < 1.0, f"{after:.2f} s of CPU after the signal"
    assert proc.returncode == 130, err_file.read_text()
    assert err_file.read_text().strip() == "cwnd: interrupted (SIGINT)"
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
    # The binding sleeps up to 50 ms between looks at Python's signals while a run
    # goes on (park_timeout); a run that ends must wake it at once. A run of 10 ms of
    # simulated time takes about 0.3 ms, so a binding that waited for its timer would
    # take at least 50 ms for every one of them, however fast the machine. The
    # quickest of 100 runs is compared with that floor: a loaded machine stretches
    # runs, but not every one of 100 by 50 ms.
    import tomllib

    import cwnd
    from conftest import SMALL

    spec = tomllib.loads(SMALL.replace('"5s"', '"10ms"'))
    cwnd.run(spec)
    quickest = math.inf
    for seed in range(100):
        start = time.perf_counter()
        cwnd.run(spec, seed=seed)
        quickest = min(quickest, time.perf_counter() - start)
    assert quickest < 0.05, f"the quickest run took {quickest * 1e3:.1f} ms"
