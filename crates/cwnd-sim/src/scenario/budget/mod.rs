//! The memory a run will hold at its peak, estimated before it starts, against a
//! budget.
//!
//! A scenario can be legal and still ask for more memory than any machine has: a
//! throughput bin of 1 ns over ten minutes, a sample per ACK of a 1 Gb/s flow for an
//! hour, an initial window of 4·10⁹ segments, a million declared nodes (a route table
//! of 10¹² entries), an 802.11 channel of 20 000 stations (every ordered pair of
//! stations is a route edge). `check` refuses those, naming the field whose cost is
//! largest, before it builds any table in proportion to them, instead of letting the
//! run allocate until the operating system kills it.
//!
//! The estimate is of the peak a run reaches, the simulator's tables and the columns
//! it hands to Python (the bindings' numpy arrays beside the traces they are read
//! from), within a factor of two either way: `tests/test_memory_estimate.py` runs the
//! example scenarios and a generated set spanning every term below, each in a child
//! process, and compares the estimate with its peak resident memory. Every list of the
//! scenario counts: nodes (and the route table of the nodes that are not hosts on one
//! link), links and their queues, flows, stations, subscribers, generators, impairment
//! schedules and drop lists, explicit routes; then what grows with the run, from what
//! each flow sends (`traffic.rs`): series rows, throughput bins, segment, queue
//! and controller traces, SCTP's traces, pcap captures, the generators' connections.
//! What the estimate cannot see is caught while running: `World::run_within` and the
//! recorder's `bytes_held`.
//!
//! The per-item sizes of what is fixed (a flow, a link, a node) were measured: peak
//! resident memory over thousands of items (`tests/test_memory_estimate.py` has the
//! cases), divided by their count; the per-row sizes are the traces' fields and the
//! columns' dtypes.
//!
//! The budget is `memory_budget` (default 4 GiB), a top-level scenario field.

mod graph;
mod structure;
mod traces;
mod traffic;

#[cfg(test)]
pub(super) use traffic::FlowTraffic;
pub(super) use traffic::{traffic, FlowKind};

use super::error::ScenarioError;
use super::generator::GeneratorPlan;
use super::link::LinkPlan;
use super::spec::Scenario;
use super::wimax::CellPlan;
use structure::structure;
use traces::{generator_costs, traces};

/// Default memory budget of one run.
pub const DEFAULT_BUDGET: u64 = 4 << 30;

