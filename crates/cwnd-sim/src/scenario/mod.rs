//! Scenario description, validation and construction of the world.

pub mod build;
pub mod cc_spec;
pub mod impairment_spec;
pub mod sctp_build;
pub mod sctp_spec;
pub mod spec;
pub mod validate;

pub use build::{build, run_toml};
pub use spec::Scenario;
pub use validate::ScenarioError;
