"""Shared fixtures: small scenarios that run in milliseconds, and one quick reproduction
of every study shared by the tests that read it."""

from __future__ import annotations

import io
import signal
import warnings
from contextlib import redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from parent_death import die_with_parent

ROOT = Path(__file__).resolve().parent.parent

SMALL = """
name = "small"
duration = "5s"

[[links]]
between = ["h1", "r"]
bandwidth = "100Mbps"
delay = "1ms"

[[links]]
between = ["r", "h2"]
bandwidth = "10Mbps"
delay = "10ms"
queue = { packets = 20 }
impairments = [{ kind = "bernoulli", p = 0.02, applies_to = "data" }]

[[flows]]
name = "f1"
from = "h1"
to = "h2"
cc = "reno"

[trace]
segments = true
queues = true
"""


def pytest_configure(config: pytest.Config) -> None:
    """pytest and each of its pytest-xdist workers end when their parent does (with
    SIGTERM, `parent_death`): a killed `make test` leaves no pytest behind
    (issue 27); a live run stopped this way removes its namespaces
    (`cwnd.live.run.sigterm_raises`)."""
    die_with_parent(signal.SIGTERM)


#: pytest-timeout's limit (a hang detector) for a test that reads the quick
#: reproduction of every study: the first to ask for it computes it, minutes of CPU on
#: 2 cores, and beside a CPU burner on both cores it took more than the 300 s every
#: other test gets (pyproject.toml).
QUICK_REPRODUCTION_TIMEOUT = 3600


#: Modules whose tests run live mode or `cwnd shell` as root: one group, one worker,
#: since every such run first removes the namespaces of runs that were killed, which
#: would take away what another module's test killed on purpose to watch its own
#: run remove (test_live's stale-namespace test failed so beside test_shell).
LIVE_MODULES = {"test_live", "test_shell", "test_studies_wimax_live"}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Groups for `make test`'s parallel workers (pytest-xdist, `--dist loadgroup`): a
    module's tests stay on one worker, so its module-scoped fixture runs once; every
    test that reads the shared quick reproduction joins one group, so it runs once,
    with a longer hang detector; the live modules share one group (`LIVE_MODULES`).
    First of the hooks, so that xdist's own (which turns the marks into groups) sees
    the marks; and xdist 3.8 groups nothing on pytest 9.2 (pytest-dev/pytest-xdist
    #1386), so requirements.lock keeps pytest 9.1.1."""
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        shared = "quick_run" in fixtures or "quick_report" in fixtures
        module = item.module.__name__
        group = "quick_reproduction" if shared else "live" if module in LIVE_MODULES else module
        item.add_marker(pytest.mark.xdist_group(group))
        if shared:
            item.add_marker(pytest.mark.timeout(QUICK_REPRODUCTION_TIMEOUT))


@pytest.fixture
def small_toml(tmp_path: Path) -> Path:
    path = tmp_path / "small.toml"
    path.write_text(SMALL)
    return path


@pytest.fixture
def small_dict() -> dict[str, Any]:
    import tomllib

    return tomllib.loads(SMALL)


@pytest.fixture
def load_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts given to the simulator's `load` from here on, in this process."""
    from cwnd import _cwnd

    calls: list[str] = []
    load = _cwnd.load

    def counted(text: str, *args: Any) -> _cwnd.Plan:
        calls.append(text)
        return load(text, *args)

    monkeypatch.setattr(_cwnd, "load", counted)
    return calls


@dataclass
class Drawn:
    """What a saved figure shows: its title, colour bar labels and legend titles, and
    whether it has error bars."""

    title: str
    colour_bars: list[str]
    legend_titles: list[str]
    error_bars: bool


@dataclass
class QuickReport:
    """`cwnd reproduce all --quick --out OUT`: its folder (OUT/quick), what it printed,
    and every figure it drew, as matplotlib held it when it was saved."""

    folder: Path
    stdout: str
    figures: list[Drawn]


def _drawn(fig: Any) -> Drawn:
    from matplotlib.colorbar import Colorbar
    from matplotlib.container import ErrorbarContainer

    axes = fig.get_axes()
    bars = [a._colorbar for a in axes if isinstance(getattr(a, "_colorbar", None), Colorbar)]
    legends = [*fig.legends, *(a.get_legend() for a in axes if a.get_legend())]
    return Drawn(
        title=fig.get_suptitle() or " / ".join(a.get_title() for a in axes),
        colour_bars=[b.ax.get_ylabel() for b in bars],
        legend_titles=[lg.get_title().get_text() for lg in legends],
        error_bars=any(isinstance(c, ErrorbarContainer) for a in axes for c in a.containers),
    )


@pytest.fixture(scope="session")
def quick_run(tmp_path_factory: pytest.TempPathFactory) -> QuickReport:
    """One quick reproduction of every study for every test that reads one, run in this
    process (the command's own `main`) so that its figures can be looked at as drawn."""
    from matplotlib.figure import Figure

    from cwnd.cli import main

    out = tmp_path_factory.mktemp("results")
    # By figure (one may be saved as PNG and SVG), each held so that its id is not
    # given to a later figure once it is freed (which made one go unseen).
    seen: dict[int, tuple[Figure, Drawn]] = {}
    save = Figure.savefig

    def spy(fig: Figure, *args: Any, **kwargs: Any) -> None:
        seen.setdefault(id(fig), (fig, _drawn(fig)))
        save(fig, *args, **kwargs)

    # main installs its own signal handlers and warning format: pytest's come back after.
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    show = warnings.showwarning
    with pytest.MonkeyPatch.context() as patch, redirect_stdout(io.StringIO()) as stdout:
        patch.setattr(Figure, "savefig", spy)
        # Figures drawn in a forked child (`cwnd.beside`: a study's figures, or its
        # whole post-processing beside the next study's sweeps) would escape the spy.
        patch.setattr("cwnd.studies.study.can_fork", lambda: False)
        patch.setattr("cwnd.cli.can_fork", lambda: False)
        try:
            code = main(["reproduce", "all", "--quick", "--out", str(out), "--cache",
                         str(out / "cache")])  # fmt: skip
        finally:
            for signum, handler in handlers.items():
                signal.signal(signum, handler)
            warnings.showwarning = show
    assert code == 0, stdout.getvalue()
    return QuickReport(out / "quick", stdout.getvalue(), [d for _, d in seen.values()])


@pytest.fixture(scope="session")
def quick_report(quick_run: QuickReport) -> Path:
    """The folder of the quick reproduction of every study, `--out OUT`: OUT/quick."""
    return quick_run.folder
