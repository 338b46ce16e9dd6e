"""The run cache: damaged, edited or misplaced entries are reported and recomputed;
outputs are written atomically."""

from __future__ import annotations

import fcntl
import json
import os
import re
import subprocess
import sys
import threading
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cwnd.atomic import replacing, write_text
from cwnd.sweep import CacheWarning, sweep


def _one_run(small_dict: dict[str, Any], cache: Path, **kwargs: Any) -> Any:
    return sweep(small_dict, seeds=[1], workers=1, cache=cache, progress=False, **kwargs)


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _empty(path: Path) -> None:
    path.write_bytes(b"")


def _wrong_shape(path: Path) -> None:
    path.write_text("[1, 2, 3]")


def _old_format(path: Path) -> None:
    """A bare summary, as the cache held before entries carried a key and checksum."""
    path.write_text(json.dumps(json.loads(path.read_text())["run"]))


def _edited(path: Path) -> None:
    entry = json.loads(path.read_text())
    entry["run"]["flows"][0]["goodput_bps"] *= 2
    path.write_text(json.dumps(entry))


def _not_utf8(path: Path) -> None:
    path.write_bytes(b"\xff\xfe{}")


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (_truncate, "Unterminated string|Expecting"),
        (_empty, "Expecting value"),
        (_wrong_shape, "wrong shape"),
        (_old_format, "wrong shape"),
        (_edited, "checksum does not match"),
        (_not_utf8, "can't decode|Expecting value"),
    ],
    ids=["truncated", "empty", "wrong-shape", "old-format", "edited", "not-utf8"],
)
def test_an_unusable_summary_is_reported_and_computed_again(
    small_dict: dict[str, Any], tmp_path: Path, damage: Callable[[Path], None], reason: str
) -> None:
    first = _one_run(small_dict, tmp_path)
    (entry,) = tmp_path.rglob("*.json")
    damage(entry)
    with pytest.warns(
        CacheWarning, match=rf"^{re.escape(str(entry))}: unusable cache entry \(.*({reason})"
    ):
        again = _one_run(small_dict, tmp_path)
    assert (again.computed, again.cached) == (1, 0)
    assert again.table.equals(first.table)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the entry was rewritten whole
        third = _one_run(small_dict, tmp_path)
    assert (third.computed, third.cached) == (0, 1)


def test_an_entry_under_another_runs_name_is_not_used(
    small_dict: dict[str, Any], tmp_path: Path
) -> None:
    _one_run(small_dict, tmp_path)
    other = sweep(small_dict, seeds=[2], workers=1, cache=tmp_path, progress=False)
    (entry_1,) = (p for p in tmp_path.rglob("*.json") if p.stem != other.runs[0].key)
    (entry_2,) = tmp_path.rglob(f"{other.runs[0].key}.json")
    entry_1.write_bytes(entry_2.read_bytes())
    with pytest.warns(CacheWarning, match=f"it holds run '{other.runs[0].key}'"):
        again = _one_run(small_dict, tmp_path)
    assert again.computed == 1


def test_a_truncated_table_is_reported_and_computed_again(
    small_dict: dict[str, Any], tmp_path: Path
) -> None:
    first = _one_run(small_dict, tmp_path, tables=["throughput"])
    (table,) = tmp_path.rglob("*.throughput.npz")
    _truncate(table)
    with pytest.warns(CacheWarning, match=f"^{re.escape(str(table))}: unusable cache entry"):
        again = _one_run(small_dict, tmp_path, tables=["throughput"])
    assert (again.computed, again.cached) == (1, 0)
    assert again.frame("throughput").equals(first.frame("throughput"))


def test_a_failed_write_leaves_the_previous_file_and_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "t.parquet"
    path.write_bytes(b"previous")
    with pytest.raises(RuntimeError), replacing(path) as tmp:
        tmp.write_bytes(b"half")
        raise RuntimeError("killed while writing")
    assert path.read_bytes() == b"previous"
    assert [p.name for p in tmp_path.iterdir()] == ["t.parquet"]
    with replacing(path) as tmp:
        tmp.write_bytes(b"new")
    assert path.read_bytes() == b"new"
    assert [p.name for p in tmp_path.iterdir()] == ["t.parquet"]


KILLED_WHILE_WRITING = """
import os, signal, sys
from pathlib import Path
from cwnd.atomic import replacing, write_text

with replacing(Path(sys.argv[1])) as tmp:
    tmp.write_bytes(b"half")
    os.kill(os.getpid(), signal.SIGKILL)
"""


def _killed_while_writing(path: Path) -> None:
    """A process SIGKILLed in the middle of writing `path`: its cleanup never runs."""
    proc = subprocess.run([sys.executable, "-c", KILLED_WHILE_WRITING, str(path)])
    assert proc.returncode == -9


