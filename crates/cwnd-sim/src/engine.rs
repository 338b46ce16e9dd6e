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
//! Most events schedule the next one of their source (a link's next arrival, a
//! timer's re-arm) while they are handled, so `pop` leaves the popped root in the
//! heap and the next `schedule` writes over it: one sift down instead of a pop's
//! and a push's (the "replace top" of Knuth, TAOCP vol. 3, §5.2.3; Python's
//! `heapq.heapreplace`). The order of events is the same; BENCHMARKS.md has the gain.
//!
//! An event is kept as one 64-bit word (`EventCode`): the world's `Event` is an enum
//! of a 4-byte kind and a 4-byte id, which the compiler stores as two 4-byte halves,
//! and the sift that follows a `schedule` reads the entry back as one 8-byte word: a
//! store-to-load forward that fails and stalls about a dozen cycles on every event
//! (perf: a third of `schedule`'s samples on the 10-flow dumbbell). Encoded, it is
//! written with one store. BENCHMARKS.md has the gain.
//!
//! The queue also folds every popped (time, event tag) into a 64-bit fingerprint
//! (after OMNeT++'s `cfingerprint`): two runs that process the same events at the
//! same times have the same fingerprint, so any change in behaviour is visible.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::marker::PhantomData;

use crate::time::SimTime;

/// An event as one 64-bit word, so that the queue writes it with one store.
pub trait EventCode: Copy {
    fn encode(self) -> u64;
    /// The event `encode` gave `code` for.
    fn decode(code: u64) -> Self;
}

impl EventCode for u32 {
    fn encode(self) -> u64 {
        u64::from(self)
    }
    fn decode(code: u64) -> Self {
        code as u32
    }
}

#[derive(Clone, Copy)]
struct Entry {
    time: SimTime,
    seq: u64,
    code: u64,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    /// Reversed, so that `BinaryHeap` (a max-heap) pops the earliest entry first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.time, other.seq).cmp(&(self.time, self.seq))
    }
}

/// A pending-event set with deterministic FIFO tie-breaking.
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry>,
    /// The root was handed out by `pop` and is still in the heap: the next
    /// `schedule` writes its entry over it (one sift down, where removing the root
    /// and then pushing costs a sift down and a sift up); the next `pop` or
    /// `peek_time` removes it if nothing did.
    root_taken: bool,
    next_seq: u64,
    now: SimTime,
    processed: u64,
    fingerprint: u64,
    event: PhantomData<E>,
}

