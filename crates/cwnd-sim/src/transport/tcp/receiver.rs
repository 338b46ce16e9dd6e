//! The TCP receiver: reassembly, cumulative ACKs, delayed ACKs, timestamps echo.
//!
//! * ACKs are cumulative (RFC 9293). Out-of-order segments inside the receive
//!   window are kept and generate an immediate duplicate ACK; a segment that fills
//!   (part of) a hole is acknowledged at once (RFC 5681 §4.2).
//! * Delayed ACKs (RFC 1122 §4.2.3.2, RFC 5681 §4.2), when enabled: an ACK for at
//!   least every second full-sized segment, and at most `timeout` after the first
//!   unacknowledged one (default 200 ms). Counted in bytes as Linux does
//!   (`__tcp_ack_snd_check`: more than one MSS received and not acknowledged), so
//!   that a full segment and a short one (Nagle's, or a write's tail) are
//!   acknowledged at once too; for full segments it is the RFC's rule. With
//!   `every` = N: more than N − 1 MSS (our generalisation). Linux estimates the
//!   sender's MSS from the segments it sees (`tcp_measure_rcv_mss`); here it is
//!   the flow's MSS.
//! * Linux's quick-ACK mode (`quickack.rs`), when enabled with delayed ACKs: every
//!   segment is acknowledged at once at the start of the connection, while the
//!   receive window opens, and after a retransmission.
//! * The application reads in-order data at once, so the advertised window is the
//!   receive buffer size and never changes; data beyond `rcv_nxt + buffer` is
//!   dropped. A scenario's `rcvbuf` (SO_RCVBUF) is turned into this window as Linux
//!   does (`socket_options::receive_window`). (A constant window also keeps RFC 5681's duplicate-ACK definition,
//!   which requires an unchanged window, exact.)
//! * Timestamps (RFC 7323 §4.3): TS.Recent is taken from a segment that covers
//!   Last.ACK.sent; every ACK echoes it.
//! * SACK (RFC 2018 §4), when enabled: "The first SACK block ... MUST specify the
//!   contiguous block of data containing the segment which triggered this ACK, unless
//!   that segment advanced the Acknowledgment Number"; the other blocks repeat the most
//!   recently reported ones. Every block but the first was reported first by an earlier
//!   ACK when it last changed, so "most recently reported" is "most recently changed"
//!   (a merge counts as a change of the merged block). At most 4 blocks, 3 with
//!   timestamps (RFC 2018 §3: the 40 option bytes).
//! * D-SACK (RFC 2883 §4), when enabled: a segment carrying data already received
//!   (below rcv_nxt or inside an out-of-order block) is reported in a first block of
//!   its own — the duplicate part only, as Linux `tcp_dsack_set` does for a segment
//!   that straddles rcv_nxt or overlaps a block; when it lies inside an out-of-order
//!   block, that containing block comes second (§4 (2)), then the others as above.
//!   An ACK carrying a D-SACK block is sent at once, whatever the delayed-ACK state.
//! * ECN (RFC 3168 §6.1.3, and DCTCP's RFC 8257 §3.2 for a receiver whose controller
//!   needs it): ECE on the ACKs as `ecn_echo.rs` decides, and the ACKs it asks for at
//!   once; DCTCP's ACK of the data before a change of the CE state goes out first
//!   (`take_ack_before`).

use super::ecn::{EcnConfig, SynFlags};
use super::ecn_echo::EcnEcho;
use super::quickack::QuickAck;
use crate::packet::{
    Ecn, SackBlocks, TcpAck, TcpData, MAX_SACK_BLOCKS, MAX_SACK_BLOCKS_WITH_TIMESTAMPS,
};
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DelayedAck {
    pub timeout: SimTime,
    /// ACK every this many full-sized segments.
    pub every: u32,
}

#[derive(Clone, Debug)]
pub struct ReceiverConfig {
    pub buffer: u64,
    pub delayed_ack: Option<DelayedAck>,
    /// Linux's quick-ACK mode (`quickack.rs`); only with `delayed_ack`.
    pub quickack: bool,
    pub mss: u32,
    pub sack: bool,
    pub dsack: bool,
    /// Timestamps are on: one SACK block less fits.
    pub timestamps: bool,
    /// This end's part in ECN (`ecn.rs`).
    pub ecn: EcnConfig,
}

