"""Live mode (docs/live.md): real Linux TCP over cwnd's network models.

The first tests need nothing special. The live ones need root (or CAP_NET_ADMIN)
and /dev/net/tun, and are skipped with the reason where either is missing.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

import pytest

from cwnd import _cwnd
from cwnd.live import checks
from cwnd.live.checks import LiveRefused
from cwnd.live.endpoint import _TCP_INFO, TCP_INFO_BYTES, tcp_info
from cwnd.live.network import leftovers, stale_namespaces

ROOT = Path(__file__).resolve().parent.parent
CWND = [sys.executable, "-m", "cwnd"]

can_go_live = checks.has_net_admin() and checks.TUN_DEVICE.exists()
live = pytest.mark.skipif(
    not can_go_live, reason="live mode needs root or CAP_NET_ADMIN and /dev/net/tun"
)


def scenario(duration: str, bandwidth: str, delay: str, impairments: str = "", **flow: str) -> str:
    extra = "".join(f'{k} = "{v}"\n' for k, v in flow.items())
    return f"""
name = "live_test"
duration = "{duration}"
[[links]]
between = ["h1", "h2"]
bandwidth = "{bandwidth}"
delay = "{delay}"
queue = {{ packets = 100 }}
impairments = [{impairments}]
[[flows]]
name = "f"
from = "h1"
to = "h2"
{extra}
[trace]
sampling = "interval"
interval = "100ms"
"""


# --- without root -----------------------------------------------------------------


def test_cap_net_admin_is_read_from_the_effective_set():
    # CAP_NET_ADMIN is bit 12: 0x1000.
    assert checks.has_net_admin("Name:\tx\nCapEff:\t0000000000001000\n")
    assert checks.has_net_admin("CapEff:\t000001ffffffffff\n")
    assert not checks.has_net_admin("CapEff:\t0000000000000800\n")
    assert not checks.has_net_admin("CapEff:\t0000000000000000\n")


def test_tcp_info_fields_sit_where_the_kernel_header_puts_them():
    # struct tcp_info: 8 u8, then u32 tcpi_rto at byte 8, tcpi_snd_mss at 16,
    # tcpi_unacked at 24, tcpi_rtt at 68, tcpi_snd_ssthresh at 76, tcpi_snd_cwnd at
    # 80, tcpi_total_retrans at 100, u64 tcpi_bytes_acked at 120, tcpi_delivery_rate
    # at 160, tcpi_bytes_sent at 200, tcpi_bytes_retrans at 208.
    raw = bytearray(TCP_INFO_BYTES)
    for offset, fmt, value in [
        (8, "I", 204_000),
        (16, "I", 1448),
        (24, "I", 7),
        (68, "I", 40_500),
        (76, "I", 33),
        (80, "I", 42),
        (100, "I", 5),
        (120, "Q", 10**9 + 1),
        (160, "Q", 1_250_000),
        (200, "Q", 10**9 + 77),
        (208, "Q", 7240),
    ]:
        struct.pack_into(f"={fmt}", raw, offset, value)

    class FakeSocket:
        def getsockopt(self, level: int, name: int, size: int) -> bytes:
            assert size == _TCP_INFO.size
            return bytes(raw)

    info = tcp_info(FakeSocket())  # type: ignore[arg-type]
    assert info["rto"] == 204_000 and info["snd_mss"] == 1448 and info["unacked"] == 7
    assert info["rtt"] == 40_500 and info["snd_ssthresh"] == 33 and info["snd_cwnd"] == 42
    assert info["total_retrans"] == 5 and info["bytes_acked"] == 10**9 + 1
    assert info["delivery_rate"] == 1_250_000
    assert info["bytes_sent"] == 10**9 + 77 and info["bytes_retrans"] == 7240


def test_an_unknown_controller_is_refused_with_the_kernels_list():
    with pytest.raises(LiveRefused) as e:
        checks.check_flow("f", {"cc": "vegas"}, ["reno", "cubic", "bbr"])
    assert str(e.value) == (
        "flow 'f': cc = 'vegas' is not available in this kernel "
        "(tcp_available_congestion_control: reno cubic bbr)"
    )


def test_newreno_runs_as_the_kernels_reno():
    assert checks.kernel_cc({}) == "reno"
    assert checks.kernel_cc({"cc": "newreno"}) == "reno"
    checks.check_flow("f", {"cc": "cubic"}, ["reno", "cubic"])


@pytest.mark.parametrize(
    ("flow", "words"),
    [
        ({"transport": "sctp"}, "transport = 'sctp' cannot run live"),
        ({"cc": {"name": "cubic", "beta": 0.8}}, "cc parameters ['beta']"),
        ({"recovery": "sack"}, "recovery = 'sack'"),
        ({"tcp": {"dupthresh": 5}}, "tcp.dupthresh has no kernel equivalent"),
        ({"tcp": {"delayed_ack": False}}, "tcp.delayed_ack = false: the kernel always"),
        ({"tcp": {"delayed_ack_every": 3}}, "tcp.delayed_ack_every has no kernel equivalent"),
        ({"tcp": {"profile": "rfc"}}, "tcp.profile = 'rfc' cannot run live"),
        ({"tcp": {"profile": "ns2"}}, "tcp.profile = 'ns2' cannot run live"),
        ({"tcp": {"dsack_undo": False}}, "tcp.dsack_undo = False: the kernel undoes"),
        ({"tcp": {"abc_limit": 2}}, "tcp.abc_limit has no kernel equivalent"),
        ({"tcp": {"prr": False}}, "tcp.prr = false: the kernel always"),
        ({"tcp": {"quickack": False}}, "tcp.quickack = false: the kernel always"),
    ],
)
def test_what_the_kernel_cannot_honour_is_refused(flow, words):
    with pytest.raises(LiveRefused, match=re.escape(words)):
        checks.check_flow("f", flow, ["reno", "cubic", "bbr"])


def test_triggers_and_pcap_are_accepted_and_segment_traces_noted():
    spec = {"links": [], "flows": [{"from": "a", "to": "b"}]}
    assert checks.check_scenario({**spec, "trace": {"segments": True}}, ["reno"]) != []
    sampled = {"sampling": "interval"}
    pcap = {"trace": {**sampled, "pcap": ["a"]}}
    assert checks.check_scenario({**spec, **pcap}, ["reno"]) == []
    trig = {"links": [{"impairments": [{"kind": "outage", "start_on": {"segment": 1}}]}]}
    assert checks.check_scenario({**spec, **trig, "trace": sampled}, ["reno"]) == []


def test_per_namespace_sysctls_and_their_conflicts():
    flows = [
        {"name": "a", "from": "h1", "to": "h2", "tcp": {"sack": True}},
        {"name": "b", "from": "h1", "to": "h3", "tcp": {"sack": False}},
    ]
    assert checks.namespace_sysctls({"flows": flows[:1]}) == {
        "h1": {"tcp_sack": 1},
        "h2": {"tcp_sack": 1},
    }
    with pytest.raises(LiveRefused, match=re.escape("net.ipv4.tcp_sack is one per namespace")):
        checks.namespace_sysctls({"flows": flows})


def test_tcp_ecn_is_both_namespaces_tcp_ecn():
    # ip-sysctl.rst: tcp_ecn 0 off, 1 ask and accept, 2 accept (Linux's default, the
    # "linux" profile's: nothing to set); the option's names and Linux's numbers.
    checks.check_flow("f", {"cc": "cubic", "tcp": {"ecn": "on"}}, ["cubic"])
    for asked, value in [("off", 0), ("on", 1), ("accept", 2), (1, 1)]:
        flows = [{"name": "a", "from": "h1", "to": "h2", "tcp": {"ecn": asked}}]
        assert checks.namespace_sysctls({"flows": flows}) == {
            "h1": {"tcp_ecn": value},
            "h2": {"tcp_ecn": value},
        }
    flows = [
        {"name": "a", "from": "h1", "to": "h2", "tcp": {"ecn": "on"}},
        {"name": "b", "from": "h1", "to": "h3", "tcp": {"ecn": "off"}},
    ]
    message = "flow 'b': tcp.ecn = 'off' conflicts with another flow of host 'h1'"
    with pytest.raises(LiveRefused, match=re.escape(message)):
        checks.namespace_sysctls({"flows": flows})
    # The profile's "accept" is the kernel's default: a loaded plan asks nothing.
    raw = tomllib.loads(scenario("2s", "10Mbps", "10ms", cc="cubic"))
    assert "tcp" not in checks.asked(_cwnd.load(json.dumps(raw)).spec)["flows"][0]


def test_the_linux_profiles_prr_and_rack_run_live_and_rack_off_is_two_sysctls():
    # The profile's PRR, RACK-TLP and HyStart are the kernel's: nothing is asked for.
    raw = tomllib.loads(scenario("2s", "10Mbps", "10ms", cc="cubic"))
    spec = _cwnd.load(json.dumps(raw)).spec
    flow = checks.asked(spec)["flows"][0]
    assert "tcp" not in flow and flow["cc"] == "cubic"
    checks.check_flow("f", {"cc": "cubic", "tcp": {"prr": True, "rack": True}}, ["cubic"])
    # RACK off: tcp_recovery without TCP_RACK_LOSS_DETECTION (0x1), and no TLP
    # (tcp_schedule_loss_probe needs tcp_early_retrans 3 or 4).
    flows = [{"name": "a", "from": "h1", "to": "h2", "tcp": {"rack": False}}]
    off = {"tcp_recovery": 0, "tcp_early_retrans": 0}
    assert checks.namespace_sysctls({"flows": flows}) == {"h1": off, "h2": off}


def test_stale_namespaces_are_those_whose_run_has_ended():
    # Three processes: this one (running), one ended and reaped, one ended and not
    # reaped (a zombie: waitid with WNOWAIT waits for its end and leaves it).
    reaped = subprocess.Popen(["true"])
    reaped.wait()
    zombie = subprocess.Popen(["true"])
    os.waitid(os.P_PID, zombie.pid, os.WEXITED | os.WNOWAIT)
    try:
        names = [
            f"cwnd-{os.getpid()}-0a1b2c-h0",
            f"cwnd-{reaped.pid}-0a1b2c-h0",
            f"cwnd-{reaped.pid}-h1",  # named before the tag, by an older cwnd
            f"cwnd-{zombie.pid}-0a1b2c-h0",
            "cwnd-x-h0",
            "blue",
        ]
        assert stale_namespaces(names) == names[1:4]
    finally:
        zombie.wait()


REFUSED = (
    "cwnd: error: cwnd live needs root or CAP_NET_ADMIN (it creates network namespaces "
    "and TUN devices); run it as root, in a container started with --cap-add=NET_ADMIN"
)


def refusal(command: list[str], cwd: Path) -> str:
    """What `cwnd live` run by `command` (a prefix that changes who runs it) says on
    stderr; it must be refused with exit code 2."""
    path = cwd / "s.toml"
    path.write_text(scenario("2s", "10Mbps", "10ms"))
    path.chmod(0o644)
    p = subprocess.run(
        [*command, *CWND, "live", str(path)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        cwd=cwd,
    )
    assert p.returncode == 2, p.stderr
    return p.stderr.strip()


def test_root_without_net_admin_is_refused(tmp_path):
    # Root in a container started without CAP_NET_ADMIN: the message names the fix.
    setpriv = shutil.which("setpriv")
    if setpriv is None or os.geteuid() != 0:
        pytest.skip("needs root and setpriv to drop CAP_NET_ADMIN")
    without = [setpriv, "--inh-caps=-all", "--bounding-set=-net_admin"]
    assert refusal(without, tmp_path) == REFUSED


def test_a_user_without_net_admin_is_refused():
    # As this user if it is not root; as root, as nobody, who must be able to read
    # the interpreter and the checkout: a clone in a private home folder (/root) is
    # not readable to nobody ("No module named cwnd"), so there the test is skipped.
    if os.geteuid() != 0:
        if checks.has_net_admin():
            pytest.skip("this user has CAP_NET_ADMIN")
        user: list[str] = []
    else:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("needs setpriv to run the command as nobody")
        user = [setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--inh-caps=-all"]
        probe = subprocess.run(
            [*user, sys.executable, "-c", "import cwnd.cli"],
            capture_output=True,
            text=True,
            cwd="/",
        )
        if probe.returncode != 0:
            reason = (probe.stderr.strip().splitlines() or ["?"])[-1]
            pytest.skip(f"nobody cannot run this checkout's cwnd ({reason}): it is private")
    # pytest's own temporary folders are private to root: nobody reads this one.
    with tempfile.TemporaryDirectory() as folder:
        Path(folder).chmod(0o755)
        assert refusal(user, Path(folder)) == REFUSED


def test_the_comparison_verdict_uses_the_goodput_tolerance():
    import pandas as pd

    from cwnd.live.compare import ratio_table

    class Run:
        def __init__(self, goodput: float, retransmitted: int) -> None:
            self.summary = pd.DataFrame(
                [
                    {
                        "name": "f",
                        "goodput_bps": goodput,
                        "segments_retransmitted": retransmitted,
                        "timeouts": 0,
                        "mean_rtt": 0.05,
                    }
                ]
            )

    def verdict(live: Run) -> str:
        table = ratio_table(Run(10e6, 20), live)  # type: ignore[arg-type]
        return table[table["metric"] == "goodput_bps"]["verdict"].item()

    # 8.6 / 10 = 0.86: 14 % below, inside ±15 %; 8.4 / 10 = 0.84: 16 % below.
    assert verdict(Run(8.6e6, 20)) == "agree"
    assert verdict(Run(8.4e6, 20)) == "differ"
    assert verdict(Run(11.4e6, 20)) == "agree"
    table = ratio_table(Run(10e6, 20), Run(10e6, 30))  # type: ignore[arg-type]
    retx = table[table["metric"] == "segments_retransmitted"]
    assert retx["ratio"].item() == 1.5
    zero = ratio_table(Run(10e6, 20), Run(10e6, 20))  # type: ignore[arg-type]
    assert zero[zero["metric"] == "timeouts"]["ratio"].item() == 1.0


# --- live -------------------------------------------------------------------------


def run_live(tmp_path: Path, text: str) -> tuple[object, dict]:
    from cwnd import load_scenario
    from cwnd.live import run_live as go

    path = tmp_path / "s.toml"
    path.write_text(text)
    return go(load_scenario(path), seed=1, log=lambda _: None)


@live
def test_a_bulk_flow_fills_a_10_mbps_link(tmp_path):
    results, relay = run_live(tmp_path, scenario("8s", "10Mbps", "20ms", cc="cubic"))
    tp = results.throughput
    steady = tp[(tp["time"] >= 2.0) & (tp["time"] < 7.9)]["goodput_bps"].mean()
    # 90–100 % of 10 Mb/s in payload bytes (a 1500-byte packet carries 1448 with
    # timestamps: 96.5 % at most).
    assert 0.90 <= steady / 10e6 <= 1.00, steady
    assert relay["overruns"] == 0 and relay["write_errors"] == 0
    assert leftovers(os.getpid()) == [], "a normal exit removes everything"


@live
def test_a_small_receive_buffer_limits_the_flow(tmp_path):
    text = scenario("6s", "10Mbps", "20ms", cc="cubic").replace(
        'to = "h2"\n', 'to = "h2"\ntcp = { rwnd = "16KB" }\n'
    )
    results, _ = run_live(tmp_path, text)
    # SO_RCVBUF 16 kB (Linux doubles it and advertises part of it): a window of
    # 16–32 kB per 41 ms RTT is 3–6.4 Mb/s, far below the 9.65 Mb/s the link gives.
    goodput = float(results.summary["goodput_bps"][0])
    assert 1e6 < goodput < 7e6, goodput


@live
def test_a_small_send_buffer_limits_the_flow(tmp_path):
    text = scenario("6s", "10Mbps", "20ms", cc="cubic").replace(
        'to = "h2"\n', 'to = "h2"\ntcp = { sndbuf = "8KB", write_size = "1KB", nagle = false }\n'
    )
    results, _ = run_live(tmp_path, text)
    # SO_SNDBUF 8 kB, doubled: at most 16 kB unacknowledged + unsent (less, since the
    # kernel counts each skb's overhead), so at most 16 kB per 41 ms RTT = 3.2 Mb/s.
    goodput = float(results.summary["goodput_bps"][0])
    assert 0.3e6 < goodput < 3.2e6, goodput


@live
def test_a_bernoulli_stage_drops_its_share_of_the_relayed_data(tmp_path):
    loss = '{ kind = "bernoulli", p = 0.01, applies_to = "data" }'
    # A short RTT keeps the rate high under loss (Mathis: 1.22 × 1448 × 8 bit /
    # (4 ms × √0.01) ≈ 35 Mb/s), so that n is large and the bound tight.
    results, relay = run_live(tmp_path, scenario("8s", "100Mbps", "2ms", loss, cc="cubic"))
    n = relay["flows"][0]["injected_data_packets"]
    dropped = int(results.summary["drops_impairment"][0])
    assert int(results.summary["drops_queue"][0]) == 0
    # Binomial(n, 0.01): 4 standard deviations either side.
    bound = 4 * math.sqrt(n * 0.01 * 0.99)
    assert n > 5_000  # ≥ 50 drops expected: the bound (4 sd ≈ 28) is meaningful
    assert abs(dropped - 0.01 * n) <= bound, (dropped, n)


@live
def test_a_2_s_outage_delivers_nothing_for_2_s(tmp_path):
    outage = '{ kind = "outage", start = "3s", duration = "2s" }'
    results, _ = run_live(tmp_path, scenario("8s", "10Mbps", "20ms", outage, cc="reno"))
    tp = results.throughput
    # Data sent before 3 s arrives by 3.0 + 0.0212 s; the bins 3.1 … 4.9 s get nothing.
    during = tp[(tp["time"] >= 3.1) & (tp["time"] < 5.0)]["goodput_bps"]
    assert len(during) == 19 and (during == 0).all()
    assert tp[tp["time"] < 3.0]["goodput_bps"].sum() > 0
    assert tp[tp["time"] >= 5.0]["goodput_bps"].sum() > 0


@live
def test_an_outage_triggered_at_a_segment_starts_when_the_kernel_sends_it(tmp_path):
    # Segment 2000 of a 1460-byte MSS (no timestamps: the kernel's MSS is 1460
    # too) starts at byte 1999 × 1460 = 2 918 540. The outage starts when the
    # kernel first sends that byte: the receiver gets at most the bytes before
    # it, and at least those minus what the link held when it went dark (the
    # 100-packet queue and 10 Mb/s × 20 ms in flight: 151 500 B).
    outage = '{ kind = "outage", start_on = { flow = "f", segment = 2000 }, duration = "2s" }'
    results, _ = run_live(tmp_path, scenario("9s", "10Mbps", "20ms", outage, cc="reno"))
    tp = results.throughput
    bins = tp["goodput_bps"].to_numpy()
    # The longest run of empty 100 ms bins: a 2 s outage makes one of ≥ 19.
    gap, longest, run = 0, 0, 0
    for i, b in enumerate(bins):
        run = run + 1 if b == 0 else 0
        if run > longest:
            gap, longest = i - run + 1, run
    assert longest >= 19 and gap > 0, (gap, longest)
    before = bins[:gap].sum() * 0.1 / 8
    assert 2_918_540 - 151_500 <= before <= 2_918_540, before
    assert int(results.summary["drops_impairment"][0]) > 0


@live
@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark not installed")
def test_a_live_capture_holds_the_kernels_own_packets(tmp_path):
    text = scenario("3s", "10Mbps", "20ms", cc="cubic").replace(
        'interval = "100ms"\n', 'interval = "100ms"\npcap = ["h2"]\n'
    )
    results, relay = run_live(tmp_path, text)
    path = tmp_path / "h2.pcap"
    path.write_bytes(results.pcaps["h2"])
    fields = subprocess.run(
        ["tshark", "-r", str(path), "-T", "fields", "-e", "tcp.flags.syn", "-e", "tcp.len"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")
    rows = [line.split("\t") for line in fields if line]
    # h2 receives every data packet the relay delivered to it, and its SYN-ACK and
    # the sender's SYN are in the capture as the kernel wrote them.
    data = sum(1 for _, length in rows if int(length) > 0)
    assert data == relay["flows"][0]["delivered_data_packets"]
    assert sum(1 for syn, _ in rows if syn in ("1", "True")) == 2
    assert relay["uncaptured"] == 0


def _endpoints(pid: int) -> list[int]:
    """Live endpoint processes started by process `pid`."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            command = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if parent == pid and b"endpoint.py" in command:
            found.append(int(stat.parent.name))
    return found


