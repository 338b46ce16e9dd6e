//! The fast path's output queue, and what every queue shares: its limit and its trace.
//!
//! On the fast path (a FIFO deciding on arrival in front of a fixed rate, `link.rs`)
//! the link computes every packet's transmission start when the packet arrives, so
//! the queue keeps the start times of the packets still waiting and releases them
//! lazily: a packet leaves the queue when its transmission starts. Its sojourn time
//! is known from the start, and is counted then (an entry stays 16 bytes, and the
//! histogram is touched while the link's lines are): a packet that turns out not to
//! leave — still waiting at the end of the run, or taken back by a holding outage —
//! is uncounted. The packet being transmitted is not in the queue, as in ns-2 and
//! Linux qdiscs; the limit counts waiting packets (or their bytes) only.

use std::collections::VecDeque;

use super::sojourn::{Bucket, SojournHistogram};
use crate::time::SimTime;

/// How much a queue holds before it drops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    Packets(u32),
    Bytes(u64),
}

impl QueueLimit {
    /// Whether `packets` packets of `bytes` bytes in all are within the limit.
    pub fn holds(self, packets: usize, bytes: u64) -> bool {
        match self {
            QueueLimit::Packets(n) => packets as u64 <= n as u64,
            QueueLimit::Bytes(b) => bytes <= b,
        }
    }

    /// Whether one more packet of `size` bytes fits beside `packets` of `bytes`.
    pub fn admits(self, packets: usize, bytes: u64, size: u32) -> bool {
        self.holds(packets + 1, bytes + size as u64)
    }
}

/// What a traced queue records: its occupancy (time, waiting packets, waiting bytes)
/// at every change, and each departure's sojourn time (the queue-delay series).
#[derive(Default, Debug, Clone)]
pub struct QueueTrace {
    pub time: Vec<SimTime>,
    pub packets: Vec<u32>,
    pub bytes: Vec<u64>,
    /// When each packet left the queue for the transmitter, and how long it waited.
    pub departure: Vec<SimTime>,
    pub sojourn: Vec<SimTime>,
}

impl QueueTrace {
    pub(crate) fn occupancy(&mut self, time: SimTime, packets: usize, bytes: u64) {
        self.time.push(time);
        self.packets.push(packets as u32);
        self.bytes.push(bytes);
    }

    pub(crate) fn departure(&mut self, time: SimTime, sojourn: SimTime) {
        self.departure.push(time);
        self.sojourn.push(sojourn);
    }

    /// Forgets the departures after `t` (the fast path records them in advance).
    fn forget_departures_after(&mut self, t: SimTime) {
        let keep = self.departure.partition_point(|&d| d <= t);
        self.departure.truncate(keep);
        self.sojourn.truncate(keep);
    }

    /// Bytes of its storage (occupancy rows: 8 + 4 + 8; departures: 8 + 8).
    pub fn bytes_held(&self) -> u64 {
        self.time.capacity() as u64 * 20 + self.departure.capacity() as u64 * 16
    }
}

/// A packet waiting on the fast path.
#[derive(Clone, Copy, Debug)]
struct Waiting {
    start: SimTime,
    size: u32,
    /// Its sojourn time's histogram bucket.
    waited: Bucket,
}

/// A link direction's output queue as the link keeps it: on the fast path, the
/// packets whose transmission has not started yet; on either path, what is measured
/// of the queue (the waits, and the trace if asked for). Kept together because a
/// packet's wait is counted as it joins the list: the same lines of memory.
pub struct OutputQueue {
    /// In FIFO order, which is the order of their starts.
    waiting: VecDeque<Waiting>,
    bytes: u64,
    /// Boxed: most queues are not traced.
    trace: Option<Box<QueueTrace>>,
    limit: QueueLimit,
    sojourn: SojournHistogram,
}

