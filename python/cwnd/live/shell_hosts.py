"""Which nodes of a scenario `cwnd shell` turns into hosts, and what it tells the
commands about them: `CWND_HOST_<NAME>` variables and a hosts file.

A host is an end host of the topology — a node attached to exactly one medium (one
link, one 802.11 channel or one 802.16 cell); a node attached to two or more is a
router — plus the endpoints of the scenario's flows and every node the command line
names (`--host`, `--serve`), router or not.

A scenario for the shell needs only its topology, but the scenario format asks for at
least one flow or generator (`scenario/validate.rs`, `check_flows`). The shell's
loading path therefore gives a scenario without either one flow of its own between
two attached nodes, `SHELL_FLOW`, before the simulator checks it: the relay never
starts its agents (`World::detach_agents`) and passes no packet under it, so it only
satisfies the check.
"""

from __future__ import annotations

import copy
import re
from typing import Any

SHELL_FLOW = "cwnd-shell"
# The run's /24 has 254 addresses for hosts (`LiveNetwork.address`).
MAX_HOSTS = 254


def with_a_flow(raw: dict[str, Any]) -> dict[str, Any]:
    """`raw` (a scenario as written), with `SHELL_FLOW` added when it has neither
    flows nor generators; else unchanged."""
    if raw.get("flows") or raw.get("generators"):
        return raw
    attached = list(_attachments(raw))
    if len(attached) < 2:
        return raw  # the simulator's check then names what is missing
    out = copy.deepcopy(raw)
    out["flows"] = [{"name": SHELL_FLOW, "from": attached[0], "to": attached[1]}]
    return out


def nodes(spec: dict[str, Any]) -> list[str]:
    """Every node a medium attaches, in order of first appearance."""
    return list(_attachments(spec))


def _attachments(spec: dict[str, Any]) -> dict[str, int]:
    """Each node's media count, in order of first appearance."""
    count: dict[str, int] = {}

    def attach(nodes: list[str]) -> None:
        for n in nodes:
            count[n] = count.get(n, 0) + 1

    for link in spec.get("links", []):
        attach(list(link["between"]))
    for channel in spec.get("wireless", []):
        attach(list(channel["stations"]))
    for cell in spec.get("wimax", []):
        attach([cell["base_station"], *cell["subscribers"]])
    return count


def hosts(spec: dict[str, Any], named: list[str]) -> list[str]:
    """The shell's hosts in the scenario `spec` (loaded): end hosts, the flows'
    endpoints but `SHELL_FLOW`'s, and the nodes in `named`, in order of appearance."""
    count = _attachments(spec)
    wanted = {n for n, k in count.items() if k == 1} | set(named)
    for f in spec.get("flows", []):
        if f.get("name") != SHELL_FLOW:
            wanted |= {f["from"], f["to"]}
    return [n for n in count if n in wanted]


def env_name(node: str) -> str:
    """`CWND_HOST_<NAME>`: the node's name in capitals, anything but letters and
    digits as `_`."""
    return "CWND_HOST_" + re.sub(r"[^A-Z0-9]", "_", node.upper())


def hosts_file(addresses: dict[str, str]) -> str:
    """/etc/hosts of every host's namespace: localhost and each host by its node
    name (names that are not valid host names, RFC 1123, are left out)."""
    lines = ["127.0.0.1\tlocalhost"]
    lines += [f"{a}\t{n}" for n, a in addresses.items() if _hostname(n)]
    return "\n".join(lines) + "\n"


def _hostname(name: str) -> bool:
    label = r"[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    return re.fullmatch(rf"{label}(\.{label})*", name) is not None
