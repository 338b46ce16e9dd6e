"""What `cwnd shell` shows and keeps: the commands' output copied to the terminal
and to the run folder while they run, and, once they end, the run's results.

The run folder holds `links.csv` (and `channels.csv`, `queues.parquet`,
`<node>.pcap` when the scenario has shared media, traces queues, or captures),
`relay.json` (the relay's report: carried rate, timing error, counters),
`tuples.csv` (per 5-tuple: packets and bytes sent and delivered, drops by cause,
one-way delay through the model), `hosts.csv` (each host's address and namespace),
and the commands' output: `command.stdout`, `command.stderr`, `serve-<host>.log`.
"""

from __future__ import annotations

import csv
import json
import os
import threading
from pathlib import Path
from typing import IO, Any

from cwnd import _cwnd
from cwnd.live.run import relay_report
from cwnd.results import Results

# Rows of the per-5-tuple table the terminal shows (all of them are in tuples.csv).
SHOWN_TUPLES = 10


class Copy:
    """Copies what a process writes on `source` to `terminal` and to the file
    `path`, as it comes, on a thread of its own; with a `mark`, each line on the
    terminal starts with it (servers' lines, told apart from the command's)."""

    def __init__(self, source: IO[bytes], terminal: IO[bytes], path: Path, mark: str = "") -> None:
        self._thread = threading.Thread(
            target=self._copy, args=(source, terminal, path, mark.encode()), daemon=True
        )
        self._thread.start()

    @staticmethod
    def _copy(source: IO[bytes], terminal: IO[bytes], path: Path, mark: bytes) -> None:
        with path.open("wb") as kept, source:
            fd = source.fileno()
            chunks = iter(source.readline, b"") if mark else iter(lambda: os.read(fd, 65536), b"")
            for chunk in chunks:
                kept.write(chunk)
                kept.flush()
                try:
                    terminal.write(mark + chunk)
                    terminal.flush()
                except (BrokenPipeError, ValueError):
                    pass  # the terminal went away: the file keeps the output

    def join(self, timeout: float = 2.0) -> None:
        """Waits until the source is closed (all of its writers ended), at most
        `timeout` seconds (a child that escaped the command may hold it open)."""
        self._thread.join(timeout)


def listening(pid: int) -> bool:
    """Whether process `pid` holds a listening TCP socket or a UDP socket (a
    server ready for its clients): its socket descriptors' inodes among
    /proc/<pid>/net/{tcp,udp} of its network namespace, TCP in state LISTEN (0A)."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
        links = [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in fds]
        tables = {t: Path(f"/proc/{pid}/net/{t}").read_text() for t in ("tcp", "udp")}
    except OSError:
        return False
    inodes = {link[len("socket:[") : -1] for link in links if link.startswith("socket:[")}
    for table, text in tables.items():
        for line in text.splitlines()[1:]:
            fields = line.split()
            if fields[9] in inodes and (table == "udp" or fields[3] == "0A"):
                return True
    return False


def write(
    out: Path,
    results: _cwnd.LiveResults,
    spec: dict[str, Any],
    addresses: dict[str, str],
    prefix: str,
) -> None:
    """The run's tables (module doc) into `out`: of the world's results, what
    describes the network (its flows' tables are about the shell's placeholder flow
    or flows whose agents never ran)."""
    raw: dict[str, Any] = dict(results)
    relay = dict(raw.pop("relay"))
    tuples = relay.pop("tuples")
    relay.pop("flows")
    world = Results(raw, spec)
    world.links.to_csv(out / "links.csv", index=False)
    if len(world.channels):
        world.channels.to_csv(out / "channels.csv", index=False)
    if len(world.queues):
        world.queues.to_parquet(out / "queues.parquet", index=False)
    for node, data in world.pcaps.items():
        (out / f"{node}.pcap").write_bytes(data)
    (out / "relay.json").write_text(json.dumps(relay, indent=1))
    _csv(out / "tuples.csv", tuples)
    hosts = [
        {"host": h, "address": a, "namespace": f"{prefix}-h{i}"}
        for i, (h, a) in enumerate(addresses.items())
    ]
    _csv(out / "hosts.csv", hosts)


def _csv(path: Path, rows: list[Any]) -> None:
    """`rows` (dicts with the same keys, the relay's records name the columns) as
    CSV; an empty file for no rows."""
    with path.open("w", newline="") as f:
        if rows:
            w = csv.DictWriter(f, list(rows[0]))
            w.writeheader()
            w.writerows(rows)


def give_to(out: Path, uid: int, gid: int) -> None:
    """Makes the run folder and what it holds the user's (a run under sudo)."""
    for path in [out, *out.rglob("*")]:
        os.chown(path, uid, gid)


def report(relay: _cwnd.RelayReport, color: bool) -> str:
    """The terminal's report: the relay's line, then the 5-tuples that sent most."""
    tuples = sorted(relay["tuples"], key=lambda t: -t["bytes_sent"])
    lines = [relay_report(relay, color)]
    rows = [
        (
            "",
            "from",
            "to",
            "packets sent",
            "delivered",
            "drops queue",
            "medium",
            "delay p50 ms",
            "p99 ms",
        )
    ]
    for t in tuples[:SHOWN_TUPLES]:
        rows.append(
            (
                t["protocol"],
                f"{t['src']}:{t['sport']}",
                f"{t['dst']}:{t['dport']}",
                str(t["packets_sent"]),
                str(t["packets_delivered"]),
                str(t["drops_queue"]),
                str(t["drops_medium"]),
                f"{t['delay_p50'] * 1e3:.3f}",
                f"{t['delay_p99'] * 1e3:.3f}",
            )
        )
    if tuples:
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    if len(tuples) > SHOWN_TUPLES:
        lines.append(f"… and {len(tuples) - SHOWN_TUPLES} more 5-tuples in tuples.csv")
    return "\n".join(lines)
