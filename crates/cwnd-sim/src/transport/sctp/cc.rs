//! Congestion control of one destination (RFC 9260 §7.2, which corrects RFC 4960's
//! §7.2 in the points marked below).
//!
//! ```text
//! initial cwnd = min(4·MTU, max(2·MTU, 4404 B))                             §7.2.1
//! slow start (cwnd ≤ ssthresh), on a SACK that acknowledges new data, if the
//!   window was fully used (flight before the SACK ≥ cwnd) and not in Fast
//!   Recovery:  cwnd += min(bytes acknowledged, L·PMDCS)                     §7.2.1
//! congestion avoidance (cwnd > ssthresh), on each SACK:
//!   pba += bytes newly acknowledged (cumulative ack and gap blocks)
//!   if pba > cwnd and flight before the SACK < cwnd: pba = cwnd        (9260)
//!   if pba ≥ cwnd and flight before the SACK ≥ cwnd: pba −= cwnd, cwnd += PMDCS
//!   when all data sent to the destination is acknowledged: pba = 0      §7.2.2
//! fast retransmit:  ssthresh = max(cwnd/2, 4·MTU), cwnd = ssthresh, pba = 0 §7.2.3
//! T3-rtx expiry:    ssthresh = max(cwnd/2, 4·MTU), cwnd = 1·MTU,   pba = 0  §7.2.3
//! idle destination: cwnd = max(cwnd/2, 4·MTU) per RTO without DATA sent  §7.2.1
//! ```
//! RFC 9260 corrections used: the slow-start increase no longer needs the
//! cumulative TSN to advance (a SACK acknowledging new data by gap blocks counts,
//! RFC 4960 errata §3.22), the increase is bounded by L·PMDCS with L = 1 (RFC 3465's
//! byte counting limit), partial_bytes_acked is capped at cwnd when the window was
//! not full (errata §3.26) and the initial window is 4404 B (three full chunks of a
//! 1500-byte IPv4 MTU) instead of 4380 B. As Linux does, no window grows in Fast
//! Recovery, in congestion avoidance either.
//!
//! Units: windows count bytes of DATA chunks as sent (16-byte header and padding
//! included), so RFC 9260's 4404-byte initial window is exactly three full chunks;
//! "MTU" and "PMDCS" in the rules are both taken as the largest such chunk (path MTU
//! − 32 B = 1468 B), the unit in which the window moves.

use super::path::Path;
use crate::time::SimTime;

impl Path {
    /// RFC 9260 §7.2.1 initial window (IPv4).
    pub fn initial_cwnd(pmdcs: u64) -> u64 {
        (4 * pmdcs).min((2 * pmdcs).max(4404))
    }

    fn loss_ssthresh(&self) -> u64 {
        (self.cwnd / 2).max(4 * self.pmdcs)
    }

    /// A SACK newly acknowledged `acked` bytes last sent to this destination;
    /// `flight_before` was its flight size before the SACK.
    pub fn on_acked(&mut self, acked: u64, flight_before: u64, fast_recovery: bool, l: u32) {
        if acked == 0 || fast_recovery {
            return;
        }
        if self.cwnd <= self.ssthresh {
            if flight_before >= self.cwnd {
                self.cwnd += acked.min(l as u64 * self.pmdcs);
            }
            return;
        }
        self.partial_bytes_acked += acked;
        if self.partial_bytes_acked > self.cwnd && flight_before < self.cwnd {
            self.partial_bytes_acked = self.cwnd;
        }
        if self.partial_bytes_acked >= self.cwnd && flight_before >= self.cwnd {
            self.partial_bytes_acked -= self.cwnd;
            self.cwnd += self.pmdcs;
        }
    }

    /// §7.2.2: nothing outstanding on the destination any more.
    pub fn on_all_acked(&mut self) {
        self.partial_bytes_acked = 0;
    }

    /// §7.2.3, on entering Fast Recovery.
    pub fn reduce_for_fast_retransmit(&mut self) {
        self.ssthresh = self.loss_ssthresh();
        self.cwnd = self.ssthresh;
        self.partial_bytes_acked = 0;
    }

    /// §7.2.3 and §6.3.3 E1, on a T3-rtx expiry.
    pub fn reduce_for_timeout(&mut self) {
        self.ssthresh = self.loss_ssthresh();
        self.cwnd = self.pmdcs;
        self.partial_bytes_acked = 0;
    }

