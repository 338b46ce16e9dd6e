//! TCP Westwood and Westwood+: Reno's probing, with the decrease after a loss set
//! from an end-to-end bandwidth estimate (BWE) instead of halving.
//!
//! Sources: Mascolo, Casetti, Gerla, Sanadidi & Wang, "TCP Westwood: Bandwidth
//! Estimation for Enhanced Transport over Wireless Links", MobiCom 2001 (Westwood,
//! `cc = "westwood"`); Grieco & Mascolo, "Performance evaluation and comparison of
//! Westwood+, New Reno, and Vegas TCP congestion control", CCR 34(2), 2004
//! (Westwood+, `cc = "westwood_plus"`); Linux `net/ipv4/tcp_westwood.c` (Westwood+);
//! the authors' ns-2 module `tcp-westwood.cc` (Westwood's filter constants).
//!
//! ```text
//! d_k, the bytes ACK k reports: a duplicate ACK counts one segment; a cumulative
//!      ACK after duplicates counts only what they have not already counted      (1)
//! Westwood (per ACK, Tustin discretisation of a low-pass filter with cut-off 1/τ):
//!      b_k = d_k / Δ_k,   Δ_k = t_k − t_{k−1}                                     (2)
//!      BWE_k = (2τ − Δ_k)/(2τ + Δ_k) · BWE_{k−1} + Δ_k/(2τ + Δ_k) · (b_k + b_{k−1})   (3)
//!      when τ/m passes without an ACK, a virtual sample b = 0 enters (3)          (4)
//! Westwood+ (once per RTT, at the first ACK more than max(RTT, 50 ms) after the
//!      last sample):  b = Σd / Δ,  BWE_ns = (7·BWE_ns + b)/8,  BWE = (7·BWE + BWE_ns)/8   (5)
//! after three duplicate ACKs:  ssthresh = max(BWE · RTTmin / MSS, 2);
//!                              if cwnd > ssthresh: cwnd = ssthresh                (6)
//! after a timeout:             ssthresh = max(BWE · RTTmin / MSS, 2);  cwnd = 1    (7)
//! ```
//! RTTmin is the smallest RTT sample (for Westwood+ with `rtt = "srtt"`, the smallest
//! smoothed RTT, as Linux 2.6.20 kept it). Between losses the window grows as Reno's.
//!
//! Defaults: τ = 1 s and m = 2, the `tau_` and the τ/2 null-sample spacing of the
//! authors' ns-2 module (m ≥ 2 is the paper's Nyquist condition); Westwood+'s 50 ms
//! floor on the sampling interval is Linux's `TCP_WESTWOOD_RTT_MIN`.
//!
//! How it maps onto the sender: `ssthresh` returns (6)/(7); fast recovery inflates
//! from min(ssthresh, cwnd before the loss) (recovery.rs), so it never sends more than
//! before the loss; the sender sets cwnd to ssthresh at the end of fast recovery, and
//! the `CompleteRecovery` event puts back the window from before the loss when that
//! was smaller (the "if" of (6)). After a
//! timeout the sender sets cwnd = 1 and the `Loss` event sets ssthresh by (7) again on
//! every expiry (as Linux's `CA_EVENT_LOSS` does; the sender asks `ssthresh` only on
//! the first). The virtual samples of (4) are never scheduled: each ACK, and a loss,
//! first feeds the filter the null samples due since the last ACK.
//!
//! Deviations:
//! * Linux's Westwood+ takes Reno's ssthresh on entering recovery (so PRR brings the
//!   window toward half of it during recovery) and applies (6) only when recovery
//!   completes (`CA_EVENT_COMPLETE_CWR`), and then sets cwnd = ssthresh even when that
//!   is more than cwnd was; here (6) is applied at entry, as the 2001 paper's
//!   pseudocode does, so recovery runs at min(BWE·RTTmin, cwnd) rather than about
//!   cwnd/2. After a timeout both set (7) (`CA_EVENT_LOSS`). Linux keeps BWE in bytes per jiffy; here it is real-valued.
//! * Before the first bandwidth sample exists, a loss halves the window as Reno does
//!   (Linux would set ssthresh to 2).
//! * Westwood+ restarts RTTmin from the next RTT sample after a timeout (Linux);
//!   Westwood keeps the minimum for the whole connection (the ns-2 module). If the
//!   timeout proves spurious, undo also restores the RTTmin from before it.
//! * The ns-2 module caps a cumulative ACK at two segments; here (1) is Linux's
//!   `westwood_acked_count`, without that cap.
//!
//! Validation: unit tests below (both filters and (6)/(7) on ACK streams computed by
//! hand, the virtual samples, the duplicate-ACK accounting, undo); end to end, more
//! throughput than Reno under 1 % random loss on 10 Mb/s, 100 ms (tests/cc_loss_based.rs:
//! Westwood+ 2.8× Reno). Westwood gets more still (5.2×): when the window is below
//! the BDP, ACKs arrive in bursts, and (3) weights the last in-burst sample b_{k−1}
//! by the gap Δ_k that follows it, so BWE overestimates (about 1.9× for 30 ACKs
//! 1.2 ms apart every 100 ms) — the per-ACK sampling that Westwood+ replaced.
//! Against ns-3 (docs/validation.md): at 2 % loss ns-3's Westwood+ carries twice as
//! much, because its estimate counts each segment duplicate-ACKed in a recovery twice
//! (no `accounted` of (1)) and exceeds the bottleneck's rate, so it hardly backs off.

