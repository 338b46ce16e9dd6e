//! Queue disciplines: what a link direction's output queue decides, at a packet's
//! arrival (it may drop it) and when the transmitter is free and asks for the next
//! packet (it may drop packets then too, knowing how long each waited). The seam
//! follows Linux's `struct Qdisc_ops` (`enqueue`, `dequeue`, include/net/sch_generic.h)
//! and ns-3's `QueueDisc` (`DoEnqueue`, `DoDequeue`, src/traffic-control/model).
//!
//! Every discipline counts a packet by its IP size (`Packet::size`), as the link's
//! DropTail byte limit always has; Linux counts `qdisc_pkt_len`, which on Ethernet
//! includes the 14-byte link header, so Linux's defaults that are "one MTU"
//! (`psched_mtu`: 1514 on Ethernet) are 1500 here.
//!
//! A link takes the discipline's decisions on one of two paths (`net/link.rs`): a FIFO
//! that decides on arrival (DropTail, RED) in front of a fixed rate knows each packet's
//! transmission start when it arrives and never calls `dequeue`; every other pairing
//! of discipline and capacity waits for the transmitter and calls it.

mod codel;
mod drop_tail;
mod fifo;
mod flow_queues;
mod fq_codel;
mod fq_pie;
mod pie;

pub use codel::{CoDelConfig, CoDelQueue};
pub use drop_tail::DropTail;
pub use fq_codel::{FqCoDel, FqCoDelConfig};
pub use fq_pie::{FqPie, FqPieConfig};
pub use pie::{PieConfig, PieQueue};

use crate::packet::Packet;
use crate::time::SimTime;

/// A packet waiting in a discipline, with the time it arrived (its sojourn time
/// at dequeue is `now − arrived`).
#[derive(Clone, Copy, Debug)]
pub struct Queued {
    pub packet: Packet,
    pub arrived: SimTime,
}

/// Why a discipline dropped a packet (the link counts each cause apart).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropCause {
    /// The queue's limit (packets, bytes or memory) was reached.
    Overflow,
    /// The active queue management dropped the arriving packet (RED, PIE).
    Early,
    /// The active queue management dropped a queued packet when the transmitter
    /// asked for one (CoDel).
    Dequeue,
}

/// A packet a discipline took out of its queue and dropped.
#[derive(Clone, Copy, Debug)]
pub struct Dropped {
    pub packet: Packet,
    pub cause: DropCause,
}

/// What became of an arriving packet. (ECN's marking, the next step, is a third
/// answer: queued, with its codepoint changed.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    Queued,
    Dropped(DropCause),
}

/// A queue discipline as a link drives it.
pub trait QueueDiscipline {
    /// `packet` arrives at `now`. `idle_since` is when the transmitter went idle, if
    /// it is idle with nothing queued (RED decays its average over idle time). The
    /// answer says whether the arrival was refused; packets the discipline drops
    /// from its queue to make room go to `dropped` — the arrival too, if it was
    /// queued and then among them (FQ-CoDel's batch), so that a refusal never comes
    /// with other losses.
    fn enqueue(
        &mut self,
        now: SimTime,
        packet: Packet,
        idle_since: Option<SimTime>,
        dropped: &mut Vec<Dropped>,
    ) -> Admission;

    /// The transmitter is free at `now`: the next packet to send, if any. Packets the
    /// discipline drops on the way go to `dropped`.
    fn dequeue(&mut self, now: SimTime, dropped: &mut Vec<Dropped>) -> Option<Queued>;

    /// Packets waiting.
    fn packets(&self) -> usize;

    /// Bytes (IP size) waiting.
    fn bytes(&self) -> u64;
}

/// Every discipline as one arm, so that the link's calls are a `match` the compiler
/// inlines rather than a call through a vtable (as `AnyMedium` does for media).
pub enum Discipline {
    DropTail(DropTail),
    CoDel(CoDelQueue),
    FqCoDel(FqCoDel),
    Pie(PieQueue),
    FqPie(FqPie),
}

/// `$body` with `$d` bound to the discipline inside whichever arm `$self` is.
macro_rules! each {
    ($self:expr, $d:ident => $body:expr) => {
        match $self {
            Discipline::DropTail($d) => $body,
            Discipline::CoDel($d) => $body,
            Discipline::FqCoDel($d) => $body,
            Discipline::Pie($d) => $body,
            Discipline::FqPie($d) => $body,
        }
    };
}

impl QueueDiscipline for Discipline {
    fn enqueue(
        &mut self,
        now: SimTime,
        packet: Packet,
        idle_since: Option<SimTime>,
        dropped: &mut Vec<Dropped>,
    ) -> Admission {
        each!(self, d => d.enqueue(now, packet, idle_since, dropped))
    }

    fn dequeue(&mut self, now: SimTime, dropped: &mut Vec<Dropped>) -> Option<Queued> {
        each!(self, d => d.dequeue(now, dropped))
    }

    fn packets(&self) -> usize {
        each!(self, d => d.packets())
    }

    fn bytes(&self) -> u64 {
        each!(self, d => d.bytes())
    }
}

#[cfg(test)]
pub(crate) mod test_packets {
    //! Packets for the disciplines' tests.
    use crate::packet::{FlowId, Packet, Payload, TcpData};
    use crate::time::SimTime;

    /// A data packet of `size` IP bytes of flow `flow`, with uid `uid`.
    pub fn packet(uid: u64, flow: FlowId, size: u32) -> Packet {
        Packet {
            uid,
            flow,
            src: 0,
            dst: 1,
            size,
            created: SimTime::ZERO,
            payload: Payload::TcpData(TcpData {
                seq: 0,
                len: size - 40,
                ts_val: None,
                retransmission: false,
                ecn: Default::default(),
                cwr: false,
            }),
        }
    }
}
