//! What each flow sends over a run, for the memory estimate (`budget.rs`): its data
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

use std::collections::{HashMap, VecDeque};

use super::impairment::{Direction, StagePlan, StageSpec, StageWindow};
use super::link::LinkPlan;
use super::spec::Scenario;
use super::tcp::TcpOptions;
use super::udp::{SourceKind, SourcePlan};
use super::wimax::CellPlan;
use crate::net::impair::AppliesTo;
use crate::net::wimax::mcs::Mcs;
use crate::transport::tcp::cc::CcConfig;

/// IP and TCP headers of a data segment without options (RFC 791, RFC 9293).
const HEADERS: f64 = 40.0;
/// A full packet, for a medium's per-packet time and an SCTP packet's size.
const FULL_PACKET: f64 = 1500.0;
/// An 802.11 channel's share of its data rate that carries data (see above).
const DCF_EFFICIENCY: f64 = 0.5;
/// √(3/2), the constant of the square-root law for periodic loss (Mathis et al.).
const SQRT_LAW: f64 = 1.224_744_871_391_589;
/// Loss intervals kept per medium: a longer schedule is averaged into this many
/// equal slices, so that a flow's rate costs at most this many steps.
const LOSS_SLICES: usize = 256;

/// What a flow is, as far as its traffic goes (the checks resolved its options).
pub(super) enum FlowKind<'a> {
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
pub(super) struct FlowTraffic {
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

/// One medium: its rate (bits/s) and the time a packet spends on it beside its
/// serialization (propagation; an 802.16 frame).
#[derive(Clone, Debug)]
struct Medium {
    rate: f64,
    delay: f64,
    /// (start, end, p) intervals of data loss, in seconds.
    loss: Vec<(f64, f64, f64)>,
}

/// The scenario's graph: nodes by name, each with its neighbours and the medium to
/// each, in declaration order.
struct Graph<'a> {
    index: HashMap<&'a str, usize>,
    names: Vec<&'a str>,
    adjacency: Vec<Vec<(usize, usize)>>,
    media: Vec<Medium>,
}

impl<'a> Graph<'a> {
    fn of(spec: &'a Scenario, links: &[LinkPlan], cells: &[CellPlan]) -> Self {
        let seconds = spec.duration.0.as_secs_f64();
        let mut graph = Graph {
            index: HashMap::new(),
            names: Vec::new(),
            adjacency: Vec::new(),
            media: Vec::new(),
        };
        for (l, plan) in spec.links.iter().zip(links) {
            let rate = plan.params.rate_bps as f64;
            let delay = plan.params.delay.as_secs_f64();
            let (a, b) = (graph.node(&l.between[0]), graph.node(&l.between[1]));
            for (from, to, direction) in [(a, b, Direction::Forward), (b, a, Direction::Reverse)] {
                let loss = data_loss(&plan.stages, direction, seconds);
                let m = graph.medium(rate, delay, loss);
                graph.adjacency[from].push((to, m));
            }
        }
        for w in &spec.wireless {
            // A frame crosses the channel once, station to hub: the hub to the
            // receiver costs nothing more.
            let air = graph.medium(w.rate.0 as f64 * DCF_EFFICIENCY, 0.0, Vec::new());
            let free = graph.medium(f64::INFINITY, 0.0, Vec::new());
            let hub = graph.hub();
            for s in &w.stations {
                let s = graph.node(s);
                graph.adjacency[s].push((hub, air));
                graph.adjacency[hub].push((s, free));
            }
        }
        for (c, cell) in spec.wimax.iter().zip(cells) {
            let (down, up) = cell_rates(cell);
            let frame = cell.params.layout.duration.as_secs_f64();
            let delay = frame + cell.params.propagation.as_secs_f64();
            let (down, up) = (
                graph.medium(down, delay, Vec::new()),
                graph.medium(up, delay, Vec::new()),
            );
            let bs = graph.node(&c.base_station);
            for s in &c.subscribers {
                let s = graph.node(s);
                graph.adjacency[bs].push((s, down));
                graph.adjacency[s].push((bs, up));
            }
        }
        graph
    }

