//! PIE, Proportional Integral controller Enhanced (R. Pan, P. Natarajan, F. Baker,
//! G. White, RFC 8033, 2017; Linux net/sched/sch_pie.c, include/net/pie.h). PIE drops
//! arrivals at random with a probability p that a controller updates every `tupdate`
//! from the queueing delay:
//!
//! ```text
//! every tupdate:  Δp = α·(qdelay − target) + β·(qdelay − qdelay_old)   (α, β in 1/s)
//!     auto-tuning: while p < 10 %, α and β are halved; below 1 %, 0.1 %, …, 10⁻⁶
//!     (four more decades) each divides them by 4 again (÷8 under 1 %, … ÷2048)
//!     p ≥ 10 % and Δp > 2 % → Δp = 2 %;  qdelay > 250 ms → Δp += 2 %
//!     p ← clamp(p + Δp, 0, 1);  qdelay = qdelay_old = 0 → p ← p − p/64 (decay)
//!     qdelay and qdelay_old < target/2 and p = 0 → reset the burst allowance and
//!     the rate measurement
//! on arrival:  queue full → drop (overflow);  else drop early unless
//!     burst allowance left, or (qdelay < target/2 and p < 20 %), or backlog < 2·mtu;
//!     de-randomisation: accu += p (accu = 0 when p = 0); accu < 0.85 → keep;
//!     accu ≥ 8.5 → drop; else drop with probability p; a drop resets accu
//! on dequeue:  qdelay = sojourn of the packet leaving (0 if the queue is now empty),
//!     and the burst allowance (150 ms) shrinks by the time since the last dequeue;
//!     or, with the dequeue-rate estimator (RFC 8033 §5.3), qdelay = backlog /
//!     average drain rate, measured over 16 KiB of departures while the queue holds
//!     16 KiB or more (EWMA weight 1/8), the allowance shrinking by each measurement's
//!     span
//! ```
//!
//! Where the RFC leaves room this follows Linux: queueing delay from timestamps by
//! default (`dq_rate_estimator` off), the decay by 1/64 (the RFC's 2 %: "1 − 1/64 is
//! sufficient"), de-randomisation on, the first update 500 ms after start
//! (`mod_timer(jiffies + HZ/2)`), then every `tupdate`. Probabilities are in floating
//! point and times exact to the nanosecond, where Linux uses 56-bit fixed point and
//! 64-ns ticks. The periodic update runs lazily: before any arrival or departure at
//! `now`, every update due at or before `now` is made (updates change nothing but the
//! controller, whose inputs only move with packets), so a PIE queue costs no events.
//!
//! Defaults (Linux `pie_params_init`): target 15 ms, tupdate 15 ms, α 0.125 and β
//! 1.25 (Linux's 2 and 20 in units of 1/16), burst allowance 150 ms, limit 1000
//! packets, mtu 1500 B (Linux: `psched_mtu`), byte mode off. ns-3 3.44's
//! `PieQueueDisc` differs: limit 25 packets, updates from 0 s, de-randomisation off,
//! and `MeanPktSize` (1000 B) where Linux uses the MTU for the 2-packet floor. No
//! ECN yet (Linux's `ecn` is off by default for `pie`).

use rand::RngExt;

use super::codel::check_limit;
use super::fifo::PacketFifo;
use super::{Admission, DropCause, Dropped, QueueDiscipline, Queued};
use crate::net::queue::QueueLimit;
use crate::packet::Packet;
use crate::rng::RngStream;
use crate::time::SimTime;

/// PIE's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PieConfig {
    /// The queueing delay PIE steers to (QDELAY_REF).
    pub target: SimTime,
    /// Period of the probability update (T_UPDATE).
    pub tupdate: SimTime,
    /// When the first update is made (Linux: 500 ms after the queue starts).
    pub first_update: SimTime,
    /// Gain on the delay's distance to target, per second.
    pub alpha: f64,
    /// Gain on the delay's change since the last update, per second.
    pub beta: f64,
    /// Time from start (or from a reset) during which nothing is dropped early.
    pub max_burst: SimTime,
    /// Arrivals beyond it are dropped (overflow).
    pub limit: QueueLimit,
    /// One packet's worth of bytes: under 2·mtu queued PIE never drops early.
    pub mtu: u32,
    /// Scale a packet's drop probability by its size over mtu.
    pub bytemode: bool,
    /// Queueing delay from the departure rate (Little's law) instead of timestamps.
    pub dq_rate_estimator: bool,
    /// De-randomise drops with the accumulated probability (RFC 8033 §5.1).
    pub derandomize: bool,
}

