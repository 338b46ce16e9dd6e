//! The active opener's side of TCP's three-way handshake (RFC 9293 §3.5), with its
//! own losses and timer, for flows with `tcp.handshake = true`.
//!
//! The sender sends a SYN at the flow's start and data only once the SYN-ACK has
//! arrived. The SYN's timer starts at the initial RTO (RFC 6298 §2.1: 1 s) and
//! doubles on each expiry (§5.5), and the SYN is sent again; after `SYN_RETRIES`
//! retransmissions (Linux's `tcp_syn_retries` default, 6) the connection fails and
//! sends no data. When the SYN-ACK arrives:
//! * if the SYN was sent once, the SYN → SYN-ACK time is the first RTT measurement
//!   (RFC 6298 §2.2; Linux takes it too, `tcp_synack_rtt_meas`);
//! * if it was sent again (the SYN or the SYN-ACK was lost), Karn's rule (§3) forbids
//!   the sample and the RTO is set to 3 s when data transmission begins (§5.7).
//!
//! Simplified, and said so in docs/tcp.md: the passive side answers every SYN with a
//! SYN-ACK and keeps no timer of its own (Linux retransmits an unanswered SYN-ACK on
//! its own 1 s timer; here the opener's SYN retransmission recovers a lost SYN-ACK,
//! at the same cost when both start at 1 s); the third segment of the handshake is
//! the first data segment (its ACK flag), not a separate pure ACK; SYNs carry no
//! options but timestamps (a real SYN's MSS, SACK-permitted and window-scale options
//! add 8–20 B).

use crate::time::SimTime;
use crate::transport::tcp::rto::{RtoConfig, RtoEstimator};

/// SYN retransmissions before the connection fails (Linux `tcp_syn_retries`).
pub const SYN_RETRIES: u32 = 6;

/// RFC 6298 §5.7: the RTO when data begins after a SYN's timer expired.
pub const RTO_AFTER_LOST_SYN: SimTime = SimTime::from_secs(3);

/// What the sender learns when the connection opens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opened {
    /// The SYN was sent once: this RTT is the first measurement.
    Measured(SimTime),
    /// The SYN was sent again: no sample, and the RTO starts at 3 s.
    AfterRetransmission,
}

#[derive(Clone, Debug)]
pub struct Handshake {
    /// The SYN's timer: the initial RTO, backed off on each expiry.
    rto: RtoEstimator,
    first_syn: SimTime,
    /// SYNs sent so far.
    pub syns_sent: u32,
    deadline: SimTime,
    /// When the SYN-ACK arrived.
    pub established_at: Option<SimTime>,
    pub failed: bool,
}

impl Handshake {
    pub fn new(rto: RtoConfig) -> Self {
        Handshake {
            rto: RtoEstimator::new(rto),
            first_syn: SimTime::ZERO,
            syns_sent: 0,
            deadline: SimTime::MAX,
            established_at: None,
            failed: false,
        }
    }

    /// Still waiting for the SYN-ACK.
    pub fn pending(&self) -> bool {
        self.established_at.is_none() && !self.failed
    }

    /// When the SYN's timer expires (`SimTime::MAX`: not running).
    pub fn deadline(&self) -> SimTime {
        self.deadline
    }

    /// The first SYN leaves at `now`.
    pub fn start(&mut self, now: SimTime) {
        self.first_syn = now;
        self.send_syn(now);
    }

    fn send_syn(&mut self, now: SimTime) {
        self.syns_sent += 1;
        self.deadline = now + self.rto.rto();
    }

    /// The SYN's timer fired at `now`: true if a SYN goes out again.
    pub fn on_timer(&mut self, now: SimTime) -> bool {
        if !self.pending() || now < self.deadline {
            return false;
        }
        if self.syns_sent > SYN_RETRIES {
            self.failed = true;
            self.deadline = SimTime::MAX;
            return false;
        }
        self.rto.back_off();
        self.send_syn(now);
        true
    }

    /// A SYN-ACK arrives at `now`: what the sender starts with, the first time.
    pub fn on_syn_ack(&mut self, now: SimTime) -> Option<Opened> {
        if !self.pending() {
            return None;
        }
        self.established_at = Some(now);
        self.deadline = SimTime::MAX;
        Some(if self.syns_sent == 1 {
            Opened::Measured(now - self.first_syn)
        } else {
            Opened::AfterRetransmission
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: u64) -> SimTime {
        SimTime::from_secs(s)
    }

    #[test]
    fn an_answered_syn_gives_the_first_rtt_sample() {
        // SYN at 2 s, SYN-ACK at 2.1 s: RTT 100 ms, no timer left.
        let mut h = Handshake::new(RtoConfig::default());
        h.start(secs(2));
        assert_eq!(h.deadline(), secs(3));
        let opened = h.on_syn_ack(SimTime::from_millis(2100));
        assert_eq!(opened, Some(Opened::Measured(SimTime::from_millis(100))));
        assert_eq!(h.deadline(), SimTime::MAX);
        assert_eq!(
            h.on_syn_ack(SimTime::from_millis(2200)),
            None,
            "a duplicate"
        );
    }

    #[test]
    fn a_lost_syn_is_sent_again_after_1_2_4_s_and_then_gives_no_sample() {
        // Initial RTO 1 s, doubled per expiry (RFC 6298 §2.1, §5.5): SYNs at 0, 1,
        // 3, 7 s; answered at 7.1 s: Karn — no sample; the RTO becomes 3 s.
        let mut h = Handshake::new(RtoConfig::default());
        h.start(SimTime::ZERO);
        let mut sent = vec![0];
        for _ in 0..3 {
            let t = h.deadline();
            assert!(!h.on_timer(t - SimTime::from_nanos(1)), "not yet");
            assert!(h.on_timer(t));
            sent.push(t.as_nanos() / 1_000_000_000);
        }
        assert_eq!(sent, vec![0, 1, 3, 7]);
        assert_eq!(h.syns_sent, 4);
        let opened = h.on_syn_ack(SimTime::from_millis(7100));
        assert_eq!(opened, Some(Opened::AfterRetransmission));
        assert_eq!(h.established_at, Some(SimTime::from_millis(7100)));
    }

    #[test]
    fn the_connection_fails_after_six_retransmissions() {
        // SYNs at 0, 1, 3, 7, 15, 31, 63 s; the timer of the last (64 s, capped at
        // the 60 s maximum) expires at 123 s and gives up.
        let mut h = Handshake::new(RtoConfig::default());
        h.start(SimTime::ZERO);
        let mut last = SimTime::ZERO;
        while h.on_timer(h.deadline()) {
            last = h.deadline();
        }
        assert_eq!(h.syns_sent, 7);
        assert_eq!(last, secs(123));
        assert!(h.failed && !h.pending());
        assert_eq!(h.on_syn_ack(secs(200)), None);
    }
}
