//! The tcp topic: a TCP sender's `tcp` table as written (`spec.rs`), the named
//! profiles under it (`profile.rs`), its options resolved and checked into
//! `TcpOptions` (`options.rs`), and the sender's plan (`TcpPlan`: controller,
//! loss recovery, options) that `build.rs` turns into a flow's agents. A flow and
//! a generator's connections are both TCP senders checked here.
//!
//! A new TCP option is one file, `options.rs`: its field in `TcpSpec`, its
//! resolution in `TcpOptions::resolve`, its line in `over` and `table`, and its
//! hand-over to the agents in `tcp_agents`; `profile.rs` only if a profile sets
//! it, `ranges.rs` only if it has a range.

mod build;
mod options;
mod profile;
mod ranges;
mod spec;

pub use build::flow;
pub use options::{tcp_agents, TcpOptions, TcpSpec, DEFAULT_MSS, DEFAULT_MTU, DEFAULT_RWND};
pub use profile::TcpProfile;
pub use spec::{RepeatedTimeoutSpec, ScenarioTcpSpec, TcpRtoSpec};

use crate::scenario::cc_spec::CcSpec;
use crate::scenario::error::ScenarioError;
use crate::scenario::spec::RecoverySpec;
use crate::transport::tcp::cc::CcConfig;
use crate::transport::tcp::recovery::Recovery;

/// What checking a TCP sender (a flow, or a generator's connections) yields: its
/// controller, its loss recovery and its options.
#[derive(Clone, Debug)]
pub struct TcpPlan {
    pub cc: CcConfig,
    pub recovery: Recovery,
    pub options: TcpOptions,
}

/// The controller, recovery and TCP options of a TCP sender under `path` (a flow,
/// or a generator's connections), its options over `profile` when it names none.
/// The loss recovery defaults to `CcConfig::default_recovery`, or SACK recovery
/// with SACK on.
pub fn check(
    path: &str,
    cc: &CcSpec,
    recovery: Option<RecoverySpec>,
    tcp: &TcpSpec,
    profile: Option<TcpProfile>,
) -> Result<TcpPlan, ScenarioError> {
    let at = |field: &str| format!("{path}.{field}");
    let profile = tcp.profile.or(profile).unwrap_or_default();
    let mut params = profile.cc_params(&cc.name);
    params.extend(cc.params.clone());
    let controller = CcConfig::from_params(&cc.name, &params).map_err(|(field, message)| {
        let field_path = if field.is_empty() {
            at("cc")
        } else {
            at(&format!("cc.{field}"))
        };
        ScenarioError::new(field_path, message)
    })?;
    let mut options = TcpOptions::resolve(path, tcp, Some(profile))?;
    if recovery == Some(RecoverySpec::Sack) && !options.sack {
        return Err(ScenarioError::new(
            at("recovery"),
            "\"sack\" needs SACK blocks; set tcp.sack = true",
        ));
    }
    // The profile's RACK goes with a recovery the flow chose without SACK's (as
    // its D-SACK goes with `sack = false`); RACK the flow asks for is checked.
    if options.rack && recovery.is_some_and(|r| r != RecoverySpec::Sack) {
        if tcp
            .rack
            .filter(|&v| Some(v) != profile.table().rack)
            .is_none()
        {
            options.rack = false;
        } else {
            return Err(ScenarioError::new(
                format!("{path}.tcp.rack"),
                "RACK-TLP detects losses for SACK recovery; set recovery = \"sack\" or leave it unset",
            ));
        }
    }
    let recovery = match recovery {
        Some(RecoverySpec::Tahoe) => Recovery::Tahoe,
        Some(RecoverySpec::Reno) => Recovery::Reno,
        Some(RecoverySpec::Newreno) => Recovery::NewReno,
        Some(RecoverySpec::Sack) => Recovery::Sack,
        None if options.sack => Recovery::Sack,
        None => controller.default_recovery(),
    };
    Ok(TcpPlan {
        cc: controller,
        recovery,
        options,
    })
}
