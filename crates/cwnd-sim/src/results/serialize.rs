//! How the result records become rows: serde helpers for the fields whose column is
//! not the field itself (times in seconds, address lists, a medium's counters), and
//! the row of each table that adds, beside its record, the columns computed from it.
//!
//! Column names are the field names (or their `serde(rename)`), so that the Rust
//! structs are the one statement of the schema; docs/results.md documents every
//! column and `tests/test_results_docs.py` checks it against a real run.

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

use super::sctp::{AssociationResult, AssociationSummary, PathResult};
use super::udp::UdpSummary;
use super::{FlowSummary, RunResults};
use crate::time::SimTime;

pub(super) fn secs<S: Serializer>(t: &SimTime, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(t.as_secs_f64())
}

/// Seconds, or NaN for what did not happen (a transfer not completed).
pub(super) fn secs_or_nan<S: Serializer>(t: &Option<SimTime>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(t.map_or(f64::NAN, |t| t.as_secs_f64()))
}

/// A list of names as one comma-separated column.
pub(super) fn joined<S: Serializer>(names: &[String], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&names.join(","))
}

/// (counter, value) pairs as one column each.
pub(super) fn counters<S: Serializer>(
    counters: &[(&'static str, u64)],
    s: S,
) -> Result<S::Ok, S::Error> {
    let mut map = s.serialize_map(Some(counters.len()))?;
    for (name, value) in counters {
        map.serialize_entry(name, value)?;
    }
    map.end()
}

/// What identifies a run and its size: the keys of the results dict beside its
/// tables.
#[derive(Serialize)]
pub struct RunHeader<'a> {
    name: &'a str,
    seed: u64,
    /// Hash of every event (`RunResults::fingerprint`).
    fingerprint: u64,
    events: u64,
    #[serde(serialize_with = "secs")]
    duration: SimTime,
    #[serde(serialize_with = "secs")]
    throughput_bin: SimTime,
}

impl RunResults {
    pub fn header(&self) -> RunHeader<'_> {
        RunHeader {
            name: &self.name,
            seed: self.seed,
            fingerprint: self.fingerprint,
            events: self.events,
            duration: self.duration,
            throughput_bin: self.throughput_bin,
        }
    }
}

/// A TCP flow's summary row: its record and the rates and means derived from it.
#[derive(Serialize)]
pub struct FlowRow<'a> {
    transport: &'static str,
    #[serde(flatten)]
    summary: &'a FlowSummary,
    goodput_bps: f64,
    throughput_bps: f64,
    mean_rtt: f64,
    mean_rto: f64,
}

impl FlowSummary {
    pub fn row(&self) -> FlowRow<'_> {
        FlowRow {
            transport: "tcp",
            summary: self,
            goodput_bps: self.goodput_bps(),
            throughput_bps: self.throughput_bps(),
            mean_rtt: self.mean_rtt(),
            mean_rto: self.mean_rto(),
        }
    }
}

/// An association's row in the same summary table as the TCP flows'.
#[derive(Serialize)]
pub struct AssociationRow<'a> {
    transport: &'static str,
    /// "sctp" or "rr-sctp", in the column TCP gives its controller.
    cc: &'static str,
    recovery: &'static str,
    #[serde(flatten)]
    summary: &'a AssociationSummary,
    goodput_bps: f64,
    throughput_bps: f64,
    mean_rtt: f64,
}

impl AssociationSummary {
    pub fn row(&self) -> AssociationRow<'_> {
        AssociationRow {
            transport: "sctp",
            cc: self.variant(),
            recovery: "rfc9260",
            summary: self,
            goodput_bps: self.goodput_bps(),
            throughput_bps: self.throughput_bps(),
            mean_rtt: self.mean_rtt(),
        }
    }
}

/// A UDP flow's row in the same summary table as the TCP flows'.
#[derive(Serialize)]
pub struct UdpRow<'a> {
    transport: &'static str,
    #[serde(flatten)]
    summary: &'a UdpSummary,
    goodput_bps: f64,
    throughput_bps: f64,
    loss_rate: f64,
    mean_delay: f64,
}

impl UdpSummary {
    pub fn row(&self) -> UdpRow<'_> {
        UdpRow {
            transport: "udp",
            summary: self,
            goodput_bps: self.goodput_bps(),
            throughput_bps: self.throughput_bps(),
            loss_rate: self.loss_rate(),
            mean_delay: self.mean_delay(),
        }
    }
}

/// One path of association `association` (its index in the run's associations).
#[derive(Serialize)]
pub struct PathRow<'a> {
    association: usize,
    /// 0 = the primary path at the start.
    path: usize,
    #[serde(flatten)]
    result: &'a PathResult,
    mean_rtt: f64,
}

impl AssociationResult {
    /// The rows of this association's paths, `association` being its index.
    pub fn path_rows(&self, association: usize) -> impl Iterator<Item = PathRow<'_>> {
        self.paths
            .iter()
            .enumerate()
            .map(move |(path, result)| PathRow {
                association,
                path,
                result,
                mean_rtt: super::mean_seconds(result.stats.rtt_sum_ns, result.stats.rtt_samples),
            })
    }
}
