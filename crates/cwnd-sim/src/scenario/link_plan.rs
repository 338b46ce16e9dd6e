//! Links and their queues, checked into plans: each link's two ends, rate,
//! delay, framing overhead, DropTail limit (packets or bytes), RED parameters
//! (Floyd's defaults filled in, ranges checked) and impairment stages. `build`
//! makes both directions of a link from its plan alone.

use std::collections::HashMap;

use super::checks::FlowIds;
use super::error::ScenarioError;
use super::impairment::{self, StagePlan};
use super::spec::{QueueSpec, RedSpec, Scenario, DEFAULT_QUEUE_PACKETS};
use crate::net::link::LinkParams;
use crate::net::queue::QueueLimit;
use crate::net::red::RedParams;
use crate::packet::NodeId;

/// A link, checked: what both of its directions are built from.
#[derive(Clone, Debug)]
pub struct LinkPlan {
    /// Its own name, or `<a>-<b>` (`Scenario::link_name`).
    pub name: String,
    /// The two end nodes; the forward direction goes from the first to the second.
    pub ends: [NodeId; 2],
    /// Rate, delay, overhead and DropTail limit, the same both ways.
    pub params: LinkParams,
    /// RED in front of each direction's queue (`net::red`), when configured.
    pub red: Option<RedParams>,
    /// Impairment stages of both directions (`StagePlan::direction`).
    pub stages: Vec<StagePlan>,
}

impl Scenario {
    /// Checks every `[[links]]` entry into its plan; node ids from `nodes`.
    pub(super) fn check_links(
        &self,
        nodes: &HashMap<String, usize>,
        flows: &FlowIds,
    ) -> Result<Vec<LinkPlan>, ScenarioError> {
        if self.links.is_empty() && self.wireless.is_empty() && self.wimax.is_empty() {
            return Err(ScenarioError::new(
                "links",
                "a scenario needs at least one link, wireless channel or wimax cell",
            ));
        }
        let mut names = HashMap::new();
        let mut links = Vec::with_capacity(self.links.len());
        for (i, l) in self.links.iter().enumerate() {
            let at = |f: &str| format!("links[{i}].{f}");
            if l.between[0].is_empty() || l.between[1].is_empty() {
                return Err(ScenarioError::new(
                    at("between"),
                    "node names must not be empty",
                ));
            }
            if l.between[0] == l.between[1] {
                return Err(ScenarioError::new(
                    at("between"),
                    format!(
                        "links \"{}\" to itself; a link joins two different nodes",
                        l.between[0]
                    ),
                ));
            }
            if let Some(prev) = names.insert(self.link_name(i), i) {
                return Err(ScenarioError::new(
                    at("name"),
                    format!(
                        "\"{}\" is also the name of links[{prev}]; give each link a unique name",
                        self.link_name(i)
                    ),
                ));
            }
            if l.bandwidth.0 == 0 {
                return Err(ScenarioError::new(
                    at("bandwidth"),
                    "must be positive, e.g. \"10Mbps\"",
                ));
            }
            match (l.queue.packets, l.queue.bytes) {
                (Some(0), None) => {
                    return Err(ScenarioError::new(
                        at("queue.packets"),
                        "must be at least 1",
                    ))
                }
                (None, Some(b)) if b.0 == 0 => {
                    return Err(ScenarioError::new(at("queue.bytes"), "must be positive"))
                }
                (Some(_), None) | (None, Some(_)) => {}
                _ => {
                    return Err(ScenarioError::new(
                        at("queue"),
                        "give exactly one of `packets` or `bytes`",
                    ))
                }
            }
            if let Some(red) = &l.queue.red {
                check_red(&at("queue.red"), red)?;
            }
            let stages = l.impairments.iter().enumerate().map(|(j, imp)| {
                impairment::check(&format!("links[{i}].impairments[{j}]"), imp, flows)
            });
            links.push(LinkPlan {
                name: self.link_name(i),
                ends: l.between.each_ref().map(|n| nodes[n] as NodeId),
                params: LinkParams {
                    rate_bps: l.bandwidth.0,
                    delay: l.delay.0,
                    overhead: l.overhead.0 as u32,
                    queue: queue_limit(&l.queue),
                },
                red: l.queue.red.as_ref().map(RedSpec::params),
                stages: stages.collect::<Result<_, _>>()?,
            });
        }
        Ok(links)
    }
}

