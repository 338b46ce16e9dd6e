//! Fading of a subscriber's channel: a power gain g (mean 1) that multiplies the
//! mean SNR, drawn anew for every frame (block fading).
//!
//! Each of `branches` receive branches sees a Rician channel (Goldsmith,
//! *Wireless Communications*, 2005, §3.2.1): h = √(K/(K+1)) + √(1/(K+1))·w, w
//! complex Gaussian CN(0, 1); K = 0 is Rayleigh (no line of sight). The branches
//! are independent and combined by maximal-ratio combining with the transmit power
//! split among them, g = (1/L)·Σ|h_l|² — the gain of two-branch space-time coding
//! (Alamouti 1998, an option of the 802.16 OFDM PHY) or of receive diversity at
//! equal total power.
//!
//! Simplifications: the gain is flat over the band (the FEC and interleaving are
//! taken to average out frequency selectivity) and independent from frame to frame
//! (coherence time of one frame; a fixed link fades more slowly, which makes losses
//! burstier than here but leaves their rate unchanged: the AMC follows the frame's
//! own SNR, so only the distribution of g matters for the loss rate).

use rand::RngExt;

use crate::rng::RngStream;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fading {
    /// Rician K factor, linear (power of the direct path / power of the scattered ones).
    pub k_factor: f64,
    /// Diversity branches combined (1 = none).
    pub branches: u32,
}

impl Fading {
    /// One frame's power gain.
    pub fn draw(&self, rng: &mut RngStream) -> f64 {
        let direct = (self.k_factor / (self.k_factor + 1.0)).sqrt();
        let scattered = (1.0 / (self.k_factor + 1.0)).sqrt();
        let mut sum = 0.0;
        for _ in 0..self.branches {
            let (re, im) = complex_gaussian(rng);
            let (a, b) = (direct + scattered * re, scattered * im);
            sum += a * a + b * b;
        }
        sum / self.branches as f64
    }
}

/// A CN(0, 1) sample (each part of variance 1/2), by Box–Muller.
fn complex_gaussian(rng: &mut RngStream) -> (f64, f64) {
    let u1: f64 = rng.random::<f64>().max(1e-300);
    let u2: f64 = rng.random();
    let r = (-u1.ln()).sqrt(); // √(−2 ln u1) · √(1/2)
    let phase = std::f64::consts::TAU * u2;
    (r * phase.cos(), r * phase.sin())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    fn fraction_below(f: Fading, x: f64, n: usize) -> (f64, f64) {
        let mut rng = stream(5, "fading");
        let (mut below, mut sum) = (0usize, 0.0);
        for _ in 0..n {
            let g = f.draw(&mut rng);
            sum += g;
            below += usize::from(g < x);
        }
        (below as f64 / n as f64, sum / n as f64)
    }

    #[test]
    fn rayleigh_with_and_without_diversity_by_hand() {
        // One branch: g is exponential with mean 1, P(g < x) = 1 − e^(−x).
        // Two branches averaged: g = (E1 + E2)/2, P(g < x) = 1 − e^(−2x)(1 + 2x).
        // x = 0.3: 0.259182 and 0.121901. n = 400 000: standard errors ≤ 0.0007.
        let n = 400_000;
        let (p1, m1) = fraction_below(
            Fading {
                k_factor: 0.0,
                branches: 1,
            },
            0.3,
            n,
        );
        assert!((p1 - 0.259_182).abs() < 0.0025, "{p1}");
        assert!((m1 - 1.0).abs() < 0.005, "{m1}");
        let (p2, m2) = fraction_below(
            Fading {
                k_factor: 0.0,
                branches: 2,
            },
            0.3,
            n,
        );
        assert!((p2 - 0.121_901).abs() < 0.002, "{p2}");
        assert!((m2 - 1.0).abs() < 0.005, "{m2}");
    }

    #[test]
    fn a_strong_direct_path_fades_little() {
        // K = 10: E[g] = 1, Var[g] = (2K + 1)/(K + 1)² = 21/121 = 0.1736 for one branch.
        let mut rng = stream(6, "fading");
        let f = Fading {
            k_factor: 10.0,
            branches: 1,
        };
        let n = 200_000;
        let draws: Vec<f64> = (0..n).map(|_| f.draw(&mut rng)).collect();
        let mean = draws.iter().sum::<f64>() / n as f64;
        let var = draws.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / n as f64;
        assert!((mean - 1.0).abs() < 0.004, "{mean}");
        assert!((var - 0.1736).abs() < 0.004, "{var}");
    }
}
