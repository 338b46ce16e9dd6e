//! Helpers shared by the end-to-end tests.

#![allow(dead_code)]

pub mod models;

use cwnd_sim::results::{FlowResult, RunResults};
use cwnd_sim::scenario::run_toml;

pub fn run(toml: &str, seed: u64) -> RunResults {
    run_toml(toml, seed).unwrap_or_else(|e| panic!("scenario error: {e}"))
}

/// Goodput in bit/s over [from_s, to_s) from the delivered-bytes bins.
pub fn goodput_between(r: &RunResults, flow: &FlowResult, from_s: f64, to_s: f64) -> f64 {
    let w = r.throughput_bin.as_secs_f64();
    let (a, b) = ((from_s / w).round() as usize, (to_s / w).round() as usize);
    let bins = flow.delivered_bins.padded(b);
    let bytes: u64 = bins[a..b].iter().sum();
    bytes as f64 * 8.0 / (to_s - from_s)
}

/// One flow h1 → r → h2: a fast access link and a bottleneck; `extra` is
/// appended to the [[flows]] table, `impair` to the bottleneck table. On the "rfc"
/// profile, as every helper here: the tests' hand-computed numbers take the RFCs'
/// defaults (IW 3, an ACK per segment, RTO min 1 s) unless a flow sets others.
pub fn single_path(
    bottleneck: &str,
    one_way_delay_ms: f64,
    queue_packets: u32,
    duration_s: u32,
    flow_extra: &str,
    bottleneck_extra: &str,
) -> String {
    format!(
        r#"
duration = "{duration_s}s"
tcp.profile = "rfc"
[[links]]
between = ["h1", "r"]
bandwidth = "1Gbps"
delay = "0ms"
queue = {{ packets = 10000 }}
[[links]]
between = ["r", "h2"]
bandwidth = "{bottleneck}"
delay = "{one_way_delay_ms}ms"
queue = {{ packets = {queue_packets} }}
{bottleneck_extra}
[[flows]]
name = "f"
from = "h1"
to = "h2"
{flow_extra}
"#
    )
}

/// One flow of `cc` over `single_path` for 30 s (seed 1) on the default profile
/// ("linux": delayed ACKs, timestamps, SACK), the bottleneck's queue traced: (goodput
/// over 5–30 s in bit/s, mean and largest queue over 5–30 s in packets, queue drops).
pub fn queue_after_startup(
    bottleneck: &str,
    one_way_delay_ms: f64,
    queue_packets: u32,
    cc: &str,
) -> (f64, f64, u32, u64) {
    let s = single_path(
        bottleneck,
        one_way_delay_ms,
        queue_packets,
        30,
        &format!("cc = \"{cc}\""),
        "",
    )
    .replace("tcp.profile = \"rfc\"\n", "")
    .replace(
        "[[flows]]",
        "[trace]\nqueues = true\nsampling = \"interval\"\n[[flows]]",
    );
    let r = run(&s, 1);
    let q = r.links[2].queue.as_ref().expect("queue traced");
    let steady = q
        .time
        .iter()
        .zip(&q.packets)
        .filter(|(t, _)| t.as_secs_f64() >= 5.0);
    let max = steady.map(|(_, &n)| n).max().unwrap_or(0);
    (
        goodput_between(&r, &r.flows[0], 5.0, 30.0),
        mean_queue(q, 5.0, 30.0),
        max,
        r.flows[0].summary.drops_queue,
    )
}

/// Time-weighted mean of a queue trace's packet count over [from, to) seconds.
pub fn mean_queue(q: &cwnd_sim::net::queue::QueueTrace, from_s: f64, to_s: f64) -> f64 {
    let (mut area, mut level, mut last) = (0.0, 0.0, from_s);
    for (t, n) in q.time.iter().zip(&q.packets) {
        let t = t.as_secs_f64();
        if t > from_s {
            let upto = t.min(to_s);
            area += level * (upto - last);
            last = upto;
        }
        level = *n as f64;
        if t >= to_s {
            break;
        }
    }
    area += level * (to_s - last).max(0.0);
    area / (to_s - from_s)
}

/// Jain's fairness index of the values.
pub fn jain(x: &[f64]) -> f64 {
    let sum: f64 = x.iter().sum();
    let squares: f64 = x.iter().map(|v| v * v).sum();
    sum * sum / (x.len() as f64 * squares)
}

/// Two flows h1→h3 and h2→h4 through a shared bottleneck r1–r2.
pub fn two_flow_dumbbell(
    bottleneck: &str,
    delay_ms: u32,
    queue: u32,
    seconds: u32,
    cc: &str,
    second_start: &str,
) -> String {
    format!(
        r#"
duration = "{seconds}s"
tcp.profile = "rfc"
[trace]
queues = true
sampling = "interval"
interval = "100ms"
[[links]]
between = ["r1", "r2"]
bandwidth = "{bottleneck}"
delay = "{delay_ms}ms"
queue = {{ packets = {queue} }}
[[links]]
between = ["h1", "r1"]
bandwidth = "1Gbps"
delay = "1ms"
[[links]]
between = ["h2", "r1"]
bandwidth = "1Gbps"
delay = "1ms"
[[links]]
between = ["r2", "h3"]
bandwidth = "1Gbps"
delay = "1ms"
[[links]]
between = ["r2", "h4"]
bandwidth = "1Gbps"
delay = "1ms"
[[flows]]
name = "a"
from = "h1"
to = "h3"
cc = {cc}
[[flows]]
name = "b"
from = "h2"
to = "h4"
cc = {cc}
start = "{second_start}"
"#
    )
}

/// Seeds of the random-loss comparisons.
pub const SEEDS: u64 = 10;

/// Goodput (Mb/s) of one flow (`flow_extra` in its table) over 10 Mb/s, 100 ms RTT
/// with 1 % Bernoulli loss of data packets, for seeds 1..=SEEDS, 120 s each.
pub fn random_loss_goodput(flow_extra: &str) -> Vec<f64> {
    let impair = "impairments = [{ kind = \"bernoulli\", p = 0.01, direction = \"forward\", applies_to = \"data\" }]";
    (1..=SEEDS)
        .map(|seed| {
            let r = run(
                &single_path("10Mbps", 49.0, 100, 120, flow_extra, impair),
                seed,
            );
            r.flows[0].summary.goodput_bps() / 1e6
        })
        .collect()
}

/// Mean and sample standard deviation.
pub fn mean_sd(x: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, var.sqrt())
}
