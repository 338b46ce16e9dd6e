//! IEEE 802.11 (Wi-Fi) DCF in one collision domain: timing and frame sizes
//! (`timing`) and the contention between stations (`dcf`).
//!
//! The contention model is checked against Bianchi's saturation throughput; the
//! channel (`channel`) carries simulated packets between its stations as a hop of
//! the network (`[[wireless]]` in scenarios).

pub mod channel;
pub mod dcf;
pub mod timing;
