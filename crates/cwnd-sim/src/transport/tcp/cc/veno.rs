//! TCP Veno: Fu & Liew, "TCP Veno: TCP Enhancement for Transmission Over Wireless
//! Access Networks", IEEE JSAC 21(2), 2003; structure after Linux
//! `net/ipv4/tcp_veno.c`.
//!
//! Veno uses Vegas's backlog estimate only to tell congestive from random loss:
//! ```text
//! N = (cwnd/BaseRTT − cwnd/RTT) · BaseRTT = cwnd · (RTT − BaseRTT) / RTT          (1)
//! congestion avoidance:  N < β → +1 segment per RTT (Reno);
//!                        N ≥ β → +1 segment every other RTT                       (2)
//! on loss:               N < β → random loss:     ssthresh = cwnd · 4/5
//!                        N ≥ β → congestive loss: ssthresh = cwnd · 1/2           (3)
//! ```
//! β = 3 packets (the paper's and Linux's), an integer. BaseRTT is the smallest RTT ever
//! seen; RTT is the smallest sample since the previous ACK (Linux). With two or fewer
//! samples so far Veno behaves as Reno. Slow start is Reno's.
//!
//! N is computed as Linux does, in half packets (`V_PARAM_SHIFT` 1):
//! `N½ = 2·cwnd − ⌊2·cwnd·BaseRTT/RTT⌋`, compared with 2β (RTTs in ns here, µs in
//! Linux). Veno is active only in the Open state (Linux).
//!
//! Validation: unit tests below (4/5 vs 1/2 on both sides of β with hand-computed N,
//! alternate-RTT growth when N ≥ β); end to end, more throughput than Reno under random
//! loss (tests/cc_loss_based.rs).

use serde::Deserialize;

use super::{seconds_or_nan, AckSample, CaEvent, CongestionControl, Reno};
use crate::time::SimTime;
use crate::transport::tcp::tcb::{CaState, Tcb};

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct VenoConfig {
    /// Backlog (packets) at or above which a loss is taken as congestive.
    pub beta: u32,
}

impl Default for VenoConfig {
    fn default() -> Self {
        VenoConfig { beta: 3 }
    }
}

#[derive(Clone, Debug)]
pub struct Veno {
    cfg: VenoConfig,
    base_rtt: SimTime,
    /// Smallest RTT since the previous ACK.
    min_rtt: SimTime,
    samples: u64,
    /// Latest backlog estimate N, in half packets.
    backlog: u64,
    /// In the saturated regime, whether this RTT may grow the window.
    inc: bool,
    enabled: bool,
}

impl Veno {
    pub fn new(cfg: VenoConfig) -> Self {
        Veno {
            cfg,
            base_rtt: SimTime::MAX,
            min_rtt: SimTime::MAX,
            samples: 0,
            backlog: 0,
            inc: true,
            enabled: true,
        }
    }
}

impl Veno {
    /// N ≥ β, in Linux's half packets.
    fn congestive(&self) -> bool {
        self.backlog >= u64::from(self.cfg.beta) << 1
    }
}

