//! The data receiver of an association: which TSNs it holds, what it delivers,
//! and when and what it acknowledges (RFC 9260 §6.2, §6.7).
//!
//! * A SACK carries the cumulative TSN ack, a_rwnd, every gap ack block and the
//!   duplicate TSNs received since the previous SACK (each duplicate arrival once,
//!   §3.3.4), as many as fit in one packet of the path MTU, blocks first.
//! * When: at once if the packet brought a duplicate (§6.2: "MUST immediately send a
//!   SACK" when it brought nothing new; here also when it did, so that duplicate
//!   reports are never held back), or leaves or finds a gap in the TSNs (§6.7: "SHOULD send a SACK with Gap
//!   Ack Blocks immediately"; a packet that fills the last gap is acknowledged at once
//!   too, as TCP does, RFC 5681 §4.2). Otherwise a SACK for every packet with DATA, or
//!   with delayed SACK on, for every second packet and within 200 ms of the first
//!   unacknowledged one (§6.2, both values parameters).
//! * a_rwnd = receive buffer − user bytes held (out of order, or waiting for an
//!   earlier message of their stream); the application reads delivered data at once.
//!   A new chunk that would overflow the buffer is dropped if its TSN is above every
//!   TSN received (§6.2); a chunk below that is kept, since it fills a hole (RFC 9260
//!   says to make room by dropping the highest held TSN; the sender's window rules
//!   keep this from happening, so it is not modelled).
//! * Reneging (dropping gap-acknowledged data) is never done.

use super::chunk::{DataChunk, Sack, SctpPacket, SACK_ENTRY};
use super::streams::Reassembly;
use super::tsn_set::TsnSet;
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DelayedSack {
    pub timeout: SimTime,
    /// A SACK at least for every this many packets with DATA.
    pub every: u32,
}

#[derive(Clone, Debug)]
pub struct ReceiverConfig {
    /// Receive buffer, in user-data bytes.
    pub buffer: u64,
    pub delayed_sack: Option<DelayedSack>,
    pub streams: u16,
    pub mtu: u32,
}

/// Counters of the data receiver (each a column of the run summary, `results`).
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct ReceiverStats {
    pub packets_received: u64,
    pub chunks_received: u64,
    /// DATA chunks already held when they arrived.
    pub duplicate_chunks: u64,
    /// DATA chunks dropped for lack of buffer.
    pub chunks_dropped: u64,
    pub sacks_sent: u64,
    /// User bytes delivered to the application.
    pub bytes_delivered: u64,
}

pub struct SctpReceiver {
    cfg: ReceiverConfig,
    tsns: TsnSet,
    streams: Reassembly,
    /// Duplicate arrivals since the last SACK.
    duplicates: Vec<u64>,
    /// Packets with DATA not yet acknowledged (delayed SACK).
    unacknowledged: u32,
    sack_deadline: SimTime,
    pub stats: ReceiverStats,
}

impl SctpReceiver {
    pub fn new(cfg: ReceiverConfig) -> Self {
        SctpReceiver {
            tsns: TsnSet::default(),
            streams: Reassembly::new(cfg.streams),
            duplicates: Vec::new(),
            unacknowledged: 0,
            sack_deadline: SimTime::MAX,
            stats: ReceiverStats::default(),
            cfg,
        }
    }

    /// The receive buffer, advertised whole in INIT ACK.
    pub fn initial_window(&self) -> u64 {
        self.cfg.buffer
    }

    /// Whether some copy of `tsn` has arrived.
    pub fn holds(&self, tsn: u64) -> bool {
        self.tsns.contains(tsn)
    }

    /// When the delayed SACK is due (`SimTime::MAX`: none pending).
    pub fn sack_deadline(&self) -> SimTime {
        self.sack_deadline
    }

    fn a_rwnd(&self) -> u64 {
        self.cfg.buffer.saturating_sub(self.streams.held_bytes())
    }

    /// A packet's DATA chunks arrive at `now`. Returns whether a SACK is due now
    /// and the user bytes delivered to the application.
    pub fn on_data(&mut self, now: SimTime, chunks: &[DataChunk]) -> (bool, u64) {
        self.stats.packets_received += 1;
        let had_gaps = !self.tsns.gaps().is_empty();
        let (mut duplicate, mut delivered) = (false, 0);
        for &chunk in chunks {
            self.stats.chunks_received += 1;
            if self.tsns.contains(chunk.tsn) {
                self.stats.duplicate_chunks += 1;
                self.duplicates.push(chunk.tsn);
                duplicate = true;
                continue;
            }
            let full = self.streams.held_bytes() + chunk.len as u64 > self.cfg.buffer;
            if full && chunk.tsn > self.tsns.highest() {
                self.stats.chunks_dropped += 1;
                continue;
            }
            self.tsns.insert(chunk.tsn);
            delivered += self.streams.on_chunk(chunk);
        }
        self.stats.bytes_delivered += delivered;
        let gaps = !self.tsns.gaps().is_empty();
        self.unacknowledged += 1;
        let now_due = duplicate
            || gaps
            || had_gaps
            || self
                .cfg
                .delayed_sack
                .is_none_or(|d| self.unacknowledged >= d.every);
        if !now_due && self.sack_deadline == SimTime::MAX {
            if let Some(d) = self.cfg.delayed_sack {
                self.sack_deadline = now + d.timeout;
            }
        }
        (now_due, delivered)
    }

