//! The sojourn times (queueing delays) of the packets a link direction's queue handed
//! to its transmitter, kept for percentiles in a log-linear histogram (the buckets of
//! G. Tene's HdrHistogram): exact below 64 ns; from there 32 buckets per power of two,
//! each reported at its middle, so a percentile is within 1/64 (1.6 %) of the exact
//! one.
//!
//! Memory and time go where a link's packets are: the histogram keeps only the
//! buckets that have delays (8 bytes each, in order), never a counter per packet; and
//! delays that fall in the bucket of the delay before are counted inline (`run`),
//! written to the buckets when another bucket comes. Most of an access link's waits
//! are the same one packet's time, and its buckets — rarely touched, of 4 002 link
//! directions at 1 000 flows — would be a cache miss each time they were
//! (BENCHMARKS.md, "Queue disciplines").

use crate::time::SimTime;

/// Buckets per power of two: 2^SUB_BITS.
const SUB_BITS: u32 = 5;
const SUB: u64 = 1 << SUB_BITS;
/// Values below this are their own bucket.
const EXACT: u64 = 2 * SUB;
/// An entry of `SojournHistogram::counted`: the bucket above this many bits, the
/// count below (up to 2⁴⁸ − 1: 281 × 10¹² packets).
const COUNT_BITS: u32 = 48;
const COUNT_MASK: u64 = (1 << COUNT_BITS) - 1;

/// A histogram bucket: 0 for no wait, else `Bucket::of` the wait (at most 1919).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bucket(u16);

impl Bucket {
    /// The bucket of a wait.
    #[inline]
    pub fn of(sojourn: SimTime) -> Bucket {
        let ns = sojourn.as_nanos();
        if ns < EXACT {
            return Bucket(ns as u16);
        }
        // ns ∈ [2^e, 2^(e+1)) with e ≥ SUB_BITS + 1; buckets of width 2^shift.
        let e = 63 - ns.leading_zeros();
        let shift = e - SUB_BITS;
        Bucket((shift as u64 * SUB + (ns >> shift)) as u16)
    }

    /// Its lower bound and width (ns).
    fn bounds(self) -> (u64, u64) {
        let i = self.0 as u64;
        if i < EXACT {
            return (i, 1);
        }
        let shift = i / SUB - 1;
        ((i - shift * SUB) << shift, 1 << shift)
    }

    /// Its middle: what a percentile in it reports.
    pub fn middle(self) -> SimTime {
        let (lower, width) = self.bounds();
        SimTime(lower + width / 2)
    }
}

#[derive(Clone, Debug, Default)]
pub struct SojournHistogram {
    /// The buckets that have delays, in increasing order, each `bucket << 48 | count`.
    counted: Vec<u64>,
    /// The last bucket recorded, and how many delays of it are not in `counted` yet.
    run_bucket: u16,
    run: u32,
}

impl SojournHistogram {
    #[inline]
    pub fn record(&mut self, sojourn: SimTime) {
        self.add(Bucket::of(sojourn));
    }

    /// Counts one delay of bucket `b`.
    #[inline]
    pub fn add(&mut self, b: Bucket) {
        if b.0 == self.run_bucket && self.run < u32::MAX {
            self.run += 1;
        } else {
            self.flush();
            self.run_bucket = b.0;
            self.run = 1;
        }
    }

    /// Writes the run into the buckets.
    #[cold]
    fn flush(&mut self) {
        if self.run > 0 {
            self.count(Bucket(self.run_bucket), self.run as u64);
            self.run = 0;
        }
    }

    /// Adds `n` delays to bucket `b` in `counted`.
    fn count(&mut self, b: Bucket, n: u64) {
        match self
            .counted
            .binary_search_by_key(&b.0, |&e| (e >> COUNT_BITS) as u16)
        {
            Ok(k) => {
                debug_assert!((self.counted[k] & COUNT_MASK) + n <= COUNT_MASK);
                self.counted[k] += n;
            }
            Err(k) => self.counted.insert(k, (b.0 as u64) << COUNT_BITS | n),
        }
    }

    /// Uncounts one delay of bucket `b` (a packet counted when it was queued that
    /// did not leave after all).
    pub fn remove(&mut self, b: Bucket) {
        if b.0 == self.run_bucket && self.run > 0 {
            self.run -= 1;
            return;
        }
        let k = self
            .counted
            .binary_search_by_key(&b.0, |&e| (e >> COUNT_BITS) as u16)
            .expect("a delay counted before");
        self.counted[k] -= 1;
    }

    /// Counts `n` packets that did not wait.
    pub fn add_zeros(&mut self, n: u64) {
        if n > 0 {
            self.count(Bucket(0), n);
        }
    }

