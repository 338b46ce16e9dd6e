//! RR-TCP's dupthresh adaptation (Zhang, Karp, Floyd, Peterson, "RR-TCP: A
//! Reordering-Robust TCP with DSACK", ICNP 2003), the TCP side of the reorder study's
//! comparison: `tcp.adapt_dupthresh`, with D-SACK reports (`tcp.dsack`) as the
//! evidence. Detection and recovery, RR-TCP's other two parts, are the RFC 3708
//! detector and undo of `spurious.rs` (`tcp.dsack_undo`).
//!
//! Samples of the reordering length are counted in segments: when the late segment is
//! acknowledged, the number of segments above it that SACK blocks had reported — the
//! duplicate ACKs it caused, had the receiver acknowledged each arrival (Linux measures
//! its `tp->reordering` the same way, in `tcp_check_sack_reordering`); the TCP analogue
//! of SCTP's missing reports. The histogram, percentile and cost rule are shared with
//! RR-SCTP (`transport::dupthresh`):
//! * when an ACK advances SND.UNA past a segment that `k` SACKed segments above it
//!   had reported missing and that was never retransmitted, it arrived late: a sample
//!   of `k`;
//! * when that segment had been retransmitted, the sample waits until a D-SACK shows
//!   the retransmission was a duplicate (a real loss says nothing about reordering),
//!   and only for the latest loss episode (RR-SCTP's rule);
//! * a loss episode D-SACKs show spurious, started by a fast retransmit, raises the
//!   percentile; a timeout with at least the base dupthresh duplicate ACKs for the
//!   first segment — one a base dupthresh would have fast-retransmitted — lowers it.
//!   The cost ratio r = C_to/C_fr uses the sender's SRTT, RTO and window.
//!
//! Simplified: RR-TCP's "extended limited transmit" (sending new data on duplicate
//! ACKs while a raised dupthresh holds back the fast retransmit) is not modelled —
//! RFC 3042's limited transmit (`tcp.limited_transmit`) sends on the first two
//! duplicates only — so while duplicates stay below a raised dupthresh the sender
//! sends little or nothing new: the adaptation avoids the halving but not that
//! pause.

use super::sack::Scoreboard;
use crate::time::SimTime;
use crate::transport::dupthresh::DupthreshAdapter;

/// The adaptation's state in a sender.
#[derive(Clone, Debug)]
pub struct Reordering {
    pub adapter: DupthreshAdapter,
    /// (end of a retransmitted segment acknowledged after `k` duplicates, k) of the
    /// latest episode, waiting for a D-SACK to confirm it was only late.
    pending: Vec<(u64, u32)>,
    /// The latest episode began with a fast retransmit (not a timeout).
    fast: bool,
}

impl Reordering {
    pub fn new(base: u32, pef: f64, step: f64) -> Self {
        Reordering {
            adapter: DupthreshAdapter::new(base, pef, step),
            pending: Vec::new(),
            fast: false,
        }
    }
}

/// The sender's dupthresh: the configured one, adapted by RR-TCP when on.
#[derive(Clone, Debug)]
pub(super) struct Dupthresh {
    base: u32,
    adaptation: Option<Reordering>,
}

impl Dupthresh {
    /// `base` duplicates; `adapt`: RR-TCP's (pef, pef step), or `None`.
    pub fn new(base: u32, adapt: Option<(f64, f64)>) -> Self {
        Dupthresh {
            base,
            adaptation: adapt.map(|(pef, step)| Reordering::new(base, pef, step)),
        }
    }

    /// The current dupthresh: adapted, or the configured one.
    pub fn current(&self) -> u32 {
        self.adaptation
            .as_ref()
            .map_or(self.base, |r| r.adapter.dupthresh())
    }

    /// The adaptation, when on (for tests that read its percentile).
    #[cfg(test)]
    pub fn adaptation(&mut self) -> Option<&mut Reordering> {
        self.adaptation.as_mut()
    }

    /// An ACK for `ack` is about to advance SND.UNA. If it covers the first
    /// unacknowledged segment while SACK blocks had reported segments above it, that
    /// segment arrived after them: a sample of the reordering extent, in segments (one
    /// duplicate ACK each, had the receiver acknowledged every one).
    pub fn on_advance(&mut self, ack: u64, scoreboard: &Scoreboard) {
        let Some(r) = &mut self.adaptation else {
            return;
        };
        let Some(head) = scoreboard
            .first_unacked()
            .filter(|h| h.end() <= ack && !h.sacked)
        else {
            return;
        };
        let extent = scoreboard.sacked_count();
        if extent == 0 {
            return;
        }
        if head.retransmitted {
            r.pending.push((head.end(), extent));
        } else {
            r.adapter.record(extent);
        }
    }

