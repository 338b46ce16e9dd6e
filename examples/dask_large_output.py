"""A sweep on a Dask cluster whose runs each return a large table, and the client's
memory as the sweep grows: it stays flat, because each run's table streams to the
client, is written to the cache as it arrives and dropped (docs/sweeps.md, "On a
Dask cluster").

A `LocalCluster` of three single-threaded worker processes stands in for three
machines. Each run is one NewReno flow over a 100 Mb/s, 40 ms path with random loss,
sampled at every ACK (`sampling = "change"`): about 5 MB of series columns per run.
The same sweep is run with 4, 8, 16 and 32 seeds (a fresh cache each time); before
each, the client's peak resident memory is reset (Linux: /proc/self/clear_refs), and
after it the peak is read (VmHWM in /proc/self/status).

Run: .venv/bin/python examples/dask_large_output.py [OUT_DIR [RUNS,...]]
(RUNS: the sweep sizes, 4,8,16,32 unless given; the tests run 2,4 to check that the
script works, not to measure). Writes dask_large_output.png and dask_large_output.csv
(runs, MB of columns received, client peak MB).
"""

from __future__ import annotations

import csv
import sys
import tempfile
import zipfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from distributed import Client, LocalCluster

import cwnd
from cwnd.sweep import sweep

RUNS = [4, 8, 16, 32]


def scenario() -> dict[str, object]:
    return (
        cwnd.Scenario(duration="20s", name="large_output", sampling="change")
        .link("h1", "r", bandwidth="1Gbps", delay="1ms")
        .link("r", "h2", bandwidth="100Mbps", delay="19ms", queue_packets=500, loss=0.00002)
        .flow("h1", "h2", cc="newreno")
        .to_dict()
    )


def peak_mb() -> float:
    """This process's peak resident memory since the last `reset_peak` (VmHWM)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM in /proc/self/status")


def reset_peak() -> None:
    Path("/proc/self/clear_refs").write_text("5")  # proc(5): resets VmHWM to VmRSS


def columns_mb(cache: Path) -> float:
    """The runs' series columns as the client received them (uncompressed: the sizes
    the cache's zip files record for their members)."""
    return sum(info.file_size for path in cache.rglob("*.npz")
               for info in zipfile.ZipFile(path).infolist()) / 1e6  # fmt: skip


def main(out: Path, sizes: list[int]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    with (
        LocalCluster(
            n_workers=3, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,  # fmt: skip
        Client(cluster) as client,
        tempfile.TemporaryDirectory() as tmp,
    ):
        for runs in sizes:
            cache = Path(tmp) / f"cache-{runs}"
            reset_peak()
            r = sweep(scenario(), seeds=range(runs), cache=cache, cluster=client,
                      tables=("series",), progress=False)  # fmt: skip
            assert r.computed == runs and not r.failures, r.failures
            rows.append((runs, columns_mb(cache), peak_mb()))
            print(f"{runs:3d} runs: {rows[-1][1]:7.1f} MB of columns received, "
                  f"client peak {rows[-1][2]:.0f} MB")  # fmt: skip
    with (out / "dask_large_output.csv").open("w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["runs", "columns_mb", "client_peak_mb"])
        writer.writerows(rows)
    runs, columns, peak = zip(*rows, strict=True)
    fig, ax = plt.subplots(figsize=(6.4, 3.6), dpi=150)
    ax.plot(runs, columns, "o-", label="columns received (MB)")
    ax.plot(runs, peak, "s-", label="client peak resident memory (MB)")
    ax.set_xlabel("runs in the sweep")
    ax.set_ylabel("MB")
    ax.set_title("Dask sweep: the output grows, the client does not")
    ax.set_ylim(bottom=0)
    ax.legend(frameon=False)
    fig.savefig(out / "dask_large_output.png", bbox_inches="tight")


if __name__ == "__main__":
    main(
        Path(sys.argv[1]) if len(sys.argv) > 1 else Path("."),
        [int(n) for n in sys.argv[2].split(",")] if len(sys.argv) > 2 else RUNS,
    )
