//! The TCP sender: segmentation, the send window, ACK processing, RTT sampling
//! and the retransmission timer. Loss recovery is in `recovery.rs`; how the window
//! grows and shrinks is the congestion controller's business (`cc/`).
//!
//! References: RFC 9293 (TCP), RFC 5681 (congestion control), RFC 6298 (RTO),
//! RFC 7323 (timestamps). Sequence numbers are 64-bit byte offsets from 0 (no SYN
//! exchange is modelled: the connection is established at the flow's start time).
//!
//! RTT samples: without timestamps, every ACK of new data gives one sample unless
//! one of the segments it acknowledges was retransmitted (Karn's rule). The RTO
//! estimator takes the age of the oldest newly acknowledged segment; the
//! congestion controller, by default, that of the newest (the one that triggered
//! the ACK, free of delayed-ACK wait), as Linux after 2.6.20 (`last_ackt`); with
//! `cc_sample = "oldest"`, that of the oldest, as Linux 2.6.20's `rtt_sample` hook
//! (`cc_sample.rs`). With timestamps, the echoed TSval gives the RTO's sample,
//! retransmissions included (RFC 7323 §4); the controller's newest-segment sample
//! takes the echo only under Karn's rule (Linux `tcp_ack_update_rtt`: ACK timing
//! before TS-ECR), 2.6.20's never. With `rto.sample = "linux"` the RTO's sample is
//! Linux's too (`rto_sample`).
//!
//! Every transmission is stamped for delivery-rate estimation (`rate.rs`); a
//! controller with `cong_control` (BBR) gets a rate sample on every ACK, owns cwnd
//! through recovery, and is given Linux's in-flight count (`packets_in_flight`). A
//! controller that reports a pacing rate has its segments paced (`pacing.rs`): the
//! owner wakes the sender at `pacing_deadline()` when the pacing gate held it back.
//!
//! The application writes into a send buffer (`send_buffer.rs`) and the stack
//! pushes after each write; a new segment shorter than the MSS is subject to
//! Nagle's algorithm (`nagle.rs`). By default everything is written at once and
//! only a finite transfer's last segment is short (sent with the FIN, unheld).

use super::cc::{AckEvent, AckSample, CaEvent, CongestionControl, RateSample};
use super::cc_sample::CcSample;
use super::handshake::{Opened, RTO_AFTER_LOST_SYN};
use super::nagle::Nagle;
use super::pacing::Pacer;
use super::prr::Prr;
use super::rack::Rack;
use super::rate::{mark_app_limited, RateEstimator};
use super::recovery::{LossEpisode, Recovery, RepeatedTimeout};
use super::reordering::Reordering;
use super::rto::{RtoConfig, RtoEstimator, RttSample};
use super::sack::{SackUpdate, Scoreboard};
use super::send_buffer::{SendBuffer, WriteStep};
use super::spurious::UndoState;
use super::tcb::{CaState, Tcb};
use super::tlp::{pto_deadline, Tlp, TlpVerdict};
use crate::packet::{TcpAck, TcpData};
use crate::time::SimTime;

