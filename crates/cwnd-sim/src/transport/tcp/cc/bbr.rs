//! BBR v1: Cardwell, Cheng, Gunn, Hassas Yeganeh & Jacobson, "BBR: Congestion-Based
//! Congestion Control", ACM Queue 14(5), 2016; IETF draft-cardwell-iccrg-bbr-
//! congestion-control-00 (2017); Linux `net/ipv4/tcp_bbr.c` as of 4.9–4.19 (v1).
//!
//! BBR models the path by two numbers and paces to them instead of reacting to loss:
//! ```text
//! BtlBw  = max over the last 10 round trips of the delivery rate samples     (1)
//! RTprop = min over the last 10 s of the RTT samples                          (2)
//! pacing_rate = pacing_gain × BtlBw                                           (3)
//! cwnd = cwnd_gain × BtlBw × RTprop + 3 × send_quantum                        (4)
//! ```
//! Rate samples come from the sender's delivery-rate estimator (`../rate.rs`); (1) is
//! a windowed max over packet-timed rounds (`windowed_max.rs`): a round ends when a
//! segment sent after the previous round ended is delivered. (2) is Linux's: the
//! smallest sample, replaced by any sample once it is 10 s old.
//!
//! States (draft §4.3, Linux `bbr_update_model`):
//! * STARTUP: pacing_gain = cwnd_gain = 2/ln 2 (Linux 739/256 ≈ 2.887: the smallest
//!   gain that doubles the sending rate every round). The pipe is full when BtlBw has
//!   not grown by 25 % for 3 non-app-limited rounds (`full_bw_reached`).
//! * DRAIN: pacing_gain = 1/high_gain (88/256), cwnd_gain = high_gain, until
//!   in-flight ≤ BtlBw × RTprop (+ quanta), then PROBE_BW.
//! * PROBE_BW: cwnd_gain = 2; pacing_gain cycles through 5/4, 3/4, 1, 1, 1, 1, 1, 1,
//!   one phase per RTprop; the 5/4 phase also lasts until in-flight reaches
//!   5/4 × BDP (or a loss), the 3/4 phase ends early once in-flight is down to the
//!   BDP. The first phase is drawn at random from all but the 3/4 one (Linux
//!   `CYCLE_LEN − 1 − prandom_u32_max(7)`, then advanced), from the flow's own random
//!   stream (`flows[i].cc`).
//! * PROBE_RTT: when RTprop has not been refreshed for 10 s (and the flow is not
//!   restarting from idle): cwnd = 4 segments until in-flight has been ≤ 4 for
//!   200 ms and one round; then RTprop's time is renewed, cwnd is restored to its
//!   prior value and BBR returns to PROBE_BW (or STARTUP if the pipe was never full).
//!
//! Window (Linux `bbr_set_cwnd`): cwnd grows by the segments delivered toward the
//! target (4); once the pipe has been full it is also cut down to it; at least 4. The
//! target rounds up to an even number and adds 2 in a probing (gain > 1) phase
//! (Linux); the send quantum is the draft's §4.2.2 rule (1 segment below 1.2 Mb/s, 2
//! below 24 Mb/s, else 1 ms of data up to 64 KB), Linux's `tso_segs_goal`.
//!
//! Pacing rate (Linux `bbr_set_pacing_rate`): (3) in bytes per second of whole IP
//! packets (MSS + TCP/IP headers, `tcp_mss_to_mtu`); before the pipe is full it only
//! ever rises. Initially 2.887 × cwnd / SRTT (1 ms before any RTT sample).
//!
//! Loss (draft §4.2.3.4, Linux `bbr_set_cwnd_to_recover_or_restore`): BBR does not cut
//! its model; `ssthresh` only saves cwnd (and returns "infinite"). On each ACK cwnd
//! drops by the segments newly marked lost; the first round of fast recovery follows
//! packet conservation (cwnd = in-flight + delivered); afterwards cwnd grows back
//! toward the target; leaving recovery (or a timeout's `Loss`) restores the saved
//! cwnd. A timeout sets cwnd = 1 (the sender does that, as Linux `tcp_enter_loss`)
//! and counts as the end of a round, resetting the full-pipe estimate's reference.
//!
//! Undo (Linux `bbr_undo_cwnd`): the window is left as it is (BBR did not reduce its
//! model), but the full-pipe detection starts over, since the slow-down was spurious.
//!
//! Integer arithmetic as Linux: gains in 1/256 (`BBR_UNIT`), bandwidth in segments
//! per µs × 2^24 (`BW_UNIT`), here computed from nanosecond intervals.
//!
//! Deviations from Linux v1: no long-term ("policer") bandwidth estimation
//! (`lt_bw`, which engages only at ≥ 20 % loss with a steady rate), no ACK-
//! aggregation allowance (added in 5.1), no TSO: the quantum only sizes cwnd, pacing
//! sends one segment at a time (`../pacing.rs`). "InitialCwnd" is the flow's initial
//! window (Linux uses its constant 10 where the draft says InitialCwnd). The model
//! starts at the flow's first data transmission: after the handshake with
//! `tcp.handshake` (Linux initialises it when the connection is established,
//! `tcp_init_transfer`), at the flow's start without one.
//! RTT samples come only from cumulative ACKs (Linux also takes one from SACKed
//! segments).
//!
//! Validation: unit tests below (filter, gains, target cwnd, pacing rate, every
//! state transition, recovery, PROBE_RTT); end to end in tests/cc_bbr.rs (fills a
//! clean path with a small queue, keeps its rate under 1 % random loss).