    fn node(&mut self, name: &'a str) -> usize {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        self.index.insert(name, self.names.len());
        self.names.push(name);
        self.adjacency.push(Vec::new());
        self.names.len() - 1
    }

    /// A channel's hub: a node of the graph with no name, which no flow names.
    fn hub(&mut self) -> usize {
        self.names.push("");
        self.adjacency.push(Vec::new());
        self.names.len() - 1
    }

    fn medium(&mut self, rate: f64, delay: f64, loss: Vec<(f64, f64, f64)>) -> usize {
        self.media.push(Medium { rate, delay, loss });
        self.media.len() - 1
    }

    /// Where the search for a flow from `from` starts, and the medium to it: its only
    /// neighbour if it has one, else `from` itself. A node with one neighbour is a
    /// dead end of every search that does not start there, so the search from its
    /// neighbour finds the same path to every other node.
    fn start(&self, from: usize) -> (usize, Option<usize>) {
        match self.adjacency[from].as_slice() {
            [(neighbour, medium)] => (*neighbour, Some(*medium)),
            _ => (from, None),
        }
    }

    /// Breadth-first search from `source`: for each node reached, the node before it
    /// and the medium from there (`None` for `source`).
    fn tree(&self, source: usize) -> HashMap<usize, Option<(usize, usize)>> {
        let mut before = HashMap::from([(source, None)]);
        let mut frontier = VecDeque::from([source]);
        while let Some(v) = frontier.pop_front() {
            for &(u, m) in &self.adjacency[v] {
                if let std::collections::hash_map::Entry::Vacant(e) = before.entry(u) {
                    e.insert(Some((v, m)));
                    frontier.push_back(u);
                }
            }
        }
        before
    }

    /// Each flow's path, as (media crossed, nodes crossed), in order; empty for a
    /// flow with no path (which the topology's check then refuses) or to itself.
    fn paths(&self, ends: &[(&str, &str)]) -> Vec<(Vec<usize>, Vec<usize>)> {
        let mut by_start: HashMap<usize, Vec<usize>> = HashMap::new();
        let mut starts = Vec::new();
        let ids: Vec<Option<(usize, usize)>> = ends
            .iter()
            .map(|(a, b)| Some((*self.index.get(a)?, *self.index.get(b)?)))
            .collect();
        for (i, id) in ids.iter().enumerate() {
            let Some((from, _)) = *id else { continue };
            let start = self.start(from).0;
            by_start
                .entry(start)
                .or_insert_with(|| {
                    starts.push(start);
                    Vec::new()
                })
                .push(i);
        }
        let mut paths = vec![(Vec::new(), Vec::new()); ends.len()];
        for start in starts {
            let tree = self.tree(start);
            for &i in &by_start[&start] {
                let Some((from, to)) = ids[i] else { continue };
                if from == to || !tree.contains_key(&to) {
                    continue;
                }
                let (mut media, mut nodes) = (Vec::new(), vec![to]);
                let mut at = to;
                while let Some(Some((back, m))) = tree.get(&at) {
                    media.push(*m);
                    nodes.push(*back);
                    at = *back;
                }
                if let (_, Some(first)) = self.start(from) {
                    // The search began at `from`'s only neighbour: its hop first.
                    media.push(first);
                    nodes.push(from);
                }
                media.reverse();
                nodes.reverse();
                paths[i] = (media, nodes);
            }
        }
        paths
    }
}