/// Parameters of a sender, from the scenario.
#[derive(Clone, Debug)]
pub struct SenderConfig {
    pub mss: u32,
    /// TCP/IP header bytes of a data segment (options included): a segment's IP
    /// packet is `len + header` bytes, the size pacing counts.
    pub header: u32,
    /// Initial window in segments.
    pub initial_window: u32,
    /// Duplicate ACKs that trigger a fast retransmit.
    pub dupthresh: u32,
    /// RFC 3042 limited transmit: a new segment on each of the first two duplicate
    /// ACKs (`recovery.rs`).
    pub limited_transmit: bool,
    /// RFC 3465 L: most segments one ACK adds in slow start.
    pub abc_limit: u32,
    pub recovery: Recovery,
    /// ssthresh on a repeated timer expiry: RFC 5681's or ns-2's (`recovery.rs`).
    pub repeated_timeout: RepeatedTimeout,
    pub timestamps: bool,
    /// Which newly acknowledged segment's age the congestion controller takes
    /// (`cc_sample.rs`).
    pub cc_sample: CcSample,
    /// Use the receiver's SACK blocks (RFC 2018 scoreboard; D-SACK blocks feed the
    /// RFC 3708 detector).
    pub sack: bool,
    /// Undo a reduction when D-SACKs show every retransmission of the episode was
    /// unnecessary (RFC 3708 detection, RFC 4015-style response; `spurious.rs`).
    pub dsack_undo: bool,
    /// Eifel detection of spurious retransmissions, and undo (RFC 3522; needs
    /// timestamps).
    pub eifel: bool,
    /// F-RTO detection of spurious timeouts, and undo (RFC 5682).
    pub frto: bool,
    /// RR-TCP's dupthresh adaptation (`reordering.rs`): (pef, pef step).
    pub adapt_dupthresh: Option<(f64, f64)>,
    /// RACK-TLP loss detection (RFC 8985; `rack.rs`, `tlp.rs`); needs the SACK
    /// flavour of recovery, whose IsLost rule it replaces.
    pub rack: bool,
    pub rto: RtoConfig,
    /// Bytes the application will hand over in all (`None`: unlimited).
    pub app_bytes: Option<u64>,
    /// Bytes per application write (`None`: one write of everything).
    pub write_size: Option<u64>,
    /// The kernel's `sk_sndbuf` (`socket_options::kernel_sndbuf`; `None`:
    /// unlimited).
    pub sndbuf: Option<u64>,
    /// Nagle's algorithm (TCP_NODELAY off).
    pub nagle: bool,
    /// Proportional Rate Reduction in fast recovery (RFC 6937, `prr.rs`).
    pub prr: bool,
}

/// Per-flow sender counters (each a column of the run summary, `results`).
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct SenderStats {
    /// Every transmission, retransmissions included.
    pub segments_sent: u64,
    pub bytes_sent: u64,
    pub segments_retransmitted: u64,
    pub bytes_retransmitted: u64,
    pub acks_received: u64,
    pub dup_acks: u64,
    pub fast_retransmits: u64,
    pub timeouts: u64,
    pub rtt_samples: u64,
    /// Reductions undone because a detector found them spurious (`spurious.rs`).
    pub spurious_undone: u64,
    /// Loss episodes every retransmission of which D-SACKs reported unnecessary
    /// (RFC 3708); counted whenever D-SACKs arrive, undone only with `dsack_undo`.
    pub spurious_dsack: u64,
    /// Loss episodes whose first retransmission Eifel found unnecessary (RFC 3522).
    pub spurious_eifel: u64,
    /// Timeouts F-RTO found spurious (RFC 5682).
    pub spurious_frto: u64,
    /// Timeouts a base dupthresh would have avoided (RR-TCP adaptation on).
    pub avoidable_timeouts: u64,
    /// Tail loss probes sent (RACK-TLP, RFC 8985 §7).
    pub loss_probes: u64,
    /// Sums for the means reported in the summary, in nanoseconds.
    #[serde(skip)]
    pub rtt_sum_ns: u128,
    #[serde(skip)]
    pub base_rto_sum_ns: u128,
}

/// What one cumulative ACK acknowledged (`pop_acked`).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Acked {
    pub count: u32,
    /// Send time of the first (oldest) segment.
    pub oldest: Option<SimTime>,
    /// Send time of the first segment neither SACKed before nor ever retransmitted.
    pub oldest_unsacked: Option<SimTime>,
    /// The latest send time among them.
    pub newest: Option<SimTime>,
    /// One of them was ever retransmitted.
    pub retransmitted: bool,
}

