//! Retransmission timeout estimation, RFC 6298.
//!
//! ```text
//! first sample R:   SRTT = R, RTTVAR = R/2                                (2.2)
//! next samples R':  RTTVAR = (1 - β)·RTTVAR + β·|SRTT - R'|, β = 1/4       (2.3)
//!                   SRTT   = (1 - α)·SRTT + α·R',             α = 1/8
//! RTO = SRTT + max(G, K·RTTVAR), K = 4, then clamped to [min, max]        (2.4, 2.5)
//! on expiry:        RTO = min(2·RTO, max)  (back off)                      (5.5)
//! ```
//! Karn's rule (§3): samples from retransmitted segments are not taken (the
//! sender enforces this; with timestamps, RFC 7323 makes them unambiguous). The
//! backed-off RTO is kept until a valid sample arrives (§5.7).
//!
//! Arithmetic is in integer nanoseconds; the divisions truncate (≤ 1 ns error).
//! Defaults are RFC 6298's (initial 1 s, minimum 1 s, maximum 60 s). Linux uses a
//! 200 ms minimum and 120 s maximum; ns-2.35 a 200 ms minimum, a 3 s initial
//! value, a 60 s maximum and a 10 ms clock tick; all are parameters of each flow.
//!
//! Where the minimum applies is the `rule` (`RtoRule`): RFC 6298 (2.4) clamps the
//! whole RTO, Linux floors the variance term, so its RTO never comes closer than
//! `min` to SRTT.

use crate::time::SimTime;

/// Where the minimum RTO applies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RtoRule {
    /// RFC 6298 (2.4): RTO = max(SRTT + max(G, 4·RTTVAR), min).
    #[default]
    Rfc6298,
    /// Linux (`tcp_rtt_estimator`, `__tcp_set_rto`, `tcp_bound_rto` in
    /// net/ipv4/tcp_input.c and tcp.h): RTO = SRTT + `rttvar_us`, where `rttvar_us`
    /// is never below `tcp_rto_min` (it starts at max(2·R, rto_min) and only decays
    /// towards `mdev_max_us`, which each RTT restarts at rto_min); so RTO =
    /// SRTT + max(4·RTTVAR, min). Simplified: Linux's variance term is the largest
    /// 4·mdev of the last RTT, decaying by a quarter of the excess per RTT, and its
    /// mdev takes a sample below SRTT with weight 1/32 rather than 1/4; here it is
    /// RFC 6298's 4·RTTVAR of the latest sample. The two agree when the variance is
    /// below the floor (the usual case with per-ACK samples: the RTO is SRTT + min).
    Linux,
}

/// Which RTT measurement of an ACK the estimator takes (`RttSample::rtt`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RttSample {
    /// RFC 7323 §4 with timestamps (the echo of every ACK that advances the
    /// window), RFC 6298 with Karn's rule without them.
    #[default]
    Rfc7323,
    /// Linux since 3.13 (`tcp_ack_update_rtt`: "Prefer RTT measured from ACK's
    /// timing to TS-ECR"): the sequence RTT, else the SACK RTT, else the echo.
    /// Linux 2.6.20 took the echo first, as `Rfc7323`.
    Linux,
}

/// RTO parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RtoConfig {
    pub initial: SimTime,
    pub min: SimTime,
    pub max: SimTime,
    /// Clock granularity G.
    pub granularity: SimTime,
    pub rule: RtoRule,
    pub sample: RttSample,
}

impl Default for RtoConfig {
    fn default() -> Self {
        RtoConfig {
            initial: SimTime::from_secs(1),
            min: SimTime::from_secs(1),
            max: SimTime::from_secs(60),
            granularity: SimTime::from_millis(1),
            rule: RtoRule::Rfc6298,
            sample: RttSample::Rfc7323,
        }
    }
}

