//! What is recorded for an SCTP association: its state over time, each path's
//! state over time, every DATA chunk transmission (with `trace.segments`), and
//! throughput bins. Sampled like the TCP series: on every change, or every interval.

use super::Bins;
use crate::time::SimTime;

/// Association-wide state at one instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AssociationSnapshot {
    /// Cumulative TSN ack point at the sender ("TSN acked").
    pub cumulative_tsn: u64,
    /// Highest TSN sent ("TSN sent").
    pub highest_tsn: u64,
    /// User bytes delivered to the receiving application.
    pub delivered: u64,
    /// The dupthresh in use (RR-SCTP adapts it).
    pub dupthresh: u32,
    pub fast_recovery: bool,
}

/// One destination's state at one instant (windows in bytes of DATA chunks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PathSnapshot {
    pub cwnd: u64,
    pub ssthresh: u64,
    pub flight: u64,
    /// `SimTime::MAX` before the first RTT sample.
    pub srtt: SimTime,
    /// With backoff.
    pub rto: SimTime,
    pub active: bool,
}

#[derive(Clone, Debug, Default)]
pub struct AssociationSeries {
    pub time: Vec<SimTime>,
    pub cumulative_tsn: Vec<u64>,
    pub highest_tsn: Vec<u64>,
    pub delivered: Vec<u64>,
    pub dupthresh: Vec<u32>,
    pub fast_recovery: Vec<bool>,
}

impl AssociationSeries {
    fn push(&mut self, t: SimTime, s: &AssociationSnapshot) {
        self.time.push(t);
        self.cumulative_tsn.push(s.cumulative_tsn);
        self.highest_tsn.push(s.highest_tsn);
        self.delivered.push(s.delivered);
        self.dupthresh.push(s.dupthresh);
        self.fast_recovery.push(s.fast_recovery);
    }

    pub fn len(&self) -> usize {
        self.time.len()
    }

    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
    }
}

#[derive(Clone, Debug, Default)]
pub struct PathSeries {
    pub time: Vec<SimTime>,
    pub path: Vec<u8>,
    pub cwnd: Vec<u64>,
    pub ssthresh: Vec<u64>,
    pub flight: Vec<u64>,
    pub srtt: Vec<SimTime>,
    pub rto: Vec<SimTime>,
    pub active: Vec<bool>,
}

impl PathSeries {
    fn push(&mut self, t: SimTime, path: u8, s: &PathSnapshot) {
        self.time.push(t);
        self.path.push(path);
        self.cwnd.push(s.cwnd);
        self.ssthresh.push(s.ssthresh);
        self.flight.push(s.flight);
        self.srtt.push(s.srtt);
        self.rto.push(s.rto);
        self.active.push(s.active);
    }

    pub fn len(&self) -> usize {
        self.time.len()
    }

    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
    }
}

/// Every DATA chunk transmission: the TSN-versus-time trace.
#[derive(Clone, Debug, Default)]
pub struct ChunkTrace {
    pub time: Vec<SimTime>,
    pub tsn: Vec<u64>,
    pub path: Vec<u8>,
    pub len: Vec<u32>,
    /// 0 for the first transmission, then 1, 2… (`copy > 0`: a retransmission).
    pub copy: Vec<u8>,
}

impl ChunkTrace {
    pub fn push(&mut self, time: SimTime, tsn: u64, path: u8, len: u32, copy: u8) {
        self.time.push(time);
        self.tsn.push(tsn);
        self.path.push(path);
        self.len.push(len);
        self.copy.push(copy);
    }

    pub fn len(&self) -> usize {
        self.time.len()
    }

    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
    }
}

/// Everything recorded for one association.
pub struct AssociationTrace {
    pub series: AssociationSeries,
    pub paths: PathSeries,
    last: Option<AssociationSnapshot>,
    last_paths: Vec<Option<PathSnapshot>>,
    pub chunks: Option<ChunkTrace>,
    /// User bytes delivered to the receiving application, per bin.
    pub delivered: Bins,
    /// User bytes the sender transmitted, retransmissions included, per bin.
    pub sent: Bins,
}

impl AssociationTrace {
    pub fn new(bin: SimTime, chunks: bool) -> Self {
        AssociationTrace {
            series: AssociationSeries::default(),
            paths: PathSeries::default(),
            last: None,
            last_paths: Vec::new(),
            chunks: chunks.then(ChunkTrace::default),
            delivered: Bins::new(bin),
            sent: Bins::new(bin),
        }
    }

    /// Records the association's state; with `only_changes`, rows that would repeat
    /// the previous one are skipped (per path for the path rows).
    pub fn record(
        &mut self,
        now: SimTime,
        snap: AssociationSnapshot,
        paths: &[PathSnapshot],
        only_changes: bool,
    ) {
        if !only_changes || self.last != Some(snap) {
            self.series.push(now, &snap);
            self.last = Some(snap);
        }
        if self.last_paths.len() < paths.len() {
            self.last_paths.resize(paths.len(), None);
        }
        for (i, p) in paths.iter().enumerate() {
            if !only_changes || self.last_paths[i] != Some(*p) {
                self.paths.push(now, i as u8, p);
                self.last_paths[i] = Some(*p);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn change_mode_keeps_only_rows_that_differ() {
        let mut t = AssociationTrace::new(SimTime::from_millis(100), false);
        let a = AssociationSnapshot {
            cumulative_tsn: 1,
            highest_tsn: 3,
            delivered: 10,
            dupthresh: 3,
            fast_recovery: false,
        };
        let p = PathSnapshot {
            cwnd: 4404,
            ssthresh: 1 << 20,
            flight: 0,
            srtt: SimTime::MAX,
            rto: SimTime::from_secs(1),
            active: true,
        };
        let mut q = p;
        q.cwnd = 5872;
        t.record(SimTime(1), a, &[p, p], true);
        t.record(SimTime(2), a, &[p, q], true);
        assert_eq!(t.series.len(), 1);
        assert_eq!(t.paths.path, vec![0, 1, 1]);
        t.record(SimTime(3), a, &[p, q], false);
        assert_eq!((t.series.len(), t.paths.len()), (2, 5));
    }
}
