//! The WirelessMAN-OFDM PHY of IEEE 802.16-2004 (§8.3): 256-point FFT, 200 used
//! subcarriers of which 192 carry data and 8 are pilots (§8.3.2.2).
//!
//! ```text
//! sampling factor n:  8/7 if BW is a multiple of 1.75 MHz, else 86/75 for 1.5 MHz,
//!                     144/125 for 1.25 MHz, 316/275 for 2.75 MHz, 57/50 for 2 MHz,
//!                     else 8/7                                        (§8.3.2.2)
//! sampling rate      Fs = floor(n·BW / 8000) · 8000                    (§8.3.2.3)
//! subcarrier spacing Δf = Fs / N_FFT,   useful symbol Tb = 1/Δf
//! cyclic prefix      Tg = G·Tb, G ∈ {1/4, 1/8, 1/16, 1/32}
//! OFDM symbol        Ts = Tb + Tg = (N_FFT + N_FFT·G) / Fs
//! ```
//! E.g. 20 MHz, G = 1/4: n = 144/125, Fs = 23.04 MHz, Δf = 90 kHz, Tb = 11.11 µs,
//! Tg = 2.78 µs, Ts = 13.89 µs: exactly 360 symbols in a 5 ms frame.
//!
//! Symbol boundaries are kept exact: symbol k of a frame starts
//! ceil(k · samples_per_symbol · 10⁹ / Fs) ns after the frame start.

use crate::time::SimTime;

pub const FFT_SIZE: u64 = 256;
/// Data subcarriers per OFDM symbol (200 used − 8 pilots).
pub const DATA_SUBCARRIERS: u32 = 192;

/// An OFDM-256 PHY configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OfdmPhy {
    /// Channel bandwidth in kHz.
    pub bandwidth_khz: u64,
    /// The cyclic prefix is 1/`cp_divisor` of the useful symbol (4, 8, 16 or 32).
    pub cp_divisor: u64,
}

impl OfdmPhy {
    /// The sampling factor n as (numerator, denominator), §8.3.2.2.
    pub fn sampling_factor(&self) -> (u64, u64) {
        let bw = self.bandwidth_khz;
        let multiple = |step: u64| bw % step == 0;
        if multiple(1750) {
            (8, 7)
        } else if multiple(1500) {
            (86, 75)
        } else if multiple(1250) {
            (144, 125)
        } else if multiple(2750) {
            (316, 275)
        } else if multiple(2000) {
            (57, 50)
        } else {
            (8, 7)
        }
    }

    /// Sampling rate Fs in Hz: floor(n·BW/8000)·8000.
    pub fn sampling_rate_hz(&self) -> u64 {
        let (num, den) = self.sampling_factor();
        self.bandwidth_khz * 1000 * num / den / 8000 * 8000
    }

    /// Samples in one OFDM symbol, cyclic prefix included.
    pub fn samples_per_symbol(&self) -> u64 {
        FFT_SIZE + FFT_SIZE / self.cp_divisor
    }

    /// Start of symbol `k` relative to the start of its frame (rounded up to the ns).
    pub fn symbol_offset(&self, k: u64) -> SimTime {
        let num = k as u128 * self.samples_per_symbol() as u128 * 1_000_000_000;
        SimTime(num.div_ceil(self.sampling_rate_hz() as u128) as u64)
    }

    /// Whole OFDM symbols that fit in a frame of `frame`.
    pub fn symbols_per_frame(&self, frame: SimTime) -> u64 {
        let samples = frame.as_nanos() as u128 * self.sampling_rate_hz() as u128 / 1_000_000_000;
        (samples / self.samples_per_symbol() as u128) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twenty_mhz_with_a_quarter_cyclic_prefix_by_hand() {
        // 20 MHz is not a multiple of 1.75 or 1.5 MHz but is of 1.25 MHz: n = 144/125.
        // Fs = floor(1.152 · 20e6 / 8000) · 8000 = 2880 · 8000 = 23.04 MHz.
        // Ts = (256 + 64) / 23.04e6 = 13 888.9 ns; 5 ms / Ts = 360 exactly.
        let phy = OfdmPhy {
            bandwidth_khz: 20_000,
            cp_divisor: 4,
        };
        assert_eq!(phy.sampling_factor(), (144, 125));
        assert_eq!(phy.sampling_rate_hz(), 23_040_000);
        assert_eq!(phy.symbol_offset(1), SimTime(13_889));
        assert_eq!(phy.symbol_offset(360), SimTime::from_millis(5));
        assert_eq!(phy.symbols_per_frame(SimTime::from_millis(5)), 360);
    }

    #[test]
    fn three_and_a_half_mhz_by_hand() {
        // 3.5 MHz = 2 × 1.75 MHz: n = 8/7, Fs = 4 MHz, Δf = 15.625 kHz, Tb = 64 µs;
        // G = 1/8: Ts = 72 µs; a 10 ms frame holds floor(10000/72) = 138 symbols.
        let phy = OfdmPhy {
            bandwidth_khz: 3_500,
            cp_divisor: 8,
        };
        assert_eq!(phy.sampling_rate_hz(), 4_000_000);
        assert_eq!(phy.symbol_offset(1), SimTime::from_micros(72));
        assert_eq!(phy.symbols_per_frame(SimTime::from_millis(10)), 138);
    }
}