impl CongestionControl for Veno {
    fn name(&self) -> &'static str {
        "veno"
    }

    /// Eq. (3).
    fn ssthresh(&mut self, tcb: &Tcb, _now: SimTime) -> u32 {
        if !self.congestive() {
            (tcb.cwnd * 4 / 5).max(2)
        } else {
            (tcb.cwnd / 2).max(2)
        }
    }

    fn pkts_acked(&mut self, _tcb: &Tcb, _now: SimTime, sample: &AckSample) {
        if let Some(rtt) = sample.rtt {
            let rtt = rtt.max(SimTime(1));
            self.base_rtt = self.base_rtt.min(rtt);
            self.min_rtt = self.min_rtt.min(rtt);
            self.samples += 1;
        }
    }

    fn set_state(&mut self, _tcb: &Tcb, _now: SimTime, new: CaState) {
        self.enabled = new == CaState::Open;
    }

    fn cwnd_event(&mut self, _tcb: &mut Tcb, _now: SimTime, event: CaEvent) {
        if event == CaEvent::TxStart {
            self.enabled = true;
            self.inc = true;
        }
    }

    fn cong_avoid(&mut self, tcb: &mut Tcb, now: SimTime, acked: u32) {
        if !self.enabled || self.samples <= 2 || self.min_rtt == SimTime::MAX {
            Reno.cong_avoid(tcb, now, acked);
            self.min_rtt = SimTime::MAX;
            return;
        }
        if !tcb.cwnd_limited {
            return;
        }
        let (rtt, base) = (
            u128::from(self.min_rtt.as_nanos()),
            u128::from(self.base_rtt.as_nanos()),
        );
        let cwnd = u128::from(tcb.cwnd) << 1;
        self.backlog = (cwnd - cwnd * base / rtt) as u64;
        self.min_rtt = SimTime::MAX;
        let mut acked = acked;
        if tcb.in_slow_start() {
            acked = tcb.slow_start(acked);
            if acked == 0 {
                return;
            }
        }
        if !self.congestive() {
            let w = tcb.cwnd;
            tcb.cong_avoid_ai(w, acked);
        } else if tcb.cwnd_cnt >= tcb.cwnd {
            // Eq. (2), saturated: one segment every other window's worth of ACKs.
            if self.inc {
                tcb.cwnd = (tcb.cwnd + 1).min(tcb.cwnd_clamp);
                self.inc = false;
            } else {
                self.inc = true;
            }
            tcb.cwnd_cnt = 0;
        } else {
            tcb.cwnd_cnt += acked;
        }
        tcb.cwnd = tcb.cwnd.max(2);
    }

    /// BaseRTT, eq. (1)'s N from the latest congestion-avoidance ACK in packets
    /// (Linux's half packets / 2), and whether N ≥ β (1: a loss now counts as
    /// congestive, ssthresh = cwnd/2; 0: random, 4/5).
    fn info(&self, _tcb: &Tcb, out: &mut Vec<(&'static str, f64)>) {
        out.push(("base_rtt", seconds_or_nan(self.base_rtt)));
        out.push(("backlog", self.backlog as f64 / 2.0));
        out.push(("congestive", f64::from(u8::from(self.congestive()))));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    /// Veno in congestion avoidance with cwnd `w`, BaseRTT 100 ms, three samples.
    fn veno(w: u32) -> (Veno, Tcb) {
        let mut v = Veno::new(VenoConfig::default());
        let mut t = Tcb::new(1000, w);
        t.ssthresh = 2;
        for _ in 0..3 {
            ack(&mut v, &mut t, 100, false);
        }
        v.min_rtt = SimTime::MAX; // as if cong_avoid had run for those ACKs
        (v, t)
    }

    /// One ACK with an RTT sample of `rtt_ms`; with `grow`, also cong_avoid.
    fn ack(v: &mut Veno, t: &mut Tcb, rtt_ms: u64, grow: bool) {
        let s = AckSample {
            acked: 1,
            rtt: Some(SimTime(rtt_ms * MS)),
            in_flight: t.cwnd,
        };
        v.pkts_acked(t, SimTime::ZERO, &s);
        if grow {
            v.cong_avoid(t, SimTime::ZERO, 1);
        }
    }

    #[test]
    fn loss_with_small_backlog_is_random_and_cuts_to_four_fifths() {
        // cwnd 30, RTT 105 ms: N½ = 60 − ⌊60·100/105⌋ = 60 − 57 = 3 half packets
        // (N = 1.43) < 2β = 6 → ssthresh = 30·4/5 = 24.
        let (mut v, mut t) = veno(30);
        ack(&mut v, &mut t, 105, true);
        assert_eq!(v.backlog, 3);
        assert_eq!(v.ssthresh(&t, SimTime::ZERO), 24);
    }

    #[test]
    fn loss_with_large_backlog_is_congestive_and_halves() {
        // cwnd 30, RTT 125 ms: N = 30·25/125 = 6 ≥ 3 → ssthresh = 15.
        let (mut v, mut t) = veno(30);
        ack(&mut v, &mut t, 125, true);
        assert_eq!(v.ssthresh(&t, SimTime::ZERO), 15);
    }

    #[test]
    fn backlog_is_counted_in_half_packets_as_linux() {
        // cwnd 30, RTT 110 ms: N = 30·10/110 = 2.73 packets, but Linux's
        // N½ = 60 − ⌊6000/110⌋ = 60 − 54 = 6 = 2β: congestive → 15.
        let (mut v, mut t) = veno(30);
        ack(&mut v, &mut t, 110, true);
        assert_eq!(v.backlog, 6);
        assert_eq!(v.ssthresh(&t, SimTime::ZERO), 15);
    }

    #[test]
    fn saturated_window_grows_every_other_rtt() {
        // N = 30·25/125 = 6 ≥ 3: after each window of ACKs (30, then 31 …) the
        // window grows only every second time: 30 → 30 → 31 → 31 → 32.
        let (mut v, mut t) = veno(30);
        let mut windows = Vec::new();
        for _ in 0..4 {
            for _ in 0..=t.cwnd {
                ack(&mut v, &mut t, 125, true);
            }
            windows.push(t.cwnd);
        }
        assert_eq!(windows, vec![31, 31, 32, 32]);
    }

    #[test]
    fn unsaturated_window_grows_like_reno() {
        // N = 1.43 < 3: one segment per window of ACKs.
        let (mut v, mut t) = veno(30);
        for _ in 0..30 {
            ack(&mut v, &mut t, 105, true);
        }
        assert_eq!(t.cwnd, 31);
    }

    #[test]
    fn info_reports_the_backlog_in_packets() {
        // cwnd 30, BaseRTT 100 ms, RTT 120 ms: N½ = 60 − ⌊60·100/120⌋ = 60 − 50 = 10,
        // N = 5 packets ≥ β = 3: congestive.
        let (mut v, mut t) = veno(30);
        ack(&mut v, &mut t, 120, true);
        let mut out = Vec::new();
        v.info(&t, &mut out);
        assert_eq!(
            out,
            vec![("base_rtt", 0.1), ("backlog", 5.0), ("congestive", 1.0)]
        );
    }
}