/// The downlink and uplink rates of a cell (bits/s): the data symbols of a frame at
/// the scheme AMC picks at the mean SNR (or the fixed scheme), per frame duration,
/// within the caps.
fn cell_rates(cell: &CellPlan) -> (f64, f64) {
    let p = &cell.params;
    let mcs = p
        .fixed_mcs
        .unwrap_or_else(|| Mcs::adaptive(p.snr_db, p.amc_margin_db));
    let frame = p.layout.duration.as_secs_f64();
    let per_symbol = f64::from(mcs.bytes_per_symbol()) * 8.0 / frame;
    let cap = |rate: f64, cap: Option<u64>| cap.map_or(rate, |c| rate.min(c as f64));
    (
        cap(
            per_symbol * p.layout.dl_data_symbols() as f64,
            p.downlink_cap_bps,
        ),
        cap(
            per_symbol * p.layout.ul_data_symbols() as f64,
            p.uplink_cap_bps,
        ),
    )
}

/// The data-loss intervals of one link direction over `[0, seconds)`: each Bernoulli
/// or Gilbert–Elliott stage on data in its window; overlapping stages combined as
/// independent losses; averaged into at most `LOSS_SLICES` slices.
fn data_loss(stages: &[StagePlan], direction: Direction, seconds: f64) -> Vec<(f64, f64, f64)> {
    let mut pieces: Vec<(f64, f64, f64)> = Vec::new();
    for s in stages {
        if !(s.direction == direction || s.direction == Direction::Both)
            || s.applies_to == AppliesTo::Acks
        {
            continue;
        }
        let (from, to) = match s.window {
            StageWindow::Always => (0.0, seconds),
            StageWindow::Between(a, b) => (a.as_secs_f64(), b.as_secs_f64().min(seconds)),
            StageWindow::OnTrigger { .. } => continue,
        };
        match &s.stage {
            StageSpec::Bernoulli { schedule } => {
                for (k, &(at, p)) in schedule.iter().enumerate() {
                    let start = if k == 0 { 0.0 } else { at.0.as_secs_f64() };
                    let end = schedule
                        .get(k + 1)
                        .map_or(f64::INFINITY, |next| next.0 .0.as_secs_f64());
                    let (a, b) = (start.max(from), end.min(to));
                    if a < b && p > 0.0 {
                        pieces.push((a, b, p));
                    }
                }
            }
            StageSpec::GilbertElliott {
                p_gb,
                p_bg,
                loss_good,
                loss_bad,
            } => {
                // Stationary: the bad state's share is p_gb/(p_gb + p_bg).
                let bad = if p_gb + p_bg > 0.0 {
                    p_gb / (p_gb + p_bg)
                } else {
                    0.0
                };
                let p = (1.0 - bad) * loss_good + bad * loss_bad;
                if from < to && p > 0.0 {
                    pieces.push((from, to, p));
                }
            }
            _ => {}
        }
    }
    if pieces.is_empty() {
        return pieces;
    }
    // Cut [0, seconds) at every piece's ends (at most LOSS_SLICES equal slices when
    // there are more) and combine the pieces over each cut.
    let mut cuts: Vec<f64> = pieces.iter().flat_map(|&(a, b, _)| [a, b]).collect();
    cuts.extend([0.0, seconds]);
    cuts.retain(|&t| (0.0..=seconds).contains(&t));
    cuts.sort_by(f64::total_cmp);
    cuts.dedup();
    if cuts.len() > LOSS_SLICES + 1 {
        cuts = (0..=LOSS_SLICES)
            .map(|k| seconds * k as f64 / LOSS_SLICES as f64)
            .collect();
    }
    cuts.windows(2)
        .map(|w| {
            let (a, b) = (w[0], w[1]);
            let kept: f64 = pieces
                .iter()
                .map(|&(s, e, p)| {
                    let overlap = (e.min(b) - s.max(a)).max(0.0) / (b - a);
                    1.0 - p * overlap
                })
                .product();
            (a, b, 1.0 - kept)
        })
        .filter(|&(_, _, p)| p > 0.0)
        .collect()
}

