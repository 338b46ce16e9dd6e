//! Engine microbenchmark: the classic "hold" model (Jones 1986) on the real event
//! queue. N events are pending; each step pops the earliest and schedules one
//! at a pseudo-random delay after it, so the queue size stays at N. The pending
//! count (1024) is what a large dumbbell keeps in the queue (links, timers).

use std::time::Instant;

use cwnd_sim::engine::EventQueue;
use cwnd_sim::time::SimTime;
use pyo3::prelude::*;
use pyo3::types::PyDict;

const PENDING: u64 = 1024;

/// xorshift64*: a fixed, cheap sequence of delays (not a simulation RNG).
fn next_delay(state: &mut u64) -> u64 {
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    (state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 40) % 1_000_000 + 1
}

/// Pops and re-schedules `events` events; returns {"events", "seconds"}.
#[pyfunction]
pub fn bench_engine(py: Python<'_>, events: u64) -> PyResult<Bound<'_, PyDict>> {
    let seconds = py.detach(move || {
        let mut q: EventQueue<u32> = EventQueue::new();
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for i in 0..PENDING {
            q.schedule(SimTime(next_delay(&mut state)), i as u32);
        }
        let start = Instant::now();
        for _ in 0..events {
            let (t, e) = q.pop(|e| *e as u64).unwrap_or((SimTime::ZERO, 0));
            q.schedule(t + SimTime(next_delay(&mut state)), e);
        }
        start.elapsed().as_secs_f64()
    });
    let d = PyDict::new(py);
    d.set_item("events", events)?;
    d.set_item("seconds", seconds)?;
    Ok(d)
}
