//! Block error rate of an FEC block as a function of the SNR, per scheme.
//!
//! Model (simplified): the bit error rate after decoding is the AWGN bit error rate
//! of the scheme's modulation with Gray mapping (Goldsmith, *Wireless
//! Communications*, 2005, Table 6.1; γ is the SNR per subcarrier, Es/N0),
//!
//! ```text
//! BPSK    Pb = Q(√(2γ))
//! QPSK    Pb = Q(√γ)
//! M-QAM   Pb = 4/log2(M) · (1 − 1/√M) · Q(√(3γ/(M − 1)))      (M = 16, 64)
//! ```
//!
//! evaluated at the SNR plus a coding gain G. G is set per scheme so that
//! Pb = 10⁻⁶ exactly at the scheme's receiver SNR of 802.16-2004 §8.3.11.1 (which
//! is defined by that BER): about 4.1 dB for the rate-1/2 and 2/3 codes and 2.2 dB
//! for the rate-3/4 codes. An FEC block of b data bytes is in error with
//! BLER = 1 − (1 − Pb)^(8b).
//!
//! What this simplifies: a real RS-CC decoder has a steeper waterfall than an
//! uncoded curve shifted by a constant gain, and its residual errors come in bursts
//! inside a block (which only the block rate sees here); bit errors are taken as
//! independent. The curve is right at the standard's reference point (10⁻⁶) and of
//! the right shape a few dB around it.

use super::mcs::Mcs;
use crate::gaussian::q;

/// Uncoded AWGN bit error rate of the modulation of `mcs` at linear SNR `gamma`.
pub fn modulation_ber(mcs: Mcs, gamma: f64) -> f64 {
    match mcs.bits_per_subcarrier() {
        1 => q((2.0 * gamma).sqrt()),
        2 => q(gamma.sqrt()),
        k => {
            let m = (1u32 << k) as f64;
            (4.0 / k as f64) * (1.0 - 1.0 / m.sqrt()) * q((3.0 * gamma / (m - 1.0)).sqrt())
        }
    }
    .min(0.5)
}

/// The BER the standard's thresholds refer to.
const REFERENCE_BER: f64 = 1e-6;

fn db_to_linear(db: f64) -> f64 {
    10f64.powf(db / 10.0)
}

/// Coding gains of the seven schemes, computed once per channel.
#[derive(Clone, Debug, PartialEq)]
pub struct BlockErrorModel {
    gain_db: [f64; 7],
}

impl Default for BlockErrorModel {
    fn default() -> Self {
        let gain_db = Mcs::ALL.map(|m| required_snr_db(m) - m.snr_threshold_db());
        BlockErrorModel { gain_db }
    }
}

/// SNR (dB) at which the uncoded modulation of `mcs` has the reference BER
/// (bisection: the BER decreases with the SNR).
fn required_snr_db(mcs: Mcs) -> f64 {
    let (mut lo, mut hi) = (-10.0f64, 60.0f64);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if modulation_ber(mcs, db_to_linear(mid)) > REFERENCE_BER {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

impl BlockErrorModel {
    pub fn coding_gain_db(&self, mcs: Mcs) -> f64 {
        self.gain_db[mcs as usize]
    }

    /// Bit error rate after decoding at `snr_db`.
    pub fn ber(&self, mcs: Mcs, snr_db: f64) -> f64 {
        modulation_ber(mcs, db_to_linear(snr_db + self.coding_gain_db(mcs)))
    }

    /// Probability that one FEC block of `mcs` (one OFDM symbol's data) is in error.
    pub fn bler(&self, mcs: Mcs, snr_db: f64) -> f64 {
        let bits = 8.0 * mcs.bytes_per_symbol() as f64;
        // 1 − (1 − p)^n without cancellation for tiny p.
        -(bits * (-self.ber(mcs, snr_db)).ln_1p()).exp_m1()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coding_gains_by_hand() {
        // BPSK reaches 1e-6 where √(2γ) = 4.753424: γ = 11.2975 = 10.530 dB, so BPSK 1/2
        // (6.4 dB) gains 4.130 dB. QPSK needs γ = 4.753424² = 22.595 = 13.540 dB:
        // QPSK 1/2 (9.4) gains 4.140 dB, QPSK 3/4 (11.2) 2.340 dB.
        let model = BlockErrorModel::default();
        let close = |m: Mcs, want: f64| {
            let g = model.coding_gain_db(m);
            assert!((g - want).abs() < 0.002, "{m:?}: {g}");
        };
        close(Mcs::Bpsk1_2, 4.130);
        close(Mcs::Qpsk1_2, 4.140);
        close(Mcs::Qpsk3_4, 2.340);
        // At each threshold the BER is the reference 1e-6.
        for m in Mcs::ALL {
            let ber = model.ber(m, m.snr_threshold_db());
            assert!((ber / 1e-6 - 1.0).abs() < 1e-6, "{m:?}: {ber}");
        }
    }

    #[test]
    fn block_error_rate_by_hand() {
        // 64-QAM 3/4 at its threshold: 108-byte blocks, Pb = 1e-6:
        // BLER = 1 − (1 − 1e-6)^864 = 8.6363e-4.
        let model = BlockErrorModel::default();
        let b = model.bler(Mcs::Qam64_3_4, 24.4);
        assert!((b / 8.6363e-4 - 1.0).abs() < 1e-4, "{b}");
        // Every scheme gets worse as the SNR falls.
        for m in Mcs::ALL {
            let t = m.snr_threshold_db();
            assert!(model.bler(m, t - 3.0) > model.bler(m, t));
            assert!(model.bler(m, t + 3.0) < model.bler(m, t));
        }
    }
}