pub struct TcpSender {
    pub(super) cfg: SenderConfig,
    pub tcb: Tcb,
    pub(super) cc: Box<dyn CongestionControl>,
    pub(super) rto: RtoEstimator,
    /// The RFC 6675 scoreboard: segments outstanding, HighData, losses (`sack.rs`).
    pub(super) scoreboard: Scoreboard,
    /// Duplicate ACKs, `recover`, consecutive timeouts (`recovery.rs`).
    pub(super) episode: LossEpisode,
    /// The undo marker and the spurious-retransmission detectors (`spurious.rs`).
    pub(super) undo: UndoState,
    /// The controller owns cwnd through `cong_control` (see `cc/mod.rs`).
    pub(super) model_based: bool,
    /// RR-TCP's dupthresh adaptation, when on (`reordering.rs`).
    pub(super) reordering: Option<Reordering>,
    /// RACK and TLP, when on (`rack.rs`, `tlp.rs`).
    pub(super) rack: Option<Rack>,
    pub(super) tlp: Option<Tlp>,
    /// Delivery-rate estimator (`rate.rs`).
    pub(super) rate: RateEstimator,
    pub(super) pacer: Pacer,
    /// Without SACK, the segments duplicate ACKs report as having left the network
    /// (Linux's Reno `sacked_out` emulation): counted delivered, and out of the
    /// in-flight count that model-based controllers are given.
    pub(super) reno_sacked: u32,
    /// Without SACK, the segments above snd_una already counted delivered from
    /// duplicate ACKs. Unlike `reno_sacked` a timeout does not clear it: the
    /// cumulative ACK that later covers them must not count them again
    /// (draft-cheng-iccrg-delivery-rate-estimation §3: each segment is delivered
    /// once).
    pub(super) dup_delivered: u32,
    /// Segments limited transmit sent since the sender was last `Open`.
    pub(super) limited_sent: u32,
    /// Segments ever marked lost and the in-flight count when the ACK being processed arrived.
    ack_start: (u64, u32),
    /// `tcb.delivered` when the ACK being processed arrived: with SACK, what the ACK
    /// delivers (newly SACKed, or cumulatively acknowledged and not SACKed before)
    /// is the growth it earns (Linux `acked_sacked`).
    pub(super) delivered_at_ack: u64,
    /// snd_una and the segments ever marked lost when the ACK being processed arrived (PRR's "safe
    /// ACK").
    pub(super) una_at_ack: u64,
    pub(super) lost_at_ack: u64,
    /// Send time of the segment giving the ACK being processed its SACK RTT
    /// (`SackUpdate::first_sacked`).
    sack_rtt_sent: Option<SimTime>,
    /// PRR's counters for the current fast recovery, when `cfg.prr` (`prr.rs`).
    pub(super) prr: Option<Prr>,
    pub(super) peer_window: u64,
    /// The application's writes and the send buffer.
    app: SendBuffer,
    pub(super) nagle: Nagle,
    /// RTO deadline; `SimTime::MAX` when the timer is stopped.
    rto_deadline: SimTime,
    finished_at: Option<SimTime>,
    pub stats: SenderStats,
}

impl TcpSender {
    /// The congestion controller, for traces (`CongestionControl::info`).
    pub fn controller(&self) -> &dyn CongestionControl {
        self.cc.as_ref()
    }

    pub fn new(cfg: SenderConfig, cc: Box<dyn CongestionControl>) -> Self {
        let mut tcb = Tcb::new(cfg.mss, cfg.initial_window);
        tcb.abc_limit = cfg.abc_limit;
        tcb.header = cfg.header;
        TcpSender {
            model_based: cc.has_cong_control(),
            reordering: cfg
                .adapt_dupthresh
                .map(|(pef, step)| Reordering::new(cfg.dupthresh, pef, step)),
            rack: cfg.rack.then(Rack::default),
            tlp: cfg.rack.then(Tlp::default),
            rate: RateEstimator::default(),
            pacer: Pacer::default(),
            reno_sacked: 0,
            dup_delivered: 0,
            limited_sent: 0,
            ack_start: (0, 0),
            delivered_at_ack: 0,
            una_at_ack: 0,
            lost_at_ack: 0,
            sack_rtt_sent: None,
            prr: None,
            rto: RtoEstimator::new(cfg.rto),
            app: SendBuffer::new(cfg.write_size, cfg.sndbuf),
            nagle: Nagle::default(),
            tcb,
            cc,
            scoreboard: Scoreboard::default(),
            episode: LossEpisode::default(),
            undo: UndoState::default(),
            peer_window: u64::MAX,
            rto_deadline: SimTime::MAX,
            finished_at: None,
            stats: SenderStats::default(),
            cfg,
        }
    }

    pub fn recovery(&self) -> Recovery {
        self.cfg.recovery
    }

    pub fn rto(&self) -> SimTime {
        self.rto.rto()
    }

    pub fn rto_deadline(&self) -> SimTime {
        self.rto_deadline
    }

    /// When `on_timer` is next due: the retransmission timer, or RACK-TLP's
    /// reordering timer or probe timeout if earlier (Linux runs the three on one
    /// timer, `icsk_retransmit_timer`).
    pub fn timer_deadline(&self) -> SimTime {
        let reo = self.rack.as_ref().map_or(SimTime::MAX, |r| r.deadline);
        let pto = self.tlp.as_ref().map_or(SimTime::MAX, |t| t.deadline);
        self.rto_deadline.min(reo).min(pto)
    }

