//! The link's dequeue path, `QueuedLink`: a link direction whose packets wait in a
//! queue discipline (`net/qdisc/`) until the transmitter is free and asks for one, at
//! the moments its capacity (`net/capacity/`) gives:
//!
//! * **a rate** (fixed or scheduled): packet by packet, each from the end of the one
//!   before (or of a hold: a holding outage's window, an ARQ retry);
//! * **a trace**: at each delivery opportunity, 1504 bytes for as many packets as
//!   they reach, a packet's last byte perhaps in a later opportunity (mm-link's
//!   rules: `capacity/mm_trace.rs`).
//!
//! At any instant the transmitter acts before the arrivals of that instant (mm-link's
//! "rationalize" before an enqueue; on a rate, the packet whose turn comes at `now`
//! leaves the queue before an arrival counts it): every arrival first lets the
//! transmitter catch up to `now`. A packet that finds the transmitter idle is queued
//! and taken at once, with a sojourn of 0.
//!
//! Packets a discipline drops out of its queue (CoDel at dequeue, FQ-CoDel's batch),
//! and transmitted packets an impairment loses, are handed to the world at the link's
//! next event, which is then due at once. The link's one engine event stands for the
//! earliest of: the in-flight head's arrival, the transmitter's next moment (only
//! while packets wait or one is part-sent), and those losses.

use super::{LinkDirection, SendOutcome};
use crate::net::capacity::{
    Capacity, Cursor, DeliveryTrace, RateSchedule, FRAME_HEADER, OPPORTUNITY_BYTES,
};
use crate::net::medium::Loss;
use crate::net::medium::{Medium, MediumReport};
use crate::net::qdisc::{Admission, Discipline, Dropped, QueueDiscipline, Queued};
use crate::packet::NodeId;
use crate::packet::Packet;
use crate::time::SimTime;

/// A link direction on the dequeue path: the link (its transmitter, impairments,
/// propagation, counters and measurements) and what waits in front of it.
pub struct QueuedLink {
    pub(super) link: LinkDirection,
    path: DequeuePath,
}

impl QueuedLink {
    /// `link`'s own queue (and RED) set aside for `discipline`, in front of
    /// `capacity` (`LinkDirection::with_queue` decides which path a link takes).
    pub(super) fn new(link: LinkDirection, discipline: Discipline, capacity: Capacity) -> Self {
        QueuedLink {
            link,
            path: DequeuePath::new(discipline, capacity),
        }
    }
}

struct DequeuePath {
    discipline: Discipline,
    transmitter: Transmitter,
    /// What the discipline dropped in one call (kept to reuse its allocation).
    dropped: Vec<Dropped>,
    /// Losses for the world, due at `lost_at`.
    lost: Vec<(Packet, Loss)>,
    lost_at: SimTime,
    /// The occupancy the queue trace last recorded (packets, bytes).
    traced: (usize, u64),
    /// `next_moment`, as of the end of the last send or event (`SimTime::MAX`: none).
    moment: SimTime,
}

enum Transmitter {
    /// Packet by packet at the link's rate, or at a schedule's.
    Rate(Option<RateSchedule>),
    Trace {
        trace: DeliveryTrace,
        /// The next opportunity not yet used.
        next: Cursor,
        /// The packet whose bytes are part-sent.
        in_transit: Option<InTransit>,
    },
}

struct InTransit {
    packet: Packet,
    started: SimTime,
    bytes_left: u32,
}

impl DequeuePath {
    pub fn new(discipline: Discipline, capacity: Capacity) -> Self {
        let transmitter = match capacity {
            Capacity::Fixed => Transmitter::Rate(None),
            Capacity::Schedule(s) => Transmitter::Rate(Some(s)),
            Capacity::Trace(trace) => Transmitter::Trace {
                next: trace.first_from(SimTime::ZERO),
                trace,
                in_transit: None,
            },
        };
        DequeuePath {
            discipline,
            transmitter,
            dropped: Vec::new(),
            lost: Vec::new(),
            lost_at: SimTime::ZERO,
            traced: (0, 0),
            moment: SimTime::MAX,
        }
    }

    /// A packet lost at `now`, for the world at the link's next event (due now).
    fn lose(&mut self, packet: Packet, why: Loss, now: SimTime) {
        if self.lost.is_empty() {
            self.lost_at = now;
        }
        self.lost.push((packet, why));
    }

    /// Whether the transmitter has anything to send.
    fn has_work(&self) -> bool {
        let part_sent = matches!(
            self.transmitter,
            Transmitter::Trace {
                in_transit: Some(_),
                ..
            }
        );
        part_sent || self.discipline.packets() > 0
    }

