//! BBR v3: IETF draft-ietf-ccwg-bbr-04 (Cardwell, Swett, Beshay, 2025: the latest
//! revision found), and where the draft is silent the `google/bbr` v3 branch's
//! `net/ipv4/tcp_bbr.c` (`BBR_VERSION 3`), whose names this file uses (the draft
//! calls `inflight_hi` `inflight_longterm`, `inflight_lo` `inflight_shortterm`,
//! `bw_lo` `bw_shortterm`).
//!
//! The model (draft §4.5, Linux `bbr_update_model`):
//! ```text
//! max_bw      = max of the delivery-rate samples over the last 1–2 ProbeBW cycles
//! bw          = min(max_bw, bw_lo)                                        (1)
//! min_rtt     = min of the RTT samples over 10 s
//! BDP         = bw × min_rtt
//! pacing_rate = pacing_gain × bw × (1 − 1 %)                              (2)
//! cwnd        = min(cwnd_gain × BDP + 3 send quanta, inflight_hi, inflight_lo)  (3)
//! ```
//! States and gains (draft §4.3; Linux `bbr_update_gains`):
//! * Startup: pacing gain 4 ln 2 = 2.77 (Linux 710/256), cwnd gain 2. It ends when
//!   the bandwidth samples have not grown by 25 % in 3 rounds (`full_bw.rs`), or —
//!   v3's loss exit — at the end of a round of fast recovery with at least 6 loss
//!   events and a loss rate above 2 % (`full_bw.rs`).
//! * Drain: pacing gain 1/2.885 (Linux 88/256; the draft's 0.35), cwnd gain 2,
//!   until in flight is down to the BDP.
//! * ProbeBW (`probe_bw.rs`): Down (pacing 0.90), Cruise (1.0), Refill (1.0, one
//!   round), Up (1.25, cwnd gain 2.25), then Down again.
//! * ProbeRTT (v3's): every 5 s without a lower RTT sample (a 5 s filter beside the
//!   10 s one), cwnd = max(4, BDP/2) for 200 ms and a round; then ProbeBW's Cruise
//!   (or Startup if the pipe was never full).
//!
//! Congestion signals: the long-term bound `inflight_hi` (`probe_bw.rs`: cut to
//! max(in flight at the sample's send, 0.7 × target) when a probing round's loss
//! rate passes 2 %), the short-term bounds `inflight_lo`, `bw_lo` (`lower_bounds.rs`:
//! once per round with loss, outside probing, × 0.7 but not below the last round's
//! delivery) and the ECN response (`ecn_alpha`, `lower_bounds.rs`).
//!
//! Window (Linux `bbr_set_cwnd`): cwnd grows by the segments delivered toward the
//! target (3); once the pipe has been full it is cut down to it; at least 4; then
//! bounded by the model (`bound_cwnd_for_inflight_model`). v3 has no packet
//! conservation in recovery: loss lowers the bounds instead. Leaving a timeout's
//! Loss state restores the cwnd saved before it.
//!
//! Simplified, with the reason:
//! * The rate sample's `lost` and `tx_in_flight` are not given by the sender; they
//!   are estimated per ACK (`loss_sample.rs`), and the check that Linux makes at
//!   each lost segment (`bbr_skb_marked_lost`) is made at the ACK that reports it.
//! * No ECN signal reaches controllers yet: `on_ecn_round` holds the ECN response,
//!   tested, for the trait's ECN callback to call.
//! * As `bbr` (v1) here: no ACK-aggregation allowance, no TSO (the send quantum is
//!   the draft's §4.2.2), no earliest-departure-time correction of in flight (the
//!   pacer sends each segment at its time), the pacing rate in bytes of IP packets
//!   (what the pacer counts), no fast path (an optimisation: same result).
//!
//! Integer arithmetic as Linux (`../bbr_units.rs`): gains in 1/256, bandwidth in
//! segments per µs × 2^24.

