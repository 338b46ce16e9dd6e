//! The memory a run will hold, estimated before it starts, against a budget.
//!
//! A scenario can be legal and still ask for more memory than any machine has: a
//! throughput bin of 1 ns over ten minutes, a sample per ACK of a 1 Gb/s flow for an
//! hour, an initial window of 4·10⁹ segments, an 802.11 channel of 20 000 stations
//! (every ordered pair of stations is a route edge). `check` refuses those, naming the
//! field whose cost is largest, instead of letting the run allocate until the
//! operating system kills it.
//!
//! The estimate is an upper bound of what grows with the run, not a prediction: a
//! flow is taken to send data packets at the rate of the slowest hop of its shortest
//! path for the whole run (each packet one series row and one ACK row in `change`
//! sampling, one segment-trace row), and every growable table is counted twice
//! (a vector doubles when full; the bindings copy columns out). Fixed-size state
//! (agents, links, queues) is small and not counted. A UDP flow records no series:
//! its datagrams (at its source's peak rate) count only for the queue traces. What the estimate cannot see
//! (a run that holds more than it foresaw) is caught while running: see
//! `World::run_within` and the recorder's `bytes_held`.
//!
//! The budget is `memory_budget` (default 4 GiB), a top-level scenario field.

use std::collections::{HashMap, VecDeque};

use super::spec::{Sampling, Scenario, SourceSpec};
use super::validate::ScenarioError;

/// Default memory budget of one run.
pub const DEFAULT_BUDGET: u64 = 4 << 30;

/// Bytes of one series row (time, cwnd, ssthresh, srtt, rto, snd_una, snd_nxt,
/// delivered) and of one segment-trace row (time, seq, len, retransmission).
const SERIES_ROW: u64 = 56;
const SEGMENT_ROW: u64 = 24;
/// One queue-trace row (time, packets, bytes).
const QUEUE_ROW: u64 = 16;
/// What the sender keeps per segment in flight (its record of the segment).
const SEGMENT_RECORD: u64 = 64;
/// One route edge between two stations of a channel (edge and hop tables).
const ROUTE_EDGE: u64 = 48;
/// Growable tables are counted twice: doubling capacity, and the copy handed out.
const GROWTH: u64 = 2;
/// A wimax cell whose caps are not set carries at most this (OFDM-256, 28 MHz, 64-QAM 3/4).
const WIMAX_MAX_BPS: u64 = 100_000_000;

/// One contribution to the estimate: the field that decides it, its value as the
/// scenario wrote it, what it holds, and how many bytes.
struct Cost {
    field: String,
    value: String,
    what: String,
    bytes: f64,
}

/// Refuses a scenario whose run would hold more than its memory budget.
pub fn check(spec: &Scenario) -> Result<(), ScenarioError> {
    let budget = spec.memory_budget.map_or(DEFAULT_BUDGET, |s| s.0);
    let costs = estimate(spec);
    let total: f64 = costs.iter().map(|c| c.bytes).sum();
    if total <= budget as f64 {
        return Ok(());
    }
    let worst = costs
        .iter()
        .max_by(|a, b| a.bytes.total_cmp(&b.bytes))
        .expect("a total above the budget has a largest part");
    Err(ScenarioError::new(
        worst.field.clone(),
        format!(
            "{} makes the run hold about {} ({}), {} in all, more than its memory budget \
             of {}; change it, or raise memory_budget",
            worst.value,
            human(worst.bytes),
            worst.what,
            human(total),
            human(budget as f64)
        ),
    ))
}

