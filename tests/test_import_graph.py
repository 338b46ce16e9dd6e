"""The front end's import graph (python/cwnd) has no cycle (issue 28: `results.py` →
`plot.py` → `impairment_windows.py` → `results.py`). Every import counts, at a
module's top, inside a function or under `TYPE_CHECKING`: each is a dependency a
reader follows and mypy resolves. `import cwnd` and `from cwnd import Name` depend on
the package's `__init__`; the parent packages Python imports on the way do not
count."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "python" / "cwnd"

Graph = dict[str, set[str]]


def import_graph(package: Path) -> Graph:
    """Module name → the package's modules it imports. A native module counts by its
    stub (`_cwnd.pyi`)."""
    files = {_name(package, p): p for p in package.rglob("*.py")}
    known = set(files) | {_name(package, p) for p in package.rglob("*.pyi")}
    return {name: _imports(name, path, known) for name, path in files.items()}


def _name(package: Path, path: Path) -> str:
    parts = [package.name, *path.relative_to(package).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.add(sub if sub in known else node.module)
    return (found & known) - {name}


def find_cycle(graph: Graph) -> list[str] | None:
    """A cycle of `graph` as the modules along it, the first repeated at the end;
    None when there is none (depth-first search, modules in sorted order)."""
    done: set[str] = set()
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        if module in path:
            return [*path[path.index(module) :], module]
        if module in done:
            return None
        path.append(module)
        for imported in sorted(graph.get(module, ())):
            cycle = visit(imported)
            if cycle:
                return cycle
        path.pop()
        done.add(module)
        return None

    return next((c for m in sorted(graph) if (c := visit(m))), None)


def test_the_front_end_has_no_import_cycle() -> None:
    graph = import_graph(PACKAGE)
    assert {"cwnd", "cwnd.results", "cwnd.plot", "cwnd.studies.wimax"} <= set(graph)
    assert "cwnd.run_view" in graph["cwnd.plot"]  # imports are seen
    cycle = find_cycle(graph)
    assert cycle is None, " → ".join(cycle or [])


def _package(folder: Path, modules: dict[str, str]) -> Path:
    package = folder / "pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "_native.pyi").write_text("")
    for name, text in modules.items():
        (package / f"{name}.py").write_text(text)
    return package


def test_a_cycle_through_any_kind_of_import_is_found(tmp_path: Path) -> None:
    late = "def f():\n    from pkg import a\n"
    typing = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.a import X\n"
    for n, b in enumerate([late, typing, "import pkg.a\n", "import pkg\n"]):
        package = _package(tmp_path / str(n), {"a": "from pkg import b\n", "b": b})
        if b == "import pkg\n":  # through the package's __init__
            (package / "__init__.py").write_text("from pkg.a import X\n")
        cycle = find_cycle(import_graph(package))
        assert cycle is not None and cycle[0] == cycle[-1], b
        assert {"pkg.a", "pkg.b"} <= set(cycle), b


def test_imports_that_point_one_way_make_no_cycle(tmp_path: Path) -> None:
    package = _package(
        tmp_path,
        {
            "a": "from pkg import _native, b\nimport pkg.c\n",
            "b": "def f():\n    from pkg.c import X\n",
            "c": "import json\nfrom pkg import _native\n",
        },
    )
    graph = import_graph(package)
    assert graph["pkg.a"] == {"pkg._native", "pkg.b", "pkg.c"}
    assert graph["pkg.b"] == {"pkg.c"}
    assert find_cycle(graph) is None
