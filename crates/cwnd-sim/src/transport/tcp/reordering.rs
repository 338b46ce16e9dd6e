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
//! cwnd's senders have no RFC 3042 limited transmit either — so while duplicates
//! stay below a raised dupthresh the sender sends nothing new: the adaptation avoids
//! the halving but not that pause.

use super::sender::TcpSender;
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

impl TcpSender {
    /// The current dupthresh: adapted, or the configured one.
    pub fn dupthresh(&self) -> u32 {
        self.reordering
            .as_ref()
            .map_or(self.cfg.dupthresh, |r| r.adapter.dupthresh())
    }

    /// An ACK for `ack` is about to advance SND.UNA. If it covers the first
    /// unacknowledged segment while SACK blocks had reported segments above it, that
    /// segment arrived after them: a sample of the reordering extent, in segments (one
    /// duplicate ACK each, had the receiver acknowledged every one).
    pub(super) fn reordering_on_advance(&mut self, ack: u64) {
        let Some(r) = &mut self.reordering else {
            return;
        };
        let Some(head) = self
            .scoreboard
            .first_unacked()
            .filter(|h| h.end() <= ack && !h.sacked)
        else {
            return;
        };
        let extent = self.scoreboard.sacked_count();
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
    pub(super) fn reordering_on_dsack(&mut self, start: u64, end: u64) {
        let Some(r) = &mut self.reordering else {
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
    pub(super) fn reordering_on_episode(&mut self, fast: bool) {
        if let Some(r) = &mut self.reordering {
            r.pending.clear();
            r.fast = fast;
        }
    }

    /// The relative cost of a timeout against a fast retransmit for this sender, with
    /// a window of `window` segments.
    fn cost_ratio(&self, window: u32) -> f64 {
        let rto = self.rto().as_nanos() as f64;
        let srtt = self.tcb.srtt.map_or(rto, |s| s.as_nanos() as f64);
        DupthreshAdapter::cost_ratio(srtt, rto, f64::from(window.max(1)))
    }

    /// D-SACKs showed the latest episode spurious: if a fast retransmit started it,
    /// dupthresh was too low.
    pub(super) fn reordering_on_spurious(&mut self) {
        let r = self.cost_ratio(self.tcb.prior_cwnd);
        if let Some(re) = self.reordering.as_mut().filter(|re| re.fast) {
            re.adapter.on_spurious_fast_retransmit(r);
        }
    }

    /// A timeout starts an episode with `dupacks` duplicates for the first segment:
    /// if a base dupthresh would have fast-retransmitted it, the raised one cost a
    /// timeout.
    pub(super) fn reordering_on_timeout(&mut self, dupacks: u32) {
        if self.reordering.is_none() || dupacks < self.cfg.dupthresh {
            return;
        }
        let r = self.cost_ratio(self.tcb.cwnd);
        if let Some(re) = &mut self.reordering {
            re.adapter.on_avoidable_timeout(r);
            self.stats.avoidable_timeouts += 1;
        }
    }
}
