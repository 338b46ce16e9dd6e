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
//! 2. `in_ack_event`, then, on a connection that uses ECN, `ecn_event(Ack)`;
//! 3. recovery processing by the sender (may end Recovery/Loss via `set_state`);
//! 4. for a controller with `has_cong_control`, `cong_control`; otherwise, in
//!    `Open`/`Disorder`/`Loss`, `cong_avoid` (only when the window was in use).
//!
//! On a duplicate ACK: `in_ack_event` (and `ecn_event(Ack)`), recovery processing,
//! then `cong_control` for a controller that has it. An ACK that echoes CE in `Open`
//! or `Disorder`, after recovery processing, makes the sender enter CWR:
//! `ecn_event(EnterCwr)`, `ssthresh`, `set_state(Cwr)` (Linux `tcp_enter_cwr`). On loss detection the sender asks `ssthresh` (which must
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
mod bbr3;
mod bbr_units;
mod bic;
mod cdg;
mod compound;
mod cubic;
mod dctcp;
mod highspeed;
mod htcp;
mod hybla;
mod hystart;
mod illinois;
mod reno;
mod scalable;
mod vegas;
mod vegas_timer;
mod veno;
mod westwood;
pub(in crate::transport::tcp) mod windowed_max;
mod yeah;

pub use bbr::{Bbr, BbrConfig, Mode as BbrMode};
pub use bbr3::{ecn_alpha_update, Bbr3, Bbr3Config};
pub use bic::Bic;
pub use cdg::{Cdg, CdgConfig, CdgHystart};
pub use compound::{Compound, CompoundConfig};
pub use cubic::{Cubic, CubicConfig};
pub use dctcp::{Dctcp, DctcpConfig};
pub use highspeed::{HighSpeed, HighSpeedConfig};
pub use htcp::{Htcp, HtcpConfig};
pub use hybla::{Hybla, HyblaConfig};
pub use hystart::HystartMode;
pub use illinois::{Illinois, IllinoisConfig};
pub use reno::Reno;
pub use scalable::{Scalable, ScalableConfig};
pub use vegas::{LossReduction, Vegas, VegasConfig};
pub use vegas_timer::AckKind;
pub use veno::{Veno, VenoConfig};
pub use westwood::{Westwood, WestwoodConfig, WestwoodPlusConfig};
pub use yeah::{Yeah, YeahConfig};

use super::rate::Delivery;
use super::recovery::Recovery;
use super::tcb::{CaState, Tcb};
use crate::params::parse_params;
use crate::rng::RngStream;
use crate::time::SimTime;
use serde_json::{Map, Value};

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

/// ECN's events for the controller (`CongestionControl::ecn_event`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EcnEvent {
    /// An ACK of a connection that uses ECN (Linux `in_ack_event`, with
    /// `CA_ACK_ECE` when `ece`): the bytes it newly acknowledged (SEG.ACK − SND.UNA,
    /// RFC 8257 §3.3; 0 for a duplicate), whether it echoed CE, and one past the
    /// highest byte sent (SND.NXT).
    Ack {
        acked_bytes: u64,
        ece: bool,
        sent: u64,
    },
    /// The sender enters CWR (Linux `tcp_enter_cwr` for an echo;
    /// `tcp_process_tlp_ack` for a loss a tail loss probe repaired): the `ssthresh`
    /// asked next sizes this reduction, not a loss recovery's.
    EnterCwr,
    /// A loss is found in CWR: fast recovery carries CWR's reduction on and asks no
    /// new `ssthresh` (Linux `tcp_enter_recovery`); a controller that reacts to the
    /// loss anyway sets ssthresh here (DCTCP's `set_state` does).
    LossInCwr,
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

    /// ECN's events (`EcnEvent`): the marks each ACK echoes, and CWR. Linux passes
    /// the first as `in_ack_event`'s `CA_ACK_ECE` flag and its CE events
    /// (`CA_EVENT_ECN_IS_CE`, `CA_EVENT_ECN_NO_CE`) to the receiving end's
    /// controller; here the receiver agent runs those (`ecn_echo.rs`).
    fn ecn_event(&mut self, _tcb: &mut Tcb, _now: SimTime, _event: EcnEvent) {}

    /// Vegas's fine-grained retransmission (`vegas_timer.rs`): whether the oldest
    /// unacknowledged segment, last sent at `sent`, is to be resent now. Asked by a
    /// sender without SACK on each duplicate ACK before dupthresh (true: fast
    /// retransmit now) and on each ACK of new data (true: resend the new oldest
    /// segment, cwnd unchanged). Other controllers: never.
    fn fine_grained_expired(&mut self, _now: SimTime, _sent: SimTime, _ack: AckKind) -> bool {
        false
    }

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

