//! Slow-start exit for CUBIC (`cubic.hystart`): when to stop doubling before a
//! queue overflows, from RTT samples.
//!
//! * **`linux`**: HyStart as Linux's `tcp_cubic.c` runs it (Ha & Rhee 2011;
//!   `hystart_update`, `bictcp_hystart_reset`, defaults `hystart_detect` = both,
//!   `hystart_low_window` = 16, `hystart_ack_delta_us` = 2000). A round starts
//!   when snd_una passes the snd_nxt of the previous start. Only when cwnd ≥ 16:
//!   - *ACK train*: the ACKs of a round arrive each within 2 ms of the previous
//!     one; once the train has lasted more than (delay_min + ack_delay)/2, slow
//!     start ends. ack_delay = min(1 ms, 4 · 64 KB / pacing rate) is Linux's
//!     TSO/GRO cushion, with the pacing rate Linux computes in slow start,
//!     2 · cwnd · MSS / SRTT (`tcp_update_pacing_rate`).
//!   - *Delay*: after 8 RTT samples in a round, if the round's smallest sample
//!     exceeds delay_min + clamp(delay_min/8, 4 ms, 16 ms), slow start ends.
//!
//!   Ending slow start sets ssthresh = cwnd; HyStart then stays off until a
//!   timeout (`bictcp_reset` on entering Loss).
//! * **`rfc9406`**: HyStart++ (RFC 9406 §4.2), delay only. Each round (ends when
//!   snd_una reaches the snd_nxt of its start) keeps its smallest RTT; after 8
//!   samples, if it is at least the previous round's smallest + clamp(that/8,
//!   4 ms, 16 ms), the sender enters Conservative Slow Start (CSS): cwnd grows a
//!   quarter as fast (CSS_GROWTH_DIVISOR = 4). If a CSS round's smallest RTT falls
//!   below the one that started CSS, slow start resumes; after CSS_ROUNDS = 5 round
//!   ends in CSS, ssthresh = cwnd (congestion avoidance). L (the most one ACK adds)
//!   is `tcp.abc_limit` (RFC 9406: infinite without pacing).
//!
//! Simplified: Linux applies ssthresh = cwnd inside `pkts_acked`; here it takes
//! effect in the `cong_avoid` of the same ACK (the controller sees the sender state
//! read-only before), which is the same unless that ACK ends in recovery. Linux's
//! 1 s of ignored RTT samples after a reduction (`bictcp_acked`) only matters
//! outside slow start and is not modelled.

use serde::Deserialize;

use crate::time::SimTime;
use crate::transport::tcp::tcb::Tcb;

/// Which slow-start exit CUBIC uses.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum HystartMode {
    /// Standard slow start to the first loss (RFC 5681).
    #[default]
    Off,
    /// Linux's HyStart: ACK train and delay increase.
    Linux,
    /// HyStart++ (RFC 9406): delay increase, then Conservative Slow Start.
    Rfc9406,
}

/// Linux `hystart_low_window`: no detection below this cwnd.
const LOW_WINDOW: u32 = 16;
/// Linux `hystart_ack_delta_us`: the largest gap between ACKs of a train.
const ACK_DELTA: SimTime = SimTime::from_micros(2000);
/// Linux `GSO_MAX_SIZE`, for the ACK-train cushion.
const GSO_MAX_SIZE: f64 = 65536.0;
/// RTT samples per round before the delay test (Linux `HYSTART_MIN_SAMPLES`,
/// RFC 9406 N_RTT_SAMPLE).
const MIN_SAMPLES: u32 = 8;
/// Bounds of the delay threshold (Linux HYSTART_DELAY_MIN/MAX, RFC 9406
/// MIN_RTT_THRESH/MAX_RTT_THRESH); the threshold is the base RTT / 8.
const THRESH_MIN: SimTime = SimTime::from_millis(4);
const THRESH_MAX: SimTime = SimTime::from_millis(16);
/// RFC 9406 CSS_GROWTH_DIVISOR and CSS_ROUNDS.
const CSS_GROWTH_DIVISOR: u32 = 4;
const CSS_ROUNDS: u32 = 5;

/// clamp(rtt / 8, 4 ms, 16 ms): how far above its base RTT a round must be.
pub fn delay_threshold(base: SimTime) -> SimTime {
    SimTime::from_nanos(base.as_nanos() / 8).clamp(THRESH_MIN, THRESH_MAX)
}