impl<E: EventCode> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: EventCode> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(1024),
            root_taken: false,
            next_seq: 0,
            now: SimTime::ZERO,
            processed: 0,
            fingerprint: 0xcbf2_9ce4_8422_2325,
            event: PhantomData,
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
        self.heap.len() - usize::from(self.root_taken)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A hash of every (time, tag) popped so far, in order.
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    /// Schedules `event` at absolute time `at`. Scheduling in the past is a bug in
    /// the caller; it is clamped to `now` so that time never runs backwards.
    /// Inlined into the world's `schedule_medium`, which is kept out of line.
    #[inline]
    pub fn schedule(&mut self, at: SimTime, event: E) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        let entry = Entry {
            time: at.max(self.now),
            seq: self.next_seq,
            code: event.encode(),
        };
        self.next_seq += 1;
        if self.root_taken {
            // Sifted down into place when the `PeekMut` is dropped.
            *self.heap.peek_mut().expect("a taken root is in the heap") = entry;
            self.root_taken = false;
        } else {
            self.heap.push(entry);
        }
    }

    /// Removes the root handed out by the last `pop`, if no `schedule` replaced it.
    fn drop_taken_root(&mut self) {
        if self.root_taken {
            self.heap.pop();
            self.root_taken = false;
        }
    }

    /// Time of the earliest pending event.
    pub fn peek_time(&mut self) -> Option<SimTime> {
        self.drop_taken_root();
        self.heap.peek().map(|e| e.time)
    }

    /// Pops the earliest event, advancing `now` to its time. `tag` is a small number
    /// identifying the event's kind and target, folded into the fingerprint.
    pub fn pop(&mut self, tag: impl Fn(&E) -> u64) -> Option<(SimTime, E)> {
        self.drop_taken_root();
        let entry = *self.heap.peek()?;
        self.root_taken = true;
        self.now = entry.time;
        self.processed += 1;
        self.fingerprint = mix(self.fingerprint, entry.time.as_nanos());
        let event = E::decode(entry.code);
        self.fingerprint = mix(self.fingerprint, tag(&event));
        Some((entry.time, event))
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
    use std::collections::BTreeSet;

    use super::*;

    fn drain(q: &mut EventQueue<u32>) -> Vec<(u64, u32)> {
        let mut out = Vec::new();
        while let Some((t, e)) = q.pop(|e| *e as u64) {
            out.push((t.as_nanos(), e));
        }
        out
    }

    /// xorshift64: the tests' fixed pseudo-random sequence, `next(m)` in 0..m.
    fn sequence(seed: u64) -> impl FnMut(u64) -> u64 {
        let mut state = seed;
        move |m| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % m
        }
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

    /// The popped root stays in the heap until the next `schedule` writes over it:
    /// what is popped next, and the count of pending events, must be as if it had
    /// been removed. Pending 10, 20, 30; pop 10; schedule 25 (over the old root):
    /// 20, 25, 30 remain. Pop 20; schedule nothing; `peek_time` must skip the taken
    /// root and give 25; then 15 is scheduled late and still pops before 25.
    #[test]
    fn the_taken_root_is_replaced_or_removed_before_it_is_seen() {
        let mut q = EventQueue::new();
        for (t, e) in [(10, 1), (20, 2), (30, 3)] {
            q.schedule(SimTime(t), e);
        }
        assert_eq!(q.pop(|e| *e as u64), Some((SimTime(10), 1)));
        assert_eq!(q.len(), 2);
        q.schedule(SimTime(25), 4);
        assert_eq!(q.len(), 3);
        assert_eq!(q.pop(|e| *e as u64), Some((SimTime(20), 2)));
        assert_eq!(q.len(), 2);
        assert_eq!(q.peek_time(), Some(SimTime(25)));
        q.schedule(SimTime(20), 5);
        assert_eq!(drain(&mut q), vec![(20, 5), (25, 4), (30, 3)]);
        assert!(q.is_empty());
        assert_eq!(q.peek_time(), None);
    }

    /// 100 000 events at one instant (100 000 flows starting at t = 0) pop in the
    /// order they were scheduled.
    #[test]
    fn a_hundred_thousand_simultaneous_events_pop_in_scheduling_order() {
        let mut q = EventQueue::new();
        for e in 0..100_000 {
            q.schedule(SimTime::ZERO, e);
        }
        for e in 0..100_000 {
            assert_eq!(q.pop(|e| *e as u64), Some((SimTime::ZERO, e)));
        }
        assert!(q.is_empty());
    }

    /// Drained, the queue takes new events from the time it reached, far later ones
    /// included, and `peek_time` and `len` follow.
    #[test]
    fn an_emptied_queue_is_refilled() {
        let mut q = EventQueue::new();
        for e in 0..100 {
            q.schedule(SimTime(u64::from(e) * 10), e);
        }
        assert_eq!(drain(&mut q).len(), 100);
        assert_eq!(q.now(), SimTime(990));
        assert_eq!(q.peek_time(), None);
        assert_eq!(q.pop(|e| *e as u64), None);
        for e in 0..50 {
            q.schedule(SimTime(5_000_000_000 + u64::from(49 - e) * 1_000), e);
        }
        q.schedule(SimTime(990), 50);
        assert_eq!(q.len(), 51);
        assert_eq!(q.peek_time(), Some(SimTime(990)));
        let out = drain(&mut q);
        assert_eq!(out[0], (990, 50));
        assert_eq!(out[1], (5_000_000_000, 49));
        assert_eq!(out[50], (5_000_049_000, 0));
        assert!(q.is_empty());
    }

    /// The replacing `schedule` and the plain one give the order of a sorted set
    /// under mixed use, at several sizes: `pending` events, then steps of 0–2
    /// schedules (delays: a tie at `now` one time in eight, near ones up to 1 µs,
    /// far ones up to 1 s) and a pop, `peek_time` (which removes a taken root)
    /// checked before each pop, then a drain to empty.
    #[test]
    fn pops_follow_time_then_sequence_order_under_mixed_use() {
        for (pending, steps) in [(3, 20_000), (40, 20_000), (700, 20_000), (5_000, 30_000)] {
            let mut next = sequence(0x2545_f491_4f6c_dd1d ^ pending);
            let mut q: EventQueue<u32> = EventQueue::new();
            // The reference: (time, id), ids in scheduling order, so the set's
            // order is the queue's (time, sequence) order.
            let mut reference = BTreeSet::new();
            let mut id = 0u32;
            let delay = |next: &mut dyn FnMut(u64) -> u64| match next(8) {
                0 => 0,
                1 => next(1_000_000_000),
                _ => next(1_000),
            };
            for _ in 0..pending {
                let at = delay(&mut next);
                q.schedule(SimTime(at), id);
                reference.insert((at, id));
                id += 1;
            }
            for step in 0..steps + pending as usize {
                let count = if step < steps { next(3) } else { 0 };
                for _ in 0..count {
                    let at = q.now().as_nanos() + delay(&mut next);
                    q.schedule(SimTime(at), id);
                    reference.insert((at, id));
                    id += 1;
                }
                let Some(expected) = reference.pop_first() else {
                    break;
                };
                assert_eq!(q.peek_time(), Some(SimTime(expected.0)));
                let (t, e) = q.pop(|e| *e as u64).unwrap();
                assert_eq!(
                    (t.as_nanos(), e),
                    expected,
                    "pending {pending}, step {step}"
                );
                assert_eq!(q.len(), reference.len());
            }
            while let Some(expected) = reference.pop_first() {
                let (t, e) = q.pop(|e| *e as u64).unwrap();
                assert_eq!((t.as_nanos(), e), expected);
            }
            assert!(q.is_empty());
        }
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
