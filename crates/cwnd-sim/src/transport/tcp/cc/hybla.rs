//! TCP Hybla: Caini & Firrincieli, "TCP Hybla: a TCP enhancement for heterogeneous
//! networks", Int. J. Satellite Communications and Networking 22(5), 2004; Linux
//! `net/ipv4/tcp_hybla.c`.
//!
//! Hybla makes a long-RTT flow's window grow, per unit of time, as that of a reference
//! flow with round-trip time RTT0, by normalising with ρ:
//! ```text
//! ρ = max(RTT / RTT0, 1)                                                          (1)
//! per ACK, slow start (cwnd < ssthresh):  cwnd += 2^ρ − 1                         (2)
//! per ACK, congestion avoidance:          cwnd += ρ² / cwnd                        (3)
//! on loss: as Reno (ssthresh = FlightSize/2)
//! ```
//! RTT0 = 25 ms (the paper's and Linux's `rtt0`). RTT is the smallest smoothed RTT seen
//! so far (Linux recomputes ρ whenever SRTT falls below its previous minimum); before
//! the first RTT sample ρ = 1.
//!
//! Counting: an ACK that covers n segments counts as n ACKs in (3) and as
//! min(n, L) in (2), L being the sender's slow-start limit per ACK (RFC 3465), so
//! that with ρ = 1 Hybla is exactly this simulator's Reno. Increments are kept in
//! fixed point: 1/1024 of a segment in slow start, and in congestion avoidance
//! credits of ρ²·1024 per segment acknowledged, one segment per cwnd·1024 credits
//! (in `Tcb::cwnd_cnt`, which the sender clears on a loss). As in Linux, slow start
//! stops at ssthresh, 2^ρ is computed for ρ ≤ 16 at most, and Hybla is active only
//! in the `Open` state: in `Disorder` and after a timeout (`Loss`) it grows as Reno.
//!
//! Deviations from Linux: Linux applies (2)/(3) once per ACK whatever it covers, keeps
//! ρ to 1/8 and 2^fraction from an 8-entry table, and counts in 1/128 of a segment;
//! here ρ is exact and increments are 1/1024. Linux also starts with cwnd = ρ from the
//! handshake's RTT and clamps cwnd at 65 535; here the initial window is the scenario's
//! (with `tcp.handshake` the SYN's RTT sample enters SRTT, and so ρ, from the first
//! ACK of data on, as in Linux), and there is no clamp. ns-3's `TcpHybla` never leaves
//! ρ = 1 when the handshake's SRTT is the smallest (docs/validation.md). The paper's further
//! proposals (pacing, SACK, bandwidth-estimated ssthresh) are not part of it.
//!
//! Validation: unit tests below (per-ACK increments for ρ = 2 and ρ = 1.5 in both
//! phases, ρ clamped to 1 below RTT0, Reno outside `Open`, undo); end to end, fills a
//! clean path (tests/cc_loss_based.rs).

use serde::Deserialize;

use super::{reno_ssthresh, CongestionControl};
use crate::time::SimTime;
use crate::transport::tcp::tcb::{CaState, Tcb};
use crate::units::Duration;

/// Fixed-point scale of the increments: 1/1024 of a segment.
const SCALE: u64 = 1024;
/// Largest ρ used in 2^ρ (Linux `min(ca->rho, 16U)`).
const RHO_MAX_SLOW_START: f64 = 16.0;

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HyblaConfig {
    /// RTT0 of eq. (1). Default 25 ms (the paper and Linux).
    pub rtt0: Duration,
}

impl Default for HyblaConfig {
    fn default() -> Self {
        HyblaConfig {
            rtt0: Duration(SimTime::from_millis(25)),
        }
    }
}