    /// Whether the delayed SACK is due at `now`.
    pub fn sack_timer_expired(&self, now: SimTime) -> bool {
        self.sack_deadline <= now
    }

    /// Writes a SACK into `packet` (after any control chunks it already holds) and
    /// resets the delayed-SACK state.
    pub fn write_sack(&mut self, packet: &mut SctpPacket) {
        self.unacknowledged = 0;
        self.sack_deadline = SimTime::MAX;
        self.stats.sacks_sent += 1;
        packet.sack = Some(Sack {
            cumulative_tsn: self.tsns.cumulative(),
            a_rwnd: self.a_rwnd(),
        });
        let room = (self.cfg.mtu.saturating_sub(packet.wire_size()) / SACK_ENTRY) as usize;
        let gaps = self.tsns.gaps();
        packet.gaps.extend_from_slice(&gaps[..gaps.len().min(room)]);
        let room = room - packet.gaps.len();
        packet
            .duplicates
            .extend_from_slice(&self.duplicates[..self.duplicates.len().min(room)]);
        self.duplicates.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn receiver(delayed: bool) -> SctpReceiver {
        SctpReceiver::new(ReceiverConfig {
            buffer: 10_000,
            delayed_sack: delayed.then_some(DelayedSack {
                timeout: SimTime::from_millis(200),
                every: 2,
            }),
            streams: 1,
            mtu: 1500,
        })
    }

    fn data(tsn: u64) -> DataChunk {
        DataChunk {
            tsn,
            stream: 0,
            ssn: tsn as u32 - 1,
            len: 1000,
            unordered: false,
            begin: true,
            end: true,
            copy: 0,
        }
    }

    fn sack_of(r: &mut SctpReceiver) -> SctpPacket {
        let mut p = SctpPacket::default();
        r.write_sack(&mut p);
        p
    }

    #[test]
    fn gaps_duplicates_and_window_are_reported() {
        let mut r = receiver(false);
        let t = SimTime::ZERO;
        r.on_data(t, &[data(1)]);
        r.on_data(t, &[data(3)]);
        r.on_data(t, &[data(5)]);
        r.on_data(t, &[data(1)]); // duplicate
        let p = sack_of(&mut r);
        let s = p.sack.unwrap();
        assert_eq!(s.cumulative_tsn, 1);
        // Buffer 10 000 B, 3 and 5 held: 8000 B free.
        assert_eq!(s.a_rwnd, 8000);
        assert_eq!(p.gaps, vec![(3, 3), (5, 5)]);
        assert_eq!(p.duplicates, vec![1]);
        // Duplicates are reported once.
        assert!(sack_of(&mut r).duplicates.is_empty());
    }

    #[test]
    fn delayed_sack_every_second_packet_unless_out_of_order() {
        let mut r = receiver(true);
        let t = SimTime::from_millis(5);
        assert_eq!(r.on_data(t, &[data(1)]), (false, 1000));
        assert_eq!(r.sack_deadline(), SimTime::from_millis(205));
        assert!(r.on_data(t, &[data(2)]).0);
        sack_of(&mut r);
        assert_eq!(r.sack_deadline(), SimTime::MAX);
        // Out of order: at once; the packet that fills the hole too.
        assert!(r.on_data(t, &[data(4)]).0);
        sack_of(&mut r);
        assert_eq!(r.on_data(t, &[data(3)]), (true, 2000));
        sack_of(&mut r);
        // A duplicate: at once.
        assert!(r.on_data(t, &[data(3)]).0);
    }

    #[test]
    fn a_full_buffer_drops_chunks_beyond_the_highest_tsn() {
        let mut r = receiver(false);
        let t = SimTime::ZERO;
        for tsn in 2..=11 {
            r.on_data(t, &[data(tsn)]); // 10 × 1000 B held behind missing TSN 1
        }
        r.on_data(t, &[data(12)]);
        assert_eq!(r.stats.chunks_dropped, 1);
        assert_eq!(sack_of(&mut r).sack.unwrap().a_rwnd, 0);
        // TSN 1 fills the hole even though the buffer is full: all 11 delivered.
        assert_eq!(r.on_data(t, &[data(1)]).1, 11_000);
        assert_eq!(sack_of(&mut r).sack.unwrap().cumulative_tsn, 11);
    }

    #[test]
    fn sack_blocks_are_limited_by_the_mtu() {
        // Room in 1500 B: (1500 − 32 − 16) / 4 = 363 entries.
        let mut r = receiver(false);
        r.cfg.buffer = u64::MAX;
        let t = SimTime::ZERO;
        for i in 0..400 {
            r.on_data(t, &[data(2 + 2 * i)]); // 400 single-TSN blocks
        }
        let p = sack_of(&mut r);
        assert_eq!(p.gaps.len(), 363);
        assert_eq!(p.wire_size(), 1500);
    }
}