    /// A D-SACK block [start, end) reported a duplicate: retransmitted segments it
    /// covers were late, not lost.
    pub fn on_dsack(&mut self, start: u64, end: u64) {
        let Some(r) = &mut self.adaptation else {
            return;
        };
        let adapter = &mut r.adapter;
        r.pending.retain(|&(seg_end, k)| {
            let covered = start < seg_end && seg_end <= end;
            if covered {
                adapter.record(k);
            }
            !covered
        });
    }

    /// A loss episode begins (`fast`: by a fast retransmit): samples of the previous
    /// one are dropped.
    pub fn on_episode(&mut self, fast: bool) {
        if let Some(r) = &mut self.adaptation {
            r.pending.clear();
            r.fast = fast;
        }
    }

    /// D-SACKs showed the latest episode spurious: if a fast retransmit started it,
    /// dupthresh was too low. `cost` is the sender's `CostOfLoss` at the window
    /// before the reduction.
    pub fn on_spurious(&mut self, cost: CostOfLoss) {
        if let Some(re) = self.adaptation.as_mut().filter(|re| re.fast) {
            re.adapter.on_spurious_fast_retransmit(cost.ratio());
        }
    }

    /// A timeout starts an episode with `dupacks` duplicates for the first segment:
    /// if a base dupthresh would have fast-retransmitted it, the raised one cost a
    /// timeout (`cost` at the current window). Returns whether it did.
    pub fn on_timeout(&mut self, dupacks: u32, cost: CostOfLoss) -> bool {
        let Some(re) = self.adaptation.as_mut().filter(|_| dupacks >= self.base) else {
            return false;
        };
        re.adapter.on_avoidable_timeout(cost.ratio());
        true
    }
}

/// What the sender knows of the relative cost of a timeout against a fast
/// retransmit: its SRTT (the RTO when none), RTO and window in segments.
#[derive(Clone, Copy, Debug)]
pub(super) struct CostOfLoss {
    pub srtt: Option<SimTime>,
    pub rto: SimTime,
    pub window: u32,
}

impl CostOfLoss {
    /// r = C_to / C_fr (`DupthreshAdapter::cost_ratio`).
    fn ratio(self) -> f64 {
        let rto = self.rto.as_nanos() as f64;
        let srtt = self.srtt.map_or(rto, |s| s.as_nanos() as f64);
        DupthreshAdapter::cost_ratio(srtt, rto, f64::from(self.window.max(1)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cost(window: u32) -> CostOfLoss {
        CostOfLoss {
            srtt: Some(SimTime::from_millis(100)),
            rto: SimTime::from_secs(1),
            window,
        }
    }

    #[test]
    fn a_timeout_is_avoidable_only_at_the_base_dupthresh_or_more() {
        // Base 3, pef 0.9, step 0.1. Two duplicates: a base dupthresh would not
        // have fast-retransmitted either. Three: it would; r = (RTO + SRTT·log2 W)
        // / SRTT = (1000 + 100·log2 8) / 100 = 13, pef = 0.9 − 0.1·13/14 = 0.807143.
        let mut d = Dupthresh::new(3, Some((0.9, 0.1)));
        assert!(!d.on_timeout(2, cost(8)));
        assert!(d.on_timeout(3, cost(8)));
        let pef = d.adaptation().expect("on").adapter.pef();
        assert!((pef - 0.807_143).abs() < 1e-6, "pef {pef}");
        // Without the adaptation nothing is avoidable and dupthresh stays the base.
        let mut fixed = Dupthresh::new(3, None);
        assert!(!fixed.on_timeout(5, cost(8)));
        assert_eq!(fixed.current(), 3);
    }

    #[test]
    fn without_an_srtt_the_cost_takes_the_rto_for_it() {
        // SRTT unknown: C_fr = RTO = 1 s, r = (1 + 1·log2 4) / 1 = 3.
        let c = CostOfLoss {
            srtt: None,
            rto: SimTime::from_secs(1),
            window: 4,
        };
        assert!((c.ratio() - 3.0).abs() < 1e-12);
    }
}