#[derive(Clone, Debug)]
pub struct RtoEstimator {
    cfg: RtoConfig,
    srtt: Option<SimTime>,
    rttvar: SimTime,
    /// RTO before backoff.
    base: SimTime,
    /// Number of consecutive expirations (the backoff exponent).
    backoffs: u32,
}

impl RtoEstimator {
    pub fn new(cfg: RtoConfig) -> Self {
        RtoEstimator {
            cfg,
            srtt: None,
            rttvar: SimTime::ZERO,
            base: cfg.initial.max(cfg.min).min(cfg.max),
            backoffs: 0,
        }
    }

    /// Takes a valid RTT measurement; clears any backoff (RFC 6298 §5.7).
    pub fn sample(&mut self, r: SimTime) {
        let (srtt, rttvar) = match self.srtt {
            None => (r, SimTime(r.0 / 2)),
            Some(srtt) => {
                let err = srtt.0.abs_diff(r.0);
                let rttvar = SimTime((3 * self.rttvar.0 + err) / 4);
                (SimTime((7 * srtt.0 + r.0) / 8), rttvar)
            }
        };
        self.srtt = Some(srtt);
        self.rttvar = rttvar;
        let k_rttvar = SimTime(rttvar.0.saturating_mul(4));
        let variance = self.cfg.granularity.max(k_rttvar);
        let rto = match self.cfg.rule {
            RtoRule::Rfc6298 => (srtt + variance).max(self.cfg.min),
            RtoRule::Linux => srtt + variance.max(self.cfg.min),
        };
        self.base = rto.min(self.cfg.max);
        self.backoffs = 0;
    }

    /// Raises the timeout to `floor` if it is less and clears any backoff: RFC 6298
    /// §5.7's 3 s when data begins after a SYN's timer expired.
    pub fn reinitialize(&mut self, floor: SimTime) {
        self.base = self.base.max(floor).min(self.cfg.max);
        self.backoffs = 0;
    }

    /// Doubles the timeout after an expiry, up to the maximum.
    pub fn back_off(&mut self) {
        self.backoffs = self.backoffs.saturating_add(1);
    }

    /// The current timeout, including backoff.
    pub fn rto(&self) -> SimTime {
        let factor = 1u64.checked_shl(self.backoffs.min(63)).unwrap_or(u64::MAX);
        self.base.saturating_mul(factor).min(self.cfg.max)
    }

    /// The timeout before backoff (PFTK's T0).
    pub fn base_rto(&self) -> SimTime {
        self.base
    }

    pub fn backoffs(&self) -> u32 {
        self.backoffs
    }

    pub fn srtt(&self) -> Option<SimTime> {
        self.srtt
    }

    pub fn rttvar(&self) -> SimTime {
        self.rttvar
    }
}

/// What one cumulative ACK acknowledged: the segments it removed from the
/// scoreboard, as the RTT samplers read them (`RttSample::rtt`, `CcSample::rtt`).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Acked {
    pub count: u32,
    /// Send time of the first (oldest) segment.
    pub oldest: Option<SimTime>,
    /// Send time of the first segment neither SACKed before nor ever retransmitted.
    pub oldest_unsacked: Option<SimTime>,
    /// The latest send time among them.
    pub newest: Option<SimTime>,
    /// One of them was ever retransmitted.
    pub retransmitted: bool,
}

