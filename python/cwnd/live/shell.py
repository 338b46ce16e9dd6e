"""`cwnd shell`: any program across a scenario's network (docs/live.md).

The scenario's hosts (`shell_hosts.hosts`) become network namespaces joined only
through the relay, which carries every IP packet between them — TCP, UDP, ICMP —
across the scenario's links, queues, impairments and radios against the wall
clock, until the command ends (the scenario's `duration` does not limit a shell).
Servers (`--serve NAME:COMMAND`) start first, each in its host's namespace; the
command (or, without one, an interactive shell) runs in `--host`'s; its exit status
is the run's. Every host's address is in the commands' environment
(`CWND_HOST_<NAME>`, and `CWND_HOST`: the host it runs on), and every host's name
resolves inside the namespaces (a hosts file `ip netns exec` mounts over
/etc/hosts). Run with sudo, the commands run as the invoking user (SUDO_UID,
SUDO_GID) through `setpriv`.
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import shlex
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass
from ipaddress import IPv4Address
from pathlib import Path
from typing import Any

from cwnd import _cwnd
from cwnd.live import checks, shell_hosts, shell_output
from cwnd.live.network import LiveNetwork, owner, remove_stale_namespaces
from cwnd.live.relay_thread import RelayThread
from cwnd.live.run import Terminated, sigterm_raises
from cwnd.scenario import load_scenario

# The namespaces exist before model time 0; the relay starts this long after.
STARTUP_SECONDS = 0.2
# How long a server gets to open a listening socket before the command starts.
SERVE_WAIT_SECONDS = 5.0
# How long a command or server gets to end after SIGTERM, before SIGKILL.
STOP_GRACE_SECONDS = 2.0


@dataclass(frozen=True)
class ShellRun:
    spec: dict[str, Any]
    seed: int
    out: Path
    host: str | None
    serves: list[tuple[str, str]]
    command: list[str]


def load(path: Path) -> dict[str, Any]:
    """The plan of scenario file `path` for the shell: as `load_scenario` gives it,
    with `shell_hosts.SHELL_FLOW` added to one that has neither flows nor generators."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return load_scenario(path)  # whose error names the fault
    completed = shell_hosts.with_a_flow(raw)
    if completed is raw:
        return load_scenario(path)
    plan: dict[str, Any] = _cwnd.load(json.dumps(completed), str(path.resolve().parent)).spec
    return plan


def parse_serve(text: str) -> tuple[str, str]:
    """`--serve NAME:COMMAND` as (NAME, COMMAND)."""
    name, colon, command = text.partition(":")
    if not colon or not name or not command.strip():
        raise checks.LiveRefused(
            f"--serve {text!r}: give NAME:COMMAND, a node and its server's command line "
            "(e.g. --serve server:'iperf3 -s')"
        )
    return name, command


@dataclass(frozen=True)
class User:
    """Who the commands run as: the user who ran `sudo cwnd shell`."""

    uid: int
    gid: int
    name: str | None
    home: str
    shell: str


def invoking_user() -> User | None:
    """The user sudo was run by, when this process is root and was started by sudo
    for someone else; None: the commands run as this process."""
    uid, gid = os.environ.get("SUDO_UID"), os.environ.get("SUDO_GID")
    if os.geteuid() != 0 or not uid or not gid or int(uid) == 0:
        return None
    try:
        entry = pwd.getpwuid(int(uid))
    except KeyError:
        return User(int(uid), int(gid), None, "/", "/bin/sh")
    return User(int(uid), int(gid), entry.pw_name, entry.pw_dir, entry.pw_shell or "/bin/sh")


def as_user(user: User | None, argv: list[str]) -> list[str]:
    """`argv` run as `user` (setpriv(1): real and effective ids, the user's groups or
    none when it has no passwd entry); unchanged for None."""
    if user is None:
        return argv
    groups = "--init-groups" if user.name else "--clear-groups"
    return ["setpriv", f"--reuid={user.uid}", f"--regid={user.gid}", groups, "--", *argv]


def interactive_shell(user: User | None) -> list[str]:
    """The shell a run without a command opens: the user's login shell, else
    $SHELL, else /bin/sh."""
    if user is not None:
        return [user.shell]
    return [os.environ.get("SHELL") or "/bin/sh"]