use serde::Deserialize;

use super::{reno_ssthresh, seconds_or_nan, AckEvent, AckSample, CaEvent, CongestionControl, Reno};
use crate::time::SimTime;
use crate::transport::tcp::tcb::Tcb;
use crate::units::Duration;

/// Parameters of `cc = "westwood"` (the per-ACK filter of eqs. 2–4).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WestwoodConfig {
    /// τ, the filter's time constant (cut-off 1/τ rad/s). Default 1 s (ns-2 `tau_`).
    pub tau: Duration,
    /// m of eq. (4): a virtual null sample after τ/m without an ACK. At least 2
    /// (Nyquist); default 2.
    pub m: u32,
}

impl Default for WestwoodConfig {
    fn default() -> Self {
        WestwoodConfig {
            tau: Duration(SimTime::from_secs(1)),
            m: 2,
        }
    }
}

impl WestwoodConfig {
    pub fn check(&self) -> Result<(), (String, String)> {
        if self.tau.0 == SimTime::ZERO {
            return Err(("tau".into(), "must be positive".into()));
        }
        if self.m < 2 {
            return Err((
                "m".into(),
                format!(
                    "{} is below 2 (the Nyquist condition of the filter)",
                    self.m
                ),
            ));
        }
        Ok(())
    }
}

/// Parameters of `cc = "westwood_plus"` (the per-RTT sampling of eq. 5).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WestwoodPlusConfig {
    /// Shortest sampling interval. Default 50 ms (Linux `TCP_WESTWOOD_RTT_MIN`).
    pub min_interval: Duration,
    /// Where the RTT of the sampling interval and of RTTmin comes from.
    pub rtt: WestwoodRtt,
}

impl Default for WestwoodPlusConfig {
    fn default() -> Self {
        WestwoodPlusConfig {
            min_interval: Duration(SimTime::from_millis(50)),
            rtt: WestwoodRtt::Sample,
        }
    }
}

/// The RTT Westwood+ keeps (`w->rtt` in Linux), from which RTTmin is the smallest.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum WestwoodRtt {
    /// The controller's per-ACK sample (`tcp.cc_sample`): Linux since `pkts_acked`
    /// was given an RTT.
    #[default]
    Sample,
    /// The sender's smoothed RTT after this ACK's update, on every ACK that newly
    /// acknowledges data: Linux 2.6.20's `tcp_westwood_pkts_acked`
    /// (`w->rtt = tp->srtt >> 3`, called after `tcp_ack_update_rtt`). RTTmin is then
    /// the smallest SRTT, above the smallest sample by the smoothing; ssthresh after a
    /// loss is larger. (Linux kept SRTT in whole jiffies; here it is exact.)
    Srtt,
}

impl WestwoodPlusConfig {
    pub fn check(&self) -> Result<(), (String, String)> {
        if self.min_interval.0 == SimTime::ZERO {
            return Err(("min_interval".into(), "must be positive".into()));
        }
        Ok(())
    }
}

/// How the bandwidth samples are taken and filtered.
#[derive(Clone, Debug)]
enum Estimator {
    /// Westwood: eqs. (2)–(4).
    PerAck {
        /// τ in seconds.
        tau: f64,
        /// τ/m: the spacing of virtual null samples.
        null_every: SimTime,
        /// b_{k−1} in bytes per second.
        last_sample: f64,
        /// Time of the last sample, real or virtual (None before the first ACK).
        last_time: Option<SimTime>,
        /// Bytes of ACKs that arrived at the same instant as the last sample.
        pending: u64,
    },
    /// Westwood+: eq. (5).
    PerRtt {
        min_interval: SimTime,
        /// BWE_ns, the first filter stage, in bytes per second.
        stage: f64,
        /// Bytes counted in the current interval.
        bytes: u64,
        /// Start of the current interval (None before the first ACK).
        start: Option<SimTime>,
    },
}

