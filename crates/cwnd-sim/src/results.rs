//! What a run returns: per-flow summaries and series, per-link counters and
//! queue traces. Plain data; the Python bindings turn it into columns.
//!
//! Definitions used in summaries:
//! * goodput = bytes delivered in order to the receiving application × 8 /
//!   (end − start), where end is the transfer's completion (last byte
//!   acknowledged), else the flow's stop time, else the end of the run;
//! * throughput = bytes the sender transmitted (retransmissions included) × 8 /
//!   the same interval;
//! * mean RTT = mean of the RTT samples fed to the RTO estimator;
//! * mean RTO = mean of the RTO before backoff (PFTK's T0) after each sample.
//!
//! Summaries and counters serialize (serde) to the rows the bindings and files
//! carry: one field, one column, under the name docs/results.md documents; the
//! `*Row` wrappers add what a row holds beside its record (`serialize`).

use crate::net::link::LinkStats;
use crate::net::queue::QueueTrace;
use crate::net::sojourn::SojournHistogram;
use crate::time::SimTime;
use crate::trace::{Bins, CcMetricsTrace, FlowSeries, SegmentTrace};
use crate::transport::tcp::receiver::ReceiverStats;
use crate::transport::tcp::sender::SenderStats;

mod connections;
mod samples;
mod sctp;
mod serialize;
mod udp;
pub use connections::{ConnectionRecord, GeneratorRecord};
pub use samples::{
    AssociationSeriesRow, CcMetricRow, ChunkRow, PathSeriesRow, QueueDelayRow, QueueRow, Rows,
    SctpEventRow, SegmentRow, SeriesRow, ThroughputRow,
};
pub use sctp::{AssociationResult, AssociationSummary, EventResult, PathResult, SpuriousTruth};
pub use serialize::{AssociationRow, FlowRow, PathRow, RunHeader, UdpRow};
pub use udp::{UdpResult, UdpSummary};

use serialize::{secs, secs_or_nan};

#[derive(Clone, Debug, serde::Serialize)]
pub struct FlowSummary {
    pub name: String,
    pub from: String,
    pub to: String,
    pub cc: String,
    pub recovery: &'static str,
    #[serde(serialize_with = "secs")]
    pub start: SimTime,
    #[serde(serialize_with = "secs")]
    pub end: SimTime,
    /// Time from start until every byte of a transfer was acknowledged.
    #[serde(serialize_with = "secs_or_nan")]
    pub completion_time: Option<SimTime>,
    /// With `tcp.handshake`: from start until the SYN-ACK arrived (NaN without a
    /// handshake or when it failed), and the SYNs sent again.
    #[serde(serialize_with = "secs_or_nan")]
    pub setup_time: Option<SimTime>,
    pub syn_retransmissions: u64,
    /// dupthresh at the end: the configured one, or as RR-TCP's adaptation left it.
    pub dupthresh: u32,
    #[serde(flatten)]
    pub sender: SenderStats,
    #[serde(flatten)]
    pub receiver: ReceiverStats,
    pub drops_queue: u64,
    pub drops_impairment: u64,
}

impl FlowSummary {
    fn active_seconds(&self) -> f64 {
        (self.end - self.start).as_secs_f64()
    }

    pub fn goodput_bps(&self) -> f64 {
        rate(self.receiver.bytes_delivered, self.active_seconds())
    }

    pub fn throughput_bps(&self) -> f64 {
        rate(self.sender.bytes_sent, self.active_seconds())
    }

    /// Mean RTT in seconds (NaN without samples).
    pub fn mean_rtt(&self) -> f64 {
        mean_seconds(self.sender.rtt_sum_ns, self.sender.rtt_samples)
    }

    /// Mean RTO before backoff in seconds (NaN without samples).
    pub fn mean_rto(&self) -> f64 {
        mean_seconds(self.sender.base_rto_sum_ns, self.sender.rtt_samples)
    }
}

