"""The AIMD model column of tools/crosscheck_ns3.py, checked with numbers worked by hand
(the script is loaded by path; it imports ns-3 and cwnd only inside the runs)."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path
from types import ModuleType

import pytest


def crosscheck() -> ModuleType:
    path = Path(__file__).parent.parent / "tools" / "crosscheck_ns3.py"
    spec = importlib.util.spec_from_file_location("crosscheck_ns3", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# MSS / (RTT · √p) at p = 0.01, RTT 50 ms: 11 680 b / (0.05 s · 0.1) = 2 336 000 b/s.
SCALE = 2_336_000.0


def test_newreno_is_mathis() -> None:
    # a = 1, β = 1/2: √(1 · 1.5 / (2 · 0.5)) = √1.5 = 1.2247449; × 2 336 000 = 2 861 004 b/s.
    assert crosscheck().aimd_model_bps("newreno", 0.01, 0.05) == pytest.approx(2_861_004, abs=1)


def test_cubic_reno_friendly_region_matches_reno() -> None:
    # a = 3 · 0.3 / 1.7 = 0.5294, β = 0.7: a(1 + β) / (2(1 − β)) = 0.9 / 0.6 = 1.5, as Reno.
    assert crosscheck().aimd_model_bps("cubic", 0.01, 0.05) == pytest.approx(2_861_004, abs=1)


def test_scalable_keeps_seven_eighths() -> None:
    # a = 1, β = 7/8: 1.875 / 0.25 = 7.5; √7.5 = 2.7386128; × 2 336 000 = 6 397 399.5 b/s.
    assert crosscheck().aimd_model_bps("scalable", 0.01, 0.05) == pytest.approx(6_397_400, abs=1)


def test_yeah_without_a_queue_keeps_seven_eighths() -> None:
    # Q ≈ 0: a loss removes cwnd/8 (β = 7/8), growth 1 per cwnd below 100: Scalable's 7.5.
    assert crosscheck().aimd_model_bps("yeah", 0.01, 0.05) == pytest.approx(6_397_400, abs=1)


def test_variants_without_a_model_give_nan() -> None:
    for variant in ("vegas", "htcp", "illinois"):
        assert math.isnan(crosscheck().aimd_model_bps(variant, 0.01, 0.05))
