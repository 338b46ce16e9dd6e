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
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HybridSizes {
    pub mu: f64,
    pub sigma: f64,
    /// Bytes where the Pareto tail takes over.
    pub cutoff: f64,
    pub alpha: f64,
}

impl HybridSizes {
    /// SURGE's published file-size parameters (Barford & Crovella 1998).
    pub const SURGE: HybridSizes = HybridSizes {
        mu: 9.357,
        sigma: 1.318,
        cutoff: 133_000.0,
        alpha: 1.1,
    };

    /// F_k: the probability of a size at or below the cutoff.
    pub fn body_mass(&self) -> f64 {
        phi((self.cutoff.ln() - self.mu) / self.sigma)
    }

    pub fn cdf(&self, x: f64) -> f64 {
        if x <= 0.0 {
            0.0
        } else if x <= self.cutoff {
            phi((x.ln() - self.mu) / self.sigma)
        } else {
            1.0 - (1.0 - self.body_mass()) * (self.cutoff / x).powf(self.alpha)
        }
    }

    /// The inverse of `cdf` for u in (0, 1).
    pub fn quantile(&self, u: f64) -> f64 {
        let body = self.body_mass();
        if u <= body {
            (self.mu + self.sigma * phi_inv(u)).exp()
        } else {
            self.cutoff * ((1.0 - u) / (1.0 - body)).powf(-1.0 / self.alpha)
        }
    }

    pub fn mean(&self) -> f64 {
        let z = (self.cutoff.ln() - self.mu) / self.sigma;
        let body = (self.mu + self.sigma * self.sigma / 2.0).exp() * phi(z - self.sigma);
        body + (1.0 - self.body_mass()) * self.alpha * self.cutoff / (self.alpha - 1.0)
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
