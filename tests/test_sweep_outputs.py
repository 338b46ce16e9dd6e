"""Where `cwnd sweep` writes, and never over a file that is not its own (issue 27)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cwnd.sweep_outputs import parquet_sweep, sweep_identity


def _sweep(
    sweep_file: Path, *args: str, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    cache = sweep_file.parent.parent / "cache"
    cmd = [sys.executable, "-m", "cwnd", "sweep", str(sweep_file), "--cache", str(cache)]
    env = {**os.environ, "CWND_DASK_SCHEDULER": ""}
    return subprocess.run([*cmd, *args], capture_output=True, text=True, cwd=cwd, env=env)


def _sweep_file(folder: Path, out: str | None = None, name: str = "sweep") -> Path:
    """A sweep of the small scenario over two controllers, in `folder`."""
    from conftest import SMALL

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "s.toml").write_text(SMALL)
    text = 'scenario = "s.toml"\nseeds = [1]\n'
    text += f"out = {out!r}\n" if out is not None else ""
    text += '[grid]\n"flows[0].cc" = ["reno", "newreno"]\n'
    (folder / f"{name}.toml").write_text(text)
    return folder / f"{name}.toml"


def test_a_sweep_files_out_never_overwrites_a_file_that_is_not_its_own(tmp_path: Path) -> None:
    import pandas as pd

    folder = tmp_path / "study"
    sweep_file = _sweep_file(folder, out="notes.parquet")
    (folder / "notes.parquet").write_text("two years of notes\n")
    proc = _sweep(sweep_file)
    assert proc.returncode == 2, proc.stdout  # was 0: the notes were a table
    assert proc.stderr.splitlines() == [
        f"cwnd: error: {folder / 'notes.parquet'}: exists and is not an output of "
        f"{sweep_file}; use --force to overwrite it, or another --out"
    ]
    assert (folder / "notes.parquet").read_text() == "two years of notes\n"
    assert not (folder / "notes.summary.csv").exists()
    assert not (tmp_path / "cache").exists()  # refused before anything ran
    # A Parquet file of someone else's is not the sweep's either.
    pd.DataFrame({"x": [1]}).to_parquet(folder / "notes.parquet")
    assert _sweep(sweep_file).returncode == 2
    assert pd.read_parquet(folder / "notes.parquet")["x"].tolist() == [1]


def test_a_sweep_files_out_is_read_in_its_folder_and_may_not_leave_it(tmp_path: Path) -> None:
    folder, elsewhere = tmp_path / "study", tmp_path / "elsewhere"
    elsewhere.mkdir()
    proc = _sweep(_sweep_file(folder, out="t.parquet"), cwd=elsewhere)
    assert proc.returncode == 0, proc.stderr
    assert (folder / "t.parquet").is_file() and not (elsewhere / "t.parquet").exists()
    for out in ["../t.parquet", str(elsewhere / "t.parquet"), "sub/../../t.parquet"]:
        sweep_file = _sweep_file(folder, out=out, name="escape")
        proc = _sweep(sweep_file, cwd=elsewhere)
        assert proc.returncode == 2, out
        assert proc.stderr.splitlines() == [
            f"cwnd: error: {sweep_file}: out: {out!r} is outside the sweep file's folder "
            f"({folder}); name it on the command line (--out) to write there"
        ]
    assert sorted(p.name for p in elsewhere.iterdir()) == []
    assert not (tmp_path / "t.parquet").exists()


def test_a_sweep_overwrites_its_own_outputs_which_name_it(tmp_path: Path) -> None:
    sweep_file = _sweep_file(tmp_path / "study")
    out = tmp_path / "out" / "t.parquet"
    for _ in range(2):
        proc = _sweep(sweep_file, "--out", str(out), "--tables", "throughput")
        assert proc.returncode == 0, proc.stderr
    names = sorted(p.name for p in out.parent.iterdir())
    assert names == ["t.parquet", "t.png", "t.summary.csv", "t.throughput.parquet"]
    for table in ["t.parquet", "t.throughput.parquet"]:
        assert parquet_sweep(out.parent / table) == sweep_identity(sweep_file)
    # A per-run table of the sweep's own, left without its table, is still its own.
    for name in ["t.parquet", "t.summary.csv", "t.png"]:
        (out.parent / name).unlink()
    proc = _sweep(sweep_file, "--out", str(out), "--tables", "throughput")
    assert proc.returncode == 0, proc.stderr


def test_another_sweeps_outputs_are_overwritten_only_with_force(tmp_path: Path) -> None:
    first = _sweep_file(tmp_path / "study", name="first")
    second = _sweep_file(tmp_path / "study", name="second")
    out = tmp_path / "t.parquet"
    assert _sweep(first, "--out", str(out)).returncode == 0
    refused = _sweep(second, "--out", str(out))
    assert refused.returncode == 2
    assert refused.stderr.splitlines() == [
        f"cwnd: error: {out}: exists and is not an output of {second}; "
        "use --force to overwrite it, or another --out"
    ]
    assert parquet_sweep(out) == sweep_identity(first)
    forced = _sweep(second, "--out", str(out), "--force")
    assert forced.returncode == 0, forced.stderr
    assert parquet_sweep(out) == sweep_identity(second)


@pytest.mark.parametrize("companion", ["t.summary.csv", "t.png"])
def test_a_summary_or_figure_without_the_sweeps_table_is_not_taken(
    tmp_path: Path, companion: str
) -> None:
    sweep_file = _sweep_file(tmp_path / "study")
    (tmp_path / companion).write_text("someone's\n")
    proc = _sweep(sweep_file, "--out", str(tmp_path / "t.parquet"))
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"cwnd: error: {tmp_path / companion}: exists and is not")
    assert (tmp_path / companion).read_text() == "someone's\n"
