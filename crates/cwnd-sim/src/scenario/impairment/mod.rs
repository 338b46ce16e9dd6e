//! The impairment topic: the `impairments` entries of links and wireless channels.
//! `spec.rs` reads an entry (a `kind`, the fields every stage shares, the kind's own
//! parameters; `delay.rs` its delay table, `loss_trace.rs` a `p_file`), `check.rs`
//! checks it into a `StagePlan`, `build.rs` makes the kernel's chain from the plans.
//! The link and wireless topics call `check` and `chain` for their own stages.

mod build;
mod check;
mod delay;
mod loss_trace;
mod spec;

pub use build::chain;
pub use check::{check, StagePlan, StageWindow};
pub use spec::{Direction, ImpairmentSpec, StageSpec};

/// An entry's error: (path relative to the entry, message).
type FieldError = (String, String);