/// A flow, an SCTP association or a UDP flow: the world's agents and trace (2.4 KB
/// by `size_of`), the plan's spec and canonical JSON (3–4 KB), its summary row as a
/// Python dict of about 40 values (4 KB). Measured: 10.4 KB each over 2 000 flows.
const FLOW: f64 = 10.5e3;
/// A link: two directions (288 B each), its plan and spec, its two rows of link
/// counters as Python dicts. Measured: 5.1 KB each over 20 000 links to hosts.
const LINK: f64 = 5.2e3;
/// A node: its name in the plan and the world, their maps by name, its routing rows.
const NODE: f64 = 256.0;
/// A route-table entry between two nodes that are not hosts on one link (4 B in the
/// plan's table, 4 B in the world's copy).
const ROUTE_ENTRY: f64 = 8.0;
/// A route edge (from, to, hop) and its hop in the plan and the world, and the
/// routing's adjacency entries: measured 57 B per station pair of an 802.11 channel.
const ROUTE_EDGE: f64 = 56.0;
/// A station's or subscriber's state in its medium.
const STATION: f64 = 512.0;
/// A step of a schedule (loss, ARQ) or an empirical delay's value: a JSON value in the
/// spec, its text in the canonical JSON (Rust's and Python's), the plan's and the
/// world's pair. Measured: 0.72 KB per step of a 40 000-step schedule.
const STEP: f64 = 700.0;
/// A packet of a drop list: a JSON number, its text, the plan's and the world's copy.
const DROP_ENTRY: f64 = 64.0;
/// An explicit route: the spec's three names and the routing's override entry.
const ROUTE: f64 = 256.0;
/// A packet waiting in a queue or in flight: the packet (72 B), its queue entry
/// (start, size: 16 B) and the sender's record of the segment (64 B).
const HELD_PACKET: f64 = 152.0;
/// One series row: in the trace, time, cwnd, ssthresh, srtt, rto, snd_una, snd_nxt,
/// delivered (8 + 4 + 4 + 5 · 8 = 56 B); as columns, the flow (4 B) and eight 8-byte
/// columns (64 B).
const SERIES_ROW: f64 = 56.0 + 68.0;
/// Series rows per data segment in `change` sampling beside one per ACK that moves
/// the sender's state: its own changes between ACKs (a timer, a burst that ACKs of a
/// frame release). Measured: 0.59–0.9 rows per segment with an ACK every two.
const SENDER_ROWS: f64 = 0.25;
/// One throughput bin of one flow: delivered and sent bytes in the trace (16 B), the
/// padded copies the results take (16 B), the columns flow, time, goodput and
/// throughput (4 + 3 · 8 = 28 B).
const BIN: f64 = 16.0 + 16.0 + 28.0;
/// One segment-trace row: time, seq, len, retransmission (8 + 8 + 4 + 1 = 21 B); as
/// columns with the flow (4 + 21 B).
const SEGMENT_ROW: f64 = 21.0 + 25.0;
/// One queue-trace row: time, packets, bytes (8 + 4 + 8 = 20 B); as columns with the
/// link (4 + 20 B).
const QUEUE_ROW: f64 = 20.0 + 24.0;
/// One departure of the queue trace: time and wait (8 + 8 B); as the
/// `queue_delays` columns with the link (4 + 8 + 8 B).
const QUEUE_DEPARTURE: f64 = 16.0 + 20.0;
/// Queue rows per data packet: two (in, out) where it waits, at its bottleneck,
/// and for some also at its first hop (a sender's bursts).
const QUEUE_ROWS_PER_PACKET: f64 = 2.5;
/// One controller number of one sample: time, name, value in the trace (8 + 16 + 8
/// B); as columns flow, time, metric, value (4 + 8 + 4 + 8 B).
const CC_METRIC_ROW: f64 = 32.0 + 24.0;
/// What an SCTP packet adds to the association's traces: its chunk row when
/// `trace.segments` (24 B traced, 28 B as columns), and per packet about 1.5
/// association rows (37 + 41 B) and 0.5 path rows (70 + 78 B), the SACKs' and the
/// paths' changes.
const SCTP_CHUNK_ROW: f64 = 24.0 + 28.0;
const SCTP_SERIES_PER_PACKET: f64 = 1.5 * (37.0 + 41.0) + 0.5 * (70.0 + 78.0);
/// A captured packet: its 16 B record header and the bytes kept (TCP and UDP: the
/// headers, Ethernet to transport with options, about 80 B and 42 B; SCTP: the whole
/// packet), twice (the capture, and the bytes object Python receives).
const PCAP_TCP: f64 = 2.0 * (16.0 + 80.0);
const PCAP_UDP: f64 = 2.0 * (16.0 + 42.0);
const PCAP_SCTP: f64 = 2.0 * (16.0 + 14.0 + 1500.0);
/// A generator's connection record beside its row in the `connections` table (a
/// Python dict of about 20 values).
const CONNECTION_ROW: f64 = 2.0e3;

/// One contribution to the estimate: the field that decides it, its value as the
/// scenario wrote it, what it holds, and how many bytes.
struct Cost {
    field: String,
    value: String,
    what: String,
    bytes: f64,
}

/// What the estimate reads beside the spec: the typed parts the checks made, in the
/// spec's order.
pub(super) struct Parts<'a> {
    pub links: &'a [LinkPlan],
    pub cells: &'a [CellPlan],
    pub flows: Vec<FlowKind<'a>>,
    pub generators: &'a [GeneratorPlan],
}

/// Refuses a scenario whose run would hold more than its memory budget.
pub(super) fn check(spec: &Scenario, parts: &Parts) -> Result<(), ScenarioError> {
    let budget = spec.memory_budget.map_or(DEFAULT_BUDGET, |s| s.0);
    let costs = estimate(spec, parts);
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
            "{} would make the run hold about {} ({}), {} in all, more than its memory \
             budget of {}; change it, or raise memory_budget",
            worst.value,
            human(worst.bytes),
            worst.what,
            human(total),
            human(budget as f64)
        ),
    ))
}

/// The estimate's total, in bytes.
pub(super) fn estimate_bytes(spec: &Scenario, parts: &Parts) -> u64 {
    estimate(spec, parts).iter().map(|c| c.bytes).sum::<f64>() as u64
}

