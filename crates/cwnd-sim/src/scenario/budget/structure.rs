//! What the scenario's lists hold whatever the run does: nodes and their route
//! table, links and their queues, flows and their initial windows, stations,
//! subscribers, impairment lists, explicit routes.

use std::collections::HashMap;

use super::traffic::{FlowKind, FlowTraffic};
use super::{
    Cost, Parts, DROP_ENTRY, FLOW, HELD_PACKET, LINK, NODE, ROUTE, ROUTE_EDGE, ROUTE_ENTRY,
    STATION, STEP,
};
use crate::net::queue::QueueLimit;
use crate::scenario::link::LinkPlan;
use crate::scenario::spec::Scenario;

/// What the scenario's lists hold whatever the run does.
pub(super) fn structure(spec: &Scenario, parts: &Parts, flows: &[FlowTraffic]) -> Vec<Cost> {
    let mut costs = Vec::new();
    costs.push(nodes(spec));
    costs.push(Cost {
        field: "links".into(),
        value: format!("{} links", spec.links.len()),
        what: "their directions and counters".into(),
        bytes: spec.links.len() as f64 * LINK,
    });
    costs.extend(queued(parts.links, flows));
    let in_flight: f64 = flows.iter().map(|f| f.in_flight).sum();
    costs.push(Cost {
        field: "flows".into(),
        value: format!("{} flows", spec.flows.len()),
        what: format!("their agents, traces, summaries and {in_flight:.0} packets in flight"),
        bytes: spec.flows.len() as f64 * FLOW + in_flight * HELD_PACKET,
    });
    let windows: Vec<(usize, u32)> = parts
        .flows
        .iter()
        .enumerate()
        .filter_map(|(i, kind)| match kind {
            FlowKind::Tcp { options, .. } => Some((i, options.initial_window)),
            _ => None,
        })
        .collect();
    if let Some(&(i, largest)) = windows.iter().max_by_key(|(_, w)| *w) {
        let segments: f64 = windows.iter().map(|&(_, w)| f64::from(w)).sum();
        costs.push(Cost {
            field: format!("flows[{i}].tcp.initial_window"),
            value: largest.to_string(),
            what: format!("{segments} segments sent at once, each with its record"),
            bytes: segments * HELD_PACKET,
        });
    }
    let channels = spec.wireless.iter().map(|w| w.stations.len() as f64);
    costs.extend(largest("wireless", "stations", channels, |n| {
        (
            format!("{n} stations"),
            format!("{:.3e} route edges between them", n * (n - 1.0)),
            n * (n - 1.0) * ROUTE_EDGE + n * STATION,
        )
    }));
    let cells = spec.wimax.iter().map(|c| c.subscribers.len() as f64);
    costs.extend(largest("wimax", "subscribers", cells, |n| {
        (
            format!("{n} subscribers"),
            format!("{n} subscriber stations"),
            n * (2.0 * ROUTE_EDGE + STATION),
        )
    }));
    costs.extend(impairment_lists(spec));
    costs.push(Cost {
        field: "routes".into(),
        value: format!("{} routes", spec.routes.len()),
        what: "explicit routes".into(),
        bytes: spec.routes.len() as f64 * ROUTE,
    });
    costs
}

/// One cost for the items of list `list` (`wireless`, `wimax`), each of `sizes[i]`
/// elements, named after the largest: `cost(n)` gives the value, what it holds
/// and the bytes of an item of n elements.
fn largest(
    list: &str,
    field: &str,
    sizes: impl Iterator<Item = f64>,
    cost: impl Fn(f64) -> (String, String, f64),
) -> Option<Cost> {
    let sizes: Vec<f64> = sizes.collect();
    let (i, &n) = sizes.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1))?;
    let (value, what, _) = cost(n);
    Some(Cost {
        field: format!("{list}[{i}].{field}"),
        value,
        what,
        bytes: sizes.iter().map(|&n| cost(n).2).sum(),
    })
}