fn rate(bytes: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        bytes as f64 * 8.0 / seconds
    } else {
        f64::NAN
    }
}

fn mean_seconds(sum_ns: u128, n: u64) -> f64 {
    if n == 0 {
        f64::NAN
    } else {
        sum_ns as f64 / n as f64 / 1e9
    }
}

pub struct FlowResult {
    pub summary: FlowSummary,
    pub series: FlowSeries,
    pub delivered_bins: Bins,
    pub sent_bins: Bins,
    pub segments: Option<SegmentTrace>,
    /// The controller's numbers with each series row (`trace.cc_metrics`).
    pub cc_metrics: Option<CcMetricsTrace>,
}

#[derive(serde::Serialize)]
pub struct LinkResult {
    pub name: String,
    pub direction: &'static str,
    pub from: String,
    pub to: String,
    #[serde(flatten)]
    pub stats: LinkStats,
    #[serde(flatten)]
    pub queue_delay: QueueDelay,
    /// A table of its own (`queues`), not columns of the link's row.
    #[serde(skip)]
    pub queue: Option<QueueTrace>,
}

/// Percentiles of how long the packets a queue handed to its transmitter had waited
/// in it, in seconds (NaN if it sent none): within 1.6 % (`net/sojourn.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct QueueDelay {
    #[serde(rename = "queue_delay_p50", serialize_with = "secs_or_nan")]
    pub p50: Option<SimTime>,
    #[serde(rename = "queue_delay_p95", serialize_with = "secs_or_nan")]
    pub p95: Option<SimTime>,
    #[serde(rename = "queue_delay_p99", serialize_with = "secs_or_nan")]
    pub p99: Option<SimTime>,
}

impl QueueDelay {
    pub fn of(sojourn: &SojournHistogram) -> Self {
        let [p50, p95, p99] = sojourn.percentiles([0.5, 0.95, 0.99]);
        QueueDelay { p50, p95, p99 }
    }
}

/// Counters of a shared medium: an 802.11 channel or an 802.16 cell.
#[derive(serde::Serialize)]
pub struct ChannelResult {
    pub name: String,
    /// "802.11b", "802.11a/g" or "802.16".
    pub kind: &'static str,
    /// (counter, value), in a fixed order per kind: one column each.
    #[serde(flatten, serialize_with = "serialize::counters")]
    pub counters: Vec<(&'static str, u64)>,
}

pub struct RunResults {
    pub name: String,
    pub seed: u64,
    /// Hash of every event processed (time and kind): equal fingerprints mean
    /// the two runs behaved identically.
    pub fingerprint: u64,
    pub events: u64,
    pub duration: SimTime,
    pub throughput_bin: SimTime,
    pub flows: Vec<FlowResult>,
    /// SCTP associations (flow ids after the TCP flows').
    pub associations: Vec<AssociationResult>,
    /// UDP flows (flow ids after the associations').
    pub udp: Vec<UdpResult>,
    pub links: Vec<LinkResult>,
    pub channels: Vec<ChannelResult>,
    /// Connections the traffic generators opened, one record each, and the
    /// generators' own summaries (`world/connections.rs`).
    pub connections: Vec<ConnectionRecord>,
    pub generators: Vec<GeneratorRecord>,
    /// pcap files of the nodes named in `trace.pcap`: (node, file bytes).
    pub pcaps: Vec<(String, Vec<u8>)>,
}

impl RunResults {
    pub fn flow(&self, name: &str) -> Option<&FlowResult> {
        self.flows.iter().find(|f| f.summary.name == name)
    }

    pub fn association(&self, name: &str) -> Option<&AssociationResult> {
        self.associations.iter().find(|a| a.summary.name == name)
    }

    pub fn udp_flow(&self, name: &str) -> Option<&UdpResult> {
        self.udp.iter().find(|u| u.summary.name == name)
    }
}