impl RttSample {
    /// The estimator's sample from an ACK received at `now` that acknowledged `a`;
    /// `sack_sent` is the send time of the segment giving it a SACK RTT (Linux's
    /// `first_sackt`), `echo_rtt` now − TSecr (given only for an ACK that advances
    /// snd_una, with timestamps on).
    ///
    /// `Rfc7323`: the echo (RFC 7323 §4: unambiguous, retransmissions included),
    /// else the oldest newly acknowledged segment's age unless one of them was
    /// retransmitted (Karn's rule, RFC 6298 §3).
    ///
    /// `Linux`: Linux (since 3.13) `tcp_clean_rtx_queue` and `tcp_ack_update_rtt`
    /// (net/ipv4/tcp_input.c), "Prefer RTT measured from ACK's timing to TS-ECR":
    /// `seq_rtt_us`, the age of the oldest cumulatively acknowledged segment neither
    /// SACKed before nor ever retransmitted, none if any acknowledged segment was
    /// ever retransmitted (`FLAG_RETRANS_DATA_ACKED`); else `sack_rtt_us`, the age of
    /// the lowest newly SACKed segment never retransmitted, which an ACK that
    /// acknowledges nothing new can give too; else the echo, only when the ACK
    /// advances snd_una (`FLAG_ACKED`).
    pub(super) fn rtt(
        self,
        now: SimTime,
        a: &Acked,
        sack_sent: Option<SimTime>,
        echo_rtt: Option<SimTime>,
    ) -> Option<SimTime> {
        match self {
            RttSample::Rfc7323 => {
                let karn = (!a.retransmitted).then_some(a.oldest).flatten();
                echo_rtt.or(karn.map(|t| now - t))
            }
            RttSample::Linux => {
                let seq = (!a.retransmitted).then_some(a.oldest_unsacked).flatten();
                let sent = seq.or(sack_sent);
                sent.map(|t| now - t).or(echo_rtt)
            }
        }
    }
}

/// The retransmission timer (RFC 6298 §5) with the estimator that sets its
/// timeout. Linux runs RACK's reordering timer and TLP's probe timeout on the same
/// timer (`icsk_retransmit_timer`); here each keeps its own deadline and the
/// sender wakes at the earliest.
#[derive(Clone, Debug)]
pub(super) struct RetransmitTimer {
    estimator: RtoEstimator,
    /// When it expires; `SimTime::MAX` while stopped.
    deadline: SimTime,
}

impl RetransmitTimer {
    pub fn new(cfg: RtoConfig) -> Self {
        RetransmitTimer {
            estimator: RtoEstimator::new(cfg),
            deadline: SimTime::MAX,
        }
    }

    /// The current timeout, backoff included.
    pub fn rto(&self) -> SimTime {
        self.estimator.rto()
    }

    /// The timeout before backoff.
    pub fn base_rto(&self) -> SimTime {
        self.estimator.base_rto()
    }

    pub fn srtt(&self) -> Option<SimTime> {
        self.estimator.srtt()
    }

    /// Which RTT measurement of an ACK the estimator takes.
    pub fn sample_rule(&self) -> RttSample {
        self.estimator.cfg.sample
    }

    /// When the timer expires (`SimTime::MAX`: stopped).
    pub fn deadline(&self) -> SimTime {
        self.deadline
    }

    pub fn is_running(&self) -> bool {
        self.deadline != SimTime::MAX
    }

    /// (5.1): a segment left; starts the timer if it is not running.
    pub fn start_if_stopped(&mut self, now: SimTime) {
        if self.deadline == SimTime::MAX {
            self.restart(now);
        }
    }

    /// (5.3), and after an expiry (5.6): expires one RTO from `now`.
    pub fn restart(&mut self, now: SimTime) {
        self.deadline = now + self.estimator.rto();
    }

    /// (5.2): everything is acknowledged.
    pub fn stop(&mut self) {
        self.deadline = SimTime::MAX;
    }

    /// A valid RTT measurement (RFC 6298 §2).
    pub fn sample(&mut self, r: SimTime) {
        self.estimator.sample(r);
    }

    /// §5.7's floor after a lost SYN (`RtoEstimator::reinitialize`).
    pub fn reinitialize(&mut self, floor: SimTime) {
        self.estimator.reinitialize(floor);
    }