impl OutputQueue {
    pub fn new(limit: QueueLimit, traced: bool) -> Self {
        OutputQueue {
            limit,
            waiting: VecDeque::new(),
            bytes: 0,
            trace: traced.then(Box::default),
            sojourn: SojournHistogram::default(),
        }
    }

    /// Removes the packets whose transmission has started by `now`. The test is
    /// inlined, the work not: most sends find nothing started (an idle link, or a
    /// packet still being sent), and a call for nothing cost the send 2 % (callgrind).
    #[inline(always)]
    pub fn release(&mut self, now: SimTime) {
        if self.waiting.front().is_some_and(|w| w.start <= now) {
            self.release_started(now);
        }
    }

    #[inline(never)]
    fn release_started(&mut self, now: SimTime) {
        while let Some(&w) = self.waiting.front() {
            if w.start > now {
                break;
            }
            self.waiting.pop_front();
            self.bytes -= w.size as u64;
            if let Some(t) = &mut self.trace {
                t.occupancy(w.start, self.waiting.len(), self.bytes);
            }
        }
    }

    /// Takes out the packets still waiting at `now` (call after `release`), which
    /// will not leave as counted: their waits are uncounted, their departures
    /// forgotten. Returns the (start, wait's bucket) of each, in order.
    pub fn take_waiting(&mut self, now: SimTime) -> Vec<(SimTime, Bucket)> {
        let taken: Vec<(SimTime, Bucket)> = self
            .waiting
            .drain(..)
            .map(|w| (w.start, w.waited))
            .collect();
        for &(_, b) in &taken {
            self.sojourn.remove(b);
        }
        self.bytes = 0;
        if let Some(t) = &mut self.trace {
            if !taken.is_empty() {
                t.occupancy(now, 0, 0);
            }
            t.forget_departures_after(now);
        }
        taken
    }

    /// Whether one more packet of `size` bytes fits (call after `release`).
    #[inline]
    pub fn admits(&self, size: u32) -> bool {
        self.limit.admits(self.waiting.len(), self.bytes, size)
    }

    /// Adds a packet that arrives at `now` and will start transmission at `start`,
    /// counting its wait.
    #[inline]
    pub fn push(&mut self, now: SimTime, start: SimTime, size: u32) {
        let waited = start - now;
        let bucket = Bucket::of(waited);
        self.sojourn.add(bucket);
        self.waiting.push_back(Waiting {
            start,
            size,
            waited: bucket,
        });
        self.bytes += size as u64;
        if let Some(t) = &mut self.trace {
            t.occupancy(now, self.waiting.len(), self.bytes);
            t.departure(start, waited);
        }
    }

    /// The packet just pushed had arrived at `arrived`, before `now` (a holding
    /// outage offers it again): its wait is counted from then.
    pub fn arrived_earlier(&mut self, arrived: SimTime) {
        let Some(w) = self.waiting.back_mut() else {
            return;
        };
        let waited = w.start - arrived;
        self.sojourn.remove(w.waited);
        w.waited = Bucket::of(waited);
        self.sojourn.add(w.waited);
        if let Some(t) = &mut self.trace {
            t.sojourn.pop();
            t.sojourn.push(waited);
        }
    }

    /// A packet that did not wait (fast path): only a traced queue records it; the
    /// waits count it at the end (`link.rs`, `report`).
    #[inline]
    pub fn passed(&mut self, now: SimTime) {
        if let Some(t) = &mut self.trace {
            t.departure(now, SimTime::ZERO);
        }
    }

    /// A packet left a queue on the dequeue path at `now` having waited `waited`.
    pub fn departed(&mut self, now: SimTime, waited: SimTime) {
        self.sojourn.record(waited);
        if let Some(t) = &mut self.trace {
            t.departure(now, waited);
        }
    }

    /// The dequeue path's occupancy after a change.
    pub fn occupancy(&mut self, now: SimTime, packets: usize, bytes: u64) {
        if let Some(t) = &mut self.trace {
            t.occupancy(now, packets, bytes);
        }
    }

