//! End-to-end benchmark: 10 NewReno flows through a 100 Mb/s, 10 ms bottleneck
//! with a 1-BDP DropTail queue, 60 s simulated (BENCHMARKS.md).
//! Run: `cargo bench -p cwnd-sim --bench dumbbell [-- SECONDS [change|interval]]`.

#![allow(clippy::disallowed_methods)] // a benchmark measures wall time

use std::time::Instant;

use cwnd_sim::scenario::run_toml;

/// The benchmark scenario; `sampling` is "change" or "interval".
pub fn dumbbell(flows: usize, seconds: u64, sampling: &str) -> String {
    let mut s = format!(
        "name = \"bench_dumbbell\"\nduration = \"{seconds}s\"\n[trace]\nsampling = \"{sampling}\"\ninterval = \"100ms\"\n"
    );
    // The RFCs' TCP (no SACK, no timestamps, no delayed ACKs), as every figure in
    // BENCHMARKS.md and the ns-3 comparison: not the default "linux" profile.
    s.push_str("[tcp]\nprofile = \"rfc\"\n");
    // Bottleneck RTT ≈ 2·(1 + 10 + 1) ms = 24 ms; BDP = 100e6·0.024/8/1500 = 200 packets.
    s.push_str(
        "[[links]]\nbetween = [\"r0\", \"r1\"]\nbandwidth = \"100Mbps\"\ndelay = \"10ms\"\nqueue = { packets = 200 }\n",
    );
    for i in 0..flows {
        s.push_str(&format!(
            "[[links]]\nbetween = [\"h{i}\", \"r0\"]\nbandwidth = \"1Gbps\"\ndelay = \"1ms\"\n\
             [[links]]\nbetween = [\"r1\", \"d{i}\"]\nbandwidth = \"1Gbps\"\ndelay = \"1ms\"\n"
        ));
    }
    for i in 0..flows {
        s.push_str(&format!(
            "[[flows]]\nname = \"f{i}\"\nfrom = \"h{i}\"\nto = \"d{i}\"\ncc = \"newreno\"\nstart = \"{}ms\"\n",
            i * 10
        ));
    }
    s
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let seconds: u64 = args.iter().find_map(|a| a.parse().ok()).unwrap_or(60);
    let modes: Vec<&str> = ["change", "interval"]
        .into_iter()
        .filter(|m| {
            !args.iter().any(|a| a == "change" || a == "interval") || args.iter().any(|a| a == m)
        })
        .collect();
    for sampling in modes {
        let text = dumbbell(10, seconds, sampling);
        let start = Instant::now();
        let r = run_toml(&text, 1).expect("benchmark scenario is valid");
        let wall = start.elapsed().as_secs_f64();
        let data: u64 = r.flows.iter().map(|f| f.summary.sender.segments_sent).sum();
        let delivered: u64 = r
            .flows
            .iter()
            .map(|f| f.summary.receiver.segments_received)
            .sum();
        println!(
            "sampling={sampling:8} sim={seconds}s wall={wall:.3}s events={} ({:.2} M/s) data packets sent={data} ({:.2} M/s) received={delivered} ({:.2} M/s)",
            r.events,
            r.events as f64 / wall / 1e6,
            data as f64 / wall / 1e6,
            delivered as f64 / wall / 1e6,
        );
    }
}
