"""The documentation runs: the code blocks of docs/python.md in order, every script in
examples/, and the notebook's code cells in order (as Jupyter would, without Jupyter)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
# Arguments that make a script check itself rather than measure: the Dask example's
# sweep sizes (its full 4…32 runs are the measurement in docs/sweeps.md).
SMALL_ARGS = {"dask_large_output.py": ["2,4"]}


def _run_python(code: str, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MPLBACKEND": "Agg", "CWND_CACHE": str(cwd / "cache")}
    script = cwd / "_snippet.py"
    script.write_text(code)
    return subprocess.run(
        [sys.executable, str(script), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )


def test_python_page_code_blocks_run_in_order(tmp_path: Path) -> None:
    page = (ROOT / "docs" / "python.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", page, flags=re.S)
    assert len(blocks) >= 8, "docs/python.md lost its examples"
    # The page's relative paths are the repository's.
    (tmp_path / "scenarios").symlink_to(ROOT / "scenarios")
    done = _run_python("\n".join(blocks), tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.mark.parametrize(
    "script", sorted(p.name for p in EXAMPLES.glob("*.py")), ids=lambda name: name
)
def test_example_script_runs_and_draws(script: str, tmp_path: Path) -> None:
    code = (EXAMPLES / script).read_text()
    done = _run_python(code, tmp_path, str(tmp_path / "out"), *SMALL_ARGS.get(script, []))
    assert done.returncode == 0, done.stderr[-3000:]
    figures = list((tmp_path / "out").glob("*.png"))
    assert figures, f"{script} drew no figure"
    assert all(f.stat().st_size > 10_000 for f in figures), figures


def test_notebook_cells_run_in_order(tmp_path: Path) -> None:
    notebook = json.loads((EXAMPLES / "first_hour.ipynb").read_text())
    cells = ["".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code"]
    assert len(cells) >= 5
    done = _run_python("\n\n".join(cells), tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