/// The packets waiting in queues: a link direction that is the bottleneck of flows
/// that can send more than its rate fills its queue (a DropTail limit in bytes
/// counted in full packets), up to what those flows' windows leave beyond their
/// packets in flight.
fn queued(links: &[LinkPlan], flows: &[FlowTraffic]) -> Option<Cost> {
    let mut demand: HashMap<usize, f64> = HashMap::new();
    for f in flows {
        if let Some(direction) = f.bottleneck {
            *demand.entry(direction).or_default() += (f.window - f.in_flight).max(0.0);
        }
    }
    let held: Vec<(usize, f64)> = demand
        .into_iter()
        .map(|(direction, want)| {
            let limit = match links[direction / 2].params.queue {
                QueueLimit::Packets(n) => f64::from(n),
                QueueLimit::Bytes(b) => b as f64 / 1500.0,
            };
            (direction / 2, want.min(limit))
        })
        .collect();
    let &(link, _) = held
        .iter()
        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))?;
    let packets: f64 = held.iter().map(|(_, p)| p).sum();
    Some(Cost {
        field: format!("links[{link}].queue"),
        value: format!(
            "a queue of {}",
            match links[link].params.queue {
                QueueLimit::Packets(n) => format!("{n} packets"),
                QueueLimit::Bytes(b) => format!("{b} B"),
            }
        ),
        what: format!("{packets:.0} packets waiting in queues"),
        bytes: packets * HELD_PACKET,
    })
}

/// The lists of impairment stages (schedules, drop lists, empirical delays), named
/// after the longest: every element of a list of lists is a step, of a list of
/// values an entry.
fn impairment_lists(spec: &Scenario) -> Option<Cost> {
    use serde_json::Value;
    let hops = spec
        .links
        .iter()
        .map(|l| &l.impairments)
        .enumerate()
        .map(|(i, s)| ("links", i, s));
    let air = spec
        .wireless
        .iter()
        .map(|w| &w.impairments)
        .enumerate()
        .map(|(i, s)| ("wireless", i, s));
    let mut longest: Option<(String, f64)> = None;
    let mut bytes = 0.0;
    for (list, i, stages) in hops.chain(air) {
        for (j, stage) in stages.iter().enumerate() {
            let mut elements = 0.0;
            let mut stack: Vec<&Value> = stage.fields.values().collect();
            while let Some(value) = stack.pop() {
                match value {
                    Value::Array(items) => {
                        for item in items {
                            if matches!(item, Value::Array(_)) {
                                bytes += STEP;
                            } else {
                                bytes += DROP_ENTRY;
                            }
                            elements += 1.0;
                        }
                    }
                    Value::Object(table) => stack.extend(table.values()),
                    _ => {}
                }
            }
            if longest.as_ref().is_none_or(|(_, n)| elements > *n) {
                longest = Some((format!("{list}[{i}].impairments[{j}]"), elements));
            }
        }
    }
    let (field, elements) = longest?;
    Some(Cost {
        field,
        value: format!("a list of {elements}"),
        what: "the stages' schedules, drop lists and delays".into(),
        bytes,
    })
}

/// Nodes, and the route table of those that are not hosts on one link
/// (`net::routing`): one entry per ordered pair of them.
fn nodes(spec: &Scenario) -> Cost {
    let mut degree: HashMap<&str, u64> = HashMap::new();
    for n in &spec.nodes {
        degree.entry(&n.name).or_default();
    }
    for l in &spec.links {
        for end in &l.between {
            *degree.entry(end).or_default() += 1;
        }
    }
    for w in &spec.wireless {
        for s in &w.stations {
            *degree.entry(s).or_default() += w.stations.len() as u64 - 1;
        }
    }
    for c in &spec.wimax {
        *degree.entry(&c.base_station).or_default() += c.subscribers.len() as u64;
        for s in &c.subscribers {
            *degree.entry(s).or_default() += 1;
        }
    }
    let nodes = degree.len() as f64;
    let routers = degree.values().filter(|&&d| d != 1).count() as f64;
    Cost {
        field: "nodes".into(),
        value: format!("{nodes} nodes"),
        what: format!(
            "{routers} of them not hosts on one link: a route table of {routers}² entries"
        ),
        bytes: routers * routers * ROUTE_ENTRY + nodes * NODE,
    }
}
