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
//! Linux's too (`RttSample::rtt` in `rto.rs`).
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
//!
//! Layout, as Linux's `tcp_input.c`/`tcp_output.c` around the `tcp_cong.c` ops:
//! every mechanism owns its state and rules in a file of its own (`recovery.rs`
//! `LossRecovery`, `sack.rs` `Scoreboard`, `rto.rs` `RetransmitTimer`,
//! `spurious.rs` `UndoState`, `prr.rs` `CwndReduction`, `reordering.rs`
//! `Dupthresh`, `rack.rs`, `tlp.rs`, `rate.rs`, `pacing.rs`, `reno_sack.rs`,
//! `send_buffer.rs`, `nagle.rs`), none of which names the sender (checked by
//! `layering_tests.rs`); the sender holds one of each and sequences them:
//! `sender/ack.rs` an arriving ACK, `sender/loss.rs` loss detection and the
//! reductions, `sender/undo.rs` the spurious-retransmission responses,
//! `sender/rack_tlp.rs` RACK's and TLP's hooks and timers, `sender/output.rs`
//! what is sent.
//!
//! ECN (RFC 3168 §6.1; `ecn.rs` owns the agreement and the marks): an ACK that
//! echoes CE, read in `sender/ack.rs`, is passed to the controller
//! (`ecn_event`), and once recovery processing leaves the sender in `Open` or
//! `Disorder` it starts a reduction in `CaState::Cwr` (`sender/loss.rs`, Linux
//! `tcp_enter_cwr`): ssthresh from the controller, cwnd brought down by
//! `CwndReduction` as Linux does with PRR (at once to ssthresh without PRR, RFC
//! 3168 §6.1.2), no growth, loss detection as in `Open`, and the state held until
//! data sent after the reduction began is acknowledged, then cwnd = ssthresh. One
//! response per window: echoes in CWR, Recovery or Loss are part of the reduction
//! under way. A loss found in CWR carries its reduction on into fast recovery
//! (`tcp_enter_recovery`). An echo proves congestion, so the reduction it starts,
//! or one a loss starts on the same ACK, is never undone (Linux zeroes
//! `prior_ssthresh`). The next new data segment after any reduction carries CWR
//! (`sender/output.rs`).

mod ack;
mod loss;
mod output;
mod rack_tlp;
mod undo;

use self::ack::AckStart;
use super::cc::{CaEvent, CongestionControl};
use super::cc_sample::CcSample;
use super::ecn::{EcnConfig, SenderEcn, SynFlags};
use super::handshake::{Opened, RTO_AFTER_LOST_SYN};
use super::nagle::Nagle;
use super::pacing::Pacer;
use super::prr::CwndReduction;
use super::rack::Rack;
use super::rate::RateEstimator;
use super::recovery::{LossRecovery, Recovery, RepeatedTimeout};
use super::reno_sack::RenoSacks;
use super::reordering::Dupthresh;
use super::rto::{RetransmitTimer, RtoConfig};
use super::sack::Scoreboard;
use super::send_buffer::{SendBuffer, WriteStep};
use super::spurious::UndoState;
use super::tcb::Tcb;
use super::tlp::Tlp;
use crate::packet::TcpData;
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
    /// Proportional Rate Reduction in fast recovery and CWR (RFC 6937, `prr.rs`).
    pub prr: bool,
    /// This end's part in ECN (`ecn.rs`).
    pub ecn: EcnConfig,
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
    /// Window reductions for an ECN echo: CWR entered (RFC 3168 §6.1.2).
    pub ecn_reductions: u64,
    /// Window reductions for a loss: ssthresh lowered by a fast retransmit, a
    /// timeout or a loss a tail loss probe repaired (a loss found in CWR carries the
    /// echo's reduction on and is not counted).
    pub loss_reductions: u64,
    /// Sums for the means reported in the summary, in nanoseconds.
    #[serde(skip)]
    pub rtt_sum_ns: u128,
    #[serde(skip)]
    pub base_rto_sum_ns: u128,
}

