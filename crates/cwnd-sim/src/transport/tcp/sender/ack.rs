//! An ACK arrives (Linux `tcp_ack`): its SACK blocks onto the scoreboard, RACK and
//! TLP told, the cumulative acknowledgment applied with its RTT samples, then by
//! kind — new data, a duplicate, news of SACKed data only, a window update — loss
//! recovery (`sender/loss.rs`), its ECN echo (CWR), the controller's hooks and what
//! may be sent.

use super::TcpSender;
use crate::packet::{TcpAck, TcpData};
use crate::time::SimTime;
use crate::transport::tcp::cc::{AckEvent, AckSample, EcnEvent, RateSample};
use crate::transport::tcp::recovery::Recovery;
use crate::transport::tcp::rto::Acked;
use crate::transport::tcp::sack::{split_dsack, SackUpdate};
use crate::transport::tcp::tcb::CaState;

/// The sender when the ACK being processed arrived, as Linux's `tcp_ack` keeps it
/// in locals (`prior_snd_una`, `delivered`, `lost`, `prior_in_flight`, and the ACK's
/// `FLAG_ECE`). Kept until the next ACK: a reordering timer that starts fast
/// recovery in between reads it.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct AckStart {
    pub snd_una: u64,
    /// `tcb.delivered`: with SACK, what the ACK delivers (newly SACKed, or
    /// cumulatively acknowledged and not SACKed before) is the growth it earns
    /// (Linux `acked_sacked`), and PRR's DeliveredData.
    pub delivered: u64,
    /// Segments ever marked lost (PRR's "safe ACK", the rate sample's losses).
    pub lost: u64,
    /// Segments in flight, counted for a model-based controller only (it costs a
    /// pass over the window with SACK).
    pub in_flight: u32,
    /// The ACK echoes CE on a connection that uses ECN.
    pub ece: bool,
}

impl TcpSender {
    /// Processes an ACK from the receiver.
    pub fn on_ack(&mut self, now: SimTime, ack: &TcpAck, out: &mut Vec<TcpData>) {
        self.stats.acks_received += 1;
        if ack.ack > self.high_water() {
            return; // acknowledges data never sent: not from this connection
        }
        let lost = self.scoreboard.marked_lost();
        let in_flight = if self.model_based {
            self.packets_in_flight()
        } else {
            0
        };
        let ece = self.ecn.echoed(ack.ece);
        self.ack_start = AckStart {
            snd_una: self.tcb.snd_una,
            delivered: self.tcb.delivered,
            lost,
            in_flight,
            ece,
        };
        if ece {
            // Congestion is proven: the reduction under way is not to be undone
            // (Linux `tcp_fastretrans_alert` step A).
            self.tcb.prior_ssthresh = 0;
        }
        let window_changed = ack.window != self.peer_window;
        self.peer_window = ack.window;
        if let Some(r) = &mut self.rack {
            r.begin_ack();
        }
        let sack = if self.sack && !ack.sack.is_empty() {
            self.process_sack(now, ack)
        } else {
            SackUpdate::default()
        };
        let rack_lost = self.rack_on_ack(now, ack, sack);
        self.tlp_on_ack(now, ack, sack, window_changed);
        if ack.ack <= self.tcb.snd_una {
            // An ACK that acknowledges nothing new gives the RTO only a SACK RTT.
            let sack_sent = sack.first_sacked.map(|(_, sent)| sent);
            self.rto_sample(now, &Acked::default(), sack_sent, None);
        }
        if self.undo.frto_waiting() && self.frto_ack(now, ack, sack, window_changed, out) {
            return;
        }
        self.on_ack_by_kind(now, ack, sack, window_changed, out);
        // RACK found losses on an ACK that started no recovery by itself (RFC 8985
        // §6.2: the losses RACK marks start fast recovery).
        if rack_lost
            && matches!(
                self.tcb.ca_state,
                CaState::Open | CaState::Disorder | CaState::Cwr
            )
        {
            self.enter_fast_retransmit(now, out);
        }
        if ece {
            // A fast retransmit on this ACK saved it again; Linux's
            // `tcp_enter_recovery(sk, ece_ack)` leaves it 0.
            self.tcb.prior_ssthresh = 0;
        }
    }