/// Every cost, one per field (a field's cost summed over the items it decides).
fn estimate(spec: &Scenario, parts: &Parts) -> Vec<Cost> {
    let flows = traffic(spec, parts.links, parts.cells, &parts.flows);
    let mut costs = structure(spec, parts, &flows);
    costs.extend(traces(spec, parts, &flows));
    costs.extend(generator_costs(spec, parts.generators));
    costs.retain(|c| c.bytes > 0.0);
    costs
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
    use crate::scenario::load;

    /// A path h1 –1 Gb/s, 1 ms– r –`bottleneck`, 10 ms– h2 for an hour, one flow
    /// from h1 to h2 (the "linux" profile: NewReno, 1500 B packets, an ACK every
    /// two segments, a 64 MiB window, IW 10).
    fn scenario(extra_top: &str, bottleneck: &str, flow: &str, trace: &str) -> String {
        format!(
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
        )
    }

    /// The costs of a scenario that fits its budget.
    fn costs(text: &str) -> Vec<Cost> {
        let plan = load(text, None).unwrap_or_else(|e| panic!("{e}"));
        estimate(plan.spec(), &plan.parts())
    }

    fn cost(costs: &[Cost], field: &str) -> f64 {
        costs
            .iter()
            .find(|c| c.field == field)
            .map_or(0.0, |c| c.bytes)
    }

    fn refusal(text: &str) -> String {
        load(text, None).unwrap_err().to_string()
    }

    #[test]
    fn an_hour_of_change_sampling_at_10_mbps_fits() {
        // 1e7 b/s · 3600 s / 12 000 bits = 3.0e6 segments, 1.5e6 ACKs; rows: an ACK's
        // and a quarter per segment, 2.25e6 · 124 B. Bins: 36 000 · 60 B. Nodes: 3,
        // one router (r): 8 + 3 · 256. Links: 2 · 5 200. RTT: 2 · (1 ms + 12 µs) +
        // 2 · (10 ms + 1.2 ms) = 24.424 ms: 1e7 · 0.024424 / 12 000 = 20.353 packets
        // in flight; the bottleneck's queue fills (64 MiB of window): 100 packets;
        // IW 10: each of those 152 B. The flow: 10 500 B.
        let c = costs(&scenario("", "10Mbps", "", ""));
        let in_flight = 1e7 * 0.024424 / 12_000.0;
        let want = 2.25e6 * 124.0
            + 36_000.0 * 60.0
            + (8.0 + 3.0 * 256.0)
            + 2.0 * 5_200.0
            + (10_500.0 + in_flight * 152.0)
            + 100.0 * 152.0
            + 10.0 * 152.0;
        let total: f64 = c.iter().map(|c| c.bytes).sum();
        assert!((total - want).abs() < 1e-3, "{total} {want}");
        assert_eq!(cost(&c, "links[1].queue"), 100.0 * 152.0);
    }

    #[test]
    fn an_hour_of_change_sampling_at_1_gbps_is_refused_unless_the_budget_is_raised() {
        // 100 times the segments above: 2.25e8 rows · 124 B = 2.79e10 B = 26.0 GiB.
        let err = refusal(&scenario("", "1Gbps", "", ""));
        assert!(
            err.starts_with(
                "trace.sampling: \"change\" would make the run hold about 26.0 GiB \
                 (2.250e8 series rows of 1 flows), 26.0 GiB in all"
            ),
            "{err}"
        );
        assert!(err.ends_with("raise memory_budget"), "{err}");
        assert!(load(
            &scenario("memory_budget = \"28GiB\"", "1Gbps", "", ""),
            None
        )
        .is_ok());
    }

    #[test]
    fn queue_traces_count_the_packets_that_wait_and_every_departure() {
        // The flow's 3.0e6 segments, 2.5 rows each, 44 B a row: 330 MB; and a
        // departure (36 B) of each segment and of each of its 1.5e6 ACKs (one per two
        // segments) from each of the path's 2 queues: 4.5e6 · 2 · 36 B = 324 MB. A CBR
        // of 2 Mb/s is paced below its share and never waits: no rows, but its
        // 2e6 · 3600 / 4 000 bits = 1.8e6 datagrams leave 2 queues each; one of 20 Mb/s
        // over the 10 Mb/s bottleneck floods it: 1e7 · 3600 / 4 000 bits = 9e6
        // datagrams of 500 B, 2.5 rows each, and 2 departures each.
        let tcp = costs(&scenario("", "10Mbps", "", "queues = true"));
        let expected = 3.0e6 * 2.5 * 44.0 + 4.5e6 * 2.0 * 36.0;
        assert!((cost(&tcp, "trace.queues") - expected).abs() < 1e-3);
        let udp = |rate: &str| {
            format!("transport = \"udp\"\nsource = {{ kind = \"cbr\", rate = \"{rate}\", packet_size = \"500B\" }}")
        };
        let paced = costs(&scenario("", "10Mbps", &udp("2Mbps"), "queues = true"));
        assert!((cost(&paced, "trace.queues") - 1.8e6 * 2.0 * 36.0).abs() < 1e-3);
        assert_eq!(cost(&paced, "trace.sampling"), 0.0);
        let flood = costs(&scenario("", "10Mbps", &udp("20Mbps"), "queues = true"));
        let expected = 9e6 * 2.5 * 44.0 + 9e6 * 2.0 * 36.0;
        assert!((cost(&flood, "trace.queues") - expected).abs() < 1e-3);
    }

    #[test]
    fn a_nanosecond_throughput_bin_is_refused() {
        // 3600 s / 1 ns = 3.6e12 bins · 60 B = 2.16e14 B = 196 TiB.
        let trace = "sampling = \"interval\"\nthroughput_bin = \"1ns\"";
        let err = refusal(&scenario("", "10Mbps", "", trace));
        assert!(
            err.starts_with(
                "trace.throughput_bin: \"0.000000001s\" would make the run hold about 196 TiB"
            ),
            "{err}"
        );
    }

    #[test]
    fn an_initial_window_of_four_billion_segments_is_refused() {
        // 4e9 · 152 B = 6.08e11 B = 566 GiB.
        let flow = "tcp = { initial_window = 4000000000 }";
        let err = refusal(&scenario("", "10Mbps", flow, ""));
        assert!(
            err.starts_with(
                "flows[0].tcp.initial_window: 4000000000 would make the run hold about 566 GiB"
            ),
            "{err}"
        );
    }

    #[test]
    fn a_million_declared_nodes_are_refused_before_any_table_is_built() {
        // 100 000 declared nodes on no link, and r: 100 001 routers, a table of
        // 100 001² · 8 B = 8.0e10 B = 74.5 GiB. Built, the table would abort the
        // process (it did, at a million nodes: 4 TB asked).
        let nodes: Vec<String> = (0..100_000)
            .map(|i| format!("{{ name = \"n{i}\" }}"))
            .collect();
        let text = scenario(&format!("nodes = [{}]", nodes.join(", ")), "10Mbps", "", "");
        let err = refusal(&text);
        assert!(
            err.starts_with("nodes: 100003 nodes would make the run hold about 74.5 GiB"),
            "{err}"
        );
    }

    #[test]
    fn a_channel_of_many_stations_is_counted_by_its_station_pairs() {
        // 900 stations: 900 · 899 route edges · 56 B + 900 · 512 B = 45.77 MB, and
        // 900 routers: 900² · 8 B + 900 · 256 B = 6.71 MB.
        let stations: Vec<String> = (0..900).map(|i| format!("\"s{i}\"")).collect();
        let text = format!(
            "duration = \"1s\"\nlinks = []\n[[wireless]]\nstations = [{}]\nrate = \"11Mbps\"\n\
             [[flows]]\nfrom = \"s0\"\nto = \"s1\"\n",
            stations.join(", ")
        );
        let c = costs(&text);
        let edges = 900.0 * 899.0 * 56.0 + 900.0 * 512.0;
        assert!((cost(&c, "wireless[0].stations") - edges).abs() < 1e-3);
        assert!((cost(&c, "nodes") - (900.0 * 900.0 * 8.0 + 900.0 * 256.0)).abs() < 1e-3);
        let err = refusal(&text.replace("links = []", "memory_budget = \"40MB\"\nlinks = []"));
        assert!(
            err.starts_with("wireless[0].stations: 900 stations would make"),
            "{err}"
        );
    }

    #[test]
    fn ten_thousand_flows_on_one_link_share_it() {
        // 10 000 flows between two routers over 100 Mb/s for 10 s: 1e4 b/s each,
        // 1e4 · 10 / 12 000 = 8.333 segments, 6.25 rows a flow (124 B); 100 bins a
        // flow (60 B); 10 500 B a flow, IW 10 · 152 B. Refused as 34.8 GiB before,
        // the flows each counted at the whole link's rate; within 4 GiB now, and
        // over a budget of 100 MB the field named is `flows`.
        let flows = "[[flows]]\nfrom = \"a\"\nto = \"b\"\n".repeat(10_000);
        let text = format!(
            "duration = \"10s\"\n[[links]]\nbetween = [\"a\", \"b\"]\nbandwidth = \"100Mbps\"\n\
             delay = \"10ms\"\n{flows}"
        );
        let c = costs(&text);
        // RTT 2 · (10 ms + 0.12 ms): 1e4 · 0.02024 / 12 000 packets in flight a flow.
        let in_flight = 1e4 * 0.02024 / 12_000.0;
        let flows_cost = 10_000.0 * (10_500.0 + in_flight * 152.0);
        assert!((cost(&c, "flows") - flows_cost).abs() < 1e-3);
        let per_flow = 1e4 * 10.0 / 12_000.0 * 0.75 * 124.0 + 100.0 * 60.0 + 10.0 * 152.0;
        // Beside the flows: the link (5 200 B), two hosts (512 B), its queue.
        let fixed = 5_200.0 + 512.0 + 100.0 * 152.0;
        let rest: f64 = c
            .iter()
            .filter(|c| c.field != "flows")
            .map(|c| c.bytes)
            .sum();
        assert!((rest - 10_000.0 * per_flow - fixed).abs() < 1e-3, "{rest}");
        assert!(rest + flows_cost < 200e6);
        let err = refusal(&text.replace("duration", "memory_budget = \"100MB\"\nduration"));
        assert!(
            err.starts_with("flows: 10000 flows would make the run hold about"),
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