fn estimate(spec: &Scenario) -> Vec<Cost> {
    let seconds = spec.duration.0.as_secs_f64();
    let trace = &spec.trace;
    let rates = HopRates::of(spec);
    let mut costs = Vec::new();
    let flows = spec.flows.len() as f64;
    let bins = seconds / trace.throughput_bin.0.as_secs_f64().max(1e-9);
    costs.push(Cost {
        field: "trace.throughput_bin".into(),
        value: format!("\"{}\"", trace.throughput_bin.0),
        what: format!("{bins:.3e} throughput bins for each of {flows} flows"),
        bytes: flows * bins * 2.0 * 8.0 * GROWTH as f64,
    });
    let ends: Vec<(&str, &str)> = spec
        .flows
        .iter()
        .map(|f| (f.from.primary(), f.to.primary()))
        .collect();
    let bottlenecks = rates.bottlenecks(&ends);
    let mut flow_packets = Vec::with_capacity(spec.flows.len());
    for ((i, f), &bottleneck) in spec.flows.iter().enumerate().zip(&bottlenecks) {
        if let Some(source) = &f.source {
            // A UDP flow records no series: its datagrams count only for the
            // queue traces, at its source's peak rate.
            let (rate, size) = udp_peak(source);
            flow_packets.push(rate.min(bottleneck) as f64 / (8.0 * size as f64) * seconds);
            continue;
        }
        let mss = f.tcp.mss.map_or(super::tcp_options::DEFAULT_MSS, |m| m.0);
        let packet_bits = 8.0 * (mss as f64 + 40.0);
        let packets = bottleneck as f64 / packet_bits * seconds;
        flow_packets.push(packets);
        let (field, value, rows) = match trace.sampling {
            Sampling::Change => (
                "trace.sampling".to_string(),
                "\"change\"".to_string(),
                2.0 * packets,
            ),
            Sampling::Interval => (
                "trace.interval".to_string(),
                format!("\"{}\"", trace.interval.0),
                seconds / trace.interval.0.as_secs_f64().max(1e-9),
            ),
        };
        costs.push(Cost {
            field,
            value,
            what: format!("{rows:.3e} series rows of flows[{i}]"),
            bytes: rows * (SERIES_ROW * GROWTH) as f64,
        });
        if trace.segments {
            costs.push(Cost {
                field: "trace.segments".into(),
                value: "true".into(),
                what: format!("{packets:.3e} segment-trace rows of flows[{i}]"),
                bytes: packets * (SEGMENT_ROW * GROWTH) as f64,
            });
        }
        if let Some(window) = f.tcp.initial_window {
            costs.push(Cost {
                field: format!("flows[{i}].tcp.initial_window"),
                value: window.to_string(),
                what: format!("{window} segments sent at once, each with its record"),
                bytes: window as f64 * SEGMENT_RECORD as f64,
            });
        }
    }
    if trace.queues {
        // A link carries no more packets than its rate allows, nor more than the flows
        // send (each data packet and its ACK once): two queue rows each (in, out).
        let flows_packets: f64 = flow_packets.iter().sum::<f64>() * 2.0;
        let packets: f64 = spec
            .links
            .iter()
            .map(|l| (2.0 * l.bandwidth.0 as f64 / (8.0 * 1500.0) * seconds).min(flows_packets))
            .sum();
        costs.push(Cost {
            field: "trace.queues".into(),
            value: "true".into(),
            what: format!("{:.3e} queue-trace rows", 2.0 * packets),
            bytes: 2.0 * packets * (QUEUE_ROW * GROWTH) as f64,
        });
    }
    costs.extend(generator_costs(spec));
    for (i, w) in spec.wireless.iter().enumerate() {
        let n = w.stations.len() as f64;
        costs.push(Cost {
            field: format!("wireless[{i}].stations"),
            value: format!("{n} stations"),
            what: format!("{:.3e} route edges between them", n * (n - 1.0)),
            bytes: n * (n - 1.0) * ROUTE_EDGE as f64 + n * n * 4.0,
        });
    }
    costs
}

