//! One direction of a full-duplex point-to-point link: output queue, transmitter,
//! impairment stages and propagation.
//!
//! **The fast path.** When the queue is a FIFO that decides on arrival (DropTail,
//! optionally with RED) and the rate is fixed, a packet's transmission start is known
//! when it is enqueued: `start = max(now, transmitter busy until)` and
//! `end = start + (IP size + link overhead) × 8 / rate`. Impairments are applied
//! then (they see `end`, the instant the packet is on the medium), and the packet
//! enters the in-flight list with `arrival = end + delay + extra`. The in-flight
//! list is kept sorted by arrival; only its head has an event in the engine's
//! queue, so a packet costs one engine event per hop.
//!
//! **The dequeue path** (`link/dequeue.rs`, `QueuedLink`: a medium of its own, so
//! that the fast path tests nothing for it). Any other discipline (CoDel, FQ-CoDel,
//! PIE, FQ-PIE: `net/qdisc/`), or a capacity that moves (`net/capacity/`), holds
//! packets in the discipline until the transmitter is free and asks for one: the
//! link's event then also stands for the transmitter's next moment, so a packet costs
//! at most one more event per hop (its dequeue).
//!
//! Packets that arrive at the same instant leave in the order they were sent.

use std::collections::VecDeque;
use std::num::NonZeroU64;

mod dequeue;

pub use dequeue::QueuedLink;

use super::capacity::Capacity;
use super::impair::{ImpairmentChain, PacketMeta, Verdict};
use super::medium::{AnyMedium, Loss, Medium, MediumReport, SendOutcome};
use super::qdisc::{Discipline, DropCause};
use super::queue::{OutputQueue, QueueLimit};
use super::red::{Red, RedVerdict};
use crate::packet::{FlowId, NodeId, Packet};
use crate::time::SimTime;
use crate::timer::LazyTimer;

/// Counters of one link direction (columns of the links table, `results`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct LinkStats {
    /// Packets and bytes (IP size) handed to the transmitter.
    pub packets_sent: u64,
    pub bytes_sent: u64,
    /// Packets delivered to the far node.
    pub packets_delivered: u64,
    /// Packets the queue dropped, whatever the cause: the sum of the next three.
    pub drops_queue: u64,
    /// Dropped early on arrival by the AQM (RED, PIE).
    pub drops_early: u64,
    /// Dropped because the queue was full (its packet, byte or memory limit).
    pub drops_overflow: u64,
    /// Dropped by the AQM when the transmitter asked for a packet (CoDel).
    pub drops_dequeue: u64,
    /// ECT packets the AQM marked CE instead of dropping (RED with `ecn`; RFC 3168
    /// §5): queued, not counted as drops.
    pub marks: u64,
    pub drops_impairment: u64,
}

impl LinkStats {
    fn count_queue_drop(&mut self, cause: DropCause) {
        self.drops_queue += 1;
        match cause {
            DropCause::Overflow => self.drops_overflow += 1,
            DropCause::Early => self.drops_early += 1,
            DropCause::Dequeue => self.drops_dequeue += 1,
        }
    }
}

struct InFlight {
    /// Transmission start.
    start: SimTime,
    arrival: SimTime,
    packet: Packet,
}

/// Asks the processor for the cache lines of the slot after `last` in the in-flight
/// list, where the next packet pushed will be written. With many flows the list's
/// slots are cold when they are written (the 1 000-flow bottleneck's list alone is
/// about 2.5 MB, beyond the core's 1 MB L2), and the push stalled on the lines it
/// wrote: fetched ahead, they are there by the next push (11 % less CPU at 1 000
/// flows, nothing measurable at 10; a prefetch of the next head on a pop gained
/// nothing: BENCHMARKS.md). The slot may lie past the buffer's end when the list
/// wraps: a prefetch is only a hint and reads nothing the program sees.
#[inline(always)]
fn prefetch_slot_after(last: &InFlight) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let next = (last as *const InFlight).wrapping_add(1).cast::<i8>();
        // SAFETY: `_mm_prefetch` needs SSE, which every x86-64 processor has; a
        // prefetch does not fault, whatever the address.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(next);
            _mm_prefetch::<_MM_HINT_T0>(next.wrapping_add(std::mem::size_of::<InFlight>() - 1));
        }
    }
}

