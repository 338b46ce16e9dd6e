//! SCTP associations as Python data: a summary row per association (with the TCP
//! flows' column names where they mean the same), a row per path, and the
//! association, path, chunk and event tables as numpy columns. Windows are given in
//! bytes (`cwnd_bytes`…) and in full chunks (`cwnd`…, bytes / largest chunk), the
//! counterpart of TCP's segments.

use cwnd_sim::results::{AssociationResult, RunResults};
use numpy::IntoPyArray;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::{secs, secs_or_nan};

/// The summary row of an association, in the same list as the TCP flows'.
pub fn association_summary<'py>(
    py: Python<'py>,
    a: &AssociationResult,
) -> PyResult<Bound<'py, PyDict>> {
    let s = &a.summary;
    let d = PyDict::new(py);
    d.set_item("name", &s.name)?;
    d.set_item("transport", "sctp")?;
    d.set_item("from", s.from.join(","))?;
    d.set_item("to", s.to.join(","))?;
    d.set_item("cc", s.variant())?;
    d.set_item("recovery", "rfc9260")?;
    d.set_item("state", s.state)?;
    d.set_item("start", secs(s.start))?;
    d.set_item("end", secs(s.end))?;
    d.set_item("completion_time", s.completion_time.map_or(f64::NAN, secs))?;
    d.set_item("established_at", s.established_at.map_or(f64::NAN, secs))?;
    d.set_item("bytes_delivered", s.receiver.bytes_delivered)?;
    d.set_item("bytes_sent", s.sender.bytes_sent)?;
    d.set_item("segments_sent", s.sender.chunks_sent)?;
    d.set_item("segments_retransmitted", s.sender.chunks_retransmitted)?;
    d.set_item("bytes_retransmitted", s.sender.bytes_retransmitted)?;
    d.set_item("acks_received", s.sender.sacks_received)?;
    d.set_item("duplicate_reports", s.sender.duplicate_reports)?;
    d.set_item("fast_retransmits", s.sender.fast_retransmits)?;
    d.set_item(
        "chunks_fast_retransmitted",
        s.sender.chunks_fast_retransmitted,
    )?;
    d.set_item("timeouts", s.sender.timeouts)?;
    d.set_item("drops_queue", s.drops_queue)?;
    d.set_item("drops_impairment", s.drops_impairment)?;
    d.set_item("rtt_samples", s.rtt_samples)?;
    d.set_item("spurious_undone", s.sender.spurious_recovered)?;
    d.set_item("spurious_detected", s.sender.spurious_detected)?;
    d.set_item("avoidable_timeouts", s.sender.avoidable_timeouts)?;
    let t = &s.truth;
    d.set_item("retransmission_events", t.events)?;
    d.set_item("spurious_events", t.spurious_events)?;
    d.set_item("spurious_fast_retransmits", t.spurious_fast_retransmits)?;
    d.set_item("spurious_timeouts", t.spurious_timeouts)?;
    d.set_item("spurious_detected_correct", t.detected_correct)?;
    d.set_item("spurious_detected_wrong", t.detected_wrong)?;
    d.set_item("spurious_retransmissions", t.spurious_retransmissions)?;
    d.set_item("goodput_bps", s.goodput_bps())?;
    d.set_item("throughput_bps", s.throughput_bps())?;
    d.set_item("mean_rtt", s.mean_rtt())?;
    Ok(d)
}

