//! Traffic generators: application-level sources that open TCP connections by
//! themselves during a run (issue 16; STUDIES.md study 2). A generator only says
//! when the next connection opens and how many bytes it carries (`Arrival`); the
//! world asks it for its next arrival, opens the connection, and retires it when
//! every byte is acknowledged (`world/connections.rs`). Generators never reach the
//! engine, the network or the transport: they are pure functions of their random
//! streams, so a run stays reproducible from its seed.
//!
//! Two models, each drawing from its own named streams (`rng.rs`):
//! * `ftp`: files with exponentially distributed sizes, Poisson arrivals (the
//!   classic M/G/1 file-transfer workload of ns-2 studies);
//! * `web`: sessions of pages of objects, object sizes from Barford & Crovella's
//!   SURGE hybrid lognormal/Pareto model (`sizes::HybridSizes`), one connection per
//!   object (HTTP/1.0, as SURGE's clients).
//!
//! Offered load: a generator is given a target load ρ as a fraction of a link's
//! capacity C (bit/s). Its arrival unit (an FTP file, a Web session) carries E[S]
//! payload bytes on average, so the unit arrival rate is
//!
//! ```text
//!     λ = ρ · C / (8 · E[S])      (units per second)
//! ```
//!
//! and over a long run the generator offers λ · E[S] · 8 = ρ · C bit/s of payload
//! (renewal-reward theorem: the time structure inside a unit — think times, page
//! order — does not change the long-run mean). Headers are not counted: the load is
//! what the applications ask to move.

pub mod ftp;
pub mod poisson;
pub mod sizes;
pub mod web;

use crate::rng::RngStream;
use crate::time::SimTime;
use rand::RngExt;

pub use ftp::FtpGenerator;
pub use web::{WebGenerator, WebParams};

/// One connection a generator asks for: when it opens and the bytes it carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrival {
    pub at: SimTime,
    pub bytes: u64,
}

/// The arrival rate (units per second) that offers `load` of `capacity_bps` when a
/// unit carries `mean_bytes` on average: λ = ρ·C / (8·E[S]) (see the module doc).
pub fn arrival_rate(load: f64, capacity_bps: f64, mean_bytes: f64) -> f64 {
    load * capacity_bps / (8.0 * mean_bytes)
}

/// A traffic generator of either model.
pub enum Generator {
    Ftp(FtpGenerator),
    Web(WebGenerator),
}

impl Generator {
    /// The next connection, in non-decreasing time order.
    pub fn next_arrival(&mut self) -> Arrival {
        match self {
            Generator::Ftp(g) => g.next_arrival(),
            Generator::Web(g) => g.next_arrival(),
        }
    }

    /// The model's name in results: "ftp" or "web".
    pub fn kind(&self) -> &'static str {
        match self {
            Generator::Ftp(_) => "ftp",
            Generator::Web(_) => "web",
        }
    }
}

/// A uniform draw in the open interval (0, 1): 53 random bits, offset by half a
/// step, so that inverse-CDF sampling never sees 0 or 1.
pub(crate) fn open_unit(rng: &mut RngStream) -> f64 {
    ((rng.random::<u64>() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
}

/// A transfer size in whole bytes (at least one) from a continuous draw.
fn whole_bytes(x: f64) -> u64 {
    (x.round() as u64).max(1)
}
