"""The network namespaces, TUN devices, addresses and processes of one live run.

Every end host of the scenario gets a namespace `cwnd-<pid>-<tag>-h<i>` (`tag`:
six random hex digits) holding one TUN device `cw<pid>h<i>` (the relay holds its
other end) with an address of the run's private /24, `10.<pid/256 % 256>.<pid %
256>.0/24`. The addresses exist only inside those namespaces: nothing is routed to
or from the host's own interfaces, and the only path between two hosts is the relay.
`close()` removes everything, at any point and more than once: processes first (the
run's own, then any other still inside its namespaces: a command's children), then the
TUN descriptors (a non-persistent TUN device disappears with them), then the
namespaces and their hosts files (`/etc/netns/<namespace>/`, which `ip netns exec`
mounts over `/etc`: `cwnd shell`'s names).

A SIGKILLed run leaves its namespaces (nothing else: its TUN devices go with its
descriptors). The tag keeps a later run whose process has the same id from
colliding with them, and `remove_stale_namespaces` deletes those whose process has
ended before a run makes its own.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from cwnd import _cwnd

ENDPOINT = Path(__file__).with_name("endpoint.py")
# `ip netns exec NS` bind-mounts the files of /etc/netns/NS/ over /etc's (ip-netns(8)).
NETNS_ETC = Path("/etc/netns")


def ip(*args: str) -> str:
    """Runs `ip` with `args`; its output, or a `RuntimeError` with its own words."""
    done = subprocess.run(["ip", *args], capture_output=True, text=True)
    if done.returncode != 0:
        reason = done.stderr.strip() or f"exit status {done.returncode}"
        raise RuntimeError(f'live mode: "ip {" ".join(args)}" failed: {reason}')
    return done.stdout


def owner(namespace: str) -> int | None:
    """The process id of the live run that made `namespace` (`cwnd-<pid>-…`), or None
    for a namespace no live run made."""
    made = re.match(r"cwnd-(\d+)-", namespace)
    return int(made[1]) if made else None


def stale_namespaces(names: list[str]) -> list[str]:
    """The namespaces among `names` that a live run made whose process is no longer
    running: a SIGKILLed run's, never one whose run lives."""
    return [n for n in names if (pid := owner(n)) is not None and not _running(pid)]


def _running(pid: int) -> bool:
    """Whether process `pid` exists and has not ended (a zombie has ended: only its
    parent has not read its exit status yet)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def remove_stale_namespaces() -> list[str]:
    """Deletes the namespaces of live runs whose process has ended; returns their
    names. Processes still inside one (the dead run's endpoints) end by themselves at
    their scenario's end; the namespace goes with the last of them."""
    names = [line.split()[0] for line in ip("netns", "list").splitlines() if line.strip()]
    stale = stale_namespaces(names)
    for ns in stale:
        ip("netns", "del", ns)
        shutil.rmtree(NETNS_ETC / ns, ignore_errors=True)
    return stale


class LiveNetwork:
    def __init__(self, hosts: list[str], pid: int | None = None) -> None:
        self.pid = os.getpid() if pid is None else pid
        self.tag = secrets.token_hex(3)
        self.hosts = hosts
        self.subnet = f"10.{(self.pid >> 8) & 255}.{self.pid & 255}"
        self.tun_fds: dict[str, int] = {}
        self.namespaces: list[str] = []
        self.processes: list[subprocess.Popen[str]] = []

    @property
    def prefix(self) -> str:
        return f"cwnd-{self.pid}-{self.tag}"

    def namespace(self, host: str) -> str:
        return f"{self.prefix}-h{self.hosts.index(host)}"

    def tun(self, host: str) -> str:
        return f"cw{self.pid}h{self.hosts.index(host)}"

    def address(self, host: str) -> str:
        return f"{self.subnet}.{self.hosts.index(host) + 1}"

    def create(self, sysctls: dict[str, dict[str, int]], initcwnd: dict[str, int]) -> None:
        """Creates every host's namespace and device. `sysctls`: net.ipv4 values per
        host; `initcwnd`: the initial window of a host's route to the others."""
        for host in self.hosts:
            ns, tun = self.namespace(host), self.tun(host)
            ip("netns", "add", ns)
            self.namespaces.append(ns)
            self.tun_fds[host] = _cwnd.open_tun(tun)
            ip("link", "set", "dev", tun, "netns", ns)
            # IPv6 off before the device is up: no router or neighbour solicitations.
            settings = {"net.ipv6.conf.all.disable_ipv6": 1}
            settings.update({f"net.ipv4.{k}": v for k, v in sysctls.get(host, {}).items()})
            self.exec(host, ["sysctl", "-qw", *(f"{k}={v}" for k, v in settings.items())])
            ip("-n", ns, "link", "set", "lo", "up")
            ip("-n", ns, "addr", "add", f"{self.address(host)}/24", "dev", tun)
            ip("-n", ns, "link", "set", tun, "up")
            if host in initcwnd:
                route = [f"{self.subnet}.0/24", "dev", tun, "initcwnd", str(initcwnd[host])]
                ip("-n", ns, "route", "replace", *route)

    def write_hosts_files(self, text: str) -> None:
        """Gives every namespace `text` as its /etc/hosts."""
        for ns in self.namespaces:
            folder = NETNS_ETC / ns
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "hosts").write_text(text)

    def exec(self, host: str, command: list[str]) -> None:
        ip("netns", "exec", self.namespace(host), *command)

    def spawn_endpoint(self, host: str, args: list[str]) -> subprocess.Popen[str]:
        """Starts `endpoint.py` in the host's namespace, in a session of its own
        (a Ctrl-C reaches the front end, which stops it in order)."""
        command = ["ip", "netns", "exec", self.namespace(host), sys.executable, str(ENDPOINT)]
        p = subprocess.Popen(
            [*command, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        self.processes.append(p)
        return p

    def close(self) -> None:
        for p in self.processes:
            if p.poll() is None:
                p.kill()
            p.wait()
            for stream in (p.stdout, p.stderr):
                if stream is not None:
                    stream.close()
        self.processes.clear()
        for ns in self.namespaces:
            _kill_inside(ns)
        for fd in self.tun_fds.values():
            os.close(fd)
        self.tun_fds.clear()
        for ns in self.namespaces:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
            shutil.rmtree(NETNS_ETC / ns, ignore_errors=True)
        self.namespaces.clear()

    def __enter__(self) -> LiveNetwork:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _kill_inside(namespace: str) -> None:
    """SIGKILLs every process in `namespace` (`ip netns pids`) and waits until none
    is left (at most 2 s)."""
    for _ in range(200):
        pids = subprocess.run(["ip", "netns", "pids", namespace], capture_output=True, text=True)
        found = [int(p) for p in pids.stdout.split()]
        if not found:
            return
        for pid in found:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.01)


def leftovers(pid: int) -> list[str]:
    """Namespaces, links and hosts files named for run `pid` that still exist (for
    tests)."""
    names = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    found = [line.split()[0] for line in names.splitlines() if line.startswith(f"cwnd-{pid}-")]
    links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    found += [w.rstrip(":") for w in links.split() if w.startswith(f"cw{pid}h")]
    found += [str(p) for p in NETNS_ETC.glob(f"cwnd-{pid}-*")]
    return found
