//! What a run records: per-flow state series, throughput bins, segment traces and
//! the controllers' numbers (`cc_metrics`).
//! Queue occupancy is recorded by the queues themselves (`net::queue`).
//!
//! Tracing costs nothing for what is switched off; series are sampled either on
//! every change of the sender's state or at a fixed interval (bounded memory).

mod bins;
mod cc_metrics;
pub mod pcap;
pub mod sctp;
mod segments;
mod series;

pub use bins::Bins;
pub use cc_metrics::CcMetricsTrace;
pub use segments::SegmentTrace;
pub use series::{FlowSeries, FlowSnapshot};

use crate::time::SimTime;
use crate::transport::tcp::cc::CongestionControl;
use crate::transport::tcp::tcb::Tcb;

/// Everything recorded for one flow.
pub struct FlowTrace {
    pub series: FlowSeries,
    last: Option<FlowSnapshot>,
    /// Bytes delivered in order to the receiving application, per bin.
    pub delivered: Bins,
    /// Bytes transmitted by the sender (retransmissions included), per bin.
    pub sent: Bins,
    pub segments: Option<SegmentTrace>,
    /// The controller's numbers (`trace.cc_metrics`).
    pub cc_metrics: Option<CcMetricsTrace>,
}

/// When a flow's sender state is recorded (`trace.sampling`).
#[derive(Clone, Copy, Debug, Default, serde::Deserialize, serde::Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Sampling {
    /// A row whenever the sender's state changes (every ACK): exact, but memory
    /// grows with the run.
    #[default]
    Change,
    /// A row per flow every `interval`: bounded memory for long runs.
    Interval,
}

/// What to record, as plain values (the scenario's `[trace]` gives them).
#[derive(Clone, Copy, Debug)]
pub struct TraceConfig {
    pub sampling: Sampling,
    /// Sampling period in `Interval` mode.
    pub interval: SimTime,
    pub throughput_bin: SimTime,
    /// Every data segment transmission.
    pub segments: bool,
    /// The controllers' own numbers beside each series row.
    pub cc_metrics: bool,
}

pub struct Recorder {
    pub sampling: Sampling,
    pub interval: SimTime,
    pub flows: Vec<FlowTrace>,
    /// SCTP associations, in the order of the world's association table.
    pub associations: Vec<sctp::AssociationTrace>,
    throughput_bin: SimTime,
    segments: bool,
}

impl Recorder {
    pub fn new(cfg: &TraceConfig, flows: usize) -> Self {
        let flow = || FlowTrace {
            series: FlowSeries::default(),
            last: None,
            delivered: Bins::new(cfg.throughput_bin),
            sent: Bins::new(cfg.throughput_bin),
            segments: cfg.segments.then(SegmentTrace::default),
            cc_metrics: cfg.cc_metrics.then(CcMetricsTrace::default),
        };
        Recorder {
            sampling: cfg.sampling,
            interval: cfg.interval,
            flows: (0..flows).map(|_| flow()).collect(),
            associations: Vec::new(),
            throughput_bin: cfg.throughput_bin,
            segments: cfg.segments,
        }
    }

    /// Bytes the flows' traces hold (their vectors' capacity): what grows with a run.
    /// SCTP association traces are not counted (their rows are per SACK, like a
    /// TCP flow's, and `check`'s estimate covers them as flows).
    pub fn bytes_held(&self) -> u64 {
        self.flows
            .iter()
            .map(|f| {
                f.series.bytes_held()
                    + f.delivered.bytes_held()
                    + f.sent.bytes_held()
                    + f.segments.as_ref().map_or(0, SegmentTrace::bytes_held)
                    + f.cc_metrics.as_ref().map_or(0, CcMetricsTrace::bytes_held)
            })
            .sum()
    }

    /// Adds the traces of `n` SCTP associations.
    pub fn add_associations(&mut self, n: usize) {
        for _ in 0..n {
            let t = sctp::AssociationTrace::new(self.throughput_bin, self.segments);
            self.associations.push(t);
        }
    }

    /// In `change` mode, records the snapshot if it differs from the last one;
    /// true if it did.
    pub fn on_change(&mut self, flow: usize, now: SimTime, snap: FlowSnapshot) -> bool {
        if self.sampling != Sampling::Change {
            return false;
        }
        let t = &mut self.flows[flow];
        if t.last == Some(snap) {
            return false;
        }
        t.series.push(now, &snap);
        t.last = Some(snap);
        true
    }

    /// Beside a series row: the controller's numbers, when `trace.cc_metrics` is on.
    pub fn on_cc_info(&mut self, flow: usize, now: SimTime, cc: &dyn CongestionControl, tcb: &Tcb) {
        if let Some(trace) = &mut self.flows[flow].cc_metrics {
            trace.sample(now, cc, tcb);
        }
    }

    /// In `interval` mode, records a snapshot unconditionally.
    pub fn on_sample(&mut self, flow: usize, now: SimTime, snap: FlowSnapshot) {
        self.flows[flow].series.push(now, &snap);
    }

    pub fn on_segment_sent(
        &mut self,
        flow: usize,
        now: SimTime,
        seq: u64,
        len: u32,
        retransmission: bool,
    ) {
        let t = &mut self.flows[flow];
        t.sent.add(now, len as u64);
        if let Some(s) = &mut t.segments {
            s.push(now, seq, len, retransmission);
        }
    }

    pub fn on_delivered(&mut self, flow: usize, now: SimTime, bytes: u64) {
        if bytes > 0 {
            self.flows[flow].delivered.add(now, bytes);
        }
    }
}