#[derive(Clone, Debug)]
pub struct Westwood {
    estimator: Estimator,
    /// BWE in bytes per second (0 before the first sample).
    bwe: f64,
    /// Bytes credited to duplicate ACKs and not yet matched by a cumulative ACK.
    accounted: u64,
    /// The latest RTT sample (Westwood+'s sampling interval).
    last_rtt: Option<SimTime>,
    rtt_source: WestwoodRtt,
    rtt_min: SimTime,
    /// Westwood+: take the next RTT sample as RTTmin (set by a timeout).
    reset_rtt_min: bool,
    /// RTTmin before the timeouts of the current loss episode, for undo.
    rtt_min_before_loss: Option<SimTime>,
}

impl Westwood {
    /// Westwood (2001): per-ACK samples, Tustin filter.
    pub fn new(cfg: WestwoodConfig) -> Self {
        let tau = cfg.tau.0;
        Westwood::with(Estimator::PerAck {
            tau: tau.as_secs_f64(),
            null_every: SimTime(tau.as_nanos() / cfg.m as u64),
            last_sample: 0.0,
            last_time: None,
            pending: 0,
        })
    }

    /// Westwood+ (2004): per-RTT samples, two 7/8 stages.
    pub fn plus(cfg: WestwoodPlusConfig) -> Self {
        Westwood {
            rtt_source: cfg.rtt,
            ..Westwood::with(Estimator::PerRtt {
                min_interval: cfg.min_interval.0,
                stage: 0.0,
                bytes: 0,
                start: None,
            })
        }
    }

    fn with(estimator: Estimator) -> Self {
        Westwood {
            estimator,
            bwe: 0.0,
            accounted: 0,
            last_rtt: None,
            rtt_source: WestwoodRtt::Sample,
            rtt_min: SimTime::MAX,
            reset_rtt_min: false,
            rtt_min_before_loss: None,
        }
    }

    fn is_plus(&self) -> bool {
        matches!(self.estimator, Estimator::PerRtt { .. })
    }

    /// Eq. (1): the bytes this ACK accounts for.
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
            // Everything it covers was already counted by duplicates.
            self.accounted -= cumul;
            mss
        } else {
            let rest = cumul - self.accounted;
            self.accounted = 0;
            rest
        }
    }

    /// Eq. (3) with the gain for an interval of `dt` seconds.
    fn tustin(bwe: f64, tau: f64, dt: f64, sample: f64, last_sample: f64) -> f64 {
        (2.0 * tau - dt) / (2.0 * tau + dt) * bwe + dt / (2.0 * tau + dt) * (sample + last_sample)
    }

    /// Eq. (4): feeds Westwood's filter the null samples due before `now`.
    fn virtual_samples(&mut self, now: SimTime) {
        let Estimator::PerAck {
            tau,
            null_every,
            last_sample,
            last_time: Some(last),
            ..
        } = &mut self.estimator
        else {
            return;
        };
        while now - *last > *null_every {
            let dt = null_every.as_secs_f64();
            self.bwe = Westwood::tustin(self.bwe, *tau, dt, 0.0, *last_sample);
            *last_sample = 0.0;
            *last += *null_every;
        }
    }

    /// Takes a bandwidth sample for `bytes` acknowledged at `now`.
    fn sample(&mut self, now: SimTime, bytes: u64) {
        self.virtual_samples(now);
        match &mut self.estimator {
            Estimator::PerAck {
                tau,
                last_sample,
                last_time,
                pending,
                ..
            } => {
                let Some(last) = *last_time else {
                    *last_time = Some(now); // the first ACK opens the first interval
                    return;
                };
                *pending += bytes;
                if now == last {
                    return; // no interval yet: counted with the next sample
                }
                let dt = (now - last).as_secs_f64();
                let b = *pending as f64 / dt; // eq. (2)
                self.bwe = Westwood::tustin(self.bwe, *tau, dt, b, *last_sample);
                *last_sample = b;
                *last_time = Some(now);
                *pending = 0;
            }
            Estimator::PerRtt {
                min_interval,
                stage,
                bytes: counted,
                start,
            } => {
                let Some(begin) = *start else {
                    *start = Some(now);
                    return;
                };
                *counted += bytes;
                let Some(rtt) = self.last_rtt else { return };
                let dt = now - begin;
                if dt <= rtt.max(*min_interval) {
                    return;
                }
                let b = *counted as f64 / dt.as_secs_f64();
                if self.bwe == 0.0 && *stage == 0.0 {
                    // The first sample fills both stages (Linux `westwood_filter`).
                    *stage = b;
                    self.bwe = b;
                } else {
                    *stage = (7.0 * *stage + b) / 8.0;
                    self.bwe = (7.0 * self.bwe + *stage) / 8.0;
                }
                *counted = 0;
                *start = Some(now);
            }
        }
    }

    /// BWE · RTTmin / MSS of (6)/(7), in segments; None before an estimate exists.
    fn bw_rtt_min(&self, tcb: &Tcb) -> Option<u32> {
        if self.bwe <= 0.0 || self.rtt_min == SimTime::MAX {
            return None;
        }
        let segments = self.bwe * self.rtt_min.as_secs_f64() / tcb.mss as f64;
        Some((segments as u32).max(2))
    }
}