/// What traffic generators hold: a record per connection they open (λ·T of them,
/// λ = load·C/(8·E[connection bytes])), and the connections alive at one time. The
/// live count is Little's law, λ·E[sojourn], with the sojourn of a connection of
/// mean size on a processor-sharing link at the link's total generator load ρ
/// (M/G/1-PS: E[S]·8/(C·(1 − ρ)), ρ capped at 0.99) plus a round trip (at most twice
/// the sum of every link's delay); connections in progress are an M/G/∞ count,
/// Poisson, so mean + 6·√mean + 10 bounds its excursions.
fn generator_costs(spec: &Scenario) -> Vec<Cost> {
    use crate::world::{LIVE_CONNECTION_BYTES, RECORD_BYTES};
    let seconds = spec.duration.0.as_secs_f64();
    let mut link_load: HashMap<&str, f64> = HashMap::new();
    for s in &spec.generators {
        *link_load.entry(s.link.as_str()).or_default() += s.load;
    }
    let round_trip: f64 = 2.0
        * spec
            .links
            .iter()
            .map(|l| l.delay.0.as_secs_f64())
            .sum::<f64>();
    let mut costs = Vec::new();
    for (g, s) in spec.generators.iter().enumerate() {
        let Some(link) = (0..spec.links.len()).find(|&i| spec.link_name(i) == s.link) else {
            continue;
        };
        let capacity = spec.links[link].bandwidth.0 as f64;
        let size = s.model().mean_connection_bytes();
        let rate = s.load * capacity / (8.0 * size);
        let connections = rate * (seconds - s.start.0.as_secs_f64()).max(0.0);
        costs.push(Cost {
            field: format!("generators[{g}].load"),
            value: s.load.to_string(),
            what: format!("{connections:.3e} connection records"),
            bytes: connections * (RECORD_BYTES * GROWTH) as f64,
        });
        let rho = link_load[s.link.as_str()].min(0.99);
        let mean = rate * (size * 8.0 / (capacity * (1.0 - rho)) + round_trip);
        let live = mean + 6.0 * mean.sqrt() + 10.0;
        costs.push(Cost {
            field: format!("generators[{g}].load"),
            value: s.load.to_string(),
            what: format!("up to {live:.0} connections alive at once"),
            bytes: live * LIVE_CONNECTION_BYTES as f64,
        });
    }
    costs
}

/// A UDP source's peak rate (bits/s) and datagram size (bytes, at least 1).
fn udp_peak(source: &SourceSpec) -> (u64, u64) {
    let (rate, size) = match source {
        SourceSpec::Cbr {
            rate, packet_size, ..
        }
        | SourceSpec::Exponential {
            rate, packet_size, ..
        }
        | SourceSpec::Pareto {
            rate, packet_size, ..
        } => (rate.0, packet_size.0),
    };
    (rate, size.max(1))
}

/// The hops of the scenario's graph with their rates, for a flow's bottleneck. A
/// channel is a hub (each station one hop to it, one from it): its n·(n − 1) station
/// pairs are what the budget refuses, so the estimate must not build them.
///
/// Scale: a flow's path is the one a breadth-first search from its source finds
/// (neighbours in declaration order, the first to reach a node is its predecessor).
/// A source with a single hop (a host on its access link) reaches everything through
/// that neighbour, and the search from the neighbour finds the same predecessor for
/// every other node (the source is a dead end in it), so flows are grouped by where
/// their search starts: a dumbbell of N flows costs one search over N hosts, not N
/// (the unit tests check the grouping against a search per flow).
struct HopRates {
    /// Neighbours of each node with the rate of the hop to them, in declaration order.
    adjacency: HashMap<String, Vec<(String, u64)>>,
}

impl HopRates {
    fn of(spec: &Scenario) -> Self {
        let mut adjacency: HashMap<String, Vec<(String, u64)>> = HashMap::new();
        let mut link = |a: &str, b: &str, rate: u64| {
            adjacency
                .entry(a.to_string())
                .or_default()
                .push((b.to_string(), rate));
            adjacency
                .entry(b.to_string())
                .or_default()
                .push((a.to_string(), rate));
        };
        for l in &spec.links {
            link(&l.between[0], &l.between[1], l.bandwidth.0);
        }
        for (i, w) in spec.wireless.iter().enumerate() {
            // Not a valid node name (brackets), so it meets no node of the scenario.
            let hub = format!("[wireless {i}]");
            for s in &w.stations {
                link(s, &hub, w.rate.0);
            }
        }
        for c in &spec.wimax {
            let caps = [c.downlink_cap, c.uplink_cap];
            let rate = caps
                .iter()
                .flatten()
                .map(|r| r.0)
                .max()
                .unwrap_or(WIMAX_MAX_BPS);
            for s in &c.subscribers {
                link(&c.base_station, s, rate);
            }
        }
        HopRates { adjacency }
    }

