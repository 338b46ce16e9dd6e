//! Proportional Rate Reduction (`tcp.prr`): how much fast recovery sends per ACK.
//!
//! RFC 6937 §3 (Mathis, Dukkipati, Cheng 2013; standards-track revision RFC 9937,
//! formerly draft-ietf-tcpm-prr-rfc6937bis) and Linux `tcp_cwnd_reduction`
//! (net/ipv4/tcp_input.c), which this follows:
//!
//! ```text
//! on entering recovery:  prr_delivered = prr_out = 0, RecoverFS = cwnd before the loss
//! on every ACK in recovery (DeliveredData = segments it newly delivers, SACKed or
//! cumulatively acknowledged):
//!     prr_delivered += DeliveredData
//!     if pipe > ssthresh:   sndcnt = ⌈prr_delivered · ssthresh / RecoverFS⌉ − prr_out
//!     else (PRR-SSRB):      sndcnt = min(ssthresh − pipe,
//!                                        max(prr_delivered − prr_out, DeliveredData)
//!                                        + 1 if the ACK advanced snd_una and marked no
//!                                            new loss)
//!     sndcnt = max(sndcnt, 1) while nothing has been sent in recovery yet
//!     cwnd = pipe + sndcnt
//! on every transmission in recovery:  prr_out += 1
//! at the end of recovery:  cwnd = ssthresh
//! ```
//!
//! Above ssthresh the flight falls in proportion to what is delivered, so that it
//! reaches ssthresh as recovery ends (one segment sent per two delivered for Reno's
//! halving) instead of RFC 6675's silence followed by a burst; below it (more losses
//! than the reduction), the slow-start reduction bound rebuilds the flight by at most
//! one segment more than is delivered. Choices, all Linux's:
//! * RecoverFS is the cwnd before the reduction (Linux `prior_cwnd`); RFC 6937 takes
//!   snd.nxt − snd.una, RFC 9937 the pipe. They are equal when the window was full.
//! * The reduction bound's extra segment is only given on an ACK that advances
//!   snd_una without revealing a new loss (RFC 9937's "safe ACK"; RFC 6937's SSRB
//!   always adds it). PRR-CRB is not offered.
//! * The first ACK of recovery always lets the fast retransmission go.
//! * pipe is `packets_in_flight` (RFC 6675 pipe; without SACK, duplicate ACKs count
//!   as delivered segments, Linux's `sacked_out` emulation).
//!
//! Counting is in segments (RFC 6937 counts bytes; with full-sized segments they
//! agree). Applies to the Reno, NewReno and SACK flavours (not Tahoe, which has no
//! fast recovery, nor controllers that own cwnd such as BBR), and to the CWR state
//! of an ECN echo, which Linux reduces the same way (`tcp_cong_control` runs
//! `tcp_cwnd_reduction` in CWR and Recovery alike); a loss found in CWR carries the
//! reduction on into fast recovery (`tcp_enter_recovery` does not start it again).
//!
//! In the sender: cwnd is set on every ACK in `Recovery` or `Cwr` (entry included) before
//! anything is sent; the SACK flavour then sends NextSeg while pipe < cwnd as
//! always; the window flavours first resend the first unacknowledged segment once
//! it is marked lost (on entry and on a NewReno partial ACK), if cwnd allows, then
//! new data while pipe < cwnd — no window inflation, no deflation.

use super::tcb::CaState;

/// PRR's per-episode counters (RFC 6937 §3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Prr {
    /// Segments delivered to the receiver since recovery began.
    pub delivered: u64,
    /// Segments sent (new or retransmitted) since recovery began.
    pub out: u64,
    /// The cwnd before the reduction (RecoverFS, Linux `prior_cwnd`).
    pub recover_fs: u32,
}

/// What one ACK in recovery tells PRR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct PrrAck {
    /// Segments it newly delivered (DeliveredData).
    pub delivered: u32,
    /// pipe after the scoreboard update.
    pub pipe: u32,
    /// It advanced snd_una and marked no new segment lost (RFC 9937 safe ACK).
    pub safe: bool,
}

impl Prr {
    /// A new recovery episode from a window of `prior_cwnd` segments.
    pub fn start(prior_cwnd: u32) -> Prr {
        Prr {
            delivered: 0,
            out: 0,
            recover_fs: prior_cwnd.max(1),
        }
    }