impl Default for PieConfig {
    fn default() -> Self {
        PieConfig {
            target: SimTime::from_millis(15),
            tupdate: SimTime::from_millis(15),
            first_update: SimTime::from_millis(500),
            alpha: 0.125,
            beta: 1.25,
            max_burst: SimTime::from_millis(150),
            limit: QueueLimit::Packets(1000),
            mtu: 1500,
            bytemode: false,
            dq_rate_estimator: false,
            derandomize: true,
        }
    }
}

impl PieConfig {
    /// The first parameter out of its range, as (name, message).
    pub fn check(&self) -> Result<(), (String, String)> {
        for (name, t) in [("target", self.target), ("tupdate", self.tupdate)] {
            if t == SimTime::ZERO {
                return Err((name.into(), "0 s is not allowed; use more than 0 s".into()));
            }
        }
        for (name, gain) in [("alpha", self.alpha), ("beta", self.beta)] {
            if !(gain.is_finite() && gain >= 0.0) {
                return Err((name.into(), format!("{gain} is not allowed; use 0 or more")));
            }
        }
        if self.mtu == 0 {
            return Err(("mtu".into(), "0 B is not allowed; use 1 B or more".into()));
        }
        check_limit(self.limit)
    }
}

/// Bytes of departures over which the drain rate is measured, and the backlog from
/// which it is (Linux `QUEUE_THRESHOLD`, ns-3 `DequeueThreshold`).
const DQ_THRESHOLD: u64 = 16_384;
/// Delay above which p grows by 2 % more per update (Linux; RFC 8033 §4.2).
const HIGH_DELAY: SimTime = SimTime::from_millis(250);

/// PIE's state (Linux's `struct pie_vars`), for one queue or one flow of FQ-PIE.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Pie {
    prob: f64,
    accu_prob: f64,
    qdelay: SimTime,
    qdelay_old: SimTime,
    burst_time: SimTime,
    /// Last departure (timestamps), or start of the rate measurement (estimator).
    dq_tstamp: Option<SimTime>,
    /// Bytes departed in the rate measurement under way.
    dq_count: Option<u64>,
    /// Average drain rate in bytes per nanosecond (0: none measured yet).
    avg_dq_rate: f64,
    next_update: SimTime,
}

impl Pie {
    pub fn new(config: &PieConfig) -> Self {
        Pie {
            prob: 0.0,
            accu_prob: 0.0,
            qdelay: SimTime::ZERO,
            qdelay_old: SimTime::ZERO,
            burst_time: config.max_burst,
            dq_tstamp: None,
            dq_count: None,
            avg_dq_rate: 0.0,
            next_update: config.first_update,
        }
    }

    /// Linux's `pie_vars_init` (which leaves p and the delays alone).
    fn restart_measurement(&mut self, config: &PieConfig) {
        self.burst_time = config.max_burst;
        self.dq_tstamp = None;
        self.accu_prob = 0.0;
        self.dq_count = None;
        self.avg_dq_rate = 0.0;
    }

    /// Makes every update due at or before `now`, the queue holding `backlog` bytes
    /// all along. Once an update changes nothing the rest would not either.
    pub fn catch_up(&mut self, config: &PieConfig, now: SimTime, backlog: u64) {
        while self.next_update <= now {
            let before = *self;
            self.update_probability(config, backlog);
            self.next_update += config.tupdate;
            let unchanged = *self
                == Pie {
                    next_update: self.next_update,
                    ..before
                };
            if unchanged && self.next_update <= now {
                let missed = (now - self.next_update).as_nanos() / config.tupdate.as_nanos();
                self.next_update += config.tupdate.saturating_mul(missed + 1);
            }
        }
    }