#[derive(Clone, Debug, Default)]
pub struct Hystart {
    mode: HystartMode,
    /// The round ends when snd_una passes (Linux) or reaches (RFC 9406) this.
    round_end: Option<u64>,
    round_start: SimTime,
    /// Linux: the last ACK of the current train.
    last_ack: SimTime,
    /// Smallest RTT of this round and of the previous one.
    round_min: Option<SimTime>,
    last_round_min: Option<SimTime>,
    samples: u32,
    /// Smallest RTT ever (Linux `delay_min`).
    delay_min: Option<SimTime>,
    /// Linux: slow start was ended; RFC 9406: CSS gave way to congestion avoidance.
    found: bool,
    /// ssthresh = cwnd is due at the next `slow_start`.
    exit_due: bool,
    /// RFC 9406: in CSS, with the round minimum that started it.
    css_baseline: Option<SimTime>,
    css_rounds: u32,
    /// RFC 9406: segments acknowledged in CSS not yet turned into growth.
    css_acked: u32,
}

impl Hystart {
    pub fn new(mode: HystartMode) -> Self {
        Hystart {
            mode,
            ..Hystart::default()
        }
    }

    /// Whether CSS (RFC 9406) is in force.
    pub fn in_css(&self) -> bool {
        self.css_baseline.is_some()
    }

    /// A timeout: detection starts afresh (Linux `bictcp_reset` +
    /// `bictcp_hystart_reset` on entering Loss; RFC 9406 §4.2 after an RTO).
    pub fn reset(&mut self) {
        *self = Hystart::new(self.mode);
    }

    /// A loss or congestion event ends slow start by itself; nothing is due.
    pub fn on_congestion(&mut self) {
        self.exit_due = false;
        self.css_baseline = None;
    }

    /// An RTT sample from an ACK of new data (Linux `cubictcp_acked`), while
    /// cwnd < ssthresh.
    pub fn on_rtt(&mut self, tcb: &Tcb, now: SimTime, rtt: SimTime) {
        self.delay_min = Some(self.delay_min.map_or(rtt, |d| d.min(rtt)));
        if self.mode == HystartMode::Off || self.found || !tcb.in_slow_start() {
            return;
        }
        let round_over = match self.round_end {
            None => true,
            Some(end) if self.mode == HystartMode::Linux => tcb.snd_una > end,
            Some(end) => tcb.snd_una >= end,
        };
        if round_over {
            self.new_round(tcb, now);
        }
        match self.mode {
            HystartMode::Linux => self.linux_update(tcb, now, rtt),
            HystartMode::Rfc9406 => self.rfc9406_update(rtt),
            HystartMode::Off => {}
        }
    }

    fn new_round(&mut self, tcb: &Tcb, now: SimTime) {
        self.round_end = Some(tcb.snd_nxt);
        self.round_start = now;
        self.last_ack = now;
        self.last_round_min = self.round_min.take();
        self.samples = 0;
        if self.in_css() {
            self.css_rounds += 1;
            if self.css_rounds >= CSS_ROUNDS {
                self.found = true;
                self.exit_due = true;
                self.css_baseline = None;
            }
        }
    }

    fn note_sample(&mut self, rtt: SimTime) {
        self.round_min = Some(self.round_min.map_or(rtt, |m| m.min(rtt)));
    }

    fn linux_update(&mut self, tcb: &Tcb, now: SimTime, rtt: SimTime) {
        if tcb.cwnd < LOW_WINDOW {
            return;
        }
        let delay_min = self.delay_min.unwrap_or(rtt);
        if now - self.last_ack <= ACK_DELTA {
            self.last_ack = now;
            let threshold = SimTime::from_nanos((delay_min + ack_delay(tcb)).as_nanos() / 2);
            if now - self.round_start > threshold {
                self.exit();
            }
        }
        self.note_sample(rtt);
        if self.samples < MIN_SAMPLES {
            self.samples += 1;
        } else if self
            .round_min
            .is_some_and(|m| m > delay_min + delay_threshold(delay_min))
        {
            self.exit();
        }
    }

    fn exit(&mut self) {
        self.found = true;
        self.exit_due = true;
    }

    fn rfc9406_update(&mut self, rtt: SimTime) {
        self.note_sample(rtt);
        self.samples += 1;
        let (Some(current), Some(last)) = (self.round_min, self.last_round_min) else {
            return;
        };
        if self.samples < MIN_SAMPLES {
            return;
        }
        match self.css_baseline {
            None if current >= last + delay_threshold(last) => {
                self.css_baseline = Some(current);
                self.css_rounds = 0;
                self.css_acked = 0;
            }
            Some(baseline) if current < baseline => self.css_baseline = None,
            _ => {}
        }
    }

