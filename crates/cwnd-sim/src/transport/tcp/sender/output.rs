//! What the sender sends (Linux `tcp_write_xmit`, `tcp_xmit_retransmit_queue`):
//! by the window, or by pipe and NextSeg in SACK recovery, each segment through
//! the pacing gate, stamped for rate estimation and counted by every mechanism
//! that watches transmissions.

use super::TcpSender;
use crate::packet::TcpData;
use crate::time::SimTime;
use crate::transport::tcp::rate::mark_app_limited;
use crate::transport::tcp::recovery::Recovery;
use crate::transport::tcp::sack::{NextSeg, NextSegRound};
use crate::transport::tcp::tcb::CaState;

impl TcpSender {
    /// Sends what the windows allow: new data, or after a timeout the segments
    /// between snd_nxt and high_water again (go-back-N). The SACK flavour sends by
    /// pipe and NextSeg while recovering (RFC 6675); F-RTO sends nothing but its own
    /// probes until it has decided (RFC 5682).
    pub(super) fn transmit(&mut self, now: SimTime, out: &mut Vec<TcpData>) {
        self.pacer.on_transmit();
        if self.undo.frto_waiting() {
            return;
        }
        let paced = self.cc.metrics().pacing_rate.is_some();
        let recovering = matches!(self.tcb.ca_state, CaState::Recovery | CaState::Loss);
        if self.recovery.flavour() == Recovery::Sack && recovering {
            self.sack_transmit(now, paced, out);
        } else {
            self.window_transmit(now, paced, out);
        }
        if self.model_based {
            self.check_app_limited();
        }
    }

    /// Sends by the window (everything but SACK recovery).
    fn window_transmit(&mut self, now: SimTime, paced: bool, out: &mut Vec<TcpData>) {
        let mss = u64::from(self.tcb.mss);
        // Model-based controllers: the segments duplicate ACKs announced gone are
        // not in flight (Linux `tcp_packets_in_flight`).
        // Under PRR, cwnd counts pipe: nothing that has left the network or is
        // presumed lost holds new data back.
        let left = if self.reduction.active(self.tcb.ca_state) {
            self.scoreboard
                .outstanding()
                .saturating_sub(self.packets_in_flight())
        } else if self.model_based {
            self.reno_sacks.sacked()
        } else {
            0
        };
        loop {
            let seq = self.tcb.snd_nxt;
            let len = if seq < self.high_water() {
                match self.scoreboard.segment_at(seq) {
                    Some(s) if s.sacked => {
                        // Go-back-N skips what the receiver reported holding
                        // (RFC 6675 §5.1).
                        self.tcb.snd_nxt = s.seq + s.len as u64;
                        continue;
                    }
                    Some(s) => s.len as u64,
                    None => 0,
                }
            } else {
                mss.min(self.app.written().saturating_sub(seq))
            };
            if len == 0 || (seq >= self.high_water() && self.nagle_holds(len as u32)) {
                self.tcb.cwnd_limited = false;
                break;
            }
            // cwnd counts segments, whatever their size (Linux `tcp_cwnd_test`);
            // the peer's window counts bytes (`tcp_snd_wnd_test`). With full
            // segments this is the byte rule flight + len <= cwnd × MSS.
            let in_flight = self.scoreboard.segments_below(seq);
            if in_flight >= self.tcb.cwnd + left || self.tcb.flight_bytes() + len > self.peer_window
            {
                self.tcb.cwnd_limited = (self.tcb.cwnd as u64 * mss) <= self.peer_window;
                break;
            }
            if !self.pacer.gate(now, paced) {
                break;
            }
            self.send_segment(now, seq, len as u32, out);
            self.tcb.snd_nxt = seq + len;
        }
    }

    /// RFC 6675 step (C): while cwnd − pipe ≥ 1 segment, send the segment NextSeg()
    /// names (when the pacing gate, if `paced`, lets it go).
    fn sack_transmit(&mut self, now: SimTime, paced: bool, out: &mut Vec<TcpData>) {
        let (mut pipe, mut round) = self.update_lost();
        let cwnd = u64::from(self.tcb.cwnd);
        self.tcb.cwnd_limited = true;
        while cwnd > pipe {
            let next = self.scoreboard.next_seg(&mut round, || self.new_data_len());
            let Some(next) = next else {
                self.tcb.cwnd_limited = false;
                break;
            };
            if !self.pacer.gate(now, paced) {
                break;
            }
            match next {
                NextSeg::Retransmit { seq, len } => self.send_segment(now, seq, len, out),
                NextSeg::NewData { len, .. } => self.send_new_data(now, len, out),
            }
            pipe += 1;
        }
    }

    /// IsLost for every segment and SetPipe (RFC 6675 §4). Returns pipe (in
    /// segments) and a NextSeg round. With RACK, RACK's marks replace IsLost (RFC
    /// 8985 §6.2).
    pub(super) fn update_lost(&mut self) -> (u64, NextSegRound) {
        let dupthresh = if self.rack.is_some() {
            u64::MAX
        } else {
            u64::from(self.dupthresh.current())
        };
        self.scoreboard.mark_lost_and_pipe(dupthresh, self.tcb.mss)
    }