impl HyblaConfig {
    pub fn check(&self) -> Result<(), (String, String)> {
        if self.rtt0.0 == SimTime::ZERO {
            return Err(("rtt0".into(), "must be positive".into()));
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct Hybla {
    rtt0: SimTime,
    /// Smallest SRTT seen (SimTime::MAX before the first).
    min_srtt: SimTime,
    /// Slow-start fraction of a segment, in 1/SCALE.
    slow_start_frac: u64,
    /// Hybla applies only in the Open state (Linux `hybla_en`).
    enabled: bool,
}

impl Hybla {
    pub fn new(cfg: HyblaConfig) -> Self {
        Hybla {
            rtt0: cfg.rtt0.0,
            min_srtt: SimTime::MAX,
            slow_start_frac: 0,
            enabled: true,
        }
    }

    /// Eq. (1); 1 when Hybla is off or no RTT is known yet.
    fn rho(&self) -> f64 {
        if !self.enabled || self.min_srtt == SimTime::MAX {
            return 1.0;
        }
        (self.min_srtt.as_secs_f64() / self.rtt0.as_secs_f64()).max(1.0)
    }
}

impl CongestionControl for Hybla {
    fn name(&self) -> &'static str {
        "hybla"
    }

    fn ssthresh(&mut self, tcb: &Tcb, _now: SimTime) -> u32 {
        reno_ssthresh(tcb)
    }

    fn set_state(&mut self, _tcb: &Tcb, _now: SimTime, new: CaState) {
        self.enabled = new == CaState::Open;
    }

    fn cong_avoid(&mut self, tcb: &mut Tcb, _now: SimTime, acked: u32) {
        if let Some(srtt) = tcb.srtt {
            self.min_srtt = self.min_srtt.min(srtt);
        }
        if !tcb.cwnd_limited {
            return;
        }
        let rho = self.rho();
        if tcb.in_slow_start() {
            // Eq. (2), once per ACK (at most L segments' worth).
            let per_ack = (rho.min(RHO_MAX_SLOW_START).exp2() - 1.0) * SCALE as f64;
            let acks = acked.min(tcb.abc_limit) as u64;
            let total = self.slow_start_frac + per_ack.round() as u64 * acks;
            self.slow_start_frac = total % SCALE;
            let cwnd = (tcb.cwnd as u64 + total / SCALE).min(tcb.ssthresh as u64);
            tcb.cwnd = cwnd.min(tcb.cwnd_clamp as u64) as u32;
        } else {
            // Eq. (3): ρ²/cwnd per segment, i.e. one segment per cwnd/ρ² acknowledged.
            let per_segment = (rho * rho * SCALE as f64).round() as u64;
            let mut credits = tcb.cwnd_cnt as u64 + per_segment * acked as u64;
            let mut cwnd = tcb.cwnd as u64;
            while credits >= cwnd * SCALE {
                credits -= cwnd * SCALE;
                cwnd += 1;
            }
            tcb.cwnd = cwnd.min(tcb.cwnd_clamp as u64) as u32;
            tcb.cwnd_cnt = u32::try_from(credits).unwrap_or(u32::MAX);
        }
    }

    /// ρ = RTT / RTT0 (eq. 1), the factor slow start and congestion avoidance
    /// scale by (1 while Hybla is off or before an RTT is known).
    fn info(&self, _tcb: &Tcb, out: &mut Vec<(&'static str, f64)>) {
        out.push(("rho", self.rho()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hybla_at(srtt_ms: u64, cwnd: u32, ssthresh: u32) -> (Hybla, Tcb) {
        let mut t = Tcb::new(1000, cwnd);
        t.ssthresh = ssthresh;
        t.srtt = Some(SimTime::from_millis(srtt_ms));
        (Hybla::new(HyblaConfig::default()), t)
    }

    fn acks(h: &mut Hybla, t: &mut Tcb, n: u32) {
        for _ in 0..n {
            h.cong_avoid(t, SimTime::ZERO, 1);
        }
    }

    #[test]
    fn rho_two_slow_start_adds_three_per_ack() {
        // RTT 50 ms, RTT0 25 ms: ρ = 2; slow start adds 2² − 1 = 3 segments per ACK,
        // so one window of 10 ACKs takes cwnd from 10 to 40 (Reno: 20).
        let (mut h, mut t) = hybla_at(50, 10, 1000);
        acks(&mut h, &mut t, 1);
        assert_eq!(t.cwnd, 13);
        acks(&mut h, &mut t, 9);
        assert_eq!(t.cwnd, 40);
    }

    #[test]
    fn rho_two_congestion_avoidance_adds_rho_squared_per_window() {
        // ρ²/cwnd = 4/32 = 0.125 per ACK: 8 ACKs add exactly one segment, i.e.
        // ρ² = 4 segments per window of ACKs (Reno: 1).
        let (mut h, mut t) = hybla_at(50, 32, 2);
        acks(&mut h, &mut t, 7);
        assert_eq!(t.cwnd, 32);
        acks(&mut h, &mut t, 1);
        assert_eq!((t.cwnd, t.cwnd_cnt), (33, 0));
        // A cumulative ACK of 33 segments brings 33·4096 = 135 168 credits; they pay
        // for the 34th, 35th and 36th segments ((33 + 34 + 35)·1024 = 104 448) and
        // 30 720 are left (the 37th costs 36·1024 = 36 864).
        h.cong_avoid(&mut t, SimTime::ZERO, 33);
        assert_eq!((t.cwnd, t.cwnd_cnt), (36, 30_720));
    }

    #[test]
    fn fractional_rho_in_both_phases() {
        // RTT 37.5 ms: ρ = 1.5. Slow start: 2^1.5 − 1 = 1.828 427 per ACK, in
        // 1/1024: round(1872.31) = 1872; 10 ACKs = 18 720/1024 = 18.28 → +18.
        let (mut h, mut t) = hybla_at(0, 10, 1000);
        t.srtt = Some(SimTime::from_micros(37_500));
        acks(&mut h, &mut t, 10);
        assert_eq!(t.cwnd, 28);
        // Congestion avoidance at cwnd 45: ρ² = 2.25 → 2304 credits per ACK; one
        // segment per 45·1024 = 46 080 credits = 20 ACKs (Reno: 45).
        t.ssthresh = 2;
        t.cwnd = 45;
        acks(&mut h, &mut t, 19);
        assert_eq!(t.cwnd, 45);
        acks(&mut h, &mut t, 1);
        assert_eq!(t.cwnd, 46);
    }

    #[test]
    fn slow_start_stops_at_ssthresh() {
        let (mut h, mut t) = hybla_at(50, 10, 12);
        acks(&mut h, &mut t, 1);
        assert_eq!(t.cwnd, 12);
    }

    #[test]
    fn short_rtt_clamps_rho_to_one_and_is_reno() {
        // RTT 10 ms < RTT0: ρ = 1: one segment per ACK in slow start, one per window
        // of ACKs in congestion avoidance.
        let (mut h, mut t) = hybla_at(10, 10, 15);
        acks(&mut h, &mut t, 5);
        assert_eq!(t.cwnd, 15);
        acks(&mut h, &mut t, 14);
        assert_eq!(t.cwnd, 15);
        acks(&mut h, &mut t, 1);
        assert_eq!(t.cwnd, 16);
    }

    #[test]
    fn rho_comes_from_the_smallest_srtt_seen() {
        // SRTT 100 ms then 50 ms then 80 ms: ρ = 50/25 = 2 stays.
        let (mut h, mut t) = hybla_at(100, 10, 1000);
        acks(&mut h, &mut t, 1);
        t.srtt = Some(SimTime::from_millis(50));
        acks(&mut h, &mut t, 1);
        t.srtt = Some(SimTime::from_millis(80));
        acks(&mut h, &mut t, 1);
        assert_eq!(h.rho(), 2.0);
    }

    #[test]
    fn outside_open_it_grows_as_reno() {
        // After a timeout (state Loss) slow start adds 1 per ACK even with ρ = 2;
        // back in Open, 3 per ACK again.
        let (mut h, mut t) = hybla_at(50, 1, 100);
        h.set_state(&t, SimTime::ZERO, CaState::Loss);
        acks(&mut h, &mut t, 4);
        assert_eq!(t.cwnd, 5);
        h.set_state(&t, SimTime::ZERO, CaState::Open);
        acks(&mut h, &mut t, 1);
        assert_eq!(t.cwnd, 8);
    }

    #[test]
    fn loss_halves_and_undo_restores_the_window() {
        // Reno's ssthresh (FlightSize 40 → 20); undo gives back the 40 from before.
        let (mut h, mut t) = hybla_at(50, 40, 1000);
        t.snd_nxt = 40_000;
        t.prior_cwnd = t.cwnd;
        t.ssthresh = h.ssthresh(&t, SimTime::ZERO);
        t.cwnd = 1;
        assert_eq!(t.ssthresh, 20);
        assert_eq!(h.undo_cwnd(&t), 40);
    }

    #[test]
    fn info_reports_rho() {
        // RTT 250 ms against RTT0 25 ms: ρ = 10; 1 before any RTT is known.
        let mut h = Hybla::new(HyblaConfig::default());
        let t = Tcb::new(1000, 10);
        let mut out = Vec::new();
        h.info(&t, &mut out);
        h.min_srtt = SimTime::from_millis(250);
        h.info(&t, &mut out);
        assert_eq!(out, vec![("rho", 1.0), ("rho", 10.0)]);
    }
}