    /// The congestion window after this ACK: pipe + sndcnt (Linux
    /// `tcp_cwnd_reduction`). An ACK that delivers nothing leaves `cwnd` unchanged.
    pub fn on_ack(&mut self, ack: PrrAck, ssthresh: u32, cwnd: u32) -> u32 {
        if ack.delivered == 0 {
            return cwnd;
        }
        self.delivered += u64::from(ack.delivered);
        let (delivered, out) = (self.delivered as i64, self.out as i64);
        let sndcnt = if ack.pipe > ssthresh {
            let proportional =
                (self.delivered * u64::from(ssthresh)).div_ceil(u64::from(self.recover_fs));
            proportional as i64 - out
        } else {
            let bound = (delivered - out).max(i64::from(ack.delivered)) + i64::from(ack.safe);
            bound.min(i64::from(ssthresh - ack.pipe))
        };
        let sndcnt = sndcnt.max(i64::from(self.out == 0));
        (i64::from(ack.pipe) + sndcnt.max(0)) as u32
    }

    /// A segment left during recovery.
    pub fn on_sent(&mut self) {
        self.out += 1;
    }
}

/// The window reduction of a fast recovery or of an ECN echo's CWR, sized by PRR
/// when it runs for the flow (Linux `tcp_init_cwnd_reduction`,
/// `tcp_cwnd_reduction`): whether it does, and the counters of the reduction under
/// way.
#[derive(Clone, Copy, Debug)]
pub(super) struct CwndReduction {
    /// PRR runs for this flow (`tcp.prr`, and a controller that does not own cwnd).
    prr: bool,
    episode: Option<Prr>,
}

impl CwndReduction {
    pub fn new(prr: bool) -> Self {
        CwndReduction { prr, episode: None }
    }

    /// A reduction begins from a window of `prior_cwnd` segments; returns whether
    /// PRR sets cwnd through it.
    pub fn start(&mut self, prior_cwnd: u32) -> bool {
        self.episode = self.prr.then(|| Prr::start(prior_cwnd));
        self.prr
    }

    /// Whether PRR runs for the flow (a reduction in progress carries on with it).
    pub fn runs(&self) -> bool {
        self.prr
    }

    /// Whether PRR sets cwnd in `state` (in fast recovery or CWR, with PRR on).
    pub fn active(&self, state: CaState) -> bool {
        self.episode.is_some() && reducing(state)
    }

    /// The congestion window after `ack` (`Prr::on_ack`); `cwnd` unchanged without
    /// an episode.
    pub fn cwnd_after(&mut self, ack: PrrAck, ssthresh: u32, cwnd: u32) -> u32 {
        match &mut self.episode {
            Some(prr) => prr.on_ack(ack, ssthresh, cwnd),
            None => cwnd,
        }
    }

    /// A segment left in `state`: counted if it left during the reduction.
    pub fn on_sent(&mut self, state: CaState) {
        if reducing(state) {
            if let Some(prr) = &mut self.episode {
                prr.on_sent();
            }
        }
    }
}