    /// The slowest hop of a shortest path (by hop count) of each `(from, to)` pair, in
    /// order; the fastest hop of the graph for a pair with no path (which `build` then
    /// refuses) or from a node to itself.
    fn bottlenecks(&self, ends: &[(&str, &str)]) -> Vec<u64> {
        let fastest = self.adjacency.values().flatten().map(|&(_, r)| r).max();
        let no_path = fastest.unwrap_or(0);
        let mut by_start: HashMap<&str, Vec<usize>> = HashMap::new();
        let mut starts = Vec::new();
        for (i, &(from, _)) in ends.iter().enumerate() {
            let start = self.start(from).0;
            by_start
                .entry(start)
                .or_insert_with(|| {
                    starts.push(start);
                    Vec::new()
                })
                .push(i);
        }
        let mut slowest = vec![no_path; ends.len()];
        for start in starts {
            let tree = self.slowest_hop_from(start);
            for &i in &by_start[start] {
                let (from, to) = ends[i];
                let first = self.start(from).1;
                let hop = tree.get(to).map_or(u64::MAX, |&rest| first.min(rest));
                if from != to && hop != u64::MAX {
                    slowest[i] = hop;
                }
            }
        }
        slowest
    }

    /// Where the search for a flow from `from` starts, and the rate of the hop to it:
    /// its only neighbour if it has one hop, else `from` itself (no hop yet).
    fn start<'a>(&'a self, from: &'a str) -> (&'a str, u64) {
        match self.adjacency.get(from).map(Vec::as_slice) {
            Some([(neighbour, rate)]) => (neighbour, *rate),
            _ => (from, u64::MAX),
        }
    }

    /// Breadth-first search from `source`: the slowest hop on the path to each node it
    /// reaches (`u64::MAX` for `source` itself, which has no hop).
    fn slowest_hop_from<'a>(&'a self, source: &'a str) -> HashMap<&'a str, u64> {
        let mut slowest = HashMap::from([(source, u64::MAX)]);
        let mut frontier = VecDeque::from([source]);
        while let Some(v) = frontier.pop_front() {
            let to_v = slowest[v];
            for (u, rate) in self.adjacency.get(v).into_iter().flatten() {
                if !slowest.contains_key(u.as_str()) {
                    slowest.insert(u, to_v.min(*rate));
                    frontier.push_back(u);
                }
            }
        }
        slowest
    }
}

