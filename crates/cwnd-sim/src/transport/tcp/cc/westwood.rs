//! TCP Westwood and Westwood+: Reno's probing with an adaptive decrease set from an
//! end-to-end bandwidth estimate (BWE).
//!
//! Sources: Mascolo, Casetti, Gerla, Sanadidi & Wang, "TCP Westwood: Bandwidth
//! Estimation for Enhanced Transport over Wireless Links", MobiCom 2001 (Westwood);
//! Grieco & Mascolo, "Performance evaluation and comparison of Westwood+, New Reno,
//! and Vegas TCP congestion control", CCR 2004 (Westwood+); Linux
//! `net/ipv4/tcp_westwood.c` (Westwood+); ns-3 `tcp-westwood.cc` (Westwood).
//!
//! ```text
//! acked bytes d_k counted on every ACK; a duplicate ACK counts one segment, and a
//! cumulative ACK after duplicates counts only what they did not (Linux
//! westwood_acked_count)                                                       (1)
//! Westwood+ : once per max(RTT, 50 ms):  b = Σd / Δt,
//!             BWE_ns = (7·BWE_ns + b)/8,  BWE = (7·BWE + BWE_ns)/8             (2)
//! Westwood  : on every ACK:  b_k = d_k / (t_k − t_{k−1}),
//!             BWE_k = 0.9·BWE_{k−1} + 0.1·(b_k + b_{k−1})/2                    (3)
//! after 3 duplicate ACKs and after a timeout:
//!             ssthresh = max(BWE · RTTmin / MSS, 2)                            (4)
//! (then the sender sets cwnd = ssthresh at the end of recovery, or 1 after a timeout)
//! ```
//! Between losses the window grows as Reno's.
//!
//! Deviations: the original Westwood's Tustin filter has a time-varying gain
//! α_k = (2τ − Δt_k)/(2τ + Δt_k) and virtual null samples; cwnd follows ns-3's
//! implementation with the constant gain 0.9 of eq. (3), since the per-ACK sampling
//! that Westwood+ corrects is what matters for comparisons. Linux sets ssthresh to
//! Reno's on entering recovery and to (4) only when recovery completes; cwnd applies
//! (4) at entry, as the papers' pseudocode does — the window at the end of recovery
//! is the same. RTTmin restarts from the next sample after a timeout (Linux).
//!
//! Validation: unit tests below (filters and eq. (4) on known ACK streams, duplicate
//! accounting); end to end, more throughput than Reno under random loss
//! (tests/cc_loss_based.rs).

use super::{reno_ssthresh, AckEvent, AckSample, CaEvent, CongestionControl, Reno};
use crate::time::SimTime;
use crate::transport::tcp::tcb::Tcb;

/// Linux `TCP_WESTWOOD_RTT_MIN`: the shortest Westwood+ sampling interval.
const RTT_WINDOW_MIN: SimTime = SimTime::from_millis(50);
/// ns-3's Tustin filter gain for per-ACK samples.
const PER_ACK_GAIN: f64 = 0.9;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sampling {
    /// Westwood (2001): a sample on every ACK.
    PerAck,
    /// Westwood+ (2004): one sample per RTT.
    PerRtt,
}

#[derive(Clone, Debug)]
pub struct Westwood {
    sampling: Sampling,
    /// Bandwidth estimate in bytes per second (0 before the first sample).
    bwe: f64,
    /// Westwood+: the filter's first stage; Westwood: the previous raw sample.
    bwe_stage: f64,
    /// Bytes acknowledged in the current sampling interval.
    bk: u64,
    /// Bytes credited to duplicate ACKs and not yet matched by a cumulative ACK.
    accounted: u64,
    interval_start: Option<SimTime>,
    last_rtt: Option<SimTime>,
    rtt_min: SimTime,
    reset_rtt_min: bool,
}

impl Westwood {
    pub fn new(sampling: Sampling) -> Self {
        Westwood {
            sampling,
            bwe: 0.0,
            bwe_stage: 0.0,
            bk: 0,
            accounted: 0,
            interval_start: None,
            last_rtt: None,
            rtt_min: SimTime::MAX,
            reset_rtt_min: false,
        }
    }

