"""What live mode can run, checked before anything is created. Every refusal is
one line naming the field, the value and what is allowed (`LiveRefused`, exit 2).

Kernel TCP honours a scenario flow through: `cc` → TCP_CONGESTION (only what
/proc/sys/net/ipv4/tcp_available_congestion_control lists), `tcp.mss` →
TCP_MAXSEG, `tcp.rwnd` and `tcp.rcvbuf` → SO_RCVBUF, `tcp.sndbuf` → SO_SNDBUF,
`tcp.write_size` → the sender's write() size, `tcp.nagle = false` → TCP_NODELAY,
`tcp.initial_window` → the route's `initcwnd`, and `tcp.timestamps`, `tcp.sack`,
`tcp.dsack`, `tcp.frto`, `tcp.rack`, `tcp.ecn` → the per-namespace sysctls of both
hosts;
`tcp.delayed_ack = true`, `tcp.quickack = true` and `tcp.prr = true` are what the
kernel always does, and so is `tcp.dsack_undo` equal to `tcp.dsack`. `tcp.profile` is
"linux" (the kernel's own options); "rfc" and "ns2" are refused. Any other TCP option
written in the scenario is refused: the kernel has no per-socket switch for it.
"""

from __future__ import annotations

import copy
import functools
import json
import socket
from pathlib import Path
from typing import Any

from cwnd import _cwnd

AVAILABLE_CC = Path("/proc/sys/net/ipv4/tcp_available_congestion_control")
TUN_DEVICE = Path("/dev/net/tun")
# CAP_NET_ADMIN (include/uapi/linux/capability.h).
CAP_NET_ADMIN = 12
# TCP options that map to per-namespace sysctls (net.ipv4.<name>): their values
# for the option off and on.
SYSCTL_OPTIONS = {
    "timestamps": {"tcp_timestamps": (0, 1)},
    "sack": {"tcp_sack": (0, 1)},
    "dsack": {"tcp_dsack": (0, 1)},
    "frto": {"tcp_frto": (0, 1)},
    # RACK: tcp_recovery's TCP_RACK_LOSS_DETECTION bit (tcp_recovery.c); TLP:
    # tcp_early_retrans 3, which tcp_schedule_loss_probe (tcp_output.c) requires.
    "rack": {"tcp_recovery": (0, 1), "tcp_early_retrans": (0, 3)},
}
# tcp.ecn → net.ipv4.tcp_ecn (ip-sysctl.rst: 0 off, 1 ask and accept, 2 accept):
# the option's names and Linux's values.
ECN_SYSCTL = {"off": 0, "on": 1, "accept": 2, 0: 0, 1: 1, 2: 2}
SOCKET_OPTIONS = {"mss", "rwnd", "rcvbuf", "sndbuf", "write_size", "nagle", "initial_window"}
# cwnd's default "newreno" is the kernel's "reno" module: Linux's Reno congestion
# control with NewReno recovery (RFC 6582, tcp_input.c) when SACK is off.
KERNEL_CC = {"newreno": "reno"}


class LiveRefused(Exception):
    """A scenario or a host that live mode cannot run; one line for the user."""


def has_net_admin(status: str | None = None) -> bool:
    """Whether the effective capabilities (CapEff of /proc/self/status) include
    CAP_NET_ADMIN."""
    text = status if status is not None else Path("/proc/self/status").read_text()
    for line in text.splitlines():
        if line.startswith("CapEff:"):
            return bool(int(line.split()[1], 16) >> CAP_NET_ADMIN & 1)
    return False


def check_host(command: str = "cwnd live") -> None:
    """Refuses a process without CAP_NET_ADMIN: a user's, or root's in a container
    started without it (where "run it as root" alone would not help)."""
    if not has_net_admin():
        raise LiveRefused(
            f"{command} needs root or CAP_NET_ADMIN (it creates network namespaces and "
            "TUN devices); run it as root, in a container started with --cap-add=NET_ADMIN"
        )
    if not TUN_DEVICE.exists():
        raise LiveRefused(f"{command} needs {TUN_DEVICE} (the tun module); it is missing")


