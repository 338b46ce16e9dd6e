//! An impairment entry checked into its stage's plan: the fields every stage shares
//! (the link directions and packets it applies to, when it is active), the kind's
//! own parameters in range, and the flows it names by their ids.

use super::spec::StageSpec;
use super::spec::{
    AppliesToSpec, ArqStage, Common, Direction, ImpairmentSpec, PvSpec, ReorderSpec,
};
use crate::net::impair::AppliesTo;
use crate::packet::FlowId;
use crate::scenario::checks::{probability, FlowIds};
use crate::scenario::error::ScenarioError;
use crate::time::SimTime;
use crate::units::Duration;

/// One impairment stage of a link or a wireless channel, checked.
#[derive(Clone, Debug, PartialEq)]
pub struct StagePlan {
    /// The link directions it applies to (`Both` on the air, where there are none).
    pub direction: Direction,
    pub applies_to: AppliesTo,
    pub window: StageWindow,
    pub stage: StageSpec<FlowId>,
}

/// When a stage is active.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StageWindow {
    Always,
    /// From the first time to the second (`SimTime::MAX`: to the end of the run).
    Between(SimTime, SimTime),
    /// For `duration` from when flow `flow` first sends data segment `segment`.
    OnTrigger {
        flow: FlowId,
        segment: u64,
        duration: SimTime,
    },
}

/// Checks the entry at `path` (`links[0].impairments[1]`) into its stage, with the
/// flows it names by their ids.
pub fn check(
    path: &str,
    imp: &ImpairmentSpec,
    flows: &FlowIds,
) -> Result<StagePlan, ScenarioError> {
    let at = |field: &str| field_path(path, field);
    let (common, stage) = imp
        .parse()
        .map_err(|(field, message)| ScenarioError::new(at(&field), message))?;
    for (field, p) in ImpairmentSpec::probabilities(&stage) {
        probability(&at(&field), p)?;
    }
    let window = window(path, &common, flows)?;
    check_stage(path, &common, &stage)?;
    let stage = stage.resolve_flow(|name| flows.id(&at("flow"), name))?;
    Ok(StagePlan {
        direction: common.direction,
        applies_to: match common.applies_to {
            AppliesToSpec::Data => AppliesTo::Data,
            AppliesToSpec::Acks => AppliesTo::Acks,
            AppliesToSpec::All => AppliesTo::All,
        },
        window,
        stage,
    })
}

/// `path.field`, or `path` for the entry itself.
fn field_path(path: &str, field: &str) -> String {
    if field.is_empty() {
        path.to_string()
    } else {
        format!("{path}.{field}")
    }
}

/// When the stage at `path` is active: always, from a time for a duration, or for a
/// duration from a flow's segment.
fn window(path: &str, common: &Common, flows: &FlowIds) -> Result<StageWindow, ScenarioError> {
    let at = |field: &str| field_path(path, field);
    if common.start.is_some() && common.start_on.is_some() {
        return Err(ScenarioError::new(
            at("start_on"),
            "give either `start` (a time) or `start_on` (a flow event), not both",
        ));
    }
    let window = match (&common.start_on, common.start, common.duration) {
        (Some(trigger), _, duration) => {
            let flow = flows.id(&at("start_on.flow"), &trigger.flow)?;
            if trigger.segment == 0 {
                return Err(ScenarioError::new(
                    at("start_on.segment"),
                    "segments are counted from 1; 0 is not a segment",
                ));
            }
            let Some(duration) = duration else {
                return Err(ScenarioError::new(
                    at("duration"),
                    "a stage started by `start_on` needs a duration, e.g. \"5s\"",
                ));
            };
            StageWindow::OnTrigger {
                flow,
                segment: trigger.segment,
                duration: duration.0,
            }
        }
        (None, None, None) => StageWindow::Always,
        (None, start, duration) => {
            let start = start.map_or(SimTime::ZERO, |s| s.0);
            StageWindow::Between(start, duration.map_or(SimTime::MAX, |d| start + d.0))
        }
    };
    if common.duration.is_some_and(|d| d.0 == SimTime::ZERO) {
        return Err(ScenarioError::new(at("duration"), "must be positive"));
    }
    Ok(window)
}

/// The kind's own parameters at `path`, beyond their types and probabilities.
fn check_stage(path: &str, common: &Common, stage: &StageSpec) -> Result<(), ScenarioError> {
    let at = |field: &str| field_path(path, field);
    if *stage == (StageSpec::Outage { hold: true }) && common.duration.is_none() {
        return Err(ScenarioError::new(
            at("duration"),
            "an outage that holds packets needs a duration, e.g. \"5s\"",
        ));
    }
    match stage {
        StageSpec::DropList { packets, .. } if packets.contains(&0) => {
            return Err(ScenarioError::new(
                at("packets"),
                "packets are counted from 1; 0 is not a packet index",
            ));
        }
        StageSpec::Bernoulli { schedule } => check_schedule(&at("schedule"), schedule)?,
        StageSpec::Arq(ArqStage { pv, delay, .. }) => {
            if let PvSpec::Schedule(s) = pv {
                check_schedule(&at("pv_schedule"), s)?;
            }
            delay.check(&at("delay"))?;
        }
        StageSpec::Reorder(ReorderSpec::Random { delay, .. }) => delay.check(&at("delay"))?,
        StageSpec::Reorder(ReorderSpec::Exact { packet, .. }) if *packet == 0 => {
            return Err(ScenarioError::new(
                at("packet"),
                "packets are counted from 1",
            ))
        }
        _ => {}
    }
    Ok(())
}

/// A schedule's times must not go back.
fn check_schedule(path: &str, schedule: &[(Duration, f64)]) -> Result<(), ScenarioError> {
    for (i, w) in schedule.windows(2).enumerate() {
        if w[1].0 < w[0].0 {
            return Err(ScenarioError::new(
                format!("{path}[{}]", i + 1),
                format!(
                    "{} comes before the previous step ({})",
                    w[1].0 .0, w[0].0 .0
                ),
            ));
        }
    }
    Ok(())
}
