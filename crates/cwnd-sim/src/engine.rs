//! The event queue: a calendar queue ordered by (time, insertion sequence).
//!
//! Tie-breaking rule: events scheduled for the same instant run in the order in
//! which they were scheduled (FIFO), as in ns-3 (`EventKey{ts, uid}`) and SimPy.
//! The sequence number is a 64-bit counter, so it never wraps in practice.
//!
//! There is no cancel operation. Components that re-arm timers keep one pending
//! event and a deadline of their own ("lazy timers"): when the event fires early
//! they re-schedule it for the current deadline, and a stale event is recognised
//! because its time is not the timer's pending one (`timer::LazyTimer`). This keeps
//! the queue small: a link has at most one event in it (its head packet), an agent
//! at most one per timer.
//!
//! # The calendar queue (R. Brown, CACM 31(10), 1988)
//!
//! Time is cut into "days" of `width` nanoseconds; day `d` goes to bucket
//! `d mod buckets`, and the buckets, read in turn, make a "year". Each bucket is a
//! `VecDeque` ascending by (time, sequence), its earliest entry at the front. A pop
//! looks at the bucket of the current day: its front entry is the earliest pending
//! one if it belongs to that day (and not to a later year); otherwise the search
//! moves on a day. If a whole year passes empty, the earliest front of all buckets
//! is taken directly (Brown's "direct search").
//!
//! Why it fits this workload: most events are scheduled a little after `now` (a
//! link's next arrival, `now` + a serialisation or propagation delay) and later
//! than every event already in their day, and events at the same time arrive in
//! sequence order: both are a `push_back`, and a pop is a `pop_front`: O(1) where a
//! binary heap costs O(log n) of data-dependent branches at both ends. BENCHMARKS.md
//! ("Calendar queue") has the measurements.
//!
//! What was taken from Brown, and what not:
//! - Resizing as Brown: the bucket count doubles when the queue holds more than two
//!   events per bucket and halves below one per two buckets (never below
//!   `MIN_BUCKETS`), and each resize recomputes the day's width.
//! - The width, as Brown: three times the average gap between the 25 earliest
//!   events, gaps over twice the first average left out of the second. Rounded down
//!   to a power of two, so that a day is a shift and not a division (the width is
//!   then 1.5–3 gaps instead of 3).
//! - Not Brown: a resize also happens when the width has gone stale at a constant
//!   size (after a burst at one instant, or when the events thin out). The queue counts
//!   its overhead — days passed by a search, entries passed by an insertion — and
//!   recomputes the width once that exceeds `OVERHEAD_PER_OPERATION` times the
//!   operations since the last resize plus the bucket count. This is the "dynamic
//!   calendar queue" idea of S. Oh & J. Ahn (1999, "Dynamic calendar queue", IEEE
//!   Annual Simulation Symposium), with a cost count instead of their sampled averages;
//!   the rebuild (a sort of the entries) is paid for by the overhead that caused it.
//! - Not Brown: the search starts at a `day` that never lies after the earliest
//!   entry; a `schedule` before it (allowed after a `peek_time` moved it forward)
//!   moves it back, so no event is ever missed for a year.
//!
//! Worst case: events whose spacing changes faster than the width can follow, or a
//! few events near `now` among many a whole number of years later in the same
//! buckets, make a pop or an insertion walk through many entries or days: O(n) for
//! that operation, until the overhead count triggers a new width. Equal times are
//! never a worst case: they go to the back of one bucket in sequence order.
//!
//! An event is kept as one 64-bit word (`EventCode`): the world's `Event` is an enum
//! of a 4-byte kind and a 4-byte id, which the compiler stores as two 4-byte halves;
//! read back as one 8-byte word, it stalls on a failed store-to-load forward.
//! Encoded, it is written with one store.
//!
//! The queue also folds every popped (time, event tag) into a 64-bit fingerprint
//! (after OMNeT++'s `cfingerprint`): two runs that process the same events at the
//! same times have the same fingerprint, so any change in behaviour is visible.

use std::collections::VecDeque;
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

/// The fewest buckets the calendar keeps (a power of two, as every bucket count).
const MIN_BUCKETS: usize = 16;