    /// The ACK by what it acknowledges: new data, a duplicate (RFC 5681 §2; RFC
    /// 6675 §2 for the SACK flavour), or neither (a window update, or nothing).
    fn on_ack_by_kind(
        &mut self,
        now: SimTime,
        ack: &TcpAck,
        sack: SackUpdate,
        window_changed: bool,
        out: &mut Vec<TcpData>,
    ) {
        // RFC 6675 §2: an ACK bringing new SACK information is a duplicate
        // acknowledgment for the SACK flavour, whatever else it does.
        let sack_dupack = self.recovery.flavour() == Recovery::Sack && sack.is_dupack();
        if ack.ack > self.tcb.snd_una {
            self.on_new_ack(now, ack, sack, sack_dupack, out);
        } else if ack.ack == self.tcb.snd_una
            && self.high_water() > self.tcb.snd_una
            && !window_changed
        {
            // RFC 5681 §2 "duplicate acknowledgment": outstanding data, no new
            // data acknowledged, same window (pure ACKs carry no data).
            self.stats.dup_acks += 1;
            let event = AckEvent {
                acked_bytes: 0,
                duplicate: true,
            };
            self.cc.in_ack_event(&self.tcb, now, &event);
            self.ecn_ack_event(now, 0);
            self.on_dup_ack(now, sack_dupack, out);
            self.after_old_ack(now, out);
            self.model_update(now, None, out);
        } else if sack_dupack && ack.ack == self.tcb.snd_una {
            self.on_dup_ack(now, true, out);
            self.after_old_ack(now, out);
            self.model_update(now, None, out);
        } else {
            self.respond_to_echo(now);
            if self.model_based {
                // Nothing for the model; the sample of what it SACKed is dropped.
                self.rate.take_sample(&mut self.tcb, now);
            }
            if window_changed {
                self.transmit(now, out);
            }
        }
    }

    /// Update() (RFC 6675 §4): marks the segments the ACK's SACK blocks cover (each
    /// is delivered then, for rate estimation and RACK); a D-SACK block goes to the
    /// spurious-retransmission detector. Called before the cumulative ACK is
    /// applied (snd_una is still the prior value, as in Linux
    /// `tcp_sacktag_write_queue`).
    fn process_sack(&mut self, now: SimTime, ack: &TcpAck) -> SackUpdate {
        let (dsack, blocks) = split_dsack(ack.sack.as_slice(), ack.ack);
        if let Some((start, end)) = dsack {
            self.on_dsack(now, start, end);
        }
        let (rate, tcb, rack) = (&mut self.rate, &mut self.tcb, &mut self.rack);
        let mut update = self.scoreboard.apply_sack(blocks, ack.ack, |s| {
            rate.on_delivered(tcb, now, &s.tx, s.sent);
            if let Some(r) = rack {
                r.on_delivered(now, s, ack.ts_ecr);
            }
        });
        update.dsack_end = dsack.map(|(_, end)| end);
        update
    }

    /// An ACK of new data. `sack_dupack`: it also carries new SACK information and
    /// counts as a duplicate acknowledgment (RFC 6675 §5: DupAcks is reset, then
    /// counts this ACK).
    pub(super) fn on_new_ack(
        &mut self,
        now: SimTime,
        ack: &TcpAck,
        sack: SackUpdate,
        sack_dupack: bool,
        out: &mut Vec<TcpData>,
    ) {
        self.check_eifel(now, ack);
        let prior_in_flight = self.tcb.flight_segments();
        let acked_bytes = ack.ack - self.tcb.snd_una;
        self.dupthresh.on_advance(ack.ack, &self.scoreboard);
        let popped = self.pop_acked(now, ack.ack);
        let acked = popped.count;
        self.tcb.snd_una = ack.ack;
        self.tcb.snd_nxt = self.tcb.snd_nxt.max(ack.ack);
        if !self.sack && acked > 0 {
            let delivered = self.reno_sacks.on_cumulative_ack(acked);
            self.rate.count_delivered(&mut self.tcb, now, delivered);
        }
        let cc_rtt = self.take_rtt_samples(now, ack, &popped, sack);
        let sample = AckSample {
            acked,
            rtt: cc_rtt,
            in_flight: prior_in_flight,
        };
        self.cc.pkts_acked(&self.tcb, now, &sample);
        let event = AckEvent {
            acked_bytes,
            duplicate: false,
        };
        self.cc.in_ack_event(&self.tcb, now, &event);
        self.ecn_ack_event(now, acked_bytes);
        self.after_new_ack(now, acked, cc_rtt, sack_dupack, out);
    }

