//! What a run returns for each SCTP association: a summary with the sender's and
//! receiver's counters and the ground truth about spurious retransmissions, one
//! summary per path, the retransmission events, and the recorded series.
//!
//! Truth (`transport::sctp::truth`): a retransmission was spurious if an earlier copy
//! of its TSN reached the receiver; an event (a fast retransmit — all of one Fast
//! Recovery on one destination — or a timeout) was spurious if every retransmission
//! made for it was. Detection effectiveness = events detected spurious that were /
//! spurious events.

use crate::time::SimTime;
use crate::trace::sctp::{AssociationSeries, ChunkTrace, PathSeries};
use crate::trace::Bins;
use crate::transport::sctp::config::RrConfig;
use crate::transport::sctp::path::PathStats;
use crate::transport::sctp::receiver::ReceiverStats;
use crate::transport::sctp::sender::SenderStats;

/// Counts of retransmission events and retransmissions by what really happened.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct SpuriousTruth {
    #[serde(rename = "retransmission_events")]
    pub events: u64,
    pub spurious_events: u64,
    pub spurious_fast_retransmits: u64,
    pub spurious_timeouts: u64,
    /// Events RR-SCTP detection called spurious that were, and that were not.
    #[serde(rename = "spurious_detected_correct")]
    pub detected_correct: u64,
    #[serde(rename = "spurious_detected_wrong")]
    pub detected_wrong: u64,
    /// Retransmitted DATA chunks (the sender's `segments_retransmitted`), and those
    /// that were not needed.
    #[serde(skip)]
    pub retransmissions: u64,
    pub spurious_retransmissions: u64,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct AssociationSummary {
    pub name: String,
    /// Address names, joined by commas in the summary row.
    #[serde(serialize_with = "super::serialize::joined")]
    pub from: Vec<String>,
    #[serde(serialize_with = "super::serialize::joined")]
    pub to: Vec<String>,
    /// Final state of the opening endpoint (`established`, `shut_down`, `aborted`…).
    pub state: &'static str,
    /// Largest DATA chunk (bytes, header included): the unit of the windows.
    #[serde(skip)]
    pub pmdcs: u64,
    #[serde(serialize_with = "super::secs")]
    pub start: SimTime,
    /// Completion of a transfer (last byte acknowledged), else stop, else run end.
    #[serde(serialize_with = "super::secs")]
    pub end: SimTime,
    #[serde(serialize_with = "super::secs_or_nan")]
    pub completion_time: Option<SimTime>,
    #[serde(serialize_with = "super::secs_or_nan")]
    pub established_at: Option<SimTime>,
    /// Shown as the variant's name (`variant`, the row's `cc`).
    #[serde(skip)]
    pub rr: RrConfig,
    #[serde(flatten)]
    pub sender: SenderStats,
    #[serde(flatten)]
    pub receiver: ReceiverStats,
    pub drops_queue: u64,
    pub drops_impairment: u64,
    #[serde(flatten)]
    pub truth: SpuriousTruth,
    /// RTT samples of every path and their sum, for the mean.
    pub rtt_samples: u64,
    #[serde(skip)]
    pub rtt_sum_ns: u128,
}

impl AssociationSummary {
    fn active_seconds(&self) -> f64 {
        (self.end - self.start).as_secs_f64()
    }

    pub fn goodput_bps(&self) -> f64 {
        super::rate(self.receiver.bytes_delivered, self.active_seconds())
    }

    pub fn throughput_bps(&self) -> f64 {
        super::rate(self.sender.bytes_sent, self.active_seconds())
    }

    pub fn mean_rtt(&self) -> f64 {
        super::mean_seconds(self.rtt_sum_ns, self.rtt_samples)
    }

    /// The variant's name: "sctp", or "rr-sctp" with any RR-SCTP algorithm on.
    pub fn variant(&self) -> &'static str {
        if self.rr.detection {
            "rr-sctp"
        } else {
            "sctp"
        }
    }
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct PathResult {
    pub from: String,
    pub to: String,
    pub primary: bool,
    pub active: bool,
    #[serde(flatten)]
    pub stats: PathStats,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventResult {
    pub time: SimTime,
    pub kind: &'static str,
    pub path: u8,
    /// Retransmissions made for it.
    pub chunks: u64,
    pub spurious: bool,
    pub detected: Option<SimTime>,
}

pub struct AssociationResult {
    pub summary: AssociationSummary,
    pub paths: Vec<PathResult>,
    pub events: Vec<EventResult>,
    pub series: AssociationSeries,
    pub path_series: PathSeries,
    pub chunks: Option<ChunkTrace>,
    /// For each row of `chunks`: a retransmission that was not needed.
    pub chunk_spurious: Vec<bool>,
    pub delivered_bins: Bins,
    pub sent_bins: Bins,
}