    /// Linux's `pie_calculate_probability`.
    fn update_probability(&mut self, config: &PieConfig, backlog: u64) {
        let (qdelay, qdelay_old) = if config.dq_rate_estimator {
            self.qdelay_old = self.qdelay;
            let q = if self.avg_dq_rate > 0.0 {
                SimTime((backlog as f64 / self.avg_dq_rate) as u64)
            } else {
                SimTime::ZERO
            };
            (q, self.qdelay)
        } else {
            (self.qdelay, self.qdelay_old)
        };
        // A backlog too small to show a delay: no decay this round.
        let mut update_prob = !(qdelay == SimTime::ZERO && backlog != 0);
        let (mut alpha, mut beta) = (config.alpha, config.beta);
        if self.prob < 0.1 {
            alpha /= 2.0;
            beta /= 2.0;
            let mut power = 100u32;
            while self.prob < 1.0 / power as f64 && power <= 1_000_000 {
                alpha /= 4.0;
                beta /= 4.0;
                power *= 10;
            }
        }
        let secs = |t: SimTime| t.as_nanos() as f64 * 1e-9;
        let mut delta =
            alpha * (secs(qdelay) - secs(config.target)) + beta * (secs(qdelay) - secs(qdelay_old));
        if delta > 0.02 && self.prob >= 0.1 {
            delta = 0.02;
        }
        if qdelay > HIGH_DELAY {
            delta += 0.02;
        }
        self.prob += delta;
        if self.prob > 1.0 {
            self.prob = 1.0;
            update_prob = false;
        } else if self.prob < 0.0 {
            self.prob = 0.0;
        }
        if qdelay == SimTime::ZERO && qdelay_old == SimTime::ZERO && update_prob {
            self.prob -= self.prob / 64.0;
        }
        self.qdelay = qdelay;
        let half = SimTime(config.target.as_nanos() / 2);
        if self.qdelay < half
            && self.qdelay_old < half
            && self.prob == 0.0
            && (!config.dq_rate_estimator || self.avg_dq_rate > 0.0)
        {
            self.restart_measurement(config);
        }
        if !config.dq_rate_estimator {
            self.qdelay_old = qdelay;
        }
    }

    /// Linux's `pie_drop_early`, before a packet of `size` bytes joins `backlog`.
    pub fn drop_early(
        &mut self,
        config: &PieConfig,
        backlog: u64,
        size: u32,
        rng: &mut RngStream,
    ) -> bool {
        if self.burst_time > SimTime::ZERO {
            return false;
        }
        if self.qdelay < SimTime(config.target.as_nanos() / 2) && self.prob < 0.2 {
            return false;
        }
        if backlog < 2 * config.mtu as u64 {
            return false;
        }
        let p = if config.bytemode && size <= config.mtu {
            self.prob * size as f64 / config.mtu as f64
        } else {
            self.prob
        };
        if !config.derandomize {
            return rng.random::<f64>() < p;
        }
        if p == 0.0 {
            self.accu_prob = 0.0;
        } else {
            self.accu_prob += p;
        }
        if self.accu_prob < 0.85 {
            return false;
        }
        if self.accu_prob >= 8.5 {
            return true;
        }
        if rng.random::<f64>() < p {
            self.accu_prob = 0.0;
            return true;
        }
        false
    }

    /// An arrival was dropped (early or overflow): the accumulation restarts.
    pub fn dropped(&mut self) {
        self.accu_prob = 0.0;
    }

    /// Linux's `pie_process_dequeue`: `departed` left at `now`, `backlog` bytes stay.
    pub fn departed(&mut self, config: &PieConfig, now: SimTime, departed: &Queued, backlog: u64) {
        let dtime;
        if !config.dq_rate_estimator {
            self.qdelay = if backlog == 0 {
                SimTime::ZERO
            } else {
                now.saturating_sub(departed.arrived)
            };
            dtime = self
                .dq_tstamp
                .map_or(SimTime::ZERO, |t| now.saturating_sub(t));
            self.dq_tstamp = Some(now);
            if dtime == SimTime::ZERO {
                return;
            }
        } else {
            if backlog >= DQ_THRESHOLD && self.dq_count.is_none() {
                self.dq_tstamp = Some(now);
                self.dq_count = Some(0);
            }
            let (Some(count), Some(since)) = (self.dq_count, self.dq_tstamp) else {
                return;
            };
            let count = count + departed.packet.size as u64;
            self.dq_count = Some(count);
            if count < DQ_THRESHOLD {
                return;
            }
            dtime = now.saturating_sub(since);
            if dtime == SimTime::ZERO {
                return;
            }
            let rate = count as f64 / dtime.as_nanos() as f64;
            self.avg_dq_rate = if self.avg_dq_rate == 0.0 {
                rate
            } else {
                self.avg_dq_rate - self.avg_dq_rate / 8.0 + rate / 8.0
            };
            if backlog < DQ_THRESHOLD {
                self.dq_count = None;
            } else {
                self.dq_count = Some(0);
                self.dq_tstamp = Some(now);
            }
        }
        self.burst_time = self.burst_time.saturating_sub(dtime);
    }
}

