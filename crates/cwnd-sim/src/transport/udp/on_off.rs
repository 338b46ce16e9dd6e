//! On/off sources, as ns-2's `Application/Traffic/Exponential` (tools/expoo.cc) and
//! `Application/Traffic/Pareto` (tools/pareto.cc).
//!
//! Parameters: mean burst time, mean idle time, peak rate (the rate during a
//! burst), packet size, and for Pareto the shape α. During a burst datagrams leave
//! every I = size × 8 / rate. ns-2 draws a burst as a number of datagrams, not a
//! time: n = ⌊x + ½⌋, at least 1, where x has mean burst_time / I; the idle time is
//! drawn at the start of each burst and added to the gap before its first datagram
//! (`next_interval`: t = I, plus the idle time when a new burst begins). The first
//! datagram leaves one gap after the start (`TrafficGenerator::start` schedules
//! `next_interval` and does not send at once), so a source begins idle.
//!
//! Laws (ns-2's `Random::pareto(scale, shape)` is scale · U^(−1/shape)):
//! * exponential: x ~ Exp(mean burst_time / I), idle ~ Exp(mean idle_time);
//! * Pareto: x ~ Pareto(scale = (burst_time / I)(α − 1)/α, α), idle ~
//!   Pareto(scale = idle_time (α − 1)/α, α); both means are as given when α > 1.
//!
//! A cycle lasts n·I + idle on average, so the mean rate is
//! peak × burst_time / (burst_time + idle_time), up to the rounding of n (E[⌊x + ½⌋]
//! differs from E[x] by less than 1/(24 E[x]) datagram for the exponential law).

use rand::RngExt;

use crate::rng::RngStream;
use crate::time::SimTime;

/// The law of burst lengths and idle times.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OnOffLaw {
    Exponential,
    /// Pareto with shape α > 1.
    Pareto {
        shape: f64,
    },
}

#[derive(Clone, Debug)]
pub struct OnOff {
    law: OnOffLaw,
    /// Gap between datagrams of a burst, seconds.
    interval: f64,
    /// Mean burst in datagrams (burst_time / I), and mean idle time in seconds.
    burst_packets: f64,
    idle: f64,
    /// Datagrams left in the current burst.
    remaining: u64,
    /// Time of the last datagram (the start before the first).
    clock: SimTime,
}

impl OnOff {
    pub fn new(
        law: OnOffLaw,
        start: SimTime,
        packet_size: u32,
        rate_bps: u64,
        burst_time: SimTime,
        idle_time: SimTime,
    ) -> Self {
        let interval = packet_size as f64 * 8.0 / rate_bps as f64;
        OnOff {
            law,
            interval,
            burst_packets: burst_time.as_secs_f64() / interval,
            idle: idle_time.as_secs_f64(),
            remaining: 0,
            clock: start,
        }
    }

    /// The time of the next datagram.
    pub fn next_send(&mut self, rng: &mut RngStream) -> SimTime {
        let mut gap = self.interval;
        if self.remaining == 0 {
            self.remaining = self.draw_burst(rng);
            gap += self.draw(rng, self.idle);
        }
        self.remaining -= 1;
        self.clock += SimTime::from_secs_f64(gap);
        self.clock
    }

    /// Datagrams in a new burst: ⌊x + ½⌋, at least 1.
    pub fn draw_burst(&self, rng: &mut RngStream) -> u64 {
        let x = self.draw(rng, self.burst_packets);
        ((x + 0.5).floor() as u64).max(1)
    }