/// Declares the registry of controllers: one row per controller,
/// `Variant("name", Config, checked | unchecked, build)`, where `name` is what
/// scenario files say, `Config` the variant's parameters (deserialized with
/// `parse_params`; `checked` calls its `check()`), and `build` makes the controller
/// from the config and the flow's random stream.
macro_rules! controllers {
    ($($variant:ident($name:literal, $config:ty, $check:ident, $build:expr),)*) => {
        /// A congestion controller and its checked parameters: what a scenario's
        /// `cc` names, in typed form. The one list of controllers: the names in
        /// error messages (`KNOWN`), the builder (`build`), the default loss
        /// recovery (`default_recovery`) and the tests' lists of controllers all
        /// derive from it, so adding a controller is its own file plus one row in
        /// the `controllers!` table below.
        #[derive(Clone, Debug)]
        pub enum CcConfig {
            $($variant($config),)*
        }

        /// Congestion-control names accepted in scenario files, in table order.
        pub const KNOWN: &[&str] = &[$($name,)*];

        impl CcConfig {
            /// The controller `name` with its parameters `params`, checked. The
            /// error is (parameter path relative to the `cc` table, message).
            pub fn from_params(
                name: &str,
                params: &Map<String, Value>,
            ) -> Result<CcConfig, (String, String)> {
                match name {
                    $($name => {
                        let cfg: $config = parse_params(params)?;
                        check_params!($check, cfg);
                        Ok(CcConfig::$variant(cfg))
                    })*
                    other => Err((
                        String::new(),
                        format!(
                            "\"{other}\" is not a congestion control; use one of {}",
                            KNOWN.join(", ")
                        ),
                    )),
                }
            }

            /// The name scenario files use.
            pub fn name(&self) -> &'static str {
                match self {
                    $(CcConfig::$variant(_) => $name,)*
                }
            }

            /// The controller, with its own random stream (BBR, BBRv3 and CDG draw
            /// from it).
            pub fn build(&self, rng: RngStream) -> Box<dyn CongestionControl> {
                match self {
                    $(CcConfig::$variant(cfg) => {
                        let build: fn($config, RngStream) -> Box<dyn CongestionControl> = $build;
                        build(cfg.clone(), rng)
                    })*
                }
            }
        }
    };
}

macro_rules! check_params {
    (checked, $cfg:ident) => {
        $cfg.check()?
    };
    (unchecked, $cfg:ident) => {};
}