mod full_bw;
mod loss_sample;
mod lower_bounds;
mod probe_bw;
mod probe_rtt;
mod window;

use serde::Deserialize;

use super::bbr_units::{self, BBR_UNIT, BW_UNIT};
use super::{seconds_or_nan, BbrMode as Mode, CaEvent, CcMetrics, CongestionControl, RateSample};
use crate::rng::RngStream;
use crate::time::SimTime;
use crate::transport::tcp::tcb::{CaState, Tcb, INFINITE_SSTHRESH};
use crate::units::Duration;
use loss_sample::LossHistory;
pub use lower_bounds::{ecn_alpha_update, ECN_ALPHA_INIT};
use probe_bw::{AckPhase, Phase};

/// Startup's pacing gain, 4 ln 2 = 2.77 (Linux `BBR_UNIT * 277 / 100 + 1`).
const STARTUP_PACING_GAIN: u32 = BBR_UNIT * 277 / 100 + 1;
/// Startup's cwnd gain, 2.
const STARTUP_CWND_GAIN: u32 = BBR_UNIT * 2;
/// Drain's pacing gain, 1/2.885 (Linux `bbr_drain_gain`).
const DRAIN_GAIN: u32 = BBR_UNIT * 1000 / 2885;
/// ProbeBW's cwnd gain, 2; Up adds a quarter (Linux `bbr_bw_probe_cwnd_gain` 1).
const CWND_GAIN: u32 = BBR_UNIT * 2;
const PROBE_UP_CWND_GAIN: u32 = CWND_GAIN + BBR_UNIT / 4;
/// Pace 1 % below the estimate (draft `BBRPacingMarginPercent`).
const PACING_MARGIN_PERCENT: u64 = 1;
/// ProbeRTT's cwnd: half the BDP (draft `BBRProbeRTTCwndGain`).
const PROBE_RTT_CWND_GAIN: u32 = BBR_UNIT / 2;
/// Segments kept in flight at least (draft `BBRMinPipeCwnd`).
const MIN_PIPE_CWND: u32 = 4;
/// "No bound": Linux's `~0U` for `inflight_hi`, `inflight_lo`, `bw_lo`.
const UNBOUNDED: u32 = u32::MAX;

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Bbr3Config {
    /// Window of the min_rtt filter. Default 10 s (draft `MinRTTFilterLen`).
    pub min_rtt_window: Duration,
    /// Time between ProbeRTTs without a lower RTT. Default 5 s (draft
    /// `ProbeRTTInterval`, Linux `bbr_probe_rtt_win_ms`).
    pub probe_rtt_interval: Duration,
    /// Least time at the ProbeRTT window. Default 200 ms (`ProbeRTTDuration`).
    pub probe_rtt_duration: Duration,
}

impl Default for Bbr3Config {
    fn default() -> Self {
        Bbr3Config {
            min_rtt_window: Duration(SimTime::from_secs(10)),
            probe_rtt_interval: Duration(SimTime::from_secs(5)),
            probe_rtt_duration: Duration(SimTime::from_millis(200)),
        }
    }
}

impl Bbr3Config {
    pub fn check(&self) -> Result<(), (String, String)> {
        if self.min_rtt_window.0 == SimTime::ZERO {
            return Err(("min_rtt_window".into(), "must be positive".into()));
        }
        if self.probe_rtt_interval.0 == SimTime::ZERO
            || self.probe_rtt_interval.0 > self.min_rtt_window.0
        {
            return Err((
                "probe_rtt_interval".into(),
                "must be positive and at most min_rtt_window".into(),
            ));
        }
        Ok(())
    }
}

pub struct Bbr3 {
    min_rtt_window: SimTime,
    probe_rtt_interval: SimTime,
    probe_rtt_duration: SimTime,
    rng: RngStream,