    /// (5.5): the timer expired; the next timeout is twice as long.
    pub fn back_off(&mut self) {
        self.estimator.back_off();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> SimTime {
        SimTime::from_millis(v)
    }

    fn estimator(min_ms: u64) -> RtoEstimator {
        estimator_with(min_ms, RtoRule::Rfc6298)
    }

    fn estimator_with(min_ms: u64, rule: RtoRule) -> RtoEstimator {
        RtoEstimator::new(RtoConfig {
            initial: ms(1000),
            min: ms(min_ms),
            max: ms(60_000),
            granularity: ms(1),
            rule,
            sample: RttSample::default(),
        })
    }

    #[test]
    fn initial_rto_before_any_sample() {
        assert_eq!(estimator(200).rto(), ms(1000));
    }

    #[test]
    fn follows_rfc6298_by_hand() {
        let mut e = estimator(0);
        // R = 100 ms: SRTT = 100, RTTVAR = 50, RTO = 100 + 4·50 = 300 ms.
        e.sample(ms(100));
        assert_eq!(
            (e.srtt(), e.rttvar(), e.rto()),
            (Some(ms(100)), ms(50), ms(300))
        );
        // R' = 200: RTTVAR = 3/4·50 + 1/4·|100 - 200| = 62.5; SRTT = 7/8·100 + 1/8·200
        // = 112.5; RTO = 112.5 + 4·62.5 = 362.5 ms.
        e.sample(ms(200));
        assert_eq!(e.srtt(), Some(SimTime(112_500_000)));
        assert_eq!(e.rttvar(), SimTime(62_500_000));
        assert_eq!(e.rto(), SimTime(362_500_000));
        // R' = 112.5 (equal to SRTT): RTTVAR = 3/4·62.5 = 46.875; SRTT unchanged;
        // RTO = 112.5 + 187.5 = 300 ms.
        e.sample(SimTime(112_500_000));
        assert_eq!(e.rttvar(), SimTime(46_875_000));
        assert_eq!(e.rto(), ms(300));
    }

    #[test]
    fn minimum_and_granularity_bound_the_rto() {
        let mut e = estimator(1000);
        e.sample(ms(100)); // 300 ms computed, raised to the 1 s minimum.
        assert_eq!(e.rto(), ms(1000));
        let mut g = estimator(0);
        for _ in 0..200 {
            g.sample(ms(100)); // RTTVAR decays towards 0: RTO → SRTT + G.
        }
        assert_eq!(g.rto(), ms(101));
    }

    #[test]
    fn backoff_doubles_up_to_max_and_a_valid_sample_clears_it() {
        let mut e = estimator(200);
        e.sample(ms(100)); // RTO 300 ms.
        e.back_off();
        assert_eq!(e.rto(), ms(600));
        e.back_off();
        assert_eq!(e.rto(), ms(1200));
        for _ in 0..20 {
            e.back_off();
        }
        assert_eq!(e.rto(), ms(60_000));
        // Karn: the backed-off RTO stays until a new sample is taken.
        assert_eq!(e.backoffs(), 22);
        e.sample(ms(100));
        assert_eq!(e.backoffs(), 0);
        // RTTVAR = 3/4·50 + 0 = 37.5; RTO = 100 + 150 = 250 ms.
        assert_eq!(e.rto(), ms(250));
    }

    #[test]
    fn linux_floors_the_variance_term_not_the_rto() {
        // Samples of 176 ms with min 200 ms. First: SRTT 176, RTTVAR 88, 4·RTTVAR
        // = 352 > 200 under both rules: RTO = 176 + 352 = 528 ms.
        let mut rfc = estimator_with(200, RtoRule::Rfc6298);
        let mut linux = estimator_with(200, RtoRule::Linux);
        rfc.sample(ms(176));
        linux.sample(ms(176));
        assert_eq!((rfc.rto(), linux.rto()), (ms(528), ms(528)));
        // Each equal sample multiplies RTTVAR by 3/4: after 1 + 100 samples it is
        // 88·0.75^100 ≈ 0.3 ns, so SRTT + max(G, 4·RTTVAR) = 176 + 1 = 177 ms. RFC
        // 6298 raises the whole RTO to the minimum: 200 ms. Linux raises the
        // variance term to it: 176 + 200 = 376 ms.
        for _ in 0..100 {
            rfc.sample(ms(176));
            linux.sample(ms(176));
        }
        assert_eq!(rfc.rto(), ms(200));
        assert_eq!(linux.rto(), ms(376));
        // The maximum still bounds it (tcp_bound_rto): min 200 ms, max 300 ms.
        let mut capped = RtoEstimator::new(RtoConfig {
            min: ms(200),
            max: ms(300),
            rule: RtoRule::Linux,
            ..RtoConfig::default()
        });
        capped.sample(ms(176));
        assert_eq!(capped.rto(), ms(300));
    }

    /// Three segments sent at 100, 200 and 210 ms; the first never SACKed nor
    /// retransmitted unless `retransmitted`.
    fn three(retransmitted: bool) -> Acked {
        Acked {
            count: 3,
            oldest: Some(ms(100)),
            oldest_unsacked: (!retransmitted).then_some(ms(100)),
            newest: Some(ms(210)),
            retransmitted,
        }
    }

    #[test]
    fn rfc7323_takes_the_echo_first_linux_the_acks_timing() {
        // ACK at 300 ms echoing 250 ms (echo RTT 50 ms), SACK RTT from a segment
        // sent at 220 ms (80 ms). RFC 7323: the echo, 50. Linux: the oldest
        // acknowledged segment's age, 300 − 100 = 200.
        let (echo, sack) = (Some(ms(50)), Some(ms(220)));
        let clean = three(false);
        assert_eq!(RttSample::Rfc7323.rtt(ms(300), &clean, sack, echo), echo);
        assert_eq!(
            RttSample::Linux.rtt(ms(300), &clean, sack, echo),
            Some(ms(200))
        );
        // Without timestamps RFC 6298 takes the oldest's age: 200.
        assert_eq!(
            RttSample::Rfc7323.rtt(ms(300), &clean, sack, None),
            Some(ms(200))
        );
    }

    #[test]
    fn after_a_retransmission_karn_leaves_the_echo_or_the_sack_rtt() {
        // One of the three was retransmitted: no ACK timing (Karn). RFC 7323: the
        // echo (50) or nothing; Linux: the SACK RTT, 300 − 220 = 80, else the echo.
        let (echo, sack) = (Some(ms(50)), Some(ms(220)));
        let resent = three(true);
        assert_eq!(RttSample::Rfc7323.rtt(ms(300), &resent, sack, echo), echo);
        assert_eq!(RttSample::Rfc7323.rtt(ms(300), &resent, sack, None), None);
        assert_eq!(
            RttSample::Linux.rtt(ms(300), &resent, sack, echo),
            Some(ms(80))
        );
        assert_eq!(RttSample::Linux.rtt(ms(300), &resent, None, echo), echo);
    }

    #[test]
    fn the_timer_starts_once_restarts_and_stops_as_rfc6298_section_5() {
        // Initial RTO 1 s. (5.1) a segment at 0 starts it for 1 s; another at
        // 400 ms leaves it running; (5.3) an ACK at 500 ms restarts it: 1.5 s.
        let mut t = RetransmitTimer::new(RtoConfig::default());
        assert!(!t.is_running());
        t.start_if_stopped(SimTime::ZERO);
        t.start_if_stopped(ms(400));
        assert_eq!(t.deadline(), ms(1000));
        t.restart(ms(500));
        assert_eq!(t.deadline(), ms(1500));
        // (5.5) an expiry doubles the RTO: restarted at 1.5 s it expires at 3.5 s.
        t.back_off();
        t.restart(ms(1500));
        assert_eq!(t.deadline(), ms(3500));
        // (5.2) everything acknowledged: stopped.
        t.stop();
        assert_eq!((t.is_running(), t.deadline()), (false, SimTime::MAX));
    }
}
