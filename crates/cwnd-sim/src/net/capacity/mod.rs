//! A link direction's capacity: the link's fixed rate, a schedule of rates over time
//! (`schedule.rs`), or a trace of delivery opportunities in mahimahi's mm-link format
//! (`mm_trace.rs`), as cellular-link studies since Winstein et al.'s Sprout (NSDI
//! 2013) and Pantheon (Yan et al., USENIX ATC 2018) replay them. A capacity that moves
//! puts the link on its dequeue path (`net/link.rs`): the transmitter asks the queue
//! for a packet whenever it is free.

mod mm_trace;
mod schedule;

pub use mm_trace::{
    parse_mm_trace, Cursor, DeliveryTrace, TraceError, FRAME_HEADER, OPPORTUNITY_BYTES,
};
pub use schedule::RateSchedule;

/// How fast a link direction sends.
#[derive(Clone, Debug, PartialEq)]
pub enum Capacity {
    /// The link's `rate_bps`, always.
    Fixed,
    /// Rates that step at given times.
    Schedule(RateSchedule),
    /// Delivery opportunities read from a trace, looped.
    Trace(DeliveryTrace),
}