    /// Packets recorded.
    pub fn len(&self) -> u64 {
        self.run as u64 + self.counted.iter().map(|&e| e & COUNT_MASK).sum::<u64>()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// (bucket, count) of each bucket with delays, in increasing order.
    fn buckets(&self) -> Vec<(Bucket, u64)> {
        let mut all = self.clone();
        all.flush();
        all.counted
            .iter()
            .map(|&e| (Bucket((e >> COUNT_BITS) as u16), e & COUNT_MASK))
            .filter(|&(_, n)| n > 0)
            .collect()
    }

    /// The `q`-quantiles (each 0 < q ≤ 1) by nearest rank: the ⌈q·n⌉-th smallest
    /// delay, as the middle of its bucket; None without packets. Each is found from
    /// the top (the high percentiles wanted are a few buckets from it): the rank-r
    /// delay is in the highest bucket below which fewer than r delays lie.
    pub fn percentiles<const N: usize>(&self, qs: [f64; N]) -> [Option<SimTime>; N] {
        let buckets = self.buckets();
        let total: u64 = buckets.iter().map(|&(_, n)| n).sum();
        qs.map(|q| {
            if total == 0 {
                return None;
            }
            let rank = ((q * total as f64).ceil() as u64).clamp(1, total);
            // Delays above the bucket looked at; it holds the answer once those in it
            // and above make more than total − rank.
            let mut above = 0;
            for &(b, n) in buckets.iter().rev() {
                if above + n > total - rank {
                    return Some(b.middle());
                }
                above += n;
            }
            unreachable!("the buckets hold all {total} delays")
        })
    }
}

/// Equal when they count the same delays, however they hold them.
impl PartialEq for SojournHistogram {
    fn eq(&self, other: &Self) -> bool {
        self.buckets() == other.buckets()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bucket of the largest delay, 2⁶⁴ − 1 ns.
    const MAX_BUCKET: u16 = 1919;

    fn bucket(ns: u64) -> u16 {
        Bucket::of(SimTime(ns)).0
    }

    #[test]
    fn buckets_tile_the_line_with_widths_that_double_every_32() {
        // 0–63 exact; 64 starts bucket 64 (width 2); 128 bucket 96 (width 4);
        // 1 ms = 1 000 000 ns = 2^19·1.907…: shift 14, 1 000 000 >> 14 = 61 → bucket
        // 14·32 + 61 = 509, [61·16384, 62·16384) = [999 424, 1 015 808).
        assert_eq!(
            (bucket(63), bucket(64), bucket(65), bucket(66)),
            (63, 64, 64, 65)
        );
        assert_eq!((bucket(127), bucket(128)), (95, 96));
        assert_eq!(bucket(1_000_000), 509);
        assert_eq!(Bucket(509).bounds(), (999_424, 16_384));
        // The last bucket, 1919, ends at 2⁶⁴ − 1.
        assert_eq!(bucket(u64::MAX), MAX_BUCKET);
        for i in 1..MAX_BUCKET {
            let (lower, width) = Bucket(i).bounds();
            assert_eq!(bucket(lower), i);
            assert_eq!(bucket(lower + width - 1), i);
            assert_eq!(Bucket(i + 1).bounds().0, lower + width);
        }
    }

    #[test]
    fn percentiles_by_nearest_rank() {
        // 100 delays of 1, 2, …, 100 µs, recorded from the largest down; p50 is the
        // 50th (50 µs), p95 the 95th, p99 the 99th; each reported at its bucket's
        // middle. 50 000 ns: shift 10, 50 000 >> 10 = 48 → [49 152, 50 176), middle
        // 49 664.
        let mut h = SojournHistogram::default();
        for us in (1..=100).rev() {
            h.record(SimTime::from_micros(us));
        }
        let [p50, p95, p99] = h.percentiles([0.5, 0.95, 0.99]);
        assert_eq!(p50, Some(SimTime(49_664)));
        for (got, exact) in [(p50, 50_000.0), (p95, 95_000.0), (p99, 99_000.0)] {
            let got = got.unwrap().as_nanos() as f64;
            assert!((got - exact).abs() / exact <= 1.0 / 64.0, "{got}");
        }
        assert_eq!(h.len(), 100);
    }

    #[test]
    fn delays_of_zero_are_a_bucket_like_the_others() {
        // 60 packets that did not wait and 40 that waited 5 ms: p50 is 0, p95 5 ms
        // (its bucket's middle, within 1/64).
        let mut h = SojournHistogram::default();
        h.add_zeros(60);
        for _ in 0..40 {
            h.record(SimTime::from_millis(5));
        }
        let [p50, p95] = h.percentiles([0.5, 0.95]);
        assert_eq!(p50, Some(SimTime::ZERO));
        let p95 = p95.unwrap().as_nanos() as f64;
        assert!((p95 - 5e6).abs() / 5e6 <= 1.0 / 64.0);
        assert_eq!(SojournHistogram::default().percentiles([0.5]), [None]);
    }

    #[test]
    fn a_run_of_equal_buckets_counts_as_the_buckets_would() {
        // 5 × 12 µs, 1 × 30 µs, 2 × 12 µs: the first run is written when 30 µs comes,
        // the rest at the percentiles; only two buckets are ever kept. Equal to the
        // same delays in another order.
        let mut a = SojournHistogram::default();
        for us in [12, 12, 12, 12, 12, 30, 12, 12] {
            a.record(SimTime::from_micros(us));
        }
        assert_eq!(a.counted.len(), 2);
        let mut b = SojournHistogram::default();
        for us in [30, 12, 12, 12, 12, 12, 12, 12] {
            b.record(SimTime::from_micros(us));
        }
        assert_eq!(a, b);
        assert_eq!(a.len(), 8);
        // p87.5 is the 7th of 8: still 12 µs; p100 the 30 µs.
        let [p, top] = a.percentiles([0.875, 1.0]);
        assert_eq!(p, Some(Bucket::of(SimTime::from_micros(12)).middle()));
        assert_eq!(top, Some(Bucket::of(SimTime::from_micros(30)).middle()));
    }

    #[test]
    fn a_removed_delay_is_no_longer_counted() {
        let mut h = SojournHistogram::default();
        h.record(SimTime::from_micros(3));
        h.record(SimTime::from_micros(9));
        h.record(SimTime::from_micros(5));
        h.remove(Bucket::of(SimTime::from_micros(9)));
        assert_eq!(h.len(), 2);
        assert_eq!(
            h.percentiles([1.0]),
            [Some(Bucket::of(SimTime::from_micros(5)).middle())]
        );
    }
}
