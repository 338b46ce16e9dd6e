//! What a run records: per-flow state series, throughput bins, segment traces.
//! Queue occupancy is recorded by the queues themselves (`net::queue`).
//!
//! Tracing costs nothing for what is switched off; series are sampled either on
//! every change of the sender's state or at a fixed interval (bounded memory).

mod bins;
pub mod pcap;
pub mod sctp;
mod segments;
mod series;

pub use bins::Bins;
pub use segments::SegmentTrace;
pub use series::{FlowSeries, FlowSnapshot};

use crate::scenario::spec::{Sampling, TraceSpec};
use crate::time::SimTime;

/// Everything recorded for one flow.
pub struct FlowTrace {
    pub series: FlowSeries,
    last: Option<FlowSnapshot>,
    /// Bytes delivered in order to the receiving application, per bin.
    pub delivered: Bins,
    /// Bytes transmitted by the sender (retransmissions included), per bin.
    pub sent: Bins,
    pub segments: Option<SegmentTrace>,
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
    pub fn new(spec: &TraceSpec, flows: usize) -> Self {
        let flow = || FlowTrace {
            series: FlowSeries::default(),
            last: None,
            delivered: Bins::new(spec.throughput_bin.0),
            sent: Bins::new(spec.throughput_bin.0),
            segments: spec.segments.then(SegmentTrace::default),
        };
        Recorder {
            sampling: spec.sampling,
            interval: spec.interval.0,
            flows: (0..flows).map(|_| flow()).collect(),
            associations: Vec::new(),
            throughput_bin: spec.throughput_bin.0,
            segments: spec.segments,
        }
    }

    /// Adds the traces of `n` SCTP associations.
    pub fn add_associations(&mut self, n: usize) {
        for _ in 0..n {
            let t = sctp::AssociationTrace::new(self.throughput_bin, self.segments);
            self.associations.push(t);
        }
    }

    /// In `change` mode, records the snapshot if it differs from the last one.
    pub fn on_change(&mut self, flow: usize, now: SimTime, snap: FlowSnapshot) {
        if self.sampling != Sampling::Change {
            return;
        }
        let t = &mut self.flows[flow];
        if t.last != Some(snap) {
            t.series.push(now, &snap);
            t.last = Some(snap);
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
