//! What the event loop asks of a medium — a link direction, an 802.11 channel, an
//! 802.16 cell, or whatever comes next — so that a new medium never edits the loop.
//!
//! A medium is sans-IO, like the agents: it takes `now` and packets, and says when it
//! next needs the loop (`event_to_schedule`, a lazily re-armed timer: `timer.rs`). The
//! world owns the engine: it schedules that time, calls `on_event` when it comes, and
//! hands each delivered packet to the node it reached before asking for the next one
//! (`next_delivery`), so that what a delivery causes — a trigger that cuts this very
//! medium — sees the packets still on their way, as one event per packet would.
//! Nothing here names a clock: the same loop runs on simulated time or, in live mode,
//! on the wall clock.

use super::queue::QueueTrace;
use super::sojourn::SojournHistogram;
use crate::packet::{NodeId, Packet};
use crate::time::SimTime;

pub use super::any_medium::AnyMedium;

/// A route's edge: the medium a packet takes and the neighbour it goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hop {
    /// Index in the world's media table.
    pub medium: u32,
    /// The next node.
    pub to: NodeId,
}

/// What became of a packet offered to a medium.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SendOutcome {
    /// On its way; it will reach the neighbour (or be lost later, see `Loss`).
    Accepted,
    /// The output queue was full, or RED dropped the packet early.
    DroppedQueue,
    /// Transmitted, then lost on the medium by an impairment stage.
    DroppedImpairment,
}

/// Why a medium lost a packet it had accepted: the flows count the two apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loss {
    /// Taken back from the queue and refused (a holding outage began).
    Queue,
    /// Lost on the medium: an impairment, a retry limit, a lifetime, a block error.
    Medium,
}

/// What a medium reports at the end of a run (`world::report` turns it into result
/// rows; `net` does not know the result records).
pub enum MediumReport {
    /// A direction of a point-to-point link: its ends, counters, queue trace and
    /// the waits of the packets its queue sent. Its name comes from the scenario
    /// (`World::link_info`).
    Link {
        from: NodeId,
        to: NodeId,
        stats: super::link::LinkStats,
        queue: Option<QueueTrace>,
        sojourn: SojournHistogram,
    },
    /// A shared medium: its name, its standard ("802.11b", "802.16"…) and its
    /// counters in a fixed order per kind.
    Shared {
        name: String,
        kind: &'static str,
        counters: Vec<(&'static str, u64)>,
    },
}

/// A medium, as the event loop drives it.
pub trait Medium {
    /// The kind number folded with the medium's index among its kind into the run
    /// fingerprint (`world::Event::tag`): links 1, 802.11 channels 7, 802.16 cells
    /// 12. A new medium takes a number no other event kind uses.
    fn fingerprint_kind(&self) -> u64;

    /// Node `from` offers `packet` at `now` to its neighbour `to` on this medium.
    fn send(&mut self, now: SimTime, from: NodeId, to: NodeId, packet: Packet) -> SendOutcome;

    /// The time of the next thing the medium has to do, if it needs an engine event
    /// earlier than the one pending.
    fn event_to_schedule(&mut self) -> Option<SimTime>;

    /// The medium's event fires at `now`: it does what is due, puts the packets it
    /// lost on `lost`, and keeps what it delivers for `next_delivery`. False for a
    /// stale event (superseded by an earlier one): nothing was done.
    ///
    /// A medium may lose packets while one is offered to it and accepted (a queue
    /// discipline that drops others to make room): it keeps them for its next event,
    /// which it then asks for at once.
    fn on_event(&mut self, now: SimTime, lost: &mut Vec<(Packet, Loss)>) -> bool;

    /// The next packet delivered at `now`, with the node it reached.
    fn next_delivery(&mut self, now: SimTime) -> Option<(NodeId, Packet)>;

    /// A flow event switches on impairment stage `stage` at `now`; packets the stage
    /// takes from the medium go to `lost`. A medium without impairment stages (an
    /// 802.16 cell) is never the target of a trigger: the scenario builds none.
    fn trigger(&mut self, _stage: usize, _now: SimTime, _lost: &mut Vec<(Packet, Loss)>) {}

    /// Bytes the medium's traces hold (the memory budget counts them).
    fn trace_bytes(&self) -> u64 {
        0
    }

    /// The end-of-run record at `end`, the run's last instant (takes the traces out).
    fn report(&mut self, end: SimTime) -> MediumReport;
}