impl CongestionControl for Westwood {
    fn name(&self) -> &'static str {
        if self.is_plus() {
            "westwood_plus"
        } else {
            "westwood"
        }
    }

    /// Eqs. (6)/(7). A new loss episode begins here.
    fn ssthresh(&mut self, tcb: &Tcb, now: SimTime) -> u32 {
        self.rtt_min_before_loss = None;
        self.virtual_samples(now);
        self.bw_rtt_min(tcb).unwrap_or_else(|| reno_ssthresh(tcb))
    }

    fn cong_avoid(&mut self, tcb: &mut Tcb, now: SimTime, acked: u32) {
        Reno.cong_avoid(tcb, now, acked);
    }

    /// Restores RTTmin if a timeout had restarted it, and Reno's window.
    fn undo_cwnd(&mut self, tcb: &Tcb) -> u32 {
        if let Some(rtt_min) = self.rtt_min_before_loss.take() {
            self.rtt_min = rtt_min;
            self.reset_rtt_min = false;
        }
        tcb.cwnd.max(tcb.prior_cwnd)
    }

    fn pkts_acked(&mut self, tcb: &Tcb, _now: SimTime, sample: &AckSample) {
        let rtt = match self.rtt_source {
            WestwoodRtt::Sample => sample.rtt,
            WestwoodRtt::Srtt => tcb.srtt.filter(|_| sample.acked > 0),
        };
        let Some(rtt) = rtt else { return };
        self.last_rtt = Some(rtt);
        if self.reset_rtt_min {
            self.rtt_min = rtt;
            self.reset_rtt_min = false;
        } else {
            self.rtt_min = self.rtt_min.min(rtt);
        }
    }

    fn in_ack_event(&mut self, tcb: &Tcb, now: SimTime, ack: &AckEvent) {
        let bytes = self.acked_count(ack, tcb.mss as u64);
        self.sample(now, bytes);
    }

    fn cwnd_event(&mut self, tcb: &mut Tcb, now: SimTime, event: CaEvent) {
        match event {
            CaEvent::Loss => {
                // Eq. (7) on every expiry (the sender set cwnd = 1).
                self.virtual_samples(now);
                if let Some(ssthresh) = self.bw_rtt_min(tcb) {
                    tcb.ssthresh = ssthresh;
                }
                if self.is_plus() {
                    self.rtt_min_before_loss.get_or_insert(self.rtt_min);
                    self.reset_rtt_min = true;
                }
            }
            CaEvent::CompleteRecovery => {
                // The sender set cwnd = ssthresh; eq. (6) lowers cwnd only.
                tcb.cwnd = tcb.cwnd.min(tcb.prior_cwnd);
            }
            CaEvent::TxStart => {}
        }
    }

    /// The bandwidth estimate (BWE, bit/s) and RTTmin, from which a loss sets
    /// ssthresh = BWE · RTTmin.
    fn info(&self, _tcb: &Tcb, out: &mut Vec<(&'static str, f64)>) {
        out.push(("bwe_bps", self.bwe * 8.0));
        out.push(("rtt_min", seconds_or_nan(self.rtt_min)));
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

    fn ms(t: u64) -> SimTime {
        SimTime::from_millis(t)
    }

    fn rtt_sample(w: &mut Westwood, tcb: &Tcb, rtt_ms: u64) {
        let s = AckSample {
            acked: 1,
            rtt: Some(ms(rtt_ms)),
            in_flight: 10,
        };
        w.pkts_acked(tcb, SimTime::ZERO, &s);
    }

    fn westwood() -> Westwood {
        Westwood::new(WestwoodConfig::default())
    }

    fn westwood_plus() -> Westwood {
        Westwood::plus(WestwoodPlusConfig::default())
    }

    /// ACKs of 1000 B every 10 ms at t = 0, 10, …, 10·(n − 1) ms.
    fn ack_stream(w: &mut Westwood, tcb: &Tcb, n: usize) {
        ack_stream_from(w, tcb, 0, &vec![1000; n]);
    }

    /// ACKs of the given sizes every 10 ms from `start_ms` (0 B: a duplicate).
    fn ack_stream_from(w: &mut Westwood, tcb: &Tcb, start_ms: u64, sizes: &[u64]) {
        for (k, &bytes) in sizes.iter().enumerate() {
            w.in_ack_event(tcb, ms(start_ms + 10 * k as u64), &ack(bytes));
        }
    }

    /// The sender's part of a fast retransmit and the recovery that follows with
    /// nothing else lost: ssthresh from the controller, cwnd = ssthresh at the end,
    /// then the `CompleteRecovery` event.
    fn fast_recovery(w: &mut Westwood, tcb: &mut Tcb, now: SimTime) {
        tcb.prior_cwnd = tcb.cwnd;
        tcb.ssthresh = w.ssthresh(tcb, now);
        tcb.cwnd = tcb.ssthresh;
        w.cwnd_event(tcb, now, CaEvent::CompleteRecovery);
    }

    /// The sender's part of a first retransmission timeout.
    fn timeout(w: &mut Westwood, tcb: &mut Tcb, now: SimTime) {
        tcb.prior_cwnd = tcb.cwnd;
        tcb.ssthresh = w.ssthresh(tcb, now);
        tcb.cwnd = 1;
        w.cwnd_event(tcb, now, CaEvent::Loss);
    }

    #[test]
    fn westwood_plus_ssthresh_after_three_dupacks_is_bwe_times_rtt_min() {
        // RTT samples 105 then 110 ms: RTTmin 105 ms, sampling interval 110 ms.
        // The first ACK (t = 0) opens the interval; the ACKs at 10…120 ms bring
        // 12 000 B, and the one at 120 ms is the first more than 110 ms after 0:
        // b = 12 000 B / 0.12 s = 100 000 B/s, which fills both stages.
        // ssthresh = 1e5 · 0.105 / 1000 = 10.5 → 10; cwnd 20 > 10 falls to 10.
        let mut tcb = Tcb::new(1000, 20);
        let mut w = westwood_plus();
        rtt_sample(&mut w, &tcb, 105);
        rtt_sample(&mut w, &tcb, 110);
        ack_stream(&mut w, &tcb, 13);
        assert!((w.bwe - 1e5).abs() < 1e-6, "{}", w.bwe);
        fast_recovery(&mut w, &mut tcb, ms(125));
        assert_eq!((tcb.ssthresh, tcb.cwnd), (10, 10));
    }

    #[test]
    fn westwood_plus_on_srtt_takes_rtt_min_from_the_smoothed_rtt() {
        // Linux 2.6.20: w->rtt = srtt after each ACK that acknowledges data. ACKs with
        // samples 105 and 110 ms while SRTT is 120 then 115 ms: RTTmin 115 ms (the
        // samples would give 105), sampling interval 115 ms, so the ACK at 120 ms closes
        // it: b = 12 000 B / 0.12 s = 1e5 B/s; ssthresh = 1e5 · 0.115 / 1000 = 11.5 → 11
        // (10 on the samples: the test above). An ACK that acknowledges nothing new
        // (SRTT 90 ms) changes nothing.
        let mut tcb = Tcb::new(1000, 20);
        let mut w = Westwood::plus(WestwoodPlusConfig {
            rtt: WestwoodRtt::Srtt,
            ..WestwoodPlusConfig::default()
        });
        for (srtt, sample) in [(120, 105), (115, 110)] {
            tcb.srtt = Some(ms(srtt));
            rtt_sample(&mut w, &tcb, sample);
        }
        tcb.srtt = Some(ms(90));
        let nothing_new = AckSample {
            acked: 0,
            rtt: None,
            in_flight: 10,
        };
        w.pkts_acked(&tcb, SimTime::ZERO, &nothing_new);
        assert_eq!((w.rtt_min, w.last_rtt), (ms(115), Some(ms(115))));
        ack_stream(&mut w, &tcb, 13);
        assert!((w.bwe - 1e5).abs() < 1e-6, "{}", w.bwe);
        fast_recovery(&mut w, &mut tcb, ms(125));
        assert_eq!((tcb.ssthresh, tcb.cwnd), (11, 11));
    }

    #[test]
    fn westwood_plus_rtt_source_is_sample_or_srtt() {
        let cfg: WestwoodPlusConfig = serde_json::from_str(r#"{"rtt": "srtt"}"#).unwrap();
        assert_eq!(cfg.rtt, WestwoodRtt::Srtt);
        let cfg: WestwoodPlusConfig = serde_json::from_str("{}").unwrap();
        assert_eq!(cfg.rtt, WestwoodRtt::Sample);
        let err = serde_json::from_str::<WestwoodPlusConfig>(r#"{"rtt": "mean"}"#)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("mean") && err.contains("sample") && err.contains("srtt"),
            "{err}"
        );
    }

    #[test]
    fn westwood_plus_filter_moves_an_eighth_of_an_eighth() {
        // After a first sample of 100 kB/s, one of 200 kB/s gives
        // BWE_ns = (7·100 + 200)/8 = 112.5 kB/s, BWE = (7·100 + 112.5)/8 = 101.5625 kB/s.
        // With RTTmin 100 ms: ssthresh = 101 562.5 · 0.1 / 1000 = 10.16 → 10.
        let tcb = Tcb::new(1000, 10);
        let mut w = westwood_plus();
        rtt_sample(&mut w, &tcb, 100);
        w.in_ack_event(&tcb, SimTime::ZERO, &ack(1000)); // opens the interval
        w.in_ack_event(&tcb, ms(101), &ack(10_100));
        assert!((w.bwe - 1e5).abs() < 1e-6, "{}", w.bwe);
        w.in_ack_event(&tcb, ms(202), &ack(20_200));
        assert!((w.bwe - 101_562.5).abs() < 1e-6, "{}", w.bwe);
        assert_eq!(w.ssthresh(&tcb, ms(202)), 10);
    }

    #[test]
    fn westwood_plus_samples_no_faster_than_every_50_ms() {
        // RTT 20 ms, but the interval is max(20, 50) ms: ACKs every 10 ms make the
        // first sample at 60 ms (6000 B / 0.06 s = 100 kB/s), none at 30 ms.
        let tcb = Tcb::new(1000, 10);
        let mut w = westwood_plus();
        rtt_sample(&mut w, &tcb, 20);
        ack_stream(&mut w, &tcb, 6);
        assert_eq!(w.bwe, 0.0);
        w.in_ack_event(&tcb, ms(60), &ack(1000));
        assert!((w.bwe - 1e5).abs() < 1e-6, "{}", w.bwe);
    }

    #[test]
    fn westwood_tustin_filter_on_the_first_samples() {
        // τ = 1 s, Δ = 0.01 s, b = 1000 B / 0.01 s = 1e5 B/s; gains
        // (2τ − Δ)/(2τ + Δ) = 1.99/2.01 and Δ/(2τ + Δ) = 0.01/2.01.
        // BWE_1 = 0.01/2.01 · (1e5 + 0) = 497.5124 B/s;
        // BWE_2 = 1.99/2.01 · 497.5124 + 0.01/2.01 · 2e5 = 492.5621 + 995.0249 = 1487.5869.
        let tcb = Tcb::new(1000, 10);
        let mut w = westwood();
        ack_stream(&mut w, &tcb, 2);
        assert!((w.bwe - 497.512_437_8).abs() < 1e-6, "{}", w.bwe);
        w.in_ack_event(&tcb, ms(20), &ack(1000));
        assert!((w.bwe - 1_487.586_940_9).abs() < 1e-6, "{}", w.bwe);
    }

    /// BWE after n ACKs of a steady stream of rate b, from the closed form of (3):
    /// BWE_1 = g·b, BWE_k = α·BWE_{k−1} + 2g·b with 2g = 1 − α, so
    /// BWE_k = b·(1 − (1 − g)·α^(k−1)); α = 1.99/2.01, g = 0.01/2.01.
    fn steady_state(b: f64, samples: i32) -> f64 {
        let (alpha, g): (f64, f64) = (1.99 / 2.01, 0.01 / 2.01);
        b * (1.0 - (1.0 - g) * alpha.powi(samples - 1))
    }

    #[test]
    fn westwood_ssthresh_after_three_dupacks_is_bwe_times_rtt_min() {
        // 1001 ACKs of 1000 B every 10 ms: 1000 samples of 1e5 B/s. Closed form:
        // α^999 = (1.99/2.01)^999 = 4.58e-5, BWE = 1e5·(1 − 0.995·4.58e-5) = 99 995.4 B/s.
        // RTTmin 105 ms: ssthresh = 99 995.4 · 0.105 / 1000 = 10.4995 → 10.
        let mut tcb = Tcb::new(1000, 30);
        let mut w = westwood();
        rtt_sample(&mut w, &tcb, 105);
        ack_stream(&mut w, &tcb, 1001);
        let expected = steady_state(1e5, 1000);
        assert!((w.bwe - expected).abs() < 1e-6 * expected, "{}", w.bwe);
        assert!((w.bwe - 99_995.4).abs() < 0.1, "{}", w.bwe);
        fast_recovery(&mut w, &mut tcb, ms(10_000));
        assert_eq!((tcb.ssthresh, tcb.cwnd), (10, 10));
    }

    #[test]
    fn a_timeout_after_silence_decays_westwood_estimate_through_virtual_samples() {
        // The same stream, last ACK at 10 s, then nothing until an RTO at 11.2 s.
        // τ/m = 0.5 s: null samples at 10.5 and 11.0 s, each with gains
        // (2 − 0.5)/(2 + 0.5) = 3/5 and 0.5/2.5 = 1/5:
        // BWE' = 3/5·B + 1/5·(0 + 1e5), BWE'' = 3/5·BWE' + 1/5·(0 + 0)
        //      = 0.36·B + 12 000 = 0.36·99 995.4 + 12 000 = 47 998.4 B/s.
        // ssthresh = 47 998.4 · 0.105 / 1000 = 5.04 → 5; cwnd = 1.
        let mut tcb = Tcb::new(1000, 30);
        let mut w = westwood();
        rtt_sample(&mut w, &tcb, 105);
        ack_stream(&mut w, &tcb, 1001);
        let b = steady_state(1e5, 1000);
        timeout(&mut w, &mut tcb, ms(11_200));
        let expected = 0.36 * b + 12_000.0;
        assert!((w.bwe - expected).abs() < 1e-6 * expected, "{}", w.bwe);
        assert_eq!((tcb.ssthresh, tcb.cwnd), (5, 1));
        // The next ACK's interval starts at the last null sample (11.0 s).
        w.in_ack_event(&tcb, ms(11_250), &ack(1000));
        let after = 1.75 / 2.25 * expected + 0.25 / 2.25 * (1000.0 / 0.25);
        assert!((w.bwe - after).abs() < 1e-6 * after, "{}", w.bwe);
    }

    #[test]
    fn a_smaller_window_is_kept_after_three_dupacks() {
        // Eq. (6): BWE·RTTmin = 10.5 segments but cwnd was 8: ssthresh 10, cwnd 8
        // (slow start resumes up to 10).
        let mut tcb = Tcb::new(1000, 8);
        let mut w = westwood_plus();
        rtt_sample(&mut w, &tcb, 105);
        rtt_sample(&mut w, &tcb, 110);
        ack_stream(&mut w, &tcb, 13);
        fast_recovery(&mut w, &mut tcb, ms(125));
        assert_eq!((tcb.ssthresh, tcb.cwnd), (10, 8));
    }

    #[test]
    fn every_expiry_resets_ssthresh_from_the_estimate() {
        // Eq. (7) after a timeout: 1e5 B/s · 0.105 s / 1000 B = 10. A repeated
        // expiry (the sender does not ask `ssthresh` again) sets it from the
        // estimate again, whatever the sender held.
        let mut tcb = Tcb::new(1000, 40);
        let mut w = westwood_plus();
        rtt_sample(&mut w, &tcb, 105);
        rtt_sample(&mut w, &tcb, 110);
        ack_stream(&mut w, &tcb, 13);
        timeout(&mut w, &mut tcb, ms(125));
        assert_eq!((tcb.ssthresh, tcb.cwnd), (10, 1));
        tcb.ssthresh = 99; // whatever the sender holds
        w.cwnd_event(&mut tcb, ms(400), CaEvent::Loss);
        assert_eq!(tcb.ssthresh, 10);
    }

    #[test]
    fn duplicate_acks_count_a_segment_and_are_not_counted_twice() {
        // Three duplicates count 3·1000; the cumulative ACK of 5000 B that follows
        // counts only the 2000 B they did not; an ACK of 2000 B after 3 duplicates
        // counts one segment and leaves 1000 B credited.
        let mut w = westwood_plus();
        let counts: Vec<u64> = [0, 0, 0, 5000, 0, 0, 0, 2000]
            .iter()
            .map(|&b| w.acked_count(&ack(b), 1000))
            .collect();
        assert_eq!(counts, vec![1000, 1000, 1000, 2000, 1000, 1000, 1000, 1000]);
        assert_eq!(w.accounted, 1000);
    }

    #[test]
    fn a_recovery_in_the_interval_does_not_inflate_westwood_plus_sample() {
        // RTT 100 ms. The ACK at 0 opens the interval; 6 ACKs of 1000 B at 10…60 ms,
        // 3 duplicates at 70, 80, 90 ms (3 · 1000 B), then at 110 ms the cumulative ACK
        // of 5000 B that ends the recovery, which counts 5000 − 3000 = 2000 B (eq. 1).
        // It is the first ACK more than 100 ms after 0: b = (6000 + 3000 + 2000) B /
        // 0.11 s = 100 000 B/s, the rate the receiver got. Counting the 5000 B again
        // in full (ns-3's `TcpWestwoodPlus`, docs/validation.md) would give 14 000 B /
        // 0.11 s = 127 273 B/s.
        let tcb = Tcb::new(1000, 10);
        let mut w = westwood_plus();
        rtt_sample(&mut w, &tcb, 100);
        w.in_ack_event(&tcb, SimTime::ZERO, &ack(1000));
        ack_stream_from(&mut w, &tcb, 10, &[1000; 6]);
        ack_stream_from(&mut w, &tcb, 70, &[0; 3]);
        w.in_ack_event(&tcb, ms(110), &ack(5000));
        assert!((w.bwe - 1e5).abs() < 1e-6, "{}", w.bwe);
    }

    #[test]
    fn without_an_estimate_loss_halves_like_reno() {
        let mut tcb = Tcb::new(1000, 40);
        tcb.snd_nxt = 40_000;
        for mut w in [westwood(), westwood_plus()] {
            assert_eq!(w.ssthresh(&tcb, SimTime::ZERO), 20);
        }
    }

    #[test]
    fn westwood_plus_restarts_rtt_min_after_a_timeout_and_undo_restores_it() {
        // RTTmin 50 ms; a timeout makes the next sample (80 ms) the new RTTmin. When
        // the timeout proves spurious, undo gives back 50 ms and the window of 30.
        let mut tcb = Tcb::new(1000, 30);
        let mut w = westwood_plus();
        rtt_sample(&mut w, &tcb, 50);
        timeout(&mut w, &mut tcb, ms(300));
        rtt_sample(&mut w, &tcb, 80);
        rtt_sample(&mut w, &tcb, 90);
        assert_eq!(w.rtt_min, ms(80));
        assert_eq!(w.undo_cwnd(&tcb), 30);
        assert_eq!(w.rtt_min, ms(50));
        // A timeout that is not undone: the next episode (a fast retransmit) forgets
        // the RTTmin saved for it, so undoing that one keeps what was measured.
        timeout(&mut w, &mut tcb, ms(900));
        rtt_sample(&mut w, &tcb, 70);
        w.ssthresh(&tcb, ms(1000));
        w.undo_cwnd(&tcb);
        assert_eq!(w.rtt_min, ms(70));
    }

    #[test]
    fn westwood_keeps_rtt_min_across_a_timeout_and_undo_restores_the_window() {
        let mut tcb = Tcb::new(1000, 30);
        let mut w = westwood();
        rtt_sample(&mut w, &tcb, 50);
        timeout(&mut w, &mut tcb, ms(300));
        rtt_sample(&mut w, &tcb, 80);
        assert_eq!(w.rtt_min, ms(50));
        assert_eq!(w.undo_cwnd(&tcb), 30);
    }

    #[test]
    fn parameters_are_checked() {
        let bad_m = WestwoodConfig {
            m: 1,
            ..WestwoodConfig::default()
        };
        assert_eq!(bad_m.check().unwrap_err().0, "m");
        let zero = WestwoodPlusConfig {
            min_interval: Duration(SimTime::ZERO),
            ..WestwoodPlusConfig::default()
        };
        assert_eq!(zero.check().unwrap_err().0, "min_interval");
    }

    #[test]
    fn info_reports_bwe_in_bit_per_second_and_rtt_min() {
        // The samples of the ssthresh test above: BWE 100 000 B/s = 800 000 bit/s,
        // RTTmin 105 ms.
        let tcb = Tcb::new(1000, 20);
        let mut w = westwood_plus();
        rtt_sample(&mut w, &tcb, 105);
        rtt_sample(&mut w, &tcb, 110);
        ack_stream(&mut w, &tcb, 13);
        let mut out = Vec::new();
        w.info(&tcb, &mut out);
        assert_eq!(out[0].0, "bwe_bps");
        assert!((out[0].1 - 800_000.0).abs() < 1e-3, "{out:?}");
        assert_eq!(out[1], ("rtt_min", 0.105));
    }
}
