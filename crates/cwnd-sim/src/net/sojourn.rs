//! The sojourn times (queueing delays) of the packets a link direction's queue handed
//! to its transmitter, kept for percentiles in a log-linear histogram (the layout of
//! G. Tene's HdrHistogram): exact below 64 ns; from there 32 buckets per power of two,
//! each reported at its middle, so a percentile is within 1/64 (1.6 %) of the exact
//! one. Its memory grows with the largest delay seen (about 5.9 KB for delays up to
//! 100 ms), never with the number of packets; packets that did not wait at all are
//! counted apart, so a link whose packets never queue allocates nothing.

use crate::time::SimTime;

/// Buckets per power of two: 2^SUB_BITS.
const SUB_BITS: u32 = 5;
const SUB: u64 = 1 << SUB_BITS;
/// Values below this are their own bucket.
const EXACT: u64 = 2 * SUB;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SojournHistogram {
    /// Packets that started at once.
    zero: u64,
    /// Bucket i counts delays (in ns) in [lower(i), lower(i) + width(i)).
    counts: Vec<u64>,
}

/// The bucket of a delay of `ns` > 0 nanoseconds.
fn bucket(ns: u64) -> usize {
    if ns < EXACT {
        return ns as usize;
    }
    // ns ∈ [2^e, 2^(e+1)) with e ≥ SUB_BITS + 1; buckets of width 2^shift.
    let e = 63 - ns.leading_zeros();
    let shift = e - SUB_BITS;
    (shift as u64 * SUB + (ns >> shift)) as usize
}

/// The lower bound and width of bucket `i`.
fn bounds(i: usize) -> (u64, u64) {
    let i = i as u64;
    if i < EXACT {
        return (i, 1);
    }
    let shift = i / SUB - 1;
    ((i - shift * SUB) << shift, 1 << shift)
}

impl SojournHistogram {
    #[inline]
    pub fn record(&mut self, sojourn: SimTime) {
        let ns = sojourn.as_nanos();
        if ns == 0 {
            self.zero += 1;
            return;
        }
        let i = bucket(ns);
        if i >= self.counts.len() {
            self.counts.resize(i + 1, 0);
        }
        self.counts[i] += 1;
    }

    /// Packets recorded.
    pub fn len(&self) -> u64 {
        self.zero + self.counts.iter().sum::<u64>()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `q`-quantile (0 < q ≤ 1) by nearest rank: the ⌈q·n⌉-th smallest delay, as
    /// the middle of its bucket. None without packets.
    pub fn percentile(&self, q: f64) -> Option<SimTime> {
        let total = self.len();
        if total == 0 {
            return None;
        }
        let rank = ((q * total as f64).ceil() as u64).clamp(1, total);
        let mut seen = self.zero;
        if seen >= rank {
            return Some(SimTime::ZERO);
        }
        for (i, &n) in self.counts.iter().enumerate() {
            seen += n;
            if seen >= rank {
                let (lower, width) = bounds(i);
                return Some(SimTime(lower + width / 2));
            }
        }
        unreachable!("the counts add up to the total")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(bounds(509), (999_424, 16_384));
        // The last bucket, 1919, ends at 2⁶⁴ − 1.
        for i in 1..1919 {
            let (lower, width) = bounds(i);
            assert_eq!(bucket(lower), i);
            assert_eq!(bucket(lower + width - 1), i);
            assert_eq!(bounds(i + 1).0, lower + width);
        }
    }

    #[test]
    fn percentiles_by_nearest_rank() {
        // 100 delays of 1, 2, …, 100 µs; p50 is the 50th (50 µs), p95 the 95th, p99 the
        // 99th; each reported at its bucket's middle. 50 000 ns: shift 10, bucket
        // [48 128 + …): 50 000 >> 10 = 48 → [49 152, 50 176), middle 49 664.
        let mut h = SojournHistogram::default();
        for us in 1..=100 {
            h.record(SimTime::from_micros(us));
        }
        assert_eq!(h.percentile(0.5), Some(SimTime(49_664)));
        for (q, exact) in [(0.5, 50_000.0), (0.95, 95_000.0), (0.99, 99_000.0)] {
            let got = h.percentile(q).unwrap().as_nanos() as f64;
            assert!((got - exact).abs() / exact <= 1.0 / 64.0, "p{q}: {got}");
        }
    }

    #[test]
    fn delays_of_zero_are_counted_without_buckets() {
        // 60 packets that did not wait and 40 that waited 5 ms: p50 is 0, p95 5 ms
        // (its bucket's middle, within 1/64).
        let mut h = SojournHistogram::default();
        for _ in 0..60 {
            h.record(SimTime::ZERO);
        }
        assert!(h.counts.is_empty());
        for _ in 0..40 {
            h.record(SimTime::from_millis(5));
        }
        assert_eq!(h.percentile(0.5), Some(SimTime::ZERO));
        let p95 = h.percentile(0.95).unwrap().as_nanos() as f64;
        assert!((p95 - 5e6).abs() / 5e6 <= 1.0 / 64.0);
        assert_eq!(SojournHistogram::default().percentile(0.5), None);
    }
}
