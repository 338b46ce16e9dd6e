"""Files a scenario names (`p_file`): regular files only, beside the scenario, never
echoed (docs/scenarios.md, "Files a scenario names"). Through `cwnd check`, as a user
meets them: exit code 2, one line that names the file, never its contents."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import cwnd
from conftest import SMALL


def check(scenario: Path) -> subprocess.CompletedProcess[str]:
    # The timeout only stops a hang (a FIFO opened for reading waits for a writer);
    # nothing here measures time.
    return subprocess.run(
        [sys.executable, "-m", "cwnd", "check", str(scenario)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def naming(folder: Path, trace: str) -> Path:
    """A scenario in `folder` whose loss stage reads the trace `trace`."""
    path = folder / "lossy.toml"
    name = trace.replace("\\", "\\\\").replace('"', '\\"')
    text = SMALL.replace('p = 0.02, applies_to = "data"', f'p_file = "{name}"')
    path.write_text(text)
    return path


def one_line_error(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


def test_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    # Opening a FIFO for reading blocks until a writer comes: `check` hung forever.
    os.mkfifo(tmp_path / "loss.csv")
    line = one_line_error(check(naming(tmp_path, "loss.csv")))
    assert line.endswith('p_file: "loss.csv" is a FIFO; a scenario reads regular files only')


@pytest.mark.parametrize(
    ("name", "what"),
    [
        ("/proc/self/environ", "is under /proc, the system's state"),
        ("/dev/zero", "is a device"),
        (".", "is a folder"),
    ],
)
def test_system_entries_devices_and_folders_are_refused(
    tmp_path: Path, name: str, what: str
) -> None:
    if not Path(name).exists():
        pytest.skip(f"{name} does not exist here")
    line = one_line_error(check(naming(tmp_path, name)))
    assert f'p_file: "{name}" {what}; a scenario reads regular files only' in line
    # /proc/self/environ is the environment of the process that reads it.
    assert "PATH=" not in line


def test_an_error_places_the_fault_and_never_shows_the_file(tmp_path: Path) -> None:
    # A loss trace that is really a password file: its first line was printed.
    secret = "root:$6$saltsalt$hashhashhash:19000:0:99999:7:::"
    (tmp_path / "shadow").write_text(f"{secret}\n")
    line = one_line_error(check(naming(tmp_path, "shadow")))
    assert line.endswith('p_file: "shadow" line 1, column 1: expected two fields, `time, p`'), line
    assert "root" not in line and "hash" not in line
    # A bad probability on line 3: placed at its column, its text not shown.
    (tmp_path / "loss.csv").write_text("# time, p\n0, 0.01\n5,  secret-value\n")
    line = one_line_error(check(naming(tmp_path, "loss.csv")))
    assert line.endswith('p_file: "loss.csv" line 3, column 5: expected a probability in [0, 1]'), (
        line
    )
    assert "secret" not in line


def test_files_are_found_beside_the_scenario_under_odd_names(tmp_path: Path) -> None:
    # Spaces, unicode and a parent folder: resolved from the scenario's folder,
    # wherever the command runs.
    (tmp_path / "traces").mkdir()
    (tmp_path / "study").mkdir()
    (tmp_path / "traces" / "perte à 5 %.csv").write_text("0, 0.05\n")
    scenario = naming(tmp_path / "study", "../traces/perte à 5 %.csv")
    proc = check(scenario)
    assert proc.returncode == 0, proc.stderr


def test_the_api_refuses_the_same_way() -> None:
    # A dict's files are relative to the working directory; the rule is the same.
    scenario = {
        "duration": "1s",
        "links": [
            {
                "between": ["a", "b"],
                "bandwidth": "1Mbps",
                "delay": "1ms",
                "impairments": [{"kind": "bernoulli", "p_file": "/proc/self/environ"}],
            }
        ],
        "flows": [{"from": "a", "to": "b"}],
    }
    with pytest.raises(cwnd.ScenarioError, match=r"is under /proc"):
        cwnd.check(scenario)
