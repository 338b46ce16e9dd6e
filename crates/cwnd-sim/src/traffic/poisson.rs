//! A Poisson arrival process: exponential gaps of mean 1/λ (the arrivals of
//! FTP files and of Web sessions).

use super::open_unit;
use crate::rng::RngStream;
use crate::time::SimTime;

pub struct PoissonArrivals {
    mean_gap_s: f64,
    next: SimTime,
    rng: RngStream,
}

impl PoissonArrivals {
    /// Arrivals at `rate` per second, the first one gap after `start`.
    pub fn new(start: SimTime, rate: f64, rng: RngStream) -> Self {
        let mut p = PoissonArrivals {
            mean_gap_s: 1.0 / rate,
            next: start,
            rng,
        };
        let first = p.gap();
        p.next += first;
        p
    }

    /// Inverse CDF of the exponential: gap = −ln(U)/λ.
    fn gap(&mut self) -> SimTime {
        SimTime::from_secs_f64(-open_unit(&mut self.rng).ln() * self.mean_gap_s)
    }

    /// The time of the next arrival, not yet taken.
    pub fn peek(&self) -> SimTime {
        self.next
    }

    /// Takes the next arrival's time and draws the one after it.
    pub fn take(&mut self) -> SimTime {
        let t = self.next;
        self.next = t + self.gap();
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng;

    /// Gaps of a Poisson process of rate λ = 4/s: mean 1/λ = 0.25 s, and the
    /// counts in 1 s windows have variance = mean (index of dispersion 1).
    /// Over W = 50 000 windows (about n = 200 000 gaps) the mean gap's standard
    /// error is 0.25/√200 000 = 5.6·10⁻⁴ s (5σ: 2.8 ms); the mean count's is
    /// √(4/50 000) = 0.0089 (5σ: 0.045); the dispersion index's is √(2/W) = 0.0063
    /// (5σ: 0.032).
    #[test]
    fn gaps_have_mean_one_over_rate_and_counts_are_poisson() {
        let mut p = PoissonArrivals::new(SimTime::ZERO, 4.0, rng::stream(1, "test.poisson"));
        let windows = 50_000;
        let mut counts = vec![0u32; windows];
        let (mut last, mut gaps, mut n) = (SimTime::ZERO, 0.0, 0u32);
        loop {
            let t = p.take();
            let Some(c) = counts.get_mut(t.as_secs_f64() as usize) else {
                break;
            };
            *c += 1;
            gaps += (t - last).as_secs_f64();
            last = t;
            n += 1;
        }
        let mean_gap = gaps / n as f64;
        assert!((mean_gap - 0.25).abs() < 0.0028, "mean gap {mean_gap}");
        let w = windows as f64;
        let mean = counts.iter().map(|&c| c as f64).sum::<f64>() / w;
        let var = counts
            .iter()
            .map(|&c| (c as f64 - mean).powi(2))
            .sum::<f64>()
            / (w - 1.0);
        assert!((mean - 4.0).abs() < 0.045, "mean count {mean}");
        assert!(
            (var / mean - 1.0).abs() < 0.032,
            "dispersion {}",
            var / mean
        );
    }
}
