//! The link topic: `[[links]]` entries, point-to-point links. A link's spec (its two
//! ends, rate, delay, framing overhead, queue: `queue.rs`, impairment stages), its
//! check into a `LinkPlan` (RED's defaults filled in, ranges checked, stages checked
//! by the impairment topic), and its build: both directions from the plan alone.
//! A link's capacity (`bandwidth` today; a trace of it, `capacity = { … }`) is a
//! field of `LinkSpec` checked into `LinkPlan::params` here.

mod capacity;
mod queue;

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

pub use capacity::CapacitySpec;
pub use queue::{DisciplineName, DisciplinePlan, QueueSpec, RedSpec, DEFAULT_QUEUE_PACKETS};

use super::checks::{FlowIds, NodeIds};
use super::error::ScenarioError;
use super::impairment::{self, Direction, ImpairmentSpec, StagePlan};
use crate::net::capacity::Capacity;
use crate::net::link::{LinkDirection, LinkParams};
use crate::net::medium::AnyMedium;
use crate::net::qdisc::{CoDelQueue, Discipline, DropTail, FqCoDel, FqPie, PieQueue};
use crate::net::red::{Red, RedParams};
use crate::packet::{FlowId, NodeId};
use crate::rng;
use crate::units::{Duration, Rate, Size};

/// A `[[links]]` entry: a point-to-point link, the same both ways.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    #[serde(default)]
    pub name: Option<String>,
    /// The two end nodes; "forward" is from the first to the second.
    #[serde(deserialize_with = "two_nodes")]
    pub between: [String; 2],
    pub bandwidth: Rate,
    pub delay: Duration,
    #[serde(default)]
    pub queue: QueueSpec,
    /// A capacity that moves (`capacity.rs`); without it, `bandwidth` both ways.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity: Option<CapacitySpec>,
    /// Link-layer bytes added to every packet (e.g. "14B" for Ethernet framing).
    #[serde(default)]
    pub overhead: Size,
    #[serde(default)]
    pub impairments: Vec<ImpairmentSpec>,
}

/// `between`: exactly two node names. A fixed-size array is not enough: the TOML
/// reader stops after the second element and drops the rest, so `["a", "b", "-5ms"]`
/// would be read as a link a–b.
fn two_nodes<'de, D: serde::Deserializer<'de>>(d: D) -> Result<[String; 2], D::Error> {
    let names = Vec::<String>::deserialize(d)?;
    let found = names.len();
    <[String; 2]>::try_from(names).map_err(|_| {
        serde::de::Error::invalid_length(found, &"a list of two node names, e.g. [\"a\", \"b\"]")
    })
}

impl LinkSpec {
    /// The link's name: its own, or `<a>-<b>`.
    pub fn link_name(&self) -> String {
        self.name
            .clone()
            .unwrap_or_else(|| format!("{}-{}", self.between[0], self.between[1]))
    }
}

/// A link, checked: what both of its directions are built from.
#[derive(Clone, Debug)]
pub struct LinkPlan {
    /// Its own name, or `<a>-<b>` (`LinkSpec::link_name`).
    pub name: String,
    /// The two end nodes; the forward direction goes from the first to the second.
    pub ends: [NodeId; 2],
    /// Rate, delay, overhead and DropTail limit, the same both ways.
    pub params: LinkParams,
    /// RED in front of each direction's queue (`net::red`), when configured.
    pub red: Option<RedParams>,
    /// The queue discipline of each direction (`net::qdisc`); `None`: DropTail.
    pub discipline: Option<DisciplinePlan>,
    /// Each direction's capacity, forward then reverse (`Fixed`: `params.rate_bps`).
    pub capacity: [Capacity; 2],
    /// Impairment stages of both directions (`StagePlan::direction`).
    pub stages: Vec<StagePlan>,
}

/// Checks every `[[links]]` entry into its plan; node ids from `nodes`, the flows
/// its stages name from `flows`.
pub fn check(
    links: &[LinkSpec],
    nodes: &NodeIds,
    flows: &FlowIds,
) -> Result<Vec<LinkPlan>, ScenarioError> {
    let mut names = HashMap::new();
    let mut plans = Vec::with_capacity(links.len());
    for (i, l) in links.iter().enumerate() {
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
        if let Some(prev) = names.insert(l.link_name(), i) {
            return Err(ScenarioError::new(
                at("name"),
                format!(
                    "\"{}\" is also the name of links[{prev}]; give each link a unique name",
                    l.link_name()
                ),
            ));
        }
        if l.bandwidth.0 == 0 {
            return Err(ScenarioError::new(
                at("bandwidth"),
                "must be positive, e.g. \"10Mbps\"",
            ));
        }
        let discipline = l.queue.check(&at("queue"))?;
        let capacity = match &l.capacity {
            Some(c) => c.check(&at("capacity"))?,
            None => [Capacity::Fixed, Capacity::Fixed],
        };
        // A moving capacity puts RED on the dequeue path (`net/qdisc/drop_tail.rs`),
        // which does not mark yet: refused rather than dropping what should be marked.
        if l.capacity.is_some() && l.queue.red.as_ref().is_some_and(|r| r.ecn) {
            return Err(ScenarioError::new(
                at("queue.red.ecn"),
                "true is not available with a `capacity` (RED marks only at a fixed rate \
                 for now); set ecn = false or remove the capacity",
            ));
        }
        let stages =
            l.impairments.iter().enumerate().map(|(j, imp)| {
                impairment::check(&format!("links[{i}].impairments[{j}]"), imp, flows)
            });
        plans.push(LinkPlan {
            name: l.link_name(),
            ends: l.between.each_ref().map(|n| nodes[n] as NodeId),
            params: LinkParams {
                rate_bps: l.bandwidth.0,
                delay: l.delay.0,
                overhead: l.overhead.0 as u32,
                queue: l.queue.limit(),
            },
            red: l.queue.red.as_ref().map(RedSpec::params),
            discipline,
            capacity,
            stages: stages.collect::<Result<_, _>>()?,
        });
    }
    Ok(plans)
}

