//! The wireless topic: `[[wireless]]` entries, 802.11 channels (one collision domain
//! each, `net::wifi`). `spec.rs` holds the entry as written, `phy.rs` turns its
//! rates, preamble and frame errors into the channel's `PhyErrors`; here the entry is
//! checked into a `WirelessPlan` (stations by id, the channel's configuration, its
//! stages: loss stages only, checked by the impairment topic) and built into the
//! world's channel.

mod phy;
mod spec;

pub use spec::{PathLossSpec, PreambleSpec, RadioSpec, WirelessSpec};

use crate::net::wifi::channel::{ChannelConfig, WifiChannel};
use crate::packet::{FlowId, NodeId};
use crate::rng;
use crate::scenario::checks::{listed_once, FlowIds, NodeIds};
use crate::scenario::error::ScenarioError;
use crate::scenario::impairment::{self, StagePlan, StageSpec};
use crate::time::SimTime;

/// A wireless channel: its name, stations, configuration (PHY with its rates
/// and preamble, queue, frame errors, RTS threshold, MSDU lifetime) and stages.
#[derive(Clone, Debug, PartialEq)]
pub struct WirelessPlan {
    pub name: String,
    pub stations: Vec<NodeId>,
    pub config: ChannelConfig,
    pub stages: Vec<StagePlan>,
}

/// The most stations of an 802.11 channel: the routes between every ordered pair of
/// stations take time growing as the cube of their number to set up (`net::routing`'s
/// search per destination over every pair), about 2 s for 1 000 stations.
pub const MAX_STATIONS: usize = 1000;

/// Checks every `[[wireless]]` entry into its plan; node ids from `nodes`, the flows
/// its stages name from `flows`.
pub fn check(
    channels: &[WirelessSpec],
    nodes: &NodeIds,
    flows: &FlowIds,
) -> Result<Vec<WirelessPlan>, ScenarioError> {
    let channels = channels.iter().enumerate();
    channels
        .map(|(i, w)| check_channel(i, w, nodes, flows))
        .collect()
}

/// Channel `i` (`w`) checked into its plan.
fn check_channel(
    i: usize,
    w: &WirelessSpec,
    nodes: &NodeIds,
    flows: &FlowIds,
) -> Result<WirelessPlan, ScenarioError> {
    let at = |f: &str| format!("wireless[{i}].{f}");
    if w.stations.len() < 2 {
        return Err(ScenarioError::new(
            at("stations"),
            "a channel needs at least two stations",
        ));
    }
    if w.stations.len() > MAX_STATIONS {
        return Err(ScenarioError::new(
            at("stations"),
            format!(
                "{} stations; a channel has at most {MAX_STATIONS}: every ordered \
                 pair of stations is a route, and setting up routes takes time that \
                 grows as the cube of the stations",
                w.stations.len()
            ),
        ));
    }
    listed_once(&at("stations"), &w.stations)?;
    let phy = phy::phy(w).map_err(|(field, msg)| ScenarioError::new(at(field), msg))?;
    if w.queue_packets == 0 {
        return Err(ScenarioError::new(
            at("queue_packets"),
            "must be at least 1",
        ));
    }
    let phy = phy::errors(&format!("wireless[{i}]"), w, phy)?;
    if w.rts_threshold.is_some_and(|t| t.0 > 2347) {
        return Err(ScenarioError::new(
            at("rts_threshold"),
            "is at most 2347 B (802.11 dot11RTSThreshold); leave it out for no RTS/CTS",
        ));
    }
    if w.msdu_lifetime.0 == Some(SimTime::ZERO) {
        return Err(ScenarioError::new(
            at("msdu_lifetime"),
            "must be longer than 0 s (every frame would be discarded); use \"off\" for no lifetime",
        ));
    }
    Ok(WirelessPlan {
        name: w.name.clone().unwrap_or_else(|| format!("wireless{i}")),
        stations: w.stations.iter().map(|s| nodes[s] as NodeId).collect(),
        config: ChannelConfig {
            phy,
            queue_limit: w.queue_packets as usize,
            rts_threshold: w.rts_threshold.map(|s| s.0.min(u32::MAX as u64) as u32),
            msdu_lifetime: w.msdu_lifetime.0,
        },
        stages: air_stages(i, w, flows)?,
    })
}

/// Channel `i`'s stages, checked: on the air only loss stages apply, and an outage
/// drops (the MAC retries and drops frames; it holds none).
fn air_stages(
    i: usize,
    w: &WirelessSpec,
    flows: &FlowIds,
) -> Result<Vec<StagePlan>, ScenarioError> {
    let mut stages = Vec::with_capacity(w.impairments.len());
    for (j, imp) in w.impairments.iter().enumerate() {
        let path = format!("wireless[{i}].impairments[{j}]");
        let plan = impairment::check(&path, imp, flows)?;
        let stage = &plan.stage;
        if *stage == (StageSpec::Outage { hold: true }) {
            return Err(ScenarioError::new(
                format!("{path}.mode"),
                "\"hold\" applies to links; on the air the MAC retries and drops frames (use \"drop\")",
            ));
        }
        if matches!(
            stage,
            StageSpec::Reorder(_) | StageSpec::DelayStep { .. } | StageSpec::Arq(_)
        ) {
            return Err(ScenarioError::new(
                format!("{path}.kind"),
                format!(
                    "\"{}\" delays packets; on the air only loss stages apply (bernoulli, gilbert_elliott, drop_list, outage)",
                    imp.kind
                ),
            ));
        }
        stages.push(plan);
    }
    Ok(stages)
}

/// Channel `c` from its plan, with its stages' triggers as (flow, segment, stage
/// index). Streams: `wireless[c].contention`, `.errors`, and the stages'.
pub fn build(seed: u64, c: usize, w: &WirelessPlan) -> (WifiChannel, Vec<(FlowId, u64, usize)>) {
    let (chain, triggers) = impairment::chain(seed, &w.stages, &format!("wireless[{c}]"), None);
    let mut channel = WifiChannel::new(
        w.name.clone(),
        w.stations.clone(),
        w.config,
        rng::stream(seed, &format!("wireless[{c}].contention")),
        rng::stream(seed, &format!("wireless[{c}].errors")),
    );
    channel.impairments = chain;
    (channel, triggers)
}