    mode: Mode,
    phase: Phase,
    ack_phase: AckPhase,
    pacing_gain: u32,
    cwnd_gain: u32,
    /// Bytes per second; `None` until the first transmission starts the model.
    pacing_rate: Option<u64>,
    has_seen_rtt: bool,
    initial_cwnd: u32,

    next_round_delivered: u64,
    round_start: bool,
    rounds_since_probe: u32,

    min_rtt: SimTime,
    min_rtt_stamp: SimTime,
    probe_rtt_min: SimTime,
    probe_rtt_min_stamp: SimTime,
    probe_rtt_done: Option<SimTime>,
    probe_rtt_round_done: bool,
    idle_restart: bool,

    /// Start of the ProbeBW phase (Linux `cycle_mstamp`).
    cycle_stamp: SimTime,
    /// Down/Cruise last this long at most before the next probe.
    probe_wait: SimTime,

    full_bw: u64,
    full_bw_count: u32,
    full_bw_now: bool,
    full_bw_reached: bool,

    /// max_bw's two windows, one per ProbeBW cycle (Linux `bw_hi[2]`).
    bw_hi: [u64; 2],
    bw_lo: u64,
    bw_latest: u64,
    inflight_hi: u32,
    inflight_lo: u32,
    inflight_latest: u32,

    loss_round_delivered: u64,
    loss_round_start: bool,
    loss_in_round: bool,
    loss_events_in_round: u32,
    ecn_in_round: bool,
    ecn_alpha: u32,
    startup_ecn_rounds: u32,
    losses: LossHistory,

    bw_probe_up_cnt: u32,
    bw_probe_up_acks: u32,
    bw_probe_up_rounds: u32,
    bw_probe_samples: bool,
    prev_probe_too_high: bool,
    stopped_risky_probe: bool,

    prior_cwnd: u32,
    prev_ca_state: CaState,
    restore_cwnd: bool,
    undo_bw_lo: u64,
    undo_inflight_lo: u32,
    undo_inflight_hi: u32,
}

impl Bbr3 {
    pub fn new(cfg: Bbr3Config, rng: RngStream) -> Self {
        Bbr3 {
            min_rtt_window: cfg.min_rtt_window.0,
            probe_rtt_interval: cfg.probe_rtt_interval.0,
            probe_rtt_duration: cfg.probe_rtt_duration.0,
            rng,
            mode: Mode::Startup,
            phase: Phase::Down,
            ack_phase: AckPhase::Init,
            pacing_gain: STARTUP_PACING_GAIN,
            cwnd_gain: STARTUP_CWND_GAIN,
            pacing_rate: None,
            has_seen_rtt: false,
            initial_cwnd: 0,
            next_round_delivered: 0,
            round_start: false,
            rounds_since_probe: 0,
            min_rtt: SimTime::MAX,
            min_rtt_stamp: SimTime::ZERO,
            probe_rtt_min: SimTime::MAX,
            probe_rtt_min_stamp: SimTime::ZERO,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            idle_restart: false,
            cycle_stamp: SimTime::ZERO,
            probe_wait: SimTime::ZERO,
            full_bw: 0,
            full_bw_count: 0,
            full_bw_now: false,
            full_bw_reached: false,
            bw_hi: [0; 2],
            bw_lo: u64::MAX,
            bw_latest: 0,
            inflight_hi: UNBOUNDED,
            inflight_lo: UNBOUNDED,
            inflight_latest: 0,
            loss_round_delivered: 0,
            loss_round_start: false,
            loss_in_round: false,
            loss_events_in_round: 0,
            ecn_in_round: false,
            ecn_alpha: ECN_ALPHA_INIT,
            startup_ecn_rounds: 0,
            losses: LossHistory::new(0),
            bw_probe_up_cnt: UNBOUNDED,
            bw_probe_up_acks: 0,
            bw_probe_up_rounds: 0,
            bw_probe_samples: false,
            prev_probe_too_high: false,
            stopped_risky_probe: false,
            prior_cwnd: 0,
            prev_ca_state: CaState::Open,
            restore_cwnd: false,
            undo_bw_lo: u64::MAX,
            undo_inflight_lo: UNBOUNDED,
            undo_inflight_hi: UNBOUNDED,
        }
    }