use rand::RngExt;
use serde::Deserialize;

use super::bbr_units::{self, BBR_UNIT, BW_UNIT};
use super::windowed_max::WindowedMax;
use super::{seconds_or_nan, CaEvent, CcMetrics, CongestionControl, RateSample};
use crate::rng::RngStream;
use crate::time::SimTime;
use crate::transport::tcp::rate::mark_app_limited;
use crate::transport::tcp::tcb::{CaState, Tcb, INFINITE_SSTHRESH};
use crate::units::Duration;

/// 2/ln 2 (Linux `BBR_UNIT * 2885 / 1000 + 1`).
const HIGH_GAIN: u32 = BBR_UNIT * 2885 / 1000 + 1;
/// 1/high_gain: drains STARTUP's queue in about one round.
const DRAIN_GAIN: u32 = BBR_UNIT * 1000 / 2885;
/// PROBE_BW pacing gains (draft §4.3.4.3).
const PACING_GAIN_CYCLE: [u32; 8] = [
    BBR_UNIT * 5 / 4,
    BBR_UNIT * 3 / 4,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
];
/// The first phase is drawn among the last 7 of the cycle (Linux `bbr_cycle_rand`).
const CYCLE_RAND: usize = 7;
/// Segments kept in flight at least, and in PROBE_RTT (draft `BBRMinPipeCwnd`).
const MIN_PIPE_CWND: u32 = 4;
/// Growth that counts as "still filling" in STARTUP: 25 %.
const FULL_BW_THRESH: u64 = (BBR_UNIT * 5 / 4) as u64;
/// Rounds without that growth that mean the pipe is full.
const FULL_BW_COUNT: u32 = 3;

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BbrConfig {
    /// cwnd_gain in PROBE_BW. Default 2 (draft and Linux `bbr_cwnd_gain`).
    pub cwnd_gain: f64,
    /// Window of the BtlBw filter, in round trips. Default 10 (Linux `CYCLE_LEN + 2`).
    pub bw_window_rounds: u64,
    /// Window of the RTprop filter. Default 10 s (`bbr_min_rtt_win_sec`).
    pub min_rtt_window: Duration,
    /// Least time at 4 segments in PROBE_RTT. Default 200 ms (`bbr_probe_rtt_mode_ms`).
    pub probe_rtt_duration: Duration,
}

impl Default for BbrConfig {
    fn default() -> Self {
        BbrConfig {
            cwnd_gain: 2.0,
            bw_window_rounds: 10,
            min_rtt_window: Duration(SimTime::from_secs(10)),
            probe_rtt_duration: Duration(SimTime::from_millis(200)),
        }
    }
}

