//! The relay's own timing error: how late each packet left the relay against the
//! time the model delivered it. Kept in a fixed histogram of 1 µs bins up to
//! 100 ms (no allocation per packet) with the exact maximum beside it.

const BIN_NS: u64 = 1_000;
const BINS: usize = 100_000;

pub struct Lateness {
    counts: Vec<u32>,
    /// Samples of 100 ms or more (they count in the top percentiles as 100 ms).
    overflow: u64,
    samples: u64,
    max_ns: u64,
}

impl Default for Lateness {
    fn default() -> Self {
        Lateness {
            counts: vec![0; BINS],
            overflow: 0,
            samples: 0,
            max_ns: 0,
        }
    }
}

impl Lateness {
    pub fn record(&mut self, late_ns: u64) {
        self.samples += 1;
        self.max_ns = self.max_ns.max(late_ns);
        match self.counts.get_mut((late_ns / BIN_NS) as usize) {
            Some(c) => *c += 1,
            None => self.overflow += 1,
        }
    }

    pub fn samples(&self) -> u64 {
        self.samples
    }

    pub fn max_ns(&self) -> u64 {
        self.max_ns
    }

    /// The `q`-quantile (0 < q ≤ 1) as the upper edge of its 1 µs bin: the
    /// smallest edge at or below which at least ⌈q·n⌉ samples lie. 0 when empty.
    pub fn quantile_ns(&self, q: f64) -> u64 {
        if self.samples == 0 {
            return 0;
        }
        let rank = ((q * self.samples as f64).ceil() as u64).max(1);
        let mut seen = 0u64;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c as u64;
            if seen >= rank {
                return (i as u64 + 1) * BIN_NS;
            }
        }
        BINS as u64 * BIN_NS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_are_bin_upper_edges() {
        let mut l = Lateness::default();
        // 100 samples: 0.5 µs … 99.5 µs, one per 1 µs bin.
        for i in 0..100u64 {
            l.record(i * 1_000 + 500);
        }
        // Median: rank ⌈0.5 × 100⌉ = 50, the 50th bin (49..50 µs) → 50 µs.
        assert_eq!(l.quantile_ns(0.5), 50_000);
        // p99: rank 99 → bin 98..99 µs → 99 µs.
        assert_eq!(l.quantile_ns(0.99), 99_000);
        assert_eq!(l.max_ns(), 99_500);
    }

    #[test]
    fn samples_past_the_histogram_are_counted_at_its_top() {
        let mut l = Lateness::default();
        l.record(10);
        l.record(250_000_000); // 250 ms
        assert_eq!(l.quantile_ns(1.0), 100_000_000);
        assert_eq!(l.max_ns(), 250_000_000);
        assert_eq!(l.quantile_ns(0.5), 1_000);
    }

    #[test]
    fn empty_is_zero() {
        assert_eq!(Lateness::default().quantile_ns(0.99), 0);
    }
}