/// The states whose window PRR reduces (Linux `tcp_in_cwnd_reduction`).
fn reducing(state: CaState) -> bool {
    matches!(state, CaState::Cwr | CaState::Recovery)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One ACK: PRR's cwnd, then what the sender transmits under it (pipe grows by
    /// each segment sent). Returns the segments sent.
    fn ack(prr: &mut Prr, delivered: u32, pipe: u32, safe: bool, ssthresh: u32) -> u32 {
        let a = PrrAck {
            delivered,
            pipe,
            safe,
        };
        let cwnd = prr.on_ack(a, ssthresh, 0);
        let sent = cwnd.saturating_sub(pipe);
        for _ in 0..sent {
            prr.on_sent();
        }
        sent
    }

    /// A run of duplicate ACKs, each delivering one segment: pipe before the first is
    /// `pipe`, and before each next one what the previous left minus the one
    /// delivered. Returns (segments sent, pipe after) per ACK.
    fn dupacks(prr: &mut Prr, mut pipe: u32, n: usize, ssthresh: u32) -> Vec<(u32, u32)> {
        let mut trace = Vec::new();
        for _ in 0..n {
            let sent = ack(prr, 1, pipe, false, ssthresh);
            trace.push((sent, pipe + sent));
            pipe = pipe + sent - 1;
        }
        trace
    }

    #[test]
    fn single_loss_sends_one_segment_per_two_delivered() {
        // RFC 6937 §5's first case: cwnd 20, segment 0 lost, ssthresh 10, limited
        // transmit on ACKs 1–2 (pipe stays 19), fast retransmit on ACK 3. At ACK 3
        // pipe = 19 − 1 delivered − 1 marked lost = 17; RecoverFS = 20. ACK k ≥ 3
        // has prr_delivered d = k − 2; while pipe > 10, sndcnt = ⌈d·10/20⌉ − prr_out:
        //   ACK 3: ⌈0.5⌉ − 0 = 1 (R) → pipe 18;  ACK 4: ⌈1⌉ − 1 = 0 → 17;
        //   ACK 5: ⌈1.5⌉ − 1 = 1 (N) → 17;       ACK 6: ⌈2⌉ − 2 = 0 → 16; …
        //   ACK 15: ⌈6.5⌉ − 6 = 1 → 12;          ACK 16: ⌈7⌉ − 7 = 0 → 11.
        // ACK 17: pipe 10, no longer above ssthresh: min(10 − 10, max(15 − 7, 1)) = 0
        // → 10; ACKs 18, 19: pipe 9, min(1, 9) = 1 → 10.
        // (RFC 6937 §5 draws this case; these values are computed from the rules
        // above with the lost segment out of pipe, not copied from its figure.)
        let mut prr = Prr::start(20);
        let trace = dupacks(&mut prr, 17, 17, 10);
        let pipes: Vec<u32> = trace.iter().map(|&(_, p)| p).collect();
        assert_eq!(
            pipes,
            [18, 17, 17, 16, 16, 15, 15, 14, 14, 13, 13, 12, 12, 11, 10, 10, 10]
        );
        let sent: Vec<u32> = trace.iter().map(|&(s, _)| s).collect();
        assert_eq!(sent, [1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1]);
        // 9 segments for 17 delivered: the flight ends at ssthresh.
        assert_eq!((prr.delivered, prr.out), (17, 9));
    }

    #[test]
    fn burst_loss_falls_to_ssthresh_then_holds_it_by_the_reduction_bound() {
        // 20 in flight, segments 0–3 lost, ssthresh 10, SACK: the third duplicate
        // (for segment 6) makes 0–3 IsLost (3 segments SACKed above them), so at
        // that ACK pipe = 20 − 3 SACKed − 4 lost = 13 > ssthresh: proportional part:
        //   ACK 6: ⌈1·10/20⌉ − 0 = 1 → 14;  ACK 7: ⌈1⌉ − 1 = 0 → 13;
        //   ACK 8: ⌈1.5⌉ − 1 = 1 → 13;      ACK 9: ⌈2⌉ − 2 = 0 → 12;
        //   ACK 10: ⌈2.5⌉ − 2 = 1 → 12;     ACK 11: ⌈3⌉ − 3 = 0 → 11.
        // ACK 12: pipe 10, not above ssthresh: limit = max(7 − 3, 1) = 4 (duplicate
        // ACKs are not safe: no +1), sndcnt = min(10 − 10, 4) = 0 → 10.
        // ACK 13: pipe 9: min(10 − 9, max(8 − 3, 1)) = 1 → 10; and so on: each ACK
        // replaces what it delivered, pipe holds at ssthresh through ACK 19.
        let mut prr = Prr::start(20);
        let trace = dupacks(&mut prr, 13, 14, 10);
        let sent: Vec<u32> = trace.iter().map(|&(s, _)| s).collect();
        assert_eq!(sent, [1, 0, 1, 0, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1]);
        let pipes: Vec<u32> = trace.iter().map(|&(_, p)| p).collect();
        assert_eq!(
            pipes,
            [14, 13, 13, 12, 12, 11, 10, 10, 10, 10, 10, 10, 10, 10]
        );
        assert_eq!((prr.delivered, prr.out), (14, 10));
    }

    #[test]
    fn reduction_bound_adds_one_on_a_safe_ack_only() {
        // pipe 5 < ssthresh 10, prr_delivered 2 → 4 with an ACK delivering 2,
        // prr_out 2: limit = max(4 − 2, 2) = 2, + 1 if safe.
        //   not safe: min(10 − 5, 2) = 2;  safe: min(5, 3) = 3.
        let base = Prr {
            delivered: 2,
            out: 2,
            recover_fs: 20,
        };
        let (mut crb, mut safe) = (base, base);
        assert_eq!(ack(&mut crb, 2, 5, false, 10), 2);
        assert_eq!(ack(&mut safe, 2, 5, true, 10), 3);
        // Capped by ssthresh − pipe: pipe 9 leaves room for 1 only.
        let mut capped = base;
        assert_eq!(ack(&mut capped, 2, 9, true, 10), 1);
    }

    #[test]
    fn proportional_part_rounds_up_and_subtracts_what_was_sent() {
        // CUBIC's β = 0.7: RecoverFS 100, ssthresh 70. After 10 segments delivered
        // and 6 sent, pipe 80 > 70: sndcnt = ⌈10·70/100⌉ − 6 = 7 − 6 = 1.
        let mut prr = Prr {
            delivered: 9,
            out: 6,
            recover_fs: 100,
        };
        assert_eq!(ack(&mut prr, 1, 80, false, 70), 1);
        // Next ACK: ⌈11·70/100⌉ = ⌈7.7⌉ = 8, − 7 = 1.
        assert_eq!(ack(&mut prr, 1, 80, false, 70), 1);
        // Next: ⌈12·70/100⌉ = ⌈8.4⌉ = 9, − 8 = 1; then ⌈9.1⌉ = 10 − 9 = 1;
        // then ⌈9.8⌉ = 10 − 10 = 0.
        assert_eq!(ack(&mut prr, 1, 80, false, 70), 1);
        assert_eq!(ack(&mut prr, 1, 80, false, 70), 1);
        assert_eq!(ack(&mut prr, 1, 80, false, 70), 0);
    }

    #[test]
    fn first_ack_of_recovery_always_releases_the_retransmission() {
        // RecoverFS 20, ssthresh 10: ⌈1·10/20⌉ = 1 anyway; with RecoverFS 100 and
        // ssthresh 2 (a tiny reduction) ⌈1·2/100⌉ = 1 too, but with pipe at
        // ssthresh, min(ssthresh − pipe = 0, …) = 0 is raised to 1 while prr_out = 0.
        let mut prr = Prr::start(100);
        assert_eq!(ack(&mut prr, 1, 2, false, 2), 1);
        // Once something was sent, no more forcing: 0.
        assert_eq!(ack(&mut prr, 1, 2, false, 2), 0);
    }

    #[test]
    fn an_ack_that_delivers_nothing_changes_nothing() {
        let mut prr = Prr::start(20);
        let a = PrrAck {
            delivered: 0,
            pipe: 19,
            safe: false,
        };
        assert_eq!(prr.on_ack(a, 10, 17), 17);
        assert_eq!(prr, Prr::start(20));
    }

    #[test]
    fn the_reduction_counts_only_while_prr_runs_in_fast_recovery() {
        // PRR off for the flow: no episode, cwnd left to the flavour (17 stays 17).
        let mut off = CwndReduction::new(false);
        assert!(!off.start(20));
        assert!(!off.active(CaState::Recovery));
        let ack = PrrAck {
            delivered: 1,
            pipe: 12,
            safe: false,
        };
        assert_eq!(off.cwnd_after(ack, 10, 17), 17);
        // On, from a window of 20 with ssthresh 10: active in Recovery only; a
        // segment sent in Disorder is not PRR's. First ACK: pipe 12 > 10,
        // ⌈1·10/20⌉ − 0 = 1 → cwnd 13; after one segment sent in Recovery, the
        // next: ⌈2·10/20⌉ − 1 = 0 → cwnd = pipe 12.
        let mut on = CwndReduction::new(true);
        assert!(on.start(20));
        assert!(on.active(CaState::Recovery) && !on.active(CaState::Loss));
        assert!(on.active(CaState::Cwr) && !on.active(CaState::Disorder));
        on.on_sent(CaState::Disorder);
        assert_eq!(on.cwnd_after(ack, 10, 17), 13);
        on.on_sent(CaState::Recovery);
        assert_eq!(on.cwnd_after(ack, 10, 13), 12);
    }
}