impl BbrConfig {
    pub fn check(&self) -> Result<(), (String, String)> {
        if !(1.0..=16.0).contains(&self.cwnd_gain) {
            return Err(("cwnd_gain".into(), "must be between 1 and 16".into()));
        }
        if self.bw_window_rounds == 0 {
            return Err(("bw_window_rounds".into(), "must be at least 1".into()));
        }
        if self.min_rtt_window.0 == SimTime::ZERO {
            return Err(("min_rtt_window".into(), "must be positive".into()));
        }
        Ok(())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

pub struct Bbr {
    steady_cwnd_gain: u32,
    bw_window: u64,
    min_rtt_window: SimTime,
    probe_rtt_duration: SimTime,
    rng: RngStream,

    mode: Mode,
    pacing_gain: u32,
    cwnd_gain: u32,
    /// Bytes per second; `None` until the first transmission starts the model.
    pacing_rate: Option<u64>,
    has_seen_rtt: bool,
    initial_cwnd: u32,

    bw: WindowedMax,
    round_count: u64,
    next_round_delivered: u64,
    round_start: bool,

    min_rtt: SimTime,
    min_rtt_stamp: SimTime,
    probe_rtt_done: Option<SimTime>,
    probe_rtt_round_done: bool,
    idle_restart: bool,

    cycle_index: usize,
    cycle_stamp: SimTime,

    full_bw: u64,
    full_bw_count: u32,
    full_bw_reached: bool,

    prior_cwnd: u32,
    prev_ca_state: CaState,
    packet_conservation: bool,
    restore_cwnd: bool,
}

impl Bbr {
    pub fn new(cfg: BbrConfig, rng: RngStream) -> Self {
        Bbr {
            steady_cwnd_gain: (cfg.cwnd_gain * BBR_UNIT as f64).round() as u32,
            bw_window: cfg.bw_window_rounds,
            min_rtt_window: cfg.min_rtt_window.0,
            probe_rtt_duration: cfg.probe_rtt_duration.0,
            rng,
            mode: Mode::Startup,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            pacing_rate: None,
            has_seen_rtt: false,
            initial_cwnd: 0,
            bw: WindowedMax::default(),
            round_count: 0,
            next_round_delivered: 0,
            round_start: false,
            min_rtt: SimTime::MAX,
            min_rtt_stamp: SimTime::ZERO,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            idle_restart: false,
            cycle_index: 0,
            cycle_stamp: SimTime::ZERO,
            full_bw: 0,
            full_bw_count: 0,
            full_bw_reached: false,
            prior_cwnd: 0,
            prev_ca_state: CaState::Open,
            packet_conservation: false,
            restore_cwnd: false,
        }
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// BtlBw, eq. (1), in `BW_UNIT`.
    fn max_bw(&self) -> u64 {
        self.bw.get()
    }

    /// Linux `bbr_init`, at the first transmission.
    fn init(&mut self, tcb: &Tcb, now: SimTime) {
        self.initial_cwnd = tcb.cwnd;
        self.min_rtt_stamp = now;
        self.init_pacing_rate_from_rtt(tcb);
    }

    /// `bw` (BW_UNIT) × `gain` (BBR_UNIT) in bytes per second of IP packets.
    fn rate_bytes_per_sec(tcb: &Tcb, bw: u64, gain: u32) -> u64 {
        bbr_units::rate_bytes_per_sec(tcb, bw, gain, 0)
    }

    /// high_gain × cwnd / SRTT (1 ms before any RTT sample).
    fn init_pacing_rate_from_rtt(&mut self, tcb: &Tcb) {
        let (bw, seen) = bbr_units::initial_bw(tcb);
        self.has_seen_rtt |= seen;
        self.pacing_rate = Some(Self::rate_bytes_per_sec(tcb, bw, HIGH_GAIN));
    }

    fn set_pacing_rate(&mut self, tcb: &Tcb, bw: u64, gain: u32) {
        let rate = Self::rate_bytes_per_sec(tcb, bw, gain);
        if !self.has_seen_rtt && tcb.srtt.is_some() {
            self.init_pacing_rate_from_rtt(tcb);
        }
        if self.full_bw_reached || self.pacing_rate.is_none_or(|r| rate > r) {
            self.pacing_rate = Some(rate);
        }
    }

    /// Draft §4.2.2 send quantum, in segments.
    fn send_quantum(&self, tcb: &Tcb) -> u32 {
        bbr_units::send_quantum(self.pacing_rate, tcb.mss)
    }

    /// Eq. (4) with Linux's rounding (`bbr_target_cwnd`).
    fn target_cwnd(&self, tcb: &Tcb, bw: u64, gain: u32) -> u32 {
        if self.min_rtt == SimTime::MAX {
            return self.initial_cwnd;
        }
        let bdp = u128::from(bw) * u128::from(self.min_rtt.as_nanos());
        let unit = BW_UNIT * 1000;
        let mut cwnd = ((bdp * u128::from(gain)) >> 8).div_ceil(unit) as u32;
        cwnd += 3 * self.send_quantum(tcb);
        cwnd = (cwnd + 1) & !1;
        if self.mode == Mode::ProbeBw && gain > BBR_UNIT {
            cwnd += 2;
        }
        cwnd
    }

    /// Remembers the last good cwnd, for after recovery or PROBE_RTT.
    fn save_cwnd(&mut self, tcb: &Tcb) {
        // Linux: `prev_ca_state < TCP_CA_Recovery`.
        let good = matches!(
            self.prev_ca_state,
            CaState::Open | CaState::Disorder | CaState::Cwr
        );
        if good && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = tcb.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(tcb.cwnd);
        }
    }

    fn reset_startup_mode(&mut self) {
        self.mode = Mode::Startup;
        self.pacing_gain = HIGH_GAIN;
        self.cwnd_gain = HIGH_GAIN;
    }

    fn reset_probe_bw_mode(&mut self, tcb: &Tcb) {
        self.mode = Mode::ProbeBw;
        self.pacing_gain = BBR_UNIT;
        self.cwnd_gain = self.steady_cwnd_gain;
        let draw = self.rng.random_range(0..CYCLE_RAND);
        self.cycle_index = PACING_GAIN_CYCLE.len() - 1 - draw;
        self.advance_cycle_phase(tcb);
    }

    fn reset_mode(&mut self, tcb: &Tcb) {
        if self.full_bw_reached {
            self.reset_probe_bw_mode(tcb);
        } else {
            self.reset_startup_mode();
        }
    }

    fn advance_cycle_phase(&mut self, tcb: &Tcb) {
        self.cycle_index = (self.cycle_index + 1) % PACING_GAIN_CYCLE.len();
        self.cycle_stamp = tcb.delivered_time;
        self.pacing_gain = PACING_GAIN_CYCLE[self.cycle_index];
    }

    /// Linux `bbr_is_next_cycle_phase`.
    fn is_next_cycle_phase(&self, tcb: &Tcb, rs: &RateSample) -> bool {
        let full_length = tcb.delivered_time.saturating_sub(self.cycle_stamp) > self.min_rtt;
        if self.pacing_gain == BBR_UNIT {
            return full_length;
        }
        let bw = self.max_bw();
        if self.pacing_gain > BBR_UNIT {
            return full_length
                && (rs.losses > 0
                    || rs.prior_in_flight >= self.target_cwnd(tcb, bw, self.pacing_gain));
        }
        full_length || rs.prior_in_flight <= self.target_cwnd(tcb, bw, BBR_UNIT)
    }

    /// Eq. (1) and the round counter (Linux `bbr_update_bw`).
    fn update_bw(&mut self, tcb: &Tcb, rs: &RateSample) {
        self.round_start = false;
        let Some(interval) = rs.delivery.interval else {
            return;
        };
        if rs.delivery.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = tcb.delivered;
            self.round_count += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        let bw =
            u128::from(rs.delivery.delivered) * BW_UNIT * 1000 / u128::from(interval.as_nanos());
        let bw = bw as u64;
        if !rs.delivery.is_app_limited || bw >= self.max_bw() {
            self.bw.update(self.bw_window, self.round_count, bw);
        }
    }

    fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || rs.delivery.is_app_limited {
            return;
        }
        let thresh = (self.full_bw * FULL_BW_THRESH) >> 8;
        if self.max_bw() >= thresh {
            self.full_bw = self.max_bw();
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        self.full_bw_reached = self.full_bw_count >= FULL_BW_COUNT;
    }

    fn check_drain(&mut self, tcb: &Tcb, rs: &RateSample) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            self.pacing_gain = DRAIN_GAIN;
            self.cwnd_gain = HIGH_GAIN;
        }
        if self.mode == Mode::Drain
            && rs.in_flight <= self.target_cwnd(tcb, self.max_bw(), BBR_UNIT)
        {
            self.reset_probe_bw_mode(tcb);
        }
    }

