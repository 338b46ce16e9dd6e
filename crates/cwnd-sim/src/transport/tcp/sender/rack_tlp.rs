//! RACK-TLP in the sender (RFC 8985; Linux `tcp_recovery.c`,
//! `tcp_schedule_loss_probe`, `tcp_send_loss_probe`, `tcp_process_tlp_ack`): what
//! RACK's and TLP's rules (`rack.rs`, `tlp.rs`) are told on each ACK and
//! transmission, and what the sender does when their timers fire.

use super::TcpSender;
use crate::packet::{TcpAck, TcpData};
use crate::time::SimTime;
use crate::transport::tcp::cc::{CaEvent, EcnEvent};
use crate::transport::tcp::sack::SackUpdate;
use crate::transport::tcp::tcb::CaState;
use crate::transport::tcp::tlp::TlpVerdict;

impl TcpSender {
    /// RFC 8985 §6.2 steps 2–5 on an ACK whose SACK blocks are applied: the
    /// segments it acknowledges cumulatively and had not SACKed are delivered
    /// too, then RACK marks losses among the rest. Returns whether it marked any.
    pub(super) fn rack_on_ack(&mut self, now: SimTime, ack: &TcpAck, sack: SackUpdate) -> bool {
        let Some(rack) = &mut self.rack else {
            return false;
        };
        for s in self.scoreboard.acked_by(ack.ack).filter(|s| !s.sacked) {
            rack.on_delivered(now, s, ack.ts_ecr);
        }
        rack.on_ack_dsack(
            ack.ack.max(self.tcb.snd_una),
            self.scoreboard.high_water(),
            sack.dsack_end.is_some(),
        );
        let marked = self.rack_detect_loss(now, ack.ack);
        marked > 0
    }

    /// RACK's step 4–5 over the segments the cumulative ACK `ack` does not cover
    /// wholly (the others are being acknowledged): marks losses and arms the
    /// reordering timer.
    fn rack_detect_loss(&mut self, now: SimTime, ack: u64) -> u64 {
        let recovering = matches!(self.tcb.ca_state, CaState::Recovery | CaState::Loss);
        let segs_sacked = self.scoreboard.sacked_count();
        let dupthresh = self.dupthresh.current();
        let Some(rack) = &mut self.rack else {
            return 0;
        };
        let reo_wnd = rack.reo_wnd(recovering, segs_sacked, dupthresh, self.tcb.srtt);
        self.scoreboard
            .mark_lost_by(ack, |segments| rack.detect_loss(now, reo_wnd, segments))
    }

    /// RACK's reordering timer fired (RFC 8985 §6.2 `RACK_detect_loss_and_arm_timer`;
    /// Linux `tcp_rack_reo_timeout`): losses found start fast recovery, or are sent
    /// by the recovery under way.
    pub(super) fn on_reordering_timer(&mut self, now: SimTime, out: &mut Vec<TcpData>) {
        if self.rack_detect_loss(now, 0) == 0 {
            return;
        }
        if matches!(
            self.tcb.ca_state,
            CaState::Open | CaState::Disorder | CaState::Cwr
        ) {
            self.enter_fast_retransmit(now, out);
        } else {
            self.transmit(now, out);
        }
    }

    /// RFC 8985 §7.4.2 on every ACK: whether it ends the probe episode, and whether
    /// the probe repaired a loss (then the window is reduced once).
    pub(super) fn tlp_on_ack(
        &mut self,
        now: SimTime,
        ack: &TcpAck,
        sack: SackUpdate,
        window_changed: bool,
    ) {
        let (snd_una, high_water) = (self.tcb.snd_una, self.high_water());
        let Some(tlp) = &mut self.tlp else {
            return;
        };
        let pure_dupack =
            ack.ack == snd_una && high_water > snd_una && !window_changed && ack.sack.is_empty();
        if tlp.on_ack(ack.ack, sack.dsack_end, pure_dupack) == TlpVerdict::RepairedLoss {
            self.tlp_loss_response(now);
        }
    }

    /// A tail loss probe repaired a loss (RFC 8985 §7.4.2: "invoke congestion
    /// control to react to the loss event the probe has repaired"): one reduction,
    /// as Linux `tcp_process_tlp_ack` does by entering and completing CWR — ssthresh
    /// from the controller (told it is CWR's), cwnd = ssthresh (not for a controller
    /// that owns cwnd).
    fn tlp_loss_response(&mut self, now: SimTime) {
        self.stats.loss_reductions += 1;
        self.cc.ecn_event(&mut self.tcb, now, EcnEvent::EnterCwr);
        self.reduce_ssthresh(now);
        if !self.model_based {
            self.tcb.cwnd = self.tcb.ssthresh;
            self.tcb.cwnd_cnt = 0;
        }
        self.cc
            .cwnd_event(&mut self.tcb, now, CaEvent::CompleteRecovery);
    }

    /// Arms the probe timeout when RFC 8985 §7.2 allows one: after new data is
    /// sent and on an ACK of new data, in `Open` with data in flight. (The RFC's
    /// "nothing SACKed" is checked when it fires: in `Open` it almost always holds,
    /// and the check costs a pass over the window.)
    pub(super) fn schedule_probe(&mut self, now: SimTime) {
        let Some(tlp) = &mut self.tlp else {
            return;
        };
        let armable =
            self.tcb.ca_state == CaState::Open && self.scoreboard.high_water() > self.tcb.snd_una;
        let one_segment = self.scoreboard.outstanding() == 1;
        let rto = self.timer.is_running().then(|| self.timer.deadline());
        tlp.schedule(now, armable, self.tcb.srtt, one_segment, rto);
    }

    /// The probe timeout fired (RFC 8985 §7.3 `TLP_send_probe`): one new segment if
    /// the application and the receive window have one, else the highest segment
    /// sent again; then the retransmission timer, not the PTO, is re-armed. If the
    /// sender has left `Open` or SACKs arrived meanwhile, no PTO would be armed
    /// (§7.2): the retransmission timer runs on untouched, as Linux's
    /// `tcp_rearm_rto` keeps its expiry at the head's transmission + RTO.
    pub(super) fn send_loss_probe(&mut self, now: SimTime, out: &mut Vec<TcpData>) {
        let Some(tlp) = &mut self.tlp else {
            return;
        };
        tlp.stop();
        let may_probe = tlp.may_probe();
        if self.high_water() == self.tcb.snd_una
            || self.tcb.ca_state != CaState::Open
            || self.scoreboard.any_sacked()
        {
            return;
        }
        if may_probe {
            let is_retrans = if let Some(len) = self.new_data_len() {
                self.send_new_data(now, len, out);
                false
            } else {
                let last = self.scoreboard.last_sent().map(|s| (s.seq, s.len));
                if let Some((seq, len)) = last {
                    self.send_segment(now, seq, len, out);
                }
                true
            };
            self.stats.loss_probes += 1;
            if let Some(tlp) = &mut self.tlp {
                tlp.on_probe(self.scoreboard.high_water(), is_retrans);
                tlp.stop();
            }
        }
        self.timer.restart(now);
    }
}
