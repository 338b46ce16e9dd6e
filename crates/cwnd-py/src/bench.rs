//! Engine microbenchmark for `cwnd bench`: times cwnd-sim's hold workload on the
//! real event queue with 1024 pending events (what a large dumbbell keeps in the
//! queue: one per link direction and per armed timer).

use std::time::Instant;

use cwnd_sim::engine::hold_workload;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Pops and re-schedules `events` events; returns {"events", "seconds"}.
#[pyfunction]
pub fn bench_engine(py: Python<'_>, events: u64) -> PyResult<Bound<'_, PyDict>> {
    let seconds = py.detach(move || {
        let start = Instant::now();
        std::hint::black_box(hold_workload(1024, events));
        start.elapsed().as_secs_f64()
    });
    let d = PyDict::new(py);
    d.set_item("events", events)?;
    d.set_item("seconds", seconds)?;
    Ok(d)
}