    /// Linux `bbr_init`, at the first transmission.
    fn init(&mut self, tcb: &Tcb, now: SimTime) {
        self.initial_cwnd = tcb.cwnd;
        self.next_round_delivered = tcb.delivered;
        // Sample loss rounds from the first full flight on (Linux `+ 1`).
        self.loss_round_delivered = tcb.delivered + 1;
        self.losses = LossHistory::new(tcb.delivered);
        self.min_rtt = tcb.min_rtt;
        self.probe_rtt_min = tcb.min_rtt;
        self.min_rtt_stamp = now;
        self.probe_rtt_min_stamp = now;
        self.init_pacing_rate_from_rtt(tcb);
    }

    /// The windowed max bandwidth (Linux `bbr_max_bw`), in `BW_UNIT`.
    fn max_bw(&self) -> u64 {
        self.bw_hi[0].max(self.bw_hi[1])
    }

    /// Eq. (1) (Linux `bbr_bw`).
    fn bw(&self) -> u64 {
        self.max_bw().min(self.bw_lo)
    }

    /// `bw` × `gain` × (1 − margin) in bytes per second of IP packets, at least 1
    /// (Linux v3 `bbr_rate_bytes_per_sec`).
    fn rate_bytes_per_sec(tcb: &Tcb, bw: u64, gain: u32, margin: u64) -> u64 {
        bbr_units::rate_bytes_per_sec(tcb, bw, gain, margin).max(1)
    }

    /// Startup's gain × cwnd / SRTT (1 ms before any RTT sample).
    fn init_pacing_rate_from_rtt(&mut self, tcb: &Tcb) {
        let (bw, seen) = bbr_units::initial_bw(tcb);
        self.has_seen_rtt |= seen;
        self.pacing_rate = Some(Self::rate_bytes_per_sec(
            tcb,
            bw,
            STARTUP_PACING_GAIN,
            PACING_MARGIN_PERCENT,
        ));
    }

    /// Eq. (2); before the pipe is full the rate only rises.
    fn set_pacing_rate(&mut self, tcb: &Tcb, bw: u64, gain: u32) {
        let rate = Self::rate_bytes_per_sec(tcb, bw, gain, PACING_MARGIN_PERCENT);
        if !self.has_seen_rtt && tcb.srtt.is_some() {
            self.init_pacing_rate_from_rtt(tcb);
        }
        if self.full_bw_reached || self.pacing_rate.is_none_or(|r| rate > r) {
            self.pacing_rate = Some(rate);
        }
    }

    fn is_probing_bandwidth(&self) -> bool {
        self.mode == Mode::Startup
            || (self.mode == Mode::ProbeBw && matches!(self.phase, Phase::Refill | Phase::Up))
    }

