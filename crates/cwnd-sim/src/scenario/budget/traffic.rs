//! What each flow sends over a run, for the memory estimate (`mod.rs`): its data
//! packets and the ACKs that come back, from the rate it can get along its path.
//!
//! A simplified model, on purpose: the estimate must be within a factor of two of
//! what a run holds, before the run, in time linear in the scenario.
//!
//! - **Path**: the shortest by hops, as a breadth-first search finds it (neighbours in
//!   declaration order; explicit routes are not followed).
//! - **Media**: a link direction carries its bandwidth; an 802.11 channel is one
//!   medium shared both ways by all its stations, at half its data rate (every frame
//!   pays DIFS, backoff, preamble, SIFS and a MAC ACK, and TCP's ACKs are frames too:
//!   at 11 Mb/s a 1500 B data frame's exchange takes about twice its payload's time);
//!   an 802.16 cell's downlink and uplink each carry the data symbols of a frame at the
//!   scheme AMC picks at the mean SNR (or the fixed one), within the cell's caps.
//! - **Share**: a medium's rate is split equally among the flows whose data crosses
//!   it, each counted by the fraction of the run it is active.
//! - **TCP**: at most its receive window per round trip (propagation both ways plus a
//!   full packet's time per medium), and for the controllers that halve their window
//!   on a loss (Reno, NewReno, Tahoe, Vegas) at most the square-root law of its path's
//!   loss p: rate = MSS·√(3/2)/(RTT·√p) (Mathis, Semke, Mahdavi and Ott, "The
//!   macroscopic behavior of the TCP congestion avoidance algorithm", CCR 27(3), 1997,
//!   eq. 3), averaged over the run as p steps. Other controllers are taken to keep the
//!   path full despite random loss (Westwood's window after a loss is its bandwidth
//!   estimate times RTTmin). A transfer sends its bytes and stops.
//! - **Loss** of a path: its lossiest link direction's Bernoulli (constant or
//!   scheduled) and Gilbert–Elliott (stationary) stages on data, in their windows;
//!   stages started by a flow's segment are not counted.
//! - **UDP**: its source's mean rate (the on fraction of an on/off source), within its
//!   share; **SCTP**: its share, in full packets.
//!
//! Scale: flows are grouped by where their search starts (a host's only neighbour, see
//! `start`), so that a dumbbell of N flows costs one search, and each flow then walks
//! its path back once.

use super::graph::Graph;
use crate::scenario::link::LinkPlan;
use crate::scenario::spec::Scenario;
use crate::scenario::tcp::TcpOptions;
use crate::scenario::udp::{SourceKind, SourcePlan};
use crate::scenario::wimax::CellPlan;
use crate::transport::tcp::cc::CcConfig;

/// IP and TCP headers of a data segment without options (RFC 791, RFC 9293).
const HEADERS: f64 = 40.0;
/// A full packet, for a medium's per-packet time and an SCTP packet's size.
const FULL_PACKET: f64 = 1500.0;
/// √(3/2), the constant of the square-root law for periodic loss (Mathis et al.).
const SQRT_LAW: f64 = 1.224_744_871_391_589;

/// What a flow is, as far as its traffic goes (the checks resolved its options).
pub(in crate::scenario) enum FlowKind<'a> {
    Tcp {
        options: &'a TcpOptions,
        cc: &'a CcConfig,
        /// The bytes a transfer sends (`None`: bulk).
        app_bytes: Option<u64>,
    },
    Sctp,
    Udp(&'a SourcePlan),
}

/// A flow's traffic over the run.
#[derive(Clone, Debug, Default, PartialEq)]
pub(in crate::scenario) struct FlowTraffic {
    /// Data packets: TCP segments, SCTP packets, UDP datagrams.
    pub packets: f64,
    /// Packets back to the sender: TCP ACKs (one per `delayed_ack_every` segments).
    pub acks: f64,
    /// Seconds it is active.
    pub active: f64,
    /// The nodes its data crosses, by name, source and destination included.
    pub nodes: Vec<String>,
    /// The link direction (`2i` forward, `2i + 1` reverse) that limits its rate, when
    /// a link direction does: its queue is where the flow's packets wait.
    pub bottleneck: Option<usize>,
    /// Packets it may have outstanding (TCP: its receive window; infinite for a
    /// source that sends faster than its share, or for SCTP).
    pub window: f64,
    /// Packets in flight at its rate over its round trip, within its window.
    pub in_flight: f64,
}

