"""Queue disciplines and moving capacities from a scenario file: one-line errors with
exit code 2, and what a traced CoDel queue writes (links.csv's drop causes and delay
percentiles, queue_delays.parquet, the queue figure)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

ONE_LINK = """
duration = "3s"
[trace]
queues = true
[[links]]
between = ["a", "b"]
bandwidth = "10Mbps"
delay = "20ms"
{link}
[[flows]]
from = "a"
to = "b"
cc = "cubic"
"""


def cwnd(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cwnd", *map(str, args)],
                          capture_output=True, text=True)  # fmt: skip


def scenario(folder: Path, link: str) -> Path:
    path = folder / "q.toml"
    path.write_text(ONE_LINK.format(link=link))
    return path


@pytest.mark.parametrize(
    ("link", "message"),
    [
        ('queue = { discipline = "fq_codel", quantum = "0B" }',
         "links[0].queue.quantum: 0 B is not allowed; use 1 B to 1048576 B"),
        ('queue = { discipline = "codel", target = "0s" }',
         "links[0].queue.target: 0 s is not allowed; use more than 0 s"),
        ('queue = { discipline = "pie", quantum = "300B" }',
         "links[0].queue.quantum: is not a parameter of pie"),
        ('capacity = { trace = "empty.mm" }',
         'links[0].capacity.trace: "empty.mm": the trace has no timestamps'),
        ('capacity = { trace = "down.mm" }',
         'links[0].capacity.trace: "down.mm" line 2, column 1: a timestamp smaller'),
    ],
)  # fmt: skip
def test_a_bad_queue_or_capacity_is_one_line_and_exit_2(
    tmp_path: Path, link: str, message: str
) -> None:
    (tmp_path / "empty.mm").write_text("")
    (tmp_path / "down.mm").write_text("5\n3\n")
    proc = cwnd("check", scenario(tmp_path, link))
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], proc.stderr


def test_a_traced_codel_queue_writes_its_delays_and_figure(tmp_path: Path) -> None:
    out = tmp_path / "out"
    path = scenario(tmp_path, 'queue = { discipline = "codel", packets = 1000 }')
    proc = cwnd("run", path, "--out", out, "--figures", "queue")
    assert proc.returncode == 0, proc.stderr
    links = pd.read_csv(out / "links.csv").set_index(["name", "direction"])
    forward = links.loc[("a-b", "forward")]
    # CoDel drops at dequeue only (its limit of 1000 packets is never reached by one
    # Cubic flow whose window CoDel keeps near the path's 50 packets).
    assert forward["drops_dequeue"] > 0
    assert forward["drops_early"] == forward["drops_overflow"] == 0
    delays = pd.read_parquet(out / "queue_delays.parquet")
    mine = delays[delays["link"] == "a-b forward"]
    # One row per packet handed to the transmitter.
    assert len(mine) == forward["packets_sent"]
    assert mine["time"].is_monotonic_increasing
    assert (out / "queue.png").stat().st_size > 0
