//! Python bindings of cwnd-sim: a scenario goes in (`load`: TOML or JSON text →
//! its plan as canonical JSON), columns come out (`run`: plan and seed → results).
//!
//! Thin on purpose: the scenario is parsed and checked by cwnd-sim, the run
//! happens with the GIL released, and results cross as numpy arrays built from
//! the simulator's own column vectors (no per-sample Python objects).

mod bench;
mod live;
mod rows;
mod sctp;

use std::path::Path;

use cwnd_sim::results::RunResults;
use cwnd_sim::scenario::{self, ScenarioError as SimScenarioError};
use cwnd_sim::time::SimTime;
use cwnd_sim::world::{Stopped, World};
use numpy::IntoPyArray;
use pyo3::create_exception;
use pyo3::exceptions::{PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
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

/// Loads a scenario, TOML or JSON text, into its plan: checked once, the files it
/// names (`p_file`, relative to `base_dir` when given) read once and put in it.
/// Returns the plan's canonical JSON, which `run` takes and which needs no file;
/// raises ScenarioError. With a list as `warnings`, appends to it what the scenario
/// asks for that can never happen (`Plan::warnings`).
#[pyfunction]
#[pyo3(signature = (text, base_dir=None, warnings=None))]
fn load(
    text: &str,
    base_dir: Option<&str>,
    warnings: Option<&Bound<'_, PyList>>,
) -> PyResult<String> {
    let plan = scenario::load(text, base_dir.map(Path::new)).map_err(scenario_error)?;
    if let Some(list) = warnings {
        for w in plan.warnings() {
            list.append(w)?;
        }
    }
    plan.to_json().map_err(scenario_error)
}

/// Runs a plan (the JSON text `load` gives; any scenario JSON is loaded the same
/// way) with `seed`; returns a dict of summaries and columns.
#[pyfunction]
fn run<'py>(py: Python<'py>, plan_json: &str, seed: u64) -> PyResult<Bound<'py, PyDict>> {
    let plan = scenario::load(plan_json, None).map_err(scenario_error)?;
    let world = scenario::build(&plan, seed);
    let results = run_with_signals(py, world)?;
    results_to_dict(py, results)
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

pub(crate) fn secs(t: SimTime) -> f64 {
    t.as_secs_f64()
}

/// Seconds, with `SimTime::MAX` ("not yet measured") as NaN.
pub(crate) fn secs_or_nan(t: SimTime) -> f64 {
    if t == SimTime::MAX {
        f64::NAN
    } else {
        t.as_secs_f64()
    }
}

fn results_to_dict(py: Python<'_>, r: RunResults) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", &r.name)?;
    d.set_item("seed", r.seed)?;
    d.set_item("fingerprint", r.fingerprint)?;
    d.set_item("events", r.events)?;
    d.set_item("duration", secs(r.duration))?;
    d.set_item("throughput_bin", secs(r.throughput_bin))?;
    let flows = rows::rows(py, r.flows.iter().map(|f| f.summary.row()))?;
    for a in &r.associations {
        flows.append(rows::row(py, &a.summary.row())?)?;
    }
    for u in &r.udp {
        flows.append(rows::row(py, &u.summary.row())?)?;
    }
    d.set_item("flows", flows)?;
    sctp::add_sctp(py, &d, &r)?;
    d.set_item("series", series_columns(py, &r)?)?;
    d.set_item("throughput", throughput_columns(py, &r)?)?;
    d.set_item("segments", segment_columns(py, &r)?)?;
    d.set_item("cc_metrics", cc_metric_columns(py, &r)?)?;
    d.set_item("links", rows::rows(py, &r.links)?)?;
    d.set_item("channels", rows::rows(py, &r.channels)?)?;
    d.set_item("connections", rows::rows(py, &r.connections)?)?;
    d.set_item("generators", rows::rows(py, &r.generators)?)?;
    d.set_item("queues", queue_columns(py, &r)?)?;
    let pcaps = PyDict::new(py);
    for (node, bytes) in &r.pcaps {
        pcaps.set_item(node, PyBytes::new(py, bytes))?;
    }
    d.set_item("pcaps", pcaps)?;
    Ok(d)
}