/// The traffic of every flow, in scenario order: `kinds[i]` is flow `i`'s.
pub(in crate::scenario) fn traffic(
    spec: &Scenario,
    links: &[LinkPlan],
    cells: &[CellPlan],
    kinds: &[FlowKind],
) -> Vec<FlowTraffic> {
    let seconds = spec.duration.0.as_secs_f64();
    let graph = Graph::of(spec, links, cells);
    let ends: Vec<(&str, &str)> = spec
        .flows
        .iter()
        .map(|f| (f.from.primary(), f.to.primary()))
        .collect();
    let paths = graph.paths(&ends);
    let active: Vec<f64> = spec
        .flows
        .iter()
        .map(|f| {
            let stop = f.stop.map_or(seconds, |s| s.0.as_secs_f64().min(seconds));
            (stop - f.start.0.as_secs_f64()).max(0.0)
        })
        .collect();
    let mut sharing = vec![0.0; graph.media.len()];
    for ((media, _), &t) in paths.iter().zip(&active) {
        for &m in media {
            sharing[m] += t / seconds;
        }
    }
    let mut out = Vec::with_capacity(spec.flows.len());
    for (i, f) in spec.flows.iter().enumerate() {
        let (media, nodes) = &paths[i];
        let nodes = nodes.iter().map(|&n| graph.names[n].to_string()).collect();
        if media.is_empty() {
            out.push(FlowTraffic {
                nodes,
                ..FlowTraffic::default()
            });
            continue;
        }
        let (bottleneck, share, rtt) = bottleneck_share_rtt(&graph, media, &sharing);
        let start = f.start.0.as_secs_f64();
        let t = active[i];
        let (packets, acks, size, window) = match &kinds[i] {
            FlowKind::Tcp {
                options,
                cc,
                app_bytes,
            } => {
                let losses: Vec<_> = media.iter().map(|&m| &graph.media[m].loss[..]).collect();
                tcp_sent(options, cc, *app_bytes, (share, rtt, &losses), (start, t))
            }
            FlowKind::Sctp => (
                share * t / (8.0 * FULL_PACKET),
                0.0,
                FULL_PACKET,
                f64::INFINITY,
            ),
            FlowKind::Udp(source) => udp_sent(source, share, t),
        };
        let rate = if t > 0.0 {
            packets * 8.0 * size / t
        } else {
            0.0
        };
        let in_flight = (rate * rtt / (8.0 * size)).min(window);
        let bottleneck = (bottleneck < 2 * spec.links.len()).then_some(bottleneck);
        out.push(FlowTraffic {
            packets,
            acks,
            active: t,
            nodes,
            bottleneck,
            window,
            in_flight,
        });
    }
    out
}

/// A medium's (start, end, p) intervals of data loss, in seconds (`Medium::loss`).
type LossSteps<'a> = &'a [(f64, f64, f64)];

/// A path's (`media`) bottleneck medium, the rate a flow gets there (its rate
/// divided by the flows `sharing` it), and its round trip: propagation both ways
/// plus a full packet's time per medium.
fn bottleneck_share_rtt(graph: &Graph, media: &[usize], sharing: &[f64]) -> (usize, f64, f64) {
    let (bottleneck, share) = media
        .iter()
        .map(|&m| (m, graph.media[m].rate / sharing[m].max(1.0)))
        .fold(
            (media[0], f64::INFINITY),
            |a, b| if b.1 < a.1 { b } else { a },
        );
    let rtt: f64 = media
        .iter()
        .map(|&m| {
            let medium = &graph.media[m];
            2.0 * (medium.delay + FULL_PACKET * 8.0 / medium.rate)
        })
        .sum();
    (bottleneck, share, rtt)
}

