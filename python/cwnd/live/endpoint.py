"""The two ends of one kernel TCP connection in live mode, run inside a host's
network namespace (`ip netns exec NS python -m cwnd.live.endpoint ...`).

The sender sets the flow's socket options, connects at the flow's start time,
writes until its transfer is done or its stop time, and samples `TCP_INFO`
(include/uapi/linux/tcp.h; what tcp_probe gave the paper) at the scenario's
sampling interval. The receiver counts the bytes it reads per time bin. Times
are seconds of model time: CLOCK_MONOTONIC (not namespaced) minus the run's
epoch. Each writes one JSON file for the front end.
"""

from __future__ import annotations

import argparse
import json
import socket
import struct
import sys
import threading
import time
from pathlib import Path
from typing import Any

TCP_INFO_BYTES = 232
# `struct tcp_info` (include/uapi/linux/tcp.h) as far as tcpi_snd_wnd: 8 u8, 24 u32
# (rto … total_retrans), 4 u64, 6 u32, 4 u64 (delivery_rate … sndbuf_limited),
# 2 u32, 2 u64, 4 u32.
_TCP_INFO = struct.Struct("=8B24I4Q6I4Q2I2Q4I")
assert _TCP_INFO.size == TCP_INFO_BYTES
_FIELDS = {
    "rto": 8,
    "snd_mss": 10,
    "unacked": 12,
    "lost": 14,
    "retrans": 15,
    "rtt": 23,
    "rttvar": 24,
    "snd_ssthresh": 25,
    "snd_cwnd": 26,
    "total_retrans": 31,
    "bytes_acked": 34,
    "segs_in": 37,
    "data_segs_out": 41,
    "delivery_rate": 42,
    "bytes_sent": 48,
    "bytes_retrans": 49,
}
# tcp_sock's ssthresh before the first loss (include/net/tcp.h).
TCP_INFINITE_SSTHRESH = 0x7FFFFFFF
CHUNK = 1 << 16
# SO_RCVBUFFORCE (include/uapi/asm-generic/socket.h), absent from Python's socket
# module: SO_RCVBUF beyond net.core.rmem_max, allowed with CAP_NET_ADMIN.
SO_RCVBUFFORCE = 33
# SO_SNDBUFFORCE (asm-generic/socket.h): SO_SNDBUF without the wmem_max cap.
SO_SNDBUFFORCE = 32


def tcp_info(sock: socket.socket) -> dict[str, int]:
    """The fields of TCP_INFO live mode records, by name."""
    raw = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, TCP_INFO_BYTES)
    values = _TCP_INFO.unpack(raw.ljust(TCP_INFO_BYTES, b"\0"))
    return {name: values[i] for name, i in _FIELDS.items()}


def model_time(epoch_ns: int) -> float:
    return (time.monotonic_ns() - epoch_ns) / 1e9


def sleep_until(epoch_ns: int, t: float) -> None:
    delay = t - model_time(epoch_ns)
    if delay > 0:
        time.sleep(delay)