    /// The controller's ECN view of an ACK that acknowledged `acked_bytes`, on a
    /// connection that uses ECN (Linux `in_ack_event` with `CA_ACK_ECE`).
    fn ecn_ack_event(&mut self, now: SimTime, acked_bytes: u64) {
        if self.ecn.ok() {
            let event = EcnEvent::Ack {
                acked_bytes,
                ece: self.ack_start.ece,
                sent: self.high_water(),
            };
            self.cc.ecn_event(&mut self.tcb, now, event);
        }
    }

    /// After recovery processing of an ACK that acknowledged nothing new: its echo
    /// may start CWR; in CWR, PRR sets cwnd for what the ACK delivered, and what it
    /// allows goes out (a controller that owns cwnd sends after its
    /// `cong_control`).
    fn after_old_ack(&mut self, now: SimTime, out: &mut Vec<TcpData>) {
        self.respond_to_echo(now);
        if self.tcb.ca_state == CaState::Cwr && !self.model_based {
            self.prr_update();
            self.transmit(now, out);
        }
    }

    /// The rest of an ACK of `acked` new segments: recovery, the timers, growth,
    /// and what is sent and written next.
    fn after_new_ack(
        &mut self,
        now: SimTime,
        acked: u32,
        cc_rtt: Option<SimTime>,
        sack_dupack: bool,
        out: &mut Vec<TcpData>,
    ) {
        // RFC 6298 (5.2)/(5.3): stop the timer when all is acknowledged, else
        // restart it (NewReno's partial ACKs decide for themselves). The ACK that
        // ends fast recovery sets cwnd to ssthresh and does not grow it further.
        let was_recovering = self.tcb.ca_state == CaState::Recovery;
        let restart_timer = self.on_recovery_ack(now, acked, out);
        if self.tcb.snd_una == self.high_water() {
            self.timer.stop();
        } else if restart_timer {
            self.timer.restart(now);
        }
        self.schedule_probe(now);
        if sack_dupack
            && matches!(
                self.tcb.ca_state,
                CaState::Open | CaState::Disorder | CaState::Cwr
            )
        {
            self.recovery.count_dupack();
            self.sack_loss_detection(now, out);
        }
        self.respond_to_echo(now);
        if self.model_based {
            self.model_update(now, cc_rtt, out);
        } else {
            // Linux `tcp_cong_control`: in CWR the window is reduced, not grown.
            if self.tcb.ca_state == CaState::Cwr {
                self.prr_update();
            } else if !was_recovering && self.tcb.ca_state != CaState::Recovery {
                let grown = self.acked_sacked(acked);
                self.cc.cong_avoid(&mut self.tcb, now, grown);
            }
            self.transmit(now, out);
        }
        // The last byte acknowledged ends a finite transfer; freed space wakes a
        // writer asleep on a full buffer (`tcp_check_space`).
        if self.app.on_ack(now, self.tcb.snd_una) {
            self.run_application(now, out);
        }
    }

    /// The segments an ACK of `acked` segments earns window growth for. With SACK,
    /// only what it newly delivers: a segment SACKed earlier was counted then, so a
    /// cumulative ACK that covers a long SACKed run after a timeout does not count
    /// it again (Linux `tcp_ack` passes `acked_sacked`, the growth of
    /// `tp->delivered`, to `tcp_cong_avoid`; RFC 6675 §5 counts a SACKed segment
    /// as having left the network when it is SACKed). Without SACK, every segment
    /// the ACK covers (RFC 5681 §3.1, RFC 3465).
    fn acked_sacked(&self, acked: u32) -> u32 {
        if self.sack {
            (self.tcb.delivered - self.ack_start.delivered) as u32
        } else {
            acked
        }
    }

