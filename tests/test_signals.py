"""Signals: Ctrl-C and SIGTERM stop a run and a sweep promptly; no worker outlives
its sweep."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

# A minute of a 1 Gb/s flow: about a minute of computing, far more than the tests wait.
LONG = """
name = "long"
duration = "60s"
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
