"""The plan of each point of a sweep, and its run keys, made without loading it.

A sweep of 10⁶ points printed nothing for 25 minutes (issue 27): before its first run
it made every point's plan, at 0.1 to 0.3 ms of CPU each here (1.45 ms reported),
by a deep copy of the base plan, the copy's JSON text and the simulator's `load` of
that text, and hashed the loaded plan for the point's run keys.

Here the base plan is written once per set of swept fields, with a marker where each
field's value goes (`set_field` places it where it would place the value), and split
at the markers: a `Template`. A point's text is the pieces joined with its values'
JSON, the same text `json.dumps` gives for the base with the point's fields set
(`json.dumps` writes a value the same wherever it sits); it is made when the run is
sent, and loaded by the worker, which runs it (a point the simulator refuses fails
there, with the error it had here before). A run's key hashes the template's text
(markers in place), the point's values and the seed: what the run's text is made of,
a few hundred bytes a point instead of the whole plan.

A point whose fields or values name a file is not made here: the scenario format's
fields that name files end in `_file` (`p_file`; docs/scenarios.md), and a plan must
carry the file's contents, read once, where the file is. Those points, and fields
that cannot be marked (one inside another: `flows[0]` and `flows[0].cc`), are loaded
as before (`PointPlans.keys` gives None).
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

#: What the names of the scenario format's fields that name files end with.
FILE_FIELD = "_file"

_PATH_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def set_field(spec: dict[str, Any], path: str, value: Any) -> None:
    """Sets `spec[path] = value` for a path such as `links[1].impairments[0].p`.

    Raises `KeyError`/`IndexError` naming the path when a container on the way is
    missing (the last key may be new), or when the path goes into a value that is not
    the container it asks for: a name into a value that is not a table
    (`duration.x`), an index into one that is not a list (`links[0][1]`).
    """
    parts = [name if name else int(index) for name, index in _PATH_PART.findall(path)]
    if not parts:
        raise KeyError(f"{path!r} is not a field path")
    node: Any = spec
    for i, part in enumerate(parts):
        _check_container(node, path, parts[:i], part)
        if i == len(parts) - 1:
            break
        try:
            node = node[part]
        except (KeyError, IndexError):
            where = path if i == 0 else f"{path} (at {parts[i]!r})"
            raise KeyError(f"{where}: no such field in the base scenario") from None
    last = parts[-1]
    if isinstance(node, list) and isinstance(last, int) and last >= len(node):
        raise IndexError(f"{path}: index {last} is beyond the list's {len(node)} entries")
    node[last] = value


def _check_container(node: Any, path: str, before: list[str | int], part: str | int) -> None:
    """Refuses a step of a field path into a value that is not a table (for a name) or
    a list (for an index), naming the path and what is there instead."""
    wanted = dict if isinstance(part, str) else list
    if isinstance(node, wanted):
        return
    if not before:
        raise KeyError(f"{path}: the scenario is a table of fields; start with a field name")
    there = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in before).lstrip(".")
    raise KeyError(f"{path}: {there} is {_KINDS.get(type(node), 'a value')}, not {_KINDS[wanted]}")


#: What a value of the plan is, as a field path's error names it.
_KINDS = {
    dict: "a table of fields",
    list: "a list",
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "true or false",
    type(None): "empty (null)",
}


@dataclass(frozen=True)
class Template:
    """The base plan's text split where the swept fields' values go: `pieces[j]`, then
    the value of field `slots[j]` (an index into the point's fields), ..., then the
    last piece. `digest` hashes the text with markers in place."""

    pieces: tuple[str, ...]
    slots: tuple[int, ...]
    digest: str

    def text(self, values: Sequence[str]) -> str:
        """The plan text with `values` (JSON texts, in the point's order) in place."""
        parts = [self.pieces[0]]
        for slot, piece in zip(self.slots, self.pieces[1:], strict=True):
            parts += (values[slot], piece)
        return "".join(parts)


class PointPlans:
    """Points' plan texts and run keys from a base plan (a dict, as `_cwnd.load` gives
    it as JSON), with one `Template` per set of swept fields."""

    def __init__(self, plan: dict[str, Any], engine: str) -> None:
        self._plan = plan
        self._engine = engine
        self._templates: dict[tuple[str, ...], Template | None] = {}

    def keys(self, point: dict[str, Any], seeds: Sequence[int]) -> list[str] | None:
        """The run key of `point` with each seed, or None if the point must be loaded
        (it names a file, or its fields cannot be marked)."""
        found = self._values(point)
        if found is None:
            return None
        template, values = found
        tail = f"\n{template.digest}\n{json.dumps(values)}".encode()
        return [
            hashlib.sha256(f"{self._engine}\n{seed}\npoint".encode() + tail).hexdigest()[:32]
            for seed in seeds
        ]

    def text(self, point: dict[str, Any]) -> str:
        """The plan text of `point`, for which `keys` gave keys."""
        found = self._values(point)
        if found is None:
            raise ValueError(f"{point}: no plan text without loading it")
        template, values = found
        return template.text(values)

    def _values(self, point: dict[str, Any]) -> tuple[Template, list[str]] | None:
        if any(FILE_FIELD in path for path in point):
            return None
        paths = tuple(point)
        if paths not in self._templates:
            self._templates[paths] = template(self._plan, paths)
        found = self._templates[paths]
        if found is None:
            return None
        values = [json.dumps(value) for value in point.values()]
        if any(FILE_FIELD in value for value in values):
            return None
        return found, values


def template(plan: dict[str, Any], paths: Sequence[str]) -> Template | None:
    """The `Template` of `plan` for the fields `paths`, or None when they cannot be
    marked (a path into another's value, a path `set_field` refuses) or a marker is
    not found exactly once in the text."""
    marked = copy.deepcopy(plan)
    markers = [f"\0cwnd-sweep-field-{i}\0" for i in range(len(paths))]
    try:
        for path, marker in zip(paths, markers, strict=True):
            set_field(marked, path, marker)
    except (KeyError, IndexError):
        return None
    text = json.dumps(marked)
    found = []
    for i, marker in enumerate(markers):
        written = json.dumps(marker)
        at = text.find(written)
        if at < 0 or text.find(written, at + 1) >= 0:
            return None
        found.append((at, len(written), i))
    found.sort()
    pieces, start = [], 0
    for at, length, _ in found:
        pieces.append(text[start:at])
        start = at + length
    pieces.append(text[start:])
    digest = hashlib.sha256(text.encode()).hexdigest()
    return Template(tuple(pieces), tuple(i for _, _, i in found), digest)
