"""`make test`'s grouping of tests on pytest-xdist workers takes effect (conftest.py):
a module's tests run on one worker. xdist 3.8 silently stopped grouping on pytest 9.2
(pytest-dev/pytest-xdist #1386): module-scoped fixtures then ran once per worker and
live tests raced each other."""

from __future__ import annotations

import re
import subprocess
import sys

from conftest import ROOT


def test_a_modules_tests_share_one_worker_and_its_group() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-v",
         "-p", "no:cacheprovider", "tests/test_stats.py"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    ran = re.findall(r"\[(gw\d)\] .*PASSED (\S+)", done.stdout)
    assert len(ran) >= 2, done.stdout
    assert {worker for worker, _ in ran} == {ran[0][0]}, ran
    assert all(test.endswith("@test_stats") for _, test in ran), ran