/// Adds the SCTP tables to the results dict.
pub fn add_sctp(py: Python<'_>, d: &Bound<'_, PyDict>, r: &RunResults) -> PyResult<()> {
    let paths = PyList::empty(py);
    for (k, a) in r.associations.iter().enumerate() {
        for (i, p) in a.paths.iter().enumerate() {
            let pd = PyDict::new(py);
            pd.set_item("association", k)?;
            pd.set_item("path", i)?;
            pd.set_item("from", &p.from)?;
            pd.set_item("to", &p.to)?;
            pd.set_item("primary", p.primary)?;
            pd.set_item("active", p.active)?;
            let st = &p.stats;
            pd.set_item("chunks_sent", st.chunks_sent)?;
            pd.set_item("bytes_sent", st.bytes_sent)?;
            pd.set_item("chunks_retransmitted", st.chunks_retransmitted)?;
            pd.set_item("fast_retransmits", st.fast_retransmits)?;
            pd.set_item("timeouts", st.timeouts)?;
            pd.set_item("heartbeats_sent", st.heartbeats_sent)?;
            pd.set_item("heartbeat_acks", st.heartbeat_acks)?;
            pd.set_item("failures", st.failures)?;
            pd.set_item("rtt_samples", st.rtt_samples)?;
            let mean = if st.rtt_samples == 0 {
                f64::NAN
            } else {
                st.rtt_sum_ns as f64 / st.rtt_samples as f64 / 1e9
            };
            pd.set_item("mean_rtt", mean)?;
            paths.append(pd)?;
        }
    }
    d.set_item("paths", paths)?;
    d.set_item("association_series", association_columns(py, r)?)?;
    d.set_item("path_series", path_columns(py, r)?)?;
    d.set_item("chunks", chunk_columns(py, r)?)?;
    d.set_item("sctp_events", event_columns(py, r)?)?;
    Ok(())
}

fn association_columns<'py>(py: Python<'py>, r: &RunResults) -> PyResult<Bound<'py, PyDict>> {
    let (mut id, mut time, mut cum, mut high, mut delivered, mut dupthresh, mut fr) =
        (vec![], vec![], vec![], vec![], vec![], vec![], vec![]);
    for (k, a) in r.associations.iter().enumerate() {
        let s = &a.series;
        id.extend(std::iter::repeat_n(k as u32, s.len()));
        time.extend(s.time.iter().map(|&t| secs(t)));
        cum.extend_from_slice(&s.cumulative_tsn);
        high.extend_from_slice(&s.highest_tsn);
        delivered.extend_from_slice(&s.delivered);
        dupthresh.extend_from_slice(&s.dupthresh);
        fr.extend_from_slice(&s.fast_recovery);
    }
    let d = PyDict::new(py);
    d.set_item("association", id.into_pyarray(py))?;
    d.set_item("time", time.into_pyarray(py))?;
    d.set_item("cumulative_tsn", cum.into_pyarray(py))?;
    d.set_item("highest_tsn", high.into_pyarray(py))?;
    d.set_item("delivered", delivered.into_pyarray(py))?;
    d.set_item("dupthresh", dupthresh.into_pyarray(py))?;
    d.set_item("fast_recovery", fr.into_pyarray(py))?;
    Ok(d)
}

fn path_columns<'py>(py: Python<'py>, r: &RunResults) -> PyResult<Bound<'py, PyDict>> {
    let mut id = Vec::new();
    let mut time = Vec::new();
    let mut path = Vec::new();
    let (mut cwnd, mut ssthresh, mut flight) = (Vec::new(), Vec::new(), Vec::new());
    let (mut cwnd_b, mut ssthresh_b, mut flight_b) = (Vec::new(), Vec::new(), Vec::new());
    let (mut srtt, mut rto, mut active) = (Vec::new(), Vec::new(), Vec::new());
    for (k, a) in r.associations.iter().enumerate() {
        let s = &a.path_series;
        let chunk = a.summary.pmdcs as f64;
        id.extend(std::iter::repeat_n(k as u32, s.len()));
        time.extend(s.time.iter().map(|&t| secs(t)));
        path.extend_from_slice(&s.path);
        cwnd.extend(s.cwnd.iter().map(|&v| v as f64 / chunk));
        ssthresh.extend(s.ssthresh.iter().map(|&v| v as f64 / chunk));
        flight.extend(s.flight.iter().map(|&v| v as f64 / chunk));
        cwnd_b.extend_from_slice(&s.cwnd);
        ssthresh_b.extend_from_slice(&s.ssthresh);
        flight_b.extend_from_slice(&s.flight);
        srtt.extend(s.srtt.iter().map(|&t| secs_or_nan(t)));
        rto.extend(s.rto.iter().map(|&t| secs(t)));
        active.extend_from_slice(&s.active);
    }
    let d = PyDict::new(py);
    d.set_item("association", id.into_pyarray(py))?;
    d.set_item("time", time.into_pyarray(py))?;
    d.set_item("path", path.into_pyarray(py))?;
    d.set_item("cwnd", cwnd.into_pyarray(py))?;
    d.set_item("ssthresh", ssthresh.into_pyarray(py))?;
    d.set_item("flight", flight.into_pyarray(py))?;
    d.set_item("cwnd_bytes", cwnd_b.into_pyarray(py))?;
    d.set_item("ssthresh_bytes", ssthresh_b.into_pyarray(py))?;
    d.set_item("flight_bytes", flight_b.into_pyarray(py))?;
    d.set_item("srtt", srtt.into_pyarray(py))?;
    d.set_item("rto", rto.into_pyarray(py))?;
    d.set_item("active", active.into_pyarray(py))?;
    Ok(d)
}