    /// When the pacing gate lets the sender go on (`SimTime::MAX`: not waiting).
    pub fn pacing_deadline(&self) -> SimTime {
        self.pacer.deadline()
    }

    /// The pacing timer fired at `now`.
    pub fn on_pacing_timer(&mut self, now: SimTime, out: &mut Vec<TcpData>) {
        if self.pacer.blocked && self.pacer.allows(now) {
            self.transmit(now, out);
        }
    }

    /// When every byte of a finite transfer was acknowledged.
    pub fn finished_at(&self) -> Option<SimTime> {
        self.finished_at
    }

    /// The application starts: without a send buffer limit all of its data (or
    /// an unlimited supply) is available at once, as in ns-2's FTP agent; with
    /// one, it writes until the buffer is full.
    pub fn start(&mut self, now: SimTime, out: &mut Vec<TcpData>) {
        self.app.start(self.cfg.app_bytes);
        self.cc.cwnd_event(&mut self.tcb, now, CaEvent::TxStart);
        self.transmit(now, out);
        self.run_application(now, out);
    }

    /// The connection opened (`handshake`): data starts with the SYN's RTT as the
    /// first measurement (RFC 6298 §2.2), or after a retransmitted SYN with an RTO
    /// of 3 s (§5.7).
    pub fn open(&mut self, now: SimTime, opened: Opened, out: &mut Vec<TcpData>) {
        match opened {
            Opened::Measured(rtt) => {
                self.rto.sample(rtt);
                if let Some(t) = &mut self.tlp {
                    t.on_rtt_sample();
                }
            }
            Opened::AfterRetransmission => self.rto.reinitialize(RTO_AFTER_LOST_SYN),
        }
        self.start(now, out);
    }

    /// The application stops: no new data beyond what was already sent.
    pub fn stop(&mut self) {
        self.app.stop(self.high_water());
    }

    /// `write()` calls the application completed.
    pub fn app_writes(&self) -> u64 {
        self.app.writes
    }

    /// The writer writes until it sleeps or is done, the stack pushing after
    /// each write (`tcp_sendmsg`; see `send_buffer.rs`).
    fn run_application(&mut self, now: SimTime, out: &mut Vec<TcpData>) {
        loop {
            match self
                .app
                .step(self.tcb.snd_una, self.high_water(), self.cfg.mss)
            {
                WriteStep::Completed => self.transmit(now, out),
                WriteStep::Blocked { push } => {
                    if push {
                        self.transmit(now, out);
                    }
                    return;
                }
                WriteStep::Idle => return,
            }
        }
    }

    /// Whether Nagle's algorithm holds a new segment of `len` bytes (`nagle.rs`):
    /// not once the application has written everything (the FIN).
    fn nagle_holds(&self, len: u32) -> bool {
        self.cfg.nagle
            && !self.app.all_written()
            && self
                .nagle
                .holds(len, self.cfg.mss, self.tcb.snd_una, self.high_water())
    }

