//! From a checked `Plan` to a runnable `World`.
//!
//! Ids: nodes in `Topology::node_names` order; link `i` gives direction `2i`
//! (forward, first node to second) and `2i + 1` (reverse); flows in file order.
//! Random streams are named after the component's place in the scenario
//! (`links[0].impairments[1].forward`), so adding a component elsewhere leaves
//! every other draw unchanged.

use super::generator;
use super::link;
use super::plan::{Plan, TransportPlan};
use super::sctp;
use super::tcp;
use super::udp;
use super::wifi;
use super::wimax;
use crate::net::medium::AnyMedium;
use crate::trace::pcap::Captures;
use crate::trace::Recorder;
use crate::world::{Flow, LinkInfo, SctpFlow, Trigger, UdpFlow, World, WorldParts};

/// Builds the world for one run of `plan` with `seed`. Everything that could be
/// wrong was found when the plan was made, so this cannot fail.
pub fn build(plan: &Plan, seed: u64) -> World {
    let topology = &plan.topology;
    let trace = &plan.trace;
    let node_count = topology.node_names.len();

    let (media, link_info, triggers) = media(plan, seed);
    let (flows, associations, udp) = flows(plan, seed);
    let tcp_flows = flows.len();
    World::new(WorldParts {
        name: plan.name.clone(),
        seed,
        end: plan.end,
        node_names: topology.node_names.clone(),
        media,
        link_info,
        routes: topology.routes.clone(),
        hops: topology.hops.clone(),
        flows,
        associations,
        udp,
        generators: generator::build(&plan.generators, seed),
        recorder: Recorder::new(&trace.recorder, tcp_flows),
        triggers,
        captures: Captures::new(node_count, &trace.pcap),
        memory_budget: plan.memory_budget,
    })
}

/// The media table in the order `Topology` numbers hops (link directions, then
/// 802.11 channels, then 802.16 cells), each link direction's name, and the stages
/// a flow's segment starts.
fn media(plan: &Plan, seed: u64) -> (Vec<AnyMedium>, Vec<LinkInfo>, Vec<Trigger>) {
    let mut media =
        Vec::with_capacity(2 * plan.links.len() + plan.wireless.len() + plan.cells.len());
    let mut link_info = Vec::with_capacity(2 * plan.links.len());
    let mut triggers = Vec::new();
    for (i, l) in plan.links.iter().enumerate() {
        for direction in link::build(seed, i, l, plan.trace.queues) {
            for (flow, segment, stage) in direction.triggers {
                triggers.push(Trigger {
                    flow,
                    segment,
                    medium: media.len(),
                    stage,
                });
            }
            media.push(direction.medium);
            link_info.push(LinkInfo {
                name: l.name.clone(),
                direction: direction.name,
            });
        }
    }

    for (c, w) in plan.wireless.iter().enumerate() {
        let (channel, channel_triggers) = wifi::build(seed, c, w);
        for (flow, segment, stage) in channel_triggers {
            triggers.push(Trigger {
                flow,
                segment,
                medium: media.len(),
                stage,
            });
        }
        media.push(AnyMedium::Wifi(Box::new(channel)));
    }

    for (c, cell) in plan.cells.iter().enumerate() {
        media.push(AnyMedium::Wimax(Box::new(wimax::build(seed, c, cell))));
    }

    (media, link_info, triggers)
}

/// The flows of each transport, in scenario order within each.
fn flows(plan: &Plan, seed: u64) -> (Vec<Flow>, Vec<SctpFlow>, Vec<UdpFlow>) {
    let mut flows = Vec::with_capacity(plan.flows.len());
    let mut associations = Vec::new();
    let mut udp = Vec::new();
    for (i, f) in plan.flows.iter().enumerate() {
        match &f.transport {
            TransportPlan::Tcp {
                tcp,
                app_bytes,
                src,
                dst,
            } => flows.push(tcp::flow(
                seed,
                i,
                (&f.name, f.start, f.stop),
                tcp,
                *app_bytes,
                (*src, *dst),
            )),
            TransportPlan::Sctp(plan) => {
                associations.push(sctp::flow(seed, i, (&f.name, f.start, f.stop), plan))
            }
            TransportPlan::Udp { source, src, dst } => udp.push(udp::flow(
                seed,
                i,
                (&f.name, f.start, f.stop),
                source,
                (*src, *dst),
                (plan.end, plan.trace.recorder.throughput_bin),
            )),
        }
    }

    (flows, associations, udp)
}