    /// Remembers the last good cwnd, for after a timeout or ProbeRTT.
    fn save_cwnd(&mut self, tcb: &Tcb) {
        let good = matches!(self.prev_ca_state, CaState::Open | CaState::Disorder);
        if good && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = tcb.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(tcb.cwnd);
        }
    }

    /// Linux `bbr_update_gains`.
    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (STARTUP_PACING_GAIN, STARTUP_CWND_GAIN),
            Mode::Drain => (DRAIN_GAIN, STARTUP_CWND_GAIN),
            Mode::ProbeBw if self.phase == Phase::Up => {
                (self.phase.pacing_gain(), PROBE_UP_CWND_GAIN)
            }
            Mode::ProbeBw => (self.phase.pacing_gain(), CWND_GAIN),
            Mode::ProbeRtt => (BBR_UNIT, BBR_UNIT),
        };
    }

    /// The packet-timed round (Linux `bbr_update_round_start`).
    fn update_round_start(&mut self, tcb: &Tcb, rs: &RateSample) {
        self.round_start = false;
        if rs.delivery.interval.is_some()
            && rs.delivery.prior_delivered >= self.next_round_delivered
        {
            self.next_round_delivered = tcb.delivered;
            self.round_start = true;
        }
    }

    /// A delivery-rate sample in `BW_UNIT`, rounded up (Linux
    /// `bbr_calculate_bw_sample`); 0 without a valid sample.
    fn bw_sample(rs: &RateSample) -> u64 {
        rs.delivery.interval.map_or(0, |interval| {
            let scaled = u128::from(rs.delivery.delivered) * BW_UNIT * 1000;
            scaled.div_ceil(u128::from(interval.as_nanos().max(1))) as u64
        })
    }

    /// Drain once the pipe is full; ProbeBW once in flight is down to the BDP.
    fn check_drain(&mut self, tcb: &Tcb, now: SimTime, rs: &RateSample) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            self.reset_congestion_signals();
        }
        if self.mode == Mode::Drain && rs.in_flight <= self.inflight(tcb, self.max_bw(), BBR_UNIT) {
            self.mode = Mode::ProbeBw;
            self.start_probe_down(tcb, now);
        }
    }

    /// Linux `bbr_note_loss`: a loss marks this round as lossy.
    fn note_loss(&mut self, tcb: &Tcb) {
        if !self.loss_in_round {
            self.loss_round_delivered = tcb.delivered;
        }
        self.loss_in_round = true;
    }
}

