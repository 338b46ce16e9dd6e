//! Scenario description, validation and construction of the world.

pub mod budget;
pub mod build;
pub mod cc_spec;
pub mod impairment_spec;
pub mod loss_trace;
pub mod sctp_build;
pub mod sctp_spec;
pub mod spec;
pub mod validate;
pub mod wimax_spec;

pub use build::{build, run_toml};
pub use spec::Scenario;
pub use validate::ScenarioError;
