//! The receiving end of a UDP flow: counts the datagrams that arrive, their bytes
//! and their one-way delay (send to arrival), and those that arrive after a
//! datagram sent later (reordered).

use crate::packet::UdpDatagram;
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct UdpSinkStats {
    pub packets_delivered: u64,
    /// IP datagram bytes (headers included).
    pub bytes_delivered: u64,
    /// Datagrams that arrived after one with a higher sequence number.
    pub packets_reordered: u64,
    #[serde(skip)]
    pub delay_sum_ns: u128,
}

#[derive(Debug, Default)]
pub struct UdpSink {
    /// One past the highest sequence number seen.
    next_expected: u64,
    pub stats: UdpSinkStats,
}

impl UdpSink {
    /// A datagram of `size` bytes sent at `sent` arrives at `now`.
    pub fn on_datagram(&mut self, now: SimTime, sent: SimTime, size: u32, d: &UdpDatagram) {
        let s = &mut self.stats;
        s.packets_delivered += 1;
        s.bytes_delivered += size as u64;
        s.delay_sum_ns += (now - sent).as_nanos() as u128;
        if d.seq < self.next_expected {
            s.packets_reordered += 1;
        } else {
            self.next_expected = d.seq + 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delivered_delay_and_reordering_are_counted() {
        // Datagrams 0, 2, 1 sent at 0, 2, 1 ms arrive at 10, 12, 13 ms: delays 10 +
        // 10 + 12 = 32 ms; 1 arrives after 2, so one is reordered.
        let mut k = UdpSink::default();
        let ms = SimTime::from_millis;
        for (seq, sent, at) in [(0, 0, 10), (2, 2, 12), (1, 1, 13)] {
            k.on_datagram(ms(at), ms(sent), 500, &UdpDatagram { seq });
        }
        assert_eq!(k.stats.packets_delivered, 3);
        assert_eq!(k.stats.bytes_delivered, 1500);
        assert_eq!(k.stats.packets_reordered, 1);
        assert_eq!(k.stats.delay_sum_ns, 32_000_000);
    }
}
