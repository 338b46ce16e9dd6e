"""`cwnd shell` (docs/live.md): any program across a scenario's network.

The first tests need nothing special. The others need root (or CAP_NET_ADMIN) and
/dev/net/tun, some of them iperf3 or ping too, and are skipped with the reason
where one is missing (CI runs as root and installs both, `.ci/run`).
"""

from __future__ import annotations

import csv
import json
import os
import pty
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cwnd.live import checks, shell, shell_hosts, shell_output
from cwnd.live.checks import LiveRefused
from cwnd.live.network import leftovers

CWND = [sys.executable, "-m", "cwnd"]
can_go_live = checks.has_net_admin() and checks.TUN_DEVICE.exists()
live = pytest.mark.skipif(
    not can_go_live, reason="cwnd shell needs root or CAP_NET_ADMIN and /dev/net/tun"
)
iperf3 = pytest.mark.skipif(shutil.which("iperf3") is None, reason="iperf3 is not installed")
ping = pytest.mark.skipif(shutil.which("ping") is None, reason="ping is not installed")


def topology(bandwidth: str = "10Mbps", delay: str = "20ms", impairments: str = "") -> str:
    """h1 — h2 over one link and nothing else: no flows."""
    return f"""
name = "shell_test"
duration = "1s"
[[links]]
between = ["h1", "h2"]
bandwidth = "{bandwidth}"
delay = "{delay}"
queue = {{ packets = 100 }}
impairments = [{impairments}]
"""


WIMAX = """
name = "w"
duration = "1s"
[[links]]
between = ["server", "bs"]
bandwidth = "100Mbps"
delay = "0.1ms"
[[links]]
between = ["ss", "client"]
bandwidth = "100Mbps"
delay = "0.1ms"
[[wimax]]
base_station = "bs"
subscribers = ["ss"]
preset = "los_snr30"
"""


# --- without root -----------------------------------------------------------------


def test_a_topology_without_flows_loads_for_the_shell(tmp_path):
    path = tmp_path / "t.toml"
    path.write_text(topology())
    spec = shell.load(path)
    assert [f["name"] for f in spec["flows"]] == [shell_hosts.SHELL_FLOW]
    assert shell_hosts.hosts(spec, []) == ["h1", "h2"]


def test_end_hosts_are_nodes_on_one_medium_and_named_routers_join_them(tmp_path):
    path = tmp_path / "w.toml"
    path.write_text(WIMAX)
    spec = shell.load(path)
    # bs and ss sit on a link and the cell each: routers.
    assert shell_hosts.hosts(spec, []) == ["server", "client"]
    assert shell_hosts.hosts(spec, ["bs"]) == ["server", "bs", "client"]
    assert shell_hosts.nodes(spec) == ["server", "bs", "ss", "client"]


def test_a_scenario_with_flows_is_loaded_as_written(tmp_path):
    path = tmp_path / "f.toml"
    path.write_text(topology() + '[[flows]]\nname = "f"\nfrom = "h2"\nto = "h1"\n')
    assert [f["name"] for f in shell.load(path)["flows"]] == ["f"]


def test_names_and_environment():
    assert shell_hosts.env_name("h1") == "CWND_HOST_H1"
    assert shell_hosts.env_name("web-server.2") == "CWND_HOST_WEB_SERVER_2"
    text = shell_hosts.hosts_file({"h1": "10.1.2.1", "bad_name": "10.1.2.2", "a-b": "10.1.2.3"})
    assert text == "127.0.0.1\tlocalhost\n10.1.2.1\th1\n10.1.2.3\ta-b\n"


@pytest.mark.parametrize("text", ["server", ":iperf3 -s", "server:", "server:  "])
def test_a_serve_without_node_or_command_is_refused(text):
    with pytest.raises(LiveRefused, match="give NAME:COMMAND"):
        shell.parse_serve(text)
    assert shell.parse_serve("server:iperf3 -s -p 5202") == ("server", "iperf3 -s -p 5202")


def test_commands_run_as_the_sudo_user(monkeypatch):
    user = shell.User(1000, 1001, "alice", "/home/alice", "/bin/bash")
    assert shell.as_user(user, ["id"]) == [
        "setpriv",
        "--reuid=1000",
        "--regid=1001",
        "--init-groups",
        "--",
        "id",
    ]
    assert shell.as_user(None, ["id"]) == ["id"]
    monkeypatch.delenv("SUDO_UID", raising=False)
    assert shell.invoking_user() is None
    if os.geteuid() == 0:
        monkeypatch.setenv("SUDO_UID", "0")
        monkeypatch.setenv("SUDO_GID", "0")
        assert shell.invoking_user() is None, "sudo by root: nothing to drop"


