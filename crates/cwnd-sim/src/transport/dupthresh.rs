//! dupthresh adaptation, shared by RR-SCTP (Barletta, Righetti, Veiga, §4.3) and
//! cwnd's RR-TCP (`transport::tcp::reordering`), with the percentile moved by a cost
//! rule after Zhang, Karp, Floyd and Peterson's RR-TCP (ICNP 2003). The unit of a
//! sample is the protocol's count of loss indications: SCTP's missing reports (crf),
//! TCP's duplicate ACKs.
//!
//! The paper keeps a histogram of the missing-report counts (crf) of the TSNs whose
//! crf reached 4 — its base dupthresh; here the base dupthresh of the association,
//! `min_crf` — and sets dupthresh from a percentile `pef` of that histogram. A TSN
//! acknowledged without retransmission enters with its crf when it is acknowledged;
//! a retransmitted TSN only when a duplicate report shows the retransmission was not
//! needed, and only for the latest retransmission event (`trl`).
//!
//! dupthresh: with F the histogram's cumulative distribution, the reordering extent
//! covering a fraction pef of the samples is c = min{c : F(c) ≥ pef}; a TSN is fast
//! retransmitted when its miss indications reach dupthresh, so avoiding a
//! retransmission for extent c needs dupthresh = c + 1 (RR-TCP: "90 % of reorderings
//! are 8 or shorter: dupthresh 9"). dupthresh never goes below the base.
//!
//! Moving pef. RR-TCP balances the cost of false fast retransmits (dupthresh too
//! low) against the cost of timeouts that a smaller dupthresh would have avoided
//! (too high). The paper's own text could not be retrieved through this project's
//! search tool (only secondary summaries of RR-TCP's DSACK-FA percentile rule), so
//! the rule below is this simulator's, written after that principle:
//! ```text
//! C_fr = SRTT                        a spurious fast retransmit costs about one round
//!                                    trip of halved sending (Recovery restores it)
//! C_to = RTO + SRTT·log2(max(W, 2))  a timeout idles for the RTO, then slow start
//!                                    needs log2(W) round trips to regain W chunks
//! r = C_to / C_fr
//! spurious fast retransmit detected:  pef ← min(1, pef + step / (1 + r))
//! avoidable timeout:                  pef ← max(0, pef − step · r / (1 + r))
//! ```
//! where W is the destination's window in chunks before the reduction and an
//! avoidable timeout is a T3-rtx expiry while some chunk it marks had at least the
//! base dupthresh miss indications (so it would have been fast retransmitted with
//! the base dupthresh). At equilibrium the increases and decreases cancel,
//! N_fr / (1 + r) = N_to · r / (1 + r), i.e. N_fr · C_fr = N_to · C_to: the time lost to
//! each kind of event is the same.

/// Histogram bins: larger crf values share the last one.
const BINS: usize = 1024;

#[derive(Clone, Debug)]
pub struct DupthreshAdapter {
    /// The association's configured dupthresh: the floor and the histogram's entry
    /// threshold.
    base: u32,
    counts: Vec<u64>,
    total: u64,
    pef: f64,
    step: f64,
}

impl DupthreshAdapter {
    pub fn new(base: u32, pef: f64, step: f64) -> Self {
        DupthreshAdapter {
            base,
            counts: vec![0; BINS],
            total: 0,
            pef,
            step,
        }
    }

    pub fn pef(&self) -> f64 {
        self.pef
    }

    #[cfg(test)]
    pub fn samples(&self) -> u64 {
        self.total
    }

    /// A TSN's final missing-report count; counted if at least the base dupthresh.
    pub fn record(&mut self, crf: u32) {
        if crf >= self.base {
            self.counts[(crf as usize).min(BINS - 1)] += 1;
            self.total += 1;
        }
    }

    /// The current dupthresh.
    pub fn dupthresh(&self) -> u32 {
        if self.total == 0 {
            return self.base;
        }
        let need = self.pef * self.total as f64;
        let mut seen = 0u64;
        for (crf, &n) in self.counts.iter().enumerate() {
            seen += n;
            if n > 0 && seen as f64 >= need {
                return self.base.max(crf as u32 + 1);
            }
        }
        self.base.max(BINS as u32)
    }

    /// The relative cost r = C_to / C_fr for a destination with `srtt`, `rto` (ns)
    /// and a window of `window_chunks`.
    pub fn cost_ratio(srtt_ns: f64, rto_ns: f64, window_chunks: f64) -> f64 {
        let c_fr = srtt_ns.max(1.0);
        let c_to = rto_ns + srtt_ns * window_chunks.max(2.0).log2();
        c_to / c_fr
    }

    pub fn on_spurious_fast_retransmit(&mut self, r: f64) {
        self.pef = (self.pef + self.step / (1.0 + r)).min(1.0);
    }

    pub fn on_avoidable_timeout(&mut self, r: f64) {
        self.pef = (self.pef - self.step * r / (1.0 + r)).max(0.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dupthresh_is_one_above_the_percentile_of_the_histogram() {
        // Base 4; samples 4, 5, 5, 6, 9 (and a 2, below the base: ignored).
        let mut a = DupthreshAdapter::new(4, 0.5, 0.1);
        assert_eq!(a.dupthresh(), 4); // empty histogram: the base
        for crf in [4, 5, 5, 6, 9, 2] {
            a.record(crf);
        }
        assert_eq!(a.samples(), 5);
        // pef 0.5: need 2.5 samples; F(4) = 1, F(5) = 3 ≥ 2.5 → c = 5, dupthresh 6.
        assert_eq!(a.dupthresh(), 6);
        // pef 0.9: need 4.5; F(6) = 4, F(9) = 5 → dupthresh 10.
        a.pef = 0.9;
        assert_eq!(a.dupthresh(), 10);
        // pef 0: the smallest sample, 4 → 5.
        a.pef = 0.0;
        assert_eq!(a.dupthresh(), 5);
    }

    #[test]
    fn the_percentile_moves_by_the_relative_cost() {
        // SRTT 100 ms, RTO 1 s, W = 16 chunks: C_to = 1 + 0.1·4 = 1.4 s, r = 14.
        let r = DupthreshAdapter::cost_ratio(100e6, 1e9, 16.0);
        assert!((r - 14.0).abs() < 1e-9, "{r}");
        let mut a = DupthreshAdapter::new(4, 0.5, 0.15);
        // Up by 0.15 / 15 = 0.01 on a spurious fast retransmit.
        a.on_spurious_fast_retransmit(r);
        assert!((a.pef() - 0.51).abs() < 1e-12);
        // Down by 0.15 · 14 / 15 = 0.14 on an avoidable timeout.
        a.on_avoidable_timeout(r);
        assert!((a.pef() - 0.37).abs() < 1e-12);
        // Bounded to [0, 1].
        for _ in 0..10 {
            a.on_avoidable_timeout(r);
        }
        assert_eq!(a.pef(), 0.0);
        for _ in 0..200 {
            a.on_spurious_fast_retransmit(r);
        }
        assert_eq!(a.pef(), 1.0);
    }

    #[test]
    fn a_larger_percentile_gives_a_larger_dupthresh() {
        let mut a = DupthreshAdapter::new(3, 0.2, 0.1);
        for crf in 3..=12 {
            a.record(crf);
        }
        let low = a.dupthresh();
        for _ in 0..100 {
            a.on_spurious_fast_retransmit(1.0); // +0.05 each
        }
        assert!(a.dupthresh() > low, "{} vs {low}", a.dupthresh());
        assert_eq!(a.dupthresh(), 13); // pef 1: the largest sample 12, + 1
    }
}