/// Long-format state series of every flow, concatenated, with a flow index column.
fn series_columns<'py>(py: Python<'py>, r: &RunResults) -> PyResult<Bound<'py, PyDict>> {
    let n: usize = r.flows.iter().map(|f| f.series.len()).sum();
    let mut flow = Vec::with_capacity(n);
    let mut time = Vec::with_capacity(n);
    let mut cwnd = Vec::with_capacity(n);
    let mut ssthresh = Vec::with_capacity(n);
    let mut srtt = Vec::with_capacity(n);
    let mut rto = Vec::with_capacity(n);
    let mut snd_una = Vec::with_capacity(n);
    let mut snd_nxt = Vec::with_capacity(n);
    let mut delivered = Vec::with_capacity(n);
    for (i, f) in r.flows.iter().enumerate() {
        let s = &f.series;
        flow.extend(std::iter::repeat_n(i as u32, s.len()));
        time.extend(s.time.iter().map(|&t| secs(t)));
        cwnd.extend(s.cwnd.iter().map(|&c| c as f64));
        ssthresh.extend(s.ssthresh.iter().map(|&v| {
            if v >= cwnd_sim::transport::tcp::tcb::INFINITE_SSTHRESH {
                f64::NAN
            } else {
                v as f64
            }
        }));
        srtt.extend(s.srtt.iter().map(|&t| secs_or_nan(t)));
        rto.extend(s.rto.iter().map(|&t| secs(t)));
        snd_una.extend_from_slice(&s.snd_una);
        snd_nxt.extend_from_slice(&s.snd_nxt);
        delivered.extend_from_slice(&s.delivered);
    }
    let d = PyDict::new(py);
    d.set_item("flow", flow.into_pyarray(py))?;
    d.set_item("time", time.into_pyarray(py))?;
    d.set_item("cwnd", cwnd.into_pyarray(py))?;
    d.set_item("ssthresh", ssthresh.into_pyarray(py))?;
    d.set_item("srtt", srtt.into_pyarray(py))?;
    d.set_item("rto", rto.into_pyarray(py))?;
    d.set_item("snd_una", snd_una.into_pyarray(py))?;
    d.set_item("snd_nxt", snd_nxt.into_pyarray(py))?;
    d.set_item("delivered", delivered.into_pyarray(py))?;
    Ok(d)
}

/// Goodput and throughput per bin, every flow over the whole run.
fn throughput_columns<'py>(py: Python<'py>, r: &RunResults) -> PyResult<Bound<'py, PyDict>> {
    let width = r.throughput_bin.as_nanos();
    let bins = r.duration.as_nanos().div_ceil(width) as usize;
    let w = secs(r.throughput_bin);
    let mut flow = Vec::new();
    let mut time = Vec::new();
    let mut goodput = Vec::new();
    let mut throughput = Vec::new();
    let tcp = r.flows.iter().map(|f| (&f.delivered_bins, &f.sent_bins));
    let sctp = r
        .associations
        .iter()
        .map(|a| (&a.delivered_bins, &a.sent_bins));
    let udp = r.udp.iter().map(|u| (&u.delivered_bins, &u.sent_bins));
    for (i, (delivered, sent)) in tcp.chain(sctp).chain(udp).enumerate() {
        let delivered = delivered.padded(bins);
        let sent = sent.padded(bins);
        for b in 0..bins {
            flow.push(i as u32);
            time.push(b as f64 * w);
            goodput.push(delivered[b] as f64 * 8.0 / w);
            throughput.push(sent[b] as f64 * 8.0 / w);
        }
    }
    let d = PyDict::new(py);
    d.set_item("flow", flow.into_pyarray(py))?;
    d.set_item("time", time.into_pyarray(py))?;
    d.set_item("goodput_bps", goodput.into_pyarray(py))?;
    d.set_item("throughput_bps", throughput.into_pyarray(py))?;
    Ok(d)
}

