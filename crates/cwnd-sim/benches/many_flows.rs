//! Many-flows benchmark (BENCHMARKS.md, issue 17): N NewReno flows on a dumbbell whose
//! bottleneck grows with N (10 Mb/s and a 20-packet share of queue per flow, so every
//! N runs the same per-flow workload), flows started evenly over the first 10 ms.
//! Prints set-up time (load: parse, validate, plan; build: the world), the run's events
//! per CPU second, the data segments received (the work, to compare with ns-3's run of
//! the same dumbbell: tools/ns3_many_flows.py), and peak RSS after set-up and after
//! the run.
//! Run: `cargo bench -p cwnd-sim --bench many_flows -- FLOWS [SECONDS [MBPS]]` (one N
//! per process, so each peak RSS is its own). MBPS, the bottleneck's share per flow
//! (10 unless told; the queue's share stays one bandwidth-delay product), sets how
//! many packets the network holds apart from how many flows there are.

#![allow(clippy::disallowed_methods)] // a benchmark measures wall time

mod common;

use std::time::Instant;

use common::cpu_seconds;

use cwnd_sim::scenario::{build, load};
use serde_json::json;

/// The scenario as JSON (what the Python front end hands the kernel).
fn dumbbell(flows: usize, seconds: f64, mbps: f64) -> String {
    // Per flow: `mbps` of bottleneck and its BDP at the 24 ms base RTT,
    // 10e6 · 0.024 / 8 / 1500 = 20 packets of queue at 10 Mb/s.
    let mut links = vec![json!({
        "between": ["r0", "r1"],
        "bandwidth": format!("{}kbps", (mbps * 1000.0 * flows as f64).round() as u64),
        "delay": "10ms",
        "queue": { "packets": ((2.0 * mbps * flows as f64).round() as u64).max(2) },
    })];
    let mut specs = Vec::with_capacity(flows);
    for i in 0..flows {
        for between in [
            [format!("h{i}"), "r0".into()],
            ["r1".into(), format!("d{i}")],
        ] {
            links.push(json!({ "between": between, "bandwidth": "1Gbps", "delay": "1ms" }));
        }
        specs.push(json!({
            "name": format!("f{i}"),
            "from": format!("h{i}"),
            "to": format!("d{i}"),
            "cc": "newreno",
            "start": format!("{}ns", i as u64 * 10_000_000 / flows as u64),
        }));
    }
    json!({
        "name": "many_flows",
        "duration": format!("{}us", (seconds * 1e6).round() as u64),
        "trace": { "sampling": "interval", "interval": "100ms" },
        // The RFCs' TCP, as BENCHMARKS.md's figures and ns-3's side: not "linux".
        "tcp": { "profile": "rfc" },
        "links": links,
        "flows": specs,
    })
    .to_string()
}

/// This process's peak resident set so far (Linux `VmHWM`), in MB.
fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .unwrap_or(f64::NAN);
    kb / 1024.0
}

fn main() {
    let args: Vec<f64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let flows = args.first().map_or(10, |&n| n as usize);
    let seconds = args.get(1).copied().unwrap_or(1.0);
    let mbps = args.get(2).copied().unwrap_or(10.0);
    let text = dumbbell(flows, seconds, mbps);
    let (start, cpu) = (Instant::now(), cpu_seconds());
    let plan = load(&text, None).expect("benchmark scenario is valid");
    let loaded = cpu_seconds() - cpu;
    let world = build(&plan, 1);
    let set_up = cpu_seconds() - cpu;
    let set_up_wall = start.elapsed().as_secs_f64();
    let rss_set_up = peak_rss_mb();
    let (start, cpu) = (Instant::now(), cpu_seconds());
    let r = world.run();
    let (run, wall) = (cpu_seconds() - cpu, start.elapsed().as_secs_f64());
    // Data segments that reached their receiver: the work to compare with ns-3's.
    let received: u64 = r
        .flows
        .iter()
        .map(|f| f.summary.receiver.segments_received)
        .sum();
    println!(
        "flows={flows} sim={seconds}s cpu: load={loaded:.3}s set-up={set_up:.3}s (wall {set_up_wall:.3}s) \
         run={run:.3}s (wall {wall:.3}s) events={} ({:.2} M/s of cpu) segments received={received} \
         peak-rss: set-up={rss_set_up:.0}MB run={:.0}MB",
        r.events,
        r.events as f64 / run / 1e6,
        peak_rss_mb()
    );
}
