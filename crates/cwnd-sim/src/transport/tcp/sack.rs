//! The SACK scoreboard and RFC 6675 loss recovery, and D-SACK-based undo.
//!
//! * Scoreboard (RFC 2018, RFC 6675 §3): a segment entirely inside a SACK block is
//!   marked SACKed. A block below the cumulative ACK, or inside the second block, is
//!   a D-SACK block (RFC 2883 §4) and marks nothing.
//! * IsLost (RFC 6675 §4): a segment with at least dupthresh SACKed segments above it
//!   is lost (segment granularity: every segment but the last is full-sized).
//! * Pipe (SetPipe): for every un-SACKed segment, 1 if not lost, plus 1 if it was
//!   retransmitted in this recovery.
//! * NextSeg: (1) the first lost segment not yet retransmitted in this recovery;
//!   (2) new data, if the receive window allows; (3) the first un-SACKed segment below
//!   the highest SACKed one not yet retransmitted. Rule (4), the rescue
//!   retransmission, is not modelled.
//! * Recovery (§5): entered on dupthresh duplicate ACKs or when the first
//!   unacknowledged segment IsLost — unless that segment's retransmission from the
//!   previous episode is still in flight; RecoveryPoint = highest sequence sent; ssthresh
//!   and cwnd from the controller; while cwnd − pipe ≥ 1 segment, send NextSeg; ends
//!   when the cumulative ACK reaches RecoveryPoint. No window inflation.
//!
//! D-SACK blocks go to the spurious-retransmission detector (`spurious.rs`).

use super::sender::TcpSender;
use super::tcb::CaState;
use crate::packet::{TcpAck, TcpData};
use crate::time::SimTime;

impl TcpSender {
    /// Marks SACKed segments and handles D-SACK blocks.
    pub(super) fn process_sack(&mut self, _now: SimTime, ack: &TcpAck) {
        let blocks = ack.sack.as_slice();
        for (i, &(start, end)) in blocks.iter().enumerate() {
            let dsack = end <= ack.ack
                || (i == 0 && blocks.get(1).is_some_and(|&(s, e)| s <= start && end <= e));
            if dsack {
                self.on_dsack(start, end);
                continue;
            }
            let first = self.sent.partition_point(|s| s.seq + s.len as u64 <= start);
            for s in self.sent.iter_mut().skip(first) {
                if s.seq >= end {
                    break;
                }
                if s.seq >= start && s.seq + s.len as u64 <= end {
                    s.sacked = true;
                }
            }
        }
    }

    /// Recomputes IsLost for every segment (one pass from the top).
    pub(super) fn update_lost(&mut self) {
        let mut sacked_above = 0;
        let dupthresh = self.cfg.dupthresh;
        for s in self.sent.iter_mut().rev() {
            if s.sacked {
                sacked_above += 1;
                s.lost = false;
            } else if sacked_above >= dupthresh {
                s.lost = true;
            }
        }
    }

    /// Whether the first unacknowledged segment IsLost.
    pub(super) fn head_is_lost(&mut self) -> bool {
        self.update_lost();
        self.sent.front().is_some_and(|s| s.lost)
    }

    /// SetPipe, in segments.
    fn pipe(&self) -> u64 {
        self.sent
            .iter()
            .filter(|s| !s.sacked)
            .map(|s| u64::from(!s.lost) + u64::from(s.rexmit_in_recovery))
            .sum()
    }

    /// NextSeg rules (1) and (3): the segment to retransmit, if any.
    fn next_retransmission(&self) -> Option<(u64, u32)> {
        let rule1 = self
            .sent
            .iter()
            .find(|s| s.lost && !s.sacked && !s.rexmit_in_recovery);
        if let Some(s) = rule1 {
            return Some((s.seq, s.len));
        }
        None
    }

    fn rule3(&self) -> Option<(u64, u32)> {
        let highest_sacked = self.sent.iter().rposition(|s| s.sacked)?;
        self.sent
            .iter()
            .take(highest_sacked)
            .find(|s| !s.sacked && !s.rexmit_in_recovery)
            .map(|s| (s.seq, s.len))
    }

    /// Sends while cwnd − pipe ≥ 1 segment (RFC 6675 §5 step 5).
    pub(super) fn sack_transmit(&mut self, now: SimTime, out: &mut Vec<TcpData>) {
        self.update_lost();
        let mut pipe = self.pipe();
        while (self.tcb.cwnd as u64) > pipe {
            if let Some((seq, len)) = self.next_retransmission() {
                self.send_segment(now, seq, len, out);
            } else if let Some(len) = self.new_data_len() {
                let seq = self.high_water();
                self.send_segment(now, seq, len, out);
                self.tcb.snd_nxt = self.high_water();
            } else if let Some((seq, len)) = self.rule3() {
                self.send_segment(now, seq, len, out);
            } else {
                break;
            }
            pipe += 1;
        }
    }

    /// Clears the per-recovery retransmission marks when an episode begins.
    pub(super) fn start_sack_recovery(&mut self) {
        for s in &mut self.sent {
            s.rexmit_in_recovery = false;
        }
        self.update_lost();
        if let Some(head) = self.sent.front_mut() {
            head.lost = true; // RFC 6675 §5 step 4.3: retransmit the first segment
        }
        self.tcb.snd_nxt = self.high_water();
        debug_assert_eq!(self.tcb.ca_state, CaState::Recovery);
    }
}