/// Per-flow receiver counters (each a column of the run summary, `results`).
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct ReceiverStats {
    pub segments_received: u64,
    /// Segments carrying only bytes already received (spurious retransmissions
    /// seen from the receiver's side).
    pub duplicate_segments: u64,
    pub out_of_order_segments: u64,
    pub acks_sent: u64,
    /// Bytes delivered in order to the application.
    pub bytes_delivered: u64,
    /// Data segments that arrived with the CE mark (RFC 3168 §5).
    pub ce_received: u64,
}

pub struct TcpReceiver {
    cfg: ReceiverConfig,
    rcv_nxt: u64,
    /// Received byte ranges beyond rcv_nxt, sorted and disjoint.
    out_of_order: Vec<(u64, u64)>,
    /// For each out-of-order range, when it last changed (a counter), so that SACK
    /// blocks are reported most recent first.
    touched: Vec<u64>,
    clock: u64,
    /// In-order bytes received since the last ACK.
    unacked_bytes: u64,
    delack_deadline: SimTime,
    ts_recent: Option<SimTime>,
    last_ack_sent: u64,
    quickack: Option<QuickAck>,
    /// ECN's echo (`ecn_echo.rs`).
    echo: EcnEcho,
    /// DCTCP's ACK of the data before a change of the CE state, to go out before
    /// the ACK of the segment that changed it: (ACK number, ECE).
    ack_before: Option<(u64, bool)>,
    pub stats: ReceiverStats,
}

impl TcpReceiver {
    pub fn new(cfg: ReceiverConfig) -> Self {
        let quickack =
            (cfg.quickack && cfg.delayed_ack.is_some()).then(|| QuickAck::new(cfg.buffer, cfg.mss));
        let echo = EcnEcho::new(cfg.ecn);
        TcpReceiver {
            cfg,
            rcv_nxt: 0,
            out_of_order: Vec::new(),
            touched: Vec::new(),
            clock: 0,
            unacked_bytes: 0,
            delack_deadline: SimTime::MAX,
            ts_recent: None,
            last_ack_sent: 0,
            quickack,
            echo,
            ack_before: None,
            stats: ReceiverStats::default(),
        }
    }

    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    /// The delayed-ACK deadline (`SimTime::MAX` when none is pending).
    pub fn delack_deadline(&self) -> SimTime {
        self.delack_deadline
    }

    /// A SYN with `syn`'s ECN flags arrived: the SYN-ACK's (`ecn_echo.rs`).
    pub fn on_syn(&mut self, syn: SynFlags) -> SynFlags {
        self.echo.on_syn(syn)
    }

    /// DCTCP's ACK of the data before a change of the CE state, if the last segment
    /// made one: to send before that segment's own ACK (RFC 8257 §3.2).
    #[inline]
    pub fn take_ack_before(&mut self) -> Option<TcpAck> {
        let (ack, ece) = self.ack_before.take()?;
        Some(self.ack_before(ack, ece))
    }

    /// The ACK of `ack` with ECE `ece` that precedes the ACK of a segment that
    /// changed DCTCP's CE state. No SACK blocks: a delayed ACK was pending, so no
    /// data was out of order (that is acknowledged at once).
    #[cold]
    fn ack_before(&mut self, ack: u64, ece: bool) -> TcpAck {
        self.stats.acks_sent += 1;
        TcpAck {
            ack,
            window: self.cfg.buffer,
            ts_ecr: self.ts_recent,
            sack: SackBlocks::default(),
            ecn: self.echo.ack_ecn(),
            ece,
        }
    }

