"""The native module's type stub (python/cwnd/_cwnd.pyi) says what the built extension
does: the same functions with the same parameters, the same result keys, each numpy
column with its dtype; and mypy, as `make lint` runs it, catches a wrong call."""

from __future__ import annotations

import ast
import inspect
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import cwnd
from cwnd import _cwnd

ROOT = Path(__file__).resolve().parent.parent
STUB = ast.parse((ROOT / "python" / "cwnd" / "_cwnd.pyi").read_text())


def _functions() -> dict[str, ast.FunctionDef]:
    return {n.name: n for n in STUB.body if isinstance(n, ast.FunctionDef)}


def _typed_dicts() -> dict[str, dict[str, str]]:
    """TypedDict name → {key: annotation text}, inherited keys included."""
    classes = {n.name: n for n in STUB.body if isinstance(n, ast.ClassDef)}
    found: dict[str, dict[str, str]] = {}

    def keys(name: str) -> dict[str, str]:
        node = classes[name]
        own = {
            s.target.id: ast.unparse(s.annotation)
            for s in node.body
            if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
        }
        bases = [ast.unparse(b) for b in node.bases]
        inherited = [keys(b) for b in bases if b in classes]
        return {k: v for d in [*inherited, own] for k, v in d.items()}

    for name, node in classes.items():
        if any(ast.unparse(b) == "TypedDict" or ast.unparse(b) in classes for b in node.bases):
            found[name] = keys(name)
    return found


def test_every_function_of_the_extension_is_in_the_stub_with_its_parameters() -> None:
    stubbed = _functions()
    native = {n: f for n, f in vars(_cwnd).items() if callable(f) and not isinstance(f, type)}
    assert set(stubbed) == set(native)
    for name, fn in native.items():
        real = [
            (p.name, p.default is not p.empty) for p in inspect.signature(fn).parameters.values()
        ]
        args = stubbed[name].args
        defaults = [False] * (len(args.args) - len(args.defaults)) + [True] * len(args.defaults)
        assert [(a.arg, d) for a, d in zip(args.args, defaults, strict=True)] == real, name


def test_the_plan_class_has_the_stubbed_methods_and_properties() -> None:
    stub = next(n for n in STUB.body if isinstance(n, ast.ClassDef) and n.name == "Plan")
    properties = {
        f.name
        for f in stub.body
        if isinstance(f, ast.FunctionDef)
        and [ast.unparse(d) for d in f.decorator_list] == ["property"]
    }
    methods = {f.name for f in stub.body if isinstance(f, ast.FunctionDef)} - properties
    members = vars(_cwnd.Plan).items()
    assert properties == {n for n, m in members if type(m).__name__ == "getset_descriptor"}
    assert methods == {n for n, m in members if type(m).__name__ == "method_descriptor"}


def test_the_plan_summary_has_exactly_the_stubbed_keys() -> None:
    summary = cwnd.plan(
        cwnd.Scenario(duration="1s").link("a", "b", bandwidth="1Mbps", delay="1ms").flow("a", "b")
    ).summary()
    assert set(summary) == set(_typed_dicts()["PlanSummary"])


@pytest.fixture(scope="module")
def raw() -> dict[str, Any]:
    """A run with TCP and SCTP flows and every trace on, so that no table is empty."""
    spec = (
        cwnd.Scenario(duration="3s", name="stubs", segments=True, queues=True, cc_metrics=True)
        .link("a", "r", bandwidth="100Mbps", delay="1ms")
        .link("r", "b", bandwidth="10Mbps", delay="10ms", queue_packets=20, loss=0.02)
        .flow("a", "b", cc="cubic", name="tcp")
        .sctp("a", "b", name="sctp")
        .to_dict()
    )
    return dict(_cwnd.run(cwnd.plan(spec), 1))


def test_the_run_result_has_exactly_the_stubbed_keys(raw: dict[str, Any]) -> None:
    assert set(raw) == set(_typed_dicts()["RunResults"])


def test_every_column_has_the_stubbed_dtype(raw: dict[str, Any]) -> None:
    typed = _typed_dicts()
    checked = 0
    for key, annotation in typed["RunResults"].items():
        if annotation not in typed:
            continue
        columns = raw[key]
        assert set(columns) == set(typed[annotation]), key
        for column, kind in typed[annotation].items():
            value = columns[column]
            if kind == "list[str]":
                assert isinstance(value, list) and all(isinstance(v, str) for v in value)
                continue
            dtype = re.fullmatch(r"NDArray\[np\.(\w+)\]", kind)
            assert dtype, f"{annotation}.{column}: {kind}"
            assert isinstance(value, np.ndarray), f"{key}.{column}"
            assert value.dtype == np.dtype(getattr(np, dtype[1])), f"{key}.{column}"
            assert len(value) > 0 or key == "cc_metrics", f"{key}.{column} is empty"
            checked += 1
    assert checked >= 60


def test_rows_hold_scalars_only(raw: dict[str, Any]) -> None:
    assert raw["flows"] and raw["paths"] and raw["links"]
    for table in ("flows", "paths", "links", "channels"):
        for row in raw[table]:
            assert all(isinstance(v, int | float | bool | str) for v in row.values()), table


def _struct_fields(source: str, name: str) -> set[str]:
    body = re.search(rf"pub struct {name} \{{(.*?)\n\}}", source, re.S)
    assert body, name
    return set(re.findall(r"pub (\w+):", body[1]))


def test_the_relay_report_stub_names_what_the_binding_sets() -> None:
    # live_relay needs root and TUN devices; its keys are the fields of the relay's
    # records (serialized one key per field), read from their source.
    source = (ROOT / "crates" / "cwnd-live" / "src" / "relay.rs").read_text()
    binding = (ROOT / "crates" / "cwnd-py" / "src" / "live.rs").read_text()
    flows = _struct_fields(source, "FlowCounts")
    report = _struct_fields(source, "ReportRow") | set(re.findall(r'r\.set_item\("(\w+)"', binding))
    typed = _typed_dicts()
    assert flows == set(typed["RelayFlowCounts"])
    assert report == set(typed["RelayReport"])
    assert set(typed["LiveResults"]) == {*typed["RunResults"], "relay"}


WRONG = """
import cwnd
from cwnd import _cwnd

plan = _cwnd.load("duration = '1s'")
raw = _cwnd.run(plan, "1")
events: str = raw["events"]
cwnd.run(plan, seed="x")
"""


def test_mypy_catches_wrong_calls_and_misread_results(tmp_path: Path) -> None:
    snippet = tmp_path / "wrong.py"
    snippet.write_text(WRONG)
    env = {**os.environ, "MYPY_CACHE_DIR": str(ROOT / ".mypy_cache")}
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-error-summary", str(snippet)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=240,
    )
    lines = done.stdout.splitlines()
    assert any(':6: error: Argument 2 to "run" has incompatible type "str"' in x for x in lines)
    assert any(":7: error: Incompatible types in assignment" in x for x in lines)
    assert any(
        ':8: error: Argument "seed" to "run" has incompatible type "str"' in x for x in lines
    )
    assert len(lines) == 3, done.stdout