#[cfg(test)]
impl Pie {
    /// Sets the probability and the delay, the burst allowance spent (FQ-PIE's tests).
    pub fn force(&mut self, prob: f64, qdelay: SimTime) {
        self.prob = prob;
        self.qdelay = qdelay;
        self.burst_time = SimTime::ZERO;
    }

    pub fn delay(&self) -> SimTime {
        self.qdelay
    }
}

/// PIE in front of one FIFO (Linux's `pie` qdisc).
pub struct PieQueue {
    config: PieConfig,
    pie: Pie,
    fifo: PacketFifo,
    rng: RngStream,
}

impl PieQueue {
    /// Drops are drawn from `rng` (the link's named stream).
    pub fn new(config: PieConfig, rng: RngStream) -> Self {
        PieQueue {
            pie: Pie::new(&config),
            config,
            fifo: PacketFifo::default(),
            rng,
        }
    }
}

impl QueueDiscipline for PieQueue {
    /// Linux's `pie_qdisc_enqueue`.
    fn enqueue(
        &mut self,
        now: SimTime,
        packet: Packet,
        _idle_since: Option<SimTime>,
        _dropped: &mut Vec<Dropped>,
    ) -> Admission {
        let backlog = self.fifo.bytes();
        self.pie.catch_up(&self.config, now, backlog);
        let cause = if !self
            .config
            .limit
            .admits(self.fifo.len(), backlog, packet.size)
        {
            DropCause::Overflow
        } else if self
            .pie
            .drop_early(&self.config, backlog, packet.size, &mut self.rng)
        {
            DropCause::Early
        } else {
            self.fifo.push(Queued {
                packet,
                arrived: now,
            });
            return Admission::Queued;
        };
        self.pie.dropped();
        Admission::Dropped(cause)
    }

    fn dequeue(&mut self, now: SimTime, _dropped: &mut Vec<Dropped>) -> Option<Queued> {
        self.pie.catch_up(&self.config, now, self.fifo.bytes());
        let q = self.fifo.pop()?;
        self.pie.departed(&self.config, now, &q, self.fifo.bytes());
        Some(q)
    }

    fn packets(&self) -> usize {
        self.fifo.len()
    }