    /// Processes a data segment; returns the ACK to send now, if any. The
    /// second value is the number of bytes newly delivered to the application.
    pub fn on_segment(&mut self, now: SimTime, seg: &TcpData) -> (Option<TcpAck>, u64) {
        self.stats.segments_received += 1;
        if seg.ecn == Ecn::Ce {
            self.stats.ce_received += 1;
        }
        // ECN's part only where both ends agreed to it: a segment of a connection
        // that did not is Not-ECT without CWR, and nothing is echoed.
        let ecn = self.echo.agreed();
        let ack_pending = self.delack_deadline != SimTime::MAX;
        let (start, end) = (seg.seq, seg.seq + seg.len as u64);
        if let Some(ts) = seg.ts_val {
            if start <= self.last_ack_sent && self.ts_recent.is_none_or(|r| ts >= r) {
                self.ts_recent = Some(ts);
            }
        }
        if end <= self.rcv_nxt {
            self.stats.duplicate_segments += 1;
            if ecn {
                self.echo_ecn(seg, false, ack_pending);
            }
            if let Some(q) = &mut self.quickack {
                q.on_old_data();
            }
            return (Some(self.make_ack(Some((start, end)))), 0);
        }
        if start > self.rcv_nxt {
            self.stats.out_of_order_segments += 1;
            if ecn {
                self.echo_ecn(seg, true, ack_pending);
            }
            let overlap = self.overlap(start, end);
            if let Some((i, true, _)) = overlap {
                // Wholly inside block i: a duplicate. The block holds the segment that
                // triggered this ACK, so it is reported next (RFC 2018 §4, RFC 2883 §4).
                self.stats.duplicate_segments += 1;
                self.clock += 1;
                self.touched[i] = self.clock;
                return (Some(self.make_ack(Some((start, end)))), 0);
            }
            if end <= self.rcv_nxt + self.cfg.buffer {
                self.insert_out_of_order(start, end);
            }
            let duplicate = overlap.map(|(_, _, part)| part);
            return (Some(self.make_ack(duplicate)), 0);
        }
        // In order; bytes below rcv_nxt, if any, were received before.
        let duplicate = (start < self.rcv_nxt).then_some((start, self.rcv_nxt));
        let filled_hole = !self.out_of_order.is_empty();
        let before = self.rcv_nxt;
        self.rcv_nxt = end;
        self.absorb_out_of_order();
        let delivered = self.rcv_nxt - before;
        self.stats.bytes_delivered += delivered;
        let ecn_now = ecn && self.echo_ecn(seg, true, ack_pending);
        if let Some(q) = &mut self.quickack {
            q.on_data(u64::from(seg.len));
        }
        let quick = self.quickack.as_ref().is_some_and(QuickAck::active);

        let ack_now = match self.cfg.delayed_ack {
            None => true,
            Some(d) => {
                self.unacked_bytes += delivered;
                let dsack = duplicate.is_some() && self.cfg.sack && self.cfg.dsack;
                let threshold = u64::from(d.every - 1) * u64::from(self.cfg.mss);
                quick || filled_hole || dsack || ecn_now || self.unacked_bytes > threshold
            }
        };
        if ack_now {
            return (Some(self.make_ack(duplicate)), delivered);
        }
        if self.delack_deadline == SimTime::MAX {
            if let Some(d) = self.cfg.delayed_ack {
                self.delack_deadline = now + d.timeout;
            }
        }
        (None, delivered)
    }

    /// The delayed-ACK timer fired.
    pub fn on_timer(&mut self, now: SimTime) -> Option<TcpAck> {
        if self.delack_deadline > now {
            return None;
        }
        Some(self.make_ack(None))
    }

    /// ECN's part in a data segment (`ecn_echo.rs`), `checked` when it carries new
    /// data: quick ACKs entered, DCTCP's ACK of the data before a CE change built.
    /// Returns whether the segment is to be acknowledged at once for ECN: DCTCP's
    /// change of state, or, with Linux's quick-ACK rules, a CWR. Out of line: most
    /// connections do not use ECN, and their segments pass it by.
    #[inline(never)]
    fn echo_ecn(&mut self, seg: &TcpData, checked: bool, ack_pending: bool) -> bool {
        let v = self
            .echo
            .on_data(seg.ecn, seg.cwr, checked, self.rcv_nxt, ack_pending);
        if let Some(q) = self.quickack.as_mut().filter(|_| v.quickack) {
            q.on_ecn_signal();
        }
        self.ack_before = v.ack_before;
        // The ACK a CWR asks for is a Linux receiver's, which the quick-ACK model
        // stands for; DCTCP's is RFC 8257's.
        v.ce_changed || (v.cwr_ack && self.quickack.is_some())
    }

    /// An ACK of everything in order, with SACK (and a D-SACK block for
    /// `duplicate`, when enabled).
    fn make_ack(&mut self, duplicate: Option<(u64, u64)>) -> TcpAck {
        self.unacked_bytes = 0;
        self.delack_deadline = SimTime::MAX;
        self.last_ack_sent = self.rcv_nxt;
        self.stats.acks_sent += 1;
        if let Some(q) = &mut self.quickack {
            q.on_ack_sent();
        }
        TcpAck {
            ack: self.rcv_nxt,
            window: self.cfg.buffer,
            ts_ecr: self.ts_recent,
            sack: self.sack_blocks(duplicate),
            ecn: self.echo.ack_ecn(),
            ece: self.echo.ece(),
        }
    }

