//! One-way delays of a 5-tuple's packets through the model, in a log-linear
//! histogram: exact below 64 ns, then 64 bins per power of two, so a quantile is
//! within 1/64 (1.6 %) of the true one at any scale from nanoseconds to hours, in
//! at most 3 776 counters that grow only as far as the largest delay seen (the
//! bucketing of HdrHistogram, G. Tene, with 6 bits of sub-bucket).

/// Sub-buckets per power of two: 2⁶.
const SUB_BITS: u32 = 6;
const SUB: u64 = 1 << SUB_BITS;

#[derive(Clone, Debug, Default)]
pub struct DelayHistogram {
    counts: Vec<u32>,
    samples: u64,
    min_ns: u64,
    max_ns: u64,
}

/// The bin of `v`: `v` itself below 64; above, 64 bins per power of two.
fn bin(v: u64) -> usize {
    if v < SUB {
        return v as usize;
    }
    let e = 63 - v.leading_zeros(); // 2^e ≤ v < 2^(e+1), e ≥ 6
    let sub = (v >> (e - SUB_BITS)) - SUB;
    (SUB + u64::from(e - SUB_BITS) * SUB + sub) as usize
}

/// The first value past bin `i`.
fn upper_edge(i: usize) -> u64 {
    let i = i as u64;
    if i < SUB {
        return i + 1;
    }
    let octave = (i - SUB) / SUB; // e − 6
    let sub = (i - SUB) % SUB;
    // The last bin's edge is 2⁶⁴: u64::MAX stands for it.
    u64::try_from(u128::from(SUB + sub + 1) << octave).unwrap_or(u64::MAX)
}

impl DelayHistogram {
    pub fn record(&mut self, delay_ns: u64) {
        let b = bin(delay_ns);
        if self.counts.len() <= b {
            self.counts.resize(b + 1, 0);
        }
        self.counts[b] += 1;
        self.min_ns = if self.samples == 0 {
            delay_ns
        } else {
            self.min_ns.min(delay_ns)
        };
        self.max_ns = self.max_ns.max(delay_ns);
        self.samples += 1;
    }

    pub fn samples(&self) -> u64 {
        self.samples
    }

    pub fn min_ns(&self) -> u64 {
        self.min_ns
    }

    pub fn max_ns(&self) -> u64 {
        self.max_ns
    }

    /// The `q`-quantile (0 < q ≤ 1): the upper edge of the bin holding the
    /// ⌈q·n⌉-th smallest sample, never above the largest sample. 0 when empty.
    pub fn quantile_ns(&self, q: f64) -> u64 {
        let rank = ((q * self.samples as f64).ceil() as u64).max(1);
        let mut seen = 0u64;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += u64::from(c);
            if seen >= rank {
                return upper_edge(i).min(self.max_ns);
            }
        }
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_are_exact_below_64_then_64_per_octave() {
        assert_eq!((bin(63), upper_edge(63)), (63, 64));
        // 64 = 2⁶: octave 0, sub-bucket 0, width 1: [64, 65).
        assert_eq!((bin(64), upper_edge(64)), (64, 65));
        // 1000: 2⁹ ≤ 1000 < 2¹⁰, width 2³ = 8; 1000 >> 3 = 125 = 64 + 61:
        // bin 64 + 3 × 64 + 61 = 317, [125 × 8, 126 × 8) = [1000, 1008).
        assert_eq!((bin(1000), upper_edge(317)), (317, 1008));
        assert_eq!(bin(1007), 317);
        assert_eq!(bin(1008), 318);
        // The largest value has the last bin: 64 + 57 × 64 + 63 = 3775.
        assert_eq!(bin(u64::MAX), 3775);
        assert_eq!(upper_edge(3775), u64::MAX);
    }

    #[test]
    fn quantiles_are_bin_upper_edges_within_the_samples() {
        let mut h = DelayHistogram::default();
        // 1, 2, …, 100 µs. p99: rank 99, 99 000 ns: 2¹⁶ ≤ 99 000 < 2¹⁷, width
        // 2¹⁰ = 1024; 99 000 >> 10 = 96: [98 304, 99 328) → 99 328 ns.
        for us in 1..=100u64 {
            h.record(us * 1000);
        }
        assert_eq!(h.quantile_ns(0.99), 99_328);
        assert_eq!((h.min_ns(), h.max_ns(), h.samples()), (1000, 100_000, 100));
        // p100 would be 100 000's upper edge, 100 352: the largest sample caps it.
        assert_eq!(h.quantile_ns(1.0), 100_000);
    }

    #[test]
    fn a_constant_delay_is_its_own_quantile() {
        // 20 ms: bin [19 922 944, 20 185 088) (width 2¹⁸), capped by the max.
        let mut h = DelayHistogram::default();
        for _ in 0..10 {
            h.record(20_000_000);
        }
        assert_eq!(h.quantile_ns(0.5), 20_000_000);
        assert_eq!(DelayHistogram::default().quantile_ns(0.5), 0);
    }
}
