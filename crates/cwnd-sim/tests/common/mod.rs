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
/// appended to the [[flows]] table, `impair` to the bottleneck table.
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