    /// Bandwidth estimate in bytes per second.
    pub fn bandwidth_estimate(&self) -> f64 {
        self.bwe
    }

    /// Eq. (1): bytes this ACK accounts for.
    fn acked_count(&mut self, ack: &AckEvent, mss: u64) -> u64 {
        if ack.duplicate {
            self.accounted += mss;
            return mss;
        }
        let cumul = ack.acked_bytes;
        if cumul <= mss {
            return cumul;
        }
        if self.accounted >= cumul {
            self.accounted -= cumul;
            mss
        } else {
            let rest = cumul - self.accounted;
            self.accounted = 0;
            rest
        }
    }

    fn sample(&mut self, now: SimTime, bytes: u64) {
        let Some(start) = self.interval_start else {
            self.interval_start = Some(now);
            return;
        };
        self.bk += bytes;
        let dt = now - start;
        match self.sampling {
            Sampling::PerRtt => {
                let Some(rtt) = self.last_rtt else { return };
                if dt <= rtt.max(RTT_WINDOW_MIN) {
                    return;
                }
                let b = self.bk as f64 / dt.as_secs_f64();
                if self.bwe == 0.0 && self.bwe_stage == 0.0 {
                    self.bwe_stage = b;
                    self.bwe = b;
                } else {
                    self.bwe_stage = (7.0 * self.bwe_stage + b) / 8.0;
                    self.bwe = (7.0 * self.bwe + self.bwe_stage) / 8.0;
                }
            }
            Sampling::PerAck => {
                if dt == SimTime::ZERO {
                    return; // same instant: accumulate into the next sample
                }
                let b = self.bk as f64 / dt.as_secs_f64();
                self.bwe =
                    PER_ACK_GAIN * self.bwe + (1.0 - PER_ACK_GAIN) * (b + self.bwe_stage) / 2.0;
                self.bwe_stage = b;
            }
        }
        self.bk = 0;
        self.interval_start = Some(now);
    }

    /// Eq. (4) in segments; Reno's halving until an estimate exists.
    fn bw_rtt_min(&self, tcb: &Tcb) -> u32 {
        if self.bwe <= 0.0 || self.rtt_min == SimTime::MAX {
            return reno_ssthresh(tcb);
        }
        let segments = self.bwe * self.rtt_min.as_secs_f64() / tcb.mss as f64;
        (segments as u32).max(2)
    }
}

