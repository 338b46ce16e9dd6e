//! Transfer-size distributions of the generators, each with its closed-form mean
//! (what the offered-load formula needs) and CDF (what the tests check against).

use super::{open_unit, whole_bytes};
use crate::gaussian::{phi, phi_inv};
use crate::rng::RngStream;

/// Exponential sizes of mean `mean` bytes (FTP files): inverse CDF −mean·ln(U).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExponentialSizes {
    pub mean: f64,
}

impl ExponentialSizes {
    pub fn sample(&self, rng: &mut RngStream) -> u64 {
        whole_bytes(-self.mean * open_unit(rng).ln())
    }
}

/// SURGE's hybrid size model (P. Barford and M. Crovella, "Generating
/// representative Web workloads for network and server performance evaluation",
/// ACM SIGMETRICS 1998, Table 2, file sizes): a lognormal body (ln X ~ N(μ, σ²),
/// μ = 9.357, σ = 1.318) up to a cutoff k = 133 KB, and a Pareto tail above it
/// (P(X > x) ∝ (k/x)^α, α = 1.1).
///
/// The tail carries exactly the mass the lognormal has above k,
/// 1 − F_k with F_k = Φ((ln k − μ)/σ): the body is the lognormal itself below k,
/// and the CDF is continuous at k:
///
/// ```text
///     F(x) = Φ((ln x − μ)/σ)              x ≤ k
///     F(x) = 1 − (1 − F_k)·(k/x)^α        x > k
///     E[X] = e^(μ + σ²/2)·Φ((ln k − μ)/σ − σ) + (1 − F_k)·α·k/(α − 1)
/// ```
///
/// (the first term is the lognormal's partial expectation below k). The paper
/// fits the two pieces separately and does not restate how much mass its
/// generator gives the tail; joining them where the lognormal would leave off is
/// this model's choice (docs/scenarios.md).
///
/// With α = 1.1 the tail's variance is infinite and a run's mean size converges
/// very slowly (a 10-minute Web run at load 0.9 offered 0.5: BENCHMARKS.md). An
/// optional largest size H bounds the tail (a truncated Pareto on (k, H], the same
/// mass 1 − F_k); with r = (k/H)^α,
///
/// ```text
///     F(x) = 1 − (1 − F_k)·((k/x)^α − r)/(1 − r)     k < x ≤ H
///     E[X | X > k] = α·k/(α − 1)·(1 − (k/H)^(α−1))/(1 − r)
/// ```
///
/// (H = ∞ gives back the untruncated tail: r = 0, (k/H)^(α−1) = 0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HybridSizes {
    pub mu: f64,
    pub sigma: f64,
    /// Bytes where the Pareto tail takes over.
    pub cutoff: f64,
    pub alpha: f64,
    /// The largest size (`f64::INFINITY`: an untruncated tail).
    pub max: f64,
}

impl HybridSizes {
    /// SURGE's published file-size parameters (Barford & Crovella 1998).
    pub const SURGE: HybridSizes = HybridSizes {
        mu: 9.357,
        sigma: 1.318,
        cutoff: 133_000.0,
        alpha: 1.1,
        max: f64::INFINITY,
    };

    /// F_k: the probability of a size at or below the cutoff.
    pub fn body_mass(&self) -> f64 {
        phi((self.cutoff.ln() - self.mu) / self.sigma)
    }

    /// r = (k/H)^α: the untruncated tail's mass beyond H, as a fraction of its own.
    fn beyond_max(&self) -> f64 {
        (self.cutoff / self.max).powf(self.alpha)
    }

    pub fn cdf(&self, x: f64) -> f64 {
        let r = self.beyond_max();
        if x <= 0.0 {
            0.0
        } else if x <= self.cutoff {
            phi((x.ln() - self.mu) / self.sigma)
        } else if x < self.max {
            1.0 - (1.0 - self.body_mass()) * ((self.cutoff / x).powf(self.alpha) - r) / (1.0 - r)
        } else {
            1.0
        }
    }

    /// The inverse of `cdf` for u in (0, 1).
    pub fn quantile(&self, u: f64) -> f64 {
        let body = self.body_mass();
        if u <= body {
            (self.mu + self.sigma * phi_inv(u)).exp()
        } else {
            // v: where u falls within the tail's own distribution.
            let v = (u - body) / (1.0 - body);
            let r = self.beyond_max();
            self.cutoff * (1.0 - v * (1.0 - r)).powf(-1.0 / self.alpha)
        }
    }

    pub fn mean(&self) -> f64 {
        let z = (self.cutoff.ln() - self.mu) / self.sigma;
        let body = (self.mu + self.sigma * self.sigma / 2.0).exp() * phi(z - self.sigma);
        let a = self.alpha;
        let truncation = (1.0 - (self.cutoff / self.max).powf(a - 1.0)) / (1.0 - self.beyond_max());
        body + (1.0 - self.body_mass()) * a * self.cutoff / (a - 1.0) * truncation
    }

