//! cwnd-sim: a deterministic packet-level discrete-event simulator of transport
//! protocols over hard networks. Pure Rust, no Python; `cwnd-py` binds it.

pub mod engine;
pub mod net;
pub mod packet;
pub mod rng;
pub mod time;
pub mod timer;
pub mod transport;
pub mod units;
