//! What the traffic generators' connections leave behind (`world/connections.rs`):
//! one record per connection, folded when the connection retires (every byte
//! acknowledged) or when the run ends, and one per generator with the load it
//! offered beside its target.

use super::serialize::secs;
use crate::time::SimTime;

/// One connection of a generator.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ConnectionRecord {
    pub generator: String,
    pub cc: String,
    /// Its number within its generator, from 0 in opening order.
    pub connection: u32,
    #[serde(serialize_with = "secs")]
    pub start: SimTime,
    /// When its last byte was acknowledged, else the end of the run.
    #[serde(serialize_with = "secs")]
    pub end: SimTime,
    pub completed: bool,
    /// The transfer's size.
    pub bytes: u64,
    pub bytes_delivered: u64,
    /// bytes_delivered × 8 / (end − start).
    pub goodput_bps: f64,
    /// Time-weighted mean congestion window over (start, end), in segments.
    pub mean_cwnd: f64,
    /// Mean of the RTT samples, seconds (NaN without samples).
    pub mean_rtt: f64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub segments_sent: u64,
    pub segments_retransmitted: u64,
    pub drops_queue: u64,
    pub drops_impairment: u64,
}

/// One generator: what it was asked to offer and what it did.
#[derive(Clone, Debug, serde::Serialize)]
pub struct GeneratorRecord {
    pub name: String,
    /// "ftp" or "web".
    pub kind: &'static str,
    pub cc: String,
    pub from: String,
    pub to: String,
    /// The link whose capacity the load is a fraction of.
    pub link: String,
    pub target_load: f64,
    /// Payload bytes of the connections it opened × 8 / (active time × capacity).
    pub offered_load: f64,
    pub connections_opened: u64,
    pub connections_completed: u64,
    /// Most connections alive at one time.
    pub peak_live: u64,
    /// Packets of its retired connections that reached an endpoint after the
    /// connection was gone: dropped there, never delivered to another connection.
    pub late_packets: u64,
}
