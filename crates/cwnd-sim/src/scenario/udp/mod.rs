//! The udp topic: a UDP flow's `source` (`spec.rs`: ns-2's CBR, exponential and
//! Pareto on/off generators, `transport::udp`), checked into `SourcePlan` and
//! built into the world's UDP flow (`build.rs`).

mod build;
mod spec;

pub use build::flow;
pub use spec::{SourceKind, SourcePlan, SourceSpec};

use crate::scenario::error::ScenarioError;

/// UDP flow `i`'s source, checked (options of other transports already refused:
/// `flows.rs`).
pub fn check(source: Option<&SourceSpec>, i: usize) -> Result<SourcePlan, ScenarioError> {
    match source {
        Some(s) => s.check(i),
        None => Err(ScenarioError::new(
            format!("flows[{i}].source"),
            "a UDP flow needs a source, e.g. source = { kind = \"cbr\", rate = \"2Mbps\", packet_size = \"500B\" }",
        )),
    }
}