/// The DropTail limit: `bytes` when given, else `packets` (default
/// `DEFAULT_QUEUE_PACKETS`); the check lets exactly one through.
fn queue_limit(queue: &QueueSpec) -> QueueLimit {
    match queue.bytes {
        Some(bytes) => QueueLimit::Bytes(bytes.0),
        None => QueueLimit::Packets(queue.packets.unwrap_or(DEFAULT_QUEUE_PACKETS)),
    }
}

fn check_red(path: &str, red: &RedSpec) -> Result<(), ScenarioError> {
    let err =
        |field: &str, message: String| Err(ScenarioError::new(format!("{path}.{field}"), message));
    if !(red.min_th >= 0.0 && red.min_th.is_finite()) {
        return err(
            "min_th",
            format!("{} must be a number of packets ≥ 0", red.min_th),
        );
    }
    if !(red.max_th > red.min_th && red.max_th.is_finite()) {
        return err(
            "max_th",
            format!("{} must be above min_th ({})", red.max_th, red.min_th),
        );
    }
    if !(red.max_p > 0.0 && red.max_p <= 1.0) {
        return err(
            "max_p",
            format!("{} is not a probability in (0, 1]", red.max_p),
        );
    }
    if !(red.w_q > 0.0 && red.w_q <= 1.0) {
        return err(
            "w_q",
            format!("{} must be in (0, 1] (Floyd recommends 0.002)", red.w_q),
        );
    }
    if red.mean_packet.0 == 0 {
        return err("mean_packet", "must be positive, e.g. \"500B\"".to_string());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::load;
    use super::*;
    use crate::time::SimTime;

    const TWO_LINKS: &str = r#"
        duration = "1s"
        [[links]]
        between = ["a", "r"]
        bandwidth = "10Mbps"
        delay = "5ms"
        overhead = "14B"
        [[links]]
        name = "bottleneck"
        between = ["r", "b"]
        bandwidth = "2Mbps"
        delay = "20ms"
        queue = { bytes = "30000B", red = { max_p = 0.2 } }
        [[flows]]
        from = "a"
        to = "b"
    "#;

    #[test]
    fn a_link_plan_holds_its_ends_parameters_and_queue_discipline() {
        let plan = load(TWO_LINKS, None).unwrap();
        let (first, second) = (&plan.links[0], &plan.links[1]);
        // Node ids in order of appearance: a = 0, r = 1, b = 2.
        assert_eq!(first.ends, [0, 1]);
        assert_eq!(second.ends, [1, 2]);
        assert_eq!(first.name, "a-r");
        assert_eq!(second.name, "bottleneck");
        assert_eq!(first.params.rate_bps, 10_000_000);
        assert_eq!(first.params.delay, SimTime::from_millis(5));
        assert_eq!(first.params.overhead, 14);
        // No queue given: DropTail of DEFAULT_QUEUE_PACKETS (100) packets, no RED.
        assert_eq!(first.params.queue, QueueLimit::Packets(100));
        assert!(first.red.is_none());
        assert_eq!(second.params.queue, QueueLimit::Bytes(30_000));
        // RED: max_p as given, every other parameter Floyd's default.
        let red = second.red.unwrap();
        assert_eq!(red.max_p, 0.2);
        let floyd = RedParams::default();
        assert_eq!((red.min_th, red.max_th), (floyd.min_th, floyd.max_th));
        assert_eq!((red.w_q, red.gentle), (floyd.w_q, floyd.gentle));
        assert_eq!(red.mean_packet, floyd.mean_packet);
    }

    #[test]
    fn bad_red_parameters_are_refused_with_their_path() {
        let text = TWO_LINKS.replace("max_p = 0.2", "max_p = 1.5");
        let err = load(&text, None).unwrap_err();
        assert_eq!(
            err.to_string(),
            "links[1].queue.red.max_p: 1.5 is not a probability in (0, 1]"
        );
    }
}