    fn bytes(&self) -> u64 {
        self.fifo.bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_packets::packet;
    use super::*;
    use crate::rng;

    fn ms(t: u64) -> SimTime {
        SimTime::from_millis(t)
    }

    /// PIE's state with p and the delays set, the burst allowance spent.
    fn pie_at(prob: f64, qdelay: SimTime, qdelay_old: SimTime) -> Pie {
        Pie {
            prob,
            qdelay,
            qdelay_old,
            burst_time: SimTime::ZERO,
            ..Pie::new(&PieConfig::default())
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn the_update_is_proportional_and_integral_with_auto_tuned_gains() {
        let c = PieConfig::default();
        // p = 0.2 (no scaling): qdelay 25 ms, old 20 ms:
        // Δp = 0.125·(0.025 − 0.015) + 1.25·(0.025 − 0.020) = 0.00125 + 0.00625 = 0.0075.
        let mut pie = pie_at(0.2, ms(25), ms(20));
        pie.update_probability(&c, 100_000);
        assert!(close(pie.prob, 0.2075), "{}", pie.prob);
        // p = 0.05 (< 10 %: α, β halved): the same delays give Δp = 0.0075 / 2.
        let mut pie = pie_at(0.05, ms(25), ms(20));
        pie.update_probability(&c, 100_000);
        assert!(close(pie.prob, 0.05 + 0.00375), "{}", pie.prob);
        // p = 0.005 (< 1 %: ÷2 then ÷4 = ÷8): Δp = 0.0075 / 8 = 0.0009375.
        let mut pie = pie_at(0.005, ms(25), ms(20));
        pie.update_probability(&c, 100_000);
        assert!(close(pie.prob, 0.005 + 0.000_937_5), "{}", pie.prob);
        // p = 0 (under every decade down to 10⁻⁶: ÷2·4⁵ = ÷2048):
        // Δp = 0.0075 / 2048 = 3.662109375e-6.
        let mut pie = pie_at(0.0, ms(25), ms(20));
        pie.update_probability(&c, 100_000);
        assert!(close(pie.prob, 0.0075 / 2048.0), "{}", pie.prob);
        // The delay of the update becomes the next one's old delay.
        assert_eq!((pie.qdelay, pie.qdelay_old), (ms(25), ms(25)));
    }

    #[test]
    fn large_steps_are_capped_and_high_delays_push_harder() {
        let c = PieConfig::default();
        // p = 0.5, qdelay 100 ms, old 20 ms: Δp = 0.125·0.085 + 1.25·0.08 = 0.110625
        // > 2 % with p ≥ 10 %: Δp = 0.02 → 0.52.
        let mut pie = pie_at(0.5, ms(100), ms(20));
        pie.update_probability(&c, 100_000);
        assert!(close(pie.prob, 0.52), "{}", pie.prob);
        // qdelay 300 ms > 250 ms, old 300 ms: Δp = 0.125·0.285 = 0.035625, capped to
        // 0.02, plus 0.02 → 0.54.
        let mut pie = pie_at(0.5, ms(300), ms(300));
        pie.update_probability(&c, 100_000);
        assert!(close(pie.prob, 0.54), "{}", pie.prob);
        // p is kept in [0, 1].
        let mut pie = pie_at(0.99, ms(300), ms(300));
        pie.update_probability(&c, 100_000);
        assert_eq!(pie.prob, 1.0);
    }

    #[test]
    fn an_empty_queue_decays_p_by_one_sixty_fourth() {
        // qdelay = qdelay_old = 0, empty queue, p = 0.64 (≥ 10 %: gains unscaled):
        // Δp = 0.125·(0 − 0.015) = −0.001875 → 0.638125; then the decay takes
        // 0.638125/64 off: 0.628154296875.
        let mut pie = pie_at(0.64, SimTime::ZERO, SimTime::ZERO);
        pie.update_probability(&PieConfig::default(), 0);
        assert!(
            close(pie.prob, 0.638_125 - 0.638_125 / 64.0),
            "{}",
            pie.prob
        );
    }

    #[test]
    fn low_delay_and_zero_probability_restart_the_burst_allowance() {
        // p reaches 0 with both delays under 7.5 ms: burst allowance back to 150 ms.
        let mut pie = pie_at(0.0, ms(1), ms(1));
        pie.update_probability(&PieConfig::default(), 3000);
        assert_eq!(pie.prob, 0.0);
        assert_eq!(pie.burst_time, ms(150));
    }

    #[test]
    fn no_early_drop_in_the_burst_allowance_under_low_delay_or_two_packets() {
        let c = PieConfig::default();
        let mut rng = rng::stream(1, "pie");
        // Fresh state: 150 ms of burst allowance.
        let mut pie = Pie::new(&c);
        pie.prob = 1.0;
        assert!(!pie.drop_early(&c, 100_000, 1500, &mut rng));
        // qdelay 7 ms < 7.5 ms and p 0.19 < 0.2.
        let mut pie = pie_at(0.19, ms(7), ms(7));
        assert!(!pie.drop_early(&c, 100_000, 1500, &mut rng));
        // 2999 B < 2·1500 B queued.
        let mut pie = pie_at(1.0, ms(20), ms(20));
        assert!(!pie.drop_early(&c, 2999, 1500, &mut rng));
        assert!(pie.drop_early(&c, 3000, 1500, &mut rng));
    }

    #[test]
    fn derandomisation_spaces_drops_by_the_accumulated_probability() {
        // p = 0.1: accu = 0.1, 0.2, … stays under 0.85 for 8 arrivals (no draw, no
        // drop); from the 9th (accu 0.9) each arrival draws; at accu ≥ 8.5 a drop is
        // certain: 85 additions of 0.1 make 8.499999999999986 in floating point, so
        // that is the 86th. Between drops: at least 9 arrivals, at most 86.
        let c = PieConfig::default();
        let mut rng = rng::stream(3, "pie");
        let mut pie = pie_at(0.1, ms(20), ms(20));
        let mut gaps = Vec::new();
        let mut since = 0;
        while gaps.len() < 2000 {
            since += 1;
            if pie.drop_early(&c, 100_000, 1500, &mut rng) {
                pie.dropped();
                gaps.push(since);
                since = 0;
            }
        }
        assert!(gaps.iter().all(|&g| (9..=86).contains(&g)));
        // Draws from the 9th arrival on at p = 0.1: the gap is 8 + a geometric number
        // of draws with mean 10: mean gap 18 (the cap changes it by 0.9⁷⁷·… < 10⁻³). 2000 gaps:
        // standard error √90/√2000 = 0.21; allow ±1 (4.7 standard errors).
        let mean = gaps.iter().sum::<u32>() as f64 / gaps.len() as f64;
        assert!((mean - 18.0).abs() < 1.0, "mean gap {mean}");
    }

    #[test]
    fn timestamps_give_the_delay_and_spend_the_burst_allowance() {
        // Dequeues at 10 and 30 ms of packets that arrived at 0: qdelay 30 ms at the
        // second; the allowance loses 30 − 10 = 20 ms (the first dequeue starts the
        // clock). The queue emptied by a dequeue shows qdelay 0.
        let c = PieConfig::default();
        let mut q = PieQueue::new(c, rng::stream(1, "pie"));
        for uid in 0..3 {
            q.enqueue(SimTime::ZERO, packet(uid, 0, 1500), None, &mut Vec::new());
        }
        q.dequeue(ms(10), &mut Vec::new());
        q.dequeue(ms(30), &mut Vec::new());
        assert_eq!(q.pie.qdelay, ms(30));
        assert_eq!(q.pie.burst_time, ms(130));
        q.dequeue(ms(40), &mut Vec::new());
        assert_eq!(q.pie.qdelay, SimTime::ZERO);
    }

    #[test]
    fn the_rate_estimator_measures_sixteen_kib_of_departures() {
        // Estimator on. 20 packets of 1500 B queued (30 000 B ≥ 16 384): the first
        // dequeue at 1 ms starts the measurement (count 1500); packets leave every
        // 1.2 ms. After 11 departures count = 16 500 ≥ 16 384 at 1 + 10·1.2 = 13 ms:
        // rate = 16 500 B / 12 ms = 1.375 B/µs. The update at 500 ms with 9 packets
        // (13 500 B) queued: qdelay = 13 500 / 1.375 B/µs = 9.818181 ms.
        let c = PieConfig {
            dq_rate_estimator: true,
            ..Default::default()
        };
        let mut q = PieQueue::new(c, rng::stream(1, "pie"));
        for uid in 0..20 {
            q.enqueue(SimTime::ZERO, packet(uid, 0, 1500), None, &mut Vec::new());
        }
        for k in 0..11 {
            q.dequeue(SimTime(1_000_000 + k * 1_200_000), &mut Vec::new());
        }
        assert!(close(q.pie.avg_dq_rate, 16_500.0 / 12_000_000.0));
        q.pie.catch_up(&c, ms(500), q.fifo.bytes());
        assert_eq!(q.pie.qdelay, SimTime(9_818_181));
    }

    #[test]
    fn updates_come_every_tupdate_from_the_first() {
        // First update at 500 ms, then 515, 530 …: by 529 ms two have been made, the
        // delay held at 30 ms. The first, from p = 0 (gains ÷ 2·4⁵ = 2048) with
        // qdelay_old 0: Δp = (0.125·0.015 + 1.25·0.03)/2048 = 1.9226e-5. The second,
        // with qdelay_old now 30 ms, only the α term, at p = 1.92e-5 (under 10⁻⁴, not
        // 10⁻⁵: gains ÷ 2·4³ = 128): Δp = 0.125·0.015/128.
        let c = PieConfig::default();
        let mut pie = pie_at(0.0, ms(30), SimTime::ZERO);
        pie.catch_up(&c, ms(529), 50_000);
        assert_eq!(pie.next_update, ms(530));
        let first = (0.125 * 0.015 + 1.25 * 0.03) / 2048.0;
        let second = 0.125 * 0.015 / 128.0;
        assert!(close(pie.prob, first + second), "{}", pie.prob);
    }

    #[test]
    fn check_names_the_parameter_out_of_range() {
        let bad = |c: PieConfig| c.check().unwrap_err().0;
        let d = PieConfig::default();
        assert!(d.check().is_ok());
        assert_eq!(
            bad(PieConfig {
                target: SimTime::ZERO,
                ..d
            }),
            "target"
        );
        assert_eq!(
            bad(PieConfig {
                tupdate: SimTime::ZERO,
                ..d
            }),
            "tupdate"
        );
        assert_eq!(bad(PieConfig { alpha: -1.0, ..d }), "alpha");
        assert_eq!(
            bad(PieConfig {
                beta: f64::NAN,
                ..d
            }),
            "beta"
        );
        assert_eq!(
            bad(PieConfig {
                limit: QueueLimit::Bytes(0),
                ..d
            }),
            "limit"
        );
    }
}