/// Bytes for people: "512 MiB", "19.2 TiB".
fn human(bytes: f64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut value = bytes;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 || value >= 100.0 {
        format!("{value:.0} {}", UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(extra_top: &str, bottleneck: &str, flow: &str, trace: &str) -> Scenario {
        let text = format!(
            r#"
duration = "3600s"
{extra_top}
[[links]]
between = ["h1", "r"]
bandwidth = "1Gbps"
delay = "1ms"
[[links]]
between = ["r", "h2"]
bandwidth = "{bottleneck}"
delay = "10ms"
[[flows]]
from = "h1"
to = "h2"
{flow}
[trace]
{trace}
"#
        );
        // Parsed without `validate`, which would refuse the over-budget ones here.
        toml::from_str(&text).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn a_flow_is_paced_by_the_slowest_hop_of_its_path() {
        let spec = scenario("", "10Mbps", "", "");
        let rates = HopRates::of(&spec);
        assert_eq!(
            rates.bottlenecks(&[("h1", "h2"), ("h2", "h1")]),
            [10_000_000, 10_000_000]
        );
    }

    /// A graph of `(a, b, rate)` links, as `HopRates::of` builds it.
    fn hops(links: &[(&str, &str, u64)]) -> HopRates {
        let mut adjacency: HashMap<String, Vec<(String, u64)>> = HashMap::new();
        for &(a, b, rate) in links {
            adjacency
                .entry(a.into())
                .or_default()
                .push((b.into(), rate));
            adjacency
                .entry(b.into())
                .or_default()
                .push((a.into(), rate));
        }
        HopRates { adjacency }
    }

    #[test]
    fn flows_that_share_a_gateway_are_priced_from_one_search() {
        // Hosts a (5 Mb/s) and b (50 Mb/s) hang on r0; r0–r1 is 20 Mb/s; c (1 Gb/s)
        // and d (8 Mb/s) hang on r1. a→c: min(5, 20, 1000) = 5; b→c: min(50, 20,
        // 1000) = 20; b→d: min(50, 20, 8) = 8; a→r0: its own hop, 5; r1→a: min(20, 5)
        // = 5. a→a has no hop and x is on no link: both get the fastest hop, 1 Gb/s.
        let m = 1_000_000;
        let rates = hops(&[
            ("r0", "r1", 20 * m),
            ("a", "r0", 5 * m),
            ("b", "r0", 50 * m),
            ("r1", "c", 1000 * m),
            ("r1", "d", 8 * m),
        ]);
        let ends = [
            ("a", "c"),
            ("b", "c"),
            ("b", "d"),
            ("a", "r0"),
            ("r1", "a"),
            ("a", "a"),
            ("a", "x"),
        ];
        let want = [5, 20, 8, 5, 5, 1000, 1000].map(|r| r * m);
        assert_eq!(rates.bottlenecks(&ends), want);
    }

    /// The search the grouping must agree with: one breadth-first search per flow
    /// from its own source (neighbours in declaration order, first to reach a node
    /// is its predecessor), then the slowest hop back along the predecessors.
    fn reference_bottleneck(rates: &HopRates, from: &str, to: &str) -> u64 {
        let mut previous: HashMap<&str, (&str, u64)> = HashMap::new();
        let mut frontier = VecDeque::from([from]);
        while let Some(v) = frontier.pop_front() {
            for (u, rate) in rates.adjacency.get(v).into_iter().flatten() {
                if u != from && !previous.contains_key(u.as_str()) {
                    previous.insert(u, (v, *rate));
                    frontier.push_back(u);
                }
            }
        }
        let mut slowest = u64::MAX;
        let mut at = to;
        while let Some(&(back, rate)) = previous.get(at) {
            slowest = slowest.min(rate);
            at = back;
        }
        if slowest == u64::MAX || from == to {
            let all = rates.adjacency.values().flatten().map(|&(_, r)| r);
            slowest = all.max().unwrap_or(0);
        }
        slowest
    }

    #[test]
    fn grouped_searches_agree_with_a_search_per_flow() {
        // Random graphs of routers (parallel links allowed) and hosts, every rate
        // different, every ordered pair of nodes a flow. xorshift64: a fixed sequence.
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
            let mut links: Vec<(String, String, u64)> = Vec::new();
            for _ in 0..next(7) {
                let (a, b) = (next(routers), next(routers));
                if a != b {
                    links.push((format!("r{a}"), format!("r{b}"), 1 + next(1000)));
                }
            }
            for h in 0..hosts {
                links.push((
                    format!("h{h}"),
                    format!("r{}", next(routers)),
                    1 + next(1000),
                ));
            }
            let borrowed: Vec<(&str, &str, u64)> = links
                .iter()
                .map(|(a, b, r)| (a.as_str(), b.as_str(), *r))
                .collect();
            let rates = hops(&borrowed);
            let nodes: Vec<&str> = rates.adjacency.keys().map(String::as_str).collect();
            let ends: Vec<(&str, &str)> = nodes
                .iter()
                .flat_map(|&a| nodes.iter().map(move |&b| (a, b)))
                .collect();
            let want: Vec<u64> = ends
                .iter()
                .map(|&(a, b)| reference_bottleneck(&rates, a, b))
                .collect();
            assert_eq!(rates.bottlenecks(&ends), want, "{links:?}");
        }
    }

    #[test]
    fn an_hour_of_change_sampling_at_10_mbps_fits() {
        // 10e6 / (8 · 1500) · 3600 = 3.0e6 packets; 2 rows each · 56 B · 2 = 672 MB,
        // plus 36 000 bins · 2 · 8 B · 2: far below 4 GiB.
        let spec = scenario("", "10Mbps", "", "");
        let total: f64 = estimate(&spec).iter().map(|c| c.bytes).sum();
        assert!(
            (total - (6.0e6 * 112.0 + 36_000.0 * 32.0)).abs() < 1.0,
            "{total}"
        );
        assert!(check(&spec).is_ok());
    }

    #[test]
    fn an_hour_of_change_sampling_at_1_gbps_is_refused_unless_the_budget_is_raised() {
        // 100 times the packets above: 67.2 GB > 4 GiB.
        let err = check(&scenario("", "1Gbps", "", ""))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("trace.sampling: \"change\" makes the run hold about 62.6 GiB"),
            "{err}"
        );
        assert!(err.contains("raise memory_budget"), "{err}");
        let raised = scenario("memory_budget = \"128GiB\"", "1Gbps", "", "");
        assert!(check(&raised).is_ok());
    }

    #[test]
    fn queue_traces_count_the_packets_the_flows_send_not_the_link_rates() {
        // The flow: 10e6 / 12 000 · 3600 = 3.0e6 data packets, 6.0e6 with ACKs. The
        // 1 Gb/s access link could carry 6e8 but carries those 6.0e6; the bottleneck
        // too: 1.2e7 packets, two rows each, 16 B · 2: 768 MB.
        let spec = scenario("", "10Mbps", "", "queues = true");
        let queues = estimate(&spec)
            .into_iter()
            .find(|c| c.field == "trace.queues")
            .unwrap();
        assert!(
            (queues.bytes - 1.2e7 * 2.0 * 32.0).abs() < 1.0,
            "{}",
            queues.bytes
        );
        assert!(check(&spec).is_ok());
    }

    #[test]
    fn a_udp_flow_holds_no_series_and_counts_its_datagrams_in_queue_traces() {
        // A 1 Gb/s TCP flow for an hour is refused (above); a CBR of 2 Mb/s in 500 B
        // datagrams holds only its bins: 36 000 · 2 · 8 B · 2 = 1.152 MB. Queue
        // traces: 2e6 / 4000 · 3600 = 1.8e6 datagrams (the source's rate, not the
        // link's), counted twice as for every flow (the TCP rule counts ACKs):
        // 3.6e6 per link, 2 links, two rows each, 16 B · 2: 460.8 MB.
        let udp = "transport = \"udp\"\nsource = { kind = \"cbr\", rate = \"2Mbps\", packet_size = \"500B\" }";
        let spec = scenario("", "1Gbps", udp, "queues = true");
        let costs = estimate(&spec);
        let queues = costs.iter().find(|c| c.field == "trace.queues").unwrap();
        assert!(
            (queues.bytes - 3.6e6 * 2.0 * 2.0 * 32.0).abs() < 1.0,
            "{}",
            queues.bytes
        );
        let others: f64 = costs
            .iter()
            .filter(|c| c.field != "trace.queues")
            .map(|c| c.bytes)
            .sum();
        assert!((others - 36_000.0 * 32.0).abs() < 1.0, "{others}");
        assert!(check(&spec).is_ok());
    }

    #[test]
    fn a_nanosecond_throughput_bin_is_refused() {
        // 3600 s / 1 ns = 3.6e12 bins · 2 · 8 B · 2 = 115 TB.
        let spec = scenario(
            "",
            "10Mbps",
            "",
            "sampling = \"interval\"\nthroughput_bin = \"1ns\"",
        );
        let err = check(&spec).unwrap_err().to_string();
        assert!(err.starts_with("trace.throughput_bin: "), "{err}");
        assert!(err.contains("about 105 TiB"), "{err}");
    }

    #[test]
    fn an_initial_window_of_four_billion_segments_is_refused() {
        // 4e9 · 64 B = 256 GB = 238.4 GiB.
        let spec = scenario("", "10Mbps", "tcp = { initial_window = 4000000000 }", "");
        let err = check(&spec).unwrap_err().to_string();
        assert!(
            err.starts_with(
                "flows[0].tcp.initial_window: 4000000000 makes the run hold about 238 GiB"
            ),
            "{err}"
        );
    }

    #[test]
    fn a_channel_of_twenty_thousand_stations_is_refused() {
        // 20 000 · 19 999 edges · 48 B + 20 000² · 4 B = 20.8 GB.
        let stations: Vec<String> = (0..20_000).map(|i| format!("\"s{i}\"")).collect();
        let text = format!(
            "duration = \"1s\"\nlinks = []\nflows = []\n[[wireless]]\nstations = [{}]\nrate = \"11Mbps\"\n",
            stations.join(", ")
        );
        let spec: Scenario = toml::from_str(&text).unwrap();
        let err = check(&spec).unwrap_err().to_string();
        assert!(
            err.starts_with(
                "wireless[0].stations: 20000 stations makes the run hold about 19.4 GiB"
            ),
            "{err}"
        );
    }

    #[test]
    fn bytes_are_written_for_people() {
        assert_eq!(human(512.0), "512 B");
        assert_eq!(human(1536.0), "1.5 KiB");
        assert_eq!(human(4.0 * (1u64 << 30) as f64), "4.0 GiB");
        assert_eq!(human(150.0 * (1u64 << 40) as f64), "150 TiB");
    }
}