/// Brown's sample: the width comes from the gaps between this many earliest events.
const WIDTH_SAMPLE: usize = 25;

/// The day's width before the first resize: 2^10 ns, about a microsecond (any
/// value works; a poor one is replaced once its overhead shows).
const INITIAL_SHIFT: u32 = 10;

/// Overhead (days or entries passed) allowed per operation before the width is
/// recomputed at the same bucket count. Brown's width costs about one or two; four
/// leaves room for the workload's own spread without rebuilding over and over.
const OVERHEAD_PER_OPERATION: u64 = 4;

/// A pending-event set with deterministic FIFO tie-breaking.
pub struct EventQueue<E> {
    /// Bucket `day & mask` holds the entries of that day (`time >> shift`) of every
    /// year, ascending by (time, sequence). Its length is a power of two.
    buckets: Vec<VecDeque<Entry>>,
    mask: u64,
    /// log2 of the day's width in nanoseconds.
    shift: u32,
    /// No pending entry is earlier than this day: where the search starts.
    day: u64,
    len: usize,
    next_seq: u64,
    now: SimTime,
    processed: u64,
    fingerprint: u64,
    /// Days passed by searches and entries passed by insertions, in total: the work
    /// beyond the O(1) of a front or back that the calendar exists to keep small.
    overhead: u64,
    /// `overhead`, `next_seq` and `processed` when the buckets were last rebuilt.
    at_rebuild: (u64, u64, u64),
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
            buckets: (0..MIN_BUCKETS).map(|_| VecDeque::new()).collect(),
            mask: MIN_BUCKETS as u64 - 1,
            shift: INITIAL_SHIFT,
            day: 0,
            len: 0,
            next_seq: 0,
            now: SimTime::ZERO,
            processed: 0,
            fingerprint: 0xcbf2_9ce4_8422_2325,
            overhead: 0,
            at_rebuild: (0, 0, 0),
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
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
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
        let day = entry.time.as_nanos() >> self.shift;
        self.day = self.day.min(day);
        let bucket = &mut self.buckets[(day & self.mask) as usize];
        // The new entry has the largest sequence: it goes after every entry of its
        // time, so only a later time in the bucket sends it elsewhere than the back.
        if bucket.back().is_some_and(|last| last.time > entry.time) {
            self.insert_before_later((day & self.mask) as usize, entry);
        } else {
            bucket.push_back(entry);
        }
        self.len += 1;
        if self.len > 2 * self.buckets.len() {
            self.rebuild(2 * self.buckets.len());
        }
    }

    /// Inserts `entry` into a bucket whose last entry is later, searching from the
    /// back (an event is most often later than most of its day's).
    #[cold]
    #[inline(never)]
    fn insert_before_later(&mut self, bucket: usize, entry: Entry) {
        let bucket = &mut self.buckets[bucket];
        let position = bucket.partition_point(|e| e.time <= entry.time);
        self.overhead += (bucket.len() - position) as u64;
        bucket.insert(position, entry);
        self.recalibrate_if_costly();
    }

    /// The bucket whose front is the earliest pending entry, moving `day` to its day.
    /// The queue must not be empty.
    #[inline]
    fn earliest_bucket(&mut self) -> usize {
        let bucket = (self.day & self.mask) as usize;
        match self.buckets[bucket].front() {
            Some(e) if e.time.as_nanos() >> self.shift == self.day => bucket,
            _ => self.search_earliest(),
        }
    }

    /// Brown's search: day after day for one year, then the earliest front directly.
    #[cold]
    #[inline(never)]
    fn search_earliest(&mut self) -> usize {
        debug_assert!(self.len > 0);
        for _ in 0..self.buckets.len() {
            self.day += 1;
            self.overhead += 1;
            let bucket = (self.day & self.mask) as usize;
            if let Some(e) = self.buckets[bucket].front() {
                if e.time.as_nanos() >> self.shift == self.day {
                    self.recalibrate_if_costly();
                    return (self.day & self.mask) as usize;
                }
            }
        }
        self.overhead += self.buckets.len() as u64;
        let earliest = self
            .buckets
            .iter()
            .filter_map(|b| b.front().map(|e| e.time))
            .min()
            .expect("the queue is not empty");
        self.day = earliest.as_nanos() >> self.shift;
        self.recalibrate_if_costly();
        (self.day & self.mask) as usize
    }

    /// Recomputes the width at the same bucket count when the overhead since the
    /// last rebuild exceeds `OVERHEAD_PER_OPERATION` per operation (plus one year).
    fn recalibrate_if_costly(&mut self) {
        let (overhead, seq, processed) = self.at_rebuild;
        let operations = (self.next_seq - seq) + (self.processed - processed);
        let allowed = OVERHEAD_PER_OPERATION * (operations + self.buckets.len() as u64);
        if self.overhead - overhead > allowed {
            self.rebuild(self.buckets.len());
        }
    }

    /// Moves every entry into `buckets` buckets of a width computed from the
    /// earliest ones (Brown's rule, module comment).
    #[cold]
    #[inline(never)]
    fn rebuild(&mut self, buckets: usize) {
        let mut entries: Vec<Entry> = Vec::with_capacity(self.len);
        for bucket in &mut self.buckets {
            entries.extend(bucket.drain(..));
        }
        entries.sort_unstable_by_key(|e| (e.time, e.seq));
        self.shift = width_shift(&entries).unwrap_or(self.shift);
        self.buckets.resize_with(buckets, VecDeque::new);
        self.mask = buckets as u64 - 1;
        let earliest = entries.first().map_or(self.now, |e| e.time);
        self.day = earliest.as_nanos() >> self.shift;
        for entry in entries {
            let day = entry.time.as_nanos() >> self.shift;
            self.buckets[(day & self.mask) as usize].push_back(entry);
        }
        self.at_rebuild = (self.overhead, self.next_seq, self.processed);
    }

    /// Time of the earliest pending event.
    pub fn peek_time(&mut self) -> Option<SimTime> {
        if self.len == 0 {
            return None;
        }
        let bucket = self.earliest_bucket();
        self.buckets[bucket].front().map(|e| e.time)
    }

    /// Pops the earliest event, advancing `now` to its time. `tag` is a small number
    /// identifying the event's kind and target, folded into the fingerprint.
    pub fn pop(&mut self, tag: impl Fn(&E) -> u64) -> Option<(SimTime, E)> {
        if self.len == 0 {
            return None;
        }
        let bucket = self.earliest_bucket();
        let entry = self.buckets[bucket]
            .pop_front()
            .expect("the earliest bucket has a front");
        self.len -= 1;
        if 2 * self.len < self.buckets.len() && self.buckets.len() > MIN_BUCKETS {
            self.rebuild(self.buckets.len() / 2);
        }
        self.now = entry.time;
        self.processed += 1;
        self.fingerprint = mix(self.fingerprint, entry.time.as_nanos());
        let event = E::decode(entry.code);
        self.fingerprint = mix(self.fingerprint, tag(&event));
        Some((entry.time, event))
    }
}