/// Writes every parameter of each link's discipline into its spec (`plans`, the
/// links checked), so that the canonical spec shows the defaults it ran with.
pub fn write_queue_defaults(links: &mut [LinkSpec], plans: &[LinkPlan]) {
    for (spec, plan) in links.iter_mut().zip(plans) {
        if let Some(discipline) = &plan.discipline {
            spec.queue.write_defaults(discipline);
        }
    }
}

/// One direction of a link, built: the medium that runs it (the kernel's direction
/// on its fast path, or behind a discipline on its dequeue path), its name in
/// results ("forward", "reverse") and its stages' triggers as (flow, segment, stage
/// index).
pub struct BuiltDirection {
    pub medium: AnyMedium,
    pub name: &'static str,
    pub triggers: Vec<(FlowId, u64, usize)>,
}

/// Both directions of link `i` from its plan, forward (first end to second) then
/// reverse; `trace_queue` records their queues' occupancy.
pub fn build(seed: u64, i: usize, l: &LinkPlan, trace_queue: bool) -> [BuiltDirection; 2] {
    let [a, b] = l.ends;
    [
        direction(seed, i, l, trace_queue, Direction::Forward, a, b),
        direction(seed, i, l, trace_queue, Direction::Reverse, b, a),
    ]
}

/// Direction `dir` (from `from` to `to`) of link `i`. RED draws from
/// `links[i].queue.red.<direction>`, a discipline from `links[i].queue.<direction>`
/// (FQ's hash key, PIE's drops).
fn direction(
    seed: u64,
    i: usize,
    l: &LinkPlan,
    trace_queue: bool,
    dir: Direction,
    from: NodeId,
    to: NodeId,
) -> BuiltDirection {
    let mut link = LinkDirection::new(from, to, l.params, trace_queue);
    let prefix = format!("links[{i}]");
    let name = if dir == Direction::Forward {
        "forward"
    } else {
        "reverse"
    };
    if let Some(red) = l.red {
        let stream = rng::stream(seed, &format!("{prefix}.queue.red.{name}"));
        link = link.with_red(Red::new(red, l.params.rate_bps, stream));
    }
    let (chain, triggers) = impairment::chain(seed, &l.stages, &prefix, Some(dir));
    link.impairments = chain;
    let capacity = l.capacity[(dir != Direction::Forward) as usize].clone();
    let medium = match (l.discipline, capacity) {
        (None, Capacity::Fixed) => AnyMedium::Link(link),
        (None, capacity) => {
            let mut fifo = DropTail::new(l.params.queue);
            if let Some(red) = l.red {
                let stream = rng::stream(seed, &format!("{prefix}.queue.red.{name}"));
                fifo = fifo.with_red(Red::new(red, l.params.rate_bps, stream));
            }
            link.with_queue(Discipline::DropTail(fifo), capacity)
        }
        (Some(plan), capacity) => {
            let stream = rng::stream(seed, &format!("{prefix}.queue.{name}"));
            let discipline = match plan {
                DisciplinePlan::CoDel(c) => Discipline::CoDel(CoDelQueue::new(c)),
                DisciplinePlan::FqCoDel(c) => Discipline::FqCoDel(FqCoDel::new(c, stream)),
                DisciplinePlan::Pie(c) => Discipline::Pie(PieQueue::new(c, stream)),
                DisciplinePlan::FqPie(c) => Discipline::FqPie(FqPie::new(c, stream)),
            };
            link.with_queue(discipline, capacity)
        }
    };
    BuiltDirection {
        medium,
        name,
        triggers,
    }
}

/// One link a–b (10 Mb/s, 5 ms) with `table` (`queue = { … }`, `capacity = { … }`)
/// and a flow a → b, for the tests of the link's tables.
#[cfg(test)]
fn one_link(table: &str) -> String {
    format!(
        r#"
        duration = "1s"
        [[links]]
        between = ["a", "b"]
        bandwidth = "10Mbps"
        delay = "5ms"
        {table}
        [[flows]]
        from = "a"
        to = "b"
        "#
    )
}

#[cfg(test)]
mod tests {
    use super::super::load;
    use super::*;
    use crate::net::queue::QueueLimit;
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
    fn red_marking_with_a_moving_capacity_is_refused_by_name() {
        let table = r#"queue = { packets = 100, red = { ecn = true } }
        capacity = { schedule = [["0s", "10Mbps"], ["1s", "2Mbps"]] }"#;
        let e = load(&one_link(table), None).expect_err("refused");
        assert_eq!(
            e.to_string(),
            "links[0].queue.red.ecn: true is not available with a `capacity` (RED marks \
             only at a fixed rate for now); set ecn = false or remove the capacity"
        );
        let without = r#"queue = { packets = 100, red = { ecn = false } }
        capacity = { schedule = [["0s", "10Mbps"], ["1s", "2Mbps"]] }"#;
        assert!(load(&one_link(without), None).is_ok());
    }

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
