//! What grows with the run: the traces (series rows, throughput bins, segments,
//! controller metrics, queues, captures) and the generators' connections.

use std::collections::HashMap;

use super::traffic::{FlowKind, FlowTraffic};
use super::{
    Cost, Parts, BIN, CC_METRIC_ROW, CONNECTION_ROW, PCAP_SCTP, PCAP_TCP, PCAP_UDP,
    QUEUE_DEPARTURE, QUEUE_ROW, QUEUE_ROWS_PER_PACKET, SCTP_CHUNK_ROW, SCTP_SERIES_PER_PACKET,
    SEGMENT_ROW, SENDER_ROWS, SERIES_ROW,
};
use crate::rng::stream;
use crate::scenario::generator::GeneratorPlan;
use crate::scenario::spec::Scenario;
use crate::trace::Sampling;
use crate::transport::tcp::cc::CcConfig;
use crate::transport::tcp::tcb::Tcb;

/// What the traces hold at the end of the run, and their columns.
pub(super) fn traces(spec: &Scenario, parts: &Parts, flows: &[FlowTraffic]) -> Vec<Cost> {
    let seconds = spec.duration.0.as_secs_f64();
    let trace = &spec.trace;
    let mut costs = Vec::new();
    let (rows, series, segments, metrics) = series_rows(spec, parts, flows);
    let (field, value) = match trace.sampling {
        Sampling::Change => ("trace.sampling".to_string(), "\"change\"".to_string()),
        Sampling::Interval => (
            "trace.interval".to_string(),
            format!("\"{}\"", trace.interval.0),
        ),
    };
    let n = flows.len();
    costs.push(Cost {
        field,
        value,
        what: format!("{rows:.3e} series rows of {n} flows"),
        bytes: series,
    });
    let bins = seconds / trace.throughput_bin.0.as_secs_f64().max(1e-9);
    costs.push(Cost {
        field: "trace.throughput_bin".into(),
        value: format!("\"{}\"", trace.throughput_bin.0),
        what: format!("{bins:.3e} throughput bins for each of {n} flows"),
        bytes: n as f64 * bins * BIN,
    });
    if trace.segments {
        costs.push(Cost {
            field: "trace.segments".into(),
            value: "true".into(),
            what: "a row per data segment or SCTP packet sent".into(),
            bytes: segments,
        });
    }
    if trace.cc_metrics {
        costs.push(Cost {
            field: "trace.cc_metrics".into(),
            value: "true".into(),
            what: "the controllers' numbers with every series row".into(),
            bytes: metrics,
        });
    }
    if trace.queues {
        costs.push(queue_rows(parts, flows));
    }
    if !trace.pcap.is_empty() {
        costs.push(pcap(spec, parts, flows));
    }
    costs
}

/// The series rows of every flow (sampled on change or at `trace.interval`), and
/// their bytes, the segment trace's and the controller metrics': (rows, series
/// bytes, segment bytes, metric bytes).
fn series_rows(spec: &Scenario, parts: &Parts, flows: &[FlowTraffic]) -> (f64, f64, f64, f64) {
    let trace = &spec.trace;
    let interval = trace.interval.0.as_secs_f64().max(1e-9);
    let (mut rows, mut series, mut segments, mut metrics) = (0.0, 0.0, 0.0, 0.0);
    for (f, (kind, spec_flow)) in flows.iter().zip(parts.flows.iter().zip(&spec.flows)) {
        match kind {
            FlowKind::Tcp { cc, .. } => {
                let r = match trace.sampling {
                    Sampling::Change => (f.acks + f.packets * SENDER_ROWS).min(f.packets),
                    Sampling::Interval => f.active / interval,
                };
                rows += r;
                series += r * SERIES_ROW;
                segments += f.packets * SEGMENT_ROW;
                metrics += r * controller_numbers(cc) * CC_METRIC_ROW;
            }
            FlowKind::Sctp => {
                let paths = spec_flow.to.addresses().len() as f64;
                let (r, bytes) = match trace.sampling {
                    Sampling::Change => (2.0 * f.packets, f.packets * SCTP_SERIES_PER_PACKET),
                    Sampling::Interval => {
                        let r = f.active / interval;
                        (r * (1.0 + paths), r * (78.0 + paths * 148.0))
                    }
                };
                rows += r;
                series += bytes;
                segments += f.packets * SCTP_CHUNK_ROW;
            }
            FlowKind::Udp(_) => {}
        }
    }
    (rows, series, segments, metrics)
}

