//! TCP Hybla: Caini & Firrincieli, "TCP Hybla: a TCP enhancement for heterogeneous
//! networks", Int. J. Satellite Communications and Networking 22(5), 2004; Linux
//! `net/ipv4/tcp_hybla.c`.
//!
//! Hybla makes the window growth of a long-RTT flow match that of a reference flow
//! with RTT0, by normalising with ρ = RTT/RTT0:
//! ```text
//! ρ = max(RTT / RTT0, 1),  RTT0 = 25 ms                                          (1)
//! per ACK, slow start:            cwnd += 2^ρ − 1                               (2)
//! per ACK, congestion avoidance:  cwnd += ρ² / cwnd                              (3)
//! on loss: as Reno
//! ```
//! RTT is the smallest smoothed RTT seen (Linux recomputes ρ when SRTT falls below its
//! minimum). Fractions of a segment accumulate until they make a whole one (Linux
//! keeps 1/128ths; cwnd keeps a real fraction).
//!
//! Validation: unit tests below (per-ACK increments for ρ = 2, clamping for short RTTs).

use serde::Deserialize;

use super::{reno_ssthresh, CongestionControl, Reno};
use crate::time::SimTime;
use crate::transport::tcp::tcb::Tcb;
use crate::units::Duration;

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HyblaConfig {
    /// The reference RTT0.
    pub rtt0: Duration,
}

impl Default for HyblaConfig {
    fn default() -> Self {
        HyblaConfig {
            rtt0: Duration(SimTime::from_millis(25)),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Hybla {
    rtt0: SimTime,
    /// Smallest SRTT seen.
    min_srtt: SimTime,
    /// Fraction of a segment accumulated.
    fraction: f64,
}

impl Hybla {
    pub fn new(cfg: HyblaConfig) -> Self {
        Hybla {
            rtt0: cfg.rtt0.0.max(SimTime(1)),
            min_srtt: SimTime::MAX,
            fraction: 0.0,
        }
    }

    /// Eq. (1).
    fn rho(&self) -> f64 {
        if self.min_srtt == SimTime::MAX {
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

    fn cong_avoid(&mut self, tcb: &mut Tcb, now: SimTime, acked: u32) {
        if let Some(srtt) = tcb.srtt {
            self.min_srtt = self.min_srtt.min(srtt);
        }
        let rho = self.rho();
        if rho <= 1.0 {
            Reno.cong_avoid(tcb, now, acked);
            return;
        }
        if !tcb.cwnd_limited {
            return;
        }
        let slow_start = tcb.in_slow_start();
        let per_ack = if slow_start {
            rho.min(16.0).exp2() - 1.0 // eq. (2)
        } else {
            rho * rho / tcb.cwnd as f64 // eq. (3)
        };
        self.fraction += per_ack * acked as f64;
        let whole = self.fraction.floor();
        self.fraction -= whole;
        tcb.cwnd = (tcb.cwnd as f64 + whole).min(tcb.cwnd_clamp as f64) as u32;
        if slow_start && tcb.cwnd > tcb.ssthresh {
            tcb.cwnd = tcb.ssthresh; // Linux clamps slow start at ssthresh
        }
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

    #[test]
    fn rho_two_slow_start_adds_three_per_ack() {
        // RTT 50 ms: ρ = 2; slow start adds 2² − 1 = 3 segments per ACK.
        let (mut h, mut t) = hybla_at(50, 10, 1000);
        h.cong_avoid(&mut t, SimTime::ZERO, 1);
        assert_eq!(t.cwnd, 13);
        h.cong_avoid(&mut t, SimTime::ZERO, 1);
        assert_eq!(t.cwnd, 16);
    }

    #[test]
    fn rho_two_congestion_avoidance_adds_rho_squared_per_window() {
        // ρ² / cwnd = 4/32 = 0.125 per ACK: 8 ACKs add exactly one segment, i.e.
        // ρ² = 4 segments per window of ACKs (Reno: 1).
        let (mut h, mut t) = hybla_at(50, 32, 2);
        for _ in 0..7 {
            h.cong_avoid(&mut t, SimTime::ZERO, 1);
        }
        assert_eq!(t.cwnd, 32);
        h.cong_avoid(&mut t, SimTime::ZERO, 1);
        assert_eq!(t.cwnd, 33);
        assert_eq!(h.fraction, 0.0);
    }

    #[test]
    fn short_rtt_clamps_rho_to_one_and_is_reno() {
        // RTT 10 ms < RTT0: ρ = 1, Reno (one segment per window).
        let (mut h, mut t) = hybla_at(10, 20, 2);
        for _ in 0..20 {
            h.cong_avoid(&mut t, SimTime::ZERO, 1);
        }
        assert_eq!(t.cwnd, 21);
    }
}