    /// Sends what the windows allow: new data, or after a timeout the segments
    /// between snd_nxt and high_water again (go-back-N). The SACK flavour sends by
    /// pipe and NextSeg while recovering (RFC 6675); F-RTO sends nothing but its own
    /// probes until it has decided (RFC 5682).
    pub(super) fn transmit(&mut self, now: SimTime, out: &mut Vec<TcpData>) {
        self.pacer.blocked = false;
        if self.undo.frto_waiting() {
            return;
        }
        let paced = self.cc.metrics().pacing_rate.is_some();
        let recovering = matches!(self.tcb.ca_state, CaState::Recovery | CaState::Loss);
        if self.cfg.recovery == Recovery::Sack && recovering {
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
        let mss = self.cfg.mss as u64;
        // Model-based controllers: the segments duplicate ACKs announced gone are
        // not in flight (Linux `tcp_packets_in_flight`).
        // Under PRR, cwnd counts pipe: nothing that has left the network or is
        // presumed lost holds new data back.
        let left = if self.prr_active() {
            self.scoreboard
                .outstanding()
                .saturating_sub(self.packets_in_flight())
        } else if self.model_based && !self.cfg.sack {
            self.reno_sacked
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
            if !self.pacing_gate(now, paced) {
                break;
            }
            self.send_segment(now, seq, len as u32, out);
            self.tcb.snd_nxt = seq + len;
        }
    }

    /// Whether a segment may leave now; notes the wait when pacing holds it back.
    pub(super) fn pacing_gate(&mut self, now: SimTime, paced: bool) -> bool {
        if paced && !self.pacer.allows(now) {
            self.pacer.blocked = true;
            return false;
        }
        true
    }

    /// Rate estimation §3.4 (Linux `tcp_rate_check_app_limited`): less than a segment
    /// of new data, cwnd not filled and every lost segment resent.
    fn check_app_limited(&mut self) {
        let unsent = self.app.written().saturating_sub(self.high_water());
        if unsent >= u64::from(self.cfg.mss) {
            return;
        }
        let in_flight = self.packets_in_flight();
        if in_flight < self.tcb.cwnd && self.scoreboard.losses_repaired() {
            mark_app_limited(&mut self.tcb, in_flight);
        }
    }

    /// Segments in the network as Linux counts them (`tcp_packets_in_flight`):
    /// outstanding − SACKed − lost + retransmitted; without SACK, duplicate ACKs
    /// stand for SACKed segments (`reno_sacked`). For the SACK flavour outside `Open`
    /// this is RFC 6675's pipe (same definition).
    pub(super) fn packets_in_flight(&mut self) -> u32 {
        if self.tcb.ca_state == CaState::Open {
            return self.scoreboard.outstanding();
        }
        if self.cfg.recovery == Recovery::Sack {
            return self.update_lost().0 as u32;
        }
        let counted = self.scoreboard.in_flight();
        let left = if self.cfg.sack { 0 } else { self.reno_sacked };
        counted.saturating_sub(left)
    }

    /// Length of the next new segment, if the application, the receive window
    /// and Nagle's algorithm allow one.
    pub(super) fn new_data_len(&self) -> Option<u32> {
        let seq = self.high_water();
        let len = (self.cfg.mss as u64).min(self.app.written().saturating_sub(seq));
        let fits = seq + len - self.tcb.snd_una <= self.peer_window;
        (len > 0 && fits && !self.nagle_holds(len as u32)).then_some(len as u32)
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
        self.prr_on_sent();
        if let Some(rate) = self.cc.metrics().pacing_rate {
            self.pacer.on_sent(now, len + self.cfg.header, rate);
        }
        if retransmission {
            self.scoreboard.on_retransmitted(now, seq, tx);
            self.count_retransmission(now, seq);
            self.stats.segments_retransmitted += 1;
            self.stats.bytes_retransmitted += len as u64;
        } else {
            self.scoreboard.on_new_data(now, seq, len, tx);
            self.nagle.on_sent(seq, len, self.cfg.mss);
        }
        self.stats.segments_sent += 1;
        self.stats.bytes_sent += len as u64;
        // RFC 6298 (5.1): start the timer if it is not running.
        if self.rto_deadline == SimTime::MAX {
            self.rto_deadline = now + self.rto.rto();
        }
        if !retransmission {
            self.schedule_probe(now);
        }
        out.push(TcpData {
            seq,
            len,
            ts_val: self.cfg.timestamps.then_some(now),
            retransmission,
        });
    }

    /// Processes an ACK from the receiver.
    pub fn on_ack(&mut self, now: SimTime, ack: &TcpAck, out: &mut Vec<TcpData>) {
        self.stats.acks_received += 1;
        if ack.ack > self.high_water() {
            return; // acknowledges data never sent: not from this connection
        }
        if self.model_based {
            self.ack_start = (self.scoreboard.marked_lost(), self.packets_in_flight());
        }
        self.delivered_at_ack = self.tcb.delivered;
        self.una_at_ack = self.tcb.snd_una;
        self.lost_at_ack = self.scoreboard.marked_lost();
        let window_changed = ack.window != self.peer_window;
        self.peer_window = ack.window;
        if let Some(r) = &mut self.rack {
            r.begin_ack();
        }
        let sack = if self.cfg.sack && !ack.sack.is_empty() {
            self.process_sack(now, ack)
        } else {
            SackUpdate::default()
        };
        let rack_lost = self.rack_on_ack(now, ack, sack);
        self.tlp_on_ack(now, ack, sack, window_changed);
        self.sack_rtt_sent = sack.first_sacked.map(|(_, sent)| sent);
        if ack.ack <= self.tcb.snd_una {
            // An ACK that acknowledges nothing new gives the RTO only a SACK RTT.
            let acked = Acked::default();
            if let Some(r) = self.rto_sample(now, &acked, None) {
                self.take_rto_sample(r);
            }
        }
        if self.undo.frto_waiting() && self.frto_ack(now, ack, sack, window_changed, out) {
            return;
        }
        // RFC 6675 §2: an ACK bringing new SACK information is a duplicate
        // acknowledgment for the SACK flavour, whatever else it does.
        let sack_dupack = self.cfg.recovery == Recovery::Sack && sack.is_dupack();
        if ack.ack > self.tcb.snd_una {
            self.on_new_ack(now, ack, sack_dupack, out);
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
            self.on_dup_ack(now, sack_dupack, out);
            self.model_update(now, None, out);
        } else if sack_dupack && ack.ack == self.tcb.snd_una {
            self.on_dup_ack(now, true, out);
            self.model_update(now, None, out);
        } else {
            if self.model_based {
                // Nothing for the model; the sample of what it SACKed is dropped.
                self.rate.take_sample(&mut self.tcb, now);
            }
            if window_changed {
                self.transmit(now, out);
            }
        }
        // RACK found losses on an ACK that started no recovery by itself (RFC 8985
        // §6.2: the losses RACK marks start fast recovery).
        if rack_lost && matches!(self.tcb.ca_state, CaState::Open | CaState::Disorder) {
            self.enter_fast_retransmit(now, out);
        }
    }

    /// RFC 8985 §6.2 steps 2–5 on an ACK whose SACK blocks are applied: the
    /// segments it acknowledges cumulatively and had not SACKed are delivered
    /// too, then RACK marks losses among the rest. Returns whether it marked any.
    fn rack_on_ack(&mut self, now: SimTime, ack: &TcpAck, sack: SackUpdate) -> bool {
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
        let dupthresh = self.dupthresh();
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
    fn on_reordering_timer(&mut self, now: SimTime, out: &mut Vec<TcpData>) {
        if self.rack_detect_loss(now, 0) == 0 {
            return;
        }
        if matches!(self.tcb.ca_state, CaState::Open | CaState::Disorder) {
            self.enter_fast_retransmit(now, out);
        } else {
            self.transmit(now, out);
        }
    }

    /// RFC 8985 §7.4.2 on every ACK: whether it ends the probe episode, and whether
    /// the probe repaired a loss (then the window is reduced once).
    fn tlp_on_ack(&mut self, now: SimTime, ack: &TcpAck, sack: SackUpdate, window_changed: bool) {
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

    /// Arms the probe timeout when RFC 8985 §7.2 allows one: after new data is
    /// sent and on an ACK of new data, in `Open` with data in flight. (The RFC's
    /// "nothing SACKed" is checked when it fires: in `Open` it almost always holds,
    /// and the check costs a pass over the window.)
    fn schedule_probe(&mut self, now: SimTime) {
        let Some(tlp) = &mut self.tlp else {
            return;
        };
        let armable =
            self.tcb.ca_state == CaState::Open && self.scoreboard.high_water() > self.tcb.snd_una;
        let one_segment = self.scoreboard.outstanding() == 1;
        tlp.deadline = if armable && self.rto_deadline != SimTime::MAX {
            pto_deadline(now, self.tcb.srtt, one_segment, self.rto_deadline)
        } else {
            SimTime::MAX
        };
    }

    /// The probe timeout fired (RFC 8985 §7.3 `TLP_send_probe`): one new segment if
    /// the application and the receive window have one, else the highest segment
    /// sent again; then the retransmission timer, not the PTO, is re-armed. If the
    /// sender has left `Open` or SACKs arrived meanwhile, no PTO would be armed
    /// (§7.2): the retransmission timer runs on untouched, as Linux's
    /// `tcp_rearm_rto` keeps its expiry at the head's transmission + RTO.
    fn send_loss_probe(&mut self, now: SimTime, out: &mut Vec<TcpData>) {
        let Some(tlp) = &mut self.tlp else {
            return;
        };
        tlp.deadline = SimTime::MAX;
        let may_probe = tlp.may_probe();
        if self.high_water() == self.tcb.snd_una
            || self.tcb.ca_state != CaState::Open
            || self.scoreboard.any_sacked()
        {
            return;
        }
        if may_probe {
            let is_retrans = if let Some(len) = self.new_data_len() {
                let seq = self.high_water();
                self.send_segment(now, seq, len, out);
                self.tcb.snd_nxt = self.high_water();
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
                tlp.deadline = SimTime::MAX;
            }
        }
        self.rto_deadline = now + self.rto.rto();
    }

    /// A model-based controller's `cong_control` for the ACK being processed, then
    /// what its new window and pacing rate allow (nothing for other controllers).
    fn model_update(&mut self, now: SimTime, rtt: Option<SimTime>, out: &mut Vec<TcpData>) {
        if !self.model_based {
            return;
        }
        let (lost_before, prior_in_flight) = self.ack_start;
        let rs = RateSample {
            delivery: self.rate.take_sample(&mut self.tcb, now),
            rtt,
            losses: (self.scoreboard.marked_lost() - lost_before) as u32,
            prior_in_flight,
            in_flight: self.packets_in_flight(),
        };
        self.cc.cong_control(&mut self.tcb, now, &rs);
        self.transmit(now, out);
    }

    /// An ACK of new data. `sack_dupack`: it also carries new SACK information and
    /// the flavour is SACK (RFC 6675 §5: DupAcks is reset, then counts this ACK).
    pub(super) fn on_new_ack(
        &mut self,
        now: SimTime,
        ack: &TcpAck,
        sack_dupack: bool,
        out: &mut Vec<TcpData>,
    ) {
        self.check_eifel(now, ack);
        let prior_in_flight = self.tcb.flight_segments();
        let acked_bytes = ack.ack - self.tcb.snd_una;
        self.reordering_on_advance(ack.ack);
        let popped = self.pop_acked(now, ack.ack);
        let acked = popped.count;
        self.tcb.snd_una = ack.ack;
        self.tcb.snd_nxt = self.tcb.snd_nxt.max(ack.ack);
        if !self.cfg.sack && acked > 0 {
            // Linux `tcp_remove_reno_sacks`: the ACK covers the segments the
            // duplicates stood for (already counted delivered), all but the one it
            // was waiting for.
            let delivered = acked.saturating_sub(self.dup_delivered).max(1);
            self.rate.count_delivered(&mut self.tcb, now, delivered);
            self.reno_sacked -= self.reno_sacked.min(acked - 1);
            self.dup_delivered -= self.dup_delivered.min(acked - 1);
        }

        // The echo is TS.Recent, the TSval of the *oldest* segment a delayed ACK
        // covers (RFC 7323 §4.3): as the controller's sample it would add the
        // receiver's wait (one bottleneck serialization per held segment) to BBR's
        // RTprop and to every delay-based controller's base RTT, so the rules
        // prefer the ACK's own timing (`cc_sample.rs`).
        let echo_rtt = ack.ts_ecr.filter(|_| self.cfg.timestamps).map(|e| now - e);
        let cc_rtt = self.cfg.cc_sample.rtt(now, &popped, echo_rtt);
        if let Some(r) = self.rto_sample(now, &popped, echo_rtt) {
            self.take_rto_sample(r);
        }
        if let Some(r) = cc_rtt {
            self.tcb.min_rtt = self.tcb.min_rtt.min(r);
        }
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

        // RFC 6298 (5.2)/(5.3): stop the timer when all is acknowledged, else
        // restart it (NewReno's partial ACKs decide for themselves). The ACK that
        // ends fast recovery sets cwnd to ssthresh and does not grow it further.
        let was_recovering = self.tcb.ca_state == CaState::Recovery;
        let restart_timer = self.on_recovery_ack(now, ack.ack, acked, out);
        if self.tcb.snd_una == self.high_water() {
            self.rto_deadline = SimTime::MAX;
        } else if restart_timer {
            self.rto_deadline = now + self.rto.rto();
        }
        self.schedule_probe(now);
        if sack_dupack && matches!(self.tcb.ca_state, CaState::Open | CaState::Disorder) {
            self.episode.count_dupack();
            self.sack_loss_detection(now, out);
        }
        if self.model_based {
            self.model_update(now, cc_rtt, out);
        } else {
            if !was_recovering && self.tcb.ca_state != CaState::Recovery {
                let grown = self.acked_sacked(acked);
                self.cc.cong_avoid(&mut self.tcb, now, grown);
            }
            self.transmit(now, out);
        }
        if self.finished_at.is_none()
            && self.cfg.app_bytes.is_some()
            && self.app.all_written()
            && self.tcb.snd_una >= self.app.written()
        {
            self.finished_at = Some(now);
        }
        // Freed space wakes a writer asleep on a full buffer (`tcp_check_space`).
        if self.app.on_ack(self.tcb.snd_una) {
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
        if self.cfg.sack {
            (self.tcb.delivered - self.delivered_at_ack) as u32
        } else {
            acked
        }
    }

    /// Removes acknowledged segments (delivered, unless SACKed before); returns
    /// (count, oldest send time, newest send time, whether any of them had been
    /// retransmitted).
    fn pop_acked(&mut self, now: SimTime, ack: u64) -> Acked {
        let mut a = Acked::default();
        while let Some(s) = self.scoreboard.pop_acked(ack) {
            if !self.cfg.sack {
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

    /// The RTO estimator's sample from an ACK (`echo_rtt`: now − TSecr, given only
    /// for an ACK that advances snd_una).
    ///
    /// `"rfc7323"`: the echo with timestamps (RFC 7323 §4: unambiguous,
    /// retransmissions included), else the oldest newly acknowledged segment's age
    /// unless one of them was retransmitted (Karn's rule, RFC 6298 §3).
    ///
    /// `"linux"`: Linux (since 3.13) `tcp_clean_rtx_queue` and `tcp_ack_update_rtt`
    /// (net/ipv4/tcp_input.c), "Prefer RTT measured from ACK's timing to TS-ECR":
    /// `seq_rtt_us`, the age of the oldest cumulatively acknowledged segment neither
    /// SACKed before nor ever retransmitted, none if any acknowledged segment was
    /// ever retransmitted (`FLAG_RETRANS_DATA_ACKED`); else `sack_rtt_us`, the age of
    /// the lowest newly SACKed segment never retransmitted (`first_sackt`), which
    /// an ACK that acknowledges nothing new can give too; else the echo, only when
    /// the ACK advances snd_una (`FLAG_ACKED`).
    fn rto_sample(&self, now: SimTime, a: &Acked, echo_rtt: Option<SimTime>) -> Option<SimTime> {
        match self.cfg.rto.sample {
            RttSample::Rfc7323 => {
                let karn = (!a.retransmitted).then_some(a.oldest).flatten();
                echo_rtt.or(karn.map(|t| now - t))
            }
            RttSample::Linux => {
                let seq = (!a.retransmitted).then_some(a.oldest_unsacked).flatten();
                let sent = seq.or(self.sack_rtt_sent);
                sent.map(|t| now - t).or(echo_rtt)
            }
        }
    }

    /// Feeds an RTT sample to the RTO estimator (and TLP, SRTT, the counters).
    fn take_rto_sample(&mut self, r: SimTime) {
        self.rto.sample(r);
        if let Some(t) = &mut self.tlp {
            t.on_rtt_sample();
        }
        self.tcb.srtt = self.rto.srtt();
        self.stats.rtt_samples += 1;
        self.stats.rtt_sum_ns += r.as_nanos() as u128;
        self.stats.base_rto_sum_ns += self.rto.base_rto().as_nanos() as u128;
    }

    /// A timer fired at `now` (the owner calls this only when `now >=
    /// timer_deadline()`): RACK's reordering timer, the probe timeout, or the
    /// retransmission timer.
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<TcpData>) {
        if let Some(r) = self.rack.as_mut().filter(|r| r.deadline <= now) {
            r.deadline = SimTime::MAX;
            self.on_reordering_timer(now, out);
        }
        if self.tlp.as_ref().is_some_and(|t| t.deadline <= now) {
            self.send_loss_probe(now, out);
        }
        if self.rto_deadline > now {
            return;
        }
        self.rto_deadline = SimTime::MAX;
        if self.tcb.snd_una == self.high_water() {
            return;
        }
        self.on_retransmission_timeout(now, out);
        self.rto_deadline = now + self.rto.rto();
    }

    /// The RTO before backoff, for the PFTK comparison.
    pub fn base_rto(&self) -> SimTime {
        self.rto.base_rto()
    }

    pub fn high_water(&self) -> u64 {
        self.scoreboard.high_water()
    }
}