def test_a_listening_server_is_seen_and_a_silent_process_is_not():
    code = "import socket,sys,time\n{}\nprint('ok', flush=True)\ntime.sleep(30)"
    bind = "s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(('127.0.0.1', 0))"
    for body, expected in [(bind, True), ("pass", False)]:
        with subprocess.Popen(
            [sys.executable, "-c", code.format(body)], stdout=subprocess.PIPE, text=True
        ) as p:
            try:
                assert p.stdout is not None and p.stdout.readline() == "ok\n"
                assert shell_output.listening(p.pid) is expected
            finally:
                p.kill()


# --- live -------------------------------------------------------------------------


def cwnd_shell(tmp_path: Path, text: str, *args: str, **run: object) -> subprocess.CompletedProcess:
    path = tmp_path / "s.toml"
    path.write_text(text)
    return subprocess.run(
        [*CWND, "shell", str(path), "--out", str(tmp_path / "out"), *args],
        capture_output=True,
        text=True,
        timeout=120,
        **run,  # type: ignore[call-overload]
    )


def tuples(tmp_path: Path) -> list[dict[str, str]]:
    with (tmp_path / "out" / "tuples.csv").open() as f:
        return list(csv.DictReader(f))


@live
def test_the_commands_status_names_and_environment(tmp_path):
    script = 'getent hosts h2; echo "$CWND_HOST_H2 $CWND_HOST"; exit 3'
    done = cwnd_shell(tmp_path, topology(), "--", "sh", "-c", script)
    assert done.returncode == 3, done.stderr
    lines = done.stdout.splitlines()
    address = lines[0].split()[0]
    assert re.fullmatch(r"10\.\d+\.\d+\.2", address) and lines[0].split()[1] == "h2"
    assert lines[1] == f"{address} h1", "the command runs on the first host, h1"
    assert (tmp_path / "out" / "command.stdout").read_text().splitlines()[:2] == lines[:2]
    for name in ("links.csv", "relay.json", "hosts.csv", "tuples.csv"):
        assert (tmp_path / "out" / name).exists(), name
    assert leftovers(run_pid(tmp_path)) == [], "a normal exit removes everything"


def run_pid(tmp_path: Path) -> int:
    """The run's process id, from its namespaces' names in hosts.csv
    (`cwnd-<pid>-<tag>-h<i>`)."""
    with (tmp_path / "out" / "hosts.csv").open() as f:
        namespace = next(csv.DictReader(f))["namespace"]
    return int(namespace.split("-")[1])


@live
@ping
def test_ping_sees_the_modelled_round_trip(tmp_path):
    done = cwnd_shell(tmp_path, topology(), "--", "ping", "-c", "5", "-i", "0.2", "h2")
    assert done.returncode == 0, done.stderr
    relay = json.loads((tmp_path / "out" / "relay.json").read_text())
    # One way: 84 B (20 IP + 8 ICMP + 56) at 10 Mb/s = 67.2 µs, + 20 ms = 20.0672 ms;
    # the model's round trip is twice that, 40.1344 ms.
    model_rtt = 2 * (0.020 + 84 * 8 / 10e6)
    icmp = [t for t in tuples(tmp_path) if t["protocol"] == "icmp"]
    assert len(icmp) == 2 and all(int(t["packets_delivered"]) == 5 for t in icmp)
    assert all(float(t["delay_min"]) == pytest.approx(model_rtt / 2, abs=1e-9) for t in icmp)
    rtt = re.search(r"= ([\d.]+)/([\d.]+)/([\d.]+)/", done.stdout)
    assert rtt is not None, done.stdout
    low, _, high = (float(x) / 1e3 for x in rtt.groups())
    # Each way leaves the relay at most late_max after the model's time. Not in
    # late_max: the time a packet waits in its TUN device before the relay reads it
    # (docs/live.md, "Limits"), under one turn of the relay's loop in the real-time
    # class; 1 ms bounds it.
    assert low >= model_rtt - 1e-5
    assert high <= model_rtt + 2 * relay["late_max"] + 1e-3, (high, relay)


@live
@ping
def test_nothing_leaves_the_runs_hosts(tmp_path):
    # Address .9 of the run's /24 is no host's: the relay reads the echo request
    # from h1's device and drops it. Any other address has no route at all.
    script = 'ping -c 1 -W 1 "${CWND_HOST_H2%.*}.9"; echo $?; ping -c 1 -W 1 192.0.2.1; echo $?'
    done = cwnd_shell(tmp_path, topology(), "--", "sh", "-c", script)
    assert done.returncode == 0, done.stderr
    assert [line for line in done.stdout.splitlines() if line.isdigit()] == ["1", "2"]
    relay = json.loads((tmp_path / "out" / "relay.json").read_text())
    assert relay["unmatched"] == 1
    assert tuples(tmp_path) == []