/// Static parameters of a link direction.
#[derive(Clone, Copy, Debug)]
pub struct LinkParams {
    pub rate_bps: u64,
    pub delay: SimTime,
    /// Link-layer bytes added to every packet for serialization (framing, FCS…).
    pub overhead: u32,
    /// The DropTail limit (also RED's) of `LinkDirection::new`; a discipline given
    /// with `with_queue` carries its own.
    pub queue: QueueLimit,
}

/// The fields are laid out in the order written (`repr(C)`): first what every event
/// of the link reads (`event_to_schedule`, `on_event`, `next_delivery`), then the
/// counters, then what every packet sent on the fast path reads; the big rare parts
/// (RED, the queue trace, the dequeue path) are boxed. At 1 000 flows the event loop
/// touches 4 002 link directions in no cache-friendly order, and each cache line a
/// packet's hop does not have to load is a miss saved (BENCHMARKS.md, "The
/// per-packet path").
#[repr(C)]
pub struct LinkDirection {
    in_flight: VecDeque<InFlight>,
    /// The engine event for the head of `in_flight` (and, on the dequeue path, the
    /// transmitter's next moment).
    arrival_timer: LazyTimer,
    /// What only some links have (RED, packets held back).
    rare: Option<Box<Rare>>,
    pub to: NodeId,
    pub from: NodeId,
    pub stats: LinkStats,
    /// When the transmitter is free: the end of the packet being sent (or of a hold).
    busy_until: SimTime,
    /// The fast path's waiting packets (none on the dequeue path), and the queue's
    /// measurements on both.
    queue: OutputQueue,
    /// Serialization nanoseconds per byte when the rate divides 8 × 10⁹ (1 Gb/s:
    /// 8 ns, 100 Mb/s: 80 ns): the per-packet time is then one multiplication.
    ns_per_byte: Option<NonZeroU64>,
    rate_bps: u64,
    delay: SimTime,
    /// Link-layer bytes added to every packet for serialization.
    overhead: u32,
    pub impairments: ImpairmentChain,
}

/// What only some link directions have, boxed together so that the others carry one
/// pointer, and a packet on the fast path tests one.
#[derive(Default)]
struct Rare {
    /// RED in front of the fast path's queue.
    red: Option<Red>,
    /// Packets held back by exact reordering: (packet, later packets of its flow
    /// still to pass before it).
    held: Vec<(Packet, u64)>,
}

/// 8 × 10⁹ / rate when exact: `SimTime::transmission` without its division.
fn exact_ns_per_byte(rate_bps: u64) -> Option<NonZeroU64> {
    const NS_BITS_PER_BYTE: u64 = 8 * 1_000_000_000;
    if NS_BITS_PER_BYTE.checked_rem(rate_bps) == Some(0) {
        NonZeroU64::new(NS_BITS_PER_BYTE / rate_bps)
    } else {
        None
    }
}

impl LinkDirection {
    /// A DropTail queue of `params.queue` in front of the fixed rate (the fast path).
    pub fn new(from: NodeId, to: NodeId, params: LinkParams, trace_queue: bool) -> Self {
        LinkDirection {
            from,
            to,
            ns_per_byte: exact_ns_per_byte(params.rate_bps),
            rate_bps: params.rate_bps,
            delay: params.delay,
            overhead: params.overhead,
            queue: OutputQueue::new(params.queue, trace_queue),
            rare: None,
            busy_until: SimTime::ZERO,
            in_flight: VecDeque::new(),
            arrival_timer: LazyTimer::default(),
            impairments: ImpairmentChain::default(),
            stats: LinkStats::default(),
        }
    }

    /// Puts RED in front of the fast path's queue.
    pub fn with_red(mut self, red: Red) -> Self {
        self.rare_mut().red = Some(red);
        self
    }

    fn rare_mut(&mut self) -> &mut Rare {
        self.rare.get_or_insert_with(Box::default)
    }