    /// Rate estimation §3.4 (Linux `tcp_rate_check_app_limited`): less than a segment
    /// of new data, cwnd not filled and every lost segment resent.
    fn check_app_limited(&mut self) {
        let unsent = self.app.written().saturating_sub(self.high_water());
        if unsent >= u64::from(self.tcb.mss) {
            return;
        }
        let in_flight = self.packets_in_flight();
        if in_flight < self.tcb.cwnd && self.scoreboard.losses_repaired() {
            mark_app_limited(&mut self.tcb, in_flight);
        }
    }

    /// Segments in the network as Linux counts them (`tcp_packets_in_flight`):
    /// outstanding − SACKed − lost + retransmitted; without SACK, duplicate ACKs
    /// stand for SACKed segments (`reno_sack.rs`). For the SACK flavour outside
    /// `Open` this is RFC 6675's pipe (same definition).
    pub(super) fn packets_in_flight(&mut self) -> u32 {
        if self.tcb.ca_state == CaState::Open {
            return self.scoreboard.outstanding();
        }
        if self.recovery.flavour() == Recovery::Sack {
            return self.update_lost().0 as u32;
        }
        let counted = self.scoreboard.in_flight();
        counted.saturating_sub(self.reno_sacks.sacked())
    }

    /// Whether Nagle's algorithm holds a new segment of `len` bytes (`nagle.rs`):
    /// not once the application has written everything (the FIN).
    fn nagle_holds(&self, len: u32) -> bool {
        let fin = self.app.all_written();
        let (mss, snd_una) = (self.tcb.mss, self.tcb.snd_una);
        self.nagle.holds(len, mss, snd_una, self.high_water(), fin)
    }

    /// Length of the next new segment, if the application, the receive window
    /// and Nagle's algorithm allow one.
    pub(super) fn new_data_len(&self) -> Option<u32> {
        let seq = self.high_water();
        let len = u64::from(self.tcb.mss).min(self.app.written().saturating_sub(seq));
        let fits = seq + len - self.tcb.snd_una <= self.peer_window;
        (len > 0 && fits && !self.nagle_holds(len as u32)).then_some(len as u32)
    }

    /// Sends `len` bytes of new data, at the high-water mark (`new_data_len`).
    pub(super) fn send_new_data(&mut self, now: SimTime, len: u32, out: &mut Vec<TcpData>) {
        let seq = self.high_water();
        self.send_segment(now, seq, len, out);
        self.tcb.snd_nxt = self.high_water();
    }

    /// Resends the first unacknowledged segment, presumed lost (Linux marks the head
    /// lost for a sender without SACK: `tcp_mark_head_lost`).
    pub(super) fn retransmit_first_unacked(&mut self, now: SimTime, out: &mut Vec<TcpData>) {
        self.scoreboard.mark_head_lost();
        if let Some(&head) = self.scoreboard.first_unacked() {
            self.send_segment(now, head.seq, head.len, out);
        }
    }

    /// Under PRR, the window flavours resend the first unacknowledged segment,
    /// marked lost and not yet resent, if pipe < cwnd (Linux
    /// `tcp_xmit_retransmit_queue`).
    pub(super) fn prr_retransmit_head(&mut self, now: SimTime, out: &mut Vec<TcpData>) {
        let Some(&head) = self.scoreboard.first_unacked() else {
            return;
        };
        if head.lost && !head.rexmit && self.packets_in_flight() < self.tcb.cwnd {
            self.send_segment(now, head.seq, head.len, out);
        }
    }

    /// Emits one segment starting at `seq` (a retransmission if below high_water).
    pub(super) fn send_segment(
        &mut self,
        now: SimTime,
        seq: u64,
        len: u32,
        out: &mut Vec<TcpData>,
    ) {
        let retransmission = seq < self.high_water();
        let tx = self
            .rate
            .on_send(&mut self.tcb, now, self.scoreboard.is_empty());
        self.reduction.on_sent(self.tcb.ca_state);
        if let Some(rate) = self.cc.metrics().pacing_rate {
            self.pacer.on_sent(now, len + self.tcb.header, rate);
        }
        if retransmission {
            self.scoreboard.on_retransmitted(now, seq, tx);
            self.undo.on_retransmission(now, seq);
            self.stats.segments_retransmitted += 1;
            self.stats.bytes_retransmitted += len as u64;
        } else {
            self.scoreboard.on_new_data(now, seq, len, tx);
            self.nagle.on_sent(seq, len, self.tcb.mss);
        }
        self.stats.segments_sent += 1;
        self.stats.bytes_sent += len as u64;
        let (ecn, cwr) = self.ecn.marks(retransmission);
        // RFC 6298 (5.1): start the timer if it is not running.
        self.timer.start_if_stopped(now);
        if !retransmission {
            self.schedule_probe(now);
        }
        out.push(TcpData {
            seq,
            len,
            ts_val: self.timestamps.then_some(now),
            retransmission,
            ecn,
            cwr,
        });
    }
}