/// The traffic of every flow, in scenario order: `kinds[i]` is flow `i`'s.
pub(super) fn traffic(
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
        let start = f.start.0.as_secs_f64();
        let t = active[i];
        let (packets, acks, size, window) = match &kinds[i] {
            FlowKind::Tcp {
                options,
                cc,
                app_bytes,
            } => {
                let mss = f64::from(options.payload_mss());
                let size = f64::from(options.advertised_mss()) + HEADERS;
                let window_rate = options.receive_window as f64 * 8.0 / rtt;
                let base = share.min(window_rate);
                let rate = if halves_on_loss(cc) {
                    let law = mss * 8.0 * SQRT_LAW / rtt;
                    let losses = media.iter().map(|&m| &graph.media[m].loss);
                    losses
                        .map(|loss| mean_rate(loss, base, law, start, start + t))
                        .fold(base, f64::min)
                } else {
                    base
                };
                let mut packets = rate * t / (8.0 * size);
                if let Some(bytes) = app_bytes {
                    packets = packets.min((*bytes as f64 / mss).ceil());
                }
                let every = f64::from(options.delayed_ack_every.max(1));
                let every = if options.delayed_ack { every } else { 1.0 };
                let window = options.receive_window as f64 / size;
                (packets, packets / every, size, window)
            }
            FlowKind::Sctp => (
                share * t / (8.0 * FULL_PACKET),
                0.0,
                FULL_PACKET,
                f64::INFINITY,
            ),
            FlowKind::Udp(source) => {
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

    /// A graph of links between named nodes, as `Graph::of` builds it.
    fn graph<'a>(links: &[(&'a str, &'a str)]) -> Graph<'a> {
        let mut g = Graph {
            index: HashMap::new(),
            names: Vec::new(),
            adjacency: Vec::new(),
            media: Vec::new(),
        };
        for &(a, b) in links {
            let (a, b) = (g.node(a), g.node(b));
            for (from, to) in [(a, b), (b, a)] {
                let m = g.medium(1.0, 0.0, Vec::new());
                g.adjacency[from].push((to, m));
            }
        }
        g
    }

    /// The search the grouping must agree with: one breadth-first search per flow
    /// from its own source, then the media back along the predecessors.
    fn reference_path(g: &Graph, from: usize, to: usize) -> Vec<usize> {
        let tree = g.tree(from);
        let mut media = Vec::new();
        let mut at = to;
        while let Some(Some((back, m))) = tree.get(&at) {
            media.push(*m);
            at = *back;
        }
        if at != from || from == to {
            return Vec::new();
        }
        media.reverse();
        media
    }

    #[test]
    fn grouped_searches_agree_with_a_search_per_flow() {
        // Random graphs of routers (parallel links allowed) and hosts, every ordered
        // pair of nodes a flow. xorshift64: a fixed sequence.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        for _ in 0..200 {
            let routers = 1 + next(5);
            let hosts = next(8);
            let mut links: Vec<(String, String)> = Vec::new();
            for _ in 0..next(7) {
                let (a, b) = (next(routers), next(routers));
                if a != b {
                    links.push((format!("r{a}"), format!("r{b}")));
                }
            }
            for h in 0..hosts {
                links.push((format!("h{h}"), format!("r{}", next(routers))));
            }
            let borrowed: Vec<(&str, &str)> = links
                .iter()
                .map(|(a, b)| (a.as_str(), b.as_str()))
                .collect();
            let g = graph(&borrowed);
            let ends: Vec<(&str, &str)> = g
                .names
                .iter()
                .flat_map(|&a| g.names.iter().map(move |&b| (a, b)))
                .collect();
            let got: Vec<Vec<usize>> = g.paths(&ends).into_iter().map(|(m, _)| m).collect();
            let want: Vec<Vec<usize>> = ends
                .iter()
                .map(|(a, b)| reference_path(&g, g.index[a], g.index[b]))
                .collect();
            assert_eq!(got, want, "{links:?}");
        }
    }
}