def start_a_minute_live(tmp_path: Path) -> tuple[subprocess.Popen[bytes], list[int]]:
    """`cwnd live` of a 60 s scenario, once its receiver and sender run; and their ids."""
    path = tmp_path / "s.toml"
    path.write_text(scenario("60s", "10Mbps", "20ms", cc="cubic"))
    p = subprocess.Popen([*CWND, "live", str(path), "--out", str(tmp_path / "out")])
    deadline = time.monotonic() + 30  # a hang detector
    endpoints: list[int] = []
    while time.monotonic() < deadline and len(endpoints) < 2:
        time.sleep(0.2)
        endpoints = _endpoints(p.pid)
    assert len(endpoints) == 2, "a receiver and a sender started"
    return p, endpoints


@live
@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_nothing_is_left_after_an_interrupt(tmp_path, sig, code):
    p, endpoints = start_a_minute_live(tmp_path)
    assert leftovers(p.pid), "the run made its namespaces"
    time.sleep(2.0)
    p.send_signal(sig)
    assert p.wait(timeout=30) == code
    assert leftovers(p.pid) == []
    assert [pid for pid in endpoints if Path(f"/proc/{pid}").exists()] == []


@live
def test_a_run_with_the_pid_of_a_killed_run_still_runs(tmp_path):
    # Issue 27: a killed run of process P leaves cwnd-P-h0; a later run of a process
    # that got the same id failed with `ip netns add`'s "File exists". Such a leftover
    # whose P runs (this process) must also be left alone.
    leftover = f"cwnd-{os.getpid()}-h0"
    subprocess.run(["ip", "netns", "add", leftover], check=True)
    try:
        results, _ = run_live(tmp_path, scenario("2s", "10Mbps", "10ms", cc="cubic"))
        assert float(results.summary["goodput_bps"][0]) > 0
        assert leftovers(os.getpid()) == [leftover]
    finally:
        subprocess.run(["ip", "netns", "del", leftover], check=True)


