//! Congestion control: the `CongestionControl` trait and its implementations.
//!
//! The hook set is Linux's `struct tcp_congestion_ops` under Rust names (ns-3's
//! `TcpCongestionOps` maps onto it one to one), so that every variant of the
//! studies fits: delay-based ones (Vegas, Veno) see every RTT sample through
//! `pkts_acked`; Westwood+ sees every ACK, duplicates included, through
//! `in_ack_event`; CUBIC reads `now`; BBR replaces the ACK-clocked growth with
//! `cong_control` and asks for pacing.
//!
//! A controller is a pure state machine: it reads and writes the `Tcb`, gets the
//! time as an argument, and never touches the engine. Loss recovery (when to cut,
//! retransmit, undo) lives in the sender; the controller only answers how much.
//!
//! Calling order on an ACK that acknowledges new data:
//! 1. `pkts_acked` with the RTT sample (Karn-filtered) and segments acked;
//! 2. `in_ack_event`;
//! 3. recovery processing by the sender (may end Recovery/Loss via `set_state`);
//! 4. for a controller with `has_cong_control`, `cong_control`; otherwise, in
//!    `Open`/`Disorder`/`Loss`, `cong_avoid` (only when the window was in use).
//!
//! On a duplicate ACK: `in_ack_event`, recovery processing, then `cong_control` for a
//! controller that has it. On loss detection the sender asks `ssthresh` (which must
//! *return* the new threshold, not set it — as ns-3 documents for `GetSsThresh`),
//! then sets the new state and calls `set_state` (Linux `tcp_enter_recovery` and
//! `tcp_enter_loss`: ssthresh first, then `tcp_set_ca_state`), and on an RTO also
//! `cwnd_event(Loss)`.
//!
//! A controller with `has_cong_control` (BBR; Linux's ops with `.cong_control`) owns
//! cwnd in every state: `cong_control` runs on every ACK, after recovery processing,
//! with a delivery-rate sample (`rate.rs`), and loss recovery leaves cwnd alone — no
//! cwnd = ssthresh (+ dupthresh) on a fast retransmit, no window inflation, no
//! deflation when recovery ends (Linux skips PRR and `tcp_end_cwnd_reduction` for
//! such controllers) — except that a timeout still sets cwnd = 1 (Linux
//! `tcp_enter_loss`). Its window is compared with Linux's in-flight count
//! (`tcp_packets_in_flight`; `TcpSender::packets_in_flight`).
//!
//! Pacing: when `metrics().pacing_rate` is `Some`, the sender paces its segments at
//! that rate (`pacing.rs`); otherwise it sends as the windows allow.
//!
//! Dispatch is through `Box<dyn CongestionControl>`, built once per flow: one
//! indirect call per ACK costs nothing measurable beside the rest of the ACK path,
//! and it keeps each variant in its own file without a central match per hook.

mod bbr;
mod bic;
mod compound;
mod cubic;
mod highspeed;
mod hybla;
mod reno;
mod scalable;
mod vegas;
mod veno;
mod westwood;
mod windowed_max;

pub use bbr::{Bbr, BbrConfig, Mode as BbrMode};
pub use bic::Bic;
pub use compound::{Compound, CompoundConfig};
pub use cubic::{Cubic, CubicConfig};
pub use highspeed::{HighSpeed, HighSpeedConfig};
pub use hybla::{Hybla, HyblaConfig};
pub use reno::Reno;
pub use scalable::{Scalable, ScalableConfig};
pub use vegas::{Vegas, VegasConfig};
pub use veno::{Veno, VenoConfig};
pub use westwood::{Westwood, WestwoodConfig, WestwoodPlusConfig};

use super::rate::Delivery;
use super::tcb::{CaState, Tcb};
use crate::rng::RngStream;
use crate::scenario::cc_spec::{parse_params, CcSpec};
use crate::time::SimTime;

/// What `pkts_acked` is told (Linux `struct ack_sample`).
#[derive(Clone, Copy, Debug)]
pub struct AckSample {
    /// Segments newly acknowledged by this ACK.
    pub acked: u32,
    /// RTT measured by this ACK, if a valid (Karn) sample exists.
    pub rtt: Option<SimTime>,
    /// Segments in flight before this ACK.
    pub in_flight: u32,
}