    /// §7.2.1: before sending DATA at `now`, halves the window (down to 4·MTU) once
    /// per RTO the destination went without DATA, nothing being outstanding.
    pub fn decay_if_idle(&mut self, now: SimTime) {
        let Some(last) = self.last_data else {
            return;
        };
        if self.flight > 0 {
            return;
        }
        let periods = (now - last).as_nanos() / self.rto.rto().as_nanos().max(1);
        for _ in 0..periods.min(64) {
            if self.cwnd <= 4 * self.pmdcs {
                break;
            }
            self.cwnd = (self.cwnd / 2).max(4 * self.pmdcs);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::tcp::rto::RtoConfig;

    const C: u64 = 1468; // full chunk at MTU 1500

    fn path(cwnd: u64, ssthresh: u64) -> Path {
        let mut p = Path::new(0, 1, C, RtoConfig::default(), ssthresh);
        p.cwnd = cwnd;
        p
    }

    #[test]
    fn initial_window_is_4404_bytes_at_mtu_1500() {
        // min(4·1468, max(2·1468, 4404)) = min(5872, 4404) = 4404 = 3 chunks.
        assert_eq!(Path::initial_cwnd(C), 4404);
        // MTU 9000: chunk 8968, min(35872, 17936) = 17936.
        assert_eq!(Path::initial_cwnd(8968), 17936);
        // MTU 576: chunk 544, min(2176, 4404) = 2176.
        assert_eq!(Path::initial_cwnd(544), 2176);
    }

    #[test]
    fn slow_start_grows_by_at_most_one_chunk_per_sack_and_only_when_full() {
        let mut p = path(4404, u64::MAX);
        // Full window (3 chunks out), a SACK for 2 chunks: +min(2936, 1468).
        p.on_acked(2 * C, 4404, false, 1);
        assert_eq!(p.cwnd, 4404 + C);
        // Window not full (flight 2936 < 5872): no growth.
        p.on_acked(C, 2 * C, false, 1);
        assert_eq!(p.cwnd, 4404 + C);
        // L = 2 allows two chunks per SACK.
        p.on_acked(2 * C, 6000, false, 2);
        assert_eq!(p.cwnd, 4404 + 3 * C);
        // In Fast Recovery: nothing.
        p.on_acked(C, 10 * C, true, 1);
        assert_eq!(p.cwnd, 4404 + 3 * C);
    }

    #[test]
    fn congestion_avoidance_adds_one_chunk_per_window_acknowledged() {
        // cwnd 10 chunks (14680 B) > ssthresh: SACKs of one chunk each, window full.
        let mut p = path(10 * C, 5 * C);
        for i in 1..10 {
            p.on_acked(C, 10 * C, false, 1);
            assert_eq!((p.cwnd, p.partial_bytes_acked), (10 * C, i * C));
        }
        // The tenth chunk makes pba = 14680 ≥ cwnd: pba 0, cwnd 11 chunks.
        p.on_acked(C, 10 * C, false, 1);
        assert_eq!((p.cwnd, p.partial_bytes_acked), (11 * C, 0));
    }

    #[test]
    fn partial_bytes_acked_is_capped_when_the_window_is_not_full() {
        // RFC 9260: pba 14000 + 2000 > cwnd 14680 with flight 10000 < cwnd: pba = cwnd,
        // and no increase; the next SACK with a full window then adds a chunk.
        let mut p = path(14680, 1000);
        p.partial_bytes_acked = 14000;
        p.on_acked(2000, 10_000, false, 1);
        assert_eq!((p.cwnd, p.partial_bytes_acked), (14680, 14680));
        p.on_acked(C, 14680, false, 1);
        // pba 14680 + 1468 = 16148 ≥ 14680: pba 1468, cwnd 16148.
        assert_eq!((p.cwnd, p.partial_bytes_acked), (14680 + C, C));
    }

    #[test]
    fn losses_halve_down_to_four_chunks() {
        // cwnd 20 chunks: ssthresh 10 chunks; fast retransmit cwnd = ssthresh.
        let mut p = path(20 * C, u64::MAX);
        p.partial_bytes_acked = 77;
        p.reduce_for_fast_retransmit();
        assert_eq!(
            (p.cwnd, p.ssthresh, p.partial_bytes_acked),
            (10 * C, 10 * C, 0)
        );
        // A timeout at cwnd 6 chunks: ssthresh max(3, 4) = 4 chunks, cwnd one chunk.
        p.cwnd = 6 * C;
        p.reduce_for_timeout();
        assert_eq!((p.cwnd, p.ssthresh), (C, 4 * C));
    }

    #[test]
    fn an_idle_destination_halves_its_window_per_rto() {
        // RTO 1 s (default), cwnd 32 chunks, idle 2.5 s: two halvings → 8 chunks;
        // idle 10 s more: floor at 4 chunks.
        let mut p = path(32 * C, u64::MAX);
        p.last_data = Some(SimTime::ZERO);
        p.decay_if_idle(SimTime::from_millis(2500));
        assert_eq!(p.cwnd, 8 * C);
        p.last_data = Some(SimTime::ZERO);
        p.decay_if_idle(SimTime::from_secs(10));
        assert_eq!(p.cwnd, 4 * C);
    }
}
