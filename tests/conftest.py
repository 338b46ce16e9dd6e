"""Shared fixtures: small scenarios that run in milliseconds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

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


@pytest.fixture
def small_toml(tmp_path: Path) -> Path:
    path = tmp_path / "small.toml"
    path.write_text(SMALL)
    return path


@pytest.fixture
def small_dict() -> dict[str, Any]:
    import tomllib

    return tomllib.loads(SMALL)
