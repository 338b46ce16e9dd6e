//! cwnd-sim: a deterministic packet-level discrete-event simulator of transport
//! protocols over hard networks. Pure Rust, no Python; `cwnd-py` binds it.
//!
//! Entry points: `scenario::load` (TOML or JSON text → checked `Plan`),
//! `scenario::build` (plan + seed → `World`), `World::run` (→ `RunResults`).

pub mod engine;
pub mod gaussian;
pub mod net;
pub mod packet;
pub mod params;
pub mod results;
pub mod rng;
pub mod scenario;
pub mod time;
pub mod timer;
pub mod trace;
pub mod traffic;
pub mod transport;
pub mod units;
pub mod world;