/// What `in_ack_event` is told about every arriving ACK.
#[derive(Clone, Copy, Debug)]
pub struct AckEvent {
    /// Bytes newly acknowledged (0 for a duplicate ACK).
    pub acked_bytes: u64,
    /// True for a duplicate ACK.
    pub duplicate: bool,
}

/// Events outside the ACK stream (Linux `enum tcp_ca_event`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaEvent {
    /// First transmission when nothing was in flight.
    TxStart,
    /// A retransmission timeout.
    Loss,
    /// Fast recovery completed.
    CompleteRecovery,
}

/// What `cong_control` is told on every ACK (Linux `struct rate_sample`).
#[derive(Clone, Copy, Debug)]
pub struct RateSample {
    /// The delivery-rate sample (`rate.rs`).
    pub delivery: Delivery,
    /// RTT measured by this ACK, if a valid (Karn) sample exists.
    pub rtt: Option<SimTime>,
    /// Segments newly marked lost while processing this ACK.
    pub losses: u32,
    /// Segments in flight before this ACK (Linux `tcp_packets_in_flight`).
    pub prior_in_flight: u32,
    /// Segments in flight after its processing, before anything new is sent.
    pub in_flight: u32,
}

/// Observable controller state: for traces, and the pacing rate for the sender.
#[derive(Clone, Copy, Debug, Default)]
pub struct CcMetrics {
    /// Pacing rate in bytes per second of IP packets, if the controller paces.
    pub pacing_rate: Option<u64>,
}

pub trait CongestionControl: Send {
    /// The name users type in scenario files.
    fn name(&self) -> &'static str;

    /// New ssthresh in segments after a loss is detected. Called after the state
    /// has changed to `Recovery` or `Loss` and after `prior_cwnd` is saved.
    fn ssthresh(&mut self, tcb: &Tcb, now: SimTime) -> u32;

    /// Grows cwnd on an ACK of new data outside fast recovery. `acked` is the
    /// number of segments newly acknowledged.
    fn cong_avoid(&mut self, tcb: &mut Tcb, now: SimTime, acked: u32);

    /// The cwnd to restore when a reduction proves spurious (Linux `undo_cwnd`).
    fn undo_cwnd(&mut self, tcb: &Tcb) -> u32 {
        tcb.cwnd.max(tcb.prior_cwnd)
    }

    /// Every ACK of new data, with its RTT sample, before recovery processing.
    fn pkts_acked(&mut self, _tcb: &Tcb, _now: SimTime, _sample: &AckSample) {}

    /// Every ACK, duplicates included.
    fn in_ack_event(&mut self, _tcb: &Tcb, _now: SimTime, _ack: &AckEvent) {}

    /// The sender's congestion state changed to `new`.
    fn set_state(&mut self, _tcb: &Tcb, _now: SimTime, _new: CaState) {}

    fn cwnd_event(&mut self, _tcb: &mut Tcb, _now: SimTime, _event: CaEvent) {}

    /// Whether this controller owns cwnd through `cong_control` (see the module
    /// header); Linux: the ops table has `.cong_control`.
    fn has_cong_control(&self) -> bool {
        false
    }

    /// Model-based control (BBR), on every ACK when `has_cong_control` is true.
    fn cong_control(&mut self, _tcb: &mut Tcb, _now: SimTime, _rs: &RateSample) {}

    fn metrics(&self) -> CcMetrics {
        CcMetrics::default()
    }

