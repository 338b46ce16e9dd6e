//! The TDD frame of the 802.16-2004 OFDM PHY (§8.3.5.1): a downlink subframe, the
//! transmit/receive transition gap (TTG), an uplink subframe and the
//! receive/transmit gap (RTG), in whole OFDM symbols.
//!
//! ```text
//! | preamble 2 | FCH 1 | DL-MAP + UL-MAP | DL bursts … | TTG | ranging + requests 2 | UL bursts (preamble 1 + data) … | RTG |
//! ```
//!
//! * Downlink overhead: the long preamble (2 symbols, §8.3.3.6), the frame control
//!   header (1 symbol, BPSK 1/2) and the MAPs, sent at BPSK 1/2 (12 B per symbol).
//!   MAP sizes follow the layouts of §6.3.2.3.2 and §6.3.2.3.4 with the OFDM IEs:
//!   DL-MAP = 6 (MAC header) + 12 (fixed fields) + 4 per IE (one per subscriber,
//!   plus the end IE) + 4 (CRC) = 26 + 4n bytes; UL-MAP = 6 + 6 + 6 per IE (one per
//!   subscriber, plus ranging, request and end IEs) + 4 = 34 + 6n bytes. Every
//!   subscriber is listed in every frame (simplification).
//! * Uplink overhead: 2 symbols of initial-ranging and bandwidth-request
//!   opportunities (an assumption: the standard leaves their number to the BS), and
//!   one short preamble symbol before each subscriber's burst (§8.3.3.6).
//! * TTG and RTG: one symbol each (simplification: the standard counts them in
//!   physical slots, with minimums set by the equipment).
//!
//! The usable symbols (frame − gaps) are split `dl_ratio` : 1 − `dl_ratio`,
//! rounded to the nearest symbol.

use super::ofdm::OfdmPhy;
use crate::time::SimTime;

pub const DL_PREAMBLE_SYMBOLS: u64 = 2;
pub const FCH_SYMBOLS: u64 = 1;
pub const UL_CONTENTION_SYMBOLS: u64 = 2;
pub const UL_BURST_PREAMBLE_SYMBOLS: u64 = 1;
pub const GAP_SYMBOLS: u64 = 1;
/// Bytes per symbol of the MAPs (BPSK 1/2).
const MAP_BYTES_PER_SYMBOL: u64 = 12;

/// Frame durations the OFDM PHY allows (§8.3.5.1, frame duration codes), in µs.
pub const FRAME_DURATIONS_US: [u64; 7] = [2_500, 4_000, 5_000, 8_000, 10_000, 12_500, 20_000];

/// Where things are in a frame, in symbols from its start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameLayout {
    pub phy: OfdmPhy,
    pub duration: SimTime,
    pub symbols: u64,
    pub dl_symbols: u64,
    pub ul_symbols: u64,
    /// First symbol of the downlink data region.
    pub dl_data_start: u64,
    /// First symbol of the uplink subframe (its contention slots).
    pub ul_start: u64,
    /// First symbol of the uplink data region (after the contention slots).
    pub ul_data_start: u64,
}

/// MAP symbols for `subscribers` subscribers.
pub fn map_symbols(subscribers: u64) -> u64 {
    let dl_map = 26 + 4 * subscribers;
    let ul_map = 34 + 6 * subscribers;
    (dl_map + ul_map).div_ceil(MAP_BYTES_PER_SYMBOL)
}

impl FrameLayout {
    /// The layout, or `None` if a subframe has no room for data.
    pub fn new(
        phy: OfdmPhy,
        duration: SimTime,
        dl_ratio: f64,
        subscribers: u64,
    ) -> Option<FrameLayout> {
        let symbols = phy.symbols_per_frame(duration);
        let usable = symbols.checked_sub(2 * GAP_SYMBOLS)?;
        let dl_symbols = (dl_ratio * usable as f64).round() as u64;
        let ul_symbols = usable.checked_sub(dl_symbols)?;
        let dl_data_start = DL_PREAMBLE_SYMBOLS + FCH_SYMBOLS + map_symbols(subscribers);
        let ul_start = dl_symbols + GAP_SYMBOLS;
        let ul_data_start = ul_start + UL_CONTENTION_SYMBOLS;
        let layout = FrameLayout {
            phy,
            duration,
            symbols,
            dl_symbols,
            ul_symbols,
            dl_data_start,
            ul_start,
            ul_data_start,
        };
        let room = layout.dl_data_symbols() > 0
            && layout.ul_data_symbols() > UL_BURST_PREAMBLE_SYMBOLS * subscribers;
        room.then_some(layout)
    }

    /// Symbols of the downlink data region.
    pub fn dl_data_symbols(&self) -> u64 {
        self.dl_symbols.saturating_sub(self.dl_data_start)
    }

    /// Symbols of the uplink data region (burst preambles included).
    pub fn ul_data_symbols(&self) -> u64 {
        self.ul_symbols.saturating_sub(UL_CONTENTION_SYMBOLS)
    }

    /// End of symbol `k` (0-based) relative to the frame start.
    pub fn end_of_symbol(&self, k: u64) -> SimTime {
        self.phy.symbol_offset(k + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_20_mhz_5_ms_frame_with_one_subscriber_by_hand() {
        // 360 symbols − 2 gaps = 358, split 179 / 179. MAPs: (30 + 40)/12 → 6 symbols.
        // DL data: 179 − 2 − 1 − 6 = 170 symbols; UL data: 179 − 2 = 177 symbols,
        // of which one is the burst preamble.
        let phy = OfdmPhy {
            bandwidth_khz: 20_000,
            cp_divisor: 4,
        };
        let f = FrameLayout::new(phy, SimTime::from_millis(5), 0.5, 1).unwrap();
        assert_eq!(map_symbols(1), 6);
        assert_eq!((f.symbols, f.dl_symbols, f.ul_symbols), (360, 179, 179));
        assert_eq!(f.dl_data_start, 9);
        assert_eq!(f.dl_data_symbols(), 170);
        assert_eq!((f.ul_start, f.ul_data_start), (180, 182));
        assert_eq!(f.ul_data_symbols(), 177);
        // The last UL symbol (index 358) ends one RTG symbol before the frame does.
        assert_eq!(f.ul_start + f.ul_symbols, 359);
    }

    #[test]
    fn a_frame_too_short_for_data_is_refused() {
        let phy = OfdmPhy {
            bandwidth_khz: 1_750,
            cp_divisor: 4,
        };
        // 1.75 MHz: Fs = 2 MHz, Ts = 160 µs; 2.5 ms → 15 symbols, 13 usable: with 20
        // subscribers the MAPs alone take (106 + 154)/12 → 22 symbols.
        assert!(FrameLayout::new(phy, SimTime::from_micros(2_500), 0.5, 20).is_none());
        assert!(FrameLayout::new(phy, SimTime::from_millis(5), 0.02, 1).is_none());
    }
}
