"""A full disk as `--out` or `--cache` (issue 27): one line naming the device and the
file, exit code 2, nothing lost; a full cache only stops the caching.

The end-to-end tests mount a small tmpfs, filled, in a private mount namespace
(`unshare -m`, as root): the mount is gone with the command's process."""

from __future__ import annotations

import errno
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from cwnd.atomic import replacing
from cwnd.beside import Beside
from cwnd.no_space import NoSpace, device_of

FullDisk = Callable[..., subprocess.CompletedProcess[str]]


def test_a_full_disk_while_writing_is_no_space_naming_device_and_file(tmp_path: Path) -> None:
    path = tmp_path / "t.parquet"
    with pytest.raises(NoSpace) as full, replacing(path) as tmp:
        tmp.write_bytes(b"half")
        raise OSError(errno.ENOSPC, "No space left on device")
    assert str(full.value) == f"no space left on {device_of(tmp_path)} ({path})"
    assert full.value.errno == errno.ENOSPC
    assert list(tmp_path.iterdir()) == []  # the temporary is gone


def test_an_exceeded_quota_says_so_and_other_errors_stay_what_they_were(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    quota = r"^disk quota exceeded on .* \(.*t\.csv\)$"
    with pytest.raises(NoSpace, match=quota), replacing(path):
        raise OSError(errno.EDQUOT, "Disk quota exceeded")
    with pytest.raises(PermissionError), replacing(path):
        raise PermissionError(errno.EACCES, "Permission denied")


def test_a_full_disk_in_a_child_is_raised_as_itself() -> None:
    def fills() -> None:
        raise NoSpace(errno.ENOSPC, "no space left on /dev/x (/d/t.png)")

    with pytest.raises(NoSpace, match=re.escape("no space left on /dev/x (/d/t.png)")):
        Beside(fills).result()


def test_the_device_is_named_by_its_mount() -> None:
    # /proc is always its own mount of type proc; its source is no device file.
    assert device_of(Path("/proc")) == "proc at /proc"
    assert device_of(Path("/no/such/folder")) == "the device"


@pytest.fixture
def full_disk(tmp_path: Path) -> FullDisk:
    """Runs `cwnd ARGS` with `tmp_path / "full"` a filled 1 MiB tmpfs of its own; skips
    where a private mount namespace cannot be made (not root, no `unshare`)."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("a full disk needs a private mount namespace: root and unshare(1)")
    full = tmp_path / "full"
    full.mkdir()
    script = (
        f'mount -t tmpfs -o size=1m tmpfs "{full}" || exit 99\n'
        f'head -c 2000000 /dev/zero > "{full}/filler" 2>/dev/null\n'
        'exec "$@"\n'
    )
    probe = subprocess.run(["unshare", "-m", "sh", "-c", script, "sh", "true"])
    if probe.returncode != 0:
        pytest.skip("cannot mount a tmpfs in a private mount namespace here")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        command = ["unshare", "-m", "sh", "-c", script, "sh", sys.executable, "-m", "cwnd"]
        env = {**os.environ, "CWND_DASK_SCHEDULER": ""}
        return subprocess.run([*command, *args], capture_output=True, text=True, env=env)

    return run


def _sweep_file(folder: Path, seeds: int) -> Path:
    from conftest import SMALL

    (folder / "s.toml").write_text(SMALL)
    (folder / "sweep.toml").write_text(f'scenario = "s.toml"\nseeds = {seeds}\n')
    return folder / "sweep.toml"


def test_a_full_out_is_one_line_and_exit_2_and_loses_no_run(
    tmp_path: Path, full_disk: FullDisk
) -> None:
    sweep_file = _sweep_file(tmp_path, seeds=2)
    full, cache = tmp_path / "full", tmp_path / "cache"
    proc = full_disk("sweep", str(sweep_file), "--cache", str(cache), "--out", f"{full}/t.parquet")
    assert proc.returncode == 2, proc.stderr  # was 1, "internal error: OSError: [Errno 28]"
    assert proc.stderr.splitlines() == [
        f"cwnd: error: no space left on tmpfs at {full} ({full}/t.parquet); every "
        f"finished run is in the cache ({cache}): run the sweep again, with room or "
        "another --out, to write it without computing"
    ]
    elsewhere = tmp_path / "t.parquet"
    cmd = [sys.executable, "-m", "cwnd", "sweep", str(sweep_file), "--cache", str(cache)]
    again = subprocess.run([*cmd, "--out", str(elsewhere)], capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    assert "0 computed, 2 from the cache" in again.stdout


def test_a_full_cache_warns_once_and_the_sweep_goes_on_without_it(
    tmp_path: Path, full_disk: FullDisk
) -> None:
    import pandas as pd

    sweep_file = _sweep_file(tmp_path, seeds=3)
    full, out = tmp_path / "full", tmp_path / "t.parquet"
    args = ["--cache", f"{full}/cache", "--out", str(out), "--workers", "1"]
    proc = full_disk("sweep", str(sweep_file), *args, "--tables", "throughput")
    assert proc.returncode == 0, proc.stderr  # was 1: the whole sweep aborted
    (warning,) = proc.stderr.splitlines()
    assert re.fullmatch(
        rf"cwnd: warning: {full}/cache: cannot write the run cache \(no space left on "
        rf"tmpfs at {full} \({full}/cache/.*\)\); going on without it",
        warning,
    ), warning
    assert "3 computed, 0 from the cache, 0 failed" in proc.stdout
    assert sorted(pd.read_parquet(out)["seed"]) == [0, 1, 2]
    # The per-run tables, which the cache could not hold, were kept in memory.
    throughput = pd.read_parquet(tmp_path / "t.throughput.parquet")
    assert sorted(set(throughput["seed"])) == [0, 1, 2] and len(throughput) == 3 * 50


def test_cwnd_run_on_a_full_disk_is_one_line_and_exit_2(
    tmp_path: Path, full_disk: FullDisk
) -> None:
    from conftest import SMALL

    (tmp_path / "s.toml").write_text(SMALL)
    full = tmp_path / "full"
    proc = full_disk("run", str(tmp_path / "s.toml"), "--out", f"{full}/run")
    assert proc.returncode == 2, proc.stderr
    (line,) = proc.stderr.splitlines()
    assert re.fullmatch(
        rf"cwnd: error: no space left on tmpfs at {full} \({full}/run/[\w.]+\)", line
    ), line
