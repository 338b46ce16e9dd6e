//! cwnd-sim: a deterministic packet-level discrete-event simulator of transport
//! protocols over hard networks. Pure Rust, no Python; `cwnd-py` binds it.
//!
//! Entry points: `Scenario::from_toml` / `from_json` (checked spec),
//! `scenario::build` (spec + seed → `World`), `World::run` (→ `RunResults`).

pub mod engine;
pub mod net;
pub mod packet;
pub mod results;
pub mod rng;
pub mod scenario;
pub mod time;
pub mod timer;
pub mod trace;
pub mod transport;
pub mod units;
pub mod world;
