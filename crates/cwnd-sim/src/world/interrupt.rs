//! Stopping a run before its end: another thread (the Python binding, on Ctrl-C or
//! SIGTERM) sets a flag that the event loop looks at every `POLL_EVERY` events; and
//! a run whose traces outgrow its memory budget stops itself, with a message, instead
//! of allocating until the operating system kills it (`check` refuses what it can
//! foresee: `scenario::budget`; this catches what it could not).
//!
//! Polling costs one bit test per event and one atomic load per 4096 events; at the
//! engine's few million events a second a set flag is seen within about a
//! millisecond. The traces' size is summed every `BUDGET_EVERY` events (a pass over
//! every flow: rare enough to cost nothing with 100 000 flows, often enough that a
//! run overshoots its budget by a few megabytes at most). A stopped run returns no
//! results: half a run is not a result.

use std::fmt;

use crate::time::SimTime;

/// Events between two looks at the interrupt flag (a power of two: the test is a
/// mask of the queue's processed-event count).
pub const POLL_EVERY: u64 = 4096;

/// Events between two sums of what the traces hold (a multiple of `POLL_EVERY`).
pub const BUDGET_EVERY: u64 = POLL_EVERY << 6;

/// Why a run stopped before its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// Its stop flag was set, after `events` events.
    Interrupted { events: u64 },
    /// Its traces held `held` bytes at `at`, more than its budget of `budget`.
    OverBudget { held: u64, budget: u64, at: SimTime },
}

impl fmt::Display for Stopped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Stopped::Interrupted { events } => write!(f, "interrupted after {events} events"),
            Stopped::OverBudget { held, budget, at } => write!(
                f,
                "memory_budget: the run's traces held {} MiB at {at}, more than its budget of \
                 {} MiB; sample with trace.sampling = \"interval\", trace less, or raise \
                 memory_budget",
                held >> 20,
                budget >> 20
            ),
        }
    }
}

impl std::error::Error for Stopped {}