    /// When the path next needs the link's event: losses to hand over, or the
    /// transmitter's next moment (`busy_until` on a rate) while it has work;
    /// `SimTime::MAX` for never.
    fn next_moment(&self, busy_until: SimTime) -> SimTime {
        let losses = if self.lost.is_empty() {
            SimTime::MAX
        } else {
            self.lost_at
        };
        let transmitter = match &self.transmitter {
            _ if !self.has_work() => SimTime::MAX,
            Transmitter::Rate(_) => busy_until,
            Transmitter::Trace { trace, next, .. } => trace.time(*next),
        };
        losses.min(transmitter)
    }
}

/// `AnyMedium`'s dispatch is inlined into the world's loop: this arm's methods are
/// kept out of line, and `event_to_schedule` call-free, or the loop grows (and its
/// `schedule_medium` a stack frame), which cost the fast path's links 4 to 8 %
/// (callgrind).
impl Medium for QueuedLink {
    /// A link, as on the fast path: the event numbering is the links'.
    fn fingerprint_kind(&self) -> u64 {
        self.link.fingerprint_kind()
    }

    #[inline(never)]
    fn send(&mut self, now: SimTime, _from: NodeId, _to: NodeId, packet: Packet) -> SendOutcome {
        let outcome = self.link.send_to_discipline(&mut self.path, now, packet);
        self.path.moment = self.path.next_moment(self.link.busy_until);
        outcome
    }

    /// The earliest of the in-flight head's arrival and the path's next moment.
    #[inline]
    fn event_to_schedule(&mut self) -> Option<SimTime> {
        let head = self
            .link
            .in_flight
            .front()
            .map_or(SimTime::MAX, |f| f.arrival);
        self.link.arrival_timer.arm(head.min(self.path.moment))
    }

    /// The transmitter acts; what the queue and the medium lost since the last
    /// event is handed over.
    #[inline(never)]
    fn on_event(&mut self, now: SimTime, lost: &mut Vec<(Packet, Loss)>) -> bool {
        if !self.link.claim_arrival_event(now) {
            return false;
        }
        self.link.run_transmitter(&mut self.path, now);
        self.link.trace_change(&mut self.path, now);
        lost.append(&mut self.path.lost);
        self.path.moment = self.path.next_moment(self.link.busy_until);
        true
    }

    #[inline(never)]
    fn next_delivery(&mut self, now: SimTime) -> Option<(NodeId, Packet)> {
        self.link.next_delivery(now)
    }

    /// A cutting stage loses the packets in flight whose arrival falls in its window;
    /// a holding stage needs nothing done: the packets are in the discipline, and the
    /// transmitter finds the line held when it next asks for one.
    fn trigger(&mut self, stage: usize, now: SimTime, lost: &mut Vec<(Packet, Loss)>) {
        let Some(effect) = self.link.impairments.trigger(stage, now) else {
            return;
        };
        if effect.cuts {
            let cut = self.link.drop_in_flight(effect.from, effect.until);
            lost.extend(cut.into_iter().map(|p| (p, Loss::Medium)));
        }
    }

    fn trace_bytes(&self) -> u64 {
        self.link.trace_bytes()
    }

    fn report(&mut self, end: SimTime) -> MediumReport {
        self.link.report(end)
    }
}

impl LinkDirection {
    /// The dequeue path's `send`: the transmitter catches up to `now`, the packet
    /// is offered to the discipline, and the transmitter takes it at once if idle.
    fn send_to_discipline(
        &mut self,
        dq: &mut DequeuePath,
        now: SimTime,
        packet: Packet,
    ) -> SendOutcome {
        self.run_transmitter(dq, now);
        self.trace_change(dq, now);
        let idle_since = (!dq.has_work() && self.busy_until <= now).then_some(self.busy_until);
        let admission = dq
            .discipline
            .enqueue(now, packet, idle_since, &mut dq.dropped);
        self.collect_drops(dq, now);
        let outcome = match admission {
            Admission::Queued => SendOutcome::Accepted,
            Admission::Dropped(cause) => {
                self.stats.count_queue_drop(cause);
                SendOutcome::DroppedQueue
            }
        };
        self.run_transmitter(dq, now);
        self.trace_change(dq, now);
        outcome
    }

    /// Counts what the discipline dropped and keeps it for the world.
    fn collect_drops(&mut self, dq: &mut DequeuePath, now: SimTime) {
        let mut dropped = std::mem::take(&mut dq.dropped);
        for d in dropped.drain(..) {
            self.stats.count_queue_drop(d.cause);
            dq.lose(d.packet, Loss::Queue, now);
        }
        dq.dropped = dropped;
    }

