//! Checks every topic shares: a node or a flow named by a reference, a list without repeats, a
//! probability, RFC 6298's RTO parameters (TCP's `tcp.rto`, SCTP's `sctp.rto`). They
//! name no topic: a topic uses them here, never from another topic's checks.

use std::collections::{HashMap, HashSet};

use super::error::ScenarioError;
use super::shown::{bare, quoted};
use crate::packet::FlowId;
use crate::time::SimTime;
use crate::transport::tcp::rto::RtoConfig;

/// Node ids by name: every node the scenario declares or a link, a channel or a cell
/// names (`Scenario::node_names`).
pub type NodeIds = HashMap<String, usize>;

/// Flow ids by name, for the stages that name a flow (a trigger, a drop list): every
/// flow's name (its own, or `flow<i>`) and its id, in scenario order.
pub struct FlowIds {
    names: Vec<String>,
    ids: Vec<FlowId>,
}

impl FlowIds {
    /// The flows called `names` (in scenario order), whose ids are `ids`.
    pub fn new(names: Vec<String>, ids: Vec<FlowId>) -> FlowIds {
        FlowIds { names, ids }
    }

    /// The id of the flow called `name`, or an error at `path` listing the flows.
    pub fn id(&self, path: &str, name: &str) -> Result<FlowId, ScenarioError> {
        if let Some(k) = self.names.iter().position(|n| n == name) {
            return Ok(self.ids[k]);
        }
        Err(ScenarioError::new(
            path,
            format!(
                "\"{name}\" is not a flow; known flows: {}",
                self.names.join(", ")
            ),
        ))
    }
}

/// `name` is a node of `nodes`, or an error at `path` listing the known ones.
pub fn known_node(nodes: &NodeIds, path: &str, name: &str) -> Result<(), ScenarioError> {
    if nodes.contains_key(name) {
        return Ok(());
    }
    let mut known: Vec<(&String, &usize)> = nodes.iter().collect();
    known.sort_by_key(|(_, i)| **i);
    const LISTED: usize = 20;
    let mut list: Vec<String> = known.iter().take(LISTED).map(|(n, _)| bare(n)).collect();
    if known.len() > LISTED {
        list.push(format!("… and {} more", known.len() - LISTED));
    }
    Err(ScenarioError::new(
        path,
        format!(
            "{} is not a node; known nodes: {}",
            quoted(name),
            list.join(", ")
        ),
    ))
}

/// Refuses a name listed twice in `names` (the list at `path`), in linear time.
pub fn listed_once(path: &str, names: &[String]) -> Result<(), ScenarioError> {
    let mut seen = HashSet::with_capacity(names.len());
    for (k, name) in names.iter().enumerate() {
        if !seen.insert(name) {
            return Err(ScenarioError::new(
                format!("{path}[{k}]"),
                format!("{} is listed twice", quoted(name)),
            ));
        }
    }
    Ok(())
}

/// `p` is a probability, or an error at `path`.
pub fn probability(path: &str, p: f64) -> Result<(), ScenarioError> {
    if (0.0..=1.0).contains(&p) {
        Ok(())
    } else {
        Err(ScenarioError::new(
            path,
            format!("{p} is not a probability; use a value in [0, 1]"),
        ))
    }
}

/// RTO parameters under `path` (`flows[0].tcp.rto`, `flows[0].sctp.rto`).
pub fn check_rto(path: &str, rto: &RtoConfig) -> Result<(), ScenarioError> {
    let at = |field: &str| format!("{path}.{field}");
    if rto.initial == SimTime::ZERO {
        return Err(ScenarioError::new(at("initial"), "must be positive"));
    }
    if rto.min > rto.max {
        return Err(ScenarioError::new(
            at("min"),
            format!("{} is larger than rto.max ({})", rto.min, rto.max),
        ));
    }
    if rto.max == SimTime::ZERO {
        return Err(ScenarioError::new(at("max"), "must be positive"));
    }
    Ok(())
}
