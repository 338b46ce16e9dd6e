//! Engine microbenchmark: the hold workload, 1024 pending events unless told.
//! Run: `cargo bench -p cwnd-sim --bench engine [-- EVENTS [PENDING]]`.

#![allow(clippy::disallowed_methods)] // a benchmark measures wall time

use std::time::Instant;

use cwnd_sim::engine::hold_workload;

fn main() {
    let numbers: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let events = numbers.first().copied().unwrap_or(20_000_000);
    let pending = numbers.get(1).copied().unwrap_or(1024) as u32;
    for _ in 0..5 {
        let start = Instant::now();
        std::hint::black_box(hold_workload(pending, events));
        let wall = start.elapsed().as_secs_f64();
        println!(
            "hold({pending}): {events} events in {wall:.3} s = {:.2} M events/s",
            events as f64 / wall / 1e6
        );
    }
}