    /// The controller's internal numbers by name, for the `cc_metrics` trace
    /// (`trace.cc_metrics`): what Linux's `tcp_congestion_ops.get_info` gives
    /// `ss -i` (`tcp_vegas_get_info`, `bbr_get_info`), for every controller. Appended
    /// to `out`, which the caller clears and reuses, so that a sample allocates
    /// nothing once the buffer has grown. Times in seconds, rates in bit/s, windows
    /// in segments; NaN for a number not known yet. The same names in the same
    /// order at every call (a wide table is a reshape). docs/results.md lists them.
    fn info(&self, _tcb: &Tcb, _out: &mut Vec<(&'static str, f64)>) {}
}

/// Seconds, with `SimTime::MAX` (no sample yet) as NaN, for `info`.
fn seconds_or_nan(t: SimTime) -> f64 {
    if t == SimTime::MAX {
        f64::NAN
    } else {
        t.as_secs_f64()
    }
}

/// RFC 5681 eq. (4): ssthresh = max(FlightSize / 2, 2·SMSS), in segments
/// (FlightSize as `Tcb::flight_size` defines it). Linux's `tcp_reno_ssthresh`
/// halves cwnd instead of FlightSize; the two agree for a window-limited bulk sender.
pub fn reno_ssthresh(tcb: &Tcb) -> u32 {
    (tcb.flight_size() / 2).max(2)
}

/// Congestion-control names accepted in scenario files (every arm of `build`). "tahoe" and "newreno"
/// are Reno's AIMD with that loss recovery (see `Recovery::default_for`).
pub const KNOWN: &[&str] = &[
    "reno",
    "newreno",
    "tahoe",
    "vegas",
    "veno",
    "westwood",
    "westwood_plus",
    "cubic",
    "bic",
    "compound",
    "highspeed",
    "scalable",
    "hybla",
    "bbr",
];

/// Builds the controller a scenario names, with its parameters and its own random
/// stream (only BBR draws from it). The error is (parameter path relative to the
/// `cc` table, message).
pub fn build(
    spec: &CcSpec,
    rng: RngStream,
) -> Result<Box<dyn CongestionControl>, (String, String)> {
    match spec.name.as_str() {
        "reno" | "newreno" | "tahoe" => {
            parse_params::<NoParams>(&spec.params)?;
            Ok(Box::new(Reno))
        }
        "vegas" => {
            let cfg: VegasConfig = parse_params(&spec.params)?;
            cfg.check()?;
            Ok(Box::new(Vegas::new(cfg)))
        }
        "cubic" => {
            let cfg: CubicConfig = parse_params(&spec.params)?;
            cfg.check()?;
            Ok(Box::new(Cubic::new(cfg)))
        }
        "bic" => {
            parse_params::<NoParams>(&spec.params)?;
            Ok(Box::new(Bic::default()))
        }
        "compound" => Ok(Box::new(Compound::new(parse_params::<CompoundConfig>(
            &spec.params,
        )?))),
        "highspeed" => {
            let cfg = parse_params::<HighSpeedConfig>(&spec.params)?;
            cfg.check()?;
            Ok(Box::new(HighSpeed::new(cfg)))
        }
        "scalable" => {
            let cfg = parse_params::<ScalableConfig>(&spec.params)?;
            cfg.check()?;
            Ok(Box::new(Scalable::new(cfg)))
        }
        "hybla" => {
            let cfg = parse_params::<HyblaConfig>(&spec.params)?;
            cfg.check()?;
            Ok(Box::new(Hybla::new(cfg)))
        }
        "veno" => Ok(Box::new(Veno::new(parse_params::<VenoConfig>(
            &spec.params,
        )?))),
        "westwood" => {
            let cfg = parse_params::<WestwoodConfig>(&spec.params)?;
            cfg.check()?;
            Ok(Box::new(Westwood::new(cfg)))
        }
        "westwood_plus" => {
            let cfg = parse_params::<WestwoodPlusConfig>(&spec.params)?;
            cfg.check()?;
            Ok(Box::new(Westwood::plus(cfg)))
        }
        "bbr" => {
            let cfg = parse_params::<BbrConfig>(&spec.params)?;
            cfg.check()?;
            Ok(Box::new(Bbr::new(cfg, rng)))
        }
        other => Err((
            String::new(),
            format!(
                "\"{other}\" is not a congestion control; use one of {}",
                KNOWN.join(", ")
            ),
        )),
    }
}

/// Parameters of a variant that has none: any key is an error.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct NoParams {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_known_name_builds_and_only_those() {
        let rng = || crate::rng::stream(1, "flows[0].cc");
        for name in KNOWN {
            assert!(build(&CcSpec::named(name), rng()).is_ok(), "{name}");
        }
        let err = build(&CcSpec::named("warp"), rng()).err().unwrap().1;
        for name in KNOWN {
            assert!(err.contains(name), "{name} missing from: {err}");
        }
    }
}
