//! The sending end of a UDP flow: datagrams of one size at the times its source
//! says, from its start until its stop (exclusive). No feedback, no retransmission:
//! UDP (RFC 768) only labels and sends. Each datagram carries a sequence number
//! (from 0) so that the sink, traces and impairments can name it; real UDP has
//! none, and it adds no byte to the datagram.

use super::source::Source;
use crate::packet::UdpDatagram;
use crate::rng::RngStream;
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct UdpSenderStats {
    pub packets_sent: u64,
    /// IP datagram bytes (headers included).
    pub bytes_sent: u64,
}

pub struct UdpSender {
    source: Source,
    rng: RngStream,
    /// IP datagram size of every datagram.
    packet_size: u32,
    stop: SimTime,
    /// When the next datagram leaves (`SimTime::MAX`: none will).
    next: SimTime,
    pub stats: UdpSenderStats,
}

impl UdpSender {
    /// A sender whose source is already placed at its start; it sends nothing at
    /// or after `stop`.
    pub fn new(mut source: Source, packet_size: u32, stop: SimTime, mut rng: RngStream) -> Self {
        let first = source.next_send(&mut rng);
        UdpSender {
            source,
            rng,
            packet_size,
            stop,
            next: if first < stop { first } else { SimTime::MAX },
            stats: UdpSenderStats::default(),
        }
    }

    pub fn packet_size(&self) -> u32 {
        self.packet_size
    }

    /// When the sender next has a datagram to send.
    pub fn deadline(&self) -> SimTime {
        self.next
    }

    /// Emits every datagram due at or before `now`.
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<UdpDatagram>) {
        while self.next <= now {
            out.push(UdpDatagram {
                seq: self.stats.packets_sent,
            });
            self.stats.packets_sent += 1;
            self.stats.bytes_sent += self.packet_size as u64;
            let t = self.source.next_send(&mut self.rng);
            self.next = if t < self.stop { t } else { SimTime::MAX };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng;
    use crate::transport::udp::cbr::Cbr;

    #[test]
    fn a_cbr_sender_emits_rate_times_time_and_nothing_at_its_stop() {
        // 1000 B at 8 Mb/s: I = 8000 bits / 8e6 b/s = 1 ms. From 0.5 s to 1.5 s:
        // datagrams at 500, 501, …, 1499 ms = 1000 datagrams = 1 000 000 B =
        // 8 Mb/s × 1 s / 8.
        let start = SimTime::from_millis(500);
        let cbr = Source::Cbr(Cbr::new(start, 1000, 8_000_000, false));
        let mut s = UdpSender::new(cbr, 1000, SimTime::from_millis(1500), rng::stream(1, "t"));
        assert_eq!(s.deadline(), start);
        let mut out = Vec::new();
        s.on_timer(SimTime::from_millis(499), &mut out);
        assert!(out.is_empty());
        s.on_timer(SimTime::from_secs(10), &mut out);
        assert_eq!(out.len(), 1000);
        assert_eq!(out[999].seq, 999);
        assert_eq!(s.stats.bytes_sent, 1_000_000);
        assert_eq!(s.deadline(), SimTime::MAX);
    }
}