    /// Eq. (2) and PROBE_RTT (Linux `bbr_update_min_rtt`).
    fn update_min_rtt(&mut self, tcb: &mut Tcb, now: SimTime, rs: &RateSample) {
        let expired = now > self.min_rtt_stamp + self.min_rtt_window;
        if let Some(rtt) = rs.rtt {
            if rtt <= self.min_rtt || expired {
                self.min_rtt = rtt;
                self.min_rtt_stamp = now;
            }
        }
        if expired && !self.idle_restart && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.pacing_gain = BBR_UNIT;
            self.cwnd_gain = BBR_UNIT;
            self.save_cwnd(tcb);
            self.probe_rtt_done = None;
        }
        if self.mode == Mode::ProbeRtt {
            // Samples taken while the window is held down are not the path's rate.
            mark_app_limited(tcb, rs.in_flight);
            match self.probe_rtt_done {
                None if rs.in_flight <= MIN_PIPE_CWND => {
                    self.probe_rtt_done = Some(now + self.probe_rtt_duration);
                    self.probe_rtt_round_done = false;
                    self.next_round_delivered = tcb.delivered;
                }
                Some(done) => {
                    self.probe_rtt_round_done |= self.round_start;
                    if self.probe_rtt_round_done && now > done {
                        self.min_rtt_stamp = now;
                        self.restore_cwnd = true;
                        self.reset_mode(tcb);
                    }
                }
                None => {}
            }
        }
        if rs.delivery.delivered > 0 {
            self.idle_restart = false;
        }
    }

    /// Recovery and restore (draft §4.2.3.4); returns the new cwnd and whether packet
    /// conservation decides it.
    fn cwnd_to_recover_or_restore(
        &mut self,
        tcb: &Tcb,
        rs: &RateSample,
        acked: u32,
    ) -> (u32, bool) {
        let (state, prev) = (tcb.ca_state, self.prev_ca_state);
        let mut cwnd = tcb.cwnd;
        if rs.losses > 0 {
            cwnd = cwnd.saturating_sub(rs.losses).max(1);
        }
        let recovering = |s: CaState| matches!(s, CaState::Recovery | CaState::Loss);
        if state == CaState::Recovery && prev != CaState::Recovery {
            // First round of recovery: send one segment per segment delivered.
            self.packet_conservation = true;
            self.next_round_delivered = tcb.delivered;
            cwnd = rs.in_flight + acked;
        } else if recovering(prev) && !recovering(state) {
            self.restore_cwnd = true;
            self.packet_conservation = false;
        }
        self.prev_ca_state = state;
        if self.restore_cwnd {
            cwnd = cwnd.max(self.prior_cwnd);
            self.restore_cwnd = false;
        }
        if self.packet_conservation {
            return (cwnd.max(rs.in_flight + acked), true);
        }
        (cwnd, false)
    }

    fn set_cwnd(&mut self, tcb: &mut Tcb, rs: &RateSample, bw: u64) {
        let acked = rs.delivery.acked_sacked;
        if acked == 0 {
            return;
        }
        let (mut cwnd, conserving) = self.cwnd_to_recover_or_restore(tcb, rs, acked);
        if !conserving {
            let target = self.target_cwnd(tcb, bw, self.cwnd_gain);
            if self.full_bw_reached {
                cwnd = (cwnd + acked).min(target);
            } else if cwnd < target || tcb.delivered < u64::from(self.initial_cwnd) {
                cwnd += acked;
            }
            cwnd = cwnd.max(MIN_PIPE_CWND);
        }
        tcb.cwnd = cwnd.min(tcb.cwnd_clamp);
        if self.mode == Mode::ProbeRtt {
            tcb.cwnd = tcb.cwnd.min(MIN_PIPE_CWND);
        }
    }
}

