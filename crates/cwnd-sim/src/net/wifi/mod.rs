//! IEEE 802.11 (Wi-Fi) DCF in one collision domain: timing and frame sizes
//! (`timing`), the contention between stations (`dcf`), received power and SNR
//! (`propagation`) and frame errors from the SNR (`frame_errors`).
//!
//! The contention model is checked against Bianchi's saturation throughput; the
//! channel (`channel`) carries simulated packets between its stations as a hop of
//! the network (`[[wireless]]` in scenarios).

pub mod channel;
pub mod dcf;
pub mod frame_errors;
pub mod propagation;
pub mod saturation;
pub mod timing;