    /// This direction with `discipline` in front of `capacity` in place of its queue,
    /// as the medium that runs it: DropTail (and RED) at a fixed rate stay on the fast
    /// path (`AnyMedium::Link`); anything else takes the dequeue path
    /// (`AnyMedium::QueuedLink`).
    pub fn with_queue(mut self, discipline: Discipline, capacity: Capacity) -> AnyMedium {
        self.rare = None;
        match (discipline, capacity) {
            (Discipline::DropTail(fifo), Capacity::Fixed) => {
                let (limit, red) = fifo.into_parts();
                self.queue = OutputQueue::new(limit, self.queue.is_traced());
                if let Some(red) = red {
                    self.rare_mut().red = Some(*red);
                }
                AnyMedium::Link(self)
            }
            (discipline, capacity) => {
                AnyMedium::QueuedLink(Box::new(QueuedLink::new(self, discipline, capacity)))
            }
        }
    }

    /// Serialization time of a packet of `size` IP bytes at the link's rate.
    pub fn transmission_time(&self, size: u32) -> SimTime {
        let bytes = size as u64 + self.overhead as u64;
        match self.ns_per_byte {
            Some(ns) => SimTime(bytes.saturating_mul(ns.get())),
            None => SimTime::transmission(bytes, self.rate_bps),
        }
    }

    /// Offers a packet at time `now`.
    #[inline]
    pub fn send(&mut self, now: SimTime, packet: Packet) -> SendOutcome {
        self.send_scheduled(now, packet)
    }

    /// The fast path: the packet is given its start at once.
    #[inline]
    fn send_scheduled(&mut self, now: SimTime, mut packet: Packet) -> SendOutcome {
        self.queue.release(now);
        let mut marked = false;
        if let Some(red) = self.rare.as_mut().and_then(|r| r.red.as_mut()) {
            let idle_since = (self.busy_until <= now).then_some(self.busy_until);
            match red.verdict(now, self.queue.len(), idle_since, packet.ecn()) {
                RedVerdict::Admit => {}
                RedVerdict::Mark => marked = packet.mark_ce(),
                RedVerdict::Drop => {
                    self.stats.count_queue_drop(DropCause::Early);
                    return SendOutcome::DroppedQueue;
                }
            }
        }
        let mut start = now.max(self.busy_until);
        while let Some(until) = self.impairments.held_until(start) {
            start = until;
        }
        if start > now {
            if !self.queue.admits(packet.size) {
                self.stats.count_queue_drop(DropCause::Overflow);
                return SendOutcome::DroppedQueue;
            }
            self.queue.push(now, start, packet.size);
        } else {
            self.queue.passed(now);
        }
        // A mark counts once the packet is in: a full queue still drops it.
        self.stats.marks += u64::from(marked);
        let end = start + self.transmission_time(packet.size);
        self.busy_until = end;
        self.transmitted(start, end, packet)
    }

    /// A packet is on the medium from `start` to `end`: it is counted, the impairment
    /// stages see it, and it enters the in-flight list (or is lost, or held back).
    /// Inlined in both paths: a call here cost the fast path 3 % (callgrind).
    #[inline(always)]
    fn transmitted(&mut self, start: SimTime, end: SimTime, packet: Packet) -> SendOutcome {
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += packet.size as u64;
        let meta = PacketMeta {
            flow: packet.flow,
            class: packet.class(),
            size: packet.size,
            sent: end,
        };
        let extra = match self.impairments.apply(&meta) {
            Verdict::Drop => {
                self.stats.drops_impairment += 1;
                return SendOutcome::DroppedImpairment;
            }
            Verdict::After(n) => {
                self.rare_mut().held.push((packet, n));
                return SendOutcome::Accepted;
            }
            Verdict::Pass { extra, hold } => {
                if hold {
                    // The link layer keeps retrying this packet: the ones behind wait.
                    self.busy_until = end + extra;
                }
                extra
            }
        };
        let arrival = end + self.delay + extra;
        let flow = packet.flow;
        self.insert_in_flight(start, arrival, packet);
        if self.rare.as_ref().is_some_and(|r| !r.held.is_empty()) {
            self.release_held(flow, arrival);
        }
        SendOutcome::Accepted
    }

