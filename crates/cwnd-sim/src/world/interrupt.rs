//! Stopping a run from outside: another thread (the Python binding, on Ctrl-C or
//! SIGTERM) sets a flag that the event loop looks at every `POLL_EVERY` events.
//!
//! Polling costs one bit test per event and one atomic load per 4096 events; at the
//! engine's few million events a second a set flag is seen within about a
//! millisecond. An interrupted run returns no results: half a run is not a result.

use std::fmt;

/// Events between two looks at the interrupt flag (a power of two: the test is a
/// mask of the queue's processed-event count).
pub const POLL_EVERY: u64 = 4096;

/// A run stopped by its interrupt flag, after `events` events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interrupted {
    pub events: u64,
}

impl fmt::Display for Interrupted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "interrupted after {} events", self.events)
    }
}

impl std::error::Error for Interrupted {}
