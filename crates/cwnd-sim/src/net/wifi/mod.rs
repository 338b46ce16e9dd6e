//! IEEE 802.11 (Wi-Fi) DCF in one collision domain: timing and frame sizes
//! (`timing`; 802.11b's DSSS and 802.11a/g's OFDM frame durations in `ofdm`), the
//! contention between stations (`dcf`), received power and SNR
//! (`propagation`) and frame errors from the SNR (`frame_errors`).
//!
//! The contention model is checked against Bianchi's saturation throughput; the
//! channel (`channel`) carries simulated packets between its stations as a hop of
//! the network (`[[wireless]]` in scenarios).

pub mod channel;
pub mod dcf;
pub mod frame_errors;
pub mod ofdm;
pub mod propagation;
pub mod saturation;
pub mod timing;