def test_the_next_write_removes_a_killed_writers_temporary(tmp_path: Path) -> None:
    path = tmp_path / "t.parquet"
    path.write_bytes(b"previous")
    _killed_while_writing(path)
    assert path.read_bytes() == b"previous"
    (left,) = (p for p in tmp_path.iterdir() if p != path)
    assert left.name.startswith(".t.parquet.") and left.name.endswith(".tmp")
    write_text(path, "new")
    assert path.read_text() == "new"
    assert [p.name for p in tmp_path.iterdir()] == ["t.parquet"]


LIVE_WRITER = """
import sys
from pathlib import Path
from cwnd.atomic import replacing, write_text

with replacing(Path(sys.argv[1])) as tmp:
    tmp.write_text("live")
    print("writing", flush=True)
    sys.stdin.readline()
"""


def test_a_live_writers_temporary_is_waited_for_not_taken(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    live = subprocess.Popen(
        [sys.executable, "-c", LIVE_WRITER, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert live.stdout is not None and live.stdin is not None
    assert live.stdout.readline() == "writing\n"
    (tmp,) = tmp_path.iterdir()
    # The live writer holds the temporary's lock: the next writer of t.csv waits.
    fd = os.open(tmp, os.O_RDONLY)
    try:
        with pytest.raises(BlockingIOError):
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    finally:
        os.close(fd)
    second = threading.Thread(target=write_text, args=(path, "second"))
    second.start()
    live.stdin.write("\n")
    live.stdin.close()
    assert live.wait(timeout=60) == 0  # its rename found its temporary
    live.stdout.close()
    second.join(timeout=60)
    assert path.read_text() == "second"
    assert [p.name for p in tmp_path.iterdir()] == ["t.csv"]


def test_a_killed_sweeps_temporary_is_gone_after_the_next_sweep(tmp_path: Path) -> None:
    from conftest import SMALL

    (tmp_path / "s.toml").write_text(SMALL)
    (tmp_path / "sweep.toml").write_text('scenario = "s.toml"\nseeds = [1]\n')
    out = tmp_path / "out"
    out.mkdir()
    _killed_while_writing(out / "t.parquet")
    assert len(list(out.iterdir())) == 1
    cmd = [sys.executable, "-m", "cwnd", "sweep", str(tmp_path / "sweep.toml")]
    cmd += ["--cache", str(tmp_path / "c"), "--out", str(out / "t.parquet")]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in out.iterdir()) == ["t.parquet", "t.summary.csv"]


def test_the_command_reports_a_damaged_entry_in_one_line(tmp_path: Path) -> None:
    from conftest import SMALL

    (tmp_path / "s.toml").write_text(SMALL)
    (tmp_path / "sweep.toml").write_text('scenario = "s.toml"\nseeds = [1]\n')
    cache = tmp_path / "c"
    cmd = [sys.executable, "-m", "cwnd", "sweep", str(tmp_path / "sweep.toml")]
    cmd += ["--cache", str(cache), "--out", str(tmp_path / "t.parquet")]
    assert subprocess.run(cmd, capture_output=True).returncode == 0
    (entry,) = cache.rglob("*.json")
    _truncate(entry)
    problem = _json_error(entry)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == [
        f"cwnd: warning: {entry}: unusable cache entry ({problem}); computing it again"
    ]
    assert "1 computed, 0 from the cache" in proc.stdout


def _json_error(path: Path) -> str:
    """What the JSON parser says of the (truncated) file, as the warning quotes it."""
    try:
        json.loads(path.read_bytes())
    except ValueError as e:
        return str(e)
    raise AssertionError(f"{path} parses")


def test_a_column_damaged_inside_its_file_is_found_when_read_and_computed_again(
    small_dict: dict[str, Any], tmp_path: Path
) -> None:
    first = _one_run(small_dict, tmp_path, tables=["series"])
    expected = first.frame("series")
    (table,) = tmp_path.rglob("*.series.npz")
    data = bytearray(table.read_bytes())
    data[len(data) // 2] ^= 0xFF  # inside a column's compressed bytes, past the key
    table.write_bytes(bytes(data))
    cached = _one_run(small_dict, tmp_path, tables=["series"])
    assert (cached.computed, cached.cached) == (0, 1)  # the key still reads
    with (
        pytest.warns(CacheWarning, match=f"^{re.escape(str(table))}: unusable cache entry"),
        pytest.raises(ValueError, match="series: not kept for run"),
    ):
        cached.frame("series")
    again = _one_run(small_dict, tmp_path, tables=["series"])
    assert (again.computed, again.cached) == (1, 0)
    assert again.frame("series").equals(expected)
