//! The seven modulation and coding schemes of the 802.16-2004 OFDM PHY and the
//! adaptive choice among them.
//!
//! Each scheme's FEC block (Reed–Solomon + convolutional code, §8.3.3.2, the table
//! of mandatory channel coding per modulation) carries exactly the data of one OFDM
//! symbol without subchannelization: 192 data subcarriers × bits per subcarrier ×
//! coding rate / 8 bytes (BPSK 1/2: 12 B … 64-QAM 3/4: 108 B).
//!
//! The SNR thresholds are the receiver SNRs of §8.3.11.1 (the receiver sensitivity
//! table: the SNR at which the BER after decoding is 10⁻⁶): 6.4, 9.4, 11.2, 16.4,
//! 18.2, 22.7 and 24.4 dB.
//!
//! Adaptive modulation and coding (AMC): a burst uses the fastest scheme whose
//! threshold plus `margin` (dB) does not exceed the burst's SNR; below every
//! threshold it falls back to the most robust scheme (BPSK 1/2) and its errors.
//! The margin keeps the post-FEC BER well below 10⁻⁶ near a threshold (equipment
//! keeps one; the standard does not set it).

use super::ofdm::DATA_SUBCARRIERS;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mcs {
    Bpsk1_2,
    Qpsk1_2,
    Qpsk3_4,
    Qam16_1_2,
    Qam16_3_4,
    Qam64_2_3,
    Qam64_3_4,
}

impl Mcs {
    /// From the most robust to the fastest.
    pub const ALL: [Mcs; 7] = [
        Mcs::Bpsk1_2,
        Mcs::Qpsk1_2,
        Mcs::Qpsk3_4,
        Mcs::Qam16_1_2,
        Mcs::Qam16_3_4,
        Mcs::Qam64_2_3,
        Mcs::Qam64_3_4,
    ];

    /// The names scenarios use.
    pub const NAMES: [&'static str; 7] = [
        "bpsk_1_2",
        "qpsk_1_2",
        "qpsk_3_4",
        "16qam_1_2",
        "16qam_3_4",
        "64qam_2_3",
        "64qam_3_4",
    ];

    pub fn name(self) -> &'static str {
        Mcs::NAMES[self as usize]
    }

    pub fn from_name(name: &str) -> Option<Mcs> {
        Mcs::NAMES
            .iter()
            .position(|&n| n == name)
            .map(|i| Mcs::ALL[i])
    }

    /// Coded bits per subcarrier (1 BPSK, 2 QPSK, 4 16-QAM, 6 64-QAM).
    pub fn bits_per_subcarrier(self) -> u32 {
        match self {
            Mcs::Bpsk1_2 => 1,
            Mcs::Qpsk1_2 | Mcs::Qpsk3_4 => 2,
            Mcs::Qam16_1_2 | Mcs::Qam16_3_4 => 4,
            Mcs::Qam64_2_3 | Mcs::Qam64_3_4 => 6,
        }
    }

    /// Overall coding rate as (numerator, denominator).
    pub fn coding_rate(self) -> (u32, u32) {
        match self {
            Mcs::Bpsk1_2 | Mcs::Qpsk1_2 | Mcs::Qam16_1_2 => (1, 2),
            Mcs::Qpsk3_4 | Mcs::Qam16_3_4 | Mcs::Qam64_3_4 => (3, 4),
            Mcs::Qam64_2_3 => (2, 3),
        }
    }

    /// Data bytes per OFDM symbol = bytes of one uncoded FEC block.
    pub fn bytes_per_symbol(self) -> u32 {
        let (num, den) = self.coding_rate();
        DATA_SUBCARRIERS * self.bits_per_subcarrier() * num / den / 8
    }

    /// Receiver SNR (dB) for BER 10⁻⁶ after decoding, §8.3.11.1.
    pub fn snr_threshold_db(self) -> f64 {
        match self {
            Mcs::Bpsk1_2 => 6.4,
            Mcs::Qpsk1_2 => 9.4,
            Mcs::Qpsk3_4 => 11.2,
            Mcs::Qam16_1_2 => 16.4,
            Mcs::Qam16_3_4 => 18.2,
            Mcs::Qam64_2_3 => 22.7,
            Mcs::Qam64_3_4 => 24.4,
        }
    }

    /// The AMC choice for a burst at `snr_db` with `margin_db` of margin.
    pub fn adaptive(snr_db: f64, margin_db: f64) -> Mcs {
        Mcs::ALL
            .iter()
            .rev()
            .copied()
            .find(|m| m.snr_threshold_db() + margin_db <= snr_db)
            .unwrap_or(Mcs::Bpsk1_2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_sizes_are_the_standards() {
        // §8.3.3.2, uncoded block size in bytes: 12, 24, 36, 48, 72, 96, 108.
        let bytes: Vec<u32> = Mcs::ALL.iter().map(|m| m.bytes_per_symbol()).collect();
        assert_eq!(bytes, vec![12, 24, 36, 48, 72, 96, 108]);
    }

    #[test]
    fn amc_takes_the_fastest_scheme_within_the_margin() {
        assert_eq!(Mcs::adaptive(30.0, 2.0), Mcs::Qam64_3_4);
        assert_eq!(Mcs::adaptive(26.0, 2.0), Mcs::Qam64_2_3); // 24.4 + 2 > 26
        assert_eq!(Mcs::adaptive(11.4, 2.0), Mcs::Qpsk1_2); // 9.4 + 2 ≤ 11.4
        assert_eq!(Mcs::adaptive(11.3, 2.0), Mcs::Bpsk1_2);
        assert_eq!(Mcs::adaptive(-5.0, 0.0), Mcs::Bpsk1_2);
        assert_eq!(Mcs::adaptive(9.4, 0.0), Mcs::Qpsk1_2);
        assert_eq!(Mcs::from_name("16qam_3_4"), Some(Mcs::Qam16_3_4));
        assert_eq!(Mcs::Qam64_2_3.name(), "64qam_2_3");
    }
}