    /// A row of the queue trace if the occupancy changed since the last one (a
    /// packet that finds the link idle passes through without one, as on the fast
    /// path).
    fn trace_change(&mut self, dq: &mut DequeuePath, now: SimTime) {
        let occupancy = (dq.discipline.packets(), dq.discipline.bytes());
        if occupancy != dq.traced {
            dq.traced = occupancy;
            self.queue.occupancy(now, occupancy.0, occupancy.1);
        }
    }

    /// Asks the discipline for a packet at `now`, recording its wait.
    fn take_next(&mut self, dq: &mut DequeuePath, now: SimTime) -> Option<Queued> {
        let next = dq.discipline.dequeue(now, &mut dq.dropped);
        self.collect_drops(dq, now);
        let q = next?;
        self.queue.departed(now, now - q.arrived);
        Some(q)
    }

    /// Puts a packet on the medium at `now`; one an impairment loses goes to the
    /// world with the other losses.
    fn send_out(
        &mut self,
        dq: &mut DequeuePath,
        now: SimTime,
        start: SimTime,
        end: SimTime,
        packet: Packet,
    ) {
        if self.transmitted(start, end, packet) == SendOutcome::DroppedImpairment {
            dq.lose(packet, Loss::Medium, now);
        }
    }

    /// Does everything the transmitter has to do up to `now`.
    fn run_transmitter(&mut self, dq: &mut DequeuePath, now: SimTime) {
        if matches!(dq.transmitter, Transmitter::Rate(_)) {
            self.run_rate(dq, now);
        } else {
            self.run_trace(dq, now);
        }
    }

    /// Packet by packet: when the transmitter is free at `now` and the line is not
    /// held, the next packet starts.
    fn run_rate(&mut self, dq: &mut DequeuePath, now: SimTime) {
        if self.busy_until > now || dq.discipline.packets() == 0 {
            return;
        }
        let mut start = now;
        while let Some(until) = self.impairments.held_until(start) {
            start = until;
        }
        if start > now {
            self.busy_until = start;
            return;
        }
        let Some(q) = self.take_next(dq, now) else {
            return;
        };
        let end = match &dq.transmitter {
            Transmitter::Rate(Some(schedule)) => {
                schedule.finish(now, q.packet.size as u64 + self.overhead as u64)
            }
            _ => now + self.transmission_time(q.packet.size),
        };
        self.busy_until = end;
        self.send_out(dq, now, now, end, q.packet);
    }

    /// Every delivery opportunity up to `now`, while there is something to send; the
    /// opportunities of an idle link are lost.
    fn run_trace(&mut self, dq: &mut DequeuePath, now: SimTime) {
        loop {
            let work = dq.has_work();
            let Transmitter::Trace { trace, next, .. } = &mut dq.transmitter else {
                unreachable!("a trace transmitter");
            };
            if !work {
                *next = trace.first_after(now);
                return;
            }
            let opportunity = *next;
            let t = trace.time(opportunity);
            if t > now {
                return;
            }
            // A retrying link layer holds the transmitter, or a holding outage the
            // line: their opportunities are lost.
            if t < self.busy_until {
                *next = trace.first_from(self.busy_until);
                continue;
            }
            if let Some(until) = self.impairments.held_until(t) {
                *next = trace.first_from(until);
                continue;
            }
            *next = trace.next(opportunity);
            self.use_opportunity(dq, t);
        }
    }

    /// One opportunity at `t`: its bytes go to the part-sent packet, then to packets
    /// taken from the queue, until they run out or the queue does.
    fn use_opportunity(&mut self, dq: &mut DequeuePath, t: SimTime) {
        let mut budget = OPPORTUNITY_BYTES;
        while budget > 0 {
            let part_sent = match &mut dq.transmitter {
                Transmitter::Trace { in_transit, .. } => in_transit.take(),
                Transmitter::Rate(_) => unreachable!("a trace transmitter"),
            };
            let mut sending = match part_sent {
                Some(s) => s,
                None => match self.take_next(dq, t) {
                    Some(q) => InTransit {
                        bytes_left: q.packet.size + FRAME_HEADER,
                        packet: q.packet,
                        started: t,
                    },
                    None => return,
                },
            };
            let used = budget.min(sending.bytes_left);
            sending.bytes_left -= used;
            budget -= used;
            if sending.bytes_left > 0 {
                if let Transmitter::Trace { in_transit, .. } = &mut dq.transmitter {
                    *in_transit = Some(sending);
                }
                return;
            }
            self.busy_until = t;
            self.send_out(dq, t, sending.started, t, sending.packet);
            if self.busy_until > t {
                // An ARQ hold: the rest of this opportunity is lost.
                return;
            }
        }
    }
}