def available_cc() -> list[str]:
    return AVAILABLE_CC.read_text().split()


def sctp_in_kernel() -> bool:
    try:
        socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_SCTP).close()
    except OSError:
        return False
    return True


# Kept as written; the rest of a flow is compared with a default flow of the same
# controller and recovery.
IDENTITY = ("name", "from", "to", "transport", "cc", "recovery")


def asked(spec: dict[str, Any]) -> dict[str, Any]:
    """The scenario as its author wrote it: a loaded plan writes every default out
    (`recovery = null`, every TCP option, every controller parameter), and live mode
    refuses what the kernel cannot honour only when it was asked for. Drops empty
    values everywhere, and each flow's fields equal to a default flow's of its
    controller and recovery (a recovery without SACK's drops the profile's RACK)."""
    out: dict[str, Any] = _without_none(copy.deepcopy(spec))
    for i, flow in enumerate(out.get("flows", [])):
        if flow.get("transport", "tcp") != "tcp":
            continue
        default = _default_flow(kernel_cc(flow), flow.get("recovery"))
        kept = {k: v for k, v in flow.items() if k in IDENTITY or v != default.get(k)}
        if isinstance(flow.get("tcp"), dict):
            tcp = {k: v for k, v in flow["tcp"].items() if v != default.get("tcp", {}).get(k)}
            kept["tcp"] = tcp
        cc = flow.get("cc")
        if isinstance(cc, dict):
            base = default.get("cc", {}) if isinstance(default.get("cc"), dict) else {}
            params = {k: v for k, v in cc.items() if k != "name" and v != base.get(k)}
            kept["cc"] = {"name": cc["name"], **params} if params else cc["name"]
        out["flows"][i] = {k: v for k, v in kept.items() if v != {}}
    return out


@functools.cache
def _default_flow(cc: str, recovery: str | None) -> dict[str, Any]:
    written = {"from": "a", "to": "b", "cc": cc, "recovery": recovery}
    minimal = {
        "duration": "1s",
        "links": [{"between": ["a", "b"], "bandwidth": "1Mbps", "delay": "1ms"}],
        "flows": [_without_none(written)],
    }
    flow: dict[str, Any] = _without_none(_cwnd.load(json.dumps(minimal)).spec["flows"][0])
    return flow


def _without_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_none(v) for v in value]
    return value


def check_scenario(spec: dict[str, Any], cc_list: list[str]) -> list[str]:
    """Refuses what live mode cannot honour; returns notes for what it records
    differently (printed, never silent)."""
    notes = []
    trace = spec.get("trace", {})
    if trace.get("sampling", "change") != "interval":
        notes.append("trace.sampling: live mode samples TCP_INFO every trace.interval")
    if trace.get("segments"):
        notes.append("trace.segments: live mode has no per-segment trace (TCP_INFO samples)")
    for i, flow in enumerate(spec["flows"]):
        check_flow(flow.get("name", f"flow{i}"), flow, cc_list)
    return notes