// "tahoe" and "newreno" are Reno's AIMD with that loss recovery (`default_recovery`).
controllers! {
    Reno("reno", NoParams, unchecked, |_, _| Box::new(Reno)),
    Newreno("newreno", NoParams, unchecked, |_, _| Box::new(Reno)),
    Tahoe("tahoe", NoParams, unchecked, |_, _| Box::new(Reno)),
    Vegas("vegas", VegasConfig, checked, |c, _| Box::new(Vegas::new(c))),
    Veno("veno", VenoConfig, unchecked, |c, _| Box::new(Veno::new(c))),
    Westwood("westwood", WestwoodConfig, checked, |c, _| Box::new(Westwood::new(c))),
    WestwoodPlus("westwood_plus", WestwoodPlusConfig, checked, |c, _| Box::new(Westwood::plus(c))),
    Cubic("cubic", CubicConfig, checked, |c, _| Box::new(Cubic::new(c))),
    Dctcp("dctcp", DctcpConfig, checked, |c, _| Box::new(Dctcp::new(c))),
    Bic("bic", NoParams, unchecked, |_, _| Box::new(Bic::default())),
    Compound("compound", CompoundConfig, unchecked, |c, _| Box::new(Compound::new(c))),
    HighSpeed("highspeed", HighSpeedConfig, checked, |c, _| Box::new(HighSpeed::new(c))),
    Scalable("scalable", ScalableConfig, checked, |c, _| Box::new(Scalable::new(c))),
    Hybla("hybla", HyblaConfig, checked, |c, _| Box::new(Hybla::new(c))),
    Bbr("bbr", BbrConfig, checked, |c, rng| Box::new(Bbr::new(c, rng))),
    Htcp("htcp", HtcpConfig, unchecked, |c, _| Box::new(Htcp::new(c))),
    Illinois("illinois", IllinoisConfig, unchecked, |c, _| Box::new(Illinois::new(c))),
    Yeah("yeah", YeahConfig, checked, |c, _| Box::new(Yeah::new(c))),
    Cdg("cdg", CdgConfig, checked, |c, rng| Box::new(Cdg::new(c, rng))),
    Bbr3("bbr3", Bbr3Config, checked, |c, rng| Box::new(Bbr3::new(c, rng))),
}

impl CcConfig {
    /// The loss recovery a flow gets when its scenario names none: "tahoe" →
    /// Tahoe, "reno" → Reno, every other controller → NewReno (ns-2's agents
    /// `Agent/TCP`, `Agent/TCP/Reno`, `Agent/TCP/Newreno`).
    pub fn default_recovery(&self) -> Recovery {
        match self {
            CcConfig::Tahoe(_) => Recovery::Tahoe,
            CcConfig::Reno(_) => Recovery::Reno,
            _ => Recovery::NewReno,
        }
    }

    /// The controller needs ECN (Linux's `TCP_CONG_NEEDS_ECN`, which only
    /// `tcp_dctcp.c` sets): its ends ask for and accept ECN whatever their
    /// `tcp_ecn`, and echo and mark as DCTCP does (`ecn.rs`, `ecn_echo.rs`).
    pub fn needs_ecn(&self) -> bool {
        matches!(self, CcConfig::Dctcp(_))
    }
}

/// Parameters of a variant that has none: any key is an error.
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoParams {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_known_name_builds_and_only_those() {
        let none = Map::new();
        for name in KNOWN {
            let cfg = CcConfig::from_params(name, &none).unwrap();
            assert_eq!(cfg.name(), *name);
            // Reno, NewReno and Tahoe share one controller; the others are their own.
            let built = cfg.build(crate::rng::stream(1, "flows[0].cc")).name();
            assert!(built == *name || ["reno", "newreno", "tahoe"].contains(name));
        }
        let err = CcConfig::from_params("warp", &none).unwrap_err();
        assert_eq!(err.0, "");
        assert_eq!(
            err.1,
            format!(
                "\"warp\" is not a congestion control; use one of {}",
                KNOWN.join(", ")
            )
        );
    }

    #[test]
    fn only_dctcp_needs_ecn() {
        // Linux sets TCP_CONG_NEEDS_ECN in tcp_dctcp.c's ops alone.
        let none = Map::new();
        for name in KNOWN {
            let cfg = CcConfig::from_params(name, &none).unwrap();
            assert_eq!(cfg.needs_ecn(), *name == "dctcp", "{name}");
        }
    }

    #[test]
    fn recovery_defaults_follow_the_controller() {
        let none = Map::new();
        let recovery = |name| {
            CcConfig::from_params(name, &none)
                .unwrap()
                .default_recovery()
        };
        assert_eq!(recovery("tahoe"), Recovery::Tahoe);
        assert_eq!(recovery("reno"), Recovery::Reno);
        for name in KNOWN.iter().filter(|n| !["tahoe", "reno"].contains(n)) {
            assert_eq!(recovery(name), Recovery::NewReno, "{name}");
        }
    }
}