    /// Removes acknowledged segments (delivered, unless SACKed before); returns
    /// what they were (`Acked`).
    fn pop_acked(&mut self, now: SimTime, ack: u64) -> Acked {
        let mut a = Acked::default();
        while let Some(s) = self.scoreboard.pop_acked(ack) {
            if !self.sack {
                self.rate.sample(&s.tx, s.sent); // counted by the caller
            } else if !s.sacked {
                self.rate.on_delivered(&mut self.tcb, now, &s.tx, s.sent);
            }
            a.count += 1;
            a.oldest = a.oldest.or(Some(s.sent));
            if !s.sacked && !s.retransmitted {
                a.oldest_unsacked = a.oldest_unsacked.or(Some(s.sent));
            }
            a.newest = Some(a.newest.map_or(s.sent, |n: SimTime| n.max(s.sent)));
            a.retransmitted |= s.retransmitted;
        }
        a
    }

    /// The RTT samples of an ACK of new data that acknowledged `popped`: the RTO
    /// estimator's is taken here; the controller's (`cc_sample.rs`) is returned,
    /// and kept as `min_rtt`.
    fn take_rtt_samples(
        &mut self,
        now: SimTime,
        ack: &TcpAck,
        popped: &Acked,
        sack: SackUpdate,
    ) -> Option<SimTime> {
        // The echo is TS.Recent, the TSval of the *oldest* segment a delayed ACK
        // covers (RFC 7323 §4.3): as the controller's sample it would add the
        // receiver's wait (one bottleneck serialization per held segment) to BBR's
        // RTprop and to every delay-based controller's base RTT, so the rules
        // prefer the ACK's own timing (`cc_sample.rs`).
        let echo_rtt = ack.ts_ecr.filter(|_| self.timestamps).map(|e| now - e);
        let cc_rtt = self.cc_sample.rtt(now, popped, echo_rtt);
        let sack_sent = sack.first_sacked.map(|(_, sent)| sent);
        self.rto_sample(now, popped, sack_sent, echo_rtt);
        if let Some(r) = cc_rtt {
            self.tcb.min_rtt = self.tcb.min_rtt.min(r);
        }
        cc_rtt
    }

    /// The RTO estimator's sample from an ACK that acknowledged `a`
    /// (`RttSample::rtt`), if it gives one: fed to the estimator, and noted by
    /// TLP, SRTT and the counters. Inlined: out of line, it cost 9 more
    /// instructions per ACK (BENCHMARKS.md, "The sender's state owned").
    #[inline]
    fn rto_sample(
        &mut self,
        now: SimTime,
        a: &Acked,
        sack_sent: Option<SimTime>,
        echo_rtt: Option<SimTime>,
    ) {
        let rule = self.timer.sample_rule();
        let Some(r) = rule.rtt(now, a, sack_sent, echo_rtt) else {
            return;
        };
        self.timer.sample(r);
        if let Some(t) = &mut self.tlp {
            t.on_rtt_sample();
        }
        self.tcb.srtt = self.timer.srtt();
        self.stats.rtt_samples += 1;
        self.stats.rtt_sum_ns += r.as_nanos() as u128;
        self.stats.base_rto_sum_ns += self.timer.base_rto().as_nanos() as u128;
    }

    /// A model-based controller's `cong_control` for the ACK being processed, then
    /// what its new window and pacing rate allow (nothing for other controllers).
    fn model_update(&mut self, now: SimTime, rtt: Option<SimTime>, out: &mut Vec<TcpData>) {
        if !self.model_based {
            return;
        }
        let rs = RateSample {
            delivery: self.rate.take_sample(&mut self.tcb, now),
            rtt,
            losses: (self.scoreboard.marked_lost() - self.ack_start.lost) as u32,
            prior_in_flight: self.ack_start.in_flight,
            in_flight: self.packets_in_flight(),
        };
        self.cc.cong_control(&mut self.tcb, now, &rs);
        self.transmit(now, out);
    }
}