@live
@ping
def test_a_capture_holds_the_commands_packets(tmp_path):
    traced = topology() + '[trace]\npcap = ["h2"]\n'
    done = cwnd_shell(tmp_path, traced, "--", "ping", "-c", "2", "-i", "0.2", "h2")
    assert done.returncode == 0, done.stderr
    data = (tmp_path / "out" / "h2.pcap").read_bytes()
    # Records after the 24-byte file header: a 16-byte header (its third word the
    # captured length), then 14 bytes of made-up Ethernet and the IP packet; at h2
    # each echo request arrives and each reply leaves: 4 records of 98 bytes.
    at, protocols = 24, []
    while at < len(data):
        (length,) = struct.unpack_from("<I", data, at + 8)
        ip = data[at + 16 + 14 : at + 16 + length]
        protocols.append((length, ip[9], ip[20]))  # size, IP protocol, ICMP type
        at += 16 + length
    assert protocols == [(98, 1, 8), (98, 1, 0)] * 2


@live
@iperf3
def test_iperf3_over_10_mbps_agrees_with_the_relay_and_the_link(tmp_path):
    done = cwnd_shell(
        tmp_path,
        topology(),
        "--serve",
        "h2:iperf3 -s -1",
        "--",
        "iperf3",
        "-c",
        "h2",
        "-t",
        "8",
        "-J",
    )
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "out" / "command.stdout").read_text())
    received = report["end"]["sum_received"]
    # The data connection: the tuple h1 → h2:5201 that carried the most bytes (the
    # other is iperf3's control connection).
    data = max(
        (t for t in tuples(tmp_path) if t["dport"] == "5201" and t["protocol"] == "tcp"),
        key=lambda t: int(t["bytes_delivered"]),
    )
    # Payload the relay delivered: IP bytes less 20 (IP) + 32 (TCP with timestamps)
    # per packet.
    relayed = int(data["bytes_delivered"]) - 52 * int(data["packets_delivered"])
    assert received["bytes"] == pytest.approx(relayed, rel=0.03)
    # 10 Mb/s of 1500-byte packets carry 1448 payload bytes each: 9.653 Mb/s.
    assert received["bits_per_second"] == pytest.approx(10e6 * 1448 / 1500, rel=0.05)


def python_pair(tmp_path: Path, impairment: str, receiver: str, sender: str) -> str:
    """Runs Python program `receiver` as h2's server and `sender` as the command on
    h1, over the topology with `impairment`; the receiver's output."""
    (tmp_path / "rx.py").write_text(receiver)
    (tmp_path / "tx.py").write_text(sender)
    done = cwnd_shell(
        tmp_path,
        topology(impairments=impairment),
        "--serve",
        f"h2:{sys.executable} {tmp_path / 'rx.py'}",
        "--",
        sys.executable,
        str(tmp_path / "tx.py"),
    )
    assert done.returncode == 0, done.stderr
    return (tmp_path / "out" / "serve-h2.log").read_text()


UDP_RECEIVER = """
import signal, socket, sys
count = 0
def done(*_):
    print("received", count, flush=True)
    sys.exit(0)
signal.signal(signal.SIGTERM, done)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 9000))
while True:
    s.recv(2048)
    count += 1
"""

UDP_SENDER = """
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
start = time.monotonic()
for i in range(2000):
    while time.monotonic() < start + i * 0.001:
        pass
    s.sendto(bytes(100), ("h2", 9000))
time.sleep(0.5)
"""


@live
def test_a_udp_program_sees_the_scenarios_loss(tmp_path):
    log = python_pair(tmp_path, '{ kind = "bernoulli", p = 0.1 }', UDP_RECEIVER, UDP_SENDER)
    received = int(re.search(r"received (\d+)", log)[1])  # type: ignore[index]
    # Lost ~ Binomial(2000, 0.1): mean 200, sd √(2000 × 0.1 × 0.9) ≈ 13.4; ±4 sd.
    assert 146 <= 2000 - received <= 254, received
    (udp,) = [t for t in tuples(tmp_path) if t["dport"] == "9000"]
    assert int(udp["packets_sent"]) == 2000
    assert int(udp["drops_medium"]) == 2000 - received, "the program saw what the relay lost"


REORDER_RECEIVER = """
import json, signal, socket, sys
seen = {}
def done(*_):
    print(json.dumps(seen), flush=True)
    sys.exit(0)
signal.signal(signal.SIGTERM, done)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 9000))
while True:
    data, (_, port) = s.recvfrom(2048)
    seen.setdefault(str(port), []).append(int(data))
"""

REORDER_SENDER = """
import socket, time
a, b = (socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(2))
for i in range(1, 201):
    for s in (a, b):
        s.sendto(str(i).encode(), ("h2", 9000))
    time.sleep(0.002)
time.sleep(0.5)
"""


