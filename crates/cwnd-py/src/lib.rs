//! Python bindings of cwnd-sim: a scenario goes in (`load`: TOML or JSON text →
//! its plan as canonical JSON), columns come out (`run`: plan and seed → results).
//!
//! Thin on purpose: the scenario is parsed and checked by cwnd-sim, the run
//! happens with the GIL released, and results cross as numpy arrays built from
//! the simulator's own column vectors (no per-sample Python objects).

mod bench;
mod sctp;

use std::path::Path;

use cwnd_sim::results::{FlowResult, RunResults};
use cwnd_sim::scenario::{self, ScenarioError as SimScenarioError};
use cwnd_sim::time::SimTime;
use numpy::IntoPyArray;
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

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
/// raises ScenarioError.
#[pyfunction]
#[pyo3(signature = (text, base_dir=None))]
fn load(text: &str, base_dir: Option<&str>) -> PyResult<String> {
    let plan = scenario::load(text, base_dir.map(Path::new)).map_err(scenario_error)?;
    plan.to_json().map_err(scenario_error)
}

/// Runs a plan (the JSON text `load` gives; any scenario JSON is loaded the same
/// way) with `seed`; returns a dict of summaries and columns.
#[pyfunction]
fn run<'py>(py: Python<'py>, plan_json: &str, seed: u64) -> PyResult<Bound<'py, PyDict>> {
    let plan = scenario::load(plan_json, None).map_err(scenario_error)?;
    let world = scenario::build(&plan, seed);
    let results = py.detach(move || world.run());
    results_to_dict(py, results)
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
    let flows = PyList::empty(py);
    for f in &r.flows {
        flows.append(flow_summary(py, f)?)?;
    }
    for a in &r.associations {
        flows.append(sctp::association_summary(py, a)?)?;
    }
    d.set_item("flows", flows)?;
    sctp::add_sctp(py, &d, &r)?;
    d.set_item("series", series_columns(py, &r)?)?;
    d.set_item("throughput", throughput_columns(py, &r)?)?;
    d.set_item("segments", segment_columns(py, &r)?)?;
    let links = PyList::empty(py);
    for l in &r.links {
        let ld = PyDict::new(py);
        ld.set_item("name", &l.name)?;
        ld.set_item("direction", l.direction)?;
        ld.set_item("from", &l.from)?;
        ld.set_item("to", &l.to)?;
        ld.set_item("packets_sent", l.stats.packets_sent)?;
        ld.set_item("bytes_sent", l.stats.bytes_sent)?;
        ld.set_item("packets_delivered", l.stats.packets_delivered)?;
        ld.set_item("drops_queue", l.stats.drops_queue)?;
        ld.set_item("drops_early", l.stats.drops_early)?;
        ld.set_item("drops_impairment", l.stats.drops_impairment)?;
        links.append(ld)?;
    }
    d.set_item("links", links)?;
    let channels = PyList::empty(py);
    for c in &r.channels {
        let cd = PyDict::new(py);
        cd.set_item("name", &c.name)?;
        cd.set_item("kind", c.kind)?;
        for &(counter, value) in &c.counters {
            cd.set_item(counter, value)?;
        }
        channels.append(cd)?;
    }
    d.set_item("channels", channels)?;
    d.set_item("queues", queue_columns(py, &r)?)?;
    let pcaps = PyDict::new(py);
    for (node, bytes) in &r.pcaps {
        pcaps.set_item(node, PyBytes::new(py, bytes))?;
    }
    d.set_item("pcaps", pcaps)?;
    Ok(d)
}

fn flow_summary<'py>(py: Python<'py>, f: &FlowResult) -> PyResult<Bound<'py, PyDict>> {
    let s = &f.summary;
    let d = PyDict::new(py);
    d.set_item("name", &s.name)?;
    d.set_item("transport", "tcp")?;
    d.set_item("from", &s.from)?;
    d.set_item("to", &s.to)?;
    d.set_item("cc", &s.cc)?;
    d.set_item("recovery", s.recovery)?;
    d.set_item("start", secs(s.start))?;
    d.set_item("end", secs(s.end))?;
    d.set_item("completion_time", s.completion_time.map_or(f64::NAN, secs))?;
    d.set_item("bytes_delivered", s.receiver.bytes_delivered)?;
    d.set_item("bytes_sent", s.sender.bytes_sent)?;
    d.set_item("segments_sent", s.sender.segments_sent)?;
    d.set_item("segments_retransmitted", s.sender.segments_retransmitted)?;
    d.set_item("bytes_retransmitted", s.sender.bytes_retransmitted)?;
    d.set_item("acks_received", s.sender.acks_received)?;
    d.set_item("dup_acks", s.sender.dup_acks)?;
    d.set_item("fast_retransmits", s.sender.fast_retransmits)?;
    d.set_item("timeouts", s.sender.timeouts)?;
    d.set_item("drops_queue", s.drops_queue)?;
    d.set_item("drops_impairment", s.drops_impairment)?;
    d.set_item("rtt_samples", s.sender.rtt_samples)?;
    d.set_item("spurious_undone", s.sender.spurious_undone)?;
    d.set_item("spurious_dsack", s.sender.spurious_dsack)?;
    d.set_item("spurious_eifel", s.sender.spurious_eifel)?;
    d.set_item("spurious_frto", s.sender.spurious_frto)?;
    d.set_item("avoidable_timeouts", s.sender.avoidable_timeouts)?;
    d.set_item("dupthresh", s.dupthresh)?;
    d.set_item("goodput_bps", s.goodput_bps())?;
    d.set_item("throughput_bps", s.throughput_bps())?;
    d.set_item("mean_rtt", s.mean_rtt())?;
    d.set_item("mean_rto", s.mean_rto())?;
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
    for (i, (delivered, sent)) in tcp.chain(sctp).enumerate() {
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
    m.add_function(wrap_pyfunction!(bench::bench_engine, m)?)?;
    Ok(())
}