impl CongestionControl for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }

    /// Saves cwnd; BBR keeps no slow-start threshold.
    fn ssthresh(&mut self, tcb: &Tcb, _now: SimTime) -> u32 {
        self.save_cwnd(tcb);
        INFINITE_SSTHRESH
    }

    /// Not called: `cong_control` replaces it (`has_cong_control`).
    fn cong_avoid(&mut self, _tcb: &mut Tcb, _now: SimTime, _acked: u32) {}

    fn undo_cwnd(&mut self, tcb: &Tcb) -> u32 {
        self.full_bw = 0;
        self.full_bw_count = 0;
        tcb.cwnd
    }

    fn set_state(&mut self, _tcb: &Tcb, _now: SimTime, new: CaState) {
        if new == CaState::Loss {
            self.prev_ca_state = CaState::Loss;
            self.full_bw = 0;
            self.round_start = true;
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
                self.set_pacing_rate(tcb, self.max_bw(), BBR_UNIT);
            }
        }
    }

    fn has_cong_control(&self) -> bool {
        true
    }

    /// Linux `bbr_main`.
    fn cong_control(&mut self, tcb: &mut Tcb, now: SimTime, rs: &RateSample) {
        self.update_bw(tcb, rs);
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(tcb, rs) {
            self.advance_cycle_phase(tcb);
        }
        self.check_full_bw_reached(rs);
        self.check_drain(tcb, rs);
        self.update_min_rtt(tcb, now, rs);
        let bw = self.max_bw();
        self.set_pacing_rate(tcb, bw, self.pacing_gain);
        self.set_cwnd(tcb, rs, bw);
    }

    fn metrics(&self) -> CcMetrics {
        CcMetrics {
            pacing_rate: self.pacing_rate,
        }
    }

    /// The model, as Linux's `bbr_get_info` reports it: mode (0 STARTUP, 1 DRAIN,
    /// 2 PROBE_BW, 3 PROBE_RTT: Linux's `enum bbr_mode`), BtlBw (eq. 1, bit/s of
    /// segments: segments per µs × MSS × 8), RTprop (eq. 2, s), and the gains.
    fn info(&self, tcb: &Tcb, out: &mut Vec<(&'static str, f64)>) {
        let segments_per_us = self.max_bw() as f64 / BW_UNIT as f64;
        out.push(("mode", f64::from(self.mode as u8)));
        out.push((
            "btl_bw_bps",
            segments_per_us * 1e6 * f64::from(tcb.mss) * 8.0,
        ));
        out.push(("min_rtt", seconds_or_nan(self.min_rtt)));
        out.push((
            "pacing_gain",
            f64::from(self.pacing_gain) / f64::from(BBR_UNIT),
        ));
        out.push(("cwnd_gain", f64::from(self.cwnd_gain) / f64::from(BBR_UNIT)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng;
    use crate::transport::tcp::rate::Delivery;

    const MSS: u32 = 1460;

    /// A 1/1024 segment per µs bandwidth (976.5625 segments/s) in BW_UNIT, and a
    /// 102.4 ms RTprop: the BDP is exactly 100 segments.
    const BW: u64 = (BW_UNIT >> 10) as u64;
    const RTPROP: SimTime = SimTime(102_400_000);

    fn bbr(seed: u64) -> Bbr {
        Bbr::new(BbrConfig::default(), rng::stream(seed, "flows[0].cc"))
    }

    fn tcb() -> Tcb {
        let mut t = Tcb::new(MSS, 10);
        t.header = 40;
        t
    }

    /// A valid sample: `delivered` segments over `interval`, the round ending when
    /// `prior_delivered` reaches the round's mark.
    fn sample(delivered: u64, interval: SimTime, prior_delivered: u64, acked: u32) -> RateSample {
        RateSample {
            delivery: Delivery {
                delivered,
                interval: Some(interval),
                prior_delivered,
                is_app_limited: false,
                acked_sacked: acked,
            },
            rtt: Some(RTPROP),
            losses: 0,
            prior_in_flight: 0,
            in_flight: 0,
        }
    }

    #[test]
    fn bad_parameters_are_named() {
        let bad = |json: &str| {
            let params = serde_json::from_str(json).unwrap();
            let cfg: BbrConfig = crate::scenario::cc_spec::parse_params(&params).unwrap();
            cfg.check().unwrap_err().0
        };
        assert_eq!(bad(r#"{"cwnd_gain": 0.5}"#), "cwnd_gain");
        assert_eq!(bad(r#"{"bw_window_rounds": 0}"#), "bw_window_rounds");
        assert_eq!(bad(r#"{"min_rtt_window": "0s"}"#), "min_rtt_window");
        assert!(BbrConfig::default().check().is_ok());
    }

    #[test]
    fn gains_are_the_drafts() {
        // 2/ln 2 = 2.885; Linux 739/256 = 2.887; drain 88/256 = 0.344 ≈ 1/2.885.
        assert_eq!(HIGH_GAIN, 739);
        assert_eq!(DRAIN_GAIN, 88);
        assert!((HIGH_GAIN as f64 / 256.0 - 2.0 / 2f64.ln()).abs() < 0.003);
        let mean: u32 = PACING_GAIN_CYCLE.iter().sum::<u32>() / 8;
        assert_eq!(mean, BBR_UNIT, "the cycle averages to 1");
    }

    #[test]
    fn pacing_rate_is_gain_times_bandwidth_in_ip_bytes() {
        // 976.5625 segments/s × 1500 B = 1 464 843.75 B/s → 1 464 843 (truncated);
        // × 5/4 = 1 831 054.6875 → 1 831 054.
        let t = tcb();
        assert_eq!(Bbr::rate_bytes_per_sec(&t, BW, BBR_UNIT), 1_464_843);
        assert_eq!(Bbr::rate_bytes_per_sec(&t, BW, 320), 1_831_054);
    }

    #[test]
    fn target_cwnd_is_gain_times_bdp_plus_three_quanta() {
        // BDP = 100 segments. Pacing 1.46 MB/s (between 1.2 and 24 Mb/s): quantum 2,
        // 3 quanta = 6. Gain 2: 200 + 6 = 206 (even). Gain 5/4 in PROBE_BW: 125 + 6 =
        // 131 → 132 (even) + 2 (probing) = 134. Before any RTT: the initial window.
        let t = tcb();
        let mut b = bbr(1);
        b.init(&t, SimTime::ZERO);
        assert_eq!(b.target_cwnd(&t, BW, 512), 10);
        b.min_rtt = RTPROP;
        b.pacing_rate = Some(1_464_843);
        assert_eq!(b.target_cwnd(&t, BW, 512), 206);
        b.mode = Mode::ProbeBw;
        assert_eq!(b.target_cwnd(&t, BW, 320), 134);
        assert_eq!(b.target_cwnd(&t, BW, BBR_UNIT), 106);
        // Below 1.2 Mb/s one segment per quantum; at 100 Mb/s (12.5 MB/s) 12 500 B,
        // 8 segments of 1460.
        b.pacing_rate = Some(100_000);
        assert_eq!(b.send_quantum(&t), 1);
        b.pacing_rate = Some(12_500_000);
        assert_eq!(b.send_quantum(&t), 8);
    }

    #[test]
    fn initial_pacing_rate_is_high_gain_times_cwnd_over_rtt() {
        // No RTT yet: 10 segments per 1 ms = 1/100 segment per µs → BW_UNIT/100 =
        // 167 772 (truncated); × 1500 × 739 >> 8 = 726 465 867 (truncated), × 10^6 /
        // 2^24 = 43 300 739 B/s (≈ 2.887 × 15 MB/s).
        let t = tcb();
        let mut b = bbr(1);
        b.init(&t, SimTime::ZERO);
        assert_eq!(b.pacing_rate, Some(43_300_739));
        assert!(!b.has_seen_rtt);
    }

    #[test]
    fn startup_ends_after_three_rounds_without_25_percent_growth() {
        // Each call is a new round (prior_delivered ≥ the mark). Bandwidth samples
        // 100, 200 (+100 %), 240 (+20 %: first round without growth vs 200), 249
        // (vs 200: < 250), 240: third round without 25 % over 200 → pipe full, DRAIN.
        let mut t = tcb();
        let mut b = bbr(1);
        b.init(&t, SimTime::ZERO);
        let rounds = [100u64, 200, 240, 249, 240];
        let mut delivered = 0;
        for (i, &segments) in rounds.iter().enumerate() {
            let prior = delivered;
            delivered += segments;
            t.delivered = delivered;
            // `segments` over 1 s = segments per 10^6 µs.
            let mut rs = sample(segments, SimTime::from_secs(1), prior, 1);
            rs.in_flight = 10_000; // far above the BDP: DRAIN does not end at once
            b.cong_control(&mut t, SimTime::from_secs(1 + i as u64), &rs);
            let expected = if i < 4 { Mode::Startup } else { Mode::Drain };
            assert_eq!(b.mode, expected, "round {i}");
        }
        assert_eq!(b.full_bw_count, 3);
        assert_eq!(b.max_bw(), (249 * BW_UNIT / 1_000_000) as u64);
        assert_eq!(b.pacing_gain, DRAIN_GAIN);
    }

    #[test]
    fn drain_ends_when_in_flight_is_down_to_the_bdp() {
        // BtlBw = BW (BDP 100), pacing 1.46 MB/s: target at gain 1 = 100 + 6 = 106.
        // 107 in flight keeps DRAIN; 106 enters PROBE_BW.
        let mut t = tcb();
        let mut b = bbr(1);
        b.init(&t, SimTime::ZERO);
        b.min_rtt = RTPROP;
        b.bw.update(10, 1, BW);
        b.full_bw_reached = true;
        b.pacing_rate = Some(1_464_843);
        let mut rs = sample(0, SimTime::from_secs(1), 0, 1);
        rs.delivery.interval = None;
        rs.in_flight = 107;
        b.check_drain(&t, &rs);
        assert_eq!(b.mode, Mode::Drain);
        rs.in_flight = 106;
        t.delivered_time = SimTime::from_secs(3);
        b.check_drain(&t, &rs);
        assert_eq!(b.mode, Mode::ProbeBw);
        assert_eq!(b.cwnd_gain, 512);
        assert_eq!(b.cycle_stamp, SimTime::from_secs(3));
    }

    #[test]
    fn probe_bw_never_starts_in_the_draining_phase() {
        // Start index = 7 − U{0..6}, then advanced: phases 2..7 or 0, never 1 (3/4).
        // Over 200 seeds every allowed phase appears.
        let t = tcb();
        let mut seen = [false; 8];
        for seed in 0..200 {
            let mut b = bbr(seed);
            b.reset_probe_bw_mode(&t);
            seen[b.cycle_index] = true;
            assert_eq!(b.pacing_gain, PACING_GAIN_CYCLE[b.cycle_index]);
        }
        assert_eq!(seen, [true, false, true, true, true, true, true, true]);
    }

    #[test]
    fn gain_cycle_phases_end_by_time_or_in_flight() {
        // RTprop 102.4 ms, BDP 100, quanta 6.
        let mut t = tcb();
        let mut b = bbr(1);
        b.init(&t, SimTime::ZERO);
        b.min_rtt = RTPROP;
        b.bw.update(10, 1, BW);
        b.pacing_rate = Some(1_464_843);
        b.mode = Mode::ProbeBw;
        let mut rs = sample(0, SimTime::from_secs(1), 0, 1);
        // Phase 0 (5/4): after one RTprop it ends only when in flight reaches the
        // 5/4 target (134) or a loss is seen.
        b.cycle_index = 0;
        b.pacing_gain = PACING_GAIN_CYCLE[0];
        b.cycle_stamp = SimTime::ZERO;
        t.delivered_time = SimTime(102_400_001);
        rs.prior_in_flight = 133;
        assert!(!b.is_next_cycle_phase(&t, &rs));
        rs.prior_in_flight = 134;
        assert!(b.is_next_cycle_phase(&t, &rs));
        rs.prior_in_flight = 50;
        rs.losses = 1;
        assert!(b.is_next_cycle_phase(&t, &rs));
        t.delivered_time = RTPROP;
        assert!(!b.is_next_cycle_phase(&t, &rs), "not longer than RTprop");
        // Phase 1 (3/4): ends early once in flight ≤ the gain-1 target (106).
        b.advance_cycle_phase(&t);
        assert_eq!(b.pacing_gain, 192);
        rs.losses = 0;
        rs.prior_in_flight = 107;
        assert!(!b.is_next_cycle_phase(&t, &rs));
        rs.prior_in_flight = 106;
        assert!(b.is_next_cycle_phase(&t, &rs));
        // Phases 2–7 (1.0): by time only.
        b.advance_cycle_phase(&t);
        rs.prior_in_flight = 0;
        t.delivered_time = RTPROP + RTPROP;
        assert!(!b.is_next_cycle_phase(&t, &rs));
        t.delivered_time = RTPROP + RTPROP + SimTime(1);
        assert!(b.is_next_cycle_phase(&t, &rs));
    }

    #[test]
    fn probe_rtt_holds_four_segments_for_200_ms_and_a_round() {
        let mut t = tcb();
        let mut b = bbr(1);
        b.init(&t, SimTime::ZERO);
        b.min_rtt = RTPROP;
        b.bw.update(10, 1, BW);
        b.full_bw_reached = true;
        b.pacing_rate = Some(1_464_843);
        b.reset_probe_bw_mode(&t);
        t.cwnd = 206;
        t.delivered = 1000;
        // 10 s + 1 ns after the last RTprop refresh, an RTT sample above RTprop: the
        // filter has expired → PROBE_RTT, cwnd 206 saved, cwnd capped at 4.
        let t1 = SimTime::from_secs(10) + SimTime(1);
        let mut rs = sample(1, SimTime::from_secs(1), 0, 1);
        rs.rtt = Some(RTPROP + RTPROP);
        rs.in_flight = 200;
        b.cong_control(&mut t, t1, &rs);
        assert_eq!(b.mode, Mode::ProbeRtt);
        assert_eq!((b.prior_cwnd, t.cwnd), (206, 4));
        assert_eq!(
            b.min_rtt,
            RTPROP + RTPROP,
            "an expired filter takes any sample"
        );
        assert!(t.app_limited.is_some(), "samples meanwhile are app-limited");
        // In flight falls to 4: the 200 ms start now, and the round restarts.
        rs.in_flight = 4;
        let t2 = t1 + SimTime::from_millis(300);
        b.cong_control(&mut t, t2, &rs);
        assert_eq!(b.probe_rtt_done, Some(t2 + SimTime::from_millis(200)));
        // After 200 ms but within the round (prior_delivered below the mark): stay.
        let t3 = t2 + SimTime::from_millis(201);
        rs.delivery.prior_delivered = t.delivered - 1;
        b.cong_control(&mut t, t3, &rs);
        assert_eq!(b.mode, Mode::ProbeRtt);
        // The round ends (prior_delivered reaches the mark): back to PROBE_BW, RTprop's
        // time renewed, the saved 206 restored and grown by the segment delivered:
        // 207, below the PROBE_BW target 200 + 6 + 2 (probing phase) = 208.
        t.delivered += 4;
        rs.delivery.prior_delivered = t.delivered - 4;
        let t4 = t3 + SimTime::from_millis(1);
        b.cong_control(&mut t, t4, &rs);
        assert_eq!(b.mode, Mode::ProbeBw);
        assert_eq!(b.min_rtt_stamp, t4);
        assert_eq!(t.cwnd, 207);
    }

    #[test]
    fn recovery_conserves_packets_for_a_round_then_restores_the_window() {
        // cwnd 100 in Open; fast retransmit: ssthresh saves 100. First ACK in
        // Recovery, 1 delivered, 2 newly lost, 60 in flight: cwnd = 60 + 1 = 61.
        let mut t = tcb();
        let mut b = bbr(1);
        b.init(&t, SimTime::ZERO);
        b.min_rtt = RTPROP;
        b.bw.update(10, 1, BW);
        b.full_bw_reached = true;
        b.pacing_rate = Some(1_464_843);
        b.reset_probe_bw_mode(&t);
        t.cwnd = 100;
        assert_eq!(b.ssthresh(&t, SimTime::ZERO), INFINITE_SSTHRESH);
        assert_eq!(b.prior_cwnd, 100);
        t.ca_state = CaState::Recovery;
        t.delivered = 500;
        let mut rs = sample(1, SimTime::from_secs(1), 0, 1);
        rs.losses = 2;
        rs.in_flight = 60;
        b.cong_control(&mut t, SimTime::from_secs(1), &rs);
        assert_eq!(t.cwnd, 61);
        // Still conserving: cwnd − losses (61 − 1 = 60) but at least in flight +
        // delivered (59 + 3 = 62).
        rs.losses = 1;
        rs.in_flight = 59;
        rs.delivery.acked_sacked = 3;
        b.cong_control(&mut t, SimTime::from_secs(1), &rs);
        assert_eq!(t.cwnd, 62);
        // Recovery ends (Open): the saved 100 comes back, + 1 delivered = 101 (the
        // target is 208).
        t.ca_state = CaState::Open;
        rs.losses = 0;
        rs.delivery.acked_sacked = 1;
        b.cong_control(&mut t, SimTime::from_secs(1), &rs);
        assert_eq!(t.cwnd, 101);
    }

    #[test]
    fn undo_keeps_the_window_and_restarts_full_pipe_detection() {
        let mut t = tcb();
        let mut b = bbr(1);
        b.init(&t, SimTime::ZERO);
        b.full_bw = 1234;
        b.full_bw_count = 2;
        t.cwnd = 37;
        assert_eq!(b.undo_cwnd(&t), 37);
        assert_eq!((b.full_bw, b.full_bw_count), (0, 0));
    }

    #[test]
    fn a_timeout_ends_the_round_and_resets_the_full_bw_reference() {
        let t = tcb();
        let mut b = bbr(1);
        b.full_bw = 99;
        b.set_state(&t, SimTime::ZERO, CaState::Loss);
        assert!(b.round_start);
        assert_eq!((b.full_bw, b.prev_ca_state), (0, CaState::Loss));
    }

    #[test]
    fn startup_pacing_only_rises_until_the_pipe_is_full() {
        // In STARTUP a lower bandwidth sample leaves the pacing rate where it was;
        // once the pipe is full, the rate follows the model down.
        let t = tcb();
        let mut b = bbr(1);
        b.init(&t, SimTime::ZERO);
        b.has_seen_rtt = true;
        let start = b.pacing_rate.unwrap();
        b.set_pacing_rate(&t, BW, BBR_UNIT);
        assert_eq!(b.pacing_rate, Some(start));
        b.full_bw_reached = true;
        b.set_pacing_rate(&t, BW, BBR_UNIT);
        assert_eq!(b.pacing_rate, Some(1_464_843));
    }

    #[test]
    fn info_reports_the_model_in_bit_per_second_and_seconds() {
        // BtlBw = 1/1024 segment per µs = 976.5625 segments/s × 1460 B × 8
        // = 11 406 250 bit/s; RTprop 102.4 ms; STARTUP (mode 0) at high gain
        // 739/256 = 2.88671875 for both gains.
        let t = tcb();
        let mut b = bbr(1);
        b.init(&t, SimTime::ZERO);
        b.min_rtt = RTPROP;
        b.bw.update(10, 1, BW);
        let mut out = Vec::new();
        b.info(&t, &mut out);
        assert_eq!(
            out,
            vec![
                ("mode", 0.0),
                ("btl_bw_bps", 11_406_250.0),
                ("min_rtt", 0.1024),
                ("pacing_gain", 2.88671875),
                ("cwnd_gain", 2.88671875),
            ]
        );
    }
}
