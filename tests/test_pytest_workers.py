"""`make test` killed: pytest and its pytest-xdist workers must not outlive it
(tests/conftest.py's `pytest_configure`, tests/parent_death.py)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT

WAITING_TESTS = """
import os, time
from pathlib import Path

def test_a():
    Path(os.environ["CWND_READY"], "a").touch()
    time.sleep(600)

def test_b():
    Path(os.environ["CWND_READY"], "b").touch()
    time.sleep(600)
"""


def _session(sid: int) -> list[int]:
    """The processes of session `sid` (not ended: zombies are left out)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == sid and fields[0] not in ("Z", "X"):
            found.append(int(stat.parent.name))
    return found


def _wait_until(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


@pytest.mark.skipif(sys.platform != "linux", reason="PR_SET_PDEATHSIG is Linux's")
def test_pytest_and_its_workers_end_with_their_parent(tmp_path: Path) -> None:
    # A shell stands for make: it starts pytest with two workers, each in a test that
    # would wait 10 minutes, and is killed with SIGKILL (nothing can pass it on).
    project = tmp_path / "project"
    project.mkdir()
    for name in ("conftest.py", "parent_death.py"):
        shutil.copy(ROOT / "tests" / name, project)
    (project / "test_waiting.py").write_text(WAITING_TESTS)
    ready = tmp_path / "ready"
    ready.mkdir()
    command = f"{sys.executable} -m pytest -q -p no:cacheprovider -n 2 {project} & wait"
    make = subprocess.Popen(
        ["sh", "-c", command],
        cwd=project,
        env={**os.environ, "CWND_READY": str(ready)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        assert _wait_until(lambda: len(list(ready.iterdir())) == 2, 120), "workers started"
        make.kill()
        make.wait()
        assert _wait_until(lambda: not _session(make.pid), 60), _session(make.pid)
    finally:
        for pid in _session(make.pid):
            os.kill(pid, signal.SIGKILL)