/// log2 of the day's width for `sorted` entries (Brown 1988): three times the
/// average gap between the `WIDTH_SAMPLE` earliest, gaps over twice the average
/// left out of a second average; rounded down to a power of two. `None` when there
/// are fewer than two entries or every sampled gap is zero (all at one instant: any
/// width holds them in one bucket; the old one is kept).
fn width_shift(sorted: &[Entry]) -> Option<u32> {
    let sample = &sorted[..sorted.len().min(WIDTH_SAMPLE)];
    let gaps = || {
        sample
            .windows(2)
            .map(|w| w[1].time.as_nanos() - w[0].time.as_nanos())
    };
    let count = gaps().count() as u64;
    if count == 0 {
        return None;
    }
    let first_average = gaps().sum::<u64>() / count;
    let (sum, kept) = gaps()
        .filter(|&g| g <= first_average.saturating_mul(2))
        .fold((0u64, 0u64), |(s, n), g| (s + g, n + 1));
    let width = (sum / kept.max(1)).saturating_mul(3);
    (width > 0).then(|| width.ilog2())
}

/// The "hold" workload (Jones 1986) used to benchmark the queue: `pending`
/// events are kept in the queue; each of `events` steps pops the earliest and
/// schedules one at a pseudo-random delay (1 ns … 1 ms) after it. Returns the
/// queue's fingerprint, so that the work cannot be optimised away.
pub fn hold_workload(pending: u32, events: u64) -> u64 {
    hold_workload_in_units(pending, events, 1)
}