    /// One size by inverse-CDF sampling.
    pub fn sample(&self, rng: &mut RngStream) -> u64 {
        whole_bytes(self.quantile(open_unit(rng)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng;

    /// SURGE's parameters by hand: ln 133 000 = 11.7981, z_k = (11.7981 − 9.357)
    /// / 1.318 = 1.85213, F_k = Φ(1.85213) = 0.96800. Mean: e^(9.357 + 0.86856) =
    /// e^10.22556 = 27 599.8, times Φ(1.85213 − 1.318) = Φ(0.53413) = 0.70337 gives
    /// 19 413; tail 0.031996·1.1·133 000/0.1 = 46 810; E[X] = 66 234 B.
    #[test]
    fn surge_mass_and_mean_match_the_closed_form_by_hand() {
        let s = HybridSizes::SURGE;
        assert!((s.body_mass() - 0.96800).abs() < 2e-5, "{}", s.body_mass());
        assert!((s.mean() / 66_234.0 - 1.0).abs() < 1e-4, "{}", s.mean());
    }

    /// Empirical quantiles of 400 000 draws against the closed form, in the body
    /// (the median e^μ = 11 580 B and the 90th percentile e^(μ + 1.28155σ) =
    /// 62 698 B) and in the tail (the 99th and 99.9th percentiles,
    /// k·((1 − p)/(1 − F_k))^(−1/α): 133 000·(0.01/0.031996)^(−1/1.1) = 382 935 B and
    /// 133 000·(0.001/0.031996)^(−1/1.1) = 3 106 100 B). The check is on the CDF:
    /// the fraction of draws below each closed-form quantile is p within 5
    /// binomial standard errors √(p(1 − p)/n) (at most 0.0040 for p = 0.5).
    #[test]
    fn hybrid_sampler_quantiles_match_body_and_tail() {
        let s = HybridSizes::SURGE;
        let checks = [
            (0.5, 11_580.0),
            (0.9, 62_698.0),
            (0.99, 382_935.0),
            (0.999, 3_106_100.0),
        ];
        for &(p, by_hand) in &checks {
            let q = s.quantile(p);
            assert!((q / by_hand - 1.0).abs() < 2e-3, "quantile({p}) = {q}");
            assert!((s.cdf(q) - p).abs() < 1e-6, "cdf(quantile({p}))");
        }
        let mut rng = rng::stream(3, "test.hybrid");
        let n = 400_000;
        let draws: Vec<u64> = (0..n).map(|_| s.sample(&mut rng)).collect();
        for &(p, _) in &checks {
            let q = s.quantile(p);
            let below = draws.iter().filter(|&&x| (x as f64) <= q).count() as f64 / n as f64;
            let se = (p * (1.0 - p) / n as f64).sqrt();
            assert!((below - p).abs() < 5.0 * se, "p = {p}: {below}");
        }
    }

    /// A tail bounded at H = 10 MB: r = (133 000/10⁷)^1.1 = 0.0086345,
    /// (k/H)^0.1 = 0.64921, tail mean 1.1·133 000/0.1·(1 − 0.64921)/(1 − 0.0086345)
    /// = 517 676 B, E[X] = 19 413 + 0.031996·517 676 = 35 980 B; the 99.9th
    /// percentile k·(1 − v(1 − r))^(−1/α) with v = (0.999 − F_k)/(1 − F_k) =
    /// 0.968746 is 2 503 595 B. The variance is finite now (E[X²] gives an sd of
    /// 181 695 B): over 400 000 draws the mean's standard error is 287 B, 5σ =
    /// 1 436 B; no draw exceeds H.
    #[test]
    fn a_bounded_tail_has_its_truncated_mean_and_quantiles() {
        let s = HybridSizes {
            max: 10e6,
            ..HybridSizes::SURGE
        };
        assert!((s.mean() / 35_980.0 - 1.0).abs() < 1e-4, "{}", s.mean());
        assert!((s.quantile(0.999) / 2_503_595.0 - 1.0).abs() < 1e-4);
        assert!((s.cdf(s.quantile(0.9995)) - 0.9995).abs() < 1e-9);
        assert_eq!(s.cdf(10e6), 1.0);
        let mut rng = rng::stream(8, "test.bounded");
        let n = 400_000;
        let draws: Vec<u64> = (0..n).map(|_| s.sample(&mut rng)).collect();
        assert!(draws.iter().all(|&x| x <= 10_000_000));
        let mean = draws.iter().sum::<u64>() as f64 / n as f64;
        assert!((mean - 35_980.0).abs() < 1_436.0, "{mean}");
    }

    /// The exponential's mean over 200 000 draws of mean 500 000 B: standard error
    /// 500 000/√200 000 = 1 118 B, 5σ = 5 590 B.
    #[test]
    fn exponential_sizes_have_their_mean() {
        let e = ExponentialSizes { mean: 500_000.0 };
        let mut rng = rng::stream(4, "test.exponential");
        let n = 200_000;
        let sum: u64 = (0..n).map(|_| e.sample(&mut rng)).sum();
        let mean = sum as f64 / n as f64;
        assert!((mean - 500_000.0).abs() < 5_590.0, "{mean}");
    }
}