fn segment_columns<'py>(py: Python<'py>, r: &RunResults) -> PyResult<Bound<'py, PyDict>> {
    let mut flow = Vec::new();
    let mut time = Vec::new();
    let mut seq = Vec::new();
    let mut len = Vec::new();
    let mut retx = Vec::new();
    for (i, f) in r.flows.iter().enumerate() {
        if let Some(s) = &f.segments {
            flow.extend(std::iter::repeat_n(i as u32, s.time.len()));
            time.extend(s.time.iter().map(|&t| secs(t)));
            seq.extend_from_slice(&s.seq);
            len.extend_from_slice(&s.len);
            retx.extend_from_slice(&s.retransmission);
        }
    }
    let d = PyDict::new(py);
    d.set_item("flow", flow.into_pyarray(py))?;
    d.set_item("time", time.into_pyarray(py))?;
    d.set_item("seq", seq.into_pyarray(py))?;
    d.set_item("len", len.into_pyarray(py))?;
    d.set_item("retransmission", retx.into_pyarray(py))?;
    Ok(d)
}

/// The controllers' numbers of every flow in long form, the metric as a code into
/// `metric_names` (a categorical: a long run's million rows need no million strings).
fn cc_metric_columns<'py>(py: Python<'py>, r: &RunResults) -> PyResult<Bound<'py, PyDict>> {
    let mut names: Vec<&'static str> = Vec::new();
    let (mut flow, mut time, mut metric, mut value) = (vec![], vec![], vec![], vec![]);
    for (i, f) in r.flows.iter().enumerate() {
        let Some(m) = &f.cc_metrics else {
            continue;
        };
        flow.extend(std::iter::repeat_n(i as u32, m.len()));
        time.extend(m.time.iter().map(|&t| secs(t)));
        for &name in &m.name {
            let code = names.iter().position(|&n| n == name).unwrap_or_else(|| {
                names.push(name);
                names.len() - 1
            });
            metric.push(code as u32);
        }
        value.extend_from_slice(&m.value);
    }
    let d = PyDict::new(py);
    d.set_item("flow", flow.into_pyarray(py))?;
    d.set_item("time", time.into_pyarray(py))?;
    d.set_item("metric", metric.into_pyarray(py))?;
    d.set_item("value", value.into_pyarray(py))?;
    d.set_item("metric_names", names)?;
    Ok(d)
}

fn queue_columns<'py>(py: Python<'py>, r: &RunResults) -> PyResult<Bound<'py, PyDict>> {
    let mut link = Vec::new();
    let mut time = Vec::new();
    let mut packets = Vec::new();
    let mut bytes = Vec::new();
    for (i, l) in r.links.iter().enumerate() {
        if let Some(q) = &l.queue {
            link.extend(std::iter::repeat_n(i as u32, q.time.len()));
            time.extend(q.time.iter().map(|&t| secs(t)));
            packets.extend_from_slice(&q.packets);
            bytes.extend_from_slice(&q.bytes);
        }
    }
    let d = PyDict::new(py);
    d.set_item("link", link.into_pyarray(py))?;
    d.set_item("time", time.into_pyarray(py))?;
    d.set_item("packets", packets.into_pyarray(py))?;
    d.set_item("bytes", bytes.into_pyarray(py))?;
    Ok(d)
}

#[pymodule]
fn _cwnd(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(live::open_tun, m)?)?;
    m.add_function(wrap_pyfunction!(live::live_relay, m)?)?;
    m.add_function(wrap_pyfunction!(bench::bench_engine, m)?)?;
    Ok(())
}
