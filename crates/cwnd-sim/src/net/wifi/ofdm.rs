//! The OFDM PHY of 802.11a (IEEE 802.11-2016 clause 17), also 802.11g's ERP-OFDM:
//! its eight data rates and the duration of a frame.
//!
//! A PPDU is the PLCP preamble (16 µs), the SIGNAL symbol (4 µs) and the DATA
//! symbols of 4 µs, each carrying N_DBPS data bits (Table 17-4). The DATA field holds
//! the 16-bit SERVICE field, the PSDU and 6 tail bits, padded to whole symbols
//! (§17.4.3, eq. 17-29):
//!
//! ```text
//! TXTIME = 16 µs + 4 µs + 4 µs · ⌈(16 + 8·LENGTH + 6) / N_DBPS⌉
//! ```
//! (20 MHz channel spacing). 802.11g in a BSS of ERP stations only, with the short
//! slot, has the same timing: its SIFS is 10 µs but every OFDM frame ends with 6 µs
//! of signal extension (§18.3.2.4), so the next frame starts 16 µs after the last
//! symbol, as with 802.11a's SIFS of 16 µs.

use crate::time::SimTime;

/// PLCP preamble (16 µs) plus the SIGNAL symbol (4 µs).
pub const PREAMBLE_AND_SIGNAL: SimTime = SimTime::from_micros(20);
/// One OFDM symbol (3.2 µs plus the 0.8 µs guard interval).
pub const SYMBOL: SimTime = SimTime::from_micros(4);
/// SERVICE field (16) and tail (6) bits added to the PSDU in the DATA field.
const SERVICE_AND_TAIL_BITS: u64 = 16 + 6;

/// The eight data rates of the OFDM PHY at 20 MHz (Table 17-4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OfdmRate {
    Mbps6,
    Mbps9,
    Mbps12,
    Mbps18,
    Mbps24,
    Mbps36,
    Mbps48,
    Mbps54,
}

impl OfdmRate {
    /// The rate of `bps` bit/s, if the OFDM PHY has it.
    pub fn from_bps(bps: u64) -> Option<OfdmRate> {
        use OfdmRate::*;
        [Mbps6, Mbps9, Mbps12, Mbps18, Mbps24, Mbps36, Mbps48, Mbps54]
            .into_iter()
            .find(|r| r.bps() == bps)
    }

    /// Bits per second.
    pub fn bps(self) -> u64 {
        self.data_bits_per_symbol() * 1_000_000 / 4
    }

    /// N_DBPS, data bits per OFDM symbol (Table 17-4: BPSK 1/2 24, BPSK 3/4 36,
    /// QPSK 1/2 48, QPSK 3/4 72, 16-QAM 1/2 96, 16-QAM 3/4 144, 64-QAM 2/3 192,
    /// 64-QAM 3/4 216).
    pub fn data_bits_per_symbol(self) -> u64 {
        match self {
            OfdmRate::Mbps6 => 24,
            OfdmRate::Mbps9 => 36,
            OfdmRate::Mbps12 => 48,
            OfdmRate::Mbps18 => 72,
            OfdmRate::Mbps24 => 96,
            OfdmRate::Mbps36 => 144,
            OfdmRate::Mbps48 => 192,
            OfdmRate::Mbps54 => 216,
        }
    }

    /// TXTIME of a PPDU carrying a PSDU (MAC frame) of `bytes` (eq. 17-29).
    pub fn txtime(self, bytes: u32) -> SimTime {
        let bits = SERVICE_AND_TAIL_BITS + 8 * bytes as u64;
        let symbols = bits.div_ceil(self.data_bits_per_symbol());
        PREAMBLE_AND_SIGNAL + SYMBOL.saturating_mul(symbols)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rates_of_table_17_4() {
        let mbps: Vec<u64> = [6, 9, 12, 18, 24, 36, 48, 54].to_vec();
        for m in &mbps {
            let r = OfdmRate::from_bps(m * 1_000_000).unwrap();
            assert_eq!(r.bps(), m * 1_000_000);
        }
        for bps in [1_000_000, 11_000_000, 27_000_000] {
            assert_eq!(OfdmRate::from_bps(bps), None);
        }
    }

    #[test]
    fn frame_durations_by_hand() {
        // 1536-byte MPDU (1500-byte IP packet): 16 + 12288 + 6 = 12310 bits.
        // 54 Mb/s: ⌈12310/216⌉ = ⌈56.99⌉ = 57 symbols: 20 + 228 = 248 µs.
        assert_eq!(OfdmRate::Mbps54.txtime(1536), SimTime::from_micros(248));
        // 6 Mb/s: ⌈12310/24⌉ = ⌈512.9⌉ = 513 symbols: 20 + 2052 = 2072 µs.
        assert_eq!(OfdmRate::Mbps6.txtime(1536), SimTime::from_micros(2072));
        // ACK (14 B): 16 + 112 + 6 = 134 bits; at 6 Mb/s ⌈5.58⌉ = 6 symbols, 44 µs;
        // at 24 Mb/s ⌈1.40⌉ = 2 symbols, 28 µs.
        assert_eq!(OfdmRate::Mbps6.txtime(14), SimTime::from_micros(44));
        assert_eq!(OfdmRate::Mbps24.txtime(14), SimTime::from_micros(28));
    }
}