fn chunk_columns<'py>(py: Python<'py>, r: &RunResults) -> PyResult<Bound<'py, PyDict>> {
    let (mut id, mut time, mut tsn, mut path, mut len) = (vec![], vec![], vec![], vec![], vec![]);
    let (mut copy, mut retx, mut spurious) = (vec![], vec![], vec![]);
    for (k, a) in r.associations.iter().enumerate() {
        let Some(c) = &a.chunks else {
            continue;
        };
        id.extend(std::iter::repeat_n(k as u32, c.len()));
        time.extend(c.time.iter().map(|&t| secs(t)));
        tsn.extend_from_slice(&c.tsn);
        path.extend_from_slice(&c.path);
        len.extend_from_slice(&c.len);
        copy.extend_from_slice(&c.copy);
        retx.extend(c.copy.iter().map(|&n| n > 0));
        spurious.extend_from_slice(&a.chunk_spurious);
    }
    let d = PyDict::new(py);
    d.set_item("association", id.into_pyarray(py))?;
    d.set_item("time", time.into_pyarray(py))?;
    d.set_item("tsn", tsn.into_pyarray(py))?;
    d.set_item("path", path.into_pyarray(py))?;
    d.set_item("len", len.into_pyarray(py))?;
    d.set_item("copy", copy.into_pyarray(py))?;
    d.set_item("retransmission", retx.into_pyarray(py))?;
    d.set_item("spurious", spurious.into_pyarray(py))?;
    Ok(d)
}

fn event_columns<'py>(py: Python<'py>, r: &RunResults) -> PyResult<Bound<'py, PyDict>> {
    let (mut id, mut time, mut path, mut chunks) = (vec![], vec![], vec![], vec![]);
    let (mut kind, mut spurious, mut detected, mut detected_time) =
        (vec![], vec![], vec![], vec![]);
    for (k, a) in r.associations.iter().enumerate() {
        for e in &a.events {
            id.push(k as u32);
            time.push(secs(e.time));
            kind.push(e.kind);
            path.push(e.path);
            chunks.push(e.chunks);
            spurious.push(e.spurious);
            detected.push(e.detected.is_some());
            detected_time.push(e.detected.map_or(f64::NAN, secs));
        }
    }
    let d = PyDict::new(py);
    d.set_item("association", id.into_pyarray(py))?;
    d.set_item("time", time.into_pyarray(py))?;
    d.set_item("kind", PyList::new(py, kind)?)?;
    d.set_item("path", path.into_pyarray(py))?;
    d.set_item("chunks", chunks.into_pyarray(py))?;
    d.set_item("spurious", spurious.into_pyarray(py))?;
    d.set_item("detected", detected.into_pyarray(py))?;
    d.set_item("detected_time", detected_time.into_pyarray(py))?;
    Ok(d)
}