impl CongestionControl for Bbr3 {
    fn name(&self) -> &'static str {
        "bbr3"
    }

    /// Saves cwnd and the bounds (for undo); BBR keeps no slow-start threshold.
    fn ssthresh(&mut self, tcb: &Tcb, _now: SimTime) -> u32 {
        self.save_cwnd(tcb);
        self.undo_bw_lo = self.bw_lo;
        self.undo_inflight_lo = self.inflight_lo;
        self.undo_inflight_hi = self.inflight_hi;
        INFINITE_SSTHRESH
    }

    /// Not called: `cong_control` replaces it (`has_cong_control`).
    fn cong_avoid(&mut self, _tcb: &mut Tcb, _now: SimTime, _acked: u32) {}

    /// A spurious loss episode: the bounds it cut come back (Linux v3
    /// `bbr_undo_cwnd`), and Startup's full-pipe estimate starts over.
    fn undo_cwnd(&mut self, _tcb: &Tcb) -> u32 {
        self.reset_full_bw();
        self.loss_in_round = false;
        self.bw_lo = self.bw_lo.max(self.undo_bw_lo);
        self.inflight_lo = self.inflight_lo.max(self.undo_inflight_lo);
        self.inflight_hi = self.inflight_hi.max(self.undo_inflight_hi);
        self.prior_cwnd
    }

    /// Linux v3 `bbr_set_state`: a timeout restarts the full-pipe estimate and,
    /// outside probing, seeds inflight_lo with the window before it; leaving Loss
    /// restores that window.
    fn set_state(&mut self, tcb: &Tcb, _now: SimTime, new: CaState) {
        if new == CaState::Loss {
            self.prev_ca_state = CaState::Loss;
            self.reset_full_bw();
            if !self.is_probing_bandwidth() && self.inflight_lo == UNBOUNDED {
                self.inflight_lo = tcb.cwnd.max(self.prior_cwnd);
            }
        } else if self.prev_ca_state == CaState::Loss {
            self.restore_cwnd = true;
        }
    }

    fn cwnd_event(&mut self, tcb: &mut Tcb, now: SimTime, event: CaEvent) {
        if event != CaEvent::TxStart {
            return;
        }
        if self.pacing_rate.is_none() {
            self.init(tcb, now);
        }
        if tcb.app_limited.is_some() {
            self.idle_restart = true;
            if self.mode == Mode::ProbeBw {
                self.set_pacing_rate(tcb, self.bw(), BBR_UNIT);
            } else if self.mode == Mode::ProbeRtt {
                self.check_probe_rtt_done(tcb, now);
            }
        }
    }

    fn has_cong_control(&self) -> bool {
        true
    }

    /// Linux v3 `bbr_main` (without its fast path).
    fn cong_control(&mut self, tcb: &mut Tcb, now: SimTime, rs: &RateSample) {
        if rs.losses > 0 {
            self.note_loss(tcb);
        }
        let loss = self.losses.on_ack(
            rs.losses,
            tcb.delivered,
            rs.delivery.prior_delivered,
            rs.delivery.delivered,
        );
        self.update_round_start(tcb, rs);
        if self.round_start {
            self.rounds_since_probe = (self.rounds_since_probe + 1).min(0xff);
        }
        let sample_bw = Self::bw_sample(rs);
        self.update_latest_delivery_signals(tcb, rs, sample_bw);

        self.update_congestion_signals(tcb, rs, sample_bw);
        self.check_loss_too_high_in_startup(tcb, rs, &loss);
        self.check_full_bw_reached(rs, sample_bw);
        self.check_drain(tcb, now, rs);
        self.update_cycle_phase(tcb, now, rs, &loss, sample_bw);
        self.update_min_rtt(tcb, now, rs);

        self.update_gains();
        let bw = self.bw();
        self.set_pacing_rate(tcb, bw, self.pacing_gain);
        self.set_cwnd(tcb, rs, bw);
        self.bound_cwnd_for_inflight_model(tcb);

        self.advance_latest_delivery_signals(rs, sample_bw);
        self.prev_ca_state = tcb.ca_state;
    }

    fn metrics(&self) -> CcMetrics {
        CcMetrics {
            pacing_rate: self.pacing_rate,
        }
    }

    /// The model, as Linux v3's `bbr_get_info` reports it: mode (0 Startup, 1 Drain,
    /// 2 ProbeBW, 3 ProbeRTT), ProbeBW phase (0 Up, 1 Down, 2 Cruise, 3 Refill; NaN
    /// outside ProbeBW), bw (eq. 1), max_bw and bw_lo in bit/s of segments, min_rtt
    /// (s), inflight_hi and inflight_lo (segments; NaN while unbounded), the gains
    /// and ecn_alpha.
    fn info(&self, tcb: &Tcb, out: &mut Vec<(&'static str, f64)>) {
        let bps = |bw: u64| {
            if bw == u64::MAX {
                f64::NAN
            } else {
                bw as f64 / BW_UNIT as f64 * 1e6 * f64::from(tcb.mss) * 8.0
            }
        };
        let segments = |n: u32| {
            if n == UNBOUNDED {
                f64::NAN
            } else {
                f64::from(n)
            }
        };
        let phase = if self.mode == Mode::ProbeBw {
            f64::from(self.phase as u8)
        } else {
            f64::NAN
        };
        let gain = |g: u32| f64::from(g) / f64::from(BBR_UNIT);
        out.push(("mode", f64::from(self.mode as u8)));
        out.push(("phase", phase));
        out.push(("bw_bps", bps(self.bw())));
        out.push(("max_bw_bps", bps(self.max_bw())));
        out.push(("bw_lo_bps", bps(self.bw_lo)));
        out.push(("min_rtt", seconds_or_nan(self.min_rtt)));
        out.push(("inflight_hi", segments(self.inflight_hi)));
        out.push(("inflight_lo", segments(self.inflight_lo)));
        out.push(("pacing_gain", gain(self.pacing_gain)));
        out.push(("cwnd_gain", gain(self.cwnd_gain)));
        out.push(("ecn_alpha", gain(self.ecn_alpha)));
    }
}

#[cfg(test)]
mod tests;
