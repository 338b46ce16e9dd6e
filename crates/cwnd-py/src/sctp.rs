//! SCTP associations as Python data: a row per path (`rows`; the summary rows join
//! the TCP flows' in `lib.rs`), and the association, path, chunk and event tables
//! as numpy columns. Windows are given in bytes (`cwnd_bytes`…) and in full chunks
//! (`cwnd`…, bytes / largest chunk), the counterpart of TCP's segments.

use cwnd_sim::results::RunResults;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::columns::columns;
use crate::rows;

/// Adds the SCTP tables to the results dict.
pub fn add_sctp(py: Python<'_>, d: &Bound<'_, PyDict>, r: &RunResults) -> PyResult<()> {
    let paths = r
        .associations
        .iter()
        .enumerate()
        .flat_map(|(k, a)| a.path_rows(k));
    d.set_item("paths", rows::rows(py, paths)?)?;
    let series = columns(py, r.association_series_rows())?;
    d.set_item("association_series", series)?;
    d.set_item("path_series", columns(py, r.path_series_rows())?)?;
    d.set_item("chunks", columns(py, r.chunk_rows())?)?;
    d.set_item("sctp_events", columns(py, r.sctp_event_rows())?)?;
    Ok(())
}