def run_shell(run: ShellRun, log: Any = print) -> int:
    """Runs `run`; returns the command's exit status (128 + N when a signal N ended
    it). Raises `LiveRefused` for what cannot run; `KeyboardInterrupt` and
    `Terminated` after cleaning up and writing the results."""
    checks.check_host("cwnd shell")
    spec = run.spec
    named = [n for n in [run.host, *(h for h, _ in run.serves)] if n is not None]
    nodes = shell_hosts.nodes(spec)
    for n in named:
        if n not in nodes:
            raise checks.LiveRefused(
                f"--host/--serve {n!r}: no such node; the scenario's nodes: {', '.join(nodes)}"
            )
    hosts = shell_hosts.hosts(spec, named)
    if len(hosts) > shell_hosts.MAX_HOSTS:
        raise checks.LiveRefused(
            f"the scenario has {len(hosts)} hosts; cwnd shell makes at most "
            f"{shell_hosts.MAX_HOSTS} (one /24)"
        )
    if not hosts:
        raise checks.LiveRefused(
            "the scenario has no end host (every node is on two media or more); "
            "name the nodes to use with --host or --serve"
        )
    host = run.host or _first_sender(spec) or hosts[0]
    for ns in remove_stale_namespaces():
        print(
            f"cwnd: removed network namespace {ns}: its run (process {owner(ns)}) has ended",
            file=sys.stderr,
        )
    run.out.mkdir(parents=True, exist_ok=True)
    user = invoking_user()
    with LiveNetwork(hosts) as net, sigterm_raises():
        net.create({}, {})
        addresses = {h: net.address(h) for h in hosts}
        net.write_hosts_files(shell_hosts.hosts_file(addresses))
        env = {**os.environ, **{shell_hosts.env_name(h): a for h, a in addresses.items()}}
        if user is not None:
            env.update(HOME=user.home, USER=user.name or "", LOGNAME=user.name or "")
            env["SHELL"] = user.shell
        session = _Session(net, env, user, run.out)
        epoch = time.monotonic_ns() + int(STARTUP_SECONDS * 1e9)
        relay_hosts = [(h, net.tun_fds[h], int(IPv4Address(a))) for h, a in addresses.items()]
        with RelayThread(
            json.dumps(spec),
            run.seed,
            hosts=relay_hosts,
            flows=[],
            epoch_ns=epoch,
            until_stopped=True,
        ) as relay:
            interrupted: BaseException | None = None
            status = 1
            try:
                # Packets sent before the epoch would wait in the TUN devices.
                time.sleep(max(0.0, (epoch - time.monotonic_ns()) / 1e9))
                for name, command in run.serves:
                    session.serve(name, shlex.split(command))
                argv = run.command or interactive_shell(user)
                status = session.command(host, argv, record=bool(run.command), relay=relay)
            except (KeyboardInterrupt, Terminated) as e:
                interrupted = e
            finally:
                session.stop()
                relay.stop()
            results = relay.result()
    shell_output.write(run.out, results, spec, addresses, net.prefix)
    if user is not None:
        shell_output.give_to(run.out, user.uid, user.gid)
    log(shell_output.report(results["relay"], color=sys.stdout.isatty()))
    log(f"written to {run.out}/")
    if interrupted is not None:
        raise interrupted
    return status


def _first_sender(spec: dict[str, Any]) -> str | None:
    flows = [f for f in spec.get("flows", []) if f.get("name") != shell_hosts.SHELL_FLOW]
    return flows[0]["from"] if flows else None


class _Session:
    """The servers and the command of one run, their output copied to the terminal
    and to the run folder."""

    def __init__(self, net: LiveNetwork, env: dict[str, str], user: User | None, out: Path) -> None:
        self.net, self.env, self.user, self.out = net, env, user, out
        self.servers: list[tuple[str, subprocess.Popen[bytes]]] = []
        self.main: subprocess.Popen[bytes] | None = None
        self.copies: list[shell_output.Copy] = []

    def _popen(self, host: str, argv: list[str], **how: Any) -> subprocess.Popen[bytes]:
        command = ["ip", "netns", "exec", self.net.namespace(host), *as_user(self.user, argv)]
        return subprocess.Popen(command, env={**self.env, "CWND_HOST": host}, **how)

    def serve(self, host: str, argv: list[str]) -> None:
        """Starts a server in `host`'s namespace, its output to the terminal (each line
        marked with its host) and to `serve-<host>.log`; returns once it has a
        listening socket, or after `SERVE_WAIT_SECONDS`, or raises if it ended."""
        p = self._popen(
            host,
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.servers.append((host, p))
        assert p.stdout is not None
        log = self.out / f"serve-{host}.log"
        self.copies.append(shell_output.Copy(p.stdout, sys.stderr.buffer, log, f"[{host}] "))
        deadline = time.monotonic() + SERVE_WAIT_SECONDS
        while not shell_output.listening(p.pid) and time.monotonic() < deadline:
            if p.poll() is not None:
                raise checks.LiveRefused(
                    f"--serve {host}:{shlex.join(argv)} ended with status {p.returncode} "
                    f"before the command started (its output: {log})"
                )
            time.sleep(0.02)

    def command(self, host: str, argv: list[str], record: bool, relay: RelayThread) -> int:
        """Runs the command in `host`'s namespace until it ends; its output goes to
        the terminal and, with `record`, to `command.stdout` and `command.stderr`
        (an interactive shell keeps the terminal to itself). Its exit status, or
        128 + N for signal N."""
        if record:
            p = self._popen(host, argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            assert p.stdout is not None and p.stderr is not None
            self.copies.append(
                shell_output.Copy(p.stdout, sys.stdout.buffer, self.out / "command.stdout")
            )
            self.copies.append(
                shell_output.Copy(p.stderr, sys.stderr.buffer, self.out / "command.stderr")
            )
        else:
            p = self._popen(host, argv)
        self.main = p
        while p.poll() is None:
            if not relay.alive():
                relay.result()  # raises what stopped it
                raise RuntimeError("the relay stopped before the command ended")
            with contextlib.suppress(subprocess.TimeoutExpired):
                p.wait(timeout=0.1)
        return p.returncode if p.returncode >= 0 else 128 - p.returncode

    def stop(self) -> None:
        """Ends the command, then the servers (SIGTERM, then SIGKILL after
        `STOP_GRACE_SECONDS`), then waits for their output to be copied."""
        for p in [self.main, *(p for _, p in reversed(self.servers))]:
            if p is not None:
                _end(p)
        for c in self.copies:
            c.join()


def _end(p: subprocess.Popen[bytes]) -> None:
    if p.poll() is None:
        p.terminate()
        try:
            p.wait(timeout=STOP_GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