    /// Slow start with HyStart's exit (`Tcb::slow_start_then`'s contract: `None`
    /// when nothing is left for congestion avoidance).
    pub fn slow_start(&mut self, tcb: &mut Tcb, acked: u32) -> Option<u32> {
        if std::mem::take(&mut self.exit_due) && tcb.in_slow_start() {
            tcb.ssthresh = tcb.cwnd.max(2);
        }
        if !(self.in_css() && tcb.cwnd_limited && tcb.in_slow_start()) {
            return tcb.slow_start_then(acked);
        }
        // RFC 9406 §4.2: cwnd += min(N, L·SMSS) / CSS_GROWTH_DIVISOR.
        self.css_acked += acked.min(tcb.abc_limit);
        let grown = self.css_acked / CSS_GROWTH_DIVISOR;
        self.css_acked %= CSS_GROWTH_DIVISOR;
        tcb.cwnd = (tcb.cwnd + grown).min(tcb.cwnd_clamp);
        None
    }
}

/// Linux `hystart_ack_delay`: min(1 ms, 4 · GSO_MAX_SIZE / pacing rate), the
/// pacing rate being 2 · cwnd · MSS / SRTT in slow start; 0 before an SRTT.
fn ack_delay(tcb: &Tcb) -> SimTime {
    let Some(srtt) = tcb.srtt.filter(|s| *s > SimTime::ZERO) else {
        return SimTime::ZERO;
    };
    let rate = 2.0 * f64::from(tcb.cwnd) * f64::from(tcb.mss) / srtt.as_secs_f64();
    let cushion = SimTime::from_secs_f64(4.0 * GSO_MAX_SIZE / rate);
    cushion.min(SimTime::from_millis(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> SimTime {
        SimTime::from_millis(v)
    }

    fn tcb(cwnd: u32) -> Tcb {
        let mut t = Tcb::new(1000, cwnd);
        t.snd_nxt = 1000 * u64::from(cwnd);
        t
    }

    /// The next ACK starts a new round: snd_una passes the previous start's snd_nxt.
    fn next_round(t: &mut Tcb) {
        t.snd_una = t.snd_nxt + 1;
        t.snd_nxt += 100_000;
    }

    /// `n` samples of `rtt`, 3 ms apart (no ACK train), from `from`.
    fn samples(h: &mut Hystart, t: &Tcb, from: SimTime, n: u64, rtt: SimTime) {
        for i in 0..n {
            h.on_rtt(t, from + ms(3 * i), rtt);
        }
    }

    #[test]
    fn delay_threshold_is_an_eighth_of_the_rtt_within_4_and_16_ms() {
        // 20 ms / 8 = 2.5 ms → 4 ms; 80 ms / 8 = 10 ms; 200 ms / 8 = 25 ms → 16 ms.
        assert_eq!(delay_threshold(ms(20)), ms(4));
        assert_eq!(delay_threshold(ms(80)), ms(10));
        assert_eq!(delay_threshold(ms(200)), ms(16));
    }

    #[test]
    fn linux_delay_exit_after_eight_samples_above_min_plus_threshold() {
        // delay_min 50 ms: threshold 50 + clamp(6.25, 4, 16) = 56.25 ms. In the
        // second round, samples of 57 ms: the first 8 only count, the 9th tests
        // 57 > 56.25 and ends slow start: ssthresh = cwnd = 20.
        let mut h = Hystart::new(HystartMode::Linux);
        let mut t = tcb(20);
        samples(&mut h, &t, ms(0), 1, ms(50));
        next_round(&mut t);
        samples(&mut h, &t, ms(100), 8, ms(57));
        assert!(!h.exit_due);
        h.on_rtt(&t, ms(200), ms(57));
        assert!(h.exit_due);
        // The same ACK's growth is congestion avoidance's: cwnd = ssthresh = 20.
        assert_eq!(h.slow_start(&mut t, 1), Some(1));
        assert_eq!((t.ssthresh, t.cwnd), (20, 20));
        // Once found, HyStart is silent until a timeout resets it.
        assert!(h.found);
        h.reset();
        assert!(!h.found && h.delay_min.is_none());
    }

    #[test]
    fn linux_delay_stays_in_slow_start_below_threshold_or_low_window() {
        // 56 ms < 56.25 ms: no exit.
        let mut h = Hystart::new(HystartMode::Linux);
        let mut t = tcb(20);
        samples(&mut h, &t, ms(0), 1, ms(50));
        next_round(&mut t);
        samples(&mut h, &t, ms(100), 20, ms(56));
        assert!(!h.exit_due);
        // cwnd 15 < hystart_low_window 16: 57 ms samples are not tested.
        let mut h = Hystart::new(HystartMode::Linux);
        let mut t = tcb(15);
        samples(&mut h, &t, ms(0), 1, ms(50));
        next_round(&mut t);
        samples(&mut h, &t, ms(100), 20, ms(57));
        assert!(!h.exit_due);
    }

    #[test]
    fn linux_ack_train_exit_once_the_train_lasts_half_delay_min() {
        // delay_min 40 ms, SRTT 40 ms, cwnd 20, MSS 1000: pacing rate 2·20·1000 B /
        // 0.04 s = 1 MB/s; cushion min(1 ms, 4·65536/1e6 s = 262 ms) = 1 ms;
        // threshold (40 + 1)/2 = 20.5 ms. ACKs every 1 ms from the round start at
        // 0: at 20 ms the train has lasted 20 ms (not above), at 21 ms 21 > 20.5.
        let mut h = Hystart::new(HystartMode::Linux);
        let mut t = tcb(20);
        t.srtt = Some(ms(40));
        for i in 0..=20 {
            h.on_rtt(&t, ms(i), ms(40));
        }
        assert!(!h.exit_due);
        h.on_rtt(&t, ms(21), ms(40));
        assert!(h.exit_due);
    }

    #[test]
    fn linux_ack_train_broken_by_a_gap_above_2_ms() {
        // Same, but a 3 ms gap after 5 ms: last_ack stays at 5 ms, so no later ACK
        // of the round is within 2 ms of it.
        let mut h = Hystart::new(HystartMode::Linux);
        let mut t = tcb(20);
        t.srtt = Some(ms(40));
        for i in (0..=5).chain(8..=30) {
            h.on_rtt(&t, ms(i), ms(40));
        }
        assert!(!h.exit_due);
    }

    #[test]
    fn ack_delay_cushion_shrinks_at_high_rates() {
        // cwnd 20000, MSS 1500, SRTT 10 ms: rate 2·20000·1500/0.01 = 6e9 B/s;
        // 4·65536/6e9 s = 43 690.67 ns (< 1 ms), 43 691 ns to the nanosecond.
        let mut t = Tcb::new(1500, 20_000);
        t.srtt = Some(ms(10));
        assert_eq!(ack_delay(&t).as_nanos(), 43_691);
        t.srtt = None;
        assert_eq!(ack_delay(&t), SimTime::ZERO);
    }

    #[test]
    fn rfc9406_css_entry_growth_and_exit_after_five_rounds() {
        // Round 1: min RTT 100 ms. Round 2: threshold clamp(100/8 = 12.5, 4, 16) =
        // 12.5 ms; 8 samples of 113 ms ≥ 112.5 ms → CSS at the 8th.
        let mut h = Hystart::new(HystartMode::Rfc9406);
        let mut t = tcb(20);
        t.abc_limit = u32::MAX;
        samples(&mut h, &t, ms(0), 8, ms(100));
        next_round(&mut t);
        samples(&mut h, &t, ms(200), 7, ms(113));
        assert!(!h.in_css());
        h.on_rtt(&t, ms(230), ms(113));
        assert!(h.in_css());
        // CSS growth: cwnd += acked/4. Three ACKs of 1 segment: 3/4, no growth yet;
        // one ACK of 2 segments: 5/4 → +1, 1/4 kept; one of 7: 8/4 → +2.
        for _ in 0..3 {
            h.slow_start(&mut t, 1);
        }
        assert_eq!(t.cwnd, 20);
        h.slow_start(&mut t, 2);
        assert_eq!(t.cwnd, 21);
        h.slow_start(&mut t, 7);
        assert_eq!(t.cwnd, 23);
        // Five round ends in CSS (RTTs still high): congestion avoidance,
        // ssthresh = cwnd = 23 at the next growth.
        for r in 0..5 {
            assert!(!h.exit_due, "round {r}");
            next_round(&mut t);
            samples(&mut h, &t, ms(400 + 100 * r), 8, ms(113));
        }
        assert!(h.exit_due && !h.in_css());
        h.slow_start(&mut t, 1);
        assert_eq!(t.ssthresh, 23);
    }

    #[test]
    fn rfc9406_css_back_to_slow_start_when_rtt_falls_below_baseline() {
        // CSS entered with baseline 113 ms; next round's 8 samples of 105 ms < 113:
        // slow start resumes (cwnd + acked again).
        let mut h = Hystart::new(HystartMode::Rfc9406);
        let mut t = tcb(20);
        samples(&mut h, &t, ms(0), 8, ms(100));
        next_round(&mut t);
        samples(&mut h, &t, ms(200), 8, ms(113));
        assert!(h.in_css());
        next_round(&mut t);
        samples(&mut h, &t, ms(400), 8, ms(105));
        assert!(!h.in_css());
        h.slow_start(&mut t, 1);
        assert_eq!(t.cwnd, 21);
    }

    #[test]
    fn off_is_standard_slow_start() {
        let mut h = Hystart::new(HystartMode::Off);
        let mut t = tcb(20);
        samples(&mut h, &t, ms(0), 8, ms(100));
        next_round(&mut t);
        samples(&mut h, &t, ms(200), 20, ms(300));
        assert!(!h.exit_due && !h.in_css());
        h.slow_start(&mut t, 1);
        assert_eq!(
            (t.cwnd, t.ssthresh),
            (21, crate::transport::tcp::tcb::INFINITE_SSTHRESH)
        );
    }
}