    /// A draw of the law with mean `mean`.
    fn draw(&self, rng: &mut RngStream, mean: f64) -> f64 {
        // 1 − U is in (0, 1]: the logarithm and the power stay finite.
        let u = 1.0 - rng.random::<f64>();
        match self.law {
            OnOffLaw::Exponential => -mean * u.ln(),
            OnOffLaw::Pareto { shape } => mean * (shape - 1.0) / shape * u.powf(-1.0 / shape),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng;

    const MS: u64 = 1_000_000;

    fn source(law: OnOffLaw) -> OnOff {
        // 500 B at 2 Mb/s: I = 2 ms; bursts of 500 ms = 250 datagrams on average.
        OnOff::new(
            law,
            SimTime::ZERO,
            500,
            2_000_000,
            SimTime::from_millis(500),
            SimTime::from_millis(500),
        )
    }

    #[test]
    fn a_burst_is_sent_at_the_peak_rate_after_an_idle_gap() {
        // The first gap is I + idle; the rest of the burst follows every I = 2 ms.
        let mut r = rng::stream(3, "t");
        let mut s = source(OnOffLaw::Exponential);
        let first = s.next_send(&mut r);
        assert!(first.as_nanos() >= 2 * MS);
        let n = s.remaining + 1;
        let mut prev = first;
        for _ in 1..n {
            let t = s.next_send(&mut r);
            assert_eq!((t - prev).as_nanos(), 2 * MS);
            prev = t;
        }
        // The next burst begins after I plus a fresh idle time.
        let next = s.next_send(&mut r);
        assert!((next - prev).as_nanos() >= 2 * MS);
    }

    #[test]
    fn the_mean_rate_is_the_peak_times_on_over_on_plus_off() {
        // Expected: 2 Mb/s × 0.5 / (0.5 + 0.5) = 1 Mb/s, i.e. a duty cycle of ½.
        // Bound: over N cycles the duty cycle is A/(A + B), A and B sums of N
        // exponentials of mean 0.5 s (sd 0.5 s). Delta method at A = B = N/2:
        // ∂/∂A = B/(A+B)² = 1/(2N), ∂/∂B = −1/(2N); variance (1/(2N))² · 2 · N/4 =
        // 1/(8N). 20 000 s hold N ≈ 20 000 cycles: sd = 1/√160 000 = 0.0025; 5 sd =
        // 0.0125, i.e. ±25 kb/s. (The rounding of n moves the mean by < 1/6000.)
        let mut r = rng::stream(11, "t");
        let mut s = source(OnOffLaw::Exponential);
        let end = SimTime::from_secs(20_000);
        let mut sent = 0u64;
        while s.next_send(&mut r) < end {
            sent += 1;
        }
        let rate = sent as f64 * 500.0 * 8.0 / 20_000.0;
        assert!((rate - 1_000_000.0).abs() < 25_000.0, "{rate}");
    }

    #[test]
    fn pareto_bursts_have_the_quantiles_and_shape_of_their_law() {
        // α = 1.5, mean 250 datagrams: scale x_m = 250 · 0.5 / 1.5 = 83.33. The
        // q-quantile is x_m (1 − q)^(−1/α): median 83.33 · 2^(2/3) = 132.3, 0.9
        // quantile 83.33 · 10^(2/3) = 386.8. Rounding to whole datagrams moves a
        // quantile by at most ½. Sampling sd of the q-quantile of N draws is
        // √(q(1−q)/N) / f(x_q), f(x) = α x_m^α / x^(α+1): at the median f = 1.5 ·
        // 0.5 / 132.3 = 5.67e-3, sd = 0.5/√1e5 / 5.67e-3 = 0.279; at 0.9 f = 1.5 ·
        // 0.1 / 386.8 = 3.88e-4, sd = 0.3/√1e5 / 3.88e-4 = 2.45. Bounds: 5 sd + ½.
        // The shape from two quantiles: α = ln(10/2) / ln(x_0.9 / x_0.5); its
        // sensitivity is ln 5 / ln²(2.924) / x = 1.40/x, so sd ≈ √((1.40 · 2.45 /
        // 386.8)² + (1.40 · 0.279 / 132.3)²) = 0.0094; bound 5 sd ≈ 0.05.
        let mut r = rng::stream(5, "t");
        let s = source(OnOffLaw::Pareto { shape: 1.5 });
        let n = 100_000;
        let mut bursts: Vec<u64> = (0..n).map(|_| s.draw_burst(&mut r)).collect();
        bursts.sort_unstable();
        let median = bursts[n / 2] as f64;
        let q90 = bursts[9 * n / 10] as f64;
        assert!((median - 132.3).abs() < 5.0 * 0.279 + 0.5, "{median}");
        assert!((q90 - 386.8).abs() < 5.0 * 2.45 + 0.5, "{q90}");
        let shape = (5.0f64).ln() / (q90 / median).ln();
        assert!((shape - 1.5).abs() < 0.05, "{shape}");
        assert_eq!(bursts[0], 83, "the least burst is the scale, rounded");
    }
}