impl CongestionControl for Westwood {
    fn name(&self) -> &'static str {
        match self.sampling {
            Sampling::PerAck => "westwood",
            Sampling::PerRtt => "westwood_plus",
        }
    }

    fn ssthresh(&mut self, tcb: &Tcb, _now: SimTime) -> u32 {
        self.bw_rtt_min(tcb)
    }

    fn cong_avoid(&mut self, tcb: &mut Tcb, now: SimTime, acked: u32) {
        Reno.cong_avoid(tcb, now, acked);
    }

    fn pkts_acked(&mut self, _tcb: &Tcb, _now: SimTime, sample: &AckSample) {
        if let Some(rtt) = sample.rtt {
            self.last_rtt = Some(rtt);
            if self.reset_rtt_min {
                self.rtt_min = rtt;
                self.reset_rtt_min = false;
            } else {
                self.rtt_min = self.rtt_min.min(rtt);
            }
        }
    }

    fn in_ack_event(&mut self, tcb: &Tcb, now: SimTime, ack: &AckEvent) {
        let bytes = self.acked_count(ack, tcb.mss as u64);
        self.sample(now, bytes);
    }

    fn cwnd_event(&mut self, _tcb: &mut Tcb, _now: SimTime, event: CaEvent) {
        if event == CaEvent::Loss {
            self.reset_rtt_min = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(bytes: u64) -> AckEvent {
        AckEvent {
            acked_bytes: bytes,
            duplicate: bytes == 0,
        }
    }

    fn rtt_sample(w: &mut Westwood, tcb: &Tcb, ms: u64) {
        let s = AckSample {
            acked: 1,
            rtt: Some(SimTime::from_millis(ms)),
            in_flight: 10,
        };
        w.pkts_acked(tcb, SimTime::ZERO, &s);
    }

    #[test]
    fn westwood_plus_ssthresh_is_bwe_times_rtt_min() {
        // An ACK of 1000 B every 10 ms = 100 000 B/s; RTT 100 ms, so the sampling
        // interval is 100 ms. The first sample sets BWE = 100 kB/s exactly; with a
        // steady stream the filters stay there. ssthresh = 1e5 · 0.1 / 1000 = 10.
        let tcb = Tcb::new(1000, 10);
        let mut w = Westwood::new(Sampling::PerRtt);
        rtt_sample(&mut w, &tcb, 100);
        for k in 0..=50u64 {
            w.in_ack_event(&tcb, SimTime::from_millis(10 * k), &ack(1000));
        }
        assert!(
            (w.bandwidth_estimate() - 1e5).abs() < 1e-6,
            "{}",
            w.bandwidth_estimate()
        );
        assert_eq!(w.ssthresh(&tcb, SimTime::ZERO), 10);
    }

    #[test]
    fn westwood_plus_filter_moves_an_eighth_then_an_eighth() {
        // After a first sample of 100 kB/s, a sample of 200 kB/s gives
        // BWE_ns = (7·100 + 200)/8 = 112.5, BWE = (7·100 + 112.5)/8 = 101.5625 kB/s.
        let tcb = Tcb::new(1000, 10);
        let mut w = Westwood::new(Sampling::PerRtt);
        rtt_sample(&mut w, &tcb, 100);
        w.in_ack_event(&tcb, SimTime::ZERO, &ack(0)); // opens the interval
        w.accounted = 0;
        w.in_ack_event(&tcb, SimTime::from_millis(101), &ack(10_100));
        assert!((w.bandwidth_estimate() - 1e5).abs() < 1e-6);
        w.in_ack_event(&tcb, SimTime::from_millis(202), &ack(20_200));
        assert!(
            (w.bandwidth_estimate() - 101_562.5).abs() < 1e-6,
            "{}",
            w.bandwidth_estimate()
        );
    }

    #[test]
    fn westwood_per_ack_tustin_filter() {
        // Samples: 1000 B after 10 ms = 100 kB/s, twice. BWE_1 = 0.1·(1e5 + 0)/2
        // = 5000; BWE_2 = 0.9·5000 + 0.1·(1e5 + 1e5)/2 = 14 500 B/s.
        let tcb = Tcb::new(1000, 10);
        let mut w = Westwood::new(Sampling::PerAck);
        w.in_ack_event(&tcb, SimTime::ZERO, &ack(1000));
        w.in_ack_event(&tcb, SimTime::from_millis(10), &ack(1000));
        assert!((w.bandwidth_estimate() - 5000.0).abs() < 1e-6);
        w.in_ack_event(&tcb, SimTime::from_millis(20), &ack(1000));
        assert!((w.bandwidth_estimate() - 14_500.0).abs() < 1e-6);
    }

    #[test]
    fn duplicate_acks_count_a_segment_and_are_not_counted_twice() {
        // Three duplicates count 3·1000; the cumulative ACK of 5000 B that follows
        // counts only the 2000 B they did not.
        let mut w = Westwood::new(Sampling::PerRtt);
        let counts: Vec<u64> = [0, 0, 0, 5000]
            .iter()
            .map(|&b| w.acked_count(&ack(b), 1000))
            .collect();
        assert_eq!(counts, vec![1000, 1000, 1000, 2000]);
        assert_eq!(w.accounted, 0);
    }

    #[test]
    fn without_an_estimate_loss_halves_like_reno() {
        let mut tcb = Tcb::new(1000, 40);
        tcb.snd_nxt = 40_000;
        let mut w = Westwood::new(Sampling::PerRtt);
        assert_eq!(w.ssthresh(&tcb, SimTime::ZERO), 20);
    }

    #[test]
    fn a_timeout_restarts_rtt_min() {
        let mut tcb = Tcb::new(1000, 10);
        let mut w = Westwood::new(Sampling::PerRtt);
        rtt_sample(&mut w, &tcb, 50);
        w.cwnd_event(&mut tcb, SimTime::ZERO, CaEvent::Loss);
        rtt_sample(&mut w, &tcb, 80);
        rtt_sample(&mut w, &tcb, 90);
        assert_eq!(w.rtt_min, SimTime::from_millis(80));
    }
}