def check_flow(name: str, flow: dict[str, Any], cc_list: list[str]) -> None:
    transport = flow.get("transport", "tcp")
    if transport == "sctp":
        why = (
            "this kernel has no SCTP module"
            if not sctp_in_kernel()
            else "live SCTP is not supported yet"
        )
        raise LiveRefused(f"flow {name!r}: transport = 'sctp' cannot run live: {why}")
    if transport != "tcp":
        raise LiveRefused(f"flow {name!r}: transport = {transport!r}: live mode runs TCP only")
    cc = kernel_cc(flow)
    params = (
        sorted(k for k in flow.get("cc", {}) if k != "name")
        if isinstance(flow.get("cc"), dict)
        else []
    )
    if params:
        raise LiveRefused(
            f"flow {name!r}: cc parameters {params} cannot be set on the kernel's "
            f"{cc!r}; live mode takes a bare name"
        )
    if cc not in cc_list:
        raise LiveRefused(
            f"flow {name!r}: cc = {cc!r} is not available in this kernel "
            f"(tcp_available_congestion_control: {' '.join(cc_list)})"
        )
    if "recovery" in flow:
        raise LiveRefused(
            f"flow {name!r}: recovery = {flow['recovery']!r}: the kernel's loss recovery "
            "(SACK, RACK, PRR) cannot be chosen per socket"
        )
    tcp = flow.get("tcp", {})
    if tcp.get("profile", "linux") != "linux":
        raise LiveRefused(
            f"flow {name!r}: tcp.profile = {tcp['profile']!r} cannot run live: the kernel "
            "runs Linux's own TCP (tcp.profile = 'linux'); set the options it has one by one"
        )
    if "dsack_undo" in tcp and tcp["dsack_undo"] != tcp.get("dsack", True):
        raise LiveRefused(
            f"flow {name!r}: tcp.dsack_undo = {tcp['dsack_undo']}: the kernel undoes on "
            "D-SACK whenever it has D-SACK (tcp_try_undo_dsack); set it equal to tcp.dsack"
        )
    always = {"delayed_ack", "dsack_undo", "profile", "prr", "quickack"}
    allowed = SOCKET_OPTIONS | set(SYSCTL_OPTIONS) | {"ecn"} | always
    if tcp.get("delayed_ack") is False:
        raise LiveRefused(
            f"flow {name!r}: tcp.delayed_ack = false: the kernel always delays ACKs "
            "(with its own quick-ack heuristics); only true can run live"
        )
    if tcp.get("quickack") is False:
        raise LiveRefused(
            f"flow {name!r}: tcp.quickack = false: the kernel always acknowledges every "
            "segment at the start, while its receive window opens and after a "
            "retransmission (tcp_incr_quickack, tcp_grow_window); only true can run live"
        )
    if tcp.get("prr") is False:
        raise LiveRefused(
            f"flow {name!r}: tcp.prr = false: the kernel always reduces cwnd in fast "
            "recovery with PRR (tcp_cwnd_reduction); only true can run live"
        )
    for key in tcp:
        if key not in allowed:
            raise LiveRefused(
                f"flow {name!r}: tcp.{key} has no kernel equivalent per connection; "
                f"live mode honours tcp.{{{', '.join(sorted(allowed))}}}"
            )


def kernel_cc(flow: dict[str, Any]) -> str:
    """The kernel's name of the flow's congestion control."""
    cc = flow.get("cc", "newreno")
    name: str = cc.get("name", "newreno") if isinstance(cc, dict) else cc
    return KERNEL_CC.get(name, name)


def namespace_sysctls(spec: dict[str, Any]) -> dict[str, dict[str, int]]:
    """The sysctls each end host's namespace needs, by node; refuses two flows
    asking one namespace for different values."""
    wanted: dict[str, dict[str, int]] = {}
    for i, flow in enumerate(spec["flows"]):
        name = flow.get("name", f"flow{i}")
        for key, asked, sysctl, value in _flow_sysctls(flow.get("tcp", {})):
            for node in (flow["from"], flow["to"]):
                have = wanted.setdefault(node, {}).setdefault(sysctl, value)
                if have != value:
                    raise LiveRefused(
                        f"flow {name!r}: tcp.{key} = {asked!r} conflicts with another "
                        f"flow of host {node!r}: net.ipv4.{sysctl} is one per namespace"
                    )
    return wanted


def _flow_sysctls(tcp: dict[str, Any]) -> list[tuple[str, Any, str, int]]:
    """(option, its value, sysctl, the sysctl's value) for each option of a flow's
    `tcp` table that a namespace's sysctl carries."""
    out = []
    for key, sysctls in SYSCTL_OPTIONS.items():
        if key in tcp:
            on = bool(tcp[key])
            out += [(key, on, sysctl, values[on]) for sysctl, values in sysctls.items()]
    if "ecn" in tcp:
        out.append(("ecn", tcp["ecn"], "tcp_ecn", ECN_SYSCTL[tcp["ecn"]]))
    return out