def run_sender(a: argparse.Namespace) -> dict[str, Any]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, a.cc.encode())
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, a.mss)
    if a.sndbuf:
        # The kernel doubles it, as cwnd's `tcp.sndbuf` does (docs/tcp.md).
        sock.setsockopt(socket.SOL_SOCKET, SO_SNDBUFFORCE, a.sndbuf)
    if a.nodelay:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sleep_until(a.epoch_ns, a.start)
    sock.settimeout(max(a.stop - model_time(a.epoch_ns), 0.001))
    sock.connect((a.dst, a.port))
    samples: list[tuple[float, dict[str, int]]] = []
    done = threading.Event()

    def sample() -> None:
        next_t = model_time(a.epoch_ns)
        while not done.is_set():
            samples.append((model_time(a.epoch_ns), tcp_info(sock)))
            next_t += a.interval
            done.wait(max(next_t - model_time(a.epoch_ns), 0.0))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    chunk = a.write_size or CHUNK
    payload = b"\0" * chunk
    remaining = a.bytes if a.bytes > 0 else None
    sock.settimeout(0.05)
    while (remaining is None or remaining > 0) and model_time(a.epoch_ns) < a.stop:
        n = chunk if remaining is None else min(chunk, remaining)
        try:
            sent = sock.send(payload[:n])
        except TimeoutError:
            continue
        if remaining is not None:
            remaining -= sent
    # A transfer is complete when every byte is acknowledged.
    while remaining == 0 and model_time(a.epoch_ns) < a.stop:
        if tcp_info(sock)["unacked"] == 0:
            break
        time.sleep(0.001)
    done.set()
    sampler.join()
    final = tcp_info(sock)
    samples.append((model_time(a.epoch_ns), final))
    sock.close()
    return {
        "time": [t for t, _ in samples],
        "info": {k: [s[k] for _, s in samples] for k in _FIELDS},
        "timeouts": namespace_counter("TcpExt", "TCPTimeouts"),
    }


def namespace_counter(group: str, name: str) -> int:
    """A counter of /proc/net/netstat (per network namespace)."""
    lines = Path("/proc/net/netstat").read_text().splitlines()
    for header, values in zip(lines[::2], lines[1::2], strict=True):
        keys, nums = header.split(), values.split()
        if keys[0] == f"{group}:" and name in keys:
            return int(nums[keys.index(name)])
    return 0


def run_receiver(a: argparse.Namespace) -> dict[str, Any]:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if a.rcvbuf:
        listener.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, a.rcvbuf)
    listener.bind((a.addr, a.port))
    listener.listen(1)
    # Ready: the front end starts senders only after every receiver says so.
    print("listening", flush=True)
    listener.settimeout(max(a.stop - model_time(a.epoch_ns), 0.001))
    bins = [0] * (int(a.stop / a.bin) + 1)
    received, last = 0, float("nan")
    try:
        conn, _ = listener.accept()
    except TimeoutError:
        return {"bytes": 0, "last": last, "bins": bins, "bin": a.bin}
    conn.settimeout(0.05)
    buf = bytearray(CHUNK)
    while model_time(a.epoch_ns) < a.stop:
        try:
            n = conn.recv_into(buf)
        except TimeoutError:
            continue
        if n == 0:
            break
        last = model_time(a.epoch_ns)
        received += n
        bins[min(int(last / a.bin), len(bins) - 1)] += n
    conn.close()
    return {"bytes": received, "last": last, "bins": bins, "bin": a.bin}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="cwnd.live.endpoint")
    p.add_argument("role", choices=["sender", "receiver"])
    p.add_argument("--epoch-ns", type=int, required=True)
    p.add_argument("--stop", type=float, required=True, help="model time to stop")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--rcvbuf", type=int, default=0, help="receiver: SO_RCVBUF (0: default)")
    p.add_argument("--sndbuf", type=int, default=0, help="sender: SO_SNDBUF (0: default)")
    p.add_argument("--write-size", type=int, default=0, help="sender: bytes per write()")
    p.add_argument("--nodelay", action="store_true", help="sender: TCP_NODELAY")
    p.add_argument("--addr", help="receiver: address to listen on")
    p.add_argument("--bin", type=float, default=0.1, help="receiver: bin width (s)")
    p.add_argument("--dst", help="sender: receiver's address")
    p.add_argument("--cc", default="cubic")
    p.add_argument("--mss", type=int, default=1460)
    p.add_argument("--bytes", type=int, default=0, help="sender: 0 for bulk")
    p.add_argument("--start", type=float, default=0.0)
    p.add_argument("--interval", type=float, default=0.01)
    a = p.parse_args(argv)
    try:
        result = run_sender(a) if a.role == "sender" else run_receiver(a)
    except OSError as e:
        result = {"error": f"{a.role}: {e}"}
    Path(a.out).write_text(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
