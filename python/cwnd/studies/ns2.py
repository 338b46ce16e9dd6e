"""The TCP settings a study made with ns-2.35 ran with when it did not say otherwise.

Papers simulated with ns-2 rarely list the agent's defaults, yet their results depend
on them; a careful reproduction uses the defaults of the version the paper names.
Values from ns-2.35's `tcl/lib/ns-default.tcl` (see docs/tcp.md): initial window 2
segments (`windowInit_`), RTO 3 s before the first sample (`rtxcur_init_`), minimum
200 ms (`minrto_`), maximum 60 s (`maxrto_`), clock granularity 10 ms (`tcpTick_`);
`TCPSink` acknowledges every segment (no delayed ACKs). The receive window
(`window_`, 20 segments by default) is a parameter because studies set it. 802.11
channels use ns-2's `Mac/802_11` defaults (`ns2_wireless`).

The loss recovery is the agent's, not cwnd's default for the controller (`RECOVERY`):
comparing Reno with a Veno that recovers as NewReno compares recoveries, not
controllers. On a repeated timeout ns-2 sets ssthresh to 2 (tcp.cc `slowdown`
recomputes max(⌊min(cwnd, window_)/2⌋, 2) on every expiry, and cwnd is 1 after the
first), where RFC 5681 keeps it: `tcp.ssthresh_on_repeated_timeout = "halve"`.
"""

from __future__ import annotations

from typing import Any

#: The loss recovery of each variant's ns-2 agent. `Agent/TCP/Reno`, `Agent/TCP/Westwood`
#: (tcp-westwood.cc, built on Reno; `WestwoodNR` is the NewReno one) and Veno ("modifies
#: only the sender-side protocol of Reno", Fu and Liew 2003, as the arq paper says)
#: recover as Reno. `Agent/TCP/Vegas` (tcp-vegas.cc) fast-retransmits one segment per
#: window, without NewReno's partial-ACK repair: of cwnd's recoveries, Reno is the
#: nearest. ns-2.35 has CUBIC and Compound only in TCP-Linux (`Agent/TCP/Linux`), whose
#: recovery without SACK is Linux's, NewReno.
RECOVERY = {
    "reno": "reno",
    "vegas": "reno",
    "westwood": "reno",
    "veno": "reno",
    "cubic": "newreno",
    "compound": "newreno",
}


#: A flow's `cc`: a controller's name, or a table of its name and parameters.
Controller = str | dict[str, object]


def ns2_flow(cc: Controller) -> dict[str, Any]:
    """The `cc` and `recovery` of a flow of variant `cc` as ns-2's agent runs it
    (`cc` may be a table, e.g. `VEGAS_NS2`)."""
    name = str(cc["name"]) if isinstance(cc, dict) else cc
    return {"cc": cc, "recovery": RECOVERY[name]}


def ns2_tcp(mss: int, window_segments: int) -> dict[str, Any]:
    """A flow's `tcp` table with ns-2.35's defaults (`tcp.profile = "ns2"`, each value
    also written out as the study states it), `mss`-byte segments and an advertised
    window of `window_segments` segments. ns-2 has no MTU: the path's is set to carry
    the segment asked for."""
    return {
        "profile": "ns2",
        "mss": f"{mss}B",
        "mtu": mss + 40,
        "rwnd": f"{mss * window_segments}B",
        "initial_window": 2,
        "rto": {"initial": "3s", "min": "200ms", "max": "60s", "granularity": "10ms"},
        "ssthresh_on_repeated_timeout": "halve",
    }


def ns2_wireless(name: str, stations: list[str], rate: str) -> dict[str, Any]:
    """An 802.11 channel as ns-2's `Mac/802_11` sets one up by default: RTS/CTS before
    every unicast frame (`RTSThreshold_ 0`), long preamble, MAC ACKs at the 1 Mb/s
    basic rate, an interface queue of 50 packets, and no MSDU lifetime (ns-2's
    `MAC_MIB` has only `RTSThreshold_`, `ShortRetryLimit_` and `LongRetryLimit_`)."""
    return {
        "name": name,
        "stations": stations,
        "rate": rate,
        "basic_rate": "1Mbps",
        "preamble": "long",
        "queue_packets": 50,
        "rts_threshold": "0B",
        "msdu_lifetime": "off",
    }


#: ns-2's `Agent/TCP/Vegas` defaults (`v_alpha_` 1, `v_beta_` 3, `v_gamma_` 1), which
#: the studies also state. Its fine-grained retransmission (tcp-vegas.cc `vegas_expire`)
#: comes with `tcp.profile = "ns2"` (`ns2_tcp`).
VEGAS_NS2: dict[str, object] = {"name": "vegas", "alpha": 1, "beta": 3, "gamma": 1}