/// The queue trace's rows: a flow's packets where it waits in queues, and the
/// generators' packets; and its departures: every packet leaving every queue on
/// its path, data and ACKs (a generator's packets counted once each).
fn queue_rows(parts: &Parts, flows: &[FlowTraffic]) -> Cost {
    let generated: f64 = parts
        .generators
        .iter()
        .map(|g| {
            g.load * g.capacity_bps * (g.stop.as_secs_f64() - g.start.as_secs_f64()).max(0.0)
                / (8.0 * 1500.0)
        })
        .sum();
    // A flow waits in queues where it sends faster than its share (`window`: a
    // UDP source below its share is paced, and never waits).
    let waiting = flows.iter().filter(|f| f.window > 0.0);
    let packets = waiting.map(|f| f.packets).sum::<f64>() + generated;
    let rows = packets * QUEUE_ROWS_PER_PACKET;
    let hops = |f: &FlowTraffic| f.nodes.len().saturating_sub(1) as f64;
    let departures = flows
        .iter()
        .map(|f| (f.packets + f.acks) * hops(f))
        .sum::<f64>()
        + generated;
    Cost {
        field: "trace.queues".into(),
        value: "true".into(),
        what: format!("{rows:.3e} queue-trace rows and {departures:.3e} departures"),
        bytes: rows * QUEUE_ROW + departures * QUEUE_DEPARTURE,
    }
}

/// The captures of `trace.pcap`'s nodes: every packet each sends or receives (a
/// node inside a path sees it twice).
fn pcap(spec: &Scenario, parts: &Parts, flows: &[FlowTraffic]) -> Cost {
    let trace = &spec.trace;
    let mut bytes = 0.0;
    for node in &trace.pcap {
        for (f, kind) in flows.iter().zip(&parts.flows) {
            let Some(k) = f.nodes.iter().position(|n| n == node) else {
                continue;
            };
            let times = if k == 0 || k + 1 == f.nodes.len() {
                1.0
            } else {
                2.0
            };
            let record = match kind {
                FlowKind::Tcp { .. } => PCAP_TCP,
                FlowKind::Sctp => PCAP_SCTP,
                FlowKind::Udp(_) => PCAP_UDP,
            };
            bytes += times * (f.packets + f.acks) * record;
        }
    }
    Cost {
        field: "trace.pcap".into(),
        value: format!("{} nodes", trace.pcap.len()),
        what: "every packet they send or receive, captured".into(),
        bytes,
    }
}

/// How many numbers controller `cc` reports with each sample (`trace.cc_metrics`).
fn controller_numbers(cc: &CcConfig) -> f64 {
    let mut numbers = Vec::new();
    cc.build(stream(0, "budget"))
        .info(&Tcb::new(1460, 10), &mut numbers);
    numbers.len() as f64
}

/// What traffic generators hold: a record per connection they open (λ·T of them,
/// λ = load·C/(8·E[connection bytes])) with its row of the `connections` table, and
/// the connections alive at one time. The live count is Little's law, λ·E[sojourn],
/// with the sojourn of a connection of mean size on a processor-sharing link at the
/// link's total generator load ρ (M/G/1-PS: E[S]·8/(C·(1 − ρ)), ρ capped at 0.99)
/// plus a round trip (at most twice the sum of every link's delay); connections in
/// progress are an M/G/∞ count, Poisson, so mean + 6·√mean + 10 bounds its
/// excursions.
pub(super) fn generator_costs(spec: &Scenario, generators: &[GeneratorPlan]) -> Vec<Cost> {
    use crate::world::{LIVE_CONNECTION_BYTES, RECORD_BYTES};
    let mut link_load: HashMap<&str, f64> = HashMap::new();
    for g in generators {
        *link_load.entry(g.link.as_str()).or_default() += g.load;
    }
    let round_trip: f64 = 2.0
        * spec
            .links
            .iter()
            .map(|l| l.delay.0.as_secs_f64())
            .sum::<f64>();
    let mut costs = Vec::new();
    for (i, g) in generators.iter().enumerate() {
        let size = g.model.mean_connection_bytes();
        let rate = g.load * g.capacity_bps / (8.0 * size);
        let connections = rate * (g.stop.as_secs_f64() - g.start.as_secs_f64()).max(0.0);
        let rho = link_load[g.link.as_str()].min(0.99);
        let mean = rate * (size * 8.0 / (g.capacity_bps * (1.0 - rho)) + round_trip);
        let live = mean + 6.0 * mean.sqrt() + 10.0;
        costs.push(Cost {
            field: format!("generators[{i}].load"),
            value: g.load.to_string(),
            what: format!("{connections:.3e} connection records, up to {live:.0} alive at once"),
            bytes: connections * (RECORD_BYTES as f64 + CONNECTION_ROW)
                + live * LIVE_CONNECTION_BYTES as f64,
        });
    }
    costs
}