/// The hold workload with delays of 1 … 10⁶ units of `unit` ns (the same sequence
/// as `hold_workload`'s, scaled): a few pending events and a unit of 300 ns (delays
/// up to 300 ms) are the sparse case of a calendar queue, an idle flow's timers and
/// the sampling clock.
pub fn hold_workload_in_units(pending: u32, events: u64, unit: u64) -> u64 {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next_delay = move || {
        // xorshift64*: a fixed, cheap sequence (not a simulation RNG).
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        ((state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 40) % 1_000_000 + 1) * unit
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

    /// Ties share one bucket and go to its back: 1 000 events at t = 5 µs with
    /// pops in between, and one earlier event, come out earlier one first, then in
    /// scheduling order, with no entry or day passed (overhead 0: each insertion is
    /// a push to the back, each pop takes the front of the current day's bucket).
    #[test]
    fn ties_in_one_bucket_keep_insertion_order_at_no_overhead() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(5_000), 0);
        let mut popped = Vec::new();
        for e in 1..1000 {
            q.schedule(SimTime(5_000), e);
            if e % 3 == 0 {
                popped.push(q.pop(|e| *e as u64).unwrap().1);
            }
        }
        popped.extend(drain(&mut q).into_iter().map(|(_, e)| e));
        assert_eq!(popped, (0..1000).collect::<Vec<u32>>());
        // The first pop searches from day 0 to day 5 000 >> 10 = 4: four days.
        assert_eq!(q.overhead, 4);
    }

    /// 100 000 events at one instant (100 000 flows starting at t = 0), scheduled
    /// then popped: linear work. Every insertion goes to the back of the bucket
    /// and every pop takes its front, so no entry or day is passed; an insertion
    /// that searched from the front, or ties put before each other, would pass
    /// 100 000² / 2 = 5·10⁹ entries. The growth rebuilds (16 → 65 536 buckets) move
    /// 32 + 64 + … + 65 536 < 2 · 100 000 entries, already in order.
    #[test]
    fn a_hundred_thousand_simultaneous_events_take_linear_work() {
        let mut q = EventQueue::new();
        for e in 0..100_000 {
            q.schedule(SimTime::ZERO, e);
        }
        assert_eq!(q.buckets.len(), 65_536);
        for e in 0..100_000 {
            assert_eq!(q.pop(|e| *e as u64), Some((SimTime::ZERO, e)));
        }
        assert!(q.is_empty());
        assert_eq!(q.overhead, 0);
    }

    /// Events many years apart share buckets and still come out in time order. The
    /// initial calendar: 16 buckets of 2^10 ns, a year of 16 384 ns. 100 and
    /// 100 + 16 384 · 10⁶ are in bucket 0 of years 0 and 10⁶; 1 030 is in bucket 1
    /// of year 0 and 1 030 + 16 384 of year 1; 10¹⁵ is some 6·10¹⁰ years on.
    #[test]
    fn events_years_apart_keep_time_order() {
        let year = 16 * 1024;
        let times = [
            100 + year * 1_000_000,
            1_030 + year,
            1_000_000_000_000_000,
            100,
            1_030,
        ];
        let mut q = EventQueue::new();
        for (e, &t) in times.iter().enumerate() {
            q.schedule(SimTime(t), e as u32);
        }
        assert_eq!(
            drain(&mut q),
            vec![
                (100, 3),
                (1_030, 4),
                (1_030 + year, 1),
                (100 + year * 1_000_000, 0),
                (1_000_000_000_000_000, 2)
            ]
        );
    }

    /// The bucket count doubles above two entries per bucket and halves below one
    /// per two buckets, never below 16: 1 000 events make 16 → 32 (at 33 entries) →
    /// 64 (65) → 128 (129) → 256 (257) → 512 (513) buckets; popping halves 512 to
    /// 256 at 255 left (2 · 255 < 512), to 128 at 127 left, 64 at 63, 32 at 31 and
    /// 16 at 15, where it stays. The order is unchanged throughout.
    #[test]
    fn grows_and_shrinks_with_the_number_of_events() {
        let mut q = EventQueue::new();
        for e in 0..1000u32 {
            q.schedule(SimTime(u64::from(e) * 7919 % 100_000), e);
            let expected = match q.len() {
                0..=32 => 16,
                33..=64 => 32,
                65..=128 => 64,
                129..=256 => 128,
                257..=512 => 256,
                _ => 512,
            };
            assert_eq!(q.buckets.len(), expected, "{} entries", q.len());
        }
        let mut popped = Vec::new();
        while let Some((t, e)) = q.pop(|e| *e as u64) {
            popped.push((t.as_nanos(), e));
            let expected = match q.len() {
                0..=15 => 16,
                16..=31 => 32,
                32..=63 => 64,
                64..=127 => 128,
                128..=255 => 256,
                _ => 512,
            };
            assert_eq!(q.buckets.len(), expected, "{} entries", q.len());
        }
        assert_eq!(popped.len(), 1000);
        assert!(popped.windows(2).all(|w| w[0] < w[1]));
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

    /// `peek_time` moves the search's day forward to the earliest event; an event
    /// then scheduled before that day (still after `now`) must move it back and pop
    /// first, not wait a year. Pending 10 and 90 000; peek gives 10; pop 10; peek
    /// moves the day to 90 000's; 20 is scheduled and pops before it.
    #[test]
    fn an_event_scheduled_before_the_peeked_one_pops_first() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(10), 1);
        q.schedule(SimTime(90_000), 2);
        assert_eq!(q.peek_time(), Some(SimTime(10)));
        assert_eq!(q.pop(|e| *e as u64), Some((SimTime(10), 1)));
        assert_eq!(q.peek_time(), Some(SimTime(90_000)));
        q.schedule(SimTime(20), 3);
        assert_eq!(q.peek_time(), Some(SimTime(20)));
        assert_eq!(drain(&mut q), vec![(20, 3), (90_000, 2)]);
    }

    /// Pops follow the (time, sequence) order of a sorted set under mixed use, at
    /// several sizes: `pending` events, then steps of 0–2 schedules (delays: a tie
    /// at `now` one time in eight, near ones up to 1 µs, far ones up to 1 s) and a
    /// pop, `peek_time` checked before each pop; every size grows to its number
    /// and drains to empty, so the calendar grows, recalibrates and shrinks.
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

    /// A width gone stale at a constant size is recomputed. 1 000 events held with
    /// delays up to 1 µs (gaps of about 1 ns: 2 ns days, 512 buckets, a 1 µs year),
    /// then the same 1 000 held with delays of 100–300 ms (gaps of about 200 µs, each
    /// more than a year): without a new width every pop would pass a year and search
    /// all 512 fronts, 1 024 days of overhead. Allowed: `OVERHEAD_PER_OPERATION` per
    /// operation, plus one rebuild's allowance for the change.
    #[test]
    fn a_stale_width_is_recomputed_when_events_thin_out() {
        let mut next = sequence(7);
        let mut q: EventQueue<u32> = EventQueue::new();
        for e in 0..1000 {
            q.schedule(SimTime(1 + next(1_000)), e);
        }
        for _ in 0..10_000 {
            let (t, e) = q.pop(|e| *e as u64).unwrap();
            q.schedule(t + SimTime(1 + next(1_000)), e);
        }
        assert_eq!(q.buckets.len(), 512);
        assert!(q.shift <= 2, "dense width 2^{}", q.shift);
        let before = q.overhead;
        let operations = 2 * 20_000;
        for _ in 0..20_000 {
            let (t, e) = q.pop(|e| *e as u64).unwrap();
            q.schedule(t + SimTime(100_000_000 + next(200_000_000)), e);
        }
        let overhead = q.overhead - before;
        assert!(
            overhead <= OVERHEAD_PER_OPERATION * (operations + 2 * 512),
            "overhead {overhead} for {operations} operations"
        );
        assert!(q.shift >= 16, "sparse width 2^{}", q.shift);
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