/// What a TCP flow sends in `t` seconds from `start`: at most its `share` of the
/// path (bits/s) and its receive window per `rtt`, and for the controllers that
/// halve on a loss the square-root law of each medium's `losses`; a transfer
/// stops at its bytes. (packets, ACKs, packet size, window in packets.)
fn tcp_sent(
    options: &TcpOptions,
    cc: &CcConfig,
    app_bytes: Option<u64>,
    (share, rtt, losses): (f64, f64, &[LossSteps]),
    (start, t): (f64, f64),
) -> (f64, f64, f64, f64) {
    let mss = f64::from(options.payload_mss());
    let size = f64::from(options.advertised_mss()) + HEADERS;
    let window_rate = options.receive_window as f64 * 8.0 / rtt;
    let base = share.min(window_rate);
    let rate = if halves_on_loss(cc) {
        let law = mss * 8.0 * SQRT_LAW / rtt;
        losses
            .iter()
            .map(|loss| mean_rate(loss, base, law, start, start + t))
            .fold(base, f64::min)
    } else {
        base
    };
    let mut packets = rate * t / (8.0 * size);
    if let Some(bytes) = app_bytes {
        packets = packets.min((bytes as f64 / mss).ceil());
    }
    let every = f64::from(options.delayed_ack_every.max(1));
    let every = if options.delayed_ack { every } else { 1.0 };
    let window = options.receive_window as f64 / size;
    (packets, packets / every, size, window)
}

/// What a UDP source sends in `t` seconds: its mean rate (the on fraction of an
/// on/off source) within its `share`; a source faster than its share floods (an
/// infinite window), a slower one is paced (none).
fn udp_sent(source: &SourcePlan, share: f64, t: f64) -> (f64, f64, f64, f64) {
    let on = match source.kind {
        SourceKind::Cbr { .. } => 1.0,
        SourceKind::OnOff {
            burst_time,
            idle_time,
            ..
        } => {
            let (b, i) = (burst_time.as_secs_f64(), idle_time.as_secs_f64());
            if b + i > 0.0 {
                b / (b + i)
            } else {
                1.0
            }
        }
    };
    let size = f64::from(source.packet_size.max(1));
    let rate = (source.rate_bps as f64 * on).min(share);
    let floods = source.rate_bps as f64 >= share;
    let window = if floods { f64::INFINITY } else { 0.0 };
    (rate * t / (8.0 * size), 0.0, size, window)
}

/// The controllers that halve their window on a loss and grow it by a segment per
/// round trip, the square-root law's AIMD(1, 1/2).
fn halves_on_loss(cc: &CcConfig) -> bool {
    matches!(cc.name(), "reno" | "newreno" | "tahoe" | "vegas")
}

