//! Python bindings of cwnd-sim: a scenario goes in (`load`: TOML or JSON text →
//! its checked `Plan`, held on the Rust side: `plan.rs`), columns come out (`run`:
//! plan and seed → results).
//!
//! Thin on purpose: the scenario is parsed and checked by cwnd-sim, once, the run
//! happens with the GIL released, and results cross as numpy arrays filled from
//! the simulator's per-sample records (`columns.rs`; no per-sample Python objects)
//! and as rows of its summary records (`rows.rs`).

mod bench;
mod columns;
mod live;
mod plan;
mod rows;
mod sctp;

use std::path::Path;

use columns::columns;
use cwnd_sim::results::RunResults;
use cwnd_sim::scenario::{self, ScenarioError as SimScenarioError};
use cwnd_sim::transport::tcp::cc;
use cwnd_sim::world::{Stopped, World};
use plan::Plan;
use pyo3::create_exception;
use pyo3::exceptions::{PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::sync::atomic::{AtomicBool, Ordering};

create_exception!(
    _cwnd,
    ScenarioError,
    PyValueError,
    "A scenario that cannot run; the message names the field, the value and what is allowed."
);

fn scenario_error(e: SimScenarioError) -> PyErr {
    ScenarioError::new_err(e.to_string())
}

/// Loads a scenario, TOML or JSON text, into its `Plan`: checked once, the files
/// it names (`p_file`, relative to `base_dir` when given) read once and put in it.
/// The plan needs no file any more; raises ScenarioError.
#[pyfunction]
#[pyo3(signature = (text, base_dir=None))]
fn load(py: Python<'_>, text: &str, base_dir: Option<&str>) -> PyResult<Plan> {
    let plan = py.detach(|| scenario::load(text, base_dir.map(Path::new)));
    Ok(Plan::new(plan.map_err(scenario_error)?))
}

/// Runs a plan with `seed`; returns a dict of summaries and columns. The world is
/// built from the plan itself, parsing nothing.
#[pyfunction]
fn run<'py>(py: Python<'py>, plan: &Plan, seed: u64) -> PyResult<Bound<'py, PyDict>> {
    let world = py.detach(|| scenario::build(plan.kernel(), seed));
    let results = run_with_signals(py, world)?;
    results_to_dict(py, results)
}

/// The congestion controllers a scenario's `cc` may name, in the order of the
/// kernel's `controllers!` table (`transport/tcp/cc/mod.rs`).
#[pyfunction]
fn controllers() -> Vec<&'static str> {
    cc::KNOWN.to_vec()
}

/// How often a run in progress lets Python run its signal handlers.
const SIGNAL_CHECK: std::time::Duration = std::time::Duration::from_millis(50);

/// Runs the world on a thread of its own, while this one (without the GIL) wakes
/// every `SIGNAL_CHECK` to let Python run its signal handlers: an exception from one
/// (Ctrl-C's `KeyboardInterrupt`) sets the world's stop flag, waits for the run to
/// stop (within `POLL_EVERY` events) and is raised. Off the main thread Python runs
/// no handlers, and a run goes to its end.
fn run_with_signals(py: Python<'_>, world: World) -> PyResult<RunResults> {
    let (stop_flag, done_flag) = (AtomicBool::new(false), AtomicBool::new(false));
    let (stop, done) = (&stop_flag, &done_flag);
    std::thread::scope(|scope| {
        let waiter = std::thread::current();
        let runner = scope.spawn(move || {
            let results = world.run_until_stopped(stop);
            // `done`, not `is_finished`: the thread is still ending when the waiter
            // wakes, and the waiter would sleep another SIGNAL_CHECK.
            done.store(true, Ordering::Release);
            waiter.unpark();
            results
        });
        while !done.load(Ordering::Acquire) {
            py.detach(|| std::thread::park_timeout(SIGNAL_CHECK));
            if let Err(e) = py.check_signals() {
                stop.store(true, Ordering::Relaxed);
                return Err(e);
            }
        }
        match runner.join() {
            Ok(results) => results.map_err(|why| match why {
                Stopped::Interrupted { .. } => PyKeyboardInterrupt::new_err(why.to_string()),
                Stopped::OverBudget { .. } => ScenarioError::new_err(why.to_string()),
            }),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}

fn results_to_dict(py: Python<'_>, r: RunResults) -> PyResult<Bound<'_, PyDict>> {
    let d = rows::row(py, &r.header())?;
    let flows = rows::rows(py, r.flows.iter().map(|f| f.summary.row()))?;
    for a in &r.associations {
        flows.append(rows::row(py, &a.summary.row())?)?;
    }
    for u in &r.udp {
        flows.append(rows::row(py, &u.summary.row())?)?;
    }
    d.set_item("flows", flows)?;
    sctp::add_sctp(py, &d, &r)?;
    d.set_item("series", columns(py, r.series_rows())?)?;
    d.set_item("throughput", columns(py, r.throughput_rows())?)?;
    d.set_item("segments", columns(py, r.segment_rows())?)?;
    let metric_names = r.cc_metric_names();
    let cc_metrics = columns(py, r.cc_metric_rows(&metric_names))?;
    cc_metrics.set_item("metric_names", metric_names)?;
    d.set_item("cc_metrics", cc_metrics)?;
    d.set_item("links", rows::rows(py, &r.links)?)?;
    d.set_item("channels", rows::rows(py, &r.channels)?)?;
    d.set_item("connections", rows::rows(py, &r.connections)?)?;
    d.set_item("generators", rows::rows(py, &r.generators)?)?;
    d.set_item("queues", columns(py, r.queue_rows())?)?;
    d.set_item("queue_delays", columns(py, r.queue_delay_rows())?)?;
    let pcaps = PyDict::new(py);
    for (node, bytes) in &r.pcaps {
        pcaps.set_item(node, PyBytes::new(py, bytes))?;
    }
    d.set_item("pcaps", pcaps)?;
    Ok(d)
}

#[pymodule]
fn _cwnd(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add_class::<Plan>()?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(controllers, m)?)?;
    m.add_function(wrap_pyfunction!(live::open_tun, m)?)?;
    m.add_function(wrap_pyfunction!(live::live_relay, m)?)?;
    m.add_function(wrap_pyfunction!(bench::bench_engine, m)?)?;
    Ok(())
}