@live
def test_a_killed_runs_namespaces_go_before_the_next_run_a_living_runs_stay(tmp_path):
    living = subprocess.Popen(["sleep", "600"])
    kept = f"cwnd-{living.pid}-0a1b2c-h0"
    subprocess.run(["ip", "netns", "add", kept], check=True)
    path = tmp_path / "short.toml"
    path.write_text(scenario("2s", "10Mbps", "10ms", cc="cubic"))
    try:
        # Every live run removes the namespaces of every run that has ended, so another
        # live run on this machine (the quick reproduction's live half on another
        # pytest worker, or anybody's) may start between the kill and our next run and
        # remove them first: then try again, a few times.
        for attempt in range(5):
            (tmp_path / f"killed{attempt}").mkdir()
            killed, endpoints = start_a_minute_live(tmp_path / f"killed{attempt}")
            killed.kill()
            killed.wait()
            for pid in endpoints:  # they would run to the scenario's end, 60 s
                os.kill(pid, signal.SIGKILL)
            left = leftovers(killed.pid)
            assert len(left) == 2, "SIGKILL leaves the namespaces"
            out = tmp_path / f"out{attempt}"
            p = subprocess.run([*CWND, "live", str(path), "--out", str(out)],
                               capture_output=True, text=True)  # fmt: skip
            assert p.returncode == 0, p.stderr
            assert leftovers(killed.pid) == []
            assert leftovers(living.pid) == [kept]
            said = [f"cwnd: removed network namespace {ns}: its run (process {killed.pid}) "
                    "has ended" for ns in left]  # fmt: skip
            if all(line in p.stderr.splitlines() for line in said):
                return
            # Removed (some or all) by another run: nothing else was said.
            removals = "cwnd: removed network namespace "
            assert all(line.startswith(removals) for line in p.stderr.splitlines()), p.stderr
        pytest.fail("five times another run removed the killed run's namespaces first")
    finally:
        subprocess.run(["ip", "netns", "del", kept], check=True)
        living.kill()
        living.wait()