    pub fn is_traced(&self) -> bool {
        self.trace.is_some()
    }

    pub fn len(&self) -> usize {
        self.waiting.len()
    }

    pub fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Bytes the trace holds.
    pub fn trace_bytes(&self) -> u64 {
        self.trace.as_ref().map_or(0, |t| t.bytes_held())
    }

    /// The end of the run at `end`: what leaves by then has left; the waits of the
    /// `sent` packets handed to the transmitter that were not counted otherwise are
    /// counted as none (those that passed straight through on the fast path; a
    /// trace transmitter may count one packet more than it sent: the one whose last
    /// bytes come after the end). Returns the trace and the waits.
    pub fn finish(&mut self, end: SimTime, sent: u64) -> (Option<QueueTrace>, SojournHistogram) {
        self.release(end);
        let waiting = self.take_waiting(end).len() as u64;
        let passed = sent.saturating_sub(waiting + self.sojourn.len());
        self.sojourn.add_zeros(passed);
        (
            self.trace.take().map(|t| *t),
            std::mem::take(&mut self.sojourn),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn push(q: &mut OutputQueue, at: u64, start: u64, size: u32) {
        q.push(SimTime(at), SimTime(start), size);
    }

    #[test]
    fn packet_limit_counts_waiting_packets_only() {
        let mut q = OutputQueue::new(QueueLimit::Packets(2), false);
        assert!(q.admits(1500));
        push(&mut q, 0, 10, 1500);
        push(&mut q, 0, 20, 1500);
        assert!(!q.admits(40));
        // At t = 10 the first starts transmission and leaves the queue.
        q.release(SimTime(10));
        assert_eq!(q.len(), 1);
        assert!(q.admits(1500));
    }

    #[test]
    fn byte_limit_admits_up_to_exactly_the_limit() {
        let mut q = OutputQueue::new(QueueLimit::Bytes(3000), false);
        push(&mut q, 0, 5, 1500);
        assert!(q.admits(1500));
        push(&mut q, 0, 6, 1500);
        assert!(!q.admits(1));
        assert_eq!(q.bytes(), 3000);
    }

    #[test]
    fn trace_records_arrivals_departures_and_sojourns() {
        // Arrivals at 1 and 2 starting at 4 and 8: they wait 3 and 6. Two packets
        // sent: none passed without waiting.
        let mut q = OutputQueue::new(QueueLimit::Packets(10), true);
        push(&mut q, 1, 4, 100);
        push(&mut q, 2, 8, 200);
        let (t, waits) = q.finish(SimTime(10), 2);
        let t = t.unwrap();
        assert_eq!(t.time, vec![SimTime(1), SimTime(2), SimTime(4), SimTime(8)]);
        assert_eq!(t.packets, vec![1, 2, 1, 0]);
        assert_eq!(t.bytes, vec![100, 300, 200, 0]);
        assert_eq!(t.departure, vec![SimTime(4), SimTime(8)]);
        assert_eq!(t.sojourn, vec![SimTime(3), SimTime(6)]);
        assert_eq!(waits.len(), 2);
    }

    #[test]
    fn packets_still_waiting_at_the_end_are_uncounted_and_forgotten() {
        // Waits of 3 (start 4) and 6 (start 8) counted on arrival; the run ends at 5
        // with the second still waiting: one wait and one departure remain, and of
        // the 3 packets sent one passed without waiting.
        let mut q = OutputQueue::new(QueueLimit::Packets(10), true);
        push(&mut q, 1, 4, 100);
        push(&mut q, 2, 8, 200);
        let (t, waits) = q.finish(SimTime(5), 3);
        assert_eq!(t.unwrap().departure, vec![SimTime(4)]);
        assert_eq!(waits.len(), 2);
        assert_eq!(waits.percentiles([0.5]), [Some(SimTime::ZERO)]);
    }
}
