//! What a run returns for each UDP flow: the sender's and sink's counters, the
//! datagrams lost by cause, and bytes sent and delivered per throughput bin.
//!
//! Every datagram sent is delivered, dropped by a full queue (`drops_queue`),
//! dropped by an impairment (`drops_impairment`), or still on its way when the run
//! ends (`packets_in_flight`): the four add up to `packets_sent`.

use crate::time::SimTime;
use crate::trace::Bins;
use crate::transport::udp::sender::UdpSenderStats;
use crate::transport::udp::sink::UdpSinkStats;

#[derive(Clone, Debug, serde::Serialize)]
pub struct UdpSummary {
    pub name: String,
    pub from: String,
    pub to: String,
    /// The source: "cbr", "exponential" or "pareto" (in the column TCP gives its
    /// controller).
    pub cc: &'static str,
    #[serde(serialize_with = "super::secs")]
    pub start: SimTime,
    /// The source's stop, else the end of the run.
    #[serde(serialize_with = "super::secs")]
    pub end: SimTime,
    /// IP datagram size of every datagram, bytes.
    pub packet_size: u32,
    #[serde(flatten)]
    pub sender: UdpSenderStats,
    #[serde(flatten)]
    pub sink: UdpSinkStats,
    pub drops_queue: u64,
    pub drops_impairment: u64,
    pub packets_in_flight: u64,
}

impl UdpSummary {
    fn active_seconds(&self) -> f64 {
        (self.end - self.start).as_secs_f64()
    }

    pub fn goodput_bps(&self) -> f64 {
        super::rate(self.sink.bytes_delivered, self.active_seconds())
    }

    pub fn throughput_bps(&self) -> f64 {
        super::rate(self.sender.bytes_sent, self.active_seconds())
    }

    /// Mean one-way delay of the delivered datagrams, seconds (NaN without any).
    pub fn mean_delay(&self) -> f64 {
        super::mean_seconds(self.sink.delay_sum_ns, self.sink.packets_delivered)
    }

    /// Datagrams lost (queue and impairment) over datagrams sent (NaN without any).
    pub fn loss_rate(&self) -> f64 {
        let lost = self.drops_queue + self.drops_impairment;
        if self.sender.packets_sent == 0 {
            f64::NAN
        } else {
            lost as f64 / self.sender.packets_sent as f64
        }
    }
}

pub struct UdpResult {
    pub summary: UdpSummary,
    pub delivered_bins: Bins,
    pub sent_bins: Bins,
}
