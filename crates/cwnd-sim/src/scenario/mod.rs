//! Scenario description, loading and checking into a plan, and construction of
//! the world from a plan.

pub mod budget;
pub mod build;
pub mod cc_spec;
pub mod checks;
pub mod error;
pub mod files;
mod flows;
pub mod generator;
pub mod impairment;
pub mod link;
pub mod load;
pub mod plan;
pub mod sctp;
mod shown;
pub mod spec;
pub mod tcp;
pub mod topology;
pub mod trace;
pub mod udp;
pub mod validate;
mod warnings;
pub mod wifi;
pub mod wimax;

pub use build::build;
pub use error::ScenarioError;
pub use load::{load, run_toml};
pub use plan::Plan;
pub use spec::Scenario;