    /// Keeps the in-flight list sorted by arrival; equal arrivals keep sending order.
    /// Almost every packet arrives after those already on the way: a `push_back`,
    /// which `VecDeque::insert` at the end is not (it goes through its general
    /// shifting path: 5 % of the 10-flow dumbbell's instructions, callgrind).
    fn insert_in_flight(&mut self, start: SimTime, arrival: SimTime, packet: Packet) {
        let entry = InFlight {
            start,
            arrival,
            packet,
        };
        if self.in_flight.back().is_none_or(|b| b.arrival <= arrival) {
            self.in_flight.push_back(entry);
            if let Some(last) = self.in_flight.back() {
                prefetch_slot_after(last);
            }
        } else {
            let pos = self.in_flight.partition_point(|f| f.arrival <= arrival);
            self.in_flight.insert(pos, entry);
        }
    }

    /// Another packet of `flow` will arrive at `arrival`: held packets of the flow
    /// waiting for it follow it 1 ns later.
    fn release_held(&mut self, flow: FlowId, arrival: SimTime) {
        let mut i = 0;
        while i < self.rare_mut().held.len() {
            let held = &mut self.rare_mut().held;
            if held[i].0.flow == flow {
                held[i].1 -= 1;
                if held[i].1 == 0 {
                    let (packet, _) = held.swap_remove(i);
                    self.insert_in_flight(arrival, arrival + SimTime(1), packet);
                    continue;
                }
            }
            i += 1;
        }
    }

    /// If the head of the in-flight list needs an arrival event earlier than the
    /// one pending (or none is pending), records and returns its time.
    #[inline]
    pub fn arrival_to_schedule(&mut self) -> Option<SimTime> {
        let head = self.in_flight.front()?.arrival;
        self.arrival_timer.arm(head)
    }

    /// Called when an arrival event for this direction fires at `now`. Returns
    /// false for a stale event (superseded by an earlier one).
    pub fn claim_arrival_event(&mut self, now: SimTime) -> bool {
        self.arrival_timer.fire(now)
    }

    /// The next packet that has arrived by `now`, if any.
    pub fn pop_arrived(&mut self, now: SimTime) -> Option<Packet> {
        if self.in_flight.front()?.arrival <= now {
            self.stats.packets_delivered += 1;
            self.in_flight.pop_front().map(|f| f.packet)
        } else {
            None
        }
    }

    /// Loses the packets in flight whose arrival falls in [from, until) — the link
    /// went down under them. Returns the lost packets (rare: only when an outage is
    /// triggered).
    pub fn drop_in_flight(&mut self, from: SimTime, until: SimTime) -> Vec<Packet> {
        let mut lost = Vec::new();
        self.in_flight.retain(|f| {
            let hit = from <= f.arrival && f.arrival < until;
            if hit {
                lost.push(f.packet);
            }
            !hit
        });
        self.stats.drops_impairment += lost.len() as u64;
        lost
    }

    /// A holding outage began at `now`: the packets queued but not yet started are
    /// taken back and offered again, in their order and with their arrival times, so
    /// that they wait for its end. Returns those that no longer fit in the queue,
    /// with what became of them. (On the dequeue path the packets are still in the
    /// discipline, and the transmitter finds the line held.)
    pub fn hold_queued(&mut self, now: SimTime) -> Vec<(Packet, SendOutcome)> {
        self.queue.release(now);
        let mut queued = Vec::new();
        let mut i = 0;
        while i < self.in_flight.len() {
            if self.in_flight[i].start > now {
                queued.extend(self.in_flight.remove(i));
            } else {
                i += 1;
            }
        }
        queued.sort_by_key(|f| f.start);
        // (start, wait's bucket) of every waiting packet, in the same order; a packet
        // held back by exact reordering waited too but is not in flight: skipped. A
        // packet offered again keeps its arrival, known within its bucket (1/64).
        let mut waits = self.queue.take_waiting(now).into_iter().peekable();
        self.busy_until = self
            .in_flight
            .iter()
            .map(|f| f.start + self.transmission_time(f.packet.size))
            .fold(now, SimTime::max);
        let mut refused = Vec::new();
        for f in queued {
            while waits.next_if(|&(start, _)| start < f.start).is_some() {}
            let arrived = waits
                .next_if(|&(start, _)| start == f.start)
                .map_or(now, |(start, b)| start.saturating_sub(b.middle()).min(now));
            self.stats.packets_sent -= 1;
            self.stats.bytes_sent -= f.packet.size as u64;
            let waiting = self.queue.len();
            match self.send_scheduled(now, f.packet) {
                SendOutcome::Accepted if self.queue.len() > waiting => {
                    self.queue.arrived_earlier(arrived);
                }
                SendOutcome::Accepted => {}
                outcome => refused.push((f.packet, outcome)),
            }
        }
        refused
    }
}

