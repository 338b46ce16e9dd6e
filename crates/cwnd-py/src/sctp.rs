//! SCTP associations as Python data: a row per path (`rows`; the summary rows join
//! the TCP flows' in `lib.rs`), and the association, path, chunk and event tables
//! as numpy columns. Windows are given in bytes (`cwnd_bytes`…) and in full chunks
//! (`cwnd`…, bytes / largest chunk), the counterpart of TCP's segments.

use cwnd_sim::results::RunResults;
use numpy::IntoPyArray;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::{rows, secs, secs_or_nan};

/// Adds the SCTP tables to the results dict.
pub fn add_sctp(py: Python<'_>, d: &Bound<'_, PyDict>, r: &RunResults) -> PyResult<()> {
    let paths = r
        .associations
        .iter()
        .enumerate()
        .flat_map(|(k, a)| a.path_rows(k));
    d.set_item("paths", rows::rows(py, paths)?)?;
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