@live
def test_each_5_tuple_is_reordered_as_a_flow_of_its_own(tmp_path):
    # Packet 100 of each flow arrives after the 3 packets of its flow behind it. The
    # two sockets' datagrams alternate: were all traffic one flow, only the 100th
    # datagram overall (socket b's 50th) would be moved.
    reorder = '{ kind = "reorder", packet = 100, positions = 3 }'
    log = python_pair(tmp_path, reorder, REORDER_RECEIVER, REORDER_SENDER)
    seen = json.loads(log[log.index("{") :])
    expected = [*range(1, 100), 101, 102, 103, 100, *range(104, 201)]
    assert list(seen.values()) == [expected, expected]


def start_a_long_shell(tmp_path: Path) -> subprocess.Popen[str]:
    path = tmp_path / "s.toml"
    path.write_text(topology())
    p = subprocess.Popen(
        [*CWND, "shell", str(path), "--out", str(tmp_path / "out"), "--", "sleep", "60"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while not leftovers(p.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    return p


@live
@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_nothing_is_left_after_an_interrupt(tmp_path, sig, code):
    p = start_a_long_shell(tmp_path)
    assert leftovers(p.pid), "the run made its namespaces"
    time.sleep(1.0)
    inside = _processes_in(p.pid)
    assert len(inside) == 1, "the command runs in its host's namespace"
    p.send_signal(sig)
    assert p.wait(timeout=30) == code
    assert leftovers(p.pid) == []
    assert [pid for pid in inside if Path(f"/proc/{pid}").exists()] == []
    assert (tmp_path / "out" / "relay.json").exists(), "the results up to then are written"
    p.communicate()


def _processes_in(run: int) -> list[int]:
    """The processes inside the namespaces of run `run`."""
    namespaces = [n for n in leftovers(run) if n.startswith("cwnd-")]
    pids = [
        subprocess.run(["ip", "netns", "pids", n], capture_output=True, text=True).stdout
        for n in namespaces
    ]
    return [int(pid) for text in pids for pid in text.split()]


@live
def test_a_server_that_ends_at_once_is_an_error_and_leaves_nothing(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(topology())
    p = subprocess.Popen(
        [
            *CWND,
            "shell",
            str(path),
            "--out",
            str(tmp_path / "out"),
            "--serve",
            "h2:false",
            "--",
            "true",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _, err = p.communicate(timeout=60)
    assert p.returncode == 2
    assert "--serve h2:false ended with status 1" in err
    assert leftovers(p.pid) == []


@live
def test_a_topology_without_end_hosts_needs_a_named_one(tmp_path):
    link = '[[links]]\nbetween = ["{}", "{}"]\nbandwidth = "1Mbps"\ndelay = "1ms"\n'
    ring = 'name = "ring"\nduration = "1s"\n' + "".join(
        link.format(a, b) for a, b in [("a", "b"), ("b", "c"), ("c", "a")]
    )
    done = cwnd_shell(tmp_path, ring, "--", "true")
    assert done.returncode == 2
    assert "no end host" in done.stderr
    named = cwnd_shell(tmp_path, ring, "--host", "a", "--", "true")
    assert named.returncode == 0, named.stderr


@live
def test_without_a_command_the_shell_reads_its_commands(tmp_path):
    done = cwnd_shell(tmp_path, topology(), input='echo "on $CWND_HOST"; exit 4\n')
    assert done.returncode == 4
    assert "on h1" in done.stdout


@live
@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_ctrl_c_at_the_interactive_shell_ends_its_job_not_the_run(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(topology())
    pid, fd = pty.fork()
    if pid == 0:  # the child: cwnd on a terminal of its own, bash as its shell
        os.environ["SHELL"] = "/bin/bash"
        os.execv(CWND[0], [*CWND, "shell", str(path), "--out", str(tmp_path / "out")])
    seen = bytearray()

    def type_and_read(keys: bytes, seconds: float) -> None:
        os.write(fd, keys)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if select.select([fd], [], [], 0.1)[0]:
                try:
                    seen.extend(os.read(fd, 4096))
                except OSError:  # the terminal closed: cwnd ended
                    return

    type_and_read(b"", 5.0)
    type_and_read(b"sleep 30\n", 1.0)
    type_and_read(b"\x03", 1.0)  # Ctrl-C: to the terminal's foreground job, sleep
    type_and_read(b"echo alive on $CWND_HOST\n", 2.0)
    type_and_read(b"exit 7\n", 10.0)
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    assert os.waitstatus_to_exitcode(status) == 7, seen.decode(errors="replace")
    assert b"alive on h1" in seen


@live
def test_under_sudo_the_command_runs_as_the_user(tmp_path):
    env = {**os.environ, "SUDO_UID": "65534", "SUDO_GID": "65534"}
    done = cwnd_shell(tmp_path, topology(), "--host", "h2", "--", "id", "-u", env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "65534"
    assert (tmp_path / "out" / "relay.json").stat().st_uid == 65534