impl Medium for LinkDirection {
    fn fingerprint_kind(&self) -> u64 {
        1
    }

    /// The far end is `self.to`: a direction has one neighbour.
    #[inline]
    fn send(&mut self, now: SimTime, _from: NodeId, _to: NodeId, packet: Packet) -> SendOutcome {
        LinkDirection::send(self, now, packet)
    }

    #[inline]
    fn event_to_schedule(&mut self) -> Option<SimTime> {
        self.arrival_to_schedule()
    }

    /// A link loses nothing when its arrival event fires: its losses happen when
    /// packets are sent, or when a trigger cuts it.
    #[inline]
    fn on_event(&mut self, now: SimTime, _lost: &mut Vec<(Packet, Loss)>) -> bool {
        self.claim_arrival_event(now)
    }

    #[inline]
    fn next_delivery(&mut self, now: SimTime) -> Option<(NodeId, Packet)> {
        self.pop_arrived(now).map(|p| (self.to, p))
    }

    /// A holding stage takes back the packets queued but not yet started (those
    /// that no longer fit are lost); a cutting stage loses the packets in flight
    /// whose arrival falls in its window.
    fn trigger(&mut self, stage: usize, now: SimTime, lost: &mut Vec<(Packet, Loss)>) {
        let Some(effect) = self.impairments.trigger(stage, now) else {
            return;
        };
        if effect.holds {
            lost.extend(self.hold_queued(now).into_iter().map(|(p, outcome)| {
                let why = if outcome == SendOutcome::DroppedQueue {
                    Loss::Queue
                } else {
                    Loss::Medium
                };
                (p, why)
            }));
        }
        if effect.cuts {
            let cut = self.drop_in_flight(effect.from, effect.until);
            lost.extend(cut.into_iter().map(|p| (p, Loss::Medium)));
        }
    }

    fn trace_bytes(&self) -> u64 {
        self.queue.trace_bytes()
    }

    /// The packets still waiting on the fast path at `end` have not left the queue:
    /// neither their waits nor their departures (after the run) are recorded.
    fn report(&mut self, end: SimTime) -> MediumReport {
        let (queue, sojourn) = self.queue.finish(end, self.stats.packets_sent);
        MediumReport::Link {
            from: self.from,
            to: self.to,
            stats: self.stats,
            queue,
            sojourn,
        }
    }
}

