//! IEEE 802.16-2004 (WiMAX, fixed) point-to-multipoint TDD cells on the OFDM-256
//! PHY: the PHY numerology (`ofdm`), the frame layout (`frame`), the modulation and
//! coding schemes with adaptive choice (`mcs`), block errors from the SNR
//! (`block_errors`), per-frame fading (`fading`), the named link profiles of the
//! `wimax` study (`profile`) and the cell that carries packets (`cell`,
//! `[[wimax]]` in scenarios).

pub mod block_errors;
pub mod cell;
pub mod fading;
pub mod frame;
pub mod mcs;
pub mod ofdm;
pub mod profile;