/// The mean over `[from, to)` of min(`base`, `law`/√p) with p the loss in force
/// (`base` where there is none).
fn mean_rate(loss: &[(f64, f64, f64)], base: f64, law: f64, from: f64, to: f64) -> f64 {
    if to <= from {
        return base;
    }
    let mut lossy = 0.0;
    let mut sent = 0.0;
    for &(a, b, p) in loss {
        let span = (b.min(to) - a.max(from)).max(0.0);
        lossy += span;
        sent += span * base.min(law / p.sqrt());
    }
    (sent + (to - from - lossy).max(0.0) * base) / (to - from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::load;

    /// The traffic of every flow of `text`, a scenario that checks.
    fn of(text: &str) -> Vec<FlowTraffic> {
        let plan = load(text, None).unwrap_or_else(|e| panic!("{e}"));
        plan.traffic()
    }

    const DUMBBELL: &str = r#"
duration = "100s"
tcp.profile = "rfc"
[[links]]
between = ["s1", "r1"]
bandwidth = "1Gbps"
delay = "1ms"
[[links]]
between = ["s2", "r1"]
bandwidth = "1Gbps"
delay = "1ms"
[[links]]
between = ["r1", "r2"]
bandwidth = "12Mbps"
delay = "9ms"
[[links]]
between = ["r2", "d"]
bandwidth = "1Gbps"
delay = "1ms"
"#;

    #[test]
    fn flows_on_a_bottleneck_share_it_by_the_time_they_run() {
        // Two NewReno flows, the second for half the run: 1 + 0.5 = 1.5 shares of
        // 12 Mb/s, 8 Mb/s each. MSS 1460 B (the "rfc" profile has no timestamps): a
        // packet is 1500 B = 12 000 bits.
        // Flow 0: 8e6 · 100 / 12 000 = 66 666.7; flow 1: 8e6 · 50 / 12 000 = 33 333.3.
        let text = format!(
            "{DUMBBELL}[[flows]]\nfrom = \"s1\"\nto = \"d\"\n\
             [[flows]]\nfrom = \"s2\"\nto = \"d\"\nstart = \"25s\"\nstop = \"75s\"\n"
        );
        let t = of(&text);
        assert!(
            (t[0].packets - 8e6 * 100.0 / 12_000.0).abs() < 1e-6,
            "{t:?}"
        );
        assert!((t[1].packets - 8e6 * 50.0 / 12_000.0).abs() < 1e-6, "{t:?}");
        assert_eq!(t[1].nodes, ["s2", "r1", "r2", "d"]);
        assert_eq!(t[0].active, 100.0);
    }

    #[test]
    fn reno_on_a_lossy_path_follows_the_square_root_law() {
        // p = 0.01 on the bottleneck's data direction. RTT: 2 · (1 + 9 + 1 ms) plus
        // 2 · 12 000 bits per medium: 1 Gb/s 12 µs each, 12 Mb/s 1 ms, so
        // 0.022 + 2 · (0.000012 + 0.001 + 0.000012) = 0.024048 s. Rate:
        // 1460 · 8 · 1.2247 / (0.024048 · 0.1) = 5.948 Mb/s < 12 Mb/s; packets over
        // 100 s: 5.948e6 · 100 / 12 000 = 49 568.
        let lossy = DUMBBELL.replace(
            "bandwidth = \"12Mbps\"",
            "bandwidth = \"12Mbps\"\nimpairments = [{ kind = \"bernoulli\", p = 0.01, applies_to = \"data\", direction = \"forward\" }]",
        );
        let flow = "[[flows]]\nfrom = \"s1\"\nto = \"d\"\ncc = \"reno\"\n";
        let t = of(&format!("{lossy}{flow}"));
        let rtt = 0.022 + 2.0 * (12e-6 + 1e-3 + 12e-6);
        let rate = 1460.0 * 8.0 * SQRT_LAW / (rtt * 0.1);
        assert!(
            (t[0].packets - rate * 100.0 / 12_000.0).abs() < 1e-6,
            "{t:?}"
        );
        // Westwood+ keeps the pipe full: the share, 12e6 · 100 / 12 000 = 100 000.
        let t = of(&format!("{lossy}{}", flow.replace("reno", "westwood_plus")));
        assert!((t[0].packets - 100_000.0).abs() < 1e-6, "{t:?}");
        // The loss only from 50 s on: half the run at the share, half at the law.
        let late = lossy.replace("p = 0.01,", "schedule = [[\"0s\", 0], [\"50s\", 0.01]],");
        let t = of(&format!("{late}{flow}"));
        let want = (12e6 * 50.0 + rate * 50.0) / 12_000.0;
        assert!((t[0].packets - want).abs() < 1e-6, "{t:?}");
    }

    #[test]
    fn a_transfer_stops_and_a_window_limits() {
        // 1 MB in 1460 B segments: ⌈684.9⌉ = 685. A 64 KB window over the RTT of
        // the flows above without loss (0.024048 s): 65 536 · 8 / 0.024048 =
        // 21.80 Mb/s > 12: the share still rules; over a 200 ms bottleneck delay the
        // RTT is 0.002 · 2 + 0.4 + 0.024048 − 0.022 = 0.426048 s: 1.2306 Mb/s.
        let flow = "[[flows]]\nfrom = \"s1\"\nto = \"d\"\n";
        let t = of(&format!(
            "{DUMBBELL}{flow}app = {{ kind = \"transfer\", bytes = \"1MB\" }}\n"
        ));
        assert_eq!(t[0].packets, 685.0);
        let far = DUMBBELL.replace("delay = \"9ms\"", "delay = \"200ms\"");
        let t = of(&format!("{far}{flow}tcp = {{ rwnd = \"65536B\" }}\n"));
        let rtt = 0.004 + 0.4 + 2.0 * (12e-6 + 1e-3 + 12e-6);
        let want = 65_536.0 * 8.0 / rtt * 100.0 / 12_000.0;
        assert!((t[0].packets - want).abs() < 1e-6, "{t:?}");
    }
}
