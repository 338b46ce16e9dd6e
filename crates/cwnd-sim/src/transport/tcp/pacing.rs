//! Sender pacing: segments leave no faster than the controller's pacing rate.
//!
//! Used only when the congestion controller reports a pacing rate (its `metrics()`;
//! BBR does); other flows are not paced and behave exactly as without this file.
//!
//! Rule (draft-cardwell-iccrg-bbr-congestion-control-00 §4.2.1 "Pacing Rate", and
//! Linux's internal TCP pacing, `tcp_internal_pacing` in `tcp_output.c` since 4.13):
//! after a packet of `size` bytes leaves at `now`, the next may leave at
//! `next_send_time = now + size / pacing_rate`; a sender that the windows would let
//! send earlier waits for a pacing timer. `size` is the IP packet (payload + TCP/IP
//! headers), as the fq qdisc counts it (`qdisc_pkt_len`) and as BBR's rate is
//! expressed (`tcp_mss_to_mtu`). (Linux's internal pacing counts the payload instead,
//! and BBR then expresses its rate in payload bytes, commit cadefe5f584a, 2018: the
//! spacing of full segments, size / rate, is the same either way.)
//!
//! Packets that loss recovery must send at once (the fast retransmission, NewReno's
//! partial-ACK retransmission, the timeout's retransmission, F-RTO's probes) are not
//! held back; they still use up pacing time: `next_send_time = max(next_send_time,
//! now) + size / rate`, as Linux's timeout retransmission, which skips the pacing
//! check but advances the departure clock (`tcp_update_skb_after_send`).
//!
//! Simplified: one segment per departure (no TSO/GSO bursts, hence no send quantum
//! beyond one segment); no fq quantum credit and no Linux ≥ 4.20 refinements
//! (unpaced first 10 segments, half-gap credit after a late timer).

use crate::time::SimTime;

#[derive(Clone, Copy, Debug, Default)]
pub struct Pacer {
    next_send_time: SimTime,
    /// The last transmit stopped at the pacing gate with something to send: the
    /// owner must wake the sender at `next_send_time`.
    blocked: bool,
}

impl Pacer {
    /// Whether a packet may leave at `now`.
    pub fn allows(&self, now: SimTime) -> bool {
        now >= self.next_send_time
    }

    /// A transmit begins: nothing is held back yet.
    pub fn on_transmit(&mut self) {
        self.blocked = false;
    }

    /// The gate for a segment at `now` when the flow is `paced`: whether it may
    /// leave; if not, the sender waits for `deadline()`.
    pub fn gate(&mut self, now: SimTime, paced: bool) -> bool {
        if paced && !self.allows(now) {
            self.blocked = true;
            return false;
        }
        true
    }

    /// The pacing timer fired at `now`: whether the sender held back may go on.
    pub fn wakes(&self, now: SimTime) -> bool {
        self.blocked && self.allows(now)
    }

    /// A packet of `size` bytes left at `now` under `rate` bytes per second.
    pub fn on_sent(&mut self, now: SimTime, size: u32, rate: u64) {
        let gap = u64::from(size) * 1_000_000_000 / rate.max(1);
        self.next_send_time = self.next_send_time.max(now) + SimTime(gap);
    }

    /// When the sender must be woken to send, if it is waiting for the gate.
    pub fn deadline(&self) -> SimTime {
        if self.blocked {
            self.next_send_time
        } else {
            SimTime::MAX
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packets_are_spaced_by_size_over_rate() {
        // 1500 B at 1.25 MB/s (10 Mb/s): 1500 / 1.25e6 s = 1.2 ms apart.
        let mut p = Pacer::default();
        assert!(p.allows(SimTime::ZERO));
        p.on_sent(SimTime::ZERO, 1500, 1_250_000);
        assert!(!p.allows(SimTime(1_199_999)));
        assert!(p.allows(SimTime(1_200_000)));
        // Sent late (at 5 ms): the next gap counts from the actual departure.
        p.on_sent(SimTime::from_millis(5), 1500, 1_250_000);
        assert!(p.allows(SimTime(6_200_000)) && !p.allows(SimTime(6_199_999)));
    }

    #[test]
    fn a_forced_packet_uses_up_pacing_time() {
        // Next departure due at 1.2 ms; a retransmission forced out at 0.5 ms pushes
        // it to 1.2 + 1.2 = 2.4 ms, not 0.5 + 1.2 = 1.7 ms.
        let mut p = Pacer::default();
        p.on_sent(SimTime::ZERO, 1500, 1_250_000);
        p.on_sent(SimTime(500_000), 1500, 1_250_000);
        assert!(!p.allows(SimTime(2_399_999)) && p.allows(SimTime(2_400_000)));
    }

    #[test]
    fn the_timer_is_wanted_only_when_blocked() {
        let mut p = Pacer::default();
        p.on_sent(SimTime::ZERO, 1500, 1_250_000);
        assert_eq!(p.deadline(), SimTime::MAX);
        // An unpaced flow passes the gate; a paced one at 0.6 ms waits for 1.2 ms.
        assert!(p.gate(SimTime(600_000), false));
        assert_eq!(p.deadline(), SimTime::MAX);
        assert!(!p.gate(SimTime(600_000), true));
        assert_eq!(p.deadline(), SimTime(1_200_000));
        assert!(!p.wakes(SimTime(1_199_999)) && p.wakes(SimTime(1_200_000)));
        // The next transmit starts unblocked: no timer.
        p.on_transmit();
        assert_eq!(p.deadline(), SimTime::MAX);
        assert!(!p.wakes(SimTime(1_200_000)));
    }
}