@live
def test_the_cli_refuses_an_unknown_controller(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(scenario("2s", "10Mbps", "10ms", cc="vegas"))
    p = subprocess.run([*CWND, "live", str(path)], capture_output=True, text=True)
    assert p.returncode == 2
    assert p.stderr.strip() == (
        "cwnd: error: flow 'f': cc = 'vegas' is not available in this kernel "
        f"(tcp_available_congestion_control: {' '.join(checks.available_cc())})"
    )


def test_the_linux_profile_and_the_socket_options_run_live():
    tcp = {"profile": "linux", "sndbuf": "8KiB", "rcvbuf": "8KiB", "write_size": "64B",
           "nagle": False, "sack": False, "dsack": False, "dsack_undo": False}  # fmt: skip
    checks.check_flow("f", {"cc": "cubic", "tcp": tcp}, ["reno", "cubic"])


def test_a_scenario_on_the_linux_profile_asks_the_kernel_for_nothing():
    # "linux" is the default: its options are the kernel's, so nothing is asked.
    import json

    from cwnd import _cwnd

    spec = {
        "duration": "1s",
        "tcp": {"profile": "linux"},
        "links": [{"between": ["a", "b"], "bandwidth": "1Mbps", "delay": "1ms"}],
        "flows": [{"name": "x", "from": "a", "to": "b", "cc": "cubic"}],
    }
    flow = checks.asked(_cwnd.load(json.dumps(spec)).spec)["flows"][0]
    assert "tcp" not in flow
    spec["tcp"] = {"profile": "rfc"}
    flow = checks.asked(_cwnd.load(json.dumps(spec)).spec)["flows"][0]
    with pytest.raises(LiveRefused, match=re.escape("tcp.profile = 'rfc' cannot run live")):
        checks.check_flow("x", flow, ["cubic"])


def test_only_what_the_author_asked_for_is_checked():
    # A loaded plan writes every default out; live mode must judge what was asked:
    # recovery and a TCP option set by hand survive, defaults (recovery = null, the
    # other TCP options, CUBIC's own parameters) do not.
    import json

    from cwnd import _cwnd
    from cwnd.live.checks import asked

    spec = {
        "duration": "1s",
        "links": [{"between": ["a", "b"], "bandwidth": "1Mbps", "delay": "1ms"}],
        "flows": [
            {"name": "x", "from": "a", "to": "b", "cc": "cubic", "tcp": {"initial_window": 4}},
            {"name": "y", "from": "a", "to": "b", "cc": "reno", "recovery": "reno"},
        ],
    }
    plan = _cwnd.load(json.dumps(spec)).spec
    flows = asked(plan)["flows"]
    assert flows[0] == {"name": "x", "from": "a", "to": "b", "transport": "tcp",
                        "cc": "cubic", "tcp": {"initial_window": 4}}  # fmt: skip
    assert flows[1]["recovery"] == "reno" and "tcp" not in flows[1]
