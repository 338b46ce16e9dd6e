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


def test_the_shipped_random_loss_sweep_compares_different_runs(tmp_path: Path) -> None:
    # Under the default profile SACK gives every name RFC 6675's recovery, so "reno"
    # and "newreno" were the same runs (issue 35). Each cc of the shipped grid, at its
    # highest loss (5 %: many windows with two losses) and 10 s, must be a run of its
    # own, and the summary must name its recovery as the cc's.
    import tomllib

    from cwnd.sweep import sweep

    sweep_file = ROOT / "sweeps" / "random_loss.toml"
    spec = tomllib.loads(sweep_file.read_text())
    grid = dict(spec["grid"])
    loss = "links[1].impairments[0].p"
    grid[loss] = [max(grid[loss])]
    grid["duration"] = ["10s"]
    r = sweep(sweep_file.parent / spec["scenario"], grid=grid, seeds=[1], workers=1,
              cache=tmp_path, progress=False)  # fmt: skip
    assert not r.failures
    table = r.table.set_index("cc")
    assert list(table.index) == ["reno", "newreno"]
    assert table.loc["reno", "fingerprint"] != table.loc["newreno", "fingerprint"]
    assert list(table["recovery"]) == ["reno", "newreno"]


def test_loss_sweep_models_get_the_runs_payload_rtt_and_growth_by_hand() -> None:
    # Like with like (issue 35): the payload the runs carried (1448 B with timestamps,
    # not 1460), their RTT and RTO, and b = 1 for a sender that counts acknowledged
    # segments; b = segments per ACK only in the ACK-counting curve.
    import importlib.util

    import pandas as pd

    spec = importlib.util.spec_from_file_location("loss_sweep", EXAMPLES / "loss_sweep.py")
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    measured = pd.DataFrame(
        {"payload": [1448.0], "mean_rtt": [0.1], "mean_rto": [0.3], "segments_per_ack": [2.0]},
        index=[0.01],
    )
    out = example.models(measured).iloc[0]
    # 1448 × 8 = 11584 bits. Mathis, b = 1: sqrt(3/(2 × 0.01)) / 0.1 = 122.474 segments/s
    # → 1 418 744 b/s.
    assert out["mathis"] == pytest.approx(1_418_744, rel=1e-5)
    # PFTK, b = 1: 0.1·sqrt(2·0.01/3) + 0.3·min(1, 3·sqrt(3·0.01/8))·0.01·(1 + 32·10⁻⁴)
    # = 0.0081650 + 0.0005529 = 0.0087179 s per segment → 1 328 766 b/s.
    assert out["pftk"] == pytest.approx(1_328_766, rel=1e-5)
    # b = 2: 0.1·sqrt(4·0.01/3) + 0.3·3·sqrt(6·0.01/8)·0.01·1.0032 = 0.0115470 + 0.0007819
    # = 0.0123289 → 939 579 b/s.
    assert out["pftk_ack_counting"] == pytest.approx(939_579, rel=1e-5)
