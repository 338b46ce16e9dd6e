"""The example scenarios' page (`cwnd run-all`): every run's figures, full width and
readable, its fingerprint in hex; and the studies' report links it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from browser import chromium, load
from cwnd.report import write_index
from cwnd.studies import STUDIES
from cwnd.studies.study import tcp_profiles

ROOT = Path(__file__).resolve().parent.parent

#: As tests/test_studies.py: figures shown at 0.6 of their size or more.
READABLE_SCALE = 0.6


@pytest.fixture(scope="module")
def scenarios_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`cwnd run-all` over two example scenarios: an RTT step and an outage."""
    folder = tmp_path_factory.mktemp("scenarios")
    for name in ("rtt_jump", "outage"):
        (folder / f"{name}.toml").write_text((ROOT / "scenarios" / f"{name}.toml").read_text())
    out = folder / "out"
    done = subprocess.run(
        [sys.executable, "-m", "cwnd", "run-all", str(folder), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert f"report: {out / 'index.html'}" in done.stdout
    return out / "index.html"


def test_the_page_lists_each_run_with_its_hex_fingerprint(scenarios_page: Path) -> None:
    text = scenarios_page.read_text()
    rows = re.findall(r'<tr><td><a href="#(\w+)">.*?<code>([0-9a-f]{16})</code>', text)
    assert [name for name, _ in rows] == ["outage", "rtt_jump"]
    summary = (scenarios_page.parent / "index.md").read_text()
    for name, fingerprint in rows:
        assert f"[{name}]({name}/)" in summary and f"`{fingerprint}`" in summary


def test_the_page_names_each_runs_tcp_profile(scenarios_page: Path) -> None:
    # Neither scenario pins a profile: both ran the default, "linux".
    text = scenarios_page.read_text()
    assert text.count("<td>linux</td>") == 2, text
    summary = (scenarios_page.parent / "index.md").read_text()
    assert summary.count(" | linux | ") == 2, summary


def test_a_studys_parameters_name_the_tcp_profiles_its_runs_use() -> None:
    # arq and coexist follow ns-2's agents; reorder and wimax pin the RFCs' TCP with
    # their papers' options (docs/studies.md).
    expected = {"arq": "ns2", "coexist": "ns2", "outage": "ns2", "reorder": "rfc", "wimax": "rfc"}
    for name, profile in expected.items():
        assert tcp_profiles(STUDIES[name].sweeps(True)) == [profile], name


@pytest.mark.skipif(chromium() is None, reason="no chromium (apt-get install chromium)")
def test_every_figure_of_the_page_loads_at_a_readable_size(scenarios_page: Path) -> None:
    page = load(scenarios_page)
    assert page.errors == []
    # cwnd, sequence and goodput of each run (queues only where a queue filled).
    assert len(page.images) >= 6, page.images
    assert all(i["naturalWidth"] > 0 for i in page.images), page.images
    small = [i for i in page.images if i["width"] < READABLE_SCALE * i["naturalWidth"]]
    assert not small, small


def test_the_studies_report_links_the_scenarios_page(tmp_path: Path) -> None:
    assert 'href="scenarios/index.html"' not in write_index([], tmp_path).read_text()
    (tmp_path / "scenarios").mkdir()
    (tmp_path / "scenarios" / "index.html").write_text("<html></html>")
    assert 'href="scenarios/index.html"' in write_index([], tmp_path).read_text()
