//! IEEE 802.11 (Wi-Fi) DCF in one collision domain: timing and frame sizes
//! (`timing`) and the contention between stations (`dcf`).
//!
//! Status: the contention model is checked against Bianchi's saturation throughput;
//! the channel that carries simulated packets between stations (interface queues,
//! MAC ACKs, frame errors) and its use as a hop in scenarios are not built yet.

pub mod dcf;
pub mod timing;