pub struct TcpSender {
    /// What congestion controllers read and write (`tcb.rs`).
    pub tcb: Tcb,
    cc: Box<dyn CongestionControl>,
    /// The controller owns cwnd through `cong_control` (see `cc/mod.rs`).
    model_based: bool,
    /// The receiver's SACK blocks are read (RFC 2018).
    sack: bool,
    /// Segments carry timestamps and ACKs echo them (RFC 7323).
    timestamps: bool,
    /// Which newly acknowledged segment's age the controller takes (`cc_sample.rs`).
    cc_sample: CcSample,
    /// The receiver's advertised window in bytes (RFC 9293 SND.WND).
    peer_window: u64,
    /// The retransmission timer and its RTO estimator (`rto.rs`).
    timer: RetransmitTimer,
    /// Segments outstanding, HighData, SACKed and lost marks (`sack.rs`).
    scoreboard: Scoreboard,
    /// Without SACK, what duplicate ACKs stand for (`reno_sack.rs`).
    reno_sacks: RenoSacks,
    /// The flavour, the loss episode, limited transmit (`recovery.rs`).
    recovery: LossRecovery,
    /// PRR's window reduction in fast recovery (`prr.rs`).
    reduction: CwndReduction,
    /// The undo marker and the spurious-retransmission detectors (`spurious.rs`).
    undo: UndoState,
    /// dupthresh, RR-TCP's adaptation of it when on (`reordering.rs`).
    dupthresh: Dupthresh,
    /// RACK and TLP, when on (`rack.rs`, `tlp.rs`).
    rack: Option<Rack>,
    tlp: Option<Tlp>,
    /// Delivery-rate estimator (`rate.rs`).
    rate: RateEstimator,
    pacer: Pacer,
    /// The sender when the ACK being processed arrived (`sender/ack.rs`).
    ack_start: AckStart,
    /// The application's writes and the send buffer (`send_buffer.rs`).
    app: SendBuffer,
    nagle: Nagle,
    /// ECN's agreement, marks and CWR (`ecn.rs`).
    ecn: SenderEcn,
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
        let model_based = cc.has_cong_control();
        TcpSender {
            tcb,
            cc,
            model_based,
            sack: cfg.sack,
            timestamps: cfg.timestamps,
            cc_sample: cfg.cc_sample,
            peer_window: u64::MAX,
            timer: RetransmitTimer::new(cfg.rto),
            scoreboard: Scoreboard::default(),
            reno_sacks: RenoSacks::default(),
            recovery: LossRecovery::new(cfg.recovery, cfg.limited_transmit, cfg.repeated_timeout),
            reduction: CwndReduction::new(cfg.prr && !model_based),
            undo: UndoState::new(cfg.dsack_undo, cfg.eifel, cfg.frto),
            dupthresh: Dupthresh::new(cfg.dupthresh, cfg.adapt_dupthresh),
            rack: cfg.rack.then(Rack::default),
            tlp: cfg.rack.then(Tlp::default),
            rate: RateEstimator::default(),
            pacer: Pacer::default(),
            ack_start: AckStart::default(),
            app: SendBuffer::new(cfg.write_size, cfg.sndbuf, cfg.app_bytes),
            nagle: Nagle::new(cfg.nagle),
            ecn: SenderEcn::new(cfg.ecn),
            stats: SenderStats::default(),
        }
    }

    pub fn recovery(&self) -> Recovery {
        self.recovery.flavour()
    }

    /// The current dupthresh: adapted (RR-TCP), or the configured one.
    pub fn dupthresh(&self) -> u32 {
        self.dupthresh.current()
    }

    pub fn rto(&self) -> SimTime {
        self.timer.rto()
    }

    pub fn rto_deadline(&self) -> SimTime {
        self.timer.deadline()
    }

    /// When `on_timer` is next due: the retransmission timer, or RACK-TLP's
    /// reordering timer or probe timeout if earlier (Linux runs the three on one
    /// timer, `icsk_retransmit_timer`).
    pub fn timer_deadline(&self) -> SimTime {
        let reo = self.rack.as_ref().map_or(SimTime::MAX, |r| r.deadline());
        let pto = self.tlp.as_ref().map_or(SimTime::MAX, |t| t.deadline());
        self.timer.deadline().min(reo).min(pto)
    }

    /// When the pacing gate lets the sender go on (`SimTime::MAX`: not waiting).
    pub fn pacing_deadline(&self) -> SimTime {
        self.pacer.deadline()
    }

    /// The pacing timer fired at `now`.
    pub fn on_pacing_timer(&mut self, now: SimTime, out: &mut Vec<TcpData>) {
        if self.pacer.wakes(now) {
            self.transmit(now, out);
        }
    }

    /// When every byte of a finite transfer was acknowledged.
    pub fn finished_at(&self) -> Option<SimTime> {
        self.app.finished_at()
    }

    /// The application starts: without a send buffer limit all of its data (or
    /// an unlimited supply) is available at once, as in ns-2's FTP agent; with
    /// one, it writes until the buffer is full.
    pub fn start(&mut self, now: SimTime, out: &mut Vec<TcpData>) {
        self.app.start();
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
                self.timer.sample(rtt);
                if let Some(t) = &mut self.tlp {
                    t.on_rtt_sample();
                }
            }
            Opened::AfterRetransmission => self.timer.reinitialize(RTO_AFTER_LOST_SYN),
        }
        self.start(now, out);
    }

    /// The ECN flags of a SYN, the `first` or one sent again (`ecn.rs`).
    pub fn ecn_syn(&mut self, first: bool) -> SynFlags {
        self.ecn.syn(first)
    }

    /// The SYN-ACK's ECN flags: whether the connection uses ECN (`ecn.rs`).
    pub fn ecn_syn_ack(&mut self, flags: SynFlags) {
        self.ecn.on_syn_ack(flags);
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
                .step(self.tcb.snd_una, self.high_water(), self.tcb.mss)
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

    /// A timer fired at `now` (the owner calls this only when `now >=
    /// timer_deadline()`): RACK's reordering timer, the probe timeout, or the
    /// retransmission timer.
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<TcpData>) {
        if self.rack.as_mut().is_some_and(|r| r.timer_due(now)) {
            self.on_reordering_timer(now, out);
        }
        if self.tlp.as_ref().is_some_and(|t| t.deadline() <= now) {
            self.send_loss_probe(now, out);
        }
        if self.timer.deadline() > now {
            return;
        }
        self.timer.stop();
        if self.tcb.snd_una == self.high_water() {
            return;
        }
        self.on_retransmission_timeout(now, out);
        self.timer.restart(now);
    }

    /// One past the highest byte ever sent.
    pub fn high_water(&self) -> u64 {
        self.scoreboard.high_water()
    }
}

/// What tests set or read beyond the public interface.
#[cfg(test)]
impl TcpSender {
    /// RR-TCP's adaptation, when on.
    pub(super) fn reordering(&mut self) -> Option<&mut super::reordering::Reordering> {
        self.dupthresh.adaptation()
    }
}
