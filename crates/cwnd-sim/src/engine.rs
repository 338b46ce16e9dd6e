//! The event queue: a binary min-heap ordered by (time, insertion sequence).
//!
//! Tie-breaking rule: events scheduled for the same instant run in the order in
//! which they were scheduled (FIFO), as in ns-3 (`EventKey{ts, uid}`) and SimPy.
//! The sequence number is a 64-bit counter, so it never wraps in practice.
//!
//! There is no cancel operation. Components that re-arm timers keep one pending
//! event and a deadline of their own ("lazy timers"): when the event fires early
//! they re-schedule it for the current deadline, and a stale event is recognised
//! because its time is not the timer's pending one (`timer::LazyTimer`). This keeps
//! the heap small: a link
//! has at most one event in it (its head packet), an agent at most one per timer.
//!
//! The queue also folds every popped (time, event tag) into a 64-bit fingerprint
//! (after OMNeT++'s `cfingerprint`): two runs that process the same events at the
//! same times have the same fingerprint, so any change in behaviour is visible.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::time::SimTime;

struct Entry<E> {
    time: SimTime,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    /// Reversed, so that `BinaryHeap` (a max-heap) pops the earliest entry first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.time, other.seq).cmp(&(self.time, self.seq))
    }
}

/// A pending-event set with deterministic FIFO tie-breaking.
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    next_seq: u64,
    now: SimTime,
    processed: u64,
    fingerprint: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(1024),
            next_seq: 0,
            now: SimTime::ZERO,
            processed: 0,
            fingerprint: 0xcbf2_9ce4_8422_2325,
        }
    }

    /// The time of the event being processed (the last one popped).
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Number of events popped so far.
    pub fn processed(&self) -> u64 {
        self.processed
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// A hash of every (time, tag) popped so far, in order.
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    /// Schedules `event` at absolute time `at`. Scheduling in the past is a bug in
    /// the caller; it is clamped to `now` so that time never runs backwards.
    pub fn schedule(&mut self, at: SimTime, event: E) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        let time = at.max(self.now);
        self.heap.push(Entry {
            time,
            seq: self.next_seq,
            event,
        });
        self.next_seq += 1;
    }

    /// Time of the earliest pending event.
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| e.time)
    }

    /// Pops the earliest event, advancing `now` to its time. `tag` is a small number
    /// identifying the event's kind and target, folded into the fingerprint.
    pub fn pop(&mut self, tag: impl Fn(&E) -> u64) -> Option<(SimTime, E)> {
        let entry = self.heap.pop()?;
        self.now = entry.time;
        self.processed += 1;
        self.fingerprint = mix(self.fingerprint, entry.time.as_nanos());
        self.fingerprint = mix(self.fingerprint, tag(&entry.event));
        Some((entry.time, entry.event))
    }
}

/// The "hold" workload (Jones 1986) used to benchmark the queue: `pending`
/// events are kept in the queue; each of `events` steps pops the earliest and
/// schedules one at a pseudo-random delay (1 ns … 1 ms) after it. Returns the
/// queue's fingerprint, so that the work cannot be optimised away.
pub fn hold_workload(pending: u32, events: u64) -> u64 {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next_delay = move || {
        // xorshift64*: a fixed, cheap sequence (not a simulation RNG).
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        (state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 40) % 1_000_000 + 1
    };
    let mut q: EventQueue<u32> = EventQueue::new();
    for i in 0..pending {
        q.schedule(SimTime(next_delay()), i);
    }
    for _ in 0..events {
        if let Some((t, e)) = q.pop(|e| *e as u64) {
            q.schedule(t + SimTime(next_delay()), e);
        }
    }
    q.fingerprint()
}

/// One step of a 64-bit multiplicative hash (FNV-1a style over words).
fn mix(h: u64, v: u64) -> u64 {
    (h ^ v).wrapping_mul(0x0000_0100_0000_01b3).rotate_left(29)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(q: &mut EventQueue<u32>) -> Vec<(u64, u32)> {
        let mut out = Vec::new();
        while let Some((t, e)) = q.pop(|e| *e as u64) {
            out.push((t.as_nanos(), e));
        }
        out
    }

    #[test]
    fn pops_in_time_order() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(30), 3);
        q.schedule(SimTime(10), 1);
        q.schedule(SimTime(20), 2);
        assert_eq!(drain(&mut q), vec![(10, 1), (20, 2), (30, 3)]);
        assert_eq!(q.processed(), 3);
    }

    #[test]
    fn equal_times_run_in_insertion_order() {
        let mut q = EventQueue::new();
        for e in [5, 4, 3, 2, 1, 0] {
            q.schedule(SimTime(7), e);
        }
        q.schedule(SimTime(6), 99);
        let order: Vec<u32> = drain(&mut q).into_iter().map(|(_, e)| e).collect();
        assert_eq!(order, vec![99, 5, 4, 3, 2, 1, 0]);
    }

    #[test]
    fn events_scheduled_while_running_keep_fifo_at_same_time() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(1), 1);
        q.schedule(SimTime(1), 2);
        let (_, first) = q.pop(|e| *e as u64).unwrap();
        assert_eq!(first, 1);
        // Scheduled "now" after event 2 was already pending: runs after it.
        q.schedule(SimTime(1), 3);
        let rest: Vec<u32> = drain(&mut q).into_iter().map(|(_, e)| e).collect();
        assert_eq!(rest, vec![2, 3]);
    }

    #[test]
    fn hold_workload_keeps_the_queue_size_and_is_deterministic() {
        assert_eq!(hold_workload(16, 1000), hold_workload(16, 1000));
        assert_ne!(hold_workload(16, 1000), hold_workload(16, 1001));
    }

    #[test]
    fn fingerprint_depends_on_order_and_time() {
        let run = |events: &[(u64, u32)]| {
            let mut q = EventQueue::new();
            for &(t, e) in events {
                q.schedule(SimTime(t), e);
            }
            drain(&mut q);
            q.fingerprint()
        };
        let a = run(&[(1, 1), (2, 2)]);
        assert_eq!(a, run(&[(1, 1), (2, 2)]));
        assert_ne!(a, run(&[(1, 2), (2, 1)]));
        assert_ne!(a, run(&[(1, 1), (3, 2)]));
    }
}
