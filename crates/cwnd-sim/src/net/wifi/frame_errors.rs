//! 802.11b frame error rate from the SNR, per data rate.
//!
//! With the SNR measured over the 22 MHz channel, Eb/N0 = SNR · 22 MHz / R (R the bit
//! rate), and the bit error rates are (AWGN):
//!
//! ```text
//! 1 Mb/s   DBPSK  Pb = ½·exp(−Eb/N0)                         (Proakis, DPSK)
//! 2 Mb/s   DQPSK  Pb = (√2 + 1)/√(8π√2) · exp(−(2 − √2)·Eb/N0) / √(Eb/N0)
//!                 (asymptotic form; ns-3 DsssErrorRateModel::DqpskFunction)
//! 5.5 Mb/s CCK    Pb = 8/15 · (14·Q(√(8·Eb/N0)) + Q(√(16·Eb/N0)))
//! 11 Mb/s  CCK    Pb = 128/255 · (24·Q(√(4γ)) + 16·Q(√(6γ)) + 174·Q(√(8γ))
//!                      + 16·Q(√(10γ)) + 24·Q(√(12γ)) + Q(√(16γ))),  γ = Eb/N0
//! ```
//!
//! the CCK ones union bounds over the code's distance spectrum, as given by Pavón and
//! Choi (2003), "Link adaptation strategy for IEEE 802.11 WLAN via received signal
//! strength measurement", ICC. A frame is received when its PLCP header (48 bits at
//! 1 Mb/s DBPSK with the long preamble, 2 Mb/s DQPSK with the short one) and its MPDU
//! (MAC overhead + IP packet, at the data rate) have no bit error, bits independent:
//! FER = 1 − (1 − Pb_hdr)^48 · (1 − Pb_data)^(8·bytes). The preamble itself (sync)
//! is taken as always detected. Simplified: no fading, no interference.

use crate::gaussian::q;

use super::propagation::CHANNEL_BANDWIDTH_HZ;

/// Bits of the PLCP header (SIGNAL, SERVICE, LENGTH, CRC).
pub const PLCP_HEADER_BITS: f64 = 48.0;

/// The four data rates of the 802.11b PHY (IEEE 802.11-2020 §15 DSSS: 1 and 2
/// Mb/s; §16 HR/DSSS: CCK at 5.5 and 11 Mb/s). A scenario's rate is checked into
/// one of them when it is loaded, so the error model has an answer for every rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DsssRate {
    Mbps1,
    Mbps2,
    Mbps5_5,
    Mbps11,
}

impl DsssRate {
    /// The rate of `bps` bit/s, if 802.11b has it.
    pub fn from_bps(bps: u64) -> Option<DsssRate> {
        match bps {
            1_000_000 => Some(DsssRate::Mbps1),
            2_000_000 => Some(DsssRate::Mbps2),
            5_500_000 => Some(DsssRate::Mbps5_5),
            11_000_000 => Some(DsssRate::Mbps11),
            _ => None,
        }
    }

    /// Bits per second.
    pub fn bps(self) -> u64 {
        match self {
            DsssRate::Mbps1 => 1_000_000,
            DsssRate::Mbps2 => 2_000_000,
            DsssRate::Mbps5_5 => 5_500_000,
            DsssRate::Mbps11 => 11_000_000,
        }
    }
}

