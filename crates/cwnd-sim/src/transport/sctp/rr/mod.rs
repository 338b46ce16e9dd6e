//! RR-SCTP (P. O. Barletta, C. E. Righetti, P. G. Veiga, "SCTP robusto a
//! retransmisiones espúreas"): three algorithms, each switched on by itself.
//!
//! 1. Detection (`trl`): one TSN retransmission list per destination; an event is
//!    spurious when every TSN it retransmitted comes back as a duplicate TSN.
//! 2. Recovery (§4.2): when an event of a destination is found spurious, its
//!    ssthresh becomes the cwnd saved just before that event's reduction, so slow
//!    start brings the window back up; nothing changes if cwnd already exceeds it.
//!    (The saved ssthresh is not restored: the paper restores only through slow
//!    start.)
//! 3. dupthresh adaptation (`transport::dupthresh`, shared with TCP).
//!
//! Recovery and adaptation act on what detection finds, so they need it.

pub mod trl;

use self::trl::{DuplicateOutcome, Trl};
use super::config::RrConfig;
use super::outstanding::EventId;
use crate::transport::dupthresh::DupthreshAdapter;

/// RR-SCTP state of an association's sender.
#[derive(Clone, Debug)]
pub struct Rr {
    pub cfg: RrConfig,
    /// One Trl per destination.
    trls: Vec<Trl>,
    /// Per destination: cwnd just before its latest event's reduction.
    saved_cwnd: Vec<u64>,
    pub adapter: DupthreshAdapter,
}

/// A spurious event found by a duplicate report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Detected {
    pub path: usize,
    pub event: EventId,
    /// cwnd saved before the event's reduction.
    pub saved_cwnd: u64,
}

impl Rr {
    pub fn new(cfg: RrConfig, paths: usize, base_dupthresh: u32) -> Self {
        Rr {
            cfg,
            trls: vec![Trl::default(); paths],
            saved_cwnd: vec![0; paths],
            adapter: DupthreshAdapter::new(base_dupthresh, cfg.pef, cfg.pef_step),
        }
    }

    /// The dupthresh to use now.
    pub fn dupthresh(&self, base: u32) -> u32 {
        if self.cfg.adapt_dupthresh {
            self.adapter.dupthresh()
        } else {
            base
        }
    }

    /// A retransmission event begins on `path` whose cwnd before the reduction was
    /// `cwnd`; `cumulative` is the cumulative TSN ack point.
    pub fn on_event(&mut self, path: usize, event: EventId, cumulative: u64, cwnd: u64) {
        if self.cfg.detection {
            self.trls[path].begin_event(event, cumulative);
            self.saved_cwnd[path] = cwnd;
        }
    }

    /// `event` of `path` marked a chunk for retransmission.
    pub fn on_marked(&mut self, path: usize, event: EventId) {
        if self.cfg.detection {
            self.trls[path].mark(event);
        }
    }

    /// A chunk `event` of `path` marked was acknowledged before being retransmitted;
    /// returns the event if that completed a spurious verdict.
    pub fn on_acked_unsent(&mut self, path: usize, event: EventId) -> Option<Detected> {
        (self.cfg.detection && self.trls[path].unmark(event)).then_some(Detected {
            path,
            event,
            saved_cwnd: self.saved_cwnd[path],
        })
    }

    /// `tsn` was retransmitted for `event` of `path`.
    pub fn on_retransmitted(&mut self, path: usize, event: EventId, tsn: u64) {
        if self.cfg.detection {
            self.trls[path].add(event, tsn);
        }
    }

    /// `tsn` was acknowledged after `misses` miss indications; `retransmitted_for`
    /// is the path of the event that retransmitted it, if any.
    pub fn on_acked(&mut self, tsn: u64, misses: u32, retransmitted_for: Option<usize>) {
        match retransmitted_for {
            None if self.cfg.adapt_dupthresh => self.adapter.record(misses),
            Some(path) if self.cfg.detection => self.trls[path].set_crf(tsn, misses),
            _ => {}
        }
    }

    /// A duplicate report of `tsn`; returns the event it showed spurious, if any.
    pub fn on_duplicate(&mut self, tsn: u64) -> Option<Detected> {
        if !self.cfg.detection {
            return None;
        }
        for path in 0..self.trls.len() {
            match self.trls[path].on_duplicate(tsn) {
                DuplicateOutcome::Unknown => continue,
                DuplicateOutcome::Old => return None,
                DuplicateOutcome::Latest { crf, spurious } => {
                    if self.cfg.adapt_dupthresh {
                        self.adapter.record(crf);
                    }
                    let event = self.trls[path].latest_event()?;
                    return spurious.then_some(Detected {
                        path,
                        event,
                        saved_cwnd: self.saved_cwnd[path],
                    });
                }
            }
        }
        None
    }
}