    /// The SACK option: the D-SACK block first (when enabled and `duplicate` is
    /// given), then the out-of-order blocks, most recently changed first. Picks the
    /// next most recent block in a pass over the blocks, at most 4 passes: no
    /// allocation per ACK.
    fn sack_blocks(&self, duplicate: Option<(u64, u64)>) -> SackBlocks {
        let mut blocks = SackBlocks::default();
        if !self.cfg.sack {
            return blocks;
        }
        let max = if self.cfg.timestamps {
            MAX_SACK_BLOCKS_WITH_TIMESTAMPS
        } else {
            MAX_SACK_BLOCKS
        };
        if let Some((start, end)) = duplicate.filter(|_| self.cfg.dsack) {
            blocks.push(start, end);
        }
        // `touched` values are distinct (one clock tick per change), so "strictly
        // older than the last one reported" walks them in order.
        let mut older_than = u64::MAX;
        while blocks.len() < max {
            let next = self
                .out_of_order
                .iter()
                .zip(&self.touched)
                .filter(|&(_, &t)| t < older_than)
                .max_by_key(|&(_, &t)| t);
            let Some((&(start, end), &t)) = next else {
                break;
            };
            blocks.push(start, end);
            older_than = t;
        }
        blocks
    }

    /// The first out-of-order block that [start, end) overlaps: its index, whether it
    /// contains the whole range, and the overlapping (duplicate) part.
    fn overlap(&self, start: u64, end: u64) -> Option<(usize, bool, (u64, u64))> {
        let i = self.out_of_order.partition_point(|&(_, e)| e <= start);
        let &(s, e) = self.out_of_order.get(i)?;
        (s < end).then_some((i, s <= start && end <= e, (s.max(start), e.min(end))))
    }

    fn insert_out_of_order(&mut self, start: u64, end: u64) {
        let i = self.out_of_order.partition_point(|&(_, e)| e < start);
        let mut j = i;
        let (mut s, mut e) = (start, end);
        while j < self.out_of_order.len() && self.out_of_order[j].0 <= e {
            s = s.min(self.out_of_order[j].0);
            e = e.max(self.out_of_order[j].1);
            j += 1;
        }
        self.clock += 1;
        self.out_of_order.splice(i..j, [(s, e)]);
        self.touched.splice(i..j, [self.clock]);
    }

