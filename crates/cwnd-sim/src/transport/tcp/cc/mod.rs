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
//! 4. in `Open`/`Disorder`/`Loss`, `cong_control` if the controller implements it,
//!    else `cong_avoid` (only when the window was in use).
//!
//! On a duplicate ACK: `in_ack_event` only. On loss detection the sender sets the
//! new state, calls `set_state`, then `ssthresh` (which must *return* the new
//! threshold, not set it — as ns-3 documents for `GetSsThresh`), and on an RTO
//! also `cwnd_event(Loss)`.
//!
//! Dispatch is through `Box<dyn CongestionControl>`, built once per flow: one
//! indirect call per ACK costs nothing measurable beside the rest of the ACK path,
//! and it keeps each variant in its own file without a central match per hook.

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

use super::tcb::{CaState, Tcb};
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

/// Delivery-rate sample for model-based controllers (Linux `struct rate_sample`).
#[derive(Clone, Copy, Debug)]
pub struct RateSample {
    /// Segments delivered over `interval`.
    pub delivered: u64,
    pub interval: SimTime,
    pub rtt: Option<SimTime>,
    pub is_app_limited: bool,
    pub acked: u32,
    pub prior_in_flight: u32,
}

/// Observable controller state for traces (never read back by the sender).
#[derive(Clone, Copy, Debug, Default)]
pub struct CcMetrics {
    /// Pacing rate in bytes per second, if the controller paces.
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

    /// Model-based control (BBR): replaces `cong_avoid` when it returns true.
    fn cong_control(&mut self, _tcb: &mut Tcb, _now: SimTime, _rs: &RateSample) -> bool {
        false
    }

    fn metrics(&self) -> CcMetrics {
        CcMetrics::default()
    }
}

/// RFC 5681 eq. (4): ssthresh = max(FlightSize / 2, 2·SMSS), in segments.
/// (Linux's `tcp_reno_ssthresh` halves cwnd instead of FlightSize; the two agree
/// for a window-limited bulk sender.)
pub fn reno_ssthresh(tcb: &Tcb) -> u32 {
    (tcb.flight_segments() / 2).max(2)
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
];

/// Builds the controller a scenario names, with its parameters. The error is
/// (parameter path relative to the `cc` table, message).
pub fn build(spec: &CcSpec) -> Result<Box<dyn CongestionControl>, (String, String)> {
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
        for name in KNOWN {
            assert!(build(&CcSpec::named(name)).is_ok(), "{name}");
        }
        let err = build(&CcSpec::named("warp")).err().unwrap().1;
        for name in KNOWN {
            assert!(err.contains(name), "{name} missing from: {err}");
        }
    }
}
