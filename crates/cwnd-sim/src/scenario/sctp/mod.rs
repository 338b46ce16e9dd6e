//! The sctp topic: a flow's `sctp` table (`spec.rs`), checked into both agents'
//! configuration and, with the paths the topology chose, the flow's plan
//! (`plan.rs`), built into an association (`build.rs`).

mod build;
mod plan;
mod spec;

pub use build::flow;
pub use plan::{SctpConfigs, SctpPlan};
pub use spec::{RetransmitToSpec, RrSpec, SctpSpec, SCTP_DATA_OVERHEAD};

use crate::scenario::error::ScenarioError;
use crate::scenario::spec::Scenario;

/// SCTP flow `i`'s options (options of other transports already refused:
/// `flows.rs`), checked into its agents' configuration.
pub fn check(spec: &Scenario, i: usize) -> Result<SctpConfigs, ScenarioError> {
    spec.flows[i].sctp.check(i)?;
    Ok(spec.sctp_configs(i))
}