    fn absorb_out_of_order(&mut self) {
        let mut absorbed = 0;
        for &(s, e) in &self.out_of_order {
            if s > self.rcv_nxt {
                break;
            }
            self.rcv_nxt = self.rcv_nxt.max(e);
            absorbed += 1;
        }
        self.out_of_order.drain(..absorbed);
        self.touched.drain(..absorbed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::tcp::ecn::EcnSetting;

    fn seg(seq: u64, len: u32) -> TcpData {
        TcpData {
            seq,
            len,
            ts_val: None,
            retransmission: false,
            ecn: Ecn::NotEct,
            cwr: false,
        }
    }

    fn receiver(delayed: bool) -> TcpReceiver {
        TcpReceiver::new(ReceiverConfig {
            buffer: 1 << 20,
            delayed_ack: delayed.then_some(DelayedAck {
                timeout: SimTime::from_millis(200),
                every: 2,
            }),
            quickack: false,
            mss: 1000,
            sack: true,
            dsack: true,
            timestamps: false,
            ecn: EcnConfig::default(),
        })
    }

    fn blocks(r: &mut TcpReceiver, s: TcpData) -> Vec<(u64, u64)> {
        r.on_segment(SimTime::ZERO, &s)
            .0
            .unwrap()
            .sack
            .as_slice()
            .to_vec()
    }

    #[test]
    fn sack_blocks_put_the_latest_segment_first() {
        // 0 arrives; 1 lost; 2, 3 arrive; 4 lost; 5 arrives: blocks [5], [2, 4).
        let mut r = receiver(false);
        assert!(blocks(&mut r, seg(0, 1000)).is_empty());
        assert_eq!(blocks(&mut r, seg(2000, 1000)), vec![(2000, 3000)]);
        assert_eq!(blocks(&mut r, seg(3000, 1000)), vec![(2000, 4000)]);
        assert_eq!(
            blocks(&mut r, seg(5000, 1000)),
            vec![(5000, 6000), (2000, 4000)]
        );
        // Filling the first hole leaves one block.
        assert_eq!(blocks(&mut r, seg(1000, 1000)), vec![(5000, 6000)]);
    }

    #[test]
    fn at_most_four_blocks_or_three_with_timestamps() {
        let mut r = receiver(false);
        for k in 0..6 {
            r.on_segment(SimTime::ZERO, &seg(2000 * k + 1000, 1000));
        }
        assert_eq!(blocks(&mut r, seg(13_000, 1000)).len(), 4);
        r.cfg.timestamps = true;
        assert_eq!(blocks(&mut r, seg(15_000, 1000)).len(), 3);
    }

    #[test]
    fn dsack_reports_a_duplicate_first() {
        let mut r = receiver(false);
        r.on_segment(SimTime::ZERO, &seg(0, 2000));
        r.on_segment(SimTime::ZERO, &seg(3000, 1000));
        // A copy of [0, 1000) below rcv_nxt: D-SACK block, then the SACK block.
        assert_eq!(blocks(&mut r, seg(0, 1000)), vec![(0, 1000), (3000, 4000)]);
        // A copy of out-of-order data: D-SACK block, then its containing block.
        assert_eq!(
            blocks(&mut r, seg(3000, 1000)),
            vec![(3000, 4000), (3000, 4000)]
        );
        r.cfg.dsack = false;
        assert_eq!(blocks(&mut r, seg(0, 1000)), vec![(3000, 4000)]);
    }

    /// The ACK a segment [start, end) triggers: (cumulative ACK, SACK blocks).
    fn ack_sack(r: &mut TcpReceiver, start: u64, end: u64) -> (u64, Vec<(u64, u64)>) {
        let a = r
            .on_segment(SimTime::ZERO, &seg(start, (end - start) as u32))
            .0
            .unwrap();
        (a.ack, a.sack.as_slice().to_vec())
    }

    #[test]
    fn rfc2018_section5_case3_every_other_segment_lost() {
        // RFC 2018 §5, case 3: 500-byte segments from 5000; the 2nd, 4th, 6th and 8th
        // are dropped. The receiver's ACKs, as the RFC lists them:
        let mut r = receiver(false);
        r.on_segment(SimTime::ZERO, &seg(0, 5000));
        assert_eq!(ack_sack(&mut r, 5000, 5500), (5500, vec![]));
        assert_eq!(ack_sack(&mut r, 6000, 6500), (5500, vec![(6000, 6500)]));
        assert_eq!(
            ack_sack(&mut r, 7000, 7500),
            (5500, vec![(7000, 7500), (6000, 6500)])
        );
        assert_eq!(
            ack_sack(&mut r, 8000, 8500),
            (5500, vec![(8000, 8500), (7000, 7500), (6000, 6500)])
        );
        // "Suppose the 4th segment is received out of order": the merged block first.
        assert_eq!(
            ack_sack(&mut r, 6500, 7000),
            (5500, vec![(6000, 7500), (8000, 8500)])
        );
        // "Suppose the 2nd segment is received": the ACK advances over the merged block.
        assert_eq!(ack_sack(&mut r, 5500, 6000), (7500, vec![(8000, 8500)]));
    }

    #[test]
    fn rfc2883_section4_1_1_duplicate_below_the_cumulative_ack() {
        // RFC 2883 §4.1.1: the ACKs of 3000-3499 and 3500-3999 are lost, 3000-3499
        // is retransmitted: ACK 4000 with the D-SACK block 3000-3500.
        let mut r = receiver(false);
        r.on_segment(SimTime::ZERO, &seg(0, 3000));
        ack_sack(&mut r, 3000, 3500);
        ack_sack(&mut r, 3500, 4000);
        assert_eq!(ack_sack(&mut r, 3000, 3500), (4000, vec![(3000, 3500)]));
        assert_eq!(r.stats.duplicate_segments, 1);
    }

    #[test]
    fn rfc2883_section4_1_2_duplicate_then_the_sack_block() {
        // RFC 2883 §4.1.2: 4000-4499 is lost, 4500-4999 arrives (ACKs lost);
        // 3000-3499 is retransmitted: ACK 4000, D-SACK 3000-3500, then SACK 4500-5000.
        let mut r = receiver(false);
        r.on_segment(SimTime::ZERO, &seg(0, 3000));
        ack_sack(&mut r, 3000, 3500);
        ack_sack(&mut r, 3500, 4000);
        assert_eq!(ack_sack(&mut r, 4500, 5000), (4000, vec![(4500, 5000)]));
        assert_eq!(
            ack_sack(&mut r, 3000, 3500),
            (4000, vec![(3000, 3500), (4500, 5000)])
        );
    }

    #[test]
    fn rfc2883_section4_1_3_duplicate_of_out_of_order_data() {
        // RFC 2883 §4.1.3: 4000-4499 is lost, 4500-4999 and 5000-5499 arrive, then
        // 5000-5499 again: the D-SACK block, then the block containing it (§4 (2)).
        let mut r = receiver(false);
        r.on_segment(SimTime::ZERO, &seg(0, 3500));
        assert_eq!(ack_sack(&mut r, 3500, 4000), (4000, vec![]));
        assert_eq!(ack_sack(&mut r, 4500, 5000), (4000, vec![(4500, 5000)]));
        assert_eq!(ack_sack(&mut r, 5000, 5500), (4000, vec![(4500, 5500)]));
        assert_eq!(
            ack_sack(&mut r, 5000, 5500),
            (4000, vec![(5000, 5500), (4500, 5500)])
        );
        // With newer blocks, the containing block still comes second, then the rest
        // most recent first.
        ack_sack(&mut r, 6000, 6500);
        ack_sack(&mut r, 7000, 7500);
        assert_eq!(
            ack_sack(&mut r, 4500, 5000),
            (
                4000,
                vec![(4500, 5000), (4500, 5500), (7000, 7500), (6000, 6500)]
            )
        );
    }

    #[test]
    fn rfc2883_section4_2_1_a_single_duplicate_subsegment() {
        // RFC 2883 §4.2 example 4: 1000-1499 is delayed, 1500-1999 lost; the sender
        // retransmits 1000-1999 as one segment after the delayed one arrived. Only
        // the repeated half is reported (Linux `tcp_dsack_set(seq, rcv_nxt)`).
        let mut r = receiver(false);
        r.on_segment(SimTime::ZERO, &seg(0, 1000));
        assert_eq!(ack_sack(&mut r, 2000, 2500), (1000, vec![(2000, 2500)]));
        assert_eq!(ack_sack(&mut r, 1000, 1500), (1500, vec![(2000, 2500)]));
        assert_eq!(ack_sack(&mut r, 1000, 2000), (2500, vec![(1000, 1500)]));
        // With delayed ACKs, an in-order segment that repeats data is acknowledged
        // at once, so that the D-SACK is not held back.
        let mut d = receiver(true);
        d.on_segment(SimTime::ZERO, &seg(0, 1000));
        d.on_segment(SimTime::ZERO, &seg(1000, 1000));
        assert_eq!(ack_sack(&mut d, 1500, 2500), (2500, vec![(1500, 2000)]));
        d.cfg.dsack = false;
        assert_eq!(d.on_segment(SimTime::ZERO, &seg(2500, 1000)).0, None);
    }

    #[test]
    fn dsack_reports_the_overlap_with_an_out_of_order_block() {
        // A segment overlapping the start of an out-of-order block: D-SACK for the
        // overlap (Linux `tcp_data_queue_ofo`), then the merged block.
        let mut r = receiver(false);
        ack_sack(&mut r, 0, 3000);
        ack_sack(&mut r, 4000, 5000);
        assert_eq!(
            ack_sack(&mut r, 3500, 4500),
            (3000, vec![(4000, 4500), (3500, 5000)])
        );
        assert_eq!(r.stats.duplicate_segments, 0);
    }

    #[test]
    fn without_dsack_the_block_of_a_duplicate_comes_first() {
        // RFC 2018 §4: the first block holds the segment that triggered the ACK,
        // even when that segment repeats data already held.
        let mut r = receiver(false);
        r.cfg.dsack = false;
        ack_sack(&mut r, 1000, 2000);
        ack_sack(&mut r, 3000, 4000);
        assert_eq!(
            ack_sack(&mut r, 1000, 2000),
            (0, vec![(1000, 2000), (3000, 4000)])
        );
    }

    fn ack_of(r: &mut TcpReceiver, s: TcpData) -> Option<u64> {
        r.on_segment(SimTime::ZERO, &s).0.map(|a| a.ack)
    }

    #[test]
    fn out_of_order_data_gives_duplicate_acks_then_a_jump() {
        let mut r = receiver(false);
        assert_eq!(ack_of(&mut r, seg(0, 1000)), Some(1000));
        assert_eq!(ack_of(&mut r, seg(2000, 1000)), Some(1000));
        assert_eq!(ack_of(&mut r, seg(3000, 1000)), Some(1000));
        assert_eq!(ack_of(&mut r, seg(1000, 1000)), Some(4000));
        assert_eq!(r.stats.bytes_delivered, 4000);
    }

    #[test]
    fn delayed_ack_every_second_segment_or_on_timeout() {
        let mut r = receiver(true);
        assert_eq!(ack_of(&mut r, seg(0, 1000)), None);
        assert_eq!(r.delack_deadline(), SimTime::from_millis(200));
        assert_eq!(ack_of(&mut r, seg(1000, 1000)), Some(2000));
        assert_eq!(r.delack_deadline(), SimTime::MAX);
        assert_eq!(ack_of(&mut r, seg(2000, 1000)), None);
        assert_eq!(r.on_timer(SimTime::from_millis(199)), None);
        assert_eq!(
            r.on_timer(SimTime::from_millis(200)).map(|a| a.ack),
            Some(3000)
        );
    }

    #[test]
    fn delayed_ack_counts_bytes_as_linux() {
        // MSS 1000. A short segment (300 B) then a full one: 1300 B > 1000 B
        // unacknowledged, so the second is acknowledged at once (Linux
        // `__tcp_ack_snd_check`); counting only full-sized segments it would wait
        // for the timer. Three short ones: 900 B, not yet; the fourth, 1200 B.
        let mut r = receiver(true);
        assert_eq!(ack_of(&mut r, seg(0, 300)), None);
        assert_eq!(ack_of(&mut r, seg(300, 1000)), Some(1300));
        for k in 0..3 {
            assert_eq!(ack_of(&mut r, seg(1300 + 300 * k, 300)), None);
        }
        assert_eq!(ack_of(&mut r, seg(2200, 300)), Some(2500));
    }

    #[test]
    fn quick_acks_at_the_start_and_after_a_retransmission() {
        // MSS 1000, a 10 000 B window (never grows past the initial 10 segments):
        // the first data sets quick = 10 000 / (2 · 1000) = 5 (tcp_incr_quickack),
        // so segments 1–5 are acknowledged one by one, then every second one.
        let mut r = receiver(true);
        r.cfg.buffer = 10_000;
        r.cfg.quickack = true;
        let mut r = TcpReceiver::new(r.cfg);
        let acks: Vec<_> = (0..8)
            .map(|k| ack_of(&mut r, seg(1000 * k, 1000)))
            .collect();
        let expected = [1000, 2000, 3000, 4000, 5000].map(Some);
        assert_eq!(acks[..5], expected);
        assert_eq!(acks[5..], [None, Some(7000), None]);
        // A copy of old data: acknowledged at once (it always was), and quick =
        // min(10 000 / 2000, 16) = 5 again, less the ACK just sent: the next 4
        // segments go one by one.
        assert_eq!(ack_of(&mut r, seg(0, 1000)), Some(8000));
        let after: Vec<_> = (8..13)
            .map(|k| ack_of(&mut r, seg(1000 * k, 1000)))
            .collect();
        let expected = [9000, 10_000, 11_000, 12_000].map(Some);
        assert_eq!(after[..4], expected);
        assert_eq!(after[4], None);
    }

    #[test]
    fn delayed_ack_is_immediate_for_out_of_order_and_hole_filling() {
        let mut r = receiver(true);
        assert_eq!(ack_of(&mut r, seg(1000, 1000)), Some(0));
        assert_eq!(ack_of(&mut r, seg(0, 1000)), Some(2000));
    }

    #[test]
    fn overlapping_ranges_merge() {
        let mut r = receiver(false);
        for (s, l) in [(5000, 1000), (2000, 1000), (2500, 1000), (4000, 1000)] {
            ack_of(&mut r, seg(s, l));
        }
        assert_eq!(r.out_of_order, vec![(2000, 3500), (4000, 6000)]);
        assert_eq!(ack_of(&mut r, seg(0, 2000)), Some(3500));
    }

    /// A delayed-ACK receiver (every 2, 200 ms) that agreed to ECN; `quickack` for
    /// Linux's ACK rules, `needs_ecn` for DCTCP's echo.
    fn ecn_receiver(quickack: bool, needs_ecn: bool) -> TcpReceiver {
        let mut r = receiver(true);
        r.cfg.quickack = quickack;
        r.cfg.ecn = EcnConfig {
            setting: EcnSetting::Accept,
            needs_ecn,
        };
        let mut r = TcpReceiver::new(r.cfg);
        let setup = SynFlags {
            ece: true,
            cwr: true,
        };
        assert!(r.on_syn(setup).ece);
        r
    }

    fn marked(seq: u64, ecn: Ecn, cwr: bool) -> TcpData {
        TcpData {
            ecn,
            cwr,
            ..seg(seq, 1000)
        }
    }

    /// (ACK number, ECE) of the ACK a segment makes the receiver send now.
    fn ece_ack(r: &mut TcpReceiver, s: TcpData) -> Option<(u64, bool)> {
        r.on_segment(SimTime::ZERO, &s).0.map(|a| (a.ack, a.ece))
    }

    #[test]
    fn an_echo_waits_for_the_delayed_ack_without_linuxs_rules() {
        // RFC 3168 §6.1.3 alone: segment 1 arrives CE and waits like any other; the
        // ACK of segment 2 (every second) carries ECE, and so does the timer's
        // ACK of segment 3, until CWR arrives (segment 4, acknowledged with 5 as
        // usual, no ECE).
        let mut r = ecn_receiver(false, false);
        assert_eq!(ece_ack(&mut r, marked(0, Ecn::Ce, false)), None);
        assert_eq!(
            ece_ack(&mut r, marked(1000, Ecn::Ect0, false)),
            Some((2000, true))
        );
        assert_eq!(ece_ack(&mut r, marked(2000, Ecn::Ect0, false)), None);
        let timer = r.on_timer(SimTime::from_millis(200)).unwrap();
        assert!(timer.ece);
        assert_eq!(ece_ack(&mut r, marked(3000, Ecn::Ect0, true)), None);
        assert_eq!(
            ece_ack(&mut r, marked(4000, Ecn::Ect0, false)),
            Some((5000, false))
        );
        assert_eq!(r.stats.ce_received, 1);
    }

    #[test]
    fn linux_acks_the_first_ce_and_the_cwr_at_once() {
        // With the quick-ACK model, a window that never grows (buffer 2000 B: the
        // first data sets quick = max(2000 / 2000, …) = 1 for segment 0). Segment 1,
        // CE: quick-ACK mode for min(1, 2) = 1 more ACK, so it is acknowledged at
        // once, with ECE. Segment 2 waits. Segment 3 brings CWR: acknowledged at once,
        // without ECE.
        let mut r = ecn_receiver(true, false);
        r.cfg.buffer = 2000;
        let mut r = TcpReceiver::new(r.cfg);
        r.on_syn(SynFlags {
            ece: true,
            cwr: true,
        });
        assert_eq!(
            ece_ack(&mut r, marked(0, Ecn::Ect0, false)),
            Some((1000, false))
        );
        assert_eq!(
            ece_ack(&mut r, marked(1000, Ecn::Ce, false)),
            Some((2000, true))
        );
        assert_eq!(ece_ack(&mut r, marked(2000, Ecn::Ect0, false)), None);
        assert_eq!(
            ece_ack(&mut r, marked(3000, Ecn::Ect0, true)),
            Some((4000, false))
        );
    }

    #[test]
    fn dctcp_sends_the_ack_of_the_data_before_a_change_first() {
        // RFC 8257 §3.2 with delayed ACKs: segment 0 (ECT) waits. Segment 1 is CE: the
        // state changes with an ACK pending, so an ACK of 1000 without ECE goes first,
        // then the ACK of 2000 with ECE. Segment 2, CE: no change, it waits; segment
        // 3, ECT: a change: ACK of 3000 with ECE, then of 4000 without. DCTCP's ACKs
        // are ECT(0).
        let mut r = ecn_receiver(false, true);
        assert_eq!(ece_ack(&mut r, marked(0, Ecn::Ect0, false)), None);
        assert_eq!(r.take_ack_before(), None);
        let now = r.on_segment(SimTime::ZERO, &marked(1000, Ecn::Ce, false)).0;
        let before = r.take_ack_before().unwrap();
        assert_eq!(
            (before.ack, before.ece, before.ecn),
            (1000, false, Ecn::Ect0)
        );
        let now = now.unwrap();
        assert_eq!((now.ack, now.ece, now.ecn), (2000, true, Ecn::Ect0));
        assert_eq!(ece_ack(&mut r, marked(2000, Ecn::Ce, false)), None);
        assert_eq!(
            ece_ack(&mut r, marked(3000, Ecn::Ect0, false)),
            Some((4000, false))
        );
        assert_eq!(
            r.take_ack_before().map(|a| (a.ack, a.ece)),
            Some((3000, true))
        );
        assert_eq!(r.stats.acks_sent, 4);
    }

    #[test]
    fn timestamps_echo_the_segment_that_advanced_the_window() {
        let mut r = receiver(false);
        let mut s = seg(0, 1000);
        s.ts_val = Some(SimTime(5));
        let (a, _) = r.on_segment(SimTime(9), &s);
        assert_eq!(a.unwrap().ts_ecr, Some(SimTime(5)));
        // An out-of-order segment beyond Last.ACK.sent does not update TS.Recent.
        let mut o = seg(2000, 1000);
        o.ts_val = Some(SimTime(7));
        let (a, _) = r.on_segment(SimTime(10), &o);
        assert_eq!(a.unwrap().ts_ecr, Some(SimTime(5)));
    }
}