/// Bit error rate at linear SNR `snr` (over 22 MHz) for the 802.11b rate `rate`.
pub fn ber(rate: DsssRate, snr: f64) -> f64 {
    let ebn0 = snr * CHANNEL_BANDWIDTH_HZ / rate.bps() as f64;
    let ber = match rate {
        DsssRate::Mbps1 => 0.5 * (-ebn0).exp(),
        DsssRate::Mbps2 => {
            let s2 = std::f64::consts::SQRT_2;
            (s2 + 1.0) / (8.0 * std::f64::consts::PI * s2).sqrt() * (-(2.0 - s2) * ebn0).exp()
                / ebn0.sqrt()
        }
        DsssRate::Mbps5_5 => 8.0 / 15.0 * (14.0 * q((8.0 * ebn0).sqrt()) + q((16.0 * ebn0).sqrt())),
        DsssRate::Mbps11 => {
            let terms = [
                (24.0, 4.0),
                (16.0, 6.0),
                (174.0, 8.0),
                (16.0, 10.0),
                (24.0, 12.0),
                (1.0, 16.0),
            ];
            128.0 / 255.0
                * terms
                    .iter()
                    .map(|&(n, k)| n * q((k * ebn0).sqrt()))
                    .sum::<f64>()
        }
    };
    ber.clamp(0.0, 0.5)
}

/// Probability that `bits` independent bits all arrive right.
fn all_right(ber: f64, bits: f64) -> f64 {
    (bits * (-ber).ln_1p()).exp()
}

/// Frame error rate of an MPDU of `mpdu_bytes` at `rate`, the PLCP header at
/// `header_rate`, at linear SNR `snr`.
pub fn frame_error_rate(rate: DsssRate, header_rate: DsssRate, mpdu_bytes: u32, snr: f64) -> f64 {
    let header = all_right(ber(header_rate, snr), PLCP_HEADER_BITS);
    let body = all_right(ber(rate, snr), 8.0 * mpdu_bytes as f64);
    1.0 - header * body
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_error_rates_by_hand() {
        // SNR 0 dB (1.0): DBPSK Eb/N0 = 22 → ½e^−22 = 1.3947e-10.
        assert!((ber(DsssRate::Mbps1, 1.0) / 1.3947e-10 - 1.0).abs() < 1e-4);
        // DQPSK Eb/N0 = 11: 2.41421/√(35.5431) · e^(−0.585786·11) / √11
        //   = 0.404942 · 1.59106e-3 / 3.31662 = 1.94260e-4.
        assert!((ber(DsssRate::Mbps2, 1.0) / 1.9426e-4 - 1.0).abs() < 1e-3);
        // CCK 11 at SNR 5 dB (3.16228): Eb/N0 = 6.32456; the 4γ term dominates:
        // 128/255 · 24 · Q(5.0297) = 12.047 · 2.4558e-7 ≈ 2.96e-6; the 6γ term adds
        // 128/255 · 16 · Q(6.160) = 8.03 · 3.64e-10 ≈ 2.9e-9.
        let b = ber(DsssRate::Mbps11, 3.162_278);
        assert!((b / 2.961e-6 - 1.0).abs() < 0.01, "{b}");
        // Faster rates need more SNR for the same BER.
        for snr in [0.5, 1.0, 3.0] {
            assert!(ber(DsssRate::Mbps11, snr) > ber(DsssRate::Mbps5_5, snr));
            assert!(ber(DsssRate::Mbps5_5, snr) > ber(DsssRate::Mbps1, snr));
        }
    }

    #[test]
    fn only_the_four_802_11b_rates_exist() {
        for bps in [1_000_000, 2_000_000, 5_500_000, 11_000_000] {
            assert_eq!(DsssRate::from_bps(bps).map(DsssRate::bps), Some(bps));
        }
        for bps in [0, 6_000_000, 54_000_000] {
            assert_eq!(DsssRate::from_bps(bps), None);
        }
    }

    #[test]
    fn frame_error_rate_by_hand() {
        // 11 Mb/s at SNR 5 dB, 1536-byte MPDU, header at 1 Mb/s (Pb ~ 1e-6 · ½e^−69,
        // negligible): FER = 1 − (1 − 2.961e-6)^12288 = 0.03573.
        let fer = frame_error_rate(DsssRate::Mbps11, DsssRate::Mbps1, 1536, 3.162_278);
        assert!((fer - 0.035_73).abs() < 4e-4, "{fer}");
        assert!(frame_error_rate(DsssRate::Mbps11, DsssRate::Mbps1, 1536, 1000.0) < 1e-12);
    }
}
