//! From a checked `Plan` to a runnable `World`.
//!
//! Ids: nodes in `Topology::node_names` order; link `i` gives direction `2i`
//! (forward, first node to second) and `2i + 1` (reverse); flows in file order.
//! Random streams are named after the component's place in the scenario
//! (`links[0].impairments[1].forward`), so adding a component elsewhere leaves
//! every other draw unchanged.

use super::link;
use super::plan::{FlowPlan, Plan, TransportPlan};
use super::spec::RepeatedTimeoutSpec;
use super::tcp_options::TcpOptions;
use super::validate::TcpPlan;
use super::wifi;
use super::wimax;
use crate::net::medium::AnyMedium;
use crate::packet::{NodeId, TCP_IP_HEADER, TCP_TIMESTAMP_OPTION};
use crate::rng;
use crate::trace::pcap::Captures;
use crate::trace::Recorder;
use crate::transport::tcp::handshake::Handshake;
use crate::transport::tcp::receiver::{DelayedAck, ReceiverConfig, TcpReceiver};
use crate::transport::tcp::recovery::{Recovery, RepeatedTimeout};
use crate::transport::tcp::sender::{SenderConfig, TcpSender};
use crate::transport::tcp::socket_options::kernel_sndbuf;
use crate::world::{Flow, LinkInfo, Trigger, World, WorldParts};

/// Builds the world for one run of `plan` with `seed`. Everything that could be
/// wrong was found when the plan was made, so this cannot fail.
pub fn build(plan: &Plan, seed: u64) -> World {
    let topology = &plan.topology;
    let trace = &plan.trace;
    let node_count = topology.node_names.len();

    // The media table in the order `Topology` numbers hops: link directions, then
    // 802.11 channels, then 802.16 cells.
    let mut media =
        Vec::with_capacity(2 * plan.links.len() + plan.wireless.len() + plan.cells.len());
    let mut link_info = Vec::with_capacity(2 * plan.links.len());
    let mut triggers = Vec::new();
    for (i, l) in plan.links.iter().enumerate() {
        for direction in link::build(seed, i, l, trace.queues) {
            for (flow, segment, stage) in direction.triggers {
                triggers.push(Trigger {
                    flow,
                    segment,
                    medium: media.len(),
                    stage,
                });
            }
            media.push(AnyMedium::Link(direction.link));
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
            } => flows.push(tcp_flow(seed, i, f, tcp, *app_bytes, (*src, *dst))),
            TransportPlan::Sctp(sctp) => {
                associations.push(super::sctp_build::sctp_flow(seed, i, f, sctp))
            }
            TransportPlan::Udp { source, src, dst } => udp.push(super::udp_build::udp_flow(
                seed,
                i,
                f,
                source,
                (*src, *dst),
                (plan.end, trace.recorder.throughput_bin),
            )),
        }
    }

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
        generators: super::generator_build::generators(plan, seed),
        recorder: Recorder::new(&trace.recorder, tcp_flows),
        triggers,
        captures: Captures::new(node_count, &trace.pcap),
        memory_budget: plan.memory_budget,
    })
}

/// TCP flow `i` (`f`), sending `app_bytes` (`None`: bulk) from `src` to `dst`;
/// its controller draws from `flows[i].cc`.
fn tcp_flow(
    seed: u64,
    i: usize,
    f: &FlowPlan,
    tcp: &TcpPlan,
    app_bytes: Option<u64>,
    (src, dst): (NodeId, NodeId),
) -> Flow {
    let t = &tcp.options;
    let (sender_cfg, receiver_cfg) = tcp_agents(t, tcp.recovery, app_bytes);
    let rng = rng::stream(seed, &format!("flows[{i}].cc"));
    let cc = &tcp.cc;
    let controller = cc.build(rng);
    let flow = Flow::new(
        f.name.clone(),
        cc.name().to_string(),
        src,
        dst,
        TcpSender::new(sender_cfg, controller),
        TcpReceiver::new(receiver_cfg),
        f.start,
        f.stop,
        t.timestamps,
    );
    if t.handshake {
        flow.with_handshake(Handshake::new(t.rto))
    } else {
        flow
    }
}

/// The sender's and receiver's configuration from a flow's (or a generator's) TCP
/// options, its loss recovery and the bytes its application sends (`None`: bulk).
pub(super) fn tcp_agents(
    t: &TcpOptions,
    recovery: Recovery,
    app_bytes: Option<u64>,
) -> (SenderConfig, ReceiverConfig) {
    // The MSS asked for, clamped to the MTU, less the timestamp option.
    let mss = t.payload_mss();
    let sender_cfg = SenderConfig {
        mss,
        header: TCP_IP_HEADER
            + if t.timestamps {
                TCP_TIMESTAMP_OPTION
            } else {
                0
            },
        initial_window: t.initial_window,
        dupthresh: t.dupthresh,
        limited_transmit: t.limited_transmit,
        abc_limit: t.abc_limit,
        recovery,
        repeated_timeout: match t.ssthresh_on_repeated_timeout {
            RepeatedTimeoutSpec::Keep => RepeatedTimeout::Keep,
            RepeatedTimeoutSpec::Halve => RepeatedTimeout::Halve,
        },
        timestamps: t.timestamps,
        cc_sample: t.cc_sample,
        sack: t.sack,
        dsack_undo: t.dsack_undo,
        eifel: t.eifel,
        frto: t.frto,
        adapt_dupthresh: t.adapt_dupthresh.then_some((t.pef, t.pef_step)),
        rack: t.rack,
        rto: t.rto,
        app_bytes,
        write_size: t.write_size.map(|w| w.0),
        sndbuf: t.sndbuf.map(|b| kernel_sndbuf(b.0)),
        nagle: t.nagle,
        prr: t.prr,
    };
    let receiver_cfg = ReceiverConfig {
        buffer: t.receive_window,
        delayed_ack: t.delayed_ack.then_some(DelayedAck {
            timeout: t.delayed_ack_timeout,
            every: t.delayed_ack_every,
        }),
        quickack: t.quickack,
        mss,
        sack: t.sack,
        dsack: t.dsack,
        timestamps: t.timestamps,
    };
    (sender_cfg, receiver_cfg)
}
