//! Engine microbenchmark: the hold workload with 1024 pending events.
//! Run: `cargo bench -p cwnd-sim --bench engine [-- EVENTS]`.

#![allow(clippy::disallowed_methods)] // a benchmark measures wall time

use std::time::Instant;

use cwnd_sim::engine::hold_workload;

fn main() {
    let events: u64 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(20_000_000);
    for _ in 0..5 {
        let start = Instant::now();
        std::hint::black_box(hold_workload(1024, events));
        let wall = start.elapsed().as_secs_f64();
        println!(
            "hold(1024): {events} events in {wall:.3} s = {:.2} M events/s",
            events as f64 / wall / 1e6
        );
    }
}