#[cfg(test)]
mod queue_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::qdisc::test_packets::packet;

    /// A data packet of flow 0.
    fn data(uid: u64, size: u32) -> Packet {
        packet(uid, 0, size)
    }

    fn link(rate_bps: u64, delay: SimTime, overhead: u32, limit: u32) -> LinkDirection {
        let params = LinkParams {
            rate_bps,
            delay,
            overhead,
            queue: QueueLimit::Packets(limit),
        };
        LinkDirection::new(0, 1, params, false)
    }

    #[test]
    fn arrival_is_serialization_plus_propagation_to_the_nanosecond() {
        // 1500 B + 14 B overhead at 10 Mb/s: 1514*8/1e7 s = 1 211 200 ns; + 2 ms.
        let mut l = link(10_000_000, SimTime::from_millis(2), 14, 10);
        assert_eq!(l.send(SimTime(1000), data(1, 1500)), SendOutcome::Accepted);
        let expected = SimTime(1000 + 1_211_200 + 2_000_000);
        assert_eq!(l.arrival_to_schedule(), Some(expected));
        assert_eq!(l.pop_arrived(SimTime(expected.0 - 1)), None);
        assert_eq!(l.pop_arrived(expected).map(|p| p.uid), Some(1));
    }

    #[test]
    fn serialization_time_is_the_same_with_and_without_the_per_byte_shortcut() {
        // 1 Gb/s: 8 ns per byte, 1514 B → 12 112 ns; 100 Mb/s: 80 ns → 121 120 ns.
        // 3 Mb/s does not divide 8e9 (2666.67 ns per byte): 1514·8e9/3e6 =
        // 4 037 333.33 ns, rounded up to 4 037 334.
        for (rate, expected) in [
            (1_000_000_000, 12_112),
            (100_000_000, 121_120),
            (3_000_000, 4_037_334),
        ] {
            let l = link(rate, SimTime::ZERO, 14, 10);
            assert_eq!(l.ns_per_byte.is_some(), rate != 3_000_000);
            assert_eq!(l.transmission_time(1500), SimTime(expected));
            assert_eq!(SimTime::transmission(1514, rate), SimTime(expected));
        }
    }

    #[test]
    fn back_to_back_packets_queue_behind_the_transmitter() {
        // 40 B at 1 Mb/s = 320 us each; no propagation delay.
        let mut l = link(1_000_000, SimTime::ZERO, 0, 10);
        for uid in 0..3 {
            l.send(SimTime::ZERO, data(uid, 40));
        }
        let arrivals: Vec<u64> = (0..3)
            .map(|_| {
                let t = l.in_flight.front().unwrap().arrival;
                l.pop_arrived(t).unwrap();
                t.0
            })
            .collect();
        assert_eq!(arrivals, vec![320_000, 640_000, 960_000]);
    }

    #[test]
    fn full_queue_drops_arrivals() {
        // One packet in transmission plus a queue of 2: the fourth is dropped.
        let mut l = link(1_000_000, SimTime::ZERO, 0, 2);
        let outcomes: Vec<SendOutcome> = (0..4)
            .map(|uid| l.send(SimTime::ZERO, data(uid, 1000)))
            .collect();
        assert_eq!(outcomes[2], SendOutcome::Accepted);
        assert_eq!(outcomes[3], SendOutcome::DroppedQueue);
        assert_eq!(l.stats.drops_queue, 1);
        // Once the first has left the transmitter (8 ms), there is room again.
        assert_eq!(
            l.send(SimTime::from_millis(8), data(9, 1000)),
            SendOutcome::Accepted
        );
    }

    #[test]
    fn red_with_ecn_marks_ect_packets_and_counts_them() {
        // RED as a step at 2 packets (min_th = max_th = 2, max_p 1, gentle, w_q 1):
        // at 1 Mb/s, 1000 B take 8 ms, so packets sent at t = 0 find 0, 0, 1, 2 and
        // 3 waiting (the first is on the wire at once). From 2 on they are in the
        // gentle region (p_b = 1 + 0, p_a = 1): the fourth, ECT, is marked and
        // delivered CE; the fifth, Not-ECT, is dropped early.
        let red = Red::new(
            crate::net::red::RedParams {
                min_th: 2.0,
                max_th: 2.0,
                max_p: 1.0,
                w_q: 1.0,
                ecn: true,
                ..Default::default()
            },
            1_000_000,
            crate::rng::stream(1, "red"),
        );
        let mut l = link(1_000_000, SimTime::ZERO, 0, 10).with_red(red);
        let ect = |uid| {
            let mut p = data(uid, 1000);
            if let crate::packet::Payload::TcpData(d) = &mut p.payload {
                d.ecn = crate::packet::Ecn::Ect0;
            }
            p
        };
        for uid in 0..4 {
            assert_eq!(l.send(SimTime::ZERO, ect(uid)), SendOutcome::Accepted);
        }
        assert_eq!(
            l.send(SimTime::ZERO, data(4, 1000)),
            SendOutcome::DroppedQueue
        );
        assert_eq!((l.stats.marks, l.stats.drops_early), (1, 1));
        let ecns: Vec<_> = (0..4)
            .map(|_| l.pop_arrived(SimTime::from_millis(32)).unwrap().ecn())
            .collect();
        use crate::packet::Ecn::{Ce, Ect0};
        assert_eq!(ecns, vec![Ect0, Ect0, Ect0, Ce]);
    }

    #[test]
    fn only_one_arrival_event_is_pending() {
        let mut l = link(1_000_000, SimTime::from_millis(1), 0, 10);
        l.send(SimTime::ZERO, data(0, 125)); // 1 ms serialization
        assert_eq!(l.arrival_to_schedule(), Some(SimTime::from_millis(2)));
        l.send(SimTime::ZERO, data(1, 125));
        assert_eq!(l.arrival_to_schedule(), None);
        assert!(!l.claim_arrival_event(SimTime::from_millis(1)));
        assert!(l.claim_arrival_event(SimTime::from_millis(2)));
    }
}
