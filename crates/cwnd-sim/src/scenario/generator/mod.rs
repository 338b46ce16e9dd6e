//! The generator topic: `[[generators]]`, traffic generators that open TCP
//! connections by themselves during the run (`traffic/`, `world/connections.rs`).
//! `spec.rs` holds the entry and its plan, `check.rs` the checks from one to the
//! other, `build.rs` the world's generators. Their connections take the same TCP
//! options as a `[[flows]]` entry (`cc`, `recovery`, `tcp`), checked by the tcp
//! topic.

mod build;
mod check;
mod spec;

pub use build::build;
pub use spec::{GeneratorKind, GeneratorModel, GeneratorPlan, GeneratorSpec, WebSpec};
